"""Fixtures for the backend tests: a network guard, fast SDK backoff, an Anthropic router.

The mocks themselves (the httpx2-to-respx transport, canned SSE replies) are in ``http_mocks``.
"""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
import respx
from http_mocks import API_KEY, MODEL, RespxTransport

LOOPBACK = {"127.0.0.1", "::1", "localhost"}


# ---------------------------------------------------------------- fixtures


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    """A global switch: sockets may reach loopback only, and no SDK reads a real credential,
    base URL or profile from the environment."""
    real_connect = socket.socket.connect
    real_getaddrinfo = socket.getaddrinfo

    def connect(self: socket.socket, address: Any) -> Any:
        host = address[0] if isinstance(address, tuple) else address
        if isinstance(host, str) and host not in LOOPBACK and self.family in (socket.AF_INET, socket.AF_INET6):
            raise AssertionError(f"a test tried to reach the network: {address!r}")
        return real_connect(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else host
        if name is not None and name not in LOOPBACK:
            raise AssertionError(f"a test tried to resolve {name!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    for name in (
        "ANTHROPIC_BASE_URL",
        "ANTHROPIC_PROFILE",
        "ANTHROPIC_CUSTOM_HEADERS",
        "ANTHROPIC_CONFIG_DIR",
        "OLLAMA_API_KEY",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def quick_backoff(monkeypatch):
    """The SDK backs off 0.5 s, 1 s, ... between retries when the server names no wait
    (a timeout). Shrink it so retry tests stay fast; the retry policy itself is untouched."""
    import anthropic._base_client as base

    monkeypatch.setattr(base, "INITIAL_RETRY_DELAY", 0.001)
    monkeypatch.setattr(base, "MAX_RETRY_DELAY", 0.002)


@pytest.fixture
def api() -> respx.MockRouter:
    """A respx router for the Anthropic API. It patches nothing: only clients built on
    ``anthropic_http`` reach it."""
    return respx.MockRouter(assert_all_called=False, assert_all_mocked=True)


@pytest.fixture
async def anthropic_http(api: respx.MockRouter) -> AsyncIterator[httpx2.AsyncClient]:
    async with httpx2.AsyncClient(transport=RespxTransport(api)) as client:
        yield client


@pytest.fixture
def make_anthropic(anthropic_http):
    """``make_anthropic(settings=None, **anthropic_overrides)`` -> a backend on the router."""
    from courtroom_chat.backends.anthropic import AnthropicBackend
    from courtroom_chat.config import ModelSpec, Settings

    def make(settings: Settings | None = None, **overrides: Any) -> AnthropicBackend:
        settings = settings or Settings()
        if overrides:
            settings = settings.with_overrides({"anthropic": overrides})
        return AnthropicBackend(
            ModelSpec(backend="anthropic", model=MODEL), settings, http_client=anthropic_http, api_key=API_KEY
        )

    return make
