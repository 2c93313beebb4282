"""A toy procedure, written as a third party would: one module plus its prompts folder.

Three justices give opinions in two rounds and the majority decides. It is registered by
the tests only, through the same path the built-in procedures use, so the contract test
shows that a new procedure renders in every front end with no change outside its module.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from courtroom_chat.court import Court
from courtroom_chat.procedures import ProcedureInfo, register, unregister
from courtroom_chat.procedures.base import Procedure, Role
from courtroom_chat.records import Confidence, Outcome


class Opinion(BaseModel):
    reasoning: str
    holding: Literal["affirm", "reverse"]


class Parameters(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    justices: int = Field(3, ge=1, le=9, description="Justices on the bench")
    rounds: int = Field(2, ge=1, le=3, description="Rounds of opinions")


class ThreeJustices(Procedure):
    name = "justices"
    title = "Three justices"
    description = "Justices write opinions in rounds; the majority holding decides."
    stages = (("bench", "Bench"),)
    roles = (Role("justice", "Justice", Opinion, numbered=True, max_tokens=300, expected_output_tokens=80),)
    Parameters = Parameters
    inputs = {"docket": "the docket number"}
    prompts_dir = Path(__file__).parent / "toy_prompts"

    async def run(self, court: Court) -> None:
        holdings: dict[str, str] = {}
        for round_ in range(1, court.params.rounds + 1):
            async with court.stage("bench", round=round_) as stage:
                agents = [court.agent(f"justice-{n}", "justice", f"Justice {n}", round=round_)
                          for n in range(1, court.params.justices + 1)]
                prompt = self.render("justice", round=round_)

                async def sit(agent, prompt: str = prompt, round_: int = round_, agents: list = agents) -> None:
                    answer = await court.ask(agent, prompt, Opinion)
                    holdings[agent.name] = answer.value.holding
                    court.finish(agent, answer.value, title=f"{agent.title} · {answer.value.holding}",
                                 markdown=f"**Holding:** {answer.value.holding}\n\n{answer.value.reasoning}",
                                 key=f"{agent.name}@{round_}")
                    court.tally(["affirm", "reverse"], {h: list(holdings.values()).count(h) for h in ("affirm", "reverse")},
                                seated=len(agents), round=round_)

                await asyncio.gather(*(sit(a) for a in agents))
                # a checked item, as a court checks a citation: shown in this round's section
                court.item("precedent", f"Precedent of round {round_} · ✅ found", True, number=round_,
                           detail=f"The bench read its precedent again in round {round_}.")
                stage.state = f"{list(holdings.values()).count('affirm')}–{list(holdings.values()).count('reverse')}"
        affirm = list(holdings.values()).count("affirm")
        label = "affirm" if affirm * 2 > len(holdings) else "reverse"
        share = max(affirm, len(holdings) - affirm) / len(holdings)
        court.conclude(Outcome(
            answer=f"The bench holds: {label}", label=label, polarity="yes" if label == "affirm" else "no",
            decided_by="the bench", confidences=[Confidence(kind="vote_share", label="bench vote share", value=share)],
            markdown=f"**Holding:** {label} ({affirm} to affirm)",
        ))

    async def plan(self, court: Court) -> None:
        for n in range(1, court.params.justices + 1):
            agent = court.agent(f"justice-{n}", "justice", f"Justice {n}", "bench")
            court.plan_prompt("bench", agent, self.render("justice", round=1), Opinion)


INFO = ProcedureInfo("justices", ThreeJustices.title, ThreeJustices.description, ThreeJustices)


def install() -> None:
    register(INFO)


def every_procedure(field: str = "name") -> list:
    """Every registered procedure and this toy (installed only for the listing), for parametrising;
    a procedure that reads the shared data by default skips, saying so, where it is absent."""
    import pytest

    from courtroom_chat.procedures import available
    from tests.conftest import PROCEDURE_DATA, needs_shared

    install()
    try:
        return [pytest.param(getattr(info, field),
                             marks=[needs_shared(*PROCEDURE_DATA[info.name])] if info.name in PROCEDURE_DATA else [])
                for info in available()]
    finally:
        uninstall()


def uninstall() -> None:
    unregister("justices")
