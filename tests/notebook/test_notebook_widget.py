"""The Courtroom widget driven as a browser would: uploads through the real deserialiser,
Run and Stop through ``button.click()``, the run awaited as the kernel's task."""

from __future__ import annotations

import asyncio
import re

import pytest
from notebook_helpers import ESSAY, until, upload_item

from courtroom_chat.backends.scripted import ScriptedBackend
from courtroom_chat.config import Settings
from courtroom_chat.frontends.notebook_view import markdown_html
from courtroom_chat.notebook import Courtroom, TrialView
from courtroom_chat.procedures import available
from courtroom_chat.records import RunRecord
from tests.pdfs import make_pdf

RELEASE_NOTES = (b"# Release 2.4\n\nThe migration script failed on 3% of staging databases last night.\n"
                 b"All 412 unit tests passed after the timeout fix was merged.\n")
INCIDENT_PDF = make_pdf([["Incident review", "The rollback took 40 minutes because the runbook was outdated."]])


def court(settings, **kwargs) -> Courtroom:
    return Courtroom(settings=settings, **kwargs)


async def run(widget: Courtroom) -> RunRecord:
    widget.run_button.click()
    assert widget.task is not None, widget.message_text
    await widget.task
    assert widget.result is not None
    return widget.result


async def test_form_has_every_control(scripted_settings):
    w = court(scripted_settings)
    assert w.upload.multiple is True
    assert ".pdf" in w.upload.accept and ".md" in w.upload.accept
    assert [v for _, v in w.preset.options] == ["config", "local", "scripted", "anthropic", "ollama", "custom"]
    options = [v for _, v in w.procedure_choice.options]
    assert options[0] == "decision" and options == [info.name for info in available()]  # from the registry
    params = w.params  # generated from the procedure's Parameters
    assert (params["jury_size"].value, params["jury_threshold"].value) == (5, 3)
    assert type(params["jury_size"]).__name__ == "IntSlider" and type(params["rule"]).__name__ == "Dropdown"
    assert (params["juror_temperature_min"].value, params["juror_temperature_max"].value) == (0.2, 0.8)
    assert type(params["require_exact_quotes"]).__name__ == "Checkbox"
    assert w.budget.value == 1.0 and w.dry_run.value is False
    assert w.mirror.value is False and w.fragility.value is False  # how far the verdict holds: asked for
    assert w.run_button.disabled is False and w.stop_button.disabled is True
    assert list(w.accordion.titles) == ["Prosecution", "Defense", "Jury", "Judge"]
    assert w.role_box.layout.display == "none"
    w.preset.value = "custom"  # a model per role, prefilled from the settings in effect
    assert w.role_box.layout.display is None
    assert {r: b.value for r, b in w.role_models.items()} == dict.fromkeys(("prosecutor", "defense", "juror", "judge"),
                                                                          "scripted")


async def test_the_mirror_and_fragility_checkboxes_run_the_checks(scripted_settings, store):
    w = court(scripted_settings)
    w.question.value = "Should we ship release 2.4 today?"
    w.pasted.value = RELEASE_NOTES.decode()
    w.mirror.value = w.fragility.value = True
    record = await run(w)
    assert {"mirror", "fragility"} <= set(record.outcome.data)
    assert "Mirror:" in w.view.verdict.value and "Fragility:" in w.view.verdict.value


