"""The JSON each role of the bench writes. A citation names a source (IPC, CrPC, IEA, CPC,
Constitution, or a user corpus file), a section or article, and optionally words quoted from it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, field_validator


class Citation(BaseModel):
    source: str  # IPC
    section: str  # 379
    quote: str = ""  # words copied from the section, exactly
    point: str = ""  # what the provision shows here

    @field_validator("section", mode="before")
    @classmethod
    def _text(cls, v: Any) -> Any:
        return str(v) if isinstance(v, int | float) else v


class JudgeReply(BaseModel):
    """The presiding judge's instructions to the bench."""

    instructions: str = ""  # impartial instructions: the offence's elements, what to weigh
    elements: list[str] = Field(default_factory=list)  # what the prosecution must prove, one element each
    standard_of_proof: str = ""  # the standard, and on whom the burden lies
    citations: list[Citation] = Field(default_factory=list)


class CounselReply(BaseModel):
    """A counsel's argument (prosecution or defense)."""

    argument: str = ""
    points: list[str] = Field(default_factory=list)  # the evidence relied on, one item each
    citations: list[Citation] = Field(default_factory=list)


class Finding(BaseModel):
    """An adjudicator's finding on one element of the charge: the evidence items it rests on
    (P1, D2…) and whether the element is proved."""

    element: int  # the element's number in the judge's list
    evidence: list[str] = Field(default_factory=list)  # P1, D2…
    finding: str  # proved | not proved

    @field_validator("evidence", mode="before")
    @classmethod
    def _items(cls, v: Any) -> Any:
        return [str(x).strip().upper() for x in v] if isinstance(v, list) else v

    @field_validator("finding", mode="before")
    @classmethod
    def _label(cls, v: Any) -> Any:
        return " ".join(v.strip().lower().replace("_", " ").split()) if isinstance(v, str) else v


class StatementReply(BaseModel):
    """An adjudicator's statement in one round: a finding on each element of the charge, then the
    justification, then the leaning. Findings and reasons come before the leaning: a small model
    that writes its leaning first picks it before it has weighed anything (the decision court's
    jurors give their reasons before their vote for the same reason), and a leaning of guilty
    must agree with findings of every element proved (see ``rules.statement_problems``)."""

    findings: list[Finding] = Field(default_factory=list)  # empty in records made before findings were asked
    justification: str = ""
    leaning: str  # guilty | not guilty | undecided

    @field_validator("leaning", mode="before")
    @classmethod
    def _label(cls, v: Any) -> Any:
        return " ".join(v.strip().lower().replace("_", " ").replace("-", " ").split()) if isinstance(v, str) else v
