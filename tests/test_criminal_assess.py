"""Role evaluation of a finished criminal trial: the evaluator's prompt holds the record and
the role's aspects, scores are read and bounded, a bad reply is repaired once then counted as
failed, the swapped-record control, and the summary's repeatability and discrimination figures
against hand-computed values."""

from __future__ import annotations

import json

import pytest

from courtroom_chat.backends.scripted import ScriptedBackend
from courtroom_chat.case import load_case
from courtroom_chat.config import Settings
from courtroom_chat.engine import Trial
from courtroom_chat.errors import InputError
from courtroom_chat.procedures.criminal.assess import (
    ASPECTS,
    Assessment,
    RoleScores,
    assess,
    entries_of,
    markdown,
    request,
    summary,
    swapped,
    transcript,
)
from tests.conftest import CASES, sigint_default


@pytest.fixture
async def record():
    settings = Settings().with_backend("scripted")
    return await Trial(load_case(CASES / "criminal-burglary.json"), settings, store=None,
                       procedure="criminal").run(lambda e: None)


def scores(role: str, value: int) -> dict:
    return {"reason": f"the {role} did its part", **{a: value for a in ASPECTS[role]}}


async def test_each_role_is_scored_on_its_own_aspects_from_the_record(record):
    backend = ScriptedBackend(script={"evaluator-judge": scores("judge", 8), "evaluator-prosecution": scores("prosecution", 7),
                                      "evaluator-advocate": scores("advocate", 6)})
    result = await assess(record, backend)
    assert set(result.roles) == {"judge", "prosecution", "advocate"} and not result.failed
    assert result.roles["judge"].scores == {a: 8 for a in ASPECTS["judge"]}
    assert "control_of_the_court" in result.roles["judge"].scores and "politeness" in result.roles["advocate"].scores
    asked = {c.agent: c for c in backend.calls}
    first_turn = entries_of(record)[0].text
    assert all(first_turn in c.prompt for c in asked.values())
    assert "Evaluate the Judge only" in asked["evaluator-judge"].prompt
    assert '"document_format": 1-10' in asked["evaluator-judge"].prompt and "calmness" not in asked["evaluator-judge"].prompt
    written = record.outcome.data["judgment"]
    assert f"REASONING: {written['reasoning']}" in asked["evaluator-judge"].prompt  # the judge's document
    assert "REASONING:" not in asked["evaluator-advocate"].prompt
    assert asked["evaluator-judge"].schema["properties"]["task_completion"] == {"type": "integer", "minimum": 1, "maximum": 10}


async def test_a_score_out_of_range_is_repaired_once_then_the_role_counts_as_failed(record):
    bad = {**scores("judge", 8), "logic_and_clarity": 14}
    backend = ScriptedBackend(script={"evaluator-judge": [bad, scores("judge", 9)], "evaluator-advocate": [bad | {
        "reason": "x"}, bad]})
    result = await assess(record, backend, roles=("judge",))
    assert result.roles["judge"].scores["logic_and_clarity"] == 9 and result.calls == 2
    assert "Your reply could not be used" in backend.calls[-1].repairs[0][1]
    backend = ScriptedBackend(script={"evaluator-prosecution": [{**scores("prosecution", 5), "calmness": 0}] * 2})
    result = await assess(record, backend, roles=("prosecution",))
    assert result.roles == {} and "calmness" in result.failed["prosecution"] and result.calls == 2


async def test_the_swapped_control_gives_the_role_another_roles_words(record):
    entries = entries_of(record)
    swap = swapped(entries, "prosecution")
    theirs = [e.text for e in entries if e.speaker == "advocate"]
    mine = [e.text for e in swap if e.speaker == "prosecution"]
    assert mine and all(text in theirs for text in mine)
    assert [e.text for e in swap if e.speaker != "prosecution"] == [e.text for e in entries if e.speaker != "prosecution"]
    backend = ScriptedBackend()
    await assess(record, backend, roles=("prosecution",), swap=True)
    assert theirs[0] in backend.calls[0].prompt


def test_a_long_record_keeps_its_first_and_last_turns_and_says_how_many_it_left_out(record):
    entries = entries_of(record)
    text = transcript(entries * 20, "en", limit=2000)
    assert len(text) < 2600 and "turns left out" in text
    assert text.startswith(f"[{entries[0].turn}]")


async def test_only_finished_criminal_runs_are_scored():
    settings = Settings().with_backend("scripted")
    decision = await Trial(load_case(CASES / "code-commit.json"), settings, store=None).run(lambda e: None)
    with pytest.raises(InputError, match="is a decision run; role evaluation reads criminal trials"):
        entries_of(decision)
    with pytest.raises(InputError, match="unknown role 'defendant'"):
        request(decision, "defendant", temperature=0, seed=0)


