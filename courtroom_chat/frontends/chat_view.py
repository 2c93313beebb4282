"""One trial in the chat: engine events -> Chainlit steps and messages, for any procedure.

    <Stage>          step: its tally, warnings and closing note  (one per round of a stage held in rounds)
      <Agent>        child step: its reply streaming as readable fields, then its Markdown
      <Item>         child step: a checked exhibit or citation
    outcome          a message with the answer, confidences, How sure, cost and actions

Everything shown comes from ``render.Presenter``; this module names no role and no stage.
A dry run shows one step per prompt and a summary.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import chainlit as cl
from chainlit.utils import utc_now

from .. import render
from ..events import Event
from ..render import Presenter, StageView, partial_fields_markdown

STREAM_INTERVAL = 0.25  # seconds between redraws of a streaming reply


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
        self.presenter = Presenter()
        self.stages: dict[str, cl.Step] = {}  # stage view key -> its step
        self.agents: dict[str, cl.Step] = {}  # agent -> its step
        self.drawn: dict[str, float] = {}  # agent -> when its stream was last drawn
        self.verdict_message: cl.Message | None = None
        self.open: list[cl.Step] = []
        # Inside a handler Chainlit runs a step ("on_message") that holds its messages; the
        # stages join it, so they show before the outcome and not after the whole exchange.
        current = cl.context.current_step
        self.root: str | None = current.id if current else None

    @property
    def finished(self) -> Any:
        return self.presenter.finished

    # ------------------------------------------------------------------ steps

    async def _step(self, name: str, parent: cl.Step | None = None, *, output: str = "", open_: bool = False,
                    done: bool = False, collapse: bool = False) -> cl.Step:
        parent_id = parent.id if parent else self.root
        step = cl.Step(name=name, type="tool", parent_id=parent_id, default_open=open_, auto_collapse=collapse,
                       show_input=False)
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

    async def _stage_step(self, view: StageView) -> cl.Step:
        if view.key not in self.stages:
            # Open while it runs, folded once it is done, so the verdict is what stays in view.
            self.stages[view.key] = await self._step(self._stage_name(view), open_=True, collapse=True)
        return self.stages[view.key]

    @staticmethod
    def _stage_name(view: StageView) -> str:
        return f"{view.title} · round {view.round}" if view.round else view.title

    async def _draw_stage(self, view: StageView) -> None:
        step = await self._stage_step(view)
        step.output = view.markdown(agents=False, items=False)
        await step.update()

    # ------------------------------------------------------------------ events

    async def show(self, event: Event) -> None:
        view = self.presenter.apply(event)
        handler = getattr(self, f"on_{event.type}", None)
        if handler is not None:
            await handler(event, view)

    async def on_run_started(self, e: Any, view: StageView | None) -> None:
        if e.asked:  # the procedure tries the question reworded ("Design A or B?")
            await cl.Message(content=f"Tried as: *{e.question}*", author=self.author).send()

    async def on_stage_started(self, e: Any, view: StageView) -> None:
        await self._stage_step(view)

    async def on_agent_started(self, e: Any, view: StageView) -> None:
        agent = view.agents[e.agent]
        self.agents[e.agent] = await self._step(agent.title, await self._stage_step(view),
                                                output=f"{agent.head}\n\n*writing…*")

    async def on_text_delta(self, e: Any, view: StageView | None) -> None:
        step, agent = self.agents.get(e.agent), self.presenter.agent(e.agent)
        if step is None or agent is None or time.monotonic() - self.drawn.get(e.agent, 0.0) < STREAM_INTERVAL:
            return
        self.drawn[e.agent] = time.monotonic()
        step.output = f"{agent.head}\n\n{partial_fields_markdown(agent.stream)}"
        await step.update()

    async def on_agent_retry(self, e: Any, view: StageView | None) -> None:
        step = self.agents.get(e.agent)
        if step is not None:
            step.output = f"{step.output}\n\n↻ *Asked again: {'; '.join(e.problems)}*"
            await step.update()

    async def on_agent_finished(self, e: Any, view: StageView) -> None:
        agent = view.agents[e.agent]
        step = self.agents.get(e.agent) or await self._step(agent.title, await self._stage_step(view))
        step.name, step.output = agent.title, agent.text()
        await self._end(step)

    async def on_agent_failed(self, e: Any, view: StageView) -> None:
        agent = view.agents[e.agent]
        step = self.agents.get(e.agent) or await self._step(agent.title, await self._stage_step(view))
        step.name, step.output = agent.title, agent.text()
        await self._end(step, error=True)

    async def on_item_checked(self, e: Any, view: StageView) -> None:
        await self._step(e.title, await self._stage_step(view), output=e.detail, done=True)

    async def on_tally_updated(self, e: Any, view: StageView) -> None:
        await self._draw_stage(view)

    async def on_warning_raised(self, e: Any, view: StageView | None) -> None:
        if view is not None:
            await self._draw_stage(view)

    async def on_stage_finished(self, e: Any, view: StageView) -> None:
        await self._draw_stage(view)
        step = self.stages.get(view.key)
        if step is not None:
            await self._end(step)

    async def on_prompt_planned(self, e: Any, view: StageView | None) -> None:
        await self._step(f"Prompt · {e.agent}", output=render.prompt_markdown(e.model_dump()), done=True)

    async def on_run_finished(self, e: Any, view: StageView | None) -> None:
        self.costs.add(e.cost_by_role, e.cost_usd)
        if self.presenter.plans:
            summary = cl.Message(content=render.dry_run_summary(self.presenter.plans), author=self.author)
            summary.type = "system_message"  # no verdict, so no thumbs (Chainlit's feedback is for verdicts)
            await summary.send()
        elif e.status == "complete" and self.presenter.outcome is not None:
            await self.send_verdict()

    async def send_verdict(self) -> cl.Message:
        content = self.presenter.outcome_text(html=False, session_cost=(dict(self.costs.by_role), self.costs.total))
        run_id = self.presenter.finished.run_id
        # How sure's every line, one click from the three the verdict shows (Chainlit links a side
        # element from its name in the message)
        full = "\n".join(f"- {line}" for line in render.how_sure(self.presenter.outcome))
        elements = [cl.Text(name=render.IN_FULL, content=full, display="side")] if render.IN_FULL in content else []
        self.verdict_message = cl.Message(content=content, author=self.author, actions=verdict_actions(run_id),
                                          metadata={"run_id": run_id, "kind": "verdict"}, elements=elements)
        await self.verdict_message.send()
        return self.verdict_message

    # ------------------------------------------------------------------ endings

    async def close_open(self, note: str) -> None:
        """Close every step still running (a stop or a failure) with ``note``."""
        for step in list(reversed(self.open)):
            step.output = f"{step.output.rstrip()}\n\n*{note}*".strip()
            await self._end(step)

    def stage_titles(self, stages: list[str]) -> str:
        titles = {v.stage: v.title for v in self.presenter.stages.values()}
        return ", ".join(titles.get(s, s.capitalize()) for s in stages) or "none"
