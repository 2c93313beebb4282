"""Does the order a juror's prompt lists the answers in sway its vote? Splits the plain
jurors' votes of an evaluation's court runs by gold answer and by the answer listed first.

    python -m bench.label_order_split RESULTS.jsonl --runs-dir RUNS

Each stored run keeps every juror's label order (``outputs["orders"]``) and its reply, so the
split needs no model. One table row per arm (the court and each control, as asked or
mirrored), gold answer and first-listed answer. With labels shuffled per juror
(``shuffle_labels = true``) both orders occur; with the default one order, only "yes" first. Figures only.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from courtroom_chat.evaluation.report import call_answer
from courtroom_chat.evaluation.runner import court_runs
from courtroom_chat.evaluation.stats import wilson
from courtroom_chat.records import RunRecord
from courtroom_chat.store import RunStore


def split(runs: list[tuple[dict, RunRecord]]) -> Counter:
    """(arm, gold, answer listed first, vote) -> juror votes, over the court rows' stored runs; an
    arm is the court's method and the question's framing (as asked, or its mirror)."""
    counts: Counter = Counter()
    for row, record in runs:
        arm = f"{row['method']}, {'mirrored' if row.get('framing') == 'mirror' else 'as asked'}"
        votes = {c.agent: call_answer(c.response) for c in record.trial_calls() if c.role == "juror" and c.ok}
        for agent, order in (record.outputs.get("orders") or {}).items():
            vote = votes.get(agent)
            if vote is not None:
                counts[(arm, row["gold"], "yes" if order["labels"][0] == "act" else "no", vote)] += 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", type=Path, help="an evaluation's results.jsonl")
    parser.add_argument("--runs-dir", type=Path, required=True, help="the runs folder its run ids point into")
    args = parser.parse_args()
    if not args.results.is_file():
        parser.error(f"no results file at {args.results}")
    runs, missing = court_runs(args.results, RunStore(args.runs_dir))
    counts = split(runs)
    print("| arm | gold | listed first | voted Yes | share (95% interval) |")
    print("|---|---|---|---|---|")
    for arm in dict.fromkeys(key[0] for key in counts):
        for gold in ("yes", "no"):
            for first in ("yes", "no"):
                yes, no = counts[(arm, gold, first, "yes")], counts[(arm, gold, first, "no")]
                if yes + no:
                    low, high = wilson(yes, yes + no)
                    print(f"| {arm} | {gold} | {first} | {yes} of {yes + no} | "
                          f"{yes / (yes + no):.0%} ({low:.0%}–{high:.0%}) |")
    if missing:
        print(f"\n{missing} court rows' runs are not in {args.runs_dir}: not counted")


if __name__ == "__main__":
    main()
