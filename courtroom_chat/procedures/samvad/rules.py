"""The bench's rules: each reply's checks (citations verified against the knowledge base with
the decision court's quote verification), consensus, and the published metrics (agreement,
participation, meaningful statements, argument grounding, response times, citations)."""

from __future__ import annotations

import math
import re
import statistics
from collections import Counter
from typing import TYPE_CHECKING, Any

from ...motion import answers
from ..base import Problem, words
from ..decision.rules import quote_problems
from .cases import STOP, BenchCase, key_terms
from .wire import Citation, CounselReply, JudgeReply, StatementReply

if TYPE_CHECKING:
    from ...kb import CitationCheck, KnowledgeBase

GUILTY, NOT_GUILTY, UNDECIDED = "guilty", "not guilty", "undecided"
VERDICTS = [GUILTY, NOT_GUILTY]
LEANINGS = [GUILTY, NOT_GUILTY, UNDECIDED]
LAW = re.compile(r"\b(?:section|sec\.|s\.|article|art\.)\s*\d+|\b(?:IPC|CrPC|IEA|CPC|Cr\.P\.C|I\.P\.C)\b", re.I)


def citation_problems(citations: list[Citation], kb: KnowledgeBase) -> list[Problem]:
    """Each citation must name a section or article of the knowledge base, and any words it
    quotes must stand in that provision exactly."""
    problems = []
    for i, c in enumerate(citations, 1):
        provision = kb.provision(c.source, c.section)
        if provision is None:
            problems.append(Problem("citation_unknown", f"citation {i}: {kb.verify(c.source, c.section).reason}; "
                                                        "cite a section of the law you were given"))
        elif c.quote.strip():
            problems += [Problem("citation_quote", p.message.replace("the evidence", provision.heading))
                         for p in quote_problems([c.quote], kb.index(provision), first=i, noun="citation")]
    return problems


FACT_WORDS = 2  # an element using this many words found only in the case's facts describes evidence
# Who an element may name without describing evidence: the parties as the law names them.
PARTIES = "accused owner victim complainant person buyer seller wife husband deceased"
# Words that say nothing of the facts (the samvad STOP list keeps only the shortest).
PLAIN = STOP | set("""about above after again against already also away before being been beyond down during each
from into later more most must over prove proved prosecution same shall some such than that their them then there these
they this those through under until upon very what when where which while within without""".split())


def _terms(text: str, names: bool = True) -> list[str]:
    """A text's words of four letters or more but plain ones; without ``names``, capitalised
    words (names of people and places) left out too."""
    found = re.findall(r"[A-Za-z][A-Za-z-]{3,}", text.replace("'s", ""))
    return [w.lower() for w in found if w.lower() not in PLAIN and (names or not w[0].isupper())]


def fact_elements(elements: list[str], case: BenchCase, law: str) -> dict[int, list[str]]:
    """The judge's elements (by number) that describe this case's evidence instead of what the
    statute requires, each with its words that come from the case's facts (summary, evidence)
    and from nowhere the law is stated (the statute text the judge read, the charges, the
    case's explanation of the law), names left out. An element applied to the case ("moved the
    chain out of the owner's possession") uses at most one word of the facts besides names; one
    that restates the evidence ("paid the money to a car dealer") uses more, and the bench
    would then rule on a fact as if the statute required it."""
    facts = set(_terms(" ".join([case.summary, *case.prosecution_evidence, *case.defense_evidence])))
    legal = set(_terms(" ".join([law, *case.charges, case.law, PARTIES, case.accused])))
    out = {}
    for i, element in enumerate(elements, 1):
        # names do not count: "out of Priya Raman's possession" applies an element to the case
        own = list(dict.fromkeys(w for w in _terms(element, names=False) if w in facts and w not in legal))
        if len(own) >= FACT_WORDS:
            out[i] = own
    return out


def judge_problems(reply: JudgeReply, kb: KnowledgeBase, *, min_words: int, cite: bool,
                   case: BenchCase | None = None, law: str = "") -> list[Problem]:
    """The judge's instructions, standard and citations; with the ``case`` and the statute text
    it was given (``law``), also elements that describe the case's evidence (``fact_elements``)."""
    problems = []
    for i, own in (fact_elements(reply.elements, case, law) if case is not None else {}).items():
        problems.append(Problem("element_facts", f"element {i} describes this case's evidence ({', '.join(own[:4])}), "
                                                 "not what the statute requires: state each element in the terms of "
                                                 "the offence's definition and leave the evidence to the bench"))
    if words(reply.instructions) < min_words:
        problems.append(Problem("instructions", f"the instructions have {words(reply.instructions)} words; explain "
                                                f"the offence and what the bench must weigh in at least {min_words}"))
    if not reply.standard_of_proof.strip():
        problems.append(Problem("standard_of_proof", "state the standard of proof and on whom the burden lies"))
    if cite and not reply.citations:
        problems.append(Problem("citations_missing", "cite the sections of the law your instructions rest on"))
    return problems + citation_problems(reply.citations, kb)


