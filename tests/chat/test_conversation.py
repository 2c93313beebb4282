"""Gathering a case: uploads, pasted text, asking for what is missing, settings, dry run."""

from __future__ import annotations

import pytest

from courtroom_chat import render
from courtroom_chat.config import Settings
from courtroom_chat.errors import ConfigError
from courtroom_chat.frontends.chat_inputs import (
    PER_ROLE,
    apply_values,
    offered_models,
    settings_values,
    split_message,
    widgets,
)
from tests.chat.conftest import LOG, QUESTION, stored_records


def asks(ui):
    return [c.args[1] for c in ui.session.emit_call.call_args_list if c.args[0] == "ask"]


async def test_rejected_uploads_are_named_with_their_reason_and_the_rest_is_used(chat, court_config, runs_dir):
    court_config("[limits]\nmax_file_bytes = 2000\n")
    async with chat.context(chat.session()) as ui:
        await chat.send(QUESTION, [
            chat.upload("notes.md", data=b"# Notes\n\nThe release must wait for the security review to finish.\n"),
            chat.upload("photo.png", data=b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64), mime="image/png"),
            chat.upload("huge.log", data=b"x" * 5000),
            chat.upload("odd.txt", data=b"caf\xe9 \x81\x8d au lait"),
        ])

    rejection = ui.errors()[0]
    assert rejection.startswith("**Not accepted as evidence:**")
    assert "- photo.png looks like a binary file" in rejection
    assert "- huge.log is 5 kB, over the 2 kB limit" in rejection
    assert "- odd.txt is not UTF-8 text (invalid byte at position 3)" in rejection
    [record] = stored_records(runs_dir)
    assert [d.name for d in record.case.context] == ["notes.md"]
    assert ui.verdicts()


async def test_upload_names_lose_their_folders_and_a_second_file_of_one_name_is_numbered(chat, runs_dir):
    async with chat.context(chat.session()) as ui:
        await chat.send("", [chat.upload("../notes.md", data=b"The review is pending.\n")])
        await chat.send(QUESTION, [chat.upload("a/b/notes.md", data=b"The review passed on Friday.\n")])

    [record] = stored_records(runs_dir)
    assert [d.name for d in record.case.context] == ["notes.md", "notes (2).md"] and ui.verdicts()


async def test_files_past_the_count_limit_are_named(chat, court_config, runs_dir):
    court_config("[limits]\nmax_files = 2\n")
    async with chat.context(chat.session()) as ui:
        await chat.send(QUESTION, [chat.upload(f"note-{i}.txt", data=f"Note {i}: the deploy must wait.".encode())
                                   for i in range(1, 4)])

    assert "- note-3.txt was not read: a case takes at most 2 evidence files" in ui.errors()[0]
    [record] = stored_records(runs_dir)
    assert [d.name for d in record.case.context] == ["note-1.txt", "note-2.txt"]


async def test_pasted_text_under_the_question_is_evidence(chat, runs_dir):
    pasted = "Release checklist\n- security review: pending\n- load test: passed with 2% errors"
    async with chat.context(chat.session()) as ui:
        await chat.send(f"{QUESTION}\n\n{pasted}")

    [record] = stored_records(runs_dir)
    [doc] = record.case.context
    assert doc.name == "pasted-1.txt" and doc.kind == "pasted" and doc.text == pasted
    assert record.case.question == QUESTION
    assert not asks(ui) and ui.verdicts()


async def test_pasted_text_over_the_size_limit_is_refused_like_a_file(chat, court_config, runs_dir):
    court_config("[limits]\nmax_file_bytes = 2000\n")
    async with chat.context(chat.session()) as ui:
        await chat.send(f"{QUESTION}\n\n" + "The load test passed. " * 200, [chat.upload("test-log.txt", LOG)])

    assert "- the pasted text is 4 kB, over the 2 kB limit" in ui.errors()[0]
    [record] = stored_records(runs_dir)
    assert [d.name for d in record.case.context] == ["test-log.txt"]


