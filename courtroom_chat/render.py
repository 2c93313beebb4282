"""The one presenter: events in, the trial as stages → agents → items → tally → outcome.

Every front end (CLI, chat, notebook, Markdown export, ``courtroom show``) draws from
``Presenter`` and the functions here, so any procedure reads the same everywhere and no
front end names a role. ``replay`` rebuilds a whole trial as Markdown from its events alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from . import measured
from .cost import dollars
from .events import (
    AgentFailed,
    AgentFinished,
    AgentRetry,
    AgentStarted,
    BudgetStopped,
    CallFinished,
    Event,
    ItemChecked,
    OutcomeReached,
    PromptPlanned,
    RunFinished,
    RunStarted,
    StageFinished,
    StageStarted,
    TallyUpdated,
    TextDelta,
    WarningRaised,
)
from .procedures.deliberation import SEQUENCE, order_driven, order_kept, sequence_moved

_DETAILS = re.compile(r"<details><summary>(.*?)</summary>\n\n(.*?)\n\n</details>", re.S)


def temperature_text(value: float | None) -> str:
    return "none applied" if value is None else f"{value:.2f}"


def fold_details(text: str) -> str:
    """``<details>`` blocks as a bold label and a quote, for renderers that show HTML as text."""

    def quote(m: re.Match[str]) -> str:
        body = "\n".join(f"> {line}" if line else ">" for line in m.group(2).splitlines())
        return f"**{m.group(1)}:**\n\n{body}"

    return _DETAILS.sub(quote, text)


def strip_details(text: str) -> str:
    """``text`` without its ``<details>`` blocks (already shown elsewhere)."""
    return _DETAILS.sub("", text)


SELF_HOSTED = "self-hosted: no price per call; tokens and time are counted"


def cost_lines(cost_by_role: dict[str, float], total: float, known: bool = True, label: str = "This trial",
               free: str = SELF_HOSTED) -> list[str]:
    """The cost line. Nothing priced (the embedded model, an Ollama host, your own OpenAI-compatible
    server, a demo) reads "$0 (``free``)", not a row of $0 per role that looks like a bill."""
    if known and total == 0:
        return [f"**{label}:** $0 ({free})"]
    parts = ", ".join(f"{role} {dollars(cost)}" for role, cost in cost_by_role.items())
    suffix = "" if known else " (some calls have no known price)"
    return [f"**{label}:** {dollars(total)}{suffix}" + (f" — {parts}" if parts else "")]


def confidence_line(outcome: dict[str, Any]) -> str:
    parts = []
    for c in outcome.get("confidences", []):
        basis = f" ({c['basis']})" if c.get("basis") else ""
        parts.append(f"{c['label']} {c['value']:.0%}{basis}")
    return "**Confidence:** " + " · ".join(parts) if parts else ""


def order_line(order: dict[str, Any]) -> str:
    """The order check (``deliberation.order_check``) in words."""
    k, n, p = order["followed"], order["voters"], order["p"]
    said = (f"Order: {k} of {n} {order['who']} chose the label listed first to them, each in its own shuffled "
            f"order (by chance alone {order['chance']:.0%} each; at least {k} of {n}: p = {p:.3g})")
    if order_driven(order):
        return said + ": the order decided these votes more than the case did"
    return said + ": no sign the order decided them"


def rounds_line(conformity: dict[str, Any] | None, label: str | None) -> tuple[str, str]:
    """For a procedure that deliberates in rounds (the supreme court's conference, the bench's
    consensus rounds): the line saying who changed position after round 1 ("" without rounds),
    and round 1's majority when the verdict is not it (the later rounds overturned it), else "".
    On the 1.5B every measured overturn went from the right verdict to the wrong one (README)."""
    rounds = (conformity or {}).get("rounds") or []
    if not conformity or not rounds:
        return "", ""
    if conformity.get("unit") == SEQUENCE:  # the classification court's judges in turn
        return f"Sequence: {sequence_moved(conformity)}", ""
    changed, toward = int(conformity.get("changed") or 0), int(conformity.get("toward") or 0)
    if not changed:
        return "Rounds: no member changed position after round 1", ""
    first = rounds[0].get("previous_majority") or ""
    overturned = first if first and label not in (None, "", first, "hung", "undecided") else ""
    line = (f"Rounds: {changed} member{'s' if changed != 1 else ''} changed position after round 1 "
            f"({toward} toward its majority, {changed - toward} away)")
    return line + (f"; round 1's majority was {first}, the verdict is {label}" if overturned else ""), overturned


HELD_BY_ORDER = ("; the check kept each member's order of the labels, which decided these votes, so its holding "
                 "says little of the evidence")


def how_sure(outcome: dict[str, Any]) -> list[str]:
    """What was measured about this verdict, and one plain sentence that claims no more than that.

    Reads the outcome's vote counts, its evidence confidence, flagged evidence, the order check
    where members read the labels in shuffled orders, and the mirror and fragility checks where
    they were run."""
    data = outcome.get("data") or {}
    votes = {k: v for k, v in (data.get("votes") or {}).items()}
    cast = sum(votes.values())
    ranked = sorted(votes.values(), reverse=True) + [0, 0]
    margin = ranked[0] - ranked[1]
    evidence = next((c for c in outcome.get("confidences", []) if c["kind"] == "evidence"), None)
    # nothing verified (a 0 may also be verified exhibits that all point the other way, which is evidence;
    # a record from before 2026-11-30 has no count, and its 0 meant nothing verified)
    no_evidence = evidence is not None and evidence["value"] == 0 and not data.get("exhibits_verified")
    mirror, fragility, flags = data.get("mirror"), data.get("fragility"), int(data.get("flags") or 0)
    lines = []
    # verified passages of the losing side that nothing answered, each with the procedure's sentence
    gaps = [g for g in data.get("unanswered") or [] if g.get("sentence")]
    if cast:
        shape = "unanimous" if margin == cast else "split" if margin <= 1 else "a clear majority"
        if gaps:
            shape += ", with " + ", ".join(f"exhibit {g['number']}" for g in gaps) + " unanswered"
        lines.append(f"Votes: {data.get('split') or ', '.join(f'{v} {k}' for k, v in votes.items())} ({shape})")
    unscored = data.get("evidence_unscored")  # verified exhibits, none standing for either side
    if evidence is not None and evidence["basis"].startswith("verified and unrefuted exhibits: 0 for acting, 0 against"):
        # a record from before 2026-11-30 scored such a verdict 0: the same case, read from its basis
        unscored, evidence = evidence["basis"] + ": none stands for either side, so the evidence gives no figure", None
    if evidence is not None:
        value = f"{evidence['value']:.0%} verified and unrefuted"
        lines.append(f"Evidence: {evidence['basis'] or value}")
    elif unscored:
        lines.append(f"Evidence: {unscored}")
    if flags:
        lines.append(f"Flagged evidence: {flags} passage{'s' if flags != 1 else ''} tried to instruct the court "
                     "and could not be used as an exhibit")
    if mirror:
        lines.append(f"Mirror: {mirror['summary']}")
    order = data.get("order")
    if fragility:
        lines.append(f"Fragility: {fragility['summary']}" + (HELD_BY_ORDER if order_kept(fragility, order) else ""))
    if order:
        lines.append(order_line(order))
    moved, overturned = rounds_line(data.get("conformity"), outcome.get("label"))
    if moved:
        lines.append(moved)
    both = data.get("both_ways") or {}
    if both:
        asked, other = both["as_asked"], both["other_way"]
        lines.append(f"Asked both ways round: yes {asked['yes']}, no {asked['no']} as asked; yes {other['yes']}, "
                     f"no {other['no']} turned around" + (f" (\"{both['lean']}\" both ways: the answers followed "
                                                          "the wording, not the evidence)" if both["lean"] else ""))
    against = int(data.get("against_reasoning") or 0)
    if against:
        lines.append(f"Self-contradiction: {against} voter{'s' if against != 1 else ''} answered against "
                     f"{'their' if against != 1 else 'its'} own reasoning, also when asked again (see the warnings)")
    known = data.get("measured")
    if known:
        lines.append(f"Measured on this model: {measured.summary(known)} (`{known['results']}`)")
    held = data.get("holds_back") if known and known.get("inverted") else ""
    if held:
        lines.append(f"Question: a Yes here means not going ahead (\"{held}\"); {known['inverted']}")
    weak = []
    if cast > 1 and margin <= 1:  # one voter is no split
        weak.append("split vote")
    if fragility and fragility.get("held") is False:  # not run (None) says nothing either way
        weak.append(f"the verdict rests on {fragility.get('removed', 'one piece of evidence')}")
    if mirror and mirror.get("kind") != "agree":
        weak.append("the answer did not survive turning the question around")
    if flags:
        weak.append("evidence that tried to give orders")
    if order_driven(order):
        weak.append("the votes followed the order the labels were listed in, not the case")
    if overturned:
        weak.append(f"the later rounds overturned the first round's majority ({overturned})")
    if known and measured.weakness(known):
        weak.append(measured.weakness(known))
    if against:
        weak.append(f"{against} voter{'s' if against != 1 else ''} answered against {'their' if against != 1 else 'its'}"
                    " own reasoning")
    if held:
        weak.append("a question whose Yes means not going ahead, which this court on this model answers less reliably")
    if both.get("lean"):
        weak.append(f"jurors answered \"{both['lean']}\" whichever way round the question was put")
    if gaps:  # the one thing that most weakens a verdict: it did not examine a verified passage
        more = len(gaps) - 1
        sentence = gaps[0]["sentence"] + (f" (and {more} more unanswered exhibit{'s' if more != 1 else ''})"
                                          if more else "") + "."
        sentence += f" Also: {weak[0]}." if weak else ""
    elif len(weak) >= 2:
        sentence = f"{weak[0].capitalize()}, and {weak[1]}: treat it as a coin toss."
    elif weak:
        sentence = f"{weak[0].capitalize()}: treat it as weak, and read the evidence yourself."
    elif no_evidence:
        sentence = "Decided on argument alone, with no verified evidence: check the facts yourself."
    else:
        tested = fragility and fragility.get("held") is not None  # "not run: no exhibit admitted" tested nothing
        unchecked = [name for name, ran in (("mirror", mirror), ("fragility", tested)) if not ran]
        base = "Unanimous" if cast and margin == cast else "A clear majority" if cast else "Decided"
        # only a procedure that scores its evidence (the decision court) may say the verdict stands on it
        sentence = (f"{base}; both sides cited or refuted every verified exhibit, so the evidence does not "
                    "score it" if unscored
                    else f"{base}, on evidence this procedure does not score" if evidence is None
                    else f"{base}, though every verified exhibit left standing was filed for the other side"
                    if not evidence["value"] else f"{base} on verified evidence")
        sentence += (f"; the {' and '.join(unchecked)} check{'s were' if len(unchecked) > 1 else ' was'} not run"
                     if unchecked else ", and it held under the mirror and fragility checks")
        sentence += ". A structured argument, not proof."
    lines.append(f"**{sentence}**")
    return lines


IN_FULL = "How sure, in full"


def how_sure_brief(lines: list[str]) -> list[str]:
    """How sure in at most three lines a person reads in five seconds (issue 86): the split, what
    the evidence shows, and the one sentence that names what most weakens the verdict and what to
    do. ``lines`` is ``how_sure``'s full list, which stays one click (or ``--verbose``) away."""
    heads = [line for line in lines[:-1] if line.startswith(("Votes:", "Evidence:"))][:2]
    return [*heads, lines[-1]] if lines else []