def counsel_problems(reply: CounselReply, kb: KnowledgeBase, *, min_words: int, cite: bool) -> list[Problem]:
    problems = []
    if words(reply.argument) < min_words:
        problems.append(Problem("argument", f"the argument has {words(reply.argument)} words; argue from the evidence "
                                            f"and the law in at least {min_words}"))
    if cite and not reply.citations:
        problems.append(Problem("citations_missing", "cite the sections of the law your argument rests on"))
    return problems + citation_problems(reply.citations, kb)


PROVED, NOT_PROVED = "proved", "not proved"
FINDINGS = [PROVED, NOT_PROVED]
MAX_ELEMENTS = 6


def elements_of(instructions: dict[str, Any], case: BenchCase) -> list[str]:
    """What each adjudicator makes a finding on: the judge's elements of the charge (at most
    ``MAX_ELEMENTS``) but those set aside as describing the evidence, or each charge as a whole
    when none is left."""
    aside = set(instructions.get("set_aside", []))  # elements that describe the evidence (fact_elements)
    listed = [e.strip() for i, e in enumerate(instructions.get("elements", []), 1)
              if isinstance(e, str) and e.strip() and i not in aside]
    who = case.accused or "the accused"
    return listed[:MAX_ELEMENTS] or [f"{who} committed {charge}" for charge in case.charges]


def evidence_items(case: BenchCase) -> list[str]:
    """The names of the case file's evidence items: P1… for the prosecution's, D1… for the defense's."""
    return ([f"P{i}" for i in range(1, len(case.prosecution_evidence) + 1)]
            + [f"D{i}" for i in range(1, len(case.defense_evidence) + 1)])


def unproved(reply: StatementReply, cited: bool = True) -> list[int]:
    """The elements a statement finds not proved, in order; with ``cited``, also those it finds
    proved on no evidence item (a case file with items: a finding must rest on one)."""
    return sorted({f.element for f in reply.findings if f.finding != PROVED or (cited and not f.evidence)})


def statement_problems(reply: StatementReply, min_words: int, elements: int = 0,
                       items: list[str] = ()) -> list[Problem]:  # type: ignore[assignment]
    """A statement's leaning, words and findings. With ``elements`` (the number of elements the
    judge listed) every element needs a finding, a finding of proved must name an evidence item
    of the case file (``items``, when it has any), and a leaning of guilty must rest on findings
    of every element proved: guilt needs every element proved beyond reasonable doubt."""
    problems = []
    if reply.leaning not in LEANINGS:
        problems.append(Problem("leaning", f'the leaning "{reply.leaning}" is not one of "guilty", "not guilty" or '
                                           '"undecided"; give exactly one of them'))
    if words(reply.justification) < min_words:
        problems.append(Problem("justification", f"the justification has {words(reply.justification)} words; give "
                                                 f"at least {min_words}, naming the facts and the law you rely on"))
    if not elements:
        return problems
    found = [f.element for f in reply.findings]
    missing = [n for n in range(1, elements + 1) if n not in found]
    if missing or len(found) != elements:
        problems.append(Problem("findings", f"give exactly one finding for each of the {elements} elements, numbered "
                                            f"1 to {elements}" + (f"; element {', '.join(map(str, missing))} has none"
                                                                  if missing else "")))
    for f in reply.findings:
        if f.finding not in FINDINGS:
            problems.append(Problem("findings", f'element {f.element}: the finding "{f.finding}" is not "proved" or '
                                                '"not proved"'))
        if items and (unknown := [x for x in f.evidence if x not in items]):
            problems.append(Problem("findings", f"element {f.element} names {', '.join(unknown)}, not an evidence "
                                                f"item of the case file ({', '.join(items)})"))
        if items and f.finding == PROVED and not f.evidence:
            problems.append(Problem("findings", f"element {f.element} is found proved but names no evidence item: "
                                                "name the items that prove it, or find it not proved"))
    if reply.leaning == GUILTY and (open_ := [n for n in unproved(reply, bool(items)) if 1 <= n <= elements]):
        problems.append(Problem("unsupported_guilt",
                                f"your findings leave element {', '.join(map(str, open_))} not proved, yet your "
                                "leaning is guilty: guilty needs every element proved beyond reasonable doubt; "
                                "make your leaning follow your findings"))
    return problems


