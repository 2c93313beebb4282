"""The openai backend at the HTTP level: the real openai SDK, respx patching httpx.

Request shapes (schema, seed, temperature, streaming), every error path the issue names (a
refused connection, 401, 404, 429 with Retry-After, 500, a timeout, a reply that breaks the
schema, a server that ignores response_format), cost, and the key never reaching a record."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import respx
from http_mocks import body_of, juror_request

from courtroom_chat.backends.openai import OpenAIBackend, price_provider
from courtroom_chat.case import Case, Document
from courtroom_chat.config import ModelSpec, Settings
from courtroom_chat.cost import call_cost
from courtroom_chat.engine import Trial
from courtroom_chat.errors import BackendError, BackendUnavailableError, MissingCredentialsError, ModelNotFoundError
from courtroom_chat.procedures.decision import JurorReply
from courtroom_chat.records import Usage

BASE = "http://vllm.test:8000/v1"
CHAT = f"{BASE}/chat/completions"
KEY = "test-openai-credential-7c1d"


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch):
    """The SDK backs off 0.5 s, 1 s, … between retries: shrink it; the retry policy is untouched."""
    import openai._base_client as base

    monkeypatch.setattr(base, "INITIAL_RETRY_DELAY", 0.001)
    monkeypatch.setattr(base, "MAX_RETRY_DELAY", 0.002)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


@pytest.fixture
def server() -> Iterator[respx.MockRouter]:
    with respx.mock(assert_all_called=False) as router:
        yield router


def settings_for(**openai: Any) -> Settings:
    return Settings().with_backend("openai:qwen2.5").with_overrides({"openai": {"base_url": BASE, **openai}})


def make(**openai: Any) -> OpenAIBackend:
    return OpenAIBackend(ModelSpec(backend="openai", model="qwen2.5"), settings_for(**openai))


def stream(text: str, *, model: str = "qwen2.5", prompt: int = 812, completion: int = 143, cached: int = 0,
           pieces: int = 3) -> httpx.Response:
    """A streamed chat completion, as an OpenAI-compatible server sends it (SSE, usage last)."""
    step = max(1, len(text) // pieces)
    chunks = [text[i:i + step] for i in range(0, len(text), step)]
    frames = [{"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": model,
               "choices": [{"index": 0, "delta": {"content": c}, "finish_reason": None}]} for c in chunks]
    frames.append({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": model,
                   "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    frames.append({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": model, "choices": [],
                   "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
                             "prompt_tokens_details": {"cached_tokens": cached}}})
    body = "".join(f"data: {json.dumps(f)}\n\n" for f in frames) + "data: [DONE]\n\n"
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body.encode())


def juror_reply(vote: str = "act") -> str:
    return json.dumps({"reasoning": " ".join(["Exhibit 1 is verified and the defense did not refute it."] * 7),
                       "vote": vote})


# ---------------------------------------------------------------- the request


async def test_the_request_carries_the_schema_seed_temperature_and_streams(server):
    route = server.post(CHAT).mock(side_effect=lambda request: stream(juror_reply(), cached=512))
    deltas: list[str] = []
    reply = await make().complete(juror_request(seed=1234567), deltas.append)
    body = body_of(route.calls[0])
    assert body["model"] == "qwen2.5" and body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "JurorReply", "schema": JurorReply.model_json_schema(), "strict": False}}
    assert body["seed"] == 1234567 and body["temperature"] == 0.3 and body["max_tokens"] == 420
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert body["messages"][1]["content"].startswith("QUESTION: ship?")  # the case block opens the turn
    assert route.calls[0].request.headers["authorization"] == f"Bearer {KEY}"
    assert "".join(deltas) == reply.text == juror_reply() and len(deltas) > 1
    assert reply.usage == Usage(input_tokens=300, output_tokens=143, cache_read_tokens=512)
    assert reply.finish_reason == "stop" and reply.temperature == 0.3


@pytest.mark.parametrize(("structured", "expected"), [("json_object", {"type": "json_object"}), ("none", None)])
async def test_a_server_without_json_schema_gets_json_object_or_nothing(server, structured, expected):
    route = server.post(CHAT).mock(side_effect=lambda request: stream(juror_reply()))
    await make(structured=structured).complete(juror_request())
    assert body_of(route.calls[0]).get("response_format") == expected


async def test_no_temperature_and_no_seed_are_sent_when_the_request_has_none(server):
    route = server.post(CHAT).mock(side_effect=lambda request: stream(juror_reply()))
    await make().complete(juror_request(temperature=None, seed=None))
    body = body_of(route.calls[0])
    assert "temperature" not in body and "seed" not in body


def test_the_grammar_trait_comes_from_config():
    assert make().constrained_decoding is False
    assert make(grammar=True).constrained_decoding is True


# ---------------------------------------------------------------- errors


async def test_a_refused_connection_is_retried_then_one_line(server):
    route = server.post(CHAT).mock(side_effect=httpx.ConnectError("Connection refused"))
    with pytest.raises(BackendUnavailableError) as err:
        await make(max_retries=2).complete(juror_request())
    assert route.call_count == 3
    assert str(err.value) == (f"openai:qwen2.5 at {BASE}: cannot connect (ConnectError) after 2 retries; check that "
                              "the server is running and [openai] base_url")


async def test_a_401_names_the_key_variable_and_never_the_key(server):
    server.post(CHAT).mock(return_value=httpx.Response(401, json={"error": {"message": f"bad key {KEY}"}}))
    with pytest.raises(BackendError) as err:
        await make().complete(juror_request())
    message = str(err.value)
    assert "the server refused the key (401" in message and "api_key_env" in message
    assert KEY not in message and "***" in message


async def test_a_404_model_says_which_models_the_server_serves(server):
    server.post(CHAT).mock(return_value=httpx.Response(404, json={"error": {"message": "model qwen2.5 not found"}}))
    with pytest.raises(ModelNotFoundError, match="no model 'qwen2.5' .*its /v1/models lists them"):
        await make().complete(juror_request())


async def test_a_429_is_retried_after_its_retry_after_then_succeeds(server):
    replies = [httpx.Response(429, headers={"retry-after": "0"}, json={"error": {"message": "slow down"}}),
               stream(juror_reply())]
    route = server.post(CHAT).mock(side_effect=lambda request: replies.pop(0))
    reply = await make().complete(juror_request())
    assert route.call_count == 2 and reply.text == juror_reply()


async def test_a_429_that_persists_says_to_wait(server):
    server.post(CHAT).mock(return_value=httpx.Response(429, headers={"retry-after": "0"},
                                                      json={"error": {"message": "rate limited"}}))
    with pytest.raises(BackendError, match="server error 429: rate limited after 1 retry; wait and run again"):
        await make(max_retries=1).complete(juror_request())


async def test_a_500_is_retried_then_one_line(server):
    route = server.post(CHAT).mock(return_value=httpx.Response(500, json={"error": {"message": "CUDA OOM"}}))
    with pytest.raises(BackendError, match="server error 500: CUDA OOM after 2 retries"):
        await make().complete(juror_request())
    assert route.call_count == 3


async def test_a_timeout_says_which_setting_to_raise(server):
    server.post(CHAT).mock(side_effect=httpx.ReadTimeout("timed out"))
    with pytest.raises(BackendUnavailableError, match=r"did not answer within 5 s after 1 retry; raise \[openai\] timeout"):
        await make(timeout=5.0, max_retries=1).complete(juror_request())


def test_openais_own_api_needs_a_key_and_says_how(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(MissingCredentialsError, match="set OPENAI_API_KEY .* or use --backend local"):
        OpenAIBackend(ModelSpec(backend="openai", model="gpt-4.1-mini"), Settings())
    local = OpenAIBackend(ModelSpec(backend="openai", model="m"), settings_for())  # a local server needs none
    assert local.self_hosted


# ---------------------------------------------------------------- cost


def test_cost_is_openais_price_a_private_price_or_zero_self_hosted():
    assert price_provider(Settings()) == "openai"
    assert price_provider(settings_for()) is None
    assert call_cost(price_provider(settings_for()), "qwen2.5", Usage(input_tokens=10**6, output_tokens=10**6)) == 0.0
    private = settings_for(price_per_mtok=[0.5, 1.5])
    assert call_cost(price_provider(private), "qwen2.5", Usage(input_tokens=2 * 10**6, output_tokens=10**6)) == 2.5
    priced = call_cost("openai", "gpt-4.1-mini", Usage(input_tokens=10**6, output_tokens=0))
    assert priced is not None and priced > 0


# ---------------------------------------------------------------- a whole trial


def case() -> Case:
    text = "All 1,204 tests pass and two reviewers approved the change.\n"
    return Case(question="Should I merge PR #12?",
                context=[Document(name="notes.md", kind="text", text=text, sha256="0" * 64, size_bytes=len(text))])


async def test_a_reply_that_breaks_the_schema_and_a_server_that_ignores_it_go_through_one_repair(server):
    """A server that ignores response_format writes prose; the court shows it what was wrong and
    asks once more, as on any backend. Still wrong, the trial fails with its partial record."""
    route = server.post(CHAT).mock(side_effect=lambda request: stream("Sure! I think we should merge."))
    trial = Trial(case(), settings_for(structured="none"), store=True)
    with pytest.raises(Exception) as err:
        await trial.run()
    assert "prosecutor" in str(err.value) and route.call_count == 2  # the first reply and its one repair
    repair = body_of(route.calls[1])["messages"]
    assert repair[-2] == {"role": "assistant", "content": "Sure! I think we should merge."}
    assert trial.store is not None and trial.store.find(trial.run_id).status == "failed"
    assert KEY not in trial.store.path_for(trial.run_id).read_text()


def test_a_self_hosted_trial_reads_zero_with_the_reason_not_a_row_of_zeros():
    """Nothing priced (the embedded model, Ollama, your own OpenAI-compatible server): the cost
    line says $0 and why, once; a priced trial keeps its per-role breakdown; a demo says so."""
    from courtroom_chat.render import cost_lines, outcome_markdown

    assert cost_lines({"prosecutor": 0.0, "judge": 0.0}, 0.0) == [
        "**This trial:** $0 (self-hosted: no price per call; tokens and time are counted)"]
    assert cost_lines({"prosecutor": 0.002, "judge": 0.01}, 0.012) == [
        "**This trial:** $0.01 — prosecutor $0.0020, judge $0.01"]
    assert cost_lines({"judge": 0.0}, 0.0, known=False) == ["**This trial:** $0 (some calls have no known price) — judge $0"]
    demo = outcome_markdown({"answer": "Yes", "demo": True}, cost_by_role={"judge": 0.0}, cost_usd=0.0)
    assert "**This trial:** $0 (demo: no model was called)" in demo
