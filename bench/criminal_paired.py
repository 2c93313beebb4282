"""Paired term errors of the criminal evaluation: the trial's absolute error minus each baseline's,
item by item, with a bootstrap 95% interval (10,000 resamples, seed 0; the report's own
``scoring.mae_ci``, over signed differences).

    python -m bench.criminal_paired EVAL/results.jsonl [--cases ../shared/data/simcourt_ljp/cases]

Only items whose gold term is a number of months and where both methods gave a term count.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bench.stored import read_rows
from courtroom_chat.procedures.criminal.scoring import mae_ci, row_judgment


def term(row: dict | None) -> float | None:
    judgment = row_judgment(row) if row is not None and row.get("status") == "decided" else None
    return judgment.get("term_months") if judgment else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--cases", type=Path, default=Path(__file__).resolve().parents[2] / "shared/data/simcourt_ljp/cases")
    args = parser.parse_args()
    rows = read_rows(args.results)
    by = {(r["item"], r["method"]): r for r in rows}
    items = list(dict.fromkeys(r["item"] for r in rows))
    for base in sorted({r["method"] for r in rows} - {"court"}):
        diffs = []
        for item in items:
            gold = json.loads((args.cases / f"{item.split('-', 1)[1]}.json").read_text(encoding="utf-8")).get("term")
            court, other = term(by.get((item, "court"))), term(by.get((item, base)))
            if isinstance(gold, (int, float)) and court is not None and other is not None:
                diffs.append(abs(court - gold) - abs(other - gold))
        if not diffs:
            print(f"court - {base}: no item with all three terms")
            continue
        mean, low, high = mae_ci(diffs, resamples=10000)
        closer, farther = sum(d < 0 for d in diffs), sum(d > 0 for d in diffs)
        print(f"court - {base}: {len(diffs)} items, mean absolute-error difference {mean:+.1f} months "
              f"(95% {low:+.1f} to {high:+.1f}); court closer on {closer}, farther on {farther}, "
              f"tied {len(diffs) - closer - farther}")


if __name__ == "__main__":
    main()