def test_the_summary_reports_means_repeatability_and_discrimination_as_hand_computed():
    def run(run_id: str, judge: int, consistency: int) -> Assessment:
        s = {a: judge for a in ASPECTS["judge"]} | {"role_consistency": consistency}
        return Assessment(run_id, {"judge": RoleScores(role="judge", scores=s)}, {}, 1, 1.0)

    real = [run("a", 8, 9), run("b", 6, 7)]
    again = [run("a", 7, 9), run("b", 6, 4)]
    control = [run("a", 5, 3), run("b", 7, 8)]
    s = summary(real, again, control)
    judge = s["roles"]["judge"]
    assert judge["n"] == 2 and judge["aspects"]["task_completion"]["mean"] == 7.0
    assert judge["aspects"]["role_consistency"]["mean"] == 8.0
    assert judge["aspects"]["task_completion"]["repeat_mad"] == 0.5  # |8-7| and |6-6|
    assert judge["aspects"]["role_consistency"]["repeat_mad"] == 1.5  # |9-9| and |7-4|
    assert judge["real_above_swapped"] == 0.5  # a: 8.2 > 5.0 (mean of five); b: 6.2 < 7.2
    assert judge["consistency_above_swapped"] == 0.5  # a: 9 > 3; b: 7 < 8
    table = markdown(s, "scripted")
    assert "Role evaluation by scripted over 2 runs" in table and "| judge | 2 | 50% | 50% |" in table
    json.dumps(s)


def test_the_bench_scores_the_stored_trials_of_its_runs_folders(tmp_path):
    import asyncio
    import subprocess
    import sys
    from pathlib import Path

    from courtroom_chat.store import RunStore

    settings = Settings().with_backend("scripted")
    ids = []
    for folder in ("runs", "later"):  # an evaluation resumed in another session keeps trials in two folders
        store = RunStore(tmp_path / folder)
        asyncio.run(Trial(load_case(CASES / "criminal-burglary.json"), settings, store=store, procedure="criminal").run(lambda e: None))
        ids.append(store.list()[0]["run_id"])
    out = tmp_path / "roles.json"
    root = Path(__file__).resolve().parents[1]
    bench = [sys.executable, "-m", "bench.criminal_roles"]
    done = subprocess.run([*bench, str(tmp_path / "runs"), str(tmp_path / "later"), "--backend", "scripted",
                           "--out", str(out)], capture_output=True, text=True, timeout=120, cwd=root)
    assert done.returncode == 0, done.stderr
    assert "Role evaluation by scripted over 2 runs" in done.stdout and "| judge | 2 |" in done.stdout
    result = json.loads(out.read_text())
    assert result["roles"]["advocate"]["repeat_n"] == 2 and result["roles"]["advocate"]["control_n"] == 2
    rows = [{"method": "court", "framing": "asked", "run_id": i} for i in [ids[1], "19990101-000000-gone00"]]
    rows.append({"method": "single", "framing": "asked", "run_id": None})
    results = tmp_path / "results.jsonl"
    results.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    picked = subprocess.run([*bench, str(tmp_path / "runs"), str(tmp_path / "later"), "--backend", "scripted",
                             "--results", str(results), "--no-repeat", "--no-swap"], capture_output=True, text=True, timeout=120,
                            cwd=root)
    assert picked.returncode == 0, picked.stderr
    assert "over 1 runs" in picked.stdout and ids[1] in picked.stderr and ids[0] not in picked.stderr
    assert "1 of the evaluation's trials are in none of the runs folders given: 19990101-000000-gone00" in picked.stderr
    empty = subprocess.run([*bench, str(tmp_path)], capture_output=True, text=True, timeout=120, cwd=root)
    assert empty.returncode != 0 and "no finished criminal runs" in empty.stderr and "Traceback" not in empty.stderr


def test_the_role_bench_stopped_midway_reports_the_trials_it_scored_in_full(tmp_path):
    """A long evaluator run on the embedded model is stopped by a timeout (SIGINT): it prints the
    summary of the trials scored in full before the stop, not a traceback and nothing."""
    import asyncio
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path

    from courtroom_chat.store import RunStore

    store = RunStore(tmp_path / "runs")
    for _ in range(3):
        asyncio.run(Trial(load_case(CASES / "criminal-burglary.json"), Settings().with_backend("scripted"), store=store,
                          procedure="criminal").run(lambda e: None))
    root = Path(__file__).resolve().parents[1]
    bench = subprocess.Popen([sys.executable, "-m", "bench.criminal_roles", str(tmp_path / "runs"),
                              "--backend", "scripted", "--out", str(tmp_path / "roles.json")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "COURTROOM_SCRIPTED_LATENCY_MS": "150"}, preexec_fn=sigint_default, cwd=root)
    seen = []
    for line in bench.stderr:
        seen.append(line)
        if line.startswith("[1/3]"):
            bench.send_signal(signal.SIGINT)
            break
    out, err = bench.communicate(timeout=120)
    err = "".join(seen) + err
    assert "Traceback" not in err, err
    assert "stopped: the summary covers the 1 trials scored in full" in err
    assert "over 1 runs" in out and json.loads((tmp_path / "roles.json").read_text())["roles"]["judge"]["n"] == 1