DEMO = ("**Demo:** the scripted backend wrote every reply, so no model read your evidence and this verdict says "
        "nothing about your question. Run it on a model (`--backend local`, the default) for a real one.")


def outcome_markdown(
    outcome: dict[str, Any],
    *,
    cost_by_role: dict[str, float] | None = None,
    cost_usd: float | None = None,
    cost_known: bool = True,
    session_cost: tuple[dict[str, float], float] | None = None,
    html: bool = True,
    full: bool | None = None,
) -> str:
    """The outcome, in the order every front end shows it: the answer, what the procedure says
    of it, named confidences, warnings, cost. ``html=False`` folds ``<details>`` blocks.

    How sure is three lines; ``full`` True shows every line of it in their place (the CLI's
    ``--verbose``), False the three alone, None the three and the rest one click away: in HTML
    a ``<details>`` block (the notebook), else a line naming ``IN_FULL`` that the chat links to
    an element holding the rest."""
    lines = [f"## {outcome['answer']}" + (" (demo)" if outcome.get("demo") else "")]
    if outcome.get("demo"):
        lines += ["", f"> {DEMO}"]
    if outcome.get("decided_by"):
        lines += ["", f"*Decided by {outcome['decided_by']}*" + (" · **partial**" if outcome.get("partial") else "")]
    if outcome.get("markdown"):
        lines += ["", outcome["markdown"]]
    conf = confidence_line(outcome)
    if conf:
        lines += ["", conf]
    sure = how_sure(outcome)
    brief = how_sure_brief(sure) if full is not True else sure
    lines += ["", "**How sure:**", *[f"- {line}" for line in brief]]
    if full is None and len(brief) < len(sure):
        if html:
            lines += ["", f"<details><summary>{IN_FULL}</summary>", "", *[f"- {line}" for line in sure], "",
                      "</details>"]
        else:  # the chat: its message links an element of this name (Chainlit shows it one click away)
            lines.append(f"- {IN_FULL}")
    if outcome.get("warnings"):
        lines += ["", "**Warnings:**", *[f"- ⚠️ {w}" for w in outcome["warnings"]]]
    lines.append("")
    free = "demo: no model was called" if outcome.get("demo") else SELF_HOSTED
    if cost_by_role is not None and cost_usd is not None:
        lines += cost_lines(cost_by_role, cost_usd, cost_known, free=free)
    if session_cost is not None:
        lines += cost_lines(session_cost[0], session_cost[1], label="This session", free=free)
    text = "\n".join(lines).rstrip() + "\n"
    return text if html else fold_details(text)


