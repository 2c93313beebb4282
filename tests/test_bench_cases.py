"""The mixed-evidence bench (bench/decisive_fact/) is what its README says: cases written before
any run, half Yes and half No, eight domains, 400-1,200 words each, and a deciding sentence that
stands verbatim once in the evidence and that an advocate can quote whole (it is one of the
passages offered to a constrained decoder)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from courtroom_chat.case import read_document
from courtroom_chat.evidence import normalise_text, quote_choices

BENCH = Path(__file__).resolve().parents[1] / "bench" / "decisive_fact"
SETS = {"cases.jsonl": ("meta.json", 40), "heldout.jsonl": ("heldout.meta.json", 20)}
DOMAINS = {"code-review", "releases", "hiring", "vendors-contracts", "migrations-operations", "money", "safety",
           "personal-offers"}


def load(name: str) -> tuple[list[dict], dict[str, dict]]:
    meta_name, _ = SETS[name]
    cases = [json.loads(line) for line in (BENCH / name).read_text().splitlines() if line.strip()]
    return cases, json.loads((BENCH / meta_name).read_text())


@pytest.mark.parametrize("name", sorted(SETS))
def test_each_set_is_balanced_over_eight_domains_and_shapes(name):
    cases, meta = load(name)
    assert len(cases) >= SETS[name][1]
    assert set(meta) == {c["id"] for c in cases} and len({c["id"] for c in cases}) == len(cases)
    answers = Counter(c["answer"] for c in cases)
    assert answers["yes"] == answers["no"]
    assert {m["domain"] for m in meta.values()} == DOMAINS
    shapes = Counter(m["shape"] for m in meta.values())
    assert shapes["leading"] >= 2 and shapes["hold-back"] >= 2
    assert all(m["tone"] != c["answer"] for c in cases for m in [meta[c["id"]]])


@pytest.mark.parametrize("name", sorted(SETS))
def test_each_deciding_sentence_stands_once_and_can_be_quoted_whole(name):
    cases, meta = load(name)
    for case in cases:
        docs = [read_document(BENCH / p) for p in case["context"]]
        words = sum(len(d.text.split()) for d in docs)
        assert 400 <= words <= 1200, (case["id"], words)
        deciding = meta[case["id"]]["deciding"]
        assert sum(normalise_text(d.text).count(normalise_text(deciding)) for d in docs) == 1, case["id"]
        choices = quote_choices(docs, question=case["question"])
        assert any(normalise_text(deciding) in normalise_text(c) for c in choices), case["id"]
        assert case["question"].endswith("?") and len(case["question"]) < 200
