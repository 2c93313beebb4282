"""Does the order a juror's prompt lists the answers in sway its vote? Splits the plain
jurors' votes of an evaluation's court runs by gold answer and by the answer listed first.

    python bench/label_order_split.py RESULTS.jsonl --runs-dir RUNS

Each stored run keeps every juror's label order (``outputs["orders"]``) and its reply, so the
split needs no model. With labels shuffled per juror (``shuffle_labels = true``) both orders
occur; with the default one order, only "yes" first. Figures only.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from courtroom_chat.evaluation.report import call_answer  # noqa: E402
from courtroom_chat.evaluation.stats import wilson  # noqa: E402
from courtroom_chat.store import RunStore  # noqa: E402


def split(rows: list[dict], store: RunStore) -> tuple[Counter, int]:
    """(gold, answer listed first, vote) -> juror votes, over the court rows' stored runs, and
    how many court rows' runs this folder does not hold."""
    counts: Counter = Counter()
    missing = 0
    for row in rows:
        if not row["method"].startswith("court") or not row.get("run_id"):
            continue
        record = store.find(row["run_id"])
        if record is None:
            missing += 1
            continue
        votes = {c.agent: call_answer(c.response) for c in record.trial_calls() if c.role == "juror" and c.ok}
        for agent, order in (record.outputs.get("orders") or {}).items():
            vote = votes.get(agent)
            if vote is not None:
                counts[(row["gold"], "yes" if order["labels"][0] == "act" else "no", vote)] += 1
    return counts, missing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", type=Path, help="an evaluation's results.jsonl")
    parser.add_argument("--runs-dir", type=Path, required=True, help="the runs folder its run ids point into")
    args = parser.parse_args()
    if not args.results.is_file():
        parser.error(f"no results file at {args.results}")
    rows = [json.loads(line) for line in args.results.read_text().splitlines() if line.strip()]
    counts, missing = split(rows, RunStore(args.runs_dir))
    print("| gold | listed first | voted Yes | share (95% interval) |")
    print("|---|---|---|---|")
    for gold in ("yes", "no"):
        for first in ("yes", "no"):
            yes, no = counts[(gold, first, "yes")], counts[(gold, first, "no")]
            if yes + no:
                low, high = wilson(yes, yes + no)
                print(f"| {gold} | {first} | {yes} of {yes + no} | {yes / (yes + no):.0%} ({low:.0%}–{high:.0%}) |")
    if missing:
        print(f"\n{missing} court rows' runs are not in {args.runs_dir}: not counted")


if __name__ == "__main__":
    main()
