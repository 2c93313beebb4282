"""The JSON each role of the supreme court writes. Verdicts are free strings here and checked
against the case's two labels (guilty / not guilty, liable / not liable) by the rules; for
decoding, ``refine_schema`` narrows them to exactly those two."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, Field, field_validator

from ...replies import fraction

Fraction = Annotated[float, Field(ge=0.0, le=1.0), BeforeValidator(fraction)]  # 70 or "70%" reads as 0.7


class _Verdict(BaseModel):
    """Reads a verdict label loosely ("Not_Guilty" is "not guilty"). Each reply declares its own
    ``verdict`` after its reasoning: JSON is written in the schema's field order, and a field
    inherited from a base class keeps the base's place (first), so a verdict declared here made
    every justice and juror commit to a verdict before writing a word of reasoning."""

    @field_validator("verdict", mode="before", check_fields=False)
    @classmethod
    def _label(cls, v: Any) -> Any:
        return " ".join(v.strip().lower().replace("_", " ").replace("-", " ").split()) if isinstance(v, str) else v


class OpinionReply(_Verdict):
    """A justice's opinion in round 1. The standard applied is the case type's, recorded beside
    the reply: asked to state it just before the verdict, justices copied the burden
    instruction ("The verdict is 'guilty' only if…") and wrote "guilty" next, against their own
    analysis ("the lack of accelerant strongly suggests the fire was not caused by arson").
    The key facts are one list: split into facts for and against (293a7bf), 276 of 431 of the
    1.5B's items were a witness's heading ("WITNESS 1: Joan Pruitt, neighbour, called by the
    prosecution.") where one list had none of 433, and no verdict followed the evidence better."""

    key_facts: list[str] = Field(default_factory=list)
    evidence_analysis: str = ""  # ends on whether the party with the burden proved its case
    verdict: str
    confidence: Fraction = 0.5


class Element(BaseModel):
    """A finding on one element the party with the burden must prove (``opinion_form = "findings"``)."""

    element: str = ""  # what must be proved, in a short sentence
    evidence: str = ""  # the witness or exhibit that bears on it
    finding: str = ""  # proved | not proved

    @field_validator("finding", mode="before")
    @classmethod
    def _label(cls, v: Any) -> Any:
        return " ".join(v.strip().lower().replace("_", " ").split()) if isinstance(v, str) else v


class ConferenceReply(OpinionReply):
    """A justice's final opinion after the conference: may change its verdict, says whether and why."""

    changed: bool = False
    why: str = ""  # why it changed, or why it held


class JurorReply(_Verdict):
    facts_for: list[str] = Field(default_factory=list)  # as a justice's: the facts for each verdict
    facts_against: list[str] = Field(default_factory=list)
    reasoning: str = ""
    verdict: str


class RereadReply(_Verdict):
    """The verdict a justice's analysis supports, read back from the analysis alone
    (``verdict_from = "analysis"``, off by default). Tried because a 1.5B justice wrote "the video
    shows no fall, the log shows no spill" and then "liable"; measured, its analyses mostly argue
    for the verdict written beside them, and read back they followed the No cases no better
    (bench/results/supreme-reread-probe-1.5b-2026-11-27)."""

    finding: str = ""  # what the analysis finds the evidence shows, in one sentence
    verdict: str


class FactReply(BaseModel):
    source_quote: str  # the transcript's words, verbatim
    kind: str = "fact"  # fact | evidence | testimony
    bears_on: str = ""  # the element or issue it bears on
    favours: str = ""  # the side it helps: prosecution / plaintiff / defense / neither


class FactsReply(BaseModel):
    """The why trace, first call: every fact and item of evidence, mapped to the standard."""

    facts: list[FactReply] = Field(default_factory=list)


class ReasoningReply(_Verdict):
    """The why trace, second call: from the facts to the decision."""

    narrative: str = ""
    contradictions: list[str] = Field(default_factory=list)
    law_applied: str = ""
    verdict: str
    confidence: Fraction = 0.5


class FindingsOpinionReply(OpinionReply):
    """A round-1 opinion with a finding on each element instead of a free analysis (the samvad
    adjudicators' design): the verdict must follow the findings. Decoded in the order key facts,
    elements, verdict, confidence (``SupremeCourt.opinion_schema``); the analysis the rest of the
    court reads is written from the findings."""

    elements: list[Element] = Field(default_factory=list)


class FindingsConferenceReply(ConferenceReply):
    """A conference opinion in the findings form."""

    elements: list[Element] = Field(default_factory=list)


FINDINGS_WIRES = (FindingsOpinionReply, FindingsConferenceReply)  # the opinions written in the findings form
