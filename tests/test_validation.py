"""Each validation rule: broken once and repaired, or broken twice and recorded as a warning."""

from __future__ import annotations

import json
import re

import pytest

from courtroom_chat.backends.scripted import ScriptedBackend
from courtroom_chat.case import load_case
from courtroom_chat.engine import Trial
from courtroom_chat.errors import RoleOutputError
from tests.conftest import CASES, motion_jury

QUOTE = "1 failed, 37 passed in 2.41s"
OTHER_QUOTE = "I have not tested the Retry-After path against the real payments sandbox yet."
REAL_HARM = "Checkout retries keep failing on Retry-After dates, so customers lose orders during the next outage."
GOOD_REASONING = ("I weighed exhibit 1 against the defense's challenge. " * 12).strip()


def case():
    return load_case(CASES / "code-commit.json")


def prosecution(quote=QUOTE, harm=REAL_HARM, n=1):
    return {
        "motion": "merge PR #214 now",
        "case_statement": "The retry fix is needed before the release; the remaining failure is narrow.",
        "exhibits": [{"source_quote": quote, "target_quote": "PR #214", "harm": harm}] * n,
        "harm_analysis": "Customers keep losing checkouts during outages.",
    }


async def trial(script, settings, **kw):
    backend = ScriptedBackend(script=script)
    events = []
    record = await Trial(case(), settings, store=None, backends={"scripted": backend}, **kw).run(events.append)
    return record, backend, events


def rules(record):
    return {w.rule for w in record.warnings}


async def test_unverified_exhibit_is_shown_what_failed_and_repaired(scripted_settings):
    wrong = "1 failed, 36 passed in 2.41 seconds"
    record, backend, events = await trial({"prosecutor": [prosecution(wrong), prosecution()]}, scripted_settings)
    first, second = [c for c in backend.calls if c.role == "prosecutor"]
    correction = second.repairs[0][1]
    assert wrong in correction and QUOTE in correction  # the failed quote and the nearest real passage
    assert "test-log.txt:15 " in correction and "% similar" in correction
    assert record.prosecution.exhibits[0].verified and record.prosecution.exhibits[0].attempt == 2
    assert "exhibit_unverified" not in rules(record)
    assert any(e.type == "agent_retry" and e.agent == "prosecutor" for e in events)


def listed(settings):
    """Jurors who read both sides' exhibits as a list (jury_reads = exhibits), where what the
    jury is shown of the exhibits can be checked in its prompt."""
    return settings.with_params("decision", {"jury_reads": "exhibits", "jury_asks": "motion"})


async def test_exhibit_still_unverified_is_kept_from_the_jury(scripted_settings):
    invented = "all 38 tests pass and the payments sandbox confirmed the Retry-After path"
    script = {"prosecutor": prosecution(invented)}
    record, backend, _ = await trial(script, listed(scripted_settings))
    exhibit = record.prosecution.exhibits[0]
    assert not exhibit.verified and exhibit.nearest is not None and exhibit.nearest.similarity < 1
    assert "exhibit_unverified" in rules(record)
    juror_prompt = next(c for c in backend.calls if c.role == "juror").prompt
    assert invented not in juror_prompt and "(none: no passage was quoted and verified" in juror_prompt
    assert record.status == "complete"


async def test_unverified_exhibits_are_admitted_when_exact_quotes_are_not_required(scripted_settings):
    settings = scripted_settings.with_params("decision", {"require_exact_quotes": False, "jury_reads": "exhibits", "jury_asks": "motion"})
    invented = "all 38 tests pass and the payments sandbox confirmed it"
    record, backend, _ = await trial({"prosecutor": prosecution(invented)}, settings)
    juror_prompt = next(c for c in backend.calls if c.role == "juror").prompt
    assert invented in juror_prompt and "(unverified)" in juror_prompt


async def test_vague_harm_is_repaired_or_warned(scripted_settings):
    repaired, _, _ = await trial({"prosecutor": [prosecution(harm="bad"), prosecution()]}, scripted_settings)
    assert "harm_specific" not in rules(repaired)
    kept, _, _ = await trial({"prosecutor": prosecution(harm="It is bad.")}, scripted_settings)
    assert any(w.rule == "harm_specific" and "the harm has 3 words" in w.message for w in kept.warnings)


def defense(challenges=((1, "weakens"),), counter=None):
    return {
        "counter_argument": counter or "Merging PR #214 now ships a retry fix whose Retry-After path crashes on dates; "
        "the release can wait one day for the fix.",
        "exhibit_challenges": [{"exhibit": n, "challenge": "It shows a failure, not readiness.", "effect": e}
                               for n, e in challenges],
        "harm_dispute": "Outages are rare.",
        "alternative": "Fix the date parsing first.",
    }


async def test_defense_must_challenge_every_admitted_exhibit_by_number(scripted_settings):
    script = {"prosecutor": prosecution(), "defense": [defense(challenges=()), defense()]}
    record, backend, _ = await trial(script, scripted_settings)
    correction = [c for c in backend.calls if c.role == "defense"][1].repairs[0][1]
    assert "no challenge names exhibit 1" in correction
    assert "defense_exhibits" not in rules(record)
    script = {"prosecutor": prosecution(), "defense": defense(challenges=((2, "weakens"), (7, "refutes")))}
    kept, _, _ = await trial(script, scripted_settings)
    messages = [w.message for w in kept.warnings if w.rule == "defense_exhibits"]
    assert any("exhibit 1" in m for m in messages) and any("exhibits 2, 7, which are not admitted" in m for m in messages)
    # one challenge per exhibit, numbered wrong (a grammar allows a repeated number): taken in order
    script = {"prosecutor": prosecution(), "defense": defense(challenges=((7, "refutes"),))}
    ordered, _, _ = await trial(script, scripted_settings)
    assert "defense_exhibits" not in rules(ordered) and ordered.defense.exhibit_challenges[0].exhibit == 1


