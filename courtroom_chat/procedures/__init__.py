"""Courtroom procedures, by name. Front ends list them (chat profiles, CLI ``--procedure``).

Each procedure is a module with a class following ``base.Procedure``; it is imported only
when used. The decision court is the first; the supreme court, criminal trial,
classification court and retrieval bench register here the same way.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from ..errors import ConfigError
from .base import Procedure


@dataclass(frozen=True)
class ProcedureInfo:
    name: str
    title: str
    description: str
    target: str  # "module:Class"


_REGISTRY: dict[str, ProcedureInfo] = {
    "decision": ProcedureInfo(
        "decision", "Decision court",
        "A prosecutor argues for acting, a defense against; quotes are verified; a jury votes and a judge rules.",
        "courtroom_chat.procedures.decision:DecisionCourt",
    ),
}


def register(info: ProcedureInfo) -> None:
    _REGISTRY[info.name] = info


def available() -> list[ProcedureInfo]:
    return list(_REGISTRY.values())


def get(name: str) -> Procedure:
    info = _REGISTRY.get(name)
    if info is None:
        raise ConfigError(f"unknown procedure '{name}'; available: {', '.join(_REGISTRY)}")
    module, _, attr = info.target.partition(":")
    return getattr(importlib.import_module(module), attr)()
