"""Before and after, item by item: two evaluations' ``results.jsonl`` on the same items.

For a change to how a procedure decides by default, the same seeded items are run again and
compared with the rows kept from before. This prints, per item and method found in both files,
what each answered, whether it was right, and (for judgments) the term, probation and fine, with
each row's calls and seconds; then the totals over the items both hold. Figures only.

    python -m bench.rows_before_after bench/results/criminal-eval-1.5b/results.jsonl RUNS/evals/<id>/results.jsonl
    python -m bench.rows_before_after OLD NEW --method court
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from bench.stored import kept, read_text


def rows(path: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """The asked (not mirrored) rows by (item, method); a later line for the same unit wins."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for line in read_text(path).splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if row.get("framing", "asked") == "asked":
            found[(row["item"], row["method"])] = row
    return found


def judged(row: dict[str, Any]) -> str:
    """A judgment's sentence in a few words; empty for an answer without one."""
    j = ((row.get("details") or {}).get("data") or {}).get("judgment") or {}
    if not j:
        return ""
    parts = [f"term {j.get('term_months'):g}" if j.get("term_months") is not None else "",
             f"probation {j.get('probation_months'):g}" if j.get("probation_months") else "",
             f"fine {j.get('fine'):g}" if j.get("fine") else ""]
    return ", ".join(p for p in parts if p)


def cell(row: dict[str, Any]) -> str:
    said = row.get("predicted") or row.get("status", "")
    sentence = judged(row)
    return (f"{said} {'right' if row.get('correct') else 'wrong'}" + (f" ({sentence})" if sentence else "")
            + f" · {row.get('calls')} calls, {row.get('seconds', 0):.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--method", action="append", help="only these methods (repeatable); default: all in both")
    args = parser.parse_args()
    for path in (args.before, args.after):
        if not kept(path).is_file():
            parser.error(f"{path} is not a file; give two results.jsonl files")
    old, new = rows(args.before), rows(args.after)
    shared = [key for key in new if key in old and (not args.method or key[1] in args.method)]
    if not shared:
        parser.error("the two files share no (item, method); were they run on the same items?")
    print("| item | method | before | after |\n|---|---|---|---|")
    for item, method in shared:
        print(f"| {item} | {method} | {cell(old[(item, method)])} | {cell(new[(item, method)])} |")
    print()
    for method in dict.fromkeys(m for _, m in shared):
        keys = [k for k in shared if k[1] == method]
        right = [sum(bool(rs[k].get("correct")) for k in keys) for rs in (old, new)]
        calls = [sum(rs[k].get("calls") or 0 for k in keys) for rs in (old, new)]
        secs = [sum(rs[k].get("seconds") or 0 for k in keys) for rs in (old, new)]
        same = sum(old[k].get("predicted") == new[k].get("predicted") for k in keys)
        print(f"{method}: {len(keys)} items; right {right[0]} -> {right[1]}; same answer {same} of {len(keys)}; "
              f"calls {calls[0]} -> {calls[1]}; seconds {secs[0]:.0f} -> {secs[1]:.0f}")


if __name__ == "__main__":
    main()
