"""How the decision court's outputs read: exhibits, the two sides, each juror, the verdict.

The court attaches this Markdown to its events, so every front end and every replay shows
it without knowing the court's roles.
"""

from __future__ import annotations

from typing import Any

from ...render import temperature_text
from ...replies import shorten
from .answer import evidence_basis_text, refutations_count

# What a decision is called where people read it. The stored verdict word stays the Courtroom
# POC's (``guilty``: act, ``not_guilty``: do not act), but "do not act (not guilty)" under "Should
# we renew the vendor contract?" read as a criminal verdict, so the words shown are the act's alone.
DECISION_LABEL = {"guilty": "act", "not_guilty": "do not act", "dismissed": "dismissed"}
VOTE_LABEL = {"guilty": "act", "not_guilty": "do not act", "abstain": "abstain", None: "no vote"}
EFFECT_MARK = {"refutes": "refuted by the defense", "weakens": "weakened by the defense", "concedes": "conceded by the defense"}


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
    outlook = f"*{j['persona']}* · " if j.get("persona") else ""  # none with personas off, or plain jurors
    head = f"{outlook}temperature {temperature_text(j.get('temperature'))}"
    if j.get("status") == "failed":
        return f"{head}\n\n**Failed:** {j.get('error', '')}"
    vote = f"**Vote: {VOTE_LABEL.get(j.get('vote'))}**"
    if j.get("against_reasoning"):  # juror_consistency = "reasoning": its reasoning counts
        vote = f"{j['against_reasoning']}; counted as its reasoning concludes:\n\n{vote}"
    if j.get("asked"):  # ask_direct or balance_options: it answered another question, counted the other way
        vote = (f"Asked instead: *{j['asked']}* · answered {j.get('answered') or '?'}, which counts as\n\n"
                f"{vote}")
    return f"{head}\n\n{vote}\n\n{j.get('reasoning', '')}"


def exhibit_line(ex: dict[str, Any]) -> str:
    """One line for the CLI: number, mark, location and the quote (cut at a word, with …)."""
    mark = "✓ verified" if ex.get("verified") else "✗ unverified"
    loc = ex.get("location") if ex.get("verified") else None
    where = f" {loc['document']}:{loc['line_start']}" if loc else ""
    return f"exhibit {ex['number']}: {mark}{where}  {shorten(ex['source_quote'], 70)}"


def challenge_effects(exhibits: list[dict[str, Any]], defense: dict[str, Any]) -> str:
    """Each exhibit's mark beside what the defense did to it: the basis of the evidence confidence."""
    effects = {c["exhibit"]: c["effect"] for c in defense.get("exhibit_challenges", [])}
    counted = refutations_count(any(e.get("verified") for e in defense.get("exhibits", [])), defense.get("turned"))
    lines = []
    for ex in exhibits:
        mark = "✅ verified" if ex.get("verified") else "❌ unverified"
        effect = EFFECT_MARK.get(effects.get(ex["number"], ""), "not challenged")
        if effects.get(ex["number"]) == "refutes" and not counted:
            effect = "called refuted by the defense, which verified no exhibit of its own: it stands"
        both = " · cited by the defense against the motion too" if ex["number"] in defense.get("turned", []) else ""
        lines.append(f"- Exhibit {ex['number']}: {mark} · {effect}{both}")
    return "\n".join(lines)


def decided_by(by_jury: bool, judge_spoke: bool) -> str:
    """Who decided, in the verdict's words: the jury (with or without the judge's ruling) or the judge."""
    return ("the jury, with the judge's ruling" if judge_spoke else "the jury") if by_jury else "the judge"


def verdict_body(verdict: dict[str, Any], split: str, voted: int, seated: int, exhibits_effects: str = "",
                 judge_spoke: bool = False, decision_words: str = "") -> str:
    """The verdict under its plain answer: decision, rationale, actions, the jury, the exhibits, the reasoning.

    ``judge_spoke``: the judge wrote a ruling on a decision the jury's majority made (rule =
    majority), so the reasoning is the judge's even though the jury decided. ``decision_words``:
    what the decision is called instead of "act" / "do not act" (a choice's option: "choose Design B")."""
    by_jury = verdict.get("decided_by") == "jury"
    how = f"decided by {decided_by(by_jury, judge_spoke)}" + ("" if judge_spoke or not by_jury else " (no judge's ruling)")
    lines = [
        f"**Decision:** {decision_words or DECISION_LABEL[verdict['decision']]} · " + (how if by_jury else "ruled by the judge"),
        "",
        f"**Rationale:** {verdict['rationale']}",
    ]
    if verdict.get("actions"):
        lines += ["", "**Actions:**", *[f"{i}. {a}" for i, a in enumerate(verdict["actions"], 1)]]
    lines += ["", f"**Jury:** {split}" + ("" if voted == seated else f" — partial panel, {voted} of {seated} jurors")]
    if exhibits_effects:
        lines += ["", "**Exhibits:**", exhibits_effects]
    label = "Why the jury decided" if by_jury and not judge_spoke else "Judge's reasoning"
    lines += ["", f"<details><summary>{label}</summary>\n\n{verdict['reasoning']}\n\n</details>"]
    return "\n".join(lines)


__all__ = ["DECISION_LABEL", "VOTE_LABEL", "challenge_effects", "decided_by", "defense_markdown", "evidence_basis_text",
           "exhibit_line", "exhibit_markdown", "exhibit_title", "juror_markdown", "juror_title",
           "prosecution_markdown", "verdict_body"]
