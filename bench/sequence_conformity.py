"""Issue 21's conformity of the classification court's judges in sequence, read from the stored
trials of an evaluation that seated both benches (``compare_modes = true``, as
``bench/classification/compare-k1.toml``, ``shots-k1.toml`` and ``modes-k1.toml`` do): judge n
in sequence against the same seat in parallel (judge 1 is shared, and both read the same
hearing, arguments and precedents), per number of precedents the trials ran.

Trials run since 2026-11-30 keep this in their records and ``courtroom eval`` reports it (the
"Between rounds" table); this reads it from older trials too. A seat whose own label differed
from the judge before it can only move toward that judge; one whose label matched can only move
away, which measures how often a judge's label changes for no reason (the sampling noise the
herding is read against).

    uv run python bench/sequence_conformity.py RUNS/evals/rte-classification-seed0-4d42bc10 RUNS
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from courtroom_chat.evaluation.report import switches
from courtroom_chat.procedures.classification import shot_tag
from courtroom_chat.procedures.deliberation import sequence_conformity
from courtroom_chat.store import RunStore


def benches(record, k: int | None) -> tuple[list[dict], list[dict]] | None:
    """The parallel and the sequential bench of a trial at ``k`` precedents (None: the verdict's own)."""
    arms = record.outcome.data.get("arms", {}) if record.outcome else {}
    if k is None:
        if record.outcome.data.get("mode") != "parallel" or "court-sequential" not in arms:
            return None
        return [record.outputs[f"judge-{n}"] for n in range(1, len(arms["court-sequential"]["judges"]) + 1)], \
            arms["court-sequential"]["judges"]
    par, seq = arms.get(f"court-{shot_tag(k)}"), arms.get(f"court-{shot_tag(k, 'sequential')}")
    return (par["judges"], seq["judges"]) if par and seq else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("evaluation", type=Path, help="the evaluation's folder (its results.jsonl)")
    parser.add_argument("runs", type=Path, help="the runs folder holding its trials")
    args = parser.parse_args()
    store = RunStore(args.runs)
    rows = [json.loads(line) for line in (args.evaluation / "results.jsonl").read_text().splitlines() if line.strip()]
    court = [r for r in rows if r["method"] == "court" and r["framing"] == "asked" and r.get("run_id")]
    records = {r["item"]: store.load(r["run_id"]) for r in court}
    shots = sorted({int(m.split("-")[-2]) for r in rows for m in [r["method"]] if m.endswith("-shot")})
    for k in (None, *shots):
        counted, differ, toward, same, away = [], 0, 0, 0, 0
        for r in court:
            found = benches(records[r["item"]], k)
            if not found:
                continue
            alone, chain = found
            conf = sequence_conformity(alone, chain, {})
            counted.append({"gold": r["gold"], "details": {"conformity": conf}})
            # a seat whose own label differed from the judge before can only move toward it, one
            # whose label matched only away: the moves are the ones sequence_conformity counted
            seats = len(conf["rounds"])
            unlike = sum(alone[n - 1]["label"] != chain[n - 2]["label"] for n in range(2, seats + 2))
            differ, toward = differ + unlike, toward + conf["toward"]
            same, away = same + seats - unlike, away + conf["away"]
        if not counted:
            continue
        name = "the verdict's precedents" if k is None else f"{k} precedent{'s' if k != 1 else ''}"
        per = switches(counted)
        total = {x: sum(v[x] for v in per.values()) for x in ("switches", "correct_to_wrong", "wrong_to_correct")}
        print(f"{name}: {len(counted)} trials; judges in sequence moved from their own label {total['switches']} times, "
              f"{total['correct_to_wrong']} right -> wrong, {total['wrong_to_correct']} wrong -> right")
        for n, c in per.items():
            print(f"  judge {n}: {c['switches']} moved ({c['toward_majority']} to the judge before, "
                  f"{c['away_from_majority']} away), {c['correct_to_wrong']} right -> wrong, "
                  f"{c['wrong_to_correct']} wrong -> right")
        herd = (f"own label differed from the judge before at {differ} seats, took that judge's at {toward} "
                f"({toward / differ:.0%})" if differ else "no seat differed from the judge before")
        print(f"  {herd}" + (f"; matched at {same}, left it at {away} ({away / same:.0%})" if same else ""))


if __name__ == "__main__":
    main()
