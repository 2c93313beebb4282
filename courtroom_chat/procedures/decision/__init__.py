"""The decision court: prosecution, defense, a jury, a judge.

    prosecute ─> verify exhibits (one repair) ─> defend ─> deliberate (jurors in parallel) ─> rule

The court reads as its four stages, each an async function over the runtime (``Court``).
Its parameters are in ``parameters``, what each role is told in ``briefs`` (templates in
``courtroom_chat/prompts/decision/``), its wire formats in ``wire``, its rules in ``rules``,
its answer and confidences in ``answer``, how it reads in ``present``, its records in
``records``, its scripted replies in ``demo``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ... import sentences
from ...backends.base import ModelRequest
from ...case import Case
from ...court import Agent, Court
from ...errors import BackendError, BudgetExceeded, CaseError, RoleOutputError
from ...events import AgentFailed
from ...evidence import EvidenceIndex, normalise_text
from ...motion import action_verb, choice, held_back_choice, motion_problems, not_asked, parse, swapped
from ...records import Outcome, RunRecord
from ...replies import finished, finished_item, finished_parts, shorten, text_class, text_pattern
from .. import deliberation
from ..base import Problem, Procedure, Role, refine_schema, word_pattern
from ..deliberation import key_terms
from . import present
from .answer import (
    POLARITY,
    confidences,
    evidence_basis_text,
    evidence_confidence,
    evidence_scores,
    most_cited,
    vote_share,
)
from .briefs import (
    LABEL_MEANINGS,
    PLACEHOLDER,
    PLAIN_ANSWER,
    PLAIN_SYSTEM,
    VOTE_LABELS,
    Briefs,
    exhibits_text,
    filed_text,
    juror_votes,
    motion_of,
    plain_schema,
    plainly,
    vote_phrases,
)
from .demo import demo_reply
from .parameters import PERSONAS, Parameters
from .records import Defense, Exhibit, ExhibitChallenge, Juror, Jury, Prosecution, Verdict
from .rules import (
    argues_against,
    defense_problems,
    in_order,
    judge_problems,
    juror_problems,
    prosecutor_problems,
    quote_problems,
    ruling_problems,
)
from .unanswered import sentence as unanswered_sentence
from .unanswered import unanswered
from .wire import DECISION_WORDS, VOTE_WORDS, DefenseReply, JudgeReply, JurorReply, ProsecutorReply

# Characters in each side's part of the judge's reasoning under a grammar: well above what the
# prompt asks for. A judge that repeats itself reaches it, and the grammar then closes the part
# mid-word (1 cut word in 20 evidence-following trials, 2026-11-26); finished_parts ends it at
# its last whole sentence.
JUDGE_PART = 700


class DecisionCourt(Briefs, Procedure):
    name = "decision"
    title = "Decision court"
    description = (
        "A prosecutor argues for acting, a defense against; quotes are verified; "
        "a jury votes and a judge rules, with actions and named confidences."
    )
    stages = (("prosecution", "Prosecution"), ("defense", "Defense"), ("jury", "Jury"), ("judge", "Judge"))
    roles = (
        Role("prosecutor", "Prosecutor", ProsecutorReply, max_tokens=1200, expected_output_tokens=420,
             description="Argues YES with exhibits quoted from the evidence"),
        Role("defense", "Defense", DefenseReply, max_tokens=1000, expected_output_tokens=320,
             description="Argues NO and challenges each exhibit"),
        Role("juror", "Juror", JurorReply, numbered=True, max_tokens=420, expected_output_tokens=140, aliases=("jury",),
             description="Votes act / do not act / abstain"),
        Role("judge", "Judge", JudgeReply, max_tokens=1300, expected_output_tokens=300,
             description="Rules when enough jurors vote to act"),
    )
    Parameters = Parameters
    fixed_order = {"shuffle_labels": False, "shuffle_exhibits": False, "shuffle_evidence": False}
    shuffled_order = {"shuffle_labels": True}
    prepared_inputs = ("asked",)  # a choice's question as the person asked it (prepare)

    async def run(self, court: Court) -> None:
        prosecution = await self.prosecute(court)
        defense = await self.defend(court, prosecution)
        jury = await self.deliberate(court, prosecution, defense)
        await self.rule(court, prosecution, defense, jury)

    def demo(self, request: ModelRequest) -> dict[str, Any] | None:
        return demo_reply(request)

    def role_system(self, court: Court, role: str) -> str | None:
        if plainly(court.params):  # every role: the plain jurors' (the baselines'), see Briefs.officer
            return PLAIN_SYSTEM
        if role != "juror":
            return None
        return self.render("system_juror") if court.params.juror_system == "juror" else None

    def result_of(self, record: RunRecord) -> dict[str, Any]:
        """The Courtroom POC ``CourtroomResult`` in snake_case, plus extra fields (``-o`` output)."""
        jury = record.jury
        return {
            "case": record.case_summary(),
            "prosecution": record.outputs.get("prosecutor"),
            "defense": record.outputs.get("defense"),
            "jury": {**jury.model_dump(mode="json"), "split": jury.split()} if jury else None,
            "verdict": record.outputs.get("verdict"),
            "warnings": [w.model_dump() for w in record.warnings],
            "metadata": record.metadata(),
        }

    # ---------------------------------------------------------------- agents and prompts

    def _agent(self, court: Court, role: str, number: int = 0) -> Agent:
        p = court.params
        if role == "juror":
            return court.agent(f"juror-{number}", "juror", f"Juror {number}", "jury",
                               persona=p.outlook(number),
                               temperature=p.juror_temperatures()[number - 1])
        temperature = p.judge_temperature if role == "judge" else p.advocate_temperature
        stage = {"prosecutor": "prosecution", "defense": "defense", "judge": "judge"}[role]
        return court.agent(role, role, role.capitalize(), stage, temperature=temperature)

    def prepare(self, case: Case, params: Any = None) -> Case:
        """A question choosing between two options is tried as one yes/no question ("Design A or
        B?" as "Should we choose Design A rather than Design B?": a Yes is Design A, a No Design
        B), the question as asked kept in the ``asked`` input. With ``hold_back_as_choice``, so is
        a question whose Yes means not going ahead ("Should we cancel X?" as "Should we cancel X
        rather than keep X?")."""
        options = choice(case.question)
        if options is None and (params or Parameters()).hold_back_as_choice:
            options = held_back_choice(case.question)
        if options is None:
            return case
        return case.model_copy(update={"question": options.asked, "inputs": {**case.inputs, "asked": options.question}})

    def question_problem(self, question: str) -> str:
        return not_asked(question)  # "hi", "What is this?", two questions at once

    def check_case(self, case: Any) -> None:
        """A message that is no yes/no question ("hi", "What is this?", two questions at once),
        or a question offering a choice the rules cannot split into two options ("Is Plan A or
        Plan B cheaper?", "React, Vue or Svelte?"), is refused before the trial starts."""
        if why := self.question_problem(case.question):
            raise CaseError(why)
        parse(case.question)

    @staticmethod
    def jury_decision(court: Court, jury: Jury) -> str | None:
        """The jury's decision under the majority rule: ``jury_threshold`` votes one way; None
        when neither side has them (the judge then decides). Under the threshold rule the judge
        always rules on a motion that reached it."""
        if court.params.rule != "majority":
            return None
        threshold = min(court.params.jury_threshold, jury.seated)
        if jury.guilty_count >= threshold and jury.guilty_count > jury.not_guilty_count:
            return "guilty"
        if jury.not_guilty_count >= threshold and jury.not_guilty_count > jury.guilty_count:
            return "not_guilty"
        return None

    def admitted(self, court: Court, prosecution: Prosecution) -> list[Exhibit]:
        return prosecution.admitted() if court.params.require_exact_quotes else prosecution.exhibits

    # ---------------------------------------------------------------- stage 1: prosecution

    async def prosecute(self, court: Court) -> Prosecution:
        agent = self._agent(court, "prosecutor")
        prompt = self.prosecutor_prompt(court)
        court.check_context([(agent, prompt)])
        index = EvidenceIndex(court.case.context)
        p = court.params
        filed = court.case.evidence

        fixed = parse(court.case.question)

        def check(reply: ProsecutorReply) -> list[Any]:
            # A motion the rules could not form is the prosecutor's: it must keep the question's
            # names and numbers and state what a Yes commits to.
            wrong = [] if fixed else [Problem("motion", m) for m in motion_problems(court.case.question, reply.motion)]
            return wrong + prosecutor_problems(reply, index, filed=len(filed), has_context=bool(court.case.context),
                                               max_exhibits=p.max_exhibits, min_harm_words=p.min_harm_words,
                                               flagged=court.flagged)

        grammar = agent.constrained
        choices = self.advocate_quotes(court) if grammar else []
        room = max(0, p.max_exhibits - len(filed)) if self.quotable(court) else 0
        latin = court.latin
        # Bounds are generous (three to six times what the prompt asks for): a bound a model
        # reaches cuts its text mid-word or glues words together ("available inthe.input."), and
        # on ICLR reviews the 1.5B reached the earlier, tighter ones (700 characters of case
        # statement, 34 words of harm) in most trials. The prompt asks for the short form.
        schema = refine_schema(ProsecutorReply, {
            "motion": {"enum": [fixed.yes]} if fixed and grammar else
            {"pattern": text_pattern(3, 300, latin=latin)} if grammar else {"maxLength": 300},
            "case_statement": {"pattern": text_pattern(20, 1200, latin=latin)} if grammar else {"maxLength": 1200},
            "exhibits": {"minItems": 1 if court.case.context and room and not filed else None, "maxItems": room},
            "ExhibitReply.source_quote": {"enum": choices},
            "ExhibitReply.target_quote": {"pattern": text_pattern(0, 240, latin=latin)} if grammar else {"maxLength": 240},
            # Under a grammar, count words (2 spare: the rule counts \w+ runs); else bound characters.
            "ExhibitReply.harm": {"pattern": word_pattern(p.min_harm_words + 2, p.min_harm_words * 6 + 24, latin=latin)}
            if grammar and p.min_harm_words else
            {"minLength": p.min_harm_words * 5, "maxLength": max(400, p.min_harm_words * 30)},
            "harm_analysis": {"pattern": text_pattern(10, 800, latin=latin)} if grammar else {"maxLength": 800},
        })
        async with court.stage("prosecution", "Prosecution", [(agent, prompt)]) as stage:
            answer = await court.ask(
                agent, prompt, ProsecutorReply, check=check, schema=schema,
                inputs={"question": court.case.question, "max_exhibits": p.max_exhibits, "min_harm_words": p.min_harm_words},
                keep_hint="Keep the exhibits that were verified exactly as they were; fix or replace the others.",
            )
            reply = answer.value
            exhibits = self.file_exhibits(
                court, index, "prosecutor", [(e, "case") for e in filed] + [(e, "prosecutor") for e in reply.exhibits],
                first=1, limit=p.max_exhibits, attempt=2 if answer.repaired else 1)
            # Quote failures are shown on the exhibits themselves; the other rules become warnings.
            court.settle(agent, answer, skip={"exhibit_quote", "exhibit_flagged"})
            motion = fixed.yes if fixed else reply.motion.strip().rstrip(".")
            if not fixed and motion_problems(court.case.question, motion):
                court.warn("prosecutor", "motion", f"no motion could be formed from the question (the prosecutor wrote "
                           f"\"{motion}\"); the answer will be a plain Yes or No")
            prosecution = Prosecution(motion=motion, case_statement=court.prose(agent.name, "case_statement", reply.case_statement),
                                      exhibits=exhibits, harm_analysis=court.prose(agent.name, "harm_analysis", reply.harm_analysis))
            data = prosecution.model_dump(mode="json")
            court.finish(agent, prosecution, markdown=present.prosecution_markdown(data), repaired=answer.repaired,
                         title="Prosecutor", line=f"prosecutor: for \"{present.shorten(prosecution.motion, 60)}\"")
            verified = sum(1 for e in exhibits if e.verified)
            stage.state = f"{len(exhibits)} exhibit{'s' if len(exhibits) != 1 else ''}, {verified} verified"
            stage.summary = data
        return prosecution

    # ---------------------------------------------------------------- stage 2: defense

    async def defend(self, court: Court, prosecution: Prosecution) -> Defense:
        agent = self._agent(court, "defense")
        admitted = self.admitted(court, prosecution)
        motion = self.motion(court, prosecution)
        prompt = self.defense_prompt(court, self.prosecution_text(prosecution, admitted), motion)
        core = key_terms(f"{prosecution.motion} {prosecution.case_statement}")
        numbers = [e.number for e in admitted]
        # Under a grammar the counter-argument opens on the motion itself, so it answers the
        # core claim (a 0.5B defense otherwise drifts off it, and a repair costs a second call).
        opening = self.opening(motion)
        grammar = agent.constrained
        latin, text = court.latin, text_class(court.latin)

        def prose(low: int, high: int) -> dict[str, Any]:
            return {"pattern": text_pattern(low, high, latin=latin)} if grammar else {"maxLength": high}

        index = EvidenceIndex(court.case.context)
        first = len(prosecution.exhibits) + 1
        room = court.params.max_exhibits if self.quotable(court) else 0
        choices = self.advocate_quotes(court) if grammar else []
        schema = refine_schema(DefenseReply, {
            "counter_argument": {"pattern": f"^{opening} because {text}{{20,800}}$"}
            if grammar and opening else prose(20, 1100),
            "exhibits": {"maxItems": room},
            "DefenseExhibitReply.source_quote": {"enum": choices},
            "DefenseExhibitReply.shows": prose(5, 500),
            "exhibit_challenges": {"minItems": len(numbers), "maxItems": len(numbers)},
            "ChallengeReply.exhibit": {"enum": numbers},
            "ChallengeReply.challenge": prose(10, 600),
            # Asked why "the harms are overstated or avoidable", the 1.5B opened with those words,
            # was repaired for repeating the instructions, and wrote the same again (2 of the first
            # 5 ICLR trials after the bounds were raised): under a grammar it opens on one of two
            # sentences of the court's own instead, which no instruction holds six words of.
            "harm_dispute": {"pattern": f"^The harm (is overstated|can be avoided without acting) because {text}{{10,700}}$"}
            if grammar else prose(10, 700),
            "alternative": prose(5, 500),
        })

        def check(reply: DefenseReply) -> list[Any]:
            quotes = [e.source_quote for e in reply.exhibits]
            return (defense_problems(reply, admitted, prosecution.motion, core)
                    + quote_problems(quotes, index, first=first, flagged=court.flagged))

        async with court.stage("defense", "Defense", [(agent, prompt)]) as stage:
            answer = await court.ask(
                agent, prompt, DefenseReply, schema=schema, check=check,
                inputs={"motion": prosecution.motion, "exhibits": [e.model_dump(mode="json") for e in admitted],
                        "first_number": first, "max_exhibits": room},
                keep_hint="Keep the exhibits that were verified exactly as they were; fix or drop the others.",
            )
            court.settle(agent, answer, skip={"exhibit_quote", "exhibit_flagged"})
            reply = answer.value
            said = ("prosecution", f"{prosecution.case_statement} {prosecution.harm_analysis}")  # not the defense's to say
            turned: list[int] = []
            own = self.file_exhibits(court, index, "defense", [(e, "defense") for e in reply.exhibits],
                                     first=first, limit=room, attempt=2 if answer.repaired else 1,
                                     known={normalise_text(e.source_quote): e.number for e in prosecution.exhibits}, turned=turned)
            defense = Defense(
                counter_argument=court.prose(agent.name, "counter_argument", reply.counter_argument, other=said),
                exhibits=own,
                turned=sorted(set(turned)),
                exhibit_challenges=[ExhibitChallenge(**c.model_dump()) for c in in_order(reply.exhibit_challenges, numbers)],
                harm_dispute=court.prose(agent.name, "harm_dispute", reply.harm_dispute, other=said),
                alternative=reply.alternative,
            )
            data = defense.model_dump(mode="json")
            exhibits = [e.model_dump(mode="json") for e in prosecution.exhibits]
            verified = sum(1 for e in own if e.verified)
            court.finish(agent, defense, markdown=present.defense_markdown(data, exhibits), repaired=answer.repaired,
                         title="Defense", line=f"defense: {len(own)} exhibit(s) filed, {verified} verified; "
                                               f"{len(defense.exhibit_challenges)} challenge(s)")
            stage.state = f"{len(own)} exhibit{'s' if len(own) != 1 else ''}, {verified} verified"
            stage.summary = data
        return defense

    def file_exhibits(self, court: Court, index: EvidenceIndex, agent: str, items: list[tuple[Any, str]], *,
                      first: int, limit: int, attempt: int, known: dict[str, int] | None = None,
                      turned: list[int] | None = None) -> list[Exhibit]:
        """Number, verify and show the exhibits a side files: a repeated quote is dropped, a
        quote of a flagged passage refused, an unverified one kept out of what the jury weighs.
        A quote of one of the other side's exhibits (``known``: quote -> number) is not filed
        twice: its number goes to ``turned``, the fact claimed by both sides."""
        known = known or {}
        kept, seen, dropped = [], set(known), 0
        for item, origin in items:
            found = index.check(item.source_quote, min_chars=8)
            flag = court.flagged(found.location.document, found.location.char_start, found.location.char_end) \
                if found.verified and found.location else None
            if flag is not None:  # still quoting a flagged passage after the repair: never filed
                court.warn(agent, "exhibit_flagged", f"an exhibit quoting the flagged passage at {flag.short()} "
                           "was refused: flagged passages cannot be exhibits")
                continue
            key = normalise_text(item.source_quote)
            if key in known and turned is not None:
                turned.append(known[key])
                continue
            if key in seen:
                dropped += 1
                continue
            seen.add(key)
            kept.append((item, origin, found))
        if dropped:
            court.warn(agent, "exhibit_duplicate", f"{dropped} exhibit{'s' if dropped > 1 else ''} repeating an "
                       f"earlier quote {'were' if dropped > 1 else 'was'} dropped")
        exhibits: list[Exhibit] = []
        for number, (item, origin, found) in enumerate(kept[:limit], first):
            target_quote = getattr(item, "target_quote", "")
            target = index.check(target_quote, min_chars=8, nearest=False) if target_quote else None
            exhibit = Exhibit(
                number=number, source_quote=item.source_quote, target_quote=target_quote,
                harm=getattr(item, "harm", "") or getattr(item, "shows", ""), origin=origin, verified=found.verified,
                location=found.location, target_location=target.location if target and target.verified else None,
                nearest=found.nearest, attempt=attempt if origin != "case" else 1,
            )
            exhibits.append(exhibit)
            data = exhibit.model_dump(mode="json")
            court.item("exhibit", present.exhibit_title(data), exhibit.verified, number=number, agent=agent,
                       detail=present.exhibit_markdown(data), line=present.exhibit_line(data), data=data)
        unverified = [e.number for e in exhibits if not e.verified]
        if unverified:
            kept_out = ("kept out of the case put to the jury" if court.params.require_exact_quotes
                        else "admitted, marked unverified")
            court.warn(agent, "exhibit_unverified",
                       f"exhibit{'s' if len(unverified) > 1 else ''} {', '.join(map(str, unverified))} could not be "
                       f"verified in the evidence and {'were' if len(unverified) > 1 else 'was'} {kept_out}")
        return exhibits

    # ---------------------------------------------------------------- stage 3: jury

    async def deliberate(self, court: Court, prosecution: Prosecution, defense: Defense) -> Jury:
        p = court.params
        motion = self.motion(court, prosecution)
        weighed = self.jury_exhibits(court, prosecution, defense)
        record = self.jury_record(court, weighed, motion)
        agents = [self._agent(court, "juror", n) for n in range(1, p.jury_size + 1)]
        orders = {a.name: self.orders(court, a.name, weighed) for a in agents}
        kept = {name: {"labels": labels, "exhibits": numbers} for name, (labels, numbers) in orders.items()}
        directs = {a.name: self.direct(court, n) for n, a in enumerate(agents, 1)}
        for a in agents:
            if p.shuffle_evidence:
                kept[a.name]["evidence"] = self.evidence_order(court, a)
            if directs[a.name]:
                court.ask_instead(a.name, directs[a.name].question)
        court.keep("orders", kept)
        direct = next((d for d in directs.values() if d), None)
        if direct:  # the question asked instead, and who was asked it
            court.keep("direct", {"question": direct.question, "verb": direct.verb,
                                  **({} if direct.verb else {"jurors": [n for n, a in enumerate(agents, 1)
                                                                         if directs[a.name]]})})
        prompts = {}
        for n, a in enumerate(agents, 1):
            labels, numbers = orders[a.name]
            seen = record if not p.shuffle_exhibits else self.jury_record(
                court, sorted(weighed, key=lambda e: numbers.index(e.number)), motion)
            prompts[a.name] = self.juror_prompt(court, n, a.persona, motion, seen, labels)
        jurors = [Juror(number=n, persona=a.persona, model=str(a.spec), temperature=a.applied_temperature,
                        asked=directs[a.name].question if directs[a.name] else "") for n, a in enumerate(agents, 1)]

        def tally() -> None:
            counts = {label: sum(VOTE_WORDS[label] == j.vote for j in jurors) for label in VOTE_LABELS}
            court.tally(VOTE_LABELS, counts, pending=sum(j.status == "pending" for j in jurors),
                        failed=sum(j.status == "failed" for j in jurors), seated=len(jurors), stage="jury")

        grammar = bool(agents) and agents[0].constrained
        latin = court.latin
        # Jurors weigh the evidence in prose, then vote. Asked to list the facts "for" first, the
        # 1.5B put the first fact it read there whatever it said (a failed rehearsal as a reason
        # to migrate), and its vote followed the list while its own prose argued the other way.
        # Under a grammar, count words (the rule counts \w+ runs); else bound characters.
        least = max(5, p.min_juror_words) if p.min_juror_words else 1
        schema = refine_schema(JurorReply, {
            "reasoning": ({"pattern": word_pattern(least, 160, latin=latin)} if grammar and p.juror_pattern
                          else {"maxLength": 1400}),
            "facts_for": None, "facts_against": None,  # read from older records, no longer asked for
            "confidence": None,  # a plain juror's alone
        })

        phrases, allowed = juror_votes(motion, p.jury_asks), p.vote_labels()
        min_words = 0 if plainly(p) else p.min_juror_words  # a plain juror is asked for "a few sentences"
        spoken = vote_phrases(motion)

        def decoded(agent: Agent) -> dict[str, Any]:
            """The juror's schema, its votes in its own order."""
            order = orders[agent.name][0]
            if plainly(p):
                return plain_schema([PLAIN_ANSWER[label] for label in order], title=JurorReply.__name__)
            return {**schema, "properties": {**schema["properties"], "vote": {
                "type": "string", "enum": [phrases[label] for label in order]}}}

        # The action each juror's own question asks for ("reject" of "Should the committee reject …?"),
        # for the check that its answer goes where its reasoning went: none for a juror asked the
        # question turned around (its "no" is the motion's action) or the options the other way.
        verbs = {name: "" if p.juror_consistency == "off" or (d is not None and not d.verb)
                 else action_verb(d.question if d is not None else court.case.question) for name, d in directs.items()}

        def answered(label: str) -> str:  # a vote in the words the juror gave it
            return PLAIN_ANSWER[label] if plainly(p) else phrases[label]

        def checker(verb: str) -> Any:
            def check(reply: JurorReply) -> list[Any]:
                problems = juror_problems(reply, min_words, phrases)
                label = reply.label(phrases, spoken)
                if label not in allowed:  # the vote as asked, or in the motion's words
                    choices = ", ".join(f'"{phrases[label]}"' for label in allowed)
                    problems.append(Problem("juror_vote", f'the vote "{reply.vote}" is none of {choices}; vote with one of them'))
                elif said := argues_against(reply.reasoning, verb, label):
                    problems.append(Problem("juror_contradiction", (
                        f'your reasoning says "{present.shorten(said, 100)}", yet you answered "{answered(label)}": answer '
                        "as your reasoning on the evidence concludes")))
                return problems
            return check

        async def sit(agent: Agent, juror: Juror) -> None:
            try:
                answer = await court.ask(
                    agent, prompts[agent.name], JurorReply, schema=decoded(agent), check=checker(verbs[agent.name]),
                    inputs={"number": juror.number, "persona": juror.persona, "min_words": max(min_words, 5),
                            "exhibits": [e.model_dump(mode="json") for e in weighed], "motion": prosecution.motion,
                            "votes": phrases},
                )
                label = answer.value.label(phrases, spoken)
                if label not in allowed:  # still no readable vote after the repair: the juror is counted as failed
                    error = RoleOutputError(f"the juror ({agent.spec}) voted {answer.value.vote!r}, none of the choices",
                                            agent=agent.name, raw=answer.raw)
                    court.emit(AgentFailed(stage=agent.stage, agent=agent.name, error=str(error)))
                    raise error
            except (BackendError, RoleOutputError) as exc:
                juror.status, juror.error = "failed", str(exc)
            else:
                other, own = {"act": "do not act", "do not act": "act"}, label  # own: as it answered
                said = argues_against(answer.value.reasoning, verbs[agent.name], label) if p.juror_consistency == "reasoning" else ""
                court.settle(agent, answer, skip={"juror_vote", "juror_contradiction"} if said else {"juror_vote"})
                if said:  # asked again, it still answered against its own reasoning: its reasoning counts
                    juror.against_reasoning = f'answered "{answered(label)}", yet its reasoning says "{present.shorten(said, 100)}"'
                    label = other[label]
                    court.warn(agent.name, "juror_contradiction", (
                        f"juror {juror.number} {juror.against_reasoning}, also when asked again; its vote counts as its "
                        f"reasoning concludes: {label}"))
                if directs[agent.name]:  # a Yes to the question asked instead is a No to the one asked
                    juror.answered = PLAIN_ANSWER.get(own, "")
                    label = other.get(label, label)
                juror.vote = VOTE_WORDS[label]  # type: ignore[assignment]
                juror.reasoning = finished(answer.value.text())  # jurors hardly repeat (3 runs in 20 trials)
                juror.status = "voted"
                data = juror.model_dump(mode="json")
                court.finish(agent, juror, markdown=present.juror_markdown(data), title=present.juror_title(data),
                             line=f"{present.juror_title(data)}  (temperature {juror.temperature if juror.temperature is not None else 'none applied'}"
                                  + (f"; answered {juror.answered} to {'the direct question' if direct and direct.verb else 'the question turned around'}"
                                     if juror.asked else "")
                                  + ("; answered against its own reasoning, which counts)" if juror.against_reasoning else ")"),
                             repaired=answer.repaired)
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
                ), stage="jury")
            court.keep("jury", jury)
            stage.state = jury.split()
            stage.summary = {**jury.model_dump(mode="json"), "split": jury.split()}
        return jury

    # ---------------------------------------------------------------- stage 4: judge

    async def rule(self, court: Court, prosecution: Prosecution, defense: Defense, jury: Jury) -> Verdict:
        admitted = self.admitted(court, prosecution)
        excluded = [e for e in prosecution.exhibits if e not in admitted]
        split = not jury.unanimous()
        agent = self._agent(court, "judge")
        record = self.trial_record(self.prosecution_text(prosecution, admitted), defense)
        majority = self.jury_decision(court, jury)
        prompt = self.judge_prompt(
            court, record,
            (f"\nExcluded, not verified in the evidence: exhibit {', '.join(str(e.number) for e in excluded)}.\n"
             if excluded else ""),
            jury.split(words=True), self._jury_reasons(jury), split, majority,
        )
        if court.params.rule == "threshold" and not jury.proceeds_to_judge:
            return await self._jury_decides(court, prosecution, defense, jury, (
                (f"Only {jury.guilty_count} of {jury.voted} jurors voted to act" if jury.guilty_count else
                 f"None of the {jury.voted} jurors voted to act")
                + f"; {jury.threshold} are needed to bring the motion to the judge, so it fails without a ruling."
            ))
        try:
            court.check_budget("judge", [(agent, prompt)])
        except BudgetExceeded as exc:
            court.warn("judge", "budget_stop", f"{exc}; the jury's majority decides instead", stage="judge")
            return await self._jury_decides(court, prosecution, defense, jury, (
                f"The judge was not called (budget stop); the jury's {jury.split()} majority decides."
            ))

        text = text_class(court.latin)  # any character of a JSON string but a quote or an escape
        on_jury = " The jury was split " if split else " The jury "
        # The reasoning's parts under a grammar: each head, then between low and high characters.
        parts = [("The prosecution ", 10, JUDGE_PART), (". The defense ", 10, JUDGE_PART), ("." + on_jury, 5, 500)]
        grammar = agent.constrained

        def prose(low: int, high: int) -> dict[str, Any]:
            return {"pattern": text_pattern(low, high, latin=court.latin)} if grammar else {"maxLength": high}

        # The jury's majority decides either way; the judge writes its ruling. Only a jury short
        # of the threshold either way (or rule = threshold) leaves the decision to the judge.
        choices = [{"guilty": "act", "not_guilty": "do not act"}[majority]] if majority else \
            ["act", "do not act", "dismiss"]
        schema = refine_schema(JudgeReply, {
            "decision": {"enum": choices},
            # Under a grammar, the reasoning names both sides and the jury, in that order.
            # Bounds well above what the prompt asks for, so a sentence ends where the model ends it.
            "reasoning": {"pattern": "^" + "".join(f"{head.replace('.', '[.]')}{text}{{{low},{high}}}"
                                                   for head, low, high in parts) + "$"}
            if grammar else {"maxLength": 2400},
            # Not asked for: the plain answer is built from the decision and the motion. Left in the
            # schema, the grammar made the model write it anyway, unbounded (a 0.5B judge ran out
            # of tokens there twice in CI and the trial failed).
            "answer": None,
            "rationale": prose(10, 600),
            "actions": {"minItems": 1, "maxItems": 3, "items": {"type": "string", **prose(8, 250)}},
        })
        verified = self.jury_exhibits(court, prosecution, defense)  # the facts a ruling can restate
        async with court.stage("judge", "Judge") as stage:
            answer = await court.ask(
                agent, prompt, JudgeReply, schema=schema, check=lambda reply: judge_problems(reply, jury, ruling_problems(
                    reply, court.case.question, verified) if court.params.ruling_facts else None),
                inputs={"motion": prosecution.motion, "alternative": defense.alternative, "unanimous": not split,
                        "verified": bool(prosecution.admitted()),
                        "facts": [e.source_quote for e in verified if e.verified][:2],
                        "tally": {"guilty": jury.guilty_count, "not_guilty": jury.not_guilty_count,
                                  "abstain": jury.abstain_count}},
            )
            court.settle(agent, answer)
            reply = answer.value
            decision = majority or DECISION_WORDS[reply.decision]
            if majority and DECISION_WORDS[reply.decision] != majority:
                court.warn("judge", "judge_dissent", f"the judge would have ruled {present.DECISION_LABEL[DECISION_WORDS[reply.decision]]}; "
                           f"the jury's {jury.split()} majority decides")
            score, basis = evidence_confidence(decision, jury, prosecution, defense)
            # The plain answer is built from the decision and the motion, never written by the
            # model, so it cannot contradict the decision or drift from the question.
            verdict = Verdict(
                decision=decision, reasoning=court.prose(agent.name, "reasoning", finished_parts(
                    reply.reasoning, [head for head, _, _ in parts], JUDGE_PART) if grammar
                    else reply.reasoning),
                rationale=court.prose(agent.name, "rationale", reply.rationale),
                actions=[finished_item(a) for a in reply.actions if a.strip()], confidence=reply.confidence,
                answer=self.motion(court, prosecution).answer(POLARITY[decision]), evidence_confidence=score, evidence_basis=basis,
                decided_by="jury" if majority else "judge",
            )
            data = verdict.model_dump(mode="json")
            court.finish(agent, verdict, key="judge", title=f"Judge · {present.VOTE_LABEL.get(decision, 'dismiss')}",
                         markdown=f"**Ruling:** {present.DECISION_LABEL[decision]} · judge's own estimate "
                                  f"{reply.confidence:.0%}\n\n{verdict.reasoning}",
                         line=f"judge: {verdict.answer}", repaired=answer.repaired)
            stage.state = present.DECISION_LABEL[decision]
            stage.summary = data
            self._conclude(court, verdict, jury, prosecution, defense, judge_spoke=True)
        return verdict

    def _jury_reasons(self, jury: Jury) -> str:
        lines = []
        for j in jury.jurors:
            if j.status == "voted":
                first = sentences.split(j.reasoning.strip(), sentences.FULL_STOPS)[0]
                label = present.VOTE_LABEL[j.vote]
                lines.append(f"- Juror {j.number} ({label}): {present.shorten(first, 90)}")
        return "\n".join(lines)

    async def _jury_decides(self, court: Court, prosecution: Prosecution, defense: Defense, jury: Jury,
                            reason: str) -> Verdict:
        """The verdict when the judge does not rule: the jury's vote decides, with no judge's figure."""
        async with court.stage("judge", "Judge") as stage:
            if jury.proceeds_to_judge or court.params.rule == "majority":
                decision = "guilty" if jury.guilty_count > jury.not_guilty_count else "not_guilty"
            else:
                decision = "not_guilty"
            score, basis = evidence_confidence(decision, jury, prosecution, defense)
            share, _ = vote_share(decision, jury)
            # The jury voted on the motion, so the answer is the motion or its refusal; the defense's
            # alternative (often a restatement from a small model) stays in the defense's record.
            verdict = Verdict(
                decision=decision, reasoning=reason, rationale=reason.split(";")[0].rstrip(".") + ".",
                actions=[prosecution.motion] if decision == "guilty" and prosecution.motion else [], confidence=share,
                answer=self.motion(court, prosecution).answer(POLARITY[decision]),
                evidence_confidence=score, evidence_basis=basis, decided_by="jury",
            )
            stage.state = "no ruling: the jury decides"
            stage.markdown = f"**No ruling; the jury decides:** {verdict.answer}\n\n{reason}"
            stage.summary = verdict.model_dump(mode="json")
            self._conclude(court, verdict, jury, prosecution, defense)
        return verdict

    def _conclude(self, court: Court, verdict: Verdict, jury: Jury, prosecution: Prosecution, defense: Defense,
                  judge_spoke: bool = False) -> None:
        court.keep("verdict", verdict)
        data = verdict.model_dump(mode="json")
        gaps = unanswered(verdict.decision, court.case.question, prosecution, defense, verdict, judge_spoke=judge_spoke)
        effects = present.challenge_effects([e.model_dump(mode="json") for e in prosecution.exhibits],
                                            defense.model_dump(mode="json"))
        court.conclude(Outcome(
            answer=verdict.answer, label=verdict.decision, polarity=POLARITY[verdict.decision],  # type: ignore[arg-type]
            decided_by=present.decided_by(verdict.decided_by == "jury", judge_spoke),
            confidences=confidences(verdict, jury, judge_spoke, unanswered=[g["number"] for g in gaps]),
            partial=jury.voted < jury.seated,
            markdown=present.verdict_body(data, jury.split(), jury.voted, jury.seated, effects, judge_spoke,
                                          self.decision_words(court, prosecution, verdict.decision)),
            data={"split": jury.split(), "votes": {"act": jury.guilty_count, "do not act": jury.not_guilty_count,
                                                    "abstain": jury.abstain_count}, "decision": verdict.decision,
                  "exhibits_verified": verdict.evidence_basis.get("verified", 0),
                  **({"unanswered": [{**g, "sentence": unanswered_sentence(g)} for g in gaps]} if gaps else {}),
                  **({} if evidence_scores(verdict.evidence_basis)
                     else {"evidence_unscored": evidence_basis_text(verdict.evidence_basis)}),
                  **deliberation.order_data(court, {f"juror-{j.number}": present.VOTE_LABEL[j.vote]
                                                    for j in jury.jurors if j.vote}, court.params.vote_labels(), "jurors"),
                  **self.both_ways(court, jury)},
        ))

    def decision_words(self, court: Court, prosecution: Prosecution, decision: str) -> str:
        """A choice's decision in its option's words ("choose Design B"): "act" / "do not act" is the
        vote's vocabulary, which says nothing about which option was chosen. Other questions keep it."""
        if decision not in POLARITY or not swapped(court.case.question):
            return ""
        return self.motion(court, prosecution).phrase(POLARITY[decision])

    @staticmethod
    def both_ways(court: Court, jury: Jury) -> dict[str, Any]:
        """With the question put to the jurors both ways round (``balance_options``: a choice's
        options; ``balance_answers``: the question and its mirror): what each group answered, as
        it was asked, and the answer both groups' majorities gave (``lean``), when they gave the
        same one: jurors who answer "yes" to "A rather than B" and to "B rather than A" answer the
        wording, not the evidence. Nothing when the question was not put both ways."""
        if "jurors" not in (court.record.outputs.get("direct") or {}):
            return {}
        said = {"guilty": "yes", "not_guilty": "no"}
        groups: dict[str, dict[str, int]] = {"as_asked": {"yes": 0, "no": 0}, "other_way": {"yes": 0, "no": 0}}
        for j in jury.jurors:
            answer = j.answered if j.asked else said.get(j.vote or "", "")
            if answer in ("yes", "no"):
                groups["other_way" if j.asked else "as_asked"][answer] += 1
        leans = [max(g, key=g.get) if g["yes"] != g["no"] else "" for g in groups.values()]
        return {"both_ways": {**groups, "lean": leans[0] if leans[0] and leans[0] == leans[1] else ""}}

    # ---------------------------------------------------------------- fragility

    async def fragility(self, court: Court) -> dict[str, Any] | None:
        """Decide again without the exhibit the majority cited most, and say whether the verdict held."""
        record = court.record
        prosecution, defense, jury, verdict = record.prosecution, record.defense, record.jury, record.verdict
        if not (prosecution and defense and jury and verdict):
            return None
        admitted = self.admitted(court, prosecution)
        if not admitted:
            return {"held": None, "removed": "", "summary": "not run: no exhibit was admitted, so none can be removed"}
        target = most_cited(jury, verdict.decision, [e.number for e in admitted],
                            {e.number: e.source_quote for e in admitted})
        reduced = prosecution.model_copy(update={"exhibits": [e for e in prosecution.exhibits if e.number != target]})
        answered = defense.model_copy(update={"exhibit_challenges": [c for c in defense.exhibit_challenges
                                                                     if c.exhibit != target]})
        shadow = court.shadow("fragility")
        quote = next(e.source_quote for e in admitted if e.number == target)
        if court.params.jury_reads == "evidence":
            # Jurors who read the evidence itself would still read the exhibit there: the
            # second court reads the evidence with that passage withheld.
            if not shadow.withhold(quote, f"[passage withheld: exhibit {target}]"):
                court.warn("fragility", "fragility_passage", f"exhibit {target}'s passage was not found in the "
                           "evidence as the jurors read it, so the second jury still read it", stage="judge")
            elif not shadow.evidence_left():
                return {"held": None, "removed": "", "summary": f'not run: exhibit {target} ("{shorten(quote, 80)}") '
                        "is the whole evidence, so withholding it would leave nothing of it to decide on"}
        jury2 = await self.deliberate(shadow, reduced, answered)
        verdict2 = await self.rule(shadow, reduced, answered, jury2)
        court.absorb(shadow)
        held = verdict2.decision == verdict.decision
        way = "the same way" if held else "the other way"
        # the quote is shown, as the other procedures show their passage: a verdict resting on a
        # rival option's name or a question reads differently from one resting on a fact
        summary = (f'without exhibit {target} ("{shorten(quote, 80)}"), the jury votes {jury2.split()} and the answer '
                   + ("holds" if held else f"turns: {verdict2.answer}"))
        if not held:
            summary = f"the verdict rests on exhibit {target}: {summary}"
        return {"held": held, "removed": f"exhibit {target}", "split": jury2.split(), "answer": verdict2.answer,
                "way": way, "summary": summary}

    # ---------------------------------------------------------------- dry run

    async def plan(self, court: Court) -> None:
        """Every role's exact prompt, with placeholders where earlier stages would write."""
        motion = parse(court.case.question) or PLACEHOLDER
        p = court.params
        prosecution = self.prosecution_text(None)
        plans: list[tuple[str, Agent, str]] = [
            ("prosecution", self._agent(court, "prosecutor"), self.prosecutor_prompt(court)),
            ("defense", self._agent(court, "defense"), self.defense_prompt(court, prosecution, motion)),
        ]
        record = self.trial_record(prosecution, None)
        for n in range(1, p.jury_size + 1):
            a = self._agent(court, "juror", n)
            if p.shuffle_evidence:
                self.evidence_order(court, a)
            if direct := self.direct(court, n):
                court.ask_instead(a.name, direct.question)
            plans.append(("jury", a, self.juror_prompt(court, n, a.persona, motion, self.jury_record(court, None, motion))))
        plans.append(("judge", self._agent(court, "judge"), self.judge_prompt(
            court, record, "\n[any exhibits excluded as unverified]\n", "[the jury's tally]",
            "[one line of reasoning per juror]", p.jury_size > 1, "guilty")))
        wires = {"prosecutor": ProsecutorReply, "defense": DefenseReply, "juror": JurorReply, "judge": JudgeReply}
        for stage, agent, prompt in plans:
            court.plan_prompt(stage, agent, prompt, wires[agent.role])


__all__ = ["LABEL_MEANINGS", "PERSONAS", "PLACEHOLDER", "VOTE_LABELS", "DecisionCourt", "JurorReply", "Parameters",
           "ProsecutorReply", "exhibits_text", "filed_text", "juror_votes", "most_cited", "motion_of", "present",
           "vote_phrases"]
