"""Datasets: labelled items (a case, its gold answer, an id), read in place, resolved by name or path.

    iclr2017   ICLR 2017 submissions: "Should ICLR 2017 accept this paper?" (accept vs reject)
    adr        MADR's architecture decision records: "Should we choose <option>?" (chosen vs another)
    FILE.jsonl your own decisions: {"question": ..., "context": [paths or {"name", "text"}], "answer": "yes" | "no"}

A dataset owns its labels and how a prediction is scored, so the classification court and the
criminal trial add theirs with ``register`` without touching the runner or the report. Data is
read where it lies (``$COURTROOM_DATA_DIR``, else the ``shared/data`` folder beside the
repository); nothing is copied into the project.
"""

from __future__ import annotations

import csv
import json
import os
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..backends.base import stable_seed
from ..case import Case, Document, context_documents, document_from_bytes, unstorable
from ..config import Limits
from ..errors import InputError

YES, NO = "yes", "no"


@dataclass(frozen=True)
class Item:
    id: str
    case: Case
    gold: str
    mirror_question: str = ""  # a natural negation, when the dataset knows one
    meta: dict[str, Any] = field(default_factory=dict)


class Dataset:
    """A named source of labelled items. Subclasses set ``labels`` and yield ``items``."""

    name = "dataset"
    description = ""
    labels: tuple[str, ...] = (YES, NO)
    positive: str | None = YES  # the label whose predicted rate is compared with its true rate
    # What its items are answered with, when not read from the labels and answer format: a text
    # labelled "yes" / "no" for a classifier (BoolQ) is "labels", not a yes/no decision to try.
    answered_with: str | None = None

    def items(self) -> list[Item]:
        raise NotImplementedError

    def score(self, item: Item, predicted: str | None) -> bool:
        """Whether a prediction is right. None (undecided, failed) is always wrong."""
        return predicted is not None and predicted == item.gold

    def extra_metrics(self, rows: list[dict[str, Any]]) -> dict[str, Any]:
        """Metrics only this dataset has (a sentence's MAE, say), added to the summary. A
        ``"markdown"`` entry, if any, is the report's section for them."""
        return {}

    def answer_format(self) -> Any:
        """The answer the baselines give (``methods.AnswerFormat``); None: yes/no, or one of the labels."""
        return None

    @property
    def yes_no(self) -> bool:
        return set(self.labels) == {YES, NO}

    @property
    def key(self) -> str:
        """What identifies the data, for the evaluation id."""
        return self.name


@dataclass(frozen=True)
class DatasetInfo:
    name: str
    description: str
    factory: Callable[..., Dataset]  # (source path or None, seed=, limits=) -> Dataset


_REGISTRY: dict[str, DatasetInfo] = {}


def register(info: DatasetInfo) -> None:
    _REGISTRY[info.name] = info


def available() -> list[DatasetInfo]:
    _procedure_datasets()
    return list(_REGISTRY.values())


def _procedure_datasets() -> None:
    """A procedure registers its own datasets when its module is imported: import every registered one."""
    from ..procedures import available as procedures
    from ..procedures import get

    for info in procedures():
        get(info.name)


def data_dir() -> Path:
    """Where the shared data lives: ``$COURTROOM_DATA_DIR``, else ``shared/data`` beside the repository."""
    env = os.environ.get("COURTROOM_DATA_DIR", "").strip()
    if env:
        return Path(env).expanduser()
    for base in (Path(__file__).resolve().parents[3], Path.cwd().parent, Path.cwd()):
        candidate = base / "shared" / "data"
        if candidate.is_dir():
            return candidate
    return Path(__file__).resolve().parents[3] / "shared" / "data"


