"""A trial transcript: read from JSON, checked, and rendered as the text every agent reads.

The JSON holds the case's ``type`` (criminal or civil), its title, parties, charges or
claims, opening statements, the witness sessions (each question with its answer and any
objection with its ground and ruling) and closing statements. It is rendered once, into a
plain-text document with one line per statement, question and answer: the agents quote
that text and the verifier checks the quotes against it, so every location points at a line
a person can read. A plain-text transcript is taken as it is, with its type from ``--type``.

Bad input is one line naming the place and what to do.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ...case import Case, Document
from ...errors import CaseError

CaseType = Literal["criminal", "civil"]
TYPES: tuple[str, ...] = ("criminal", "civil")
# the keys that make a JSON document a transcript (checked strictly from then on)
MARKS = {"witnesses", "opening_statements", "closing_statements", "charges", "claims"}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Statement(_Strict):
    by: str  # prosecution, defense, plaintiff
    speaker: str = ""
    text: str = Field(min_length=1)


class Objection(_Strict):
    by: str
    ground: str = Field(min_length=1)
    ruling: Literal["sustained", "overruled"]

    @field_validator("ruling", mode="before")
    @classmethod
    def _lower(cls, v: Any) -> Any:
        return v.strip().lower() if isinstance(v, str) else v


class Exchange(_Strict):
    examiner: str = ""
    question: str = Field(min_length=1)
    answer: str = ""  # empty when a sustained objection kept it out
    objection: Objection | None = None


class Session(_Strict):
    witness: str = Field(min_length=1)
    called_by: str = Field(min_length=1)
    questions: list[Exchange] = Field(min_length=1)


class Transcript(_Strict):
    type: CaseType
    title: str = Field(min_length=1)
    parties: dict[str, str] = Field(default_factory=dict)
    charges: list[str] = Field(default_factory=list)
    claims: list[str] = Field(default_factory=list)
    opening_statements: list[Statement] = Field(default_factory=list)
    witnesses: list[Session] = Field(min_length=1)
    closing_statements: list[Statement] = Field(default_factory=list)

    def text(self) -> str:
        """The transcript as the agents read it: one line per statement, question and answer."""
        lines = [f"{self.title} ({self.type} case)", ""]
        for role, name in self.parties.items():
            lines.append(f"{role.replace('_', ' ').capitalize()}: {name}")
        counts = [("Charge", self.charges), ("Claim", self.claims)]
        for noun, items in counts:
            for n, item in enumerate(items, 1):
                lines.append(f"{noun} {n}: {item}")
        lines += ["", "OPENING STATEMENTS"]
        lines += [_statement(s) for s in self.opening_statements] or ["(none recorded)"]
        for n, session in enumerate(self.witnesses, 1):
            lines += ["", f"WITNESS {n}: {session.witness}, called by the {session.called_by}"]
            for ex in session.questions:
                lines.append(f"Q ({ex.examiner or 'counsel'}): {ex.question}")
                if ex.objection is not None:
                    o = ex.objection
                    lines.append(f"OBJECTION by the {o.by} ({o.ground}): {o.ruling}")
                if ex.answer:
                    lines.append(f"A ({session.witness}): {ex.answer}")
        lines += ["", "CLOSING STATEMENTS"]
        lines += [_statement(s) for s in self.closing_statements] or ["(none recorded)"]
        return "\n".join(lines) + "\n"


_SESSION = re.compile(r"^WITNESS (\d+): (.+), called by the .+$", re.MULTILINE)


# after a blank line, a part of the record that is not a witness's: "CLOSING STATEMENTS",
# "CLOSING STATEMENT (defense): …", "VERDICT"; an objection or ruling stays in its session
_NEXT_PART = re.compile(r"\n\s*\n(?=(?!OBJECTION|RULING)[A-Z]{4,}\b)")


def sessions(text: str) -> list[tuple[int, str, str]]:
    """The witness sessions of a transcript (rendered by ``Transcript.text``, or written in
    its shape): (number, witness, the session's lines, heading included), in order; none in a
    plain-text transcript. The last session ends where the record goes on to another part (the
    closing statements), so withholding that witness withholds nothing else."""
    found = list(_SESSION.finditer(text))
    out = []
    for i, m in enumerate(found):
        if i + 1 < len(found):
            end = found[i + 1].start()
        else:
            after = _NEXT_PART.search(text, m.end())
            end = after.start() if after else len(text)
        out.append((int(m.group(1)), m.group(2), text[m.start():end].rstrip("\n")))
    return out


_SAID = re.compile(r"^[QA](?: \([^)\n]*\))?: *(.*)$", re.MULTILINE)  # "Q (defense): …", "A (Name): …", "A: …"


def testimony(session: str) -> str:
    """What a witness session says, for matching reasons against it: who the witness is (name
    and role, not who called them) and each question and answer without its speaker's label (a
    fact put in a question and affirmed is testimony too); objections and rulings left out."""
    head, _, body = session.partition("\n")
    found = _SESSION.match(head)
    lines = [found.group(2)] if found else []
    return "\n".join(lines + [m.group(1) for m in _SAID.finditer(body)])


def surname(witness: str) -> str:
    """How reasons name a witness: "Detective Samuel Okafor, crime scene technician" is Okafor."""
    return re.sub(r"[^\w'-]", "", witness.split(",")[0].split()[-1])


def witnesses(documents: Sequence[Document]) -> list[tuple[int, int, str, str]]:
    """Every witness session of the documents, for a fragility check that withholds one:
    (the document's index, number, witness, the session's lines), in order."""
    return [(n, *session) for n, d in enumerate(documents) for session in sessions(d.text)]


def names(text: str, number: int, witness: str, question: str = "") -> bool:
    """Does a text name the witness, by surname or as "witness N"? Not by a surname the
    question holds: that is a party (the accused, the plaintiff), whom every reason names,
    testifying or not."""
    name = rf"\b{re.escape(surname(witness))}\b"
    return bool(re.search(rf"(?i)\bwitness {number}\b", text) or (not re.search(name, question) and re.search(name, text)))


def without(documents: Sequence[Document], document: int, number: int, witness: str, session: str) -> list[Document]:
    """The documents with one witness's questions and answers withheld; the heading says so."""
    out = list(documents)
    out[document] = out[document].model_copy(update={"text": out[document].text.replace(
        session, f"WITNESS {number}: {witness} [testimony withheld]")})
    return out


