"""Stored runs as pandas DataFrames, and matplotlib plots of them.

    from courtroom_chat import runs
    df = runs.runs_frame()                  # one row per run in the runs dir in effect
    calls = runs.calls_frame()              # one row per model call
    runs.plot_vote_split(record)            # one run's jury
    runs.plot_cost_time_by_role(calls)      # where the money and the time went
    runs.plot_confidence(df)                # judge's confidence against the evidence-based one
    runs.plot_verdicts_over_time(df)

A source is ``None`` (the runs dir in effect), a directory, a ``RunStore``, a ``RunRecord``
or an iterable of them; the plots also take the DataFrames above. pandas is imported with
this module and matplotlib only when a plot is drawn, never by ``import courtroom_chat``.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable
from typing import TYPE_CHECKING, Union

import pandas as pd

from .errors import CourtroomError, InputError
from .procedures.decision.present import DECISION_LABEL
from .records import RunRecord
from .store import RunStore

ROLE_ORDER = ("prosecutor", "defense", "juror", "judge")  # first, in trial order; other procedures' roles follow

if TYPE_CHECKING:
    from matplotlib.axes import Axes

Source = Union[None, str, "os.PathLike[str]", RunStore, RunRecord, Iterable[RunRecord]]

VERDICT_COLORS = {"guilty": "#2e7d32", "not_guilty": "#c62828", "dismissed": "#757575", None: "#bdbdbd"}
VOTE_COLORS = {"act": "#2e7d32", "do not act": "#c62828", "abstain": "#9e9e9e", "failed": "#ef6c00"}


def load(source: Source = None, *, limit: int | None = None) -> list[RunRecord]:
    """Run records, oldest first. A run whose file is missing or damaged is skipped with a warning."""
    if isinstance(source, RunRecord):
        return [source]
    if source is None or isinstance(source, (str, os.PathLike, RunStore)):
        store = source if isinstance(source, RunStore) else _store(source)
        records = []
        for row in store.list(limit or 1_000_000_000):
            try:
                records.append(store.read(row["run_id"]))
            except CourtroomError as exc:
                warnings.warn(f"skipped run {row['run_id']}: {exc}", stacklevel=2)
        return sorted(records, key=lambda r: r.started_at)
    records = list(source)
    bad = next((r for r in records if not isinstance(r, RunRecord)), None)
    if bad is not None:
        raise InputError(f"expected run records, got {type(bad).__name__}; pass RunRecord objects or a runs directory")
    return records[-limit:] if limit else records


def _store(path: str | os.PathLike[str] | None) -> RunStore:
    if path is None:
        from .config import load_settings

        return RunStore.default(load_settings().runs.dir)
    if not os.path.isdir(path):
        raise InputError(f"no runs directory at {path}; give the directory that holds index.sqlite")
    return RunStore(path)


def _backend(models: dict[str, str]) -> str:
    return ", ".join(sorted({m.partition(":")[0] for m in models.values()}))


def runs_frame(source: Source = None, *, limit: int | None = None) -> pd.DataFrame:
    """One row per run: the question, verdict, answer, both confidences, jury split, cost, time, feedback."""
    rows = []
    for r in load(source, limit=limit):
        p, usage, summary = r.prosecution, r.usage(), r.summary()
        votes = summary["votes"]
        rows.append(summary | {
            "guilty": votes.get("act"), "not_guilty": votes.get("do not act"), "abstain": votes.get("abstain"),
            "seated": r.jury.seated if r.jury else None,
            "verdict": summary["decision"],
            "exhibits": len(p.exhibits) if p else None,
            "exhibits_verified": len(p.admitted()) if p else None,
            "warnings": len(r.warnings),
            "calls": len(r.calls),
            "input_tokens": usage.prompt_tokens,
            "output_tokens": usage.output_tokens,
            "cost_known": r.cost_known,
            "duration_s": r.duration_ms / 1000,
            "backend": _backend(r.models),
            "models": ", ".join(f"{role}={m}" for role, m in r.models.items()),
            "feedback_comment": r.feedback.comment if r.feedback else None,
            "dry_run": r.dry_run,
            "error": r.error,
        })
    frame = pd.DataFrame(rows, columns=_RUN_COLUMNS)
    for col in ("guilty", "not_guilty", "abstain", "seated", "exhibits", "exhibits_verified"):
        frame[col] = frame[col].astype("Int64")
    for col in ("confidence", "evidence_confidence"):
        frame[col] = frame[col].astype("float64")
    frame["started_at"] = pd.to_datetime(frame["started_at"], utc=True)
    return frame


_RUN_COLUMNS = [
    "run_id", "started_at", "status", "procedure", "question", "verdict", "answer", "decided_by", "confidence",
    "evidence_confidence", "split", "guilty", "not_guilty", "abstain", "seated", "exhibits", "exhibits_verified",
    "warnings", "calls", "input_tokens", "output_tokens", "cost_usd", "cost_known", "duration_s", "backend",
    "models", "feedback", "feedback_comment", "dry_run", "error",
]
_CALL_COLUMNS = [
    "run_id", "call", "stage", "agent", "role", "juror", "backend", "model", "temperature", "attempt",
    "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "tokens", "cost_usd", "seconds",
    "ok", "outcome", "problems", "error", "started_at",
]


def outcome(ok: bool, attempt: int, error: str, problems: list[str] | None = None) -> str:
    """What became of a call's reply.

    valid: usable as sent; repaired: usable after the agent was asked once more; broke rules:
    well-formed but it broke a rule (asked again, or kept with a warning after the repair);
    invalid: not valid JSON for the schema; failed: the call itself failed.
    """
    if error:
        return "failed"
    if not ok:
        return "invalid"
    if problems:
        return "broke rules"
    return "repaired" if attempt > 1 else "valid"


def calls_frame(source: Source = None, *, limit: int | None = None) -> pd.DataFrame:
    """One row per model call: role, juror, model, temperature applied, tokens, cost, seconds, outcome."""
    rows = []
    for r in load(source, limit=limit):
        for c in r.calls:
            rows.append({
                "run_id": r.run_id, "call": c.id, "stage": c.stage, "agent": c.agent, "role": c.role,
                "juror": int(c.agent.split("-")[1]) if c.agent.startswith("juror-") else None,
                "backend": c.backend, "model": c.model, "temperature": c.temperature, "attempt": c.attempt,
                "input_tokens": c.usage.prompt_tokens, "output_tokens": c.usage.output_tokens,
                "cache_read_tokens": c.usage.cache_read_tokens, "cache_write_tokens": c.usage.cache_write_tokens,
                "tokens": c.usage.prompt_tokens + c.usage.output_tokens, "cost_usd": c.cost_usd,
                "seconds": c.seconds, "ok": c.ok, "outcome": outcome(c.ok, c.attempt, c.error, c.problems),
                "problems": "; ".join(c.problems), "error": c.error,
                "started_at": c.started_at,
            })
    frame = pd.DataFrame(rows, columns=_CALL_COLUMNS)
    frame["juror"] = frame["juror"].astype("Int64")
    frame["temperature"] = frame["temperature"].astype("float64")
    frame["cost_usd"] = frame["cost_usd"].astype("float64")
    frame["started_at"] = pd.to_datetime(frame["started_at"], utc=True)
    return frame


def prompts_frame(source: Source = None) -> pd.DataFrame:
    """One row per planned prompt of a dry run: the model, temperature, token and cost estimates."""
    rows = []
    for r in load(source):
        for e in r.events:
            if e.get("type") == "prompt_planned":
                rows.append({
                    "run_id": r.run_id, "stage": e["stage"], "agent": e["agent"], "role": e["role"],
                    "model": e["model"], "temperature": e["temperature"], "input_tokens": e["input_tokens"],
                    "output_tokens": e["output_tokens"], "cost_usd": e["cost_usd"],
                    "prompt_chars": sum(len(m["content"]) for m in e["messages"]),
                })
    columns = ["run_id", "stage", "agent", "role", "model", "temperature", "input_tokens", "output_tokens",
               "cost_usd", "prompt_chars"]
    frame = pd.DataFrame(rows, columns=columns)
    frame["temperature"] = frame["temperature"].astype("float64")
    frame["cost_usd"] = frame["cost_usd"].astype("float64")
    return frame


# ---------------------------------------------------------------------- plots


def _axes(ax: Axes | None, size: tuple[float, float] = (6, 3.5)) -> Axes:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=size, layout="constrained")[1]


def _record(run: RunRecord | str) -> RunRecord:
    if isinstance(run, RunRecord):
        return run
    return _store(None).load(run)


def plot_vote_split(run: RunRecord | str, ax: Axes | None = None) -> Axes:
    """The jury's votes in one run (a record or a run id), with the threshold to act."""
    record = _record(run)
    jury = record.jury
    if jury is None:
        raise InputError(f"run {record.run_id} has no jury vote (status {record.status}); pick a run that reached the jury")
    counts = {"act": jury.guilty_count, "do not act": jury.not_guilty_count, "abstain": jury.abstain_count,
              "failed": sum(j.status == "failed" for j in jury.jurors)}
    ax = _axes(ax, (5, 3.2))
    bars = ax.bar(list(counts), list(counts.values()), color=[VOTE_COLORS[k] for k in counts])
    ax.bar_label(bars)
    ax.axhline(jury.threshold, color="#333333", linestyle="--", linewidth=1)
    ax.text(0.99, jury.threshold, f"{jury.threshold} needed to act ", transform=ax.get_yaxis_transform(),
            ha="right", va="bottom", fontsize=8)
    ax.set_ylim(0, max(jury.seated, jury.threshold) + 0.8)
    ax.set_ylabel("jurors")
    ax.set_title(f"Jury {jury.split()} · run {record.run_id}", fontsize=10)
    return ax


