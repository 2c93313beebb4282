"""The scripted backend: deterministic, offline, first-class.

It serves tests, dry runs and demos, for every procedure. With no script it asks the
procedure for a demo reply consistent with the case (the decision court copies quotes
verbatim from the evidence, varies votes across jurors, has its judge follow the tally),
and where a procedure has none it builds a schema-valid reply from the JSON schema alone.
A script (``--script FILE``) is a JSON object mapping a role (``prosecutor``, ``juror``,
``justice``) or an agent (``juror-2``, ``justice-3``) to a reply or a list of replies, used in
order (the last one repeats); its keys are checked against the procedure's roles. A reply
is a JSON object, a string sent as raw text (to exercise repairs), or
``{"$error": "message"}`` to fail the call.

``COURTROOM_SCRIPTED_LATENCY_MS`` (or ``[scripted] latency_ms``) adds latency per call, and
the reply streams out across it. Every request is kept in ``calls``, and when it started and
ended (the event loop's clock) in ``timeline``, so a test can measure the throttle.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from ..errors import BackendError, ConfigError
from ..records import Usage
from .base import CHARS_PER_TOKEN, ModelReply, ModelRequest, Stopwatch, TextCallback, rough_tokens
from .profiles import PROFILES


class ScriptedBackend:
    name = "scripted"
    accepts_temperature = PROFILES["scripted"].accepts_temperature
    price_provider = PROFILES["scripted"].price_provider
    constrained_decoding = PROFILES["scripted"].constrained_decoding
    context_window = None

    def __init__(self, spec: Any = None, settings: Any = None, *, script: dict[str, Any] | str | Path | None = None,
                 latency_ms: int | None = None):
        self.model = getattr(spec, "model", "") or "scripted"
        if script is None and settings is not None and settings.scripted.script:
            script = settings.scripted.script
        self.script_source = str(script) if isinstance(script, (str, Path)) else "script"
        self.script = load_script(script) if isinstance(script, (str, Path)) else dict(script or {})
        self._checked: set[str] = set()
        if latency_ms is None:
            env = os.environ.get("COURTROOM_SCRIPTED_LATENCY_MS", "").strip()
            if env:
                try:
                    latency_ms = int(env)
                except ValueError:
                    raise ConfigError(f"COURTROOM_SCRIPTED_LATENCY_MS must be a whole number of milliseconds, got {env!r}") from None
            else:
                latency_ms = settings.scripted.latency_ms if settings is not None else 0
        self.latency_ms = latency_ms
        self.calls: list[ModelRequest] = []
        self.timeline: list[tuple[str, float, float]] = []  # (agent, started, ended), loop time
        self._cursor: dict[str, int] = {}

    def estimate_tokens(self, text: str) -> int:
        return rough_tokens(text)

    async def aclose(self) -> None:
        return None

    # ------------------------------------------------------------------ replies

    def _scripted(self, request: ModelRequest) -> Any:
        if self.script and request.procedure is not None and request.procedure.name not in self._checked:
            check_script(self.script, request.procedure, self.script_source)
            self._checked.add(request.procedure.name)
        for key in (request.agent, request.role):
            if key in self.script:
                replies = self.script[key]
                if not isinstance(replies, list):
                    return replies
                if not replies:
                    continue
                i = self._cursor.get(key, 0)
                self._cursor[key] = i + 1
                return replies[min(i, len(replies) - 1)]
        return None

    def derive(self, request: ModelRequest) -> Any:
        """A schema-valid reply: the procedure's demo reply for this request, else one built
        from the reply's JSON schema alone."""
        procedure = request.procedure
        if request.role == "screener":
            return {"passages": []}  # the evidence screener: no judgement to stand in for, so it names none
        if procedure is not None:
            reply = procedure.demo(request)
            if reply is not None:
                return reply
        return fake_reply(request.schema, request.agent)

    async def complete(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelReply:
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            return await self._complete(request, on_text)
        finally:
            self.timeline.append((request.agent, started, loop.time()))

    async def _complete(self, request: ModelRequest, on_text: TextCallback | None) -> ModelReply:
        self.calls.append(request)
        watch = Stopwatch()
        reply = self._scripted(request)
        if reply is None:
            reply = self.derive(request)
        if isinstance(reply, dict) and "$error" in reply:
            if self.latency_ms:
                await asyncio.sleep(self.latency_ms / 1000)
            raise BackendError(f"scripted failure for {request.agent}: {reply['$error']}")
        text = reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False, indent=1)
        # Like a real model, a reply longer than the call's token limit stops there.
        finish = "stop"
        if request.max_tokens and rough_tokens(text) > request.max_tokens:
            text, finish = text[: int(request.max_tokens * CHARS_PER_TOKEN)], "length"
        await self._stream(text, on_text)
        return ModelReply(
            text=text,
            usage=Usage(input_tokens=rough_tokens(request.user_text()) + rough_tokens(request.system),
                        output_tokens=rough_tokens(text)),
            model=self.model,
            temperature=request.temperature,
            seconds=watch.seconds,
            finish_reason=finish,
        )

    async def _stream(self, text: str, on_text: TextCallback | None) -> None:
        """Stream ``text`` in pieces spread over the latency, paced against deadlines so the
        sleeps' overshoot does not add up."""
        loop = asyncio.get_running_loop()
        pieces = 8 if on_text else 1
        step = max(1, -(-len(text) // pieces))
        start, total = loop.time(), self.latency_ms / 1000
        chunks = [text[i : i + step] for i in range(0, len(text), step)] or [""]
        for k, chunk in enumerate(chunks, 1):
            if total:
                await asyncio.sleep(max(0.0, start + total * k / len(chunks) - loop.time()))
            if on_text and chunk:
                on_text(chunk)


def load_script(path: str | Path) -> dict[str, Any]:
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"script file not found: {p}") from None
    except IsADirectoryError:
        raise ConfigError(f"script {p} is a folder; give the JSON file of replies") from None
    except UnicodeDecodeError:
        raise ConfigError(f"script {p} is not text; a script is a JSON file of replies by role") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{p}: malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{p}: a script must be a JSON object mapping roles or agents (juror, juror-2) to replies")
    return data


def check_script(script: dict[str, Any], procedure: Any, source: str = "script") -> None:
    """Every key of a script names a role (or an alias, or a numbered agent) of the procedure."""
    from ..procedures import COURT_ROLES

    for key in script:
        if key not in COURT_ROLES and procedure.role(key) is None:
            names = ", ".join(f"{r.name}{', ' + r.name + '-N' if r.numbered else ''}" for r in procedure.roles)
            raise ConfigError(f"{source}: unknown role '{key}' in the script for the {procedure.name} procedure; "
                              f"use {names}")


def fake_reply(schema: dict[str, Any], agent: str = "") -> Any:
    """The smallest sensible value of a JSON schema: every field present and valid, every
    constraint it can meet honoured (enums, bounds, item counts, word patterns)."""
    defs = schema.get("$defs", {})

    def value(node: dict[str, Any], name: str) -> Any:
        if "$ref" in node:
            return value(defs[node["$ref"].rsplit("/", 1)[-1]], name)
        for key in ("anyOf", "oneOf", "allOf"):
            if key in node:
                options = [o for o in node[key] if o.get("type") != "null"] or node[key]
                return value(options[0], name)
        if "const" in node:
            return node["const"]
        if node.get("enum"):
            return node["enum"][0]
        kind = node.get("type")
        if kind == "object" or "properties" in node:
            return {k: value(v, k) for k, v in node.get("properties", {}).items()}
        if kind == "array":
            count = max(node.get("minItems", 1), 1)
            if "maxItems" in node:
                count = min(count, node["maxItems"])
            return [value(node.get("items", {}), name) for _ in range(count)]
        if kind == "integer":
            return int(node.get("minimum", 1))
        if kind == "number":
            low, high = node.get("minimum", 0.0), node.get("maximum", 1.0)
            return round((low + high) / 2, 3)
        if kind == "boolean":
            return True
        text = f"A scripted {name.replace('_', ' ')} from {agent or 'the agent'}."
        low = node.get("minLength", 0)
        while len(text) < low:
            text += " It stands in for a model's reply."
        if "maxLength" in node:
            text = text[: node["maxLength"]].rstrip()
        return text

    return value(schema, "reply")
