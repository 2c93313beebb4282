"""Failures become one clear message, never a traceback and never a verdict; stop is clean."""

from __future__ import annotations

import asyncio
import json

import pytest

from courtroom_chat.errors import BackendUnavailableError, MissingCredentialsError
from tests.chat.conftest import LOG, QUESTION, stored_records


def assert_no_verdict_and_no_traceback(ui):
    assert not ui.verdicts()
    assert not any("Traceback" in text or 'File "' in text for text in ui.texts())


def script(court_config, tmp_path, replies):
    path = tmp_path / "script.json"
    path.write_text(json.dumps(replies), encoding="utf-8")
    court_config(f'[scripted]\nscript = "{path}"\n')


async def test_a_failing_model_becomes_a_message_with_the_finished_stages(chat, court_config, tmp_path, runs_dir):
    script(court_config, tmp_path, {"judge": {"$error": "the model server closed the connection"}})
    async with chat.context(chat.session()) as ui:
        await chat.send(QUESTION, [chat.upload("test-log.txt", LOG)])

    [record] = stored_records(runs_dir)
    assert record.status == "failed" and record.stages_completed == ["prosecution", "defense", "jury"]
    [error] = ui.errors()
    assert error.startswith("**The trial failed:** scripted failure for judge: the model server closed the connection")
    assert "Stages finished: Prosecution, Defense, Jury." in error
    assert f"saved as run `{record.run_id}`" in error
    assert ui.step("Judge")["end"] and ui.step("Judge")["output"].endswith("*failed*")
    assert_no_verdict_and_no_traceback(ui)


async def test_invalid_output_twice_is_reported_with_the_role(chat, court_config, tmp_path):
    script(court_config, tmp_path, {"defense": ["I refuse to answer in JSON.", "Still prose, sorry."]})
    async with chat.context(chat.session()) as ui:
        await chat.send(QUESTION, [chat.upload("test-log.txt", LOG)])

    [error] = ui.errors()
    assert "**The trial failed:** the defense (scripted) gave invalid output twice" in error
    assert "Stages finished: Prosecution." in error
    [defense] = ui.children(ui.step("Defense"))
    assert defense["name"] == "Defense · failed" and defense["isError"]
    assert "↻ *Asked again: the reply is not valid JSON" in defense["output"]
    assert "**Failed:** the defense (scripted) gave invalid output" in defense["output"]
    assert_no_verdict_and_no_traceback(ui)


@pytest.mark.parametrize("error", [
    MissingCredentialsError("no Anthropic API key: set ANTHROPIC_API_KEY or use --backend local"),
    BackendUnavailableError("Ollama is not running at http://127.0.0.1:11434; start it with `ollama serve`"),
])
async def test_backend_errors_are_shown_as_their_one_line_message(chat, backend_factory, error):
    def refuse(spec, settings):
        raise error

    backend_factory(refuse)
    async with chat.context(chat.session()) as ui:
        await chat.send(QUESTION, [chat.upload("test-log.txt", LOG)])

    [shown] = ui.errors()
    assert shown.startswith(f"**The trial failed:** {error}")
    assert "Stages finished: none." in shown
    assert_no_verdict_and_no_traceback(ui)


async def test_budget_stop_is_a_message_not_a_verdict(chat, court_config, priced_backend, runs_dir):
    court_config("[budget]\nmax_usd = 0.01\n")
    async with chat.context(chat.session()) as ui:
        await chat.send(QUESTION, [chat.upload("test-log.txt", LOG)])

    [record] = stored_records(runs_dir)
    assert record.status == "stopped"
    [error] = ui.errors()
    assert error.startswith("💸 **Budget stop:** budget stop before the")
    assert "cap of $0.01" in error and "This is the operator's limit: ask them to raise [budget] max_usd" in error
    assert_no_verdict_and_no_traceback(ui)