async def test_defense_must_address_the_core_claim(scripted_settings):
    off_topic = "The weather is lovely and lunch was excellent today in the office garden with friends."
    script = {"prosecutor": prosecution(), "defense": defense(counter=off_topic)}
    record, _, _ = await trial(script, scripted_settings)
    assert any(w.rule == "defense_core_claim" and "merge PR #214" in w.message for w in record.warnings)


async def test_juror_reasoning_needs_fifty_words(scripted_settings):
    scripted_settings = motion_jury(scripted_settings)
    short = {"reasoning": "Looks fine to me.", "vote": "act"}
    good = {"reasoning": GOOD_REASONING, "vote": "act"}
    record, backend, _ = await trial({"juror-1": [short, good]}, scripted_settings)
    assert record.jury.jurors[0].reasoning == GOOD_REASONING
    assert "juror_words" not in rules(record)
    kept, _, _ = await trial({"juror-1": short}, scripted_settings)
    assert any(w.agent == "juror-1" and "the reasoning has 4 words" in w.message for w in kept.warnings)
    assert kept.jury.jurors[0].vote == "guilty"  # the vote stands, the warning is recorded


async def test_plain_labels_are_mapped_to_verdict_words(scripted_settings):
    scripted_settings = motion_jury(scripted_settings)
    votes = ["act", "do not act", "abstain", "Don't act", "guilty"]
    script = {f"juror-{i}": {"reasoning": GOOD_REASONING, "vote": v} for i, v in enumerate(votes, 1)}
    record, _, _ = await trial(script, scripted_settings)
    assert [j.vote for j in record.jury.jurors] == ["guilty", "not_guilty", "abstain", "not_guilty", "guilty"]


def judge(reasoning, decision="act", actions=("Fix the date parsing, then merge",)):
    return {"reasoning": reasoning, "decision": decision, "answer": "merge after the fix",
            "rationale": "The fix is needed: 1 failed, 37 passed.", "actions": list(actions), "confidence": 0.8}


async def test_the_rationale_restates_a_fact_and_the_actions_are_not_about_the_trial(scripted_settings):
    """Seen on the 1.5B (2026-11-28): a rationale of the jury's vote and a prediction, no fact, and
    actions "The prosecution should present additional evidence …" and "confidence: 0.8"."""
    votes = {f"juror-{i}": {"reasoning": GOOD_REASONING, "vote": "act"} for i in range(1, 6)}
    vague = judge("The prosecution wins. The defense loses. The jury agreed.", actions=(
        "The prosecution should present additional evidence", "confidence: 0.8")) | {
        "rationale": "The jury voted 5 to act, which will keep customers happy."}
    grounded = vague | {"rationale": "The log shows 37 passed and 1 failed, a narrow failure.",
                        "actions": ["Fix the date parsing, then merge"]}
    record, backend, _ = await trial({"prosecutor": prosecution(), **votes, "judge": [vague, grounded]}, scripted_settings)
    first, second = [c for c in record.calls if c.role == "judge"]
    assert "rationale names no fact of the evidence" in " ".join(first.problems)
    assert any('action 1 ("The prosecution should' in p for p in first.problems)
    # "confidence: 0.8" is taken as the confidence field, not asked about as an action (issue 86)
    assert not any("confidence: 0.8" in p for p in first.problems)
    assert "the verified exhibits quote them" in first.messages[-1]["content"]  # asked so from the start
    assert not second.problems and record.verdict.actions == ["Fix the date parsing, then merge"]
    # off, the judge is asked and checked as before
    off = scripted_settings.with_params("decision", {"ruling_facts": False})
    record, backend, _ = await trial({"prosecutor": prosecution(), **votes, "judge": [vague]}, off)
    [only] = [c for c in record.calls if c.role == "judge"]
    assert not only.problems and "one sentence naming the facts that decide it." in only.messages[-1]["content"]
    assert record.verdict.rationale == vague["rationale"]


def test_actions_about_the_trial_are_told_from_next_steps():
    from courtroom_chat.procedures.decision.rules import ruling_problems
    from courtroom_chat.procedures.decision.wire import JudgeReply

    actions = ["wait for further instructions from the court", "confidence", "The defense should present more",
               "File the motion with the court", "Tell the defense team", "Renew the contract for a year",
               "Merge PR #311 now, as the jury decided"]
    reply = JudgeReply(reasoning="x", decision="act", rationale="Uptime was 99.98%.", actions=actions, confidence=0.5)
    flagged = [p.message.split('"')[1] for p in ruling_problems(reply, "Should we renew?", [])]
    assert flagged == actions[:3]  # the rest are steps in the world, whatever words they share with a trial


async def test_judge_must_weigh_both_sides_acknowledge_a_split_and_give_actions(scripted_settings):
    split_votes = {f"juror-{i}": {"reasoning": GOOD_REASONING, "vote": v}
                   for i, v in enumerate(["act", "act", "act", "do not act", "do not act"], 1)}
    one_sided = judge("The prosecution is right.", actions=())
    fixed = judge("The prosecution outweighs the defense; the jury split 3-2 and I weighed the minority.")
    record, backend, _ = await trial({**split_votes, "judge": [one_sided, fixed]}, scripted_settings)
    correction = [c for c in backend.calls if c.role == "judge"][1].repairs[0][1]
    assert "both the prosecution and the defense" in correction
    assert "split 3–2" in correction and "list the concrete actions" in correction
    assert not rules(record) & {"judge_both_sides", "judge_split", "judge_actions"}
    assert record.verdict.answer == "Yes: merge PR #214 (retry with backoff for the HTTP client) now"
    kept, _, _ = await trial({**split_votes, "judge": one_sided}, scripted_settings)
    assert {"judge_both_sides", "judge_split", "judge_actions"} <= rules(kept)


