"""An earlier trial's replies handed back for the very same requests (backends/reuse.py): a
second configuration of a court with rounds keeps round 1 and decides the rest afresh."""

from __future__ import annotations

import pytest

from courtroom_chat.backends.base import ModelRequest
from courtroom_chat.backends.reuse import Replies
from courtroom_chat.backends.scripted import ScriptedBackend
from courtroom_chat.case import load_case
from courtroom_chat.config import Settings
from courtroom_chat.engine import Trial
from courtroom_chat.records import CallRecord
from tests.conftest import CASES


class Counting(ScriptedBackend):
    """The scripted backend, counting the requests that reach it."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.asked: list[str] = []

    async def complete(self, request, on_text=None):
        self.asked.append(request.agent)
        return await super().complete(request, on_text)


def supreme(**params) -> Settings:
    return Settings().with_backend("scripted").with_params("supreme", params)


async def test_the_same_trial_again_is_answered_from_its_record_without_a_model_call():
    case = load_case(CASES / "burglary.json")
    first = await Trial(case, supreme(), store=None, seed=5, backends={"scripted": Counting(latency_ms=0)}).run()
    model = Counting(latency_ms=0)
    again = await Trial(case, supreme(), store=None, seed=5, backends={"scripted": model}, reuse=first.calls).run()
    assert model.asked == []  # every request was one the first trial made
    assert all(c.reused for c in again.calls) and len(again.calls) == len(first.calls)
    assert [c.response for c in again.calls] == [c.response for c in first.calls]
    assert again.outcome.model_dump(exclude={"cost_usd"}) == first.outcome.model_dump(exclude={"cost_usd"})
    assert not any(c.reused for c in first.calls)


async def test_a_conference_without_the_tally_keeps_round_1_and_asks_the_conference_afresh():
    """The pair the conformity measurement needs: the same round 1, two conferences."""
    case = load_case(CASES / "burglary.json")
    with_tally = await Trial(case, supreme(show_tally=True), store=None, seed=5,
                             backends={"scripted": Counting(latency_ms=0)}).run()
    model = Counting(latency_ms=0)
    without = await Trial(case, supreme(show_tally=False), store=None, seed=5, backends={"scripted": model},
                          reuse=with_tally.calls).run()
    conference = [c for c in without.calls if "ROUND 2" in c.messages[-1]["content"]]
    earlier = without.calls[:without.calls.index(conference[0])]
    assert conference and earlier
    assert all(c.reused for c in earlier)  # round 1 (and what came before it) is the first trial's
    assert not any(c.reused for c in conference)  # the conference reads no tally now: asked afresh
    assert sorted(model.asked) == sorted(c.agent for c in without.calls if not c.reused)
    round_1 = [c.response for c in with_tally.calls if c.agent.startswith("justice") and "ROUND 2" not in
               c.messages[-1]["content"]]
    assert round_1 == [c.response for c in earlier if c.agent.startswith("justice")]


def request(agent: str = "juror-1", temperature: float | None = 0.5) -> ModelRequest:
    return ModelRequest(agent=agent, role="juror", system="S", prefix="P", prompt="Q", schema={}, schema_name="x",
                        temperature=temperature)


def recorded(agent: str = "juror-1", temperature: float | None = 0.5, response: str = '{"vote": "yes"}',
             error: str = "") -> CallRecord:
    return CallRecord(id=1, agent=agent, role="juror", stage="jury", backend="local", model="m",
                      temperature=temperature, messages=request(agent).messages(), response=response, error=error)


@pytest.mark.parametrize(("asked", "backend", "expected"), [
    (request(), "local", True),
    (request(agent="juror-2"), "local", False),  # another agent
    (request(), "ollama", False),  # another backend
    (request(temperature=0.9), "local", False),  # the agent is sampled otherwise now
])
def test_a_reply_is_handed_back_only_for_the_same_agent_backend_messages_and_temperature(asked, backend, expected):
    replies = Replies([recorded()])
    assert (replies.take(backend, asked) is not None) is expected
    assert replies.used == int(expected)


def test_each_reply_is_handed_back_once_and_failed_calls_never():
    replies = Replies([recorded(response="first"), recorded(response="second"), recorded(response="", error="timeout")])
    assert replies.offered == 2
    assert [replies.take("local", request()).response for _ in range(2)] == ["first", "second"]
    assert replies.take("local", request()) is None


def test_an_evaluation_reuses_another_configurations_trials_item_by_item(tmp_path):
    """`courtroom eval --reuse`: the conference without the tally starts from the trials with it."""
    import json
    from pathlib import Path

    from courtroom_chat.errors import InputError
    from courtroom_chat.evaluation import evaluate

    clear = str(Path(__file__).parents[1] / "bench" / "supreme" / "clear.jsonl")
    shown = evaluate(clear, procedure="supreme", baselines=[], limit=2, settings=supreme(show_tally=True),
                     runs_dir=tmp_path)
    hidden = evaluate(clear, procedure="supreme", baselines=[], limit=2, settings=supreme(show_tally=False),
                      runs_dir=tmp_path, reuse=shown.folder.name)
    rows = [json.loads(line) for line in (hidden.folder / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 2 and all(0 < r["details"]["reused_calls"] < r["calls"] for r in rows)
    assert json.loads((hidden.folder / "spec.json").read_text())["reuse"] == shown.folder.name
    assert f"started from evaluation `{shown.folder.name}`'s" in hidden.markdown
    with pytest.raises(InputError, match="no evaluation 'nosuch'"):
        evaluate(clear, procedure="supreme", baselines=[], limit=1, settings=supreme(), runs_dir=tmp_path, reuse="nosuch")
    with pytest.raises(InputError, match="seed differ"):
        evaluate(clear, procedure="supreme", baselines=[], limit=1, settings=supreme(show_tally=False), seed=1,
                 runs_dir=tmp_path, reuse=shown.folder.name)


def test_the_eval_command_refuses_an_evaluation_to_reuse_that_is_not_there_in_one_line(tmp_path):
    from pathlib import Path

    from typer.testing import CliRunner

    from courtroom_chat.frontends.cli import app

    clear = str(Path(__file__).parents[1] / "bench" / "supreme" / "clear.jsonl")
    result = CliRunner().invoke(app, ["eval", clear, "-p", "supreme", "--baseline", "none", "-b", "scripted", "--limit", "1",
                                      "--reuse", "heldout-supreme-seed0-0000", "--runs-dir", str(tmp_path)])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "--reuse: no evaluation 'heldout-supreme-seed0-0000'" in result.output
    assert len([line for line in result.output.splitlines() if line.strip()]) == 1


def test_reusing_an_evaluation_whose_runs_are_not_stored_here_is_refused_in_one_line(tmp_path):
    import shutil
    from pathlib import Path

    from courtroom_chat.errors import InputError
    from courtroom_chat.evaluation import evaluate

    clear = str(Path(__file__).parents[1] / "bench" / "supreme" / "clear.jsonl")
    shown = evaluate(clear, procedure="supreme", baselines=[], limit=1, settings=supreme(show_tally=True),
                     runs_dir=tmp_path / "there")
    (tmp_path / "here" / "evals").mkdir(parents=True)
    shutil.copytree(shown.folder, tmp_path / "here" / "evals" / shown.folder.name)  # the results, not the runs
    with pytest.raises(InputError, match="none of its 1 trials is stored in"):
        evaluate(clear, procedure="supreme", baselines=[], limit=1, settings=supreme(show_tally=False),
                 runs_dir=tmp_path / "here", reuse=shown.folder.name)