def resolve(spec: str, *, seed: int = 0, limits: Limits | None = None) -> Dataset:
    """A dataset by registered name, or by path: a ``.jsonl`` file, the ICLR folder or the ADR JSON."""
    if spec not in _REGISTRY:
        _procedure_datasets()
    if spec in _REGISTRY:
        return _REGISTRY[spec].factory(None, seed=seed, limits=limits)
    path = Path(spec).expanduser()
    if not path.exists():
        if path.suffix or os.sep in spec:
            raise InputError(f"dataset file not found: {spec}")
        names = ", ".join(_REGISTRY)
        raise InputError(f"unknown dataset '{spec}'; use one of {names}, or the path of a .jsonl file")
    if path.is_dir() and (path / ICLR_SUBMISSIONS).is_file():
        return ICLR2017(path, seed=seed, limits=limits)
    if path.suffix.lower() == ".jsonl":
        return JsonlDataset(path, seed=seed, limits=limits)
    if path.suffix.lower() == ".json":
        return ADRDataset(path, seed=seed, limits=limits)
    raise InputError(f"{spec}: not a dataset; give a .jsonl file of {{question, context, answer}} lines, "
                     f"or one of {', '.join(_REGISTRY)}")


def _document(name: str, text: str, limits: Limits | None) -> Document:
    return document_from_bytes(name, text.encode("utf-8"), limits, kind="markdown")


def _yes_no(value: Any) -> str | None:
    if isinstance(value, bool):
        return YES if value else NO
    if isinstance(value, str) and value.strip().lower() in (YES, NO):
        return value.strip().lower()
    return None


# ---------------------------------------------------------------------- ICLR 2017

ICLR_SUBMISSIONS = "ICLR17_submissions.csv"
ICLR_REVIEWS = "ICLR17_reviews.csv"
ICLR_QUESTION = "Should ICLR 2017 accept this paper?"
ICLR_MIRROR = "Should ICLR 2017 reject this paper?"

# Reviewers' own mentions of their score ("I raised my rating from 5 to 6", "The rating has
# been revised to a 7"): the numbers go, so the court must weigh the arguments, not the marks.
_SCORE_TALK = re.compile(
    r"(?i)\b(?:(?:my|the|your|our|overall|final|updated?|increased?|raised?|revised?|edited)\s+)+"
    r"(?:overall\s+)?(?:rating|score)s?\b(?:[^.\n]|\.(?=\d)){0,60}"
    r"|\b(?:rating|score)\s+(?:from|to|by|\d)(?:[^.\n]|\.(?=\d)){0,40}"
)
_NUMBER = re.compile(r"(?<![\w.])(?:10|[0-9])(?:\.5)?(?![\w.%])")


def scrub_scores(text: str) -> str:
    """The review text with the reviewer's numeric rating talk removed."""
    return _SCORE_TALK.sub(lambda m: _NUMBER.sub("[score removed]", m.group(0)), text)


class ICLR2017(Dataset):
    """ICLR 2017: title, abstract and the reviews' text (ratings and confidences removed).

    Gold: accepted (oral or poster) = yes, rejected = no; workshop invitations are left out.
    The items alternate accept/reject in an order shuffled by the seed, so any ``--limit``
    takes a balanced sample (198 accepted papers bound it at 396 items)."""

    name = "iclr2017"
    description = "ICLR 2017 submissions with their reviews: accept (oral/poster) or reject"

    def __init__(self, root: Path | None = None, *, seed: int = 0, limits: Limits | None = None):
        self.root = Path(root) if root else data_dir() / "decisions" / "iclr2017_openreview"
        self.seed, self.limits = seed, limits
        if not (self.root / ICLR_SUBMISSIONS).is_file():
            raise InputError(f"dataset iclr2017: {ICLR_SUBMISSIONS} not found in {self.root}; "
                             "set COURTROOM_DATA_DIR to the folder holding decisions/, or give the folder's path")

    @property
    def key(self) -> str:
        return f"{self.name}:{self.root.resolve()}"

    def _rows(self, name: str) -> list[dict[str, str]]:
        try:
            with open(self.root / name, encoding="utf-8", newline="") as f:
                return list(csv.DictReader(f))
        except FileNotFoundError:
            raise InputError(f"dataset iclr2017: {name} not found in {self.root}") from None

    def items(self) -> list[Item]:
        reviews: dict[str, list[dict[str, str]]] = {}
        for row in self._rows(ICLR_REVIEWS):
            reviews.setdefault(row["PID"], []).append(row)
        accepted, rejected = [], []
        for paper in self._rows(ICLR_SUBMISSIONS):
            decision = paper["Decision"].strip()
            if decision in ("1", "2"):
                accepted.append(paper)
            elif decision == "0":
                rejected.append(paper)
        rng = random.Random(stable_seed("iclr2017", self.seed))
        rng.shuffle(accepted)
        rng.shuffle(rejected)
        pairs = list(zip(accepted, rejected, strict=False))
        first_accept = rng.random() < 0.5
        ordered = [p for a, r in pairs for p in ((a, r) if first_accept else (r, a))]
        return [self._item(p, reviews.get(p["PID"], [])) for p in ordered]

    def _item(self, paper: dict[str, str], reviews: list[dict[str, str]]) -> Item:
        keywords = paper.get("Keyword", "").strip("[]").replace("'", "")
        head = f"# {paper['Title'].strip()}\n\n"
        if keywords:
            head += f"Keywords: {keywords}\n\n"
        documents = [_document("paper.md", f"{head}## Abstract\n\n{paper['Abstract'].strip()}\n", self.limits)]
        for i, review in enumerate(reviews, 1):
            title = (review.get("Title") or "").strip()
            body = scrub_scores((review.get("Review") or "").strip())
            text = f"# Review {i}{': ' + title if title else ''}\n\n{body}\n"
            documents.append(_document(f"review-{i}.md", text, self.limits))
        gold = YES if paper["Decision"].strip() in ("1", "2") else NO
        return Item(
            id=f"iclr2017-{paper['PID']}",
            case=Case(question=ICLR_QUESTION, context=documents, source=f"iclr2017:{paper['PID']}"),
            gold=gold,
            mirror_question=ICLR_MIRROR,
            meta={"title": paper["Title"].strip(), "decision": {"1": "oral", "2": "poster", "0": "reject"}[
                paper["Decision"].strip()], "reviews": len(reviews)},
        )


