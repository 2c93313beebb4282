"""The ollama backend at the HTTP level: the real ollama client, respx patching httpx."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import respx
from http_mocks import body_of, juror_request, ollama_reply

from courtroom_chat.backends import BackendPool, PlannedBackend
from courtroom_chat.backends.ollama import OllamaBackend
from courtroom_chat.case import Case, Document
from courtroom_chat.config import ModelSpec, Settings
from courtroom_chat.court import Court
from courtroom_chat.engine import Trial
from courtroom_chat.errors import (
    BackendError,
    BackendUnavailableError,
    ContextTooLongError,
    ModelNotFoundError,
    RoleOutputError,
)
from courtroom_chat.procedures import get as get_procedure
from courtroom_chat.procedures.decision import JurorReply
from courtroom_chat.records import RunRecord, Usage
from courtroom_chat.store import RunStore

HOST = "http://ollama.test:11434"
CHAT = f"{HOST}/api/chat"


def settings_for(host: str = HOST, **ollama: Any) -> Settings:
    return Settings().with_backend("ollama:llama3.2").with_overrides({"ollama": {"host": host, **ollama}})


def make(host: str = HOST, **ollama: Any) -> OllamaBackend:
    return OllamaBackend(ModelSpec(backend="ollama", model="llama3.2"), settings_for(host, **ollama))


@pytest.fixture
def server() -> Iterator[respx.MockRouter]:
    with respx.mock(assert_all_called=False) as router:
        yield router




def juror_reply(vote: str = "act") -> dict[str, str]:
    return {"reasoning": " ".join(["Exhibit 1 is verified and the defense did not refute it."] * 7), "vote": vote}


# ---------------------------------------------------------------- the request body


async def test_a_seeded_request_sends_its_seed_in_the_options(server):
    """A trial's agents sample with seeds fixed by the trial's seed: Ollama takes it in ``options``."""
    route = server.post(CHAT).mock(side_effect=lambda request: ollama_reply(juror_reply()))
    await make(num_ctx=4096).complete(juror_request(seed=1234567))
    assert body_of(route.calls[0])["options"] == {"temperature": 0.3, "num_ctx": 4096, "num_predict": 420, "seed": 1234567}


async def test_request_body_carries_schema_options_and_temperature(server):
    route = server.post(CHAT).mock(
        side_effect=lambda request: ollama_reply(juror_reply(), prompt_eval_count=812, eval_count=143)
    )
    backend = make(num_ctx=16384)
    deltas: list[str] = []
    request = juror_request()

    result = await backend.complete(request, deltas.append)

    body = body_of(route.calls[0])
    assert body["model"] == "llama3.2"
    assert body["stream"] is True
    assert body["format"] == JurorReply.model_json_schema()
    assert body["options"] == {"temperature": 0.3, "num_ctx": 16384, "num_predict": 420}
    assert body["messages"] == [
        {"role": "system", "content": "You are a juror."},
        {"role": "user", "content": "QUESTION: ship?\n\nVote."},
    ]
    assert "authorization" not in route.calls[0].request.headers

    assert len(deltas) == 3 and "".join(deltas) == result.text
    assert json.loads(result.text)["vote"] == "act"
    assert result.usage == Usage(input_tokens=812, output_tokens=143)
    assert result.temperature == 0.3
    assert result.model == "llama3.2"
    assert result.finish_reason == "stop"
    assert result.raw["eval_duration"] == 1_900_000_000


async def test_no_temperature_requested_sends_none(server):
    route = server.post(CHAT).mock(side_effect=lambda request: ollama_reply(juror_reply()))
    result = await make().complete(juror_request(temperature=None))

    assert "temperature" not in body_of(route.calls[0])["options"]
    assert result.temperature is None


async def test_host_comes_from_ollama_host_when_config_leaves_it_empty(server, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "http://ollama-env.test:4321")
    route = server.post("http://ollama-env.test:4321/api/chat").mock(
        side_effect=lambda request: ollama_reply(juror_reply())
    )
    backend = make(host="")
    await backend.complete(juror_request())

    assert backend.host == "http://ollama-env.test:4321"
    assert route.call_count == 1


async def test_the_registry_opens_it_lazily():
    from courtroom_chat.backends import open_backend

    backend = open_backend(ModelSpec(backend="ollama", model="qwen2.5:0.5b"), settings_for())
    assert isinstance(backend, OllamaBackend) and backend.model == "qwen2.5:0.5b" and backend.host == HOST
    await backend.aclose()


def test_a_dry_run_knows_the_live_backends_traits_and_window():
    backend = make(num_ctx=4096)
    planned = PlannedBackend(ModelSpec(backend="ollama", model="qwen2.5:0.5b"), settings_for(num_ctx=4096))
    for trait in ("accepts_temperature", "price_provider", "constrained_decoding", "context_window"):
        assert getattr(planned, trait) == getattr(backend, trait), trait
    assert backend.context_window == 4096 and backend.constrained_decoding and backend.price_provider is None


# ---------------------------------------------------------------- errors


def free_loopback_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_refused_connection_names_the_host_and_ollama_serve():
    host = f"http://127.0.0.1:{free_loopback_port()}"  # nothing listens there: a real refusal
    with pytest.raises(BackendUnavailableError) as caught:
        await make(host=host).complete(juror_request())
    assert str(caught.value) == f"Ollama is not running at {host} (start it with `ollama serve`)"


async def test_mocked_connect_error_gives_the_same_message(server):
    server.post(CHAT).mock(side_effect=httpx.ConnectError)
    with pytest.raises(BackendUnavailableError, match=r"^Ollama is not running at http://ollama.test:11434 \(start"):
        await make().complete(juror_request())


async def test_model_not_pulled_says_ollama_pull(server):
    server.post(CHAT).mock(
        return_value=httpx.Response(404, json={"error": 'model "llama3.2" not found, try pulling it first'})
    )
    with pytest.raises(ModelNotFoundError) as caught:
        await make().complete(juror_request())
    assert str(caught.value) == f"Ollama at {HOST} has no model 'llama3.2'; pull it with `ollama pull llama3.2`"


async def test_timeout_names_the_config_key(server):
    server.post(CHAT).mock(side_effect=httpx.ReadTimeout)
    with pytest.raises(BackendUnavailableError) as caught:
        await make(timeout=45.0).complete(juror_request())
    assert str(caught.value) == (
        f"ollama:llama3.2 at {HOST} did not answer within 45 s; raise [ollama] timeout in config.toml or use a smaller model"
    )


async def test_server_error_is_one_line(server):
    server.post(CHAT).mock(
        return_value=httpx.Response(500, json={"error": "llama runner process has terminated:\nexit status 2"})
    )
    with pytest.raises(BackendError) as caught:
        await make().complete(juror_request())
    assert str(caught.value) == "ollama:llama3.2: Ollama error 500: llama runner process has terminated: exit status 2"
    assert not isinstance(caught.value, BackendUnavailableError)


async def test_error_line_mid_stream(server):
    def broken(request: httpx.Request) -> httpx.Response:
        lines = [
            {"model": "llama3.2", "message": {"role": "assistant", "content": '{"reas'}, "done": False},
            {"error": "out of memory"},
        ]
        return httpx.Response(200, content="".join(json.dumps(line) + "\n" for line in lines).encode())

    server.post(CHAT).mock(side_effect=broken)
    with pytest.raises(BackendError, match=r"^ollama:llama3.2: Ollama error: out of memory$"):
        await make().complete(juror_request())


# ---------------------------------------------------------------- through the engine


def make_case(text: str = "The service answered 99.9% of requests in March.\n") -> Case:
    return Case(
        question="Should we raise the error budget?", context=[Document(name="slo.md", kind="markdown", text=text)]
    )


def court_for(backend: OllamaBackend, events: list[Any]) -> Court:
    settings = settings_for()
    record = RunRecord(run_id="test-run", case=make_case())
    return Court(record, settings, BackendPool(settings, {"ollama": backend}), events.append, get_procedure("decision"))


async def test_malformed_json_is_repaired_with_the_reply_shown(server):
    replies = iter([ollama_reply("Sure! Here is my vote: act"), ollama_reply(juror_reply("abstain"))])
    route = server.post(CHAT).mock(side_effect=lambda request: next(replies))
    court = court_for(make(), [])
    agent = court.agent("juror-3", "juror", "Juror 3", "jury", temperature=0.75)

    answer = await court.ask(agent, "Vote on the motion.", JurorReply)

    assert answer.repaired and answer.value.vote == "abstain"
    second = body_of(route.calls[1])
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "user"]
    assert second["messages"][2]["content"] == "Sure! Here is my vote: act"
    assert "holds no JSON object" in second["messages"][3]["content"]
    assert second["options"]["temperature"] == 0.75
    assert [(c.attempt, c.ok, c.temperature, c.cost_usd) for c in court.record.calls] == [
        (1, False, 0.75, 0.0),
        (2, True, 0.75, 0.0),
    ]


async def test_schema_invalid_output_twice_raises_with_the_raw_text(server):
    bad = {"reasoning": "fine", "vote": 3}
    server.post(CHAT).mock(side_effect=lambda request: ollama_reply(bad))
    court = court_for(make(), [])
    with pytest.raises(RoleOutputError) as caught:
        await court.ask(court.agent("juror-1", "juror", "Juror 1", "jury"), "Vote.", JurorReply)
    assert json.loads(caught.value.raw) == bad


async def test_context_longer_than_num_ctx_is_refused_before_any_call(server, tmp_path):
    route = server.post(CHAT).mock(side_effect=lambda request: ollama_reply(juror_reply()))
    case = make_case("Evidence line with enough words to fill the window quickly.\n" * 400)
    settings = settings_for(num_ctx=1024)
    trial = Trial(
        case,
        settings,
        backends={"ollama": OllamaBackend(ModelSpec(backend="ollama", model="llama3.2"), settings)},
        store=RunStore(tmp_path),
    )
    with pytest.raises(ContextTooLongError, match=r"window is 1,024"):
        await trial.run()
    assert route.call_count == 0


QUOTE = "The service answered 99.9% of requests in March."

REPLIES: dict[str, dict[str, Any]] = {
    "prosecutor": {
        "motion": "raise the error budget",
        "case_statement": "The service beat its target, so a larger error budget lets us raise the error budget safely.",
        "exhibits": [
            {
                "source_quote": QUOTE,
                "target_quote": "",
                "harm": "Keeping the tight budget blocks three planned releases that users have waited for.",
            }
        ],
        "harm_analysis": "A tight budget slows delivery without improving reliability.",
    },
    "defense": {
        "counter_argument": "Raising the error budget after one good month reads too much into March; one month "
        "does not show the service can absorb more errors.",
        "exhibit_challenges": [{"exhibit": 1, "challenge": "One month is not a trend.", "effect": "weakens"}],
        "harm_dispute": "The releases can ship inside the current budget.",
        "alternative": "Review the budget after a full quarter of data.",
    },
    "juror": juror_reply("act"),
    "judge": {
        "reasoning": "The prosecution's verified exhibit 1 shows headroom; the defense's trend concern is fair but "
        "weaker. The jury was unanimous.",
        "decision": "act",
        "answer": "raise the error budget",
        "rationale": "The service answered 99.9% of requests in March: the headroom supports it.",
        "actions": ["Raise the error budget to 0.2%"],
        "confidence": 0.7,
    },
}


async def test_full_trial_applies_juror_temperatures_and_records_tokens_at_no_cost(server, tmp_path):
    def serve(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        title = body["format"]["title"]
        role = {
            "ProsecutorReply": "prosecutor",
            "DefenseReply": "defense",
            "JurorReply": "juror",
            "JudgeReply": "judge",
        }[title]
        return ollama_reply(REPLIES[role], prompt_eval_count=700, eval_count=120)

    route = server.post(CHAT).mock(side_effect=serve)
    settings = settings_for()
    backend = OllamaBackend(ModelSpec(backend="ollama", model="llama3.2"), settings)
    record = await Trial(make_case(), settings, backends={"ollama": backend}, store=RunStore(tmp_path)).run()
    await backend.aclose()

    assert record.status == "complete", record.error
    assert record.verdict.answer == "Yes: raise the error budget"
    assert route.call_count == 8
    bodies = [body_of(c) for c in route.calls]
    juror_temps = sorted(b["options"]["temperature"] for b in bodies if b["format"]["title"] == "JurorReply")
    assert juror_temps == settings.procedure_params("decision").juror_temperatures() == [0.2, 0.35, 0.5, 0.65, 0.8]
    assert [j.temperature for j in record.jury.jurors] == [0.2, 0.35, 0.5, 0.65, 0.8]
    assert all(b["options"]["num_ctx"] == settings.ollama.num_ctx for b in bodies)
    assert all(c.cost_usd == 0.0 and c.usage == Usage(input_tokens=700, output_tokens=120) for c in record.calls)
    assert record.cost_usd == 0.0 and record.cost_known
    assert record.model_usage()["ollama:llama3.2"]["input_tokens"] == 8 * 700
