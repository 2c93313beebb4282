"""The scripted backend: deterministic, offline, first-class.

It serves tests, dry runs and demos. With no script it derives schema-valid replies from
the case itself: quotes copied verbatim from the evidence, votes varied across jurors, a
judge that follows the tally. A script (``--script FILE``) is a JSON object mapping a role
(``prosecutor``, ``defense``, ``juror``, ``judge``) or an agent (``juror-2``) to a reply or a
list of replies, used in order (the last one repeats). A reply is a JSON object, a string
sent as raw text (to exercise repairs), or ``{"$error": "message"}`` to fail the call.

``COURTROOM_SCRIPTED_LATENCY_MS`` (or ``[scripted] latency_ms``) adds latency per call, and
the reply streams out across it. Every request is kept in ``calls``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from ..case import motion_from
from ..errors import BackendError, ConfigError
from ..records import Usage
from . import TRAITS
from .base import ModelReply, ModelRequest, Stopwatch, TextCallback, rough_tokens

_SIGNAL = re.compile(
    r"fail|error|bug|todo|fixme|risk|broken|timeout|crash|leak|deadline|cost|\d+%|must|should|"
    r"never|always|slow|fast|secure|security|test|passed|users?|latency|revenue|deprecated",
    re.IGNORECASE,
)


def _candidate_quotes(documents: list[Any], limit: int) -> list[tuple[str, str]]:
    """(document name, quote) pairs: distinct informative lines, copied verbatim."""
    scored: list[tuple[int, int, str, str]] = []
    seen: set[str] = set()
    for d_index, doc in enumerate(documents):
        for line in doc.text.split("\n"):
            text = line.strip()
            if doc.kind == "diff" and text[:1] in "+-" and not text.startswith(("+++", "---")):
                text = text[1:].strip()
            words = text.split()
            if not (5 <= len(words) <= 30) or len(text) > 180 or text in seen or text.startswith(("@@", "diff ", "index ")):
                continue
            seen.add(text)
            score = len(_SIGNAL.findall(text)) * 10 + min(len(words), 15)
            scored.append((score, d_index, doc.name, text))
    scored.sort(key=lambda s: (-s[0], s[1]))
    picked: list[tuple[str, str]] = []
    used_docs: set[str] = set()
    for _, _, name, text in scored:  # one per document first, then the rest
        if name not in used_docs:
            picked.append((name, text))
            used_docs.add(name)
        if len(picked) == limit:
            return picked
    for _, _, name, text in scored:
        if (name, text) not in picked:
            picked.append((name, text))
        if len(picked) == limit:
            break
    return picked


def _words(text: str, minimum: int, filler: list[str]) -> str:
    """Pad ``text`` with sentences from ``filler`` until it has ``minimum`` words."""
    out = text
    i = 0
    while len(out.split()) < minimum:
        out += " " + filler[i % len(filler)]
        i += 1
    return out


class ScriptedBackend:
    name = "scripted"
    accepts_temperature, price_provider = TRAITS["scripted"]
    constrained_decoding = False
    context_window = None

    def __init__(self, spec: Any = None, settings: Any = None, *, script: dict[str, Any] | str | Path | None = None,
                 latency_ms: int | None = None):
        self.model = getattr(spec, "model", "") or "scripted"
        if script is None and settings is not None and settings.scripted.script:
            script = settings.scripted.script
        self.script = load_script(script) if isinstance(script, (str, Path)) else dict(script or {})
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
        self._cursor: dict[str, int] = {}

    def estimate_tokens(self, text: str) -> int:
        return rough_tokens(text)

    async def aclose(self) -> None:
        return None

    # ------------------------------------------------------------------ replies

    def _scripted(self, request: ModelRequest) -> Any:
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

    def derive(self, request: ModelRequest) -> dict[str, Any]:
        """A schema-valid reply built from the case and the stage's inputs."""
        inputs, case = request.inputs, request.case
        question = getattr(case, "question", "") or inputs.get("question", "")
        seed = hashlib.sha256(question.encode()).digest()[0]
        if request.role == "prosecutor":
            motion = motion_from(question)
            limit = min(3, int(inputs.get("max_exhibits", 3)))
            quotes = _candidate_quotes(list(getattr(case, "context", []) or []), limit)
            min_harm = int(inputs.get("min_harm_words", 8))
            exhibits = [
                {
                    "source_quote": quote,
                    "target_quote": question,
                    "harm": _words(
                        f"If we do not {motion}, the situation shown in {name} stays unresolved and keeps "
                        "costing time for the people who depend on it.",
                        min_harm,
                        ["Each week of delay adds rework and erodes trust in the decision."],
                    ),
                }
                for name, quote in quotes
            ]
            return {
                "motion": motion,
                "case_statement": f"The evidence supports acting now: we should {motion}. "
                f"{len(exhibits)} passages in the evidence show the benefit outweighs the risk.",
                "exhibits": exhibits,
                "harm_analysis": "Not acting delays the benefit and leaves the issues quoted in the exhibits open.",
            }
        if request.role == "defense":
            effects = ["weakens", "concedes", "refutes"]
            exhibits = inputs.get("exhibits", [])
            return {
                "counter_argument": f"The prosecution's core claim, that we should {inputs.get('motion', 'act')}, "
                "rests on a few passages and ignores the cost of acting before the open questions are settled.",
                "exhibit_challenges": [
                    {
                        "exhibit": e["number"],
                        "challenge": f"Exhibit {e['number']} shows a real point but not that acting now is required.",
                        "effect": effects[(e["number"] + seed) % 3],
                    }
                    for e in exhibits
                ],
                "harm_dispute": "The harms described are avoidable with a short delay and are not certain to occur.",
                "alternative": "Address the open points first, then revisit the decision with fresh evidence.",
            }
        if request.role == "juror":
            number = int(inputs.get("number", 1))
            act = ((number + seed) * 3) % 5 < 3
            vote = "act" if act else "do not act"
            exhibits = inputs.get("exhibits", [])
            cited = ", ".join(f"exhibit {e['number']}" for e in exhibits[:2]) or "the question itself"
            side = "prosecution" if act else "defense"
            reasoning = _words(
                f"Speaking as {inputs.get('persona', 'a juror')}, I find the {side} more convincing. "
                f"I weighed {cited} against the defense's challenges and the alternative it offers.",
                int(inputs.get("min_words", 50)),
                [
                    "The verified quotes show what is actually at stake rather than what either side assumes.",
                    "I gave more weight to concrete consequences than to general statements about risk.",
                    "On balance the evidence points one way, although the other side raised fair concerns.",
                ],
            )
            return {"reasoning": reasoning, "vote": vote}
        if request.role == "judge":
            tally = inputs.get("tally", {})
            guilty, not_guilty = int(tally.get("guilty", 0)), int(tally.get("not_guilty", 0))
            act = guilty > not_guilty
            motion = inputs.get("motion", "act")
            split = f"{guilty}–{not_guilty}"
            split_note = "" if inputs.get("unanimous") else f" The jury was split {split}, and the minority's concerns were weighed."
            return {
                "reasoning": f"The prosecution showed verified evidence for acting; the defense argued the costs of acting now. "
                f"The jury voted {split}.{split_note}",
                "decision": "act" if act else "do not act",
                "answer": motion if act else f"not yet: {inputs.get('alternative') or 'wait'}",
                "rationale": f"The {'prosecution' if act else 'defense'} made the stronger case on the verified evidence.",
                "actions": [f"{motion[:1].upper()}{motion[1:]}", "Record the decision and review the outcome in two weeks"]
                if act else [],
                "confidence": 0.7 if split_note else 0.85,
            }
        return {}

    async def complete(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelReply:
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
        await self._stream(text, on_text)
        return ModelReply(
            text=text,
            usage=Usage(input_tokens=rough_tokens(request.user_text()) + rough_tokens(request.system),
                        output_tokens=rough_tokens(text)),
            model=self.model,
            temperature=request.temperature,
            seconds=watch.seconds,
            finish_reason="stop",
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
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{p}: malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{p}: a script must be a JSON object mapping roles (prosecutor, defense, juror, judge) to replies")
    known = {"prosecutor", "defense", "juror", "judge"}
    for key in data:
        if key not in known and not re.fullmatch(r"juror-\d+", key):
            raise ConfigError(f"{p}: unknown role '{key}' in script; use prosecutor, defense, juror, juror-N or judge")
    return data
