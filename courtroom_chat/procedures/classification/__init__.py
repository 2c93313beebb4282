"""The classification court: which of these labels fits the text?

    hearing (top two labels) ─> sides drawn at random ─> prosecutor and attorney argue, quotes verified
        ─> judges decide: in parallel (majority; a tie goes to the hearing's first label) or in sequence
           (each sees the previous judge's decision and reasoning; the last one decides), with precedents

After the published multi-model framework for ambiguous text classification (Courtroom-LLM),
built on the procedure-neutral runtime. Its wire formats are in ``wire``, the case's text and
labels in ``labels``, its precedents in ``precedents``, its demo replies in ``demo``, its
evaluation datasets in ``datasets``, its prompts in ``courtroom_chat/prompts/classification/``.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import replace
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ...backends.base import ModelRequest
from ...case import Case
from ...config import ModelSpec
from ...court import Agent, Court
from ...errors import CaseError, ConfigError
from ...evidence import EvidenceIndex
from ...records import Confidence, Outcome
from .. import deliberation
from ..base import Problem, Procedure, Role, listed, refine_schema, word_pattern, words
from ..decision.rules import quote_problems
from . import datasets
from . import labels as case_labels
from .demo import demo_reply
from .precedents import pool_of, precedents, precedents_text, seed_of, shorten
from .wire import ArgumentReply, HearingReply, JudgeReply, match_label

SIDES = ("prosecutor", "attorney")
MODES = ("parallel", "sequential")
ORDER_TAGS = ("shuffled", "fixed", "reordered")
SHOT_TAG = re.compile(r"(?:(parallel|sequential)-)?(\d)-shot")


def shot_tag(k: int, mode: str = "") -> str:
    """The tag of a bench reading ``k`` precedents (``compare_shots``): ``2-shot`` in the
    verdict's mode, ``sequential-2-shot`` in the other way's."""
    return f"{mode}-{k}-shot" if mode else f"{k}-shot"


def shots_of(tag: str) -> int | None:
    found = SHOT_TAG.fullmatch(tag)
    return int(found.group(2)) if found else None


def precedents_phrase(k: int) -> str:
    return "no precedents" if k == 0 else "1 precedent" if k == 1 else f"{k} precedents"


SECOND_FROM = {"stated": "the first hearing's alternative", "samples": "the sampled hearings' most frequent other top label",
               "alternatives": "the alternative the hearings named most often"}


def sampled_second(first: str, heard: list[tuple[str, str]]) -> tuple[str, str]:
    """The second label from every hearing (the first, then the samples, each (top, alternative)):
    the label the samples put on top most often besides ``first`` (ties: the one sampled first),
    else the alternative the hearings named most often (ties: the first hearing's). A small model
    names one label as "alternative" whatever the text (the 1.5B named "anger" on Emotion), while
    a label sampled hearings put on top is one the text itself pulls toward. Returns (label, source)."""
    def most(names: list[str]) -> str:
        return max(names, key=lambda n: (names.count(n), -names.index(n))) if names else ""
    if found := most([top for top, _ in heard[1:] if top != first]):
        return found, "samples"
    if found := most([alt for _, alt in heard if alt != first]):
        return found, "alternatives" if found != heard[0][1] else "stated"
    return heard[0][1], "stated"


class Parameters(BaseModel):
    """[procedures.classification] in config.toml."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    judges: int = Field(3, ge=1, le=5, description="Judges on the bench, 1-5 (1, 3 or 5 as published; with an even "
                                                   "number a tie goes to the hearing's first label, recorded)")
    mode: Literal["parallel", "sequential"] = Field("parallel", description="parallel: the majority decides (a tie "
                                                    "goes to the hearing's first label); sequential: each judge sees "
                                                    "the previous one's decision, the last decides")
    judge_models: str = Field("", description="A model per judge, comma-separated (backend:model); empty: the "
                                              "judge role's model for every judge",
                              json_schema_extra={"operator": True})
    max_argument_words: int = Field(80, ge=20, le=400, description="Words each counsel may argue in")
    max_quotes: int = Field(2, ge=1, le=6, description="Passages each counsel may quote")
    precedents: int = Field(0, ge=0, le=3, description="Precedents each judge sees (similar labelled examples)")
    precedent_choice: Literal["similar", "random"] = Field("similar", description="similar: the nearest by "
                                                          "embedding; random: drawn by the seed (the comparison)")
    retrieval: Literal["embedding", "bm25", "hybrid"] = Field("embedding", description="How precedents are ranked")
    precedent_pool: str = Field("", description="A JSONL file of {text, label, reason} examples, used when the case "
                                                "names no pool", json_schema_extra={"operator": True})
    compare_modes: bool = Field(False, description="Also decide the other way (sequential when mode is parallel, "
                                 "parallel when sequential) on the same hearing, arguments and first judge, kept "
                                 "beside the verdict: an evaluation compares the two structures item by item for two "
                                 "more judges' calls instead of a second trial. The verdict stays the mode's")
    compare_precedents: bool = Field(False, description="Also decide with the other precedent choice (random when "
                                      "precedent_choice is similar, similar when random) on the same hearing and "
                                      "arguments, by a bench in the verdict's mode, kept beside the verdict: an "
                                      "evaluation compares retrieved with random precedents item by item for a bench's "
                                      "calls instead of a second trial. Needs precedents >= 1")
    compare_orders: bool = Field(False, description="Also decide with every judge reading the two labels and the two "
                                  "counsels' arguments the other way (each judge in its own seeded order when the bench "
                                  "reads them in one order, as by default; in one order when it shuffles them), on the "
                                  "same hearing and arguments, by a bench in the verdict's mode: the order control of "
                                  "`courtroom eval --order-control` for a bench's calls instead of a second trial")
    compare_shots: str = Field("", description="Also decide reading each of these numbers of precedents, "
                                           "comma-separated (\"0, 2\"; 0-3, other than precedents), by a bench in the verdict's mode (and the "
                                           "other mode too with compare_modes), on the same hearing and arguments: "
                                           "the published few-shot table for a bench's calls instead of a trial each; "
                                           "an evaluation runs its baselines at each number too (single-0-shot)")
    stop_when_stable: bool = Field(False, description="In sequence: end the sequence once a judge keeps the label of "
                                   "the judge before it (the bench's position stopped changing); the last judge who "
                                   "sat decides, and the judges not seated and the tokens saved are reported. On RTE's "
                                   "100 items replayed on both models, it fixed 19 answers and broke 7 over four "
                                   "sequences, with 29% fewer judges seated (2026-11-30); off by default because the "
                                   "default bench is parallel")
    ambiguity_samples: int = Field(0, ge=0, le=9, description="Sampled hearings to measure ambiguity (0: off; 5 as "
                                                              "published): ambiguous when their top label changes")
    second_label: Literal["stated", "sampled"] = Field(
        "stated", description="Where the hearing's second label comes from: \"stated\", the first hearing's "
                              "alternative; \"sampled\", the label the sampled hearings (ambiguity_samples) put on "
                              "top most often besides the first, else the alternative the hearings named most often. "
                              "Measured offline on Emotion's 100 stored trials (the 1.5B): the gold among the two "
                              "labels 63 -> 76 times, and the court right on 49 of 100 instead of 44 (fixed 11, broke "
                              "6, p = 0.33), still below one call (52); off until a second many-label set agrees")
    hearing_temperature: float = Field(0.2, ge=0.0, le=2.0, description="Hearing temperature")
    sample_temperature: float = Field(0.8, ge=0.0, le=2.0, description="Temperature of the sampled hearings")
    counsel_temperature: float = Field(0.4, ge=0.0, le=2.0, description="Prosecutor and attorney temperature")
    shuffle_labels: bool = Field(False, description="Each judge reads the two labels in its own seeded order, in the "
                                                    "prompt and the schema (off: the hearing's order)")
    shuffle_arguments: bool = Field(False, description="Each judge reads the two counsels' arguments in its own "
                                                       "seeded order (off: the prosecutor's first)")
    judge_temperature: float = Field(0.2, ge=0.0, le=2.0, description="Judge temperature")

    @model_validator(mode="after")
    def _consistent(self) -> Parameters:
        if self.compare_precedents and self.precedents == 0:
            raise ValueError("compare_precedents compares two ways of choosing precedents, but precedents = 0 gives "
                             "the judges none; set precedents to 1-3 or compare_precedents = false")
        wrong = [part for part in listed(self.compare_shots) if not (part.isdigit() and 0 <= int(part) <= 3)]
        if wrong:
            raise ValueError(f"compare_shots: {wrong[0]!r} is not a number of precedents from 0 to 3; give them "
                             "comma-separated, e.g. \"0, 2\"")
        if self.second_label == "sampled" and self.ambiguity_samples < 2:
            raise ValueError("second_label = \"sampled\" reads the sampled hearings, but ambiguity_samples is "
                             f"{self.ambiguity_samples}; set ambiguity_samples to 2-9 (5 as published) or "
                             "second_label = \"stated\"")
        if self.stop_when_stable and self.mode == "parallel" and not self.compare_modes:
            raise ValueError("stop_when_stable ends a sequence of judges, but mode = \"parallel\" seats none; set "
                             "mode = \"sequential\" (or compare_modes = true), or stop_when_stable = false")
        if len(self.judge_specs()) > self.judges:  # the judges past the last one's model would never sit
            raise ValueError(f"judge_models names {len(self.judge_specs())} models for judges = {self.judges}; "
                             f"name one a judge (fewer are used in turn) or set judges to {len(self.judge_specs())}")
        shots = self.shots()
        if self.precedents in shots or len(set(shots)) < len(shots):
            raise ValueError(f"compare_shots \"{self.compare_shots}\" repeats a number or names the verdict's own "
                             f"precedents = {self.precedents}; give each other number once")
        return self

    def shots(self) -> tuple[int, ...]:
        """``compare_shots`` as numbers."""
        return tuple(int(part) for part in listed(self.compare_shots))

    def judge_specs(self) -> list[str]:
        return listed(self.judge_models)

    @field_validator("judge_models")
    @classmethod
    def _judge_models_read(cls, value: str) -> str:
        for spec in listed(value):  # "foo:bar" is refused with the settings, before the hearing is called
            try:
                ModelSpec.parse(spec, where="judge_models")
            except ConfigError as exc:
                raise ValueError(str(exc).removeprefix("judge_models: ")) from None
        return value

    def other_choice(self) -> str:
        return "random" if self.precedent_choice == "similar" else "similar"

    def order_tag(self) -> str:
        """The tag of the bench that reads in the other order (``compare_orders``): shuffled when the
        verdict's bench reads labels and arguments in one order, fixed when it shuffles both."""
        if not (self.shuffle_labels or self.shuffle_arguments):
            return "shuffled"
        return "fixed" if self.shuffle_labels and self.shuffle_arguments else "reordered"

    def reads_shuffled(self, tag: str) -> tuple[bool, bool]:
        """Whether the bench named by ``tag`` reads the labels, and the arguments, in shuffled orders."""
        if tag in ORDER_TAGS:
            return not self.shuffle_labels, not self.shuffle_arguments
        return self.shuffle_labels, self.shuffle_arguments

    def bench_mode(self, tag: str) -> str:
        """The mode of the bench named by ``tag``: the other way's (``compare_modes``) is its tag,
        a bench reading another number of precedents in the other way's (``sequential-0-shot``)
        its first word; the verdict's, the other precedents', the other order's and a number of
        precedents' in the verdict's mode (``0-shot``) is ``mode``."""
        head = tag.split("-")[0]
        return head if head in MODES else self.mode


def quoted(reply: dict[str, Any]) -> str:
    """A counsel's argument as the judges read it, with only its verified quotes."""
    quotes = [f'  - "{q["quote"]}" ({q["location"]})' for q in reply.get("quotes", []) if q.get("verified")]
    return reply.get("argument", "") + ("\n  Quoted from the text:\n" + "\n".join(quotes) if quotes else "")


class ClassificationCourt(Procedure):
    name = "classification"
    fixed_order = {"shuffle_labels": False, "shuffle_arguments": False}
    shuffled_order = {"shuffle_labels": True, "shuffle_arguments": True}
    scored_on = ("yes/no", "labels")  # a yes/no question with no labels is classified yes / no
    title = "Classification court"
    description = ("A hearing proposes the two likeliest labels; a prosecutor and an attorney, sides drawn at random, "
                   "argue them from the text with verified quotes; judges decide in parallel or in sequence.")
    stages = (("hearing", "Preliminary hearing"), ("argument", "Argument"), ("judgment", "Judgment"))
    roles = (
        Role("magistrate", "Magistrate", HearingReply, max_tokens=300, expected_output_tokens=90,
             description="Proposes the likeliest label and the strongest alternative"),
        Role("prosecutor", "Prosecutor", ArgumentReply, max_tokens=500, expected_output_tokens=180,
             description="Argues for the label the draw gives it"),
        Role("attorney", "Attorney", ArgumentReply, max_tokens=500, expected_output_tokens=180,
             description="Argues for the other label"),
        Role("judge", "Judge", JudgeReply, numbered=True, max_tokens=400, expected_output_tokens=120,
             description="Decides between the two labels"),
    )
    Parameters = Parameters
    inputs = {
        "labels": "the candidate labels (two or more), e.g. [\"joy\", \"anger\"]; else named in the question",
        "pool": "precedents: a dataset name, a JSONL file of {text, label, reason}, or a list of such objects",
        "pool_seed": "the seed of a dataset's pool (an evaluation sets it)",
    }

    def models(self, params: Any) -> list[str]:
        return params.judge_specs()  # each judge's own model, checked before the hearing

    def check_case(self, case: Case) -> None:
        case_labels.check(case)
        # a pool the case names is checked whatever the precedents setting: the seed a whole number,
        # a file readable JSONL of examples, a dataset a registered name (its pool drawn at the trial)
        pool_of(case.inputs.get("pool"), seed_of(case.inputs.get("pool_seed")), load=False)

    def prepare(self, case: Case, params: Any = None) -> Case:
        """The precedent pool checked when the case is taken, before a run is stored: a missing or
        mislabelled pool file is one line with nothing kept (a dataset's pool is drawn at the trial)."""
        if params is not None:
            self.pool_problem(case, params, load=False)
        return case

    def pool_problem(self, case: Case, p: Any, *, load: bool = True) -> str:
        """The precedent pool the judges will read, checked: a bad one is a one-line ``CaseError``;
        the warning to give when precedents are asked for and no pool is named; else ""."""
        if max((p.precedents, *p.shots())) <= 0:
            return ""
        source = case.inputs.get("pool") or p.precedent_pool
        if not source:
            asked = f"precedents = {p.precedents}" if p.precedents else f"compare_shots = \"{p.compare_shots}\""
            return (f"{asked} but no precedent pool is named: the judges decide without precedents; give one with "
                    "--input pool=FILE.jsonl or [procedures.classification] precedent_pool, or set precedents = 0")
        examples = pool_of(source, seed_of(case.inputs.get("pool_seed")), load=load)
        labels = case_labels.case_labels(case)  # the text was checked with them (check_case, then run)
        if examples and not any(match_label(e.label, labels) for e in examples):  # precedents of another task
            theirs = list(dict.fromkeys(e.label for e in examples))
            shown = ", ".join(theirs[:6]) + (f" and {len(theirs) - 6} more" if len(theirs) > 6 else "")
            raise CaseError(f"the precedent pool {source if isinstance(source, str) else 'inputs.pool'} labels its "
                            f"examples {shown}, none of this case's labels ({', '.join(labels)}); give a pool labelled "
                            "with them, or set precedents = 0")
        return ""

    def pool(self, court: Court, *, load: bool = True) -> None:
        """Before any model call, a dry run too: the pool checked again with a dataset's drawn
        (``pool_problem``), or a warning that the judges read none though precedents are asked for."""
        if why := self.pool_problem(court.case, court.params, load=load):
            court.warn("court", "no_precedents", why)

    def system_prompt(self, case: Case) -> str:
        return self.render("system", labels=", ".join(f'"{label}"' for label in case_labels.case_labels(case)))

    def demo(self, request: ModelRequest) -> dict[str, Any] | None:
        return demo_reply(request)

    async def run(self, court: Court) -> None:
        labels = case_labels.check(court.case)
        self.pool(court)
        first, second, ambiguous = await self.hearing(court, labels)
        sides = self.draw(court, first, second)
        arguments = await self.argue(court, first, second, sides)
        await self.judge(court, first, second, sides, arguments, ambiguous)

    # ---------------------------------------------------------------- stage 1: the hearing

    async def hearing(self, court: Court, labels: list[str]) -> tuple[str, str, bool | None]:
        p = court.params
        prompt = self.render("hearing", labels=" / ".join(f'"{label}"' for label in labels))

        def check(reply: HearingReply) -> list[Problem]:
            problems = [Problem("hearing_label", f'"{said}" is not a candidate label; use one of {", ".join(labels)}')
                        for said in (reply.top, reply.alternative) if match_label(said, labels) is None]
            if not problems and len(labels) > 2 and match_label(reply.top, labels) == match_label(reply.alternative, labels):
                problems.append(Problem("hearing_same", "the alternative must be another label than the top one"))
            return problems

        async def sample(n: int, temperature: float) -> tuple[str, str]:
            agent = court.agent("magistrate" if n == 0 else f"magistrate@{n}", "magistrate",
                                "Magistrate" if n == 0 else f"Magistrate · sample {n}", "hearing",
                                temperature=temperature)
            schema = refine_schema(HearingReply, {
                "top": {"enum": labels}, "alternative": {"enum": labels},
                "reasoning": {"pattern": word_pattern(3, 70, latin=court.latin)} if agent.constrained else {},
            })
            answer = await court.ask(agent, prompt, HearingReply, schema=schema, check=check,
                                     inputs={"labels": labels, "sample": n})
            court.settle(agent, answer, skip={"hearing_label", "hearing_same"})
            top = match_label(answer.value.top, labels) or labels[0]
            alternative = match_label(answer.value.alternative, labels)
            if alternative in (None, top):
                alternative = next(label for label in labels if label != top)
            if len(labels) == 2:
                alternative = next(label for label in labels if label != top)
            court.finish(agent, {**answer.value.model_dump(), "top": top, "alternative": alternative},
                         title=f"{agent.title} · {top}, then {alternative}", repaired=answer.repaired,
                         markdown=f"**Most likely:** {top} · **alternative:** {alternative}\n\n{answer.value.reasoning}")
            return top, alternative

        async with court.stage("hearing") as stage:
            first, second = await sample(0, p.hearing_temperature)
            ambiguous, source = None, "stated"
            if p.ambiguity_samples:
                heard = [(first, second)] + [await sample(n, p.sample_temperature) for n in range(1, p.ambiguity_samples)]
                tops = [top for top, _ in heard]
                ambiguous = len(set(tops)) > 1
                court.keep("ambiguity", {"samples": len(tops), "tops": tops, "ambiguous": ambiguous})
                stage.markdown = (f"**{'Ambiguous' if ambiguous else 'Not ambiguous'}:** the top label across "
                                  f"{len(tops)} sampled hearings was " + ", ".join(tops))
                if p.second_label == "sampled" and len(labels) > 2:
                    second, source = sampled_second(first, heard)
                    stage.markdown += f"\n\n**Second label:** {second} ({SECOND_FROM[source]})"
            court.keep("hearing", {"first": first, "second": second, "labels": labels,
                                   **({"second_from": source} if p.second_label == "sampled" else {})})
            stage.state = f"{first} or {second}"
        return first, second, ambiguous

    # ---------------------------------------------------------------- stage 2: the argument

    @staticmethod
    def draw(court: Court, first: str, second: str) -> dict[str, str]:
        """Which counsel argues which label: drawn by the run's seed, so the favoured label is not
        always on the same side; kept in the record."""
        flip = court.rng("court", "sides").random() < 0.5
        sides = {"prosecutor": second if flip else first, "attorney": first if flip else second}
        court.keep("sides", {**sides, "seed": court.seed, "prosecutor_has_first": not flip})
        return sides

    def argue_prompt(self, court: Court, first: str, second: str, side: str, label: str) -> str:
        p = court.params
        other = second if label == first else first
        if self._choices(court):
            rule = (f'one to {p.max_quotes} passages copied exactly from the text that support "{label}" '
                    "(each a whole sentence or line of it)")
        else:
            rule = "[] (there is no passage long enough to quote)"
        return self.render("argue", first=first, second=second, side=side.upper(), label=label, other=other,
                           max_words=p.max_argument_words, quote_rule=rule)

    async def argue(self, court: Court, first: str, second: str, sides: dict[str, str]) -> dict[str, dict[str, Any]]:
        p = court.params
        index = EvidenceIndex(court.readable)
        choices = self._choices(court)
        out: dict[str, dict[str, Any]] = {}

        async def speak(side: str) -> None:
            label = sides[side]
            agent = court.agent(side, side, side.capitalize(), "argument", temperature=p.counsel_temperature)
            quotes: dict[str, Any] = {"type": "array", "maxItems": p.max_quotes, "minItems": 1 if choices else 0,
                                      "items": {"type": "string", **({"enum": choices} if choices and agent.constrained else {})}}
            schema = refine_schema(ArgumentReply, {
                "argument": {"pattern": word_pattern(8, p.max_argument_words * 2, latin=court.latin)}
                if agent.constrained else {}})
            schema["properties"]["quotes"] = quotes

            def check(reply: ArgumentReply) -> list[Problem]:
                problems = quote_problems(reply.quotes, index, first=1, flagged=court.flagged)
                if choices and not reply.quotes:
                    problems.append(Problem("argument_quotes", f'quote at least one passage of the text that supports "{label}"'))
                if words(reply.argument) > p.max_argument_words * 1.5:
                    problems.append(Problem("argument_long", f"the argument has {words(reply.argument)} words; "
                                                             f"argue in at most {p.max_argument_words}"))
                return problems

            answer = await court.ask(agent, self.argue_prompt(court, first, second, side, label), ArgumentReply,
                                     schema=schema, check=check, inputs={"label": label, "choices": choices[:8]},
                                     keep_hint="Keep the passages you quoted exactly.")
            court.settle(agent, answer, skip={"exhibit_quote"})
            checked = []
            for n, quote in enumerate(list(dict.fromkeys(answer.value.quotes))[:p.max_quotes], 1):  # a repeat counts once
                found = index.check(quote, min_chars=8)
                place = found.location.short() if found.location else "not in the text"
                checked.append({"quote": quote, "verified": found.verified, "location": place})
                court.item("quote", f"{side.capitalize()} quote {n} · {place}", found.verified, agent=side, number=n,
                           detail=f'"{quote}"', line=f"{side} quote {n}: {'verified' if found.verified else 'NOT in the text'}")
            if any(not q["verified"] for q in checked):
                court.warn(side, "quote_unverified", f"the {side}'s quote{'s' if len(checked) > 1 else ''} "
                           f"{', '.join(str(n) for n, q in enumerate(checked, 1) if not q['verified'])} "
                           "are not in the text and were kept from the judges")
            reply = {"label": label, "argument": answer.value.argument, "quotes": checked}
            out[side] = reply
            court.finish(agent, reply, title=f"{side.capitalize()} · for {label}", repaired=answer.repaired,
                         markdown=f"**Argues for:** {label}\n\n{quoted(reply)}")

        prompts = [(court.agent(s, s, s.capitalize(), "argument"), self.argue_prompt(court, first, second, s, sides[s]))
                   for s in SIDES]
        async with court.stage("argument", planned=prompts) as stage:
            await asyncio.gather(*(speak(side) for side in SIDES))
            stage.state = f"prosecutor for {sides['prosecutor']}, attorney for {sides['attorney']}"
        return out

    # ---------------------------------------------------------------- stage 3: the judges

    @staticmethod
    def other_mode(params: Parameters) -> str:
        return "sequential" if params.mode == "parallel" else "parallel"

    @staticmethod
    def precedents_arm(params: Parameters) -> str:
        return f"court-{params.other_choice()}-precedents"

    @staticmethod
    def orders_arm(params: Parameters) -> str:
        return f"court-judges-{params.order_tag()}"

    def arms(self, params: BaseModel) -> tuple[str, ...]:
        """With ``compare_modes`` the trial also decides the other way: an evaluation's
        ``court-sequential`` (or ``court-parallel``) method; with ``compare_precedents`` with the
        other precedents: ``court-random-precedents`` (or ``court-similar-precedents``); with
        ``compare_orders`` in the other order: ``court-judges-shuffled`` (or ``court-judges-fixed``);
        with ``compare_shots`` at each other number of precedents: ``court-0-shot`` (and
        ``court-sequential-0-shot`` with ``compare_modes``). Each is read from the same record."""
        if not isinstance(params, Parameters):
            return ()
        return ((f"court-{self.other_mode(params)}",) if params.compare_modes else ()) + \
            ((self.precedents_arm(params),) if params.compare_precedents else ()) + \
            ((self.orders_arm(params),) if params.compare_orders else ()) + \
            tuple(f"court-{tag}" for tag in self.shot_tags(params))

    def shot_tags(self, params: Parameters) -> list[str]:
        """``compare_shots``: per number of precedents, the bench in the verdict's mode and, with
        ``compare_modes``, the one in the other way's (``court-0-shot``, ``court-sequential-0-shot``)."""
        return [tag for k in params.shots()
                for tag in (shot_tag(k), *((shot_tag(k, self.other_mode(params)),) if params.compare_modes else ()))]

    def baseline_shots(self, params: BaseModel) -> tuple[int, ...]:
        return tuple(params.shots()) if isinstance(params, Parameters) else ()

    @staticmethod
    def judge_agent_name(n: int, tag: str = "") -> str:
        return f"judge-{n}-{tag}" if tag else f"judge-{n}"

    def judge_agent(self, court: Court, n: int, tag: str = "") -> Agent:
        """Judge ``n`` of the bench; with ``tag``, judge ``n`` of a bench that sits beside the
        verdict's: the other way's (``compare_modes``, tagged by its mode) or the one reading the
        other precedents (``compare_precedents``, tagged ``random`` or ``similar``) or the one reading
        labels and arguments in the other order (``compare_orders``, tagged ``shuffled`` or ``fixed``)
        or one reading another number of precedents (``compare_shots``, tagged ``0-shot`` or, in the
        other way, ``sequential-0-shot``)."""
        k = shots_of(tag)
        title = f"Judge {n}" + (f" · {tag}" if tag in MODES else f" · {tag} order" if tag in ORDER_TAGS
                                else f" · {precedents_phrase(k)}" + ("" if tag == shot_tag(k) else f", {tag.split('-')[0]}")
                                if k is not None else f" · {tag} precedents" if tag else "")
        name = self.judge_agent_name(n, tag)
        agent = court.agent(name, "judge", title, "judgment", temperature=court.params.judge_temperature)
        specs = court.params.judge_specs()
        if specs:
            spec = ModelSpec.parse(specs[(n - 1) % len(specs)], where="[procedures.classification] judge_models")
            spec = spec.resolved(court.settings)
            agent = replace(agent, spec=spec, backend=court.pool.get(spec))
        return agent

    def judge_prompt(self, court: Court, n: int, first: str, second: str, arguments: dict[str, dict[str, Any]],
                     cited: str, previous: dict[str, Any] | None, tag: str = "") -> str:
        p = court.params
        sequential = p.bench_mode(tag) == "sequential" and n > 1
        labels, sides = p.reads_shuffled(tag)
        one, two = deliberation.label_order(court, [first, second], self.judge_agent_name(n, tag), shuffle=labels)
        heard = deliberation.argument_order(court, list(SIDES), self.judge_agent_name(n, tag), shuffle=sides)
        return self.render(
            "judge", first=first, second=second, one=one, two=two, number=n, judges=p.judges,
            precedents=f"\n{cited}" if cited else "",
            arguments="\n\n".join(f'THE {side.upper()} argues for "{arguments[side]["label"]}":\n{quoted(arguments[side])}'
                                   for side in heard),
            previous=self.render("previous", **previous) if sequential and previous else "",
            build="; say where you agree with the previous judge and where you do not" if sequential else "",
        )

    def choose(self, court: Court, choice: str, k: int | None = None) -> list[Any]:
        """The precedents the judges read, chosen by ``choice`` (similar or random): ``precedents``
        of them, or ``k`` (a ``compare_shots`` bench)."""
        p = court.params
        k = p.precedents if k is None else k
        return precedents(case_labels.case_text(court.case), court.case.inputs.get("pool") or p.precedent_pool,
                          k=k, choice=choice, method=p.retrieval, seed=court.seed,
                          pool_seed=seed_of(court.case.inputs.get("pool_seed")))

    @staticmethod
    def kept_hits(hits: list[Any]) -> list[dict[str, Any]]:
        return [{"rank": h.rank, "score": h.score, "label": h.example.label, "id": h.example.id,
                 "text": h.example.text[:300], "reason": h.example.reason} for h in hits]

    async def judge(self, court: Court, first: str, second: str, sides: dict[str, str],
                    arguments: dict[str, dict[str, Any]], ambiguous: bool | None, *, compare: bool = True) -> None:
        p = court.params
        hits = self.choose(court, p.precedent_choice)
        court.keep("precedents", self.kept_hits(hits))
        decisions: dict[int, dict[str, Any]] = {}
        other: dict[int, dict[str, Any]] = {}  # compare_modes: the other way's bench, judge 1 shared
        besides: dict[int, dict[str, Any]] = {}  # compare_precedents: the bench that read the other precedents
        reordered: dict[int, dict[str, Any]] = {}  # compare_orders: the bench that read in the other order
        shots: dict[str, dict[int, dict[str, Any]]] = {}  # compare_shots: per tag, a bench reading another number
        stopped: dict[str, dict[str, int]] = {}  # stop_when_stable: per bench's tag, the judges not seated
        pair = [first, second]

        async def sit(n: int, previous: dict[str, Any] | None, into: dict[int, dict[str, Any]], tag: str = "",
                      read: list[Any] = hits) -> None:
            """Judge ``n`` decides, into ``into``; with ``tag``, as judge ``n`` of a bench beside the
            verdict's, reading the precedents ``read``."""
            agent = self.judge_agent(court, n, tag)
            grammar = agent.constrained
            order = deliberation.label_order(court, pair, agent.name, shuffle=p.reads_shuffled(tag)[0])
            schema = refine_schema(JudgeReply, {"label": {"enum": order},
                                                "reasoning": {"pattern": word_pattern(8, 120, latin=court.latin)} if grammar else {}})

            def check(reply: JudgeReply) -> list[Problem]:
                if match_label(reply.label, pair) is None:
                    return [Problem("judge_label", f'"{reply.label}" is neither "{first}" nor "{second}"; decide one of them')]
                return []

            prompt = self.judge_prompt(court, n, first, second, arguments, precedents_text(read), previous, tag)
            answer = await court.ask(agent, prompt, JudgeReply, schema=schema, check=check,
                                     inputs={"first": first, "second": second, "number": n, "sides": sides,
                                             "previous": previous, "precedents": [h.example.label for h in read],
                                             **({"mode": tag} if tag in MODES else {"order": tag} if tag in ORDER_TAGS
                                                else {"shots": shots_of(tag), "mode": p.bench_mode(tag)}
                                                if shots_of(tag) is not None
                                                else {"precedent_choice": tag} if tag else {})})
            court.settle(agent, answer, skip={"judge_label"})
            label = match_label(answer.value.label, pair)
            if label is None:
                label = first
                court.warn(agent.name, "judge_label", f"judge {n} named no label of the two ({answer.value.label!r}); "
                           f"counted for the hearing's first, {first}")
            decision = {"number": n, "label": label, "reasoning": answer.value.reasoning,
                        "confidence": answer.value.confidence, "model": str(agent.spec), "agent": agent.name}
            into[n] = decision
            court.finish(agent, decision, title=f"{agent.title} · {label}", repaired=answer.repaired,
                         markdown=f"**Decides:** {label} · own estimate {answer.value.confidence:.0%}\n\n"
                                  f"{answer.value.reasoning}")
            if into is decisions:
                court.tally(pair, {lab: sum(d["label"] == lab for d in decisions.values()) for lab in pair},
                            pending=p.judges - len(decisions), seated=p.judges, title="Bench")

        async def bench(start: int, into: dict[int, dict[str, Any]], tag: str = "", read: list[Any] = hits) -> None:
            if p.bench_mode(tag) == "parallel":
                await asyncio.gather(*(sit(n, None, into, tag, read) for n in range(start, p.judges + 1)))
                return
            for n in range(start, p.judges + 1):
                before = len(court.record.calls)
                await sit(n, into.get(n - 1), into, tag, read)
                left = p.judges - n
                if p.stop_when_stable and left and n > 1 and into[n]["label"] == into[n - 1]["label"]:
                    # the bench's position stopped changing: the judges after n are not seated, each
                    # counted as costing what judge n did
                    saved = deliberation.tokens_since(court, before) * left
                    stopped[tag] = {"rounds_skipped": left, "tokens_saved": saved}
                    court.warn("bench", "stopped_early", f"the sequence{f' ({tag})' if tag else ''} ended after judge "
                               f"{n}, who kept judge {n - 1}'s label; {left} judge{'s' if left != 1 else ''} not "
                               f"seated, about {saved:,} tokens saved", stage="judgment")
                    if into is decisions:
                        court.tally(pair, {lab: sum(d["label"] == lab for d in decisions.values()) for lab in pair},
                                    pending=0, seated=len(decisions), title="Bench")
                    return

        planned = [(self.judge_agent(court, n), "") for n in range(1, p.judges + 1)]
        async with court.stage("judgment", planned=planned) as stage:
            court.tally(pair, dict.fromkeys(pair, 0), pending=p.judges, seated=p.judges, title="Bench")
            for hit in hits:
                court.item("precedent", f"Precedent {hit.rank} · {hit.example.label}", True, number=hit.rank,
                           detail=f'"{hit.example.text[:300]}"' + (f"\n\n{hit.example.reason}" if hit.example.reason else ""),
                           line=f"precedent {hit.rank}: {hit.example.label} (score {hit.score:.2f})")
            await bench(1, decisions)
            if p.compare_modes and compare:
                # the other way shares the hearing, the arguments and judge 1 (whose prompt is the same
                # either way); with one judge the two ways are the same
                other[1] = decisions[1]
                await bench(2, other, self.other_mode(p))
            if p.compare_precedents and compare:
                # the whole bench again, in the verdict's mode, on the same hearing and arguments, each
                # judge reading the other choice's precedents (judge 1's prompt differs too)
                read = self.choose(court, p.other_choice())
                court.keep("precedents_beside", {"choice": p.other_choice(), "precedents": self.kept_hits(read)})
                await bench(1, besides, p.other_choice(), read)
            if p.compare_orders and compare:
                # the whole bench again, in the verdict's mode, on the same hearing, arguments and
                # precedents, each judge reading the labels and arguments the other way
                await bench(1, reordered, p.order_tag())
            if p.shots() and compare:
                # per number of precedents, the whole bench again in the verdict's mode on the same
                # hearing and arguments, each judge reading that many (chosen as the verdict's are);
                # with compare_modes the other way too, sharing that bench's judge 1
                kept: dict[str, list[dict[str, Any]]] = {}  # the precedents each number's bench read
                for k in p.shots():
                    read = self.choose(court, p.precedent_choice, k)
                    kept[str(k)] = self.kept_hits(read)
                    sat = shots[shot_tag(k)] = {}
                    await bench(1, sat, shot_tag(k), read)
                    if p.compare_modes:
                        theirs = shots[shot_tag(k, self.other_mode(p))] = {1: sat[1]}
                        await bench(2, theirs, shot_tag(k, self.other_mode(p)), read)
                court.keep("precedents_shots", kept)
            self.conclude(court, first, second, decisions, sides, ambiguous, stage, other, besides, reordered, shots,
                          stopped)

    @staticmethod
    def resolve(mode: str, ordered: list[dict[str, Any]], first: str, second: str) -> tuple[str, str, dict[str, int], bool]:
        """The bench's label, how it was reached, the votes and whether they tied: the last judge's
        in sequence; in parallel the majority's, a tie going to the hearing's first label."""
        votes = {label: sum(d["label"] == label for d in ordered) for label in (first, second)}
        if mode == "sequential":
            return ordered[-1]["label"], f"the last of {len(ordered)} judges in sequence", votes, False
        tie = votes[first] == votes[second]
        label = first if votes[first] >= votes[second] else second
        how = (f"a tie {votes[first]}–{votes[second]}, which goes to the hearing's first label" if tie
               else "the one judge" if len(ordered) == 1 else f"the majority of {len(ordered)} judges")
        return label, how, votes, tie

    def conclude(self, court: Court, first: str, second: str, decisions: dict[int, dict[str, Any]],
                 sides: dict[str, str], ambiguous: bool | None, stage: Any,
                 other: dict[int, dict[str, Any]] | None = None,
                 besides: dict[int, dict[str, Any]] | None = None,
                 reordered: dict[int, dict[str, Any]] | None = None,
                 shots: dict[str, dict[int, dict[str, Any]]] | None = None,
                 stopped: dict[str, dict[str, int]] | None = None) -> None:
        p = court.params
        stopped = stopped or {}
        ordered = [decisions[n] for n in sorted(decisions)]
        label, how, votes, tie = self.resolve(p.mode, ordered, first, second)
        if tie:
            court.warn("bench", "tie", f"the judges tied {votes[first]}–{votes[second]}; the hearing's first label, "
                       f"{first}, decides", stage="judgment")
        share = votes[label] / len(ordered)
        backing = [d["confidence"] for d in ordered if d["label"] == label]
        split = f"{votes[first]}–{votes[second]}"
        side = next(s for s, lab in sides.items() if lab == label)
        arms: dict[str, Any] = {}
        beside = ""
        if other:
            mode = self.other_mode(p)
            theirs = [other[n] for n in sorted(other)]
            other_label, other_how, other_votes, other_tie = self.resolve(mode, theirs, first, second)
            arms[f"court-{mode}"] = {
                "mode": mode, "label": other_label, "split": f"{other_votes[first]}–{other_votes[second]}",
                "tie": other_tie, "judges": theirs,
                # the calls only this way made, and the verdict's own calls it did without
                "only": [d["agent"] for d in theirs[1:]], "without": [d["agent"] for d in ordered[1:]],
            }
            way = "in sequence" if mode == "sequential" else "in parallel"
            beside = (f" Decided {way} on the same hearing and arguments, the bench would say **{other_label}** "
                      f"({other_how}).")

        def whole_bench(name: str, sat: dict[int, dict[str, Any]], reading: str, mode: str = p.mode, **about: Any) -> str:
            """A whole bench that sat beside the verdict's, in its mode (``compare_precedents``,
            ``compare_orders``) or in ``mode`` (``compare_shots``): kept as an arm, and said in a sentence."""
            theirs = [sat[n] for n in sorted(sat)]
            their_label, their_how, their_votes, their_tie = self.resolve(mode, theirs, first, second)
            arms[name] = {"mode": mode, **about, "label": their_label, "tie": their_tie, "judges": theirs,
                          "split": f"{their_votes[first]}–{their_votes[second]}",
                          "only": [d["agent"] for d in theirs], "without": [d["agent"] for d in ordered]}
            if about.get("order"):  # did this bench's votes follow the orders it read the labels in?
                check = deliberation.order_check(court, {d["agent"]: d["label"] for d in theirs}, [first, second],
                                                 "judges", shuffle=p.reads_shuffled(about["order"])[0])
                if check:
                    arms[name]["order_check"] = check
            return f" {reading}, on the same hearing and arguments, the bench would say **{their_label}** ({their_how})."

        if besides:
            choice = p.other_choice()
            read = "random precedents" if choice == "random" else "the most similar precedents"
            beside += whole_bench(self.precedents_arm(p), besides, f"Reading {read} instead", precedent_choice=choice)
        if reordered:
            tag = p.order_tag()
            way = {"shuffled": "each in its own order", "fixed": "in one order"}.get(tag, "the other way")
            beside += whole_bench(self.orders_arm(p), reordered, f"Reading the labels and arguments {way}", order=tag)
        for tag, sat in (shots or {}).items():
            k, mode = shots_of(tag), p.bench_mode(tag)
            way = "" if mode == p.mode else " in sequence" if mode == "sequential" else " in parallel"
            beside += whole_bench(f"court-{tag}", sat, f"Reading {precedents_phrase(k or 0)}{way}", mode, shots=k)
        # each bench in sequence read against its twin in parallel (compare_modes: the same hearing,
        # arguments, precedents and judge 1): which judges moved from the label they chose alone
        other_way = self.other_mode(p)
        twin = {"": f"court-{other_way}", f"court-{other_way}": "",
                **{f"court-{shot_tag(k)}": f"court-{shot_tag(k, other_way)}" for k in p.shots()},
                **{f"court-{shot_tag(k, other_way)}": f"court-{shot_tag(k)}" for k in p.shots()}}
        tags = {"": "", f"court-{other_way}": other_way, self.precedents_arm(p): p.other_choice(),
                self.orders_arm(p): p.order_tag(), **{f"court-{t}": t for t in (shots or {})}}
        benches = {"": (p.mode, ordered), **{name: (arm["mode"], arm["judges"]) for name, arm in arms.items()}}
        verdict_conformity: dict[str, Any] | None = None
        for name, (mode, judges) in benches.items():
            if mode != "sequential":
                continue
            pair_of = benches.get(twin.get(name, "-"))
            alone = pair_of[1] if pair_of and pair_of[0] == "parallel" else None
            conf = deliberation.sequence_conformity(alone, judges, stopped.get(tags.get(name, "-"), {}))
            if alone is None and not conf["rounds_skipped"]:
                continue  # nothing measured: no twin to read it against, no early stop
            if name:
                arms[name]["conformity"] = conf
            else:
                verdict_conformity = conf
        if (seq := arms.get(f"court-{other_way}", {}).get("conformity")) and seq["rounds"]:
            beside += f" In sequence, {deliberation.sequence_moved(seq)}."
        court.keep("decision", {"label": label, "mode": p.mode, "votes": votes, "tie": tie, "side": side,
                                **({"arms": {k: {x: v[x] for x in ("label", "split", "tie")} for k, v in arms.items()}}
                                   if arms else {})})
        stage.state = f"{label} ({split})"
        polarity = label.lower() if label.lower() in ("yes", "no") else None
        court.conclude(Outcome(
            answer=f"Label: {label}", label=label, polarity=polarity,  # type: ignore[arg-type]
            decided_by="the bench" if p.mode == "parallel" else "the last judge",
            confidences=[
                Confidence(kind="vote_share", label="judges' vote share", value=share,
                           basis=f"{votes[label]} of {len(ordered)} judges"),
                Confidence(kind="self_reported", label="judges' own estimate",
                           value=sum(backing) / len(backing) if backing else 0.0,
                           basis="the mean of the judges who chose it"),
            ],
            markdown=(f"**{label}**, by {how} ({split}); argued by the {side}. The hearing ranked {first} "
                      f"first and {second} second." + (" The text is ambiguous: sampled hearings disagreed."
                                                       if ambiguous else "") + beside),
            data={"split": split, "votes": votes, "tie": tie, "first": first, "second": second,
                  "sides": sides, "mode": p.mode, "ambiguous": ambiguous, **({"arms": arms} if arms else {}),
                  **({"conformity": verdict_conformity} if verdict_conformity else {}),
                  **deliberation.order_data(court, {d["agent"]: d["label"] for d in ordered}, [first, second], "judges")},
        ))

    # ---------------------------------------------------------------- how far the verdict holds

    async def fragility(self, court: Court) -> dict[str, Any] | None:
        """Decide again without the passage that carried the verdict: of the verified passages the
        winning counsel quoted, the one the majority's reasons state most (``cited_most``),
        withheld from the text and struck from the arguments that quoted it. The hearing, the
        sides and the rest of the arguments stay; the bench sits again in its own mode."""
        out = court.record.outputs
        decision, hearing, drawn = out.get("decision"), out.get("hearing"), out.get("sides")
        if not (decision and hearing and drawn and all(s in out for s in SIDES)):
            return None
        label, side = decision["label"], decision["side"]
        quotes = [q["quote"] for q in out[side].get("quotes", []) if q.get("verified")]
        if not quotes:
            return {"held": None, "removed": "", "summary": f"not run: the {side} quoted no verified passage of the "
                                                           "text, so none can be withheld"}
        bench = [out[k] for k in sorted(out, key=lambda k: (len(k), k)) if re.fullmatch(r"judge-\d+", k)]
        quote = deliberation.cited_most(dict(enumerate(quotes)), [j["reasoning"] for j in bench if j["label"] == label],
                           [j["reasoning"] for j in bench]) if len(quotes) > 1 else 0
        passage = quotes[quote]
        shadow = court.shadow("fragility")
        if not shadow.withhold(passage, "[passage withheld]"):
            court.warn("fragility", "fragility_passage", f"the {side}'s passage was not found in the text as the "
                       "judges read it, so the second bench still read it", stage="judgment")
        elif not shadow.evidence_left():
            return {"held": None, "removed": "", "summary": f'not run: the {side}\'s passage "{shorten(passage, 80)}" '
                    "is the whole text, so withholding it would leave the judges the arguments alone"}
        arguments = {s: {**out[s], "quotes": [q for q in out[s].get("quotes", []) if q["quote"] != passage]}
                     for s in SIDES}  # struck wherever it was quoted, as it is from the text
        await self.judge(shadow, hearing["first"], hearing["second"], {s: drawn[s] for s in SIDES}, arguments,
                         None, compare=False)
        court.absorb(shadow)
        again = shadow.record.outputs["decision"]
        held = again["label"] == label
        split = f"{again['votes'][hearing['first']]}–{again['votes'][hearing['second']]}"
        short = shorten(passage, 80)
        summary = f'without the {side}\'s passage "{short}", the judges decide {again["label"]} ({split})'
        if not held:
            summary = f'the verdict rests on the {side}\'s passage "{short}": {summary}'
        return {"held": held, "removed": f'the {side}\'s passage "{short}"', "split": split,
                "answer": f"Label: {again['label']}", "way": "the same way" if held else "the other way",
                "summary": summary}

    # ---------------------------------------------------------------- helpers and the dry run

    @staticmethod
    def _choices(court: Court) -> list[str]:
        return case_labels.passages(court.readable)

    async def plan(self, court: Court) -> None:
        labels = case_labels.check(court.case)
        self.pool(court, load=False)
        p = court.params
        first, second = "[the hearing's first label]", "[its alternative]"
        court.plan_prompt("hearing", court.agent("magistrate", "magistrate", stage="hearing"),
                          self.render("hearing", labels=" / ".join(f'"{label}"' for label in labels)), HearingReply)
        for side, label in zip(SIDES, ("[the label drawn for it]", "[the other label]"), strict=True):
            court.plan_prompt("argument", court.agent(side, side, side.capitalize(), "argument"),
                              self.argue_prompt(court, first, second, side, label), ArgumentReply)
        arguments = {s: {"label": f"[the {s}'s label]", "argument": f"[the {s}'s argument and verified quotes]"}
                     for s in SIDES}
        def planned(choice: str, k: int = p.precedents) -> str:
            kind = "random" if choice == "random" else "most similar"
            return f"PRECEDENTS: [the {k} {kind} labelled examples]\n" if k else ""

        cited = planned(p.precedent_choice)
        previous = {"number": "n-1", "label": "[its label]", "confidence": "[its estimate]", "reasoning": "[its reasoning]"}
        for n in range(1, p.judges + 1):
            court.plan_prompt("judgment", self.judge_agent(court, n),
                              self.judge_prompt(court, n, first, second, arguments, cited, previous), JudgeReply)
        if p.compare_modes:
            mode = self.other_mode(p)
            for n in range(2, p.judges + 1):
                court.plan_prompt("judgment", self.judge_agent(court, n, mode),
                                  self.judge_prompt(court, n, first, second, arguments, cited, previous, mode), JudgeReply)
        if p.compare_precedents:
            choice = p.other_choice()
            read = planned(choice)
            for n in range(1, p.judges + 1):
                court.plan_prompt("judgment", self.judge_agent(court, n, choice),
                                  self.judge_prompt(court, n, first, second, arguments, read, previous, choice), JudgeReply)
        if p.compare_orders:
            tag = p.order_tag()
            for n in range(1, p.judges + 1):
                court.plan_prompt("judgment", self.judge_agent(court, n, tag),
                                  self.judge_prompt(court, n, first, second, arguments, cited, previous, tag), JudgeReply)
        for tag in self.shot_tags(p):
            read = planned(p.precedent_choice, shots_of(tag) or 0)
            for n in range(1 if tag == shot_tag(shots_of(tag) or 0) else 2, p.judges + 1):
                court.plan_prompt("judgment", self.judge_agent(court, n, tag),
                                  self.judge_prompt(court, n, first, second, arguments, read, previous, tag), JudgeReply)


datasets.install()  # rte, boolq, qnli, anli, emotion for `courtroom eval` (a registry entry each, nothing read)
