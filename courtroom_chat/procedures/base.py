"""The court runtime every procedure runs on.

A procedure is a few readable stage functions. They call ``Court.ask`` to put a prompt to
an agent and get back a typed, validated answer; ``Court.stage`` to open and close a stage
(with its budget check); and ``Court.emit``/``Court.warn`` to report. The runtime owns the
mechanics shared by every procedure (the decision court today; supreme court, criminal
trial, classification court and retrieval bench later):

* prompts: the system prompt, then the shared case block, then the role's prompt;
* tolerant parsing of the JSON reply, schema validation, the procedure's own rules;
* exactly one repair: the agent is shown what was wrong and asked again;
* what still fails a rule becomes a recorded warning, never silently dropped; what still
  fails the schema raises ``RoleOutputError`` carrying the raw text;
* one ``CallRecord`` per request (prompt, raw reply, usage, cost, time) and its event.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from ..backends import BackendPool
from ..backends.base import Backend, ModelRequest
from ..case import Case
from ..config import ModelSpec, Settings
from ..cost import call_cost, dollars, estimate_cost
from ..errors import BackendError, BudgetExceeded, ContextTooLongError, RoleOutputError
from ..events import (
    AgentFailed,
    AgentRetry,
    AgentStarted,
    CallFinished,
    StageFinished,
    StageStarted,
    TextDelta,
    WarningRaised,
)
from ..prompts import render
from ..records import CallRecord, RunRecord, Warning

T = TypeVar("T", bound=BaseModel)


class Problem(NamedTuple):
    rule: str  # schema, exhibit_quote, harm_specific, juror_words, ...
    message: str


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

    @property
    def applied_temperature(self) -> float | None:
        return self.temperature if self.backend.accepts_temperature else None

    @property
    def constrained(self) -> bool:
        """Whether the backend decodes under the JSON schema's grammar (patterns then shape the text)."""
        return getattr(self.backend, "constrained_decoding", False)

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
    summary: dict[str, Any] = field(default_factory=dict)


class Procedure(Protocol):
    name: str
    title: str
    description: str
    stages: tuple[tuple[str, str], ...]  # (name, title)

    async def run(self, court: Court) -> None: ...

    async def plan(self, court: Court) -> None:
        """Dry run: emit ``PromptPlanned`` for every role, calling no model."""


