"""A whole trial through the chat handlers: stages, exhibits, jurors, tally, verdict, cost."""

from __future__ import annotations

import json
import re
from pathlib import Path

from courtroom_chat import render
from courtroom_chat.procedures.decision import present
from courtroom_chat.store import RunStore

CASES = Path(__file__).resolve().parents[2] / "cases"
DIFF = CASES / "code-commit" / "pr-214.diff"
LOG = CASES / "code-commit" / "test-log.txt"
QUESTION = "Should I merge PR #214 (retry with backoff for the HTTP client) now?"


def only_record(runs_dir):
    rows = RunStore(runs_dir).list()
    assert len(rows) == 1, rows
    return RunStore(runs_dir).load(rows[0]["run_id"])


async def test_trial_shows_four_stages_exhibits_jurors_and_the_verdict(chat, runs_dir):
    session = chat.session()
    async with chat.context(session) as ui:
        await chat.send(QUESTION, [chat.upload("pr-214.diff", DIFF), chat.upload("test-log.txt", LOG)])

    record = only_record(runs_dir)
    assert record.status == "complete"
    assert [d.name for d in record.case.context] == ["pr-214.diff", "test-log.txt"]

    top = [s["name"] for s in ui.steps() if s.get("parentId") is None]
    assert top == ["Prosecution", "Defense", "Jury", "Judge"]
    assert all(s.get("end") for s in ui.steps()), "every step is closed when the trial ends"

    children = ui.children(ui.step("Prosecution"))
    assert children[0]["name"] == "Prosecutor"
    assert f"**Motion:** {record.prosecution.motion}" in children[0]["output"]
    exhibits = [c for c in children if c["name"].startswith("Exhibit")]
    assert [e["name"] for e in exhibits] == [present.exhibit_title(e.model_dump(mode="json"))
                                             for e in record.prosecution.exhibits]
    for shown, exhibit in zip(exhibits, record.prosecution.exhibits, strict=True):
        assert f"> {exhibit.source_quote}" in shown["output"]
        assert exhibit.harm in shown["output"]
        if exhibit.verified:
            loc = exhibit.location
            assert "✅" in shown["name"] and f"`{loc.document}:{loc.line_start}" in shown["output"]

    [stage] = [s for s in ui.steps() if s["name"] == "Defense" and s.get("parentId") is None]
    [defense] = [c for c in ui.children(stage) if c["name"] == "Defense"]
    for challenge in record.defense.exhibit_challenges:
        assert f"**Exhibit {challenge.exhibit}** ({challenge.effect}): {challenge.challenge}" in defense["output"]

    jury = ui.step("Jury")
    jurors = ui.children(jury)
    assert [j["name"] for j in jurors] == [present.juror_title(j.model_dump(mode="json")) for j in record.jury.jurors]
    for shown, juror in zip(jurors, record.jury.jurors, strict=True):
        assert juror.persona in shown["output"] and juror.reasoning in shown["output"]
        assert f"temperature {juror.temperature:.2f}" in shown["output"]
    assert jury["output"] == f"**Tally (act–do not act):** {record.jury.split()}"

    [judge] = ui.children(ui.step("Judge"))
    assert record.verdict.reasoning in judge["output"]

    [verdict] = ui.verdicts()
    assert verdict["output"].startswith(f"## {record.verdict.answer}")
    assert verdict["metadata"]["run_id"] == record.run_id
    assert f"**Decision:** {present.DECISION_LABEL[record.verdict.decision]}" in verdict["output"]
    assert f"**Jury:** {record.jury.split()}" in verdict["output"]
    assert "**How sure:**" in verdict["output"]
    assert "**This trial:** $0 (demo: no model was called)" in verdict["output"]
    assert "**This session:** $0" in verdict["output"]
    assert "<details>" not in verdict["output"], "the chat shows no raw HTML"
    assert {a["name"] for a in ui.actions() if a["forId"] == verdict["id"]} == {"export", "rerun", "show_prompts"}
    assert not ui.errors()


async def test_replies_stream_as_fields_and_jurors_deliberate_concurrently(chat, monkeypatch):
    monkeypatch.setenv("COURTROOM_SCRIPTED_LATENCY_MS", "400")
    async with chat.context(chat.session()) as ui:
        await chat.send(QUESTION, [chat.upload("pr-214.diff", DIFF)])

    steps = {s["id"]: s for s in ui.steps()}
    jurors = [s for s in steps.values() if s["name"].startswith("Juror")]
    drafts = [u["output"] for j in jurors for u in ui.updates_of(j["id"])]
    assert any("**Reasoning:**" in d for d in drafts), "a juror's reply streams as readable fields"
    assert not any(d.lstrip().startswith("{") or '"vote":' in d for d in drafts), "no raw JSON is shown"
    order = [steps[data["id"]]["name"] for name, data in ui.calls
             if name == "update_message" and data.get("id") in steps and steps[data["id"]]["name"].startswith("Juror")]
    first_switch = next(i for i, n in enumerate(order) if n != order[0])
    assert order[0] in order[first_switch:], "jurors' drafts interleave: they deliberate at once"

    jury = ui.step("Jury")
    tallies = [u["output"] for u in ui.updates_of(jury["id"])]
    assert "deliberating" in tallies[0]
    partial = [t for t in tallies if re.search(r"\(\d deliberating\)", t) and not t.endswith("(5 deliberating)")]
    assert partial, "the tally shows while jurors are still deliberating"


