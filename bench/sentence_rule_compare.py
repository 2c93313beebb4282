"""The decision court after the sentence rule (c37c995, 88ffbaa) against the same court's rows of
2026-11-30, item by item: whether each item's quotable passages changed, both answers with their
jury splits, and how many of the exhibits filed after end at an abbreviation.

    python bench/sentence_rule_compare.py RUNS [--before bench/results/iclr2017-1.5b-fragility-order-2026-11-30/results.jsonl]
                                         [--count-in RUNS_BEFORE ...]
    python bench/sentence_rule_compare.py RUNS --dataset rte \
        --before bench/results/classification-rte-1.5b-fragility-2026-11-30/results.jsonl

RUNS is the runs folder of an evaluation run after the change (its run records hold the
exhibits). The passages before are cut as the code before c37c995 cut them: for ``iclr2017`` the
decision court's quotable passages, for a labelled set (``rte``) the classification court's.
"""

from __future__ import annotations

import argparse
import glob
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from courtroom_chat import evidence, sentences  # noqa: E402
from courtroom_chat.evaluation.datasets import resolve  # noqa: E402
from courtroom_chat.procedures.classification import labels  # noqa: E402

BEFORE = Path(__file__).parent / "results" / "iclr2017-1.5b-fragility-order-2026-11-30" / "results.jsonl"
# what a quote cut at an abbreviation ends with (the old cut, whatever the new rule says)
ABBREVIATED = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|Mr|Ms|Mrs|Dr|No|Fig|approx|cf|al|a\.m|p\.m)\.|\b[A-Z]\.)$")


NEW_SPLIT = sentences.split


def exhibits(record: dict) -> tuple[int, int]:
    """A trial's exhibits filed, and how many of them end at an abbreviation."""
    if record.get("procedure") != "decision":
        return 0, 0
    quotes = [e["source_quote"] for e in (record["outputs"].get("prosecutor") or {}).get("exhibits") or []]
    return len(quotes), sum(bool(ABBREVIATED.search(q.strip())) for q in quotes)


def old_split(text: str, gap: object = None) -> list[str]:
    return re.split(r"(?<=[.;!?])\s+", text)


def court_rows(path: str | Path) -> dict[str, dict]:
    rows = (json.loads(line) for line in open(path) if line.strip())
    return {r["item"]: r for r in rows if r["method"] == "court" and r["framing"] == "asked"}


def passages(docs: list, split, quotable=evidence.quote_choices) -> list[str]:
    sentences.split = split  # the module quote_choices (and the classification court's passages) call
    try:
        return quotable(docs)
    finally:
        sentences.split = NEW_SPLIT


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs")
    parser.add_argument("--before", default=str(BEFORE))
    parser.add_argument("--dataset", default="iclr2017", help="iclr2017 (the decision court) or a labelled set such as rte")
    parser.add_argument("--count-in", nargs="*", default=[], metavar="RUNS",
                        help="also count the exhibits ending at an abbreviation in every decision trial kept here")
    args = parser.parse_args()
    for folder in args.count_in:
        trials = filed = cut = hit = 0
        for path in glob.glob(f"{folder}/*.json"):
            record = json.loads(Path(path).read_text())
            if record.get("procedure") != "decision":
                continue
            n, ends = exhibits(record)
            trials, filed, cut, hit = trials + 1, filed + n, cut + ends, hit + bool(ends)
        print(f"{folder}: {trials} decision trials, {filed} exhibits, {cut} ending at an abbreviation, in {hit} trials")
    before = court_rows(args.before)
    after = court_rows(glob.glob(f"{args.runs}/evals/*/results.jsonl")[0])
    items = {it.id: it for it in resolve(args.dataset).items()}
    quotable = evidence.quote_choices if args.dataset == "iclr2017" else labels.passages
    print("| item | gold | passages changed | before (jury) | after (jury) | exhibits after ending at an abbreviation |")
    print("|---|---|---|---|---|---|")
    same = {True: [0, 0], False: [0, 0]}  # changed -> [same answer, items]
    filed = cut = 0
    for item, a in after.items():
        b = before.get(item)
        docs = items[item].case.context
        changed = passages(docs, old_split, quotable) != passages(docs, NEW_SPLIT, quotable)
        record = json.loads(Path(args.runs, f"{a['run_id']}.json").read_text())
        n, ends = exhibits(record)
        filed, cut = filed + n, cut + ends
        split_b = (b or {}).get("details", {}).get("split", "")
        print(f"| {item} | {a['gold']} | {'yes' if changed else 'no'} | {b['predicted'] if b else '-'} ({split_b}) "
              f"| {a['predicted']} ({a['details'].get('split', '')}) | {ends} of {n} |")
        if b:
            same[changed][0] += b["predicted"] == a["predicted"]
            same[changed][1] += 1
    n = len(after)
    right_b = sum(bool(before[i]["correct"]) for i in after if i in before)
    yes_b = sum(before[i]["predicted"] == "yes" for i in after if i in before)
    print(f"\nright: before {right_b}/{n}, after {sum(bool(a['correct']) for a in after.values())}/{n}; yes-rate before "
          f"{yes_b}/{n}, after {sum(a['predicted'] == 'yes' for a in after.values())}/{n}")
    print(f"same answer: {same[False][0]} of {same[False][1]} items whose passages did not change, "
          f"{same[True][0]} of {same[True][1]} whose passages changed")
    print(f"exhibits after ending at an abbreviation: {cut} of {filed}")


if __name__ == "__main__":
    main()
