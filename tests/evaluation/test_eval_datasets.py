"""Dataset adapters: small fixtures, a few real rows of the shared data, and one-line errors."""

from __future__ import annotations

import json
import re

import pytest

from courtroom_chat.errors import InputError
from courtroom_chat.evaluation import datasets
from courtroom_chat.evaluation.datasets import (
    ICLR2017,
    ADRDataset,
    JsonlDataset,
    chosen_index,
    plain_option,
    scrub_scores,
)

# ---------------------------------------------------------------------- ICLR 2017


def test_iclr_fixture_gold_balance_and_workshop_left_out(fixtures):
    items = ICLR2017(fixtures / "iclr", seed=0).items()
    ids = [i.id for i in items]
    assert "iclr2017-p4" not in ids  # the workshop invitation
    assert len(items) == 4  # 2 accepted (oral, poster) pair with 2 of the 3 rejects
    assert [i.gold for i in items].count("yes") == 2 and [i.gold for i in items].count("no") == 2
    assert all(items[k].gold != items[k + 1].gold for k in range(0, 4, 2))  # alternating: any limit is balanced
    oral = next(i for i in items if i.id == "iclr2017-p3") if "iclr2017-p3" in ids else None
    assert oral is None or oral.gold == "yes"


def test_iclr_sample_depends_on_seed_only(fixtures):
    a = [i.id for i in ICLR2017(fixtures / "iclr", seed=1).items()]
    assert a == [i.id for i in ICLR2017(fixtures / "iclr", seed=1).items()]
    orders = {tuple(i.id for i in ICLR2017(fixtures / "iclr", seed=s).items()) for s in range(8)}
    assert len(orders) > 1


def test_iclr_evidence_has_title_abstract_reviews_and_no_ratings(fixtures):
    item = next(i for i in ICLR2017(fixtures / "iclr", seed=0).items() if i.id == "iclr2017-p1")
    assert item.case.question == "Should ICLR 2017 accept this paper?"
    assert item.mirror_question == "Should ICLR 2017 reject this paper?"
    names = [d.name for d in item.case.context]
    assert names == ["paper.md", "review-1.md", "review-2.md"]
    paper, first, second = (d.text for d in item.case.context)
    assert "# Poster Paper" in paper and "We show a thing works" in paper
    assert "Clear and convincing experiments." in first
    assert "from 6 to 8" not in first and "rating from [score removed] to [score removed]" in first
    assert "revised to a [score removed]" in second
    assert "Rating" not in paper + first + second and "Conf" not in paper + first + second


def test_scrub_keeps_numbers_that_are_not_the_reviewers_score():
    text = "Figure 7 shows a 95% confidence interval; the Inception score of 9.1 is strong. I raise my score to 7."
    assert scrub_scores(text) == text.replace("score to 7", "score to [score removed]")


def test_iclr_real_rows(shared_data):
    items = ICLR2017(seed=0).items()
    assert len(items) == 396  # 198 accepted (15 oral + 183 poster) against as many of the 245 rejects
    first = items[:60]
    assert sum(i.gold == "yes" for i in first) == 30
    assert {i.meta["decision"] for i in items} == {"oral", "poster", "reject"}
    for item in first:
        text = "\n".join(d.text for d in item.case.context)
        assert not re.search(r"(?i)\bmy (rating|score) (from|to) (a |an )?\d", text)
        assert 1 <= item.meta["reviews"] <= 5 and len(item.case.context) == item.meta["reviews"] + 1


# ---------------------------------------------------------------------- architecture decisions


def test_adr_fixture_yes_for_chosen_no_for_another(fixtures):
    items = ADRDataset(fixtures / "adrs.json", seed=0).items()
    assert [(i.id, i.gold) for i in items][:2] == [("adr-0001-option1", "yes"), (items[1].id, "no")]
    assert items[0].case.question == 'Should we choose "PostgreSQL – relational"?'
    assert items[2].case.question == 'Should we choose "Use Kafka"?' and items[3].case.question == 'Should we choose "Use RabbitMQ"?'
    evidence = items[0].case.context[0].text
    assert "We need a database for orders." in evidence and "1. PostgreSQL – relational" in evidence
    assert "3. SQLite" in evidence
    assert "Chosen option" not in evidence and "because transactions" not in evidence
    assert "Use PostgreSQL" not in evidence  # the record's title names the choice: left out


