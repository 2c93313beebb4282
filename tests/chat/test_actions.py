"""Under the verdict: export, re-run, show prompts, feedback; resuming a thread; isolation."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import chainlit as cl
from chainlit.types import Feedback

from courtroom_chat.cost import dollars
from courtroom_chat.store import RunStore

CASE = Path(__file__).resolve().parents[2] / "cases" / "code-commit"
QUESTION = "Should I merge PR #214 now?"


async def one_trial(chat, ui, question=QUESTION, name="test-log.txt"):
    await chat.send(question, [chat.upload(name, CASE / name)])
    return ui.verdicts()[-1]


async def test_export_gives_the_run_record_as_json_and_markdown(chat, runs_dir, monkeypatch):
    made: list[dict] = []
    real_file = cl.File

    def capture(**kwargs):
        made.append(kwargs)
        return real_file(**kwargs)

    monkeypatch.setattr(cl, "File", capture)
    async with chat.context(chat.session()) as ui:
        verdict = await one_trial(chat, ui)
        run_id = verdict["metadata"]["run_id"]
        await chat.module.export(cl.Action(name="export", payload={"run_id": run_id}))

    files = {e["name"]: e for e in ui.elements()}
    assert set(files) == {f"courtroom-{run_id}.json", f"courtroom-{run_id}.md"}
    assert files[f"courtroom-{run_id}.json"]["mime"] == "application/json"
    message = ui.messages()[-1]
    assert message["output"] == f"The record of run `{run_id}`, as JSON and as Markdown."
    assert all(e["forId"] == message["id"] for e in files.values())
    # The exported files hold the stored record, and its Markdown replay.
    content = {f["name"]: f["content"] for f in made if "content" in f}
    exported = json.loads(content[f"courtroom-{run_id}.json"])
    record = RunStore(runs_dir).load(run_id)
    assert exported["run_id"] == run_id and exported["case"]["question"] == QUESTION
    assert exported["outcome"]["answer"] == record.outcome.answer
    markdown = content[f"courtroom-{run_id}.md"].decode()
    assert markdown.startswith(f"# {QUESTION}") and record.outcome.answer in markdown and "## Jury" in markdown


async def test_actions_refuse_a_run_of_another_conversation(chat):
    async with chat.context(chat.session()) as ui:
        await chat.module.export(cl.Action(name="export", payload={"run_id": "20260101-000000-abcdef"}))
        await chat.module.rerun(cl.Action(name="rerun", payload={"run_id": "../../etc/passwd"}))

    assert ui.errors() == ["That run does not belong to this conversation."] * 2
    assert not ui.elements() and not ui.steps()


async def test_rerun_tries_the_same_case_again_and_the_stop_button_reaches_it(chat, runs_dir):
    session = chat.session()
    async with chat.context(session) as ui:
        first = await one_trial(chat, ui)
        await chat.module.rerun(cl.Action(name="rerun", payload={"run_id": first["metadata"]["run_id"]}))
        assert session.current_task is not None, "the re-run is the session's task: stop cancels it"
        await session.current_task

    one, two = ui.verdicts()
    assert one["metadata"]["run_id"] != two["metadata"]["run_id"]
    async with chat.context(session) as again:
        session.current_task = asyncio.get_running_loop().create_future()  # a trial still running
        await chat.module.rerun(cl.Action(name="rerun", payload={"run_id": first["metadata"]["run_id"]}))
        assert again.errors()[-1] == "A trial is already running here; wait for it or stop it first."
    store = RunStore(runs_dir)
    assert store.load(two["metadata"]["run_id"]).case == store.load(one["metadata"]["run_id"]).case
    emitted = [name for name, _ in ui.calls]
    assert "task_start" in emitted and "task_end" in emitted


async def test_show_prompts_is_the_dry_run_view_of_the_case(chat, runs_dir):
    session = chat.session()
    async with chat.context(session) as ui:
        verdict = await one_trial(chat, ui)
        before = len(ui.steps())
        await chat.module.show_prompts(cl.Action(name="show_prompts", payload=verdict["metadata"]))
        await session.current_task

    prompts = [s["name"] for s in ui.steps()[before:]]
    assert prompts[0] == "Prompt · prosecutor" and prompts[-1] == "Prompt · judge" and len(prompts) == 8
    assert "No model was called." in ui.texts()[-1]
    assert len(RunStore(runs_dir).list()) == 1, "a dry run stores no run"


async def test_thumbs_on_a_verdict_are_stored_with_its_run_record(chat, runs_dir):
    session = chat.session()
    async with chat.context(session) as ui:
        verdict = await one_trial(chat, ui)
        run_id = verdict["metadata"]["run_id"]
        await chat.module.feedback(Feedback(forId=verdict["id"], value=0, comment="we merged and it broke"))
        assert RunStore(runs_dir).load(run_id).feedback.rating == "down"
        await chat.module.feedback(Feedback(forId=verdict["id"], value=1, comment="fixed the next day: fair call"))
        await chat.module.feedback(Feedback(forId="a-message-that-is-no-verdict", value=0))  # ignored

    record = RunStore(runs_dir).load(run_id)
    assert record.feedback.rating == "up" and record.feedback.comment == "fixed the next day: fair call"
    assert RunStore(runs_dir).list()[0]["feedback"] == "up"


async def test_thumbs_on_a_verdict_whose_run_file_is_gone_say_they_were_not_stored(chat, runs_dir):
    async with chat.context(chat.session()) as ui:
        verdict = await one_trial(chat, ui)
        (runs_dir / f"{verdict['metadata']['run_id']}.json").unlink()
        await chat.module.feedback(Feedback(forId=verdict["id"], value=1))

    assert ui.errors()[-1].startswith(f"Your rating was not stored: run {verdict['metadata']['run_id']} is indexed but its file")


async def test_a_resumed_thread_gets_its_settings_actions_and_costs_back(chat, priced_backend, runs_dir):
    session = chat.session()
    async with chat.context(session) as ui:
        verdict = await one_trial(chat, ui)
    thread_state = {"run_ids": [verdict["metadata"]["run_id"]], "verdicts": {verdict["id"]: verdict["metadata"]["run_id"]}}

    from chainlit.user_session import user_sessions

    resumed = chat.session()
    resumed.chat_settings = {"param_jury_size": 3, "param_jury_threshold": 2, "dry_run": True}
    user_sessions[resumed.id] = dict(thread_state)  # what Chainlit restores from the thread's metadata
    async with chat.context(resumed) as ui2:
        await chat.module.resume({"id": resumed.thread_id, "steps": [], "metadata": thread_state})
        [panel] = [data for name, data in ui2.calls if name == "chat_settings"]
        initial = {w["id"]: w.get("initial") for w in panel}
        assert initial["param_jury_size"] == 3 and initial["dry_run"] is True
        assert {a["name"] for a in ui2.actions() if a["forId"] == verdict["id"]} == {"export", "rerun", "show_prompts"}
        await chat.module.export(cl.Action(name="export", payload=verdict["metadata"]))
        assert len(ui2.elements()) == 2, "the resumed thread may still export its runs"
        resumed.chat_settings = {}
        later = await one_trial(chat, ui2, "Should I merge it on Monday instead?")
    store = RunStore(runs_dir)
    costs = [store.load(v["metadata"]["run_id"]).cost_usd for v in (verdict, later)]
    assert f"**This session:** {dollars(round(sum(costs), 6))} —" in later["output"], "the thread's cost so far"


async def test_two_sessions_at_once_never_mix_steps_files_costs_or_records(chat, priced_backend, monkeypatch, runs_dir):
    monkeypatch.setenv("COURTROOM_SCRIPTED_LATENCY_MS", "30")
    alice, bob = chat.session("alice"), chat.session("bob")

    async def trial(session, question, name):
        async with chat.context(session) as ui:
            await one_trial(chat, ui, question, name)
            return ui

    ui_a, ui_b = await asyncio.gather(
        trial(alice, "Should I merge PR #214 now?", "pr-214.diff"),
        trial(bob, "Should we ship the checkout retry change today?", "test-log.txt"),
    )
    store = RunStore(runs_dir)
    by_owner = {row["owner"]: store.load(row["run_id"]) for row in store.list()}
    assert set(by_owner) == {"alice", "bob"}
    for ui, session, record in ((ui_a, alice, by_owner["alice"]), (ui_b, bob, by_owner["bob"])):
        assert {item["threadId"] for item in ui.items.values()} == {session.thread_id}
        [verdict] = ui.verdicts()
        assert verdict["metadata"]["run_id"] == record.run_id
        assert verdict["output"].startswith(f"## {record.verdict.answer}")
        exhibits = [c for c in ui.children(ui.step("Prosecution")) if c["name"].startswith("Exhibit")]
        assert [e["name"] for e in exhibits] == [f"Exhibit {e.number} · {'✅ verified' if e.verified else '❌ unverified'}"
                                                 for e in record.prosecution.exhibits]
        assert {d.name for d in record.case.context} == ({"pr-214.diff"} if record.case.question.startswith("Should I")
                                                          else {"test-log.txt"})
        assert f"**This session:** {dollars(record.cost_usd)} —" in verdict["output"]
    assert by_owner["alice"].cost_usd != by_owner["bob"].cost_usd
