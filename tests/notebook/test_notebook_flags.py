"""Flagged evidence in the notebook widget: every passage, the scan's and the model's second
opinion's, shown with its place in its own section, and the verdict's warning."""

from __future__ import annotations

from courtroom_chat.backends.scripted import ScriptedBackend
from courtroom_chat.case import new_case, pasted_document
from courtroom_chat.config import Settings
from courtroom_chat.notebook import Courtroom
from tests.test_screening import NOTES, ORDER, STEERING


async def test_flagged_passages_are_shown_with_their_places_and_the_verdict_warns():
    doc = pasted_document(NOTES + f"\n{ORDER}\n").model_copy(update={"name": "readiness.md", "kind": "markdown"})
    case = new_case("Should we release 4.2 this Friday?", [doc])
    settings = Settings().with_backend("scripted").with_overrides({"injection": {"second_opinion": "on"}})
    backend = ScriptedBackend(script={"screener": {"passages": [STEERING]}})
    w = Courtroom(case, settings, store=False, backends={"scripted": backend})
    w.run_button.click()
    await w.task
    assert w.error is None and [(f["source"], f["line_start"]) for f in w.result.flags] == [("model", 5), ("scan", 8)]
    screening = w.view.sections["screening"].markdown
    assert "readiness.md:5" in screening and "readiness.md:8" in screening and "The screener's note" in screening
    assert w.accordion.titles[0].startswith("Evidence screening")  # above the stages: before any agent speaks
    assert "readiness.md:5" in w.view.verdict_markdown and "instruct the court" in w.view.verdict_markdown


def test_a_choice_says_the_question_it_is_tried_as_until_the_verdict():
    from courtroom_chat.events import RunStarted

    w = Courtroom(new_case("Design A or B?", [pasted_document("Design A loads in 0.8 s.\n")]),
                  Settings().with_backend("scripted"), store=False)
    tried = "Should we choose Design A rather than Design B?"
    w.view.handle(RunStarted(run_id="20261128-000000-abcdef", procedure="decision", question=tried,
                             asked="Design A or B?", stages=["prosecution"]))
    assert w.view.verdict_markdown == f"*Tried as: {tried}*"
