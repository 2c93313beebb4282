"""The decision court's demo replies for the scripted backend: derived from the case itself,
so a demo reads like a trial of *this* case (quotes copied verbatim from the evidence,
votes varied across jurors, a judge that follows the tally)."""

from __future__ import annotations

import hashlib
import re
from typing import Any

from ...backends.base import ModelRequest
from ...motion import motion_for, named_terms

_SIGNAL = re.compile(
    r"fail|error|bug|todo|fixme|risk|broken|timeout|crash|leak|deadline|cost|\d+%|must|should|"
    r"never|always|slow|fast|secure|security|test|passed|users?|latency|revenue|deprecated",
    re.IGNORECASE,
)


def _candidate_quotes(documents: list[Any], limit: int) -> list[tuple[str, str]]:
    """(document name, quote) pairs: distinct informative lines, copied verbatim."""
    scored: list[tuple[int, int, str, str]] = []
    seen: set[str] = set()
    for d_index, doc in enumerate(documents):
        for line in doc.text.split("\n"):
            text = line.strip()
            if doc.kind == "diff" and text[:1] in "+-" and not text.startswith(("+++", "---")):
                text = text[1:].strip()
            words = text.split()
            if not (5 <= len(words) <= 30) or len(text) > 180 or text in seen or text.startswith(("@@", "diff ", "index ")):
                continue
            seen.add(text)
            score = len(_SIGNAL.findall(text)) * 10 + min(len(words), 15)
            scored.append((score, d_index, doc.name, text))
    scored.sort(key=lambda s: (-s[0], s[1]))
    picked: list[tuple[str, str]] = []
    used_docs: set[str] = set()
    for _, _, name, text in scored:  # one per document first, then the rest
        if name not in used_docs:
            picked.append((name, text))
            used_docs.add(name)
        if len(picked) == limit:
            return picked
    for _, _, name, text in scored:
        if (name, text) not in picked:
            picked.append((name, text))
        if len(picked) == limit:
            break
    return picked


def _words(text: str, minimum: int, filler: list[str]) -> str:
    """Pad ``text`` with sentences from ``filler`` until it has ``minimum`` words."""
    out = text
    i = 0
    while len(out.split()) < minimum:
        out += " " + filler[i % len(filler)]
        i += 1
    return out


def demo_reply(request: ModelRequest) -> dict[str, Any] | None:
    """A schema-valid reply built from the case and the stage's inputs, consistent with them:
    a judge speaks of verified evidence only when some was verified."""
    inputs, case = request.inputs, request.case
    question = getattr(case, "question", "") or inputs.get("question", "")
    seed = hashlib.sha256(question.encode()).digest()[0]
    if request.role == "prosecutor":
        found = motion_for(question)
        motion = found.yes or " ".join(["proceed as asked about", *named_terms(question)])
        limit = min(3, int(inputs.get("max_exhibits", 3)))
        quotes = _candidate_quotes(list(getattr(case, "context", []) or []), limit)
        min_harm = int(inputs.get("min_harm_words", 8))
        exhibits = [
            {
                "source_quote": quote,
                "target_quote": question,
                "harm": _words(
                    f"Without a Yes ({motion}), the situation shown in {name} stays unresolved and keeps "
                    "costing time for the people who depend on it.",
                    min_harm,
                    ["Each week of delay adds rework and erodes trust in the decision."],
                ),
            }
            for name, quote in quotes
        ]
        return {
            "motion": motion,
            "case_statement": f"The evidence supports a Yes: {motion}. "
            f"{len(exhibits)} passages in the evidence show the benefit outweighs the risk.",
            "exhibits": exhibits,
            "harm_analysis": "Not acting delays the benefit and leaves the issues quoted in the exhibits open.",
        }
    if request.role == "defense":
        effects = ["weakens", "concedes", "refutes"]
        exhibits = inputs.get("exhibits", [])
        return {
            "counter_argument": f"The prosecution's core claim ({inputs.get('motion', 'act')}) "
            "rests on a few passages and ignores the cost of acting before the open questions are settled.",
            "exhibit_challenges": [
                {
                    "exhibit": e["number"],
                    "challenge": f"Exhibit {e['number']} shows a real point but not that acting now is required.",
                    "effect": effects[(e["number"] + seed) % 3],
                }
                for e in exhibits
            ],
            "harm_dispute": "The harms described are avoidable with a short delay and are not certain to occur.",
            "alternative": "Address the open points first, then revisit the decision with fresh evidence.",
        }
    if request.role == "juror":
        number = int(inputs.get("number", 1))
        act = ((number + seed) * 3) % 5 < 3
        vote = "act" if act else "do not act"
        exhibits = inputs.get("exhibits", [])
        cited = ", ".join(f"exhibit {e['number']}" for e in exhibits[:2]) or "the question itself"
        side = "for acting" if act else "against acting"
        reasoning = _words(
            f"Speaking as {inputs.get('persona') or 'a juror'}, I find the facts {side} weigh more. "
            f"I weighed {cited} against the rest of the evidence, whichever side quoted it.",
            int(inputs.get("min_words", 50)),
            [
                "The verified quotes show what is actually at stake rather than what either side assumes.",
                "I gave more weight to concrete consequences than to general statements about risk.",
                "On balance the evidence points one way, although the other side raised fair concerns.",
            ],
        )
        return {"reasoning": reasoning, "vote": (inputs.get("votes") or {}).get(vote, vote)}
    if request.role == "judge":
        verified = bool(inputs.get("verified", True))
        tally = inputs.get("tally", {})
        guilty, not_guilty = int(tally.get("guilty", 0)), int(tally.get("not_guilty", 0))
        act = guilty > not_guilty
        motion = inputs.get("motion", "act")
        facts = [q for q in inputs.get("facts", []) if q.strip()]
        split = f"{guilty}–{not_guilty}"
        split_note = "" if inputs.get("unanimous") else f" The jury was split {split}, and the minority's concerns were weighed."
        return {
            "reasoning": (f"The prosecution {'showed verified evidence' if verified else 'argued without verified evidence'} "
                          f"for acting; the defense argued the costs of acting now. The jury voted {split}.{split_note}"),
            "decision": "act" if act else "do not act",
            "rationale": (f"The {'prosecution' if act else 'defense'} made the stronger case on "
                          + (f"the verified evidence: {' '.join(_sentence(q) for q in facts)}" if facts else
                             "the verified evidence." if verified else "argument alone: no exhibit was verified.")),
            "actions": [f"{motion[:1].upper()}{motion[1:]}", "Record the decision and review the outcome in two weeks"]
            if act else [inputs.get("alternative") or "Revisit the decision once the open points are settled"],
            "confidence": 0.7 if split_note else 0.85,
        }
    return None


def _sentence(quote: str) -> str:
    """A quoted line as a sentence of the ruling: list marks off, a table row read as "cell: cells"
    ("| Error rate | 0.21% | 0.20% |" was "…: | Error rate | 0.21% | 0.20% |."), a full stop at the end."""
    text = re.sub(r"^[-*+•\s]+", "", quote.strip())
    if text.startswith("|"):
        cells = [c.strip() for c in text.strip("|").split("|") if c.strip()]
        text = f"{cells[0]}: {', '.join(cells[1:])}" if len(cells) > 1 else "".join(cells)
    text = text.rstrip(" ,;:")
    return text if text.endswith((".", "!", "?")) else f"{text}."
