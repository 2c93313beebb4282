"""The decision court's rules on each role's reply. A broken rule is shown to the agent once
in its repair; what still breaks after it becomes a warning on the verdict."""

from __future__ import annotations

import re
from typing import Any

from ... import sentences
from ...evidence import EvidenceIndex
from ...motion import action_verb
from ...replies import shorten, unfinished_problems
from ..base import Problem, words
from ..deliberation import key_terms
from .records import Exhibit, Jury
from .wire import DefenseReply, JudgeReply, JurorReply, ProsecutorReply


def prosecutor_problems(reply: ProsecutorReply, index: EvidenceIndex, *, filed: int, has_context: bool,
                        max_exhibits: int, min_harm_words: int, flagged: Any = None) -> list[Problem]:
    problems = []
    if has_context and not reply.exhibits and not filed:
        problems.append(Problem("exhibits_missing", "file at least one exhibit quoted exactly from the evidence"))
    if len(reply.exhibits) + filed > max_exhibits:
        problems.append(Problem("exhibits_too_many", f"file at most {max_exhibits} exhibits in all"))
    problems += quote_problems([ex.source_quote for ex in reply.exhibits], index, first=filed + 1, flagged=flagged)
    for i, ex in enumerate(reply.exhibits, filed + 1):
        if words(ex.harm) < min_harm_words:
            problems.append(Problem("harm_specific", (
                f"exhibit {i}: the harm has {words(ex.harm)} words; state a concrete consequence in at least "
                f"{min_harm_words} words"
            )))
    return problems + unfinished_problems({"case_statement": reply.case_statement, "harm_analysis": reply.harm_analysis}, shorten=True)


def quote_problems(quotes: list[str], index: EvidenceIndex, *, first: int, flagged: Any = None,
                   noun: str = "exhibit") -> list[Problem]:
    """Each quote must stand in the evidence, exactly, and not in a flagged passage. ``noun``
    names what the quotes are in the messages (an exhibit; a fact of the supreme court's trace)."""
    problems = []
    for i, quote in enumerate(quotes, first):
        found = index.check(quote, min_chars=8)
        flag = flagged(found.location.document, found.location.char_start, found.location.char_end) \
            if flagged and found.verified and found.location else None
        if flag is not None:
            problems.append(Problem("exhibit_flagged", (
                f"{noun} {i} quotes a passage flagged as an instruction to the court ({flag.short()}: {flag.reason}); "
                "a flagged passage is not evidence: quote another passage"
            )))
        if not found.verified:
            if found.nearest:
                problems.append(Problem("exhibit_quote", (
                    f'{noun} {i}: the source_quote "{shorten(quote, 200)}" is not in the evidence; the nearest '
                    f'passage is "{shorten(found.nearest.passage, 200)}" at {found.nearest.location.short()} '
                    f"({found.nearest.similarity:.0%} similar). Copy a passage exactly."
                )))
            else:
                problems.append(Problem("exhibit_quote", f"{noun} {i}: {found.reason}"))
    return problems


def in_order(challenges: list[Any], numbers: list[int]) -> list[Any]:
    """One challenge per admitted exhibit, as the prompt asks ("in order"): when a reply gives
    exactly one challenge per exhibit but numbers them wrong (a grammar allows a repeated
    number), they are taken in order rather than asked again."""
    named = [c.exhibit for c in challenges]
    if len(challenges) == len(numbers) and sorted(named) != sorted(numbers):
        return [c.model_copy(update={"exhibit": n}) for c, n in zip(challenges, numbers, strict=True)]
    return list(challenges)


def defense_problems(reply: DefenseReply, admitted: list[Exhibit], motion: str, core: set[str]) -> list[Problem]:
    problems = []
    named = {c.exhibit for c in in_order(reply.exhibit_challenges, [e.number for e in admitted])}
    wanted = {e.number for e in admitted}
    missing = sorted(wanted - named)
    if missing:
        problems.append(Problem("defense_exhibits", (
            f"no challenge names exhibit{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))}; "
            "give one challenge for every admitted exhibit, by its number"
        )))
    unknown = sorted(named - wanted)
    if unknown:
        problems.append(Problem("defense_exhibits", (
            f"challenges name exhibit{'s' if len(unknown) > 1 else ''} {', '.join(map(str, unknown))}, which "
            f"{'are' if len(unknown) > 1 else 'is'} not admitted; the admitted exhibits are "
            f"{', '.join(map(str, sorted(wanted))) or 'none'}"
        )))
    if core and not (core & key_terms(reply.counter_argument)) or words(reply.counter_argument) < 12:
        problems.append(Problem("defense_core_claim", (
            f"the counter_argument does not engage the prosecution's core claim ({motion}); "
            "answer that claim directly in two to four sentences"
        )))
    return problems + unfinished_problems({"counter_argument": reply.counter_argument, "harm_dispute": reply.harm_dispute}, shorten=True)


