"""The criminal case: who is charged, the indictment, each side's evidence, the defendant's
own account and the points the debate turns on.

A case reaches the trial in one of three ways, all ending in ``Dossier``:

* a case file of this project (``cases/criminal-*.json``): ``"procedure": "criminal"`` and the
  dossier in ``"inputs"``;
* a SimCourt file read in place: the judgment-prediction format (``defendant_information``,
  ``prosecution_statement_sub``, ``evidence`` as [prosecution list, defense list], ``fact``)
  or the older Sim-Court format (``prosecution_statement``, a flat ``evidence`` list,
  ``debate_focus``). Gold fields and the unmasked indictment of the first are never read;
* any other case: its question is the charge and its documents the prosecution's evidence.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ...case import Case
from ...errors import CaseError
from ...replies import latin_script

Plea = Literal["guilty", "not guilty", ""]
SIMCOURT_MARKS = {"defendant_information", "prosecution_statement_sub", "prosecution_statement"}
GOLD = ("prosecution_statement", "charge", "term", "fine", "reprieve", "result")  # never shown to a model

DEFAULT_FOCUS = {
    "zh": ["被告人的行为是否构成起诉书指控的罪名", "对被告人应当如何量刑"],
    "en": ["Whether the evidence proves the offence charged", "What sentence the offence deserves"],
}


class Dossier(BaseModel):
    """The trial's case inputs (``inputs`` of a case file)."""

    model_config = ConfigDict(extra="forbid")

    defendant: str = Field(min_length=1)  # who is charged: name, birth, record, custody
    indictment: str = Field(min_length=1)  # with any recommended sentence masked
    prosecution_evidence: list[str] = Field(default_factory=list)
    defense_evidence: list[str] = Field(default_factory=list)
    account: str = ""  # the defendant's own account of the facts
    debate_focus: list[str] = Field(default_factory=list)
    plea: Plea = ""  # "": the case does not say; the defendant answers for themself

    @field_validator("prosecution_evidence", "defense_evidence", "debate_focus", mode="before")
    @classmethod
    def _listed(cls, v: Any) -> Any:
        return v.splitlines() if isinstance(v, str) else v  # one item a line (--input prosecution_evidence=…), as listed

    @field_validator("plea", mode="before")
    @classmethod
    def _plea(cls, v: Any) -> Any:
        return " ".join(v.lower().split()) if isinstance(v, str) else v  # "Not Guilty" as typed

    @field_validator("prosecution_evidence", "defense_evidence", "debate_focus")
    @classmethod
    def _nonblank(cls, v: list[str]) -> list[str]:
        return [s.strip() for s in v if s.strip()]

    @property
    def language(self) -> str:
        return "en" if latin_script(f"{self.defendant} {self.indictment}") else "zh"

    def focus(self) -> list[str]:
        return self.debate_focus or DEFAULT_FOCUS[self.language]

    def name(self) -> str:
        """The defendant's name as the record calls them."""
        if self.language == "zh":
            found = re.search(r"被告人\s*([^\s，,。（(：:]{1,6})", self.defendant)
            return found.group(1) if found else "被告人"
        text = re.sub(r"^\s*(?:The defendant|Defendant)\b[,:]?\s*", "", self.defendant)
        found = re.match(r"([A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*){0,3})", text)
        return found.group(1) if found else "the defendant"


def dossier(case: Case) -> Dossier:
    """The dossier of a case: its inputs if it has them, else one built from its question and documents."""
    if case.inputs.get("indictment") is not None or case.inputs.get("defendant") is not None:
        try:
            return Dossier.model_validate(case.inputs)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "inputs"
            hint = ("give plea as guilty or not guilty, or leave it out (the defendant then answers for themself)"
                    if where == "plea" else
                    "give defendant and indictment as text, the evidence and debate_focus as lists of text")
            raise CaseError(f"{case.source or 'case'}: criminal trial input '{where}': {first['msg']}; {hint}") from None
    if not case.context:  # the question alone would be tried as the indictment, with no evidence
        raise CaseError("a criminal trial needs its case: a case file with the defendant, the indictment and the "
                        "evidence (cases/criminal-burglary.json shows the fields), or the case documents attached to "
                        "the question (uploaded in the chat or the notebook, -c FILE on the command line)")
    zh = not latin_script(case.question)
    documents = [f"{d.name}" + (f"：{_head(d.text)}" if zh else f": {_head(d.text)}") for d in case.context]
    return Dossier(
        defendant="被告人（案卷未载明身份）" if zh else "The defendant (the case does not name them)",
        indictment=(f"公诉机关指控：{case.question}" if zh else f"The prosecution charges: {case.question}"),
        prosecution_evidence=documents,
    )