def prompt_markdown(p: dict[str, Any]) -> str:
    head = (f"**{p['agent']}** · {p['model']} · temperature {temperature_text(p.get('temperature'))} · "
            f"≈{p['input_tokens']:,} tokens in, ≈{p['output_tokens']:,} out · est. {dollars(p.get('cost_usd'))}")
    body = "\n\n".join(f"*{m['role']}*\n\n````text\n{m['content']}\n````" for m in p["messages"])
    return f"{head}\n\n{body}"


def dry_run_summary(plans: list[dict[str, Any]]) -> str:
    total_in = sum(p["input_tokens"] for p in plans)
    total_out = sum(p["output_tokens"] for p in plans)
    costs = [p.get("cost_usd") for p in plans]
    known = all(c is not None for c in costs)
    cost = sum(c or 0 for c in costs)
    return (f"**Dry run:** {len(plans)} prompts, ≈{total_in:,} tokens in and ≈{total_out:,} out; "
            f"estimated cost {dollars(cost) if known else 'unknown for some models'}. No model was called.")


def partial_fields_markdown(text: str) -> str:
    """A reply still streaming, as readable text: its JSON parsed as far as it has arrived
    (pydantic-core parses partial JSON), each field a bold label and its words so far. Text
    that is not JSON yet is shown as it is."""
    from pydantic_core import from_json

    body = text.strip()
    start = body.find("{")
    if start == -1:
        return body
    try:
        data = from_json(body[start:], allow_partial="trailing-strings")
    except ValueError:
        return body
    return _fields(data) if isinstance(data, dict) else body


