"""The one backend protocol, and the request/reply every backend speaks.

A request is split into a shared ``prefix`` (the case: question and evidence, identical
for every role of a trial, so providers can cache it) and a role ``prompt``. Backends
that cache (Anthropic prompt caching, llama.cpp slot reuse) depend on the prefix coming
first and being byte-identical across roles.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..records import Usage

TextCallback = Callable[[str], None]


@dataclass
class ModelRequest:
    agent: str  # prosecutor, defense, juror-3, judge
    role: str  # prosecutor, defense, juror, judge
    system: str
    prefix: str  # the case block, shared by every role
    prompt: str  # the role's instructions and the earlier stages' outputs
    schema: dict[str, Any]  # JSON schema of the reply
    schema_name: str
    temperature: float | None = None  # requested; the backend decides what it applies
    max_tokens: int = 800
    repairs: list[tuple[str, str]] = field(default_factory=list)  # (reply, correction) turns
    # Structured inputs behind the prompt. Real backends never send these; the scripted
    # backend derives its replies from them.
    case: Any = None
    inputs: dict[str, Any] = field(default_factory=dict)
    procedure: Any = None  # the procedure asking (the scripted backend asks it for demo replies)

    def user_text(self) -> str:
        return f"{self.prefix}\n\n{self.prompt}" if self.prefix else self.prompt

    def messages(self) -> list[dict[str, str]]:
        """Chat messages: system, user (prefix + prompt), then any repair turns."""
        out = [{"role": "system", "content": self.system}, {"role": "user", "content": self.user_text()}]
        for reply, correction in self.repairs:
            out += [{"role": "assistant", "content": reply}, {"role": "user", "content": correction}]
        return out


@dataclass
class ModelReply:
    text: str
    usage: Usage
    model: str
    temperature: float | None  # as applied (None: the backend takes no temperature)
    seconds: float = 0.0
    finish_reason: str = ""
    raw: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Backend(Protocol):
    name: str  # local, anthropic, ollama, scripted
    model: str
    accepts_temperature: bool
    constrained_decoding: bool  # decodes under a grammar from the JSON schema (see profiles.py)
    price_provider: str | None  # genai-prices provider id; None: calls cost $0
    context_window: int | None  # tokens, when known

    async def complete(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelReply: ...

    def estimate_tokens(self, text: str) -> int: ...

    async def aclose(self) -> None: ...


CHARS_PER_TOKEN = 3.6  # English and code, roughly, whatever the provider


def rough_tokens(text: str) -> int:
    """A provider-neutral token estimate (about 3.6 characters a token for English and code)."""
    return max(1, round(len(text) / CHARS_PER_TOKEN)) if text else 0


class Stopwatch:
    def __init__(self) -> None:
        self.start = time.perf_counter()

    @property
    def seconds(self) -> float:
        return round(time.perf_counter() - self.start, 4)