def _head(text: str, chars: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= chars else flat[:chars].rstrip() + "…"


def plea_of(*texts: str) -> Plea:
    """A guilty plea the Chinese case records (认罪认罚, 自愿认罪); "" when it says nothing."""
    joined = " ".join(texts)
    if re.search(r"认罪认罚|自愿认罪|如实供述.{0,20}认罪|当庭认罪", joined):
        return "guilty"
    return ""


def _evidence_lists(evidence: Any, source: str) -> tuple[list[str], list[str]]:
    if not isinstance(evidence, list):
        raise CaseError(f"{source}: 'evidence' must be a list (of items, or of [prosecution list, defense list])")
    if evidence and all(isinstance(part, list) for part in evidence):
        if len(evidence) > 2:
            raise CaseError(f"{source}: 'evidence' holds {len(evidence)} lists; expected [prosecution list, defense list]")
        lists = [*evidence, [], []][:2]
    else:
        lists = [evidence, []]
    for part in lists:
        if not all(isinstance(x, str) for x in part):
            raise CaseError(f"{source}: every evidence item must be text")
    return list(lists[0]), list(lists[1])


def from_simcourt(data: dict[str, Any], source: str) -> Case:
    """A case from a SimCourt file: the judgment-prediction format (masked indictment) or the
    older Sim-Court one (with debate focus). Raises a one-line ``CaseError`` on a bad file."""
    if "prosecution_statement_sub" in data:
        indictment = data["prosecution_statement_sub"]  # the masked one: never the full statement
    elif "prosecution_statement" in data and "charge" not in data:
        indictment = data["prosecution_statement"]  # the older format holds no recommended sentence
    else:
        raise CaseError(f"{source}: a SimCourt case needs 'prosecution_statement_sub' (the masked indictment)")
    for key, value in (("defendant_information", data.get("defendant_information")), ("indictment", indictment)):
        if not isinstance(value, str) or not value.strip():
            raise CaseError(f"{source}: '{key}' must be non-empty text")
    prosecution, defense = _evidence_lists(data.get("evidence", []), source)
    account = data.get("fact", "")
    focus = data.get("debate_focus", [])
    if not isinstance(account, str):
        raise CaseError(f"{source}: 'fact' must be text")
    if not isinstance(focus, list) or not all(isinstance(f, str) for f in focus):
        raise CaseError(f"{source}: 'debate_focus' must be a list of text")
    inputs = Dossier(defendant=data["defendant_information"], indictment=indictment, prosecution_evidence=prosecution,
                     defense_evidence=defense, account=account, debate_focus=[re.sub(r"^\d+[.、]\s*", "", f) for f in focus],
                     plea=plea_of(indictment, account))
    return Case(question=question_for(inputs), source=source, procedure="criminal",
                inputs=inputs.model_dump(mode="json"))


def question_for(inputs: Dossier) -> str:
    name = inputs.name()
    if inputs.language == "zh":
        return f"被告人{name if name != '被告人' else ''}是否有罪，应如何判处？"
    return f"Is {name} guilty as charged, and what sentence should the court impose?"


def looks_like_simcourt(data: Any) -> bool:
    """A file with a key only SimCourt cases have (and no question): read as one, so a file with a
    field missing (the masked indictment) is told which, not that its other fields are unknown."""
    return isinstance(data, dict) and "question" not in data and bool(SIMCOURT_MARKS & set(data))


def read(path: Path, data: Any) -> Case | None:
    """The reader the case loader asks about a JSON file it does not know: a SimCourt case, else None."""
    if not looks_like_simcourt(data):
        return None
    return from_simcourt(data, str(path))