async def test_evidence_first_then_the_court_asks_for_the_question(chat, runs_dir):
    async with chat.context(chat.session()) as ui:
        await chat.send("", [chat.upload("test-log.txt", LOG)])
        assert ui.texts()[-1] == ("Evidence received: test-log.txt. Now ask the yes/no question the court "
                                  "should decide.")
        assert not stored_records(runs_dir)
        await chat.send(QUESTION)

    [record] = stored_records(runs_dir)
    assert record.case.question == QUESTION and [d.name for d in record.case.context] == ["test-log.txt"]


async def test_a_question_alone_asks_for_evidence_and_may_proceed_without(chat, runs_dir):
    session = chat.session()
    session.emit_call.return_value = {"name": "proceed", "payload": {}, "label": "Proceed on the question alone"}
    async with chat.context(session) as ui:
        await chat.send(QUESTION)

    [ask] = asks(ui)
    assert ask["spec"]["type"] == "action" and "No evidence is attached" in ask["msg"]["output"]
    [record] = stored_records(runs_dir)
    assert record.case.context == [] and record.status == "complete"
    assert ui.verdicts()


async def test_a_question_alone_can_get_files_through_the_upload_prompt(chat, runs_dir):
    session = chat.session()
    session.files["f1"] = {"id": "f1", "path": LOG, "name": "test-log.txt", "type": "text/plain", "size": 10}
    session.emit_call.side_effect = [
        {"name": "attach", "payload": {}, "label": "📎 Attach evidence"},
        [{"id": "f1"}],
    ]
    async with chat.context(session) as ui:
        await chat.send(QUESTION)

    action_ask, file_ask = asks(ui)
    assert file_ask["spec"]["type"] == "file"
    assert "text/*" in file_ask["spec"]["accept"] and file_ask["spec"]["max_files"] == 10
    [record] = stored_records(runs_dir)
    assert [d.name for d in record.case.context] == ["test-log.txt"]


async def test_files_that_are_all_refused_through_the_upload_prompt_start_no_trial(chat, runs_dir, tmp_path):
    picture = tmp_path / "photo.png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64))
    session = chat.session()
    session.files["f1"] = {"id": "f1", "path": str(picture), "name": "photo.png", "type": "image/png", "size": 80}
    session.emit_call.side_effect = [{"name": "attach", "payload": {}, "label": "📎 Attach evidence"}, [{"id": "f1"}]]
    async with chat.context(session) as ui:
        await chat.send(QUESTION)

    assert "photo.png looks like a binary file" in ui.errors()[0]
    assert ui.texts()[-1].startswith("None of those files could be used, so no trial yet.")
    assert not stored_records(runs_dir) and not ui.verdicts()


async def test_no_answer_to_the_evidence_prompt_starts_no_trial(chat, runs_dir):
    async with chat.context(chat.session()) as ui:
        await chat.send(QUESTION)  # emit_call returns None: the prompt timed out

    assert not stored_records(runs_dir) and not ui.verdicts()
    assert ui.texts()[-1].startswith("No evidence arrived, so no trial yet.")


async def test_settings_panel_changes_the_next_trial(chat, runs_dir):
    session = chat.session()
    async with chat.context(session) as ui:
        await chat.module.start()
        [panel] = [data for name, data in ui.calls if name == "chat_settings"]
        ids = {w["id"] for w in panel}  # the decision court's roles and Parameters, generated
        assert ids >= {"preset", "model_judge", "model_juror", "param_jury_size", "param_jury_threshold", "param_rule",
                       "param_juror_temperature_min", "param_juror_temperature_max", "budget_usd", "dry_run"}
        kinds = {w["id"]: w["type"] for w in panel}
        assert kinds["param_jury_size"] == "slider" and kinds["param_require_exact_quotes"] == "switch"
        assert kinds["param_rule"] == "select"
        values = {**session.chat_settings, "param_jury_size": 3, "param_jury_threshold": 2,
                  "param_juror_temperature_min": 0.5, "param_juror_temperature_max": 0.9}
        session.chat_settings = values
        await chat.module.settings_update(values)
        assert ui.texts()[-1].startswith("Settings saved. Next trial:")
        await chat.send(QUESTION, [chat.upload("test-log.txt", LOG)])

    [record] = stored_records(runs_dir)
    assert record.jury.seated == 3 and record.jury.threshold == 2
    assert [j.temperature for j in record.jury.jurors] == [0.5, 0.7, 0.9]
    assert len(ui.children(ui.step("Jury"))) == 3