async def test_malformed_json_is_repaired_once(scripted_settings):
    record, backend, _ = await trial({"defense": ["Sure! Here is my answer: {not json", defense()]}, scripted_settings)
    second = [c for c in backend.calls if c.role == "defense"][1]
    assert "the reply is not valid JSON" in second.repairs[0][1]
    assert record.status == "complete"
    calls = [c for c in record.calls if c.role == "defense"]
    assert [c.ok for c in calls] == [False, True]


async def test_a_reply_cut_at_its_token_limit_is_asked_again_for_the_short_form(scripted_settings):
    """A reply that stops at max_tokens before its JSON closes is not called "invalid JSON": the
    repair says it was cut and asks for shorter fields."""
    long_case = defense() | {"counter_argument": defense()["counter_argument"] + " It fails again." * 400}
    record, backend, _ = await trial({"defense": [long_case, defense()]}, scripted_settings)
    first, second = [c for c in record.calls if c.role == "defense"]
    assert first.finish_reason == "length" and not first.ok
    assert "reached its token limit" in backend.calls[[c.role for c in backend.calls].index("defense") + 1].repairs[0][1]
    assert second.ok and record.status == "complete"


async def test_output_invalid_twice_fails_the_run_with_the_raw_text(scripted_settings):
    bad = {"motion": "merge", "case_statement": "x"}  # no exhibits, no harm_analysis
    with pytest.raises(RoleOutputError, match="the prosecutor .* gave invalid output twice: field exhibits: Field required") as err:
        await trial({"prosecutor": bad}, scripted_settings)
    assert '"case_statement": "x"' in err.value.raw
    assert err.value.record.status == "failed"


async def test_a_juror_with_invalid_output_twice_leaves_a_partial_panel(scripted_settings):
    record, _, _ = await trial({"juror-3": {"reasoning": GOOD_REASONING, "vote": "maybe"}}, scripted_settings)
    assert record.jury.voted == 4 and record.jury.jurors[2].status == "failed"
    assert "voted 'maybe', none of the choices" in record.jury.jurors[2].error


async def test_code_fences_and_prose_around_json_are_tolerated(scripted_settings):
    import json

    fenced = "```json\n" + json.dumps(defense()) + "\n```"
    record, _, _ = await trial({"prosecutor": prosecution(), "defense": fenced}, scripted_settings)
    assert [c.attempt for c in record.calls if c.role == "defense"] == [1]


# Two to act, two not to, one abstaining: no majority, so the judge decides.
TIED = {f"juror-{i}": {"reasoning": GOOD_REASONING, "vote": v}
        for i, v in enumerate(["act", "act", "do not act", "do not act", "abstain"], 1)}


NO = "No: do not merge PR #214 (retry with backoff for the HTTP client) now"


async def test_the_plain_answer_is_built_from_the_decision_whatever_the_judge_writes(scripted_settings):
    """The answer is the question's motion or its negation, by the decision: a judge's own
    "answer" (asked for by earlier versions) that contradicts the decision cannot reach it."""
    votes = TIED
    contradiction = judge("The prosecution is right. The defense is weaker. The jury was split 2-2.", decision="do not act")
    contradiction["answer"] = "merge PR #214 now"
    record, _, _ = await trial({"prosecutor": prosecution(), **votes, "judge": contradiction}, scripted_settings)
    assert record.verdict.decision == "not_guilty"
    assert record.verdict.answer == NO
    assert "judge_answer" not in rules(record)


async def test_confidence_in_percent_is_read_as_a_fraction(scripted_settings):
    votes = {f"juror-{i}": {"reasoning": GOOD_REASONING, "vote": "act"} for i in range(1, 6)}
    percent = judge("The prosecution wins. The defense loses. The jury agreed.")
    percent["confidence"] = 85
    record, _, _ = await trial({"prosecutor": prosecution(), **votes, "judge": percent}, scripted_settings)
    assert record.verdict.confidence == 0.85


async def test_a_jury_refusal_answers_no_to_the_motion_not_with_the_defense_alternative(scripted_settings):
    votes = {f"juror-{i}": {"reasoning": GOOD_REASONING, "vote": "do not act"} for i in range(1, 6)}
    restating = defense() | {"alternative": "Merge PR #214 now with the retry fix."}  # a small model's "alternative"
    motion = prosecution() | {"motion": "Merge PR #214 now"}
    record, _, _ = await trial({"prosecutor": motion, "defense": restating, **votes}, scripted_settings)
    assert record.verdict.decided_by == "jury" and record.verdict.decision == "not_guilty"
    assert record.verdict.answer == NO


async def test_an_answer_off_the_subject_cannot_reach_the_verdict(scripted_settings):
    votes = TIED
    ruling = judge("The prosecution is right. The defense is weaker. The jury was split 2-2.", decision="do not act")
    ruling["answer"] = "No: weigh the evidence alone on the evidence alone"  # seen from a 0.5B judge
    record, _, _ = await trial({"prosecutor": prosecution(), "defense": defense(), **votes, "judge": ruling},
                               scripted_settings)
    assert record.verdict.answer == NO


