"""The classification court in the chat, on the scripted backend: a person picks its profile,
pastes a text under a question naming the labels, and watches the hearing, the argument and
the bench; one label is refused in one line."""

from __future__ import annotations


async def test_a_pasted_text_and_its_labels_go_on_trial(chat, court_config, runs_dir):
    court_config('default = "scripted"\n[procedures.classification]\njudges = 3\nmode = "sequential"\n')
    session = chat.session()
    session.chat_profile = "Classification court"
    async with chat.context(session) as ui:
        await chat.module.start()
        [panel] = [data for name, data in ui.calls if name == "chat_settings"]
        await chat.send("Which emotion does the text express: sadness, joy, anger or fear?\n"
                        "i feel so happy today because my sister finally came home after two years away")

    from courtroom_chat.store import RunStore

    [row] = RunStore(runs_dir).list()
    record = RunStore(runs_dir).load(row["run_id"])
    assert record.procedure == "classification" and record.status == "complete" and not ui.errors()
    assert record.outputs["hearing"]["labels"] == ["sadness", "joy", "anger", "fear"]
    assert record.outputs["hearing"]["first"] == "joy"
    assert record.case.context[0].text.startswith("i feel so happy")
    assert {w["id"] for w in panel} >= {"param_judges", "param_mode", "param_precedents", "model_magistrate"}
    names = [s["name"] for s in ui.steps()]
    assert {"Magistrate · joy, then sadness", "Judge 1 · joy", "Judge 3 · joy"} <= set(names)
    assert any(n.startswith("Prosecutor · for") for n in names) and any(n.startswith("Attorney · for") for n in names)
    [verdict] = ui.verdicts()
    assert verdict["output"].startswith("## Label: joy")


async def test_a_single_label_is_refused_in_one_line(chat, court_config, runs_dir):
    court_config('default = "scripted"\n')
    session = chat.session()
    session.chat_profile = "Classification court"
    async with chat.context(session) as ui:
        await chat.module.start()
        await chat.send("Labels: joy. Which one fits?\ni feel so happy today")
    [error] = ui.errors()
    assert "two or more candidate labels" in error and "\n" not in error.strip()