async def test_unverified_exhibit_shows_nearest_passage_and_warning(chat, court_config, tmp_path):
    script = tmp_path / "script.json"
    real = "FAILED tests/test_http.py::test_retry_after_http_date - ValueError: could not convert string to float"
    script.write_text(json.dumps({"prosecutor": {
        "motion": "merge PR #214 now",
        "case_statement": "The retry logic is ready and the failing test is unrelated to the change itself.",
        "exhibits": [
            {"source_quote": real, "harm": "Without the fix the checkout keeps failing under rate limits for users."},
            {"source_quote": "FAILED tests/test_http.py::test_retry_after_seconds - ValueError: bad float",
             "harm": "Leaving the retry path broken makes every rate-limited request fail for customers."},
        ],
        "harm_analysis": "Not merging leaves the client without backoff during incidents.",
    }}), encoding="utf-8")
    court_config(f'[scripted]\nscript = "{script}"\n')
    async with chat.context(chat.session()) as ui:
        await chat.send(QUESTION, [chat.upload("test-log.txt", LOG)])

    first, second = [c for c in ui.children(ui.step("Prosecution")) if c["name"].startswith("Exhibit")]
    assert first["name"] == "Exhibit 1 · ✅ verified"
    assert "**✅ Verified** at `test-log.txt:" in first["output"]
    assert second["name"] == "Exhibit 2 · ❌ unverified"
    assert "**❌ Unverified**: not found in the evidence. Nearest passage" in second["output"]
    assert "`test-log.txt:" in second["output"]
    assert "⚠️ exhibit 2 could not be verified" in ui.step("Prosecution")["output"]
    [verdict] = ui.verdicts()
    assert "**Warnings:**" in verdict["output"] and "exhibit 2 could not be verified" in verdict["output"]


async def test_costs_by_role_for_the_trial_and_the_session(chat, priced_backend, runs_dir):
    async with chat.context(chat.session()) as ui:
        await chat.send(QUESTION, [chat.upload("pr-214.diff", DIFF)])
        await chat.send("Should I merge it after the weekend?", [chat.upload("test-log.txt", LOG)])

    store = RunStore(runs_dir)
    first, second = sorted((store.load(r["run_id"]) for r in store.list()), key=lambda r: r.started_at)
    assert first.cost_usd > 0 and second.cost_usd > 0
    one, two = (v["output"] for v in ui.verdicts())
    assert render.cost_lines(first.cost_by_role(), first.cost_usd)[0] in one
    assert render.cost_lines(first.cost_by_role(), first.cost_usd, label="This session")[0] in one
    assert render.cost_lines(second.cost_by_role(), second.cost_usd)[0] in two
    both = {role: round(first.cost_by_role()[role] + second.cost_by_role()[role], 6) for role in first.cost_by_role()}
    assert render.cost_lines(both, round(first.cost_usd + second.cost_usd, 6), label="This session")[0] in two


async def test_a_choice_says_the_question_it_is_tried_as(chat, runs_dir, tmp_path):
    designs = tmp_path / "designs.md"
    designs.write_text("Design A loads in 0.8 s.\nDesign B loads in 2.4 s.\n")
    session = chat.session()
    async with chat.context(session) as ui:
        await chat.send("Design A or B?", [chat.upload("designs.md", designs)])
    assert only_record(runs_dir).case.question == "Should we choose Design A rather than Design B?"
    assert any((m.get("output") or "") == "Tried as: *Should we choose Design A rather than Design B?*"
               for m in ui.messages())


async def test_how_sure_shows_three_lines_and_links_the_rest(chat, monkeypatch):
    """How sure is at most three lines in the verdict; with more measured (here the mirror check),
    the verdict names "How sure, in full", and Chainlit links the element of that name, which holds
    every line (issue 86: How sure in five seconds, details one click away)."""
    import chainlit as cl

    made, real_text = [], cl.Text

    def capture(**kwargs):
        made.append(kwargs)
        return real_text(**kwargs)

    monkeypatch.setattr(cl, "Text", capture)
    session = chat.session()
    session.chat_settings = {"mirror": True}
    async with chat.context(session) as ui:
        await chat.send(QUESTION, [chat.upload("pr-214.diff", DIFF)])
    [verdict] = ui.verdicts()
    sure = verdict["output"].split("**How sure:**")[1].split("\n\n")[0]
    bullets = [line for line in sure.splitlines() if line.startswith("- ")]
    assert bullets[-1] == f"- {render.IN_FULL}" and len(bullets) <= 4
    [element] = [e for e in ui.elements() if e["name"] == render.IN_FULL]
    assert element["forId"] == verdict["id"] and element["display"] == "side"
    [text] = [m for m in made if m["name"] == render.IN_FULL]
    assert "- Mirror:" in text["content"] and "- Votes:" in text["content"] and "Mirror:" not in verdict["output"]
