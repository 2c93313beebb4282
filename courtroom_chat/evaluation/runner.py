"""Run an evaluation: every item through every method, one result line per finished unit.

A unit is (item, method, framing): framing ``asked`` is the dataset's question, ``mirror`` its
negation with the sides swapped (``--mirror``). Results go to ``<runs>/evals/<eval-id>/
results.jsonl`` as each unit finishes, so Ctrl-C loses nothing finished and running the same
command again skips what is done. The eval id comes from the dataset, the procedure, the seed
and the models, not from ``--limit`` or the baselines: a larger limit or another baseline adds
to the same evaluation.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..backends import BackendPool
from ..backends.base import Backend, stable_seed
from ..config import ModelSpec, Settings
from ..errors import InputError
from ..motion import motion_for
from ..store import RunStore
from .datasets import NO, YES, Dataset, Item
from .methods import (
    COURT_METHODS,
    Baselines,
    Prediction,
    arm_prediction,
    court_settings,
    is_baseline,
    run_baseline,
    run_court,
)

FRAMINGS = ("asked", "mirror")


@dataclass(frozen=True)
class Unit:
    item: Item
    method: str  # court, single, majority
    framing: str  # asked, mirror
    question: str
    gold: str
    seed: int

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.item.id, self.method, self.framing)

    def case(self):  # noqa: ANN201 - a Case
        if self.framing == "asked":
            return self.item.case
        return self.item.case.model_copy(update={"question": self.question})

    @functools.cached_property
    def digest(self) -> str:
        """What the unit asks, as a short hash: its question, the text of each document, the
        filed exhibits and the inputs; not where the case file lies, and not the case's other
        fields, so a field added to ``Case`` in a later release does not ask every stored row
        again. A stored row with another digest was asked something else."""
        case = self.case()
        asked = {"question": case.question,
                 "context": [[d.name, hashlib.sha256(d.text.encode()).hexdigest()] for d in case.context],
                 "evidence": [e.model_dump(mode="json", exclude_defaults=True) for e in case.evidence],
                 "inputs": case.inputs}
        return hashlib.sha256(json.dumps(asked, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()[:16]


@dataclass
class Plan:
    """What one command asks for."""

    dataset: Dataset
    items: list[Item]
    methods: list[str]
    procedure: str | None
    seed: int = 0
    mirror: bool = False
    batch: bool = False
    workers: int = 1
    retry_failed: bool = False
    mirror_questions: dict[str, str] = field(default_factory=dict)
    fragility: bool = False  # court trials also decide again without their most-cited evidence
    arms: tuple[str, ...] = ()  # methods read from the court's own trial (decided beside its verdict), never run alone

    def units(self) -> list[Unit]:
        framings = FRAMINGS if self.mirror else FRAMINGS[:1]
        out = []
        for item in self.items:
            for method in self.methods:
                for framing in framings:
                    asked = framing == "asked"
                    out.append(Unit(
                        item=item, method=method, framing=framing,
                        question=item.case.question if asked else self.mirror_questions[item.id],
                        gold=item.gold if asked else flip(item.gold),
                        seed=unit_seed(self.seed, item.id, method, framing),
                    ))
        return out


def unit_seed(seed: int, item_id: str, method: str, framing: str) -> int:
    """The seed of one unit. The court's order-control trials (``court-fixed-order``,
    ``court-shuffled-order``) take the court's own, so they draw the same sampling seeds and differ
    from its trial only in the order each agent reads: a verdict that moves is the order's doing,
    not a new draw. Every other method draws its own."""
    return stable_seed(seed, item_id, "court" if method in COURT_METHODS else method, framing)


def flip(label: str) -> str:
    return {YES: NO, NO: YES}[label]


def mirror_question(item: Item) -> str:
    """The negated question, sides swapped: the dataset's own, else ``motion_for(...).mirror_question``."""
    if item.mirror_question:
        return item.mirror_question
    mirrored = motion_for(item.case.question).mirror_question
    if not mirrored:
        raise InputError(f"--mirror: item {item.id}: no rule negates its question “{item.case.question}”; "
                         f"give the item a mirror_question or run without --mirror")
    return mirrored


def settings_models(settings: Settings, procedure: str | None) -> dict[str, str]:
    """The model of each role of ``procedure`` (the decision court's for the baselines alone)."""
    from ..procedures import get

    name = procedure or "decision"
    return {role.name: str(settings.model_for(role.name, name)) for role in get(name).roles}


