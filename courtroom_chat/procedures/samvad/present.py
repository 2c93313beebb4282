"""How the bench reads: the judge's instructions, the arguments, each citation checked, the
statements of each round, the digest the next round reads, and the outcome with its metrics."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...replies import shorten

if TYPE_CHECKING:
    from ...kb import KnowledgeBase

__all__ = ["shorten"]


def cite(c: dict[str, Any]) -> str:
    quote = f' ("{shorten(c["quote"], 120)}")' if c.get("quote") else ""
    return f"{c['source']} {c['section']}{quote}"


def citations_list(citations: list[dict[str, Any]], checked: list[dict[str, Any]] | None = None) -> list[str]:
    marks = {(c["source"], c["section"], c.get("quote", "")): c["verified"] for c in checked or []}
    out = []
    for c in citations:
        mark = marks.get((c["source"], c["section"], c.get("quote", "")))
        flag = "" if mark is None else (" ✅" if mark else " ❌ unverified")
        out.append(f"- {cite(c)}{flag}" + (f": {c['point']}" if c.get("point") else ""))
    return out


def judge_markdown(d: dict[str, Any]) -> str:
    lines = [f"**Instructions:** {d.get('instructions', '')}", "", f"**Standard of proof:** {d.get('standard_of_proof', '')}"]
    if d.get("elements"):
        aside = set(d.get("set_aside", []))
        lines += ["", "**Elements to be proved:**",
                  *[f"- ~~{e}~~ (set aside: it describes the evidence, not what the statute requires)" if i in aside
                    else f"- {e}" for i, e in enumerate(d["elements"], 1)]]
    lines += ["", "**Citations:**", *(citations_list(d.get("citations", [])) or ["- none"])]
    if d.get("retrieved"):
        lines += ["", f"**Retrieved:** {', '.join(d['retrieved'])}"]
    return "\n".join(lines)


def counsel_markdown(d: dict[str, Any]) -> str:
    lines = [f"**Argument:** {d.get('argument', '')}"]
    if d.get("points"):
        lines += ["", "**Points:**", *[f"- {p}" for p in d["points"]]]
    lines += ["", "**Citations:**", *(citations_list(d.get("citations", [])) or ["- none"])]
    if d.get("retrieved"):
        lines += ["", f"**Retrieved:** {', '.join(d['retrieved'])}"]
    return "\n".join(lines)


def citation_line(c: dict[str, Any]) -> str:
    return f"citation {c['number']} ({c['by']}): {'✓' if c['verified'] else '✗'} {cite(c)}"


def citation_markdown(c: dict[str, Any]) -> str:
    where = f"✅ verified in {c['heading']}" if c["verified"] else f"❌ {c['reason']}"
    return f"**{c['by'].capitalize()}** cites {cite(c)}\n\n{where}" + (f"\n\nPoint: {c['point']}" if c.get("point") else "")


def checked_state(checked: list[dict[str, Any]]) -> str:
    if not checked:
        return "no citations"
    return f"{sum(1 for c in checked if c['verified'])} of {len(checked)} citations verified"


def instructions_text(d: dict[str, Any]) -> str:
    if not d.get("instructions"):
        return "(the judge gave no instructions)"
    return f"{d['instructions']}\nStandard of proof: {d.get('standard_of_proof', '')}"  # the elements: listed apart


def arguments_text(arguments: dict[str, dict[str, Any]], order: Sequence[str] = ("prosecution", "defense")) -> str:
    """The counsels' arguments as the bench reads them, in ``order`` (an adjudicator's own, with
    ``shuffle_arguments``)."""
    parts = []
    for role in order:
        title = role.upper()
        d = arguments.get(role)
        if not d:
            parts.append(f"{title}: (no argument was given)")
            continue
        points = "; ".join(d.get("points", []))
        parts.append(f"{title}: {shorten(d.get('argument', ''), 900)}" + (f"\nPoints: {points}" if points else ""))
    return "\n\n".join(parts)


def verified_law(speakers: list[dict[str, Any]], kb: KnowledgeBase) -> str:
    """The law the bench may rely on: each verified citation once, with its provision's text;
    how many were withheld as unverified."""
    seen: dict[str, str] = {}
    withheld = 0
    for d in speakers:
        for c in d.get("checked", []):
            if not c["verified"]:
                withheld += 1
                continue
            provision = kb.provision(c["source"], c["section"])
            if provision is not None and provision.key not in seen:
                seen[provision.key] = f"[{provision.key}] {provision.heading}: {shorten(' '.join(provision.text.split()), 500)}"
    lines = list(seen.values()) or ["(no citation was verified: decide on the evidence and the judge's instructions)"]
    if withheld:
        lines.append(f"({withheld} citation{'s' if withheld != 1 else ''} could not be verified in the statute books "
                     "and {} withheld: do not rely on {}.)".format("are" if withheld != 1 else "is",
                                                                   "them" if withheld != 1 else "it"))
    return "\n".join(lines)


def findings_text(s: dict[str, Any]) -> str:
    """A statement's findings in one line: "elements proved 1, 2; not proved 3"."""
    from .rules import PROVED

    found = s.get("findings") or []
    if not found:
        return ""
    proved = [str(f["element"]) for f in found if f["finding"] == PROVED]
    rest = [str(f["element"]) for f in found if f["finding"] != PROVED]
    return "; ".join(part for part in (f"elements proved {', '.join(proved)}" if proved else "",
                                       f"not proved {', '.join(rest)}" if rest else "") if part)


