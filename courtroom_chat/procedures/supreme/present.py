"""How the supreme court reads: opinions, the anonymised conference digest, the jury, the why
trace and the verdict document (opinion of the court, dissents, changes between rounds, the
jury's agreement)."""

from __future__ import annotations

import re
from typing import Any

from ...replies import shorten
from ..deliberation import letter  # noqa: F401 - peers are named by letter, never by seat


def facts_markdown(o: dict[str, Any]) -> list[str]:
    """The facts an opinion or a juror listed: a juror's for and against, an opinion's key facts
    (or, from 293a7bf to the next commit, its for and against), a juror's facts in one sentence
    in a record from before."""
    if "facts_for" in o or "facts_against" in o:
        return ["**Facts for:**", *([f"- {f}" for f in o.get("facts_for", [])] or ["- none listed"]), "",
                "**Facts against:**", *([f"- {f}" for f in o.get("facts_against", [])] or ["- none listed"])]
    if isinstance(o.get("facts"), str):
        return [f"**Facts found:** {o['facts']}"]
    return ["**Key facts:**", *[f"- {f}" for f in o.get("key_facts", [])]]


def held(o: dict[str, Any]) -> bool:
    """Whether an opinion's verdict held with the verdicts listed either way (``both_orders``);
    an opinion asked once holds."""
    return (o.get("orders") or {}).get("held", True)


def asked_verdict(o: dict[str, Any]) -> str:
    """The verdict an opinion's own (first) asking gave, before ``both_orders`` counted it."""
    return (o.get("orders") or {}).get("first", o["verdict"])


def opinion_markdown(o: dict[str, Any]) -> str:
    lines = [f"**Verdict:** {o['verdict']} · confidence {o['confidence']:.0%}"]
    if o.get("written_verdict") and o["written_verdict"] != asked_verdict(o):
        lines[0] += (f" · read from the analysis; the opinion wrote \"{o['written_verdict']}\", which its analysis "
                     "does not support")
    lines[0] += orders_said(o)
    if o.get("reading"):
        lines.append(f"**The analysis, read back:** {o['reading']}")
    if "changed" in o:
        lines.append(f"**{'Changed' if o['changed'] else 'Held'} after the conference:** {o.get('why', '')}")
    lines += ["", f"**Standard applied:** {o.get('standard', '')}", "", *facts_markdown(o), "",
              f"**Evidence analysis:** {o.get('evidence_analysis', '')}"]
    return "\n".join(lines)


def own_opinion(o: dict[str, Any]) -> str:
    """A justice's previous opinion as it reads it at the conference: the verdict and confidence
    it wrote, its analysis, and (``both_orders``) what its vote was counted as when the verdict
    changed with the order it was offered in."""
    orders = o.get("orders") or {}
    text = (f"{orders.get('first', o['verdict'])} (confidence {orders.get('confidence', o['confidence']):.2f}): "
            f"{shorten(o['evidence_analysis'], 300)}")
    if orders and not orders["held"]:
        text += (f" [Asked again with the two verdicts listed the other way, you wrote \"{orders['other']}\"; a verdict "
                 f"that changes with the order does not show the burden met, so your vote was counted as "
                 f"\"{o['verdict']}\".]")
    return text


def facts_said(o: dict[str, Any]) -> str:
    """An opinion's key facts in one line for the conference digest: the first two. (The digest
    reads only the trial's own opinions, so it never meets a record of another shape.)"""
    facts = "; ".join(shorten(f, 120).rstrip(".") for f in o.get("key_facts", [])[:2]) or "none listed"
    return f"Key facts: {facts}."


WITHHELD = "[outlook withheld]"


def redact(text: str, philosophies: list[str]) -> str:
    """``text`` with every philosophy of the spectrum (and its last word: "constructionist")
    withheld, so a peer's own words do not tell where on the spectrum it sits."""
    words = {p for p in philosophies} | {p.split()[-1] for p in philosophies if len(p.split()[-1]) >= 6}
    for word in sorted(words, key=len, reverse=True):
        text = re.sub(rf"\b{re.escape(word)}s?\b", WITHHELD, text, flags=re.I)
    return text


def digest(peers: list[tuple[str, dict[str, Any]]], everyone: list[dict[str, Any]], show_tally: bool,
           labels: list[str], round_: int, philosophies: list[str] | None = None) -> str:
    """What a justice reads at the conference: the whole bench's tally and confidences (unless
    hidden) and each opinion's key points under letters (the others in this justice's own order,
    or all in one shared order), with any philosophy named in them withheld."""
    lines = []
    if show_tally:
        lines.append(f"TALLY OF ROUND {round_}: " + tally_text(everyone, labels, with_confidence=True))
    for name, o in peers:
        seen = f"{o['verdict']}, confidence {o['confidence']:.2f}" if show_tally else o["verdict"]
        said = f"{facts_said(o)} Analysis: {shorten(o.get('evidence_analysis', ''), 260)}"
        lines.append(f"- {name} ({seen}). {redact(said, philosophies or [])}")
    return "\n".join(lines)


def tally_text(opinions: list[dict[str, Any]], labels: list[str], with_confidence: bool = False) -> str:
    parts = []
    for label in labels:
        chosen = [o["confidence"] for o in opinions if o["verdict"] == label]
        mean = f", mean confidence {sum(chosen) / len(chosen):.2f}" if with_confidence and chosen else ""
        parts.append(f"{len(chosen)} {label}{mean}")
    return "; ".join(parts)