async def test_grammar_backends_get_patterns_that_hold_the_rules(scripted_settings):
    """A backend that decodes under a grammar is handed patterns that make the rules hold by
    construction: the defense opens on the motion, the judge names both sides and the jury."""
    scripted_settings = motion_jury(scripted_settings)
    import json
    import re

    from courtroom_chat.injection import prompt_leaks
    from courtroom_chat.procedures import get
    from courtroom_chat.procedures.base import literal_pattern

    class GrammarScripted(ScriptedBackend):
        constrained_decoding = True

    backend = GrammarScripted(script={"prosecutor": prosecution() | {"motion": "Merge PR #214 (the retry fix) now"}})
    record = await Trial(case(), scripted_settings, store=None, backends={"scripted": backend}).run()
    defense_schema = next(c for c in backend.calls if c.role == "defense").schema
    pattern = defense_schema["properties"]["counter_argument"]["pattern"]
    assert pattern.startswith("^We should not merge PR [#]214 [(]retry with backoff for the HTTP client[)] now because ")
    assert re.fullmatch(pattern, "We should not merge PR #214 (retry with backoff for the HTTP client) now because "
                                 "the Retry-After test still fails in the log.")
    # the motion comes from the question by rule: the prosecutor copies it exactly
    motion = next(c for c in backend.calls if c.role == "prosecutor").schema["properties"]["motion"]
    assert motion["enum"] == ["merge PR #214 (retry with backoff for the HTTP client) now"]
    assert not re.fullmatch(pattern, "Merging is risky because the Retry-After test fails in the log.")
    # the harm dispute opens on a sentence of the court's own, never the instructions' words
    # (a 1.5B asked why "the harms are overstated or avoidable" opened with them and was repaired)
    dispute = defense_schema["properties"]["harm_dispute"]["pattern"]
    for opened in ("The harm is overstated because the crash rate is 2% and falling.",
                   "The harm can be avoided without acting because a hotfix can ship the one line."):
        assert re.fullmatch(dispute, opened)
        assert prompt_leaks(json.dumps({"harm_dispute": opened}), get("decision").instructions(), min_words=6) == []
    assert not re.fullmatch(dispute, "The harms are overstated or avoidable because the crash rate is 2%.")
    assert set(defense_schema["required"]) == set(defense_schema["properties"])  # a grammar writes every field
    juror_schema = next(c for c in backend.calls if c.role == "juror").schema
    # jurors weigh in prose, then vote (asked for lists of facts first, the 1.5B filled "for" with
    # whatever fact came first)
    assert list(juror_schema["properties"]) == ["reasoning", "vote"]
    assert juror_schema["required"] == ["reasoning", "vote"]
    weighing = juror_schema["properties"]["reasoning"]["pattern"]  # at least the 30 words asked
    assert re.fullmatch(weighing, " ".join(["word"] * 30)) and not re.fullmatch(weighing, " ".join(["word"] * 29))
    assert not re.fullmatch(weighing, " ".join(["word"] * 59 + ["loop" * 20]))  # no endless "word"
    # the upper bound is generous: a juror who is not done may finish its sentence
    assert re.fullmatch(weighing, " ".join(["word"] * 150))
    # an English case keeps Chinese, Japanese and Korean characters out of the text
    assert not re.fullmatch(weighing, " ".join(["word"] * 30 + ["设计A"]))
    # juror_pattern = false: a plain bounded string, as the baselines are decoded (measured worse)
    plain = GrammarScripted(script={"prosecutor": prosecution()})
    settings = scripted_settings.with_params("decision", {"juror_pattern": False})
    await Trial(case(), settings, store=None, backends={"scripted": plain}).run()
    free = next(c for c in plain.calls if c.role == "juror").schema["properties"]["reasoning"]
    assert "pattern" not in free and free["maxLength"] == 1400
    statement = next(c for c in backend.calls if c.role == "prosecutor").schema["properties"]["case_statement"]
    assert re.fullmatch(statement["pattern"], "Merging fixes the crash. " * 10) and not re.fullmatch(statement["pattern"], "instead of设计A")
    harm = next(c for c in backend.calls if c.role == "prosecutor").schema["$defs"]["ExhibitReply"]["properties"]["harm"]
    assert re.fullmatch(harm["pattern"], REAL_HARM) and not re.fullmatch(harm["pattern"], "It is bad.")
    assert record.status == "complete"
    assert literal_pattern('say "hi"') is None and literal_pattern("a.b") == "a[.]b"


async def test_a_reply_in_another_script_is_repaired_once(scripted_settings):
    """An English case: a reply that drifts into Chinese is asked again, then warned."""
    words = " ".join(["The evidence supports merging."] * 14)
    backend = ScriptedBackend(script={"juror-1": [{"reasoning": f"{words} instead of设计A we should", "vote": "act"},
                                                  {"reasoning": words, "vote": "act"}]})
    record = await Trial(case(), scripted_settings, store=None, backends={"scripted": backend}).run()
    first, second = [c for c in record.calls if c.agent == "juror-1"]
    assert any("another script (设计)" in p for p in first.problems) and second.ok and not second.problems
    assert "设计" not in record.jury.jurors[0].reasoning


async def test_a_question_without_evidence_asks_for_arguments_not_quotes(scripted_settings):
    from courtroom_chat.case import new_case

    backend = ScriptedBackend()
    record = await Trial(new_case("Should we adopt a four-day week?"), scripted_settings, store=None,
                         backends={"scripted": backend}).run()
    [prosecutor] = [c for c in record.calls if c.role == "prosecutor"]  # one call: nothing to repair
    assert "nothing to quote" in prosecutor.messages[1]["content"] and record.prosecution.exhibits == []
    evidence = record.outcome.confidence("evidence")
    assert evidence == 0.0
    assert "rests on argument alone" in record.outcome.markdown or "argument alone" in str(record.outcome.confidences)


async def test_a_juror_whose_facts_all_point_one_way_cannot_vote_the_other(scripted_settings):
    """Facts found on one side only and a vote for the other side: the juror is asked once more;
    if it still contradicts itself the vote stands and the verdict carries the warning."""
    scripted_settings = motion_jury(scripted_settings)
    against_only = {"facts_for": "none", "facts_against": "Exhibit 1: 1 failed, 37 passed in 2.41s, a test still fails.",
                    "reasoning": GOOD_REASONING, "vote": "act"}
    revised = {**against_only, "vote": "do not act"}
    record, backend, _ = await trial({"juror-1": [against_only, revised]}, scripted_settings)
    correction = [c for c in backend.calls if c.role == "juror" and c.agent == "juror-1"][1].repairs[0][1]
    assert 'your facts support only "do not merge PR #214' in correction and "yet you voted" in correction
    assert record.jury.jurors[0].vote == "not_guilty" and "juror_contradiction" not in rules(record)

    kept, _, _ = await trial({"juror-1": against_only}, scripted_settings)
    assert kept.jury.jurors[0].vote == "guilty"
    assert any(w.agent == "juror-1" and w.rule == "juror_contradiction" for w in kept.warnings)


