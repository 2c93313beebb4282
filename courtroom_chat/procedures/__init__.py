"""Courtroom procedures, by name. Front ends list them (chat profiles, CLI ``--procedure``).

Each procedure is a module (or package) with a class extending ``base.Procedure``. The
built-in ones are named below by "module:Class" and imported only when used; any other module
or package put in this folder is found with no edit here (``discover_folder``); an installed
package adds its own through an entry point (``discover``); code may ``register`` one.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, replace
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
    # The installed package a plugin procedure came from (``discover``); "" for one registered in code.
    origin: str = ""


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


# The procedures this package ships. Their roles read the plain [models] keys (``judge``), as
# every config before procedure tables did; any other procedure's role reads a plain key only
# where no built-in role has that name (``reads_plain_keys``), and [models.<procedure>] always.
BUILT_IN = tuple(_REGISTRY)


DEFAULT_ASK = ("Ask a **yes/no question** (\u201cShould I merge PR #214 now?\u201d) and attach your evidence: text, "
               "Markdown, code, diffs, JSON, CSV or PDF.")


def asking(name: str) -> str:
    """What a person types to put a case to this procedure, in Markdown, for every front end's form:
    its own ``ask``, else a yes/no question and its evidence."""
    info = _registry().get(name)
    return (info.ask if info else "") or DEFAULT_ASK


def register(info: ProcedureInfo) -> None:
    _registry()[info.name] = info
    _load.cache_clear()


def unregister(name: str) -> None:
    _registry().pop(name, None)
    _load.cache_clear()


# Installed packages add procedures under this entry-point group, each named by the procedure's
# name and pointing at its Procedure subclass (or a ProcedureInfo):
#     [project.entry-points."courtroom_chat.procedures"]
#     justices = "my_court.justices:ThreeJustices"
# Every front end then offers it as it offers the built-in ones.
ENTRY_POINT_GROUP = "courtroom_chat.procedures"
PLUGIN_PROBLEMS: list[str] = []  # one line per installed plugin that could not be added (also logged as a warning)
_discovered = False


def _registry() -> dict[str, ProcedureInfo]:
    """The registry, with the installed packages' procedures added on first use."""
    global _discovered
    if not _discovered:
        _discovered = True
        discover()
    return _REGISTRY


def discover_folder() -> list[str]:
    """Register the procedures of every module and package in this folder the table above does
    not name: the ``ProcedureInfo`` it defines at its top level, else each ``Procedure`` subclass
    it defines with a ``name`` (a helper module, ``deliberation``, defines neither). One that
    cannot be imported, or would replace a registered procedure, is one line, as a plugin's is."""
    import pkgutil

    problems: list[str] = []
    named = {info.target.partition(":")[0] for info in _REGISTRY.values() if isinstance(info.target, str)}
    for found in pkgutil.iter_modules(__path__):
        module_name = f"{__name__}.{found.name}"
        if found.name.startswith("_") or module_name in named:
            continue
        where = f"procedure module '{found.name}' (in the procedures folder)"
        try:
            module = importlib.import_module(module_name)
        except Exception as exc:  # a module's own error, whatever it is, must not stop the tool
            problems.append(f"{where} could not be imported: {type(exc).__name__}: {exc}; fix or remove it")
            continue
        infos = [v for v in vars(module).values() if isinstance(v, ProcedureInfo)] or [
            ProcedureInfo(v.name, v.title, v.description, v) for v in vars(module).values()
            if isinstance(v, type) and issubclass(v, Procedure) and "name" in vars(v)
            and (v.__module__ == module_name or v.__module__.startswith(f"{module_name}."))]
        for info in infos:
            known = _REGISTRY.get(info.name)
            if known is not None and known.target is not info.target:
                problems.append(f"{where} would replace the registered procedure '{info.name}' ({known.title}); "
                                "left out")
                continue
            _REGISTRY[info.name] = info
    return problems


