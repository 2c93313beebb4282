"""What each officer of the decision court is told: the vote phrases, the exhibits as text, and
the prompt of every role (``Briefs``, a part of ``DecisionCourt``). The templates themselves
are in ``courtroom_chat/prompts/decision/``."""

from __future__ import annotations

from typing import Any

from ... import plain as plain_call
from ...court import Agent, Court
from ...evidence import quote_choices
from ...motion import Direct, Motion, direct_question, from_phrase, motion_for, motion_problems, parse, swapped
from ..base import literal_pattern
from .records import Defense, Exhibit, Prosecution

VOTE_LABELS = ["act", "do not act", "abstain"]
PLAIN_ANSWER = {"act": plain_call.YES, "do not act": plain_call.NO}  # a plain juror's answers
PLAIN_SYSTEM = plain_call.SYSTEM
plain_schema = plain_call.schema


def plainly(p: Any) -> bool:
    """Whether jurors are asked exactly what the single-call baseline is asked (``jury_asks = "plain"``)."""
    return p.jury_asks == "plain"
LABEL_MEANINGS = {
    "act": "if the facts for it weigh more",
    "do not act": "if the facts against weigh more",
    "abstain": "only if the evidence cannot decide it",
}


def vote_phrases(motion: Motion) -> dict[str, str]:
    """The motion itself, its negation, or abstain: what each vote commits to, in words (plain
    labels like "act" were measured to confuse small models about which side is which)."""
    return {"act": motion.yes or "the answer is yes", "do not act": motion.no or "the answer is no",
            "abstain": "abstain"}


def juror_votes(motion: Motion, asks: str) -> dict[str, str]:
    """What a juror writes for each vote: the motion's own words (``jury_asks = "motion"``), or a
    plain yes / no to the question, each explained by the motion's words (``"question"``)."""
    return vote_phrases(motion) if asks == "motion" else {"act": "yes", "do not act": "no", "abstain": "abstain"}


def motion_of(question: str, written: str = "") -> Motion:
    """The question's motion by rule; else the one the prosecutor wrote, if it keeps the
    question's names and numbers; else none (the answer is a bare Yes or No)."""
    found = parse(question)
    if found is not None:
        return found
    if written and not motion_problems(question, written):
        return from_phrase(question, written)
    return Motion(question, "", "", source="none")


PLACEHOLDER = Motion("", "[the motion]", "[its negation]")


def exhibits_text(exhibits: list[Exhibit], none: str = "(none: no quote from the evidence was verified)") -> str:
    if not exhibits:
        return none
    lines = []
    for e in exhibits:
        lines.append(f'{e.number}. "{e.source_quote}" ({e.location.short() if e.location else "unverified"})')
        if e.harm:
            lines.append(f"   {'Harm if we do not act' if e.origin != 'defense' else 'Shows against acting'}: {e.harm}")
    return "\n".join(lines)


def filed_text(case_exhibits: list[Any]) -> str:
    if not case_exhibits:
        return ""
    lines = ["The person filed these exhibits with the case; they are already numbered 1 to "
             f"{len(case_exhibits)}. Do not repeat them; add your own."]
    lines += [f'{i}. "{e.source_quote}"' for i, e in enumerate(case_exhibits, 1)]
    return "\n".join(lines) + "\n"



# The judge's rationale and actions, as asked: with ``ruling_facts`` (the default) in the
# evidence's words and for the person who asked, checked by ``rules.ruling_problems``; without,
# as the first release asked (the same words, so an evaluation of it reuses earlier trials).
RULING_LINES = {
    True: ("one sentence restating the facts of the evidence that decide it, in the evidence's own words "
           "(the verified exhibits quote them), not either side's predictions.",
           "one to three concrete next steps for the person who asked, about the decision itself, not the trial."),
    False: ("one sentence naming the facts that decide it.", "one to three concrete next steps."),
}