def _fields(value: object, depth: int = 0) -> str:
    """Fields as Markdown: top-level ones as paragraphs, nested objects on one line each."""
    if isinstance(value, dict):
        parts = [(str(k).replace("_", " ").capitalize(), _fields(v, depth + 1)) for k, v in value.items()]
        if depth == 0:
            return "\n\n".join(f"**{label}:** {text}" if not text.startswith("- ") else f"**{label}:**\n{text}"
                               for label, text in parts)
        return " · ".join(f"*{label}:* {text}" for label, text in parts)
    if isinstance(value, list):
        return "\n".join(f"- {_fields(item, depth + 1)}" for item in value)
    return str(value)


def agent_head(e: AgentStarted) -> str:
    bits = [f"*{e.persona}*" if e.persona else "", f"`{e.model}`" if e.model else "",
            f"temperature {temperature_text(e.temperature)}"]
    return " · ".join(b for b in bits if b)


# ---------------------------------------------------------------------- the presenter


@dataclass
class AgentView:
    agent: str
    stage: str
    title: str
    head: str = ""  # persona · model · temperature
    stream: str = ""  # raw text as it arrives
    markdown: str = ""  # the procedure's rendering, once finished
    line: str = ""
    status: str = "running"  # running, done, failed
    repaired: bool = False
    retries: list[str] = field(default_factory=list)
    error: str = ""

    def text(self) -> str:
        """What the agent shows now: its rendering, its failure, or its reply so far (as fields)."""
        retried = "".join(f"\n\n↻ *Asked again: {problems}*" for problems in self.retries)
        if self.status == "failed":
            return f"{self.head}{retried}\n\n**Failed:** {self.error}".strip()
        body = self.markdown if self.status == "done" else partial_fields_markdown(self.stream)
        note = "\n\n*Repaired: the first reply broke a rule and the agent was asked once more.*" if self.repaired else ""
        return (f"{self.head}\n\n{body}" if self.head else body) + note


