"""The chat half of the procedure contract: every registered procedure, and a toy one the test
registers, runs through the chat handlers with no front-end code of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import toy_procedure

LOG = Path(__file__).resolve().parents[2] / "cases" / "code-commit" / "test-log.txt"


def procedures() -> list[str]:
    return toy_procedure.every_procedure("title")


@pytest.fixture(autouse=True)
def toy(tmp_path, monkeypatch, court_config):
    """Every role on the scripted backend: after ``court_config`` (which the chat fixture uses, and
    which names only the decision court's roles), or the other procedures' roles would fall to
    the default model and run on the embedded one."""
    toy_procedure.install()
    config = tmp_path / "contract.toml"
    config.write_text('[models]\ndefault = "scripted"\n', encoding="utf-8")
    monkeypatch.setenv("COURTROOM_CONFIG", str(config))
    yield
    toy_procedure.uninstall()


@pytest.mark.parametrize("title", procedures())
async def test_every_procedure_renders_in_the_chat(chat, title, runs_dir):
    session = chat.session()
    session.chat_profile = title
    async with chat.context(session) as ui:
        await chat.module.start()
        [panel] = [data for name, data in ui.calls if name == "chat_settings"]
        await chat.send("Should we affirm the ruling?", [chat.upload("test-log.txt", LOG)])

    from courtroom_chat.store import RunStore

    [row] = RunStore(runs_dir).list()
    record = RunStore(runs_dir).load(row["run_id"])
    assert record.status == "complete" and not ui.errors()
    roles = {w["id"] for w in panel if w["id"].startswith("model_")}
    assert roles == {f"model_{r}" for r in record.models}  # the panel's models are the procedure's roles
    names = [s["name"] for s in ui.steps()]
    finished = [e for e in record.events if e["type"] == "agent_finished"]
    assert finished and all(e["title"] in names for e in finished)
    [verdict] = ui.verdicts()
    assert verdict["output"].startswith(f"## {record.outcome.answer}") and "**How sure:**" in verdict["output"]
