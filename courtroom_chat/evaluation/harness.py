"""``evaluate(...)``: resolve the dataset, plan the units, run them, write the summary and report."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .. import stopping
from ..backends.base import Backend
from ..config import Settings, load_settings
from ..errors import InputError
from ..store import RunStore, checked_runs_dir
from . import datasets, report
from .methods import BASELINES, COURT_METHODS, baseline_role, is_baseline, shot_method, shot_split
from .runner import Plan, Reporter, Results, Runner, eval_id, mirror_question, selected_rows, settings_models


@dataclass
class Evaluation:
    """A finished (or interrupted) evaluation: its folder, summary and Markdown report."""

    eval_id: str
    folder: Path
    summary: dict[str, Any]
    markdown: str
    unfinished: int = 0  # items of the command with a unit not finished (interrupted, or --report-only)
    report: Path | None = None  # the report written: report.md, or report-first-N.md beside a fuller one

    def accuracy(self) -> dict[str, float | None]:
        return {m: r["accuracy"] for m, r in self.summary["results"].items()}


def order_arm(procedure: str, settings: Settings) -> str:
    """The order control's arm: the court with every agent in one fixed order, or, when the
    court is configured to read in one order already, with the orders shuffled."""
    from ..procedures import get

    params = settings.procedure_params(procedure)
    fixed = all(getattr(params, key) == value for key, value in get(procedure).fixed_order.items())
    return "court-shuffled-order" if fixed else "court-fixed-order"


def _methods(procedure: str | None, baselines: Sequence[str], order_control: bool = False,
             settings: Settings | None = None) -> tuple[str | None, list[str]]:
    if isinstance(baselines, str):  # evaluate(…, baselines="single"): one baseline, not its letters
        baselines = [baselines]
    if procedure in (None, "", "none"):
        procedure = None
        if order_control:
            raise InputError("--order-control compares the court with shuffled and fixed order; give a --procedure")
    else:
        from ..procedures import get

        found = get(procedure)  # an unknown procedure is refused here, before any item runs
        if order_control and not found.fixed_order:
            raise InputError(f"--order-control: procedure {procedure} has no order controls to switch off; "
                             "run without it")
    chosen = [b for b in dict.fromkeys(baselines) if b != "none"]
    unknown = [b for b in chosen if b not in BASELINES]
    if unknown:
        raise InputError(f"unknown baseline '{unknown[0]}'; use {' or '.join(BASELINES)} (or none)")
    arm = [order_arm(procedure, settings or Settings())] if order_control and procedure else []
    shots: list[str] = []
    if procedure:  # decisions the trial makes beside its verdict (the classification court's other way)
        params = (settings or Settings()).procedure_params(procedure)
        arm += list(get(procedure).arms(params))
        # each baseline again at every other number of precedents a bench beside the verdict reads
        shots = [shot_method(b, k) for k in get(procedure).baseline_shots(params) for b in chosen]
    methods = (["court"] if procedure else []) + arm + chosen + shots
    if not methods:
        raise InputError("nothing to evaluate: give a --procedure, a --baseline, or both")
    return procedure, methods


def answers(source: datasets.Dataset) -> str:
    """What a dataset's items are answered with: "judgment", "yes/no" or "labels"."""
    if source.answered_with:
        return source.answered_with
    return "judgment" if source.answer_format() is not None else "yes/no" if source.yes_no else "labels"


def fits(procedure: str, source: datasets.Dataset) -> None:
    """A procedure is scored only on answers of a kind its verdicts have (``Procedure.scored_on``):
    a criminal judgment against an ADR decision's yes/no, or a decision court's yes/no against a
    sentence, would score without meaning anything."""
    from ..procedures import available, get

    kind = answers(source)
    if kind in get(procedure).scored_on:
        return
    shown = {"judgment": "judgments (charges and sentences)", "yes/no": "yes/no answers",
             "labels": f"labels ({', '.join(source.labels)})"}
    others = [info.name for info in available() if kind in get(info.name).scored_on]
    raise InputError(f"--procedure {procedure} is scored on {' or '.join(shown.get(k, k) for k in get(procedure).scored_on)}, "
                     f"and dataset {source.name} has {shown[kind]}; evaluate it with "
                     f"{' or '.join(f'--procedure {o}' for o in others) or 'the baselines alone (--procedure none)'}")