@dataclass
class StageView:
    stage: str
    title: str
    round: int = 0
    agents: dict[str, AgentView] = field(default_factory=dict)
    items: list[ItemChecked] = field(default_factory=list)
    tally: TallyUpdated | None = None
    warnings: list[str] = field(default_factory=list)
    state: str = ""  # "", running…, done, or the procedure's few words
    note: str = ""  # the procedure's closing Markdown
    done: bool = False

    @property
    def key(self) -> str:
        return f"{self.stage}#{self.round}" if self.round else self.stage

    @property
    def label(self) -> str:
        title = f"{self.title} · round {self.round}" if self.round else self.title
        return f"{title} · {self.state}" if self.state else title

    def tally_markdown(self) -> str:
        return f"**{self.tally.heading()}:** {self.tally.text()}" if self.tally else ""

    def markdown(self, *, agents: bool = True, items: bool = True, level: int = 3) -> str:
        """The stage's body: each agent, each checked item, the tally, warnings, the closing note."""
        parts: list[str] = []
        if agents:
            for view in self.agents.values():
                parts.append(f"{'#' * level} {view.title}\n\n{view.text()}")
        if items:
            parts += [f"{'#' * level} {i.title}\n\n{i.detail}" for i in self.items]
        if self.tally:
            parts.append(self.tally_markdown())
        if self.warnings:
            parts.append("\n".join(f"- ⚠️ {w}" for w in self.warnings))
        if self.note:
            parts.append(self.note)
        return "\n\n".join(p for p in parts if p)