def _calls(source: Source | pd.DataFrame) -> pd.DataFrame:
    return source if isinstance(source, pd.DataFrame) else calls_frame(source)


def _runs(source: Source | pd.DataFrame) -> pd.DataFrame:
    return source if isinstance(source, pd.DataFrame) else runs_frame(source)


def plot_cost_time_by_role(source: Source | pd.DataFrame = None, axes: tuple[Axes, Axes] | None = None) -> tuple[Axes, Axes]:
    """Dollars and model seconds per role, summed over the calls of the runs given."""
    calls = _calls(source)
    if calls.empty:
        raise InputError("no model calls to plot; run a trial first (a dry run makes no calls)")
    order = [r for r in ROLE_ORDER if r in set(calls["role"])] + sorted(set(calls["role"]) - set(ROLE_ORDER))
    by_role = calls.groupby("role").agg(cost_usd=("cost_usd", "sum"), seconds=("seconds", "sum")).reindex(order)
    if axes is None:
        import matplotlib.pyplot as plt

        axes = tuple(plt.subplots(1, 2, figsize=(9, 3.2), layout="constrained")[1])  # type: ignore[assignment]
    cost_ax, time_ax = axes  # type: ignore[misc]
    bars = cost_ax.bar(order, by_role["cost_usd"], color="#5c6bc0")
    cost_ax.bar_label(bars, labels=[f"${v:.4f}" for v in by_role["cost_usd"]], fontsize=8)
    cost_ax.set_ylabel("USD")
    cost_ax.set_ylim(0, max(float(by_role["cost_usd"].max()), 0.0) * 1.2 or 0.01)
    unknown = " (some prices unknown)" if calls["cost_usd"].isna().any() else ""
    cost_ax.set_title(f"Cost by role{unknown}", fontsize=10)
    bars = time_ax.bar(order, by_role["seconds"], color="#26a69a")
    time_ax.bar_label(bars, labels=[f"{v:.1f} s" if v >= 1 else f"{v:.3f} s" for v in by_role["seconds"]], fontsize=8)
    time_ax.set_ylabel("seconds (summed over calls)")
    time_ax.set_title("Model time by role", fontsize=10)
    return cost_ax, time_ax


