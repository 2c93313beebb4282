"""Notebook tests draw plots headless (Agg) and keep the widget's runs in the isolated store."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")  # before anything imports matplotlib


@pytest.fixture(autouse=True)
def _close_figures():
    """Figures made by a test are closed after it, so many plots do not pile up in memory."""
    yield
    import sys

    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


@pytest.fixture
def store(runs_dir):
    from courtroom_chat.store import RunStore

    return RunStore(runs_dir)