class Presenter:
    """Folds events into the view every front end draws. ``apply`` returns the stage view the
    event changed (None for run-level events), so a live front end redraws just that."""

    def __init__(self) -> None:
        self.started: RunStarted | None = None
        self.stages: dict[str, StageView] = {}
        self.outcome: dict[str, Any] | None = None
        self.finished: RunFinished | None = None
        self.budget: BudgetStopped | None = None
        self.plans: list[dict[str, Any]] = []
        self.calls = self.tokens = 0
        self.cost = 0.0
        self._agent_stage: dict[str, str] = {}  # agent -> stage key
        self._current = ""

    # ------------------------------------------------------------------ lookups

    def stage(self, name: str, round: int = 0, title: str = "") -> StageView:
        key = f"{name}#{round}" if round else name
        if key not in self.stages:
            titles = self.started.stage_titles if self.started else {}
            self.stages[key] = StageView(name, title or titles.get(name) or name.replace("_", " ").capitalize(), round)
        return self.stages[key]

    def _before_waiting(self, key: str) -> None:
        """A stage the run did not announce (the court's evidence screening, a later round)
        goes before the announced stages that have not started: stages read in the order they ran."""
        waiting = [k for k, v in self.stages.items() if k != key and not v.state and not v.done and not v.agents]
        if waiting:
            order = [k for k in self.stages if k != key]
            order.insert(order.index(waiting[0]), key)
            self.stages = {k: self.stages[k] for k in order}

    def _open_round(self, stage: str) -> int:
        """The round of ``stage`` running now, 0 if another stage runs: where an item of a run
        stored before items carried their round belongs."""
        view = self.stages.get(self._current)
        return view.round if view is not None and view.stage == stage else 0

    def agent(self, agent: str) -> AgentView | None:
        key = self._agent_stage.get(agent)
        return self.stages[key].agents.get(agent) if key else None

    def stage_of_agent(self, agent: str) -> StageView | None:
        key = self._agent_stage.get(agent) or self._current
        return self.stages.get(key)

    # ------------------------------------------------------------------ folding

    def apply(self, e: Event) -> StageView | None:
        if isinstance(e, RunStarted):
            self.started = e
            for name in e.stages:
                self.stage(name)
            return None
        if isinstance(e, StageStarted):
            key = f"{e.stage}#{e.round}" if e.round else e.stage
            view = self.stage(e.stage, e.round, e.title)
            if key not in (self.started.stages if self.started else ()):
                self._before_waiting(key)
            view.title, view.state = e.title, "running…"
            self._current = view.key
            return view
        if isinstance(e, StageFinished):
            view = self.stage(e.stage, e.round, e.title)
            view.done, view.state = True, e.state or "done"
            view.note = e.markdown or view.note
            return view
        if isinstance(e, AgentStarted):
            view = self.stage(e.stage, e.round)
            self._agent_stage[e.agent] = view.key
            view.agents[e.agent] = AgentView(e.agent, view.key, e.title, head=agent_head(e))
            return view
        if isinstance(e, TextDelta | AgentRetry):
            agent = self.agent(e.agent)
            if agent is None:
                return None
            if isinstance(e, TextDelta):
                agent.stream += e.text
            else:
                agent.retries.append("; ".join(e.problems))
                agent.stream = ""  # the next reply streams afresh
            return self.stages[agent.stage]
        if isinstance(e, AgentFinished):
            view = self.stage(e.stage, e.round)
            self._agent_stage[e.agent] = view.key
            agent = view.agents.get(e.agent) or view.agents.setdefault(e.agent, AgentView(e.agent, view.key, e.title))
            agent.title = e.title or agent.title
            agent.markdown = e.markdown or f"```json\n{_json(e.output)}\n```"
            agent.line, agent.status, agent.repaired = e.line, "done", e.repaired
            return view
        if isinstance(e, AgentFailed):
            view = self.stage(e.stage, e.round)
            agent = view.agents.get(e.agent) or view.agents.setdefault(e.agent, AgentView(e.agent, view.key, e.agent))
            agent.status, agent.error = "failed", e.error
            agent.title = f"{agent.title} · failed"
            return view
        if isinstance(e, ItemChecked):
            view = self.stage(e.stage, e.round or self._open_round(e.stage))
            view.items.append(e)
            return view
        if isinstance(e, TallyUpdated):
            view = self.stage(e.stage, e.round)
            view.tally = e
            return view
        if isinstance(e, WarningRaised):
            view = self.stages.get(self._agent_stage.get(e.agent, "")) or (self.stage(e.stage) if e.stage else None) \
                or self.stages.get(self._current)
            if view is not None:
                view.warnings.append(e.message)
            return view
        if isinstance(e, CallFinished):
            self.calls += 1
            self.tokens += e.input_tokens + e.output_tokens
            self.cost += e.cost_usd or 0.0
            return None
        if isinstance(e, PromptPlanned):
            self.plans.append(e.model_dump())
            view = self.stage(e.stage)
            view.state = f"{sum(1 for p in self.plans if p['stage'] == e.stage)} prompt(s)"
            return view
        if isinstance(e, BudgetStopped):
            self.budget = e
            return None
        if isinstance(e, OutcomeReached):
            self.outcome = e.outcome
            return None
        if isinstance(e, RunFinished):
            self.finished = e
            for view in self.stages.values():
                if view.state == "running…":
                    view.state = "interrupted"
                elif not view.state and e.status != "complete" and not self.plans:
                    view.state = "not reached"
                for agent in view.agents.values():
                    if agent.status == "running":
                        agent.status, agent.error = "failed", "cut off before it finished"
            return None
        return None

    # ------------------------------------------------------------------ whole views

    def outcome_text(self, *, html: bool = True, session_cost: tuple[dict[str, float], float] | None = None,
                     full: bool | None = None) -> str:
        """The outcome with the trial's cost once it is known; a dry run's summary; or why there is none."""
        f = self.finished
        if self.outcome is not None:
            costs: dict[str, Any] = {}
            if f is not None:
                costs = {"cost_by_role": f.cost_by_role, "cost_usd": f.cost_usd, "cost_known": f.cost_known}
            return outcome_markdown(self.outcome, html=html, session_cost=session_cost, full=full, **costs)
        if self.plans:
            return dry_run_summary(self.plans)
        lead = f"**Budget stop:** {self.budget.message}\n\n" if self.budget else ""
        if f is None:
            return lead
        return lead + f"**No outcome** ({f.status}{': ' + f.error if f.error else ''}).\n\n" + "\n".join(
            cost_lines(f.cost_by_role, f.cost_usd, f.cost_known))

    def status_line(self) -> str:
        f = self.finished
        if f is None:
            return ""
        stages = "dry run, no model called" if self.plans else f"stages completed: {', '.join(f.stages_completed) or 'none'}"
        return (f"Status: **{f.status}**" + (f" ({f.error})" if f.error else "")
                + f" · {stages} · {f.duration_ms / 1000:.1f} s · run `{f.run_id}`")


