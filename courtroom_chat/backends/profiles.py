"""What differs per backend, readable without opening a client, loading weights or reading a key.

A dry run, the cost estimates and the procedures' schema refinement read these; the
backends themselves take their class attributes from here, so a trait is stated once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..config import Settings


@dataclass(frozen=True)
class BackendProfile:
    name: str
    accepts_temperature: bool  # False: replies record None as the applied temperature
    constrained_decoding: bool  # decodes under a grammar built from the JSON schema
    price_provider: str | None  # genai-prices provider id; None: calls cost $0
    context_window: int | None = None  # tokens, when fixed by the provider
    # Requests at once the throttle lets through when [throttle] max_concurrency is not set
    # (0: no limit); None: read from the settings (the embedded model's slots).
    concurrency: int | None = 3
    # Milliseconds between the starts of two requests when [throttle] delay_ms is not set: a
    # hosted API's rate limits take a burst badly; a server that batches serves one best.
    spacing_ms: int = 200

    def window(self, settings: Settings) -> int | None:
        """The context window in effect: configured for local and Ollama, fixed for others."""
        if self.name == "local":
            return settings.local.n_ctx
        if self.name == "ollama":
            return settings.ollama.num_ctx
        if self.name == "openai":
            return settings.openai.context_window
        return self.context_window

    def bound(self, settings: Settings) -> int:
        """Model requests at once this backend takes (0: no limit) when ``[throttle]
        max_concurrency`` does not set one: the embedded model decodes ``[local] parallel``
        requests at a time (more would only queue inside it), an API server takes a five-juror
        jury at once (a batching server then serves it at about the cost of one call)."""
        return settings.local.parallel if self.concurrency is None else self.concurrency

    def spacing(self) -> float:
        """Seconds between the starts of two requests when ``[throttle] delay_ms`` does not set them."""
        return self.spacing_ms / 1000


PROFILES: dict[str, BackendProfile] = {
    "scripted": BackendProfile("scripted", accepts_temperature=True, constrained_decoding=False, price_provider=None,
                               concurrency=0, spacing_ms=0),
    "local": BackendProfile("local", accepts_temperature=True, constrained_decoding=True, price_provider=None,
                            concurrency=None, spacing_ms=0),
    # Ollama serves up to 4 requests of a loaded model at once by default (OLLAMA_NUM_PARALLEL).
    "ollama": BackendProfile("ollama", accepts_temperature=True, constrained_decoding=True, price_provider=None,
                             concurrency=4, spacing_ms=0),
    # Any OpenAI-compatible server: the instance reads [openai] grammar, context_window and its price.
    "openai": BackendProfile("openai", accepts_temperature=True, constrained_decoding=False, price_provider="openai",
                             context_window=128_000, concurrency=8, spacing_ms=0),
    # Claude 4.x models take either temperature or top_p: the jurors' personas carry the variety.
    "anthropic": BackendProfile("anthropic", accepts_temperature=False, constrained_decoding=False,
                                price_provider="anthropic", context_window=200_000, concurrency=8),
}


def profile(name: str) -> BackendProfile:
    """The profile of a backend; an unknown (plugin) backend gets conservative defaults."""
    return PROFILES.get(name) or BackendProfile(name, accepts_temperature=True, constrained_decoding=False,
                                                price_provider=None)
