"""Which of the first release's choices tilt the decision court's verdict? One table over
evaluations of the same clear cases that differ by one cause each.

    python bench/tilt_causes.py --runs-dir RUNS control=EVAL_ID threshold=EVAL_ID temps=EVAL_ID ...

Each evaluation is a run of ``bench/evidence_following.py`` on the same cases and seed, most
usefully with ``--reuse`` of the control's, so every request a variant makes in the control's
words (the prosecutor's, the defense's, a juror at the same temperature) gets the control's
reply, and what differs is the cause alone:

    python bench/evidence_following.py --no-baselines --runs-dir RUNS                       # control
    python bench/evidence_following.py --no-baselines --runs-dir RUNS --reuse CONTROL \\
        --param rule=threshold                                     # Yes needs 3 act votes and the judge
    ... --param juror_temperature_min=0.3 --param juror_temperature_max=1.2          # the first release's
    ... --param jury_asks=motion                                   # jurors with outlooks (balanced ones)
    ... --param jury_asks=motion --param persona_set=first-release # three of five cautious

Prints per evaluation: trials that follow the evidence each way, juror votes that do (each way,
and per juror temperature) and abstentions, trials where the judge's ruling went against the jury's majority, trials whose
defense challenged every verified exhibit exactly once, and the calls answered from the control.
Figures only: nothing passes or fails.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from evidence_following import defense_challenges, follows  # noqa: E402
from jury_following import by_temperature, jury_rows  # noqa: E402

from courtroom_chat.store import RunStore  # noqa: E402


def overruled(store: RunStore, rows: list[dict]) -> tuple[int, int]:
    """Trials whose ruling went against a jury majority (a tie is not counted), of those stored."""
    against = total = 0
    for row in rows:
        record = store.find(row["run_id"]) if row.get("run_id") else None
        if record is None:
            continue
        jury = record.outputs.get("jury") or {}
        verdict = (record.outputs.get("verdict") or {}).get("decision")
        act, hold = jury.get("guilty_count", 0), jury.get("not_guilty_count", 0)
        total += 1
        if act != hold and verdict in ("guilty", "not_guilty"):
            against += verdict != ("guilty" if act > hold else "not_guilty")
    return against, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs-dir", required=True)
    parser.add_argument("evaluations", nargs="+", metavar="NAME=EVAL_ID")
    args = parser.parse_args()
    store = RunStore(args.runs_dir)
    print("| variant | Yes cases answered Yes | No cases answered No | juror votes with the evidence (Yes / No "
          "cases) | abstentions | ruling against the jury's majority | defense challenged each exhibit once "
          "| calls reused | seconds a trial |")
    print("|---|---|---|---|---|---|---|---|---|")
    per_temperature = []
    for pair in args.evaluations:
        name, sep, ident = pair.partition("=")
        results = Path(args.runs_dir) / "evals" / ident / "results.jsonl"
        if not sep or not results.is_file():
            parser.error(f"{pair!r}: give NAME=EVAL_ID, an evaluation stored in {args.runs_dir}/evals")
        rows = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
        rows = [r for r in rows if r["method"] == "court" and r.get("framing", "asked") == "asked"]
        (y, ny), (n, nn) = follows(rows, "yes"), follows(rows, "no")
        jurors = jury_rows(store, rows)
        votes = [f"{sum(j['side'] == g for j in jurors if j['gold'] == g)}/{sum(j['gold'] == g for j in jurors)}"
                 for g in ("yes", "no")]
        abstained = sum(j["side"] == "abstain" for j in jurors)
        against, stored = overruled(store, rows)
        even = defense_challenges(store, rows)
        calls = sum(r.get("calls") or 0 for r in rows)
        reused = sum((r.get("details") or {}).get("reused_calls", 0) for r in rows)
        seconds = sum(r.get("seconds") or 0 for r in rows) / max(1, len(rows))
        print(f"| {name} | {y}/{ny} | {n}/{nn} | {votes[0]} / {votes[1]} | {abstained} | {against}/{stored} | "
              f"{even['even']}/{even['trials']} | {reused} of {calls} | {seconds:.0f} |")
        per_temperature.append(f"- {name}: {by_temperature(jurors)}")
    print("\nJuror votes with the evidence, per juror temperature:\n")
    print("\n".join(per_temperature))


if __name__ == "__main__":
    main()
