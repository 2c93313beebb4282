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
def toy(court_config):
    toy_procedure.install()
    # Every role on the scripted backend: the chat fixture's config names only the decision
    # court's roles, and any other procedure's would fall to the default (the local model).
    court_config('default = "scripted"\n')
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


@pytest.mark.parametrize("title", procedures())
async def test_each_profile_welcomes_with_what_to_type_in_it(chat, title):
    """The welcome names what this profile takes: a yes/no question for the decision court (and a
    plugin that says nothing of its own), a charge or a transcript for a court of law, a text and
    its labels for the classification court; the example it gives is one that profile tries."""
    import re

    from courtroom_chat.motion import asks_what_to_do
    from courtroom_chat.procedures import available

    session = chat.session()
    session.chat_profile = title
    async with chat.context(session) as ui:
        await chat.module.start()
    welcome = ui.texts()[0]
    info = next(i for i in available() if i.title == title)
    assert welcome.startswith(info.ask or "Ask a **yes/no question**") and "⚙️ settings" in welcome
    assert "Attach files with 📎" in welcome
    examples = re.findall(r"\u201c([^\u201d]+)\u201d", welcome)
    assert examples
    from courtroom_chat.procedures import get

    if get(info.name).tries:
        assert not any(asks_what_to_do(e) for e in examples), examples


async def test_a_checked_item_in_a_round_is_a_step_of_that_round(chat):
    """The toy checks an item in each of its rounds: each is shown inside its round's step, not in
    a section of the stage's own beside the rounds."""
    session = chat.session()
    session.chat_profile = toy_procedure.ThreeJustices.title
    async with chat.context(session) as ui:
        await chat.module.start()
        await chat.send("Should we affirm the ruling?", [chat.upload("test-log.txt", LOG)])
    for n in (1, 2):
        inside = [s["name"] for s in ui.children(ui.step(f"Bench · round {n}"))]
        assert f"Precedent of round {n} · ✅ found" in inside
    assert "Bench" not in [s["name"] for s in ui.steps()]  # no section of the stage beside its rounds
