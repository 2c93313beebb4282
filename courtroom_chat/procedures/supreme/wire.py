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
    """A justice's opinion in round 1. The facts come in two lists, one for each verdict, before
    the analysis weighs them: asked for the facts its verdict "rests on", the 1.5B listed an alibi
    (boarding records, a flight attendant's report) and called it proof of the charge. The
    standard applied is the case type's, recorded beside the reply: asked to state it just
    before the verdict, justices copied the burden instruction ("The verdict is 'guilty' only
    if…") and wrote "guilty" next, against their own analysis ("the lack of accelerant strongly
    suggests the fire was not caused by arson")."""

    facts_for: list[str] = Field(default_factory=list)  # facts pointing to the yes verdict (guilty / liable)
    facts_against: list[str] = Field(default_factory=list)  # facts pointing to the no verdict, or leaving a doubt
    evidence_analysis: str = ""  # ends on whether the burden of proof is met
    verdict: str
    confidence: Fraction = 0.5


class ConferenceReply(OpinionReply):
    """A justice's final opinion after the conference: may change its verdict, says whether and why."""

    changed: bool = False
    why: str = ""  # why it changed, or why it held


class JurorReply(_Verdict):
    facts_for: list[str] = Field(default_factory=list)  # as a justice's: the facts for each verdict
    facts_against: list[str] = Field(default_factory=list)
    reasoning: str = ""
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
