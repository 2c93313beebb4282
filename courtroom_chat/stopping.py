"""Stopping by a signal as by Ctrl-C: SIGTERM (``kill``, a service manager) and SIGHUP (a closed
terminal) cancel the running trial or evaluation, which saves what it has (a trial its partial
record, an evaluation every finished item) exactly as Ctrl-C does, then ``Stopped`` is raised.
Before, either signal ended the process at once and left no record (issue 83, item 3)."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")
SIGNALS = tuple(s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s is not None)


class Stopped(KeyboardInterrupt):
    """The work was stopped by a signal; ``exit_code`` is the shell's 128 + its number."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.exit_code = 128 + signum


def run(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)``, where SIGTERM and SIGHUP cancel ``coro`` and then raise ``Stopped``
    (Ctrl-C keeps asyncio's own handling: cancelled, then KeyboardInterrupt)."""

    async def main() -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None
        got: list[int] = []

        def stop(signum: int) -> None:
            got.append(signum)
            task.cancel()

        installed = []
        for signum in SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # not the main thread
                loop.add_signal_handler(signum, stop, signum)
                installed.append(signum)
        try:
            return await coro
        except asyncio.CancelledError:
            if got:
                raise Stopped(got[0]) from None
            raise
        finally:
            for signum in installed:
                loop.remove_signal_handler(signum)

    return asyncio.run(main())