def _statement(s: Statement) -> str:
    who = f"{s.by.capitalize()}" + (f" ({s.speaker})" if s.speaker else "")
    return f"{who}: {s.text}"


def _place(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "transcript"


def parse(name: str, data: dict[str, Any]) -> Transcript:
    """A transcript from its JSON object, or a CaseError naming the first problem."""
    kind = data.get("type")
    if kind is None:
        raise CaseError(f"{name}: the transcript has no 'type'; add \"type\": \"criminal\" or \"civil\" "
                        "(it sets the burden of proof)")
    if not isinstance(kind, str) or kind.strip().lower() not in TYPES:
        raise CaseError(f"{name}: unknown case type {kind!r}; use \"criminal\" (beyond a reasonable doubt) "
                        "or \"civil\" (preponderance of the evidence)")
    if not data.get("witnesses"):
        raise CaseError(f"{name}: the transcript has no witness sessions; add 'witnesses', each with a witness, "
                        "called_by and its questions")
    try:
        return Transcript.model_validate({**data, "type": kind.strip().lower()})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = _place(first["loc"])
        if where.startswith("witnesses["):
            return _raise(name, f"malformed witness session at {where}: {first['msg']}", "each session needs "
                          "'witness', 'called_by' and 'questions' ({question, answer, objection: {by, ground, ruling}})")
        return _raise(name, f"{where}: {first['msg']}", "see cases/burglary/transcript.json for the shape")


def _raise(name: str, problem: str, hint: str) -> Transcript:
    raise CaseError(f"{name}: {problem}; {hint}")


def is_transcript(doc: Document) -> dict[str, Any] | None:
    """The JSON object of a document that is a transcript, else None. A .json file that does not
    parse is a transcript gone wrong more often than evidence, so it is one line, not text tried."""
    if doc.kind != "json" and not doc.name.lower().endswith(".json"):
        return None
    try:
        data = json.loads(doc.text)
    except json.JSONDecodeError as exc:
        raise CaseError(f"{doc.name}: malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}; fix it "
                        "(cases/burglary/transcript.json shows the shape), or give the transcript as plain text "
                        "with its type (criminal or civil: --type, or the word in the question)") from None
    if not isinstance(data, dict):
        return None
    if MARKS & set(data):
        return data
    near = [(key, re.sub(r"[\s-]+", "_", key.strip().lower())) for key in data if isinstance(key, str)]
    near = [(key, meant) for key, meant in near if meant in MARKS]
    if near:  # "Witnesses", "Opening Statements": a transcript whose fields are cased otherwise, not a JSON exhibit
        key, meant = near[0]
        raise CaseError(f"{doc.name}: {key!r} is not a transcript field; did you mean {meant!r}? "
                        "(cases/burglary/transcript.json shows the shape), or give the transcript as plain text "
                        "with its type (criminal or civil: --type, or the word in the question)")
    if isinstance(data.get("type"), str) and data["type"].strip().lower() in TYPES:
        return data  # a transcript's own type with its fields misspelt ("witness"): named by parse, not tried as text
    return None


def rendered(doc: Document, transcript: Transcript) -> Document:
    text = transcript.text()
    name = re.sub(r"\.json$", "", doc.name, flags=re.IGNORECASE) + ".txt"
    return Document(name=name, kind="text", text=text, sha256=hashlib.sha256(text.encode()).hexdigest(),
                    size_bytes=len(text.encode()))


def read(case: Case) -> tuple[Case, Transcript | None]:
    """The case with every transcript JSON rendered as text, and the (first) transcript."""
    found: Transcript | None = None
    documents = []
    for doc in case.context:
        data = is_transcript(doc)
        if data is None:
            documents.append(doc)
            continue
        transcript = parse(doc.name, data)
        found = found or transcript
        documents.append(rendered(doc, transcript))
    if found is None:
        return case, None
    inputs = {**case.inputs, "type": case.inputs.get("type") or found.type, "title": found.title,
              "transcript_type": found.type}
    return case.model_copy(update={"context": documents, "inputs": inputs}), found


_CRIMINAL = re.compile(r"\b(guilty|convict\w*|acquit\w*|crim\w*|murder|burglary|theft|robbery|assault|prosecut\w*)\b",
                       re.IGNORECASE)


def case_type(case: Case, default: str) -> tuple[str, str]:
    """The case's type and where it came from: given (--type / the transcript), read from the
    question's words (guilty, murder…), or the configured default."""
    given = case.inputs.get("type")
    if given is not None:
        value = str(given).strip().lower()
        if value not in TYPES:
            raise CaseError(f"unknown case type {given!r}; use --type criminal (beyond a reasonable doubt) "
                            "or --type civil (preponderance of the evidence)")
        return value, "given"
    if _CRIMINAL.search(case.question):
        return "criminal", "the question"
    return default, "the default"