def plan(dataset: str, *, procedure: str | None = "decision", baselines: Sequence[str] = ("single",),
         limit: int | None = None, seed: int = 0, mirror: bool = False, batch: bool = False, workers: int = 1,
         retry_failed: bool = False, fragility: bool = False, order_control: bool = False,
         settings: Settings) -> Plan:
    """What a command asks for, checked before anything runs: every error here is one clear line."""
    from ..procedures import get

    if limit is not None and limit < 1:
        raise InputError(f"--limit must be 1 or more, got {limit}")
    if workers < 1:
        raise InputError(f"--workers must be 1 or more, got {workers}")
    procedure, methods = _methods(procedure, baselines, order_control, settings)
    if fragility and not procedure:
        raise InputError("--fragility decides court trials again without their most-cited evidence; give a --procedure")
    if fragility and not get(procedure).defines("fragility"):  # the criminal trial: every trial's check was "not run"
        raise InputError(f"--fragility: procedure {procedure} has no fragility check (no votes to decide again without "
                         "the evidence); run without it")
    source = datasets.resolve(dataset, seed=seed, limits=settings.limits)
    if procedure:
        fits(procedure, source)
    items = source.items()[:limit] if limit else source.items()
    if procedure:  # a question the court would refuse ("?", "What is this?") fails here, named, before any trial
        court = get(procedure)
        for item in items:  # and one a court of law would ("Should we choose X?" is the decision court's)
            if why := court.question_problem(item.case.question) or court.misplaced(item.case.question):
                raise InputError(f"item {item.id} ({item.case.source or source.name}): {why}")
    if mirror and not source.yes_no:
        raise InputError(f"--mirror negates yes/no questions; dataset {source.name} has labels {', '.join(source.labels)}")
    if batch:
        if source.answer_format() is not None:
            raise InputError(f"--batch sends yes/no baselines; dataset {source.name} is answered in a shape of its own, "
                             "so run it without --batch")
        if not source.yes_no:
            raise InputError(f"--batch sends yes/no baselines; dataset {source.name} has labels {', '.join(source.labels)}")
        if not any(is_baseline(m) for m in methods):
            raise InputError("--batch sends the baselines as one batch; add --baseline single or majority")
        from .batch import refusal

        specs = [settings.model_for(baseline_role(m)) for m in methods if is_baseline(m)]  # the models batched
        if why := refusal({s.backend for s in specs}, settings.openai.base_url, {s.model or "" for s in specs}):
            raise InputError(why)
    mirrors = {item.id: mirror_question(item) for item in items} if mirror else {}
    arms = tuple(m for m in methods if m not in COURT_METHODS and not is_baseline(m))  # read from the court's trial
    return Plan(source, items, methods, procedure, seed, mirror, batch, workers, retry_failed, mirrors, fragility, arms)


def _settings(settings: Settings | None, config: str | Path | None, backend: str | None,
              runs_dir: str | Path | None) -> Settings:
    settings = settings or load_settings(config)
    if backend:
        settings = settings.with_backend(backend)
    if checked_runs_dir(runs_dir):
        settings = settings.with_overrides({"runs": {"dir": str(runs_dir)}})
    return settings


async def evaluate_async(
    dataset: str,
    *,
    procedure: str | None = "decision",
    baselines: Sequence[str] = ("single",),
    limit: int | None = None,
    seed: int = 0,
    workers: int = 1,
    backend: str | None = None,
    mirror: bool = False,
    batch: bool = False,
    retry_failed: bool = False,
    fragility: bool = False,
    order_control: bool = False,
    reuse: str | None = None,
    report_only: bool = False,
    runs_dir: str | Path | None = None,
    config: str | Path | None = None,
    settings: Settings | None = None,
    backends: dict[str, Backend] | None = None,
    progress: bool | Reporter = False,
    batch_poll_seconds: float = 30.0,
) -> Evaluation:
    """Run (or resume) an evaluation and return its summary; see ``evaluate``."""
    if reuse is not None and not reuse.strip():  # an unset shell variable (`--reuse "$ID"`) was no --reuse at all
        raise InputError("--reuse is empty; give the id of an earlier evaluation (its folder name in evals/), or leave it out")
    settings = _settings(settings, config, backend, runs_dir)
    the_plan = plan(dataset, procedure=procedure, baselines=baselines, limit=limit, seed=seed, mirror=mirror,
                    batch=batch, workers=workers, retry_failed=retry_failed, fragility=fragility,
                    order_control=order_control, settings=settings)
    store = RunStore.default(settings.runs.dir)
    ident = eval_id(the_plan.dataset, the_plan.procedure, seed, settings)
    results = Results(store.root / "evals" / ident)
    models = settings_models(settings, the_plan.procedure)
    if report_only and not results.path.is_file():
        raise InputError(f"--report-only: no results for this evaluation in {results.folder}; run the same "
                         "command without --report-only first")
    reused = reused_runs(store, reuse, ident, the_plan, models) if reuse and not report_only else {}
    meta = {
        "eval_id": ident, "dataset": the_plan.dataset.name, "procedure": the_plan.procedure, "seed": seed, "dataset_key": the_plan.dataset.key,
        "models": models, "model_text": ", ".join(sorted(set(models.values()))), "limit": limit,
        "mirror": mirror, "batch": batch, "fragility": fragility, "runs_dir": str(store.root), "folder": str(results.folder),
        "updated_at": datetime.now(UTC).isoformat(),
    }
    if reuse:
        meta["reuse"] = reuse
    if the_plan.procedure and any(shot_split(m)[1] is not None for m in the_plan.methods):  # the few-shot table's own column
        meta["precedents"] = getattr(settings.procedure_params(the_plan.procedure), "precedents", None)
    if report_only:  # the stored rows' report, written again; no model is asked anything
        reader = Runner(the_plan, settings, results.folder, store=store)
        reader.load()
        return _written(the_plan, reader, results, meta)
    results.write_json("spec.json", {**meta, "baselines": [m for m in the_plan.methods if m != "court"],
                                     "items": [i.id for i in the_plan.items]})
    if progress is True:
        from .progress import RichReporter

        reporter: Reporter | None = RichReporter()
    else:
        reporter = progress or None
    runner = Runner(the_plan, settings, results.folder, store=store, backends=backends, reporter=reporter,
                    batch_options={"poll_seconds": batch_poll_seconds}, reuse=reused)
    try:
        await runner.run()
    finally:  # interrupted or not, what is finished is summarised
        evaluation = _written(the_plan, runner, results, meta)
    return evaluation


