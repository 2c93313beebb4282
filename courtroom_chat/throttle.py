"""The throttle: at most ``[throttle] max_concurrency`` model requests at once, their starts
spaced by ``delay_ms`` (by default DEFAULT_DELAY_MS to a model backend and none to the scripted
one, which calls no service).

One ``Pacer`` serves everything that shares a ``BackendPool``: a trial's courts (its mirror and
fragility re-trials and the evidence screener included) and, in ``courtroom eval``, every trial
and baseline call of the evaluation, so ``--workers`` never lifts the limit."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from .config import DEFAULT_DELAY_MS, Throttle

T = TypeVar("T")


class Pacer:
    def __init__(self, throttle: Throttle):
        self.throttle = throttle
        self._slots = asyncio.Semaphore(throttle.max_concurrency) if throttle.max_concurrency else None
        self._spacing = None if throttle.delay_ms is None else throttle.delay_ms / 1000
        self._next_start = 0.0

    def spacing(self, backend: str) -> float:
        if self._spacing is not None:
            return self._spacing
        return 0.0 if backend == "scripted" else DEFAULT_DELAY_MS / 1000

    async def run(self, start: Callable[[], Awaitable[T]], backend: str) -> T:
        """Start a request to ``backend`` (by its name) by calling ``start`` once the limits let it
        go, and await it. Taking the starter, not a coroutine made beforehand, means a request
        stopped while it waits here was never made (no coroutine left unawaited)."""
        spacing = self.spacing(backend)
        if self._slots is None and not spacing:
            return await start()
        if self._slots is not None:
            await self._slots.acquire()
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
            if self._slots is not None:
                self._slots.release()
