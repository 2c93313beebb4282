"""A verdict that leaves a verified passage of the losing side unanswered says so: How sure
names the passage first, and the jury's vote share is labelled unexamined (issue: the court
finds the fact that decides). Scripted trials, so each rule is checked on what a model may do."""

from __future__ import annotations

from pathlib import Path

from courtroom_chat.backends.scripted import ScriptedBackend
from courtroom_chat.case import Case, read_document
from courtroom_chat.config import Settings
from courtroom_chat.engine import Trial
from courtroom_chat.procedures.decision.records import (
    Defense,
    Exhibit,
    ExhibitChallenge,
    Prosecution,
    Verdict,
)
from courtroom_chat.procedures.decision.unanswered import unanswered
from courtroom_chat.render import how_sure

HERE = Path(__file__).parent / "fixtures" / "unanswered"
QUESTION = "Should I merge PR #4127?"
APPROVED = "Both reviewers approved the change, and CI is green on all 1,212 tests."
AGPL = ("The PR vendors the pdfkit-pro library, which is licensed under AGPL-3.0 and our licence policy forbids "
        "shipping AGPL code in any product.")
REASONS = "The change is reviewed and tested, and the export is much faster, which users asked for."
SETTINGS = Settings().with_backend("scripted")


def case() -> Case:
    return Case(question=QUESTION, context=[read_document(HERE / "pr-4127.md")])


def script(ruling: str, votes: str = "yes", effect: str = "weakens") -> dict:
    return {
        "prosecutor": {"motion": "merge PR #4127", "case_statement": "The PR is approved, tested and fast. " * 3,
                       "exhibits": [{"source_quote": APPROVED, "harm": "the change is reviewed and every test passes"}],
                       "harm_analysis": "Not merging delays a faster export that users asked for."},
        "defense": {"counter_argument": "We should not merge PR #4127 because it ships AGPL code.",
                    "exhibits": [{"source_quote": AGPL, "shows": "the PR adds AGPL code that the policy forbids"}],
                    "exhibit_challenges": [{"exhibit": 1, "challenge": "Approval does not settle the licence.",
                                            "effect": effect}],
                    "harm_dispute": "The harm is overstated because the old export works.",
                    "alternative": "Replace pdfkit-pro with a permissively licensed library first."},
        "juror": {"reasoning": REASONS, "decision": votes, "confidence": 0.9},
        "judge": {"reasoning": ruling, "decision": "act" if votes == "yes" else "do not act",
                  "rationale": ruling, "actions": ["Merge the PR and announce the faster export."],
                  "confidence": 0.95},
    }


async def trial(ruling: str, **kw):
    backend = ScriptedBackend(script=script(ruling, **kw))
    return await Trial(case(), SETTINGS, store=None, backends={"scripted": backend}).run()


async def test_a_yes_that_never_answers_the_defenses_verified_passage_says_so_first():
    record = await trial("The prosecution shows approvals and green CI. The defense objects. The jury agrees to merge.")
    assert record.outcome.polarity == "yes"
    [gap] = record.outcome.data["unanswered"]
    assert gap["number"] == 2 and gap["side"] == "against acting" and gap["quote"] == AGPL
    lines = how_sure(record.outcome.model_dump(mode="json"))
    assert "unanimous, with exhibit 2 unanswered" in lines[0]
    last = lines[-1]
    assert last.startswith("**Exhibit 2, filed against acting, says \"The PR vendors the pdfkit-pro library")
    assert "nothing in the ruling answers it: read it before you act." in last and "Unanimous" not in last
    share = next(c for c in record.outcome.confidences if c.kind == "vote_share")
    assert share.label == "jury vote share, unexamined" and "exhibit 2 against it was never answered" in share.basis


async def test_a_ruling_that_names_the_exhibit_or_states_its_fact_answers_it():
    for ruling in ("The prosecution shows approvals. The defense cites exhibit 2. The jury weighed it and merges.",
                   "The prosecution shows approvals. The defense says the library is AGPL-3.0 licensed, but the "
                   "vendored pdfkit-pro library is only a build tool. The jury merges."):
        record = await trial(ruling)
        assert "unanswered" not in record.outcome.data, ruling
        share = next(c for c in record.outcome.confidences if c.kind == "vote_share")
        assert share.label == "jury vote share"
        assert "read it before you act" not in how_sure(record.outcome.model_dump(mode="json"))[-1]


async def test_on_a_no_the_prosecutions_passage_is_answered_by_a_refutation_or_the_ruling():
    kept = "The prosecution shows approvals. The defense shows a licence problem. The jury declines."
    weak = await trial(kept, votes="no", effect="weakens")
    [gap] = weak.outcome.data["unanswered"]
    assert gap["number"] == 1 and gap["side"] == "for acting"
    refuted = await trial(kept, votes="no", effect="refutes")
    assert "unanswered" not in refuted.outcome.data


