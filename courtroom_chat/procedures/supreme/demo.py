"""The supreme court's demo replies for the scripted backend, derived from the case: facts are
the transcript's own lines (witnesses' answers first), justices lean by their place on the
spectrum, the justice nearest the line may move toward the majority at the conference, and
the jury splits by a lean fixed by the case, so a demo reads like a trial of *this* case."""

from __future__ import annotations

import hashlib
from typing import Any

from ...backends.base import ModelRequest
from ...evidence import quote_choices


def _lean(question: str) -> float:
    """Where this case's line falls on the spectrum, fixed by the question (0.3-0.7)."""
    return 0.3 + hashlib.sha256(question.encode()).digest()[0] / 255 * 0.4


def _facts(request: ModelRequest, limit: int) -> list[str]:
    lines = quote_choices(list(getattr(request.case, "context", []) or []))
    answers = [line for line in lines if line.startswith("A (")]
    return (answers + [line for line in lines if line not in answers])[:limit]


def _opinion(request: ModelRequest, yes: bool) -> dict[str, Any]:
    i = request.inputs
    facts = _facts(request, 4) or ["The record holds no testimony on the central issue."]
    verdict = i["yes"] if yes else i["no"]
    side = "meets" if yes else "does not meet"
    return {
        "key_facts": [f"The transcript records: {f}" for f in facts[:3]],
        "evidence_analysis": (f"Read as a {i['philosophy'].split(':')[0]} would, the testimony {side} the burden. "
                              f"The strongest point is the first fact listed; the weakest is how much of the rest rests "
                              f"on inference rather than direct observation. Cross-examination left "
                              f"{'little' if yes else 'real'} doubt on the key testimony. Under "
                              f"{i['burden_name']} the burden is {'met' if yes else 'not met'}."),
        "verdict": verdict,
        "confidence": round(min(0.95, 0.55 + abs(i["position"] - _lean(request.case.question)) * 0.8), 2),
    }


def _findings(request: ModelRequest, reply: dict[str, Any], yes: bool) -> dict[str, Any]:
    """The findings form (``opinion_form = "findings"``): two elements, both proved for the Yes
    side, the second not proved otherwise, in place of the analysis."""
    if "elements" not in (request.schema or {}).get("properties", {}):
        return reply
    facts = _facts(request, 2) or ["the testimony"]
    elements = [{"element": "The act charged or claimed happened as alleged.", "evidence": facts[0][:120],
                 "finding": "proved"},
                {"element": "The defendant is the one responsible for it.", "evidence": facts[-1][:120],
                 "finding": "proved" if yes else "not proved"}]
    return {k: v for k, v in reply.items() if k != "evidence_analysis"} | {"elements": elements}


def demo_reply(request: ModelRequest) -> dict[str, Any] | None:
    i, case = request.inputs, request.case
    if not i or case is None:
        return None
    lean = _lean(case.question)
    if request.role == "justice" and i.get("reread"):  # the demo's analyses say what their verdicts say
        met = i["written"] == i["yes"]
        return {"finding": f"The analysis finds the testimony {'meets' if met else 'does not meet'} the burden.",
                "verdict": i["written"]}
    if request.role == "justice":
        yes = i["position"] >= lean
        if "before" in i:  # the conference: the justice nearest the line joins the majority
            yes = i["before"] == i["yes"]
            if i.get("majority") and i["before"] != i["majority"] and abs(i["position"] - lean) < 0.2:
                yes = i["majority"] == i["yes"]
            reply = _opinion(request, yes)
            changed = (i["yes"] if yes else i["no"]) != i["before"]
            reply |= {"changed": changed,
                      "why": ("The other opinions showed I had given too much weight to a weak inference."
                              if changed else "The other opinions raised no point the record does not already answer.")}
            return _findings(request, reply, yes)
        return _findings(request, _opinion(request, yes), yes)
    if request.role == "juror":
        n, size = int(i["number"]), int(i["size"])
        yes = (n * 7 + int(lean * 100)) % size < round(size * (1.2 - lean))
        facts = _facts(request, 2)
        return {
            "facts_for" if yes else "facts_against": [f"The testimony proves that {facts[0] if facts else 'the events occurred'}."],
            "facts_against" if yes else "facts_for": [f"{facts[1]} rests on inference." if len(facts) > 1 else
                                                      "Other points rest on inference."],
            "reasoning": (f"Weighed against {i['burden_name']}, the proved facts "
                          f"{'are enough' if yes else 'leave a doubt I cannot set aside'}; "
                          "I relied on the testimony, not on what counsel argued."),
            "verdict": i["yes"] if yes else i["no"],
        }
    if request.role == "clerk" and "facts" not in i:
        sides = [i["party"], i["other"]]
        return {"facts": [{"source_quote": q, "kind": "testimony", "bears_on": "the disputed element",
                           "favours": sides[(k + int(lean * 10)) % 3 == 0]}
                          for k, q in enumerate(_facts(request, int(i["limit"])))]}
    if request.role == "clerk":
        yes = i["for_party"] > i["for_other"]
        return {
            "narrative": "The verified testimony places the events as the witnesses describe them, with the gaps "
                         "cross-examination exposed.",
            "contradictions": ["The identifying witness's account is weaker under cross-examination than on direct."],
            "law_applied": f"Applying {i['burden_name']}, the verified facts "
                           f"{'meet' if yes else 'do not meet'} the burden on the disputed element.",
            "verdict": i["yes"] if yes else i["no"],
            "confidence": 0.6,
        }
    return None