# ---------------------------------------------------------------------- architecture decisions

_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)|<(https?://[^>]*)>")


def plain_option(text: str) -> str:
    """An option as a person would say it: Markdown links to their text, outer quotes gone."""
    text = _LINK.sub(lambda m: m.group(1) or m.group(2) or "", text)
    text = " ".join(text.split()).strip()
    if len(text) > 1 and text[0] == text[-1] == '"' and text.count('"') == 2:
        text = text[1:-1]
    return text


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", plain_option(text).lower().replace("'", '"')))


def chosen_index(options: list[str], chosen: str) -> int | None:
    """Which option the record chose: equal after normalising, else the one it begins, else contains."""
    target = _norm(chosen)
    normed = [_norm(o) for o in options]
    for test in (lambda o: o == target, lambda o: o.startswith(target), lambda o: target.startswith(o) and o):
        hits = [i for i, o in enumerate(normed) if test(o)]
        if len(hits) == 1:
            return hits[0]
    return None


class ADRDataset(Dataset):
    """MADR's architecture decision records: each asked for the chosen option (yes) and for another
    option picked by the seed (no). The evidence is the context and the considered options; the
    decision outcome (and the record's title, which often names the choice) is left out."""

    name = "adr"
    description = "MADR architecture decision records: the chosen option (yes) and another one (no)"

    def __init__(self, path: Path | None = None, *, seed: int = 0, limits: Limits | None = None):
        self.path = Path(path) if path else data_dir() / "decisions" / "madr_adrs.json"
        self.seed, self.limits = seed, limits
        if not self.path.is_file():
            raise InputError(f"dataset adr: {self.path} not found; set COURTROOM_DATA_DIR to the folder "
                             "holding decisions/, or give the JSON file's path")

    @property
    def key(self) -> str:
        return f"{self.name}:{self.path.resolve()}"

    def items(self) -> list[Item]:
        try:
            records = json.loads(self.path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise InputError(f"{self.path}: malformed JSON at line {exc.lineno}: {exc.msg}") from None
        if not isinstance(records, list):
            raise InputError(f"{self.path}: expected a list of decision records")
        items: list[Item] = []
        for n, record in enumerate(records, 1):
            options = record.get("options") or []
            if not isinstance(record, dict) or len(options) < 2:
                raise InputError(f"{self.path}: record {n} needs 'options' (two or more) and 'chosen'")
            chosen = chosen_index(options, str(record.get("chosen", "")))
            if chosen is None:
                raise InputError(f"{self.path}: record {n} ({record.get('file', '?')}): its chosen option "
                                 f"{record.get('chosen')!r} matches none of its options")
            stem = str(record.get("file") or f"record-{n}").removesuffix(".md")
            others = [i for i in range(len(options)) if i != chosen]
            other = random.Random(stable_seed("adr", self.seed, stem)).choice(others)
            evidence = self._evidence(record, options)
            for index, gold in ((chosen, YES), (other, NO)):
                option = plain_option(options[index]).replace('"', "'")
                items.append(Item(
                    id=f"adr-{stem[:4]}-option{index + 1}",
                    case=Case(question=f'Should we choose "{option}"?', context=evidence, source=f"adr:{stem}"),
                    gold=gold,
                    meta={"record": stem, "option": option, "options": len(options)},
                ))
        return items

    def _evidence(self, record: dict[str, Any], options: list[str]) -> list[Document]:
        listed = "\n".join(f"{i}. {plain_option(o)}" for i, o in enumerate(options, 1))
        text = (f"## Context and problem statement\n\n{str(record.get('context', '')).strip()}\n\n"
                f"## Considered options\n\n{listed}\n")
        return [_document("decision-record.md", text, self.limits)]


# ---------------------------------------------------------------------- a user's JSONL

JSONL_FIELDS = ("question", "context", "answer", "id", "mirror_question")  # what a line may hold


class JsonlDataset(Dataset):
    """Your own past decisions, one JSON object a line: ``{"question": ..., "context": [paths],
    "answer": "yes" | "no"}``, paths relative to the file (or documents written in place,
    ``{"name": ..., "text": ...}``, as in a case file), an optional ``"id"``."""

    description = "your own decisions: a JSONL file of {question, context, answer}"

    def __init__(self, path: Path, *, seed: int = 0, limits: Limits | None = None):
        self.path = Path(path)
        self.name = self.path.stem
        self.seed, self.limits = seed, limits
        if not self.path.is_file():
            raise InputError(f"dataset file not found: {self.path}")

    @property
    def key(self) -> str:
        """The file's name, not where it lies: a clone or a moved folder resumes the same
        evaluation (each unit's content is checked, so an edited item is asked again)."""
        return f"jsonl:{self.path.name}"

    def items(self) -> list[Item]:
        try:
            lines = self.path.read_text(encoding="utf-8-sig").splitlines()  # a BOM an editor wrote is no error
        except UnicodeDecodeError:
            raise InputError(f"{self.path}: not UTF-8 text; save it as UTF-8") from None
        items: list[Item] = []
        seen: set[str] = set()
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            where = f"{self.path} line {number}"
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
            if not isinstance(data, dict):
                raise InputError(f"{where}: expected an object with question, context and answer")
            unknown = sorted(set(data) - set(JSONL_FIELDS))
            if unknown:  # "evidence": [...] or "contxt" was tried without its evidence, with no word
                raise InputError(f"{where}: unknown field{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
                                 f"use {', '.join(JSONL_FIELDS)} " '(the evidence goes in context: file paths, or {"name": ..., "text": ...})')
            question, context, answer = data.get("question"), data.get("context", []), _yes_no(data.get("answer"))
            if not isinstance(question, str) or not question.strip():
                raise InputError(f"{where}: 'question' must be a non-empty string")
            if unstorable(question):
                raise InputError(f"{where}: 'question' holds text that is not UTF-8 (a \\udcxx escape); write it again")
            if answer is None:
                raise InputError(f"{where}: 'answer' must be \"yes\" or \"no\", got {data.get('answer')!r}")
            item_id = str(data.get("id") or f"{self.name}-{number}")
            if item_id in seen:
                raise InputError(f"{where}: the id {item_id!r} is used twice")
            seen.add(item_id)
            try:
                documents = context_documents(context, self.path.parent, self.limits)
            except InputError as exc:
                raise InputError(f"{where}: {exc}") from None
            items.append(Item(id=item_id, case=Case(question=question, context=documents, source=where),
                              gold=answer, mirror_question=str(data.get("mirror_question") or "")))
        if not items:
            raise InputError(f"{self.path}: no decisions in it; write one JSON object per line")
        return items


register(DatasetInfo("iclr2017", ICLR2017.description, lambda root, **kw: ICLR2017(root, **kw)))
register(DatasetInfo("adr", ADRDataset.description, lambda path, **kw: ADRDataset(path, **kw)))
