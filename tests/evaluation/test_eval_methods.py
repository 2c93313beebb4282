"""The methods: reading a court record, and the single and majority baselines on scripted replies."""

from __future__ import annotations

import json

import pytest

from courtroom_chat.backends import BackendPool
from courtroom_chat.backends.scripted import ScriptedBackend
from courtroom_chat.case import Case, Document
from courtroom_chat.config import Settings
from courtroom_chat.evaluation.methods import (
    SCHEMA,
    AnswerReply,
    Baselines,
    prediction_from_record,
    run_baseline,
    run_court,
)
from courtroom_chat.procedures.base import case_block
from courtroom_chat.procedures.decision.answer import POLARITY, confidences
from courtroom_chat.procedures.decision.records import Juror, Jury, Verdict
from courtroom_chat.records import CallRecord, Outcome, RunRecord, Usage

CASE = Case(question="Should we merge PR #214 now?",
            context=[Document(name="ci.log", kind="text", text="All 412 tests passed.\nTwo approvals.\n")])


def _record(decision: str | None, decided_by: str = "judge", votes: tuple[str, ...] = ("guilty", "guilty", "not_guilty"),
            confidence: float = 0.8) -> RunRecord:
    jurors = [Juror(number=n, persona="p", vote=v, status="voted") for n, v in enumerate(votes, 1)]
    jury = Jury.tally(jurors, 2)
    record = RunRecord(run_id="20260101-000000-abcdef", case=CASE, outputs={"jury": jury.model_dump()}, duration_ms=2500,
                       calls=[CallRecord(id=1, agent="judge", role="judge", stage="judge", backend="scripted",
                                         model="scripted", usage=Usage(input_tokens=100, output_tokens=20),
                                         cost_usd=0.001)])
    if decision:
        record.status = "complete"
        verdict = Verdict(decision=decision, reasoning="r", rationale="r", confidence=confidence, answer="a",
                          evidence_confidence=0.65, decided_by=decided_by)
        record.outputs["verdict"] = verdict.model_dump()
        record.outcome = Outcome(answer="a", label=decision, polarity=POLARITY[decision], decided_by=decided_by,
                                 confidences=confidences(verdict, jury))
    else:
        record.status, record.error = "failed", "the judge (scripted) gave invalid output twice"
    return record


def test_prediction_from_a_judges_ruling():
    p = prediction_from_record(_record("guilty"))
    assert (p.label, p.status, p.run_id) == ("yes", "decided", "20260101-000000-abcdef")
    assert p.confidences == {"judge": 0.8, "vote_share": pytest.approx(2 / 3, abs=1e-3), "evidence": 0.65}
    assert (p.calls, p.input_tokens, p.output_tokens, p.seconds, p.cost_usd) == (1, 100, 20, 2.5, 0.001)


def test_prediction_from_a_jury_decision_and_a_no():
    p = prediction_from_record(_record("not_guilty", "jury", ("not_guilty", "not_guilty", "guilty"), confidence=0.667))
    assert p.label == "no" and "judge" not in p.confidences
    assert p.confidences["vote_share"] == pytest.approx(0.6667, abs=1e-3) and p.confidences["evidence"] == 0.65


def test_dismissed_is_undecided_and_no_verdict_is_failed():
    assert prediction_from_record(_record("dismissed")).status == "undecided"
    assert prediction_from_record(_record("dismissed")).label is None
    failed = prediction_from_record(_record(None))
    assert (failed.label, failed.status) == (None, "failed") and "invalid output twice" in failed.error


async def test_a_failed_trial_is_a_failed_prediction_linked_to_its_record(runs_dir):
    from courtroom_chat.store import RunStore

    settings = Settings().with_backend("scripted")
    store = RunStore(runs_dir)
    backend = ScriptedBackend(script={"judge": {"$error": "the model server went away"},
                                      "juror": {"reasoning": " ".join(["Exhibit 1 decides it."] * 15), "vote": "act"}})
    p = await run_court(CASE, settings=settings, procedure="decision", store=store, backends={"scripted": backend})
    assert p.status == "failed" and p.label is None and "went away" in p.error
    assert store.load(p.run_id).status == "failed"


@pytest.mark.parametrize("raw, decision, confidence", [
    ({"reasoning": "r", "decision": "Yes", "confidence": 0.7}, "yes", 0.7),
    ({"reasoning": "r", "decision": "no", "confidence": "85%"}, "no", 0.85),
    ({"reasoning": "r", "decision": "do not act", "confidence": 60}, "no", 0.6),
    ({"reasoning": "r", "vote": "act"}, "yes", None),  # a reply to a juror's schema
])
def test_answer_reply_is_tolerant(raw, decision, confidence):
    reply = AnswerReply.model_validate(raw)
    assert (reply.decision, reply.confidence) == (decision, confidence)


def _baselines(script: dict) -> tuple[Baselines, ScriptedBackend]:
    settings = Settings().with_backend("scripted")
    backend = ScriptedBackend(script=script)
    return Baselines(settings, BackendPool(settings, {"scripted": backend})), backend


