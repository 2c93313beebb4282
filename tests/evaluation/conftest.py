"""Fixtures for the evaluation tests: small datasets, a stand-in for ``courtroom_chat.motion``,
and the shared data (skipped, saying why, where it is absent)."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def shared_data() -> Path:
    from courtroom_chat.evaluation.datasets import data_dir

    root = data_dir()
    if not (root / "decisions" / "madr_adrs.json").is_file():
        pytest.skip(f"the shared data is not at {root}; set COURTROOM_DATA_DIR")
    return root


@pytest.fixture
def motion_stand_in(monkeypatch):
    """``courtroom_chat.motion.motion_for`` as the real module will offer it: 'Should we X?' ->
    'Should we not X?'. Used whether or not the real module exists yet, so tests pin the counting."""

    class Motion:
        def __init__(self, question: str):
            body = question.strip().rstrip("?")
            head, _, rest = body.partition(" ")
            who, _, action = rest.partition(" ")
            self.mirror_question = f"{head} {who} not {action}?"

    module = types.ModuleType("courtroom_chat.motion")
    module.motion_for = Motion  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "courtroom_chat.motion", module)
    return module
