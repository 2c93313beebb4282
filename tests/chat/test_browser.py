"""The chat in Debian's Chromium, against the real ``chainlit run`` server (scripted backend)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

CASE = Path(__file__).resolve().parents[2] / "cases" / "code-commit"
STAGES = ("Prosecution", "Defense", "Jury", "Judge")
CHAT_LATENCY_MS = 1200  # per model call, so a trial can be stopped half way


def saved(server, question):
    return next(r for r in server.runs_saved() if r.case.question == question)


def test_upload_and_ask_shows_four_stages_the_verdict_and_a_verified_exhibit(open_chat, chat_server):
    chat = open_chat()
    page = chat.page
    chat.ask("Should I merge PR #214 now?", [CASE / "pr-214.diff", CASE / "test-log.txt"])
    page.get_by_text("This session:").wait_for(timeout=60_000)
    for name in STAGES:
        stage = chat.step(name)
        assert stage.is_visible(), name
        assert stage.inner_text().strip() == name  # titled as the court names it, not "Used Prosecution"
    # finished stages fold once the verdict is in, so the verdict is what stays in view
    page.wait_for_function(
        "names => names.every(n => document.getElementById('step-' + n)?.getAttribute('aria-expanded') === 'false')",
        arg=STAGES, timeout=10_000)

    record = saved(chat_server, "Should I merge PR #214 now?")
    verdict = page.locator(".step", has_text="This trial:").last
    assert record.verdict.answer in verdict.inner_text()
    assert re.search(r"This trial:\s*\$0 \(demo: no model was called\)", verdict.inner_text())
    for label in ("Export", "Re-run", "Show prompts"):
        assert page.get_by_role("button", name=label).last.is_visible()

    exhibit = next(e for e in record.prosecution.exhibits if e.verified)
    chat.step("Prosecution").click()  # unfold the stage to reach its exhibits
    trigger = chat.step(f"Exhibit {exhibit.number} · ✅ verified")
    assert trigger.get_attribute("aria-expanded") == "false"
    trigger.click()
    assert trigger.get_attribute("aria-expanded") == "true"
    where = f"{exhibit.location.document}:{exhibit.location.line_start}"
    page.get_by_text(re.compile(rf"✅ Verified at {re.escape(where)}\b")).wait_for()
    assert page.get_by_text(exhibit.source_quote, exact=False).first.is_visible()


def test_stop_mid_trial_shows_the_partial_notice(open_chat, chat_server):
    chat = open_chat()
    chat.ask("Should we stop this trial half way?", [CASE / "test-log.txt"])
    chat.step("Defense").wait_for()
    chat.page.click("#stop-button")
    notice = chat.page.locator(".step", has_text="Trial stopped").last
    notice.wait_for()
    text = notice.inner_text()
    assert re.search(r"Stages finished: Prosecution(, Defense)?\.", text), text
    record = saved(chat_server, "Should we stop this trial half way?")
    assert record.status == "incomplete" and f"run {record.run_id}" in text
    assert not chat.page.get_by_text("This trial:").count()


def test_dry_run_shows_prompts_and_calls_no_model(open_chat, chat_server):
    chat = open_chat()
    before = len(chat_server.runs_saved())
    chat.page.click("#chat-settings-open-modal")
    chat.page.locator("[role=dialog] #dry_run").click()  # the panel also holds the procedure's own switches
    chat.page.get_by_role("button", name="Confirm").click()
    chat.page.get_by_text("Settings saved. Next dry run").wait_for()
    chat.ask("Should I publish the essay now?", [CASE / "pr-214.md"])
    chat.page.get_by_text("No model was called.").wait_for()
    for agent in ("prosecutor", "defense", "juror-1", "judge"):
        assert chat.step(f"Prompt · {agent}").is_visible(), agent
    assert not chat.step("Prosecution").count()
    assert len(chat_server.runs_saved()) == before, "a dry run stores no run record"
    chat.step("Prompt · prosecutor").click()
    assert chat.page.get_by_text(re.compile(r"<<<EVIDENCE 1: pr-214\.md")).first.is_visible()


def test_threads_survive_a_restart_and_resume_with_the_whole_trial(open_chat, chat_server):
    question = "Should the history survive a restart?"
    open_chat().ask_and_wait(question, [CASE / "pr-214.md"])

    chat_server.stop()
    chat_server.start()

    again = open_chat()
    again.resume(question, STAGES)
    again.page.get_by_role("button", name="Export").wait_for()
