"""Does an adjudicator's leaning follow what it read? Replays the round-1 adjudicator prompts of
stored retrieval-grounded trials (``python -m bench.samvad --runs-dir RUNS``) on a model, with the
leaning asked in other words and parts of the prompt left out, and counts the verdicts.

    python -m bench.samvad_leaning RUNS [--run ID ...] [--reps 2] [--labels leaning,proved,question,doubt]
                                   [--context full,noargs,evidence-last] [--sequential] [--out FILE.json]

Label wordings (the reasons always come first, as the bench asks):
- ``leaning``: "guilty", "not guilty" or "undecided" (what the bench asks today);
- ``proved``: has the evidence proved the charge beyond reasonable doubt: "proved", "not proved", "undecided";
- ``question``: does the evidence prove beyond reasonable doubt that the accused committed the
  offence: "yes", "no", "unsure";
- ``doubt``: the mirror of ``question``: does a reasonable doubt remain: "yes" (not guilty), "no" (guilty), "unsure";
- ``plain``: the shape of the decision court's plain call (not its words: its prompt names a
  QUESTION the case file here does not have): a few sentences weighing what speaks for and
  against, then "yes" or "no": did the accused commit the offence charged?
Contexts: ``full`` (the prompt as the trial sent it), ``noargs`` (without the judge's
instructions, the arguments and the law: the case file alone), ``evidence-last`` (the evidence
items repeated just before the question, where a small model attends most).

The five prompts of a trial go to the model together (as the bench sends them, batched in
llama.cpp's slots) unless ``--sequential``. Each reply is mapped to a verdict and counted, with
how many justifications say in words that the charge is not proven (a leaning of guilty beside
such words is a leaning that does not follow its own reasons). Figures only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from courtroom_chat.backends import BackendPool
from courtroom_chat.backends.base import ModelRequest
from courtroom_chat.config import ModelSpec, load_settings
from courtroom_chat.records import RunRecord
from courtroom_chat.store import RunStore

ASK = "Reply with JSON with these fields, in this order:"
JUSTIFY = ('- "justification": at least {words} words: for each element of the charge, the evidence items (P1, D2…) '
           "that prove it or leave it unproved, the law (name the section), and the strongest point against your "
           "conclusion.\n")
WEIGH = '- "reasoning": a few sentences weighing what in the evidence speaks for and against the charge, naming the items (P1, D2…).\n'


@dataclass(frozen=True)
class Wording:
    field: str  # the field the leaning is asked in
    verdicts: dict[str, str]  # each label it allows -> the verdict it stands for
    line: str  # the line asking for it
    reasons: str = JUSTIFY  # the line asking for the reasons, which come first
    reason_field: str = "justification"


LABELS: dict[str, Wording] = {
    "leaning": Wording("leaning", {"guilty": "guilty", "not guilty": "not guilty", "undecided": "undecided"},
                       '- "leaning": exactly "guilty", "not guilty" or "undecided": the one your justification supports.\n'),
    "proved": Wording("charge", {"proved": "guilty", "not proved": "not guilty", "undecided": "undecided"},
                      '- "charge": exactly "proved", "not proved" or "undecided": has the evidence proved the charge beyond '
                      "reasonable doubt?\n"),
    "question": Wording("answer", {"yes": "guilty", "no": "not guilty", "unsure": "undecided"},
                        '- "answer": exactly "yes", "no" or "unsure": does the evidence prove beyond reasonable doubt that '
                        "the accused committed the offence charged?\n"),
    "doubt": Wording("reasonable_doubt", {"yes": "not guilty", "no": "guilty", "unsure": "undecided"},
                     '- "reasonable_doubt": exactly "yes", "no" or "unsure": does a reasonable doubt remain that the '
                     "accused committed the offence charged?\n"),
    "plain": Wording("decision", {"yes": "guilty", "no": "not guilty"},
                     '- "decision": "yes" or "no": on this evidence, did the accused commit the offence charged?\n',
                     reasons=WEIGH, reason_field="reasoning"),
}
CONTEXTS = ("full", "noargs", "evidence-last")
NOT_PROVEN = re.compile(r"\b(?:not|never|fail(?:ed|s)? to)\s+(?:been\s+)?(?:prove[dn]?|establish(?:ed)?)\b|\bunproved\b|"
                        r"\breasonable doubt remains\b|\bnot guilty\b", re.I)


def round_one(record: RunRecord) -> list[Any]:
    """The first attempt of each adjudicator's round-1 call, in seat order."""
    calls = [c for c in record.calls if c.role == "adjudicator" and c.attempt == 1 and "ROUND 1 of" in c.messages[1]["content"]]
    return sorted(calls, key=lambda c: c.agent)


def first_of(text: str, start: int, *marks: str) -> int:
    """Where the first of ``marks`` after ``start`` begins."""
    return min(i for i in (text.find(m, start) for m in marks) if i >= 0)