@pytest.mark.parametrize("facts_for, facts_against, vote", [
    ("Exhibit 1 shows the fix works.", "none", "act"),          # consistent
    ("Exhibit 1 shows the fix works.", "Exhibit 2: one test fails.", "do not act"),  # both sides: a weighing
    ("None found.", "None.", "abstain"),                       # nothing either way
    ("", "Exhibit 2: one test fails.", "abstain"),             # abstaining contradicts nothing
])
async def test_a_vote_that_goes_with_the_jurors_facts_is_not_questioned(scripted_settings, facts_for, facts_against, vote):
    scripted_settings = motion_jury(scripted_settings)
    reply = {"facts_for": facts_for, "facts_against": facts_against, "reasoning": GOOD_REASONING, "vote": vote}
    record, backend, _ = await trial({"juror-1": reply}, scripted_settings)
    assert len([c for c in backend.calls if c.agent == "juror-1"]) == 1
    assert "juror_contradiction" not in rules(record)


async def test_a_prosecution_exhibit_the_defense_quotes_for_its_side_counts_for_neither(scripted_settings):
    """The prosecutor must file something; when its own quote tells against the motion, the
    defense quotes it back. That is not a duplicate to drop: the fact is claimed by both sides,
    the jurors are told so, and the evidence confidence no longer counts it for acting."""
    turned = {**defense(challenges=((1, "refutes"),)),
              "exhibits": [{"source_quote": QUOTE, "shows": "A test still fails, so the fix is not ready."}]}
    votes = {f"juror-{i}": {"reasoning": GOOD_REASONING, "vote": "act"} for i in range(1, 6)}
    record, backend, _ = await trial({"prosecutor": prosecution(), "defense": turned, **votes}, listed(scripted_settings))
    assert record.defense.turned == [1] and record.defense.exhibits == []
    assert "exhibit_duplicate" not in rules(record)
    juror_prompt = next(c for c in backend.calls if c.role == "juror").prompt
    assert juror_prompt.count(QUOTE) == juror_prompt[juror_prompt.index("EXHIBITS:"):].count(QUOTE) == 1
    basis = record.verdict.evidence_basis
    assert (basis["exhibits_for"], basis["exhibits_against"], basis["exhibits_contested"]) == (0, 0, 1)
    from courtroom_chat.procedures.decision.answer import evidence_basis_text

    assert evidence_basis_text(basis) == ("1 verified exhibit, 1 cited by both sides: none stands for either side, "
                                          "so the evidence gives no figure")
    # no figure (a 0 would read as evidence against the verdict): the outcome says why instead
    assert record.outcome.confidence("evidence") is None
    assert record.outcome.data["evidence_unscored"] == evidence_basis_text(basis)
    refuted = {**basis, "exhibits_contested": 0, "verified": 2}
    assert evidence_basis_text(refuted).startswith("2 verified exhibits, 2 refuted: none stands")

    plain, _, _ = await trial({"prosecutor": prosecution(), "defense": defense(), **votes}, scripted_settings)
    assert plain.defense.turned == [] and plain.verdict.evidence_basis["exhibits_for"] == 1


async def test_jurors_weigh_both_sides_exhibits_as_one_list_with_no_side_named(scripted_settings):
    """A prosecutor obliged to argue Yes may file the very facts that say No; jurors who read
    them as "filed by the prosecution" counted them for acting. Jurors read every verified
    exhibit of both sides in one numbered list, with neither side's name nor argument."""
    own = {**defense(), "exhibits": [{"source_quote": OTHER_QUOTE, "shows": "It shows a reason not to act."}]}
    record, backend, _ = await trial({"prosecutor": prosecution(), "defense": own}, listed(scripted_settings))
    assert [e.verified for e in record.defense.exhibits] == [True]
    prompt = next(c for c in backend.calls if c.role == "juror").prompt
    jury_part = prompt[prompt.index("THE MOTION:"):]
    assert QUOTE in jury_part and OTHER_QUOTE in jury_part
    for spin in (record.prosecution.case_statement, record.defense.counter_argument, record.defense.harm_dispute,
                 record.defense.alternative):
        assert spin not in prompt
    assert not re.search(r"(?i)filed by|prosecution'?s? exhibits|defense'?s? exhibits", jury_part)


CUT = ("The log shows 1 failed and 37 passed: the retry fix works for most dates. The jury voted 3 to act, with 2 not to act. "
       "The jury")  # a rationale cut at its length limit, as the 1.5B's was (issue 10)


NO_SENTENCE = "The evidence shows the retry fix works for most dates and the jury"  # nothing whole to end at


async def test_prose_that_stops_mid_sentence_is_repaired_once_with_its_last_words(scripted_settings):
    votes = {f"juror-{i}": {"reasoning": GOOD_REASONING, "vote": "act"} for i in range(1, 6)}
    cut = judge("The prosecution wins. The defense loses. The jury agreed.") | {"rationale": NO_SENTENCE}
    whole = cut | {"rationale": "The retry fix works and the jury agreed."}
    record, backend, _ = await trial({"prosecutor": prosecution(), **votes, "judge": [cut, whole]}, scripted_settings)
    first, second = [c for c in backend.calls if c.role == "judge"]
    correction = second.repairs[0][1]
    assert "the rationale stops mid-sentence" in correction and "…for most dates and the jury" in correction
    assert record.verdict.rationale == "The retry fix works and the jury agreed."
    assert not {"unfinished", "unfinished_shortened"} & set(rules(record))


