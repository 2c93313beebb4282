"""``--batch`` through OpenAI's Batch API, at the HTTP level: the real openai SDK, respx patching httpx.

The upload of the JSONL file, the batch's creation, its polling and the output and error files
are real HTTP exchanges with OpenAI's endpoints (as tests/backends/test_openai.py drives the
backend's direct calls). On any other base URL (vLLM, llama.cpp, OpenRouter) ``--batch`` is refused.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import respx

from courtroom_chat.backends.openai import OpenAIBackend
from courtroom_chat.config import ModelSpec, Settings
from courtroom_chat.cost import call_cost
from courtroom_chat.errors import BackendError, InputError
from courtroom_chat.evaluation.harness import evaluate_async
from courtroom_chat.records import Usage

API = "https://api.openai.com/v1"
MODEL = "gpt-4.1-mini"
SNAPSHOT = "gpt-4.1-mini-2025-04-14"  # the model a completion names
KEY = "test-openai-credential-5e8a"
BATCH_ID, INPUT, OUTPUT, ERRORS = "batch_test01", "file-input01", "file-output01", "file-errors01"


@pytest.fixture
def router(monkeypatch) -> Iterator[respx.MockRouter]:
    """OpenAI's API, mocked, with a key to call it and no OPENAI_BASE_URL sending the SDK elsewhere."""
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with respx.mock(assert_all_called=False) as mock:
        yield mock


def settings_for(base_url: str = "", **models: str) -> Settings:
    return Settings().with_backend(f"openai:{MODEL}").with_overrides({"openai": {"base_url": base_url},
                                                                       "models": models})


@pytest.fixture
def gpt(router) -> OpenAIBackend:
    return OpenAIBackend(ModelSpec(backend="openai", model=MODEL), settings_for())


def completion(text: str) -> dict[str, Any]:
    return {"id": "chatcmpl-b", "object": "chat.completion", "created": 1, "model": SNAPSHOT,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1000, "completion_tokens": 50, "total_tokens": 1050,
                      "prompt_tokens_details": {"cached_tokens": 0}}}


class FakeBatchAPI:
    """OpenAI's files and batches endpoints. The batch ends as ``end`` after ``polls`` retrievals
    (never, if None); request 0 is in the error file (refused with a 400), request 1's reply is
    not JSON, the others answer yes for the Kafka and PostgreSQL questions and no otherwise.
    ``answered``: how many requests were answered before an expiry (all, if None)."""

    def __init__(self, router: respx.MockRouter, polls: int | None = 1, end: str = "completed",
                 answered: int | None = None):
        self.polls, self.end, self.answered, self.retrieved = polls, end, answered, 0
        self.lines: list[dict[str, Any]] = []
        self.purposes: list[str] = []
        self.created: dict[str, Any] = {}
        self.upload = router.post(f"{API}/files").mock(side_effect=self._upload)
        self.create = router.post(f"{API}/batches").mock(side_effect=self._create)
        self.retrieve = router.get(f"{API}/batches/{BATCH_ID}").mock(side_effect=self._retrieve)
        self.output = router.get(f"{API}/files/{OUTPUT}/content").mock(side_effect=self._output)
        self.errors = router.get(f"{API}/files/{ERRORS}/content").mock(side_effect=self._errors)

    def _upload(self, request: httpx.Request) -> httpx.Response:
        parts = request.content.decode()  # multipart: the purpose field, then the JSONL file
        self.purposes.append(parts.split('name="purpose"', 1)[1].split("\r\n\r\n", 1)[1].split("\r\n", 1)[0])
        self.lines = [json.loads(line) for line in parts.splitlines() if line.startswith('{"custom_id"')]
        return httpx.Response(200, json={"id": INPUT, "object": "file", "bytes": len(request.content),
                                         "created_at": 1, "filename": "courtroom-batch.jsonl", "purpose": "batch",
                                         "status": "processed"})

    def batch(self, status: str) -> dict[str, Any]:
        ended = status in ("completed", "expired", "cancelled")
        answered = len(self.lines) if self.answered is None else self.answered
        return {"id": BATCH_ID, "object": "batch", "endpoint": "/v1/chat/completions", "input_file_id": INPUT,
                "completion_window": "24h", "status": status, "created_at": 1,
                "output_file_id": OUTPUT if ended and answered else None,
                "error_file_id": ERRORS if ended else None,
                "errors": {"object": "list", "data": [{"code": "invalid_request", "line": 1,
                                                        "message": "model not available for batch"}]}
                if status == "failed" else None,
                "request_counts": {"total": len(self.lines), "completed": answered if ended else 0,
                                   "failed": len(self.lines) - answered if ended else 0}}

    def _create(self, request: httpx.Request) -> httpx.Response:
        self.created = json.loads(request.content)
        return httpx.Response(200, json=self.batch("validating"))

    def _retrieve(self, request: httpx.Request) -> httpx.Response:
        self.retrieved += 1
        ended = self.polls is not None and self.retrieved > self.polls
        return httpx.Response(200, json=self.batch(self.end if ended else "in_progress"))

    def _answered(self) -> list[int]:
        last = len(self.lines) if self.answered is None else self.answered
        return list(range(1, last))

    def _output(self, request: httpx.Request) -> httpx.Response:
        lines = []
        for n in self._answered():
            entry = self.lines[n]
            question = entry["body"]["messages"][1]["content"].split("\n", 1)[0]  # QUESTION: ...
            said = "yes" if "Kafka" in question or "PostgreSQL" in question else "no"
            text = "I think yes." if n == 1 else json.dumps({"reasoning": "r", "decision": said, "confidence": 0.8})
            lines.append({"id": f"batch_req_{n}", "custom_id": entry["custom_id"], "error": None,
                          "response": {"status_code": 200, "request_id": f"req_{n}", "body": completion(text)}})
        return jsonl(lines)

    def _errors(self, request: httpx.Request) -> httpx.Response:
        refused = {"message": "max_tokens is too large", "type": "invalid_request_error", "param": None, "code": None}
        lines = [{"id": "batch_req_0", "custom_id": self.lines[0]["custom_id"], "error": None,
                  "response": {"status_code": 400, "request_id": "req_0", "body": {"error": refused}}}]
        answered = set(self._answered())
        lines += [{"id": f"batch_req_{n}", "custom_id": entry["custom_id"], "response": None,
                   "error": {"code": "batch_expired", "message": "This request could not be executed before the "
                                                                 "completion window expired."}}
                  for n, entry in enumerate(self.lines) if n and n not in answered]
        return jsonl(lines)


