"""Plots of an evaluation (an ``Evaluation`` or its ``summary.json``), drawn with matplotlib.

    plots.plot_accuracy(ev)        accuracy per method with its 95% Wilson interval
    plots.plot_fixed_broken(ev)    items the court fixed and broke against each baseline
    plots.plot_reliability(ev)     each named confidence against the accuracy it came with
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from ..errors import InputError

if TYPE_CHECKING:
    from matplotlib.axes import Axes

METHOD_COLORS = {"court": "#3949ab", "single": "#00897b", "majority": "#f9a825"}


def _summary(source: Any) -> dict[str, Any]:
    if isinstance(source, dict):
        return source
    if isinstance(source, (str, os.PathLike)):
        path = os.path.join(os.fspath(source), "summary.json") if os.path.isdir(source) else os.fspath(source)
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    return source.summary  # an Evaluation


def _new_axes(ax: Axes | None, size: tuple[float, float]) -> Axes:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=size, layout="constrained")[1]


def plot_accuracy(source: Any, ax: Axes | None = None) -> Axes:
    """Accuracy per method with its 95% Wilson interval; the dashed line is the true yes-rate
    (what always answering the majority label would score on a balanced set)."""
    summary = _summary(source)
    results = {m: r for m, r in summary["results"].items() if r["n"]}
    if not results:
        raise InputError("no finished items to plot; run the evaluation first")
    ax = _new_axes(ax, (5.5, 3.4))
    for x, (method, r) in enumerate(results.items()):
        low, high = r["ci95"]
        ax.errorbar(x, r["accuracy"], yerr=[[r["accuracy"] - low], [high - r["accuracy"]]], fmt="o", capsize=6,
                    color=METHOD_COLORS.get(method, "#616161"), markersize=8)
        ax.annotate(f"{r['correct']}/{r['n']}", (x, r["accuracy"]), textcoords="offset points", xytext=(12, -4),
                    fontsize=8)
    base = next(iter(results.values()))["true_yes_rate"]
    if base is not None:
        chance = max(base, 1 - base)
        ax.axhline(chance, color="#9e9e9e", linestyle="--", linewidth=1)
        ax.text(-0.45, chance, "always the commoner answer", va="bottom", ha="left", fontsize=8, color="#616161")
    ax.set_xticks(range(len(results)), list(results))
    ax.set(ylim=(0, 1.02), xlim=(-0.5, len(results) - 0.5), ylabel="accuracy")
    ax.set_title(f"{summary['dataset']}: {next(iter(results.values()))['n']} items, 95% intervals", fontsize=10)
    return ax


def plot_fixed_broken(source: Any, ax: Axes | None = None) -> Axes:
    """Per baseline: items the court got right that the baseline got wrong (fixed), and the reverse."""
    summary = _summary(source)
    comparisons = summary.get("comparisons") or {}
    if not comparisons:
        raise InputError("no court-versus-baseline comparison to plot; evaluate the court with --baseline")
    ax = _new_axes(ax, (5.5, 3.2))
    names = list(comparisons)
    xs = range(len(names))
    fixed = [comparisons[b]["fixed"] for b in names]
    broken = [comparisons[b]["broken"] for b in names]
    bars = ax.bar([x - 0.18 for x in xs], fixed, width=0.36, color="#2e7d32", label="court fixed")
    ax.bar_label(bars)
    bars = ax.bar([x + 0.18 for x in xs], broken, width=0.36, color="#c62828", label="court broke")
    ax.bar_label(bars)
    ax.set_xticks(list(xs), [f"vs {b}\nMcNemar p = {comparisons[b]['mcnemar_p']:.2g}" for b in names])
    ax.set_ylim(0, max(fixed + broken + [1]) * 1.25)
    ax.set_ylabel("items")
    ax.legend(fontsize=8)
    ax.set_title("Where the court and each baseline disagree", fontsize=10)
    return ax


def plot_reliability(source: Any, method: str | None = None, ax: Axes | None = None) -> Axes:
    """Each named confidence (per method) against the observed accuracy in its bin; points on
    the diagonal are calibrated, and a point's size is its number of items."""
    summary = _summary(source)
    curves = [(m, name, c) for m, r in summary["results"].items() if method in (None, m)
              for name, c in r["calibration"].items() if c["n"]]
    if not curves:
        raise InputError("no confidences to plot; the methods evaluated reported none")
    ax = _new_axes(ax, (5, 4.4))
    ax.plot([0, 1], [0, 1], color="#9e9e9e", linestyle="--", linewidth=1)
    for m, name, c in curves:
        bins = [b for b in c["reliability"] if b["n"]]
        (line,) = ax.plot([b["confidence"] for b in bins], [b["observed"] for b in bins], marker="o", alpha=0.85,
                          label=f"{m} · {name} (Brier {c['brier']:.3f})")
        ax.scatter([b["confidence"] for b in bins], [b["observed"] for b in bins], s=[12 + 8 * b["n"] for b in bins],
                   alpha=0.25, color=line.get_color())
    ax.set(xlim=(0, 1.02), ylim=(-0.02, 1.02), xlabel="stated confidence (bin mean)", ylabel="observed accuracy")
    ax.set_title("Reliability of each confidence", fontsize=10)
    ax.legend(fontsize=7, loc="upper left")
    return ax