async def test_prose_with_a_whole_sentence_before_the_cut_is_shortened_without_asking_again(scripted_settings):
    """A repair of such a field mostly came back the same (7 of 16 on ICLR): the code ends it
    at its last whole sentence, and the verdict says so."""
    votes = {f"juror-{i}": {"reasoning": GOOD_REASONING, "vote": "act"} for i in range(1, 6)}
    cut = judge("The prosecution wins. The defense loses. The jury agreed.") | {"rationale": CUT}
    record, backend, _ = await trial({"prosecutor": prosecution(), **votes, "judge": [cut, cut]}, scripted_settings)
    assert len([c for c in backend.calls if c.role == "judge"]) == 1
    assert record.verdict.rationale == ("The log shows 1 failed and 37 passed: the retry fix works for most dates. The jury voted "
                                        "3 to act, with 2 not to act.")
    warning = next(w for w in record.warnings if w.rule == "unfinished_shortened")
    assert warning.agent == "judge" and "ends at its last whole sentence" in warning.message


async def test_an_action_cut_at_its_bound_reaches_the_verdict_ended_at_its_sentence(scripted_settings):
    """Seen on the 1.5B (2026-11-26): an action ran into its 250-character bound and the verdict
    listed it ending "…better customer support,"."""
    votes = {f"juror-{i}": {"reasoning": GOOD_REASONING, "vote": "act"} for i in range(1, 6)}
    reply = judge("The prosecution wins. The defense loses. The jury agreed.") | {
        "actions": ["Merge the fix. For example, we can then tell support and", "Watch the crash rate"]}
    record, backend, _ = await trial({"prosecutor": prosecution(), **votes, "judge": reply}, scripted_settings)
    assert len([c for c in backend.calls if c.role == "judge"]) == 1
    assert record.verdict.actions == ["Merge the fix.", "Watch the crash rate"]


def test_a_sentence_written_again_word_for_word_is_left_out_and_counted():
    from courtroom_chat.replies import unrepeated

    text = ("The prosecution shows all 14 tickets were answered in 4 hours. The defense disputes the price. "
            "All 14 tickets were answered within the 4 hours. the prosecution shows ALL 14 tickets were "
            "answered in 4 hours! The jury voted 3 to 2.")
    assert unrepeated(text) == ("The prosecution shows all 14 tickets were answered in 4 hours. The defense disputes "
                                "the price. All 14 tickets were answered within the 4 hours. The jury voted 3 to 2.", 1)
    assert unrepeated("Yes. Yes. Yes.") == ("Yes. Yes. Yes.", 0)  # short sentences may repeat
    assert unrepeated("No repeats here at all in this one. None.") == ("No repeats here at all in this one. None.", 0)


def test_sentences_copied_from_another_agent_are_left_out_and_counted():
    from courtroom_chat.replies import unrepeated

    theirs = "Both reviewers recommend design B, making it the clear choice. Acting now helps."
    text = ("We should not build design B because the queue adds an operations burden. Both reviewers "
            "recommend design B, making it the clear choice! The queue needs an on-call rota we lack.")
    assert unrepeated(text, known=theirs) == ("We should not build design B because the queue adds an operations "
                                              "burden. The queue needs an on-call rota we lack.", 1)
    assert unrepeated("Acting now helps. Acting now helps.", known=theirs) == ("Acting now helps. Acting now helps.", 0)


async def test_the_defense_copying_the_prosecutions_sentences_shows_its_own_and_says_so(scripted_settings):
    """Seen on the 1.5B (2026-12-01): on ten of the twenty clear cases the defense wrote sentences of
    the prosecution's case word for word, "Acting now will ensure that the billing database is
    operational" and "Both reviewers recommend design B, making it the clear choice" among them."""
    copied = "The retry fix is needed before the release; the remaining failure is narrow."
    own = "Merging PR #214 now ships a retry fix whose Retry-After path crashes on dates; the release can wait."
    reply = defense(counter=f"{own} {copied}") | {"harm_dispute": "Customers keep losing checkouts during outages."}
    record, backend, _ = await trial({"prosecutor": prosecution(), "defense": reply}, scripted_settings)
    assert len([c for c in backend.calls if c.role == "defense"]) == 1  # not asked again for it
    assert record.defense.counter_argument == own
    assert record.defense.harm_dispute == "Customers keep losing checkouts during outages."  # all of it copied: kept
    warnings = [w.message for w in record.warnings if w.rule == "copied_sentences"]
    assert warnings == ["the defense's counter argument repeated 1 of the prosecution's sentences word for word; it is "
                        "left out of it (the reply as written is kept in the record)",
                        "the defense's harm dispute is the prosecution's sentences word for word"]
    assert copied in next(c for c in record.calls if c.role == "defense").response


async def test_the_judge_repeating_a_sentence_shows_it_once_and_says_so(scripted_settings):
    """Seen on the 1.5B (2026-11-26): a judge wrote "Moving away would take an estimated 3 months
    of work." three times in one reasoning."""
    votes = {f"juror-{i}": {"reasoning": GOOD_REASONING, "vote": "act"} for i in range(1, 6)}
    again = "Moving away would take an estimated three months of work."
    reply = judge(f"The prosecution wins. {again} The defense loses. {again} The jury agreed. {again}")
    record, backend, _ = await trial({"prosecutor": prosecution(), **votes, "judge": reply}, scripted_settings)
    assert len([c for c in backend.calls if c.role == "judge"]) == 1  # not asked again for it
    assert record.verdict.reasoning.count(again) == 1
    assert record.verdict.reasoning == f"The prosecution wins. {again} The defense loses. The jury agreed."
    warning = next(w for w in record.warnings if w.rule == "repeated_sentences")
    assert warning.agent == "judge" and "repeated 2 sentences" in warning.message
    judged = next(c for c in record.calls if c.role == "judge")
    assert judged.response.count(again) == 3  # the reply as written is kept in the record


