"""One trial in the chat: engine events -> Chainlit steps and messages, nothing else.

    Prosecution   step: the prosecutor's text streams in, then its case; one child per exhibit
    Defense       step: the counter-argument and a challenge under each exhibit
    Jury          step: the tally as soon as it is known; one child per juror, streaming
    Judge         step: the ruling; the verdict follows as a message with its actions

A dry run shows one step per role's prompt and a summary. The layout of every piece comes
from ``render``, so the chat, the notebook and the Markdown export read alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import chainlit as cl
from chainlit.utils import utc_now

from .. import render
from ..events import Event

STAGE_OF = {"prosecutor": "prosecution", "defense": "defense", "judge": "judge", "jury": "jury"}
FENCE = "```text\n"  # raw model text streams inside a code block until the typed output replaces it


@dataclass
class SessionCosts:
    """What the trials of one conversation have cost so far, by role."""

    by_role: dict[str, float] = field(default_factory=dict)
    total: float = 0.0

    def add(self, by_role: dict[str, float], total: float) -> None:
        for role, cost in by_role.items():
            self.by_role[role] = round(self.by_role.get(role, 0.0) + cost, 6)
        self.total = round(self.total + total, 6)


def verdict_actions(run_id: str) -> list[cl.Action]:
    payload = {"run_id": run_id}
    return [
        cl.Action(name="export", payload=payload, label="Export", icon="download",
                  tooltip="The run record as JSON and as Markdown"),
        cl.Action(name="rerun", payload=payload, label="Re-run", icon="refresh-cw",
                  tooltip="Try the same case again with the current settings"),
        cl.Action(name="show_prompts", payload=payload, label="Show prompts", icon="scroll-text",
                  tooltip="Each role's exact prompt for this case, with estimates; calls no model"),
    ]


class TrialView:
    def __init__(self, costs: SessionCosts, author: str = "Court"):
        self.costs = costs
        self.author = author
        self.titles: dict[str, str] = {}  # stage -> title
        self.stages: dict[str, cl.Step] = {}
        self.agents: dict[str, cl.Step] = {}  # agent -> the step its text streams into
        self.notes: dict[str, list[str]] = {}  # stage -> warnings shown under it
        self.bodies: dict[str, str] = {}  # stage -> its text without the notes
        self.exhibits: list[dict[str, Any]] = []
        self.plans: list[dict[str, Any]] = []
        self.verdict: Any = None
        self.finished: Any = None
        self.verdict_message: cl.Message | None = None
        self.open: list[cl.Step] = []
        # Inside a handler Chainlit runs a step ("on_message") that holds its messages; the
        # stages join it, so they show before the verdict and not after the whole exchange.
        current = cl.context.current_step
        self.root: str | None = current.id if current else None

    # ------------------------------------------------------------------ steps

    async def _step(self, name: str, parent: cl.Step | None = None, *, output: str = "", open_: bool = False,
                    done: bool = False) -> cl.Step:
        parent_id = parent.id if parent else self.root
        step = cl.Step(name=name, type="tool", parent_id=parent_id, default_open=open_, show_input=False)
        step.start = utc_now()
        step.output = output
        if done:
            step.end = step.start
        else:
            self.open.append(step)
        await step.send()
        return step

    async def _end(self, step: cl.Step, *, error: bool = False) -> None:
        step.end = utc_now()
        step.is_error = step.is_error or error
        if step in self.open:
            self.open.remove(step)
        await step.update()

    async def _show_stage(self, stage: str, body: str | None = None) -> None:
        if body is not None:
            self.bodies[stage] = body
        step = self.stages.get(stage)
        if step is None:
            return
        notes = self.notes.get(stage, [])
        step.output = "\n\n".join([self.bodies.get(stage, ""), *(f"⚠️ {n}" for n in notes)]).strip()
        await step.update()

    # ------------------------------------------------------------------ events

    async def show(self, event: Event) -> None:
        handler = getattr(self, f"on_{event.type}", None)
        if handler is not None:
            await handler(event)

    async def on_stage_started(self, e: Any) -> None:
        self.titles[e.stage] = e.title
        self.stages[e.stage] = await self._step(e.title, open_=True)

    async def on_agent_started(self, e: Any) -> None:
        head = f"*{e.persona or e.title}* · `{e.model}` · temperature {render.temperature_text(e.temperature)}"
        if e.agent.startswith("juror-"):
            step = await self._step(e.title, self.stages.get(e.stage), output=f"{head}\n\n{FENCE}")
        else:
            step = self.stages[e.stage]
            step.output = f"{head}\n\n{FENCE}"
            await step.update()
        self.agents[e.agent] = step

    async def on_text_delta(self, e: Any) -> None:
        step = self.agents.get(e.agent)
        if step is not None:
            await step.stream_token(e.text)

    async def on_agent_retry(self, e: Any) -> None:
        step = self.agents.get(e.agent)
        if step is not None:
            problems = "; ".join(e.problems)
            await step.stream_token(f"\n```\n\n↻ *Asked again: {problems}*\n\n{FENCE}")

    async def on_exhibit_checked(self, e: Any) -> None:
        self.exhibits.append(e.exhibit)
        await self._step(render.exhibit_title(e.exhibit), self.stages.get("prosecution"),
                         output=render.exhibit_markdown(e.exhibit), done=True)

    async def on_agent_finished(self, e: Any) -> None:
        out = e.output
        if e.agent.startswith("juror-"):
            step = self.agents[e.agent]
            step.name = render.juror_title(out)
            step.output = render.juror_markdown(out)
            await self._end(step)
        elif e.agent == "prosecutor":
            await self._show_stage("prosecution", render.prosecution_markdown(out))
        elif e.agent == "defense":
            await self._show_stage("defense", render.defense_markdown(out, self.exhibits))
        elif e.agent == "judge":
            await self._show_stage("judge", f"**Ruling:** {out['answer']}\n\n{out['reasoning']}")

    async def on_agent_failed(self, e: Any) -> None:
        step = self.agents.get(e.agent)
        if step is None:
            return
        if e.agent.startswith("juror-"):
            step.name = f"{step.name} · failed"
            step.output = f"{step.output.rstrip()}\n\n**Failed:** {e.error}"
            await self._end(step, error=True)
        else:
            await self._show_stage(e.stage, f"**{e.agent.capitalize()} failed:** {e.error}")

    async def on_tally_updated(self, e: Any) -> None:
        tally = render.tally_text(e.guilty, e.not_guilty, e.abstain, e.pending, e.failed, e.seated)
        await self._show_stage("jury", f"**Tally (act–do not act):** {tally}")

    async def on_warning_raised(self, e: Any) -> None:
        stage = STAGE_OF.get(e.agent) or ("jury" if e.agent.startswith("juror-") else None)
        stage = stage if stage in self.stages else next(reversed(self.stages), None)
        if stage is not None:
            self.notes.setdefault(stage, []).append(e.message)
            await self._show_stage(stage)

    async def on_stage_finished(self, e: Any) -> None:
        summary = e.summary or {}
        if e.stage == "judge" and summary.get("decided_by") == "jury":
            await self._show_stage("judge", f"**No ruling; the jury decides:** {summary.get('answer', '')}\n\n"
                                            f"{summary.get('reasoning', '')}")
        step = self.stages.get(e.stage)
        if step is not None:
            await self._end(step)

    async def on_prompt_planned(self, e: Any) -> None:
        plan = e.model_dump()
        self.plans.append(plan)
        await self._step(f"Prompt · {e.agent}", output=render.prompt_markdown(plan), done=True)

    async def on_verdict_reached(self, e: Any) -> None:
        self.verdict = e

    async def on_run_finished(self, e: Any) -> None:
        self.finished = e
        self.costs.add(e.cost_by_role, e.cost_usd)
        if self.plans:
            await cl.Message(content=render.dry_run_summary(self.plans), author=self.author).send()
        elif e.status == "complete" and self.verdict is not None:
            await self.send_verdict()

    async def send_verdict(self) -> cl.Message:
        v, e = self.verdict, self.finished
        content = render.verdict_markdown(
            v.verdict, split=v.split, jurors_voted=v.jurors_voted, jurors_seated=v.jurors_seated,
            warnings=v.warnings, cost_by_role=e.cost_by_role, cost_usd=e.cost_usd, cost_known=e.cost_known,
            session_cost=(dict(self.costs.by_role), self.costs.total), html=False,
        )
        self.verdict_message = cl.Message(content=content, author=self.author, actions=verdict_actions(e.run_id),
                                          metadata={"run_id": e.run_id, "kind": "verdict"})
        await self.verdict_message.send()
        return self.verdict_message

    # ------------------------------------------------------------------ endings

    async def close_open(self, note: str) -> None:
        """Close every step still running (a stop or a failure) with ``note``."""
        for step in list(reversed(self.open)):
            text = step.output.rstrip()
            if text.count("```") % 2:  # the raw text was streaming inside a code block
                text += "\n```"
            step.output = f"{text}\n\n*{note}*".strip()
            await self._end(step)

    def stage_titles(self, stages: list[str]) -> str:
        return ", ".join(self.titles.get(s, s.capitalize()) for s in stages) or "none"
