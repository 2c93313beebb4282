"""The whole ``RunRecord`` of a trial, procedure-neutral: outputs keyed by agent, calls,
warnings, events, and an ``Outcome``.

A procedure keeps its typed records in ``outputs`` (the decision court's ``prosecutor``,
``defense``, ``jury`` and ``verdict``; a supreme court's ``justice-4``…) and states how the
trial ended in ``outcome``. Records written before outputs were generic are upgraded when
read (see ``legacy.upgrade_record``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from .case import Case

Status = Literal["running", "complete", "incomplete", "failed", "stopped"]


def now() -> datetime:
    return datetime.now(UTC)


# ---------------------------------------------------------------- run-level records


class Confidence(BaseModel):
    """One confidence figure, named by what it measures."""

    kind: Literal["vote_share", "evidence", "self_reported", "agreement"]
    label: str  # "jury vote share", "evidence verified and unrefuted", "judge's own estimate"
    value: float
    basis: str = ""  # how it was computed, in words: "4 of 5 jurors"


class Outcome(BaseModel):
    """How a trial ended, in a shape every procedure fills and every front end shows.

    ``polarity`` places the outcome on the question's yes/no axis (the evaluation harness
    scores it); ``label`` is the procedure's own word (guilty, entailment, liable, hung)."""

    answer: str  # "Yes: merge PR #214 now"
    label: str  # the procedure's decision label
    polarity: Literal["yes", "no", "undecided"] | None = None
    decided_by: str = ""  # "the judge", "the jury", "the bench"
    confidences: list[Confidence] = Field(default_factory=list)
    partial: bool = False  # some agents failed or a stage was cut short
    warnings: list[str] = Field(default_factory=list)
    markdown: str = ""  # the outcome as the procedure presents it (under the answer)
    data: dict[str, Any] = Field(default_factory=dict)
    demo: bool = False  # every reply came from the scripted backend: no model read the evidence

    def confidence(self, kind: str) -> float | None:
        return next((c.value for c in self.confidences if c.kind == kind), None)


class Usage(BaseModel):
    input_tokens: int = 0  # not counting cache reads/writes
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(**{k: getattr(self, k) + getattr(other, k) for k in Usage.model_fields})

    @property
    def prompt_tokens(self) -> int:
        return self.input_tokens + self.cache_write_tokens + self.cache_read_tokens


class CallRecord(BaseModel):
    """One request to a model, with everything needed to audit it."""

    id: int
    agent: str  # prosecutor, defense, juror-3, judge
    role: str  # prosecutor, defense, juror, judge
    stage: str
    attempt: int = 1  # 2 = the repair
    backend: str
    model: str
    temperature: float | None = None  # as applied
    messages: list[dict[str, str]] = Field(default_factory=list)
    response: str = ""
    ok: bool = False  # parsed and schema-valid
    problems: list[str] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float | None = 0.0  # None: no price known for this model
    seconds: float = 0.0
    first_token_seconds: float | None = None  # from the call's start (queueing included) to its first streamed text
    started_at: datetime = Field(default_factory=now)
    error: str = ""
    finish_reason: str = ""
    reused: bool = False  # the reply an earlier trial got for this very request (backends/reuse.py)


class Warning(BaseModel):  # noqa: A001 - the domain word
    agent: str
    rule: str
    message: str


class Feedback(BaseModel):
    rating: Literal["up", "down"]
    comment: str = ""
    at: datetime = Field(default_factory=now)