def _written(the_plan: Plan, runner: Runner, results: Results, meta: dict[str, Any]) -> Evaluation:
    """Summarise the finished rows the runner loaded and write the summary and report beside them."""
    rows = runner.rows
    summary = report.summarize(the_plan.dataset, the_plan.methods, selected_rows(the_plan, rows), meta)
    text = report.markdown(summary)
    written = None
    if rows:
        # a smaller --limit than an earlier command's keeps the fuller report: this one is written
        # beside it (report-first-N.md), not over it
        finished = {item for item, method, _ in rows if method in the_plan.methods}
        suffix = "" if finished <= {i.id for i in the_plan.items} else f"-first-{len(the_plan.items)}"
        results.write_json(f"summary{suffix}.json", summary)
        written = results.write_text(f"report{suffix}.md", text)
    return Evaluation(meta["eval_id"], results.folder, summary, text, runner.unfinished(), written)


def reused_runs(store: RunStore, reuse: str, ident: str, the_plan: Plan, models: dict[str, str]) -> dict[tuple[str, str, str], str]:
    """The court trials of evaluation ``reuse``, by unit, for ``--reuse``: each trial here hands the
    requests its counterpart made in the same words back with that trial's replies, so two
    configurations of a court with rounds share round 1 and differ from the first request that
    differs. The other evaluation must be of the same dataset, procedure, seed and models."""
    folder = store.root / "evals" / reuse
    if not (folder / "spec.json").is_file():
        raise InputError(f"--reuse: no evaluation '{reuse}' in {store.root / 'evals'}; give the id of one "
                         "made in the same --runs-dir (its folder name)")
    if reuse == ident:
        raise InputError(f"--reuse {reuse} is this evaluation itself; give the one whose trials this configuration "
                         "should start from")
    try:
        spec = json.loads((folder / "spec.json").read_text(encoding="utf-8"))
    except ValueError:
        raise InputError(f"--reuse: {folder / 'spec.json'} is damaged; give another evaluation") from None
    mine = {"dataset_key": the_plan.dataset.key, "procedure": the_plan.procedure, "seed": the_plan.seed, "models": models}
    differs = [key for key, value in mine.items() if spec.get(key) != value]
    if differs:
        raise InputError(f"--reuse {reuse}: its {', '.join(d.replace('_key', '') for d in differs)} differ from this "
                         "evaluation's; reuse an evaluation of the same dataset, procedure, seed and models")
    runs = {key: row["run_id"] for key, row in Results(folder).rows().items()
            if key[1] in COURT_METHODS and row.get("run_id")}
    kept = {key: run for key, run in runs.items() if store.path_for(run).is_file()}
    if runs and not kept:
        raise InputError(f"--reuse {reuse}: none of its {len(runs)} trials is stored in {store.root}; copy their run "
                         "files in, or give the --runs-dir they were made in")
    return kept  # a trial whose run is not here runs afresh, and the report counts the trials that reused one


def evaluate(dataset: str, **options: Any) -> Evaluation:
    """Measure a procedure against baselines on a dataset, resumably.

        from courtroom_chat.evaluation import evaluate
        ev = evaluate("adr", baselines=["single", "majority"], limit=8, backend="scripted")
        ev.accuracy()          # {'court': 0.5, 'single': 0.625, 'majority': 0.5}
        print(ev.markdown)     # the report; ev.folder holds summary.json, report.md, results.jsonl

    ``report_only=True`` writes the report of the results already stored for the same command
    again (the report's format may have changed since) and runs nothing.

    ``dataset`` is a registered name (``iclr2017``, ``adr``) or a path (a ``.jsonl`` file of
    ``{question, context, answer}``). Options are those of ``courtroom eval``: procedure,
    baselines, limit, seed, workers, backend, mirror, batch, retry_failed, fragility, order_control,
    runs_dir, config; and
    ``settings``, ``backends`` (ready backends by spec, as ``Trial`` takes them), ``progress``.
    Inside a running event loop (a notebook cell) it runs on its own loop in a worker thread;
    ``await evaluate_async(...)`` keeps the kernel free.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return stopping.run(evaluate_async(dataset, **options))
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="courtroom-eval") as pool:
        return pool.submit(asyncio.run, evaluate_async(dataset, **options)).result()
