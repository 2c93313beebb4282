"""Per item of a supreme-court evaluation run with ``both_orders``: the court's verdict and split,
the bench after round 1, how many justices' verdicts held with the order reversed in each round,
the jury, and the baselines. Reads the evaluation's results.jsonl and the stored runs; no model.

    python -m bench.supreme_both_orders_table RUNS/evals/<id> RUNS
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from bench.stored import kept, read_rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path, help="the evaluation's folder (holding results.jsonl)")
    parser.add_argument("runs", type=Path, help="the runs folder holding its trials")
    args = parser.parse_args()
    results = kept(args.folder / "results.jsonl")
    if not results.is_file():
        sys.exit(f"error: {results} not found; give an evaluation's folder")
    by_item: dict[str, dict[str, dict]] = {}
    for row in read_rows(results):
        by_item.setdefault(row["item"], {})[row["method"]] = row
    print("| item | gold | court | bench after round 1 | justices held both ways (round 1, 2) | jury | single | "
          "majority | court time |")
    print("|---|---|---|---|---|---|---|---|---|")
    for item, methods in by_item.items():
        court = methods.get("court")
        path = args.runs / f"{court.get('run_id')}.json" if court else None
        if not court or not path or not path.is_file():
            continue
        record = json.loads(path.read_text())
        out = record["outputs"]
        justices = {k: v for k, v in out.items() if k.startswith("justice-")}
        first = Counter(v["verdict"] for k, v in justices.items() if k.endswith("@1"))
        held = [sum(1 for k, v in justices.items() if k.endswith(f"@{r}") and (v.get("orders") or {}).get("held"))
                for r in (1, 2)]
        jury = out["jury"]
        asked = jury.get("both_orders") or {}
        said = {m: ("right" if methods[m]["correct"] else "wrong") if m in methods else "–" for m in ("single", "majority")}
        print(f"| {item} | {court['gold']} | {court['predicted']} {court['details'].get('split', '')} | "
              f"{', '.join(f'{k} {n}' for k, n in first.most_common())} | {held[0]} of 9, {held[1]} of 9 | "
              f"{jury['verdict']} {jury['split'].split(' ')[0]} ({asked.get('held', '–')} of {asked.get('asked', '–')} "
              f"held) | {said['single']} | {said['majority']} | {court['seconds']:.0f} s, {len(record['calls'])} calls |")


if __name__ == "__main__":
    main()