def discover() -> list[str]:
    """Register the procedures of this folder's own modules (``discover_folder``), then every
    procedure installed packages declare under ``ENTRY_POINT_GROUP``. A plugin
    that cannot be loaded, names a procedure already registered or points at something that is
    no procedure is left out, with one line saying why (logged, and kept in ``PLUGIN_PROBLEMS``);
    it never stops the built-in procedures from working. Returns this call's problems."""
    import logging
    from importlib.metadata import entry_points

    problems: list[str] = discover_folder()
    for point in entry_points(group=ENTRY_POINT_GROUP):
        where = f"procedure plugin '{point.name}' ({point.value}, from {point.dist.name if point.dist else 'an unknown package'})"
        try:
            target = point.load()
        except Exception as exc:  # a plugin's own error, whatever it is, must not stop the tool
            problems.append(f"{where} could not be loaded: {type(exc).__name__}: {exc}; reinstall or remove that package")
            continue
        if isinstance(target, type) and issubclass(target, Procedure):
            info = ProcedureInfo(point.name, target.title, target.description, target)
        elif isinstance(target, ProcedureInfo):
            info = target
        else:
            problems.append(f"{where} points at a {type(target).__name__}, not a Procedure subclass or a ProcedureInfo; "
                            "left out")
            continue
        declared = info.target.name if isinstance(info.target, type) else info.name
        if info.name != point.name or declared != point.name:
            problems.append(f"{where} is named '{point.name}' but its procedure is named '{declared}'; left out "
                            "(the entry point's name must be the procedure's)")
            continue
        known = _REGISTRY.get(info.name)
        if known is not None and known.target in (info.target, point.value):  # the plugin registered itself on import
            continue
        if known is not None:
            problems.append(f"{where} would replace the registered procedure '{info.name}' ({known.title}); left out")
            continue
        _REGISTRY[info.name] = replace(info, origin=point.dist.name) if point.dist and not info.origin else info
    _load.cache_clear()
    for problem in problems:
        logging.getLogger(__name__).warning(problem)
    PLUGIN_PROBLEMS.extend(problems)
    return problems


def available() -> list[ProcedureInfo]:
    return list(_registry().values())


@cache
def _load(name: str) -> type[Procedure]:
    info = _registry()[name]
    if not isinstance(info.target, str):
        return info.target
    module, _, attr = info.target.partition(":")
    return getattr(importlib.import_module(module), attr)


def get(name: str) -> Procedure:
    if name not in _registry():
        raise ConfigError(f"unknown procedure '{name}'; available: {', '.join(_registry())} (see `courtroom procedures`)")
    return _load(name)()


def read_case_file(path: Any, data: Any) -> Any:
    """A case from a JSON file no procedure-neutral reader knows, read by the first registered
    procedure that recognises its format (``Procedure.read_case``); None if none does."""
    for name in _registry():
        case = _load(name).read_case(path, data)
        if case is not None:
            return case
    return None


def parameters_model(name: str) -> Any:
    """The pydantic model of [procedures.<name>]."""
    if name not in _registry():
        raise ValueError(f"[procedures.{name}] names no procedure; available: {', '.join(_registry())}")
    return _load(name).Parameters


# Roles the court itself seats for every procedure: the evidence screener (screening.py).
COURT_ROLES = ("screener",)


def known_roles() -> set[str]:
    """Every role name and alias any registered procedure declares, and the court's own
    ([models] keys)."""
    out: set[str] = set(COURT_ROLES)
    for name in _registry():
        for role in _load(name).roles:
            out |= {role.name, *role.aliases}
    return out


def declared_by(role: str) -> str:
    """The first registered procedure that declares ``role`` (or an alias of it), else ""."""
    return next((name for name in _registry() if _load(name)().role(role) is not None), "")


def role_keys(role: str, procedure: str = "") -> list[str]:
    """The [models] keys that may name ``role``'s model: the role, then its aliases, as
    ``procedure`` declares it (else as the first registered procedure that declares it does)."""
    name = procedure if procedure in _registry() else declared_by(role)
    found = _load(name)().role(role) if name else None
    return [found.name, *found.aliases] if found is not None else [role]


def procedure_roles(procedure: str) -> set[str]:
    """The keys ``[models.<procedure>]`` may hold: its roles and their aliases, and ``default``
    (the court's own roles, the screener's, are set in [models] for every procedure)."""
    return {"default", *(k for r in _load(procedure).roles for k in (r.name, *r.aliases))}


def reads_plain_keys(procedure: str, keys: list[str]) -> bool:
    """Whether ``procedure``'s role, named by ``keys``, reads the plain [models] keys: a built-in
    procedure's does (configs written before procedure tables keep working), and another's only
    where no built-in role has that name, so a plugin's ``judge`` never takes the decision
    court's judge model."""
    if not procedure or procedure in BUILT_IN:
        return True
    taken = {k for name in BUILT_IN if name in _registry() for r in _load(name).roles for k in (r.name, *r.aliases)}
    return not taken & set(keys)


__all__ = ["BUILT_IN", "COURT_ROLES", "ENTRY_POINT_GROUP", "PLUGIN_PROBLEMS", "Procedure", "ProcedureInfo", "Role", "available", "declared_by", "discover", "discover_folder", "get", "known_roles", "parameters_model", "procedure_roles", "read_case_file",
           "reads_plain_keys", "register", "role_keys", "unregister"]
