"""Courtroom procedures, by name. Front ends list them (chat profiles, CLI ``--procedure``).

Each procedure is a module (or package) with a class extending ``base.Procedure``,
registered here by "module:Class" and imported only when used. The built-in ones register
exactly as a plugin would: ``register(ProcedureInfo(...))``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..errors import ConfigError
from .base import Procedure, Role


@dataclass(frozen=True)
class ProcedureInfo:
    name: str
    title: str
    description: str
    target: str | type[Procedure]  # "module:Class", or the class itself
    # What a person types to put a case to it, in Markdown and in no front end's terms (the
    # chat's welcome, the notebook's line above the question; ``asking``); "": a yes/no question
    # and its evidence, as the decision court takes them.
    ask: str = ""


_REGISTRY: dict[str, ProcedureInfo] = {
    "decision": ProcedureInfo(
        "decision", "Decision court",
        "A prosecutor argues for acting, a defense against; quotes are verified; a jury votes and a judge rules.",
        "courtroom_chat.procedures.decision:DecisionCourt",
    ),
    "classification": ProcedureInfo(
        "classification", "Classification court",
        "A hearing proposes two labels; counsels on randomly drawn sides argue them with verified quotes; "
        "judges decide in parallel or in sequence, with precedents.",
        "courtroom_chat.procedures.classification:ClassificationCourt",
        "Name the **labels** in the question (\u201cWhich emotion does the text express: sadness, joy, anger or "
        "fear?\u201d) and paste the **text** to classify under it, or attach it.",
    ),
    "criminal": ProcedureInfo(
        "criminal", "Criminal trial",
        "A criminal trial in five stages (preparation, investigation, evidence, debate, final statement) "
        "with the stenographer's record and a written judgment: charge, prison term, fine, probation.",
        "courtroom_chat.procedures.criminal:CriminalTrial",
        "State the **charge** (\u201cIs Tom Reed guilty of the burglary at 12 Elm Street?\u201d) and attach the case "
        "documents: police report, statements, the defendant's account. They become the prosecution's "
        "evidence. A question of what you should do belongs to the *Decision court*.",
    ),
    "supreme": ProcedureInfo(
        "supreme", "Supreme court",
        "Justices from a spectrum of judicial philosophies write opinions, then confer anonymously; a jury decides "
        "the facts; a why trace quotes and verifies every fact. For trial transcripts (criminal or civil).",
        "courtroom_chat.procedures.supreme:SupremeCourt",
        "Ask about the case (\u201cIs the defendant guilty of burglary?\u201d, \u201cIs the landlord liable for the "
        "injury?\u201d) and attach its **trial transcript**: JSON shaped like cases/burglary/transcript.json, "
        "or plain text.",
    ),
    "samvad": ProcedureInfo(
        "samvad", "Retrieval-grounded bench",
        "A judge and two counsels cite statutes retrieved from a legal knowledge base (Indian law), every citation "
        "checked; a bench of adjudicators deliberates in rounds until consensus, or is hung.",
        "courtroom_chat.procedures.samvad:SamvadBench",
        "State the **charge** (\u201cIs Dana Whitlock guilty of theft of the laptop?\u201d) and attach the case "
        "documents; the bench cites Indian statutes from its knowledge base.",
    ),
}


DEFAULT_ASK = ("Ask a **yes/no question** (\u201cShould I merge PR #214 now?\u201d) and attach your evidence: text, "
               "Markdown, code, diffs, JSON, CSV or PDF.")


def asking(name: str) -> str:
    """What a person types to put a case to this procedure, in Markdown, for every front end's form:
    its own ``ask``, else a yes/no question and its evidence."""
    info = _REGISTRY.get(name)
    return (info.ask if info else "") or DEFAULT_ASK


def register(info: ProcedureInfo) -> None:
    _REGISTRY[info.name] = info
    _load.cache_clear()


def unregister(name: str) -> None:
    _REGISTRY.pop(name, None)
    _load.cache_clear()


def available() -> list[ProcedureInfo]:
    return list(_REGISTRY.values())


@cache
def _load(name: str) -> type[Procedure]:
    info = _REGISTRY[name]
    if not isinstance(info.target, str):
        return info.target
    module, _, attr = info.target.partition(":")
    return getattr(importlib.import_module(module), attr)


def get(name: str) -> Procedure:
    if name not in _REGISTRY:
        raise ConfigError(f"unknown procedure '{name}'; available: {', '.join(_REGISTRY)} (see `courtroom procedures`)")
    return _load(name)()


def read_case_file(path: Any, data: Any) -> Any:
    """A case from a JSON file no procedure-neutral reader knows, read by the first registered
    procedure that recognises its format (``Procedure.read_case``); None if none does."""
    for name in _REGISTRY:
        case = _load(name).read_case(path, data)
        if case is not None:
            return case
    return None


def parameters_model(name: str) -> Any:
    """The pydantic model of [procedures.<name>]."""
    if name not in _REGISTRY:
        raise ValueError(f"[procedures.{name}] names no procedure; available: {', '.join(_REGISTRY)}")
    return _load(name).Parameters


# Roles the court itself seats for every procedure: the evidence screener (screening.py).
COURT_ROLES = ("screener",)


def known_roles() -> set[str]:
    """Every role name and alias any registered procedure declares, and the court's own
    ([models] keys)."""
    out: set[str] = set(COURT_ROLES)
    for name in _REGISTRY:
        for role in _load(name).roles:
            out |= {role.name, *role.aliases}
    return out


def role_keys(role: str) -> list[str]:
    """The [models] keys that may name ``role``'s model: the role, then its aliases."""
    for name in _REGISTRY:
        found = _load(name)().role(role)
        if found is not None:
            return [found.name, *found.aliases]
    return [role]


__all__ = ["COURT_ROLES", "Procedure", "ProcedureInfo", "Role", "available", "get", "known_roles", "parameters_model", "read_case_file", "register",
           "role_keys", "unregister"]
