"""The retrieval-grounded bench (after SAMVAD): a judge and two counsels ground what they say in
statutes retrieved from the legal knowledge base, every citation is checked, and a bench of
adjudicators deliberates in rounds until it reaches consensus or is declared hung.

    instructions (judge: law + standard of proof, cited) ─> arguments (prosecution, defense, cited)
        ─> citations checked ─> deliberation (round 1, 2, … each reading the last) ─> consensus | hung

The case is a bench case (``cases``): facts, charges, the law in plain words, each side's
evidence, keywords. The knowledge base is ``courtroom_chat.kb`` (``[kb]`` in config.toml).
Citations that do not stand (no such section, or words not in it) are marked, counted, and
kept out of the law the bench is told it may rely on. ``retrieval = false`` is the ablation:
the judge and counsels argue from memory, their citations still checked. Conformity between
rounds, the early stop and the tally-free digest are the supreme court's (``deliberation``).
Wire formats in ``wire``, rules and metrics in ``rules``, the reading in ``present``, the
scripted replies in ``demo``, prompts in ``courtroom_chat/prompts/samvad/``.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from ... import prompts
from ...errors import BackendError, RoleOutputError
from ...kb import KBHit, chunk, number_of
from ...motion import asks_against
from ...records import Confidence, Outcome, RunRecord
from .. import deliberation
from ..base import Procedure, Role, case_block, refine_schema
from ..supreme import transcript
from . import cases, present
from .cases import BenchCase, bench_case, withheld
from .demo import demo_reply
from .rules import (
    FINDINGS,
    GUILTY,
    LEANINGS,
    NOT_GUILTY,
    consensus,
    counsel_problems,
    elements_of,
    evidence_items,
    fact_elements,
    judge_problems,
    majority,
    meaningful,
    metrics,
    needed,
    side,
    statement_problems,
)
from .wire import Citation, CounselReply, JudgeReply, StatementReply

if TYPE_CHECKING:
    from ...backends.base import ModelRequest
    from ...case import Case
    from ...config import KBSettings
    from ...court import Agent, Court
    from ...kb import CitationCheck, KnowledgeBase

FAILED = (BackendError, RoleOutputError)
COUNSELS = (("prosecution", "Prosecution"), ("defense", "Defense"))


class Parameters(BaseModel):
    """[procedures.samvad] in config.toml."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    adjudicators: int = Field(5, ge=1, le=15, description="Adjudicators on the bench")
    consensus: float = Field(0.8, gt=0.5, le=1.0, description="Share of the bench one verdict needs (consensus)")
    max_rounds: int = Field(3, ge=1, le=6, description="Rounds of deliberation before the bench is declared hung")
    retrieval: bool = Field(True, description="Judge and counsels retrieve the law from the knowledge base (off: "
                                              "the ablation, they cite from memory; citations are still checked)")
    passages: int = Field(5, ge=1, le=12, description="Provisions retrieved for the judge and for each counsel")
    stop_when_stable: bool = Field(False, description="End deliberation once no adjudicator changes position "
                                                      "(the bench is then hung if short of consensus)")
    show_tally: bool = Field(True, description="Show the bench the previous round's tally (off: only the peers' "
                                               "statements, anonymised)")
    shuffle_labels: bool = Field(False, description="Each adjudicator reads guilty and not guilty in its own seeded "
                                                    "order, in the prompt and the schema (undecided stays last)")
    shuffle_arguments: bool = Field(False, description="Each adjudicator reads the prosecution's and the defense's "
                                                       "arguments in its own seeded order (off: the prosecution first)")
    min_words: int = Field(15, ge=0, le=200, description="Words a justification needs (to pass, and to count as "
                                                         "a meaningful statement)")
    judge_temperature: float = Field(0.2, ge=0.0, le=2.0, description="Judge temperature")
    counsel_temperature: float = Field(0.4, ge=0.0, le=2.0, description="Counsels' temperature")
    adjudicator_temperature: float = Field(0.7, ge=0.0, le=2.0, description="Adjudicators' temperature")


@cache
def knowledge_base(settings: KBSettings) -> KnowledgeBase:
    """One knowledge base per [kb] table and process (its corpus, BM25 and store read once)."""
    from ...kb import KnowledgeBase

    return KnowledgeBase.from_settings(settings)


