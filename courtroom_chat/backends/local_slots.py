"""Parallel decoding slots that share the case prefix.

llama.cpp decodes concurrent requests in one batch when each has a slot of its own, so five
jurors cost little more per step than one. But a fresh slot reads the whole prompt again (the
case block is most of it), which on a CPU costs more than the batching saves. ``SlotBook``
seats each request in a free slot and, when another slot already holds a longer shared
prefix, copies that slot's cached state into it first (llama.cpp's slot save and restore, on
the runtime's loopback endpoint: tens of milliseconds for a few thousand tokens). A request
whose best source is still reading its prompt waits for that prompt to be read, so the shared
part is read once.
"""

from __future__ import annotations

import itertools
import json
import shutil
import tempfile
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MIN_SHARED = 1000  # characters: below this, copying a slot's state saves less than it costs
WAIT_S = 600.0  # the longest a request waits for another slot to read the shared prefix


def prompt_text(body: dict[str, Any]) -> str:
    """The text a request's prompt is made of, to compare prefixes between requests."""
    return "\x00".join(str(m.get("content", "")) for m in body.get("messages", []))


def shared_length(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    step = 256
    while i < n and a[i:i + step] == b[i:i + step]:
        i += step
    while i < n and a[i] == b[i]:
        i += 1
    return min(i, n)


@dataclass
class Slot:
    number: int
    busy: bool = False
    ready: str = ""  # the prompt whose state this slot holds (read to its end)
    pending: str = ""  # the prompt it is reading now
    read: threading.Event = field(default_factory=threading.Event)


class Seat:
    def __init__(self, slot: Slot, text: str):
        self.slot_ref, self.text = slot, text
        self._started = False

    @property
    def slot(self) -> int:
        return self.slot_ref.number

    def started(self) -> None:
        """The first streamed chunk: the prompt is read, its state can be shared."""
        if not self._started:
            self._started = True
            self.slot_ref.ready, self.slot_ref.pending = self.text, ""
            self.slot_ref.read.set()


class SlotBook:
    def __init__(self, count: int):
        self.slots = [Slot(i) for i in range(count)]
        for slot in self.slots:
            slot.read.set()
        self.folder = Path(tempfile.mkdtemp(prefix="courtroom-slots-"))
        self.address = ""
        self.copies = self.failed = 0
        self._cond = threading.Condition()
        self._names = itertools.count()

    def _choose(self, text: str) -> tuple[Slot, Slot | None]:
        """A free slot for ``text`` (the one holding most of it), and a slot to copy from."""
        free = [s for s in self.slots if not s.busy]
        seat = max(free, key=lambda s: (shared_length(s.ready, text), -s.number))
        own = shared_length(seat.ready, text)
        best, source = own + MIN_SHARED, None
        for other in self.slots:  # ties go to the lowest slot: the one that read the prefix first
            if other is seat:
                continue
            held = shared_length(other.pending or other.ready, text)
            if held > best or held == best and source is None:
                best, source = held, other
        return seat, source

    @contextmanager
    def seat(self, body: dict[str, Any]) -> Iterator[Seat]:
        text = prompt_text(body)
        with self._cond:
            self._cond.wait_for(lambda: any(not s.busy for s in self.slots))
            slot, source = self._choose(text)
            slot.busy, slot.pending, slot.ready = True, text, ""
            slot.read.clear()
        seat = Seat(slot, text)
        try:
            if source is not None:
                source.read.wait(WAIT_S)  # the source finishes reading the shared prefix first
                if shared_length(source.ready, text) >= MIN_SHARED:
                    self._copy(source.number, slot.number)
            yield seat
        finally:
            if not seat._started:  # failed before its first token: its state is unknown
                slot.pending = ""
                slot.read.set()
            with self._cond:
                slot.busy = False
                self._cond.notify_all()

    def _copy(self, source: int, target: int) -> None:
        name = f"slot-{source}-to-{target}-{next(self._names)}.bin"
        try:
            self._post(f"/slots/{source}?action=save", {"filename": name})
            self._post(f"/slots/{target}?action=restore", {"filename": name})
            self.copies += 1
        except (OSError, ValueError):
            self.failed += 1  # the target reads the prompt itself, as it would without the copy
        finally:
            (self.folder / name).unlink(missing_ok=True)

    def _post(self, path: str, data: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(self.address + path, data=json.dumps(data).encode(), method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=WAIT_S) as response:  # loopback only
            return json.loads(response.read())

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