async def test_a_repair_asked_for_another_rule_also_names_the_shortened_field(scripted_settings):
    votes = {f"juror-{i}": {"reasoning": GOOD_REASONING, "vote": "act"} for i in range(1, 6)}
    cut = judge("The prosecution wins. The defense loses. The jury agreed.") | {"rationale": CUT, "actions": []}
    fixed = cut | {"actions": ["Merge the fix."], "rationale": "The retry fix works."}
    record, backend, _ = await trial({"prosecutor": prosecution(), **votes, "judge": [cut, fixed]}, scripted_settings)
    correction = [c for c in backend.calls if c.role == "judge"][1].repairs[0][1]
    assert "list the concrete actions" in correction and "the rationale stopped mid-sentence" in correction
    assert record.verdict.rationale == "The retry fix works."


async def test_prose_still_cut_after_the_repair_ends_at_its_last_whole_sentence(scripted_settings):
    votes = {f"juror-{i}": {"reasoning": GOOD_REASONING + " The fix", "vote": "act"} for i in range(1, 6)}
    cut = judge("The prosecution wins. The defense loses. The jury agreed.") | {"rationale": CUT}
    record, _, _ = await trial({"prosecutor": prosecution(), **votes, "judge": cut}, scripted_settings)
    assert record.verdict.rationale == ("The log shows 1 failed and 37 passed: the retry fix works for most dates. The jury voted "
                                        "3 to act, with 2 not to act.")
    assert "unfinished_shortened" in rules(record)  # shown on the verdict as a warning, not hidden
    assert "unfinished" in rules(record)  # the jurors are still asked again, and still cut
    assert all(j.reasoning == GOOD_REASONING for j in record.jury.jurors)  # "The fix" dropped, not left dangling


def test_finished_shortens_at_a_sentence_or_a_word_never_mid_word():
    from courtroom_chat.replies import finished, unfinished

    assert not unfinished('Done (see exhibit 2).') and not unfinished('He said "go."') and not unfinished("Wait…")
    assert finished("This will result in a 38%") == "This will result in a…"
    assert finished("All tests pass. Two approvals. 12% of sessions cra") == "All tests pass. Two approvals."
    assert finished("Ends well.") == "Ends well."


def test_an_action_cut_at_its_bound_ends_at_its_sentence_and_a_phrase_keeps_its_words():
    from courtroom_chat.replies import finished_item

    cut = ("We should consider other ranking strategies. For example, we can improve the results "
           "and provide better customer support,")
    assert finished_item(cut) == "We should consider other ranking strategies."
    assert finished_item("Merge the PR") == "Merge the PR"  # an imperative phrase is not cut
    assert finished_item("Record the decision and review it in two weeks,") == \
        "Record the decision and review it in two weeks"
    assert finished_item("  Tell the team.  ") == "Tell the team."


def test_a_part_closed_at_its_bound_by_the_grammar_ends_at_its_last_sentence():
    from courtroom_chat.replies import finished_parts

    heads = ["The prosecution ", ". The defense ", ". The jury "]
    cut = "argues the cost. It says the cost is high and the team is sma"  # the grammar's stop follows
    text = f"The prosecution shows the tests pass. The defense {cut}. The jury agreed."
    assert finished_parts(text, heads, len(cut)) == \
        "The prosecution shows the tests pass. The defense argues the cost. The jury agreed."
    assert finished_parts(text, heads, 700) == text  # short of its bound: as written
    no_sentence = "argues the cost is high and the team is sma"
    assert finished_parts(f"The prosecution wins. The defense {no_sentence}. The jury agreed.", heads,
                          len(no_sentence)) == "The prosecution wins. The defense argues the cost is high and the team is\u2026 The jury agreed."
    assert finished_parts("Another shape entirely.", heads, 5) == "Another shape entirely."


async def test_the_judges_reasoning_cut_mid_word_at_a_parts_bound_ends_at_its_sentence(scripted_settings):
    """Seen on the 1.5B (2026-11-26): a judge repeating itself filled the defense's part of its
    reasoning to the grammar's 700 characters, and the grammar closed it mid-word."""
    from courtroom_chat.procedures.decision import JUDGE_PART

    class GrammarScripted(ScriptedBackend):
        constrained_decoding = True

    votes = {f"juror-{i}": {"reasoning": GOOD_REASONING, "vote": "act"} for i in range(1, 6)}
    said = "says the fix may hide other failures in the client. "
    words = " ".join(f"Point {i} of the defense is weak." for i in range(60))
    part = (said + words)[:JUDGE_PART]
    assert not part.endswith(".")  # cut mid-sentence where the bound fell
    reply = judge(f"The prosecution shows the tests pass. The defense {part}. The jury agreed.")
    backend = GrammarScripted(script={"prosecutor": prosecution(), **votes, "judge": reply})
    record = await Trial(case(), scripted_settings, store=None, backends={"scripted": backend}).run()
    reasoning = record.verdict.reasoning
    assert reasoning.startswith("The prosecution shows the tests pass. The defense says the fix may hide")
    assert reasoning.endswith("is weak. The jury agreed.") and ". ." not in reasoning
    assert len([c for c in backend.calls if c.role == "judge"]) == 1  # not asked again for it