async def test_uploaded_files_and_pasted_text_go_on_trial(scripted_settings, store):
    w = court(scripted_settings)
    w.question.value = "Should we ship release 2.4 today?"
    w.upload.set_state({"value": [upload_item("release.md", RELEASE_NOTES, "text/markdown"),
                                  upload_item("incident.pdf", INCIDENT_PDF, "application/pdf")]})
    lines = w.documents["release.md"].lines
    assert f"release.md (markdown, {lines} lines), incident.pdf (pdf, 2 lines)" in w.evidence.value
    w.pasted.value = "The on-call engineer said the deploy window closes at 17:00 and must not slip."
    record = await run(w)

    assert record.status == "complete"
    assert [d.name for d in record.case.context] == ["release.md", "incident.pdf", "pasted-1.txt"]
    assert record.case.context[1].kind == "pdf" and "rollback took 40 minutes" in record.case.context[1].text
    assert store.load(record.run_id).status == "complete"
    assert w.run_button.disabled is False and w.stop_button.disabled is True
    assert w.progress.value == w.progress.max == 4 and w.progress.bar_style == "success"

    prosecution = w.view.sections["prosecution"].markdown
    for exhibit in record.prosecution.exhibits:  # each exhibit with its mark and its location
        loc = exhibit.location
        assert f"Exhibit {exhibit.number} · ✅ verified" in prosecution
        assert f"`{loc.document}:{loc.line_start}" in prosecution
    assert {e.location.document for e in record.prosecution.exhibits} >= {"release.md", "pasted-1.txt"}
    jury = w.view.sections["jury"].markdown
    for juror in record.jury.jurors:
        vote = {"guilty": "act", "not_guilty": "do not act"}[juror.vote]
        assert f"Juror {juror.number} · {vote}" in jury
        assert f"temperature {juror.temperature:.2f}" in jury
        assert juror.reasoning in jury
    assert record.defense.counter_argument in w.view.sections["defense"].markdown
    assert record.verdict.reasoning in w.view.sections["judge"].markdown
    assert w.accordion.titles[0] == f"Prosecution · {len(record.prosecution.exhibits)} exhibits, " \
                                    f"{len(record.prosecution.admitted())} verified"
    assert w.accordion.titles[2] == f"Jury · {record.jury.split()}"

    verdict = w.view.verdict_markdown
    assert verdict.startswith(f"## {record.verdict.answer} (demo)")  # a scripted verdict says it is a demo
    assert "**Demo:** the scripted backend wrote every reply" in verdict
    assert f"judge's own estimate {record.verdict.confidence:.0%}" in verdict and "**How sure:**" in verdict
    assert "**This trial:** $0 (demo: no model was called)" in verdict
    assert '<details style="margin: 0.5em 0"><summary>' in w.verdict.value  # render's one HTML block
    assert f"Run {record.run_id} saved" in w.message_text


async def test_the_essay_case_prefills_the_form(scripted_settings):
    w = Courtroom(ESSAY, scripted_settings)
    assert w.question.value.startswith("Should I publish my essay")
    assert "publishing-checklist.pdf" in w.evidence.value
    record = await run(w)
    assert record.case.question == w.question.value
    assert [d.name for d in record.case.context] == ["essay-publish/draft.md", "essay-publish/editor-notes.md",
                                                     "essay-publish/publishing-checklist.pdf"]
    assert "`essay-publish/draft.md:" in w.view.sections["prosecution"].markdown
    assert w.view.verdict_markdown.startswith(f"## {record.verdict.answer}")


async def test_clear_files_empties_the_evidence(scripted_settings):
    w = Courtroom(ESSAY, scripted_settings)
    w.upload.set_state({"value": [upload_item("notes.txt", b"The editor must approve the final draft first.")]})
    assert len(w.documents) == 4
    w.clear_button.click()
    assert w.documents == {} and w.upload.value == () and "No files attached" in w.evidence.value


