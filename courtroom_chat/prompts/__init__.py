"""Prompt templates, kept as files beside this module (``$name`` placeholders).

``render`` fails loudly on a missing value: a prompt with a hole in it is a bug.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from string import Template


@cache
def template(name: str) -> Template:
    return Template(resources.files(__package__).joinpath(f"{name}.md").read_text(encoding="utf-8"))


def render(name: str, **values: object) -> str:
    return template(name).substitute({k: str(v) for k, v in values.items()}).strip()
