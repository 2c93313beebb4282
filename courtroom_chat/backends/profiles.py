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

    def window(self, settings: Settings) -> int | None:
        """The context window in effect: configured for local and Ollama, fixed for others."""
        if self.name == "local":
            return settings.local.n_ctx
        if self.name == "ollama":
            return settings.ollama.num_ctx
        if self.name == "openai":
            return settings.openai.context_window
        return self.context_window


PROFILES: dict[str, BackendProfile] = {
    "scripted": BackendProfile("scripted", accepts_temperature=True, constrained_decoding=False, price_provider=None),
    "local": BackendProfile("local", accepts_temperature=True, constrained_decoding=True, price_provider=None),
    "ollama": BackendProfile("ollama", accepts_temperature=True, constrained_decoding=True, price_provider=None),
    # Any OpenAI-compatible server: the instance reads [openai] grammar, context_window and its price.
    "openai": BackendProfile("openai", accepts_temperature=True, constrained_decoding=False, price_provider="openai",
                             context_window=128_000),
    # Claude 4.x models take either temperature or top_p: the jurors' personas carry the variety.
    "anthropic": BackendProfile("anthropic", accepts_temperature=False, constrained_decoding=False,
                                price_provider="anthropic", context_window=200_000),
}


def profile(name: str) -> BackendProfile:
    """The profile of a backend; an unknown (plugin) backend gets conservative defaults."""
    return PROFILES.get(name) or BackendProfile(name, accepts_temperature=True, constrained_decoding=False,
                                                price_provider=None)
