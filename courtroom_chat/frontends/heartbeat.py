"""A sign of life while a model works (issue 86, item 1): which agents are working, for how long,
how many tokens they have written and at what speed, and the trial's elapsed time.

On a terminal the line is redrawn in place every second and cleared before any other line is
printed; piped or logged (no terminal), a line is printed every ``every`` seconds, so a log shows
the run is alive without a line a second. The events feed it; a thread draws it."""

from __future__ import annotations

import shutil
import sys
import threading
import time
from typing import Any, TextIO

from ..backends.base import CHARS_PER_TOKEN


class Heartbeat:
    def __init__(self, stream: TextIO | None = None, *, every: float | None = None, clock: Any = time.monotonic):
        self.stream = stream or sys.stderr
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())
        self.every = every if every is not None else (1.0 if self.live else 30.0)
        self.clock = clock
        self.started = clock()
        self.working: dict[str, list[float]] = {}  # agent -> [started, characters written]
        self.lock = threading.RLock()
        self.shown = False  # a live line is on screen
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ events

    def saw(self, event: Any) -> None:
        kind = event.type
        with self.lock:
            if kind == "agent_started":
                self.working[event.agent] = [self.clock(), 0.0]
            elif kind == "text_delta" and event.agent in self.working:
                self.working[event.agent][1] += len(event.text)
            elif kind == "agent_retry" and event.agent in self.working:
                self.working[event.agent] = [self.clock(), 0.0]  # a new attempt, timed from its start
            elif kind in ("agent_finished", "agent_failed"):
                self.working.pop(event.agent, None)

    # ------------------------------------------------------------------ the line

    def line(self) -> str:
        """What is working now: "⏳ 1:42 · judge 38 s, ≈212 tokens (5.6/s) · juror-2 4 s, starting"."""
        now = self.clock()
        with self.lock:
            parts = []
            for agent, (since, chars) in list(self.working.items())[:3]:
                spent = now - since
                tokens = int(chars / CHARS_PER_TOKEN)
                said = (f"≈{tokens:,} tokens ({tokens / spent:.1f}/s)" if tokens and spent > 0
                        else "reading the case")
                parts.append(f"{agent} {spent:.0f} s, {said}")
            more = len(self.working) - len(parts)
        if more > 0:
            parts.append(f"{more} more")
        elapsed = int(now - self.started)
        return f"⏳ {elapsed // 60}:{elapsed % 60:02d} · " + (" · ".join(parts) if parts else "between stages")

    def beat(self) -> None:
        """Draw the line: in place on a terminal, as a new line otherwise."""
        text = self.line()
        with self.lock:
            if self.live:
                width = shutil.get_terminal_size((200, 20)).columns - 1
                self.stream.write("\r\x1b[K" + text[:width])
                self.shown = True
            else:
                self.stream.write(text + "\n")
            self.stream.flush()

    def clear(self) -> None:
        """Take the live line off the screen before another line is printed."""
        with self.lock:
            if self.shown:
                self.stream.write("\r\x1b[K")
                self.stream.flush()
                self.shown = False

    # ------------------------------------------------------------------ the thread

    def start(self) -> None:
        def run() -> None:
            while not self._stop.wait(self.every):
                self.beat()

        self._thread = threading.Thread(target=run, name="courtroom-heartbeat", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self.clear()