# ---------------------------------------------------------------- consensus


def needed(seated: int, threshold: float) -> int:
    """Adjudicators one verdict needs for consensus: the threshold's share of the bench, rounded up."""
    return max(1, math.ceil(seated * threshold - 1e-9))


def consensus(votes: dict[str, str], seated: int, threshold: float) -> tuple[str, float]:
    """The verdict a round agreed on ("" if none reached the threshold) and the agreement ratio
    (the larger verdict's share of the seated bench; undecided counts toward neither)."""
    counts = Counter(v for v in votes.values() if v in VERDICTS)
    if not counts:
        return "", 0.0
    top = max(VERDICTS, key=lambda v: (counts[v], v == NOT_GUILTY))  # a tie leans to the presumption of innocence
    ratio = round(counts[top] / max(1, seated), 3)
    return (top if counts[top] >= needed(seated, threshold) else ""), ratio


def majority(votes: dict[str, str]) -> str:
    """The most common position of a round ("" on a tie): what conformity is measured against."""
    ranked = Counter(votes.values()).most_common()
    if not ranked or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
        return ""
    return ranked[0][0]


def side(leaning: str, against: bool = False) -> str:
    """A leaning as an answer to the question: guilty is Yes to "Is X guilty …?" and, ``against``,
    No to "Is X not guilty …?"."""
    return answers(leaning, GUILTY, (GUILTY, NOT_GUILTY), against)


# ---------------------------------------------------------------- metrics


def cites_law(text: str, headings: list[str] = ()) -> bool:  # type: ignore[assignment]
    return bool(LAW.search(text)) or any(h.lower() in text.lower() for h in headings if h)


def cites_fact(text: str, case: BenchCase) -> bool:
    low = text.lower()
    terms = set(k.lower() for k in case.keywords)
    for item in [*case.prosecution_evidence, *case.defense_evidence]:
        terms |= {t for t in key_terms(item, 12) if len(t) >= 6}
    return any(t in low for t in terms)


def meaningful(text: str, case: BenchCase, min_words: int) -> bool:
    """A justification that cites a fact or a law and meets the word minimum."""
    return words(text) >= min_words and (cites_law(text) or cites_fact(text, case))


def grounding(texts: list[str], keywords: list[str]) -> float:
    """The share of the case's keywords present in the statements."""
    if not keywords:
        return 0.0
    joined = " ".join(texts).lower()
    return round(sum(1 for k in keywords if k.lower() in joined) / len(keywords), 3)


def times(seconds: list[float]) -> dict[str, float]:
    if not seconds:
        return {"mean": 0.0, "median": 0.0, "min": 0.0, "max": 0.0}
    return {"mean": round(statistics.fmean(seconds), 4), "median": round(statistics.median(seconds), 4),
            "min": round(min(seconds), 4), "max": round(max(seconds), 4)}


def metrics(case: BenchCase, rounds: list[dict[str, dict[str, Any]]], seated: int, verdict: str, ratio: float,
            checks: list[CitationCheck], seconds: list[float], min_words: int,
            arguments: list[str] = ()) -> dict[str, Any]:  # type: ignore[assignment]
    """The published per-run metrics, plus citations made and verified."""
    statements = [s for r in rounds for s in r.values()]
    possible = seated * len(rounds)
    per = Counter(s["adjudicator"] for s in statements if s.get("meaningful"))
    return {
        "verdict": verdict, "rounds": len(rounds), "agreement": ratio,
        "participation": round(len(statements) / possible, 3) if possible else 0.0,
        "meaningful_per_adjudicator": round(sum(per.values()) / max(1, seated), 3),
        "meaningful_by_adjudicator": {f"adjudicator-{n}": per.get(f"adjudicator-{n}", 0) for n in range(1, seated + 1)},
        "grounding": grounding([s["justification"] for s in statements], case.keywords),
        "counsel_grounding": grounding(list(arguments), case.keywords),  # the same share in the counsels' arguments
        "response_seconds": times(seconds),
        "citations": {"made": len(checks), "verified": sum(1 for c in checks if c.verified),
                      "unverified": sum(1 for c in checks if not c.verified)},
        "min_words": min_words,
    }
