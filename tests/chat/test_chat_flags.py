"""Flagged evidence in the chat: every passage, the scan's and the model's second opinion's,
shown with its place before any agent speaks, and the verdict's warning."""

from __future__ import annotations

import json

from tests.chat.conftest import stored_records
from tests.test_screening import NOTES, ORDER, STEERING

QUESTION = "Should we release 4.2 this Friday?"


async def test_flagged_passages_are_shown_with_their_places_and_the_verdict_warns(chat, court_config, tmp_path,
                                                                                   runs_dir):
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"screener": {"passages": [STEERING]}}))
    court_config(f'screener = "scripted"\n\n[injection]\nsecond_opinion = "on"\n\n[scripted]\nscript = "{script}"\n')
    notes = (NOTES + f"\n{ORDER}\n").encode()
    async with chat.context(chat.session()) as ui:
        await chat.send(QUESTION, [chat.upload("readiness.md", data=notes)])

    [record] = stored_records(runs_dir)
    assert [(f["source"], f["line_start"]) for f in record.flags] == [("model", 5), ("scan", 8)]
    screening = ui.step("Evidence screening")
    shown = "\n".join(str(s.get("name", "")) + "\n" + str(s.get("output", "")) for s in ui.children(screening))
    assert "readiness.md:5" in shown and "readiness.md:8" in shown
    assert "The screener's note" in shown
    steps = [s["name"] for s in ui.steps()]
    assert steps.index("Evidence screening") < min(i for i, n in enumerate(steps) if "Prosecut" in n)
    [verdict] = ui.verdicts()
    assert "readiness.md:5" in verdict["output"] and "instruct the court" in verdict["output"]
