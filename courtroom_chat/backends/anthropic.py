"""The ``anthropic`` backend: Claude through the anthropic SDK (2.x).

What it sends, and why:

* structured output: ``output_config.format`` carries the reply's JSON schema (the pydantic
  wire model's schema, made strict by the SDK's own ``transform_schema``), so the model is
  constrained to it; the engine still parses tolerantly and validates;
* prompt caching: the system prompt, then one user turn of two blocks, the case block
  marked ``cache_control: ephemeral`` and then the role's prompt. The case block is
  byte-identical for every role, so the defense, the jurors and the judge read it from the
  cache the prosecutor wrote;
* no ``temperature``: current Claude models and SDK 2.x reject it; the jurors' personas
  carry the variety (``accepts_temperature`` is False and replies record None);
* retries: the SDK's own (429, 5xx, timeouts, dropped connections), ``max_retries`` and
  ``timeout`` from ``[anthropic]`` in config.toml.

Every SDK failure leaves as a one-line ``BackendError``; the API key never appears in one.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ..errors import (
    BackendError,
    BackendUnavailableError,
    MissingCredentialsError,
    ModelNotFoundError,
    missing_extra,
)
from ..records import Usage
from .base import ModelReply, ModelRequest, Stopwatch, TextCallback, clean_message, rough_tokens
from .profiles import PROFILES

try:
    import anthropic
except ImportError:  # pragma: no cover - anthropic is a core dependency
    anthropic = None  # type: ignore[assignment]

if TYPE_CHECKING:
    import httpx2

    from ..config import ModelSpec, Settings

CACHED = {"type": "ephemeral"}



def credentials(label: str, api_key: str | None = None) -> tuple[str, str]:
    """The API key or auth token a client would use; none is a MissingCredentialsError naming
    what to set. Checked before a trial starts (``BackendPool.preflight``), so a missing key
    leaves no failed run behind."""
    key = (api_key or os.environ.get("ANTHROPIC_API_KEY", "")).strip()
    token = "" if key else os.environ.get("ANTHROPIC_AUTH_TOKEN", "").strip()
    if not key and not token:
        raise MissingCredentialsError(
            f"no Anthropic API key for {label}: "
            "set ANTHROPIC_API_KEY or use --backend local (or --backend scripted for a dry demo)"
        )
    return key, token

class AnthropicBackend:
    name = "anthropic"
    accepts_temperature = PROFILES["anthropic"].accepts_temperature
    price_provider = PROFILES["anthropic"].price_provider
    constrained_decoding = PROFILES["anthropic"].constrained_decoding
    context_window: int | None = 200_000

    def __init__(
        self,
        spec: ModelSpec,
        settings: Settings,
        *,
        http_client: httpx2.AsyncClient | None = None,
        api_key: str | None = None,
    ) -> None:
        if anthropic is None:
            raise missing_extra("anthropic")
        config = settings.anthropic
        self.model = spec.model or config.model
        self.timeout = config.timeout
        self.max_retries = config.max_retries
        self.max_tokens = config.max_tokens
        key, token = credentials(f"{self.name}:{self.model}", api_key)
        self._secrets = tuple(s for s in (key, token) if s)
        # Explicit credentials: the SDK then reads no profile or credentials file from disk.
        self._client = anthropic.AsyncAnthropic(
            api_key=key or None,
            auth_token=token or None,
            timeout=config.timeout,
            max_retries=config.max_retries,
            http_client=http_client,
        )

    def estimate_tokens(self, text: str) -> int:
        return rough_tokens(text)

    async def aclose(self) -> None:
        await self._client.close()

    # ------------------------------------------------------------------ the call

    def body(self, request: ModelRequest) -> dict[str, Any]:
        """The keyword arguments of ``messages.stream`` for a request (no temperature)."""
        user: list[dict[str, Any]] = []
        if request.prefix:
            user.append({"type": "text", "text": request.prefix, "cache_control": CACHED})
        if request.prompt or not user:
            user.append({"type": "text", "text": request.prompt})
        messages: list[dict[str, Any]] = [{"role": "user", "content": user}]
        for reply, correction in request.repairs:
            messages.append({"role": "assistant", "content": reply if reply.strip() else "(empty reply)"})
            messages.append({"role": "user", "content": correction})
        return {
            "model": self.model,
            # The role's budget, raised to [anthropic] max_tokens: a reply cut short costs a
            # repair, while room left unused costs nothing.
            "max_tokens": max(request.max_tokens, self.max_tokens),
            "system": [{"type": "text", "text": request.system}],
            "messages": messages,
            "output_config": {"format": {"type": "json_schema", "schema": anthropic.transform_schema(request.schema)}},
        }

    async def complete(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelReply:
        watch = Stopwatch()
        try:
            async with self._client.messages.stream(**self.body(request)) as stream:
                async for event in stream:
                    if event.type == "text" and on_text is not None:
                        on_text(event.text)
                message = await stream.get_final_message()
        except anthropic.AnthropicError as exc:
            raise self._error(exc) from None
        text = "".join(block.text for block in message.content if block.type == "text")
        usage = message.usage
        return ModelReply(
            text=text,
            usage=Usage(
                input_tokens=usage.input_tokens or 0,
                output_tokens=usage.output_tokens or 0,
                cache_write_tokens=usage.cache_creation_input_tokens or 0,
                cache_read_tokens=usage.cache_read_input_tokens or 0,
            ),
            model=message.model or self.model,
            temperature=None,
            seconds=watch.seconds,
            finish_reason=message.stop_reason or "",
            raw={"id": message.id, "stop_reason": message.stop_reason, "usage": usage.model_dump(exclude_none=True)},
        )

    # ------------------------------------------------------------------ errors

    def _error(self, exc: Exception) -> BackendError:
        """The one-line error a person can act on, for any SDK failure."""
        where = f"anthropic:{self.model}"
        retried = f" after {self.max_retries} retr{'y' if self.max_retries == 1 else 'ies'}" if self.max_retries else ""
        if isinstance(exc, anthropic.APITimeoutError):
            return BackendUnavailableError(
                self._clean(
                    f"{where}: the Anthropic API did not answer within {self.timeout:g} s{retried}; "
                    "raise [anthropic] timeout in config.toml or try again later"
                )
            )
        if isinstance(exc, anthropic.APIConnectionError):
            cause = exc.__cause__ or exc.__context__
            detail = f" ({type(cause).__name__}: {cause})" if cause else ""
            return BackendUnavailableError(
                self._clean(f"{where}: cannot reach the Anthropic API{detail}{retried}; check the network connection")
            )
        if isinstance(exc, anthropic.APIStatusError):
            kind = exc.type or "error"
            message = exc.api_message or _body_text(exc.body) or str(exc)
            status = exc.status_code
            if isinstance(exc, anthropic.NotFoundError) and ("model" in message.lower() or kind == "not_found_error"):
                return ModelNotFoundError(
                    self._clean(
                        f"{where}: Anthropic has no such model (404 {kind}: {message}); "
                        "set [anthropic] model or [models] in config.toml to a current model id such as claude-sonnet-4-6"
                    )
                )
            if isinstance(exc, anthropic.AuthenticationError):
                return BackendError(
                    self._clean(
                        f"{where}: the Anthropic API rejected the credentials (401 {kind}: {message}); "
                        "check ANTHROPIC_API_KEY"
                    )
                )
            if 200 <= status < 300:  # an error event in the middle of a streamed reply
                return BackendError(self._clean(f"{where}: the Anthropic API failed mid-reply ({kind}): {message}"))
            again = retried if status == 429 or status >= 500 else ""
            if status == 429:
                again += "; wait a minute and run again, or raise [anthropic] max_retries"
            return BackendError(self._clean(f"{where}: Anthropic API error {status} ({kind}): {message}{again}"))
        return BackendError(self._clean(f"{where}: {type(exc).__name__}: {exc}"))

    def _clean(self, message: str) -> str:
        return clean_message(message, self._secrets)


def _body_text(body: object) -> str:
    if isinstance(body, str):
        return body[:300]
    return ""
