"""What a chat user gives the court: a question, evidence, and settings.

Pure functions, no Chainlit: a message splits into the question and pasted evidence,
uploads become documents (or one-line rejections naming the file), and the chat settings
panel maps to ``Settings`` overrides, validated by the engine's own config rules.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import panel
from ..case import Document, document_from_bytes, pasted_document
from ..config import Limits, ModelSpec, Settings
from ..errors import CaseError, ConfigError
from ..procedures import get as get_procedure

_QUESTION_START = re.compile(
    r"(?i)^(should|shall|can|could|may|must|do|does|did|is|are|was|will|would|have|has|ought)\b"
)

PER_ROLE = "Per role (below)"  # the "Models" choice that keeps each role's own model


def split_message(text: str) -> tuple[str | None, str | None]:
    """(question, pasted evidence). The first line is the question when it reads as one;
    whatever follows it is evidence. Several lines with no question are all evidence."""
    text = (text or "").strip()
    if not text:
        return None, None
    first, _, rest = text.partition("\n")
    first, rest = first.strip(), rest.strip("\n")
    if first.endswith("?") or _QUESTION_START.match(first):
        return first, rest if rest.strip() else None
    if not rest.strip() and len(first) <= 300:
        return first, None
    return None, text


@dataclass
class Evidence:
    documents: list[Document] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)  # one line each, naming the file

    def extend(self, other: Evidence) -> None:
        self.documents += other.documents
        self.rejected += other.rejected


def read_uploads(files: list[tuple[str, str | Path]], limits: Limits, already: int = 0,
                 taken: set[str] | frozenset[str] = frozenset()) -> Evidence:
    """Uploaded files (name, path on disk) -> documents; each unusable file is named with its
    reason. A name is the file's own (no folders, "../x.txt" is "x.txt"), and a name already
    used (``taken``, or earlier in the batch) gets a number, so every exhibit names one file."""
    out = Evidence()
    used = set(taken)
    for name, path in files:
        name = Path(str(name).replace("\\", "/")).name or "upload.txt"
        if name in used:
            stem, suffix = Path(name).stem, Path(name).suffix
            name = next(f"{stem} ({n}){suffix}" for n in range(2, 10_000) if f"{stem} ({n}){suffix}" not in used)
        used.add(name)
        if already + len(out.documents) >= limits.max_files:
            out.rejected.append(f"{name} was not read: a case takes at most {limits.max_files} evidence files")
            continue
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            out.rejected.append(f"{name} could not be read ({exc.strerror or exc})")
            continue
        try:
            out.documents.append(document_from_bytes(name, data, limits))
        except CaseError as exc:
            out.rejected.append(str(exc))
    return out


def pasted(text: str | None, index: int, limits: Limits) -> Evidence:
    """Text pasted into the message as evidence, or the reason it is refused (over the size limit)."""
    if not text or not text.strip():
        return Evidence()
    try:
        return Evidence([pasted_document(text, index, limits)])
    except CaseError as exc:
        return Evidence(rejected=[str(exc)])


# ---------------------------------------------------------------- settings panel


def offered_models(settings: Settings, procedure: str = "decision") -> list[str]:
    """The models a chat user may choose, for any role: what the operator's config names ([models],
    each role's model, [chat] models) and the scripted demo. Nothing typed by a chat user is
    ever a model, so no path on the server can be named from the chat."""
    specs = [str(settings.model_for(role.name, procedure)) for role in get_procedure(procedure).roles]
    specs += [str(ModelSpec.parse(v).resolved(settings)) for v in settings.model_specs()]
    specs += [str(ModelSpec.parse(v).resolved(settings)) for v in settings.chat.models]
    return list(dict.fromkeys([*specs, "scripted"]))


def settings_values(settings: Settings, procedure: str = "decision", dry_run: bool = False) -> dict[str, Any]:
    """The panel's values for ``settings`` (the initial values of a new chat): a model per role
    of the procedure, its parameters, the budget and dry run."""
    proc = get_procedure(procedure)
    return {
        "preset": PER_ROLE,
        **{f"model_{role.name}": str(settings.model_for(role.name, procedure)) for role in proc.roles},
        **{f"param_{f.key}": f.initial for f in panel.fields(settings.procedure_params(procedure), chat=True)},
        "budget_usd": settings.budget.max_usd,
        "dry_run": dry_run,
        "mirror": False,
        "fragility": False,
    }


def checks(values: dict[str, Any]) -> dict[str, bool]:
    """The trial's checks of how far its verdict holds, as the panel sets them (``Trial``'s
    ``mirror`` and ``fragility``)."""
    return {"mirror": bool(values.get("mirror")), "fragility": bool(values.get("fragility"))}


def chat_budget(base: Settings, value: Any) -> float:
    """A chat user's budget cap: a number, at most the operator's ``[budget] max_usd``; "no cap"
    (0) only where the operator set none."""
    try:
        budget = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"chat settings: budget must be a number, got {value!r}") from None
    if not math.isfinite(budget) or budget < 0:
        raise ConfigError(f"chat settings: budget must be a positive number of dollars, got {value!r}")
    cap = base.budget.max_usd
    if cap and (budget == 0 or budget > cap):
        raise ConfigError(f"chat settings: the budget cap can be at most ${cap:g} per trial, the operator's "
                          f"limit ([budget] max_usd in config.toml); give a number from 0.01 to {cap:g}")
    return budget


def apply_values(base: Settings, values: dict[str, Any], procedure: str = "decision") -> Settings:
    """``base`` (the operator's config) with a chat user's panel values applied; a ``ConfigError``
    names what is wrong. The user chooses among ``offered_models`` and a budget within the
    operator's cap, and never sets what only the operator sets (a model or a file on the server)."""
    proc = get_procedure(procedure)
    offered = offered_models(base, procedure)
    params = base.procedure_params(procedure)
    params_all = panel.fields(params)
    allowed = {f.key for f in panel.fields(params, chat=True)}
    for item in params_all:
        value = values.get(f"param_{item.key}")
        if item.key not in allowed and value not in (None, "", item.initial):
            raise ConfigError(f"chat settings: {item.key} is set by the operator in config.toml, not in the chat")
    merged = {**settings_values(base, procedure), **{k: v for k, v in values.items() if v is not None and v != ""}}
    preset = str(merged["preset"]).strip()
    if preset != PER_ROLE and preset not in offered:
        raise ConfigError(f"chat settings: model '{preset}' is not offered here; choose one of {', '.join(offered)} "
                          "(the operator adds models in config.toml [chat] models)")
    chosen = {role.name: preset if preset != PER_ROLE else str(merged[f"model_{role.name}"]).strip()
              for role in proc.roles}
    for role, spec in chosen.items():
        if spec not in offered:
            raise ConfigError(f"chat settings: the {role}'s model '{spec}' is not offered here; choose one of "
                              f"{', '.join(offered)} (the operator adds models in config.toml [chat] models)")
    # Only what differs from the config is set, so the panel's values round-trip to the same settings.
    models = {role: spec for role, spec in chosen.items() if spec != str(base.model_for(role, procedure))}
    chosen_params = {}
    for item in params_all:
        if item.key in allowed:
            try:
                chosen_params[item.key] = panel.coerce(item, merged[f"param_{item.key}"])
            except ConfigError as exc:
                raise ConfigError(f"chat settings: {exc}") from None
    budget = chat_budget(base, merged["budget_usd"])
    settings = base.with_models(procedure, models) if models else base
    settings = settings.with_overrides({"budget": {"max_usd": budget}})
    return settings.with_params(procedure, chosen_params)


def widgets(values: dict[str, Any], procedure: str = "decision", settings: Settings | None = None) -> list[Any]:
    """The chat settings panel for ``procedure``, showing ``values``: its roles' models, then its
    parameters as sliders (bounded numbers), switches (flags) or text boxes."""
    from chainlit.input_widget import NumberInput, Select, Slider, Switch, TextInput

    proc = get_procedure(procedure)
    base = settings or Settings()
    offered = offered_models(base, procedure)

    def pick(value: Any) -> str:
        return str(value) if str(value) in offered else offered[0]

    out: list[Any] = [
        Select(id="preset", label="Models", values=[PER_ROLE, *offered],
               initial_value=str(values["preset"]) if str(values["preset"]) in offered else PER_ROLE,
               description="One model for every role, or each role's model as set below. The operator's "
                           "config.toml lists the models on offer ([chat] models); scripted is the offline demo."),
        *[Select(id=f"model_{role.name}", label=f"{role.title} model", values=offered,
                 initial_value=pick(values[f"model_{role.name}"]))
          for role in proc.roles],
    ]
    for item in panel.fields(base.procedure_params(procedure), chat=True):
        key, value = f"param_{item.key}", values.get(f"param_{item.key}", item.initial)
        if item.kind == "switch":
            out.append(Switch(id=key, label=item.label, initial=bool(value)))
        elif item.kind == "select":
            out.append(Select(id=key, label=item.label, values=list(item.choices), initial_value=str(value)))
        elif item.kind == "slider":
            out.append(Slider(id=key, label=item.label, initial=value, min=item.low, max=item.high, step=item.step))
        else:
            out.append(TextInput(id=key, label=item.label, initial=str(value)))
    out += [
        NumberInput(id="budget_usd", initial=float(values["budget_usd"]),
                    label=(f"Budget cap per trial (USD, at most {base.budget.max_usd:g})" if base.budget.max_usd
                           else "Budget cap per trial (USD, 0 = none)")),
        Switch(id="dry_run", label="Dry run: show each role's prompt and estimates, call no model",
               initial=bool(values["dry_run"])),
        Switch(id="mirror", label="Mirror check: also try the negated question with the sides swapped (a second trial)",
               initial=bool(values.get("mirror"))),
        Switch(id="fragility", label="Fragility check: decide again without the evidence the verdict rests on most",
               initial=bool(values.get("fragility"))),
    ]
    return out
