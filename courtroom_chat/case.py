"""A case: the question, the evidence documents, and any exhibits filed with it.

Cases come from a JSON case file (context paths relative to the file), from a question
plus paths, or from uploads (chat, notebook). Every way in goes through
``read_document``/``document_from_bytes``, so every front end accepts and rejects the same
files with the same one-line errors.
"""

from __future__ import annotations

import glob as globlib
import hashlib
import json
import os
import re
import stat
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .config import Limits
from .errors import CaseError

DocumentKind = Literal["text", "markdown", "code", "diff", "json", "csv", "pdf", "pasted"]

_KINDS: dict[str, DocumentKind] = {
    ".txt": "text", ".log": "text", ".rst": "text", ".text": "text",
    ".md": "markdown", ".markdown": "markdown",
    ".diff": "diff", ".patch": "diff",
    ".json": "json", ".csv": "csv", ".tsv": "csv", ".pdf": "pdf",
}
_CODE = {
    ".py", ".pyi", ".js", ".mjs", ".ts", ".tsx", ".jsx", ".java", ".kt", ".go", ".rs", ".c", ".h",
    ".cc", ".cpp", ".hpp", ".cs", ".rb", ".php", ".swift", ".scala", ".sh", ".bash", ".sql",
    ".toml", ".yaml", ".yml", ".ini", ".cfg", ".html", ".css", ".xml", ".r", ".lua", ".pl",
}
ACCEPTED_SUFFIXES = tuple(sorted(set(_KINDS) | _CODE))


def displayable(name: str) -> str:
    """A file name as text that can be stored and shown: a name that is not UTF-8 on disk
    ("r\xe9sum\xe9.txt", which Python holds with lone surrogates) with U+FFFD for its odd bytes."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace") if unstorable(name) else name


def unstorable(text: str) -> bool:
    """Text holding lone surrogates (bytes that are not UTF-8, as Python reads them from argv,
    file names or JSON escapes), which no record can store."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


