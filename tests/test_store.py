from __future__ import annotations

import sqlite3

import pytest

from courtroom_chat.case import new_case, pasted_document
from courtroom_chat.errors import InputError
from courtroom_chat.records import CallRecord, Outcome, RunRecord
from courtroom_chat.store import MIGRATIONS, RunStore, new_run_id, redact


def record(run_id=None, question="Ship it?"):
    return RunRecord(run_id=run_id or new_run_id(), case=new_case(question, [pasted_document("evidence", 1)]))


def test_save_load_list_and_prefix_ids(tmp_path):
    store = RunStore(tmp_path)
    a, b = record("20260101-000000-aaaaaa"), record("20260102-000000-bbbbbb", "Merge?")
    store.save(a)
    store.save(b, owner="alice")
    assert [r["run_id"] for r in store.list()] == [b.run_id, a.run_id]
    assert [r["run_id"] for r in store.list(owner="alice")] == [b.run_id]
    assert store.load("20260102").case.question == "Merge?"
    with pytest.raises(InputError, match="matches 2 runs"):
        store.load("2026")
    with pytest.raises(InputError, match="no run 'zzz'"):
        store.load("zzz")


def test_saving_again_updates_the_index(tmp_path):
    store = RunStore(tmp_path)
    r = record()
    store.save(r)
    r.status = "complete"
    store.save(r)
    [row] = store.list()
    assert row["status"] == "complete"


def test_feedback_is_stored_with_the_record(tmp_path):
    store = RunStore(tmp_path)
    r = record()
    r.status, r.outcome = "complete", Outcome(answer="Yes: ship it.", label="yes", polarity="yes")
    store.save(r, owner="bob")
    store.set_feedback(r.run_id, "up", "it worked out")
    assert store.load(r.run_id).feedback.rating == "up"
    [row] = store.list(owner="bob")
    assert row["feedback"] == "up"
    with pytest.raises(InputError, match="feedback must be 'up' or 'down'"):
        store.set_feedback(r.run_id, "meh")
    with pytest.raises(InputError, match="got 'yes'"):  # "yes" would read as the verdict's Yes
        store.set_feedback(r.run_id, "yes")
    for said, stored in (("Wrong", "down"), ("right", "up"), ("👎", "down"), ("incorrect", "down")):
        assert store.set_feedback(r.run_id, said).feedback.rating == stored
    assert store.load(r.run_id).feedback.comment == "it worked out"  # kept through the ratings changed


@pytest.mark.parametrize(("status", "said"), [("failed", "failed"), ("incomplete", "did not finish"),
                                               ("stopped", "was stopped by its budget")])
def test_a_run_without_a_verdict_cannot_be_rated(tmp_path, status, said):
    store = RunStore(tmp_path)
    r = record()
    r.status = status
    store.save(r)
    with pytest.raises(InputError, match=rf"run {r.run_id} {said} and has no verdict to rate; rate a run that"):
        store.set_feedback(r.run_id, "down")
    assert store.load(r.run_id).feedback is None


def test_reading_a_runs_folder_that_does_not_exist_does_not_create_it(tmp_path):
    from courtroom_chat.store import checked_runs_dir

    missing = tmp_path / "typo"
    with pytest.raises(InputError, match=r"no runs folder .*typo: check --runs-dir"):
        RunStore(missing).existing()
    assert not missing.exists()
    assert RunStore(tmp_path).existing().root == tmp_path
    with pytest.raises(InputError, match=r"--runs-dir is empty"):
        checked_runs_dir("  ")
    assert checked_runs_dir(None) is None and checked_runs_dir("runs") == "runs"


