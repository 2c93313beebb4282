"""The criminal trial: judge, prosecution, advocate, defendant and stenographer, through the
five stages real courts follow, to a written judgment with a charge and a sentence.

    preparation ─> investigation ─> evidence ─> debate (a round per focus) ─> final statement ─> judgment

The stages are in ``session``, the case file and its readers in ``cases``, the turn and
judgment rules in ``rules``, the wire formats in ``wire``, how it reads in ``present``, the
scripted replies in ``demo``, and the SimCourt judgment-prediction dataset in ``dataset``.
Prompts are in ``courtroom_chat/prompts/criminal/``. The trial is held in the case's
language (Chinese for the SimCourt data).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from ... import prompts
from ...motion import answers, asks_against
from ...records import Outcome, RunRecord
from ..base import Procedure, Role, case_block
from . import cases, dataset, present  # noqa: F401 - importing dataset registers simcourt_ljp with the evaluation
from .cases import Dossier, dossier
from .demo import demo_reply
from .rules import charge_key
from .session import Session
from .wire import HostChoice, JudgmentReply, Speech

if TYPE_CHECKING:
    from ...backends.base import ModelRequest
    from ...case import Case
    from ...court import Court


class Parameters(BaseModel):
    """[procedures.criminal] in config.toml."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    max_turns: int = Field(10, ge=2, le=40, description="Most turns the parties speak in one stage")
    debate_rounds: int = Field(2, ge=1, le=6, description="Most rounds of argument on each debate focus")
    max_focus: int = Field(3, ge=1, le=8, description="Debate foci heard (the first ones of the case)")
    host: bool = Field(True, description="The judge chooses the next speaker and ends the stage (else a fixed order)")
    repetition_threshold: float = Field(0.85, ge=0.5, le=1.0, description="Similarity to an earlier turn that counts "
                                                                           "as repeating it")
    close_stalled: bool = Field(True, description="The judge closes the questioning, or the argument on a debate "
                                                  "focus, once a turn still repeats an earlier one after its repair "
                                                  "(off: the stage runs to its turn cap)")
    record_window: int = Field(12, ge=2, le=200, description="Turns of the court record each speaker reads")
    speech_chars: int = Field(400, ge=60, le=3000, description="Characters a turn is meant to take (three times "
                                                              "this bounds it)")
    temperature: float = Field(0.4, ge=0.0, le=2.0, description="Temperature of the parties")
    repeat_temperature: float = Field(0.9, ge=0.0, le=2.0, description="Lowest temperature a turn that repeats an "
                                                                       "earlier one is asked again at")
    judge_temperature: float = Field(0.2, ge=0.0, le=2.0, description="Temperature of the judge")


