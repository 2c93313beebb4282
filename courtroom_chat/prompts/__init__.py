"""Prompt templates, kept as files (``$name`` placeholders).

Shared templates (the case block, the repair turn) sit in this folder; each procedure's
own templates sit in a folder of their own (``prompts/decision/``), or wherever a
procedure from outside the package keeps them. ``render`` fails loudly on a missing
value: a prompt with a hole in it is a bug.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from string import Template

Folder = Traversable | Path


def shared() -> Traversable:
    return resources.files(__package__)


@cache
def _read(folder: Folder, name: str) -> Template:
    return Template(folder.joinpath(f"{name}.md").read_text(encoding="utf-8"))


def template(name: str, folder: Folder | None = None) -> Template:
    """``name`` from ``folder`` if it holds one, else from the shared folder."""
    if folder is not None and folder.joinpath(f"{name}.md").is_file():
        return _read(folder, name)
    return _read(shared(), name)


def render(name: str, folder: Folder | None = None, /, **values: object) -> str:
    return template(name, folder).substitute({k: str(v) for k, v in values.items()}).strip()
