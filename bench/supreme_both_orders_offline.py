"""What ``both_orders`` would have made of calls already stored: supreme-court probe calls
(``bench/supreme_probe.py``'s calls.jsonl) on the same case, one with the Yes verdict listed
first and one with it listed second, paired in the order they were made; each pair's vote is
``deliberation.held_both`` (the verdict if it held both ways, else the side without the
burden). No model is called. Figures only; the pairs differ in seat and sometimes in
temperature, so this estimates a justice's rate, it does not replay a trial.

    python bench/supreme_both_orders_offline.py bench/results/supreme-findings-probe-1.5b-2026-11-27/calls.jsonl \
        --variant justice
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from courtroom_chat.procedures.deliberation import held_both  # noqa: E402
from courtroom_chat.procedures.supreme.rules import STANDARDS  # noqa: E402

YES = {s.yes: s for s in STANDARDS.values()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("calls", type=Path, nargs="+", help="probe calls.jsonl files")
    parser.add_argument("--variant", default="justice", help="the probe variant to read (default: justice)")
    args = parser.parse_args()
    rows = []
    for path in args.calls:
        if not path.is_file():
            sys.exit(f"error: {path} not found; give a probe's calls.jsonl")
        rows += [r for line in path.read_text().splitlines() if line.strip()
                 for r in [json.loads(line)] if r.get("variant") == args.variant and r.get("order")]
    if not rows:
        sys.exit(f"error: no call of variant {args.variant!r} with its order recorded in {', '.join(map(str, args.calls))}")
    by_item: dict[str, dict[bool, list[dict]]] = defaultdict(lambda: {True: [], False: []})
    for r in rows:
        standard = next(s for s in STANDARDS.values() if set(r["order"]) == set(s.labels))
        by_item[r["item"]][r["order"][0] == standard.yes].append(r | {"standard": standard})
    tally = {"yes": [0, 0, 0, 0], "no": [0, 0, 0, 0]}  # calls right, calls, pairs right, pairs
    print(f"{'case':24} gold  one call right   pairs (first listed Yes, then No) → vote")
    for item, sides in by_item.items():
        gold = sides[True][0]["gold"] if sides[True] else sides[False][0]["gold"]
        standard = (sides[True] or sides[False])[0]["standard"]
        right = standard.yes if gold == "yes" else standard.no
        calls = sides[True] + sides[False]
        pairs = list(zip(sides[True], sides[False], strict=False))  # an unpaired call is left out
        votes = [held_both(a["said"], b["said"], standard.no) for a, b in pairs]
        t = tally[gold]
        t[0] += sum(c["said"] == right for c in calls)
        t[1] += len(calls)
        t[2] += sum(v == right for v, _ in votes)
        t[3] += len(votes)
        shown = "; ".join(f"{a['said']} / {b['said']} → {v}{'' if held else ' (not held)'}"
                          for (a, b), (v, held) in zip(pairs, votes, strict=True))
        print(f"{item:24} {gold:4}  {sum(c['said'] == right for c in calls)} of {len(calls):<10}  {shown}")
    for gold, (cr, cn, pr, pn) in tally.items():
        print(f"{gold.capitalize()} cases: one asking right {cr} of {cn}; asked both ways right {pr} of {pn}")


if __name__ == "__main__":
    main()
