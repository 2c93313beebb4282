"""Mirror counting: agreement, "No to both" and "Yes to both", on fixtures with known outcomes."""

from __future__ import annotations

import pytest

from courtroom_chat.backends.scripted import ScriptedBackend
from courtroom_chat.evaluation.harness import evaluate_async
from courtroom_chat.evaluation.report import mirror_counts


def _pair(item: str, asked: str | None, mirrored: str | None, gold: str = "yes") -> list[dict]:
    flip = {"yes": "no", "no": "yes"}
    return [
        {"item": item, "framing": "asked", "predicted": asked, "gold": gold, "correct": asked == gold},
        {"item": item, "framing": "mirror", "predicted": mirrored, "gold": flip[gold], "correct": mirrored == flip[gold]},
    ]


def test_mirror_counts_by_hand():
    rows = (_pair("a", "yes", "no") + _pair("b", "no", "no") + _pair("c", "yes", "yes") + _pair("d", None, "no")
            + _pair("e", "no", "yes", gold="no") + _pair("f", "no", "no", gold="no"))
    rows.append({"item": "g", "framing": "asked", "predicted": "yes", "gold": "yes", "correct": True})  # no mirror
    c = mirror_counts(rows)
    assert (c["pairs"], c["agree"], c["no_to_both"], c["yes_to_both"], c["undecided"]) == (6, 2, 2, 1, 1)
    assert c["agree_share"] == pytest.approx(2 / 6) and c["no_to_both_share"] == pytest.approx(2 / 6)
    # the mirror's gold is the other word: right for a, b, d (no) and e (yes); wrong for c and f
    assert c["mirror_accuracy"] == pytest.approx(4 / 6)


def test_a_model_that_says_no_to_everything_contradicts_nothing_but_is_counted():
    rows = [r for i in "abcd" for r in _pair(i, "no", "no", gold="yes" if i in "ab" else "no")]
    c = mirror_counts(rows)
    assert (c["agree"], c["no_to_both"], c["no_to_both_share"]) == (0, 4, 1.0)


async def test_mirror_end_to_end_with_known_answers(fixtures, runs_dir):
    yes = {"reasoning": "r", "decision": "yes", "confidence": 0.9}
    no = {"reasoning": "r", "decision": "no", "confidence": 0.7}
    # items in order, asked then mirror: merge-214 yes/no (agree); friday no/no (No to both)
    backend = ScriptedBackend(script={"single": [yes, no, no, no]})
    ev = await evaluate_async(str(fixtures / "own" / "decisions.jsonl"), procedure="decision", baselines=["single"],
                              mirror=True, backend="scripted", backends={"scripted": backend})
    single = ev.summary["mirror"]["single"]
    assert (single["pairs"], single["agree"], single["no_to_both"], single["yes_to_both"]) == (2, 1, 1, 0)
    assert ev.summary["mirror"]["court"]["pairs"] == 2
    questions = [r.case.question for r in backend.calls if r.agent == "single"]
    assert questions == ["Should we merge PR #214 now?", "Should we not merge PR #214 now?",
                         "Should we launch on Friday night?", "Should we not launch on Friday night?"]
    court_mirror = [r for r in ev.summary["rows"] if r["method"] == "court" and r["framing"] == "mirror"]
    assert all(r["run_id"] for r in court_mirror) and court_mirror[0]["gold"] == "no"
    assert "## Mirror: the negated question, sides swapped" in ev.markdown
    assert "| single | 2 | 1 (50%) | 1 (50%) | 0 (0%) | 0 |" in ev.markdown


async def test_a_dataset_may_name_its_own_mirror_question(fixtures, runs_dir):
    backend = ScriptedBackend()
    await evaluate_async(str(fixtures / "iclr"), procedure="none", baselines=["single"], limit=2, mirror=True,
                         backend="scripted", backends={"scripted": backend})
    assert {r.case.question for r in backend.calls} == {"Should ICLR 2017 accept this paper?",
                                                      "Should ICLR 2017 reject this paper?"}
