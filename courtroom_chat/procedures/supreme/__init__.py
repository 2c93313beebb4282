"""The supreme court: justices on an ideology spectrum in rounds, a jury, and a why trace.

    opinions (round 1, in parallel) ─> conference (round 2…, anonymised digest) ─> jury
        ─> why trace (facts quoted and verified, then reasoning) ─> the verdict document

A case is a trial transcript: a JSON transcript (rendered once into the text everyone
quotes, see ``transcript``) or plain text with its type given (``--type criminal``). The
type sets the verdicts and the burden of proof written into every prompt. Wire formats are
in ``wire``, rules in ``rules``, the reading in ``present``, demo replies in ``demo``, the
prompts in ``courtroom_chat/prompts/supreme/``.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import replace
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ...backends.base import ModelRequest
from ...case import Case
from ...court import Agent, Court
from ...errors import BackendError, CaseError, RoleOutputError
from ...evidence import EvidenceIndex, quote_choices
from ...motion import asks_against, ruled
from ...records import Confidence, Outcome, RunRecord
from .. import deliberation
from ..base import Procedure, Role, listed, refine_schema
from ..decision.rules import quote_problems
from . import present, transcript
from .demo import demo_reply
from .records import Fact
from .rules import (
    FINDINGS,
    STANDARDS,
    Standard,
    conformity,
    facts_problems,
    findings_verdict,
    juror_problems,
    jury_needed,
    jury_verdict,
    majority,
    opinion_problems,
    reasoning_problems,
    verdict_problem,
)
from .wire import (
    ConferenceReply,
    FactsReply,
    FindingsConferenceReply,
    FindingsOpinionReply,
    JurorReply,
    OpinionReply,
    ReasoningReply,
    RereadReply,
)

FAILED = (BackendError, RoleOutputError)


class Parameters(BaseModel):
    """[procedures.supreme] in config.toml."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    justices: int = Field(9, ge=1, le=15, description="Justices on the bench (an odd number)")
    spectrum: str = Field("strict constructionist, moderate pragmatist, broad interpreter",
                          description="Judicial philosophies from one end of the spectrum to the other, comma-separated; "
                                      "the seats are spread over them in order")
    rounds: int = Field(2, ge=1, le=4, description="Rounds of opinions: the first independent, then conference rounds")
    stop_when_stable: bool = Field(False, description="End the conference once no justice changes position (or the "
                                                      "first round is unanimous), and report the tokens saved")
    show_tally: bool = Field(True, description="Show the conference the tally and confidences (off: only the "
                                               "peers' positions, anonymised)")
    peer_order: Literal["own", "shared"] = Field("own", description="The conference's opinions: the others in each "
                                                                    "justice's own seeded order (own), or all of them, "
                                                                    "the justice's own among them, in one seeded order "
                                                                    "every justice reads (shared: a local model reads "
                                                                    "them once, not once per justice)")
    shuffle_labels: bool = Field(True, description="Each justice, juror and the clerk see the two verdicts in their "
                                                   "own seeded order, in the prompt and the schema (off: the case "
                                                   "type's order, guilty / liable first; on the 1.5B that court said "
                                                   "Yes to every clear case, 9-0)")
    both_orders: bool = Field(False, description="Ask each justice and juror twice, the two verdicts listed in each "
                                                 "order (the second call shares the first's transcript and costs "
                                                 "mostly its reply); a vote counts only if it holds in both, and a "
                                                 "member whose verdict follows the order was not persuaded, so it "
                                                 "votes for the party without the burden (not guilty / not liable)")
    verdict_from: Literal["opinion", "analysis"] = Field(
        "opinion", description="A justice's vote: the verdict its opinion writes (opinion), or the one its analysis "
                               "supports, read back from the analysis alone by a second short call (analysis; both are "
                               "recorded, and where they differ the opinion says so)")
    opinion_form: Literal["analysis", "findings"] = Field(
        "analysis", description="What a justice writes before its verdict: a free evidence analysis, or a finding "
                                "(proved / not proved) on each element the party with the burden must prove, the "
                                "verdict bound to them (a verdict against its own findings is sent back once, then "
                                "read from the findings)")
    jurors: int = Field(12, ge=1, le=25, description="Jurors seated")
    criminal_rule: Literal["unanimous", "majority"] = Field("unanimous", description="Criminal jury: unanimity (else "
                                                                                     "hung) or a simple majority")
    civil_majority: float = Field(0.75, ge=0.5, le=1.0, description="Civil jury: the share of jurors a verdict needs")
    default_type: Literal["civil", "criminal"] = Field("civil", description="Case type when neither the transcript, "
                                                                            "--type nor the question says")
    max_facts: int = Field(10, ge=1, le=30, description="Facts the why trace may list")
    min_words: int = Field(12, ge=0, le=200, description="Words in each analysis and juror's reasoning")
    justice_temperature: float = Field(0.3, ge=0.0, le=2.0, description="Justice temperature")
    juror_temperature: float = Field(0.7, ge=0.0, le=2.0, description="Juror temperature")
    clerk_temperature: float = Field(0.2, ge=0.0, le=2.0, description="Law clerk temperature")

    @model_validator(mode="after")
    def _consistent(self) -> Parameters:
        if self.justices % 2 == 0:
            raise ValueError(f"justices must be an odd number, so the bench cannot tie (got {self.justices})")
        if not self.philosophies():
            raise ValueError("spectrum names no philosophy; list them comma-separated")
        if self.both_orders and self.opinion_form == "findings":
            raise ValueError("both_orders reverses the verdicts, not the findings (\"proved\" / \"not proved\") a "
                             "findings-form vote follows; use one of both_orders and opinion_form = \"findings\"")
        return self

    def philosophies(self) -> list[str]:
        return listed(self.spectrum, ",;")

    def seat(self, n: int) -> tuple[str, float]:
        """Justice ``n``'s philosophy and place on the spectrum (0: one end, 1: the other)."""
        names = self.philosophies()
        return names[(n - 1) * len(names) // self.justices], (n - 1) / max(1, self.justices - 1)


class SupremeCourt(Procedure):
    name = "supreme"
    title = "Supreme court"
    tries = "a criminal or civil case from its trial transcript"
    description = ("Justices from a spectrum of judicial philosophies write opinions, then confer anonymously; "
                   "a jury decides the facts; a why trace quotes and verifies every fact.")
    stages = (("opinions", "Opinions"), ("conference", "Conference"), ("jury", "Jury"), ("why", "Why trace"))
    # Every opinion names the standard it applied. Counted as a prompt leak, the burden's own
    # words cost 24 repairs in a 56-call trial of the burglary case on the 1.5B (2026-11-26),
    # and the repaired replies said it again (18 justices' warnings).
    restatable = ("burden_criminal.md", "burden_civil.md", "spectrum.md")
    fixed_order = {"shuffle_labels": False}
    shuffled_order = {"shuffle_labels": True}
    roles = (
        Role("justice", "Justice", OpinionReply, numbered=True, max_tokens=700, expected_output_tokens=260,
             description="writes an opinion, then reconsiders it at the conference"),
        Role("juror", "Juror", JurorReply, numbered=True, max_tokens=450, expected_output_tokens=140,
             description="decides the facts under the burden of proof"),
        Role("clerk", "Law clerk", ReasoningReply, max_tokens=1200, expected_output_tokens=500,
             description="the why trace: quotes every fact, then reasons to a decision"),
    )
    Parameters = Parameters
    inputs = {"type": "criminal or civil (sets the verdicts and the burden of proof)"}
    prepared_inputs = ("title", "transcript_type")  # read from a JSON transcript by prepare

    # ---------------------------------------------------------------- the case

    def prepare(self, case: Case, params: Any = None) -> Case:
        return transcript.read(case)[0]

    def check_case(self, case: Case) -> None:
        if not case.context:
            raise CaseError("the supreme court decides a case from its trial transcript: attach one (uploaded, or -c FILE "
                            "on the command line), as JSON shaped like cases/burglary/transcript.json or as plain text "
                            "with its type (criminal or civil: --type, or the word in the question)")
        transcript.case_type(case, "civil")  # an unknown --type fails before the trial

    def standard(self, court: Court) -> Standard:
        kind, source = transcript.case_type(court.case, court.params.default_type)
        if source == "the default":
            court.warn("court", "case_type", f"no case type given: tried as a {kind} case ({STANDARDS[kind].burden}); "
                       "name it (--type criminal or civil, or the word in the question)")
        written = court.case.inputs.get("transcript_type")
        if written and written != kind:
            court.warn("court", "case_type", f"tried as a {kind} case as asked ({STANDARDS[kind].burden}), though the "
                       f"transcript says it is {written}; leave out --type to try it as written")
        return replace(STANDARDS[kind], against=asks_against(court.case.question, STANDARDS[kind].yes))

    def burden(self, standard: Standard) -> str:
        return self.render(f"burden_{standard.type}")

    def philosophy(self, name: str) -> str:
        outlooks = dict(line.split(":", 1) for line in self.render("spectrum").splitlines() if ":" in line)
        return f"{name}: {outlooks[name].strip()}" if name in outlooks else name

    def common(self, standard: Standard) -> dict[str, Any]:
        return {"yes": standard.yes, "no": standard.no, "burden_name": standard.burden,
                "party": standard.party.removeprefix("the "), "other": standard.other.removeprefix("the ")}

    # ---------------------------------------------------------------- the trial

    async def run(self, court: Court) -> None:
        standard = self.standard(court)
        rounds, flow = await self.bench(court, standard)
        jury = await self.deliberate(court, standard)
        trace = await self.why(court, standard)
        self.hand_down(court, standard, rounds, flow, jury, trace)

    def justice(self, court: Court, n: int, round_: int) -> Agent:
        return court.agent(f"justice-{n}", "justice", f"Justice {n}", "opinions" if round_ == 1 else "conference",
                           round=round_, temperature=court.params.justice_temperature)

    @staticmethod
    def order(court: Court, standard: Standard, agent: str, swapped: bool = False) -> list[str]:
        """The two verdicts in the order ``agent`` reads them (``shuffle_labels``: its own seeded
        order), or (``swapped``, the second asking of ``both_orders``) the other way round."""
        order = deliberation.label_order(court, standard.labels, agent)
        return order[::-1] if swapped else order

    @staticmethod
    def askings(court: Court) -> tuple[bool, ...]:
        """Whether each asking of a member lists the verdicts reversed: once as read, and
        (``both_orders``) again the other way."""
        return (False, True) if court.params.both_orders else (False,)

    def choices(self, court: Court, standard: Standard, agent: str, swapped: bool = False) -> dict[str, str]:
        first, second = self.order(court, standard, agent, swapped)
        return {"yes": standard.yes, "no": standard.no, "first": first, "second": second, "party": standard.party,
                "claim": "charge" if standard.type == "criminal" else "claim"}

    def weighing(self, court: Court, standard: Standard, agent: str, round_: int,
                 swapped: bool = False) -> dict[str, str]:
        """The opinion's fields between its key facts and its confidence: the evidence analysis and
        the verdict, or (``opinion_form = "findings"``) the findings and the verdict they bind."""
        choices = self.choices(court, standard, agent, swapped)
        if court.params.opinion_form == "findings":
            return {"weighing": self.render("findings", **choices).rstrip("\n"),
                    "verdict_line": self.render("findings_verdict", **choices).rstrip("\n")}
        return {"weighing": self.render("analysis", **choices, weaknesses=", including its weaknesses" if round_ == 1
                                        else "").rstrip("\n"),
                "verdict_line": self.render("verdict", **choices).rstrip("\n")}

    def wire(self, court: Court, round_: int) -> type[OpinionReply]:
        findings = court.params.opinion_form == "findings"
        if round_ == 1:
            return FindingsOpinionReply if findings else OpinionReply
        return FindingsConferenceReply if findings else ConferenceReply

    def opinion_prompt(self, court: Court, standard: Standard, n: int, swapped: bool = False) -> str:
        name, _ = court.params.seat(n)
        me = f"justice-{n}"
        return self.render("justice", burden=self.burden(standard), **self.choices(court, standard, me, swapped),
                           **self.weighing(court, standard, me, 1, swapped),
                           seat=n, size=court.params.justices, philosophy=self.philosophy(name))

    def conference_prompt(self, court: Court, standard: Standard, n: int, round_: int,
                          previous: dict[str, dict[str, Any]], swapped: bool = False) -> str:
        """Round ``round_``: the other opinions under letters in this justice's own seeded order, or
        (``peer_order = "shared"``) every opinion in one order, the same text for every justice."""
        me = f"justice-{n}"
        if court.params.peer_order == "shared":
            peers, mine = deliberation.shared_peers(court, me, previous, round_, "Justice")
        else:
            peers, mine = deliberation.peers(court, me, previous, round_, "Justice"), ""
        below = self.render(f"peers_{court.params.peer_order}", previous=round_ - 1)
        own = previous.get(me)
        name, _ = court.params.seat(n)
        digest = present.digest(peers, list(previous.values()), court.params.show_tally, standard.labels, round_ - 1,
                                court.params.philosophies())
        return self.render(
            "conference", burden=self.burden(standard), round=round_, previous=round_ - 1,
            **self.choices(court, standard, me, swapped), **self.weighing(court, standard, me, round_, swapped), digest=digest, opinions_below=below, mine=f" ({mine} above)" if mine else "",
            own=present.own_opinion(own) if own else "(none: your round-1 opinion failed)",
            before=own["verdict"] if own else "none",
            seat=n, size=court.params.justices, philosophy=self.philosophy(name))

    def opinion_schema(self, order: list[str], wire: type[BaseModel]) -> dict[str, Any]:
        refined: dict[str, Any] = {"verdict": {"enum": order}, "key_facts": {"minItems": 1, "maxItems": 6},
                                   "evidence_analysis": {"maxLength": 1200}, "confidence": {"minimum": 0, "maximum": 1}}
        if "elements" not in wire.model_fields:
            return refine_schema(wire, refined)
        schema = refine_schema(wire, {**refined, "elements": {"minItems": 1, "maxItems": 5},
                                      "Element.element": {"maxLength": 200}, "Element.evidence": {"maxLength": 200},
                                      "Element.finding": {"enum": list(FINDINGS)}})
        # The findings form is decoded as it is asked: key facts, the elements, then the verdict
        # they bind (a field declared on the subclass would otherwise come after the confidence).
        props = schema["properties"]
        ordered = ["key_facts", "elements", "verdict", "confidence", *(k for k in props if k in ("changed", "why"))]
        schema["properties"] = {k: props[k] for k in ordered}
        schema["required"] = ordered
        return schema

    async def bench(self, court: Court, standard: Standard) -> tuple[list[dict[str, dict[str, Any]]], dict[str, Any]]:
        """Round 1 and the conference rounds; what each round decided, and how the bench moved."""
        p = court.params
        rounds: list[dict[str, dict[str, Any]]] = []
        moves: list[dict[str, Any]] = []
        flow: dict[str, Any] = {"rounds": moves, "rounds_held": 0, "rounds_skipped": 0, "tokens_saved": 0}
        for round_ in range(1, p.rounds + 1):
            stage_name = "opinions" if round_ == 1 else "conference"
            wire = self.wire(court, round_)
            previous = rounds[-1] if rounds else {}
            plans = []
            for n in range(1, p.justices + 1):
                agent = self.justice(court, n, round_)
                prompt, *other = [self.opinion_prompt(court, standard, n, swapped) if round_ == 1
                                  else self.conference_prompt(court, standard, n, round_, previous, swapped)
                                  for swapped in self.askings(court)]
                plans.append((n, agent, (prompt, *other)))
            court.check_context([(a, pr) for _, a, prompts in plans for pr in prompts])
            before_calls = len(court.record.calls)
            current: dict[str, dict[str, Any]] = {}
            async with court.stage(stage_name, round=round_, planned=[(a, pr) for _, a, prompts in plans for pr in prompts]) as stage:
                prior = majority({k: v["verdict"] for k, v in previous.items()}, standard) if previous else ""
                await asyncio.gather(*(self.sit(court, standard, n, agent, prompts, wire, round_, previous, prior,
                                                current) for n, agent, prompts in plans))
                if not current:
                    raise RoleOutputError(f"no justice could give an opinion in round {round_}", agent="justice-1")
                votes = {k: v["verdict"] for k, v in current.items()}
                stage.state = present.tally_text(list(current.values()), standard.labels)
                if previous:
                    moved = conformity({k: v["verdict"] for k, v in previous.items()}, votes, standard)
                    moves.append({"round": round_, **moved})
                    stage.markdown = (f"**Changed:** {moved['changed']} ({moved['toward']} toward the earlier majority, "
                                      f"{moved['away']} away)")
            rounds.append(deliberation.seated({**previous, **current}))  # a justice who failed this round keeps its last opinion
            flow["rounds_held"] = round_
            tokens = deliberation.tokens_since(court, before_calls)
            left = p.rounds - round_
            why = deliberation.stop_reason(round_, left, votes, moves) if p.stop_when_stable else ""
            if why:
                flow["rounds_skipped"], flow["tokens_saved"] = left, tokens * left
                court.warn("court", "stopped_early", (
                    f"the conference ended after round {round_}: {'the bench was unanimous' if why == 'unanimous' else 'no justice changed position'}; "
                    f"{left} round{'s' if left != 1 else ''} not held, about {tokens * left:,} tokens saved"))
                break
        return rounds, flow

    async def sit(self, court: Court, standard: Standard, n: int, agent: Agent, prompts: tuple[str, ...],
                  wire: type[OpinionReply], round_: int, previous: dict[str, dict[str, Any]], prior: str,
                  current: dict[str, dict[str, Any]]) -> None:
        """Justice ``n``'s opinion of this round: asked once, or (``both_orders``) again with the
        verdicts listed the other way (``prompts[1]``), its vote what holds in both."""
        p = court.params
        name, position = p.seat(n)
        own = previous.get(agent.name)
        inputs = {**self.common(standard), "seat": n, "size": p.justices, "round": round_, "position": position,
                  "philosophy": name, **({"before": own["verdict"], "majority": prior} if own else {})}
        data, repaired = await self.opine(court, standard, n, agent, prompts[0], wire, inputs)
        if data is None:
            return
        if len(prompts) > 1:
            again, _ = await self.opine(court, standard, n, agent, prompts[1], wire, inputs, swapped=True)
            data |= self.both(court, standard, agent, data, again)
        if own and "changed" in data and data["changed"] != (data["verdict"] != own["verdict"]):
            data["changed"] = data["verdict"] != own["verdict"]  # what it did, not what it said
        data |= {"standard": f"{standard.burden}, the burden on {standard.party}", "philosophy": name,
                 "position": round(position, 3)}
        current[agent.name] = data
        court.finish(agent, data, markdown=present.opinion_markdown(data), repaired=repaired,
                     title=f"Justice {n} · {data['verdict']}", key=f"{agent.name}@{round_}",
                     line=f"justice {n} ({name}): {data['verdict']}, {data['confidence']:.2f}"
                          + (" · changed" if data.get("changed") else ""))
        court.tally(standard.labels, dict(Counter(v["verdict"] for v in current.values())), seated=p.justices,
                    pending=p.justices - len(current), title=f"Bench, round {round_}", round=round_)

    async def opine(self, court: Court, standard: Standard, n: int, agent: Agent, prompt: str,
                    wire: type[OpinionReply], inputs: dict[str, Any], swapped: bool = False
                    ) -> tuple[dict[str, Any] | None, bool]:
        """One asking of a justice: its opinion as the court reads it (findings bound, the vote
        read back from the analysis if so set), and whether it was repaired; None if it failed.
        The second asking of ``both_orders`` is not announced: the opinion shown is the first."""
        p = court.params
        try:
            answer = await court.ask(agent, prompt, wire, inputs={**inputs, **({"swapped": True} if swapped else {})},
                                     schema=self.opinion_schema(self.order(court, standard, agent.name, swapped), wire),
                                     check=lambda r: opinion_problems(r, standard, p.min_words), announce=not swapped)
        except FAILED:
            return None, False
        court.settle(agent, answer)
        data = answer.value.model_dump(mode="json")
        if "elements" in data:
            data |= self.found(court, standard, agent, data)
        if p.verdict_from == "analysis":
            data |= await self.reread(court, standard, agent, n, data, swapped)
        return data, answer.repaired

    @staticmethod
    def both(court: Court, standard: Standard, agent: Agent, first: dict[str, Any],
             again: dict[str, Any] | None) -> dict[str, Any]:
        """A member's vote from its two askings (``both_orders``): the verdict if it held with the
        verdicts listed either way; else the party without the burden's, since a verdict that
        follows the order it was offered in is no finding that the burden was met."""
        if again is None:
            court.warn(agent.name, "both_orders", f"{agent.title} could not be asked with the verdicts in the other "
                                                  f"order; its vote is its one verdict ({first['verdict']})")
            return {}
        vote, held = deliberation.held_both(first["verdict"], again["verdict"], standard.no)
        out: dict[str, Any] = {"verdict": vote, "orders": {"held": held, "first": first["verdict"],
                                                            "other": again["verdict"]}}
        if "confidence" in first:  # a justice's: the mean of the two if it held, else even
            out["orders"]["confidence"] = first["confidence"]  # as it wrote it, for its own reading at the conference
            out["confidence"] = round((first["confidence"] + again["confidence"]) / 2, 3) if held else 0.5
        return out

    @staticmethod
    def found(court: Court, standard: Standard, agent: Agent, opinion: dict[str, Any]) -> dict[str, Any]:
        """A findings-form opinion as the rest of the court reads it: an analysis written from its
        findings, and the verdict they bind. A verdict still against them after its one repair is
        kept as written and the vote follows the findings, with a warning."""
        elements = opinion["elements"]
        analysis = " ".join(f"{e['element'].rstrip('.')}: {e['finding']}" + (f" ({e['evidence']})" if e["evidence"] else "")
                            + "." for e in elements)
        bound = findings_verdict(elements, standard)
        out: dict[str, Any] = {"evidence_analysis": analysis}
        if bound and bound != opinion["verdict"]:
            court.warn(agent.name, "findings_verdict", f"{agent.title} wrote {opinion['verdict']} against its own "
                       f"findings; its vote follows them ({bound})")
            out |= {"verdict": bound, "written_verdict": opinion["verdict"]}
        return out

    def reread_prompt(self, court: Court, standard: Standard, agent: str, analysis: str, swapped: bool = False) -> str:
        first, second = self.order(court, standard, agent, swapped)
        return self.render("reread", question=court.case.question, burden=self.burden(standard), analysis=analysis,
                           first=first, second=second)

    @staticmethod
    def reader(court: Court, justice: Agent) -> Agent:
        """The justice's seat reading its own analysis: the same model, greedy, a short reply."""
        return court.agent(justice.name, "justice", justice.title, justice.stage, temperature=0.0, max_tokens=250,
                           expected_output_tokens=60, round=justice.round)

    async def reread(self, court: Court, standard: Standard, agent: Agent, n: int, opinion: dict[str, Any],
                     swapped: bool = False) -> dict[str, Any]:
        """The verdict ``opinion``'s analysis supports, read from the analysis alone (no transcript,
        no philosophy) in the justice's own order of the verdicts: the vote, with the written
        verdict kept beside it. If the reading fails, the written verdict stands, with a warning."""
        order = self.order(court, standard, agent.name, swapped)
        prompt = self.reread_prompt(court, standard, agent.name, opinion["evidence_analysis"], swapped)
        reader = self.reader(court, agent)
        try:
            read = await court.ask(reader, prompt, RereadReply, announce=False, system=self.render("reread_system"),
                                   prefix="", inputs={**self.common(standard), "seat": n, "reread": True,
                                                      "written": opinion["verdict"], **({"swapped": True} if swapped else {})},
                                   schema=refine_schema(RereadReply, {"verdict": {"enum": order},
                                                                      "finding": {"maxLength": 400}}),
                                   check=lambda r: verdict_problem(r.verdict, standard))
            problem = "; ".join(p.message for p in verdict_problem(read.value.verdict, standard))
        except FAILED as exc:
            problem = str(exc)
        if problem:
            court.warn(agent.name, "reread", f"the verdict could not be read from the analysis ({problem}); "
                                             f"the written verdict ({opinion['verdict']}) stands")
            return {}
        return {"verdict": read.value.verdict, "written_verdict": opinion["verdict"], "reading": read.value.finding}

    # ---------------------------------------------------------------- the jury

    def juror_prompt(self, court: Court, standard: Standard, n: int, size: int, swapped: bool = False) -> str:
        return self.render("juror", burden=self.burden(standard), **self.choices(court, standard, f"juror-{n}", swapped),
                           number=n, size=size)

    async def deliberate(self, court: Court, standard: Standard) -> dict[str, Any]:
        p = court.params
        agents = [court.agent(f"juror-{n}", "juror", f"Juror {n}", "jury", temperature=p.juror_temperature)
                  for n in range(1, p.jurors + 1)]
        prompts = {a.name: self.juror_prompt(court, standard, n, p.jurors) for n, a in enumerate(agents, 1)}
        reverse = {a.name: self.juror_prompt(court, standard, n, p.jurors, True) for n, a in enumerate(agents, 1)} \
            if p.both_orders else {}
        if reverse:
            court.check_context([(a, reverse[a.name]) for a in agents])
        votes: dict[str, str] = {}
        held: dict[str, bool] = {}  # both_orders: whether each juror's verdict held with the order reversed

        def schema(agent: Agent, swapped: bool = False) -> dict[str, Any]:
            return refine_schema(JurorReply, {"verdict": {"enum": self.order(court, standard, agent.name, swapped)},
                                              "facts_for": {"maxItems": 4}, "facts_against": {"maxItems": 4},
                                              "reasoning": {"maxLength": 900}})

        needed = jury_needed(p.jurors, standard, p.criminal_rule, p.civil_majority)
        rule = ("unanimity required" if needed == p.jurors and p.jurors > 1 else f"{needed} of {p.jurors} needed")

        async def ask(n: int, agent: Agent, swapped: bool = False) -> Any:
            prompt = reverse[agent.name] if swapped else prompts[agent.name]
            try:
                answer = await court.ask(agent, prompt, JurorReply, schema=schema(agent, swapped), announce=not swapped,
                                         inputs={**self.common(standard), "number": n, "size": p.jurors,
                                                 **({"swapped": True} if swapped else {})},
                                         check=lambda r: juror_problems(r, standard, p.min_words))
            except FAILED:
                return None
            court.settle(agent, answer)
            return answer

        async def sit(n: int, agent: Agent) -> None:
            answer = await ask(n, agent)
            if answer is None:
                return
            data = answer.value.model_dump()
            if p.both_orders:
                again = await ask(n, agent, swapped=True)
                data |= self.both(court, standard, agent, data, again and again.value.model_dump())
                if "orders" in data:
                    held[agent.name] = data["orders"]["held"]
            votes[agent.name] = data["verdict"]
            court.finish(agent, data, markdown=present.juror_markdown(data),
                         title=f"Juror {n} · {data['verdict']}", repaired=answer.repaired,
                         line=f"juror {n}: {data['verdict']}")
            court.tally(standard.labels, dict(Counter(votes.values())), seated=p.jurors,
                        pending=p.jurors - len(votes), title="Jury")

        async with court.stage("jury", planned=[(a, prompts[a.name]) for a in agents]
                               + [(a, reverse[a.name]) for a in agents if a.name in reverse]) as stage:
            await asyncio.gather(*(sit(n, a) for n, a in enumerate(agents, 1)))
            verdict = jury_verdict(list(votes.values()), p.jurors, needed, standard)
            counts = Counter(votes.values())
            split = "–".join(str(counts[label]) for label in standard.labels)
            jury = {"verdict": verdict, "split": f"{split} ({' / '.join(standard.labels)})", "rule": rule,
                    "needed": needed, "seated": p.jurors, "voted": len(votes),
                    "votes": {label: counts[label] for label in standard.labels}}
            if held:
                jury["both_orders"] = {"asked": len(held), "held": sum(held.values())}
            court.keep("jury", jury)
            stage.state = f"{verdict} ({split})"
            stage.markdown = f"**Jury:** {verdict} · {split} · {rule}"
        return jury

    # ---------------------------------------------------------------- the why trace

    def facts_prompt(self, court: Court, standard: Standard) -> str:
        c = self.common(standard)
        return self.render("facts", burden=self.burden(standard), limit=court.params.max_facts,
                           claim="charge" if standard.type == "criminal" else "claim", party=c["party"],
                           other=c["other"], burden_name=standard.burden)

    def reasoning_prompt(self, court: Court, standard: Standard, facts: list[Fact]) -> str:
        listed = "\n".join(f"{f.number}. \"{f.source_quote}\" ({f.kind}; bears on {f.bears_on}; favours {f.favours})"
                           for f in facts if f.verified) or "(none: no quote was verified in the transcript)"
        return self.render("reasoning", burden=self.burden(standard), facts=listed,
                           **self.choices(court, standard, "clerk-reasoning"), burden_name=standard.burden)

    async def why(self, court: Court, standard: Standard) -> dict[str, Any]:
        """Two calls: every fact quoted (each quote verified), then the reasoning from the verified facts."""
        p = court.params
        agent = court.agent("clerk-facts", "clerk", "Law clerk · facts", "why", temperature=p.clerk_temperature)
        index = EvidenceIndex(court.case.context)
        c = self.common(standard)
        choices = [q for q in quote_choices(court.readable) if "[flagged passage removed" not in q] \
            if agent.constrained else []
        schema = refine_schema(FactsReply, {
            "facts": {"minItems": 1, "maxItems": p.max_facts}, "FactReply.source_quote": {"enum": choices},
            "FactReply.kind": {"enum": ["testimony", "physical evidence", "ruling", "argument"]},
            "FactReply.favours": {"enum": [c["party"], c["other"], "neither"]}, "FactReply.bears_on": {"maxLength": 120},
        })
        prompt = self.facts_prompt(court, standard)

        def check(reply: FactsReply) -> list[Any]:
            quoted = quote_problems([f.source_quote for f in reply.facts], index, first=1, flagged=court.flagged,
                                    noun="fact")
            return facts_problems(reply, quoted)

        trace: dict[str, Any] = {}
        async with court.stage("why", "Why trace", [(agent, prompt)]) as stage:
            try:
                answer = await court.ask(agent, prompt, FactsReply, schema=schema, check=check,
                                         inputs={**c, "limit": p.max_facts},
                                         keep_hint="Keep the facts whose quotes were found exactly as they were; "
                                                   "copy the others exactly.")
            except FAILED as exc:  # the verdict stands on the justices and the jury; the trace is missing
                stage.state = "facts failed"
                court.warn("clerk-facts", "why_trace", f"no why trace: the clerk's facts could not be used ({exc})")
                court.keep("why", trace)
                return trace
            court.settle(agent, answer, skip={"exhibit_quote"})
            facts = self.file_facts(court, index, answer.value)
            trace["facts"] = [f.model_dump(mode="json") for f in facts]
            court.finish(agent, answer.value, markdown=present.trace_markdown(trace), key="clerk@facts",
                         title="Law clerk · facts", line=f"clerk: {sum(f.verified for f in facts)} of {len(facts)} "
                                                          "facts verified")
            verified = [f for f in facts if f.verified]
            favour = Counter(f.favours for f in verified)
            step2 = court.agent("clerk-reasoning", "clerk", "Law clerk · reasoning", "why",
                                temperature=p.clerk_temperature)
            prompt2 = self.reasoning_prompt(court, standard, facts)
            try:
                reasoned = await court.ask(step2, prompt2, ReasoningReply, check=lambda r: reasoning_problems(r, standard),
                                           schema=refine_schema(ReasoningReply, {"verdict": {"enum": self.order(court, standard, step2.name)},
                                                                                 "contradictions": {"maxItems": 6}}),
                                           inputs={**c, "facts": len(verified), "for_party": favour[c["party"]],
                                                   "for_other": favour[c["other"]]})
            except FAILED as exc:
                stage.state = "reasoning failed"
                court.warn("clerk-reasoning", "why_trace", f"the why trace stops at the facts: the clerk's reasoning "
                           f"could not be used ({exc})")
                court.keep("why", trace)
                return trace
            court.settle(step2, reasoned)
            trace |= reasoned.value.model_dump(mode="json")
            court.finish(step2, reasoned.value, markdown=present.trace_markdown(trace), key="clerk@reasoning",
                         title=f"Law clerk · {reasoned.value.verdict}", repaired=reasoned.repaired,
                         line=f"clerk: {reasoned.value.verdict} ({len(verified)} verified facts)")
            stage.state = f"{len(verified)} of {len(facts)} facts verified · {reasoned.value.verdict}"
        court.keep("why", trace)
        return trace

    def file_facts(self, court: Court, index: EvidenceIndex, reply: FactsReply) -> list[Fact]:
        facts = []
        for n, item in enumerate(reply.facts, 1):
            found = index.check(item.source_quote, min_chars=8)
            flagged = found.verified and found.location and court.flagged(
                found.location.document, found.location.char_start, found.location.char_end)
            fact = Fact(number=n, source_quote=item.source_quote, kind=item.kind, bears_on=item.bears_on,
                        favours=item.favours, verified=found.verified and not flagged, location=found.location,
                        nearest=found.nearest)
            facts.append(fact)
            data = fact.model_dump(mode="json")
            court.item("fact", f"Fact {n} · {'✅ verified' if fact.verified else '❌ unverified'}", fact.verified,
                       number=n, agent="clerk-facts", detail=present.fact_markdown(data), line=present.fact_line(data),
                       data=data)
        missed = [str(f.number) for f in facts if not f.verified]
        if missed:
            court.warn("clerk-facts", "fact_unverified", f"fact{'s' if len(missed) > 1 else ''} {', '.join(missed)} could not "
                       "be verified in the transcript and did not go into the reasoning")
        return facts

    # ---------------------------------------------------------------- the verdict

    def hand_down(self, court: Court, standard: Standard, rounds: list[dict[str, dict[str, Any]]],
                  flow: dict[str, Any], jury: dict[str, Any], trace: dict[str, Any]) -> None:
        final, first = rounds[-1], rounds[0]
        votes = {k: v["verdict"] for k, v in final.items()}
        decision = majority(votes, standard)
        counts = Counter(votes.values())
        split = f"{counts[decision]}–{len(votes) - counts[decision]}"
        seats = list(deliberation.seated(final))
        majority_seats = [k for k in seats if votes[k] == decision]
        # both_orders: an opinion whose verdict followed the order argues for whichever verdict it
        # was offered first, so it cannot speak for the court; with none that held, no one does
        held = [k for k in majority_seats if present.held(final[k])]
        author = max(held, key=lambda k: final[k]["confidence"]) if held else None
        title = lambda k: f"Justice {k.rpartition('-')[2]} ({final[k]['philosophy']})"  # noqa: E731
        changes = [{"justice": title(k), "before": first[k]["confidence"], "after": final[k]["confidence"]}
                   for k in seats if k in first and abs(final[k]["confidence"] - first[k]["confidence"]) >= 0.05]
        moved = flow["rounds"]
        conf = {"rounds": [{**r, "moves": [{**m, "justice": title(m["justice"])} for m in r["moves"]]} for r in moved],
                "changed": sum(r["changed"] for r in moved), "toward": sum(r["toward"] for r in moved),
                "away": sum(r["away"] for r in moved),
                "majority_held": majority({k: v["verdict"] for k, v in first.items()}, standard) == decision,
                "rounds_held": flow["rounds_held"], "rounds_skipped": flow["rounds_skipped"],
                "tokens_saved": flow["tokens_saved"]}
        document = {
            "type": standard.type, "burden": standard.burden, "decision": decision,
            "bench": {"split": f"{split} ({decision} / {standard.no if decision == standard.yes else standard.yes})",
                      "votes": {label: counts[label] for label in standard.labels}, "seated": court.params.justices},
            "opinion_of_the_court": {"author": title(author), "analysis": final[author]["evidence_analysis"],
                                     "standard": final[author]["standard"], "key_facts": final[author]["key_facts"]}
            if author else {"author": "", "analysis": (
                f"No opinion of the majority held its verdict with the verdicts listed either way: each wrote whichever "
                f"it was offered first, so each was counted for {decision}, the verdict when the burden is not met."),
                "standard": "", "key_facts": []},
            "dissents": [{"author": title(k), "verdict": votes[k], "analysis": final[k]["evidence_analysis"]
                          if present.held(final[k]) else present.orders_said(final[k]).strip(" ·")}
                         for k in seats if votes[k] != decision],
            "conformity": conf, "confidence_changes": changes, **self.readings(rounds, title),
            **self.swaps(rounds, title, standard),
            "jury": {**jury, "agrees": jury["verdict"] == decision}, "why": trace,
        }
        court.keep("verdict", document)
        agreeing = jury["votes"].get(decision, 0)
        own = [final[k]["confidence"] for k in (held or majority_seats)]
        failed = len(final) < court.params.justices or jury["voted"] < jury["seated"]
        polarity = standard.polarity(decision)  # "Is X not guilty …?": guilty answers No
        court.conclude(Outcome(
            answer=ruled(decision, polarity, court.case.question, court.case.inputs.get("title") or court.case.question),
            label=decision, polarity=polarity,  # type: ignore[arg-type]
            decided_by="the bench (the majority of the justices' final votes)", partial=failed,
            confidences=[
                Confidence(kind="vote_share", label="bench vote share", value=round(counts[decision] / len(votes), 3),
                           basis=f"{counts[decision]} of {len(votes)} justices"),
                Confidence(kind="agreement", label="jurors agreeing with the court",
                           value=round(agreeing / max(1, jury["voted"]), 3), basis=f"{agreeing} of {jury['voted']} jurors"),
                Confidence(kind="self_reported", label="majority justices' own estimate",
                           value=round(sum(own) / len(own), 3), basis=f"mean of {len(own)}"),
            ],
            markdown=present.verdict_document(document),
            data={"split": split, "votes": document["bench"]["votes"], "decision": decision, "type": standard.type,
                  "jury": document["jury"], "conformity": conf,
                  **deliberation.order_data(court, votes, standard.labels, "justices")},
        ))

    # ---------------------------------------------------------------- how far the verdict holds

    async def fragility(self, court: Court) -> dict[str, Any] | None:
        """Decide again without the witness whose testimony carried the decision: of the
        transcript's witness sessions, the one the majority's final opinions rely on most (named
        in their key facts or analysis, or stated in the words of its testimony that no other
        witness's testimony and not the question holds; ``cited_most``), its questions
        and answers withheld. The justices sit again, both rounds; the jury does not."""
        out = court.record.outputs
        doc = out.get("verdict")
        if not doc:
            return None
        decision = doc["decision"]
        held = transcript.witnesses(court.readable)
        if not held:
            return {"held": None, "removed": "", "summary": "not run: the transcript has no witness sessions to withhold "
                                                           "(a plain-text transcript)"}
        last = max(int(k.rpartition("@")[2]) for k in out if k.startswith("justice-"))
        final = [v for k, v in out.items() if k.startswith("justice-") and k.endswith(f"@{last}")]

        def reasons(opinion: dict[str, Any]) -> str:
            return " ".join([*opinion.get("key_facts", []), opinion.get("evidence_analysis", "")])

        def named(text: str) -> set[int]:
            return {i for i, (_, number, witness, _) in enumerate(held)
                    if transcript.names(text, number, witness, court.case.question)}

        target = deliberation.cited_most({i: transcript.testimony(session[3]) for i, session in enumerate(held)},
                                         [reasons(v) for v in final if v["verdict"] == decision],
                                         [reasons(v) for v in final], named, apart=court.case.question)
        _, number, witness, _ = held[target]
        shadow = court.shadow("fragility", court.case.model_copy(update={"context": transcript.without(
            court.readable, *held[target])}))
        standard = self.standard(shadow)
        rounds, _ = await self.bench(shadow, standard)
        court.absorb(shadow)
        votes = {k: v["verdict"] for k, v in rounds[-1].items()}
        again = majority(votes, standard)
        counts = Counter(votes.values())
        split = f"{counts[again]}–{len(votes) - counts[again]}"
        who = witness.split(",")[0]
        summary = f"without the testimony of witness {number} ({who}), the justices decide {again} ({split})"
        if again != decision:
            summary = f"the decision rests on witness {number}'s testimony: {summary}"
        return {"held": again == decision, "removed": f"witness {number}'s testimony ({who})", "split": split,
                "answer": again, "way": "the same way" if again == decision else "the other way", "summary": summary}

    @staticmethod
    def readings(rounds: list[dict[str, dict[str, Any]]], title: Any) -> dict[str, Any]:
        """With ``verdict_from = "analysis"`` (or findings that overruled a verdict): how many
        opinions' votes were read from their analyses or findings, and which written verdicts those
        did not support (justice, round, written → read)."""
        held = [(r, k, o) for r, opinions in enumerate(rounds, 1) for k, o in opinions.items()
                if "written_verdict" in o and not (r > 1 and o is rounds[r - 2].get(k))]  # not a carried-over opinion
        if not held:
            return {}
        return {"readings": {"read": len(held), "differed": [
            f"{title(k)}, round {r}: wrote {o['written_verdict']}, {'its findings support' if o.get('elements') else 'analysis supports'} "
            f"{present.asked_verdict(o)}"
            for r, k, o in held if o["written_verdict"] != present.asked_verdict(o)]}}

    @staticmethod
    def swaps(rounds: list[dict[str, dict[str, Any]]], title: Any, standard: Standard) -> dict[str, Any]:
        """With ``both_orders``: how many opinions were asked both ways, how many held, and whose
        verdict followed the order instead (justice, round: first → with the order reversed)."""
        asked = [(r, k, o) for r, opinions in enumerate(rounds, 1) for k, o in opinions.items()
                 if "orders" in o and not (r > 1 and o is rounds[r - 2].get(k))]
        if not asked:
            return {}
        return {"both_orders": {"asked": len(asked), "held": sum(o["orders"]["held"] for _, _, o in asked),
                                "counted_for": standard.no, "followed": [
            f"{title(k)}, round {r}: {o['orders']['first']}, then {o['orders']['other']}"
            for r, k, o in asked if not o["orders"]["held"]]}}

    # ---------------------------------------------------------------- dry run, demo, result

    async def plan(self, court: Court) -> None:
        standard = STANDARDS[transcript.case_type(court.case, court.params.default_type)[0]]
        p = court.params
        placeholder = {"verdict": "[verdict]", "confidence": 0.0, "key_facts": ["[key facts]"],
                       "evidence_analysis": "[the analysis of round 1]"}
        previous = {f"justice-{n}": placeholder for n in range(1, p.justices + 1)}
        orders = self.askings(court)
        for swapped in orders:
            for n in range(1, p.justices + 1):
                court.plan_prompt("opinions", self.justice(court, n, 1), self.opinion_prompt(court, standard, n, swapped),
                                  self.wire(court, 1))
            if p.verdict_from == "analysis":
                for n in range(1, p.justices + 1):
                    court.plan_prompt("opinions", self.reader(court, self.justice(court, n, 1)),
                                      self.reread_prompt(court, standard, f"justice-{n}",
                                                         "[the justice's evidence analysis]", swapped),
                                      RereadReply, system=self.render("reread_system"), prefix="")
        if p.rounds > 1:
            for swapped in orders:
                for n in range(1, p.justices + 1):
                    court.plan_prompt("conference", self.justice(court, n, 2),
                                      self.conference_prompt(court, standard, n, 2, previous, swapped), self.wire(court, 2))
        for swapped in orders:
            for n in range(1, p.jurors + 1):
                court.plan_prompt("jury", court.agent(f"juror-{n}", "juror", f"Juror {n}", "jury"),
                                  self.juror_prompt(court, standard, n, p.jurors, swapped), JurorReply)
        court.plan_prompt("why", court.agent("clerk-facts", "clerk", "Law clerk · facts", "why"),
                          self.facts_prompt(court, standard), FactsReply)
        court.plan_prompt("why", court.agent("clerk-reasoning", "clerk", "Law clerk · reasoning", "why"),
                          self.reasoning_prompt(court, standard, []).replace(
            "(none: no quote was verified in the transcript)", "[the verified facts of step 1]"), ReasoningReply)

    def demo(self, request: ModelRequest) -> dict[str, Any] | None:
        return demo_reply(request)

    def result_of(self, record: RunRecord) -> dict[str, Any]:
        """The verdict document first, then the generic record (outputs by agent, calls' metadata)."""
        return {"verdict": record.outputs.get("verdict"), **record.generic_result()}