async def test_invalid_settings_are_refused_with_the_reason(chat):
    async with chat.context(chat.session()) as ui:
        await chat.module.settings_update({"param_jury_size": 3, "param_jury_threshold": 4})
        await chat.module.settings_update({"preset": PER_ROLE, "model_judge": "gpt:4"})

    bad_size, bad_model = ui.errors()
    assert "jury_threshold (4) is larger than jury_size (3)" in bad_size
    assert "the judge's model 'gpt:4' is not offered here" in bad_model


async def test_dry_run_shows_every_prompt_and_calls_no_model(chat, backend_factory, runs_dir):
    opened = []

    def never(spec, settings):
        opened.append(spec)
        raise AssertionError("a dry run must not open a backend")

    backend_factory(never)
    session = chat.session()
    session.chat_settings = {"dry_run": True, "param_jury_size": 3, "param_jury_threshold": 2}
    async with chat.context(session) as ui:
        await chat.send(QUESTION, [chat.upload("test-log.txt", LOG)])

    assert opened == []
    names = [s["name"] for s in ui.steps()]
    assert names == ["Prompt · prosecutor", "Prompt · defense", "Prompt · juror-1", "Prompt · juror-2",
                     "Prompt · juror-3", "Prompt · judge"]
    prosecutor = ui.step("Prompt · prosecutor")["output"]
    assert "tokens in" in prosecutor and "<<<EVIDENCE 1: test-log.txt" in prosecutor
    assert ui.texts()[-1].startswith("**Dry run:** 6 prompts") and "No model was called." in ui.texts()[-1]
    assert not ui.verdicts() and stored_records(runs_dir) == []


def test_the_first_line_is_the_question_and_the_rest_is_evidence():
    assert split_message("Should I ship?\n\nlog: 3 failures") == ("Should I ship?", "log: 3 failures")
    assert split_message("ship it") == ("ship it", None)
    assert split_message("line one of a log\nline two") == (None, "line one of a log\nline two")
    assert split_message("  ") == (None, None)


def test_panel_values_round_trip_to_settings():
    base = Settings().with_backend("scripted").with_overrides({"chat": {"models": ["anthropic"]}})
    values = settings_values(base)
    assert apply_values(base, values) == base
    claude = apply_values(base, {**values, "preset": "anthropic:claude-sonnet-4-6", "budget_usd": "0.5"})
    assert str(claude.model_for("judge")) == "anthropic:claude-sonnet-4-6" and claude.budget.max_usd == 0.5
    with pytest.raises(ConfigError, match="jurors seated must be a number"):
        apply_values(base, {"param_jury_size": "many"})


# ---------------------------------------------------------------- the operator bounds the chat user


def test_a_chat_user_chooses_only_among_the_models_the_operator_offers():
    base = Settings()  # [models] default local:qwen2.5-coder-1.5b, no [chat] models
    offered = offered_models(base)
    assert offered == ["local:qwen2.5-coder-1.5b", "scripted"]
    for forged in ("Claude (Anthropic API)", "anthropic", "anthropic:claude-sonnet-4-6", "local:/etc/passwd"):
        with pytest.raises(ConfigError, match="is not offered here"):
            apply_values(base, {"preset": forged})
    more = base.with_overrides({"chat": {"models": ["local:qwen2.5-coder-0.5b", "anthropic"]}})
    assert offered_models(more) == ["local:qwen2.5-coder-1.5b", "local:qwen2.5-coder-0.5b",
                                    "anthropic:claude-sonnet-4-6", "scripted"]
    chosen = apply_values(more, {"preset": PER_ROLE, "model_judge": "anthropic:claude-sonnet-4-6"})
    assert str(chosen.model_for("judge")) == "anthropic:claude-sonnet-4-6"
    assert str(chosen.model_for("prosecutor")) == "local:qwen2.5-coder-1.5b"


