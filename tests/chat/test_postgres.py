"""Chat history on a real PostgreSQL server (started on loopback by the ``postgres`` fixture):
the data layer's schema and round trip, and a thread that survives a restart of the chat."""

from __future__ import annotations

from pathlib import Path

import chainlit as cl
import pytest
from sqlalchemy import text

from courtroom_chat.frontends.chat_data import ChatDataLayer

CASE = Path(__file__).resolve().parents[2] / "cases" / "code-commit"
STAGES = ("Prosecution", "Defense", "Jury", "Judge")
CHAT_DATABASE = "postgresql"  # the chat_server fixture keeps this module's history on the postgres fixture
CHAT_LATENCY_MS = 300


async def test_a_thread_saved_on_postgres_is_read_back_by_a_new_data_layer(chat, postgres, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", postgres.url)
    layer = ChatDataLayer()
    assert layer.engine.dialect.name == "postgresql" and layer.engine.dialect.driver == "asyncpg"
    session = chat.session("carol")
    async with chat.context(session):
        user = await layer.create_user(cl.User(identifier="carol"))
        await layer.update_thread(session.thread_id, name="Should we ship on Friday?", user_id=user.id,
                                  metadata={"run_ids": ["r7"]}, tags=["Decision court"])
        step = cl.Step(name="Jury", type="tool", default_open=False, auto_collapse=True)
        step.output = "Votes: 4 yes, 1 no"
        await layer.create_step(step.to_dict())
        verdict = cl.Message(content="## No: do not ship on Friday", metadata={"run_id": "r7", "kind": "verdict"})
        await layer.create_step(verdict.to_dict())
        await layer.close()

    restarted = ChatDataLayer()  # a new process would build exactly this
    async with chat.context(session):
        thread = await restarted.get_thread(session.thread_id)
        assert thread is not None and thread["name"] == "Should we ship on Friday?"
        assert thread["userIdentifier"] == "carol" and thread["tags"] == ["Decision court"]
        saved = {s["name"]: s for s in thread["steps"]}
        assert saved["Jury"]["output"] == "Votes: 4 yes, 1 no"
        async with restarted.engine.connect() as db:  # a column Chainlit's own SQL lacks, added by our schema
            row = (await db.execute(text('SELECT "autoCollapse", "defaultOpen" FROM steps WHERE id = :id'),
                                    {"id": step.id})).one()
        assert tuple(row) == (True, False)
        assert saved[verdict.author]["output"] == "## No: do not ship on Friday"
        assert (await restarted.get_step_metadata(verdict.id)) == {"run_id": "r7", "kind": "verdict"}
        found = await restarted.list_threads(cl.types.Pagination(first=5), cl.types.ThreadFilter(userId=user.id))
        assert [t["id"] for t in found.data] == [session.thread_id]
        await restarted.close()


@pytest.mark.browser
def test_a_thread_on_postgres_survives_a_restart_of_the_chat_and_of_the_database(open_chat, chat_server, postgres):
    question = "Should the history live in PostgreSQL?"
    open_chat().ask_and_wait(question, [CASE / "pr-214.md"])

    chat_server.stop()
    postgres.stop()  # the database restarts too: the thread is on disk, not in a process
    postgres.start()
    chat_server.start()

    again = open_chat()
    again.resume(question, STAGES)
    assert again.page.locator(".step").count() >= len(STAGES)