def test_api_keys_never_reach_the_disk(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-supersecretvalue")
    r = record()
    r.error = "request failed with key sk-ant-api03-supersecretvalue"
    r.calls.append(CallRecord(id=1, agent="judge", role="judge", stage="judge", backend="anthropic", model="m",
                              response="x-api-key: sk-ant-other-keyvalue123"))
    path = RunStore(tmp_path).save(r)
    text = path.read_text()
    assert "supersecret" not in text and "sk-ant-other" not in text and "[redacted]" in text
    assert redact("plain text") == "plain text"


def test_an_old_index_is_migrated(tmp_path):
    conn = sqlite3.connect(tmp_path / "index.sqlite")
    conn.execute("CREATE TABLE unrelated (x)")  # a store from before any migration ran
    conn.commit()
    conn.close()
    store = RunStore(tmp_path)
    store.save(record())
    conn = sqlite3.connect(tmp_path / "index.sqlite")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    assert len(store.list()) == 1


def test_a_damaged_run_file_is_reported(tmp_path):
    store = RunStore(tmp_path)
    r = record()
    path = store.save(r)
    path.write_text("{broken")
    with pytest.raises(InputError, match="is damaged"):
        store.load(r.run_id)


def test_find_gives_none_for_a_run_this_folder_does_not_hold(tmp_path):
    """Results carried over from another machine point at runs kept there: find() says so with
    None, and still reports a damaged file it does hold."""
    store = RunStore(tmp_path)
    r = record("20260103-000000-cccccc")
    path = store.save(r)
    assert store.find(r.run_id).case.question == "Ship it?"
    assert store.find("20251125-135539-f64223") is None
    path.write_text("{broken")
    with pytest.raises(InputError, match="is damaged"):
        store.find(r.run_id)


def test_a_damaged_index_is_one_line_and_the_run_is_still_written(tmp_path):
    """A garbled index.sqlite crashed every command with a traceback, and a trial finished
    against it was lost (the index was opened before the run file was written)."""
    first = RunStore(tmp_path)
    kept = record(question="Kept?")
    first.save(kept)
    (tmp_path / "index.sqlite").write_bytes(b"\x00garbage" * 250)
    store = RunStore(tmp_path)
    late = record(question="Late?")
    with pytest.raises(InputError, match=r"index.sqlite is damaged .*move it aside.*this run is saved as .*\.json$"):
        store.save(late)
    assert store.path_for(late.run_id).is_file()
    for action in (lambda: RunStore(tmp_path).list(), lambda: RunStore(tmp_path).load(kept.run_id[:10])):
        with pytest.raises(InputError, match="is damaged") as err:
            action()
        assert "\n" not in str(err.value)


def test_an_index_moved_aside_is_built_again_from_the_run_files(tmp_path):
    store = RunStore(tmp_path)
    runs = [record(question="One?"), record(question="Two?")]
    for r in runs:
        store.save(r)
    (tmp_path / "broken.json").write_text("{not a run")
    (tmp_path / "index.sqlite").rename(tmp_path / "index.sqlite.damaged")
    again = RunStore(tmp_path)
    assert sorted(row["run_id"] for row in again.list()) == sorted(r.run_id for r in runs)
    assert again.load(runs[0].run_id).case.question == "One?"


def test_an_empty_index_file_and_runs_copied_in_are_listed(tmp_path):
    """An index emptied to zero bytes, and run files copied into a folder whose index does not
    list them (runs brought from another machine), are listed and shown like the others."""
    store = RunStore(tmp_path)
    mine = record(question="Mine?")
    store.save(mine)
    (tmp_path / "index.sqlite").write_bytes(b"")
    assert [row["run_id"] for row in RunStore(tmp_path).list()] == [mine.run_id]
    elsewhere = RunStore(tmp_path / "other")
    theirs = record(question="Theirs?")
    elsewhere.save(theirs)
    (tmp_path / "other" / f"{theirs.run_id}.json").rename(tmp_path / f"{theirs.run_id}.json")
    again = RunStore(tmp_path)
    assert sorted(row["run_id"] for row in again.list()) == sorted([mine.run_id, theirs.run_id])
    assert again.load(theirs.run_id).case.question == "Theirs?"


@pytest.mark.parametrize("typed", ["%", "2026_", "_0260101"])
def test_a_prefix_is_matched_as_typed_not_as_a_wildcard(tmp_path, typed):
    store = RunStore(tmp_path)
    store.save(record("20260101-000000-aaaaaa"))
    with pytest.raises(InputError, match="no run"):
        store.load(typed)
    assert store.load("2026").run_id == "20260101-000000-aaaaaa"


def test_a_blank_runs_setting_is_no_setting(monkeypatch, tmp_path):
    from courtroom_chat.store import default_runs_dir

    monkeypatch.setenv("COURTROOM_RUNS_DIR", str(tmp_path / "env"))
    assert default_runs_dir("   ") == tmp_path / "env"
    monkeypatch.setenv("COURTROOM_RUNS_DIR", "  ")
    assert default_runs_dir("").name == "runs" and default_runs_dir("").parent.name == "courtroom-chat"


def test_a_folder_that_cannot_be_written_is_refused_for_writing(tmp_path):
    (tmp_path / "afile").write_text("x")
    with pytest.raises(InputError, match=r"cannot create the runs directory .*afile \(File exists\); choose a writable"):
        RunStore(tmp_path / "afile").writable()
    assert RunStore(tmp_path / "new").writable().root.is_dir()


async def test_a_key_redacted_inside_the_evidence_keeps_every_exhibits_offsets(tmp_path, monkeypatch):
    """Issue 83, item 8: the stored document had "[redacted]" where a 40-character key stood, so
    an exhibit's "characters 80-131" no longer pointed at its quote. The mask keeps the length."""
    from courtroom_chat.case import Case, pasted_document
    from courtroom_chat.config import Settings
    from courtroom_chat.engine import Trial
    from courtroom_chat.evidence import normalise_text

    key = "sk-proj-" + "Q7wErTyUiOpAsDfGhJkL" * 2
    text = (f"Deploy notes: the staging key {key} was rotated on Monday.\n"
            "All 1,204 tests pass and two reviewers approved the change.\n"
            "The rollback was rehearsed on staging and took four minutes.\n")
    case = Case(question="Should I merge PR #12?", context=[pasted_document(text, 1)])
    store = RunStore(tmp_path)
    record = await Trial(case, Settings().with_backend("scripted"), store=store).run()
    stored = store.load(record.run_id)
    assert key not in store.path_for(record.run_id).read_text()
    doc = stored.case.context[0]
    assert len(doc.text) == len(case.context[0].text) and "[redacted]" in doc.text
    exhibits = [e for e in stored.outputs["prosecutor"]["exhibits"] if e["verified"]]
    assert exhibits
    for e in exhibits:
        start, end = e["location"]["char_start"], e["location"]["char_end"]
        assert normalise_text(doc.text[start:end]) == normalise_text(e["source_quote"]).rstrip("."), e
