"""What a chat user gives the court: a question, evidence, and settings.

Pure functions, no Chainlit: a message splits into the question and pasted evidence,
uploads become documents (or one-line rejections naming the file), and the chat settings
panel maps to ``Settings`` overrides, validated by the engine's own config rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import panel
from ..case import Document, document_from_bytes, pasted_document
from ..config import Limits, Settings
from ..errors import CaseError, ConfigError
from ..procedures import get as get_procedure

_QUESTION_START = re.compile(
    r"(?i)^(should|shall|can|could|may|must|do|does|did|is|are|was|will|would|have|has|ought)\b"
)

PRESETS: dict[str, str] = {  # chat settings label -> model spec for every role
    "Per role (below)": "",
    "Local (embedded model)": "local",
    "Claude (Anthropic API)": "anthropic",
    "Ollama (local server)": "ollama",
    "Scripted (offline demo)": "scripted",
}
PER_ROLE = "Per role (below)"


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


def settings_values(settings: Settings, procedure: str = "decision", dry_run: bool = False) -> dict[str, Any]:
    """The panel's values for ``settings`` (the initial values of a new chat): a model per role
    of the procedure, its parameters, the budget and dry run."""
    proc = get_procedure(procedure)
    return {
        "preset": PER_ROLE,
        **{f"model_{role.name}": str(settings.model_for(role.name)) for role in proc.roles},
        **{f"param_{f.key}": f.initial for f in panel.fields(settings.procedure_params(procedure))},
        "budget_usd": settings.budget.max_usd,
        "dry_run": dry_run,
        "mirror": False,
        "fragility": False,
    }


def checks(values: dict[str, Any]) -> dict[str, bool]:
    """The trial's checks of how far its verdict holds, as the panel sets them (``Trial``'s
    ``mirror`` and ``fragility``)."""
    return {"mirror": bool(values.get("mirror")), "fragility": bool(values.get("fragility"))}


def apply_values(base: Settings, values: dict[str, Any], procedure: str = "decision") -> Settings:
    """``base`` with the panel's values applied; a ``ConfigError`` names what is wrong."""
    proc = get_procedure(procedure)
    merged = {**settings_values(base, procedure), **{k: v for k, v in values.items() if v is not None and v != ""}}
    preset = PRESETS.get(str(merged["preset"]), "")
    chosen = {role.name: preset or str(merged[f"model_{role.name}"]).strip() for role in proc.roles}
    # Only what differs from the config is set, so the panel's values round-trip to the same settings.
    models = {role: spec for role, spec in chosen.items() if spec != str(base.model_for(role))}
    params = {}
    for item in panel.fields(base.procedure_params(procedure)):
        try:
            params[item.key] = panel.coerce(item, merged[f"param_{item.key}"])
        except ConfigError as exc:
            raise ConfigError(f"chat settings: {exc}") from None
    try:
        budget = float(merged["budget_usd"])
    except (TypeError, ValueError):
        raise ConfigError(f"chat settings: budget must be a number, got {merged['budget_usd']!r}") from None
    settings = base.with_overrides({"models": {**base.models, **models}, "budget": {"max_usd": budget}})
    return settings.with_params(procedure, params)


def widgets(values: dict[str, Any], procedure: str = "decision", settings: Settings | None = None) -> list[Any]:
    """The chat settings panel for ``procedure``, showing ``values``: its roles' models, then its
    parameters as sliders (bounded numbers), switches (flags) or text boxes."""
    from chainlit.input_widget import NumberInput, Select, Slider, Switch, TextInput

    proc = get_procedure(procedure)
    out: list[Any] = [
        Select(id="preset", label="Models", values=list(PRESETS), initial_value=str(values["preset"]),
               description="One backend for every role, or each role's model as set below."),
        *[TextInput(id=f"model_{role.name}", label=f"{role.title} model", initial=str(values[f"model_{role.name}"]),
                    placeholder="backend:model, e.g. anthropic:claude-sonnet-4-6 or ollama:llama3.2")
          for role in proc.roles],
    ]
    for item in panel.fields((settings or Settings()).procedure_params(procedure)):
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
        NumberInput(id="budget_usd", label="Budget cap per trial (USD, 0 = none)", initial=float(values["budget_usd"])),
        Switch(id="dry_run", label="Dry run: show each role's prompt and estimates, call no model",
               initial=bool(values["dry_run"])),
        Switch(id="mirror", label="Mirror check: also try the negated question with the sides swapped (a second trial)",
               initial=bool(values.get("mirror"))),
        Switch(id="fragility", label="Fragility check: decide again without the evidence the verdict rests on most",
               initial=bool(values.get("fragility"))),
    ]
    return out