def test_adr_other_option_is_seeded():
    options = ["A", "B", "C", "D", "E"]
    picks = set()
    for seed in range(12):
        records = [{"file": "0009-x.md", "context": "c", "options": options, "chosen": "A"}]
        path = _write(records)
        picks.add(ADRDataset(path, seed=seed).items()[1].meta["option"])
    assert "A" not in picks and len(picks) > 1


def _write(records):
    import tempfile
    from pathlib import Path

    path = Path(tempfile.mkdtemp()) / "adrs.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def test_chosen_option_matching():
    assert chosen_index(["[MADR](https://x) 4.0.0 – The Markdown ADRs", "Formless"], "MADR 4.0.0") == 0
    assert chosen_index(['Include "Consulted" and "Informed" of RACI', "Include all"],
                        "Include 'Consulted' and 'Informed' of RACI") == 0
    assert chosen_index(['"Confirmation"', '"Validation"'], "Confirmation") == 0
    assert chosen_index(["Use tables", "Use lists"], "Use trees") is None
    assert plain_option("Other templates listed at <https://github.com/x/y>") == "Other templates listed at https://github.com/x/y"


def test_adr_real_rows(shared_data):
    items = datasets.resolve("adr").items()
    assert len(items) == 38
    assert [i.gold for i in items] == ["yes", "no"] * 19
    by_id = {i.id: i for i in items}
    assert by_id["adr-0011-option1"].case.question == 'Should we choose "Use an asterisk"?'
    assert by_id["adr-0011-option2"].gold == "no"
    assert by_id["adr-0000-option1"].case.question.startswith('Should we choose "MADR 4.0.0')
    records = json.loads((shared_data / "decisions" / "madr_adrs.json").read_text(encoding="utf-8"))
    outcomes = {r["file"][:4]: r["decision_outcome"] for r in records}
    for item in items:
        assert outcomes[item.id[4:8]][:60] not in item.case.context[0].text


# ---------------------------------------------------------------------- a user's JSONL


