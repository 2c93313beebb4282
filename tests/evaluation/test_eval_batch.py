"""``--batch``: the baselines through Anthropic's Message Batches API, at the HTTP level.

The real anthropic SDK sends through httpx2; ``RespxTransport`` (tests/backends/http_mocks.py)
hands its requests to a respx router, so create, retrieve and results are real HTTP exchanges.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
import respx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "backends"))
from http_mocks import API_KEY, MODEL, RespxTransport  # noqa: E402

from courtroom_chat.backends.anthropic import AnthropicBackend  # noqa: E402
from courtroom_chat.config import ModelSpec, Settings  # noqa: E402
from courtroom_chat.cost import call_cost  # noqa: E402
from courtroom_chat.evaluation.harness import evaluate_async  # noqa: E402
from courtroom_chat.records import Usage  # noqa: E402

BATCHES = "https://api.anthropic.com/v1/messages/batches"
BATCH_ID = "msgbatch_01test"


def batch_json(status: str, n: int) -> dict[str, Any]:
    ended = status == "ended"
    return {
        "id": BATCH_ID, "type": "message_batch", "processing_status": status,
        "request_counts": {"processing": 0 if ended else n, "succeeded": n if ended else 0, "errored": 0,
                           "canceled": 0, "expired": 0},
        "created_at": "2026-01-01T00:00:00Z", "expires_at": "2026-01-02T00:00:00Z",
        "ended_at": "2026-01-01T00:10:00Z" if ended else None,
        "results_url": f"{BATCHES}/{BATCH_ID}/results" if ended else None,
    }


def message(answer: dict[str, Any]) -> dict[str, Any]:
    return {"id": "msg_b", "type": "message", "role": "assistant", "model": MODEL,
            "content": [{"type": "text", "text": json.dumps(answer)}], "stop_reason": "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 1000, "output_tokens": 50, "cache_creation_input_tokens": 0,
                      "cache_read_input_tokens": 0}}


class FakeBatches:
    """The Message Batches endpoints: the batch ends after ``polls`` retrievals (never, if None)."""

    def __init__(self, router: respx.Router, polls: int | None = 1):
        self.polls, self.retrieved, self.submitted = polls, 0, []
        self.create = router.post(BATCHES).mock(side_effect=self._create)
        self.retrieve = router.get(f"{BATCHES}/{BATCH_ID}").mock(side_effect=self._retrieve)
        self.results = router.get(f"{BATCHES}/{BATCH_ID}/results").mock(side_effect=self._results)

    def _create(self, request: httpx.Request) -> httpx.Response:
        self.submitted = json.loads(request.content)["requests"]
        return httpx.Response(200, json=batch_json("in_progress", len(self.submitted)))

    def _retrieve(self, request: httpx.Request) -> httpx.Response:
        self.retrieved += 1
        ended = self.polls is not None and self.retrieved > self.polls
        return httpx.Response(200, json=batch_json("ended" if ended else "in_progress", len(self.submitted)))

    def _results(self, request: httpx.Request) -> httpx.Response:
        lines = []
        for n, entry in enumerate(self.submitted):
            if n == 0:  # the first request errored at Anthropic
                result = {"type": "errored", "error": {"type": "error", "error": {"type": "overloaded_error",
                                                                                  "message": "Overloaded"}}}
            else:
                question = entry["params"]["messages"][0]["content"][0]["text"].split("\n", 1)[0]  # QUESTION: ...
                said = "yes" if "Kafka" in question or "PostgreSQL" in question else "no"
                result = {"type": "succeeded", "message": message({"reasoning": "r", "decision": said, "confidence": 0.8})}
            lines.append(json.dumps({"custom_id": entry["custom_id"], "result": result}))
        return httpx.Response(200, content="\n".join(lines).encode(), headers={"content-type": "application/binary"})


@pytest.fixture
def router() -> respx.MockRouter:
    return respx.MockRouter(assert_all_called=False, assert_all_mocked=True)


@pytest.fixture
async def claude(router):
    async with httpx2.AsyncClient(transport=RespxTransport(router)) as client:
        yield AnthropicBackend(ModelSpec(backend="anthropic", model=MODEL), Settings(), http_client=client,
                               api_key=API_KEY)


def _options(claude: AnthropicBackend) -> dict[str, Any]:
    return dict(procedure="none", baselines=["single", "majority"], backend=f"anthropic:{MODEL}", batch=True,
                backends={"anthropic": claude}, batch_poll_seconds=0)


async def test_baselines_go_through_one_batch(fixtures, runs_dir, router, claude):
    fake = FakeBatches(router, polls=2)
    ev = await evaluate_async(str(fixtures / "adrs.json"), limit=2, **_options(claude))
    assert fake.create.call_count == 1 and fake.retrieve.call_count == 3 + 1  # 3 polls, then results looks it up
    assert len(fake.submitted) == 2 * (1 + 5)  # two items: one single call and five majority calls each
    ids = [e["custom_id"] for e in fake.submitted]
    assert len(set(ids)) == len(ids) and all(re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", i) for i in ids)
    params = fake.submitted[0]["params"]
    assert params["model"] == MODEL and "temperature" not in params and "stream" not in params
    assert params["output_config"]["format"]["type"] == "json_schema"
    assert params["messages"][0]["content"][0]["cache_control"] == {"type": "ephemeral"}  # the case block
    assert json.loads((ev.folder / "batch.json").read_text())["id"] == BATCH_ID

    rows = {(r["item"], r["method"]): r for r in ev.summary["rows"]}
    first_single = rows[("adr-0001-option1", "single")]
    assert first_single["status"] == "failed" and "errored" in first_single["error"]  # request 1 errored
    other = next(r["item"] for r in ev.summary["rows"] if r["item"] != "adr-0001-option1")  # gold: no
    single = rows[(other, "single")]
    assert (single["predicted"], single["correct"]) == ("no", True)
    full = call_cost("anthropic", MODEL, Usage(input_tokens=1000, output_tokens=50))
    assert single["cost_usd"] == pytest.approx(full / 2)  # batches cost half
    majority = rows[("adr-0001-option1", "majority")]
    assert majority["predicted"] == "yes" and majority["calls"] == 5

    again = await evaluate_async(str(fixtures / "adrs.json"), limit=2, **_options(claude))
    assert fake.create.call_count == 1 and again.summary["results"] == ev.summary["results"]


async def interrupted(fixtures, claude: AnthropicBackend, fake: FakeBatches, *, after_polls: int) -> None:
    """An evaluation cancelled (Ctrl-C) while its batch is still being worked on."""
    task = asyncio.ensure_future(evaluate_async(str(fixtures / "adrs.json"), limit=2, **_options(claude)))
    while fake.retrieve.call_count < after_polls:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_an_interrupted_batch_is_polled_again_not_resubmitted(fixtures, runs_dir, router, claude):
    fake = FakeBatches(router, polls=None)  # Anthropic is still working when Ctrl-C comes
    await interrupted(fixtures, claude, fake, after_polls=3)
    fake.polls = fake.retrieved  # the batch has ended by the time the command runs again
    ev = await evaluate_async(str(fixtures / "adrs.json"), limit=2, **_options(claude))
    assert fake.create.call_count == 1  # the batch in batch.json was found again
    assert ev.summary["results"]["majority"]["n"] == 2


@pytest.mark.parametrize("state", ["changed", "older"])
async def test_an_interrupted_batch_asked_about_a_changed_item_is_not_reused(fixtures, runs_dir, router, claude, state):
    """The batch an interrupted run left holds answers to what each unit asked then. When an
    item has changed since (its question or evidence), those answers are not recorded as the new
    one's: a new batch is sent. A batch.json from before the digest was recorded is reused."""
    fake = FakeBatches(router, polls=None)
    await interrupted(fixtures, claude, fake, after_polls=2)
    [folder] = (runs_dir / "evals").iterdir()
    saved = json.loads((folder / "batch.json").read_text())
    assert all(len(name) == 5 for name in saved["requests"].values())  # item, method, framing, k, what it asked
    if state == "changed":
        saved["requests"]["u0"][4] = "0" * 16  # as if the first item's evidence had been edited since
    else:
        saved["requests"] = {cid: name[:4] for cid, name in saved["requests"].items()}
    (folder / "batch.json").write_text(json.dumps(saved))
    fake.polls = fake.retrieved
    ev = await evaluate_async(str(fixtures / "adrs.json"), limit=2, **_options(claude))
    assert fake.create.call_count == (2 if state == "changed" else 1)
    assert ev.summary["results"]["majority"]["n"] == 2


async def test_a_failed_batch_call_is_one_line(fixtures, runs_dir, router, claude):
    router.post(BATCHES).mock(return_value=httpx.Response(
        400, json={"type": "error", "error": {"type": "invalid_request_error", "message": "requests: too many"}}))
    from courtroom_chat.errors import BackendError

    with pytest.raises(BackendError, match=r"anthropic:claude-sonnet-4-6: Anthropic API error 400 .*too many"):
        await evaluate_async(str(fixtures / "adrs.json"), limit=1, **_options(claude))