async def test_a_bug_in_the_engine_is_one_line_not_a_traceback(chat, backend_factory, caplog):
    class Broken:
        name, model, accepts_temperature, price_provider, context_window = "scripted", "broken", True, None, None

        def estimate_tokens(self, text):
            return 1

        async def complete(self, request, on_text=None):
            raise ZeroDivisionError("division by zero")

        async def aclose(self):
            return None

    backend_factory(lambda spec, settings: Broken())
    async with chat.context(chat.session()) as ui:
        await chat.send(QUESTION, [chat.upload("test-log.txt", LOG)])

    [error] = ui.errors()
    assert error.startswith("**The trial failed with an internal error** (ZeroDivisionError)")
    assert "division by zero" in caplog.text, "the details go to the server log"
    assert_no_verdict_and_no_traceback(ui)


async def test_stop_cancels_cleanly_says_which_stages_finished_and_saves_the_record(chat, monkeypatch, runs_dir):
    monkeypatch.setenv("COURTROOM_SCRIPTED_LATENCY_MS", "300")
    session = chat.session()
    async with chat.context(session) as ui:
        task = asyncio.create_task(chat.send(QUESTION, [chat.upload("test-log.txt", LOG)]))
        await chat.wait_for(lambda: any(s["name"].startswith("Juror") for s in ui.steps()))
        task.cancel()  # what Chainlit's stop button does to the session's current task
        with pytest.raises(asyncio.CancelledError):
            await task

    [record] = stored_records(runs_dir)
    assert record.status == "incomplete" and record.stages_completed == ["prosecution", "defense"]
    notice = ui.texts()[-1]
    assert notice.startswith("⏹ **Trial stopped** before the verdict. Stages finished: Prosecution, Defense.")
    assert f"The partial record was saved as run `{record.run_id}`." in notice
    assert all(s.get("end") for s in ui.steps()), "no step is left running"
    assert ui.step("Jury")["output"].endswith("*stopped*")
    assert not ui.verdicts()


async def test_a_server_stopping_mid_trial_stops_it_as_the_stop_button_does_and_keeps_the_record(chat, monkeypatch,
                                                                                                   runs_dir):
    """Issue 83: stopping the chat server mid-trial left an empty runs folder. Chainlit calls the
    app's shutdown hook as the server stops; it stops each running trial and waits for its
    partial record."""
    monkeypatch.setenv("COURTROOM_SCRIPTED_LATENCY_MS", "300")
    async with chat.context(chat.session()) as ui:
        task = asyncio.create_task(chat.send(QUESTION, [chat.upload("test-log.txt", LOG)]))
        await chat.wait_for(lambda: any(s["name"].startswith("Juror") for s in ui.steps()))
        assert len(chat.module._running) == 1
        from chainlit.config import config

        await config.code.on_app_shutdown()  # what Chainlit's lifespan calls as the server stops
        assert task.done() and not chat.module._running
    [record] = stored_records(runs_dir)
    assert record.status == "incomplete" and record.stages_completed == ["prosecution", "defense"]
    assert ui.texts()[-1].startswith("⏹ **Trial stopped** before the verdict.")


async def test_a_trial_that_cannot_start_keeps_the_evidence_for_the_next_question(chat, court_config, runs_dir):
    """A question the court cannot try (a choice its rules cannot split), or settings it cannot
    use, is one line, and the files attached with it stay for the next question instead of
    being dropped."""
    async with chat.context(chat.session()) as ui:
        await chat.send("Is Plan A or Plan B cheaper?", [chat.upload("test-log.txt", LOG)])
        assert ui.errors()[0].startswith("**The trial could not start:**")
        assert ui.texts()[-1] == "Your evidence (test-log.txt) is still attached: ask again and it goes with the question."
        assert not stored_records(runs_dir)
        await chat.send(QUESTION)

    [record] = stored_records(runs_dir)
    assert record.case.question == QUESTION and [d.name for d in record.case.context] == ["test-log.txt"]
    assert ui.verdicts()