class CriminalTrial(Procedure):
    name = "criminal"
    title = "Criminal trial"
    tries = "a criminal charge against a defendant"
    scored_on = ("judgment",)  # its verdict is a charge and a sentence, scored against real judgments
    description = ("A criminal trial in five stages with the stenographer's record, ending in a written judgment: "
                   "charge, prison term, fine and probation.")
    stages = (("preparation", "Trial preparation"), ("investigation", "Court investigation"),
              ("evidence", "Presentation of evidence"), ("debate", "Court debate"),
              ("final_statement", "Defendant's final statement"), ("judgment", "Judgment"))
    # The stenographer announces the rules of court discipline and the judge explains the
    # defendant's rights: saying them is the task, so their templates' words are no prompt
    # leak (as the supreme court's burden of proof). Counted, a plain announcement such as "no
    # recording, phones off, no disturbance" was sent back for repair every time.
    restatable = ("discipline.md", "open.md")
    roles = (
        Role("judge", "Judge", JudgmentReply, max_tokens=1500, expected_output_tokens=500,
             description="presides, hosts each stage, writes the judgment"),
        Role("prosecution", "Prosecution", Speech, max_tokens=600, expected_output_tokens=150,
             description="reads the indictment, presents evidence, argues for the punishment"),
        Role("advocate", "Advocate", Speech, max_tokens=600, expected_output_tokens=150,
             description="defense counsel: challenges evidence, argues innocence or mitigation"),
        Role("defendant", "Defendant", Speech, max_tokens=400, expected_output_tokens=100,
             description="answers questions and makes a final statement"),
        Role("stenographer", "Stenographer", Speech, max_tokens=300, expected_output_tokens=100,
             description="announces court discipline and keeps the court record"),
    )
    Parameters = Parameters
    inputs = {
        "defendant": "who is charged (name, birth, prior record, custody)",
        "indictment": "the indictment, any recommended sentence masked",
        "prosecution_evidence": "the prosecution's evidence, one item a line",
        "defense_evidence": "the defense's evidence, one item a line",
        "account": "the defendant's own account of the facts",
        "debate_focus": "the points the debate turns on",
        "plea": '"guilty", "not guilty", or empty (the defendant answers for themself)',
    }

    async def run(self, court: Court) -> None:
        session = Session(self, court, dossier(court.case))
        await session.preparation()
        await session.investigation()
        await session.evidence()
        await session.debate()
        await session.final_statement()
        judgment = await session.judgment()
        lang, name = session.lang, session.dossier.name()
        court.conclude(Outcome(
            answer=present.verdict_line(name, judgment, lang), label=charge_key(judgment.charges, session.zh),
            # a conviction is Yes to "Is X guilty …?" and No to "Is X not guilty …?" (the mirror asks that)
            polarity=answers("guilty" if judgment.charges else "not guilty", "guilty", ("guilty", "not guilty"),
                             asks_against(court.case.question, "guilty")),
            decided_by="the presiding judge",
            markdown=present.judgment_markdown(judgment, lang),
            data={"judgment": judgment.model_dump(mode="json"), "turns": len(session.record),
                  "spoken": sum(session.spoken.values()), "language": lang},
        ))

    async def plan(self, court: Court) -> None:
        session = Session(self, court, dossier(court.case))
        for stage, role, task in (("preparation", "stenographer", "discipline"), ("preparation", "judge", "open"),
                                  ("investigation", "prosecution", "question"), ("investigation", "defendant", "plea"),
                                  ("evidence", "advocate", "challenge")):
            session.stage = stage
            agent = court.agent(role, role, present.title(role, session.lang), stage)
            values = {"about": "none yet", "item": (session.dossier.prosecution_evidence or ["-"])[0],
                      "other": present.title("prosecution", session.lang)}
            court.plan_prompt(stage, agent, session.prompt(role, task, **values), Speech)
        judge = court.agent("judge", "judge", present.title("judge", session.lang), "judgment")
        court.plan_prompt("judgment", judge, self.render("judgment", language=session.language()), JudgmentReply)

    @classmethod
    def read_case(cls, path: Path, data: Any) -> Case | None:
        return cases.read(path, data)

    def check_case(self, case: Case) -> None:
        dossier(case)  # a bad dossier is one CaseError line before the trial starts

    def case_block(self, case: Case) -> str:
        d = dossier(case)
        none = "（无）" if d.language == "zh" else "(none)"
        listed = lambda items, mark: "\n".join(f"{mark}{i}. {x}" for i, x in enumerate(items, 1)) or none  # noqa: E731
        documents = ""
        if case.context and case.inputs.get("indictment") is not None:  # a dossier with documents attached
            documents = "\n" + case_block(case, prompts.shared())
        return self.render("dossier", defendant=d.defendant, indictment=d.indictment,
                           prosecution_evidence=listed(d.prosecution_evidence, "P"),
                           defense_evidence=listed(d.defense_evidence, "D"), account=d.account or none,
                           focus=listed(d.focus(), ""), documents=documents)

    def demo(self, request: ModelRequest) -> dict[str, Any] | None:
        if request.case is None:
            return None
        return demo_reply(dossier(request.case), request.schema_name, request.role, request.inputs)

    def result_of(self, record: RunRecord) -> dict[str, Any]:
        result = record.generic_result()
        result["judgment"] = record.outputs.get("judgment")
        result["court_record"] = (record.outputs.get("court_record") or {}).get("entries", [])
        return result


__all__ = ["CriminalTrial", "Dossier", "HostChoice", "JudgmentReply", "Parameters", "Speech"]