def statement_markdown(s: dict[str, Any]) -> str:
    changed = "" if "changed" not in s else f" · {'changed' if s['changed'] else 'held'}"
    meaningful = "meaningful" if s.get("meaningful") else "not counted as meaningful"
    lines = [f"**Leaning:** {s['leaning']}{changed} · {meaningful}"]
    if s.get("inconsistent"):
        lines.append("**Counted as undecided:** the adjudicator leaned guilty with an element its own findings left "
                     "not proved, and kept it after being asked to make the leaning follow the findings.")
    if s.get("findings"):
        lines += ["", "**Findings:**", *[f"- {f['element']}. {f.get('what') or 'element'}: **{f['finding']}**"
                                         + (f" ({', '.join(f['evidence'])})" if f.get("evidence") else " (no item named)")
                                         for f in s["findings"]]]
    return "\n".join([*lines, "", s.get("justification", "")])


def tally_text(votes: dict[str, str]) -> str:
    from .rules import LEANINGS

    values = list(votes.values())
    return "; ".join(f"{values.count(label)} {label}" for label in LEANINGS)


def digest(peers: list[tuple[str, dict[str, Any]]], everyone: list[dict[str, Any]], show_tally: bool, round_: int) -> str:
    """What an adjudicator reads of the previous round: the tally (unless hidden) and every other
    statement under a letter in this adjudicator's own order."""
    lines = []
    if show_tally:
        lines.append(f"TALLY OF ROUND {round_}: " + tally_text({str(i): s["leaning"] for i, s in enumerate(everyone)}))
    for name, s in peers:
        lines.append(f"- {name} {statement_line(s, 400)}")
    return "\n".join(lines) or "(no other statement)"


def statement_line(s: dict[str, Any], limit: int) -> str:
    """A statement as the next round reads it, a peer's or the adjudicator's own: "(leaning;
    findings): justification", and when a guilty leaning was counted undecided, that it was."""
    found = f"; {findings_text(s)}" if s.get("findings") else ""
    counted = "; counted undecided: it leaned guilty against its own findings" if s.get("inconsistent") else ""
    return f"({s['leaning']}{found}{counted}): {shorten(s.get('justification', ''), limit)}"


def outcome_markdown(doc: dict[str, Any]) -> str:
    m, conf = doc["metrics"], doc["conformity"]
    rounds = [f"round {r['round']}: {r['counts']['guilty']} guilty, {r['counts']['not guilty']} not guilty, "
              f"{r['counts']['undecided']} undecided (agreement {r['agreement']:.0%})" for r in doc["by_round"]]
    moved = [f"adjudicator {mv['adjudicator'].rpartition('-')[2]} {mv['from']} → {mv['to']} ({mv['direction']})"
             for r in conf["rounds"] for mv in r["moves"]]
    t = m["response_seconds"]
    lines = [
        f"**Verdict:** {doc['verdict']} · consensus needs {doc['needed']} of {doc['seated']} ({doc['threshold']:.0%})",
        "", "**Rounds:** " + "; ".join(rounds), "",
        f"**Between rounds:** {conf['changed']} changed ({conf['toward']} toward the previous majority, "
        f"{conf['away']} away)" + (f": {'; '.join(moved)}" if moved else ""),
    ]
    if conf.get("rounds_skipped"):
        lines += ["", f"**Rounds skipped:** {conf['rounds_skipped']} (positions had stopped changing; about "
                      f"{conf.get('tokens_saved', 0):,} tokens saved)"]
    lines += ["", "**Measured:** "
              f"agreement {m['agreement']:.0%} · participation {m['participation']:.0%} · meaningful statements per "
              f"adjudicator {m['meaningful_per_adjudicator']:.2f} · argument grounding {m['grounding']:.0%} (counsels {m['counsel_grounding']:.0%}) · citations "
              f"{m['citations']['verified']} of {m['citations']['made']} verified · response time mean "
              f"{t['mean']:.2f} s (median {t['median']:.2f}, min {t['min']:.2f}, max {t['max']:.2f}) · retrieval "
              f"{'on' if m['retrieval'] else 'off'}"]
    return "\n".join(lines)
