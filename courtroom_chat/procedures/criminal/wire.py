"""What each role of the criminal trial writes, and the records the trial keeps.

Every turn is a ``Speech``; the judge hosting a stage writes a ``HostChoice`` (who speaks
next, or end the stage); the judge's last word is a ``JudgmentReply``, whose structured
sentence is checked against its own text and kept as a ``Judgment``. The stenographer's
court record is a list of ``RecordEntry`` (turn, stage, speaker, text).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

END = "end"  # a HostChoice that closes the stage


class Speech(BaseModel):
    """One turn in court: what the speaker says, in the case's language."""

    text: str = Field(min_length=1)

    @field_validator("text")
    @classmethod
    def _strip(cls, v: str) -> str:
        return v.strip()


class HostChoice(BaseModel):
    """The presiding judge names who speaks next in the stage, or ends it."""

    next: str
    reason: str = ""


class JudgmentReply(BaseModel):
    """The written judgment: facts found, reasoning, the law applied, and the sentence both as
    fields and in its operative text (the two must agree)."""

    facts: str
    reasoning: str
    law: str
    charges: list[str] = Field(default_factory=list)  # empty: acquitted
    term_months: float = Field(0, ge=0)  # prison, detention or control, in months
    fine: float = Field(0, ge=0)  # in the case's currency (yuan for the Chinese cases)
    probation_months: float = Field(0, ge=0)  # the sentence suspended for this long; 0: served
    text: str  # the operative part: "The defendant X is guilty of ..., sentenced to ..."

    @field_validator("charges", mode="before")
    @classmethod
    def _one_charge(cls, v: object) -> object:
        return [v] if isinstance(v, str) else v


class Judgment(BaseModel):
    """The judgment as kept and scored: the sentence taken from the text where it states it."""

    model_config = ConfigDict(extra="forbid")

    charges: list[str]
    term_months: float = Field(ge=0)
    fine: float = Field(ge=0)
    probation_months: float = Field(ge=0)
    special: str = ""  # life imprisonment, death (with reprieve): a term no number of months states
    facts: str = ""
    reasoning: str = ""
    law: str = ""
    text: str = ""


class RecordEntry(BaseModel):
    """One line of the court record, as the stenographer keeps it."""

    turn: int
    stage: str
    speaker: str  # the role: judge, prosecution, advocate, defendant, stenographer
    text: str
    repeats: int = 0  # the earlier turn it still repeats after its repair: kept here, left out of what speakers read
