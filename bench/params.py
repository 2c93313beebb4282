"""``--param KEY=VALUE`` for the decision court's benches: one [procedures.decision] parameter
for a run, repeatable, so two designs are compared on the same cases and seeds."""

from __future__ import annotations

import argparse
import json
from typing import Any


def add_param_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                        help="a [procedures.decision] parameter for this run (repeatable)")
    parser.add_argument("--local", action="append", default=[], metavar="KEY=VALUE",
                        help="a [local] setting of the embedded model for this run, e.g. dry_last_n=128 (repeatable)")


def value(text: str) -> Any:
    """JSON when it reads as JSON (true, 3, 0.5), else the text itself."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def params_of(parser: argparse.ArgumentParser, pairs: list[str]) -> dict[str, Any]:
    params = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep:
            parser.error(f"--param and --local take KEY=VALUE, got {pair!r}")
        params[key.strip()] = value(raw.strip())
    return params


def tag_of(params: dict[str, Any]) -> str:
    """A folder name for a run's parameters: 'defaults', or 'personas=False-abstain=False'."""
    return "-".join(f"{k}={v}" for k, v in sorted(params.items())) or "defaults"
