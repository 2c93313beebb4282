"""Helpers for the notebook tests: uploads as a browser sends them, and waiting on the loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ESSAY = ROOT / "cases" / "essay-publish.json"
NOTEBOOKS = ROOT / "notebooks"
OUTPUT = ROOT / "tests" / "output"


def upload_item(name: str, data: bytes, mime: str = "text/plain", *, view: bool = True) -> dict[str, Any]:
    """One file as the browser's FileUpload sends it (the content arrives as a memoryview)."""
    return {"name": name, "type": mime, "size": len(data), "content": memoryview(data) if view else data,
            "last_modified": 1_700_000_000_000}


async def until(predicate: Callable[[], bool], timeout: float = 10.0, what: str = "condition") -> None:
    """Let the loop run until ``predicate()`` holds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.01)
