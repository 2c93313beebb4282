"""A trial drawn with ipywidgets: a progress bar over the stages, one accordion section per
stage, and the verdict. ``TrialView.handle(event)`` is the whole renderer: a live run feeds
it events as they arrive, and a stored run is shown by feeding it the run's events again.

Every piece of text comes from ``courtroom_chat.render`` (the layout the chat and the CLI
use) and is turned into HTML here with raw HTML disabled, so nothing a model writes reaches
the page as markup.
"""

from __future__ import annotations

import html
import json
import re
import time
from functools import cache
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from .. import render
from ..cost import dollars
from ..events import Event, RunFinished, parse_event, parse_events

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

    from ..records import RunRecord

STAGES = (("prosecution", "Prosecution"), ("defense", "Defense"), ("jury", "Jury"), ("judge", "Judge"))
_AGENT_STAGE = {"prosecutor": "prosecution", "defense": "defense", "jury": "jury", "judge": "judge"}
_DETAILS = re.compile(r"<details><summary>(.*?)</summary>\n\n(.*?)\n\n</details>", re.S)
_BAR = {"complete": "success", "incomplete": "warning", "stopped": "warning", "failed": "danger"}
STREAM_INTERVAL = 0.1  # seconds between redraws of a streaming reply


@cache
def _markdown() -> MarkdownIt:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False})


def markdown_html(text: str) -> str:
    """Markdown from ``render`` as safe HTML.

    Raw HTML in the text is escaped. The one construct ``render`` writes in HTML, a
    ``<details>`` block, is rebuilt here from its parts.
    """
    md = _markdown()
    parts, pos = [], 0
    for m in _DETAILS.finditer(text):
        parts.append(md.render(text[pos : m.start()]))
        parts.append(f'<details style="margin: 0.5em 0"><summary>{md.renderInline(m.group(1))}</summary>'
                     f"{md.render(m.group(2))}</details>")
        pos = m.end()
    parts.append(md.render(text[pos:]))
    return ('<div class="jp-RenderedHTMLCommon courtroom-md" style="white-space: normal; line-height: 1.45; '
            f'padding: 0 4px">{"".join(parts)}</div>')


def stage_of(agent: str) -> str:
    return "jury" if agent.startswith("juror-") else _AGENT_STAGE.get(agent, agent)


class Section:
    """One accordion page: blocks of Markdown (or streaming text), each in an HTML widget."""

    def __init__(self, name: str, title: str):
        self.name = name
        self.title = title
        self.state = ""  # shown after the title: "running…", "3–2", "done"
        self.box = widgets.VBox(layout=widgets.Layout(width="100%"))
        self.sources: dict[str, str] = {}
        self._blocks: dict[str, widgets.HTML] = {}

    def set(self, key: str, markdown: str) -> None:
        self._block(key).value = markdown_html(markdown)
        self.sources[key] = markdown

    def set_html(self, key: str, source: str, value: str) -> None:
        self._block(key).value = value
        self.sources[key] = source

    def _block(self, key: str) -> widgets.HTML:
        if key not in self._blocks:
            self._blocks[key] = widgets.HTML(layout=widgets.Layout(width="100%"))
            self.box.children = (*self.box.children, self._blocks[key])
        return self._blocks[key]

    @property
    def markdown(self) -> str:
        """Everything the section shows, as its Markdown source (streams as plain text)."""
        return "\n\n".join(self.sources.values())

    @property
    def label(self) -> str:
        return f"{self.title} · {self.state}" if self.state else self.title


