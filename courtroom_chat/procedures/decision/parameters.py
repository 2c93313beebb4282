"""The decision court's parameters, ``[procedures.decision]`` in config.toml, and the jurors' outlooks."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

# Outlooks that lean neither way: each weighs both the cost of acting and the cost of not
# acting (three of five first-release personas were cautious by description).
PERSONAS = (
    "a pragmatic engineer who weighs benefits against costs",
    "a risk officer who weighs what could go wrong against what is already going wrong",
    "a product owner who weighs the value of acting now against the value of waiting",
    "an auditor who trusts verified facts over claims, from either side",
    "an advocate for the people the decision affects, now and later",
    "a newcomer who asks what is really known, for and against",
    "a maintainer who has seen both rushed and needlessly delayed decisions",
    "a manager who counts the time and money of acting and of not acting",
)

# The first release's outlooks (persona_set = "first-release"), kept to measure how much they
# tilt a verdict: three of the first five are cautious by description.
FIRST_RELEASE_PERSONAS = (
    "a pragmatic engineer who weighs benefits against costs",
    "a cautious risk officer who looks first for what could go wrong",
    "an optimistic product owner who values momentum and shipping",
    "a strict auditor who trusts only verified evidence",
    "an advocate for the people the decision affects",
    "a skeptical newcomer who asks what is really known",
    "a seasoned maintainer who has seen similar decisions go wrong",
    "a cost-conscious manager who counts time and money",
)


class Parameters(BaseModel):
    """[procedures.decision] in config.toml."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    jury_size: int = Field(5, ge=1, le=25, description="Jurors seated")
    jury_threshold: int = Field(3, ge=1, le=25, description="Votes one way the jury needs to decide (below it the judge "
                                                            "breaks the tie); with rule = threshold, votes to act "
                                                            "needed to reach the judge")
    rule: Literal["majority", "threshold"] = Field("majority", description="majority: the jury decides either way, the "
                                                   "judge writes the ruling; threshold: the first release's rule (a Yes "
                                                   "needs the threshold and the judge, a No only the jury)")
    juror_temperature_min: float = Field(0.2, ge=0.0, le=2.0, description="Lowest juror temperature")
    juror_temperature_max: float = Field(0.8, ge=0.0, le=2.0, description="Highest juror temperature")
    judge_temperature: float = Field(0.2, ge=0.0, le=2.0, description="Judge temperature")
    advocate_temperature: float = Field(0.4, ge=0.0, le=2.0, description="Prosecutor and defense temperature")
    max_exhibits: int = Field(3, ge=1, le=12, description="Exhibits the prosecutor may file")
    require_exact_quotes: bool = Field(True, description="Keep unverified exhibits from the jury")
    min_harm_words: int = Field(8, ge=0, le=200, description="Words in each exhibit's harm")
    min_juror_words: int = Field(30, ge=0, le=500, description="Words in each juror's facts and reasoning")
    shuffle_labels: bool = Field(False, description="Each juror sees the vote labels in its own seeded order (off: "
                                                    "every juror lists them as the single call does, yes first; "
                                                    "measured on the 1.5B, a juror shown no first said No to far more "
                                                    "Yes cases, and yes first did not tilt the No cases)")
    jury_asks: Literal["motion", "question", "plain"] = Field(
        "plain", description="What each juror is asked: to weigh what speaks for the motion against what speaks "
        "against it and vote in the motion's words; to answer the question yes or no as a juror (outlook, "
        "abstention); or plain: exactly what the single-call baseline is asked, word for word (no outlook, no "
        "abstention, its own system prompt), so the jury is a majority of plain calls; measured best on whole "
        "trials, 20 of 20)")
    personas: bool = Field(True, description="Each juror is given an outlook of its own (off: every juror is "
                                             "told only to decide on the evidence)")
    persona_set: Literal["balanced", "first-release"] = Field(
        "balanced", description="The outlooks jurors are given (with personas on, jury_asks motion or question): "
        "balanced, each weighing the cost of acting and of not acting; or the first release's, three of the first "
        "five cautious by description, kept to measure how far they tilt a verdict")
    abstain: bool = Field(True, description="A juror may abstain when the evidence cannot decide it (off: every "
                                            "juror votes one way)")
    jury_reads: Literal["exhibits", "evidence"] = Field("evidence", description="What each juror reads besides the "
                                                         "evidence: nothing more (the evidence and the motion, as a "
                                                         "single call reads them; measured better on whole trials), or "
                                                         "the verified exhibits of both sides as one numbered list")
    juror_system: Literal["court", "juror"] = Field("court", description="The system prompt jurors read: the "
                                                    "court's, shared by every role (it names a prosecutor who argues "
                                                    "YES and a defense who argues NO), or a juror's own that names "
                                                    "no side (costs one more read of the case)")
    juror_pattern: bool = Field(True, description="Decode each juror's reasoning under a word pattern (single "
                                                  "spaces, no quotation marks, bounded words and count); false: a "
                                                  "plain string of bounded length, as the baselines are decoded")
    spell_answers: bool = Field(False, description="A plain juror (and the baselines of a decision evaluation) "
                                                   "reads what yes and no mean for this question beside each answer, "
                                                   "from the motion rules (\"yes\" (postpone the move) or \"no\" "
                                                   "(do not postpone the move)); off by default: on ten held-out "
                                                   "cases it moved the 1.5B's errors on questions asked the other way "
                                                   "(postpone, delay) without removing them (2026-11-28)")
    ruling_facts: bool = Field(True, description="The judge's rationale restates facts of the evidence that decide "
                                                 "it and its actions are next steps for the person who asked, checked "
                                                 "and repaired once (a 1.5B judge wrote rationales of the sides' "
                                                 "invented harms and actions such as \"confidence: 0.8\"); false: "
                                                 "the ruling as asked before 2026-11-28, unchecked")
    juror_consistency: Literal["answer", "reasoning", "off"] = Field(
        "answer", description="A juror whose reasoning argues, in its own voice, for one answer (\"the committee "
        "should reject the proposal\") while it answers the other is asked again once with the reason. If it still "
        "does, answer: its answer counts, warned, and the How sure block names it; reasoning: its vote counts as its "
        "reasoning concludes (on the 1.5B it fixed one clear case and broke another, 2026-11-28); off: no such check. "
        "Asked again, none of six 1.5B jurors changed its answer")
    ask_direct: bool = Field(False, description="A plain juror asked a question whose Yes means not going ahead "
                                                "(\"Should we cancel the contract?\") answers it asked the direct way "
                                                "(\"Should we keep the contract?\") and its answer counts the other "
                                                "way; the prosecutor, the defense and the judge keep the question as "
                                                "asked. Off by default: on the 1.5B's eight clear cases of that shape "
                                                "it moved the misses from the hold-back cases to the go-ahead ones "
                                                "(trials 5 of 8 either way, juror votes 25 of 40 against 24; "
                                                "2026-11-28)")
    balance_options: bool = Field(True, description="A question choosing between two options (\"Design A or "
                                                    "B?\", tried as \"Should we choose Design A rather than Design "
                                                    "B?\") is put to every second plain juror with the options the "
                                                    "other way round, and its answer counts the other way, so a "
                                                    "model's lean to yes or no does not favour the option named "
                                                    "first or second; false: every juror is asked as the question is")
    hold_back_as_choice: bool = Field(False, description="A question whose Yes means not going ahead (\"Should we "
                                                        "cancel our contract with X?\") is tried as the choice between "
                                                        "holding back and going ahead (\"Should we cancel our contract "
                                                        "with X rather than keep our contract with X?\"), answered "
                                                        "\"Yes: cancel …\" / \"No: keep …\"; with balance_options, "
                                                        "every second plain juror hears the options the other way round. "
                                                        "Off by default: on 14 clear cases of that shape (six held out) "
                                                        "the 1.5B court followed the evidence in 10 against 9 as asked, "
                                                        "juror votes 41 of 70 against 42 (2026-11-29)")
    balance_answers: bool = Field(False, description="Every second plain juror is asked the question turned "
                                                     "around (its mirror: \"Should I not merge PR 12?\", \"Should "
                                                     "ICLR 2017 reject this paper?\") and its answer counts the other "
                                                     "way. Off: on the 1.5B, jurors asked the question turned "
                                                     "around followed the evidence 18 times in 72 and the 36 clear "
                                                     "cases fell from 33 to 31 (2026-11-28); the model answers the "
                                                     "evidence's mood, not the question")
    shuffle_exhibits: bool = Field(False, description="Each juror reads the exhibits in its own seeded order "
                                                      "(costs the shared prompt cache)")

    shuffle_evidence: bool = Field(False, description="Each juror reads the evidence documents in its own seeded "
                                                      "order (each juror then reads the whole case anew, without "
                                                      "the shared prompt cache)")

    def outlook(self, number: int) -> str:
        """Juror ``number``'s outlook: none for a plain juror or with personas off."""
        if not self.personas or self.jury_asks == "plain":
            return ""
        outlooks = FIRST_RELEASE_PERSONAS if self.persona_set == "first-release" else PERSONAS
        return outlooks[(number - 1) % len(outlooks)]

    @model_validator(mode="after")
    def _consistent(self) -> Parameters:
        if self.jury_threshold > self.jury_size:
            raise ValueError(f"jury_threshold ({self.jury_threshold}) is larger than jury_size ({self.jury_size})")
        if self.juror_temperature_min > self.juror_temperature_max:
            raise ValueError("juror_temperature_min is larger than juror_temperature_max")
        if self.jury_asks == "plain" and self.jury_reads != "evidence":
            raise ValueError('jury_reads = "exhibits" needs jury_asks = "motion" or "question": a plain juror '
                             '(jury_asks = "plain", the default) reads the evidence alone, as a single call does')
        if self.ask_direct and self.jury_asks != "plain":
            raise ValueError('ask_direct needs jury_asks = "plain" (the default): jurors asked in the motion\'s '
                             'words ("motion", "question") vote on the motion as the prosecutor framed it')
        if self.shuffle_exhibits and self.jury_reads != "exhibits":
            raise ValueError('shuffle_exhibits needs jury_reads = "exhibits" (with jury_asks = "motion" or '
                             '"question"): jurors who read the evidence alone are shown no exhibit list to shuffle')
        return self

    def vote_labels(self) -> list[str]:
        """The votes a juror may cast, in the court's own words."""
        return ["act", "do not act", "abstain"] if self.abstain and self.jury_asks != "plain" else ["act", "do not act"]

    def juror_temperatures(self) -> list[float]:
        """Temperatures spread evenly from min to max, one per juror."""
        n, lo, hi = self.jury_size, self.juror_temperature_min, self.juror_temperature_max
        if n == 1:
            return [round((lo + hi) / 2, 3)]
        return [round(lo + (hi - lo) * i / (n - 1), 3) for i in range(n)]