def plot_confidence(source: Source | pd.DataFrame = None, ax: Axes | None = None) -> Axes:
    """Each run's judge's confidence against its evidence-based confidence; the diagonal is agreement."""
    frame = _runs(source).dropna(subset=["confidence", "evidence_confidence"])
    if frame.empty:
        raise InputError("no runs with a verdict to plot; run a few trials first")
    ax = _axes(ax, (4.8, 4.4))
    ax.plot([0, 1], [0, 1], color="#9e9e9e", linestyle="--", linewidth=1)
    for verdict, group in frame.groupby("verdict", dropna=False):
        ax.scatter(group["evidence_confidence"], group["confidence"], color=VERDICT_COLORS.get(verdict, "#bdbdbd"),
                   label=DECISION_LABEL.get(verdict, "no verdict"), alpha=0.8, edgecolors="white")
    ax.set(xlim=(0, 1.02), ylim=(0, 1.02), xlabel="evidence-based confidence", ylabel="judge's confidence")
    ax.set_title(f"Confidence in {len(frame)} run{'s' if len(frame) != 1 else ''}", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    return ax


def plot_verdicts_over_time(source: Source | pd.DataFrame = None, ax: Axes | None = None) -> Axes:
    """How many runs ended in each verdict, counted up over time."""
    frame = _runs(source).sort_values("started_at")
    if frame.empty:
        raise InputError("no runs to plot; run a few trials first")
    ax = _axes(ax, (7, 3.2))
    verdicts = frame["verdict"].astype(object).where(frame["verdict"].notna(), None)
    for verdict in [v for v in VERDICT_COLORS if v in set(verdicts)]:
        mask = verdicts.isna() if verdict is None else verdicts.eq(verdict)
        times = frame.loc[mask, "started_at"]
        ax.step(times, range(1, len(times) + 1), where="post", marker="o", color=VERDICT_COLORS[verdict],
                label=DECISION_LABEL.get(verdict, "no verdict") if verdict else "no verdict")
    import matplotlib.dates as mdates
    from matplotlib.ticker import MaxNLocator

    locator = mdates.AutoDateLocator()
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("runs (cumulative)")
    ax.set_title("Verdicts over time", fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    return ax


# ---------------------------------------------------------------------- evaluations

_EVAL_COLUMNS = [
    "eval_id", "dataset", "procedure", "seed", "models", "item", "method", "framing", "question", "gold",
    "predicted", "correct", "status", "run_id", "error", "cost_usd", "calls", "input_tokens", "output_tokens",
    "seconds", "finished_at",
]


def _eval_folders(source: str | os.PathLike[str] | None) -> list[str]:
    """Evaluation folders: of the runs dir in effect, of a runs dir, of its evals/ folder, or one evaluation."""
    if source is None:
        from .config import load_settings

        root = os.path.join(str(RunStore.default(load_settings().runs.dir).root), "evals")
    else:
        root = os.fspath(source)
        if os.path.isfile(os.path.join(root, "results.jsonl")):
            return [root]
        if os.path.isdir(os.path.join(root, "evals")):
            root = os.path.join(root, "evals")
        elif not os.path.isdir(root):
            raise InputError(f"no evaluations at {root}; give a runs directory or an evaluation's folder")
    if not os.path.isdir(root):
        return []
    return sorted(os.path.join(root, d) for d in os.listdir(root) if os.path.isfile(os.path.join(root, d, "results.jsonl")))


def eval_frame(source: str | os.PathLike[str] | None = None, *, eval_id: str | None = None) -> pd.DataFrame:
    """One row per evaluated item, method and framing (``asked``, or ``mirror`` for the negated
    question) of every stored evaluation (``courtroom eval``), with a ``conf_<name>`` column per
    named confidence and the ``run_id`` of each court run. ``source``: None (the runs dir in
    effect), a runs dir, or one evaluation's folder."""
    import json

    from .evaluation.runner import Results

    rows = []
    for folder in _eval_folders(source):
        name = os.path.basename(folder)
        if eval_id is not None and name != eval_id:
            continue
        try:
            with open(os.path.join(folder, "spec.json"), encoding="utf-8") as f:
                spec = json.load(f)
        except (OSError, ValueError):
            spec = {}
        for row in Results(folder).rows().values():
            confidences = {f"conf_{k}": v for k, v in (row.get("confidences") or {}).items()}
            rows.append({c: row.get(c) for c in _EVAL_COLUMNS} | confidences | {
                "eval_id": name, "dataset": spec.get("dataset"), "procedure": spec.get("procedure"),
                "seed": spec.get("seed"), "models": spec.get("model_text"),
            })
    frame = pd.DataFrame(rows)
    for col in _EVAL_COLUMNS:
        if col not in frame:
            frame[col] = pd.Series(dtype="object")
    conf = sorted(c for c in frame.columns if c.startswith("conf_"))
    frame = frame[_EVAL_COLUMNS + conf]
    for col in ("cost_usd", "seconds", *conf):
        frame[col] = frame[col].astype("float64")
    frame["correct"] = frame["correct"].astype("boolean")
    frame["finished_at"] = pd.to_datetime(frame["finished_at"], utc=True)
    return frame