@pytest.mark.parametrize("path", ["local:/etc/passwd", "local:../../root/.ssh/id_rsa", "local:/no/such/file.gguf"])
def test_a_model_path_is_never_taken_from_a_chat_user(path, tmp_path, monkeypatch):
    """The same refusal whether the file exists or not: the chat tells nothing about the server's
    files, and no path is looked at (no Path.exists / stat is reached)."""
    import os

    seen = []
    real_stat = os.stat
    monkeypatch.setattr(os, "stat", lambda p, *a, **k: seen.append(str(p)) or real_stat(p, *a, **k))
    with pytest.raises(ConfigError) as refused:
        apply_values(Settings(), {"preset": PER_ROLE, "model_prosecutor": path})
    assert str(refused.value).startswith(f"chat settings: the prosecutor's model '{path}' is not offered here")
    assert not [p for p in seen if "passwd" in p or "id_rsa" in p or "no/such" in p]


@pytest.mark.parametrize("budget", [0, "0", 1e9, 1.01, -1, "nan", "inf"])
def test_a_chat_user_cannot_lift_the_operators_budget_cap(budget):
    base = Settings()  # [budget] max_usd = 1.0
    with pytest.raises(ConfigError, match=r"budget"):
        apply_values(base, {"budget_usd": budget})
    assert apply_values(base, {"budget_usd": 0.25}).budget.max_usd == 0.25
    assert apply_values(base, {"budget_usd": 1.0}).budget.max_usd == 1.0


def test_with_no_cap_set_by_the_operator_a_chat_user_may_choose_any_budget():
    base = Settings().with_overrides({"budget": {"max_usd": 0.0}})
    assert apply_values(base, {"budget_usd": 0}).budget.max_usd == 0.0
    assert apply_values(base, {"budget_usd": 50}).budget.max_usd == 50.0


def test_settings_that_name_a_model_or_a_server_file_are_the_operators_alone():
    """The classification court's judge_models and precedent_pool name models and files: not in
    the chat's panel, and a value sent for them anyway is refused."""
    base = Settings()
    ids = {w.id for w in widgets(settings_values(base, "classification"), "classification", base)}
    assert "param_judge_models" not in ids and "param_precedent_pool" not in ids and "param_judges" in ids
    for key, value in (("judge_models", "local:/etc/passwd"), ("precedent_pool", "/etc/shadow")):
        with pytest.raises(ConfigError, match=f"{key} is set by the operator in config.toml"):
            apply_values(base, {f"param_{key}": value}, "classification")


def test_the_panel_offers_models_as_a_list_and_the_budget_within_the_cap():
    base = Settings().with_overrides({"chat": {"models": ["ollama:llama3.2"]}})
    panel = {w.id: w for w in widgets(settings_values(base), "decision", base)}
    assert type(panel["model_judge"]).__name__ == "Select" and type(panel["preset"]).__name__ == "Select"
    assert panel["model_judge"].values == offered_models(base)
    assert "at most 1" in panel["budget_usd"].label


async def test_a_forged_settings_update_starts_no_trial_on_the_servers_key(chat, backend_factory, runs_dir):
    """What a client sends over the socket, not only what the panel shows, is checked: a trial
    with a model or budget the operator does not allow opens no backend and stores no run."""
    opened = []
    backend_factory(lambda spec, settings: opened.append(spec) or (_ for _ in ()).throw(AssertionError(spec)))
    for forged in ({"preset": "anthropic:claude-sonnet-4-6"}, {"budget_usd": 1e9}, {"budget_usd": 0},
                   {"preset": PER_ROLE, "model_judge": "local:/etc/passwd"}):
        session = chat.session()
        session.chat_settings = forged
        async with chat.context(session) as ui:
            await chat.module.settings_update(forged)
            await chat.send(QUESTION + "\n\nThe release notes say all tests pass.")
        assert ui.errors() and "These settings cannot be used" in ui.errors()[0]
        assert not ui.verdicts()
    assert opened == [] and stored_records(runs_dir) == []


async def test_one_message_reads_the_configuration_once(chat, runs_dir, monkeypatch):
    """A question asked alone, evidence asked for, then the trial: config.toml is read once."""
    from courtroom_chat.frontends import chat as module

    reads = []
    original = module.load_settings
    monkeypatch.setattr(module, "load_settings", lambda *a, **k: reads.append(1) or original(*a, **k))
    session = chat.session()
    session.files["f1"] = {"id": "f1", "path": LOG, "name": "test-log.txt", "type": "text/plain", "size": 10}
    session.emit_call.side_effect = [{"name": "attach", "payload": {}, "label": "📎 Attach evidence"}, [{"id": "f1"}]]
    async with chat.context(session) as ui:
        await chat.send(QUESTION)
    assert ui.verdicts()
    assert len(reads) == 1


