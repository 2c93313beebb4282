"""Does the model see anything in a yes/no set? The per-call yes-rate on gold-yes and gold-no
items, from an evaluation's stored calls: the single call, the majority's five, and the court's
jurors (read from the stored runs).

    python bench/per_call_signal.py RESULTS.jsonl [--runs-dir RUNS]

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
import json
import math
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from courtroom_chat.evaluation.stats import wilson  # noqa: E402
from courtroom_chat.store import RunStore  # noqa: E402


def answer(text: str) -> str | None:
    """The yes/no a plain call or plain juror gave (its ``decision`` field)."""
    try:
        value = json.loads(text).get("decision")
    except (ValueError, AttributeError):
        return None
    return value if value in ("yes", "no") else None


def call_answers(row: dict, store: RunStore | None) -> list[str]:
    if row["method"] in ("single", "majority"):
        return [a for c in row.get("details", {}).get("calls", []) if (a := answer(c.get("text", "")))]
    if row["method"] == "court" and row.get("run_id") and store is not None:
        try:
            record = store.read(row["run_id"])
        except Exception:  # a run not kept on this machine
            return []
        return [a for c in record.calls if c.role == "juror" and c.ok and (a := answer(c.response))]
    return []


def majority_yes(p: float, n: int = 5) -> float:
    return sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n // 2 + 1, n + 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", type=Path, help="an evaluation's results.jsonl")
    parser.add_argument("--runs-dir", type=Path, help="the runs folder the court's run ids point into")
    args = parser.parse_args()
    if not args.results.is_file():
        parser.error(f"no results file at {args.results}; give an evaluation's results.jsonl")
    rows = [json.loads(line) for line in args.results.read_text().splitlines() if line.strip()]
    store = RunStore(args.runs_dir) if args.runs_dir else None
    counts: dict[str, dict[str, list[int]]] = defaultdict(lambda: {"yes": [0, 0], "no": [0, 0]})
    for row in rows:
        if row.get("framing", "asked") != "asked" or row["gold"] not in ("yes", "no"):
            continue
        for a in call_answers(row, store):
            for key in (row["method"], "all calls"):
                counts[key][row["gold"]][0] += 1
                counts[key][row["gold"]][1] += a == "yes"
    print("| calls of | gold-Yes items answered Yes | gold-No items answered Yes | gap |")
    print("|---|---|---|---|")
    for key, c in sorted(counts.items(), key=lambda kv: kv[0] == "all calls"):
        cells = []
        for gold in ("yes", "no"):
            n, y = c[gold]
            low, high = wilson(y, n) if n else (0.0, 0.0)
            cells.append(f"{y}/{n} = {y / n:.0%} ({low:.0%}–{high:.0%})" if n else "-")
        gap = (c["yes"][1] / c["yes"][0] - c["no"][1] / c["no"][0]) if c["yes"][0] and c["no"][0] else float("nan")
        print(f"| {key} | {cells[0]} | {cells[1]} | {gap:+.0%} |")
    c = counts.get("all calls")
    if c and c["yes"][0] and c["no"][0]:
        py, pn = c["yes"][1] / c["yes"][0], c["no"][1] / c["no"][0]
        share = sum(r["gold"] == "yes" for r in rows if r["method"] == rows[0]["method"]) / max(
            1, sum(r["method"] == rows[0]["method"] for r in rows))
        single = share * py + (1 - share) * (1 - pn)
        vote = share * majority_yes(py) + (1 - share) * (1 - majority_yes(pn))
        print(f"\nExpected accuracy if every call is an independent draw at these rates: one call {single:.0%}, "
              f"a majority of five {vote:.0%} (true yes-share {share:.0%}).")


if __name__ == "__main__":
    main()