class Briefs:
    """The decision court's prompts, built from its templates (``self.render``) and the trial so far."""

    def prosecutor_prompt(self, court: Court) -> str:
        p = court.params
        if self.quotable(court):
            rules = self.render("exhibits", max_exhibits=p.max_exhibits, min_harm_words=max(p.min_harm_words, 1))
        else:
            rules = self.render("no_exhibits")
        fixed = parse(court.case.question)
        motion_rule = (f'exactly "{fixed.yes}"' if fixed else
                       "what a Yes to the question commits to, a short phrase that keeps the question's names and "
                       'numbers unchanged (like "merge PR #214 now")')
        return self.officer(court, self.render("prosecutor", filed=filed_text(court.case.evidence),
                                               motion_rule=motion_rule, exhibit_rules=rules))

    def officer(self, court: Court, prompt: str) -> str:
        """An officer's prompt (prosecutor, defense, judge). With plain jurors every role reads the
        jurors' system prompt, which is the baselines' own, so the case after it is read once and
        cached for the whole trial; the court's framing then opens the officer's own prompt instead.
        Measured on ICLR 2017 with the 1.5B: a juror system prompt of its own cost the jury a second
        read of the case, about 45 s of a 216 s trial."""
        if not plainly(court.params):
            return prompt
        return f"{self.render('system').strip()}\n\n{prompt}"

    @staticmethod
    def motion(court: Court, prosecution: Prosecution) -> Motion:
        return motion_of(court.case.question, prosecution.motion)

    @staticmethod
    def opening(motion: Motion) -> str:
        """How the defense's counter-argument opens under a grammar: on the motion's negation
        ("We should not merge PR #214 now", "ICLR 2017 should not accept this paper")."""
        if not motion.no:
            return ""
        no = f"We should not {motion.yes}" if motion.no == f"do not {motion.yes}" else motion.no[0].upper() + motion.no[1:]
        return literal_pattern(no)

    @staticmethod
    def quotable(court: Court) -> bool:
        """Whether there is evidence to quote: with none, the prosecutor argues and files no exhibit."""
        return bool(court.case.context)

    @staticmethod
    def advocate_quotes(court: Court) -> list[str]:
        """The evidence's lines an advocate's quote may be decoded from under a grammar: none
        from a flagged passage, none that only repeats the question."""
        return [c for c in quote_choices(court.readable, question=court.case.question)
                if "[flagged passage removed" not in c]

    def prosecution_text(self, prosecution: Prosecution | None, admitted: list[Exhibit] | None = None) -> str:
        """The prosecution as the defense reads it, and as it opens the jurors' and judge's record.

        It is the same text in every later prompt, so the prompt cache carries it forward."""
        if prosecution is None:  # dry run
            return self.render("prosecution", motion="[the prosecutor's motion]",
                               case_statement="[the prosecutor's case statement]",
                               harm_analysis="[the prosecutor's harm analysis]",
                               exhibits="[the admitted exhibits, numbered, each with its verified quote, location and harm]")
        return self.render("prosecution", motion=prosecution.motion, case_statement=prosecution.case_statement,
                           harm_analysis=prosecution.harm_analysis, exhibits=exhibits_text(admitted or []))

    def defense_prompt(self, court: Court, prosecution_text: str, motion: Motion) -> str:
        rules = (self.render("defense_exhibits", max_exhibits=court.params.max_exhibits) if self.quotable(court)
                 else '- "exhibits": [] (no evidence was attached, so there is nothing to quote).')
        return self.officer(court, self.render("defense", prosecution=prosecution_text,
                                               refusal=vote_phrases(motion)["do not act"], defense_exhibits=rules))

    def trial_record(self, prosecution_text: str, defense: Defense | None, order: list[int] | None = None) -> str:
        """The trial so far, identical for every juror and the judge, so it is read once and cached."""
        if defense is None:  # dry run
            return self.render("record", prosecution=prosecution_text, counter_argument="[the defense's counter-argument]",
                               defense_exhibits="[the defense's verified exhibits, numbered after the prosecution's]",
                               challenges="[the defense's challenge to each exhibit]",
                               harm_dispute="[the defense's harm dispute]", alternative="[the defense's alternative]")
        listed = sorted(defense.exhibit_challenges, key=lambda c: order.index(c.exhibit) if order and c.exhibit in order else 0)
        challenges = "\n".join(f"{c.exhibit}. ({c.effect}) {c.challenge}" for c in listed)
        own = [e for e in defense.exhibits if e.verified]
        return self.render("record", prosecution=prosecution_text, counter_argument=defense.counter_argument,
                           defense_exhibits=exhibits_text(own, "(none)"),
                           challenges=challenges or "(none: no exhibit was admitted)", harm_dispute=defense.harm_dispute,
                           alternative=defense.alternative)

    def juror_prompt(self, court: Court, number: int, persona: str, motion: Motion, record: str,
                     labels: list[str] | None = None) -> str:
        p = court.params
        if plainly(p):  # the baseline's own prompt, the two answers in this juror's order
            return plain_call.prompt([PLAIN_ANSWER[label] for label in labels or p.vote_labels()],
                                     plain_call.meanings(court.case.question) if p.spell_answers else None)
        phrases, votes = vote_phrases(motion), juror_votes(motion, p.jury_asks)
        meaning = {label: LABEL_MEANINGS[label] if votes[label] == phrases[label] else
                   f'{phrases[label]}, {LABEL_MEANINGS[label]}' for label in VOTE_LABELS}
        lines = "\n".join(f'  - "{votes[label]}": {meaning[label]}' for label in labels or p.vote_labels())
        cite = "citing exhibit numbers" if p.jury_reads == "exhibits" else "naming the facts"
        weighing = self.render(f"weigh_{p.jury_asks}", motion=phrases["act"], refusal=phrases["do not act"],
                               cite=cite).strip()
        outlook = f" Your outlook: {persona}." if persona else " Decide on the evidence alone."
        return self.render("juror", record=record, number=number, size=p.jury_size, outlook=outlook,
                           weighing=weighing, labels=lines)

    def jury_exhibits(self, court: Court, prosecution: Prosecution, defense: Defense) -> list[Exhibit]:
        """Every exhibit the jurors weigh: the prosecution's admitted ones, then the defense's verified ones."""
        return self.admitted(court, prosecution) + [e for e in defense.exhibits if e.verified]

    def jury_record(self, court: Court, exhibits: list[Exhibit] | None, motion: Motion = PLACEHOLDER) -> str:
        """What the jurors read besides the evidence: the motion, and the verified exhibits of
        both sides as one neutral list, with neither side's name nor spin. Measured on clear No
        cases: a prosecutor obliged to argue Yes files the facts that say No, and jurors who read
        them under "filed by the prosecution" counted them for acting (3 of 10 No cases lost).
        With ``jury_reads = "evidence"``: the motion alone, no exhibit list."""
        if court.params.jury_reads == "evidence":
            return f"THE MOTION: {vote_phrases(motion)['act']}"
        if exhibits is None:  # dry run
            return self.render("jury_record", motion=vote_phrases(motion)["act"],
                               exhibits="[the verified exhibits of both sides, numbered, with no side named]")
        listed = "\n".join(f'{e.number}. "{e.source_quote}" ({e.location.short() if e.location else "unverified"})'
                           for e in exhibits) or "(none: no passage was quoted and verified; weigh the evidence itself)"
        return self.render("jury_record", motion=vote_phrases(motion)["act"], exhibits=listed)

    def orders(self, court: Court, agent: str, exhibits: list[Exhibit]) -> tuple[list[str], list[int]]:
        """A juror's own seeded order of the vote labels and of the exhibits (as configured)."""
        p = court.params
        labels, numbers = p.vote_labels(), [e.number for e in exhibits]
        if p.shuffle_labels:
            court.rng(agent, "labels").shuffle(labels)
        if p.shuffle_exhibits:
            court.rng(agent, "exhibits").shuffle(numbers)
        return labels, numbers

    @staticmethod
    def direct(court: Court, number: int) -> Direct | None:
        """The question juror ``number`` answers instead of the one asked, its Yes counted as a No
        (plain jurors only): with ``ask_direct``, a question whose Yes means not going ahead, asked
        the direct way; with ``balance_options``, a choice between two options asked the other way
        round, to every second juror; with ``balance_answers``, any other question turned around
        (its mirror: "Should I not merge PR 12?"), to every second juror."""
        p = court.params
        if not plainly(p):
            return None
        if p.ask_direct and (direct := direct_question(court.case.question)):
            return direct
        if number % 2:
            return None
        options = swapped(court.case.question)
        other = options if p.balance_options else ""
        if p.balance_answers and not options:
            other = motion_for(court.case.question).mirror_question
        return Direct(other, "") if other else None

    @staticmethod
    def evidence_order(court: Court, agent: Agent) -> list[int]:
        """A juror's own seeded order of the evidence documents (``shuffle_evidence``), set as
        the case it reads; the order, as the documents' numbers, for the record."""
        order = list(range(1, len(court.readable) + 1))
        court.rng(agent.name, "evidence").shuffle(order)
        court.reorder_evidence(agent.name, order)
        return order

    def judge_prompt(self, court: Court, record: str, excluded: str, tally: str, jury_reasons: str, split: bool,
                     majority: str | None = None) -> str:
        hint = " The jury was split: weigh the minority's view too." if split else ""
        if majority:
            label = {"guilty": "act", "not_guilty": "do not act"}[majority]
            task = f'The jury decided "{label}" by its majority. Write the ruling that carries out its decision.'
            decisions = f'"{label}" (the jury\'s decision)'
        else:
            task = "The jury did not reach a majority either way: decide the question yourself, on the facts."
            decisions = '"act" (YES), "do not act" (NO), or "dismiss" if the evidence cannot decide it.'
        lines = RULING_LINES[court.params.ruling_facts]
        return self.officer(court, self.render("judge", record=record, excluded=excluded, tally=tally,
                                               jury_reasons=jury_reasons, split_hint=hint, task=task,
                                               decisions=decisions, rationale_line=lines[0], actions_line=lines[1]))
