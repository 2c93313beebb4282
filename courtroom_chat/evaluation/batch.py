"""``--batch``: the baselines' requests through a provider's batch API, at half the price.

Anthropic's Message Batches API (``--backend anthropic``) or OpenAI's Batch API (``--backend
openai`` with the base URL OpenAI's own). Every single and majority request of the evaluation
goes into one batch, each built with the backend's own request body (Anthropic: system prompt,
cached case block, JSON-schema output; OpenAI: the chat-completions body of a direct call,
unstreamed). The batch id is written to ``batch.json`` before polling, so Ctrl-C while the
provider works loses nothing: the same command polls the same batch again. Results are matched
by ``custom_id`` and turned into predictions exactly as the direct calls are. A batched reply
that does not parse is not repaired (a repair would need another batch); it counts as a failed
call. Trials are not batched: each stage depends on the one before.

What is the same for both providers (planning the requests, ``batch.json`` and its reuse,
pricing and recording the answers) is here once; ``AnthropicBatch`` and ``OpenAIBatch`` only
submit a batch and collect its outcomes.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..backends.base import stable_seed
from ..errors import BackendError, InputError
from ..procedures.base import parse_reply
from ..records import Usage
from .methods import AnswerReply, Baselines, Prediction, call_log, combine

if TYPE_CHECKING:
    from ..backends.base import ModelRequest
    from .runner import Results, Unit

BATCH_DISCOUNT = 0.5  # both providers bill batched requests at half the standard price
STATE = "batch.json"
OTHERS = ("--batch sends the baselines through Anthropic's Message Batches API or OpenAI's Batch API; "
          "use --backend anthropic or --backend openai")


def refusal(backends: set[str], base_url: str = "", models: set[str] | frozenset[str] = frozenset()) -> str | None:
    """Why ``--batch`` cannot send the baselines through ``backends`` (the names of the ones they
    ask; openai's at ``base_url``, asking ``models``), or None: checked before the evaluation
    starts, and again on the backends it opened."""
    if len(backends) != 1 or not backends <= {"anthropic", "openai"}:
        return OTHERS
    if backends == {"openai"}:
        from ..backends.openai import is_openai

        if not is_openai(base_url):
            return (f"--batch uses OpenAI's own Batch API, and [openai] base_url is {base_url.strip()}; a self-hosted "
                    "server (vLLM, llama.cpp, LM Studio) batches concurrent requests itself: run without --batch, "
                    "with --workers N")
        if len(models) > 1:  # a batch's input file holds one model's requests
            return (f"--batch: OpenAI's Batch API takes one model per batch, and the baselines ask "
                    f"{' and '.join(sorted(models))}; put the judge and the jury on one model")
    return None


@dataclass
class Outcome:
    """What the provider returned for one request: the reply's text, usage and model, or an error."""

    text: str = ""
    usage: Usage | None = None
    model: str = ""
    error: str = ""


class BatchEnded(BackendError):
    """The batch itself failed or ended with nothing answered: ``batch.json`` is let go, so the
    next run sends a new batch instead of polling this one again."""


async def run_batch(units: list[Unit], baselines: Baselines, results: Results,
                    record: Callable[[Unit, Prediction], None], *, poll_seconds: float = 30.0) -> None:
    """Submit (or find again) the batch for ``units``, wait for it, and record each unit."""
    planned = []  # (unit, k, request, backend), each named (item, method, framing, k) in batch.json
    for unit in units:
        backend = baselines.pool.get(baselines.spec(unit.method))
        for k, t in enumerate(baselines.temperatures(unit.method), 1):
            request = baselines.request(unit.method, unit.case(), k, t, stable_seed(unit.seed, k))
            planned.append((unit, k, request, backend))
    backends = {getattr(b, "inner", b) for *_, b in planned}  # a reusing wrapper asks the backend it wraps
    names = {getattr(b, "name", "") for b in backends}
    first = next(iter(backends))
    if why := refusal(names, getattr(first, "base_url", ""), {getattr(b, "model", "") for b in backends}):
        raise InputError(why)
    name = first.name
    provider = PROVIDERS[name](first)
    state = _load_state(results)
    # (item, method, framing, k) -> (custom id, what it asked); a batch.json written before the
    # digest was recorded has none, and is taken as asking what the unit asks now
    submitted = {tuple(key[:4]): (cid, key[4] if len(key) > 4 else None)
                 for cid, key in state.get("requests", {}).items()}

    def same(u: Unit, k: int) -> bool:
        cid, asked = submitted.get((*u.key, str(k)), (None, None))
        return cid is not None and asked in (None, u.digest)

    # the batch an interrupted run submitted covers what is left, unless an item changed since
    # (its question or evidence): the batch then holds answers to the old one, so it is not reused.
    # A batch.json without a provider was written when only Anthropic's batches were sent.
    reuse = (bool(state.get("id")) and state.get("provider", "anthropic") == name
             and all(same(u, k) for u, k, *_ in planned))
    if reuse:
        requests = {submitted[(*u.key, str(k))][0]: (u, r, b) for u, k, r, b in planned}
    else:
        requests = {f"u{n}": (u, r, b) for n, (u, _, r, b) in enumerate(planned)}
    try:
        if reuse:
            batch_id = state["id"]
        else:
            batch_id = await provider.submit({cid: (r, b) for cid, (_, r, b) in requests.items()})
            keys = {f"u{n}": [*u.key, str(k), u.digest] for n, (u, k, *_) in enumerate(planned)}
            results.write_json(STATE, {"id": batch_id, "provider": name, "requests": keys})
        outcomes = await provider.collect(batch_id, poll_seconds)
    except BatchEnded:
        (results.folder / STATE).unlink(missing_ok=True)
        raise
    except provider.errors as exc:
        raise provider.backend._error(exc) from None
    by_unit: dict[tuple[str, str, str], list[tuple[Any, list[dict[str, Any]]]]] = {}
    for cid, (unit, request, backend) in requests.items():
        by_unit.setdefault(unit.key, []).append(_answer(f"{name} batch request {cid}", request, outcomes.get(cid),
                                                        backend))
    for unit in units:
        answers = by_unit[unit.key]
        log = [entry for _, calls in answers for entry in calls]
        record(unit, combine(unit.method, [a for a, _ in answers], log, sum(c["seconds"] for c in log)))


def _load_state(results: Results) -> dict[str, Any]:
    path = results.folder / STATE
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        return {}


def _answer(label: str, request: ModelRequest, outcome: Outcome | None,
            backend: Any) -> tuple[AnswerReply | None, list[dict[str, Any]]]:
    """One batched request's answer and its call log, priced at the batch discount."""
    from ..cost import call_cost

    if outcome is None or outcome.error or outcome.usage is None:
        error = BackendError(f"{label} {'missing from the results' if outcome is None else outcome.error}")
        return None, [{"agent": request.agent, "attempt": 1, "error": str(error), "text": "", "seconds": 0.0,
                       "cost_usd": 0.0, "input_tokens": 0, "output_tokens": 0, "temperature": None}]
    cost = call_cost(backend.price_provider, outcome.model or backend.model, outcome.usage)
    log = call_log(request, 1, outcome.text, outcome.usage, 0.0,
                   None if cost is None else round(cost * BATCH_DISCOUNT, 8), None)
    value, problems = parse_reply(outcome.text, AnswerReply)
    if value is None:
        log["error"] = problems[0].message
    return value, [log]


class AnthropicBatch:
    """Anthropic's Message Batches API: the requests go in the create call itself."""

    def __init__(self, backend: Any) -> None:
        import anthropic

        self.backend, self.client, self.errors = backend, backend._client, anthropic.AnthropicError

    async def submit(self, requests: dict[str, tuple[ModelRequest, Any]]) -> str:
        batch = await self.client.messages.batches.create(
            requests=[{"custom_id": cid, "params": backend.body(req)} for cid, (req, backend) in requests.items()])
        return batch.id

    async def collect(self, batch_id: str, poll_seconds: float) -> dict[str, Outcome]:
        while (await self.client.messages.batches.retrieve(batch_id)).processing_status != "ended":
            await asyncio.sleep(poll_seconds)
        return {entry.custom_id: self._outcome(entry.result)
                async for entry in await self.client.messages.batches.results(batch_id)}

    @staticmethod
    def _outcome(result: Any) -> Outcome:
        if result.type != "succeeded":
            detail = getattr(getattr(getattr(result, "error", None), "error", None), "message", "")
            return Outcome(error=f"{result.type}{': ' + detail if detail else ''}")
        message = result.message
        u = message.usage
        usage = Usage(input_tokens=u.input_tokens or 0, output_tokens=u.output_tokens or 0,
                      cache_write_tokens=u.cache_creation_input_tokens or 0,
                      cache_read_tokens=u.cache_read_input_tokens or 0)
        return Outcome(text="".join(block.text for block in message.content if block.type == "text"), usage=usage,
                       model=message.model or "")


class OpenAIBatch:
    """OpenAI's Batch API: the requests are uploaded as a JSONL file, the batch names the file,
    and its answers come back as an output file (and the requests that failed as an error file)."""

    ENDPOINT = "/v1/chat/completions"
    ENDED = ("completed", "failed", "expired", "cancelled")

    def __init__(self, backend: Any) -> None:
        import openai

        self.backend, self.client, self.errors = backend, backend._client, openai.OpenAIError

    async def submit(self, requests: dict[str, tuple[ModelRequest, Any]]) -> str:
        lines = [json.dumps({"custom_id": cid, "method": "POST", "url": self.ENDPOINT,
                             "body": backend.body(req, stream=False)}, ensure_ascii=False)
                 for cid, (req, backend) in requests.items()]
        upload = await self.client.files.create(
            file=("courtroom-batch.jsonl", ("\n".join(lines) + "\n").encode(), "application/jsonl"), purpose="batch")
        batch = await self.client.batches.create(input_file_id=upload.id, endpoint=self.ENDPOINT,
                                                 completion_window="24h")
        return batch.id

    async def collect(self, batch_id: str, poll_seconds: float) -> dict[str, Outcome]:
        while (batch := await self.client.batches.retrieve(batch_id)).status not in self.ENDED:
            await asyncio.sleep(poll_seconds)
        where = f"openai:{self.backend.model}: batch {batch_id}"
        if batch.status == "failed":
            found = [e.message for e in (batch.errors.data or [])] if batch.errors else []
            raise BatchEnded(self.backend._clean(
                f"{where} failed{': ' + '; '.join(m for m in found if m)[:300] if any(found) else ''}; "
                "run the same command again to send a new batch"))
        if not batch.output_file_id:  # expired or cancelled before any request was answered
            raise BatchEnded(self.backend._clean(
                f"{where} {batch.status} with no request answered; run the same command again to send a new batch"))
        outcomes: dict[str, Outcome] = {}
        for file_id in (batch.error_file_id, batch.output_file_id):  # an answer wins over an error
            if file_id:
                text = (await self.client.files.content(file_id)).text
                for line in filter(str.strip, text.splitlines()):
                    entry = json.loads(line)
                    outcomes[entry["custom_id"]] = self._outcome(entry)
        return outcomes

    @staticmethod
    def _outcome(entry: dict[str, Any]) -> Outcome:
        from ..backends.openai import usage_of

        response = entry.get("response") or {}
        body = response.get("body") or {}
        error = entry.get("error") or body.get("error")
        if error or response.get("status_code") != 200:
            detail = (error or {}).get("message") or (error or {}).get("code") or f"status {response.get('status_code')}"
            return Outcome(error=f"failed: {detail}"[:300])
        choices = body.get("choices") or [{}]
        text = (choices[0].get("message") or {}).get("content") or ""
        return Outcome(text=text, usage=usage_of(body.get("usage") or {}), model=body.get("model") or "")


PROVIDERS: dict[str, Callable[[Any], AnthropicBatch | OpenAIBatch]] = {"anthropic": AnthropicBatch,
                                                                       "openai": OpenAIBatch}
