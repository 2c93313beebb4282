"""Does the model see anything in a yes/no set? The per-call yes-rate on gold-yes and gold-no
items, from an evaluation's stored calls: the single call, the majority's five, and the court's
jurors (kept in the row since 2026-11-25, else read from the stored runs).

    python -m bench.per_call_signal RESULTS.jsonl [--runs-dir RUNS]

If a model says Yes as often to the gold-No items as to the gold-Yes ones, no way of asking it
(one call, a vote of five, a court whose jurors are such calls) is expected to beat chance on
that set; a difference between methods is then the draw of the calls, not the method. Prints,
per method and overall, the yes-rate each way with a 95% Wilson interval, the gap between
them, and the accuracy one call and a majority of five are expected to reach if every call on
an item is an independent draw at those rates. Reads what ``courtroom eval`` stored; calls no
model.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bench.stored import kept, read_rows
from courtroom_chat.evaluation.methods import juror_answers
from courtroom_chat.evaluation.report import per_call_signal, row_answers
from courtroom_chat.store import RunStore


def answers_with_jurors(store: RunStore | None):
    """A row's call answers: a baseline's stored calls, or a court run's plain jurors."""
    def answers(row: dict) -> list[str | None]:
        if row["method"] != "court" or "juror_answers" in (row.get("details") or {}):
            return row_answers(row)
        if not row.get("run_id") or store is None:
            return []
        record = store.find(row["run_id"])  # None: a run not kept on this machine
        return juror_answers(record) if record else []
    return answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", type=Path, help="an evaluation's results.jsonl")
    parser.add_argument("--runs-dir", type=Path, help="the runs folder the court's run ids point into")
    args = parser.parse_args()
    if not kept(args.results).is_file():
        parser.error(f"no results file at {args.results}; give an evaluation's results.jsonl")
    rows = read_rows(args.results)
    answers = answers_with_jurors(RunStore(args.runs_dir) if args.runs_dir else None)
    groups = {m: [r for r in rows if r["method"] == m] for m in dict.fromkeys(r["method"] for r in rows)}
    groups["all calls"] = rows
    print("| calls of | gold-Yes items answered Yes | gold-No items answered Yes | gap | calls |")
    print("|---|---|---|---|---|")
    for name, mine in groups.items():
        g = per_call_signal(mine, answers)
        if g is None:
            print(f"| {name} | - | - | - | 0 |")
            continue
        cells = [f"{g[k]:.0%} ({g[k + '_ci95'][0]:.0%}–{g[k + '_ci95'][1]:.0%})" for k in ("yes_on_yes", "yes_on_no")]
        print(f"| {name} | {cells[0]} | {cells[1]} | {g['gap']:+.0%} | {g['calls']['yes']} + {g['calls']['no']} |")
    g = per_call_signal(rows, answers)
    if g is not None:
        print(f"\nExpected accuracy if every call is an independent draw at these rates: one call "
              f"{g['expected_single']:.0%}, a majority of five {g['expected_majority']:.0%} "
              f"(true yes-share {g['true_yes_share']:.0%}).")


if __name__ == "__main__":
    main()