class RunRecord(BaseModel):
    run_id: str
    procedure: str = "decision"
    status: Status = "running"
    started_at: datetime = Field(default_factory=now)
    finished_at: datetime | None = None
    duration_ms: int = 0
    case: Case
    settings: dict[str, Any] = Field(default_factory=dict)
    models: dict[str, str] = Field(default_factory=dict)
    seed: int = 0  # fixes every seeded order in the run (jurors' exhibit and label orders)
    outputs: dict[str, Any] = Field(default_factory=dict)  # agent (or stage record) -> typed output as JSON
    outcome: Outcome | None = None
    calls: list[CallRecord] = Field(default_factory=list)
    warnings: list[Warning] = Field(default_factory=list)
    stages_completed: list[str] = Field(default_factory=list)
    error: str = ""
    events: list[dict[str, Any]] = Field(default_factory=list)
    feedback: Feedback | None = None
    dry_run: bool = False
    flags: list[dict[str, Any]] = Field(default_factory=list)  # evidence passages flagged as instructions

    @model_validator(mode="before")
    @classmethod
    def _upgrade(cls, data: Any) -> Any:
        if isinstance(data, dict) and any(k in data for k in ("prosecution", "defense", "jury", "verdict")):
            from .legacy import upgrade_record

            return upgrade_record(data)
        return data

    # The decision court's records, typed, for code written against them (``record.verdict.answer``).
    @property
    def prosecution(self) -> Any:
        return self._decision("prosecution")

    @property
    def defense(self) -> Any:
        return self._decision("defense")

    @property
    def jury(self) -> Any:
        return self._decision("jury")

    @property
    def verdict(self) -> Any:
        return self._decision("verdict")

    def _decision(self, name: str) -> Any:
        if self.procedure != "decision":
            return None
        from .procedures.decision import records

        return records.typed(name, self.outputs)

    @property
    def cost_usd(self) -> float:
        return round(sum(c.cost_usd or 0.0 for c in self.calls), 6)

    @property
    def cost_known(self) -> bool:
        return all(c.cost_usd is not None for c in self.calls)

    def cost_by_role(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for c in self.calls:
            out[c.role] = round(out.get(c.role, 0.0) + (c.cost_usd or 0.0), 6)
        return out

    def trial_calls(self) -> list[CallRecord]:
        """The trial's own calls, without those a shadow court added (a fragility check's second
        jury and judge: ``Court.absorb`` stores them under stages named "fragility:jury", …)."""
        return [c for c in self.calls if ":" not in c.stage]

    def usage(self) -> Usage:
        total = Usage()
        for c in self.calls:
            total = total + c.usage
        return total

    def model_usage(self) -> dict[str, dict[str, Any]]:
        """Per model: calls, tokens and cost (the ``metadata.model_usage`` of the result)."""
        out: dict[str, dict[str, Any]] = {}
        for c in self.calls:
            key = f"{c.backend}:{c.model}" if c.model else c.backend
            row = out.setdefault(key, {"calls": 0, **Usage().model_dump(), "cost_usd": 0.0})
            row["calls"] += 1
            for k, v in c.usage.model_dump().items():
                row[k] += v
            row["cost_usd"] = round(row["cost_usd"] + (c.cost_usd or 0.0), 6)
        return out

    def summary(self) -> dict[str, Any]:
        """The headline of a run: what the store indexes and what a runs table shows."""
        o = self.outcome
        votes = (o.data.get("votes") if o else None) or {}
        split = o.data.get("split") if o else None
        if not votes:  # no outcome (a failure after the vote): the last tally the run showed
            tally = next((e for e in reversed(self.events) if e.get("type") == "tally_updated" and "counts" in e), None)
            if tally is not None:
                from .events import TallyUpdated

                last = TallyUpdated.model_validate({**tally, "pending": 0})
                votes, split = dict(last.counts), last.text()
        return {
            "run_id": self.run_id,
            "started_at": self.started_at,
            "procedure": self.procedure,
            "status": self.status,
            "question": self.case.question,
            "decision": o.label if o else None,
            "polarity": o.polarity if o else None,
            "answer": o.answer if o else None,
            "decided_by": o.decided_by if o else None,
            # the judge's own figure where a judge wrote the ruling, else the first one measured
            "confidence": (o.confidence("self_reported") if o and o.confidence("self_reported") is not None
                           else o.confidences[0].value if o and o.confidences else None),
            "confidences": {c.kind: c.value for c in o.confidences} if o else {},
            "evidence_confidence": o.confidence("evidence") if o else None,
            "split": split,
            "votes": votes,
            "backends": sorted({m.partition(":")[0] for m in self.models.values()}),
            "cost_usd": self.cost_usd,
            "duration_ms": self.duration_ms,
            "feedback": self.feedback.rating if self.feedback else None,
        }

    def to_result(self) -> dict[str, Any]:
        """The result a procedure writes with ``-o``: its own shape where it defines one
        (the decision court's ``CourtroomResult``), else the generic record."""
        from .procedures import get as get_procedure

        return get_procedure(self.procedure).result_of(self)

    def generic_result(self) -> dict[str, Any]:
        return {
            "case": self.case_summary(),
            "outputs": self.outputs,
            "outcome": self.outcome.model_dump(mode="json") if self.outcome else None,
            "warnings": [w.model_dump() for w in self.warnings],
            "metadata": self.metadata(),
        }

    def case_summary(self) -> dict[str, Any]:
        return {
            "question": self.case.question,
            "context": [{"name": d.name, "kind": d.kind, "sha256": d.sha256, "lines": d.lines} for d in self.case.context],
            "evidence": [e.model_dump() for e in self.case.evidence],
        }

    def metadata(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "procedure": self.procedure,
            "status": self.status,
            "timestamp": self.started_at.isoformat(),
            "duration_ms": self.duration_ms,
            "cost_usd": self.cost_usd,
            "cost_known": self.cost_known,
            "cost_by_role": self.cost_by_role(),
            "model_usage": self.model_usage(),
            "models": self.models,
            "stages_completed": self.stages_completed,
            "error": self.error,
            "feedback": self.feedback.model_dump(mode="json") if self.feedback else None,
        }
