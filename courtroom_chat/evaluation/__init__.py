"""Measured decision quality: a procedure against baselines on labelled decisions.

    from courtroom_chat.evaluation import evaluate
    ev = evaluate("adr", baselines=["single", "majority"], backend="scripted")
    print(ev.markdown)

Modules: ``datasets`` (adapters and their registry), ``methods`` (court, single, majority,
and ``prediction_from_record``), ``runner`` (units, resumable results), ``batch`` (Anthropic's
Message Batches, OpenAI's Batch API), ``stats`` and ``report`` (the figures), ``plots``, ``harness`` (``evaluate``).
Names are imported lazily, so importing the package costs nothing.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_LAZY = {
    "evaluate": "harness",
    "evaluate_async": "harness",
    "Evaluation": "harness",
    "prediction_from_record": "methods",
    "Prediction": "methods",
    "Dataset": "datasets",
    "DatasetInfo": "datasets",
    "Item": "datasets",
    "register_dataset": "datasets",
}

__all__ = list(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module = import_module(f"{__name__}.{_LAZY[name]}")
        return getattr(module, "register" if name == "register_dataset" else name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