_NOTHING = re.compile(r"^\W*(none|nothing|no facts?|n/?a|无|没有)\b", re.IGNORECASE)


def names_nothing(text: str) -> bool:
    """A juror's list of facts that says there are none ("none", "None found.", empty)."""
    return not text.strip() or bool(_NOTHING.match(text.strip()))


def juror_problems(reply: JurorReply, min_words: int, votes: dict[str, str] | None = None) -> list[Problem]:
    """Enough words, and (given the vote phrases by label) a vote that goes with the juror's own
    facts: a juror who finds facts on one side only and votes for the other contradicts itself."""
    problems = []
    n = words(reply.text())
    if n < min_words:
        problems.append(Problem("juror_words", f"the reasoning has {n} words; give at least {min_words} words of reasoning for your vote"))
    if votes:
        label = reply.label(votes)
        none_for, none_against = names_nothing(reply.facts_for), names_nothing(reply.facts_against)
        side = "do not act" if none_for and not none_against else "act" if none_against and not none_for else None
        if side and label in ("act", "do not act") and label != side:
            problems.append(Problem("juror_contradiction", (
                f'your facts support only "{votes[side]}" (you found none for "{votes[label]}"), yet you voted '
                f'"{votes[label]}": vote for the side your facts support, or name the facts that support your vote')))
    return problems + unfinished_problems({"reasoning": reply.reasoning})


# An action that is about the trial rather than a step to take: one a trial role is to carry out
# ("The prosecution should present additional evidence …", "The jury should be informed …"), one
# waiting on the court, one about an exhibit, or a reply field written as an action ("confidence:
# 0.8", "confidence"), all from a 1.5B judge. A step that gives the jury's decision as its reason
# ("Merge PR #311 now, as the jury decided") is a step: flagged as talk of the trial, 8 of 20
# rulings were asked again for it and kept it (2026-11-28).
_TRIAL_TALK = re.compile(
    r"(?i)^\W*(?:the\s+)?(?:prosecut\w*|defen[cs]e|jury|jurors?|judge|court)\b(?!\s+(?:team|lawyer|attorney|reporter))"
    r"|\b(?:from|by) the court\b|\bexhibits? \d|\b(?:confidence|rationale|reasoning|decision)\s*:"
    r"|^\W*(?:confidence|rationale|reasoning|decision)\W*$")


_FOR = (r"(?:supports?|favou?rs?|justif(?:y|ies)|calls? for|points? (?:to|toward)|recommends?|in favou?r of|warrants?)"
        r"\s+(?:the\s+(?:decision|idea|need|case)\s+(?:to|of|for)\s+)?"
        r"|(?:should|must|needs? to|best to|better to|wise to|advisable to)\s+(?:now\s+|still\s+)?")
_AGAINST = r"(?:against|not to|should not|must not|no need to|rather than|instead of)\s+"
_NEEDED = r"(?:necessary|justified|warranted|essential|needed|wise|advisable|the right (?:call|decision|choice|move))\b"
_SAID_BY = re.compile(r"(?i)\b(?:prosecut\w*|defen[cs]e|jury|jurors?|minority|majority)\b")


def _verb_forms(verb: str) -> str:
    """A regex for a verb's forms: "move" → move, moves, moved, moving; "stop" → … stopping."""
    stem = verb[:-1] if verb.endswith("e") and not verb.endswith("ee") else verb
    return rf"(?:{re.escape(verb)}(?:s|d|ed)?|{re.escape(stem)}{re.escape(verb[-1])}?ing)"