def jsonl(lines: list[dict[str, Any]]) -> httpx.Response:
    return httpx.Response(200, content="".join(json.dumps(line) + "\n" for line in lines).encode(),
                          headers={"content-type": "application/octet-stream"})


def _options(gpt: OpenAIBackend) -> dict[str, Any]:
    return dict(procedure="none", baselines=["single", "majority"], settings=settings_for(), batch=True,
                backends={"openai": gpt}, batch_poll_seconds=0)


async def test_baselines_go_through_one_openai_batch(fixtures, runs_dir, router, gpt):
    fake = FakeBatchAPI(router, polls=2)
    ev = await evaluate_async(str(fixtures / "adrs.json"), limit=2, **_options(gpt))
    assert fake.upload.call_count == 1 and fake.purposes == ["batch"]
    assert fake.created == {"input_file_id": INPUT, "endpoint": "/v1/chat/completions", "completion_window": "24h"}
    assert fake.create.call_count == 1 and fake.retrieve.call_count == 3  # two polls in progress, then completed
    assert fake.output.call_count == 1 and fake.errors.call_count == 1
    assert len(fake.lines) == 2 * (1 + 5)  # two items: one single call and five majority calls each
    ids = [line["custom_id"] for line in fake.lines]
    assert len(set(ids)) == len(ids)
    line = fake.lines[1]
    assert (line["method"], line["url"]) == ("POST", "/v1/chat/completions")
    body = line["body"]  # a direct call's body, unstreamed
    assert body["model"] == MODEL and "stream" not in body and "stream_options" not in body
    assert body["response_format"]["type"] == "json_schema" and "seed" in body and "temperature" in body
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert json.loads((ev.folder / "batch.json").read_text())["id"] == BATCH_ID

    rows = {(r["item"], r["method"]): r for r in ev.summary["rows"]}
    first_single = rows[("adr-0001-option1", "single")]
    assert first_single["status"] == "failed" and "max_tokens is too large" in first_single["error"]  # the 400
    other = next(r["item"] for r in ev.summary["rows"] if r["item"] != "adr-0001-option1")  # gold: no
    single = rows[(other, "single")]
    assert (single["predicted"], single["correct"]) == ("no", True)
    full = call_cost("openai", SNAPSHOT, Usage(input_tokens=1000, output_tokens=50))
    assert full and single["cost_usd"] == pytest.approx(full / 2)  # batches cost half
    majority = rows[("adr-0001-option1", "majority")]
    assert majority["predicted"] == "yes" and majority["calls"] == 5  # four valid votes: the reply "I think yes." is
    calls = [json.loads(r) for r in (ev.folder / "results.jsonl").read_text().splitlines()]
    [unparsed] = [c for r in calls if r["method"] == "majority" for c in r["details"]["calls"] if c["error"]]
    assert unparsed["text"] == "I think yes."  # a failed call, not repaired: a repair would need another batch

    again = await evaluate_async(str(fixtures / "adrs.json"), limit=2, **_options(gpt))
    assert fake.upload.call_count == 1 and again.summary["results"] == ev.summary["results"]