async def test_the_judges_longest_reply_under_the_grammar_fits_its_token_cap(scripted_settings):
    """The grammar's bounds and the judge's max_tokens agree: a judge who writes every field to
    its bound still closes its JSON (the 0.5B cut at the cap twice when the bounds were raised
    alone). Counted at 3 characters a token, fewer than English text averages."""
    from courtroom_chat.procedures import get

    class GrammarScripted(ScriptedBackend):
        constrained_decoding = True

    backend = GrammarScripted(script={"prosecutor": prosecution()})
    await Trial(case(), scripted_settings, store=None, backends={"scripted": backend}).run()
    schema = next(c for c in backend.calls if c.role == "judge").schema["properties"]
    # every text the grammar makes the judge write is bounded; the plain answer, built from the
    # decision, is not asked for at all (left in the schema, a 0.5B judge ran out of tokens in it)
    assert "answer" not in schema
    assert all({"pattern", "enum"} & set(field) or field.get("type") != "string" for field in schema.values()), schema

    def longest(pattern: str) -> int:
        return sum(int(high) for high in re.findall(r"\{\d+,(\d+)\}", pattern)) + len(re.sub(r"\{\d+,\d+\}", "", pattern))

    actions = schema["actions"]
    chars = (longest(schema["reasoning"]["pattern"]) + longest(schema["rationale"]["pattern"])
             + actions["maxItems"] * longest(actions["items"]["pattern"]) + 200)  # keys, confidence, punctuation
    cap = next(r for r in get("decision").roles if r.name == "judge").max_tokens
    assert chars / 3 < cap, (chars, cap)


async def test_the_prosecutors_quote_choices_leave_out_lines_that_only_repeat_the_question(scripted_settings):
    """Decoded under a grammar, an exhibit's quote is one of the evidence's lines; a line whose
    every word is in the question (the option's own name in a list) is not offered."""
    from courtroom_chat.case import Case, pasted_document

    class GrammarScripted(ScriptedBackend):
        constrained_decoding = True

    name = "1. Use a message queue for the billing events"
    fact = "The queue was load-tested at 5,000 events per second with no loss."
    evidence = pasted_document(f"Considered options:\n{name}\n2. Call the billing service directly\n{fact}\n", 1)
    question = "Should we use a message queue for the billing events?"
    backend = GrammarScripted()
    await Trial(Case(question=question, context=[evidence]), scripted_settings, store=None,
                backends={"scripted": backend}).run()
    schema = str(next(c for c in backend.calls if c.role == "prosecutor").schema)
    assert fact in schema and "Call the billing service directly" in schema
    assert name not in schema


@pytest.mark.parametrize(("reply", "kept"), [
    ('{"a": 1, "text": "Intro. ' + "The same passage again and again. " * 5, {"a": 1, "text": "Intro. The same passage again and again."}),
    ('{"list": ["x", "so on ' + "and so on and so forth " * 6, {"list": ["x", "so on and so on and so forth"]}),
    ('{"text": "本院认为，被告人有罪。' + "被告人周某退出违法所得，本院认为应当从宽处理。" * 4, {"text": "本院认为，被告人有罪。被告人周某退出违法所得，本院认为应当从宽处理。"}),
])
def test_a_reply_that_loops_to_its_limit_is_cut_after_the_first_copy(reply, kept):
    from courtroom_chat.replies import unlooped

    assert json.loads(unlooped(reply)) == kept


@pytest.mark.parametrize("reply", [
    '{"text": "once. once."}',  # two copies, and closed: nothing to cut
    '{"text": "' + "a different sentence each time, number %d. ",  # no loop
    '{"a": "x", "' + "keykeykeykeykey" * 5,  # the loop is in a key: no value to keep
    '{"text": "' + "short " * 3,
])
def test_a_reply_that_does_not_end_in_a_loop_is_not_cut(reply):
    from courtroom_chat.replies import unlooped

    assert unlooped(reply) == ""


@pytest.mark.parametrize(("reply", "kept"), [
    ('{"text": "被告人颜某，男。因涉嫌聚众斗殴罪被抓获。经依法审查查明：2017年11月17日晚，同案人何某甲因生意纠纷指使人员到',
     {"text": "被告人颜某，男。因涉嫌聚众斗殴罪被抓获。"}),
    ('{"a": 1, "text": "The build took 3.5 minutes. All 214 tests passed. The reviewer asked for', {"a": 1, "text":
     "The build took 3.5 minutes. All 214 tests passed."}),
])
def test_a_reply_cut_at_its_limit_is_kept_to_its_last_full_sentence(reply, kept):
    from courtroom_chat.replies import at_last_sentence

    assert json.loads(at_last_sentence(reply)) == kept


@pytest.mark.parametrize("reply", [
    '{"text": "no sentence has ended in this reply yet and it',
    '{"text": "Done.", "other_key_cut_o',  # the sentence ends in a closed string: the cut is in a key
])
def test_a_cut_reply_with_no_full_sentence_in_its_open_string_is_not_kept(reply):
    from courtroom_chat.replies import at_last_sentence

    assert at_last_sentence(reply) == ""


def test_a_ruling_field_written_among_the_actions_is_taken_as_that_field_not_an_action():
    """Issue 86, item 5: the 1.5B judge put "confidence: 0.8" among its actions; asked again, its
    repair was cut off. The field is taken where the schema says, and is never an action."""
    from courtroom_chat.procedures.decision.wire import JudgeReply

    base = {"reasoning": "The prosecution and the defense were weighed.", "decision": "act", "rationale": "Tests pass."}
    reply = JudgeReply.model_validate({**base, "actions": ["Merge the PR today", '"confidence": 0.8']})
    assert reply.confidence == 0.8 and reply.actions == ["Merge the PR today"]
    kept = JudgeReply.model_validate({**base, "confidence": 0.6, "actions": ["Merge the PR", "Confidence: 80%"]})
    assert kept.confidence == 0.6 and kept.actions == ["Merge the PR"]
    plain = JudgeReply.model_validate({**base, "confidence": 0.7, "actions": ["Raise confidence in the release: run the suite"]})
    assert plain.actions == ["Raise confidence in the release: run the suite"]
