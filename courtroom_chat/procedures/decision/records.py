"""The decision court's typed records: exhibits, the prosecution, the defense, the jury, the verdict.

Verdict words (guilty / not_guilty / abstain / dismissed) live here. Models are never
asked for them: the court asks with plain-meaning labels and maps them in code.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer

from ...evidence import Location, NearestMiss

Vote = Literal["guilty", "not_guilty", "abstain"]
Decision = Literal["guilty", "not_guilty", "dismissed"]



class Exhibit(BaseModel):
    number: int
    source_quote: str
    target_quote: str = ""
    harm: str = ""
    origin: Literal["prosecutor", "case", "defense"] = "prosecutor"
    verified: bool = False
    location: Location | None = None
    target_location: Location | None = None
    nearest: NearestMiss | None = None
    attempt: int = 1  # 2: filed after the prosecutor was shown what failed

    def mark(self) -> str:
        """The verified/unverified mark every front end shows."""
        if self.verified and self.location:
            return f"✅ verified at {self.location.short()}"
        if self.nearest:
            return f"❌ unverified (nearest passage {self.nearest.similarity:.0%} similar at {self.nearest.location.short()})"
        return "❌ unverified (no similar passage in the evidence)"


class Prosecution(BaseModel):
    motion: str
    case_statement: str
    exhibits: list[Exhibit] = Field(default_factory=list)
    harm_analysis: str = ""

    def admitted(self) -> list[Exhibit]:
        return [e for e in self.exhibits if e.verified]


class ExhibitChallenge(BaseModel):
    exhibit: int
    challenge: str
    effect: Literal["refutes", "weakens", "concedes"] = "weakens"


class Defense(BaseModel):
    counter_argument: str
    exhibits: list[Exhibit] = Field(default_factory=list)  # passages it files for NO, numbered after the prosecution's
    exhibit_challenges: list[ExhibitChallenge] = Field(default_factory=list)
    harm_dispute: str = ""
    alternative: str = ""
    # The prosecution's exhibits the defense quoted again as its own: the same verified fact,
    # claimed for NO as well. Contested, so the evidence confidence counts them for neither side.
    turned: list[int] = Field(default_factory=list)

    def challenge_for(self, number: int) -> ExhibitChallenge | None:
        return next((c for c in self.exhibit_challenges if c.exhibit == number), None)


class Juror(BaseModel):
    number: int
    persona: str
    model: str = ""
    temperature: float | None = None  # as applied; None when the backend takes none
    vote: Vote | None = None
    reasoning: str = ""
    asked: str = ""  # the question this juror answered, when not the one asked (``ask_direct``)
    answered: str = ""  # its own answer to ``asked`` ("yes" / "no"), which counts the other way
    against_reasoning: str = ""  # its answer went against its own reasoning, also when asked again (counted by the reasoning)
    status: Literal["pending", "voted", "failed"] = "pending"
    error: str = ""

    @model_serializer(mode="wrap")
    def _without_unused(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """The fields added on 2026-11-28 only where they say something, so a juror of an earlier
        record is written out as it was."""
        data = handler(self)
        return {k: v for k, v in data.items() if v or k not in ("asked", "answered", "against_reasoning")}


class Jury(BaseModel):
    jurors: list[Juror] = Field(default_factory=list)
    guilty_count: int = 0
    not_guilty_count: int = 0
    abstain_count: int = 0
    threshold: int = 3
    proceeds_to_judge: bool = False

    @property
    def seated(self) -> int:
        return len(self.jurors)

    @property
    def voted(self) -> int:
        return self.guilty_count + self.not_guilty_count + self.abstain_count

    def split(self, words: bool = False) -> str:
        """'3–2' (act–do not act), with abstentions and a partial panel spelled out; with
        ``words``, '3 to act, 2 not to act' for prompts."""
        if words:
            text = f"{self.guilty_count} to act, {self.not_guilty_count} not to act"
        else:
            text = f"{self.guilty_count}–{self.not_guilty_count}"
        if self.abstain_count:
            text += f", {self.abstain_count} abstaining"
        if self.voted < self.seated:
            text += f" ({self.voted} of {self.seated} jurors{' voted' if words else ''})"
        return text

    def unanimous(self) -> bool:
        counts = [c for c in (self.guilty_count, self.not_guilty_count, self.abstain_count) if c]
        return len(counts) <= 1

    @classmethod
    def tally(cls, jurors: list[Juror], threshold: int) -> Jury:
        votes = [j.vote for j in jurors if j.status == "voted"]
        guilty = votes.count("guilty")
        return cls(
            jurors=jurors,
            guilty_count=guilty,
            not_guilty_count=votes.count("not_guilty"),
            abstain_count=votes.count("abstain"),
            threshold=threshold,
            proceeds_to_judge=guilty >= threshold,
        )


class Verdict(BaseModel):
    decision: Decision
    reasoning: str
    rationale: str
    actions: list[str] = Field(default_factory=list)
    confidence: float  # the judge's own figure
    answer: str  # "Yes: publish now"
    evidence_confidence: float  # the verified, unrefuted exhibits for the decision, see answer.py
    evidence_basis: dict[str, Any] = Field(default_factory=dict)
    decided_by: Literal["judge", "jury"] = "judge"


# The decision court's records in the generic run record: outputs key -> typed model.
KEYS = {"prosecution": "prosecutor", "defense": "defense", "jury": "jury", "verdict": "verdict"}
MODELS: dict[str, type[BaseModel]] = {"prosecution": Prosecution, "defense": Defense, "jury": Jury, "verdict": Verdict}


def typed(name: str, outputs: dict[str, Any]) -> Any:
    """``record.verdict`` and friends: the typed record under its outputs key, or None."""
    data = outputs.get(KEYS[name])
    return MODELS[name].model_validate(data) if data is not None else None
