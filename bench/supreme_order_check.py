"""The order check (``deliberation.order_check``) over supreme-court trials stored before it was
part of the outcome: for each court run of an evaluation, how many justices (final round) and
jurors voted for the verdict listed first to them, and the chance of that many if the order
played no part. Figures only.

    python bench/supreme_order_check.py RUNS --results RUNS/evals/<id>/results.jsonl
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from courtroom_chat.evaluation.runner import court_runs  # noqa: E402
from courtroom_chat.procedures.deliberation import ORDER_P, order_check  # noqa: E402
from courtroom_chat.procedures.supreme.rules import STANDARDS  # noqa: E402
from courtroom_chat.store import RunStore  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", type=Path, help="the runs folder holding the evaluation's trials")
    parser.add_argument("--results", type=Path, required=True, help="the evaluation's results.jsonl")
    args = parser.parse_args()
    if not args.results.is_file():
        parser.error(f"no results file at {args.results}")
    runs, missing = court_runs(args.results, RunStore(args.runs))
    print("| item | gold | court | right | justices' first-listed votes (p) | jurors' (p) |")
    print("|---|---|---|---|---|---|")
    driven = []
    for row, record in runs:
        out = record.outputs
        court = SimpleNamespace(params=SimpleNamespace(shuffle_labels=bool(out.get("orders"))),
                                record=SimpleNamespace(outputs=out))
        last = max(int(k.rpartition("@")[2]) for k in out if k.startswith("justice-") and "@" in k)
        labels = STANDARDS[out["verdict"]["type"]].labels
        bench = order_check(court, {k.partition("@")[0]: o["verdict"] for k, o in out.items()
                                    if k.startswith("justice-") and k.endswith(f"@{last}")}, labels, "justices")
        jury = order_check(court, {k: o["verdict"] for k, o in out.items() if k.startswith("juror-")}, labels, "jurors")
        if bench is None:
            print(f"| {row['item']} | {row['gold']} | {row['predicted']} | {row['correct']} | (one order) | |")
            continue
        driven.append((bench["p"] < ORDER_P, row["correct"]))
        cell = lambda c: f"{c['followed']} of {c['voters']} ({c['p']:.3g})" if c else "–"  # noqa: E731
        print(f"| {row['item']} | {row['gold']} | {row['predicted']} | {'yes' if row['correct'] else 'no'} | "
              f"{cell(bench)} | {cell(jury)} |")
    if missing:
        print(f"\n{missing} court runs are not in {args.runs}.")
    if driven:
        n = sum(d for d, _ in driven)
        right = sum(c for d, c in driven if d)
        print(f"\n{n} of {len(driven)} benches' votes followed the order (p < {ORDER_P}); {right} of them right.")


if __name__ == "__main__":
    main()
