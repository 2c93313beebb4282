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

from ..case import Document, document_from_bytes, pasted_document
from ..config import ROLES, Limits, Settings
from ..errors import CaseError, ConfigError

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
ROLE_LABELS = {"prosecutor": "Prosecutor model", "defense": "Defense model", "jury": "Jury model",
               "judge": "Judge model"}


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


def read_uploads(files: list[tuple[str, str | Path]], limits: Limits, already: int = 0) -> Evidence:
    """Uploaded files (name, path on disk) -> documents; each unusable file is named with its reason."""
    out = Evidence()
    for name, path in files:
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


def pasted(text: str | None, index: int) -> Evidence:
    return Evidence([pasted_document(text, index)]) if text and text.strip() else Evidence()


# ---------------------------------------------------------------- settings panel


def settings_values(settings: Settings, dry_run: bool = False) -> dict[str, Any]:
    """The panel's values for ``settings`` (the initial values of a new chat)."""
    p = settings.parameters
    return {
        "preset": PER_ROLE,
        **{f"model_{role}": getattr(settings.models, role) for role in ROLES},
        "jury_size": p.jury_size,
        "jury_threshold": p.jury_threshold,
        "juror_temperature_min": p.juror_temperature_min,
        "juror_temperature_max": p.juror_temperature_max,
        "budget_usd": settings.budget.max_usd,
        "dry_run": dry_run,
    }


def apply_values(base: Settings, values: dict[str, Any]) -> Settings:
    """``base`` with the panel's values applied; a ``ConfigError`` names what is wrong."""
    merged = {**settings_values(base), **{k: v for k, v in values.items() if v is not None and v != ""}}
    preset = PRESETS.get(str(merged["preset"]), "")
    models = {role: preset or str(merged[f"model_{role}"]).strip() or getattr(base.models, role) for role in ROLES}

    def number(key: str, kind: type) -> Any:
        try:
            value = float(merged[key])
        except (TypeError, ValueError):
            raise ConfigError(f"chat settings: {key.replace('_', ' ')} must be a number, got {merged[key]!r}") from None
        return int(round(value)) if kind is int else value

    return base.with_overrides({
        "models": models,
        "parameters": {
            "jury_size": number("jury_size", int),
            "jury_threshold": number("jury_threshold", int),
            "juror_temperature_min": number("juror_temperature_min", float),
            "juror_temperature_max": number("juror_temperature_max", float),
        },
        "budget": {"max_usd": number("budget_usd", float)},
    })


def widgets(values: dict[str, Any]) -> list[Any]:
    """The chat settings panel, showing ``values``."""
    from chainlit.input_widget import NumberInput, Select, Slider, Switch, TextInput

    return [
        Select(id="preset", label="Models", values=list(PRESETS), initial_value=str(values["preset"]),
               description="One backend for every role, or each role's model as set below."),
        *[TextInput(id=f"model_{role}", label=ROLE_LABELS[role], initial=str(values[f"model_{role}"]),
                    placeholder="backend:model, e.g. anthropic:claude-sonnet-4-6 or ollama:llama3.2")
          for role in ROLES],
        Slider(id="jury_size", label="Jury size", initial=int(values["jury_size"]), min=1, max=12, step=1),
        Slider(id="jury_threshold", label="Votes to act needed to reach the judge",
               initial=int(values["jury_threshold"]), min=1, max=12, step=1),
        Slider(id="juror_temperature_min", label="Juror temperature, lowest",
               initial=float(values["juror_temperature_min"]), min=0, max=2, step=0.05),
        Slider(id="juror_temperature_max", label="Juror temperature, highest",
               initial=float(values["juror_temperature_max"]), min=0, max=2, step=0.05),
        NumberInput(id="budget_usd", label="Budget cap per trial (USD, 0 = none)",
                    initial=float(values["budget_usd"])),
        Switch(id="dry_run", label="Dry run: show each role's prompt and estimates, call no model",
               initial=bool(values["dry_run"])),
    ]
