"""The notebook half of the procedure contract: every registered procedure, and a toy one the
test registers, runs through the widget with no front-end code of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from courtroom_chat.case import new_case, pasted_document
from courtroom_chat.config import Settings
from courtroom_chat.frontends.notebook import Courtroom
from tests import toy_procedure


def procedures() -> list[str]:
    return toy_procedure.every_procedure("name")


@pytest.fixture(autouse=True)
def toy():
    toy_procedure.install()
    yield
    toy_procedure.uninstall()


@pytest.mark.parametrize("name", procedures())
async def test_every_procedure_renders_in_the_widget(name):
    # a question with evidence, as in the chat's half (a procedure may refuse a case with no text)
    log = Path(__file__).resolve().parents[2] / "cases" / "code-commit" / "test-log.txt"
    case = new_case("Should we affirm the ruling?", [pasted_document(log.read_text(encoding="utf-8"))])
    w = Courtroom(case, Settings().with_backend("scripted"), procedure=name, store=False)
    from courtroom_chat.procedures import get

    assert list(w.accordion.titles) == [title for _, title in get(name).stages]  # the form previews its stages
    w.run_button.click()
    await w.task
    record = w.result
    assert record.status == "complete" and w.error is None
    shown = "\n".join(section.markdown for section in w.view.sections.values())
    finished = [e for e in record.events if e["type"] == "agent_finished"]
    assert finished and all(e["title"] in shown for e in finished)
    assert w.view.verdict_markdown.startswith(f"## {record.outcome.answer}") and "**How sure:**" in w.view.verdict_markdown


@pytest.mark.parametrize("name", procedures())
def test_the_form_says_what_to_type_for_the_chosen_procedure(name):
    """The line above the question and its placeholder follow the Procedure dropdown: a charge for
    the criminal trial, labels and a text for the classification court, a yes/no question for the
    decision court and for a plugin that says nothing of its own."""
    from courtroom_chat.motion import asks_what_to_do
    from courtroom_chat.procedures import get

    w = Courtroom(None, Settings().with_backend("scripted"), store=False)
    assert "<b>yes/no question</b>" in w.asking.value and w.question.placeholder == "e.g. Should I merge PR #214 now?"
    w.procedure_choice.value = name
    example = w.question.placeholder.removeprefix("e.g. ")
    assert example and f"\u201c{example}\u201d" in w.asking.value and "**" not in w.asking.value
    if get(name).tries:
        assert "yes/no question" not in w.asking.value and not asks_what_to_do(example)


async def test_switching_procedure_keeps_each_ones_edits_and_waits_for_a_running_trial():
    """Edited parameters and models stay with their procedure when the dropdown moves away and
    back; while a trial runs the dropdown is disabled, and a switch made in code is put back
    with a message, so the running trial's stages are not replaced by another procedure's."""
    import asyncio

    from courtroom_chat.backends.scripted import ScriptedBackend

    w = Courtroom(None, Settings().with_backend("scripted"), store=False,
                  backends={"scripted": ScriptedBackend(latency_ms=300)})
    w.params["max_exhibits"].value = 2
    w.preset.value = "custom"
    w.role_models["judge"].value = "scripted:kept"
    w.procedure_choice.value = "criminal"
    assert "max_exhibits" not in w.params
    w.procedure_choice.value = "decision"
    assert w.params["max_exhibits"].value == 2 and w.role_models["judge"].value == "scripted:kept"
    w.question.value = "Should we ship the fix?"
    titles = list(w.accordion.titles)
    w.run_button.click()
    assert w.procedure_choice.disabled
    w.procedure_choice.value = "criminal"
    assert w.procedure_choice.value == "decision" and w.procedure == "decision"
    assert "stop it or let it finish before choosing another procedure" in w.message.value
    assert [t.split(" · ")[0] for t in w.accordion.titles] == [t.split(" · ")[0] for t in titles]
    await asyncio.wait_for(w.task, 60)
    assert w.result.status == "complete" and w.result.procedure == "decision" and not w.procedure_choice.disabled
    w.procedure_choice.value = "criminal"
    assert w.procedure == "criminal"


def test_settings_given_as_the_case_is_one_line_in_the_form():
    w = Courtroom(Settings().with_backend("scripted"), store=False)
    assert "first argument is the case: a Case, or the path of a case .json; got a Settings" in w.message.value
    assert w.question.value == ""


async def test_a_model_named_for_every_role_fills_the_per_role_boxes():
    """``backend="local:qwen2.5-coder-0.5b"`` (a model, not a preset) raised an AttributeError while
    the form was built; it now opens the per-role boxes with that model in each."""
    w = Courtroom(None, Settings(), backend="local:qwen2.5-coder-0.5b", store=False)
    assert w.preset.value == "custom" and w.error is None and not w.message.value
    assert {box.value for box in w.role_models.values()} == {"local:qwen2.5-coder-0.5b"}
    bad = Courtroom(None, Settings(), backend="nosuch", store=False)
    bad.question.value = "Should we ship?"
    bad.run_button.click()
    if bad.task:
        await bad.task
    assert "unknown backend &#x27;nosuch&#x27;" in bad.message.value and bad.result is None


def test_an_unknown_procedure_is_one_line_in_the_form():
    w = Courtroom(None, Settings().with_backend("scripted"), procedure="nosuch", store=False)
    assert "unknown procedure &#x27;nosuch&#x27;; use one of decision, classification" in w.message.value
    assert w.procedure_choice.value == "decision"


async def test_a_case_file_of_a_procedure_is_tried_by_it_with_its_inputs():
    """A case file that names its procedure and holds its inputs (a defendant, an indictment; a
    transcript) is tried by that procedure from the widget, as from the CLI, not put to the
    decision court as a bare question."""
    cases = Path(__file__).resolve().parents[2] / "cases"
    w = Courtroom(cases / "criminal-burglary.json", Settings().with_backend("scripted"), store=False)
    assert w.procedure == "criminal" and w.message_text == ""
    w.run_button.click()
    await w.task
    assert w.error is None and w.result.status == "complete" and w.result.procedure == "criminal"
    assert w.result.case.inputs["defendant"].startswith("Daniel Reyes")  # the file's inputs went to the trial
    bench = Courtroom(cases / "samvad-theft.json", Settings().with_backend("scripted"), store=False)
    assert bench.procedure == "samvad" and bench.form_case().inputs == bench._case.inputs != {}