_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```\s*$")


def extract_json(text: str) -> Any:
    """The JSON object in a reply: tolerant of code fences, prose around it and raw control
    characters inside strings (seen from llama.cpp's schema decoding)."""
    body = _FENCE.sub("", text.strip())
    start, end = body.find("{"), body.rfind("}")
    if start == -1 or end < start:
        raise ValueError("the reply holds no JSON object")
    return json.loads(body[start : end + 1], strict=False)


def parse_reply(text: str, wire: type[T]) -> tuple[T | None, list[Problem]]:
    try:
        data = extract_json(text)
    except (ValueError, json.JSONDecodeError) as exc:
        snippet = text.strip().replace("\n", " ")[:120]
        return None, [Problem("schema", f"the reply is not valid JSON ({exc}); it began: {snippet!r}")]
    try:
        return wire.model_validate(data), []
    except ValidationError as exc:
        problems = []
        for err in exc.errors()[:6]:
            where = ".".join(str(p) for p in err["loc"]) or "(the object)"
            problems.append(Problem("schema", f"field {where}: {err['msg']}"))
        return None, problems


def words(text: str) -> int:
    return len(re.findall(r"\w+(?:['’-]\w+)*", text))


class Court:
    def __init__(
        self,
        record: RunRecord,
        settings: Settings,
        pool: BackendPool,
        emit: Callable[[Any], None],
    ):
        self.record = record
        self.case: Case = record.case
        self.settings = settings
        self.pool = pool
        self._emit = emit
        self._t0 = time.perf_counter()
        self.system = render("system")
        self.prefix = case_block(self.case)

    # ------------------------------------------------------------------ reporting

    def emit(self, event: Any) -> None:
        event.t = round(time.perf_counter() - self._t0, 3)
        self._emit(event)

    def warn(self, agent: str, rule: str, message: str) -> None:
        self.record.warnings.append(Warning(agent=agent, rule=rule, message=message))
        self.emit(WarningRaised(agent=agent, rule=rule, message=message))

    @asynccontextmanager
    async def stage(self, name: str, title: str, planned: list[tuple[Agent, str]] | None = None) -> AsyncIterator[StageHandle]:
        """Open a stage: refuse it past the budget, announce it, and close it when done."""
        if planned:
            self.check_budget(name, planned)
        handle = StageHandle(name, title)
        self.emit(StageStarted(stage=name, title=title))
        yield handle
        self.record.stages_completed.append(name)
        self.emit(StageFinished(stage=name, title=title, summary=handle.summary))

    # ------------------------------------------------------------------ agents

    def agent(self, name: str, role: str, title: str, stage: str, *, persona: str = "",
              temperature: float | None = None, max_tokens: int = 800, expected_output_tokens: int = 300) -> Agent:
        spec = self.settings.model_for(role)
        return Agent(name, role, title, stage, spec, self.pool.get(spec), persona, temperature, max_tokens,
                     expected_output_tokens)

    def request(self, agent: Agent, prompt: str, wire: type[BaseModel], inputs: dict[str, Any],
                schema: dict[str, Any] | None = None) -> ModelRequest:
        return ModelRequest(
            agent=agent.name,
            role=agent.role,
            system=self.system,
            prefix=self.prefix,
            prompt=prompt,
            schema=schema or wire.model_json_schema(),
            schema_name=wire.__name__,
            temperature=agent.applied_temperature,
            max_tokens=agent.max_tokens,
            case=self.case,
            inputs=inputs,
        )

    def check_context(self, agents: list[tuple[Agent, str]]) -> None:
        """Refuse, before any call, a case that cannot fit a model's context window."""
        for agent, prompt in agents:
            window = agent.backend.context_window
            if not window:
                continue
            needed = agent.backend.estimate_tokens(f"{self.system}\n{self.prefix}\n\n{prompt}") + agent.max_tokens
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
            tokens_in = agent.backend.estimate_tokens(f"{self.system}\n{self.prefix}\n\n{prompt}")
            cost = estimate_cost(agent.backend.price_provider, agent.model_id, tokens_in, agent.expected_output_tokens)
            estimate += cost or 0.0
        return estimate

    def check_budget(self, stage: str, planned: list[tuple[Agent, str]]) -> None:
        cap = self.settings.budget.max_usd
        if not cap:
            return
        estimate = self.estimate_stage(planned)
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
    ) -> Answer[T]:
        """Ask ``agent`` and return a schema-valid answer, after at most one repair.

        ``schema`` refines the wire model's JSON schema for decoding (see ``refine_schema``);
        the reply is still validated against ``wire``."""
        if announce:
            self.emit(AgentStarted(stage=agent.stage, agent=agent.name, role=agent.role, title=agent.title,
                                   persona=agent.persona, model=str(agent.spec), temperature=agent.applied_temperature))
        request = self.request(agent, prompt, wire, dict(inputs or {}), schema)
        try:
            raw, call = await self._call(agent, request, attempt=1)
            value, problems = self._judge_reply(call, wire, check)
            if not problems:
                return Answer(value, [], False, raw)
            self.emit(AgentRetry(agent=agent.name, problems=[p.message for p in problems]))
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
            raise RoleOutputError(
                f"the {agent.role} ({agent.spec}) gave invalid output twice: {problems2[0].message}",
                agent=agent.name, raw=raw2,
            )
        except (BackendError, RoleOutputError) as exc:
            self.emit(AgentFailed(stage=agent.stage, agent=agent.name, error=str(exc)))
            raise

    def _judge_reply(self, call: CallRecord, wire: type[T], check: Callable[[T], list[Problem]] | None) -> tuple[T | None, list[Problem]]:
        """Parse and check a reply, and close its call record with the outcome."""
        value, problems = parse_reply(call.response, wire)
        if value is not None and check:
            problems = check(value)
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
            temperature=agent.applied_temperature,
            messages=request.messages(),
        )
        self.record.calls.append(call)
        started = time.perf_counter()

        def on_text(text: str) -> None:
            self.emit(TextDelta(agent=agent.name, text=text))

        try:
            reply = await agent.backend.complete(request, on_text)
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
        call.cost_usd = call_cost(agent.backend.price_provider, call.model, reply.usage)
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


def word_pattern(low: int, high: int, longest: int = 40) -> str:
    """A JSON-string pattern of ``low`` to ``high`` words separated by single spaces.

    Each word is at most ``longest`` characters: unbounded, a small model could loop inside
    one "word" until it ran out of tokens and left invalid JSON (measured once in 20 trials).
    llama.cpp's converter takes anchored patterns and literal classes, not ``\\s``.
    """
    word = f'[^"\\\\ ]{{1,{longest}}}'
    return f"^({word} ){{{max(0, low - 1)},{max(0, high - 1)}}}{word}$"


def literal_pattern(text: str) -> str | None:
    """``text`` as a regex literal that llama.cpp's schema-to-grammar converter accepts.

    The converter rejects most backslash escapes (``\\#``, ``\\.``) and then accepts any
    string with only a warning, so every character but letters, digits and spaces goes in a
    one-character class (``[#]``). None when ``text`` holds a character that cannot sit in
    a class that way (a quote, a backslash, ``]``, ``^``, a control or non-ASCII character).
    """
    if not text or any(c in '"\\]^' or not (" " <= c <= "~") for c in text):
        return None
    return "".join(c if c.isalnum() or c == " " else f"[{c}]" for c in text)


def refine_schema(wire: type[BaseModel], constraints: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The wire model's JSON schema for decoding: every field required, constraints added.

    ``constraints`` maps a field, ``"field"`` (top level) or ``"Model.field"`` (a nested
    model), to JSON-schema keywords: ``{"exhibits": {"maxItems": 3}, "ExhibitReply.harm":
    {"minLength": 40}}``. Keywords with an empty or None value are left out. Backends that
    decode under a grammar (llama.cpp, Ollama) enforce them token by token, which keeps
    small models concise and well-formed; others may ignore them. Replies are still
    validated against the permissive wire model, and the procedure's rules still apply.
    """
    schema = wire.model_json_schema()
    # Every field is written: under a grammar an optional field may otherwise be skipped
    # (a judge leaving out its actions). Validation still fills defaults for other backends.
    for holder in [schema, *schema.get("$defs", {}).values()]:
        if "properties" in holder:
            holder["required"] = list(holder["properties"])
    for key, keywords in constraints.items():
        model, _, name = key.rpartition(".")
        holder = schema["$defs"][model] if model else schema
        holder["properties"][name].update({k: v for k, v in keywords.items() if v not in (None, [], "")})
    return schema


END_MARK = "<<<END EVIDENCE"


def case_block(case: Case) -> str:
    """The case as every role reads it: identical bytes for every role, so it caches."""
    if not case.context:
        documents = "(none attached: the question must be argued on its own terms, and no exhibit can be quoted)"
        count = "none"
    else:
        parts = []
        for i, doc in enumerate(case.context, 1):
            text = doc.text.replace(END_MARK, "<<< END EVIDENCE")
            parts.append(f"<<<EVIDENCE {i}: {doc.name} ({doc.kind}, {doc.lines} lines)>>>\n{text}\n{END_MARK} {i}>>>")
        documents = "\n\n".join(parts)
        count = f"{len(case.context)} document{'s' if len(case.context) != 1 else ''}"
    return render("case", question=case.question, count=count, documents=documents)
