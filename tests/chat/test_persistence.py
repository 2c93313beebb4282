"""Threads in SQLite through Chainlit's SQLAlchemy layer; chat users; the ``courtroom chat`` CLI."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys

import chainlit as cl
import pytest
from chainlit.types import Feedback
from typer.testing import CliRunner

from courtroom_chat.errors import InputError
from courtroom_chat.frontends.chat_data import ChatDataLayer, database_url
from courtroom_chat.frontends.chat_users import ChatUsers, verify_password

# Chainlit's documented SQLite/Postgres schema for steps: no autoCollapse (nor modes).
DOCUMENTED_STEPS = """CREATE TABLE steps ("id" TEXT PRIMARY KEY, "name" TEXT NOT NULL, "type" TEXT NOT NULL,
"threadId" TEXT NOT NULL, "parentId" TEXT, "streaming" BOOLEAN NOT NULL, "waitForAnswer" BOOLEAN, "isError" BOOLEAN,
"metadata" TEXT, "tags" TEXT, "input" TEXT, "output" TEXT, "createdAt" TEXT, "command" TEXT, "start" TEXT, "end" TEXT,
"generation" TEXT, "showInput" TEXT, "language" TEXT, "indent" INT, "defaultOpen" BOOLEAN)"""


@pytest.fixture
def layer(tmp_path, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'chat.sqlite'}")
    return ChatDataLayer()


async def test_steps_messages_and_threads_are_saved_with_every_column_chainlit_writes(chat, layer, tmp_path):
    session = chat.session("alice")
    async with chat.context(session):
        user = await layer.create_user(cl.User(identifier="alice"))
        await layer.update_thread(session.thread_id, name="Should I merge?", user_id=user.id,
                                  metadata={"run_ids": ["r1"]}, tags=["Decision court"])
        step = cl.Step(name="Prosecution", type="tool", default_open=True, auto_collapse=True)
        step.output = "**Motion:** merge"
        await layer.create_step(step.to_dict())
        message = cl.Message(content="## Yes: merge", metadata={"run_id": "r1", "kind": "verdict"},
                             modes={"court": "decision"}, command="ask")
        await layer.create_step(message.to_dict())
        step.output = "**Motion:** merge now"
        await layer.update_step(step.to_dict())

        thread = await layer.get_thread(session.thread_id)
        assert thread["userIdentifier"] == "alice" and thread["name"] == "Should I merge?"
        saved = {s["name"]: s for s in thread["steps"]}
        assert saved["Prosecution"]["output"] == "**Motion:** merge now"
        assert saved[message.author]["output"] == "## Yes: merge"
        assert (await layer.get_step_metadata(message.id))["run_id"] == "r1"
        with sqlite3.connect(tmp_path / "chat.sqlite") as db:
            assert db.execute('SELECT "autoCollapse", "defaultOpen" FROM steps WHERE id = ?', (step.id,)).fetchone() == (1, 1)
        threads = await layer.list_threads(cl.types.Pagination(first=10), cl.types.ThreadFilter(userId=user.id))
        assert [t["id"] for t in threads.data] == [session.thread_id]
        await layer.close()


async def test_a_table_from_the_documented_sql_gets_the_missing_columns(chat, tmp_path, monkeypatch):
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as db:
        db.execute(DOCUMENTED_STEPS)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{path}")
    layer = ChatDataLayer()
    session = chat.session("bob")
    async with chat.context(session):
        step = cl.Step(name="Jury", type="tool", auto_collapse=False)
        await layer.create_step(step.to_dict())
        assert [s["name"] for s in (await layer.get_thread(session.thread_id))["steps"]] == ["Jury"]
        await layer.close()
    with sqlite3.connect(path) as db:
        columns = {row[1] for row in db.execute("PRAGMA table_info(steps)")}
    assert {"autoCollapse", "modes"} <= columns


async def test_feedback_reaches_the_run_record_through_the_saved_verdict(chat, layer, runs_dir, monkeypatch):
    import chainlit.data as cl_data

    from courtroom_chat.store import RunStore

    session = chat.session()
    async with chat.context(session) as ui:
        await chat.send("Should I merge PR #214 now?", [chat.upload("notes.md", data=b"The tests passed on CI today.\n")])
        [verdict] = ui.verdicts()
        message = cl.Message(content=verdict["output"], metadata=verdict["metadata"], id=verdict["id"])
        await layer.create_step(message.to_dict())
        cl.user_session.set("verdicts", {})  # the session forgot it (e.g. a restart): the saved message tells
        monkeypatch.setattr(cl_data, "_data_layer", layer)
        await chat.module.feedback(Feedback(forId=verdict["id"], value=1, comment="shipped fine"))
        await layer.close()
    assert RunStore(runs_dir).load(verdict["metadata"]["run_id"]).feedback.comment == "shipped fine"


def test_database_url_selects_the_database(monkeypatch, tmp_path):
    monkeypatch.setenv("DATABASE_URL", "postgresql://court:pw@db/chat")
    assert database_url() == "postgresql+asyncpg://court:pw@db/chat"
    monkeypatch.setenv("DATABASE_URL", "sqlite:////srv/chat.db")
    assert database_url() == "sqlite+aiosqlite:////srv/chat.db"
    monkeypatch.delenv("DATABASE_URL")
    assert database_url().startswith("sqlite+aiosqlite:///") and database_url().endswith("courtroom-chat/chat.sqlite")


def test_add_user_stores_a_hash_with_private_permissions(tmp_path, monkeypatch):
    from courtroom_chat.frontends.cli import app

    path = tmp_path / "users.toml"
    monkeypatch.setenv("COURTROOM_CHAT_USERS", str(path))
    result = CliRunner().invoke(app, ["chat", "add-user", "alice", "--password-stdin"], input="correct horse 9\n")
    assert result.exit_code == 0, result.output
    text = path.read_text()
    assert "correct horse" not in text and "scrypt$" in text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    users = ChatUsers.load(path)
    assert users.enabled and users.secret and users.check("alice", "correct horse 9")
    assert not users.check("alice", "wrong") and not users.check("mallory", "correct horse 9")
    assert verify_password("correct horse 9", users.hashes["alice"])

    short = CliRunner().invoke(app, ["chat", "add-user", "bob", "--password-stdin"], input="short\n")
    assert short.exit_code == 2 and "too short" in short.output
    assert "Traceback" not in short.output


def test_user_names_are_checked():
    with pytest.raises(InputError, match="not allowed"):
        ChatUsers.load().add("a b", "long enough password")


async def test_login_checks_the_stored_hash(chat, tmp_path, monkeypatch):
    from chainlit.config import config

    assert config.code.password_auth_callback is None, "the tests' users file is empty: no login"
    monkeypatch.setenv("COURTROOM_CHAT_USERS", str(tmp_path / "users.toml"))
    users = ChatUsers.load()
    users.add("alice", "correct horse 9")
    users.save()
    user = await chat.module.login("alice", "correct horse 9")
    assert user.identifier == "alice"
    assert await chat.module.login("alice", "correct horse") is None
    assert await chat.module.login("bob", "correct horse 9") is None


async def test_a_name_with_five_failed_logins_is_refused_for_a_while(chat, tmp_path, monkeypatch):
    """Issue 83: the login took any number of guesses. Five failures within 15 minutes lock the
    name, the right password included, until the oldest failure is 15 minutes old; a right
    password before that resets the count; other names are untouched."""
    from courtroom_chat.frontends.chat_users import LoginGuard

    now = [1000.0]
    monkeypatch.setattr(chat.module, "_guard", LoginGuard(clock=lambda: now[0]))
    monkeypatch.setenv("COURTROOM_CHAT_USERS", str(tmp_path / "users.toml"))
    users = ChatUsers.load()
    users.add("alice", "correct horse 9")
    users.add("carol", "battery staple 7")
    users.save()
    for _ in range(4):
        assert await chat.module.login("alice", "wrong") is None
    assert (await chat.module.login("alice", "correct horse 9")).identifier == "alice"  # resets the count
    for _ in range(5):
        now[0] += 60
        assert await chat.module.login("alice", "guess") is None
    assert await chat.module.login("alice", "correct horse 9") is None  # locked: no password is checked
    assert (await chat.module.login("carol", "battery staple 7")).identifier == "carol"
    now[0] += 900 - 4 * 60  # the first of the five failures has left the 15-minute window
    assert (await chat.module.login("alice", "correct horse 9")).identifier == "alice"


def test_the_app_switches_login_on_when_users_exist(tmp_path):
    users = ChatUsers(tmp_path / "users.toml")
    users.add("alice", "correct horse 9")
    users.save()
    code = ("import os, courtroom_chat.frontends.chat_app\n"
            "from chainlit.config import config\n"
            "assert config.code.password_auth_callback is not None\n"
            f"assert os.environ['CHAINLIT_AUTH_SECRET'] == {users.secret!r}\n")
    env = {**os.environ, "COURTROOM_CHAT_USERS": str(users.path), "CHAINLIT_APP_ROOT": str(tmp_path)}
    env.pop("CHAINLIT_AUTH_SECRET", None)
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=tmp_path)


def test_the_cli_imports_no_chainlit():
    code = "import sys, courtroom_chat.frontends.cli; assert 'chainlit' not in sys.modules, 'chainlit imported'"
    subprocess.run([sys.executable, "-c", code], check=True)
