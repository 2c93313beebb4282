"""The bench's replies for the scripted backend, derived from the case: the judge and counsels
cite the provisions retrieved for them, quoting each one's opening words (so they verify);
adjudicators lean by their seat and a lean fixed by the case (finding every element proved when
guilty, the last one not proved otherwise), and in later rounds the
undecided and the minority move toward the previous majority, except on a case whose lean
makes the bench split evenly (a hung bench)."""

from __future__ import annotations

import hashlib
from typing import Any

from ...backends.base import ModelRequest
from ...kb import NAMED_LONG, NAMED_SHORT
from .cases import bench_case


def charged(text: str) -> list[tuple[str, str]]:
    """(source, section) of each provision a charge names ("IPC 379", "section 379 of the Indian Penal Code")."""
    found = [(m.group(1), m.group(2)) for m in NAMED_SHORT.finditer(text)]
    return found + [(m.group(3), m.group(2)) for m in NAMED_LONG.finditer(text)]


def _lean(question: str) -> int:
    return hashlib.sha256(question.encode()).digest()[0]


def _opening(text: str, n: int = 8) -> str:
    """The provision's first words, verbatim (up to a line break)."""
    first = text.strip().split("\n")[0]
    return " ".join(first.split()[:n])


def _citations(i: dict[str, Any], limit: int) -> list[dict[str, str]]:
    law = i.get("law") or []
    if law:
        return [{"source": p["source"], "section": p["section"], "quote": _opening(p["text"]),
                 "point": f"{p['title'] or 'The provision'} bears on the charge."} for p in law[:limit]]
    return [{"source": s, "section": n, "quote": "", "point": "The provision the charge names."}
            for s, n in charged(" ".join(i.get("charges", [])))[:limit]]


def _seat(n: int, lean: int, size: int) -> str:
    if lean % 4 == 0:  # an evenly split bench that does not move: hung
        return ["guilty", "not guilty"][n % 2] if n < size or size % 2 == 0 else "undecided"
    k = (n * 3 + lean) % 5
    return "guilty" if k < 3 else "undecided" if k == 3 else "not guilty"


def demo_reply(request: ModelRequest) -> dict[str, Any] | None:
    i, case = request.inputs, request.case
    if not i or case is None:
        return None
    b = bench_case(case)
    charges = "; ".join(b.charges)
    first = (b.prosecution_evidence or [b.summary])[0]
    if request.role == "judge":
        return {"instructions": (f"The bench must decide whether each element of {charges} is proved on the evidence "
                                 "put before it, weighing the prosecution's evidence and the defense's answer to it "
                                 "impartially, and setting aside anything not in evidence."),
                "elements": ["the act charged was done by the accused", "with the state of mind the offence requires"],
                "standard_of_proof": "The prosecution must prove every element beyond reasonable doubt; the accused "
                                     "is presumed innocent until then.",
                "citations": _citations(i, 2)}
    if request.role in ("prosecution", "defense"):
        mine = b.prosecution_evidence if request.role == "prosecution" else b.defense_evidence
        if request.role == "prosecution":
            argument = (f"The evidence proves {charges}: {first} Each element of the offence is made out by the "
                        "items listed, and no evidence answers them.")
        else:
            argument = (f"The prosecution has not proved {charges} beyond reasonable doubt: "
                        f"{(mine or ['its evidence leaves the state of mind unproved'])[0]} The doubt must go to "
                        "the accused.")
        return {"argument": argument, "points": mine[:3] or [first], "citations": _citations(i, 2)}
    if request.role == "adjudicator":
        lean, n, size = _lean(case.question), int(i["seat"]), int(i["size"])
        leaning = _seat(n, lean, size)
        if "before" in i:
            leaning = i["before"]
            majority = i.get("majority") or ""
            if majority and leaning != majority and lean % 4 != 0:
                leaning = majority
        law = f" under {named[0][0]} section {named[0][1]}" if (named := charged(charges)) else ""
        reason = {"guilty": "proves every element", "not guilty": "leaves a reasonable doubt on an element",
                  "undecided": "is not yet enough for me to decide either way"}[leaning]
        elements, items = i.get("elements") or [], i.get("items") or []
        proof = [x for x in items if x.startswith("P")][:2] or items[:1]
        answer = {"leaning": leaning, "findings": [
            {"element": k, "evidence": proof,
             "finding": "not proved" if leaning != "guilty" and k == len(elements) else "proved"}
            for k in range(1, len(elements) + 1)]}
        return answer | {"justification": (f"On the charge of {charges}{law}, the evidence that {first[:160].rstrip('.')} "
                                  f"{reason}, read with the judge's instructions and both arguments.")}
    return None
