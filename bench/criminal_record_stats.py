"""What a stored criminal trial's record looks like, in figures: calls, repairs by reason, turns
with English words in them, turns kept as repeats, English words in the judgment, the charges
and the term. For before/after comparisons of the trial's prompts and grammar (issue 14).

    python -m bench.criminal_record_stats RUNS/20261126-182403-c7cca9.json [more.json ...]

One JSON line per trial. Figures only.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter

from courtroom_chat.procedures.criminal.present import CALLS

STALLED = {calls["stalled"] for calls in CALLS.values()}

LATIN = re.compile(r"[a-z]{3,}")


def reason(problem: str) -> str:
    p = problem.lower()
    if "repeats turn" in p:
        return "repeat"
    if "not in chinese" in p:
        return "not chinese"
    if "present the evidence item" in p:
        return "off item"
    if "token limit" in p:
        return "token limit"
    return p[:50]


def stats(d: dict) -> dict:
    calls = d["calls"]
    entries = d["outputs"].get("court_record", {}).get("entries", [])
    j = d["outputs"].get("judgment", {})
    judged = " ".join(str(j.get(k, "")) for k in ("facts", "reasoning", "law", "text"))
    return {"run": d["run_id"], "status": d["status"], "calls": len(calls),
            "repairs": sum(1 for c in calls if c["attempt"] > 1),
            "problems": dict(Counter(reason(p) for c in calls for p in c["problems"])),
            "turns": len(entries), "turns_with_english": sum(1 for e in entries if LATIN.search(e["text"])),
            "turns_kept_as_repeats": sum(1 for e in entries if e.get("repeats")),
            # exchanges the judge closed because a turn still repeated after its repair (close_stalled)
            "closed_stalled": sum(1 for e in entries if e["speaker"] == "judge" and e["text"] in STALLED),
            "judgment_english_words": len(LATIN.findall(judged)), "charges": j.get("charges"),
            "term_months": j.get("term_months"), "probation_months": j.get("probation_months"),
            "seconds": round(sum(c["seconds"] or 0 for c in calls))}


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("give one or more stored criminal trials (RUNS/<run id>.json)")
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            print(json.dumps(stats(json.load(f)), ensure_ascii=False))
