"""The supreme court's rules: the standard a case type sets, the checks on each reply, the
jury's verdict rule (unanimity or a majority, else hung), the bench's majority, and how the
justices moved between rounds (conformity)."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any

from ...motion import answers
from ..base import Problem, words
from ..deliberation import conformity as shared_conformity
from .wire import FINDINGS_WIRES, ConferenceReply, FactsReply, JurorReply, OpinionReply, ReasoningReply


@dataclass(frozen=True)
class Standard:
    """What a case type sets: the two verdicts (the first is the Yes side) and the burden."""

    type: str  # criminal | civil
    yes: str  # guilty | liable
    no: str  # not guilty | not liable
    burden: str  # beyond a reasonable doubt | a preponderance of the evidence
    party: str  # the side that bears the burden: the prosecution | the plaintiff
    other: str  # the defense | the defendant
    against: bool = False  # the question is asked against the Yes verdict ("Is X not guilty …?")

    @property
    def labels(self) -> list[str]:
        return [self.yes, self.no]

    def polarity(self, label: str) -> str:
        """A verdict as an answer to the question: guilty is Yes to "Is X guilty …?" and No to
        "Is X not guilty …?" (the answer, the evaluation's scoring and the switches between rounds)."""
        return answers(label, self.yes, self.labels, self.against)


STANDARDS = {
    "criminal": Standard("criminal", "guilty", "not guilty", "beyond a reasonable doubt", "the prosecution", "the defense"),
    "civil": Standard("civil", "liable", "not liable", "a preponderance of the evidence", "the plaintiff", "the defendant"),
}


def verdict_problem(verdict: str, standard: Standard) -> list[Problem]:
    if verdict in standard.labels:
        return []
    return [Problem("verdict", f'the verdict "{verdict}" is not one of "{standard.yes}" or "{standard.no}"; '
                               "give exactly one of them")]


FINDINGS = ("proved", "not proved")


def findings_verdict(elements: list[dict[str, Any]], standard: Standard) -> str | None:
    """The verdict a justice's findings bind: the Yes side only if every element is proved;
    None when there is no finding to bind it."""
    found = [e.get("finding") for e in elements if e.get("finding") in FINDINGS]
    if not found:
        return None
    return standard.yes if all(f == "proved" for f in found) else standard.no


def findings_problems(reply: Any, standard: Standard) -> list[Problem]:
    """A findings-form opinion: a finding on each element, and a verdict that follows them."""
    if not reply.elements:
        return [Problem("elements", f"give a finding on each element {standard.party} must prove")]
    odd = [n for n, e in enumerate(reply.elements, 1) if e.finding not in FINDINGS]
    if odd:
        return [Problem("elements", f"element {odd[0]}: the finding must be \"proved\" or \"not proved\"")]
    bound = findings_verdict([e.model_dump() for e in reply.elements], standard)
    if bound and reply.verdict in standard.labels and reply.verdict != bound:
        unproved = [str(n) for n, e in enumerate(reply.elements, 1) if e.finding != "proved"]
        why = (f"your findings leave element {', '.join(unproved)} not proved" if unproved
               else "your findings prove every element")
        return [Problem("findings_verdict", f"{why}, yet your verdict is {reply.verdict}; under {standard.burden} "
                                            f"make your verdict follow your findings ({bound})")]
    return []


def opinion_problems(reply: OpinionReply, standard: Standard, min_words: int) -> list[Problem]:
    problems = verdict_problem(reply.verdict, standard)
    if not [f for f in reply.key_facts if f.strip()]:
        problems.append(Problem("key_facts", "list the key facts from the transcript that decide the case"))
    if isinstance(reply, FINDINGS_WIRES):
        problems += findings_problems(reply, standard)
    elif words(reply.evidence_analysis) < min_words:
        problems.append(Problem("analysis", f"the evidence analysis has {words(reply.evidence_analysis)} words; "
                                            f"weigh the evidence for and against in at least {min_words}"))
    if isinstance(reply, ConferenceReply) and not reply.why.strip():
        problems.append(Problem("why", "say why your verdict changed, or why it held, after reading the others"))
    return problems


def juror_problems(reply: JurorReply, standard: Standard, min_words: int) -> list[Problem]:
    problems = verdict_problem(reply.verdict, standard)
    if words(reply.reasoning) < min_words:
        problems.append(Problem("reasoning", f"the reasoning has {words(reply.reasoning)} words; give at least "
                                             f"{min_words}, naming the facts and the burden of proof"))
    return problems


def facts_problems(reply: FactsReply, quotes: list[Problem]) -> list[Problem]:
    if not reply.facts:
        return [Problem("facts", "list the facts and evidence in the transcript, each quoted exactly")]
    return quotes


def reasoning_problems(reply: ReasoningReply, standard: Standard) -> list[Problem]:
    problems = verdict_problem(reply.verdict, standard)
    if not reply.law_applied.strip():
        problems.append(Problem("law_applied", f"apply the burden ({standard.burden}) to the facts"))
    return problems


# ---------------------------------------------------------------- votes


def majority(votes: dict[str, str], standard: Standard) -> str:
    """The bench's decision: the label most justices chose (an odd bench cannot tie; with
    failed seats a tie goes to the side without the burden)."""
    counts = Counter(votes.values())
    return standard.yes if counts[standard.yes] > counts[standard.no] else standard.no


def jury_needed(seated: int, standard: Standard, criminal_rule: str, civil_majority: float) -> int:
    """Votes one way a verdict needs: all for a unanimous rule, else the configured share."""
    if standard.type == "criminal" and criminal_rule == "unanimous":
        return seated
    share = 0.5 if standard.type == "criminal" else civil_majority
    return max(1, math.floor(seated * share) + 1) if share == 0.5 else max(1, math.ceil(seated * share))


def jury_verdict(votes: list[str], seated: int, needed: int, standard: Standard) -> str:
    """The jury's verdict, or "hung" when neither side reaches ``needed`` of ``seated``."""
    counts = Counter(votes)
    for label in standard.labels:
        if counts[label] >= needed:
            return label
    return "hung"


def conformity(before: dict[str, str], after: dict[str, str], standard: Standard) -> dict[str, object]:
    """Who changed between two rounds, and whether toward or away from the earlier majority."""
    moved = shared_conformity(before, after, majority(before, standard) if before else "", standard.polarity,
                              who="justice")
    return {**moved, "majority_held": bool(after) and majority(after, standard) == moved["previous_majority"]}