_CONTROL = re.compile(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def without_controls(text: str) -> str:
    """``text`` without terminal control codes: escape sequences (colours, a cursor move, a
    window title) and C0/C1 controls other than newline and tab."""
    return _CONTROL.sub("", text)


_NOT_UTF8 = "holds bytes that are not UTF-8 text; type it again, or save it in a UTF-8 file"


def typed_text(text: str, what: str) -> str:
    """``text`` when it is text that can be stored; else one line naming ``what`` and the fix."""
    if unstorable(text):
        raise CaseError(f"{what} {_NOT_UTF8}")
    return text


def _irregular(name: str) -> CaseError:
    """A device, a pipe or a process substitution ``<(…)``: reading it could hang or never end."""
    return CaseError(f"{name} is not a regular file (a device or a pipe); save what it gives to a file and attach that file")


class Document(BaseModel):
    """One evidence document, with its text exactly as the agents and the verifier see it."""

    model_config = ConfigDict(frozen=True)

    name: str
    kind: DocumentKind
    text: str
    sha256: str = ""
    size_bytes: int = 0
    encoding: str = "utf-8"
    pages: int | None = None  # PDFs

    @field_validator("name")
    @classmethod
    def _name_storable(cls, value: str) -> str:
        return displayable(value)

    @property
    def lines(self) -> int:
        """Lines as an editor counts them (a final newline does not start another)."""
        if not self.text:
            return 0
        return self.text.count("\n") + (0 if self.text.endswith("\n") else 1)


class FiledExhibit(BaseModel):
    """An exhibit filed with the case, before the prosecutor speaks."""

    model_config = ConfigDict(extra="forbid")

    source_quote: str
    target_quote: str = ""
    harm: str = ""


class Case(BaseModel):
    question: str
    context: list[Document] = Field(default_factory=list)
    evidence: list[FiledExhibit] = Field(default_factory=list)
    source: str | None = None  # the case file it came from, if any
    procedure: str | None = None  # the procedure the case file names, if any
    inputs: dict[str, Any] = Field(default_factory=dict)  # procedure-specific inputs (a burden of proof, labels…)
    # the inputs the procedure's own ``prepare`` wrote (a transcript's title), not the person's:
    # a re-run of the recorded case is not refused for them (``Procedure.check_inputs``)
    derived_inputs: list[str] = Field(default_factory=list)

    @field_validator("question")
    @classmethod
    def _question_present(cls, value: str) -> str:
        value = without_controls(value).strip()  # a NUL or a colour code typed or pasted is no part of a question
        if not value:
            raise ValueError("the question is empty")
        if unstorable(value):
            raise ValueError(f"the question {_NOT_UTF8}")
        return value

    @field_validator("source")
    @classmethod
    def _source_storable(cls, value: str | None) -> str | None:
        return None if value is None else displayable(value)

    def total_chars(self) -> int:
        return sum(len(d.text) for d in self.context)


def new_case(question: str | None, documents: list[Document] | None = None,
             evidence: list[FiledExhibit] | None = None) -> Case:
    """A case from a front end's inputs (chat message, widget form), with a one-line error
    instead of a validation traceback."""
    if not question or not question.strip():
        raise CaseError("the question is empty; ask a yes/no question such as 'Should I merge this PR?'")
    typed_text(question, "the question")
    return Case(question=question, context=list(documents or []), evidence=list(evidence or []))


def kind_of(name: str) -> DocumentKind | None:
    suffix = Path(name).suffix.lower()
    if suffix in _KINDS:
        return _KINDS[suffix]
    if suffix in _CODE:
        return "code"
    return None


def _human_bytes(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f} MB"
    if n >= 1_000:
        return f"{n / 1_000:.0f} kB"
    return f"{n} bytes"


def _decode(name: str, data: bytes) -> tuple[str, str]:
    """Text and the encoding used. Refuses binary data and text it cannot decode safely."""
    if b"\x00" in data[:8192] and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise CaseError(
            f"{name} looks like a binary file; attach text, Markdown, code, diffs, JSON, CSV or PDF"
        )
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16"), "utf-16"
        except UnicodeDecodeError:
            pass
    try:
        return data.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError as exc:
        utf8_error = exc
    try:
        text = data.decode("cp1252")  # strict: undefined bytes still fail
    except UnicodeDecodeError:
        text = ""
    printable = sum(ch.isprintable() or ch in "\r\n\t" for ch in text)
    if text and printable / len(text) > 0.98:
        return text, "cp1252"
    raise CaseError(
        f"{name} is not UTF-8 text (invalid byte at position {utf8_error.start}); "
        f"convert it first, e.g. `iconv -f LATIN1 -t UTF-8 {name}`"
    )


def _pdf_text(name: str, data: bytes) -> tuple[str, int]:
    import io

    try:
        from pypdf import PdfReader
        from pypdf.errors import PdfReadError
    except ImportError:  # pragma: no cover - pypdf is a core dependency
        raise CaseError(f"{name}: reading PDFs needs pypdf; install it with pip install pypdf") from None
    import logging

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its warnings on a bad file would print before the one line
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise CaseError(f"{name} is an encrypted PDF; save an unencrypted copy and attach that")
        pages = [page.extract_text() or "" for page in reader.pages]
    except CaseError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
        raise CaseError(f"{name} is not a readable PDF ({exc}); export it again or attach its text") from None
    text = "\n\n".join(p.strip("\n") for p in pages).strip()
    if not text:
        raise CaseError(f"{name}: no text could be extracted from this PDF (a scan?); attach its text instead")
    return text, len(pages)


def document_from_bytes(name: str, data: bytes, limits: Limits | None = None, *, kind: DocumentKind | None = None) -> Document:
    """Turn uploaded or read bytes into a Document, or raise a ``CaseError`` naming ``name``."""
    limits = limits or Limits()
    _within(name, len(data), limits)
    kind = kind or kind_of(name)
    pages = None
    encoding = "utf-8"
    if kind == "pdf" or data.startswith(b"%PDF-"):
        text, pages = _pdf_text(name, data)
        kind, encoding = "pdf", "pdf-text"
    else:
        text, encoding = _decode(name, data)
        kind = kind or "text"
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise CaseError(f"{name} is empty; attach a file with content")
    return Document(
        name=name,
        kind=kind,
        text=text,
        sha256=hashlib.sha256(data).hexdigest(),
        size_bytes=len(data),
        encoding=encoding,
        pages=pages,
    )


def _within(name: str, size: int, limits: Limits) -> None:
    if size > limits.max_file_bytes:
        raise CaseError(f"{name} is {_human_bytes(size)}, over the {_human_bytes(limits.max_file_bytes)} limit; "
                        "attach an excerpt or raise [limits] max_file_bytes in config.toml")


def pasted_document(text: str, index: int = 1, limits: Limits | None = None) -> Document:
    """Text pasted into a chat or widget: evidence like any file, within the same size limit."""
    text = text.replace("\r\n", "\n").strip("\n")
    _within("the pasted text", len(text.encode("utf-8", "replace")), limits or Limits())
    return Document(
        name=f"pasted-{index}.txt",
        kind="pasted",
        text=text,
        sha256=hashlib.sha256(text.encode()).hexdigest(),
        size_bytes=len(text.encode()),
    )


def read_document(path: Path, display_name: str | None = None, limits: Limits | None = None) -> Document:
    name = display_name or path.name
    limits = limits or Limits()
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise _irregular(name)
        _within(name, info.st_size, limits)  # refused before a huge file is read into memory
        data = path.read_bytes()
    except CaseError:
        raise
    except FileNotFoundError:
        raise CaseError(f"evidence file not found: {name}") from None
    except IsADirectoryError:
        raise CaseError(f"{name} is a directory; it expands only when given as a context entry") from None
    except OSError as exc:
        raise CaseError(f"cannot read {name}: {exc.strerror or exc}") from None
    return document_from_bytes(name, data, limits)


def _is_hidden(path: Path, base: Path) -> bool:
    try:
        parts = path.relative_to(base).parts
    except ValueError:
        parts = path.parts
    return any(p.startswith(".") or p == "__pycache__" for p in parts)


def expand_paths(entries: list[str], base: Path, limits: Limits | None = None) -> list[tuple[Path, str]]:
    """Context entries -> (path, display name). Directories and globs expand to their files."""
    limits = limits or Limits()
    found: list[tuple[Path, str]] = []
    seen: set[Path] = set()

    def add(path: Path) -> None:
        resolved = path.resolve()
        if resolved in seen:
            return
        seen.add(resolved)
        try:
            display = os.path.relpath(resolved, base.resolve())
        except ValueError:
            display = str(resolved)
        if display.startswith(".."):
            display = str(path)
        found.append((resolved, display))

    for entry in entries:
        if not isinstance(entry, str) or not entry.strip():
            raise CaseError(f"context entry {entry!r} is not a file path; give a path, directory or glob")
        target = Path(entry).expanduser()
        if not target.is_absolute():
            target = base / target
        # a pattern unless the path exists as written ("notes[1].txt", a folder named "we[ird]")
        if any(ch in entry for ch in "*?[") and not target.exists():
            matches = sorted(Path(p) for p in globlib.glob(str(target), recursive=True))
            files = [p for p in matches if p.is_file() and not _is_hidden(p, base)]
            if not files:
                raise CaseError(f"no files match '{entry}'" + ("" if Path(entry).expanduser().is_absolute()
                                                                else f" (relative to {base})"))
            for p in files:
                add(p)
        elif target.is_dir():
            files = sorted(p for p in target.rglob("*") if p.is_file() and not _is_hidden(p, target))
            if not files:
                raise CaseError(f"directory '{entry}' holds no files")
            for p in files:
                add(p)
        elif target.is_file():
            add(target)
        elif target.exists():
            raise _irregular(entry)
        else:
            raise CaseError(f"evidence file not found: {entry} (looked in {target.parent})")
    _at_most(len(found), limits, "files", "the paths")
    return found


def _at_most(count: int, limits: Limits, what: str, narrow: str) -> None:
    if count > limits.max_files:
        raise CaseError(f"{count} evidence {what} is over the limit of {limits.max_files}; "
                        f"narrow {narrow} or raise [limits] max_files in config.toml")


def load_documents(entries: list[str], base: Path, limits: Limits | None = None) -> list[Document]:
    return [read_document(p, name, limits) for p, name in expand_paths(entries, base, limits)]


def _case_error(source: str, message: str) -> CaseError:
    return CaseError(f"{source}: {message}")


_INLINE_FIELDS = ("name", "text")
_INLINE_HINT = '{"name": "notes.txt", "text": "..."}'
TEXT_IN_PLACE = f"and the evidence's text itself goes in as {_INLINE_HINT}"  # a case file's or a dataset's
TEXT_GIVEN = "and the evidence's text goes in a file, or piped in as `-` (git diff | courtroom run \"…?\" -)"  # the CLI's
_WEB = re.compile(r"^(?:https?|ftp):/", re.IGNORECASE)
_WEB_IN_TEXT = re.compile(r"\b(?:https?|ftp)://[^\s<>\"')\]]+", re.IGNORECASE)


def web_address(text: str) -> str:
    """The first web address in ``text`` (its closing punctuation left out), or ""."""
    found = _WEB_IN_TEXT.search(text)
    return found.group(0).rstrip(".,;:!?") if found else ""


def context_documents(raw: Any, base: Path, limits: Limits | None = None, *, text_hint: str = TEXT_IN_PLACE) -> list[Document]:
    """A case file's or a dataset line's ``context``, in the order written: file paths relative
    to ``base`` (folders and globs expand to their files), or a document written in place as
    ``{"name": "memo.txt", "text": "..."}`` (name optional), or a ``Document`` already read
    (the CLI's standard input). Anything else is one ``CaseError``; ``text_hint`` says where
    the evidence's text goes when an entry is plainly that text put where a path goes."""
    if isinstance(raw, (str, dict)):
        raw = [raw]
    if not isinstance(raw, list):
        raise CaseError(f"'context' must be a list of file paths, or of documents written as {_INLINE_HINT}")
    entries = [_path_entry(entry, number, base, text_hint) if isinstance(entry, str)
               else entry if isinstance(entry, Document) else _inline_document(entry, number, limits)
               for number, entry in enumerate(raw, 1)]  # every entry's shape checked before any file is read
    documents: list[Document] = []
    paths: list[str] = []
    for entry in entries:
        if isinstance(entry, str):
            paths.append(entry)
            continue
        documents += load_documents(paths, base, limits)
        paths = []
        documents.append(entry)
    documents += load_documents(paths, base, limits)
    # the paths are checked as they expand; the case as a whole, documents written in place too, here
    _at_most(len(documents), limits or Limits(), "documents", "the context")
    return documents


def _path_entry(entry: str, number: int, base: Path, text_hint: str) -> str:
    """``entry`` as a path, unless it is plainly a web address or the evidence's text put where a path goes."""
    if _WEB.match(entry):
        address = re.sub(r"^(\w+):/(?!/)", r"\1://", entry)  # as typed: a Path folds "https://" to "https:/"
        raise CaseError(f"{address} is a web address, and courtroom reads files, not the web: save the page "
                        "(a pull request's changes: gh pr diff NUMBER > pr.diff) and attach the file")
    try:
        exists = (base / Path(entry).expanduser()).exists()
    except (OSError, ValueError):  # a name too long for a path, or holding a NUL
        exists = False
    named = kind_of(entry) is not None or any(ch in entry for ch in "/\\*?[")  # a file's name, a folder, a glob
    if len(entry.split()) >= 3 and not named and not exists:
        shown = entry if len(entry) <= 40 else entry[:40] + "…"
        raise CaseError(f"context entry {number} is not a file: {shown!r}; context lists file paths, {text_hint}")
    return entry


def piped_document(data: bytes, limits: Limits | None = None) -> Document:
    """Evidence piped to the CLI (``git diff | courtroom run "…?" -``): a diff, a PDF or text, by its content."""
    head = data[:200].lstrip()
    name = ("stdin.pdf" if head.startswith(b"%PDF-") else
            "stdin.diff" if head.startswith((b"diff --git ", b"--- ", b"From ", b"Index: ")) else "stdin.txt")
    if not data.strip():
        raise CaseError('standard input is empty; pipe the evidence in, as in git diff | courtroom run "Should I commit this?" -')
    return document_from_bytes(name, data, limits)


def _inline_document(entry: Any, number: int, limits: Limits | None) -> Document:
    """Context entry ``number`` written in place: ``{"name": ..., "text": ...}``."""
    what = f"context entry {number}"
    if not isinstance(entry, dict):
        shape = {bool: "true or false", int: "a number", float: "a number", list: "a list"}.get(type(entry), "null")
        raise CaseError(f"{what} is {shape}; give a file path, or {_INLINE_HINT}")
    unknown = sorted(set(entry) - set(_INLINE_FIELDS))
    if unknown:
        raise CaseError(f"{what}: unknown field{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
                        f"a document written in place is {_INLINE_HINT}")
    text, name = entry.get("text"), entry.get("name") or f"inline-{number}.txt"
    if not isinstance(text, str) or not isinstance(name, str):
        raise CaseError(f"{what}: 'text' and 'name' must be strings, as in {_INLINE_HINT}")
    if not text.strip():
        raise CaseError(f"{what} ({name}) is empty; give the document's text")
    if unstorable(text):
        raise CaseError(f"{what} ({name}) {_NOT_UTF8}")
    document = pasted_document(text, limits=limits)
    return document.model_copy(update={"name": displayable(name), "kind": kind_of(name) or "pasted"})


def case_file_or_question(first: str | os.PathLike[str], example: str) -> tuple[Path | None, str | None]:
    """``first`` as a case file ``(path, None)`` or as the question itself ``(None, question)``.

    A case file when it is one, or when it reads like a path (no spaces and no question mark, or
    a ``.json`` ending); otherwise the question ("Deploy?", "是否上线", "Should we ship on Friday"). A
    path-like name that is no file is one line, with ``example`` showing how a question is given."""
    from .motion import is_chinese

    first = os.fspath(first)
    if not first.strip():
        raise CaseError(f"the case or question is empty; give a case .json, or the question in quotes: {example}")
    try:
        is_file, is_dir = Path(first).is_file(), Path(first).is_dir()
    except OSError:  # a question longer than a file name may be ("File name too long") is no file
        is_file = is_dir = False
    asked = first.rstrip().endswith(("?", "？")) or is_chinese(first)
    if not (is_file or (not asked and " " not in first.strip()) or first.lower().endswith(".json")):
        return None, first
    if is_dir:
        raise CaseError(f"{first} is a folder, not a case file; give a case .json, or a question followed by the evidence files")
    if not is_file:
        # "hi" reaches us unquoted either way: a one-word question without "?" reads as a path
        hint = (f"; if you meant it as the question, ask it as one, ending in '?', in quotes: {example}"
                if "/" not in first and "." not in first else "")
        raise CaseError(f"case file not found: {first}{hint}")
    return Path(first), None


def listed_paths(path: str | os.PathLike[str]) -> list[Path]:
    """The files a case file's ``context`` lists, resolved against the case file (patterns and
    folders as written): what ``run -o`` must never write over. A file that is no readable case
    lists none (``load_case`` says what is wrong with it)."""
    case_path = Path(path)
    try:
        data = json.loads(case_path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return []
    raw = data.get("context", []) if isinstance(data, dict) else []
    raw = [raw] if isinstance(raw, str) else raw if isinstance(raw, list) else []
    return [case_path.parent / entry for entry in raw if isinstance(entry, str)]


def _own_format(path: Path, data: dict[str, Any]) -> str:
    """The procedure whose own case format ``data`` is but for its question ("" if none): told to
    drop the question instead of refused for every field of that format."""
    from .procedures import read_case_file

    try:
        found = read_case_file(path, {k: v for k, v in data.items() if k != "question"})
    except CaseError:
        return ""
    return found.procedure if found is not None else ""


def load_case(
    path: str | os.PathLike[str] | None = None,
    *,
    question: str | None = None,
    context: list[Any] | None = None,
    limits: Limits | None = None,
    text_hint: str = TEXT_GIVEN,
) -> Case:
    """A case from a JSON case file and/or a question and context paths.

    ``question`` replaces the file's question; ``context`` entries (paths relative to the
    current directory, documents written in place or already read, as piped in) are added to
    the file's context; ``text_hint`` says where evidence text goes when one is text, not a path.
    """
    data: dict[str, Any] = {}
    base = Path.cwd()
    source = None
    if path is not None:
        case_path = Path(path)
        source = str(case_path)
        if case_path.is_dir():
            raise CaseError(f"{case_path} is a folder, not a case file; give the path of a case .json")
        if not case_path.is_file():
            raise CaseError(f"case file not found: {case_path}")
        try:
            data = json.loads(case_path.read_text(encoding="utf-8-sig"))  # a BOM some editors write is no error
        except json.JSONDecodeError as exc:
            if case_path.suffix.lower() != ".json":  # `courtroom run notes.md`: evidence given as the case
                raise CaseError(f"{case_path} is not a case file (a case file is JSON); to ask about it, put the "
                                f'question first: courtroom run "Should I …?" {case_path}') from None
            raise _case_error(source, f"malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
        except UnicodeDecodeError:
            raise _case_error(source, "is not UTF-8 text; save the case file as UTF-8") from None
        except RecursionError:  # "[[[[…]]]]" 100,000 deep: no case is nested like that
            raise _case_error(source, "is nested too deeply to be a case file; a case is an object with a "
                                      "'question' and a 'context' list") from None
        if not isinstance(data, dict):
            raise _case_error(source, "must hold a JSON object with a 'question' and a 'context' list")
        if "question" not in data and question is None:  # a format a procedure reads (a SimCourt case)
            from .procedures import read_case_file

            found = read_case_file(case_path, data)
            if found is not None:
                given = context_documents(list(context or []), Path.cwd(), limits, text_hint=text_hint)
                return found.model_copy(update={"context": [*found.context, *given]})
        unknown = set(data) - {"question", "context", "evidence", "title", "notes", "procedure", "inputs"}
        if unknown and (own := _own_format(case_path, data)):  # a bench case with a question added
            raise _case_error(source, f"is a {own} case file, which states its question from its own fields; "
                                      "drop " + ("'question' from the file" if "question" in data else "the question given"))
        if unknown:
            raise _case_error(source, f"unknown field(s) {', '.join(sorted(unknown))}; "
                                      "use question, context, evidence, procedure, inputs")
        base = case_path.parent
    q = question if question is not None else data.get("question")
    if q is None:
        raise _case_error(source or "case", "missing 'question'; give one in the case file or with --question")
    if not isinstance(q, str):
        raise _case_error(source or "case", f"'question' must be text, got {type(q).__name__}")
    if not q.strip():
        raise CaseError("the question is empty; ask a yes/no question such as 'Should I merge this PR?'")
    typed_text(q, "the question")
    try:
        documents = context_documents(data.get("context", []), base, limits)
    except CaseError as exc:
        raise _case_error(source, str(exc)) if source else exc from None
    documents += context_documents(list(context or []), Path.cwd(), limits, text_hint=text_hint)
    evidence_raw = data.get("evidence", [])
    if not isinstance(evidence_raw, list):
        raise _case_error(source or "case", "'evidence' must be a list of exhibits")
    evidence = []
    for i, item in enumerate(evidence_raw, 1):
        try:
            evidence.append(FiledExhibit.model_validate(item))
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first["loc"]) or "exhibit"
            raise _case_error(source or "case", f"evidence #{i}: {field}: {first['msg']}") from None
    procedure, inputs = data.get("procedure"), data.get("inputs", {})
    if procedure is not None:
        from .procedures import available

        names = [p.name for p in available()]
        if procedure not in names:
            raise _case_error(source or "case", f"'procedure' names no procedure: {procedure!r}; available: {', '.join(names)}")
    if not isinstance(inputs, dict):
        raise _case_error(source or "case", "'inputs' must be a JSON object of the procedure's case inputs")
    return Case(question=q, context=documents, evidence=evidence, source=source, procedure=procedure, inputs=inputs)
