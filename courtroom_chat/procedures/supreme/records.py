"""The supreme court's own records: a fact of the why trace, with its quote checked."""

from __future__ import annotations

from pydantic import BaseModel

from ...evidence import Location, NearestMiss


class Fact(BaseModel):
    number: int
    source_quote: str
    kind: str = "fact"
    bears_on: str = ""
    favours: str = ""
    verified: bool = False
    location: Location | None = None  # where the quote stands in the transcript
    nearest: NearestMiss | None = None  # the closest passage, when it does not
