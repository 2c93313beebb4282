"""The events a trial emits, in order. Every front end renders these and nothing else.

Events are procedure-neutral: stages (and rounds within them), agents, checked items,
tallies and an outcome. What a procedure's outputs *look like* travels with the events
(``AgentFinished.markdown``, ``ItemChecked.detail``, ``OutcomeReached.markdown``), so the
CLI, the chat, the notebook and a replay of a stored run show any procedure without
knowing its roles. A stored run keeps its events; replaying it is rendering them again.

    RunStarted
      StageStarted ─┬─ AgentStarted ─ TextDelta* ─ [AgentRetry ─ TextDelta*] ─ AgentFinished | AgentFailed
                    ├─ CallFinished (one per model request)
                    ├─ ItemChecked / TallyUpdated / WarningRaised
      StageFinished
      ... | BudgetStopped
      OutcomeReached
    RunFinished   (always last, also after a failure or a cancel)

Records written before events were procedure-neutral are upgraded on reading
(``legacy.upgrade_event``), so old runs replay unchanged.
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
    question: str  # as the court tries it
    asked: str = ""  # as the person asked it, where the procedure tried it reworded ("Design A or B?")
    documents: list[str] = Field(default_factory=list)
    stages: list[str] = Field(default_factory=list)
    stage_titles: dict[str, str] = Field(default_factory=dict)
    procedure_title: str = ""
    models: dict[str, str] = Field(default_factory=dict)
    dry_run: bool = False


class StageStarted(_Event):
    type: Literal["stage_started"] = "stage_started"
    stage: str
    title: str
    round: int = 0  # 1, 2, … for a stage held in rounds; 0 otherwise


class AgentStarted(_Event):
    type: Literal["agent_started"] = "agent_started"
    stage: str
    agent: str  # prosecutor, juror-3, justice-7
    role: str
    title: str  # "Juror 3"
    persona: str = ""
    model: str = ""
    temperature: float | None = None  # as applied
    round: int = 0


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
    title: str = ""  # the agent's title once it has spoken: "Juror 3 · act"
    markdown: str = ""  # the output as the procedure presents it
    line: str = ""  # one line for terse front ends (the CLI's progress)
    round: int = 0


class AgentFailed(_Event):
    type: Literal["agent_failed"] = "agent_failed"
    stage: str
    agent: str
    error: str
    round: int = 0


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


class ItemChecked(_Event):
    """Something the runtime checked and a person should see: an exhibit's quote, a citation."""

    type: Literal["item_checked"] = "item_checked"
    stage: str
    agent: str = ""
    kind: str  # exhibit, citation, quote
    number: int = 0
    title: str  # "Exhibit 2 · ✅ verified"
    ok: bool
    detail: str = ""  # Markdown
    line: str = ""  # one line for terse front ends
    data: dict[str, Any] = Field(default_factory=dict)  # the typed item, as JSON
    round: int = 0  # the round of its stage it was checked in; 0 also in runs stored before items had one


class TallyUpdated(_Event):
    """Votes so far: counts by label, in the order the labels are shown."""

    type: Literal["tally_updated"] = "tally_updated"
    stage: str
    title: str = "Tally"
    labels: list[str]
    counts: dict[str, int]
    pending: int = 0
    failed: int = 0
    seated: int = 0
    round: int = 0

    def text(self) -> str:
        """'3–2' over the labels with votes or in first place, then abstentions and progress."""
        main = [lab for lab in self.labels[:2]]
        text = "–".join(str(self.counts.get(lab, 0)) for lab in main)
        for lab in self.labels[2:]:
            if self.counts.get(lab):
                text += f", {self.counts[lab]} {lab}"
        if self.pending:
            text += f" ({self.pending} deliberating)"
        voted = sum(self.counts.values())
        if self.failed and not self.pending:
            text += f" ({voted} of {self.seated} voted)"
        return text

    def heading(self) -> str:
        return f"{self.title} ({'–'.join(self.labels[:2])})"


class WarningRaised(_Event):
    type: Literal["warning_raised"] = "warning_raised"
    agent: str
    rule: str
    message: str
    stage: str = ""


class StageFinished(_Event):
    type: Literal["stage_finished"] = "stage_finished"
    stage: str
    title: str
    summary: dict[str, Any] = Field(default_factory=dict)  # the stage's typed record
    state: str = ""  # a few words after the stage's title: "3 exhibits, 2 verified", "3–2"
    markdown: str = ""  # a note the stage closes on (for example "No ruling: the jury decides")
    round: int = 0


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


class OutcomeReached(_Event):
    """How the trial ended, as every front end shows it (see ``records.Outcome``)."""

    type: Literal["outcome_reached"] = "outcome_reached"
    outcome: dict[str, Any]  # records.Outcome


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
    RunStarted | StageStarted | AgentStarted | TextDelta | AgentRetry | AgentFinished | AgentFailed | CallFinished
    | ItemChecked | TallyUpdated | WarningRaised | StageFinished | BudgetStopped | PromptPlanned | OutcomeReached
    | RunFinished,
    Field(discriminator="type"),
]

_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)
LEGACY_TYPES = frozenset({"exhibit_checked", "verdict_reached"})


def parse_event(data: dict[str, Any]) -> Event:
    return _ADAPTER.validate_python(data)


def _damaged(where: str, exc: Exception) -> Exception:
    from .errors import InputError

    if hasattr(exc, "errors"):  # pydantic: the field and what is wrong with it
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"][1:] or first["loc"])
        reason = f"{loc}: {first['msg']}" if loc else first["msg"].split(" does not match")[0]
    else:
        reason = f"{type(exc).__name__}: {exc}"
    return InputError(f"the run's stored {where} is damaged ({reason}); the run file was edited or cut: "
                      "replay another run, or run the trial again")


def parse_events(items: list[dict[str, Any]]) -> list[Event]:
    """Stored events as typed events; events of older releases are upgraded first. An event the
    file holds damaged is one line (an ``InputError``); events that stop before the trial's end
    (a file cut short) end in a warning that says so, so no replay passes for the whole trial."""
    try:
        if any(d.get("type") in LEGACY_TYPES or (d.get("type") == "tally_updated" and "counts" not in d)
               or (d.get("type") == "agent_finished" and "markdown" not in d) for d in items):
            from .legacy import upgrade_events

            items = upgrade_events(items)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise _damaged("an event of an older release", exc) from None
    events = []
    for number, data in enumerate(items, 1):
        try:
            events.append(parse_event(data))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise _damaged(f"event {number} ({data.get('type', '?') if isinstance(data, dict) else '?'})", exc) from None
    if events and not isinstance(events[-1], RunFinished):
        events.append(WarningRaised(agent="record", rule="record_cut", message=(
            f"the stored events end after {len(events)} events, before the trial's end: the run file was cut "
            "short, and what followed is missing from this replay")))
    return events
