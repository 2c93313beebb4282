"""The ``openai`` backend: any OpenAI-compatible server, through the official SDK.

One config line points it anywhere: ``[openai] base_url`` empty is OpenAI's own API, else a vLLM
deployment (``http://gpu-node:8000/v1``), llama.cpp's server or LM Studio
(``http://127.0.0.1:8080/v1``, ``http://127.0.0.1:1234/v1``) or OpenRouter
(``https://openrouter.ai/api/v1``). The key is read from the environment variable that
``[openai] api_key_env`` names (``OPENAI_API_KEY`` by default), never from config or a record; a
local server that needs none gets a placeholder.

Every call streams ``chat.completions`` with ``response_format`` set to the reply's JSON schema
(``[openai] structured = "json_schema"``; vLLM and llama.cpp's server decode under it as a
grammar, OpenAI as structured output), ``json_object`` or nothing for a server that takes
neither; a reply that breaks the schema goes through the court's repair like any other. The
case block opens the user turn, identical for every role, so a server's prefix cache serves
it once. The SDK retries a refused connection, a 429 (keeping its Retry-After) and a 5xx
``[openai] max_retries`` times; what still fails is one line naming the server and what to do.

Cost: genai-prices' OpenAI prices where the base URL is OpenAI's own; ``[openai]
price_per_mtok = [input, output]`` for a private deployment; else $0, labelled self-hosted.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ..errors import BackendError, BackendUnavailableError, MissingCredentialsError, ModelNotFoundError, missing_extra
from ..records import Usage
from .base import ModelReply, ModelRequest, Stopwatch, TextCallback, clean_message, rough_tokens
from .profiles import PROFILES

try:
    import openai
except ImportError:  # pragma: no cover - openai is a core dependency
    openai = None  # type: ignore[assignment]

if TYPE_CHECKING:
    import httpx

    from ..config import ModelSpec, Settings

OPENAI_URL = "https://api.openai.com/v1"
NO_KEY = "not-needed"  # what a local server that checks no key is sent


def is_openai(base_url: str) -> bool:
    """Whether ``base_url`` is OpenAI's own API (its prices and its Batch API apply)."""
    return not base_url.strip() or base_url.rstrip("/").startswith("https://api.openai.com")


def price_provider(settings: Settings) -> str | None:
    """The genai-prices provider of these settings' calls: OpenAI's prices on OpenAI's API, a
    private ``per-mtok:IN:OUT`` price where one is set, else None ($0, self-hosted)."""
    config = settings.openai
    if config.price_per_mtok:
        low, high = config.price_per_mtok
        return f"per-mtok:{low:g}:{high:g}"
    return "openai" if is_openai(config.base_url) else None


