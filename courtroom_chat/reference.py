"""docs/configuration.md, generated from the code so that it cannot drift from it:

    uv run python -m courtroom_chat.reference > docs/configuration.md

Every section of ``config.Settings`` and every built-in procedure's ``Parameters`` (the
``[procedures.<name>]`` tables), each key with its type, its default and what it does: the
field's description where it has one, else the comments written beside it in the source. Then
the roles ``[models]`` may name, and the environment variables the package reads.
``tests/test_reference.py`` fails when the page and this output differ.
"""

from __future__ import annotations

import ast
import inspect
import io
import json
import re
import sys
import textwrap
import tokenize
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from . import config
from .procedures import COURT_ROLES, available, get, parameters_model

COMMAND = "uv run python -m courtroom_chat.reference > docs/configuration.md"
PACKAGE = Path(__file__).resolve().parent


def builtin_procedures() -> list[str]:
    """The procedures this package registers itself, in the registry's order; installed plugins
    and procedures registered at run time (the tests' toy) are left out, so the page is the same
    on every machine."""
    return [info.name for info in available()
            if isinstance(info.target, str) and info.target.startswith(f"{__package__}.") and not info.origin]


def _cell(text: str) -> str:
    """Text for one cell of a Markdown table: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def _doc(text: str | None) -> str:
    """A docstring as Markdown: reStructuredText's double backquotes as single ones."""
    return textwrap.dedent(text or "").strip().replace("``", "`")


def _type(annotation: Any) -> str:
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Literal:
        return " or ".join(json.dumps(a) for a in args)
    if origin is Union or type(annotation).__name__ == "UnionType":
        named = [_type(a) for a in args if a is not type(None)]
        return " or ".join(named) + (" (or unset)" if type(None) in args else "")
    if origin in (list, dict):
        return f"{origin.__name__}[{', '.join(_type(a) for a in args)}]"
    return getattr(annotation, "__name__", str(annotation))


_BOUNDS = (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<"))


def _bounds(field: FieldInfo) -> str:
    found = [f"{sign} {getattr(m, name)}" for m in field.metadata for name, sign in _BOUNDS
             if getattr(m, name, None) is not None]
    return f", {' and '.join(found)}" if found else ""


def _default(field: FieldInfo) -> str:
    value = field.get_default(call_default_factory=True)
    if value is None:
        return "(unset)"
    if isinstance(value, BaseModel):
        value = value.model_dump()
    return json.dumps(value, ensure_ascii=False)  # as TOML writes it: strings quoted, true/false, lists


def source_comments(cls: type) -> dict[str, str]:
    """The comments written beside each field of ``cls`` in its source: the comment lines just
    above the field, then those on the field's own lines."""
    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):
        return {}
    comments: dict[int, str] = {}
    alone: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            comments[token.start[0]] = token.string.lstrip("#").strip()
            if not token.line[:token.start[1]].strip():
                alone.add(token.start[0])
    out: dict[str, str] = {}
    body = ast.parse(source).body[0]
    for node in getattr(body, "body", []):
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            continue
        above, line = [], node.lineno - 1
        while line in alone:
            above.insert(0, comments[line])
            line -= 1
        beside = [comments[n] for n in range(node.lineno, (node.end_lineno or node.lineno) + 1) if n in comments]
        out[node.target.id] = " ".join(above + beside)
    return out


def field_table(model: type[BaseModel]) -> list[str]:
    comments = source_comments(model)
    rows = ["| key | type | default | what it does |", "|---|---|---|---|"]
    for name, field in model.model_fields.items():
        what = field.description or comments.get(name, "") or "—"
        rows.append(f"| `{name}` | {_cell(_type(field.annotation) + _bounds(field))} | `{_cell(_default(field))}` "
                    f"| {_cell(what)} |")
    return rows


def models_section() -> list[str]:
    lines = ["## [models]", "",
             'Each key is a role and its value a model, `"backend:model"` (backends: '
             f"{', '.join(f'`{b}`' for b in config.BACKENDS)}). `default` serves every role not named "
             f'(`default = "{config.DEFAULT_MODEL}"`). The roles each procedure seats:', "",
             "| procedure | roles (also accepted as keys: aliases) |", "|---|---|"]
    for name in builtin_procedures():
        roles = ", ".join(f"`{r.name}`" + (f" ({', '.join(f'`{a}`' for a in r.aliases)})" if r.aliases else "")
                          for r in get(name).roles)
        lines.append(f"| {name} | {roles} |")
    lines.append(f"| every procedure | {', '.join(f'`{r}`' for r in COURT_ROLES)} (the evidence screener) |")
    return lines


def procedure_section(name: str) -> list[str]:
    proc = get(name)
    model = parameters_model(name)
    lines = [f"## [procedures.{name}]: {proc.title}", "", _cell(proc.description),
             f"See [procedures/{name}.md](procedures/{name}.md).", ""]
    if not model.model_fields:
        return [*lines, "No settings."]
    return [*lines, *field_table(model)]


def section(name: str, model: type[BaseModel]) -> list[str]:
    doc = _doc(model.__dict__.get("__doc__"))
    return [f"## [{name}]", "", *([doc, ""] if doc else []), *field_table(model)]


_ENV = re.compile(r"""(?:environ(?:\.get)?\s*[\[(]|getenv\s*\()\s*["']([A-Z][A-Z0-9_]*)["']""")


def environment() -> list[str]:
    """Every environment variable the package's code reads by name, with the modules that read it."""
    found: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for var in _ENV.findall(path.read_text(encoding="utf-8")):
            found.setdefault(var, set()).add(path.relative_to(PACKAGE.parent).as_posix())
    rows = ["| variable | read in |", "|---|---|"]
    rows += [f"| `{var}` | {', '.join(f'`{m}`' for m in sorted(found[var]))} |" for var in sorted(found)]
    return rows


def page() -> str:
    where = _doc(config.__doc__).split("\n", 1)[1].strip()
    lines = ["# Configuration", "",
             f"<!-- Generated by `{COMMAND}`; do not edit by hand. -->", "",
             "Every setting of `config.toml`, with its type, default and what it does, as the code defines "
             "them. `courtroom config init my.toml` writes them all at their defaults, `courtroom config show` "
             "prints those in effect, and `courtroom procedures NAME` lists one procedure's. A misspelt key, an "
             "unknown role or a wrong type is refused with the key and the file.", "", where, ""]
    lines += [*models_section(), ""]
    for name in builtin_procedures():
        lines += [*procedure_section(name), ""]
    for name, field in config.Settings.model_fields.items():
        if isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel):
            lines += [*section(name, field.annotation), ""]
    lines += ["## Environment variables", "",
              "Read by name in the package's code (the API keys' variables are named by the backends' "
              "settings above, such as `[openai] api_key_env`).", "", *environment()]
    return "\n".join(lines) + "\n"


def main() -> None:
    sys.stdout.write(page())


if __name__ == "__main__":
    main()
