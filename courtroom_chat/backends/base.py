"""The one backend protocol, and the request/reply every backend speaks.

A request is split into a shared ``prefix`` (the case: question and evidence, identical
for every role of a trial, so providers can cache it) and a role ``prompt``. Backends
that cache (Anthropic prompt caching, llama.cpp slot reuse) depend on the prefix coming
first and being byte-identical across roles.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..records import Usage

TextCallback = Callable[[str], None]


def stable_seed(*parts: object) -> int:
    """A 32-bit seed from any parts, the same in every process (``hash()`` is salted)."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:4], "big")


def sampling_seed(*parts: object) -> int:
    """A sampler's seed from any parts: 31 bits, as every runtime takes (llama.cpp reads 2**32 - 1 as "draw one")."""
    return stable_seed("sampling", *parts) & 0x7FFFFFFF


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
    # The sampler's seed (local, Ollama): fixed by the trial's seed and the agent, so a trial or an
    # evaluation item run again samples the same way; None: the backend draws one (Anthropic has none)
    seed: int | None = None
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
    name: str  # local, anthropic, ollama, openai, scripted
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


def clean_message(message: str, secrets: tuple[str, ...] = ()) -> str:
    """An error in one line, and never a credential: what the API backends show a person."""
    message = " ".join(message.split())
    for secret in secrets:
        message = message.replace(secret, "***")
    return message