async def test_text_streams_in_while_the_kernel_stays_free(scripted_settings):
    w = Courtroom(ESSAY, scripted_settings, backends={"scripted": ScriptedBackend(latency_ms=400)})
    ticks = 0

    async def other_work() -> None:  # a cell the person runs meanwhile
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.01)

    other = asyncio.create_task(other_work())
    w.run_button.click()
    assert not w.task.done() and w.run_button.disabled and not w.stop_button.disabled
    def shown() -> str:
        return w.view.sections["prosecution"].sources.get("prosecutor", "")

    await until(lambda: "**Motion:**" in shown() and "writing…" in shown(), what="the prosecutor's reply to stream in")
    partial = shown()
    assert partial.startswith("#### Prosecutor\n\n`scripted` · temperature 0.40")
    assert '"motion"' not in partial and "&quot;motion&quot;" not in w.view.sections["prosecution"].box.children[0].value
    assert partial.endswith("*writing…*")  # the reply so far, as fields, not raw JSON
    assert w.accordion.titles[0] == "Prosecution · running…"
    seen = ticks
    await until(lambda: ticks > seen + 5, what="other work to run during the trial")
    assert not w.task.done()
    w.run_button.click()  # a second Run while one is running does nothing
    await w.task
    other.cancel()
    assert w.result.status == "complete"
    assert "**Motion:**" in w.view.sections["prosecution"].markdown
    assert "writing…" not in w.view.sections["prosecution"].markdown


async def test_stop_cancels_and_saves_the_partial_record(scripted_settings, store):
    w = Courtroom(ESSAY, scripted_settings, backends={"scripted": ScriptedBackend(latency_ms=150)})
    w.run_button.click()
    await until(lambda: "defense" in w.view.streams, what="the defense to start")
    w.stop_button.click()
    assert w.stop_button.disabled is True
    await w.task

    record = w.result
    assert record.status == "incomplete" and record.stages_completed == ["prosecution"]
    assert record.error == "cancelled before the verdict"
    saved = store.load(record.run_id)
    assert saved.status == "incomplete" and saved.prosecution is not None and saved.verdict is None
    assert w.message_text == (f"Stopped before the verdict; stages completed: prosecution "
                              f"(partial record saved as run {record.run_id}).")
    assert w.run_button.disabled is False and w.stop_button.disabled is True
    assert w.progress.bar_style == "warning" and w.progress.value == 1
    assert list(w.accordion.titles) == ["Prosecution · 3 exhibits, 3 verified", "Defense · interrupted",
                                        "Jury · not reached", "Judge · not reached"]
    assert "cut off before it finished" in w.view.sections["defense"].markdown
    assert "**No outcome** (incomplete" in w.view.verdict_markdown
    assert w.error is None


async def test_a_failing_backend_is_one_readable_line(scripted_settings, store):
    failing = ScriptedBackend(script={"defense": {"$error": "the model server went away"}})
    w = Courtroom(ESSAY, scripted_settings, backends={"scripted": failing})
    record = await run(w)
    assert record.status == "failed" and record.stages_completed == ["prosecution"]
    assert w.message_text == (f"Error: scripted failure for defense: the model server went away "
                              f"(partial record saved as run {record.run_id})")
    assert "Traceback" not in w.message.value
    assert "**Failed:** scripted failure for defense" in w.view.sections["defense"].markdown
    assert store.load(record.run_id).status == "failed"
    assert w.run_button.disabled is False and w.progress.bar_style == "danger"
    assert str(w.error) == "scripted failure for defense: the model server went away"


class BrokenBackend(ScriptedBackend):
    """A backend with a bug: it raises something that is not a CourtroomError."""

    async def complete(self, request, on_text=None):
        raise ZeroDivisionError("division by zero")


async def test_a_bug_is_one_line_in_the_widget_and_surfaces(scripted_settings, caplog):
    w = Courtroom(ESSAY, scripted_settings, backends={"scripted": BrokenBackend()})
    w.run_button.click()
    with pytest.raises(ZeroDivisionError):  # a bug is not swallowed: the run's task fails with it
        await w.task
    record = w.result
    assert record.status == "failed"
    assert any(r.levelname == "ERROR" and "the run failed" in r.getMessage() for r in caplog.records)
    assert w.message_text.startswith("Error: internal error: ZeroDivisionError('division by zero')")
    assert "\n" not in w.message_text and "Traceback" not in w.message.value
    assert w.run_button.disabled is False and isinstance(w.error, ZeroDivisionError)


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda w: setattr(w.question, "value", "   "),
         "Error: the question is empty; ask a yes/no question such as 'Should I merge this PR?'"),
        (lambda w: (setattr(w.preset, "value", "custom"), setattr(w.role_models["judge"], "value", "gpt:4o")),
         "Error: settings: [models.decision] judge: unknown backend 'gpt' in 'gpt:4o'; use one of local, anthropic, "
         "ollama, openai, scripted (for example 'anthropic:claude-sonnet-4-6')"),
    ],
    ids=["empty-question", "unknown-backend"],
)
async def test_bad_input_is_refused_before_a_run(scripted_settings, setup, message):
    w = Courtroom(ESSAY, scripted_settings)
    setup(w)
    w.run_button.click()
    assert w.task is None and w.result is None
    assert w.message_text == message
    assert w.run_button.disabled is False