def juror_markdown(j: dict[str, Any]) -> str:
    return "\n".join([f"**Verdict:** {j['verdict']}{orders_said(j)}", "", *facts_markdown(j), "",
                      f"**Reasoning:** {j.get('reasoning', '')}"])


def orders_said(o: dict[str, Any]) -> str:
    """What asking twice, the verdicts listed each way (``both_orders``), did to this vote."""
    orders = o.get("orders")
    if not orders:
        return ""
    if orders["held"]:
        return " · held with the verdicts listed either way"
    return (f" · followed the order the verdicts were listed in (\"{orders['first']}\", then \"{orders['other']}\" "
            f"with the order reversed): not persuaded, so counted for \"{o['verdict']}\"")


def fact_line(f: dict[str, Any]) -> str:
    mark = "✓" if f.get("verified") else "✗"
    where = f" {f['location']['document']}:{f['location']['line_start']}" if f.get("location") else ""
    return f"fact {f['number']}: {mark}{where}  {shorten(f['source_quote'], 70)}"


def fact_markdown(f: dict[str, Any]) -> str:
    if f.get("verified") and f.get("location"):
        loc = f["location"]
        where = f"✅ verified at `{loc['document']}` line {loc['line_start']}"
    else:
        near = f.get("nearest")
        where = "❌ not in the transcript" + (
            f"; nearest: “{shorten(near['passage'], 160)}” ({near['similarity']:.0%} similar, line "
            f"{near['location']['line_start']})" if near else "")
    return (f"> {f['source_quote']}\n\n{where} · {f.get('kind', 'fact')} · bears on: {f.get('bears_on', '')} · "
            f"favours: {f.get('favours', '')}")


def trace_markdown(trace: dict[str, Any]) -> str:
    facts = trace.get("facts", [])
    verified = sum(1 for f in facts if f.get("verified"))
    lines = [f"**Facts:** {verified} of {len(facts)} quotes verified in the transcript",
             *[f"{f['number']}. {'✅' if f.get('verified') else '❌'} “{shorten(f['source_quote'], 120)}” → "
               f"{f.get('bears_on', '')} ({f.get('favours', '')})" for f in facts]]
    if "narrative" in trace:
        lines += ["", f"**Narrative:** {trace['narrative']}", "", "**Contradictions:**",
                  *([f"- {c}" for c in trace.get("contradictions", [])] or ["- none found"]),
                  "", f"**Law applied to the facts:** {trace.get('law_applied', '')}",
                  "", f"**Decision:** {trace['verdict']} · confidence {trace['confidence']:.0%}"]
    return "\n".join(lines)


def verdict_document(doc: dict[str, Any]) -> str:
    """The verdict as the court hands it down, in Markdown."""
    bench, jury, conf = doc["bench"], doc["jury"], doc["conformity"]
    lines = [f"**The court:** {doc['decision']} by {bench['split']} · burden: {doc['burden']} ({doc['type']} case)", "",
             f"**The jury:** {jury['verdict']} ({jury['split']}; {jury['rule']})"
             f" · {'agrees with' if jury['agrees'] else 'differs from'} the court", ""]
    author = doc.get("opinion_of_the_court")
    if author and author["author"]:
        lines += [f"**Opinion of the court** ({author['author']}):", "", author["analysis"], ""]
    elif author:  # both_orders: no opinion of the majority held both ways
        lines += [f"**No opinion of the court:** {author['analysis']}", ""]
    for d in doc.get("dissents", []):
        lines += [f"**Dissent** ({d['author']}, {d['verdict']}): {d['analysis']}", ""]
    moved = [f"{m['justice']} {m['from']} → {m['to']} ({m['direction']})" for r in conf["rounds"] for m in r["moves"]]
    lines += [f"**Between rounds:** {conf['changed']} justice{'s' if conf['changed'] != 1 else ''} changed "
                 f"({conf['toward']} toward the earlier majority, {conf['away']} away)"
                 + (f": {'; '.join(moved)}" if moved else "")
                 + ("" if conf["majority_held"] else " · the majority turned"), ""]
    read = doc.get("readings")
    if read:
        lines += [f"**Votes read from the analyses:** {read['read']} opinion{'s' if read['read'] != 1 else ''}"
                  + (f"; in {len(read['differed'])} the written verdict was not what the analysis supports "
                     f"({'; '.join(read['differed'])})" if read["differed"] else "; every written verdict agreed"), ""]
    swaps = doc.get("both_orders")
    if swaps:
        asked_jury = jury.get("both_orders")
        lines += [f"**Verdicts asked both ways round:** {swaps['held']} of {swaps['asked']} opinions held with the two "
                  f"verdicts listed either way"
                  + (f"; {len(swaps['followed'])} followed the order and counted for {swaps['counted_for']} "
                     f"({'; '.join(swaps['followed'])})" if swaps["followed"] else "")
                  + (f" · jurors: {asked_jury['held']} of {asked_jury['asked']} held" if asked_jury else ""), ""]
    if conf.get("rounds_skipped"):
        lines += [f"**Rounds skipped:** {conf['rounds_skipped']} (positions had stopped changing; about "
                  f"{conf['tokens_saved']:,} tokens saved)", ""]
    shifts = ", ".join(f"{c['justice']} {c['before']:.2f}→{c['after']:.2f}" for c in doc.get("confidence_changes", []))
    if shifts:
        lines += [f"**Confidence changes:** {shifts}", ""]
    trace = doc.get("why")
    if trace:
        lines += [f"<details><summary>Why: from the evidence to the decision</summary>\n\n{trace_markdown(trace)}"
                      "\n\n</details>"]
    return "\n".join(lines)
