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