async def test_an_unreadable_upload_names_the_file(scripted_settings):
    w = court(scripted_settings)
    w.upload.set_state({"value": [upload_item("photo.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "image/png"),
                                  upload_item("ok.md", b"The budget review must finish before Friday.", view=False)]})
    assert w.message_text == ("Error: photo.txt looks like a binary file; attach text, Markdown, code, diffs, "
                              "JSON, CSV or PDF")
    assert list(w.documents) == ["ok.md"]


async def test_a_file_uploaded_again_under_its_name_replaces_it_and_says_so(scripted_settings):
    w = court(scripted_settings)
    w.upload.set_state({"value": [upload_item("notes.md", b"The review is pending.", view=False)]})
    w.upload.set_state({"value": [upload_item("notes.md", b"The review passed on Friday.", view=False)]})
    assert w.documents["notes.md"].text == "The review passed on Friday."
    assert w.message_text == "notes.md: replaced by the file uploaded under the same name."


async def test_form_settings_reach_the_trial(scripted_settings):
    w = Courtroom(ESSAY, scripted_settings)
    w.params["jury_size"].value, w.params["jury_threshold"].value = 3, 2
    w.params["juror_temperature_min"].value, w.params["juror_temperature_max"].value = 0.1, 0.9
    w.budget.value = 0.5
    record = await run(w)
    assert record.settings["procedures"]["decision"]["jury_size"] == 3 and record.settings["budget"]["max_usd"] == 0.5
    assert [j.temperature for j in record.jury.jurors] == [0.1, 0.5, 0.9]
    assert record.jury.threshold == 2
    jury = w.view.sections["jury"].markdown
    assert "temperature 0.10" in jury and "temperature 0.50" in jury and "temperature 0.90" in jury


async def test_dry_run_shows_every_prompt_with_estimates(scripted_settings, store):
    w = Courtroom(ESSAY, scripted_settings, dry_run=True)
    w.preset.value = "anthropic"  # priced, and a dry run needs no key
    record = await run(w)
    assert record.dry_run and record.status == "complete" and record.calls == []
    assert store.list() == []  # a dry run is not stored
    plans = [e for e in record.events if e["type"] == "prompt_planned"]
    # on Claude the evidence screener's second opinion comes first ([injection] second_opinion = "auto"),
    # one prompt for each of the case's three documents
    assert [p["agent"] for p in plans] == ["screener-1", "screener-2", "screener-3", "prosecutor", "defense",
                                           *[f"juror-{n}" for n in range(1, 6)], "judge"]
    for plan in plans:
        sections = {"juror": "jury", "prosecutor": "prosecution", "screener": "screening"}
        section = w.view.sections[sections.get(plan["role"], plan["role"])]
        text = section.sources[f"prompt-{plan['agent']}"]
        assert f"≈{plan['input_tokens']:,} tokens in, ≈{plan['output_tokens']:,} out" in text
        assert "anthropic:claude-sonnet-4-6" in text and "est. $0.0" in text
        assert plan["messages"][1]["content"][:200] in text
    assert w.accordion.titles[0] == "Evidence screening · 3 prompt(s)" and w.accordion.titles[3] == "Jury · 5 prompt(s)"
    assert w.view.status_markdown.startswith("Status: **complete** · dry run, no model called · ")
    assert w.view.verdict_markdown.startswith("**Dry run:** 11 prompts, ≈")
    assert "estimated cost $0.0" in w.view.verdict_markdown and "No model was called." in w.view.verdict_markdown


async def test_show_draws_a_stored_run_as_it_was_seen_live(scripted_settings):
    w = Courtroom(ESSAY, scripted_settings)
    record = await run(w)
    view = Courtroom.show(record.run_id[:15])  # a unique prefix is enough
    assert isinstance(view, TrialView) and view.result.run_id == record.run_id
    assert view.verdict_markdown == w.view.verdict_markdown
    assert view.accordion.titles == w.accordion.titles
    for name, section in w.view.sections.items():
        assert view.sections[name].markdown == section.markdown
    assert Courtroom.show(record).verdict_markdown == w.view.verdict_markdown


async def test_show_of_an_unknown_run_is_a_message(runs_dir):
    view = Courtroom.show("19990101-nope")
    assert view.result is None
    assert view.status_markdown == f"Error: no run '19990101-nope' in {runs_dir}; list them with `courtroom runs`"
    assert "&#x27;19990101-nope&#x27;" in view.status.value


def test_markdown_from_models_cannot_inject_html():
    out = markdown_html('> <img src=x onerror="alert(1)"> <script>alert(2)</script>\n\n'
                        "<details><summary>Judge's reasoning</summary>\n\nfine <b>bold</b>\n\n</details>")
    assert "<img" not in out and "<script" not in out and "&lt;img" in out
    assert "<summary>Judge's reasoning</summary><p>fine &lt;b&gt;bold&lt;/b&gt;</p>\n</details>" in out


def test_a_broken_config_still_gives_a_form(tmp_path, monkeypatch):
    bad = tmp_path / "config.toml"
    bad.write_text("[parameters]\njury_size = 'many'\n")
    monkeypatch.setenv("COURTROOM_CONFIG", str(bad))
    w = Courtroom()
    assert w.message_text.startswith(f"Error: {bad}: [procedures.decision] jury_size:")
    assert w.message_text.endswith("(using the built-in defaults)")
    assert w.params["jury_size"].value == 5


async def test_a_failed_juror_is_shown_and_warned_about_in_the_verdict(scripted_settings):
    failing = ScriptedBackend(script={"juror-2": {"$error": "out of memory"}})
    w = Courtroom(ESSAY, scripted_settings, backends={"scripted": failing})
    record = await run(w)
    assert record.status == "complete" and record.jury.voted == 4
    jury = w.view.sections["jury"].markdown
    assert "#### Juror 2 · failed" in jury and "**Failed:** scripted failure for juror-2: out of memory" in jury
    assert "- ⚠️ partial panel: 4 of 5 jurors voted (juror 2 failed: scripted failure for juror-2: out of memory)" in jury
    verdict = w.view.verdict_markdown
    assert f"**Jury:** {record.jury.split()} — partial panel, 4 of 5 jurors" in verdict
    assert "**Warnings:**\n- ⚠️ partial panel: 4 of 5 jurors voted" in verdict


class PricedBackend(ScriptedBackend):
    """Scripted replies under a priced model's name, so the budget has something to count."""

    price_provider = "anthropic"


async def test_a_budget_stop_is_explained(scripted_settings, store):
    settings = scripted_settings.with_backend("anthropic:claude-sonnet-4-6")
    w = Courtroom(ESSAY, settings, backends={"anthropic": PricedBackend()})
    w.budget.value = 0.025  # the prosecution and the defense fit; five jurors do not
    record = await run(w)
    assert record.status == "stopped" and record.stages_completed == ["prosecution", "defense"]
    assert re.fullmatch(r"Error: budget stop before the jury stage: it would cost about \$0\.0\d on top of \$0 spent, "
                        rf"past the cap of \$0\.03 \(\[budget\] max_usd\) \(partial record saved as run {record.run_id}\)",
                        w.message_text), w.message_text
    assert w.view.verdict_markdown.startswith("**Budget stop:** budget stop before the jury stage")
    assert "**No outcome** (stopped" in w.view.verdict_markdown
    assert w.progress.bar_style == "warning" and w.run_button.disabled is False
    assert store.load(record.run_id).status == "stopped"


def test_without_a_running_loop_run_blocks_until_the_verdict(scripted_settings, tmp_path):
    """In a plain script there is no loop to share: Run runs the trial to its end."""
    w = Courtroom(ESSAY, scripted_settings, store=tmp_path / "runs")
    w.run_button.click()
    assert w.task is None and w.result is not None and w.result.status == "complete"
    assert (tmp_path / "runs" / f"{w.result.run_id}.json").is_file()
    assert w.run_button.disabled is False
    assert Courtroom.show(w.result.run_id, store=tmp_path / "runs").verdict_markdown == w.view.verdict_markdown


def test_a_stage_the_view_does_not_know_gets_its_own_section():
    """Other procedures bring other stages; the view makes room for them from the events."""
    from courtroom_chat.events import AgentFinished, RunStarted, StageFinished, StageStarted

    view = TrialView()
    view.handle(RunStarted(run_id="r1", procedure="review", question="Is it sound?", stages=["review", "ruling"]))
    assert list(view.accordion.titles) == ["Review", "Ruling"] and view.progress.max == 2
    view.handle(StageStarted(stage="review", title="Peer review"))
    view.handle(AgentFinished(stage="review", agent="reviewer", output={"score": 4}))
    view.handle(StageFinished(stage="review", title="Peer review"))
    view.handle(StageStarted(stage="appeal", title="Appeal"))  # a stage RunStarted did not announce
    # stages read in the order they ran: the appeal goes before the ruling, which has not started
    assert list(view.accordion.titles) == ["Peer review · done", "Appeal · running…", "Ruling"]
    assert '"score": 4' in view.sections["review"].markdown and view.progress.value == 1


async def test_stop_before_the_trial_began_brings_run_back(scripted_settings, store):
    w = Courtroom(ESSAY, scripted_settings)
    w.run_button.click()
    w.stop_button.click()  # before the task took a single step
    await asyncio.gather(w.task, return_exceptions=True)
    assert w.task.cancelled() and w.result is None and store.list() == []
    assert w.message_text == "Stopped before the trial began; nothing was run or saved."
    assert w.run_button.disabled is False and w.stop_button.disabled is True
    record = await run(w)  # and the next Run works
    assert record.status == "complete"


def test_a_backend_given_to_the_widget_is_the_one_it_runs_on(scripted_settings):
    w = Courtroom(ESSAY, Settings(), backend="scripted")
    assert w.preset.value == "scripted"
    assert str(w.form_settings().model_for("juror")) == "scripted"


def test_the_status_names_who_is_working_and_for_how_long():
    """Issue 86, item 1: while a model works the status line says which agent, for how long and
    how many tokens so far; once the run is over, only the run's status."""
    from courtroom_chat.events import AgentStarted, RunStarted, TextDelta

    view = TrialView()
    view.handle(RunStarted(run_id="20261208-000000-abcdef", question="Ship it?", procedure="decision",
                           stages=["prosecution"], documents=[]))
    view.handle(AgentStarted(stage="prosecution", agent="prosecutor", role="prosecutor", title="Prosecutor"))
    assert "⏳ 0:00 · prosecutor 0 s, reading the case" in view.status_markdown
    view.handle(TextDelta(agent="prosecutor", text="y" * 720))
    view.heartbeat.working["prosecutor"][0] -= 20  # twenty seconds into its reply
    view._drawn.clear()  # the stream's redraw is due
    view.handle(TextDelta(agent="prosecutor", text=""))
    assert re.search(r"prosecutor 20 s, ≈200 tokens \(10\.0/s\)", view.status_markdown), view.status_markdown
