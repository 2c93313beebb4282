"""The runtime every procedure runs on.

A procedure's stage functions call ``Court.ask`` to put a prompt to an agent and get back
a typed, validated answer; ``Court.stage`` to open and close a stage (with its budget
check); ``Court.finish``, ``Court.item``, ``Court.tally`` and ``Court.conclude`` to say what
happened in the procedure-neutral events every front end renders; ``Court.warn`` to report.
The runtime owns the mechanics shared by every procedure:

* prompts: the procedure's system prompt, then the shared case block, then the agent's prompt;
* tolerant parsing of the JSON reply, schema validation, the procedure's own rules;
* exactly one repair: the agent is shown what was wrong and asked again;
* what still fails a rule becomes a recorded warning, never silently dropped; what still
  fails the schema raises ``RoleOutputError`` carrying the raw text;
* a throttle on concurrent requests and a delay between them ([throttle] in config);
* one ``CallRecord`` per request (prompt, raw reply, usage, cost, time) and its event.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import BaseModel

from . import measured
from .backends import BackendPool
from .backends.base import Backend, ModelRequest, sampling_seed
from .case import Case
from .config import ModelSpec, Settings
from .cost import call_cost, dollars, estimate_cost
from .errors import BackendError, BudgetExceeded, ContextTooLongError, RoleOutputError
from .events import (
    AgentFailed,
    AgentFinished,
    AgentRetry,
    AgentStarted,
    CallFinished,
    ItemChecked,
    OutcomeReached,
    PromptPlanned,
    StageFinished,
    StageStarted,
    TallyUpdated,
    TextDelta,
    WarningRaised,
)
from .evidence import withhold as withhold_passage
from .injection import Flag, flag_for, mark, notice, prompt_leaks, redacted, scan
from .motion import holds_back
from .prompts import render
from .records import CallRecord, Outcome, RunRecord, Warning
from .replies import (
    SALVAGE_SAID,
    SHORTENED,
    Problem,
    finished,
    foreign_characters,
    latin_script,
    parse_reply,
    salvaged,
    unrepeated,
)

if TYPE_CHECKING:
    from .procedures.base import Procedure

T = TypeVar("T", bound=BaseModel)

# How each backend says a reply stopped at its token limit (llama.cpp and Ollama, Anthropic).
CUT_OFF = {"length", "max_tokens"}
CUT_OFF_ROOM = 1.5  # a repair after a reply that hit its token limit gets this many times the room


@dataclass
class Agent:
    name: str  # juror-3
    role: str  # juror
    title: str  # Juror 3
    stage: str
    spec: ModelSpec
    backend: Backend
    persona: str = ""
    temperature: float | None = None  # requested
    max_tokens: int = 800
    expected_output_tokens: int = 300
    round: int = 0

    @property
    def applied_temperature(self) -> float | None:
        return self.temperature if self.backend.accepts_temperature else None

    @property
    def constrained(self) -> bool:
        """Whether the backend decodes under the JSON schema's grammar (patterns then shape the text)."""
        return getattr(self.backend, "constrained_decoding", False)  # a plugin backend may not say

    @property
    def model_id(self) -> str:
        """The model as its price is looked up: the configured id, else the backend's own."""
        return self.spec.model or self.backend.model


@dataclass
class Answer(Generic[T]):
    value: T
    problems: list[Problem]  # still failing after the repair; recorded as warnings
    repaired: bool
    raw: str


@dataclass
class StageHandle:
    name: str
    title: str
    round: int = 0
    summary: dict[str, Any] = field(default_factory=dict)
    state: str = ""  # a few words after the title once it closes
    markdown: str = ""  # a closing note


