"""The same court in code: ``courtroom_chat.run`` and ``run_sync`` give the widget's RunRecord,
and ``import courtroom_chat`` loads none of the notebook's heavy libraries."""

from __future__ import annotations

import json
import subprocess
import sys

from notebook_helpers import ESSAY

import courtroom_chat
from courtroom_chat.notebook import Courtroom
from courtroom_chat.records import RunRecord


async def test_run_is_awaitable_and_matches_the_widget(scripted_settings, store):
    record = await courtroom_chat.run(str(ESSAY), backend="scripted")
    assert isinstance(record, RunRecord) and record.status == "complete"
    assert store.load(record.run_id).verdict == record.verdict

    widget = Courtroom(ESSAY, scripted_settings)
    widget.run_button.click()
    await widget.task
    # The scripted backend is deterministic: the widget's trial and the code's trial agree.
    assert widget.result.verdict == record.verdict
    assert widget.result.jury.split() == record.jury.split()


async def test_run_sync_works_inside_a_running_loop(store):
    record = courtroom_chat.run_sync(str(ESSAY), backend="scripted")  # a Jupyter cell has a running loop
    assert isinstance(record, RunRecord) and record.verdict is not None
    assert store.load(record.run_id).status == "complete"


def test_run_sync_outside_a_loop(store):
    record = courtroom_chat.run_sync(str(ESSAY), backend="scripted", dry_run=True)
    assert record.dry_run and sum(e["type"] == "prompt_planned" for e in record.events) == 8


def test_importing_the_package_loads_no_heavy_libraries():
    code = ("import sys, courtroom_chat; courtroom_chat.Trial; courtroom_chat.RunStore; import json; "
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('pandas', 'matplotlib', 'ipywidgets', 'IPython'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == []
    code = ("import sys, courtroom_chat.runs; import json; "
            "print(json.dumps([m for m in ('matplotlib', 'ipywidgets') if m in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == []  # runs needs pandas; matplotlib waits for the first plot


def test_run_sync_takes_a_folder_as_its_store(tmp_path):
    record = courtroom_chat.run_sync(str(ESSAY), backend="scripted", store=str(tmp_path / "mine"))
    assert (tmp_path / "mine" / f"{record.run_id}.json").is_file()


def test_a_runs_location_that_cannot_be_written_is_refused_before_the_trial(tmp_path, scripted_settings):
    """A file where the runs folder should be: one line on Run, and no trial is played (the CLI's
    check, now the trial's own, so every front end has it)."""
    blocked = tmp_path / "afile"
    blocked.write_text("not a folder")
    widget = Courtroom(ESSAY, scripted_settings, store=blocked)
    widget.run_button.click()
    assert widget.task is None and widget.result is None
    assert widget.message_text.startswith("Error: cannot create the runs directory")
    assert "store=" in widget.message_text and "partial record" not in widget.message_text
    assert blocked.read_text() == "not a folder"


def test_settings_may_be_a_config_path_and_wrong_types_are_one_line(tmp_path, monkeypatch):
    monkeypatch.delenv("COURTROOM_BACKEND", raising=False)
    config = tmp_path / "config.toml"
    config.write_text('[models]\ndefault = "scripted"\n')
    widget = Courtroom(ESSAY, str(config), store=False)
    assert widget.base_settings.model_for("judge").backend == "scripted"
    widget = Courtroom(ESSAY, 5, store=5)
    text = widget.message_text
    assert "settings must be a Settings or the path of a config.toml; got a int" in text
    assert "store must be a folder for the runs" in text


def test_showing_a_run_from_a_mistyped_folder_makes_no_folder(tmp_path):
    view = Courtroom.show("20260101", store=tmp_path / "typo")
    assert "no runs folder" in str(view.error)
    assert not (tmp_path / "typo").exists()


def test_pasted_text_is_held_to_the_file_size_limit(scripted_settings):
    from courtroom_chat.config import Limits

    settings = scripted_settings.model_copy(update={"limits": Limits(max_file_bytes=1000)})
    widget = Courtroom(ESSAY, settings, store=False)
    widget.pasted.value = "x" * 2000
    widget.run_button.click()
    assert widget.message_text == ("Error: the pasted text is 2 kB, over the 1 kB limit; attach an excerpt "
                                     "or raise [limits] max_file_bytes in config.toml")


def test_a_setting_that_is_no_number_is_one_line_in_the_form(scripted_settings):
    widget = Courtroom(ESSAY, scripted_settings, store=False, procedure="samvad")
    key = next(k for k, box in widget.params.items() if isinstance(widget._fields[k].initial, float))
    widget.params[key].value = "abc"
    widget.run_button.click()
    assert widget.error is None and widget.task is None
    assert widget.message_text == f"Error: {widget._fields[key].label.lower()} must be a number, got 'abc'"