async def test_an_interrupted_batch_is_polled_again_not_uploaded_again(fixtures, runs_dir, router, gpt):
    fake = FakeBatchAPI(router, polls=None)  # OpenAI is still working when Ctrl-C comes
    task = asyncio.ensure_future(evaluate_async(str(fixtures / "adrs.json"), limit=2, **_options(gpt)))
    while fake.retrieve.call_count < 3:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    [folder] = (runs_dir / "evals").iterdir()
    assert json.loads((folder / "batch.json").read_text())["provider"] == "openai"
    fake.polls = polled = fake.retrieved  # the batch has completed by the time the command runs again
    ev = await evaluate_async(str(fixtures / "adrs.json"), limit=2, **_options(gpt))
    assert fake.upload.call_count == 1 and fake.create.call_count == 1  # the batch in batch.json was found again
    assert fake.retrieved == polled + 1 and ev.summary["results"]["majority"]["n"] == 2


@pytest.mark.parametrize("end, message", [
    ("failed", "openai:gpt-4.1-mini: batch batch_test01 failed: model not available for batch; run the same "
               "command again to send a new batch"),
    ("expired", "openai:gpt-4.1-mini: batch batch_test01 expired with no request answered; run the same command "
                "again to send a new batch"),
])
async def test_a_failed_or_expired_batch_is_one_line(fixtures, runs_dir, router, gpt, end, message):
    fake = FakeBatchAPI(router, polls=1, end=end, answered=0)
    with pytest.raises(BackendError) as failed:
        await evaluate_async(str(fixtures / "adrs.json"), limit=1, **_options(gpt))
    assert str(failed.value) == message
    [folder] = (runs_dir / "evals").iterdir()
    assert not (folder / "batch.json").exists()  # let go: the next run does not poll the dead batch again
    fake.end, fake.answered, fake.retrieved = "completed", None, 0
    ev = await evaluate_async(str(fixtures / "adrs.json"), limit=1, **_options(gpt))
    assert fake.upload.call_count == 2 and ev.summary["results"]["majority"]["n"] == 1


async def test_requests_an_expired_batch_did_not_reach_are_failed_calls(fixtures, runs_dir, router, gpt):
    """The answers an expired batch did give are paid for, so they are recorded; the rest are
    failed calls naming the expiry."""
    FakeBatchAPI(router, polls=0, end="expired", answered=9)  # requests 1-8 answered, 9-11 expired, 0 refused
    ev = await evaluate_async(str(fixtures / "adrs.json"), limit=2, **_options(gpt))
    rows = {(r["item"], r["method"]): r for r in ev.summary["rows"]}
    other = next(r["item"] for r in ev.summary["rows"] if r["item"] != "adr-0001-option1")
    assert rows[(other, "single")]["predicted"] == "no"  # request 6
    assert rows[("adr-0001-option1", "majority")]["predicted"] == "yes"  # requests 1-5
    calls = [json.loads(r) for r in (ev.folder / "results.jsonl").read_text().splitlines()]
    expired = [c for r in calls if r["item"] == other and r["method"] == "majority" for c in r["details"]["calls"]
               if "batch_expired" in c["error"] or "completion window expired" in c["error"]]
    assert len(expired) == 3


@pytest.mark.parametrize("base_url", ["http://vllm.test:8000/v1", "http://127.0.0.1:8080/v1",
                                      "https://openrouter.ai/api/v1"])
async def test_batch_on_another_openai_compatible_server_is_refused(fixtures, runs_dir, router, base_url):
    with pytest.raises(InputError) as refused:
        await evaluate_async(str(fixtures / "adrs.json"), procedure="none", baselines=["single"], batch=True,
                             settings=settings_for(base_url))
    assert str(refused.value) == (
        f"--batch uses OpenAI's own Batch API, and [openai] base_url is {base_url}; a self-hosted server (vLLM, "
        "llama.cpp, LM Studio) batches concurrent requests itself: run without --batch, with --workers N")
    assert "\n" not in str(refused.value) and not (runs_dir / "evals").exists() and not router.calls


async def test_batch_of_two_openai_models_is_refused(fixtures, runs_dir, router):
    with pytest.raises(InputError, match="OpenAI's Batch API takes one model per batch, and the baselines ask "
                                         "gpt-4.1 and gpt-4.1-mini; put the judge and the jury on one model"):
        await evaluate_async(str(fixtures / "adrs.json"), procedure="none", baselines=["single", "majority"],
                             batch=True, settings=settings_for(judge="openai:gpt-4.1"))
    assert not (runs_dir / "evals").exists()
