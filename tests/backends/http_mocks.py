"""HTTP-level mocks for the real backends: the real SDKs, respx routers, no network.

anthropic 2.x sends through httpx2, which respx does not patch. ``RespxTransport`` is an
httpx2 transport that mirrors each request into an ``httpx.Request``, lets a respx router
answer it, and mirrors the ``httpx.Response`` back, streamed chunk by chunk (so the SDK's
SSE decoder sees a real stream) or raising the httpx2 twin of an httpx error (so a
``side_effect=httpx.ReadTimeout`` reaches the SDK as the timeout it knows).

The ollama client uses httpx itself, so its tests use respx's ordinary patching.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable
from typing import Any

import httpx
import httpx2
import respx

from courtroom_chat.backends.base import ModelRequest
from courtroom_chat.procedures.decision import JurorReply

ANTHROPIC_URL = "https://api.anthropic.com/v1/messages"
# Not shaped like a real key, so the run store's redaction cannot hide a leak from the tests.
API_KEY = "test-credential-4f9d2c7e1b"
MODEL = "claude-sonnet-4-6"


class RespxTransport(httpx2.AsyncBaseTransport):
    """Hands httpx2 requests to a respx router and its answers back as httpx2 responses."""

    def __init__(self, router: respx.Router) -> None:
        self.router = router

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        mirrored = httpx.Request(
            request.method, str(request.url), headers=request.headers.raw, content=await request.aread()
        )
        try:
            response = await self.router.async_handler(mirrored)
        except httpx.HTTPError as exc:
            twin = getattr(httpx2, type(exc).__name__, httpx2.TransportError)
            raise twin(str(exc), request=request) from exc
        return httpx2.Response(
            response.status_code, headers=response.headers.raw, stream=_Body(response), request=request
        )


class _Body(httpx2.AsyncByteStream):
    def __init__(self, response: httpx.Response) -> None:
        self.response = response

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            content = self.response.content  # respx reads plain bodies up front
        except httpx.ResponseNotRead:
            async for chunk in self.response.aiter_raw():  # streamed bodies pass chunk by chunk
                yield chunk
        else:
            yield content

    async def aclose(self) -> None:
        await self.response.aclose()


# ---------------------------------------------------------------- canned Anthropic replies


def sse(events: Iterable[tuple[str, dict[str, Any]]], *, status: int = 200) -> httpx.Response:
    """A streamed ``text/event-stream`` response, one network chunk per event.

    A streamed response can be read once: to serve one reply several times, build it per
    request (``side_effect=lambda request: reply(...)``), not as a ``return_value``."""
    frames = [f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in events]

    async def body() -> AsyncIterator[bytes]:
        for frame in frames:
            yield frame

    return httpx.Response(
        status, headers={"content-type": "text/event-stream", "request-id": "req_test"}, content=body()
    )


def message_events(
    text: str,
    *,
    input_tokens: int = 120,
    output_tokens: int = 80,
    cache_write: int = 0,
    cache_read: int = 0,
    stop_reason: str = "end_turn",
    model: str = MODEL,
    pieces: int = 3,
) -> list[tuple[str, dict[str, Any]]]:
    """The events of one streamed Messages API reply whose text arrives in ``pieces`` deltas."""
    step = max(1, -(-len(text) // pieces))
    deltas = [text[i : i + step] for i in range(0, len(text), step)] or [""]
    return [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_test",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {
                        "input_tokens": input_tokens,
                        "output_tokens": 1,
                        "cache_creation_input_tokens": cache_write,
                        "cache_read_input_tokens": cache_read,
                    },
                },
            },
        ),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        ),
        ("ping", {"type": "ping"}),
        *[
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": d}},
            )
            for d in deltas
        ],
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": output_tokens},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]


def reply(payload: dict[str, Any] | str, **usage: Any) -> httpx.Response:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return sse(message_events(text, **usage))


def api_error(status: int, kind: str, message: str, **headers: str) -> httpx.Response:
    return httpx.Response(
        status,
        headers={"request-id": "req_err", **headers},
        json={"type": "error", "error": {"type": kind, "message": message}},
    )


def body_of(call: Any) -> dict[str, Any]:
    """The JSON body of a recorded respx call."""
    return json.loads(call.request.content)


# ---------------------------------------------------------------- canned Ollama replies


def ndjson(
    text: str,
    *,
    model: str = "llama3.2",
    prompt_eval_count: int = 900,
    eval_count: int = 150,
    done_reason: str = "stop",
    pieces: int = 3,
) -> httpx.Response:
    """A streamed ``/api/chat`` reply: one JSON line per delta, then the final counts."""
    step = max(1, -(-len(text) // pieces))
    lines = [
        {
            "model": model,
            "created_at": "2026-01-01T00:00:00Z",
            "message": {"role": "assistant", "content": text[i : i + step]},
            "done": False,
        }
        for i in range(0, len(text), step)
    ]
    lines.append(
        {
            "model": model,
            "created_at": "2026-01-01T00:00:01Z",
            "message": {"role": "assistant", "content": ""},
            "done": True,
            "done_reason": done_reason,
            "total_duration": 2_500_000_000,
            "load_duration": 100_000_000,
            "prompt_eval_count": prompt_eval_count,
            "prompt_eval_duration": 400_000_000,
            "eval_count": eval_count,
            "eval_duration": 1_900_000_000,
        }
    )

    async def body() -> AsyncIterator[bytes]:
        for line in lines:
            yield (json.dumps(line) + "\n").encode()

    return httpx.Response(200, headers={"content-type": "application/x-ndjson"}, content=body())


def ollama_reply(payload: dict[str, Any] | str, **counts: Any) -> httpx.Response:
    return ndjson(payload if isinstance(payload, str) else json.dumps(payload), **counts)


def juror_request(**changes: Any) -> ModelRequest:
    """A juror's request, as the engine builds it, with any field changed."""
    fields: dict[str, Any] = dict(
        agent="juror-1",
        role="juror",
        system="You are a juror.",
        prefix="QUESTION: ship?",
        prompt="Vote.",
        schema=JurorReply.model_json_schema(),
        schema_name="JurorReply",
        temperature=0.3,
        max_tokens=420,
    )
    fields.update(changes)
    return ModelRequest(**fields)
