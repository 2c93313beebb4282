"""The case as the classification court reads it: the text to classify and its candidate labels.

Labels come from the case's ``inputs`` (``{"labels": ["joy", "anger"]}`` in a case file or
from an evaluation dataset), else from the question itself, so a person can type them in
the chat or on the command line:

    Which emotion fits: sadness, joy, love, anger, fear or surprise?
    Labels: entailment, not entailment. Does the first sentence entail the second?
    Is this review positive or negative?

A yes/no question with no labels is classified as yes / no. The text is the case's
documents (a pasted text, an attached file). One label, or an empty text, is refused in
one line before any agent speaks.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ... import sentences
from ...case import Case
from ...errors import CaseError
from .wire import norm_label

_LABELS_LINE = re.compile(r"(?i)\b(?:labels?|classes|categories|options|candidates)\s*[:=]\s*(.+?)(?=\.\s|\.$|\?|\n|$)")
_AFTER_COLON = re.compile(r":\s*([^:\n?]+)\?\s*$")
_IS_IT = (re.compile(r"(?i)^(?:is|are|was|does|do)\s+(?:(?:this|that|the) \w+)\s+(.+?)\?\s*$"),
          re.compile(r"(?i)^(?:is|are|was|does|do)\s+(?:it|this|that|they)\s+(.+?)\?\s*$"))
_SPLIT = re.compile(r"\s*(?:,|;|/|\bor\b|\|)\s*")
_YES_NO_START = re.compile(r"(?i)^(should|shall|can|could|may|must|do|does|did|is|are|was|were|will|would|has|have|had)\b")
EXAMPLE = "'Which emotion fits: joy, sadness or anger?' (or inputs {\"labels\": [...]} in a case file)"


def _split(text: str) -> list[str]:
    parts = [p.strip(" .'\"") for p in _SPLIT.split(text.strip().rstrip(".")) if p.strip(" .'\"")]
    return list(dict.fromkeys(parts))


def labels_from_question(question: str) -> list[str]:
    """The labels a question names: after "Labels:", after a final colon, or "Is it A or B?". A
    single name after a final colon ("Which emotion fits: joy?") is returned when nothing else
    is found, so the refusal can name it."""
    single: list[str] = []
    for found in (_LABELS_LINE.search(question), _AFTER_COLON.search(question)):
        if found:
            labels = _split(found.group(1))
            if len(labels) >= 2 or found.re is _LABELS_LINE:
                return labels
            single = single or labels
    for pattern in _IS_IT:  # "Is this review positive or negative?", then "Is this positive or negative?"
        found = pattern.match(question.strip())
        if found and re.search(r"\bor\b", found.group(1)) and len(labels := _split(found.group(1))) >= 2:
            return labels
    return single


def _given(value: Any) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str) and value.strip().startswith("["):  # --input 'labels=["joy", "anger"]'
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise CaseError(f"inputs.labels {value.strip()!r} is not a valid JSON list ({exc.msg}); give "
                            '\'labels=["joy", "anger"]\' or labels=joy,anger') from None
    if isinstance(value, str):
        return _split(value)
    if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
        return list(dict.fromkeys(str(v).strip() for v in value if str(v).strip()))
    raise CaseError("inputs.labels must be a list of label names or one comma-separated string; "
                    f"e.g. {EXAMPLE}")


def case_labels(case: Case) -> list[str]:
    """The candidate labels, in the order given; two or more, distinct (else a ``CaseError``)."""
    labels = _given(case.inputs.get("labels"))
    if labels is None:
        labels = labels_from_question(case.question)
        if not labels and _YES_NO_START.match(case.question.strip()):
            labels = ["yes", "no"]
    distinct = list({norm_label(label): label for label in labels}.values())
    if len(distinct) < 2:
        got = f"one ('{distinct[0]}')" if distinct else "none"
        raise CaseError(f"the classification court needs two or more candidate labels, got {got}; "
                        f"name them in the question, e.g. {EXAMPLE}")
    return distinct


def case_text(case: Case) -> str:
    """The text to classify: every document's text, in order."""
    return "\n\n".join(d.text.strip() for d in case.context if d.text.strip())


def check(case: Case) -> list[str]:
    """The labels, after refusing a case with no text to classify."""
    labels = case_labels(case)
    if not case_text(case):
        raise CaseError("the text to classify is empty: paste it under the question (or attach it as a file) "
                        f"and name the candidate labels, e.g. {EXAMPLE}")
    return labels


def passages(documents: list[Any], *, limit: int = 400, max_chars: int = 240) -> list[str]:
    """What a counsel may quote: every sentence of the text with three words or more, verbatim
    (a one-line text is all passage, unlike the evidence of a decision, whose first line is a title).
    [] when the text has more than ``limit`` of them: quotes are then free text, verified as usual."""
    out: list[str] = []
    for doc in documents:
        for line in doc.text.split("\n"):
            for piece in sentences.split(line.strip()):
                piece = piece.strip()
                if len(re.findall(r"\w+", piece)) >= 3 and len(piece) <= max_chars and piece not in out:
                    out.append(piece)
                    if len(out) > limit:
                        return []
    return out
