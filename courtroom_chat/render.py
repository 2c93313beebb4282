"""Markdown for every front end: one layout for exhibits, jurors, the verdict and prompts.

The chat, the notebook, the CLI's ``show`` and the Markdown export all call these, so a
verdict reads the same everywhere. ``replay`` rebuilds a trial from its stored events alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .cost import dollars
from .events import (
    AgentFailed,
    AgentFinished,
    BudgetStopped,
    Event,
    ExhibitChecked,
    PromptPlanned,
    RunFinished,
    RunStarted,
    StageStarted,
    VerdictReached,
    WarningRaised,
)

DECISION_LABEL = {"guilty": "act (guilty)", "not_guilty": "do not act (not guilty)", "dismissed": "dismissed"}
VOTE_LABEL = {"guilty": "act", "not_guilty": "do not act", "abstain": "abstain", None: "no vote"}
ROLE_ORDER = ("prosecutor", "defense", "juror", "judge")


def temperature_text(value: float | None) -> str:
    return "none applied" if value is None else f"{value:.2f}"


def exhibit_title(ex: dict[str, Any]) -> str:
    mark = "✅ verified" if ex.get("verified") else "❌ unverified"
    return f"Exhibit {ex['number']} · {mark}"


def exhibit_markdown(ex: dict[str, Any]) -> str:
    lines = [f"> {ex['source_quote']}", ""]
    if ex.get("verified") and ex.get("location"):
        loc = ex["location"]
        where = f"{loc['document']}:{loc['line_start']}" + (
            f"-{loc['line_end']}" if loc["line_end"] != loc["line_start"] else "")
        lines.append(f"**✅ Verified** at `{where}` (characters {loc['char_start']}–{loc['char_end']})")
    else:
        near = ex.get("nearest")
        if near:
            loc = near["location"]
            lines.append(f"**❌ Unverified**: not found in the evidence. Nearest passage "
                         f"({near['similarity']:.0%} similar) at `{loc['document']}:{loc['line_start']}`:")
            lines.append(f"> {near['passage']}")
        else:
            lines.append("**❌ Unverified**: no similar passage exists in the evidence.")
    if ex.get("origin") == "case":
        lines.append("*Filed with the case.*")
    if ex.get("target_quote"):
        lines += ["", f"**Bears on:** {ex['target_quote']}"]
    if ex.get("harm"):
        lines += ["", f"**Harm if we do not act:** {ex['harm']}"]
    return "\n".join(lines)


def prosecution_markdown(p: dict[str, Any]) -> str:
    return (f"**Motion:** {p['motion']}\n\n{p['case_statement']}\n\n"
            f"**Harm analysis:** {p.get('harm_analysis') or '—'}")


def defense_markdown(d: dict[str, Any], exhibits: list[dict[str, Any]] | None = None) -> str:
    lines = [d["counter_argument"], ""]
    by_number = {e["number"]: e for e in exhibits or []}
    for c in d.get("exhibit_challenges", []):
        quote = by_number.get(c["exhibit"], {}).get("source_quote", "")
        lines.append(f"- **Exhibit {c['exhibit']}** ({c['effect']}): {c['challenge']}"
                     + (f"\n  > {quote}" if quote else ""))
    lines += ["", f"**Harm dispute:** {d.get('harm_dispute') or '—'}",
              f"**Alternative:** {d.get('alternative') or '—'}"]
    return "\n".join(lines)


def juror_title(j: dict[str, Any]) -> str:
    vote = VOTE_LABEL.get(j.get("vote")) if j.get("status") != "failed" else "failed"
    return f"Juror {j['number']} · {vote}"


def juror_markdown(j: dict[str, Any]) -> str:
    head = f"*{j['persona']}* · temperature {temperature_text(j.get('temperature'))}"
    if j.get("status") == "failed":
        return f"{head}\n\n**Failed:** {j.get('error', '')}"
    return f"{head}\n\n**Vote: {VOTE_LABEL.get(j.get('vote'))}**\n\n{j.get('reasoning', '')}"


def tally_text(guilty: int, not_guilty: int, abstain: int = 0, pending: int = 0, failed: int = 0, seated: int = 0) -> str:
    text = f"{guilty}–{not_guilty}"
    if abstain:
        text += f", {abstain} abstaining"
    if pending:
        text += f" ({pending} deliberating)"
    voted = guilty + not_guilty + abstain
    if failed and not pending:
        text += f" ({voted} of {seated} jurors)"
    return text


def cost_lines(cost_by_role: dict[str, float], total: float, known: bool = True, label: str = "This trial") -> list[str]:
    parts = ", ".join(f"{role} {dollars(cost_by_role[role])}" for role in ROLE_ORDER if role in cost_by_role)
    suffix = "" if known else " (some calls have no known price)"
    return [f"**{label}:** {dollars(total)}{suffix}" + (f" — {parts}" if parts else "")]


def verdict_markdown(
    verdict: dict[str, Any],
    *,
    split: str,
    jurors_voted: int,
    jurors_seated: int,
    warnings: Iterable[str] = (),
    cost_by_role: dict[str, float] | None = None,
    cost_usd: float | None = None,
    cost_known: bool = True,
    session_cost: tuple[dict[str, float], float] | None = None,
    html: bool = True,
) -> str:
    """The verdict, in the order every front end shows it.

    ``html=False`` folds the judge's reasoning into a quote instead of a ``<details>``
    block, for renderers that show raw HTML as text (the chat does, for safety)."""
    lines = [
        f"## {verdict['answer']}",
        f"**Decision:** {DECISION_LABEL[verdict['decision']]}"
        + (" · decided by the jury (no judge's ruling)" if verdict.get("decided_by") == "jury" else ""),
        "",
        f"**Rationale:** {verdict['rationale']}",
    ]
    if verdict.get("actions"):
        lines += ["", "**Actions:**", *[f"{i}. {a}" for i, a in enumerate(verdict["actions"], 1)]]
    basis = verdict.get("evidence_basis") or {}
    by_jury = verdict.get("decided_by") == "jury"
    # Without a ruling, the first figure is the jury's majority share, not a judge's estimate.
    lines += [
        "",
        f"**Confidence:** {'jury majority' if by_jury else 'judge'} {verdict['confidence']:.0%} · evidence-based {verdict['evidence_confidence']:.0%}"
        + (f" (jury {basis.get('jury_for', '?')} of {basis.get('jury_cast', '?')} for this decision; "
           f"{basis.get('exhibits_survived', '?')} of {basis.get('exhibits_filed', '?')} exhibits verified and unrefuted)"
           if basis else ""),
        "",
        f"**Jury:** {split}" + ("" if jurors_voted == jurors_seated else f" — partial panel, {jurors_voted} of {jurors_seated} jurors"),
    ]
    warnings = list(warnings)
    if warnings:
        lines += ["", "**Warnings:**", *[f"- ⚠️ {w}" for w in warnings]]
    reasoning_label = "Why the jury decided" if by_jury else "Judge's reasoning"
    if html:
        lines += ["", f"<details><summary>{reasoning_label}</summary>\n\n{verdict['reasoning']}\n\n</details>", ""]
    else:
        quoted = "\n".join(f"> {line}" if line else ">" for line in verdict["reasoning"].splitlines())
        lines += ["", f"**{reasoning_label}:**", "", quoted, ""]
    if cost_by_role is not None and cost_usd is not None:
        lines += cost_lines(cost_by_role, cost_usd, cost_known)
    if session_cost is not None:
        lines += cost_lines(session_cost[0], session_cost[1], label="This session")
    return "\n".join(lines)


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


def replay(events: Iterable[Event]) -> str:
    """The whole trial as Markdown, rebuilt from its events alone."""
    out: list[str] = []
    exhibits: list[dict[str, Any]] = []
    jurors: list[dict[str, Any]] = []
    plans: list[dict[str, Any]] = []
    for e in events:
        if isinstance(e, RunStarted):
            out += [f"# {e.question}", "",
                    f"Run `{e.run_id}` · {e.procedure} · evidence: {', '.join(e.documents) or 'none'}", ""]
            models = ", ".join(f"{k} {v}" for k, v in e.models.items())
            out += [f"Models: {models}", ""]
        elif isinstance(e, StageStarted):
            out += [f"## {e.title}", ""]
        elif isinstance(e, ExhibitChecked):
            exhibits.append(e.exhibit)
        elif isinstance(e, AgentFinished):
            if e.agent == "prosecutor":
                out += [prosecution_markdown(e.output), ""]
                for ex in exhibits:
                    out += [f"### {exhibit_title(ex)}", "", exhibit_markdown(ex), ""]
            elif e.agent == "defense":
                out += [defense_markdown(e.output, exhibits), ""]
            elif e.agent.startswith("juror-"):
                jurors.append(e.output)
                out += [f"### {juror_title(e.output)}", "", juror_markdown(e.output), ""]
        elif isinstance(e, AgentFailed):
            out += [f"**{e.agent} failed:** {e.error}", ""]
        elif isinstance(e, WarningRaised):
            out += [f"- ⚠️ {e.message}", ""]
        elif isinstance(e, PromptPlanned):
            plans.append(e.model_dump())
            out += [f"### Prompt: {e.agent}", "", prompt_markdown(e.model_dump()), ""]
        elif isinstance(e, BudgetStopped):
            out += [f"**Budget stop:** {e.message}", ""]
        elif isinstance(e, VerdictReached):
            out += ["## Verdict", "", verdict_markdown(e.verdict, split=e.split, jurors_voted=e.jurors_voted,
                                                        jurors_seated=e.jurors_seated, warnings=e.warnings), ""]
        elif isinstance(e, RunFinished):
            if plans:
                out += [dry_run_summary(plans), ""]
            out += [f"---\nStatus: **{e.status}**" + (f" ({e.error})" if e.error else "")
                    + f" · stages completed: {', '.join(e.stages_completed) or 'none'} · {e.duration_ms / 1000:.1f} s",
                    *cost_lines(e.cost_by_role, e.cost_usd, e.cost_known), ""]
    return "\n".join(out).rstrip() + "\n"
