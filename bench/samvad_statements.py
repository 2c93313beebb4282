"""Read the stored retrieval-grounded trials of a runs folder (``python -m bench.samvad --runs-dir RUNS``)
statement by statement: the judge's elements, then each adjudicator's leaning and findings per
round (element, the items it rests on, proved or not), the round's counts, and the repairs.
Figures only: what a person reads to see whether the leanings follow the findings.

    python -m bench.samvad_statements RUNS [--run ID ...]

A line reads ``adjudicator-3@1 undecided (guilty kept against its findings) 1:P1,P3=proved
2:D1=not proved …``: the leaning counted, why it was changed if it was, then each finding.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import Any

from courtroom_chat.records import RunRecord
from courtroom_chat.store import RunStore


def statements(record: RunRecord) -> list[tuple[str, dict[str, Any]]]:
    """The adjudicators' statements, round by round, seat by seat."""
    found = [(key, value) for key, value in record.outputs.items()
             if key.startswith("adjudicator-") and "@" in key and isinstance(value, dict)]
    return sorted(found, key=lambda kv: (int(kv[0].rpartition("@")[2]), int(kv[0].split("@")[0].rpartition("-")[2])))


def finding_text(f: dict[str, Any]) -> str:
    return f"{f['element']}:{','.join(f.get('evidence') or []) or '-'}={f['finding']}"


def describe(record: RunRecord) -> tuple[list[str], Counter]:
    """The lines for one trial, and its counts (statements, inconsistent ones, leanings by label)."""
    bench = record.outputs.get("bench") or {}
    judge = record.outputs.get("judge") or {}
    # the findings number the elements the bench was asked: the judge's, but those set aside
    aside = set(judge.get("set_aside") or [])
    listed = list(enumerate(judge.get("elements") or [], 1))
    lines = [f"{record.run_id} · {bench.get('case_id', '?')} · verdict {bench.get('verdict', record.status)}",
             "  elements: " + (" | ".join(e for i, e in listed if i not in aside) or "(none: each charge is one)")]
    if aside:
        lines.append("  set aside (describe the evidence): " + " | ".join(e for i, e in listed if i in aside))
    counts: Counter = Counter()
    for key, s in statements(record):
        counts["statements"] += 1
        counts[s["leaning"]] += 1
        counts["inconsistent"] += bool(s.get("inconsistent"))
        why = " (guilty kept against its findings)" if s.get("inconsistent") else ""
        lines.append(f"  {key} {s['leaning']}{why} " + " ".join(finding_text(f) for f in s.get("findings") or []))
    for r in bench.get("by_round", []):
        c = r["counts"]
        lines.append(f"  round {r['round']}: {c['guilty']} guilty, {c['not guilty']} not guilty, {c['undecided']} "
                     f"undecided (agreement {r['agreement']:.0%})")
    repairs = sum(c.attempt == 2 for c in record.calls)
    counts["calls"], counts["repairs"] = len(record.calls), repairs
    lines.append(f"  calls {len(record.calls)}, repairs {repairs}")
    return lines, counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", type=Path)
    parser.add_argument("--run", nargs="*", default=None, help="these run ids only (default: every samvad run)")
    args = parser.parse_args()
    store = RunStore(args.runs)
    ids = args.run or [r["run_id"] for r in store.list(limit=10_000) if r["procedure"] == "samvad"]
    total: Counter = Counter()
    for run_id in sorted(ids):
        lines, counts = describe(store.load(run_id))
        print("\n".join(lines))
        total += counts
    print(f"{len(ids)} trials: {total['statements']} statements ({total['guilty']} guilty, {total['not guilty']} not "
          f"guilty, {total['undecided']} undecided, of which {total['inconsistent']} a guilty leaning kept against "
          f"its own findings); {total['repairs']} repairs in {total['calls']} calls")


if __name__ == "__main__":
    main()
