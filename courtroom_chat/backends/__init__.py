"""Backends: one protocol (``base.Backend``), five implementations, and any a plugin adds.

Built-in backends register through ``register`` exactly as a plugin would, and a config names
any registered backend (``known``). Implementations are imported only when first used, so
optional SDKs (anthropic, ollama, xllamacpp) cost nothing until a role is configured to use
them. An installed package adds a backend under the entry-point group ``ENTRY_POINT_GROUP``,
named by the backend and pointing at its factory; the group is read the first time a name is
not among those registered, and the factory imported only when a role uses it:

    [project.entry-points."courtroom_chat.backends"]
    echo = "my_backend:EchoBackend"
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from ..throttle import Pacer
from .base import Backend, ModelReply, ModelRequest, rough_tokens
from .profiles import PROFILES, BackendProfile, profile
from .reuse import Replies, Reusing

if TYPE_CHECKING:
    from ..config import ModelSpec, Settings

Factory = Callable[["ModelSpec", "Settings"], Backend]

_FACTORIES: dict[str, Factory | str] = {
    "local": "courtroom_chat.backends.local:LocalBackend",
    "anthropic": "courtroom_chat.backends.anthropic:AnthropicBackend",
    "ollama": "courtroom_chat.backends.ollama:OllamaBackend",
    "openai": "courtroom_chat.backends.openai:OpenAIBackend",
    "scripted": "courtroom_chat.backends.scripted:ScriptedBackend",
}
ENTRY_POINT_GROUP = "courtroom_chat.backends"
_discovered = False

__all__ = ["ENTRY_POINT_GROUP", "PROFILES", "Backend", "BackendPool", "BackendProfile", "ModelReply", "ModelRequest",
           "known", "open_backend", "profile", "register", "rough_tokens", "unregister"]


def register(name: str, factory: Factory | str) -> None:
    """Add or replace a backend: a callable ``(spec, settings) -> Backend`` or "module:Class".
    A config may name it from then on (``[models] judge = "<name>:<model>"``)."""
    _FACTORIES[name] = factory


def unregister(name: str) -> None:
    _FACTORIES.pop(name, None)


def known(name: str = "") -> list[str]:
    """The backends a config may name: the built-in ones, those registered, and (read once, the
    first time ``name`` is not among those) those installed packages declare under
    ``ENTRY_POINT_GROUP``, registered by "module:attr" and imported only when used."""
    global _discovered
    if name not in _FACTORIES and not _discovered:
        _discovered = True
        from importlib.metadata import entry_points

        for point in entry_points(group=ENTRY_POINT_GROUP):
            _FACTORIES.setdefault(point.name, point.value)  # a registered backend is not replaced
    return list(_FACTORIES)


def open_backend(spec: ModelSpec, settings: Settings) -> Backend:
    known(spec.backend)  # an installed package's backend, named the first time
    factory = _FACTORIES.get(spec.backend)
    if factory is None:
        from ..errors import ConfigError

        raise ConfigError(f"unknown backend '{spec.backend}'; use one of {', '.join(known())}")
    if isinstance(factory, str):
        module, _, attr = factory.partition(":")
        factory = getattr(importlib.import_module(module), attr)
    return factory(spec, settings)


class PlannedBackend:
    """A backend's traits for a dry run. It refuses to be called: a dry run calls no model."""

    def __init__(self, spec: ModelSpec, settings: Settings):
        traits = profile(spec.backend)
        self.name = spec.backend
        self.model = spec.model or spec.backend
        self.accepts_temperature = traits.accepts_temperature
        self.price_provider = traits.price_provider
        self.constrained_decoding = traits.constrained_decoding
        self.context_window = traits.window(settings)

    def estimate_tokens(self, text: str) -> int:
        return rough_tokens(text)

    async def complete(self, request: ModelRequest, on_text=None) -> ModelReply:  # noqa: ANN001
        raise RuntimeError("a dry run must not call a model")

    async def aclose(self) -> None:
        return None


class BackendPool:
    """The backends of one trial, one per model spec, opened on first use and closed together.

    ``given`` maps a spec string (``"scripted"``, ``"anthropic:claude-sonnet-4-6"``) to a ready
    backend: tests and front ends use it to hand in a configured instance.
    """

    def __init__(self, settings: Settings, given: dict[str, Backend] | None = None, *, dry_run: bool = False,
                 pacer: Pacer | None = None, replies: Replies | None = None):
        self.settings = settings
        self.dry_run = dry_run
        self.replies = replies  # an earlier trial's replies, handed back for the same requests
        # the [throttle] every request through this pool keeps, each backend bounded by its profile
        self.pacer = pacer or Pacer(settings.throttle, lambda name: profile(name).bound(settings),
                                    lambda name: profile(name).spacing())
        self._given = dict(given or {})
        self._opened: dict[str, Backend] = {}

    def get(self, spec: ModelSpec) -> Backend:
        backend = self._get(spec)
        return Reusing(backend, self.replies) if self.replies is not None and not self.dry_run else backend

    def _get(self, spec: ModelSpec) -> Backend:
        key = str(spec)
        if key in self._given:
            return self._given[key]
        if spec.backend in self._given:
            return self._given[spec.backend]
        if key not in self._opened:
            self._opened[key] = PlannedBackend(spec, self.settings) if self.dry_run else open_backend(spec, self.settings)
        return self._opened[key]

    def preflight(self, specs: Iterable[ModelSpec]) -> None:
        """Check before a trial what can be checked without a call: the embedded model's weights
        are installed (a missing one is a setup error naming the install command) and a hosted
        model has its API key and an Ollama server an address (else no run is started, so none is
        left failed). A dry run needs no weights and no key, but an embedded model it cannot name
        is still refused: its plan would be for a trial that cannot run."""
        for spec in specs:
            if str(spec) in self._given or spec.backend in self._given:
                continue
            if self.dry_run:
                if spec.backend == "local":
                    from .local_models import resolve

                    resolve(spec.model or self.settings.local.model)  # a name in the catalog, or a .gguf that exists
                continue
            if spec.backend == "local":
                from .local_models import require

                require(spec.model or self.settings.local.model)
            elif spec.backend == "anthropic":
                from .anthropic import credentials

                credentials(f"anthropic:{spec.model or self.settings.anthropic.model}")
            elif spec.backend == "ollama":
                self.settings.ollama.resolved_host()  # a $OLLAMA_HOST that is no address

    async def aclose(self) -> None:
        for backend in self._opened.values():
            await backend.aclose()
        self._opened.clear()