class Court:
    def __init__(
        self,
        record: RunRecord,
        settings: Settings,
        pool: BackendPool,
        emit: Callable[[Any], None],
        procedure: Procedure,
    ):
        self.record = record
        self.case: Case = record.case
        self.settings = settings
        self.procedure = procedure
        self.params: Any = settings.procedure_params(procedure.name)
        self.pool = pool
        self._emit = emit
        self._t0 = time.perf_counter()
        self.latin = latin_script(" ".join([self.case.question, *(d.text[:20_000] for d in self.case.context)]))
        self.system = procedure.system_prompt(self.case)
        # Evidence that gives orders is found before any call, shown to the person, cut from
        # what the agents read (its place and the reason are left), and cannot be an exhibit.
        self.set_flags(scan(self.case.context))
        self.prefixes: dict[str, str] = {}  # an agent that reads the case its own way (order, question)
        self.views: dict[str, tuple[list[int] | None, str | None]] = {}  # that way: evidence order, question
        self._taught: list[str] | None = None  # the instructions' own wording, for the prompt-leak rule
        self.seed = record.seed
        self.label = ""  # a shadow court's purpose ("fragility")
        self._stage_of: dict[str, str] = {}  # agent -> the stage it speaks in
        self._current = ""
        self._current_round = 0  # the open stage's round (0: a stage not held in rounds)
        self._window_checked = False  # a dry run warns once of a prompt past the model's window

    async def screen(self, *, dry_run: bool = False) -> None:
        """Show the person every flagged passage, before any agent speaks; first, where
        ``[injection] second_opinion`` asks for it, add a model's (``screening``)."""
        from . import screening
        from .case import web_address

        address = web_address(self.case.question)
        if address and not self.case.context:  # "Should I merge https://…/pull/12?": nothing of it is read
            self.emit(StageStarted(stage="screening", title="Evidence screening"))
            self.warn("court", "web_address", (
                f"the question names a web address ({address}) and no evidence is attached: the court does not open "
                "links, so it tries the question on its words alone; attach the page as a file (a pull request's "
                "changes: gh pr diff NUMBER > pr.diff)"), stage="screening")
            self.emit(StageFinished(stage="screening", title="Evidence screening", state="no evidence attached"))
            return  # with no evidence there is nothing else to screen
        opinion = screening.enabled(self.settings) and any(d.text.strip() for d in self.case.context)
        if opinion:
            self.emit(StageStarted(stage="screening", title="Evidence screening"))
            found = await screening.second_opinion(self, dry_run=dry_run)
            if found:
                self.set_flags(screening.merge(self.flags, found))
        if not self.flags:
            if opinion and not dry_run:  # a dry run's stages stay open, showing their prompts
                self.emit(StageFinished(stage="screening", title="Evidence screening", state="nothing flagged"))
            return
        if not opinion:
            self.emit(StageStarted(stage="screening", title="Evidence screening"))
        for n, flag in enumerate(self.flags, 1):
            hidden = f"\n\nHidden text it carries: `{flag.revealed}`" if flag.revealed else ""
            note = f"\n\nThe screener's note: {flag.note}" if flag.note else ""
            self.item("flag", f"Flagged · {flag.short()} · {flag.kind}", False, number=n, stage="screening",
                      detail=f"**Flagged at** `{flag.short()}`: {flag.reason}.\n\n````text\n{flag.passage}\n````{hidden}{note}",
                      line=f"flagged {flag.short()}: {flag.reason}", data=flag)
        places = ", ".join(f.short() for f in self.flags)
        self.warn("court", "evidence_flagged", (
            f"{len(self.flags)} passage{'s' if len(self.flags) != 1 else ''} of the evidence ({places}) "
            f"{'tries' if len(self.flags) == 1 else 'try'} to instruct the court or steer the verdict: cut from what the "
            "agents read, and not allowed as exhibits"), stage="screening")
        self.emit(StageFinished(stage="screening", title="Evidence screening",
                                state=f"{len(self.flags)} flagged"))

    def set_flags(self, flags: list[Flag]) -> None:
        """The flagged passages: recorded, cut from what the agents read, named in their notice."""
        self.flags: list[Flag] = flags
        self.record.flags = [f.model_dump(mode="json") for f in flags]
        self.readable = redacted(self.case.context, flags) if flags else list(self.case.context)
        self.withheld: list[str] = []  # the markers ``withhold`` put in ``readable``
        self.prefix = self._case_text(self.readable)

    def flagged(self, document: str, char_start: int, char_end: int) -> Flag | None:
        """The flagged passage a quoted span overlaps, if any."""
        return flag_for(self.flags, document, char_start, char_end)

    def leaks(self, reply: str) -> list[str]:
        """Phrases of a reply that repeat the procedure's own instructions (a template line, a hint)."""
        if self._taught is None:
            self._taught = self.procedure.instructions()
        allowed = [self.case.question, *(d.text for d in self.case.context)]
        return prompt_leaks(reply, self._taught, allowed, min_words=6)

    def rng(self, agent: str, purpose: str = "") -> random.Random:
        """A random source for one agent, fixed by the run's seed: the same run seed gives the
        same orders again, and each agent gets its own."""
        digest = hashlib.sha256(f"{self.seed}:{agent}:{purpose}".encode()).digest()
        return random.Random(int.from_bytes(digest[:8], "big"))

    # ------------------------------------------------------------------ reporting

    def emit(self, event: Any) -> None:
        event.t = round(time.perf_counter() - self._t0, 3)
        self._emit(event)

    def warn(self, agent: str, rule: str, message: str, *, stage: str = "") -> None:
        self.record.warnings.append(Warning(agent=agent, rule=rule, message=message))
        self.emit(WarningRaised(agent=agent, rule=rule, message=message,
                                stage=stage or self._stage_of.get(agent, self._current)))

    def prose(self, agent: str, field: str, text: str, *, other: tuple[str, str] | None = None) -> str:
        """A prose field as shown: a sentence written again word for word is shown once (with a
        warning saying how many were left out; the reply as written stays in the record's
        calls), and text that stops mid-sentence ends at its last whole sentence. ``other``,
        (whose, text): another agent's words, whose sentences this field copies word for word
        are left out of it too, unless nothing else would be left (a warning says which)."""
        if other is not None:
            whose, theirs = other
            own, copied = unrepeated(text, known=theirs)
            if copied:
                all_of_it = not own.strip()
                self.warn(agent, "copied_sentences", (
                    f"the {agent}'s {field.replace('_', ' ')} is the {whose}'s sentences word for word" if all_of_it else
                    f"the {agent}'s {field.replace('_', ' ')} repeated {copied} of the {whose}'s sentences word for word; "
                    f"{'they are' if copied > 1 else 'it is'} left out of it (the reply as written is kept in the record)"))
                text = text if all_of_it else own
        kept, dropped = unrepeated(text)
        if dropped:
            self.warn(agent, "repeated_sentences", f"the {field.replace('_', ' ')} repeated {dropped} "
                      f"sentence{'s' if dropped > 1 else ''} word for word; each is shown once (the reply as "
                      "written is kept in the record)")
        return finished(kept)

    @asynccontextmanager
    async def stage(self, name: str, title: str = "", planned: list[tuple[Agent, str]] | None = None, *,
                    round: int = 0) -> AsyncIterator[StageHandle]:
        """Open a stage: refuse it past the budget, announce it, and close it when done."""
        title = title or self.procedure.stage_title(name)
        if planned:
            self.check_budget(name, planned)
        handle = StageHandle(name, title, round)
        self._current, self._current_round = name, round
        self.emit(StageStarted(stage=name, title=title, round=round))
        yield handle
        if name not in self.record.stages_completed:
            self.record.stages_completed.append(name)
        self.emit(StageFinished(stage=name, title=title, summary=handle.summary, state=handle.state,
                                markdown=handle.markdown, round=round))

    def finish(self, agent: Agent | str, output: BaseModel | dict[str, Any], *, markdown: str, title: str = "",
               line: str = "", repaired: bool = False, key: str = "") -> None:
        """An agent has spoken: keep its typed output under its name and show it."""
        name = agent if isinstance(agent, str) else agent.name
        data = output.model_dump(mode="json") if isinstance(output, BaseModel) else output
        self.record.outputs[key or name] = data
        self.emit(AgentFinished(
            stage=self._stage_of.get(name, self._current), agent=name, output=data, repaired=repaired,
            title=title or (agent.title if isinstance(agent, Agent) else name), markdown=markdown, line=line,
            round=agent.round if isinstance(agent, Agent) else 0,
        ))

    def keep(self, key: str, output: BaseModel | dict[str, Any]) -> None:
        """Keep a record the procedure builds from several agents (a jury's tally, a verdict)."""
        self.record.outputs[key] = output.model_dump(mode="json") if isinstance(output, BaseModel) else output

    def item(self, kind: str, title: str, ok: bool, *, detail: str = "", line: str = "", number: int = 0,
             data: BaseModel | dict[str, Any] | None = None, agent: str = "", stage: str = "",
             round: int | None = None) -> None:
        """A checked item a person should see (an exhibit's quote, a citation), shown in the round
        of its stage it was checked in: ``round``, else the open stage's own when it is that stage."""
        payload = data.model_dump(mode="json") if isinstance(data, BaseModel) else dict(data or {})
        if round is None:
            round = self._current_round if stage in ("", self._current) else 0
        self.emit(ItemChecked(stage=stage or self._current, agent=agent, kind=kind, number=number, title=title,
                              ok=ok, detail=detail, line=line, data=payload, round=round))

    def tally(self, labels: list[str], counts: dict[str, int], *, pending: int = 0, failed: int = 0, seated: int = 0,
              title: str = "Tally", stage: str = "", round: int = 0) -> None:
        self.emit(TallyUpdated(stage=stage or self._current, title=title, labels=labels, counts=counts,
                               pending=pending, failed=failed, seated=seated, round=round))

    def conclude(self, outcome: Outcome) -> None:
        """The trial's outcome: kept in the record and announced."""
        outcome.warnings = [w.message for w in self.record.warnings]
        calls = self.record.calls
        outcome.demo = bool(calls) and all(c.backend == "scripted" for c in calls)
        if self.record.flags:
            outcome.data["flags"] = len(self.record.flags)
        contradicted = sorted({w.agent for w in self.record.warnings if w.rule == "juror_contradiction"})
        if contradicted:  # voters whose answer went against their own reasoning, also when asked again
            outcome.data["against_reasoning"] = len(contradicted)
        record = measured.for_trial(self.record.procedure, self.record.models)
        if record is not None:
            outcome.data["measured"] = record
            if record.get("inverted") and (verb := holds_back(self.case.question)):
                outcome.data["holds_back"] = verb  # a Yes means not going ahead, where this model was weak
        self.record.outcome = outcome
        self.emit(OutcomeReached(outcome=outcome.model_dump(mode="json")))

    def shadow(self, label: str, case: Case | None = None) -> Court:
        """A court over a copy of this case (or ``case``, the case with evidence changed) that
        shows nothing: for deciding again on changed evidence (a fragility check). Its calls are
        added to this record by ``absorb``."""
        shadow = RunRecord(run_id=f"{self.record.run_id}-{label}", case=case or self.case, seed=self.record.seed,
                           procedure=self.record.procedure)
        court = Court(shadow, self.settings, self.pool, lambda event: None, self.procedure)
        court.set_flags(self.flags)  # the model's second opinion included, not asked for again
        court.label = label
        return court

    def _case_text(self, documents: list[Any], question: str | None = None) -> str:
        shown = self.case.model_copy(update={"context": documents, "question": question or self.case.question})
        return self.procedure.case_block(shown) + (f"\n\n{notice(self.flags)}" if self.flags else "")

    def reorder_evidence(self, agent: str, order: list[int]) -> None:
        """``agent`` reads the evidence documents in ``order`` (their 1-based numbers), as an
        order control; it then reads the whole case anew instead of from the shared prompt cache."""
        if sorted(order) != list(range(1, len(self.readable) + 1)):
            raise ValueError(f"not an order of the {len(self.readable)} evidence documents: {order}")
        self._view(agent, order, self.views.get(agent, (None, None))[1])

    def ask_instead(self, agent: str, question: str) -> None:
        """``agent`` reads the case under ``question`` instead of the one asked (the same decision
        asked another way, ``motion.direct_question``); agents asked the same share a prompt cache."""
        self._view(agent, self.views.get(agent, (None, None))[0], question)

    def _view(self, agent: str, order: list[int] | None, question: str | None) -> None:
        self.views[agent] = (order, question)
        if (order and order != sorted(order)) or question:
            documents = [self.readable[i - 1] for i in order] if order else self.readable
            self.prefixes[agent] = self._case_text(documents, question)

    def withhold(self, quote: str, marker: str) -> bool:
        """Withhold a passage from every agent of this court (a shadow court's second jury):
        ``quote`` becomes ``marker`` wherever the evidence holds it; whether it was found."""
        found, documents = False, []
        for doc in self.readable:
            text, hit = withhold_passage(doc.text, quote, marker)
            found = found or hit
            documents.append(doc.model_copy(update={"text": text}) if hit else doc)
        if found:
            self.withheld.append(marker)
        self.readable = documents
        self.prefix = self._case_text(documents)
        return found

    def evidence_left(self) -> bool:
        """Whether the evidence still says anything once passages are withheld: a word outside the
        markers that stand for withheld or flagged passages. A fragility check that withheld the
        whole text (a one-sentence text, its passage all of it) would decide on the arguments
        alone, which tests nothing."""
        marks = [*self.withheld, *map(mark, self.flags)]
        for doc in self.readable:
            text = doc.text
            for marker in marks:
                text = text.replace(marker, " ")
            if re.search(r"\w", text):
                return True
        return False

    def prefix_for(self, agent: Agent) -> str:
        """The case as ``agent`` reads it: the shared case block, or its own order of the evidence."""
        return self.prefixes.get(agent.name, self.prefix)

    def absorb(self, shadow: Court) -> None:
        """Keep a shadow court's calls (their cost and tokens) in this record, marked by stage."""
        for call in shadow.record.calls:
            call.id = len(self.record.calls) + 1
            call.stage = f"{shadow.label or 'shadow'}:{call.stage}"
            self.record.calls.append(call)

    def plan_prompt(self, stage: str, agent: Agent, prompt: str, wire: type[BaseModel], *,
                    system: str | None = None, prefix: str | None = None) -> None:
        """Dry run: announce the exact prompt ``agent`` would get, with estimates; a prompt that
        would not fit the model's window is a warning here (once), as the real run refuses it."""
        if not self._window_checked:
            try:
                self.check_context([(agent, prompt)])
            except ContextTooLongError as exc:
                self._window_checked = True
                self.warn("court", "context_window", f"{exc}; a real run stops there, before any call")
        request = self.request(agent, prompt, wire, {}, system=system, prefix=prefix)
        messages = request.messages()
        tokens_in = agent.backend.estimate_tokens("\n".join(m["content"] for m in messages))
        self.emit(PromptPlanned(
            stage=stage, agent=agent.name, role=agent.role, model=str(agent.spec),
            temperature=agent.applied_temperature, messages=messages, input_tokens=tokens_in,
            output_tokens=agent.expected_output_tokens,
            cost_usd=estimate_cost(agent.backend.price_provider, agent.model_id, tokens_in, agent.expected_output_tokens),
        ))

    # ------------------------------------------------------------------ agents

    def agent(self, name: str, role: str, title: str = "", stage: str = "", *, persona: str = "",
              temperature: float | None = None, max_tokens: int | None = None,
              expected_output_tokens: int | None = None, round: int = 0) -> Agent:
        """Seat an agent of a declared role; budgets default to the role's."""
        declared = self.procedure.role(role)
        spec = self.settings.model_for(role, self.procedure.name)
        stage = stage or self._current
        self._stage_of[name] = stage
        return Agent(name, role, title or (declared.title if declared else name), stage, spec, self.pool.get(spec),
                     persona, temperature,
                     max_tokens or (declared.max_tokens if declared else 800),
                     expected_output_tokens or (declared.expected_output_tokens if declared else 300), round)

    def system_for(self, agent: Agent) -> str:
        """The system prompt ``agent`` reads: its role's own, or the procedure's shared one."""
        return self.procedure.role_system(self, agent.role) or self.system

    def request(self, agent: Agent, prompt: str, wire: type[BaseModel], inputs: dict[str, Any],
                schema: dict[str, Any] | None = None, *, system: str | None = None,
                prefix: str | None = None) -> ModelRequest:
        """``system`` and ``prefix`` replace the procedure's system prompt and the case block,
        for a court-level role that reads something else (the evidence screener)."""
        return ModelRequest(
            agent=agent.name,
            role=agent.role,
            system=self.system_for(agent) if system is None else system,
            prefix=self.prefix_for(agent) if prefix is None else prefix,
            prompt=prompt,
            schema=schema or wire.model_json_schema(),
            schema_name=wire.__name__,
            temperature=agent.applied_temperature,
            max_tokens=agent.max_tokens,
            seed=sampling_seed(self.seed, agent.name),
            case=self.case,
            inputs=inputs,
            procedure=self.procedure,
        )

    def check_context(self, agents: list[tuple[Agent, str]]) -> None:
        """Refuse, before any call, a case that cannot fit a model's context window."""
        for agent, prompt in agents:
            window = agent.backend.context_window
            if not window:
                continue
            needed = agent.backend.estimate_tokens(f"{self.system_for(agent)}\n{self.prefix_for(agent)}\n\n{prompt}") + agent.max_tokens
            if needed > window:
                evidence = agent.backend.estimate_tokens(self.prefix)
                cut = needed - window
                raise ContextTooLongError(
                    f"the case is too long for {agent.spec}: the {agent.role}'s prompt needs about {needed:,} tokens "
                    f"(evidence ~{evidence:,}) but the model's window is {window:,}; cut about {cut:,} tokens "
                    f"(~{int(cut * 3.6):,} characters) of evidence, or use a model with a longer window"
                )

    def estimate_stage(self, planned: list[tuple[Agent, str]]) -> float:
        """Dollars a stage is expected to cost: estimated prompt tokens (no cache discount) plus
        each role's expected output, priced like real calls."""
        estimate = 0.0
        for agent, prompt in planned:
            tokens_in = agent.backend.estimate_tokens(f"{self.system_for(agent)}\n{self.prefix_for(agent)}\n\n{prompt}")
            cost = estimate_cost(agent.backend.price_provider, agent.model_id, tokens_in, agent.expected_output_tokens)
            estimate += cost or 0.0
        return estimate

    def check_budget(self, stage: str, planned: list[tuple[Agent, str]], estimate: float | None = None) -> None:
        """Refuse a stage that would pass the budget cap; ``estimate`` when the caller priced it."""
        cap = self.settings.budget.max_usd
        if not cap:
            return
        estimate = self.estimate_stage(planned) if estimate is None else estimate
        spent = self.record.cost_usd
        if spent + estimate > cap:
            raise BudgetExceeded(
                f"budget stop before the {stage} stage: it would cost about {dollars(estimate)} on top of "
                f"{dollars(spent)} spent, past the cap of {dollars(cap)} ([budget] max_usd)",
                stage=stage, estimate_usd=round(estimate, 6), spent_usd=spent, cap_usd=cap,
            )

    async def ask(
        self,
        agent: Agent,
        prompt: str,
        wire: type[T],
        *,
        inputs: dict[str, Any] | None = None,
        check: Callable[[T], list[Problem]] | None = None,
        keep_hint: str = "",
        announce: bool = True,
        schema: dict[str, Any] | None = None,
        system: str | None = None,
        prefix: str | None = None,
        resample: dict[str, float] | None = None,
    ) -> Answer[T]:
        """Ask ``agent`` and return a schema-valid answer, after at most one repair.

        ``schema`` refines the wire model's JSON schema for decoding (see ``refine_schema``);
        the reply is still validated against ``wire``. ``resample`` maps a rule to the lowest
        temperature its repair is sampled at: a small model asked again at a low temperature
        mostly writes the same reply again (a turn that repeats an earlier one)."""
        if announce:
            self.emit(AgentStarted(stage=agent.stage, agent=agent.name, role=agent.role, title=agent.title,
                                   persona=agent.persona, model=str(agent.spec), temperature=agent.applied_temperature,
                                   round=agent.round))
        request = self.request(agent, prompt, wire, dict(inputs or {}), schema, system=system, prefix=prefix)
        try:
            raw, call = await self._call(agent, request, attempt=1)
            value, problems = self._judge_reply(call, wire, check)
            if not problems:
                return Answer(value, [], False, raw)
            if value is not None and all(p.rule == SHORTENED for p in problems):
                # Text the code ends at a whole sentence is not worth a second call on its own.
                return Answer(value, problems, False, raw)
            self.emit(AgentRetry(agent=agent.name, problems=[p.message for p in problems]))
            if any(p.rule == "cut_off" for p in problems):
                # A small model asked to be shorter mostly repeats its reply: give the JSON room to close.
                request = dataclasses.replace(request, max_tokens=round(request.max_tokens * CUT_OFF_ROOM),
                                              repairs=list(request.repairs), inputs=dict(request.inputs))
            raised = [t for p in problems if (t := (resample or {}).get(p.rule)) is not None]
            if raised and request.temperature is not None and max(raised) > request.temperature:
                request = dataclasses.replace(request, temperature=max(raised), repairs=list(request.repairs),
                                              inputs=dict(request.inputs))
            correction = render(
                "repair",
                problems="\n".join(f"- {p.message}" for p in problems),
                keep=f" {keep_hint}" if keep_hint else "",
            )
            request.repairs.append((raw, correction))
            request.inputs["repair"] = [p.message for p in problems]
            raw2, call2 = await self._call(agent, request, attempt=2)
            value2, problems2 = self._judge_reply(call2, wire, check)
            if value2 is not None:
                return Answer(value2, problems2, True, raw2)
            if value is not None:  # the repair broke the format: keep the first, valid reply
                return Answer(value, problems + problems2, True, raw)
            if (kept := self._salvaged(((raw2, call2), (raw, call)), wire, check)) is not None:
                return kept
            raise RoleOutputError(
                f"the {agent.role} ({agent.spec}) gave invalid output twice: {problems2[0].message}",
                agent=agent.name, raw=raw2,
            )
        except (BackendError, RoleOutputError) as exc:
            self.emit(AgentFailed(stage=agent.stage, agent=agent.name, error=str(exc), round=agent.round))
            raise

    @staticmethod
    def _salvaged(replies: tuple[tuple[str, CallRecord], ...], wire: type[T],
                  check: Callable[[T], list[Problem]] | None) -> Answer[T] | None:
        """The last resort before a role fails (``replies.salvaged``): a reply that hit its token
        limit, cut after the first copy of a passage it wrote over and over, else at its last full
        sentence, and kept with a warning that says so; None when no cut reply is valid."""
        found = salvaged([raw for raw, call in replies if call.finish_reason in CUT_OFF],
                         lambda body: parse_reply(body, wire)[0])
        if found is None:
            return None
        value, body, how = found
        return Answer(value, [Problem(how, SALVAGE_SAID[how]), *(check(value) if check else [])], True, body)

    def _judge_reply(self, call: CallRecord, wire: type[T], check: Callable[[T], list[Problem]] | None) -> tuple[T | None, list[Problem]]:
        """Parse and check a reply, and close its call record with the outcome."""
        value, problems = parse_reply(call.response, wire)
        if value is None and call.finish_reason in CUT_OFF:
            # Say why, so the repair asks for the short form instead of "valid JSON".
            problems = [Problem("cut_off", "the reply reached its token limit before the JSON closed; "
                                           "write every field shorter and close the object")]
        if value is not None and check:
            problems = check(value)
        if value is not None and (leaks := self.leaks(call.response)):
            problems = [*problems, Problem("prompt_leak", f'the reply repeats the instructions\' own words ("{leaks[0]}"); '
                                                          "write your own words about this case")]
        if value is not None and self.latin and (foreign := foreign_characters(call.response)):
            problems = [*problems, Problem("script", f"the reply contains characters of another script ({foreign[:12]}); "
                                                     "write every field in the language of the case")]
        self._close_call(call, value is not None, problems)
        return value, problems

    def settle(self, agent: Agent, answer: Answer[Any], skip: set[str] = frozenset()) -> None:  # type: ignore[assignment]
        """Record the rules an answer still breaks after its repair as warnings.

        ``skip`` names rules the procedure reports in its own way (unverified exhibits)."""
        for problem in answer.problems:
            if problem.rule not in skip:
                self.warn(agent.name, problem.rule, problem.message)

    async def _call(self, agent: Agent, request: ModelRequest, *, attempt: int) -> tuple[str, CallRecord]:
        call = CallRecord(
            id=len(self.record.calls) + 1,
            agent=agent.name,
            role=agent.role,
            stage=agent.stage,
            attempt=attempt,
            backend=agent.spec.backend,
            model=agent.model_id,
            temperature=request.temperature,
            messages=request.messages(),
        )
        self.record.calls.append(call)
        started = time.perf_counter()

        def on_text(text: str) -> None:
            if call.first_token_seconds is None:
                call.first_token_seconds = round(time.perf_counter() - started, 4)
            self.emit(TextDelta(agent=agent.name, text=text))

        def send() -> Awaitable[Any]:
            nonlocal started
            started = time.perf_counter()  # times run from the request's start, not from a wait in the throttle
            return agent.backend.complete(request, on_text)

        try:
            reply = await self.pool.pacer.run(send, agent.backend.name)
        except BaseException as exc:
            call.seconds = round(time.perf_counter() - started, 4)
            call.error = "cancelled" if not isinstance(exc, Exception) else str(exc)
            self._close_call(call, False, [Problem("call", call.error)])
            raise
        call.response = reply.text
        call.usage = reply.usage
        call.model = reply.model or call.model
        call.temperature = reply.temperature
        call.seconds = round(reply.seconds or (time.perf_counter() - started), 4)
        call.finish_reason = reply.finish_reason
        call.reused = bool(reply.raw.get("reused"))
        call.cost_usd = 0.0 if call.reused else call_cost(agent.backend.price_provider, call.model, reply.usage)
        return reply.text, call

    def _close_call(self, call: CallRecord, ok: bool, problems: list[Problem]) -> None:
        call.ok = ok
        call.problems = [p.message for p in problems]
        self.emit(CallFinished(
            agent=call.agent, role=call.role, model=f"{call.backend}:{call.model}", attempt=call.attempt,
            input_tokens=call.usage.prompt_tokens, output_tokens=call.usage.output_tokens,
            cache_read_tokens=call.usage.cache_read_tokens, cache_write_tokens=call.usage.cache_write_tokens,
            cost_usd=call.cost_usd, seconds=call.seconds, ok=ok,
        ))
