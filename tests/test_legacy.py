"""Runs written by the first release (before records were procedure-neutral) still open,
replay, list and export exactly as they did."""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest

from courtroom_chat.events import parse_events
from courtroom_chat.records import RunRecord
from courtroom_chat.render import replay
from courtroom_chat.store import MIGRATIONS, RunStore
from tests.conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "release-0.1"


@pytest.mark.parametrize("name", ["judge", "jury"])
def test_a_record_of_the_first_release_reads_replays_and_exports_unchanged(name):
    record = RunRecord.model_validate_json((FIXTURES / f"{name}-run.json").read_text())
    old_result = json.loads((FIXTURES / f"{name}-result.json").read_text())
    assert json.loads(json.dumps(record.to_result(), default=str)) == old_result  # `-o` JSON, field for field
    assert record.outcome is not None and record.outcome.answer == old_result["verdict"]["answer"]
    assert record.outcome.polarity == {"guilty": "yes", "not_guilty": "no"}[old_result["verdict"]["decision"]]
    assert record.verdict.decided_by == name
    text = replay(parse_events(record.events))
    assert "## Prosecution" in text and "### Exhibit 1" in text and record.outcome.answer in text
    assert "### Juror 1 · " in text


def test_a_store_of_the_first_release_is_migrated_and_lists_its_runs(tmp_path):
    for name in ("judge", "jury"):
        shutil.copy(FIXTURES / f"{name}-run.json", tmp_path / f"{json.loads((FIXTURES / f'{name}-run.json').read_text())['run_id']}.json")
    conn = sqlite3.connect(tmp_path / "index.sqlite")
    conn.executescript(MIGRATIONS[0])
    conn.execute("PRAGMA user_version = 1")
    for path in tmp_path.glob("2*.json"):
        data = json.loads(path.read_text())
        conn.execute("INSERT INTO runs (run_id, started_at, procedure, status, question, path) VALUES (?,?,?,?,?,?)",
                     (data["run_id"], data["started_at"], "decision", data["status"], data["case"]["question"], path.name))
    conn.commit()
    conn.close()
    store = RunStore(tmp_path)
    rows = store.list()
    assert len(rows) == 2
    for row in rows:
        record = store.load(row["run_id"])
        store.save(record)  # re-indexed with the new columns
    row = store.list()[0]
    assert row["polarity"] in ("yes", "no") and row["backends"] == "scripted" and json.loads(row["summary"])["answer"]