class TrialView(widgets.VBox):
    """Progress, the stages and the verdict of one trial, drawn from its events."""

    def __init__(self, stages: tuple[tuple[str, str], ...] = STAGES, **kwargs: Any):
        self.progress = widgets.IntProgress(value=0, min=0, max=len(stages), description="Stages",
                                            layout=widgets.Layout(width="60%"))
        self.status = widgets.HTML()
        self.accordion = widgets.Accordion()
        self.verdict = widgets.HTML()
        super().__init__(children=[self.progress, self.status, self.accordion, self.verdict], **kwargs)
        self.result: RunRecord | None = None
        self.error: BaseException | None = None
        self.reset(stages)

    # ------------------------------------------------------------------ state

    def reset(self, stages: tuple[tuple[str, str], ...] = STAGES) -> None:
        self.sections = {name: Section(name, title) for name, title in stages}
        self.accordion.children = [s.box for s in self.sections.values()]
        self.accordion.titles = tuple(s.label for s in self.sections.values())
        self.accordion.selected_index = None
        self.progress.max, self.progress.value, self.progress.bar_style = len(stages), 0, ""
        self.status.value = self.verdict.value = ""
        self.status_markdown = self.verdict_markdown = ""
        self.run_id = ""
        self.finished: RunFinished | None = None
        self.exhibits: list[dict[str, Any]] = []
        self.plans: list[dict[str, Any]] = []
        self.streams: dict[str, str] = {}
        self._heads: dict[str, str] = {}
        self._drawn: dict[str, float] = {}
        self._live: set[str] = set()  # agents whose block still shows their streaming reply
        self._where: dict[str, str] = {}  # agent -> the stage it speaks in
        self._verdict: Any = None
        self._stage = ""
        self._calls = self._tokens = 0
        self._cost: dict[str, float] = {}

    def section(self, agent_or_stage: str) -> Section:
        name = stage_of(agent_or_stage)
        if name not in self.sections:  # a procedure with stages of its own
            self.sections[name] = Section(name, name.replace("_", " ").capitalize())
            self.accordion.children = [*self.accordion.children, self.sections[name].box]
            self._titles()
        return self.sections[name]

    def _of(self, agent: str) -> Section:
        return self.section(self._where.get(agent, agent))

    def _titles(self) -> None:
        self.accordion.titles = tuple(s.label for s in self.sections.values())

    def _set_state(self, section: Section, state: str) -> None:
        section.state = state
        self._titles()

    def _set_status(self, markdown: str) -> None:
        self.status_markdown = markdown
        self.status.value = markdown_html(markdown)

    def show_error(self, message: str) -> None:
        """A one-line error in place of the status line (escaped, never read as Markdown)."""
        self.status_markdown = f"Error: {message}"
        self.status.value = f'<div style="color: #b00020; white-space: normal"><b>Error:</b> {html.escape(message)}</div>'

    def _set_verdict(self, markdown: str) -> None:
        self.verdict_markdown = markdown
        self.verdict.value = markdown_html(markdown)

    def _progress_line(self) -> None:
        stage = self.sections.get(self._stage)
        done = self.progress.value
        where = f"Stage {min(done + 1, self.progress.max)} of {self.progress.max}: {stage.title}" if stage else "Starting"
        cost = sum(self._cost.values())
        self._set_status(f"{where} · {self._calls} call{'s' if self._calls != 1 else ''} · "
                         f"{self._tokens:,} tokens · {dollars(cost)} · run `{self.run_id}`")

    # ------------------------------------------------------------------ events

    def handle(self, event: Event) -> None:
        method = getattr(self, f"_on_{event.type}", None)
        if method is not None:
            method(event)

    def replay(self, record: RunRecord) -> None:
        """Draw a stored run from its events alone."""
        self.reset()
        self.result = record
        if not record.events:
            self._set_status(f"Run `{record.run_id}` has no stored events to show (status {record.status}).")
            return
        for event in parse_events(record.events):
            self.handle(event)

    def close_from(self, record: RunRecord) -> None:
        """After a cancel the consumer misses the final event; draw it from the saved record."""
        if self.finished is None and record.events and record.events[-1].get("type") == "run_finished":
            self.handle(parse_event(record.events[-1]))

    def _on_run_started(self, e: Any) -> None:
        known = dict(STAGES)
        self.reset(tuple((s, known.get(s, s.replace("_", " ").capitalize())) for s in e.stages) or STAGES)
        self.run_id = e.run_id
        if e.dry_run:
            self._set_verdict("*Dry run: every role's prompt is shown in its stage; no model is called.*")
        self._progress_line()

    def _on_stage_started(self, e: Any) -> None:
        section = self.section(e.stage)
        section.title = e.title
        self._stage = e.stage
        self._set_state(section, "running…")
        self.accordion.selected_index = list(self.sections).index(e.stage)
        self._progress_line()

    def _on_stage_finished(self, e: Any) -> None:
        section = self.section(e.stage)
        self.progress.value = min(self.progress.value + 1, self.progress.max)
        if e.stage == "prosecution":
            verified = sum(1 for x in self.exhibits if x.get("verified"))
            state = f"{len(self.exhibits)} exhibit{'s' if len(self.exhibits) != 1 else ''}, {verified} verified"
        elif e.stage == "jury" and e.summary.get("split"):
            state = str(e.summary['split'])
        else:
            state = "done"
        self._set_state(section, state)
        self._progress_line()

    def _on_agent_started(self, e: Any) -> None:
        self._where[e.agent] = e.stage
        bits = [f"**{e.title}**", f"*{e.persona}*" if e.persona else "", e.model,
                f"temperature {render.temperature_text(e.temperature)}"]
        self._heads[e.agent] = " · ".join(b for b in bits if b)
        self.streams[e.agent] = ""
        self._live.add(e.agent)
        self._draw_stream(e.agent, "writing…")

    def _on_text_delta(self, e: Any) -> None:
        self.streams[e.agent] = self.streams.get(e.agent, "") + e.text
        if time.monotonic() - self._drawn.get(e.agent, 0.0) >= STREAM_INTERVAL:
            self._draw_stream(e.agent, "writing…")

    def _on_agent_retry(self, e: Any) -> None:
        problems = "; ".join(e.problems)
        self._heads[e.agent] = f"{self._heads.get(e.agent, e.agent)} · ↻ asked again ({problems})"
        self.streams[e.agent] = ""
        self._draw_stream(e.agent, "writing again…")

    def _draw_stream(self, agent: str, note: str) -> None:
        self._drawn[agent] = time.monotonic()
        head = self._heads.get(agent, agent)
        text = self.streams.get(agent, "")
        value = (f"{markdown_html(f'{head} · {note}')}<pre style=\"white-space: pre-wrap; max-height: 14em; "
                 f"overflow: auto; margin: 0 4px 8px\">{html.escape(text)}</pre>")
        self._of(agent).set_html(agent, f"{head} · {note}\n\n{text}", value)

    def _on_agent_finished(self, e: Any) -> None:
        self._where[e.agent] = e.stage
        out, section = e.output, self._of(e.agent)
        if e.agent == "prosecutor":
            text = render.prosecution_markdown(out)
        elif e.agent == "defense":
            text = render.defense_markdown(out, self.exhibits)
        elif e.agent.startswith("juror-"):
            text = f"#### {render.juror_title(out)}\n\n{render.juror_markdown(out)}"
        elif e.agent == "judge":
            text = (f"**Ruling:** {render.DECISION_LABEL.get(out.get('decision'), out.get('decision'))} · "
                    f"judge's confidence {out.get('confidence', 0):.0%}\n\n{out.get('reasoning', '')}")
        else:
            text = f"**{e.agent}**\n\n```json\n{json.dumps(out, indent=1, ensure_ascii=False)}\n```"
        if e.repaired:
            text += "\n\n*Repaired: the first reply broke a rule and the agent was asked once more.*"
        self._live.discard(e.agent)
        section.set(e.agent, text)

    def _on_agent_failed(self, e: Any) -> None:
        self._live.discard(e.agent)
        self._where[e.agent] = e.stage
        self._of(e.agent).set(e.agent, f"**{e.agent} failed:** {e.error}")

    def _on_exhibit_checked(self, e: Any) -> None:
        self.exhibits.append(e.exhibit)
        self.section("prosecution").set("exhibits", "\n\n".join(
            f"#### {render.exhibit_title(x)}\n\n{render.exhibit_markdown(x)}" for x in self.exhibits))

    def _on_tally_updated(self, e: Any) -> None:
        text = render.tally_text(e.guilty, e.not_guilty, e.abstain, e.pending, e.failed, e.seated)
        section = self.section("jury")
        section.set("tally", f"**Tally** (act–do not act): {text}")
        self._set_state(section, text)

    def _on_warning_raised(self, e: Any) -> None:
        section = self._of(e.agent)
        lines = section.sources.get("warnings", "").splitlines()
        section.set("warnings", "\n".join([*lines, f"- ⚠️ {e.message}"]))

    def _on_call_finished(self, e: Any) -> None:
        self._calls += 1
        self._tokens += e.input_tokens + e.output_tokens
        self._cost[e.role] = self._cost.get(e.role, 0.0) + (e.cost_usd or 0.0)
        self._progress_line()

    def _on_prompt_planned(self, e: Any) -> None:
        plan = e.model_dump()
        self.plans.append(plan)
        head, _, body = render.prompt_markdown(plan).partition("\n\n")
        section = self.section(e.stage)
        section.set(f"prompt-{e.agent}", f"<details><summary>{head}</summary>\n\n{body}\n\n</details>")
        count = sum(1 for p in self.plans if p["stage"] == e.stage)
        self._set_state(section, f"{count} prompt{'s' if count != 1 else ''}")

    def _on_budget_stopped(self, e: Any) -> None:
        self._set_verdict(f"**Budget stop:** {e.message}")

    def _on_verdict_reached(self, e: Any) -> None:
        self._verdict = e
        if e.verdict.get("decided_by") == "jury":
            self.section("judge").set("ruling", f"**No judge's ruling:** {e.verdict.get('reasoning', '')}")
        self._set_verdict(self._verdict_text())

    def _verdict_text(self, finished: RunFinished | None = None) -> str:
        e = self._verdict
        costs: dict[str, Any] = {}
        if finished is not None:
            costs = {"cost_by_role": finished.cost_by_role, "cost_usd": finished.cost_usd,
                     "cost_known": finished.cost_known}
        return render.verdict_markdown(e.verdict, split=e.split, jurors_voted=e.jurors_voted,
                                       jurors_seated=e.jurors_seated, warnings=e.warnings, **costs)

    def _on_run_finished(self, e: RunFinished) -> None:
        self.finished = e
        for agent in sorted(self._live):  # replies cut off by a failure or a stop
            self._draw_stream(agent, "cut off before it finished")
        for section in self.sections.values():
            if section.state == "running…":
                section.state = "interrupted"
            elif not section.state and e.status != "complete":
                section.state = "not reached"
        self._titles()
        if e.status == "complete":
            self.progress.value = self.progress.max
        self.progress.bar_style = _BAR.get(e.status, "")
        stages = "dry run, no model called" if self.plans else f"stages completed: {', '.join(e.stages_completed) or 'none'}"
        self._set_status(f"Status: **{e.status}**" + (f" ({e.error})" if e.error else "")
                         + f" · {stages} · {e.duration_ms / 1000:.1f} s · run `{e.run_id}`")
        if self._verdict is not None:
            self._set_verdict(self._verdict_text(e))
        elif self.plans:
            self._set_verdict(render.dry_run_summary(self.plans))
        else:
            lead = self.verdict_markdown + "\n\n" if self.verdict_markdown.startswith("**Budget stop") else ""
            self._set_verdict(lead + f"**No verdict** ({e.status}).\n\n"
                              + "\n".join(render.cost_lines(e.cost_by_role, e.cost_usd, e.cost_known)))
