"""The classification court's evaluation datasets, read in place from ``benchmarks/`` of the shared data.

    rte      GLUE RTE dev (277): entailment / not entailment
    boolq    BoolQ dev (3270): yes / no
    qnli     GLUE QNLI dev (5463): entailment / not entailment
    anli     ANLI round 1: test items (1000), dev precedents: entailment / neutral / contradiction
    emotion  dair-ai emotion: test items (2000), validation precedents: six emotions

As published (Courtroom-LLM), each draws at most 500 items, in an order shuffled by the seed.
Precedents come from a side of the data no item is drawn from: ANLI's dev and Emotion's
validation split; for the single-split sets (RTE, BoolQ, QNLI), the rows left after the items
are drawn (RTE keeps its last 77 rows in the seeded order for them, so it judges 200). Every
item carries its labels and its pool (``inputs``), so ``courtroom eval rte --procedure
classification`` needs nothing else. Registered with ``evaluation.datasets.register``.
"""

from __future__ import annotations

import csv
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...backends.base import stable_seed
from ...case import Case
from ...config import Limits
from ...errors import InputError
from ...evaluation.datasets import Dataset, DatasetInfo, Item, _document, data_dir, register
from ...evaluation.stats import wilson
from ...replies import shorten
from ...retrieval import Example, disjoint

SAMPLE = 500
POOL = 1000

Row = dict[str, Any]


class LabelledTexts(Dataset):
    """A benchmark of (text, label) rows: the items drawn by the seed, and a disjoint pool of precedents."""

    folder = ""
    question = ""
    answered_with = "labels"  # texts to classify, even where the labels are yes / no (BoolQ)
    glosses: dict[str, str] = {}  # a label's one-line reason, for precedents whose data give none
    sample = SAMPLE
    pool_rows = POOL

    def __init__(self, root: Path | None = None, *, seed: int = 0, limits: Limits | None = None):
        self.root = Path(root) if root else data_dir() / "benchmarks" / self.folder
        self.seed, self.limits = seed, limits
        self._drawn: tuple[list[Row], list[Row]] | None = None
        missing = [name for name in self.files() if not (self.root / name).is_file()]
        if missing:
            raise InputError(f"dataset {self.name}: {missing[0]} not found in {self.root}; set COURTROOM_DATA_DIR "
                             "to the folder holding benchmarks/, or give the folder's path")

    @property
    def key(self) -> str:
        return f"{self.name}:{self.root.resolve()}"

    @property
    def positive(self) -> str | None:  # type: ignore[override]
        return self.labels[0]

    def files(self) -> list[str]:
        raise NotImplementedError

    def rows(self, name: str) -> list[Row]:
        """One file's rows as {id, text, label, reason}."""
        raise NotImplementedError

    def text(self, row: Row) -> str:
        return row["text"]

    def draw(self) -> tuple[list[Row], list[Row]]:
        """(items, pool): the items shuffled by the seed; the pool from the other split, else the rest."""
        if self._drawn is None:
            files = self.files()
            rows = self.rows(files[0])
            rng = random.Random(stable_seed(self.name, self.seed))
            rng.shuffle(rows)
            if len(files) > 1:
                items, rest = rows[: self.sample], self.rows(files[1])
                rng.shuffle(rest)
            else:
                items, rest = rows[: self.sample], rows[self.sample:]
            self._drawn = items, rest[: self.pool_rows]
        return self._drawn

    def items(self) -> list[Item]:
        items, _ = self.draw()
        labels = list(self.labels)
        return [Item(
            id=f"{self.name}-{row['id']}",
            case=Case(question=self.question, context=[_document("text.md", self.text(row), self.limits)],
                      source=f"{self.name}:{row['id']}", procedure=None,
                      inputs={"labels": labels, "pool": self.name, "pool_seed": self.seed}),
            gold=row["label"],
            meta={"label": row["label"]},
        ) for row in items]

    def pool(self) -> list[Example]:
        """The precedents: labelled examples no item is drawn from, each with a one-line reason."""
        items, rest = self.draw()
        pool = [Example(self.text(r), r["label"], r.get("reason") or self.glosses.get(r["label"], ""), str(r["id"]))
                for r in rest]
        return disjoint(pool, [self.text(r) for r in items])

    def extra_metrics(self, rows: list[dict[str, Any]]) -> dict[str, Any]:
        """Accuracy on ambiguous and on normal items, per method: an item is ambiguous when the
        court's sampled hearings disagreed on the top label (``ambiguity_samples``); each with its
        95% Wilson interval, since ambiguous items are few."""
        flags = {r["item"]: (r.get("details") or {}).get("ambiguous") for r in rows if r["method"] == "court"}
        if not any(v is not None for v in flags.values()):
            return {}
        out: dict[str, Any] = {}
        for method in dict.fromkeys(r["method"] for r in rows):
            for kind, flag in (("ambiguous", True), ("normal", False)):
                chosen = [r for r in rows if r["method"] == method and r["framing"] == "asked" and flags.get(r["item"]) is flag]
                right = sum(bool(r["correct"]) for r in chosen)
                low, high = wilson(right, len(chosen)) if chosen else (0.0, 0.0)
                out[f"{method} accuracy on {kind} items"] = f"{right}/{len(chosen)}" + (
                    f" = {right / len(chosen):.0%} ({low:.0%}–{high:.0%})" if chosen else "")
        return out


