"""The ``ollama`` backend: a model served by a local (or remote) Ollama, through its client.

Every call streams ``/api/chat`` with ``format`` set to the reply's JSON schema (Ollama turns
it into a grammar, so even small models write the right fields), and ``options`` with the
applied temperature, ``num_ctx`` from ``[ollama]`` (Ollama's own default window silently
truncates long evidence) and ``num_predict`` bounding the reply. The client's default is no
timeout at all, so ``[ollama] timeout`` is always passed.

The case block comes first in the one user turn, identical for every role, so Ollama can
reuse its cached prompt prefix between roles. Calls cost $0 but record tokens and time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import BackendError, BackendUnavailableError, ModelNotFoundError, missing_extra
from ..records import Usage
from .base import ModelReply, ModelRequest, Stopwatch, TextCallback, rough_tokens
from .profiles import PROFILES

try:
    import httpx
    import ollama
except ImportError:  # pragma: no cover - ollama is a core dependency
    ollama = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from ..config import ModelSpec, Settings


class OllamaBackend:
    name = "ollama"
    accepts_temperature = PROFILES["ollama"].accepts_temperature
    price_provider = PROFILES["ollama"].price_provider
    constrained_decoding = PROFILES["ollama"].constrained_decoding

    def __init__(self, spec: ModelSpec, settings: Settings) -> None:
        if ollama is None:
            raise missing_extra("ollama")
        config = settings.ollama
        self.model = spec.model or config.model
        self.host = config.resolved_host()
        self.timeout = config.timeout
        self.num_ctx = config.num_ctx
        self.context_window: int | None = config.num_ctx
        self._client = ollama.AsyncClient(host=self.host, timeout=config.timeout)

    def estimate_tokens(self, text: str) -> int:
        return rough_tokens(text)

    async def aclose(self) -> None:
        await self._client.close()

    # ------------------------------------------------------------------ the call

    def options(self, request: ModelRequest) -> dict[str, Any]:
        options: dict[str, Any] = {"num_ctx": self.num_ctx, "num_predict": request.max_tokens}
        if request.temperature is not None:
            options["temperature"] = request.temperature
        if request.seed is not None:
            options["seed"] = request.seed
        return options

    async def complete(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelReply:
        watch = Stopwatch()
        pieces: list[str] = []
        last: Any = None
        try:
            stream = await self._client.chat(
                model=self.model,
                messages=request.messages(),
                format=request.schema,
                options=self.options(request),
                stream=True,
            )
            async for chunk in stream:
                last = chunk
                delta = chunk.message.content or ""
                if delta:
                    pieces.append(delta)
                    if on_text is not None:
                        on_text(delta)
        except (ollama.ResponseError, ConnectionError, httpx.HTTPError) as exc:
            raise self._error(exc) from None
        text = "".join(pieces)
        return ModelReply(
            text=text,
            usage=Usage(
                input_tokens=(last.prompt_eval_count or 0) if last is not None else 0,
                output_tokens=(last.eval_count or 0) if last is not None else 0,
            ),
            model=(last.model if last is not None and last.model else self.model),
            temperature=request.temperature,
            seconds=watch.seconds,
            finish_reason=(last.done_reason or "") if last is not None else "",
            raw={
                key: getattr(last, key)
                for key in ("done_reason", "total_duration", "load_duration", "prompt_eval_duration", "eval_duration")
                if last is not None and getattr(last, key, None) is not None
            },
        )

    # ------------------------------------------------------------------ errors

    def _error(self, exc: Exception) -> BackendError:
        """The one-line error a person can act on, for any client failure."""
        if isinstance(exc, (httpx.ConnectError, ConnectionError)):
            return BackendUnavailableError(f"Ollama is not running at {self.host} (start it with `ollama serve`)")
        if isinstance(exc, httpx.TimeoutException):
            return BackendUnavailableError(
                f"ollama:{self.model} at {self.host} did not answer within {self.timeout:g} s; "
                "raise [ollama] timeout in config.toml or use a smaller model"
            )
        if isinstance(exc, httpx.HTTPError):
            return BackendUnavailableError(
                _one_line(
                    f"lost the connection to Ollama at {self.host} ({type(exc).__name__}: {exc}); check that it is still running"
                )
            )
        error = str(getattr(exc, "error", exc))
        status = getattr(exc, "status_code", -1)
        if status == 404 or ("not found" in error.lower() and "model" in error.lower()):
            return ModelNotFoundError(
                f"Ollama at {self.host} has no model '{self.model}'; pull it with `ollama pull {self.model}`"
            )
        code = f" {status}" if status and status > 0 else ""
        return BackendError(_one_line(f"ollama:{self.model}: Ollama error{code}: {error}"))


def _one_line(message: str) -> str:
    return " ".join(message.split())
