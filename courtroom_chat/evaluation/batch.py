"""``--batch``: the baselines' requests through Anthropic's Message Batches API (half the price).

Every single and majority request of the evaluation goes into one batch, built with the
Anthropic backend's own request body (system prompt, cached case block, JSON-schema output).
The batch id is written to ``batch.json`` before polling, so Ctrl-C while Anthropic works
loses nothing: the same command polls the same batch again. Results are matched by
``custom_id`` and turned into predictions exactly as the direct calls are. A batched reply
that does not parse is not repaired (a repair would need another batch); it counts as a
failed call. Trials are not batched: each stage depends on the one before.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..backends.base import stable_seed
from ..errors import BackendError, InputError
from ..procedures.base import parse_reply
from ..records import Usage
from .methods import AnswerReply, Baselines, Prediction, call_log, combine

if TYPE_CHECKING:
    from .runner import Results, Unit

BATCH_DISCOUNT = 0.5  # Message Batches are billed at half the standard price
STATE = "batch.json"


async def run_batch(units: list[Unit], baselines: Baselines, results: Results,
                    record: Callable[[Unit, Prediction], None], *, poll_seconds: float = 30.0) -> None:
    """Submit (or find again) the batch for ``units``, wait for it, and record each unit."""
    import anthropic

    backends = {baselines.pool.get(baselines.spec(u.method)) for u in units}
    if any(getattr(b, "name", "") != "anthropic" for b in backends):
        raise InputError("--batch sends requests through Anthropic's Message Batches API; use --backend anthropic")
    backend = next(iter(backends))
    client = backend._client  # the backend's configured SDK client (credentials, timeout, retries)
    planned = []  # (unit, k, request), each named (item, method, framing, k) in batch.json
    for unit in units:
        for k, t in enumerate(baselines.temperatures(unit.method), 1):
            planned.append((unit, k, baselines.request(unit.method, unit.case(), k, t, stable_seed(unit.seed, k))))
    state = _load_state(results)
    # (item, method, framing, k) -> (custom id, what it asked); a batch.json written before the
    # digest was recorded has none, and is taken as asking what the unit asks now
    submitted = {tuple(name[:4]): (cid, name[4] if len(name) > 4 else None)
                 for cid, name in state.get("requests", {}).items()}

    def same(u: Unit, k: int) -> bool:
        cid, asked = submitted.get((*u.key, str(k)), (None, None))
        return cid is not None and asked in (None, u.digest)

    # the batch an interrupted run submitted covers what is left, unless an item changed since
    # (its question or evidence): the batch then holds answers to the old one, so it is not reused
    reuse = bool(state.get("id")) and all(same(u, k) for u, k, _ in planned)
    if reuse:
        requests = {submitted[(*u.key, str(k))][0]: (u, r) for u, k, r in planned}
    else:
        requests = {f"u{n}": (u, r) for n, (u, _, r) in enumerate(planned)}
    try:
        if reuse:
            batch_id = state["id"]
        else:
            batch = await client.messages.batches.create(
                requests=[{"custom_id": cid, "params": backend.body(req)} for cid, (_, req) in requests.items()])
            batch_id = batch.id
            names = {f"u{n}": [*u.key, str(k), u.digest] for n, (u, k, _) in enumerate(planned)}
            results.write_json(STATE, {"id": batch_id, "requests": names})
        while (await client.messages.batches.retrieve(batch_id)).processing_status != "ended":
            await asyncio.sleep(poll_seconds)
        entries = {entry.custom_id: entry.result async for entry in await client.messages.batches.results(batch_id)}
    except anthropic.AnthropicError as exc:
        raise backend._error(exc) from None
    by_unit: dict[tuple[str, str, str], list[tuple[Any, list[dict[str, Any]]]]] = {}
    for cid, (unit, request) in requests.items():
        by_unit.setdefault(unit.key, []).append(_answer(cid, request, entries.get(cid), backend))
    for unit in units:
        answers = by_unit[unit.key]
        log = [entry for _, calls in answers for entry in calls]
        record(unit, combine(unit.method, [a for a, _ in answers], log, sum(c["seconds"] for c in log)))


def _load_state(results: Results) -> dict[str, Any]:
    import json

    path = results.folder / STATE
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        return {}


def _answer(cid: str, request: Any, result: Any, backend: Any) -> tuple[AnswerReply | None, list[dict[str, Any]]]:
    """One batched request's answer and its call log, priced at the batch discount."""
    from ..cost import call_cost

    if result is None or result.type != "succeeded":
        kind = "missing from the results" if result is None else result.type
        detail = getattr(getattr(getattr(result, "error", None), "error", None), "message", "")
        error = BackendError(f"anthropic batch request {cid} {kind}{': ' + detail if detail else ''}")
        return None, [{"agent": request.agent, "attempt": 1, "error": str(error), "text": "", "seconds": 0.0,
                       "cost_usd": 0.0, "input_tokens": 0, "output_tokens": 0, "temperature": None}]
    message = result.message
    text = "".join(block.text for block in message.content if block.type == "text")
    u = message.usage
    usage = Usage(input_tokens=u.input_tokens or 0, output_tokens=u.output_tokens or 0,
                  cache_write_tokens=u.cache_creation_input_tokens or 0, cache_read_tokens=u.cache_read_input_tokens or 0)
    cost = call_cost(backend.price_provider, message.model or backend.model, usage)
    log = call_log(request, 1, text, usage, 0.0, None if cost is None else round(cost * BATCH_DISCOUNT, 8), None)
    value, problems = parse_reply(text, AnswerReply)
    if value is None:
        log["error"] = problems[0].message
    return value, [log]
