"""A trial drawn with ipywidgets, for any procedure: a progress bar over the stages, one
accordion section per stage (per round for a stage held in rounds), and the outcome.
``TrialView.handle(event)`` is the whole renderer: a live run feeds it events as they
arrive, and a stored run is shown by feeding it the run's events again.

Everything shown comes from ``render.Presenter`` (the layout the chat and the CLI use) and is
turned into HTML here with raw HTML disabled, so nothing a model writes reaches the page as
markup. This module names no role and no stage.
"""

from __future__ import annotations

import html
import io
import re
import time
from functools import cache
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from .. import render
from ..cost import dollars
from ..events import Event, RunFinished, parse_event, parse_events
from ..render import Presenter, StageView
from .heartbeat import Heartbeat

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

    from ..records import RunRecord

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
    """Progress, the stages and the outcome of one trial, drawn from its events."""

    def __init__(self, **kwargs: Any):
        self.progress = widgets.IntProgress(value=0, min=0, max=1, description="Stages",
                                            layout=widgets.Layout(width="60%"))
        self.status = widgets.HTML()
        self.accordion = widgets.Accordion()
        self.verdict = widgets.HTML()
        super().__init__(children=[self.progress, self.status, self.accordion, self.verdict], **kwargs)
        self.result: RunRecord | None = None
        self.error: BaseException | None = None
        self.reset()

    # ------------------------------------------------------------------ state

    def reset(self) -> None:
        self.presenter = Presenter()
        self.sections: dict[str, Section] = {}  # stage view key ("jury", "bench#2") -> section
        self.accordion.children = []
        self.accordion.titles = ()
        self.accordion.selected_index = None
        self.progress.max, self.progress.value, self.progress.bar_style = 1, 0, ""
        self.status.value = self.verdict.value = ""
        self.status_markdown = self.verdict_markdown = ""
        self.run_id = ""
        self._drawn: dict[str, float] = {}
        self.heartbeat = Heartbeat(io.StringIO())  # who is working, for how long, tokens so far (no thread: redrawn on events)

    def preview(self, stages: tuple[tuple[str, str], ...]) -> None:
        """Before a run: the procedure's stages, empty, so the form shows what is to come."""
        self.reset()
        for name, title in stages:
            self.section(StageView(name, title))
        self.progress.max = max(1, len(stages))

    @property
    def finished(self) -> RunFinished | None:
        return self.presenter.finished

    @property
    def streams(self) -> dict[str, str]:
        """Each agent's reply as it streamed (raw text)."""
        return {name: agent.stream for view in self.presenter.stages.values() for name, agent in view.agents.items()}

    def section(self, view: StageView) -> Section:
        if view.key not in self.sections:
            self.sections[view.key] = Section(view.key, view.label)
            # in the presenter's order (stages as they ran), then those only previewed
            order = [k for k in self.presenter.stages if k in self.sections]
            self.sections = {k: self.sections[k] for k in order + [k for k in self.sections if k not in order]}
            self.accordion.children = [s.box for s in self.sections.values()]
            self._titles()
        return self.sections[view.key]

    def _titles(self) -> None:
        for key, section in self.sections.items():
            view = self.presenter.stages.get(key)
            if view is not None:
                section.title, section.state = view.label, ""
            elif self.presenter.finished is not None and not section.state:
                section.state = "not reached"
        self.accordion.titles = tuple(s.label for s in self.sections.values())

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
        p = self.presenter
        current = next((v for v in reversed(list(p.stages.values())) if v.state == "running…"), None)
        where = f"Stage {min(self.progress.value + 1, self.progress.max)} of {self.progress.max}: {current.title}" \
            if current else "Starting"
        working = self.heartbeat.line() if self.presenter.finished is None else ""
        self._set_status(f"{where} · {p.calls} call{'s' if p.calls != 1 else ''} · {p.tokens:,} tokens · "
                         f"{dollars(p.cost)} · run `{self.run_id}`" + (f"\n\n{working}" if working else ""))

    # ------------------------------------------------------------------ drawing

    def _draw(self, view: StageView, agent: str = "") -> None:
        """Redraw a stage: its agents (or only ``agent``), its items, its tally, warnings and note."""
        section = self.section(view)
        for name, shown in view.agents.items():
            if agent and name != agent:
                continue
            text = f"#### {shown.title}\n\n{shown.text()}"
            if shown.status == "running":
                text += "\n\n*writing…*"
            section.set(name, text)
        if not agent:
            if view.items:
                section.set("items", "\n\n".join(f"#### {i.title}\n\n{i.detail}" for i in view.items))
            rest = view.markdown(agents=False, items=False)
            if rest:
                section.set("notes", rest)
        self._titles()

    # ------------------------------------------------------------------ events

    def handle(self, event: Event) -> None:
        view = self.presenter.apply(event)
        kind = event.type
        self.heartbeat.saw(event)
        if kind == "run_started":
            self.reset()
            self.presenter.apply(event)
            self.run_id = event.run_id
            self.progress.max = max(1, len(event.stages))
            for stage in self.presenter.stages.values():
                self.section(stage)
            if event.dry_run:
                self._set_verdict("*Dry run: every role's prompt is shown in its stage; no model is called.*")
            elif event.asked:  # the procedure tries the question reworded ("Design A or B?")
                self._set_verdict(f"*Tried as: {event.question}*")
            self._progress_line()
        elif kind == "text_delta":
            if view is not None and time.monotonic() - self._drawn.get(event.agent, 0.0) >= STREAM_INTERVAL:
                self._drawn[event.agent] = time.monotonic()
                self._draw(view, event.agent)
                self._progress_line()
        elif kind in ("agent_started", "agent_retry"):
            if view is not None:
                self._draw(view)
            self._progress_line()
        elif kind == "stage_started":
            self._draw(view)
            self.accordion.selected_index = list(self.sections).index(view.key)
            self._progress_line()
        elif kind == "stage_finished":
            self._draw(view)
            if view.stage in (self.presenter.started.stages if self.presenter.started else []):
                self.progress.value = min(self.progress.value + 1, self.progress.max)
            self._progress_line()
        elif kind == "call_finished":
            self._progress_line()
        elif kind == "prompt_planned":
            plan = event.model_dump()
            head, _, body = render.prompt_markdown(plan).partition("\n\n")
            self.section(view).set(f"prompt-{event.agent}", f"<details><summary>{head}</summary>\n\n{body}\n\n</details>")
            self._titles()
        elif kind == "budget_stopped":
            self._set_verdict(f"**Budget stop:** {event.message}")
        elif kind in ("outcome_reached",):
            self._set_verdict(self.presenter.outcome_text())
        elif kind == "run_finished":
            self._finish(event)
        elif view is not None:
            self._draw(view)

    def _finish(self, e: RunFinished) -> None:
        for view in self.presenter.stages.values():
            self._draw(view)
        if e.status == "complete":
            self.progress.value = self.progress.max
        self.progress.bar_style = _BAR.get(e.status, "")
        self._set_status(self.presenter.status_line())
        self._set_verdict(self.presenter.outcome_text())

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