class OpenAIBackend:
    name = "openai"
    accepts_temperature = PROFILES["openai"].accepts_temperature
    constrained_decoding = PROFILES["openai"].constrained_decoding

    def __init__(self, spec: ModelSpec, settings: Settings, *, http_client: httpx.AsyncClient | None = None) -> None:
        if openai is None:
            raise missing_extra("openai")
        config = settings.openai
        self.model = spec.model or config.model
        self.base_url = config.base_url.strip() or OPENAI_URL
        self.timeout = config.timeout
        self.max_retries = config.max_retries
        self.structured = config.structured
        self.constrained_decoding = config.grammar  # the server decodes under the schema as a grammar
        self.context_window: int | None = config.context_window
        self.price_provider = price_provider(settings)
        self.self_hosted = self.price_provider is None
        key = os.environ.get(config.api_key_env, "").strip() if config.api_key_env else ""
        if not key and is_openai(config.base_url):
            raise MissingCredentialsError(
                f"openai:{self.model}: no API key; set {config.api_key_env or 'OPENAI_API_KEY'} (or point "
                "[openai] base_url at your own server), or use --backend local for the embedded model")
        self._secrets = (key,) if key else ()
        self._client = openai.AsyncOpenAI(api_key=key or NO_KEY, base_url=self.base_url, timeout=config.timeout,
                                          max_retries=config.max_retries, http_client=http_client)

    def estimate_tokens(self, text: str) -> int:
        return rough_tokens(text)

    async def aclose(self) -> None:
        await self._client.close()

    # ------------------------------------------------------------------ the call

    def body(self, request: ModelRequest, *, stream: bool = True) -> dict[str, Any]:
        """The keyword arguments of ``chat.completions.create`` for a request; ``stream=False``:
        the same request unstreamed, as a Batch API line carries it (``--batch``)."""
        body: dict[str, Any] = {"model": self.model, "messages": request.messages(), "max_tokens": request.max_tokens}
        if stream:
            body.update(stream=True, stream_options={"include_usage": True})
        if self.structured == "json_schema":
            body["response_format"] = {"type": "json_schema", "json_schema": {
                "name": request.schema_name or "reply", "schema": request.schema, "strict": False}}
        elif self.structured == "json_object":
            body["response_format"] = {"type": "json_object"}
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if request.seed is not None:
            body["seed"] = request.seed
        return body

    async def complete(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelReply:
        watch = Stopwatch()
        pieces: list[str] = []
        usage: Any = None
        finish, model = "", ""
        try:
            stream = await self._client.chat.completions.create(**self.body(request))
            async for chunk in stream:
                usage = chunk.usage or usage
                model = chunk.model or model
                for choice in chunk.choices or []:
                    delta = choice.delta.content if choice.delta else None
                    if delta:
                        pieces.append(delta)
                        if on_text is not None:
                            on_text(delta)
                    finish = choice.finish_reason or finish
        except openai.OpenAIError as exc:
            raise self._error(exc) from None
        return ModelReply(
            text="".join(pieces),
            usage=usage_of(usage),
            model=model or self.model,
            temperature=request.temperature,
            seconds=watch.seconds,
            finish_reason=finish,
            raw={"base_url": self.base_url, "finish_reason": finish, "self_hosted": self.self_hosted},
        )

    # ------------------------------------------------------------------ errors

    def _error(self, exc: Exception) -> BackendError:
        """The one-line error a person can act on, for any SDK failure."""
        where = f"openai:{self.model} at {self.base_url}"
        retried = f" after {self.max_retries} retr{'y' if self.max_retries == 1 else 'ies'}" if self.max_retries else ""
        if isinstance(exc, openai.APITimeoutError):
            return BackendUnavailableError(self._clean(
                f"{where} did not answer within {self.timeout:g} s{retried}; raise [openai] timeout in config.toml, "
                "or check that the server is not overloaded"))
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__ or exc.__context__
            detail = f" ({type(cause).__name__})" if cause else ""
            return BackendUnavailableError(self._clean(
                f"{where}: cannot connect{detail}{retried}; check that the server is running and [openai] base_url"))
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            message = _message(exc)
            if isinstance(exc, openai.AuthenticationError):
                return BackendError(self._clean(
                    f"{where}: the server refused the key (401: {message}); check the variable [openai] "
                    "api_key_env names"))
            if isinstance(exc, openai.NotFoundError):
                return ModelNotFoundError(self._clean(
                    f"{where}: no model '{self.model}' (404: {message}); set [openai] model or [models] to a model "
                    "the server serves (its /v1/models lists them)"))
            again = retried if status == 429 or status >= 500 else ""
            if status == 429:
                again += "; wait and run again, or raise [openai] max_retries"
            return BackendError(self._clean(f"{where}: server error {status}: {message}{again}"))
        return BackendError(self._clean(f"{where}: {type(exc).__name__}: {exc}"))

    def _clean(self, message: str) -> str:
        return clean_message(message, self._secrets)


def usage_of(usage: Any) -> Usage:
    """A chat completion's usage (the SDK's object or, from a batch's output file, its dict):
    cached prompt tokens are counted as cache reads, not as input."""
    def field(owner: Any, name: str) -> Any:
        return owner.get(name) if isinstance(owner, dict) else getattr(owner, name, None)

    cached = field(field(usage, "prompt_tokens_details"), "cached_tokens") or 0
    prompt = field(usage, "prompt_tokens") or 0
    return Usage(input_tokens=max(0, prompt - cached), output_tokens=field(usage, "completion_tokens") or 0,
                 cache_read_tokens=cached)


def _message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        text = inner.get("message") if isinstance(inner, dict) else inner
        if text:
            return str(text)[:300]
    return str(getattr(exc, "message", "") or exc)[:300]