class SamvadBench(Procedure):
    name = "samvad"
    fixed_order = {"shuffle_labels": False, "shuffle_arguments": False}
    shuffled_order = {"shuffle_labels": True, "shuffle_arguments": True}
    title = "Retrieval-grounded bench"
    tries = "a criminal charge under Indian law"
    description = ("A judge and two counsels cite statutes retrieved from a legal knowledge base, every citation "
                   "checked; a bench of adjudicators deliberates in rounds to consensus, or is hung.")
    stages = (("instructions", "Judge's instructions"), ("arguments", "Arguments"), ("deliberation", "Deliberation"))
    roles = (
        Role("judge", "Judge", JudgeReply, max_tokens=900, expected_output_tokens=350,
             description="retrieves the law and the standard of proof, instructs the bench with citations"),
        Role("prosecution", "Prosecution", CounselReply, max_tokens=800, expected_output_tokens=300,
             description="retrieves the law and argues guilt, with citations"),
        Role("defense", "Defense", CounselReply, max_tokens=800, expected_output_tokens=300,
             description="retrieves the law and argues for acquittal, with citations"),
        Role("adjudicator", "Adjudicator", StatementReply, numbered=True, max_tokens=450, expected_output_tokens=150,
             description="states a leaning (guilty, not guilty, undecided) with a justification, each round"),
    )
    Parameters = Parameters
    inputs = {
        "case_id": "the case's identifier",
        "title": "the case's name",
        "accused": "who is accused (the question names them)",
        "summary": "the facts, in a paragraph",
        "charges": "the charges, one a line (a case with none is refused)",
        "law": "the relevant law, explained simply",
        "prosecution_evidence": "the prosecution's evidence, one item a line",
        "defense_evidence": "the defense's evidence, one item a line",
        "keywords": "words the argument grounding score looks for in the statements",
    }

    # ---------------------------------------------------------------- the case

    @classmethod
    def read_case(cls, path: Path, data: Any) -> Case | None:
        return cases.read(path, data)

    def check_case(self, case: Case) -> None:
        bench_case(case)  # no charges, or a bad field: one CaseError line before the trial

    def case_block(self, case: Case) -> str:
        b = bench_case(case)
        listed = lambda items, mark: "\n".join(f"{mark}{i}. {x}" for i, x in enumerate(items, 1)) or "(none)"  # noqa: E731
        documents = "\n" + case_block(case, prompts.shared()) if case.context else ""
        return self.render("case", case_id=b.case_id, summary=b.summary, charges=listed(b.charges, ""),
                           law=b.law or "(not given)", prosecution_evidence=listed(b.prosecution_evidence, "P"),
                           defense_evidence=listed(b.defense_evidence, "D"), documents=documents)

    # ---------------------------------------------------------------- retrieval

    def kb(self, court: Court) -> KnowledgeBase:
        return knowledge_base(court.settings.kb)

    async def retrieve(self, court: Court, queries: list[tuple[str, int]], named: str = "") -> list[KBHit]:
        """The provisions ``named`` outright (the charges' own sections) first, then those the
        search finds for ``queries`` ((query, k) pairs), without repeats."""
        if not court.params.retrieval:
            return []
        kb = self.kb(court)
        if kb.report is None:
            report = await asyncio.to_thread(kb.build)
            if report.built:
                court.warn("court", "kb_built", f"knowledge base indexed for the first time: {report.line()}")
        hits: list[KBHit] = [KBHit(p, chunk(p, kb.chunk_chars)[0], 1.0, i)
                             for i, p in enumerate(kb.named_in(named)[:court.params.passages], 1)]
        for query, k in queries:
            for hit in await asyncio.to_thread(kb.search, query, k):
                if all(h.provision.key != hit.provision.key for h in hits):
                    hits.append(hit)
        return hits

    def law_block(self, hits: list[KBHit]) -> str:
        if not hits:
            return ("(retrieval is off: no provisions are provided. Cite only sections you are sure of, by source and "
                    "number; every citation is checked against the statute books.)")
        return "\n\n".join(f"[{h.provision.source} {h.provision.number}] {h.chunk.text}" for h in hits)

    def judge_queries(self, b: BenchCase, k: int) -> list[tuple[str, int]]:
        return [(f"{'; '.join(b.charges)}. {b.law}", k),
                ("burden of proof on the prosecution; presumption; proof of a fact; standard of proof", 2)]

    def counsel_queries(self, b: BenchCase, role: str, k: int) -> list[tuple[str, int]]:
        evidence = b.prosecution_evidence if role == "prosecution" else b.defense_evidence
        return [(f"{'; '.join(b.charges)}. {' '.join(evidence)[:600]}", k)]

    @staticmethod
    def offered(hits: list[KBHit]) -> list[dict[str, str]]:
        """The retrieved provisions as the scripted backend sees them (its demo cites from them)."""
        return [{"source": h.provision.source, "section": h.provision.number, "title": h.provision.title,
                 "text": h.provision.text[:400]} for h in hits]

    # ---------------------------------------------------------------- citations

    def check_citations(self, court: Court, who: str, citations: list[Citation], prose: str = "") -> list[dict[str, Any]]:
        """Check every citation: the listed ones, and each section or article the ``prose`` names
        outright that the list does not (a made-up section named in an argument's text is caught
        too, and counted like a listed one)."""
        kb = self.kb(court)
        citations = [c.model_copy(update={"source": found}) if (found := kb.cited_source(c.source, c.section)) else c
                     for c in citations]  # "CrPC 154", section 154: cited as CrPC 154
        listed = {(kb.source_of(c.source) or c.source.lower(), number_of(c.section)) for c in citations}
        named = []
        for source, number in kb.mentions(prose):
            key = (kb.source_of(source) or source.lower(), number_of(number))
            if key not in listed:
                listed.add(key)
                named.append(Citation(source=source, section=number, point="named in the text"))
        out = []
        for c in [*citations, *named]:
            check = kb.verify(c.source, c.section, c.quote)
            number = len(court.record.outputs.get("citations", [])) + 1
            data = {"number": number, "by": who, **c.model_dump(mode="json"), "verified": check.verified,
                    "exists": check.exists, "quote_found": check.quote_found, "heading": check.heading,
                    "reason": check.reason}
            court.record.outputs.setdefault("citations", []).append(data)
            court.item("citation", f"Citation {number} · {c.source} {c.section} · "
                                   f"{'✅ verified' if check.verified else '❌ unverified'}", check.verified,
                       number=number, agent=who, detail=present.citation_markdown(data), line=present.citation_line(data),
                       data=data)
            out.append(data)
        missed = [f"{c['source']} {c['section']}" for c in out if not c["verified"]]
        if missed:
            court.warn(who, "citation_unverified", f"{len(missed)} citation{'s' if len(missed) != 1 else ''} by the "
                       f"{who} could not be verified in the knowledge base ({', '.join(missed)}) and "
                       f"{'are' if len(missed) != 1 else 'is'} kept out of the law the bench relies on")
        return out

    # ---------------------------------------------------------------- the trial

    async def run(self, court: Court) -> None:
        b = bench_case(court.case)
        if court.params.retrieval:
            self.kb(court).provisions  # noqa: B018 - a missing or empty corpus fails here, in one line
        instructions = await self.instruct(court, b)
        arguments = await self.argue(court, b, instructions)
        rounds, flow = await self.deliberate(court, b, instructions, arguments)
        self.conclude(court, b, rounds, flow)

    def judge_prompt(self, court: Court, b: BenchCase, law: str) -> str:
        return self.render("judge", law=law, charges="; ".join(b.charges))

    async def instruct(self, court: Court, b: BenchCase) -> dict[str, Any]:
        p = court.params
        agent = court.agent("judge", "judge", "Judge", "instructions", temperature=p.judge_temperature)
        async with court.stage("instructions") as stage:
            hits = await self.retrieve(court, self.judge_queries(b, p.passages), named=" ".join(b.charges))
            law = self.law_block(hits)
            prompt = self.judge_prompt(court, b, law)
            court.check_context([(agent, prompt)])
            kb = self.kb(court)
            try:
                answer = await court.ask(agent, prompt, JudgeReply, inputs={"law": self.offered(hits), "charges": b.charges},
                                         check=lambda r: judge_problems(r, kb, min_words=p.min_words, cite=p.retrieval,
                                                                        case=b, law=law),
                                         schema=refine_schema(JudgeReply, {"citations": {"maxItems": 6}}))
            except FAILED:
                stage.state = "no instructions"
                return {"instructions": "", "elements": [], "standard_of_proof": "", "citations": [], "retrieved": []}
            court.settle(agent, answer, skip={"citation_unknown", "citation_quote"})
            # elements still describing the evidence after the repair are set aside (warned by settle)
            data = answer.value.model_dump(mode="json") | {"retrieved": [h.provision.key for h in hits],
                                                          "set_aside": sorted(fact_elements(answer.value.elements, b, law))}
            court.finish(agent, data, markdown=present.judge_markdown(data), repaired=answer.repaired,
                         title="Judge · instructions", line=f"judge: {len(data['citations'])} citations")
            data["checked"] = self.check_citations(court, "judge", answer.value.citations, " ".join(
                [answer.value.instructions, *answer.value.elements, answer.value.standard_of_proof]))
            stage.state = present.checked_state(data["checked"])
        return data

    def counsel_prompt(self, b: BenchCase, role: str, law: str, instructions: dict[str, Any]) -> str:
        return self.render(role, law=law, charges="; ".join(b.charges),
                           instructions=present.shorten(instructions.get("instructions") or "(none given)", 900))

    async def argue(self, court: Court, b: BenchCase, instructions: dict[str, Any]) -> dict[str, dict[str, Any]]:
        p = court.params
        out: dict[str, dict[str, Any]] = {}
        kb = self.kb(court)
        async with court.stage("arguments") as stage:
            async def speak(role: str, title: str) -> None:
                agent = court.agent(role, role, title, "arguments", temperature=p.counsel_temperature)
                hits = await self.retrieve(court, self.counsel_queries(b, role, p.passages), named=" ".join(b.charges))
                prompt = self.counsel_prompt(b, role, self.law_block(hits), instructions)
                try:
                    answer = await court.ask(agent, prompt, CounselReply,
                                             inputs={"law": self.offered(hits), "charges": b.charges, "side": role},
                                             check=lambda r: counsel_problems(r, kb, min_words=p.min_words, cite=p.retrieval),
                                             schema=refine_schema(CounselReply, {"citations": {"maxItems": 6}}))
                except FAILED:
                    return
                court.settle(agent, answer, skip={"citation_unknown", "citation_quote"})
                data = answer.value.model_dump(mode="json") | {"retrieved": [h.provision.key for h in hits]}
                court.finish(agent, data, markdown=present.counsel_markdown(data), repaired=answer.repaired,
                             title=f"{title} · argument", line=f"{role}: {len(data['citations'])} citations")
                out[role] = data

            await asyncio.gather(*(speak(role, title) for role, title in COUNSELS))
            # in a fixed order, not the order the counsels finished in: citation numbers, and the
            # verified law the bench reads (listed as first cited), do not depend on timing
            out = {role: out[role] for role, _ in COUNSELS if role in out}
            for role, data in out.items():
                data["checked"] = self.check_citations(court, role, [Citation(**c) for c in data["citations"]],
                                                       " ".join([data["argument"], *data["points"]]))
            stage.state = present.checked_state([c for d in out.values() for c in d.get("checked", [])])
        return out

    def briefing(self, kb: KnowledgeBase, b: BenchCase, instructions: dict[str, Any],
                 arguments: dict[str, dict[str, Any]]) -> dict[str, Any]:
        """What the bench reads: the instructions, the elements each adjudicator makes a finding
        on, the arguments, and only the verified law."""
        return {"instructions": present.instructions_text(instructions),
                "elements": elements_of(instructions, b),
                "arguments": arguments,
                "law": present.verified_law([instructions, *arguments.values()], kb)}

    def adjudicator_prompt(self, court: Court, n: int, round_: int, brief: dict[str, Any],
                           previous: dict[str, dict[str, Any]]) -> str:
        p = court.params
        me = f"adjudicator-{n}"
        if round_ == 1 or not previous:
            earlier = "(none: this is the first round; state your own view independently)"
            own = "(none)"
        else:
            shown = deliberation.peers(court, me, previous, round_, "Adjudicator")
            earlier = present.digest(shown, list(previous.values()), p.show_tally, round_ - 1)
            mine = previous.get(me)
            own = present.statement_line(mine, 300) if mine else "(none: it failed)"
        return self.render("adjudicator", round=round_, rounds=p.max_rounds, seat=n, size=p.adjudicators,
                           leanings=deliberation.quoted_choices(self.leanings(court, me)),
                           instructions=brief["instructions"], law=brief["law"],
                           arguments=present.arguments_text(brief["arguments"], deliberation.argument_order(
                               court, [role for role, _ in COUNSELS], me)),
                           elements="\n".join(f"{i}. {e}" for i, e in enumerate(brief["elements"], 1)),
                           previous=earlier, own=own, needed=needed(p.adjudicators, p.consensus),
                           min_words=p.min_words)

    async def deliberate(self, court: Court, b: BenchCase, instructions: dict[str, Any],
                         arguments: dict[str, dict[str, Any]]) -> tuple[list[dict[str, dict[str, Any]]], dict[str, Any]]:
        p = court.params
        brief = self.briefing(self.kb(court), b, instructions, arguments)
        rounds: list[dict[str, dict[str, Any]]] = []
        moves: list[dict[str, Any]] = []
        against = asks_against(court.case.question, GUILTY)  # "Is X not guilty …?": guilty is No
        flow: dict[str, Any] = {"rounds": moves, "consensus": [], "stopped": "", "rounds_skipped": 0, "tokens_saved": 0,
                                "against": against}  # the moves' and the verdict's sides as answers
        for round_ in range(1, p.max_rounds + 1):
            previous = rounds[-1] if rounds else {}
            plans = []
            for n in range(1, p.adjudicators + 1):
                agent = court.agent(f"adjudicator-{n}", "adjudicator", f"Adjudicator {n}", "deliberation",
                                    round=round_, temperature=p.adjudicator_temperature)
                plans.append((n, agent, self.adjudicator_prompt(court, n, round_, brief, previous)))
            court.check_context([(a, pr) for _, a, pr in plans])
            before_calls = len(court.record.calls)
            current: dict[str, dict[str, Any]] = {}
            prior = majority({k: v["leaning"] for k, v in previous.items()}) if previous else ""
            async with court.stage("deliberation", f"Deliberation, round {round_}",
                                   planned=[(a, pr) for _, a, pr in plans], round=round_) as stage:
                await asyncio.gather(*(self.state(court, b, n, agent, prompt, round_, previous, prior, current,
                                                  brief["elements"]) for n, agent, prompt in plans))
                if not current:
                    raise RoleOutputError(f"no adjudicator could give a statement in round {round_}", agent="adjudicator-1")
                votes = {k: v["leaning"] for k, v in current.items()}
                verdict, ratio = consensus(votes, p.adjudicators, p.consensus)
                flow["consensus"].append({"round": round_, "verdict": verdict, "agreement": ratio,
                                          "counts": {label: list(votes.values()).count(label) for label in LEANINGS}})
                stage.state = present.tally_text(votes) + (f" · consensus: {verdict}" if verdict else "")
                if previous:
                    moved = deliberation.conformity({k: v["leaning"] for k, v in previous.items()}, votes, prior,
                                                    lambda leaning: side(leaning, against), who="adjudicator")
                    moves.append({"round": round_, **moved})
                    stage.markdown = (f"**Changed:** {moved['changed']} ({moved['toward']} toward the previous majority, "
                                      f"{moved['away']} away)")
            rounds.append(deliberation.seated(current))
            if verdict:
                flow["stopped"] = "consensus"
                break
            why = deliberation.stop_reason(round_, p.max_rounds - round_, votes, moves) if p.stop_when_stable else ""
            if why:
                left = p.max_rounds - round_
                flow["stopped"], flow["rounds_skipped"] = why, left
                flow["tokens_saved"] = deliberation.tokens_since(court, before_calls) * left  # a round as this one cost
                court.warn("court", "stopped_early", f"deliberation ended after round {round_}: "
                           f"{'every adjudicator is undecided' if why == 'unanimous' else 'no adjudicator changed position'}; "
                           f"{left} round{'s' if left != 1 else ''} not held, about {flow['tokens_saved']:,} tokens saved")
                break
        return rounds, flow

    @staticmethod
    def leanings(court: Court, agent: str) -> list[str]:
        """The leanings in the order ``agent`` reads them (``shuffle_labels``; undecided last)."""
        return deliberation.label_order(court, LEANINGS, agent, fixed_tail=1)

    @staticmethod
    def statement_schema(elements: list[str], items: list[str], leanings: list[str] = LEANINGS) -> dict[str, Any]:
        """The statement's schema for decoding: one finding per element, by number, naming only
        the case file's evidence items."""
        schema = refine_schema(StatementReply, {
            "leaning": {"enum": list(leanings)}, "justification": {"maxLength": 1200},
            "findings": {"minItems": len(elements), "maxItems": len(elements)},
            "Finding.element": {"enum": list(range(1, len(elements) + 1))},
            "Finding.evidence": {"maxItems": 4, "items": {"enum": items}} if items else {"maxItems": 0},
            "Finding.finding": {"enum": FINDINGS},
        })
        # The n-th finding is on element n: a grammar that reads prefixItems (llguidance, the
        # embedded model's) cannot repeat or skip an element. "items" stays for those that do
        # not (Ollama's converter, Anthropic's strict schema), where the rules send a repeat back.
        finding = schema["$defs"]["Finding"]
        schema["properties"]["findings"]["prefixItems"] = [
            {**finding, "properties": {**finding["properties"], "element": {"const": k}}}
            for k in range(1, len(elements) + 1)]
        return schema

    async def state(self, court: Court, b: BenchCase, n: int, agent: Agent, prompt: str, round_: int,
                    previous: dict[str, dict[str, Any]], prior: str, current: dict[str, dict[str, Any]],
                    elements: list[str]) -> None:
        p = court.params
        own = previous.get(agent.name)
        items = evidence_items(b)
        inputs = {"seat": n, "size": p.adjudicators, "round": round_, "charges": b.charges, "elements": elements,
                  "items": items, **({"before": own["leaning"], "majority": prior} if own else {})}
        try:
            answer = await court.ask(agent, prompt, StatementReply, inputs=inputs,
                                     schema=self.statement_schema(elements, items, self.leanings(court, agent.name)),
                                     check=lambda r: statement_problems(r, p.min_words, len(elements), items))
        except FAILED:
            return
        court.settle(agent, answer)
        data = answer.value.model_dump(mode="json") | {"adjudicator": agent.name, "round": round_}
        for f in data["findings"]:
            f["what"] = elements[f["element"] - 1] if 1 <= f["element"] <= len(elements) else ""
        if data["leaning"] not in LEANINGS:
            data["leaning"] = "undecided"  # what a repair could not mend counts toward no verdict
        elif any(pr.rule == "unsupported_guilt" for pr in answer.problems):
            # A guilty leaning its own findings do not carry, even after the repair: it counts
            # toward no verdict, and the statement says so.
            data["leaning"], data["inconsistent"] = "undecided", True
        data["meaningful"] = meaningful(data["justification"], b, p.min_words)
        if own:
            data["changed"] = data["leaning"] != own["leaning"]
        current[agent.name] = data
        court.finish(agent, data, markdown=present.statement_markdown(data), repaired=answer.repaired,
                     title=f"Adjudicator {n} · {data['leaning']}", key=f"{agent.name}@{round_}",
                     line=f"adjudicator {n}: {data['leaning']}" + (" · changed" if data.get("changed") else ""))
        counts = Counter(v["leaning"] for v in current.values())
        court.tally(LEANINGS, {label: counts[label] for label in LEANINGS}, seated=p.adjudicators,
                    pending=p.adjudicators - len(current), title=f"Bench, round {round_}", round=round_)

    def conclude(self, court: Court, b: BenchCase, rounds: list[dict[str, dict[str, Any]]], flow: dict[str, Any]) -> None:
        p = court.params
        final = flow["consensus"][-1]
        verdict = final["verdict"] or "hung"
        checks = self._checks(court)
        spoken = [" ".join([court.record.outputs[role].get("argument", ""), *court.record.outputs[role].get("points", [])])
                  for role, _ in COUNSELS if isinstance(court.record.outputs.get(role), dict)]
        run_metrics = metrics(b, rounds, p.adjudicators, verdict, final["agreement"], checks,
                              [c.seconds for c in court.record.calls if c.seconds], p.min_words, spoken)
        run_metrics["retrieval"] = p.retrieval
        conformity = {"rounds": flow["rounds"], "changed": sum(r["changed"] for r in flow["rounds"]),
                      "toward": sum(r["toward"] for r in flow["rounds"]), "away": sum(r["away"] for r in flow["rounds"]),
                      "stopped": flow["stopped"], "rounds_skipped": flow["rounds_skipped"],
                      "tokens_saved": flow["tokens_saved"]}
        document = {"case_id": b.case_id, "verdict": verdict, "threshold": p.consensus,
                    "needed": needed(p.adjudicators, p.consensus), "seated": p.adjudicators,
                    "by_round": flow["consensus"], "conformity": conformity, "metrics": run_metrics,
                    **deliberation.order_data(court, {k: v["leaning"] for k, v in rounds[-1].items()}, LEANINGS[:-1],
                                              "adjudicators")}
        court.keep("bench", document)
        who = b.accused or "the accused"
        polarity = side(verdict, flow["against"])
        if verdict == "hung":
            answer = (f"Hung bench: no verdict reached {p.consensus:.0%} of the bench after {len(rounds)} "
                      f"round{'s' if len(rounds) != 1 else ''} ({b.case_id})")
        else:
            # the finding itself, on the charges as the bench tried them, however the question was put
            answer = (f"{verdict.capitalize()}: {who} {'are' if ' and ' in who else 'is'} {verdict} of "
                      f"{'; '.join(b.charges)} ({b.case_id})")
        partial = any(len(r) < p.adjudicators for r in rounds)
        court.conclude(Outcome(
            answer=answer, label=verdict, polarity=polarity,  # type: ignore[arg-type]
            decided_by=f"the bench of {p.adjudicators} adjudicators ({'consensus' if verdict != 'hung' else 'no consensus'})",
            partial=partial,
            confidences=[Confidence(kind="agreement", label="final agreement", value=final["agreement"],
                                    basis=f"of {p.adjudicators} adjudicators, round {final['round']}")],
            markdown=present.outcome_markdown(document), data=document,
        ))

    # ---------------------------------------------------------------- how far the verdict holds

    async def fragility(self, court: Court) -> dict[str, Any] | None:
        """Deliberate again without the evidence that carried the verdict: the item the final
        round's majority relied on most (named in its findings, or stated in its reasons;
        ``cited_most``), withheld from the case file (a document of a case built from its
        evidence) and from the counsels' lists of points (a point that restates it or names it).
        A document that is a trial transcript offers its witnesses one by one instead: withholding
        the whole transcript would leave nothing to decide on (a case built from one transcript
        is tried on its one item, P1); a reason states a witness's testimony in the words no other
        witness's testimony and not the question holds. The judge's instructions and the arguments' prose stay;
        the bench deliberates anew."""
        out = court.record.outputs
        bench = out.get("bench")
        if not bench or not isinstance(out.get("judge"), dict) or not all(isinstance(out.get(r), dict) for r, _ in COUNSELS):
            return None
        verdict = bench["verdict"]
        if verdict == "hung":
            return {"held": None, "removed": "", "summary": "not run: the bench was hung, so no verdict rests on an item"}
        b = bench_case(court.case)
        items = dict(zip(evidence_items(b), [*b.prosecution_evidence, *b.defense_evidence], strict=True))
        candidates = self._withholdable(court, b, items)
        if len(items) == 1 and list(candidates) == list(items):
            return {"held": None, "removed": "", "summary": "not run: the case file is one evidence item with no witness "
                                                            "sessions; without it the bench would have no evidence at all"}
        if not candidates:
            return {"held": None, "removed": "", "summary": "not run: the case file lists no evidence item to withhold"}
        last = max(int(k.rsplit("@", 1)[1]) for k in out if k.startswith("adjudicator-"))
        final = [v for k, v in out.items() if k.startswith("adjudicator-") and k.endswith(f"@{last}")]

        def reasons(statement: dict[str, Any]) -> str:
            return " ".join([statement.get("justification", ""),
                             *(e for f in statement.get("findings", []) for e in f.get("evidence", []))])

        def named(text: str) -> set[Any]:
            ids = set(re.findall(r"\b[PD]\d+\b", text))
            return {key for key in candidates
                    if (key in ids if isinstance(key, str) else transcript.names(text, *key[2:4], court.case.question))}

        sessions = any(isinstance(key, tuple) for key in candidates)  # witnesses restate one another's facts
        target = deliberation.cited_most(
            {k: transcript.testimony(v[0]) if isinstance(k, tuple) else v[0] for k, v in candidates.items()},
            [reasons(v) for v in final if v["leaning"] == verdict], [reasons(v) for v in final], named,
            apart=court.case.question if sessions else None)
        text, case, removed, described = candidates[target]
        shadow = court.shadow("fragility", case)

        def restates(point: str) -> bool:  # a counsel's point that is the evidence, by its words or its name
            said, held = " ".join(point.split()), " ".join(text.split())
            return held in said or (len(said) >= 20 and said in held) or target in named(point)

        arguments = {role: {**out[role], "points": [x for x in out[role].get("points", []) if not restates(x)]}
                     for role, _ in COUNSELS}
        rounds, flow = await self.deliberate(shadow, bench_case(shadow.case), out["judge"], arguments)
        court.absorb(shadow)
        final2 = flow["consensus"][-1]
        again = final2["verdict"] or "hung"
        held = again == verdict
        said = f"the bench is hung ({final2['agreement']:.0%} at most)" if again == "hung" else (
            f"the bench finds {again} ({final2['agreement']:.0%} agree)")
        summary = f"without {described}, {said}"
        if not held:
            summary = f"the verdict rests on {removed}: {summary}"
        return {"held": held, "removed": removed, "answer": again, "rounds": len(rounds),
                "way": "the same way" if held else "the other way", "summary": summary}

    @staticmethod
    def _withholdable(court: Court, b: BenchCase, items: dict[str, str]) -> dict[Any, tuple[str, Case, str, str]]:
        """What a fragility check may withhold, each with its text (what reasons are matched
        against), the case without it, its name and its description: the case file's evidence
        items, except that a document of a case built from its evidence that is a transcript
        gives its witnesses instead (key ``(item, document, number, witness)``)."""
        built = not any(k in court.case.inputs for k in cases.FIELDS)
        sessions = transcript.witnesses(court.case.context) if built else []
        out: dict[Any, tuple[str, Case, str, str]] = {}
        for n, (item, text) in enumerate(items.items()):
            own = [s for s in sessions if s[0] == n]  # built from documents: P1… are the documents, in order
            for document, number, witness, lines in own:
                who = witness.split(",")[0]
                out[(item, document, number, witness)] = (lines, court.case.model_copy(update={"context": transcript.without(
                    court.case.context, document, number, witness, lines)}), f"witness {number}'s testimony ({who})",
                    f"the testimony of witness {number} ({who}) in evidence item {item}")
            if not own:
                out[item] = (text, withheld(court.case, b, item), f"evidence item {item}",
                             f'evidence item {item} ("{present.shorten(text, 80)}")')
        return out

    @staticmethod
    def _checks(court: Court) -> list[CitationCheck]:
        from ...kb import CitationCheck

        return [CitationCheck(c["source"], c["section"], c.get("quote", ""), c["exists"], c["quote_found"])
                for c in court.record.outputs.get("citations", [])]

    # ---------------------------------------------------------------- dry run, demo, result

    async def plan(self, court: Court) -> None:
        b = bench_case(court.case)
        p = court.params
        law = ("[the provisions retrieved from the knowledge base for this query]" if p.retrieval
               else self.law_block([]))
        court.plan_prompt("instructions", court.agent("judge", "judge", "Judge", "instructions"),
                          self.judge_prompt(court, b, law), JudgeReply)
        placeholder = {"instructions": "[the judge's instructions]"}
        for role, title in COUNSELS:
            court.plan_prompt("arguments", court.agent(role, role, title, "arguments"),
                              self.counsel_prompt(b, role, law, placeholder), CounselReply)
        brief = {"instructions": "[the judge's instructions]",
                 "arguments": {role: {"argument": f"[the {role}'s argument]"} for role, _ in COUNSELS},
                 "law": "[the verified citations and their text]",
                 "elements": ["[each element of the charge the judge lists, or each charge when it lists none]"]}
        previous = {f"adjudicator-{n}": {"leaning": "[leaning]", "justification": "[the statement of the last round]",
                                         "adjudicator": f"adjudicator-{n}"} for n in range(1, p.adjudicators + 1)}
        for n in range(1, p.adjudicators + 1):
            court.plan_prompt("deliberation", court.agent(f"adjudicator-{n}", "adjudicator", f"Adjudicator {n}",
                                                          "deliberation", round=1),
                              self.adjudicator_prompt(court, n, 1, brief, {}), StatementReply)
        if p.max_rounds > 1:
            for n in range(1, p.adjudicators + 1):
                court.plan_prompt("deliberation", court.agent(f"adjudicator-{n}", "adjudicator", f"Adjudicator {n}",
                                                              "deliberation", round=2),
                                  self.adjudicator_prompt(court, n, 2, brief, previous), StatementReply)

    def demo(self, request: ModelRequest) -> dict[str, Any] | None:
        return demo_reply(request)

    def result_of(self, record: RunRecord) -> dict[str, Any]:
        """The bench's document (verdict, rounds, conformity, metrics) first, then the generic record."""
        return {"bench": record.outputs.get("bench"), "citations": record.outputs.get("citations", []),
                **record.generic_result()}


__all__ = ["BenchCase", "CounselReply", "JudgeReply", "NOT_GUILTY", "Parameters", "SamvadBench", "StatementReply"]