async def test_single_reads_the_case_as_the_court_does():
    baselines, backend = _baselines({"single": {"reasoning": "tests pass", "decision": "yes", "confidence": 0.9}})
    p = await run_baseline("single", CASE, baselines, seed=7)
    assert (p.label, p.status, p.confidences, p.calls) == ("yes", "decided", {"self_reported": 0.9}, 1)
    request = backend.calls[0]
    assert request.prefix == case_block(CASE) and request.schema == SCHEMA
    assert request.temperature == Settings().procedure_params("decision").judge_temperature
    assert request.inputs["seed"] != 7 and p.details["reasoning"] == "tests pass"


async def test_a_baseline_is_asked_a_choice_as_the_decision_court_tries_it():
    baselines, backend = _baselines({"single": {"reasoning": "A is faster", "decision": "yes", "confidence": 0.7}})
    choosing = CASE.model_copy(update={"question": "Design A or B?"})
    p = await run_baseline("single", choosing, baselines, seed=7)
    assert p.label == "yes" and "QUESTION: Should we choose Design A rather than Design B?" in backend.calls[0].prefix


async def test_single_is_repaired_once_then_fails():
    good = {"reasoning": "ok", "decision": "no", "confidence": 0.6}
    baselines, backend = _baselines({"single": ["I think yes", good]})
    p = await run_baseline("single", CASE, baselines, seed=1)
    assert p.label == "no" and p.calls == 2 and len(backend.calls[1].repairs) == 1
    assert "not valid JSON" in p.details["calls"][0]["error"]
    baselines, _ = _baselines({"single": ["nope", "still nope"]})
    p = await run_baseline("single", CASE, baselines, seed=1)
    assert (p.label, p.status, p.calls) == (None, "failed", 2) and "not valid JSON" in p.error


async def test_a_baseline_reply_that_loops_to_its_limit_is_kept_cut_as_the_courts_roles_are():
    """The last resort the court's roles get (``replies.unlooped``) reads the baselines too, so a
    case whose replies loop is not a failure for one method and an answer for another."""
    looping = '{"decision": "yes", "confidence": 0.7, "reasoning": "Tests pass. ' + "Two approvals, all green. " * 3000
    baselines, _ = _baselines({"single": [looping, looping]})
    p = await run_baseline("single", CASE, baselines, seed=1)
    assert (p.label, p.status, p.calls) == ("yes", "decided", 2)
    assert p.details["reasoning"] == "Tests pass. Two approvals, all green."
    assert "kept cut after the passage's first copy" in p.details["calls"][-1]["looped"]


async def test_majority_votes_at_the_jurors_temperatures():
    yes = {"reasoning": "r", "decision": "yes", "confidence": 0.8}
    no = {"reasoning": "r", "decision": "no", "confidence": 0.6}
    script = {"majority-1": yes, "majority-2": no, "majority-3": yes, "majority-4": no, "majority-5": yes}
    baselines, backend = _baselines(script)
    p = await run_baseline("majority", CASE, baselines, seed=3)
    assert (p.label, p.calls) == ("yes", 5)
    assert p.confidences == {"vote_share": 0.6, "self_reported": 0.8}
    assert sorted(r.temperature for r in backend.calls) == Settings().procedure_params("decision").juror_temperatures()
    assert len({r.inputs["seed"] for r in backend.calls}) == 5


async def test_majority_tie_is_undecided_and_all_failed_is_failed():
    yes = {"reasoning": "r", "decision": "yes", "confidence": 0.8}
    no = {"reasoning": "r", "decision": "no", "confidence": 0.6}
    broken = {"$error": "server went away"}
    baselines, _ = _baselines({"majority-1": yes, "majority-2": no, "majority-3": yes, "majority-4": no,
                               "majority-5": broken})
    p = await run_baseline("majority", CASE, baselines, seed=3)
    assert (p.label, p.status, p.details["votes"]) == (None, "undecided", {"yes": 2, "no": 2})
    baselines, _ = _baselines({"juror": broken})
    p = await run_baseline("majority", CASE, baselines, seed=3)
    assert p.status == "failed" and "server went away" in p.error


def test_schema_is_valid_json_schema_for_decoding():
    assert json.loads(json.dumps(SCHEMA))["properties"]["decision"]["enum"] == ["yes", "no"]


async def test_a_baseline_reply_cut_at_its_limit_twice_is_kept_to_its_last_sentence():
    cut = ('{"decision": "no", "confidence": 0.6, "reasoning": "Two tests fail. The release notes list '
           + " ".join(f"item {i}," for i in range(3000)))
    baselines, _ = _baselines({"single": [cut, cut]})
    p = await run_baseline("single", CASE, baselines, seed=1)
    assert (p.label, p.status, p.details["reasoning"]) == ("no", "decided", "Two tests fail.")
    assert "kept cut at its last full sentence" in p.details["calls"][-1]["cut"]