def rewrite(user: str, label: str, context: str, min_words: int = 15) -> tuple[str, dict[str, Any]]:
    """The round-1 prompt asked with another wording of the leaning, and the schema for it."""
    if ASK not in user:
        raise ValueError("not an adjudicator prompt: it has no reply instructions")
    w = LABELS[label]
    text = user[: user.index(ASK) + len(ASK)] + "\n" + w.reasons.format(words=min_words) + w.line
    # The seat line came first until 2026-11-26 and follows the law since: either layout is read.
    if context == "noargs":
        start = text.index("THE JUDGE'S INSTRUCTIONS:")
        text = text[:start] + text[first_of(text, start, "YOU ARE ADJUDICATOR", "THE OTHER ADJUDICATORS'"):]
    elif context == "evidence-last":
        begin = text.index("PROSECUTION EVIDENCE:")
        evidence = text[begin: first_of(text, begin, "YOU ARE ADJUDICATOR", "THE JUDGE'S INSTRUCTIONS:")].strip()
        at = text.index("THE OTHER ADJUDICATORS'")
        text = text[:at] + "THE EVIDENCE AGAIN (what the case file states; nothing else is a fact):\n" + evidence + "\n\n" + text[at:]
    schema = {"type": "object", "required": [w.reason_field, w.field],
              "properties": {w.reason_field: {"type": "string", "maxLength": 1200},
                             w.field: {"type": "string", "enum": list(w.verdicts)}}}
    return text, schema


def tally(replies: list[dict[str, Any]], label: str) -> dict[str, Any]:
    w = LABELS[label]
    verdicts = [w.verdicts.get(r.get(w.field, ""), "undecided") for r in replies]
    said = [bool(NOT_PROVEN.search(r.get(w.reason_field, ""))) for r in replies]
    counts = Counter(verdicts)
    return {"n": len(replies), **{v: counts[v] for v in ("guilty", "not guilty", "undecided")},
            "reasons_say_not_proven": sum(said),
            "guilty_beside_not_proven": sum(1 for v, s in zip(verdicts, said, strict=True) if s and v == "guilty")}


async def replay(backend, calls: list[Any], label: str, context: str, reps: int, together: bool) -> list[dict[str, Any]]:
    requests = []
    for c in calls:
        system, user = c.messages[0]["content"], c.messages[1]["content"]
        prompt, schema = rewrite(user, label, context)
        requests.append(ModelRequest(agent=c.agent, role="adjudicator", system=system, prefix="", prompt=prompt,
                                     schema=schema, schema_name="Statement", temperature=c.temperature, max_tokens=450))
    out = []
    for _ in range(reps):
        if together:
            replies = await asyncio.gather(*(backend.complete(q) for q in requests))
        else:
            replies = [await backend.complete(q) for q in requests]
        for reply in replies:
            try:
                out.append(json.loads(reply.text))
            except json.JSONDecodeError:
                out.append({})
    return out


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    store = RunStore(args.runs)
    ids = args.run or [r["run_id"] for r in store.list(limit=100000)
                       if r.get("procedure") == "samvad" and r.get("status") == "complete"]
    if not ids:
        sys.exit(f"no finished samvad runs in {args.runs}; keep some first (python -m bench.samvad --runs-dir {args.runs})")
    pool = BackendPool(load_settings(env=False))
    backend = pool.get(ModelSpec.parse(args.model))
    rows = []
    try:
        for run_id in ids:
            record = store.load(run_id)
            calls = round_one(record)
            rounds = record.outputs.get("bench", {}).get("by_round") or [{}]
            kept = rounds[0].get("counts", {})
            for label in args.labels.split(","):
                for context in args.context.split(","):
                    t = tally(await replay(backend, calls, label, context, args.reps, not args.sequential), label)
                    rows.append({"run": run_id, "case": Path(record.case.source or "").stem,
                                 "label": label, "context": context, **t, "trial_round_one": dict(kept)})
                    print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    finally:
        await pool.aclose()
    return {"model": args.model, "reps": args.reps, "together": not args.sequential, "rows": rows}


def markdown(result: dict[str, Any]) -> str:
    lines = [f"# Adjudicator leanings replayed: {result['model']}, {result['reps']} reps of each prompt, "
             f"{'together' if result['together'] else 'one at a time'}", "",
             "| run | wording | context | n | guilty | not guilty | undecided | reasons say not proven | guilty beside them |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in result["rows"]:
        lines.append(f"| {r['run']} | {r['label']} | {r['context']} | {r['n']} | {r['guilty']} | {r['not guilty']} | "
                     f"{r['undecided']} | {r['reasons_say_not_proven']} | {r['guilty_beside_not_proven']} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", type=Path, help="a runs folder holding samvad trials")
    parser.add_argument("--run", action="append", default=None, help="one run id (repeatable); default: every samvad run")
    parser.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--labels", default="leaning,proved,question,doubt")
    parser.add_argument("--context", default="full")
    parser.add_argument("--sequential", action="store_true", help="one prompt at a time, not the five together")
    parser.add_argument("--out", type=Path, default=None, help="write FILE.json and FILE.md")
    args = parser.parse_args()
    for label in args.labels.split(","):
        if label not in LABELS:
            sys.exit(f"unknown wording {label!r}: use {', '.join(LABELS)}")
    for context in args.context.split(","):
        if context not in CONTEXTS:
            sys.exit(f"unknown context {context!r}: use {', '.join(CONTEXTS)}")
    result = asyncio.run(main_async(args))
    print(markdown(result))
    if args.out:
        args.out.with_suffix(".json").write_text(json.dumps(result, indent=1), encoding="utf-8")
        args.out.with_suffix(".md").write_text(markdown(result), encoding="utf-8")


if __name__ == "__main__":
    main()