# The embedded model's decoding settings as the first evaluations ran them; a setting that
# differs is part of the evaluation id.
# (dry_last_n was written -1 then, sending nothing, and the runtime looked back its default 64 tokens.)
DECODING_AT_FIRST = {"dry_last_n": 64, "dry_multiplier": 0.8, "dry_allowed_length": 3}

# Parameters a procedure gained after evaluations were stored under it, with the value that does
# what the procedure did before: at that value a parameter is left out of the evaluation id, so a
# stored evaluation resumes instead of starting again under a new id. (The id hashes every
# parameter, defaults included; compare_shots came after the classification court's first runs.)
PARAMETERS_ADDED = {"classification": {"compare_shots": "", "second_label": "stated"}, "decision": {"ruling_facts": False, "spell_answers": False,
                                                                  "ask_direct": False, "juror_consistency": "off",
                                                                  "balance_options": True, "balance_answers": False,
                                                                  "hold_back_as_choice": False}}
# (balance_options acts on questions that choose between two options, which no stored evaluation
# holds: before it, such questions were refused, so True does there what the court did before.)


def eval_id(dataset: Dataset, procedure: str | None, seed: int, settings: Settings) -> str:
    """Readable and stable: the same dataset, procedure, seed, models and parameters give the same id.
    Embedded-model decoding settings that differ from the first release's (``DECODING_AT_FIRST``)
    are part of it too, so a run with other decoding never resumes into one without; parameters
    added later (``PARAMETERS_ADDED``) only when they are set to do something new."""
    added = PARAMETERS_ADDED.get(procedure or "", {})
    parameters = {key: value for key, value in settings.procedures.get(procedure or "", {}).items()
                  if not (key in added and added[key] == value)}
    basis: dict[str, Any] = {
        "dataset": dataset.key, "procedure": procedure, "seed": seed,
        "models": settings_models(settings, procedure),
        "parameters": parameters,
    }
    models = basis["models"].values()
    decoding = {key: getattr(settings.local, key) for key, first in DECODING_AT_FIRST.items()
                if getattr(settings.local, key) != first}
    if decoding and any(m.startswith("local") for m in models):
        basis["decoding"] = decoding
    digest = hashlib.sha256(json.dumps(basis, sort_keys=True).encode()).hexdigest()[:8]
    return f"{dataset.name}-{procedure or 'baselines'}-seed{seed}-{digest}"