def _json(data: Any) -> str:
    import json

    return json.dumps(data, indent=1, ensure_ascii=False)


def replay(events: Iterable[Event], *, html: bool = True) -> str:
    """The whole trial as Markdown, rebuilt from its events alone."""
    p = Presenter()
    for e in events:
        p.apply(e)
    out: list[str] = []
    if p.started is not None:
        s = p.started
        out += [f"# {s.question}", "", *([f"Asked: *{s.asked}*", ""] if s.asked else []),
                f"Run `{s.run_id}` · {s.procedure_title or s.procedure} · evidence: {', '.join(s.documents) or 'none'}", ""]
        if s.models:
            out += ["Models: " + ", ".join(f"{k} {v}" for k, v in s.models.items()), ""]
    for view in p.stages.values():
        body = view.markdown()
        if not body and not view.done:
            continue
        out += [f"## {view.title}" + (f" · round {view.round}" if view.round else ""), ""]
        if p.plans:
            out += [f"### Prompt: {plan['agent']}\n\n{prompt_markdown(plan)}\n" for plan in p.plans if plan["stage"] == view.stage]
        if body:
            out += [body, ""]
    if p.outcome is not None:
        out += ["## Outcome", "", outcome_markdown(p.outcome, html=html, full=None if html else True), ""]
    if p.budget is not None:
        out += [f"**Budget stop:** {p.budget.message}", ""]
    if p.finished is not None:
        f = p.finished
        if p.plans:
            out += [dry_run_summary(p.plans), ""]
        out += [f"---\nStatus: **{f.status}**" + (f" ({f.error})" if f.error else "")
                + f" · stages completed: {', '.join(f.stages_completed) or 'none'} · {f.duration_ms / 1000:.1f} s",
                "",  # a paragraph of its own: Markdown glued "… 3463.8 s This trial: $0" onto one line
                *cost_lines(f.cost_by_role, f.cost_usd, f.cost_known), ""]
    return "\n".join(out).rstrip() + "\n"
