"""Load: ten chat sessions at once through the real server, as the browser speaks to it
(Socket.IO), on the scripted backend with latency. Every one gets its own verdict."""

from __future__ import annotations

import asyncio
import time
import uuid
from datetime import UTC, datetime
from typing import Any

import httpx
import socketio

SESSIONS = 10
CHAT_LATENCY_MS = 400  # per model call; the chat_server fixture reads it


async def login_cookie(url: str, user: str, password: str) -> str:
    async with httpx.AsyncClient(base_url=url) as client:
        response = await client.post("/login", data={"username": user, "password": password})
        response.raise_for_status()
        return f"access_token={response.cookies['access_token']}"


async def one_session(url: str, cookie: str, n: int) -> dict[str, Any]:
    """One tab: connect, ask with pasted evidence, collect what is shown until the verdict."""
    client = socketio.AsyncClient(reconnection=False)
    seen: dict[str, dict[str, Any]] = {}
    thread: dict[str, str] = {}
    verdict: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()

    async def shown(data: dict[str, Any]) -> None:
        seen[data["id"]] = {**seen.get(data["id"], {}), **data}
        if (data.get("metadata") or {}).get("kind") == "verdict" and not verdict.done():
            verdict.set_result(data)

    client.on("new_message", shown)
    client.on("update_message", shown)
    client.on("first_interaction", lambda data: thread.setdefault("id", data["thread_id"]))
    await client.connect(url, socketio_path="/ws/socket.io", headers={"Cookie": cookie}, transports=["websocket"],
                         auth={"sessionId": str(uuid.uuid4()), "clientType": "webapp", "chatProfile": None,
                               "threadId": None, "userEnv": "{}"},
                         wait_timeout=30)  # ten sessions connect at once; on a slow 2-core machine 1 s was too short
    await client.emit("connection_successful")
    question = f"Should team {n} ship release 2.{n} today?"
    evidence = (f"Release 2.{n} notes\n- {n + 3} integration tests passed on the release branch\n"
                f"- the rollback script for release 2.{n} must be tested before the deploy window")
    await client.emit("client_message", {"message": {
        "id": str(uuid.uuid4()), "threadId": "", "type": "user_message", "name": "User",
        "output": f"{question}\n{evidence}", "createdAt": datetime.now(UTC).isoformat(),
    }, "fileReferences": None})
    try:
        result = await asyncio.wait_for(verdict, timeout=90)
    finally:
        await client.disconnect()
    return {"question": question, "verdict": result, "seen": seen, "thread": thread.get("id")}


def test_ten_sessions_at_once_each_get_their_own_verdict(chat_server, chat_login):
    async def main() -> list[dict[str, Any]]:
        cookie = await login_cookie(chat_server.url, *chat_login)
        return await asyncio.gather(*(one_session(chat_server.url, cookie, n) for n in range(SESSIONS)))

    started = time.monotonic()
    results = asyncio.run(main())
    elapsed = time.monotonic() - started

    records = {r.run_id: r for r in chat_server.runs_saved()}
    assert len(records) == SESSIONS and all(r.status == "complete" for r in records.values())
    latest_start = max(r.started_at for r in records.values())
    assert all(r.finished_at > latest_start for r in records.values()), "the ten trials ran at the same time"
    for result in results:
        run_id = result["verdict"]["metadata"]["run_id"]
        record = records.pop(run_id)  # each verdict is a different run
        assert record.case.question == result["question"]
        assert result["verdict"]["output"].startswith(f"## {record.verdict.answer}")
        assert {s["threadId"] for s in result["seen"].values()} == {result["thread"]}
        names = {s["name"] for s in result["seen"].values() if s["type"] == "tool"}
        assert {"Prosecution", "Defense", "Jury", "Judge"} <= names
    assert not records
    # concurrency is asserted by the overlap above, never by a timing (shared, noisy machines)
    print(f"ten concurrent trials took {elapsed:.1f} s")
