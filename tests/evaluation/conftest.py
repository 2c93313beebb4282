"""Fixtures for the evaluation tests: small datasets, a stand-in for ``courtroom_chat.motion``,
and the shared data (skipped, saying why, where it is absent)."""

from __future__ import annotations

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