def argues_against(text: str, verb: str, decision: str) -> str:
    """The first sentence of ``text`` that argues, in the writer's own voice, against
    ``decision`` ("act" / "do not act" on the motion whose action is ``verb``,
    ``motion.action_verb``), or "": "The evidence strongly supports delaying the release." or
    "The committee should reject the proposal …" under "do not act" on a motion to delay or to
    reject. Sentences that report a side or the jury ("The prosecution argues …") are left alone,
    and so is a clause that doubts or negates ("it is not clear that we should roll out …",
    "whether postponing is justified"). Seen on the 1.5B (2026-11-28): 2 of 79 judges' rationales;
    8 of 205 jurors' answers, 6 of them votes against the evidence (five jurors wrote "the
    committee should reject the proposal" and answered no to "Should the committee reject …?")."""
    if decision not in ("act", "do not act") or not verb:
        return ""
    forms = _verb_forms(verb)

    def hedged(before: str) -> bool:  # the clause before the verb doubts or negates it
        clause = re.split(r"[,;:]", before)[-1]
        return bool(re.search(r"\b(?:not|n't|no|never|nor|whether|if|unclear|uncertain|difficult|hard)\b", clause))

    for sentence in sentences.split(text.strip(), sentences.FULL_STOPS):
        if _SAID_BY.search(sentence):
            continue
        low = sentence.lower()
        against = re.search(rf"\b{_AGAINST}{forms}\b", low)
        for_ = [m for m in re.finditer(rf"\b(?:{_FOR}){forms}\b", low) if not hedged(low[:m.start()])]
        needed = re.search(rf"\b{forms}\b[^.;]{{0,80}}\b(?:is|are|would be)\s+(not\s+)?{_NEEDED}", low)
        if needed and needed.group(1):  # "… is not necessary"
            against = against or needed
        elif needed and not hedged(low[:needed.start()]):
            for_.append(needed)
        if (decision == "do not act" and for_ and not against) or (decision == "act" and against and not for_):
            return sentence
    return ""


def ruling_problems(reply: JudgeReply, question: str, exhibits: list[Exhibit]) -> list[Problem]:
    """With ``ruling_facts``: the rationale restates a fact some verified exhibit quotes (two of its
    key terms the question does not already hold), and no action is about the trial itself."""
    problems = []
    asked = key_terms(question)
    quoted = [key_terms(e.source_quote) - asked for e in exhibits if e.verified]
    said = key_terms(reply.rationale)
    if any(quoted) and not any(len(terms & said) >= min(2, len(terms)) for terms in quoted if terms):
        problems.append(Problem("judge_rationale_facts", (
            "the rationale names no fact of the evidence; restate, in the evidence's own words, the facts that "
            "decide it (the verified exhibits quote them), not either side's predictions")))
    against = argues_against(reply.rationale, action_verb(question), reply.decision)
    if against:
        problems.append(Problem("judge_rationale_stance", (
            f'the rationale argues against the decision "{reply.decision}" ("{shorten(against, 90)}"); state the '
            "facts that decide it for the decision")))
    for i, action in enumerate(reply.actions, 1):
        if _TRIAL_TALK.search(action):
            problems.append(Problem("judge_action_trial", (
                f'action {i} ("{shorten(action, 80)}") is about the trial; give next steps for the person who asked, '
                "about the decision itself")))
    return problems


def judge_problems(reply: JudgeReply, jury: Jury, ruling: list[Problem] | None = None) -> list[Problem]:
    problems = list(ruling or [])
    text = reply.reasoning.lower()
    if not re.search(r"prosecut", text) or not re.search(r"defen[cs]e", text):
        problems.append(Problem("judge_both_sides", "the reasoning must weigh both the prosecution and the defense, naming each"))
    if not jury.unanimous() and not re.search(r"split|divid|dissent|minority|majority|unanim|\d\s*(?:-|–|to)\s*\d", text):
        problems.append(Problem("judge_split", f"the jury was split {jury.split()}; acknowledge the split in the reasoning"))
    if reply.decision == "act" and not [a for a in reply.actions if a.strip()]:
        problems.append(Problem("judge_actions", "you decided \"act\": list the concrete actions to take"))
    return problems + unfinished_problems({"reasoning": reply.reasoning, "rationale": reply.rationale}, shorten=True)


__all__: list[Any] = ["defense_problems", "judge_problems", "juror_problems", "prosecutor_problems", "argues_against", "ruling_problems"]
