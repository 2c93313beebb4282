"""The events a trial emits, in order. Every front end renders these and nothing else.

A stored run keeps its events, so replaying a trial is rendering them again. Events are
procedure-neutral (stages, agents, text, tallies, warnings); the payloads of
``AgentFinished``/``StageFinished`` carry the typed outputs of the procedure's roles.

    RunStarted
      StageStarted ─┬─ AgentStarted ─ TextDelta* ─ [AgentRetry ─ TextDelta*] ─ AgentFinished | AgentFailed
                    ├─ CallFinished (one per model request)
                    ├─ ExhibitChecked / TallyUpdated / WarningRaised
      StageFinished
      ... | BudgetStopped
      VerdictReached
    RunFinished   (always last, also after a failure or a cancel)
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter


class _Event(BaseModel):
    t: float = 0.0  # seconds since the run started


class RunStarted(_Event):
    type: Literal["run_started"] = "run_started"
    run_id: str
    procedure: str
    question: str
    documents: list[str] = Field(default_factory=list)
    stages: list[str] = Field(default_factory=list)
    models: dict[str, str] = Field(default_factory=dict)
    dry_run: bool = False


class StageStarted(_Event):
    type: Literal["stage_started"] = "stage_started"
    stage: str
    title: str


class AgentStarted(_Event):
    type: Literal["agent_started"] = "agent_started"
    stage: str
    agent: str  # prosecutor, defense, juror-3, judge
    role: str
    title: str  # "Juror 3"
    persona: str = ""
    model: str = ""
    temperature: float | None = None  # as applied


class TextDelta(_Event):
    type: Literal["text_delta"] = "text_delta"
    agent: str
    text: str


class AgentRetry(_Event):
    type: Literal["agent_retry"] = "agent_retry"
    agent: str
    problems: list[str]


class AgentFinished(_Event):
    type: Literal["agent_finished"] = "agent_finished"
    stage: str
    agent: str
    output: dict[str, Any]  # the typed output of the role, as JSON
    repaired: bool = False


class AgentFailed(_Event):
    type: Literal["agent_failed"] = "agent_failed"
    stage: str
    agent: str
    error: str


class CallFinished(_Event):
    type: Literal["call_finished"] = "call_finished"
    agent: str
    role: str
    model: str
    attempt: int
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None
    seconds: float
    ok: bool


class ExhibitChecked(_Event):
    type: Literal["exhibit_checked"] = "exhibit_checked"
    exhibit: dict[str, Any]  # records.Exhibit


class TallyUpdated(_Event):
    type: Literal["tally_updated"] = "tally_updated"
    guilty: int
    not_guilty: int
    abstain: int
    pending: int
    failed: int
    seated: int


class WarningRaised(_Event):
    type: Literal["warning_raised"] = "warning_raised"
    agent: str
    rule: str
    message: str


class StageFinished(_Event):
    type: Literal["stage_finished"] = "stage_finished"
    stage: str
    title: str
    summary: dict[str, Any] = Field(default_factory=dict)  # the stage's typed record


class BudgetStopped(_Event):
    type: Literal["budget_stopped"] = "budget_stopped"
    stage: str
    estimate_usd: float
    spent_usd: float
    cap_usd: float
    message: str


class PromptPlanned(_Event):
    """Dry run: the exact prompt a role would receive, with estimates."""

    type: Literal["prompt_planned"] = "prompt_planned"
    stage: str
    agent: str
    role: str
    model: str
    temperature: float | None
    messages: list[dict[str, str]]
    input_tokens: int
    output_tokens: int
    cost_usd: float | None


class VerdictReached(_Event):
    type: Literal["verdict_reached"] = "verdict_reached"
    verdict: dict[str, Any]  # records.Verdict
    split: str
    jurors_voted: int
    jurors_seated: int
    warnings: list[str] = Field(default_factory=list)


class RunFinished(_Event):
    type: Literal["run_finished"] = "run_finished"
    run_id: str
    status: str  # complete / incomplete / failed / stopped
    stages_completed: list[str]
    duration_ms: int
    cost_usd: float
    cost_known: bool = True
    cost_by_role: dict[str, float] = Field(default_factory=dict)
    error: str = ""


Event = Annotated[
    RunStarted | StageStarted | AgentStarted | TextDelta | AgentRetry | AgentFinished | AgentFailed | CallFinished | ExhibitChecked | TallyUpdated | WarningRaised | StageFinished | BudgetStopped | PromptPlanned | VerdictReached | RunFinished,
    Field(discriminator="type"),
]

_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)


def parse_event(data: dict[str, Any]) -> Event:
    return _ADAPTER.validate_python(data)


def parse_events(items: list[dict[str, Any]]) -> list[Event]:
    return [parse_event(d) for d in items]
