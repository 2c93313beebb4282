"""courtroom-chat: put a yes/no question on trial.

    import courtroom_chat
    record = courtroom_chat.run_sync("cases/essay-publish.json", backend="scripted")
    print(record.verdict.answer)
    record = courtroom_chat.run_sync("Should I merge PR 9?", evidence=["pr.diff"])  # the question itself

Names are imported lazily so that ``courtroom --help`` starts fast.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

_LAZY = {
    "run": "courtroom_chat.engine",
    "run_sync": "courtroom_chat.engine",
    "Trial": "courtroom_chat.engine",
    "Case": "courtroom_chat.case",
    "load_case": "courtroom_chat.case",
    "Settings": "courtroom_chat.config",
    "load_settings": "courtroom_chat.config",
    "RunRecord": "courtroom_chat.records",
    "RunStore": "courtroom_chat.store",
    "CourtroomError": "courtroom_chat.errors",
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    if name in ("runs", "notebook"):
        return import_module(f"courtroom_chat.{name}")
    raise AttributeError(f"module 'courtroom_chat' has no attribute {name!r}")
