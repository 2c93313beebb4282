"""Jurors whose answer went against their own reasoning: the decision court's stored trials of
two or more evaluations of the same cases (one before a change, the others after), side by side.

    python -m bench.juror_consistency BEFORE/results.jsonl AFTER/results.jsonl [...] --runs-dir RUNS [--runs-dir RUNS2]

Per case and evaluation: the jury's votes (act - do not act), whether the verdict followed the
gold answer, how many jurors were asked again because their answer went against their reasoning
(``juror_consistency``), how many were then counted by their reasoning, and whether the judge was
asked again because its rationale argued against the decision. In all: verdicts right, juror
votes that follow the gold answer, jurors asked again, counted by their reasoning. Figures only.
"""

from __future__ import annotations

from bench.stored import arguments, court_trials

SIDE = {"guilty": "yes", "not_guilty": "no"}


def trial_figures(record, gold: str) -> dict:
    jurors = record.jury.jurors if record.jury is not None else []
    votes = [j.vote for j in jurors if j.status == "voted"]
    calls = [c for c in record.calls if c.role == "juror"]
    asked = {c.agent for c in calls if any("your reasoning says" in p for p in (c.problems or []))}
    judge = [c for c in record.calls if c.role == "judge"]
    return {
        "act": sum(v == "guilty" for v in votes), "not": sum(v == "not_guilty" for v in votes),
        "following": sum(SIDE.get(v) == gold for v in votes), "voted": len(votes),
        "asked": len(asked), "by_reasoning": sum(bool(getattr(j, "against_reasoning", "")) for j in jurors),
        "judge_stance": any("argues against the decision" in p for c in judge for p in (c.problems or [])),
    }


def main() -> None:
    paths, stores = arguments(__doc__)
    columns = [{row["item"]: {**trial_figures(record, row["gold"]), "right": row["predicted"] == row["gold"],
                              "gold": row["gold"]}
                for row, record in court_trials(path, stores) if record.jury is not None} for path in paths]
    items = list(dict.fromkeys(item for column in columns for item in column))
    names = [p.parent.name for p in paths]
    print("| case (gold) | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for item in items:
        cells = []
        for column in columns:
            f = column.get(item)
            if f is None:
                cells.append("–")
                continue
            extra = [f"{f['asked']} asked again" if f["asked"] else "", f"{f['by_reasoning']} by reasoning"
                     if f["by_reasoning"] else "", "judge asked again (stance)" if f["judge_stance"] else ""]
            cells.append(f"{f['act']}–{f['not']} {'right' if f['right'] else '**wrong**'}"
                         + (f" ({', '.join(e for e in extra if e)})" if any(extra) else ""))
        gold = next(c[item]["gold"] for c in columns if item in c)
        print(f"| {item} ({gold}) | " + " | ".join(cells) + " |")
    print()
    for name, column in zip(names, columns, strict=True):
        f = list(column.values())
        print(f"- {name}: verdicts right {sum(x['right'] for x in f)} of {len(f)}; juror votes following the gold "
              f"answer {sum(x['following'] for x in f)} of {sum(x['voted'] for x in f)}; jurors asked again for "
              f"answering against their reasoning {sum(x['asked'] for x in f)}, counted by their reasoning "
              f"{sum(x['by_reasoning'] for x in f)}; judges asked again for a rationale against the decision "
              f"{sum(x['judge_stance'] for x in f)}")


if __name__ == "__main__":
    main()
