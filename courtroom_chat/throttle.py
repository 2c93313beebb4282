"""The throttle: at most a bound of model requests at once to each backend, their starts spaced.
Each is ``[throttle]``'s when set, else the backend's own (``BackendProfile.bound`` and
``spacing``): the embedded model's decoding slots, eight for an API server so a five-juror jury
goes out at once, four for an Ollama host, no limit for the scripted backend; 200 ms between
starts to a hosted API with rate limits (Anthropic), none to a server that batches or to the
embedded model.

One ``Pacer`` serves everything that shares a ``BackendPool``: a trial's courts (its mirror and
fragility re-trials and the evidence screener included) and, in ``courtroom eval``, every trial
and baseline call of the evaluation, so ``--workers`` never lifts the limit."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from .config import Throttle

T = TypeVar("T")


class Pacer:
    def __init__(self, throttle: Throttle, bound: Callable[[str], int] | None = None,
                 spacing: Callable[[str], float] | None = None):
        """``bound`` and ``spacing`` give a backend's limit and seconds between starts by its
        name when ``throttle`` does not set them (and with neither: 3 at once, 200 ms apart)."""
        self.throttle = throttle
        self._bound, self._backend_spacing = bound, spacing
        self._slots: dict[str, asyncio.Semaphore | None] = {}
        self._spacing = None if throttle.delay_ms is None else throttle.delay_ms / 1000
        self._next_start = 0.0

    def limit(self, backend: str) -> int:
        """Requests at once to ``backend``; 0: no limit."""
        if self.throttle.max_concurrency is not None:
            return self.throttle.max_concurrency
        return self._bound(backend) if self._bound is not None else 3

    def slots(self, backend: str) -> asyncio.Semaphore | None:
        if backend not in self._slots:
            limit = self.limit(backend)
            self._slots[backend] = asyncio.Semaphore(limit) if limit else None
        return self._slots[backend]

    def spacing(self, backend: str) -> float:
        if self._spacing is not None:
            return self._spacing
        return self._backend_spacing(backend) if self._backend_spacing is not None else 0.2

    async def run(self, start: Callable[[], Awaitable[T]], backend: str) -> T:
        """Start a request to ``backend`` (by its name) by calling ``start`` once the limits let it
        go, and await it. Taking the starter, not a coroutine made beforehand, means a request
        stopped while it waits here was never made (no coroutine left unawaited)."""
        spacing = self.spacing(backend)
        slots = self.slots(backend)
        if slots is None and not spacing:
            return await start()
        if slots is not None:
            await slots.acquire()
        try:
            if spacing:
                # Spaced from the actual start, not a planned one: a wake-up that comes late
                # (a loaded machine) must not leave the next start closer than the spacing.
                loop = asyncio.get_running_loop()
                while (wait := self._next_start - loop.time()) > 0:
                    await asyncio.sleep(wait)
                self._next_start = loop.time() + spacing
            return await start()
        finally:
            if slots is not None:
                slots.release()
