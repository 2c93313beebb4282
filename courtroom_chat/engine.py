"""Run a procedure on a case: ``Trial(case, settings).run(on_event)`` or ``async for e in trial.events()``.

The trial owns the run record. Whatever happens (a verdict, a failure, a budget stop, a
cancel or Ctrl-C) the record is closed, the final ``RunFinished`` event is emitted, and the
record is saved before control returns. Failures are raised as ``CourtroomError`` with the
saved record attached as ``err.record``; a cancel re-raises ``CancelledError``.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any

from .backends import Backend, BackendPool
from .backends.reuse import Replies
from .case import Case
from .config import ModelSpec, Settings, load_settings
from .court import Court
from .errors import BudgetExceeded, CaseError, CourtroomError, InputError
from .events import BudgetStopped, Event, RunFinished, RunStarted, TextDelta
from .motion import MotionError, motion_for
from .procedures import get as get_procedure
from .records import CallRecord, RunRecord, now
from .store import RunStore, new_run_id
from .throttle import Pacer

EventHandler = Callable[[Event], Any]


class Trial:
    def __init__(
        self,
        case: Case,
        settings: Settings | None = None,
        *,
        procedure: str | None = None,
        store: RunStore | str | os.PathLike[str] | None | bool = True,
        backends: dict[str, Backend] | None = None,
        dry_run: bool = False,
        run_id: str | None = None,
        owner: str = "",
        seed: int | None = None,
        mirror: bool = False,
        fragility: bool = False,
        pacer: Pacer | None = None,
        reuse: Iterable[CallRecord] | None = None,
    ):
        self.settings = settings or load_settings()
        self.procedure = get_procedure(procedure or case.procedure or "decision")
        self.params = self.settings.procedure_params(self.procedure.name)  # a bad [procedures.*] table fails here
        # inputs it does not read fail here (a misspelt --input, another procedure's case); then the
        # structured input it reads into the evidence (a transcript)
        asked = case.question
        case = self.procedure.take(case, self.params)
        self.asked = asked if case.question != asked else ""  # tried reworded ("Design A or B?")
        self.procedure.check_case(case)  # a question it cannot try ("Design A or B?") fails here
        if mirror and (why := self.unmirrored(case.question)):
            raise CaseError(why)
        self.dry_run = dry_run
        if dry_run and not self.procedure.defines("plan"):
            raise self.procedure.no_plan()
        if store is True:
            store = None if dry_run else RunStore.default(self.settings.runs.dir)
        elif isinstance(store, (str, os.PathLike)):  # a folder, as the notebook takes it
            store = RunStore(store)
        elif not isinstance(store, (RunStore, bool)) and store is not None:
            raise InputError(f"store must be a folder for the runs, a RunStore, True (the default folder) or False "
                             f"(keep nothing); got a {type(store).__name__}")
        self.store: RunStore | None = store.writable() if store else None  # before any model is called
        self.save_problem = ""  # why the finished run could not be stored (a full disk), else ""
        self.owner = owner
        # pacer: shared by an evaluation; reuse: an earlier trial's calls, whose replies answer the same requests
        self.pool = BackendPool(self.settings, backends, dry_run=dry_run, pacer=pacer,
                                replies=Replies(reuse) if reuse is not None else None)
        from . import screening

        specs = [self.settings.model_for(role.name, self.procedure.name) for role in self.procedure.roles]
        specs += [ModelSpec.parse(spec).resolved(self.settings) for spec in self.procedure.models(self.params)]
        if screening.enabled(self.settings):
            specs.append(self.settings.model_for(screening.ROLE))  # the evidence screener's model, checked up front too
        self.pool.preflight(specs)
        self.mirror, self.fragility = mirror, fragility
        self.backends = backends
        run_id = run_id or new_run_id()
        self.record = RunRecord(
            run_id=run_id,
            seed=seed if seed is not None else int.from_bytes(hashlib.sha256(run_id.encode()).digest()[:4], "big"),
            procedure=self.procedure.name,
            case=case,
            settings=self.settings.model_dump(),
            models={role.name: str(self.settings.model_for(role.name, self.procedure.name)) for role in self.procedure.roles},
            dry_run=dry_run,
        )
        self._handlers: list[EventHandler] = []
        self._pending: list[Awaitable[Any]] = []

    @property
    def run_id(self) -> str:
        return self.record.run_id

    def _emit(self, event: Event) -> None:
        events = self.record.events
        if isinstance(event, TextDelta) and events and events[-1].get("type") == "text_delta" \
                and events[-1].get("agent") == event.agent:
            events[-1]["text"] += event.text  # stored deltas are merged; handlers still see each one
        else:
            events.append(event.model_dump(mode="json"))
        for handler in self._handlers:
            result = handler(event)
            if inspect.isawaitable(result):
                self._pending.append(asyncio.ensure_future(result))

    async def _drain(self) -> None:
        while self._pending:
            pending, self._pending = self._pending, []
            await asyncio.gather(*pending, return_exceptions=False)

    def unmirrored(self, question: str) -> str:
        """Why ``--mirror`` cannot turn ``question`` around under this procedure, in one line, or ""."""
        try:
            if motion_for(question).mirror_question:
                return ""
        except MotionError:  # labels or options to choose among ("Which emotion …: joy or anger?")
            return (f"--mirror turns a yes/no question around, and “{question}” offers a choice of labels or "
                    f"options: run it without --mirror")
        shape = ("about one charge or claim at a time, as “Is Tom Reed guilty of burglary?”" if self.procedure.tries
                 else "as 'Should I …?', 'Is it worth …?', 'Can we …?'")
        return f"--mirror: no rule negates the question “{question}”; ask it {shape}, or run without --mirror"

    async def run(self, on_event: EventHandler | None = None) -> RunRecord:
        """Run the trial to its end and return the record; raise on failure (record saved)."""
        if on_event is not None:
            self._handlers.append(on_event)
        record = self.record
        started = time.perf_counter()
        court = Court(record, self.settings, self.pool, self._emit, self.procedure)
        court.emit(RunStarted(
            run_id=record.run_id, procedure=record.procedure, procedure_title=self.procedure.title,
            question=record.case.question, asked=self.asked, documents=[d.name for d in record.case.context],
            stages=[s for s, _ in self.procedure.stages], stage_titles=dict(self.procedure.stages),
            models=record.models, dry_run=self.dry_run,
        ))
        failure: BaseException | None = None
        try:
            await court.screen(dry_run=self.dry_run)
            if self.dry_run:
                await self.procedure.plan(court)
            else:
                await self.procedure.run(court)
                if record.outcome is not None and (self.mirror or self.fragility):
                    await self._checks(court)
            record.status = "complete"
        except asyncio.CancelledError as exc:
            record.status, record.error, failure = "incomplete", "cancelled before the verdict", exc
        except KeyboardInterrupt as exc:
            record.status, record.error, failure = "incomplete", "interrupted (Ctrl-C) before the verdict", exc
        except BudgetExceeded as exc:
            record.status, record.error, failure = "stopped", str(exc), exc
            court.emit(BudgetStopped(stage=exc.stage, estimate_usd=exc.estimate_usd, spent_usd=exc.spent_usd,
                                     cap_usd=exc.cap_usd, message=str(exc)))
        except CourtroomError as exc:
            record.status, record.error, failure = "failed", str(exc), exc
        except Exception as exc:  # a bug: keep the record, then let it surface
            record.status, record.error, failure = "failed", f"internal error: {exc!r}", exc
        finally:
            await self.pool.aclose()
            record.finished_at = now()
            record.duration_ms = int((time.perf_counter() - started) * 1000)
            court.emit(RunFinished(
                run_id=record.run_id, status=record.status, stages_completed=record.stages_completed,
                duration_ms=record.duration_ms, cost_usd=record.cost_usd, cost_known=record.cost_known,
                cost_by_role=record.cost_by_role(), error=record.error,
            ))
            if self.store is not None:
                try:
                    self.store.save(record, owner=self.owner)
                except CourtroomError as exc:  # a full disk: the verdict is still shown, with what was not saved
                    self.save_problem = str(exc)
            try:
                await self._drain()
            finally:
                if on_event is not None:
                    self._handlers.remove(on_event)
        if failure is not None:
            if isinstance(failure, CourtroomError):
                failure.record = record  # type: ignore[attr-defined]
            raise failure
        return record

    async def _checks(self, court: Court) -> None:
        """How far the verdict holds: decided again without its most-cited evidence (fragility),
        and the negated question tried with the sides swapped (mirror). The outcome is announced
        again with what was found."""
        outcome = court.record.outcome
        assert outcome is not None
        if self.fragility:
            async with court.stage("fragility", "Fragility check") as stage:
                found = await self.procedure.fragility(court)
                if found is None:
                    found = {"held": None, "summary": f"not available for the {self.procedure.title.lower()}"}
                outcome.data["fragility"] = found
                stage.state = "held" if found.get("held") else "did not hold" if found.get("held") is False else "not run"
                stage.markdown = found["summary"]
        if self.mirror:
            async with court.stage("mirror", "Mirror trial") as stage:
                found = await self._mirror(court.record)
                outcome.data["mirror"] = found
                stage.state = found["kind"].replace("_", " ")
                stage.markdown = found["summary"]
        court.conclude(outcome)

    async def _mirror(self, record: RunRecord) -> dict[str, Any]:
        """The same trial on the negated question; its own stored run, linked by id."""
        motion = motion_for(record.case.question)
        case = record.case.model_copy(update={"question": motion.mirror_question, "evidence": []})
        trial = Trial(case, self.settings, procedure=self.procedure.name, store=self.store or False,
                      backends=self.backends, seed=record.seed + 1, owner=self.owner)
        mirrored = await trial.run()
        return mirror_summary(record.outcome.polarity if record.outcome else None,
                              mirrored.outcome.polarity if mirrored.outcome else None,
                              motion.mirror_question, mirrored.outcome.answer if mirrored.outcome else "",
                              mirrored.run_id)

    async def events(self) -> AsyncIterator[Event]:
        """The trial as an async stream of events.

        Closing the stream, or the end of the task consuming it (a cancel while it renders),
        cancels the trial, which then saves its partial record."""
        queue: asyncio.Queue[Event | None] = asyncio.Queue()
        task = asyncio.ensure_future(self.run(queue.put_nowait))
        task.add_done_callback(lambda _: queue.put_nowait(None))
        consumer = asyncio.current_task()

        def cancel_trial(_: object) -> None:
            task.cancel()

        if consumer is not None:
            consumer.add_done_callback(cancel_trial)
        try:
            while (event := await queue.get()) is not None:
                yield event
            await task  # re-raise a failure to the consumer
        finally:
            if consumer is not None:  # a long-lived consumer must not keep every finished trial
                consumer.remove_done_callback(cancel_trial)
            if not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)


def mirror_summary(original: str | None, mirrored: str | None, question: str, answer: str, run_id: str) -> dict[str, Any]:
    """How a verdict and the verdict on its negated question relate, in plain words.

    Consistent answers are opposite (Yes to the question, No to its negation). "No to both"
    and "Yes to both" contradict each other: the court leans on the framing, not the evidence."""
    pair = (original, mirrored)
    kind = {("yes", "no"): "agree", ("no", "yes"): "agree", ("no", "no"): "no_to_both",
            ("yes", "yes"): "yes_to_both"}.get(pair, "undecided")  # type: ignore[arg-type]
    words = {
        "agree": "the mirror trial answered the other way, as it should: the verdict does not hang on the framing",
        "no_to_both": "the court said No to the question and No to its negation: it leans toward No, whatever No means",
        "yes_to_both": "the court said Yes to the question and Yes to its negation: it leans toward Yes, whatever Yes means",
        "undecided": "one of the two trials reached no decision",
    }[kind]
    return {"kind": kind, "question": question, "answer": answer, "run_id": run_id,
            "summary": f'{words} (asked "{question}": {answer or "no answer"}; run {run_id})'}


async def run(case: Case | str | os.PathLike[str], settings: Settings | None = None, *,
              evidence: list[Any] | None = None, on_event: EventHandler | None = None, **options: Any) -> RunRecord:
    """Run a trial: ``await courtroom_chat.run("cases/essay-publish.json")``, or
    ``await courtroom_chat.run("Should I merge PR 9?", evidence=["pr.diff", "review.md"])``.

    ``case`` is a ``Case``, a case file path, or the question itself (as the CLI reads its first
    argument). ``evidence``: files, folders or globs (relative to the current directory), or
    documents written in place as ``{"name": ..., "text": ...}``, added to the case's. ``options``
    go to ``Trial`` (procedure, store, backends, dry_run, mirror, fragility, seed);
    ``backend="scripted"`` puts every role on one backend.
    """
    from .case import TEXT_IN_PLACE, case_file_or_question, context_documents, load_case

    settings = settings or load_settings()
    backend = options.pop("backend", None)
    if backend:
        settings = settings.with_backend(backend)
    if isinstance(evidence, (str, os.PathLike)):
        evidence = [evidence]
    given = [os.fspath(e) if isinstance(e, os.PathLike) else e for e in evidence or []]
    if isinstance(case, Case):
        if given:
            case = case.model_copy(update={"context": [*case.context, *context_documents(given, Path.cwd(), settings.limits)]})
    else:
        path, question = case_file_or_question(case, 'run_sync("Should I …?", evidence=["notes.md"])')
        case = load_case(path, question=question, context=given, limits=settings.limits, text_hint=TEXT_IN_PLACE)
    return await Trial(case, settings, **options).run(on_event)


def run_sync(case: Case | str | os.PathLike[str], settings: Settings | None = None, **options: Any) -> RunRecord:
    """``run``, blocking until the verdict. Inside a running event loop (a Jupyter cell) the
    trial runs on its own loop in a worker thread; ``await run(...)`` keeps the kernel free."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(run(case, settings, **options))
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="courtroom-run") as pool:
        return pool.submit(asyncio.run, run(case, settings, **options)).result()
