"""A procedure's settings panel, described once for every front end.

The chat's settings panel and the notebook's form are both drawn from these fields, which
come from the procedure's ``Parameters`` model: a bounded number becomes a slider, a flag a
switch, anything else a text box. Values go back through ``Settings.with_params``, so the
config's own validation names what is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel


@dataclass(frozen=True)
class Field:
    key: str  # the [procedures.<name>] key
    label: str
    kind: str  # slider, switch, select, text
    initial: Any
    low: float | None = None
    high: float | None = None
    step: float | None = None
    integer: bool = False
    description: str = ""
    choices: tuple[str, ...] = ()  # for a select


def fields(parameters: BaseModel, *, chat: bool = False) -> list[Field]:
    """The panel of a procedure, at the values of ``parameters`` (its current settings); with
    ``chat``, without the settings only the operator sets (models and files on the server)."""
    out = []
    for key, info in type(parameters).model_fields.items():
        if chat and isinstance(info.json_schema_extra, dict) and info.json_schema_extra.get("operator"):
            continue  # it names a model or a file on the server: config.toml only
        value = getattr(parameters, key)
        label = info.description or key.replace("_", " ").capitalize()
        bounds = {type(m).__name__: m for m in info.metadata}
        low = getattr(bounds.get("Ge"), "ge", None)
        high = getattr(bounds.get("Le"), "le", None)
        choices = get_args(info.annotation) if get_origin(info.annotation) is Literal else ()
        if choices:
            out.append(Field(key, label, "select", value, choices=tuple(map(str, choices)),
                             description=info.description or ""))
        elif isinstance(value, bool):
            out.append(Field(key, label, "switch", value, description=info.description or ""))
        elif isinstance(value, (int, float)) and low is not None and high is not None:
            integer = isinstance(value, int)
            step = 1 if integer else round((high - low) / 40, 3) or 0.05
            out.append(Field(key, label, "slider", value, low, high, step, integer, info.description or ""))
        else:
            out.append(Field(key, label, "text", value, integer=isinstance(value, int), description=info.description or ""))
    return out


def coerce(field: Field, value: Any) -> Any:
    """A panel value as the parameter's type (sliders and text boxes may give floats or strings);
    a text that is no number is a ``ConfigError`` naming the setting."""
    if field.kind == "switch":
        return bool(value)
    try:
        if field.integer:
            return int(round(float(value)))
        if isinstance(field.initial, float):
            return float(value)
    except (TypeError, ValueError, OverflowError):
        from .errors import ConfigError

        raise ConfigError(f"{field.label.lower()} must be a number, got {value!r}") from None
    return value
