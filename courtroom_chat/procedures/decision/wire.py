"""What the decision court's agents write: the JSON wire models, and the plain labels they vote
with, mapped to verdict words in code (with guilty/not_guilty, small models were measured
voting against their own reasoning).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from ...replies import Confident, fraction, renamed


def _label(value: Any, mapping: dict[str, str]) -> Any:
    if isinstance(value, str):
        key = re.sub(r"[\s_\-']+", " ", value.strip().lower()).strip(" .\"")
        return mapping.get(key, value)
    return value


_VOTES = {"act": "act", "yes": "act", "guilty": "act", "do not act": "do not act", "dont act": "do not act",
          "don t act": "do not act", "no": "do not act", "not guilty": "do not act", "abstain": "abstain"}
_RULINGS = {**_VOTES, "dismiss": "dismiss", "dismissed": "dismiss"}
_RULINGS.pop("abstain")


class ExhibitReply(BaseModel):
    source_quote: str
    target_quote: str = ""
    harm: str


class ProsecutorReply(BaseModel):
    motion: str
    case_statement: str
    exhibits: list[ExhibitReply] = Field(max_length=12)
    harm_analysis: str


class ChallengeReply(BaseModel):
    exhibit: int
    challenge: str
    effect: Literal["refutes", "weakens", "concedes"] = "weakens"

    @field_validator("effect", mode="before")
    @classmethod
    def _effect(cls, v: Any) -> Any:
        return v.strip().lower() if isinstance(v, str) else v


class DefenseExhibitReply(BaseModel):
    source_quote: str
    shows: str = ""  # what the passage shows against acting


class DefenseReply(BaseModel):
    counter_argument: str
    exhibits: list[DefenseExhibitReply] = Field(default_factory=list, max_length=12)
    exhibit_challenges: list[ChallengeReply]
    harm_dispute: str
    alternative: str


class JurorReply(Confident):
    """A juror weighs the evidence in its reasoning, then votes. ``facts_for`` and
    ``facts_against`` are read from records of the release that asked for them (and checked
    against the vote when a reply gives them); jurors are no longer asked for them: the 1.5B
    filled "for" with the first fact it read, whichever way it pointed (see the README).
    ``confidence`` is a plain juror's own (``jury_asks = "plain"``)."""

    facts_for: str = ""
    facts_against: str = ""
    reasoning: str = ""
    vote: str  # a vote label, or (as jurors are asked) the motion, its refusal, or "abstain"

    @model_validator(mode="before")
    @classmethod
    def _decision_is_vote(cls, data: Any) -> Any:
        """A plain juror answers "decision": yes / no, as a single call does."""
        return renamed(data, "vote", "decision")

    def label(self, *phrasings: Mapping[str, str]) -> str | None:
        """The vote as act / do not act / abstain: in the words of any of ``phrasings`` (each
        maps "act" and "do not act" to what a juror writes for them), or a plain label."""
        def norm(text: str) -> str:
            return re.sub(r"[\s_\-']+", " ", text.strip().lower()).strip(" .\"")

        said = norm(self.vote)
        for words in phrasings:
            found = {norm(words["act"]): "act", norm(words["do not act"]): "do not act"}.get(said)
            if found:
                return found
        return _VOTES.get(said)

    def text(self) -> str:
        """The juror's reasoning as the record keeps it: the facts each way, then the weighing."""
        parts = []
        if self.facts_for.strip():
            parts.append(f"For acting: {self.facts_for.strip()}")
        if self.facts_against.strip():
            parts.append(f"Against: {self.facts_against.strip()}")
        if self.reasoning.strip():
            parts.append(self.reasoning.strip())
        return "\n".join(parts)


# A field of the ruling written as one of its actions ("confidence: 0.8"), as the 1.5B judge did
_FIELD_AS_ACTION = re.compile(r'^\W*(confidence|decision|rationale|reasoning)\W*\s*[:=]\s*(.+?)\W*$', re.IGNORECASE)


class JudgeReply(BaseModel):
    reasoning: str
    decision: Literal["act", "do not act", "dismiss"]
    answer: str = ""  # no longer asked for: the plain answer is built from the decision and the motion
    rationale: str
    actions: list[str] = Field(default_factory=list)
    confidence: float = Field(ge=0.0, le=1.0)

    @model_validator(mode="before")
    @classmethod
    def _fields_in_place(cls, data: Any) -> Any:
        """A field written among the actions ("confidence: 0.8") is taken as that field when the
        reply lacks it, and is never an action: the judge was asked again for it, and its repair
        was cut off (issue 86, item 5)."""
        if not isinstance(data, dict) or not isinstance(data.get("actions"), list):
            return data
        data, kept = dict(data), []
        for action in data["actions"]:
            found = _FIELD_AS_ACTION.match(action) if isinstance(action, str) else None
            if found is None:
                kept.append(action)
                continue
            name = found.group(1).lower()
            if data.get(name) in (None, ""):
                data[name] = found.group(2).strip().strip('"')
        data["actions"] = kept
        return data

    @field_validator("decision", mode="before")
    @classmethod
    def _decision(cls, v: Any) -> Any:
        return _label(v, _RULINGS)

    @field_validator("confidence", mode="before")
    @classmethod
    def _percent(cls, v: Any) -> Any:
        return fraction(v)


VOTE_WORDS = {"act": "guilty", "do not act": "not_guilty", "abstain": "abstain"}
DECISION_WORDS = {"act": "guilty", "do not act": "not_guilty", "dismiss": "dismissed"}
