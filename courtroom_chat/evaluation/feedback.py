"""Calibration on a person's own decisions: the verdicts rated with ``courtroom feedback`` (or
the chat's thumbs) scored like an evaluation's items, each named confidence against whether
the verdict turned out right (``courtroom calibration``)."""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from ..store import RunStore
from . import report
from .methods import prediction_from_record

FEW = 20  # below this many rated verdicts the figures are rough, and the report says so


def feedback_rows(store: RunStore, *, owner: str | None = None, unread: list[str] | None = None) -> list[dict[str, Any]]:
    """One row per rated verdict that decided (yes or no): its confidences and whether it was right.
    A rated run whose file is gone or damaged cannot be scored: left out, and its reason added to
    ``unread`` when given, so the figures never pass for all the ratings."""
    rows = []
    for run_id in store.with_feedback(owner=owner):
        try:
            record = store.read(run_id)
        except InputError as exc:
            if unread is not None:
                unread.append(str(exc))
            continue
        prediction = prediction_from_record(record)
        if record.feedback is None or prediction.label is None:
            continue
        rows.append({"item": run_id, "predicted": prediction.label, "correct": record.feedback.rating == "up",
                     "confidences": prediction.confidences, "question": record.case.question})
    return rows


def calibration_markdown(rows: list[dict[str, Any]], where: str) -> str:
    """The calibration of each confidence on rated verdicts, as Markdown."""
    if not rows:
        return (f"No rated verdict in {where} yet. After a decision plays out, record whether the verdict was "
                f"right with `courtroom feedback RUN_ID up` (or `down`), or the thumbs under a verdict in the chat.\n")
    right = sum(r["correct"] for r in rows)
    out = [f"# Calibration on your rated verdicts ({where})", "",
           f"{len(rows)} rated verdicts: {right} turned out right, {len(rows) - right} wrong "
           f"({right / len(rows):.0%} right).", ""]
    if len(rows) < FEW:
        out += [f"Fewer than {FEW} rated verdicts: read these figures as rough.", ""]
    out += ["Brier: mean squared gap between the confidence and being right (0 is perfect; always 0.5 scores 0.25).", "",
            "| confidence | verdicts | mean confidence | right | Brier | ECE |", "|---|---|---|---|---|---|"]
    table = report.calibration(rows)
    for name, c in table.items():
        out.append(f"| {name} | {c['n']} | {c['mean_confidence']:.2f} | {c['accuracy']:.0%} | {c['brier']:.3f} "
                   f"| {c['ece']:.3f} |")
    out += ["", "Reliability: confidence range → verdicts, mean confidence, share right.", ""]
    for name, c in table.items():
        cells = [f"{b['low']:.1f}–{b['high']:.1f}: {b['n']}, {b['confidence']:.2f}, {b['observed']:.0%}"
                 for b in c["reliability"] if b["n"]]
        out.append(f"- {name}: " + "; ".join(cells))
    return "\n".join(out) + "\n"