def exhibit(number: int, quote: str, origin: str = "prosecutor", verified: bool = True) -> Exhibit:
    return Exhibit(number=number, source_quote=quote, origin=origin, verified=verified, harm="why")


def test_an_unverified_passage_a_fact_both_sides_filed_and_a_dismissal_ask_nothing():
    prosecution = Prosecution(motion="merge PR #4127", case_statement="", exhibits=[
        exhibit(1, APPROVED), exhibit(2, "Release notes are written and the feature flag is ready.", verified=False)])
    defense = Defense(counter_argument="", exhibits=[exhibit(3, AGPL, "defense", verified=False)], turned=[1],
                      exhibit_challenges=[ExhibitChallenge(exhibit=1, challenge="x", effect="concedes")])
    verdict = Verdict(decision="guilty", reasoning="", rationale="", confidence=1, answer="Yes",
                      evidence_confidence=1)
    assert unanswered("guilty", QUESTION, prosecution, defense, verdict, judge_spoke=True) == []  # unverified
    assert unanswered("not_guilty", QUESTION, prosecution, defense, verdict, judge_spoke=True) == []  # turned
    assert unanswered("dismissed", QUESTION, prosecution, defense, verdict, judge_spoke=True) == []


def test_the_questions_own_words_do_not_count_as_answering_a_passage():
    """A ruling that repeats "merge PR #4127" has not stated a passage's fact."""
    prosecution = Prosecution(motion="merge PR #4127", case_statement="", exhibits=[])
    quote = "PR #4127 must not merge: the pdfkit-pro library is AGPL-3.0 licensed."
    defense = Defense(counter_argument="", exhibits=[exhibit(2, quote, "defense")])
    verdict = Verdict(decision="guilty", reasoning="Merge PR #4127 now: it must merge.", rationale="",
                      confidence=1, answer="Yes", evidence_confidence=1)
    assert [g["number"] for g in unanswered("guilty", QUESTION, prosecution, defense, verdict, judge_spoke=True)] == [2]
    # with no judge, nothing but a refutation answers a passage
    verdict = verdict.model_copy(update={"reasoning": "The pdfkit-pro library is AGPL-3.0 licensed."})
    assert unanswered("guilty", QUESTION, prosecution, defense, verdict, judge_spoke=False)


def test_every_front_end_shows_it_through_the_one_presenter(tmp_path, monkeypatch):
    """The CLI prints How sure's sentence; the chat and the notebook render the same outcome
    markdown (render.outcome_markdown, one presenter)."""
    import json

    from typer.testing import CliRunner

    from courtroom_chat.frontends.cli import app

    monkeypatch.setenv("COURTROOM_RUNS_DIR", str(tmp_path / "runs"))
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script("The prosecution shows approvals. The defense objects. The jury merges.")))
    result = CliRunner().invoke(app, ["run", QUESTION, str(HERE / "pr-4127.md"), "--backend", "scripted",
                                      "--script", str(path)], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "jury vote share, unexamined 100%" in text
    assert "(demo)" in text and "no model read your evidence" in text  # a scripted verdict is a demo
    assert "Exhibit 2, filed against acting, says" in text and "read it before you act" in text


async def test_the_exhibit_list_and_the_evidence_figure_read_a_refutation_the_same_way():
    """A "refutes" with no verified exhibit of the defense's own takes nothing out of the figure,
    and the list says the exhibit stands; with one, the list says refuted and the figure drops it
    (issue 86: "refuted by the defense" beside "3 for acting, 0 against")."""
    from courtroom_chat.procedures.decision.present import challenge_effects

    alone = script("The jury merges.", effect="refutes")
    alone["defense"]["exhibits"] = []
    record = await Trial(case(), SETTINGS, store=None, backends={"scripted": ScriptedBackend(script=alone)}).run()
    shown = challenge_effects(record.outputs["prosecutor"]["exhibits"], record.outputs["defense"])
    assert "Exhibit 1: ✅ verified · called refuted by the defense, which verified no exhibit of its own: it stands" in shown
    evidence = next(c for c in record.outcome.confidences if c.kind == "evidence")
    assert evidence.basis.startswith("verified and unrefuted exhibits: 1 for acting, 0 against")

    backed = await trial("The jury merges.", effect="refutes")
    shown = challenge_effects(backed.outputs["prosecutor"]["exhibits"], backed.outputs["defense"])
    assert "Exhibit 1: ✅ verified · refuted by the defense" in shown and "it stands" not in shown
    evidence = next(c for c in backed.outcome.confidences if c.kind == "evidence")
    assert evidence.basis.startswith("verified and unrefuted exhibits: 0 for acting, 1 against")
