"""How often the classification court's preliminary hearing puts the gold label among the two it
proposes: the judges choose between those two, so that share is the court's ceiling.

    python -m bench.hearing_coverage RESULTS.jsonl --runs-dir RUNS [--runs-dir RUNS2]

Reads an evaluation's results and the court trials stored in the runs folders (trials not found
there are left out and counted). Prints, over the trials found: the gold among the hearing's two
labels, the court right on those, and one call (``single``) right overall and where the hearing
had the gold; and, from the same stored hearings (the first and the sampled ones), how often the
gold would be among the two with ``second_label = "sampled"`` (the court's ceiling under that
setting, not its accuracy, which needs the judges run again). Figures only.
"""

from __future__ import annotations

from bench.stored import arguments, court_trials, read_rows
from courtroom_chat.procedures.classification import sampled_second


def heard(record) -> list[tuple[str, str]]:
    """Every hearing of a stored trial, the first then the samples: (top, alternative)."""
    outputs = record.outputs
    names = ["magistrate"] + sorted((k for k in outputs if k.startswith("magistrate@")), key=lambda k: int(k.split("@")[1]))
    return [(outputs[k].get("top"), outputs[k].get("alternative")) for k in names if isinstance(outputs.get(k), dict)]


def main() -> None:
    paths, stores = arguments(__doc__)
    for path in paths:
        rows = read_rows(path)
        single = {r["item"]: r for r in rows if r["method"] == "single"}
        courts = sum(r["method"] == "court" for r in rows)
        found = covered = court_right = single_right = single_covered = sampled = changed = 0
        for row, record in court_trials(path, stores):
            hearing = record.outputs.get("hearing") or {}
            two = {hearing.get("first"), hearing.get("second")}
            found += 1
            inside = row["gold"] in two
            covered += inside
            hearings = heard(record)
            if len(hearings) > 1 and len(hearing.get("labels") or []) > 2:  # second_label = "sampled", offline
                second, _ = sampled_second(hearing.get("first"), hearings)
                sampled += row["gold"] in {hearing.get("first"), second}
                changed += second != hearing.get("second")
            court_right += inside and row["predicted"] == row["gold"]
            one = single.get(row["item"])
            if one is not None and one["predicted"] == one["gold"]:
                single_right += 1
                single_covered += inside
        print(f"{path}: {found} court trials found of {courts}")
        if found:
            print(f"  gold among the hearing's two labels: {covered}/{found} ({covered / found:.0%}), the court's ceiling")
            print(f"  court right: {court_right}/{found}; of the {covered} with the gold in the running, {court_right}")
            print(f"  one call right: {single_right}/{found}; {single_covered} of them where the hearing had the gold")
            if changed or sampled:
                print(f"  with second_label = \"sampled\" (the same stored hearings): gold among the two {sampled}/{found}"
                      f" ({sampled / found:.0%}); the second label differs on {changed}")


if __name__ == "__main__":
    main()