class Results:
    """The evaluation's folder: ``results.jsonl`` (one line per finished unit; a later line for
    the same unit wins), ``spec.json``, ``summary.json``, ``report.md``, ``batch.json``."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.path = self.folder / "results.jsonl"

    def rows(self) -> dict[tuple[str, str, str], dict[str, Any]]:
        found: dict[tuple[str, str, str], dict[str, Any]] = {}
        if not self.path.is_file():
            return found
        for line in self.path.read_bytes().splitlines():
            try:
                row = json.loads(line.decode("utf-8"))
                found[(row["item"], row["method"], row["framing"])] = row
            except (ValueError, KeyError, TypeError):
                continue  # a line cut short by a crash or damaged on disk: that unit runs again
        return found

    def append(self, row: dict[str, Any]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def write_json(self, name: str, data: Any) -> Path:
        self.folder.mkdir(parents=True, exist_ok=True)
        target = self.folder / name
        tmp = target.with_suffix(target.suffix + ".tmp")
        tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False, default=str), encoding="utf-8")
        os.replace(tmp, target)
        return target

    def write_text(self, name: str, text: str) -> Path:
        self.folder.mkdir(parents=True, exist_ok=True)
        target = self.folder / name
        target.write_text(text, encoding="utf-8")
        return target


def row_for(unit: Unit, prediction: Prediction, dataset: Dataset) -> dict[str, Any]:
    scored = dataclasses.replace(unit.item, gold=unit.gold)
    return {
        "item": unit.item.id, "method": unit.method, "framing": unit.framing, "question": unit.question,
        "asked": unit.digest, "gold": unit.gold, **prediction.as_row(), "correct": dataset.score(scored, prediction.label),
        "seed": unit.seed, "finished_at": datetime.now(UTC).isoformat(),
    }


class Reporter:
    """Progress callbacks; the default says nothing. See ``progress.RichReporter``."""

    def start(self, plan: Plan, done_items: int, folder: Path) -> None: ...

    def note(self, text: str) -> None: ...

    def unit_done(self, row: dict[str, Any], done_items: int, accuracy: dict[str, tuple[int, int]]) -> None: ...

    def stop(self) -> None: ...


class Runner:
    def __init__(self, plan: Plan, settings: Settings, folder: Path, *, store: RunStore | None,
                 backends: dict[str, Backend] | None = None, reporter: Reporter | None = None,
                 batch_options: dict[str, Any] | None = None, reuse: dict[tuple[str, str, str], str] | None = None):
        self.plan, self.settings, self.store, self.backends = plan, settings, store, backends
        self.reuse = reuse or {}  # unit key -> the run of another evaluation whose replies its trial reuses
        self.results = Results(folder)
        self.reporter = reporter or Reporter()
        self.batch_options = batch_options or {}
        self.rows: dict[tuple[str, str, str], dict[str, Any]] = {}
        self.units: list[Unit] = []  # the plan's, from ``load``

    def pending(self, units: Sequence[Unit]) -> list[Unit]:
        def finished(unit: Unit) -> bool:
            row = self.rows.get(unit.key)
            if row is None or (self.plan.retry_failed and row["status"] == "failed"):
                return False
            # a trial decided before --fragility was asked for is tried again with the check, so
            # the fragility report covers every trial rather than the ones that happened to have it
            return not (self.plan.fragility and unit.method in COURT_METHODS and row["status"] != "failed"
                        and "fragility" not in (row.get("details") or {}))

        return [u for u in units if not finished(u)]

    def accuracy(self) -> dict[str, tuple[int, int]]:
        """Right and scored, per method, over the asked questions finished so far."""
        wanted = {i.id for i in self.plan.items}
        out: dict[str, tuple[int, int]] = {}
        for (item, method, framing), row in self.rows.items():
            if framing == "asked" and item in wanted and method in self.plan.methods:
                right, n = out.get(method, (0, 0))
                out[method] = (right + bool(row["correct"]), n + 1)
        return out

    def done_items(self, units: Sequence[Unit]) -> int:
        open_items = {u.item.id for u in self.pending(units)}
        return sum(1 for i in self.plan.items if i.id not in open_items)

    def record(self, unit: Unit, prediction: Prediction, units: Sequence[Unit]) -> None:
        row = row_for(unit, prediction, self.plan.dataset)
        self.results.append(row)
        self.rows[unit.key] = row
        self.reporter.unit_done(row, self.done_items(units), self.accuracy())

    def rescored(self, rows: dict[tuple[str, str, str], dict[str, Any]]) -> dict[tuple[str, str, str], dict[str, Any]]:
        """Rows read back, each scored again by the dataset as it scores now: a fixed scoring
        rule (a selective charge in its specific form) reaches the rows finished before it."""
        items = {i.id: i for i in self.plan.dataset.items()}
        for row in rows.values():
            item = items.get(row["item"])
            if item is not None and "predicted" in row:
                row["correct"] = self.plan.dataset.score(dataclasses.replace(item, gold=row["gold"]), row["predicted"])
        return rows

    def reconcile(self, units: Sequence[Unit]) -> tuple[int, int]:
        """Rows finished before the dataset changed under them (the evaluation id names the
        dataset, not its content): a row whose question or evidence is no longer the item's is
        dropped, so the unit runs again (rows written before the evidence was recorded compare
        the question alone); a row whose gold answer changed is scored again against the new one
        (appended, so the file says so too). How many of each."""
        asked_again = scored_again = 0
        for unit in units:
            row = self.rows.get(unit.key)
            if row is None:
                continue
            if row.get("question", unit.question) != unit.question or row.get("asked", unit.digest) != unit.digest:
                del self.rows[unit.key]
                asked_again += 1
            elif row.get("gold") != unit.gold:
                row = {**row, "gold": unit.gold}
                if "predicted" in row:
                    row["correct"] = self.plan.dataset.score(dataclasses.replace(unit.item, gold=unit.gold),
                                                             row["predicted"])
                self.results.append(row)
                self.rows[unit.key] = row
                scored_again += 1
        return asked_again, scored_again

    def load(self) -> tuple[list[Unit], int, int]:
        """The finished rows read back, scored again and reconciled with the dataset as it is now
        (``rescored``, ``reconcile``): the plan's units, and how many rows were dropped to run
        again and how many scored again."""
        self.rows = self.rescored(self.results.rows())
        self.units = self.plan.units()
        return self.units, *self.reconcile(self.units)

    def unfinished(self) -> int:
        """Items of the plan with a unit not finished, after ``load``."""
        return len(self.plan.items) - self.done_items(self.units)

    async def run(self) -> dict[tuple[str, str, str], dict[str, Any]]:
        units, asked_again, scored_again = self.load()
        todo = self.pending(units)
        pool = BackendPool(self.settings, self.backends)
        if todo:  # a missing API key or model is one line before any progress is shown
            pool.preflight(ModelSpec.parse(model) for model in set(settings_models(self.settings, self.plan.procedure).values()))
        self.reporter.start(self.plan, self.done_items(units), self.results.folder)
        if asked_again or scored_again:
            self.reporter.note("the dataset changed since the earlier results: "
                               + ", ".join(part for part in (
                                   f"{asked_again} unit{'s' if asked_again != 1 else ''} with a new question or evidence run again"
                                   if asked_again else "",
                                   f"{scored_again} scored again against a new answer" if scored_again else "") if part))
        baselines = Baselines(self.settings, pool, self.plan.dataset.answer_format(), procedure=self.plan.procedure)
        gate = asyncio.Semaphore(max(1, self.plan.workers))
        # a label set of its own to choose from; none for yes/no, nor for answers of a shape of their own (a judgment)
        labels = None if self.plan.dataset.yes_no or baselines.answer is not None else list(self.plan.dataset.labels)

        async def one(unit: Unit) -> None:
            async with gate:
                if unit.method in COURT_METHODS:
                    procedure = self.plan.procedure or ""
                    earlier = self.reuse.get(unit.key)
                    found = self.store.find(earlier) if earlier and self.store is not None else None
                    prediction = await run_court(unit.case(), settings=court_settings(self.settings, procedure, unit.method),
                                                 procedure=procedure, store=self.store, backends=self.backends,
                                                 labels=labels, fragility=self.plan.fragility,
                                                 yes_no=self.plan.dataset.yes_no, pacer=pool.pacer, seed=unit.seed,
                                                 reuse=found.calls if found is not None else None)
                else:
                    prediction = await run_baseline(unit.method, unit.case(), baselines, unit.seed, labels)
            if unit.method == "court":
                for arm in self.plan.arms:
                    self.record(dataclasses.replace(unit, method=arm, seed=unit_seed(self.plan.seed, unit.item.id, arm, unit.framing)),
                                arm_prediction(prediction, arm) if arm in prediction.details.get("arms", {})
                                else dataclasses.replace(prediction, label=None, status="failed", details={},
                                                         error=prediction.error or f"the trial made no {arm} decision"),
                                units)
            self.record(unit, prediction, units)

        arms = set(self.plan.arms)  # an arm's row is written with its court trial's, never run alone
        batched = [u for u in todo if self.plan.batch and is_baseline(u.method)]
        jobs = [one(u) for u in todo if u.method not in arms and not (self.plan.batch and is_baseline(u.method))]
        if batched:
            from .batch import run_batch

            jobs.append(run_batch(batched, baselines, self.results,
                                  lambda unit, prediction: self.record(unit, prediction, units), **self.batch_options))
        tasks = [asyncio.ensure_future(job) for job in jobs]
        try:
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)  # trials save their partial records
            await pool.aclose()
            self.reporter.stop()
        return self.rows


def selected_rows(plan: Plan, rows: dict[tuple[str, str, str], dict[str, Any]]) -> list[dict[str, Any]]:
    """The finished rows of this command's items and methods, in item order."""
    order = {item.id: n for n, item in enumerate(plan.items)}
    kept = [r for (item, method, _), r in rows.items() if item in order and method in plan.methods]
    return sorted(kept, key=lambda r: (order[r["item"]], plan.methods.index(r["method"]), FRAMINGS.index(r["framing"])))


def court_runs(results: Path, store: RunStore) -> tuple[list[tuple[dict[str, Any], Any]], int]:
    """(row, stored run) of each court row of an evaluation's ``results.jsonl`` (every court arm),
    in its order, and how many of their runs ``store`` does not hold: what bench scripts that
    read an evaluation's trials again start from."""
    rows = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
    found, missing = [], 0
    for row in rows:
        if not row["method"].startswith("court") or not row.get("run_id"):
            continue
        record = store.find(row["run_id"])
        if record is None:
            missing += 1
        else:
            found.append((row, record))
    return found, missing