def test_jsonl_paths_relative_to_the_file(fixtures, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    items = datasets.resolve(str(fixtures / "own" / "decisions.jsonl")).items()
    assert [(i.id, i.gold) for i in items] == [("merge-214", "yes"), ("decisions-3", "no")]
    assert items[0].case.context[0].name == "evidence/ci.log"
    assert "All 412 tests passed" in items[0].case.context[0].text


def test_jsonl_evidence_written_in_place_beside_files(fixtures, tmp_path):
    """A line may carry its evidence's text, as a case file may: {"name": ..., "text": ...},
    kept in the order written among the files."""
    (tmp_path / "ci.log").write_text("All 412 tests passed.\n", encoding="utf-8")
    path = tmp_path / "mine.jsonl"
    path.write_text(json.dumps({"question": "Should we merge PR 214?", "answer": "yes", "context": [
        {"name": "review.md", "text": "Approved by two reviewers."}, "ci.log", {"text": "diff --git a/x b/x"}]}) + "\n"
        + json.dumps({"question": "Should we ship?", "answer": "no", "context": {"name": "fix.diff", "text": "-a\n+b\n"}}) + "\n",
        encoding="utf-8")
    first, second = JsonlDataset(path).items()
    assert [(d.name, d.text, d.kind) for d in first.case.context] == [
        ("review.md", "Approved by two reviewers.", "markdown"), ("ci.log", "All 412 tests passed.\n", "text"),
        ("inline-3.txt", "diff --git a/x b/x", "text")]
    assert [(d.name, d.kind) for d in second.case.context] == [("fix.diff", "diff")]


@pytest.mark.parametrize("line, message", [
    ('{"question": "Ship?", "context": [], "answer": "yes"}\n{"question": "Ship?", "answer": "maybe"}',
     'line 2: \'answer\' must be "yes" or "no", got \'maybe\''),
    ('{"question": "Ship?", "context": [], "answer": "yes"}\n{"question": "Ship?" "answer": "no"}', "line 2: not valid JSON"),
    ('{"question": "", "answer": "no"}', "line 1: 'question' must be a non-empty string"),
    ('{"question": "Ship?", "context": ["missing.md"], "answer": "no"}', "line 1: evidence file not found: missing.md"),
    ('["Ship?"]', "line 1: expected an object"),
    ('{"question": "Ship \\udce9 now?", "answer": "no"}', "line 1: 'question' holds text that is not UTF-8"),
    # a misspelt field was dropped unseen: the item was tried without its evidence
    ('{"question": "Ship?", "evidence": ["notes.md"], "answer": "no"}',
     "line 1: unknown field evidence; use question, context, answer, id, mirror_question"),
    ('{"question": "Ship?", "contxt": ["notes.md"], "answer": "no", "label": "yes"}', "line 1: unknown fields contxt, label"),
    # the evidence's text put where a path goes: said so, with the shape that takes text
    ('{"question": "Ship?", "context": ["All 412 tests pass on main."], "answer": "yes"}',
     'line 1: context entry 1 is not a file: \'All 412 tests pass on main.\'; context lists file paths, '
     'and the evidence\'s text itself goes in as {"name": "notes.txt", "text": "..."}'),
    ('{"question": "Ship?", "context": [{"title": "x", "text": "y"}], "answer": "no"}',
     "line 1: context entry 1: unknown field title"),
    ('{"question": "Ship?", "context": [{"name": "a.md", "text": " "}], "answer": "no"}', "line 1: context entry 1 (a.md) is empty"),
    ('{"question": "Ship?", "context": 4, "answer": "no"}', "line 1: 'context' must be a list of file paths, or of documents"),
])
def test_jsonl_errors_name_the_line(tmp_path, line, message):
    path = tmp_path / "mine.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        JsonlDataset(path).items()
    assert message in str(err.value) and str(path) in str(err.value)
    assert "\n" not in str(err.value)


def test_a_question_the_court_would_refuse_is_named_before_any_trial(tmp_path, runs_dir):
    from typer.testing import CliRunner

    from courtroom_chat.frontends.cli import app
    from courtroom_chat.store import RunStore

    path = tmp_path / "mine.jsonl"
    path.write_text('{"question": "Should we ship?", "answer": "yes"}\n{"question": "?", "answer": "no"}\n'
                    '{"question": "What is this?", "answer": "no"}\n', encoding="utf-8")
    result = CliRunner().invoke(app, ["eval", str(path), "--backend", "scripted"])
    assert result.exit_code == 2 and result.output.strip() == (
        "error: item mine-2 (" + str(path) + " line 2): the question is empty; ask a yes/no question such as 'Should I "
        "merge this PR?'")
    assert RunStore(runs_dir).list() == []


def test_a_jsonl_with_a_bom_reads_and_one_baseline_may_be_a_string(tmp_path, runs_dir):
    from courtroom_chat.eval import evaluate

    path = tmp_path / "mine.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"question": "Should we ship?", "answer": "yes"}\n')
    assert [i.case.question for i in JsonlDataset(path).items()] == ["Should we ship?"]
    ev = evaluate(str(path), procedure=None, baselines="single", backend="scripted")
    assert list(ev.summary["results"]) == ["single"]


def test_unknown_dataset_and_missing_file_are_one_line():
    with pytest.raises(InputError, match=r"unknown dataset 'iclr2018'; use one of iclr2017, adr"):
        datasets.resolve("iclr2018")
    with pytest.raises(InputError, match="dataset file not found: nowhere/mine.jsonl"):
        datasets.resolve("nowhere/mine.jsonl")


def test_a_procedure_registers_its_own_dataset_with_its_labels():
    from courtroom_chat.case import Case

    class Sentiment(datasets.Dataset):
        name = "toy-sentiment"
        labels = ("positive", "negative", "neutral")
        positive = None

        def items(self):
            return [datasets.Item("t1", Case(question="What is the sentiment?"), "neutral")]

    datasets.register(datasets.DatasetInfo("toy-sentiment", "three labels", lambda path, **kw: Sentiment()))
    try:
        source = datasets.resolve("toy-sentiment")
        assert not source.yes_no and source.score(source.items()[0], "neutral") and not source.score(source.items()[0], None)
    finally:
        datasets._REGISTRY.pop("toy-sentiment")
