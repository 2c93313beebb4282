"""Precedents: labelled examples like the text on trial, shown to the judges with a reason each.

The pool comes from the case's ``inputs["pool"]`` (an evaluation dataset sets it to its own
name, whose ``pool()`` is drawn from the side of the data the items are not), else from
``[procedures.classification] precedent_pool``: a JSONL file of ``{"text", "label",
"reason"}`` lines (a person's own labelled examples), or a list of such objects inline in
a case file. Any example with the text on trial is dropped, so the pool is disjoint from
the item judged. The ranking is ``courtroom_chat.retrieval`` (cosine of MiniLM embeddings;
BM25 or a hybrid by ``retrieval``); ``precedent_choice = "random"`` draws them by the seed
instead, the published comparison.
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from ...errors import CaseError
from ...retrieval import Example, Hit, Retriever


def _example(data: Any, where: str) -> Example:
    if not isinstance(data, dict) or not str(data.get("text", "")).strip() or not str(data.get("label", "")).strip():
        raise CaseError(f"{where}: a precedent needs a non-empty 'text' and 'label' (and may give a 'reason')")
    return Example(str(data["text"]), str(data["label"]), str(data.get("reason") or ""), str(data.get("id") or ""))


POOL_HINT = 'give a JSONL file of {"text", "label", "reason"} lines'


@lru_cache(maxsize=8)
def _file_pool(path: str) -> tuple[Example, ...]:
    file = Path(path).expanduser()
    if not file.is_file():
        what = "is a folder, not a file" if file.is_dir() else "not found"
        raise CaseError(f"precedent pool {path} {what}; {POOL_HINT}, or set precedents = 0")
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise CaseError(f"cannot read precedent pool {path}: {exc.strerror or exc}; {POOL_HINT}") from None
    if b"\x00" in data[:8192]:
        raise CaseError(f"precedent pool {path} looks like a binary file; {POOL_HINT}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CaseError(f"precedent pool {path} is not UTF-8 text (invalid byte at position {exc.start}); "
                        f"{POOL_HINT}") from None
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                out.append(_example(json.loads(line), f"{path} line {n}"))
            except json.JSONDecodeError as exc:
                raise CaseError(f"{path} line {n}: not valid JSON ({exc.msg}); {POOL_HINT}, one object a line") from None
    if not out:
        raise CaseError(f"precedent pool {path} holds no examples; {POOL_HINT}, or set precedents = 0")
    return tuple(out)


@lru_cache(maxsize=8)
def _dataset_pool(name: str, seed: int) -> tuple[Example, ...]:
    from ...evaluation import datasets

    source = datasets.resolve(name, seed=seed)
    pool = getattr(source, "pool", None)
    if pool is None:
        raise CaseError(f"dataset {name} has no precedent pool; give a JSONL file of labelled examples instead")
    return tuple(pool())


def seed_of(value: Any) -> int:
    """``inputs.pool_seed`` as a whole number (0 when not given), else a one-line ``CaseError``."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return 0
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and re.fullmatch(r"[+-]?\d+", value.strip()):
        return int(value)
    raise CaseError(f"inputs.pool_seed must be a whole number (the seed a dataset's pool is drawn with), "
                    f"got {value!r}; e.g. --input pool_seed=7, or leave it out")


def pool_of(source: Any, seed: int = 0, *, load: bool = True) -> tuple[Example, ...]:
    """The examples a pool source names: a list of objects, a registered dataset, or a JSONL path;
    a bad source is a one-line ``CaseError``. ``load=False`` (a dry run) checks a dataset's name
    without drawing its pool, and returns nothing for it."""
    if not source:
        return ()
    if isinstance(source, list):
        return tuple(_example(d, f"inputs.pool[{i}]") for i, d in enumerate(source))
    if not isinstance(source, str):
        raise CaseError(f"inputs.pool must be a dataset name, the path of a JSONL file or a list of "
                        f"{{text, label, reason}} objects, not {type(source).__name__}")
    from ...evaluation.datasets import available

    if source in {info.name for info in available()}:
        return _dataset_pool(source, seed) if load else ()
    return _file_pool(source)


@lru_cache(maxsize=8)
def _retriever(pool: tuple[Example, ...], method: str) -> Retriever:
    return Retriever(pool, method=method)  # type: ignore[arg-type]


def precedents(text: str, source: Any, *, k: int, choice: str, method: str, seed: int = 0,
               pool_seed: int = 0) -> list[Hit]:
    """The ``k`` precedents for ``text``: the most similar of the pool, or ``k`` at random (seeded)."""
    if k <= 0 or not source:
        return []
    pool = pool_of(source, pool_seed)
    retriever = _retriever(pool, method) if not isinstance(source, list) else Retriever(pool, method=method)  # type: ignore[arg-type]
    if choice == "random":
        return retriever.sample(k, f"{seed}:{hashlib.sha256(text.encode()).hexdigest()[:16]}", text)
    return retriever.nearest(text, k)


def shorten(text: str, limit: int = 320) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"


def precedents_text(hits: list[Hit]) -> str:
    """The precedents as the judges read them: the text, its label, a one-line reason."""
    if not hits:
        return ""
    lines = ["PRECEDENTS: labelled examples similar to this text, decided before (guidance, not the case itself):"]
    for hit in hits:
        reason = f" Reason: {hit.example.reason}" if hit.example.reason else ""
        lines.append(f'{hit.rank}. "{shorten(hit.example.text)}" was labelled {hit.example.label}.{reason}')
    return "\n".join(lines) + "\n"
