"""What the classification court's agents write: the JSON wire models.

Labels are free strings on the wire (each case has its own label set); decoding constrains
them to the case's labels, and the rules check them again, so a backend without a grammar
that writes "Joy." still lands on "joy".
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, Field, field_validator

from ...replies import fraction


def norm_label(text: str) -> str:
    """A label as compared: lower case, underscores and runs of spaces as one space, no end punctuation."""
    return re.sub(r"[\s_]+", " ", text.strip().lower()).strip(" .\"'")


def match_label(said: str, labels: list[str]) -> str | None:
    """The case label a reply names (case, spacing and underscores aside), or None."""
    wanted = norm_label(said)
    return next((label for label in labels if norm_label(label) == wanted), None)


class HearingReply(BaseModel):
    """The preliminary hearing: the most likely label and the strongest alternative."""

    reasoning: str = ""
    top: str
    alternative: str


class ArgumentReply(BaseModel):
    """A counsel's argument for its assigned label, with passages quoted from the text."""

    argument: str
    quotes: list[str] = Field(default_factory=list, max_length=6)


class JudgeReply(BaseModel):
    reasoning: str
    label: str
    confidence: float = Field(0.5, ge=0.0, le=1.0)

    @field_validator("confidence", mode="before")
    @classmethod
    def _percent(cls, v: Any) -> Any:
        return fraction(v)