def _tsv(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


NLI = {"entailment": "entailment", "not_entailment": "not entailment"}


class GluePairs(LabelledTexts):
    """A GLUE TSV of sentence pairs labelled entailment / not_entailment (RTE, QNLI)."""

    labels = ("entailment", "not entailment")
    file = ""
    columns: tuple[tuple[str, str], tuple[str, str]] = (("sentence1", "Premise"), ("sentence2", "Hypothesis"))

    def files(self) -> list[str]:
        return [self.file]

    def rows(self, name: str) -> list[Row]:
        (a, a_name), (b, b_name) = self.columns
        return [{"id": r["index"], "text": f"{a_name}: {r[a]}\n{b_name}: {r[b]}", "label": NLI[r["label"]]}
                for r in _tsv(self.root / name)]


class RTE(GluePairs):
    name, folder, file = "rte", "rte", "rte_glue_dev_reconstructed.tsv"
    description = "GLUE RTE dev: does the premise entail the hypothesis? (entailment / not entailment)"
    question = "Does the premise entail the hypothesis? Labels: entailment, not entailment."
    glosses = {"entailment": "the premise establishes the hypothesis.",
               "not entailment": "the premise does not establish the hypothesis."}
    sample = 200  # of 277: the last 77 in the seeded order are the precedents


class QNLI(GluePairs):
    name, folder, file = "qnli", "qnli", "qnli_glue_dev.tsv"
    description = "GLUE QNLI dev: does the sentence answer the question? (entailment / not entailment)"
    question = "Does the sentence contain the answer to the question? Labels: entailment, not entailment."
    columns = (("question", "Question"), ("sentence", "Sentence"))
    glosses = {"entailment": "the sentence contains the answer to the question.",
               "not entailment": "the sentence does not answer the question."}


class BoolQ(LabelledTexts):
    name, folder = "boolq", "boolq"
    description = "BoolQ dev: a yes/no question about a Wikipedia passage (yes / no)"
    labels = ("yes", "no")
    question = "Is the answer to the question about the passage yes or no? Labels: yes, no."
    glosses = {"yes": "the passage says so.", "no": "the passage says otherwise."}

    def files(self) -> list[str]:
        return ["boolq_dev.jsonl"]

    def rows(self, name: str) -> list[Row]:
        out = []
        for n, r in enumerate(_jsonl(self.root / name)):
            question = r["question"].strip()
            out.append({"id": str(n), "label": "yes" if str(r["answer"]).lower() == "true" else "no",
                        "text": f"Passage ({r['title']}): {r['passage']}\nQuestion: {question[:1].upper()}{question[1:]}?"})
        return out


class ANLI(LabelledTexts):
    name, folder = "anli", "anli"
    description = "ANLI round 1: is the hypothesis true, undetermined or false given the context? (test items, dev precedents)"
    labels = ("entailment", "neutral", "contradiction")
    question = ("Given the context, is the hypothesis true, undetermined or false? "
                "Labels: entailment, neutral, contradiction.")
    glosses = {"entailment": "the context makes the hypothesis true.",
               "neutral": "the context leaves the hypothesis undetermined.",
               "contradiction": "the context makes the hypothesis false."}

    def files(self) -> list[str]:
        return ["anli_v1.0_R1_test.jsonl", "anli_v1.0_R1_dev.jsonl"]

    def rows(self, name: str) -> list[Row]:
        words = {"e": "entailment", "n": "neutral", "c": "contradiction"}
        return [{"id": r["uid"][:8], "text": f"Context: {r['context']}\nHypothesis: {r['hypothesis']}",
                 "label": words[r["label"]], "reason": shorten(str(r.get("reason") or ""), 200)}
                for r in _jsonl(self.root / name)]


class Emotion(LabelledTexts):
    name, folder = "emotion", "emotion"
    description = "dair-ai emotion: which of six emotions a short text expresses (test items, validation precedents)"
    labels = ("sadness", "joy", "love", "anger", "fear", "surprise")
    question = "Which emotion does the text express? Labels: sadness, joy, love, anger, fear, surprise."
    glosses = {label: f"the writer expresses {label}." for label in labels}

    def files(self) -> list[str]:
        return ["setfit_emotion_test.jsonl", "setfit_emotion_validation.jsonl"]

    def rows(self, name: str) -> list[Row]:
        split = "test" if "test" in name else "val"
        return [{"id": f"{split}{n}", "text": r["text"], "label": r["label_text"]}
                for n, r in enumerate(_jsonl(self.root / name))]


ADAPTERS: tuple[type[LabelledTexts], ...] = (RTE, BoolQ, QNLI, ANLI, Emotion)


def _factory(cls: type[LabelledTexts]) -> Callable[..., Dataset]:
    return lambda root, **kw: cls(root, **kw)


def install() -> None:
    for cls in ADAPTERS:
        register(DatasetInfo(cls.name, cls.description, _factory(cls)))
