"""Typed outputs of each role, and the whole ``RunRecord`` of a trial.

Verdict words (guilty / not_guilty / abstain / dismissed) live here. Models are never
asked for them: procedures ask with plain-meaning labels and map them in code.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from .case import Case
from .evidence import Location, NearestMiss

Vote = Literal["guilty", "not_guilty", "abstain"]
Decision = Literal["guilty", "not_guilty", "dismissed"]
Status = Literal["running", "complete", "incomplete", "failed", "stopped"]


def now() -> datetime:
    return datetime.now(UTC)


# ---------------------------------------------------------------- decision court outputs


class Exhibit(BaseModel):
    number: int
    source_quote: str
    target_quote: str = ""
    harm: str = ""
    origin: Literal["prosecutor", "case"] = "prosecutor"
    verified: bool = False
    location: Location | None = None
    target_location: Location | None = None
    nearest: NearestMiss | None = None
    attempt: int = 1  # 2: filed after the prosecutor was shown what failed

    def mark(self) -> str:
        """The verified/unverified mark every front end shows."""
        if self.verified and self.location:
            return f"✅ verified at {self.location.short()}"
        if self.nearest:
            return f"❌ unverified (nearest passage {self.nearest.similarity:.0%} similar at {self.nearest.location.short()})"
        return "❌ unverified (no similar passage in the evidence)"


class Prosecution(BaseModel):
    motion: str
    case_statement: str
    exhibits: list[Exhibit] = Field(default_factory=list)
    harm_analysis: str = ""

    def admitted(self) -> list[Exhibit]:
        return [e for e in self.exhibits if e.verified]


class ExhibitChallenge(BaseModel):
    exhibit: int
    challenge: str
    effect: Literal["refutes", "weakens", "concedes"] = "weakens"


class Defense(BaseModel):
    counter_argument: str
    exhibit_challenges: list[ExhibitChallenge] = Field(default_factory=list)
    harm_dispute: str = ""
    alternative: str = ""

    def challenge_for(self, number: int) -> ExhibitChallenge | None:
        return next((c for c in self.exhibit_challenges if c.exhibit == number), None)


class Juror(BaseModel):
    number: int
    persona: str
    model: str = ""
    temperature: float | None = None  # as applied; None when the backend takes none
    vote: Vote | None = None
    reasoning: str = ""
    status: Literal["pending", "voted", "failed"] = "pending"
    error: str = ""


class Jury(BaseModel):
    jurors: list[Juror] = Field(default_factory=list)
    guilty_count: int = 0
    not_guilty_count: int = 0
    abstain_count: int = 0
    threshold: int = 3
    proceeds_to_judge: bool = False

    @property
    def seated(self) -> int:
        return len(self.jurors)

    @property
    def voted(self) -> int:
        return self.guilty_count + self.not_guilty_count + self.abstain_count

    def split(self, words: bool = False) -> str:
        """'3–2' (act–do not act), with abstentions and a partial panel spelled out; with
        ``words``, '3 to act, 2 not to act' for prompts."""
        if words:
            text = f"{self.guilty_count} to act, {self.not_guilty_count} not to act"
        else:
            text = f"{self.guilty_count}–{self.not_guilty_count}"
        if self.abstain_count:
            text += f", {self.abstain_count} abstaining"
        if self.voted < self.seated:
            text += f" ({self.voted} of {self.seated} jurors{' voted' if words else ''})"
        return text

    def unanimous(self) -> bool:
        counts = [c for c in (self.guilty_count, self.not_guilty_count, self.abstain_count) if c]
        return len(counts) <= 1

    @classmethod
    def tally(cls, jurors: list[Juror], threshold: int) -> Jury:
        votes = [j.vote for j in jurors if j.status == "voted"]
        guilty = votes.count("guilty")
        return cls(
            jurors=jurors,
            guilty_count=guilty,
            not_guilty_count=votes.count("not_guilty"),
            abstain_count=votes.count("abstain"),
            threshold=threshold,
            proceeds_to_judge=guilty >= threshold,
        )


class Verdict(BaseModel):
    decision: Decision
    reasoning: str
    rationale: str
    actions: list[str] = Field(default_factory=list)
    confidence: float  # the judge's own figure
    answer: str  # "Yes: publish now"
    evidence_confidence: float  # from jury margin and surviving exhibits, see confidence.py
    evidence_basis: dict[str, Any] = Field(default_factory=dict)
    decided_by: Literal["judge", "jury"] = "judge"


# ---------------------------------------------------------------- run-level records


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
    started_at: datetime = Field(default_factory=now)
    error: str = ""
    finish_reason: str = ""


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
    prosecution: Prosecution | None = None
    defense: Defense | None = None
    jury: Jury | None = None
    verdict: Verdict | None = None
    calls: list[CallRecord] = Field(default_factory=list)
    warnings: list[Warning] = Field(default_factory=list)
    stages_completed: list[str] = Field(default_factory=list)
    error: str = ""
    events: list[dict[str, Any]] = Field(default_factory=list)
    feedback: Feedback | None = None
    dry_run: bool = False

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
        v, j = self.verdict, self.jury
        return {
            "run_id": self.run_id,
            "started_at": self.started_at,
            "procedure": self.procedure,
            "status": self.status,
            "question": self.case.question,
            "decision": v.decision if v else None,
            "answer": v.answer if v else None,
            "decided_by": v.decided_by if v else None,
            "confidence": v.confidence if v else None,
            "evidence_confidence": v.evidence_confidence if v else None,
            "split": j.split() if j else None,
            "guilty": j.guilty_count if j else None,
            "not_guilty": j.not_guilty_count if j else None,
            "abstain": j.abstain_count if j else None,
            "seated": j.seated if j else None,
            "cost_usd": self.cost_usd,
            "duration_ms": self.duration_ms,
            "feedback": self.feedback.rating if self.feedback else None,
        }

    def to_result(self) -> dict[str, Any]:
        """The Courtroom POC ``CourtroomResult`` in snake_case, plus extra fields."""
        return {
            "case": {
                "question": self.case.question,
                "context": [
                    {"name": d.name, "kind": d.kind, "sha256": d.sha256, "lines": d.lines} for d in self.case.context
                ],
                "evidence": [e.model_dump() for e in self.case.evidence],
            },
            "prosecution": self.prosecution.model_dump(mode="json") if self.prosecution else None,
            "defense": self.defense.model_dump(mode="json") if self.defense else None,
            "jury": (
                {**self.jury.model_dump(mode="json"), "split": self.jury.split()} if self.jury else None
            ),
            "verdict": self.verdict.model_dump(mode="json") if self.verdict else None,
            "warnings": [w.model_dump() for w in self.warnings],
            "metadata": {
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
            },
        }
