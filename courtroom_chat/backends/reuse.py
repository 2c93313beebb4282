"""Replies a model already gave, handed back when a trial makes the very same request again.

Two configurations of a court with rounds (the supreme court's conference with and without the
tally, the bench's rounds) ask their first round in the same words under the same seed, yet on
the embedded model the first round comes out differently each time (the justices of a round are
decoded together in one batch, and the batch's arithmetic varies). Comparing the two then
compares two samples of round 1 as much as the two conferences. A trial given an earlier trial's
calls answers each request whose agent, backend and messages match one of them, in full, with
that reply, and sends the rest to the model: round 1 is the earlier trial's, and everything from
the first request that differs (the conference prompt) is decided afresh. A reused call is
marked ``reused`` in the run's record and costs no model time.
"""

from __future__ import annotations

import json
from collections import defaultdict, deque
from collections.abc import Iterable
from typing import Any

from ..records import CallRecord, Usage
from .base import Backend, ModelReply, ModelRequest, TextCallback


def _key(agent: str, backend: str, messages: list[dict[str, str]]) -> str:
    return json.dumps([agent, backend, messages], sort_keys=True, ensure_ascii=False)


class Replies:
    """An earlier trial's usable replies, by request; each is handed back once (a request made
    twice in the earlier trial, a repair asked the same way, is answered in the same order)."""

    def __init__(self, calls: Iterable[CallRecord]):
        self._by_key: dict[str, deque[CallRecord]] = defaultdict(deque)
        for call in calls:
            if call.response and not call.error:
                self._by_key[_key(call.agent, call.backend, call.messages)].append(call)
        self.offered = sum(len(q) for q in self._by_key.values())
        self.used = 0

    def take(self, backend: str, request: ModelRequest) -> CallRecord | None:
        found = self._by_key.get(_key(request.agent, backend, request.messages()))
        if not found:
            return None
        call = found[0]
        if call.temperature is not None and request.temperature is not None and call.temperature != request.temperature:
            return None  # the agent is sampled otherwise now: its earlier reply is not this request's
        found.popleft()
        self.used += 1
        return call


class Reusing:
    """A backend that answers from ``Replies`` where it can and asks ``inner`` otherwise."""

    def __init__(self, inner: Backend, replies: Replies):
        self.inner, self.replies = inner, replies

    def __getattr__(self, name: str) -> Any:  # name, model, estimate_tokens, aclose, … are the inner backend's
        return getattr(self.inner, name)

    async def complete(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelReply:
        call = self.replies.take(self.inner.name, request)
        if call is None:
            return await self.inner.complete(request, on_text)
        if on_text is not None:
            on_text(call.response)
        return ModelReply(text=call.response, usage=Usage(**call.usage.model_dump()), model=call.model,
                          temperature=call.temperature, seconds=0.0, finish_reason=call.finish_reason,
                          raw={"reused": True})
