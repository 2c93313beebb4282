"""The bench's case: an identifier, the facts, the charges, the law in plain words, each side's
evidence item by item, and keywords (what the grounding score looks for in the statements).

A case reaches the bench as a file in this shape (``cases/samvad-*.json``, read by
``read``), as a case file with ``"procedure": "samvad"`` and these fields in ``inputs``, or
as any other case: its question is then the charge and its documents the prosecution's evidence.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ...case import Case
from ...errors import CaseError
from ...motion import asked, uncontracted
from ...replies import shorten

FIELDS = {"case_id", "summary", "charges"}  # a file with these (and no question) is a bench case
STOP = set("""a an and are as at be by for from has have in is it its of on or that the this to was were will with
should would could does did do not no yes we i you he she they our your their""".split())


class BenchCase(BaseModel):
    model_config = ConfigDict(extra="forbid")

    case_id: str = Field(min_length=1)
    title: str = ""
    accused: str = ""
    summary: str = Field(min_length=1)
    charges: list[str] = Field(default_factory=list)  # none: refused with one line (see validated)
    law: str = ""  # a simplified explanation of the relevant law
    prosecution_evidence: list[str] = Field(default_factory=list)
    defense_evidence: list[str] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)

    @field_validator("charges", "prosecution_evidence", "defense_evidence", "keywords", mode="before")
    @classmethod
    def _listed(cls, v: Any) -> Any:
        return v.splitlines() if isinstance(v, str) else v  # one a line (--input charges=…)

    @field_validator("charges", "prosecution_evidence", "defense_evidence", "keywords")
    @classmethod
    def _nonblank(cls, v: list[str]) -> list[str]:
        return [s.strip() for s in v if s.strip()]

    def question(self) -> str:
        who = self.accused or "the accused"
        return f"Is {who} guilty of {'; '.join(self.charges)}?"


def _invalid(source: str, exc: ValidationError) -> CaseError:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "case"
    return CaseError(f"{source}: bench case field '{where}': {first['msg']}; give case_id, summary and charges as "
                     "text (charges, evidence and keywords may be lists)")


def validated(data: dict[str, Any], source: str) -> BenchCase:
    try:
        bench = BenchCase.model_validate(data)
    except ValidationError as exc:
        raise _invalid(source, exc) from None
    if not bench.charges:
        raise CaseError(f"{source}: the case has no charges; list at least one under \"charges\" "
                        "(for example \"theft (IPC section 379)\")")
    return bench


def bench_case(case: Case) -> BenchCase:
    """The case as the bench tries it: its inputs when it has them, else one built from its question."""
    if any(k in case.inputs for k in FIELDS):
        return validated({"case_id": case.inputs.get("case_id") or Path(case.source or "case").stem,
                          **{k: v for k, v in case.inputs.items() if k != "case_id"}}, case.source or "case")
    if not case.context:  # the question alone would be tried as the charge, with no evidence
        raise CaseError("the bench needs its case: a case file with the summary, charges and evidence "
                        "(cases/samvad-theft.json shows the fields), or the case documents attached to the question "
                        "(-c FILE)")
    # each document is an item (P1…) by its opening, cut at a word with "…": the whole text is in the documents
    evidence = [f"{d.name}: {shorten(d.text, 240)}" for d in case.context]
    accused, charge = charged(case.question)
    return BenchCase(case_id=Path(case.source or "case").stem, accused=accused, summary=case.question,
                     charges=[charge], prosecution_evidence=evidence, keywords=key_terms(case.question))


GUILT = re.compile(r"^\s*(?:is|are|was|were)\s+(?P<who>.+?)\s+(?:not\s+)?guilty\s+(?:of|for)\s+(?P<charge>.+?)[\s?.]*$",
                   re.IGNORECASE | re.DOTALL)


def charged(question: str) -> tuple[str, str]:
    """(accused, charge) read from a question of guilt ("Is Dana Whitlock guilty of theft of the
    laptop?" → "Dana Whitlock", "theft of the laptop"), so the bench is charged with the offence,
    not with the question, and its answer names who; any other question is the charge as asked,
    with no one named."""
    found = GUILT.match(uncontracted(asked(question)[1]))  # after its context; "Isn't X guilty …?" as "Is X …"
    return (found["who"], found["charge"]) if found else ("", question)  # the pattern leaves no edge space


def withheld(case: Case, b: BenchCase, item: str) -> Case:
    """The case with evidence item ``item`` (P2, D1…) withheld, for a fragility check: its text
    in the case file, or the document it stands for in a case built from its evidence."""
    marker = f"[evidence item {item} withheld]"
    side, number = ("prosecution_evidence" if item[0] == "P" else "defense_evidence"), int(item[1:]) - 1
    if any(k in case.inputs for k in FIELDS):
        items = list(getattr(b, side))
        items[number] = marker
        return case.model_copy(update={"inputs": {**case.inputs, side: items}})
    documents = list(case.context)  # built from its documents: P1… are the documents, in order
    documents[number] = documents[number].model_copy(update={"text": marker})
    return case.model_copy(update={"context": documents})


def key_terms(text: str, limit: int = 8) -> list[str]:
    """The distinctive words of a text (no stop words, no short words), in order."""
    seen: list[str] = []
    for word in re.findall(r"[A-Za-z][A-Za-z'-]{3,}", text.lower()):
        if word not in STOP and word not in seen:
            seen.append(word)
    return seen[:limit]


def read(path: Path, data: Any) -> Case | None:
    """A bench case file (``case_id``, ``summary``, ``charges``…), or None when the file is not one."""
    if not isinstance(data, dict) or "question" in data or not FIELDS & set(data):
        return None
    source = str(path)
    if data.get("procedure", "samvad") != "samvad":  # a bench case is the bench's: another name was dropped unseen
        raise CaseError(f"{source}: 'procedure' is {data['procedure']!r}, but a file of case_id, summary and charges is "
                        "a bench case, tried by the samvad procedure; set \"procedure\": \"samvad\" or leave it out")
    data = {k: v for k, v in data.items() if k != "procedure"}
    bench = validated(data, source)
    return Case(question=bench.question(), source=source, procedure="samvad", inputs=bench.model_dump(mode="json"))
