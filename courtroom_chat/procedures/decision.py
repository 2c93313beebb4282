"""The decision court: prosecution, defense, a jury, a judge.

    prosecute ─> verify exhibits (one repair) ─> defend ─> deliberate (jurors in parallel) ─> rule

Models are asked with plain-meaning labels ("act" / "do not act" / "abstain") and the
labels are mapped to verdict words here: with guilty/not_guilty, small models were measured
voting against their own reasoning.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from ..case import motion_from
from ..cost import estimate_cost
from ..errors import BackendError, BudgetExceeded, RoleOutputError
from ..events import AgentFinished, ExhibitChecked, PromptPlanned, TallyUpdated, VerdictReached
from ..evidence import EvidenceIndex, normalise_text, quote_choices
from ..prompts import render
from ..records import Defense, Exhibit, ExhibitChallenge, Juror, Jury, Prosecution, Verdict
from .base import Agent, Court, Problem, literal_pattern, refine_schema, word_pattern, words

PERSONAS = (
    "a pragmatic engineer who weighs benefits against costs",
    "a cautious risk officer who looks first for what could go wrong",
    "an optimistic product owner who values momentum and shipping",
    "a strict auditor who trusts only verified evidence",
    "an advocate for the people the decision affects",
    "a skeptical newcomer who asks what is really known",
    "a seasoned maintainer who has seen similar decisions go wrong",
    "a cost-conscious manager who counts time and money",
)

# Budgets per role: max_tokens bounds a reply; expected feeds the cost estimates.
TOKENS = {
    "prosecutor": (900, 420),
    "defense": (700, 320),
    "juror": (420, 140),
    "judge": (700, 300),
}

STOPWORDS = set(
    "the a an and or of to in on for is are was were be been it this that with as at by from we i you "
    "they not no yes should would could will can do does did now our your their its has have had but if "
    "so than then there these those which who what when why how all any more most very just".split()
)


# ------------------------------------------------------------------ wire schemas (what models write)


def _label(value: Any, mapping: dict[str, str]) -> Any:
    if isinstance(value, str):
        key = re.sub(r"[\s_\-']+", " ", value.strip().lower()).strip(" .\"")
        return mapping.get(key, value)
    return value


_VOTES = {"act": "act", "yes": "act", "guilty": "act", "do not act": "do not act", "dont act": "do not act",
          "don t act": "do not act", "no": "do not act", "not guilty": "do not act", "abstain": "abstain"}
_RULINGS = {**_VOTES, "dismiss": "dismiss", "dismissed": "dismiss"}
_RULINGS.pop("abstain")


class ExhibitReply(BaseModel):
    source_quote: str
    target_quote: str = ""
    harm: str


class ProsecutorReply(BaseModel):
    motion: str
    case_statement: str
    exhibits: list[ExhibitReply] = Field(max_length=12)
    harm_analysis: str


class ChallengeReply(BaseModel):
    exhibit: int
    challenge: str
    effect: Literal["refutes", "weakens", "concedes"] = "weakens"

    @field_validator("effect", mode="before")
    @classmethod
    def _effect(cls, v: Any) -> Any:
        return v.strip().lower() if isinstance(v, str) else v


class DefenseReply(BaseModel):
    counter_argument: str
    exhibit_challenges: list[ChallengeReply]
    harm_dispute: str
    alternative: str


class JurorReply(BaseModel):
    reasoning: str
    vote: Literal["act", "do not act", "abstain"]

    @field_validator("vote", mode="before")
    @classmethod
    def _vote(cls, v: Any) -> Any:
        return _label(v, _VOTES)


class JudgeReply(BaseModel):
    reasoning: str
    decision: Literal["act", "do not act", "dismiss"]
    answer: str
    rationale: str
    actions: list[str] = Field(default_factory=list)
    confidence: float = Field(ge=0.0, le=1.0)

    @field_validator("decision", mode="before")
    @classmethod
    def _decision(cls, v: Any) -> Any:
        return _label(v, _RULINGS)

    @field_validator("confidence", mode="before")
    @classmethod
    def _percent(cls, v: Any) -> Any:
        """70 or "70%" means 0.7: models often answer in percent (grammars do not bound numbers)."""
        if isinstance(v, str):
            v = v.strip().rstrip("%")
        try:
            number = float(v)
        except (TypeError, ValueError):
            return v
        return number / 100 if 1 < number <= 100 else number


VOTE_WORDS = {"act": "guilty", "do not act": "not_guilty", "abstain": "abstain"}
DECISION_WORDS = {"act": "guilty", "do not act": "not_guilty", "dismiss": "dismissed"}


# ------------------------------------------------------------------ prompt pieces


def exhibits_text(exhibits: list[Exhibit]) -> str:
    if not exhibits:
        return "(none: no quote from the evidence was verified)"
    lines = []
    for e in exhibits:
        lines.append(f'{e.number}. "{e.source_quote}" ({e.location.short() if e.location else "unverified"})')
        if e.harm:
            lines.append(f"   Harm if we do not act: {e.harm}")
    return "\n".join(lines)


def filed_text(case_exhibits: list[Any]) -> str:
    if not case_exhibits:
        return ""
    lines = ["The person filed these exhibits with the case; they are already numbered 1 to "
             f"{len(case_exhibits)}. Do not repeat them; add your own."]
    lines += [f'{i}. "{e.source_quote}"' for i, e in enumerate(case_exhibits, 1)]
    return "\n".join(lines) + "\n"


NEGATIVE = re.compile(r"(?i)^\s*(?:no\b|not\b|do not|don't|never|avoid|reject|decline|hold off|wait|postpone|delay)")
ANSWER_HEAD = re.compile(r"(?i)^\s*(yes|no|undecided)\s*[:,.\-–]\s*")


def strip_head(phrase: str) -> str:
    """The answer without a 'Yes:' / 'No,' / 'Undecided -' the model may have written."""
    return ANSWER_HEAD.sub("", phrase.strip()).strip()


def answer_conflict(decision: str, phrase: str, motion: str, related: str = "") -> str:
    """Why a plain answer contradicts its decision, or answers something else ('' when neither).

    ``related`` is other text the answer may fairly echo (the question, the defense's
    alternative, the judge's actions): an answer sharing no content word with it or with the
    motion is off the subject ('No: weigh the evidence alone', seen from a 0.5B judge).
    """
    phrase = strip_head(phrase)
    negative = bool(NEGATIVE.match(phrase))
    terms, motion_terms = _key_terms(phrase), _key_terms(motion)
    if decision == "guilty" and negative:
        return f'you decided "act" but the answer "{phrase}" says not to; state what to do to act'
    if decision == "not_guilty" and not negative and motion_terms and terms >= motion_terms:
        return f'you decided "do not act" but the answer "{phrase}" repeats the motion; say what to do instead'
    if decision != "dismissed" and terms and not terms & (motion_terms | _key_terms(related)):
        return f'the answer "{phrase}" does not speak to the question or the motion'
    return ""


def lowered(motion: str) -> str:
    """'Merge PR #214 now' -> 'merge PR #214 now', to follow other words (an acronym keeps its capitals)."""
    motion = motion.strip()
    if len(motion) > 1 and motion[0].isupper() and not motion[1].isupper():
        motion = motion[0].lower() + motion[1:]
    return motion


def refusal(motion: str) -> str:
    """'Merge PR #214 now' -> 'do not merge PR #214 now'."""
    return f"do not {lowered(motion)}"


def fallback_phrase(decision: str, motion: str) -> str:
    """The answer built from the decision alone, when no usable one was written."""
    return {"guilty": motion, "not_guilty": refusal(motion), "dismissed": "the evidence does not decide it"}[decision]


def plain_answer(decision: str, phrase: str) -> str:
    """'Yes: publish now' / 'No: …' / 'Undecided: …', whatever prefix the judge wrote."""
    phrase = strip_head(phrase).rstrip(".")
    head = {"guilty": "Yes", "not_guilty": "No", "dismissed": "Undecided"}[decision]
    return f"{head}: {phrase}" if phrase else head


def evidence_confidence(decision: str, jury: Jury, prosecution: Prosecution, defense: Defense | None) -> tuple[float, dict[str, Any]]:
    """A confidence computed from the record, not reported by a model.

    Half comes from the jury: the share of votes cast for the decision minus the share
    against, scaled to 0-1 (a 5-0 jury gives 1.0, 3-2 gives 0.6, 2-3 against gives 0.4).
    Half comes from the exhibits: the share of all filed exhibits that were verified and
    not refuted by the defense. For a YES that share supports the decision; for a NO its
    complement does. A dismissal is supported by a split jury and by half-strong evidence.
    """
    cast = jury.voted or 1
    g, n = jury.guilty_count, jury.not_guilty_count
    total = len(prosecution.exhibits)
    survived = sum(
        1 for e in prosecution.exhibits
        if e.verified and not (defense and (c := defense.challenge_for(e.number)) and c.effect == "refutes")
    )
    strength = survived / total if total else 0.0
    if decision == "guilty":
        jury_part, exhibit_part = (1 + (g - n) / cast) / 2, strength
    elif decision == "not_guilty":
        jury_part, exhibit_part = (1 + (n - g) / cast) / 2, 1 - strength
    else:
        jury_part, exhibit_part = 1 - abs(g - n) / cast, 1 - abs(2 * strength - 1)
    value = round(0.5 * jury_part + 0.5 * exhibit_part, 3)
    basis = {
        "jury_for": g if decision == "guilty" else n if decision == "not_guilty" else jury.abstain_count,
        "jury_cast": jury.voted,
        "jury_part": round(jury_part, 3),
        "exhibits_survived": survived,
        "exhibits_filed": total,
        "exhibit_part": round(exhibit_part, 3),
    }
    return value, basis


def _key_terms(text: str) -> set[str]:
    """Content words, cut to their first four letters so 'merge' meets 'merged' and 'merging'."""
    return {w[:4] for w in re.findall(r"[a-z][a-z0-9]{3,}", text.lower()) if w not in STOPWORDS}


# ------------------------------------------------------------------ the procedure


class DecisionCourt:
    name = "decision"
    title = "Decision court"
    description = (
        "A prosecutor argues for acting, a defense against; quotes are verified; "
        "a jury votes and a judge rules, with actions and two confidences."
    )
    stages = (("prosecution", "Prosecution"), ("defense", "Defense"), ("jury", "Jury"), ("judge", "Judge"))

    async def run(self, court: Court) -> None:
        prosecution = await self.prosecute(court)
        defense = await self.defend(court, prosecution)
        jury = await self.deliberate(court, prosecution, defense)
        await self.rule(court, prosecution, defense, jury)

    # ---------------------------------------------------------------- agents

    def _agent(self, court: Court, role: str, number: int = 0) -> Agent:
        p = court.settings.parameters
        max_tokens, expected = TOKENS[role]
        if role == "juror":
            temps = p.juror_temperatures()
            return court.agent(
                f"juror-{number}", "juror", f"Juror {number}", "jury",
                persona=PERSONAS[(number - 1) % len(PERSONAS)], temperature=temps[number - 1],
                max_tokens=max_tokens, expected_output_tokens=expected,
            )
        temperature = p.judge_temperature if role == "judge" else p.advocate_temperature
        stage = {"prosecutor": "prosecution", "defense": "defense", "judge": "judge"}[role]
        return court.agent(role, role, role.capitalize(), stage, temperature=temperature,
                           max_tokens=max_tokens, expected_output_tokens=expected)

    # ---------------------------------------------------------------- prompts

    def prosecutor_prompt(self, court: Court) -> str:
        v = court.settings.validation
        return render("prosecutor", filed=filed_text(court.case.evidence), motion_hint=motion_from(court.case.question),
                      max_exhibits=court.settings.parameters.max_exhibits, min_harm_words=max(v.min_harm_words, 1))

    def prosecution_text(self, prosecution: Prosecution | None, admitted: list[Exhibit] | None = None) -> str:
        """The prosecution as the defense reads it, and as it opens the jurors' and judge's record.

        It is the same text in every later prompt, so the prompt cache carries it forward."""
        if prosecution is None:  # dry run
            return render("prosecution", motion="[the prosecutor's motion]", case_statement="[the prosecutor's case statement]",
                          harm_analysis="[the prosecutor's harm analysis]",
                          exhibits="[the admitted exhibits, numbered, each with its verified quote, location and harm]")
        return render("prosecution", motion=prosecution.motion, case_statement=prosecution.case_statement,
                      harm_analysis=prosecution.harm_analysis, exhibits=exhibits_text(admitted or []))

    def defense_prompt(self, prosecution_text: str, motion: str) -> str:
        return render("defense", prosecution=prosecution_text, refusal=refusal(motion))

    def trial_record(self, prosecution_text: str, defense: Defense | None) -> str:
        """The trial so far, identical for every juror and the judge, so it is read once and cached."""
        if defense is None:  # dry run
            return render("record", prosecution=prosecution_text, counter_argument="[the defense's counter-argument]",
                          challenges="[the defense's challenge to each exhibit]",
                          harm_dispute="[the defense's harm dispute]", alternative="[the defense's alternative]")
        challenges = "\n".join(f"{c.exhibit}. ({c.effect}) {c.challenge}" for c in defense.exhibit_challenges)
        return render("record", prosecution=prosecution_text, counter_argument=defense.counter_argument,
                      challenges=challenges or "(none: no exhibit was admitted)", harm_dispute=defense.harm_dispute,
                      alternative=defense.alternative)

    def juror_prompt(self, court: Court, number: int, persona: str, motion: str, record: str) -> str:
        return render("juror", record=record, number=number, size=court.settings.parameters.jury_size,
                      persona=persona, motion=motion, min_words=max(court.settings.validation.min_juror_words, 1))

    def judge_prompt(self, record: str, excluded: str, tally: str, jury_reasons: str, split: bool) -> str:
        hint = " The jury was split: say how you weighed the minority." if split else ""
        return render("judge", record=record, excluded=excluded, tally=tally, jury_reasons=jury_reasons,
                      split_hint=hint)

    # ---------------------------------------------------------------- stage 1: prosecution

    async def prosecute(self, court: Court) -> Prosecution:
        agent = self._agent(court, "prosecutor")
        prompt = self.prosecutor_prompt(court)
        court.check_context([(agent, prompt)])
        index = EvidenceIndex(court.case.context)
        v, p = court.settings.validation, court.settings.parameters
        filed = court.case.evidence

        def check(reply: ProsecutorReply) -> list[Problem]:
            problems = []
            if court.case.context and not reply.exhibits and not filed:
                problems.append(Problem("exhibits_missing", "file at least one exhibit quoted exactly from the evidence"))
            if len(reply.exhibits) + len(filed) > p.max_exhibits:
                problems.append(Problem("exhibits_too_many", f"file at most {p.max_exhibits} exhibits in all"))
            for i, ex in enumerate(reply.exhibits, len(filed) + 1):
                found = index.check(ex.source_quote, min_chars=8)
                if not found.verified:
                    if found.nearest:
                        problems.append(Problem("exhibit_quote", (
                            f'exhibit {i}: the source_quote "{ex.source_quote[:200]}" is not in the evidence; the nearest '
                            f'passage is "{found.nearest.passage[:200]}" at {found.nearest.location.short()} '
                            f"({found.nearest.similarity:.0%} similar). Copy a passage exactly."
                        )))
                    else:
                        problems.append(Problem("exhibit_quote", f"exhibit {i}: {found.reason}"))
                if words(ex.harm) < v.min_harm_words:
                    problems.append(Problem("harm_specific", (
                        f"exhibit {i}: the harm has {words(ex.harm)} words; state a concrete consequence in at least "
                        f"{v.min_harm_words} words"
                    )))
            return problems

        grammar = agent.constrained
        choices = quote_choices(court.case.context) if grammar else []
        room = max(0, p.max_exhibits - len(filed))
        schema = refine_schema(ProsecutorReply, {
            "motion": {"maxLength": 100},
            "case_statement": {"maxLength": 220},
            "exhibits": {"minItems": 1 if court.case.context and room and not filed else None, "maxItems": room},
            "ExhibitReply.source_quote": {"enum": choices},
            "ExhibitReply.target_quote": {"maxLength": 80},
            # Under a grammar, count words (2 spare: the rule counts \w+ runs); else bound characters.
            "ExhibitReply.harm": {"pattern": word_pattern(v.min_harm_words + 2, v.min_harm_words + 10)}
            if grammar and v.min_harm_words else
            {"minLength": v.min_harm_words * 5, "maxLength": max(130, v.min_harm_words * 10)},
            "harm_analysis": {"maxLength": 150},
        })
        async with court.stage("prosecution", "Prosecution", [(agent, prompt)]) as stage:
            answer = await court.ask(
                agent, prompt, ProsecutorReply, check=check, schema=schema,
                inputs={"question": court.case.question, "max_exhibits": p.max_exhibits, "min_harm_words": v.min_harm_words},
                keep_hint="Keep the exhibits that were verified exactly as they were; fix or replace the others.",
            )
            reply = answer.value
            attempt = 2 if answer.repaired else 1
            items, seen, dropped = [], set(), 0
            for item, origin in [(e, "case") for e in filed] + [(e, "prosecutor") for e in reply.exhibits]:
                key = normalise_text(item.source_quote)
                if key in seen:
                    dropped += 1
                    continue
                seen.add(key)
                items.append((item, origin))
            if dropped:
                court.warn("prosecutor", "exhibit_duplicate",
                           f"{dropped} exhibit{'s' if dropped > 1 else ''} repeating an earlier quote "
                           f"{'were' if dropped > 1 else 'was'} dropped")
            exhibits: list[Exhibit] = []
            for number, (item, origin) in enumerate(items[: p.max_exhibits], 1):
                found = index.check(item.source_quote, min_chars=8)
                target = index.check(item.target_quote, min_chars=8, nearest=False) if item.target_quote else None
                exhibit = Exhibit(
                    number=number, source_quote=item.source_quote, target_quote=item.target_quote, harm=item.harm,
                    origin=origin, verified=found.verified, location=found.location,
                    target_location=target.location if target and target.verified else None,
                    nearest=found.nearest, attempt=attempt if origin == "prosecutor" else 1,
                )
                exhibits.append(exhibit)
                court.emit(ExhibitChecked(exhibit=exhibit.model_dump(mode="json")))
            # Quote failures are shown on the exhibits themselves; the other rules become warnings.
            court.settle(agent, answer, skip={"exhibit_quote"})
            prosecution = Prosecution(motion=reply.motion.strip().rstrip("."), case_statement=reply.case_statement,
                                      exhibits=exhibits, harm_analysis=reply.harm_analysis)
            unverified = [e.number for e in exhibits if not e.verified]
            if unverified:
                kept = "kept out of the case put to the jury" if v.require_exact_quotes else "admitted, marked unverified"
                court.warn("prosecutor", "exhibit_unverified",
                           f"exhibit{'s' if len(unverified) > 1 else ''} {', '.join(map(str, unverified))} could not be "
                           f"verified in the evidence and {'were' if len(unverified) > 1 else 'was'} {kept}")
            court.record.prosecution = prosecution
            court.emit(AgentFinished(stage="prosecution", agent="prosecutor", output=prosecution.model_dump(mode="json"),
                                     repaired=answer.repaired))
            stage.summary = prosecution.model_dump(mode="json")
        return prosecution

    def admitted(self, court: Court, prosecution: Prosecution) -> list[Exhibit]:
        if court.settings.validation.require_exact_quotes:
            return prosecution.admitted()
        return prosecution.exhibits

    # ---------------------------------------------------------------- stage 2: defense

    async def defend(self, court: Court, prosecution: Prosecution) -> Defense:
        agent = self._agent(court, "defense")
        admitted = self.admitted(court, prosecution)
        prompt = self.defense_prompt(self.prosecution_text(prosecution, admitted), prosecution.motion)
        core = _key_terms(f"{prosecution.motion} {prosecution.case_statement}")

        def check(reply: DefenseReply) -> list[Problem]:
            problems = []
            named = {c.exhibit for c in reply.exhibit_challenges}
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
            if core and not (core & _key_terms(reply.counter_argument)) or words(reply.counter_argument) < 12:
                problems.append(Problem("defense_core_claim", (
                    f"the counter_argument does not engage the prosecution's core claim (to {prosecution.motion}); "
                    "answer that claim directly in two to four sentences"
                )))
            return problems

        numbers = [e.number for e in admitted]
        # Under a grammar the counter-argument opens on the motion itself, so it answers the
        # core claim (a 0.5B defense otherwise drifts off it, and a repair costs a second call).
        opening = literal_pattern(lowered(prosecution.motion))
        grammar = agent.constrained
        schema = refine_schema(DefenseReply, {
            "counter_argument": {"pattern": f'^We should not {opening} because [^"\\\\]{{20,160}}$'}
            if grammar and opening else {"maxLength": 260},
            "exhibit_challenges": {"minItems": len(numbers), "maxItems": len(numbers)},
            "ChallengeReply.exhibit": {"enum": numbers},
            "ChallengeReply.challenge": {"maxLength": 120},
            "harm_dispute": {"maxLength": 140},
            "alternative": {"maxLength": 120},
        })
        async with court.stage("defense", "Defense", [(agent, prompt)]) as stage:
            answer = await court.ask(
                agent, prompt, DefenseReply, check=check, schema=schema,
                inputs={"motion": prosecution.motion, "exhibits": [e.model_dump(mode="json") for e in admitted]},
            )
            court.settle(agent, answer)
            reply = answer.value
            defense = Defense(
                counter_argument=reply.counter_argument,
                exhibit_challenges=[ExhibitChallenge(**c.model_dump()) for c in reply.exhibit_challenges],
                harm_dispute=reply.harm_dispute,
                alternative=reply.alternative,
            )
            court.record.defense = defense
            court.emit(AgentFinished(stage="defense", agent="defense", output=defense.model_dump(mode="json"),
                                     repaired=answer.repaired))
            stage.summary = defense.model_dump(mode="json")
        return defense

    # ---------------------------------------------------------------- stage 3: jury

    async def deliberate(self, court: Court, prosecution: Prosecution, defense: Defense) -> Jury:
        p, v = court.settings.parameters, court.settings.validation
        admitted = self.admitted(court, prosecution)
        record = self.trial_record(self.prosecution_text(prosecution, admitted), defense)
        agents = [self._agent(court, "juror", n) for n in range(1, p.jury_size + 1)]
        prompts = {a.name: self.juror_prompt(court, n, a.persona, prosecution.motion, record)
                   for n, a in enumerate(agents, 1)}
        jurors = [Juror(number=n, persona=a.persona, model=str(a.spec), temperature=a.applied_temperature)
                  for n, a in enumerate(agents, 1)]

        def tally() -> None:
            court.emit(TallyUpdated(
                guilty=sum(j.vote == "guilty" for j in jurors), not_guilty=sum(j.vote == "not_guilty" for j in jurors),
                abstain=sum(j.vote == "abstain" for j in jurors), pending=sum(j.status == "pending" for j in jurors),
                failed=sum(j.status == "failed" for j in jurors), seated=len(jurors),
            ))

        def check(reply: JurorReply) -> list[Problem]:
            n = words(reply.reasoning)
            if n < v.min_juror_words:
                return [Problem("juror_words", (
                    f"the reasoning has {n} words; give at least {v.min_juror_words} words of reasoning for your vote"
                ))]
            return []

        grammar = bool(agents) and agents[0].constrained
        low, high = v.min_juror_words + 2, v.min_juror_words + 12
        schema = refine_schema(JurorReply, {
            # Under a grammar, count words (with a margin: the rule counts \w+ runs); else bound characters.
            "reasoning": {"pattern": word_pattern(low, high)}
            if grammar and v.min_juror_words else
            {"minLength": int(v.min_juror_words * 6.5), "maxLength": max(500, v.min_juror_words * 10)},
        })

        async def sit(agent: Agent, juror: Juror) -> None:
            try:
                answer = await court.ask(
                    agent, prompts[agent.name], JurorReply, check=check, schema=schema,
                    inputs={"number": juror.number, "persona": juror.persona, "min_words": v.min_juror_words,
                            "exhibits": [e.model_dump(mode="json") for e in admitted], "motion": prosecution.motion},
                )
            except (BackendError, RoleOutputError) as exc:
                juror.status, juror.error = "failed", str(exc)
            else:
                court.settle(agent, answer)
                juror.vote = VOTE_WORDS[answer.value.vote]  # type: ignore[assignment]
                juror.reasoning = answer.value.reasoning
                juror.status = "voted"
                court.emit(AgentFinished(stage="jury", agent=agent.name, output=juror.model_dump(mode="json"),
                                         repaired=answer.repaired))
            tally()

        async with court.stage("jury", "Jury", [(a, prompts[a.name]) for a in agents]) as stage:
            tally()
            await asyncio.gather(*(sit(a, j) for a, j in zip(agents, jurors, strict=True)))
            failed = [j for j in jurors if j.status == "failed"]
            if len(failed) == len(jurors):
                raise RoleOutputError(f"every juror failed; the first error: {failed[0].error}", agent="jury")
            jury = Jury.tally(jurors, p.jury_threshold)
            if failed:
                court.warn("jury", "partial_panel", (
                    f"partial panel: {jury.voted} of {jury.seated} jurors voted "
                    f"(juror {', '.join(str(j.number) for j in failed)} failed: {failed[0].error})"
                ))
            court.record.jury = jury
            stage.summary = {**jury.model_dump(mode="json"), "split": jury.split()}
        return jury

    # ---------------------------------------------------------------- stage 4: judge

    async def rule(self, court: Court, prosecution: Prosecution, defense: Defense, jury: Jury) -> Verdict:
        admitted = self.admitted(court, prosecution)
        excluded = [e for e in prosecution.exhibits if e not in admitted]
        split = not jury.unanimous()
        agent = self._agent(court, "judge")
        record = self.trial_record(self.prosecution_text(prosecution, admitted), defense)
        prompt = self.judge_prompt(
            record,
            (f"\nExcluded, not verified in the evidence: exhibit {', '.join(str(e.number) for e in excluded)}.\n"
             if excluded else ""),
            jury.split(words=True), self._jury_reasons(jury), split,
        )
        if not jury.proceeds_to_judge:
            async with court.stage("judge", "Judge") as stage:
                verdict = self._jury_verdict(court, prosecution, defense, jury, reason=(
                    (f"Only {jury.guilty_count} of {jury.voted} jurors voted to act" if jury.guilty_count else
                     f"None of the {jury.voted} jurors voted to act")
                    + f"; {jury.threshold} are needed to bring the motion to the judge, so it fails without a ruling."
                ))
                stage.summary = verdict.model_dump(mode="json")
            return verdict
        try:
            court.check_budget("judge", [(agent, prompt)])
        except BudgetExceeded as exc:
            court.warn("judge", "budget_stop", f"{exc}; the jury's majority decides instead")
            async with court.stage("judge", "Judge") as stage:
                verdict = self._jury_verdict(court, prosecution, defense, jury, reason=(
                    f"The judge was not called (budget stop); the jury's {jury.split()} majority decides."
                ))
                stage.summary = verdict.model_dump(mode="json")
            return verdict

        def check(reply: JudgeReply) -> list[Problem]:
            problems = []
            text = reply.reasoning.lower()
            if not re.search(r"prosecut", text) or not re.search(r"defen[cs]e", text):
                problems.append(Problem("judge_both_sides", "the reasoning must weigh both the prosecution and the defense, naming each"))
            if split and not re.search(r"split|divid|dissent|minority|majority|unanim|\d\s*(?:-|–|to)\s*\d", text):
                problems.append(Problem("judge_split", f"the jury was split {jury.split()}; acknowledge the split in the reasoning"))
            if reply.decision == "act" and not [a for a in reply.actions if a.strip()]:
                problems.append(Problem("judge_actions", "you decided \"act\": list the concrete actions to take"))
            if not reply.answer.strip():
                problems.append(Problem("judge_answer", "give the plain answer as a short phrase"))
            return problems

        text = r'[^"\\]'  # any character of a JSON string but a quote or an escape
        on_jury = " The jury was split " if split else " The jury "
        grammar = agent.constrained
        schema = refine_schema(JudgeReply, {
            # Under a grammar, the reasoning names both sides and the jury, in that order.
            "reasoning": {"pattern": f"^The prosecution {text}{{10,130}} The defense {text}{{10,130}}{on_jury}{text}{{5,100}}$"}
            if grammar else {"maxLength": 1200},
            "answer": {"maxLength": 90},
            "rationale": {"maxLength": 110},
            "actions": {"minItems": 1, "maxItems": 3, "items": {"type": "string", "minLength": 8, "maxLength": 90}},
        })
        async with court.stage("judge", "Judge") as stage:
            answer = await court.ask(
                agent, prompt, JudgeReply, check=check, schema=schema,
                inputs={"motion": prosecution.motion, "alternative": defense.alternative, "unanimous": not split,
                        "tally": {"guilty": jury.guilty_count, "not_guilty": jury.not_guilty_count,
                                  "abstain": jury.abstain_count}},
            )
            court.settle(agent, answer)
            reply = answer.value
            decision = DECISION_WORDS[reply.decision]
            score, basis = evidence_confidence(decision, jury, prosecution, defense)
            phrase = reply.answer
            conflict = answer_conflict(decision, phrase, prosecution.motion,
                                       " ".join([court.case.question, defense.alternative, *reply.actions]))
            if conflict or not phrase.strip():
                # Never show an answer that contradicts the decision: build it from the decision instead.
                phrase = fallback_phrase(decision, prosecution.motion)
                court.warn("judge", "judge_answer", f"{conflict or 'the answer was empty'}; the plain answer "
                           f"was built from the decision instead")
            verdict = Verdict(
                decision=decision, reasoning=reply.reasoning, rationale=reply.rationale,
                actions=[a.strip() for a in reply.actions if a.strip()], confidence=reply.confidence,
                answer=plain_answer(decision, phrase), evidence_confidence=score, evidence_basis=basis,
                decided_by="judge",
            )
            court.emit(AgentFinished(stage="judge", agent="judge", output=verdict.model_dump(mode="json"),
                                     repaired=answer.repaired))
            self._announce(court, verdict, jury)
            stage.summary = verdict.model_dump(mode="json")
        return verdict

    def _jury_reasons(self, jury: Jury) -> str:
        lines = []
        for j in jury.jurors:
            if j.status == "voted":
                first = re.split(r"(?<=[.!?])\s", j.reasoning.strip(), maxsplit=1)[0][:90]
                label = {"guilty": "act", "not_guilty": "do not act", "abstain": "abstain"}[j.vote or "abstain"]
                lines.append(f"- Juror {j.number} ({label}): {first}")
        return "\n".join(lines)

    def _jury_verdict(self, court: Court, prosecution: Prosecution, defense: Defense, jury: Jury, *, reason: str) -> Verdict:
        if jury.proceeds_to_judge:
            decision = "guilty" if jury.guilty_count > jury.not_guilty_count else "not_guilty"
        else:
            decision = "not_guilty"
        score, basis = evidence_confidence(decision, jury, prosecution, defense)
        # The jury voted on the motion, so the answer is the motion or its refusal; the defense's
        # alternative (often a restatement from a small model) stays in the defense's record.
        phrase = fallback_phrase(decision, prosecution.motion)
        verdict = Verdict(
            decision=decision, reasoning=reason, rationale=reason.split(";")[0].rstrip(".") + ".",
            actions=[prosecution.motion] if decision == "guilty" else [],
            confidence=round(max(jury.guilty_count, jury.not_guilty_count) / (jury.voted or 1), 3),
            answer=plain_answer(decision, phrase), evidence_confidence=score, evidence_basis=basis, decided_by="jury",
        )
        self._announce(court, verdict, jury)
        return verdict

    def _announce(self, court: Court, verdict: Verdict, jury: Jury) -> None:
        court.record.verdict = verdict
        court.emit(VerdictReached(
            verdict=verdict.model_dump(mode="json"), split=jury.split(), jurors_voted=jury.voted,
            jurors_seated=jury.seated, warnings=[w.message for w in court.record.warnings],
        ))

    # ---------------------------------------------------------------- dry run

    async def plan(self, court: Court) -> None:
        """Every role's exact prompt, with placeholders where earlier stages would write."""
        motion = "[the prosecutor's motion]"
        p = court.settings.parameters
        prosecution = self.prosecution_text(None)
        plans: list[tuple[str, Agent, str]] = [
            ("prosecution", self._agent(court, "prosecutor"), self.prosecutor_prompt(court)),
            ("defense", self._agent(court, "defense"), self.defense_prompt(prosecution, motion)),
        ]
        record = self.trial_record(prosecution, None)
        for n in range(1, p.jury_size + 1):
            a = self._agent(court, "juror", n)
            plans.append(("jury", a, self.juror_prompt(court, n, a.persona, motion, record)))
        plans.append(("judge", self._agent(court, "judge"), self.judge_prompt(
            record, "\n[any exhibits excluded as unverified]\n", "[the jury's tally]",
            "[one line of reasoning per juror]", p.jury_size > 1)))
        for stage, agent, prompt in plans:
            request = court.request(agent, prompt, JudgeReply, {})
            messages = request.messages()
            tokens_in = agent.backend.estimate_tokens("\n".join(m["content"] for m in messages))
            court.emit(PromptPlanned(
                stage=stage, agent=agent.name, role=agent.role, model=str(agent.spec),
                temperature=agent.applied_temperature, messages=messages, input_tokens=tokens_in,
                output_tokens=agent.expected_output_tokens,
                cost_usd=estimate_cost(agent.backend.price_provider, agent.model_id, tokens_in, agent.expected_output_tokens),
            ))