async def test_only_verdicts_can_carry_feedback(chat, runs_dir):
    """Chainlit puts thumbs on the last assistant message of an exchange: the prompt asking for
    evidence and every other notice are system messages, the verdict the only assistant one."""
    session = chat.session()
    session.emit_call.return_value = {"name": "proceed", "payload": {}, "label": "Proceed on the question alone"}
    async with chat.context(session) as ui:
        await chat.send(QUESTION)
        await chat.send("Should we ship the release on Friday?")
    verdicts = ui.verdicts()
    assert len(verdicts) == 2 and ui.scorable() == verdicts
    # the evidence prompt (its text becomes the choice once answered) is a notice, once per question
    asked = [m for m in ui.messages() if (m.get("output") or "").startswith("**Selected:** Proceed")]
    assert len(asked) == 2 and all(m["type"] == "system_message" for m in asked)


async def test_the_panels_mirror_and_fragility_switches_run_the_checks(chat, runs_dir):
    """How far a verdict holds is asked for in the chat as on the command line: the switches run
    the mirror trial and the fragility check, and How sure under the verdict reports both."""
    session = chat.session()
    session.chat_settings = {"mirror": True, "fragility": True}
    async with chat.context(session) as ui:
        await chat.send(QUESTION + "\n\nThe release notes say all 1,204 tests pass and two reviewers approved it.")
    records = stored_records(runs_dir)
    main = next(r for r in records if r.outcome and "mirror" in r.outcome.data)
    assert {"mirror", "fragility"} <= set(main.outcome.data)
    verdict = ui.verdicts()[-1]["output"]
    assert render.IN_FULL in verdict  # the checks' lines are one click away (tests/chat/test_trial_view.py)
    assert {e["name"] for e in ui.elements() if e.get("forId") == ui.verdicts()[-1]["id"]} == {render.IN_FULL}
    full = render.how_sure(main.outcome.model_dump(mode="json"))
    assert any(line.startswith("Mirror:") for line in full) and any(line.startswith("Fragility:") for line in full)
    plain = chat.session()
    async with chat.context(plain):
        await chat.send(QUESTION + "\n\nThe release notes say all tests pass.")
    latest = [r for r in stored_records(runs_dir) if r.run_id not in {x.run_id for x in records}]
    assert latest and not any("mirror" in r.outcome.data or "fragility" in r.outcome.data for r in latest)


def test_the_panel_offers_the_checks_off_by_default():
    from courtroom_chat.frontends.chat_inputs import checks, widgets

    values = settings_values(Settings().with_backend("scripted"))
    assert checks(values) == {"mirror": False, "fragility": False}
    ids = [w.id for w in widgets(values)]
    assert ids[-3:] == ["dry_run", "mirror", "fragility"]


async def test_a_message_that_is_no_question_is_named_before_evidence_is_asked_for(chat, runs_dir):
    async with chat.context(chat.session()) as ui:
        await chat.send("   ")
        await chat.send("hi")
        await chat.send("What is this?", [chat.upload("test-log.txt", LOG)])
        assert not asks(ui) and not stored_records(runs_dir)
        await chat.send(QUESTION)

    first, second = ui.errors()[:2]
    assert first.startswith("“hi” is not a yes/no question")
    assert "asks what" in second and second.endswith("Your evidence (test-log.txt) stays attached.")
    assert any(t.startswith("The message is empty: ask the yes/no question the court should decide") for t in ui.texts()), ui.texts()
    [record] = stored_records(runs_dir)
    assert [d.name for d in record.case.context] == ["test-log.txt"] and ui.verdicts()


async def test_a_scripted_verdict_in_the_chat_says_it_is_a_demo(chat, runs_dir):
    async with chat.context(chat.session()) as ui:
        await chat.send(QUESTION + "\n\nThe release notes say all 1,204 tests pass and two reviewers approved it.")
    verdict = ui.verdicts()[-1]["output"]
    assert "(demo)" in verdict.splitlines()[0] and "the scripted backend wrote every reply" in verdict
