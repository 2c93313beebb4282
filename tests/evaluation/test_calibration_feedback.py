"""`courtroom calibration`: each named confidence scored against the outcomes people recorded."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from courtroom_chat.case import load_case
from courtroom_chat.engine import Trial
from courtroom_chat.evaluation.feedback import calibration_markdown, feedback_rows
from courtroom_chat.frontends.eval_cli import app
from courtroom_chat.store import RunStore
from tests.conftest import CASES

runner = CliRunner()


@pytest.fixture
def rated(runs_dir, scripted_settings):
    """Three scripted verdicts in the store: two rated right, one wrong, one left unrated."""
    import asyncio

    store = RunStore(runs_dir)
    ids = []
    for name in ("code-commit", "essay-publish", "architecture", "code-commit"):
        record = asyncio.run(Trial(load_case(CASES / f"{name}.json"), scripted_settings, store=store).run())
        ids.append(record.run_id)
    for run_id, rating in zip(ids, ("up", "down", "up"), strict=False):
        store.set_feedback(run_id, rating)
    return store, ids


def test_rated_verdicts_become_rows_with_their_confidences(rated):
    store, ids = rated
    rows = feedback_rows(store)
    assert [r["item"] for r in rows] == ids[:3]  # the unrated run is left out
    assert [r["correct"] for r in rows] == [True, False, True]
    for row in rows:
        record = store.read(row["item"])
        shown = {c.kind: c.value for c in record.outcome.confidences}
        assert row["confidences"]["vote_share"] == pytest.approx(shown["vote_share"], abs=1e-4)


def test_the_brier_score_is_the_mean_squared_gap(rated):
    store, _ = rated
    rows = feedback_rows(store)
    from courtroom_chat.evaluation.report import calibration

    shares = [r["confidences"]["vote_share"] for r in rows]
    expected = sum((c - o) ** 2 for c, o in zip(shares, (1, 0, 1), strict=True)) / 3
    assert calibration(rows)["vote_share"]["brier"] == pytest.approx(expected)
    text = calibration_markdown(rows, "here")
    assert "3 rated verdicts: 2 turned out right, 1 wrong" in text and "rough" in text
    assert f"{expected:.3f}" in text


def test_the_command_prints_the_table_and_json(rated, runs_dir):
    result = runner.invoke(app, ["calibration", "--runs-dir", str(runs_dir)])
    assert result.exit_code == 0, result.output
    assert "vote_share" in result.stdout and "Brier" in result.stdout
    data = json.loads(runner.invoke(app, ["calibration", "--runs-dir", str(runs_dir), "--json"]).stdout)
    assert data["rated"] == 3 and data["right"] == 2 and "evidence" in data["calibration"]


def test_no_rated_verdict_says_how_to_rate_one(tmp_path):
    result = runner.invoke(app, ["calibration", "--runs-dir", str(tmp_path)])
    assert result.exit_code == 0
    assert "courtroom feedback RUN_ID up" in result.stdout


def test_a_rated_run_that_cannot_be_read_is_named_and_a_new_rating_keeps_the_comment(rated, runs_dir):
    store, ids = rated
    store.set_feedback(ids[0], "down", "the fix broke checkout")
    store.set_feedback(ids[0], "up")  # changed its mind, said nothing new
    assert store.read(ids[0]).feedback.comment == "the fix broke checkout"
    (runs_dir / f"{ids[1]}.json").unlink()
    result = runner.invoke(app, ["calibration", "--runs-dir", str(runs_dir), "--json"])
    assert json.loads(result.stdout)["rated"] == 2
    assert " ".join(result.stderr.split()).startswith(f"note: 1 rated run left out, unreadable: run {ids[1]} is indexed but its file")
