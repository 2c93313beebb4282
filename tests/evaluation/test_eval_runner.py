"""Resumable and safe: results per unit, finished units skipped, an interruption loses nothing finished."""

from __future__ import annotations

import asyncio
import json

import pytest

from courtroom_chat.backends.scripted import ScriptedBackend
from courtroom_chat.errors import InputError
from courtroom_chat.evaluation.harness import evaluate_async
from courtroom_chat.store import RunStore


class Stalling:
    """A backend that answers ``after`` calls through ``inner``, then hangs until cancelled."""

    def __init__(self, inner: ScriptedBackend, after: int):
        self.inner, self.after, self.count = inner, after, 0
        self.name, self.model = inner.name, inner.model
        self.accepts_temperature, self.price_provider = inner.accepts_temperature, inner.price_provider
        self.constrained_decoding, self.context_window = inner.constrained_decoding, inner.context_window
        self.stalled = asyncio.Event()

    def estimate_tokens(self, text: str) -> int:
        return self.inner.estimate_tokens(text)

    async def complete(self, request, on_text=None):  # noqa: ANN001, ANN201
        self.count += 1
        if self.count > self.after:
            self.stalled.set()
            await asyncio.Event().wait()
        return await self.inner.complete(request, on_text)

    async def aclose(self) -> None:
        return None


def _lines(folder) -> list[dict]:
    return [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]


async def test_a_larger_limit_adds_to_the_same_evaluation(fixtures, runs_dir):
    backend = ScriptedBackend()
    options = dict(baselines=["single"], backend="scripted", backends={"scripted": backend})
    first = await evaluate_async(str(fixtures / "adrs.json"), limit=2, **options)
    calls_after_first = len(backend.calls)
    again = await evaluate_async(str(fixtures / "adrs.json"), limit=2, **options)
    assert len(backend.calls) == calls_after_first  # nothing ran twice
    assert again.summary["results"] == first.summary["results"]
    more = await evaluate_async(str(fixtures / "adrs.json"), limit=4, **options)
    assert more.eval_id == first.eval_id and more.summary["items"] == 4
    rows = _lines(more.folder)
    assert len(rows) == 8 and len({(r["item"], r["method"]) for r in rows}) == 8
    asked = {r.case.question for r in backend.calls[calls_after_first:]}
    assert asked == {'Should we choose "Use Kafka"?', 'Should we choose "Use RabbitMQ"?'}  # only the new items


async def test_an_interrupted_evaluation_keeps_what_finished_and_resumes(fixtures, runs_dir):
    stalling = Stalling(ScriptedBackend(), after=10)  # the first trial's 8 calls, then 2 of the second
    task = asyncio.ensure_future(evaluate_async(str(fixtures / "adrs.json"), procedure="decision", baselines=["none"],
                                                backend="scripted", backends={"scripted": stalling}))
    await asyncio.wait_for(stalling.stalled.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    folder = next((runs_dir / "evals").iterdir())
    rows = _lines(folder)
    assert [(r["item"], r["method"]) for r in rows] == [("adr-0001-option1", "court")]
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["results"]["court"]["n"] == 1  # the report covers what finished
    statuses = sorted(r["status"] for r in RunStore(runs_dir).list())
    assert statuses == ["complete", "incomplete"]  # the cancelled trial kept its partial record

    backend = ScriptedBackend()
    done = await evaluate_async(str(fixtures / "adrs.json"), procedure="decision", baselines=["none"],
                                backend="scripted", backends={"scripted": backend})
    assert done.summary["results"]["court"]["n"] == 4
    assert len(backend.calls) == 3 * 8  # only the three unfinished items ran
    assert len(_lines(folder)) == 4


async def test_report_only_writes_the_stored_results_report_again_and_asks_nothing(fixtures, runs_dir):
    options = dict(procedure="none", baselines=["single"], backend="scripted")
    with pytest.raises(InputError, match=r"^--report-only: no results for this evaluation in .*; run the same "
                                         r"command without --report-only first$"):
        await evaluate_async(str(fixtures / "adrs.json"), report_only=True, **options)
    done = await evaluate_async(str(fixtures / "adrs.json"), limit=3, backends={"scripted": ScriptedBackend()}, **options)
    (done.folder / "report.md").write_text("an older report's format")
    silent = ScriptedBackend()
    again = await evaluate_async(str(fixtures / "adrs.json"), report_only=True, backends={"scripted": silent}, **options)
    assert not silent.calls and again.folder == done.folder
    assert again.summary["results"] == done.summary["results"] and again.unfinished == 1  # the 4th item never ran
    assert (done.folder / "report.md").read_text() == again.markdown == done.markdown
    assert len(_lines(done.folder)) == 3  # nothing appended


async def test_failed_items_count_wrong_are_kept_and_can_be_retried(fixtures, runs_dir):
    failing = ScriptedBackend(script={"single": {"$error": "server went away"}})
    options = dict(procedure="none", baselines=["single"], backend="scripted", limit=2)
    ev = await evaluate_async(str(fixtures / "adrs.json"), backends={"scripted": failing}, **options)
    result = ev.summary["results"]["single"]
    assert (result["correct"], result["failed"], result["undecided_share"]) == (0, 2, 1.0)
    assert "failed ✗" in ev.markdown
    ev = await evaluate_async(str(fixtures / "adrs.json"), backends={"scripted": failing}, **options)
    assert len(failing.calls) == 2  # failed items are finished results: not re-run by default
    healthy = ScriptedBackend(script={"single": {"reasoning": "r", "decision": "yes", "confidence": 0.9}})
    ev = await evaluate_async(str(fixtures / "adrs.json"), backends={"scripted": healthy}, retry_failed=True, **options)
    assert len(healthy.calls) == 2 and ev.summary["results"]["single"]["correct"] == 1
    assert len(_lines(ev.folder)) == 4  # the retried lines follow the failed ones; the later wins


async def test_seeds_are_deterministic_per_item_and_method(fixtures, runs_dir):
    options = dict(procedure="none", baselines=["single", "majority"], backend="scripted", limit=2)
    a = await evaluate_async(str(fixtures / "adrs.json"), seed=5, **options)
    seeds = {(r["item"], r["method"]): r["seed"] for r in _lines(a.folder)}
    assert len(set(seeds.values())) == 4
    b = await evaluate_async(str(fixtures / "adrs.json"), seed=6, **options)
    assert b.eval_id != a.eval_id and a.eval_id.startswith("adr-baselines-seed5-")
    import shutil

    shutil.rmtree(a.folder)
    c = await evaluate_async(str(fixtures / "adrs.json"), seed=5, **options)
    assert {(r["item"], r["method"]): r["seed"] for r in _lines(c.folder)} == seeds


async def test_workers_run_items_concurrently(fixtures, runs_dir):
    """Four workers have the four items' calls in flight at once (read from the scripted
    backend's call log, not from a clock: a timing is no pass/fail test on a busy machine)."""
    from courtroom_chat.backends.scripted import ScriptedBackend
    from courtroom_chat.config import Settings
    from tests.test_supreme import overlap

    settings = Settings().with_backend("scripted").with_overrides({"throttle": {"max_concurrency": 0, "delay_ms": 0}})
    options = dict(procedure="none", baselines=["single"], backend="scripted", limit=4, settings=settings)
    together = ScriptedBackend(latency_ms=500)
    await evaluate_async(str(fixtures / "adrs.json"), workers=4, backends={"scripted": together}, **options)
    assert len(together.timeline) == 4 and overlap(together.timeline) == 4
    alone = ScriptedBackend(latency_ms=20)
    await evaluate_async(str(fixtures / "adrs.json"), workers=1, seed=1, backends={"scripted": alone}, **options)
    assert len(alone.timeline) == 4 and overlap(alone.timeline) == 1


async def test_the_throttle_holds_across_workers_trials_and_baselines(fixtures, runs_dir):
    """One pacer for the whole evaluation: with max_concurrency 1, four workers running court
    trials and baseline calls never have two requests in flight."""
    from courtroom_chat.backends.scripted import ScriptedBackend
    from courtroom_chat.config import Settings
    from tests.test_supreme import overlap

    backend = ScriptedBackend(latency_ms=10)
    settings = Settings().with_backend("scripted").with_overrides({"throttle": {"max_concurrency": 1}})
    await evaluate_async(str(fixtures / "adrs.json"), baselines=["single", "majority"], limit=2, workers=4,
                         settings=settings, backends={"scripted": backend})
    assert len(backend.timeline) >= 2 * (9 + 1 + 5) - 2 and overlap(backend.timeline) == 1


@pytest.mark.parametrize("options, message", [
    (dict(baselines=["triple"]), "unknown baseline 'triple'; use single or majority (or none)"),
    (dict(procedure="tribunal"), "unknown procedure 'tribunal'"),
    (dict(procedure="none", baselines=["none"]), "nothing to evaluate"),
    (dict(limit=0), "--limit must be 1 or more"),
    (dict(batch=True), "--batch sends the baselines through Anthropic's Message Batches API or OpenAI's Batch API; use --backend anthropic or --backend openai"),
    (dict(batch=True, baselines=["none"]), "--batch sends the baselines as one batch"),
    (dict(reuse=""), "--reuse is empty; give the id of an earlier evaluation"),  # was no --reuse at all
    # every trial's fragility check was "not run", reported at the end of the whole evaluation
    (dict(procedure="criminal", fragility=True), "--fragility: procedure criminal has no fragility check"),
    # each ADR question was refused by the trial, after the evaluation's folder and progress bar
    (dict(procedure="samvad"), "the retrieval-grounded bench tries a criminal charge under Indian law, and “Should we choose"),
])
async def test_bad_options_are_refused_before_anything_runs(fixtures, runs_dir, options, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        await evaluate_async(str(fixtures / "adrs.json"), backend="scripted", **options)
    assert not (runs_dir / "evals").exists()


def test_a_parameter_added_later_changes_the_eval_id_only_when_set_to_something_new(fixtures, monkeypatch):
    """An evaluation stored before a procedure gained a parameter resumes under the same id while
    the parameter keeps the earlier behaviour (RTE's, stored before compare_shots, started again
    from its first item under a new id); set to something new, it is another evaluation."""
    from courtroom_chat.config import Settings
    from courtroom_chat.evaluation import runner
    from courtroom_chat.evaluation.datasets import resolve

    dataset = resolve(str(fixtures / "adrs.json"))
    settings = Settings().with_backend("local:qwen2.5-coder-1.5b")
    default = runner.eval_id(dataset, "classification", 0, settings)
    two = settings.with_params("classification", {"compare_shots": "1, 2"})
    assert runner.eval_id(dataset, "classification", 0, two) != default
    later = set(runner.PARAMETERS_ADDED["classification"])  # compare_shots, second_label
    with monkeypatch.context() as m:  # the id as it was made before the parameters existed
        m.setattr(runner, "PARAMETERS_ADDED", {})
        stored = settings.model_copy(update={"procedures": {
            **settings.procedures, "classification": {
                k: v for k, v in settings.procedures["classification"].items() if k not in later}}})
        assert runner.eval_id(dataset, "classification", 0, stored) == default
        assert runner.eval_id(dataset, "classification", 0, settings) != default


def test_decoding_that_differs_from_the_first_release_is_part_of_the_eval_id(fixtures, monkeypatch):
    """Two evaluations on the embedded model that decode differently never resume into each
    other; the first release's decoding keeps the ids results were stored under."""
    from courtroom_chat.config import Settings
    from courtroom_chat.evaluation import runner
    from courtroom_chat.evaluation.datasets import resolve

    dataset = resolve(str(fixtures / "adrs.json"))
    local = Settings().with_backend("local:qwen2.5-coder-1.5b")
    at_first = local.with_overrides({"local": runner.DECODING_AT_FIRST})
    other = local.with_overrides({"local": {"dry_last_n": 128}})
    first = runner.eval_id(dataset, "decision", 0, at_first)
    # the default is the first release's decoding, and -1 (its old name) is the same decoding
    assert runner.eval_id(dataset, "decision", 0, local) == first
    assert runner.eval_id(dataset, "decision", 0, local.with_overrides({"local": {"dry_last_n": -1}})) == first
    assert runner.eval_id(dataset, "decision", 0, other) != first
    for change in ({"dry_multiplier": 0.0}, {"dry_allowed_length": 8}):
        assert runner.eval_id(dataset, "decision", 0, at_first.with_overrides({"local": change})) != first
    with monkeypatch.context() as m:  # as ids were made before decoding was part of them
        m.setattr(runner, "DECODING_AT_FIRST", {})
        assert runner.eval_id(dataset, "decision", 0, other) == first
    scripted = Settings().with_backend("scripted")  # no embedded model: its decoding is beside the point
    assert (runner.eval_id(dataset, "decision", 0, scripted)
            == runner.eval_id(dataset, "decision", 0, scripted.with_overrides({"local": {"dry_last_n": 128}})))


def test_courtroom_chat_eval_is_the_harness():
    from courtroom_chat import eval as from_python
    from courtroom_chat.evaluation import evaluate, evaluate_async

    assert from_python.evaluate is evaluate and from_python.evaluate_async is evaluate_async


async def test_a_dataset_changed_since_its_results_is_scored_again_or_asked_again(tmp_path, runs_dir):
    """The evaluation id names a JSONL dataset by its file name, so editing the file resumed into the
    old results: a flipped gold answer still scored as before. Now a new gold is scored again
    (no call), and a new question is asked again."""
    data = tmp_path / "qs.jsonl"
    (tmp_path / "fix.md").write_text("The fix passed every test.\n")
    (tmp_path / "draft.md").write_text("The draft has no tests.\n")
    rows = [{"id": "a", "question": "Ship the fix?", "answer": "yes", "context": ["fix.md"]},
            {"id": "b", "question": "Ship the draft?", "answer": "yes", "context": ["draft.md"]}]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    always_yes = {"single": {"reasoning": "The evidence supports it.", "decision": "yes", "confidence": 0.8}}
    options = dict(procedure="none", baselines=["single"], backend="scripted")
    backend = ScriptedBackend(script=always_yes)
    first = await evaluate_async(str(data), backends={"scripted": backend}, **options)
    assert first.summary["results"]["single"]["correct"] == 2 and len(backend.calls) == 2
    rows[1]["answer"] = "no"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    backend = ScriptedBackend(script=always_yes)
    again = await evaluate_async(str(data), backends={"scripted": backend}, **options)
    assert again.eval_id == first.eval_id and not backend.calls
    assert again.summary["results"]["single"]["correct"] == 1
    rows[0]["question"] = "Ship the fix today?"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    backend = ScriptedBackend(script=always_yes)
    third = await evaluate_async(str(data), backends={"scripted": backend}, **options)
    assert [c.case.question for c in backend.calls] == ["Ship the fix today?"]
    assert third.summary["results"]["single"]["correct"] == 1
    latest = {r["item"]: r for r in _lines(third.folder)}
    assert latest["a"]["question"] == "Ship the fix today?" and latest["b"]["gold"] == "no"
    (tmp_path / "draft.md").write_text("The draft now has tests, and they pass.\n")  # same question, new evidence
    backend = ScriptedBackend(script=always_yes)
    fourth = await evaluate_async(str(data), backends={"scripted": backend}, **options)
    assert [c.case.question for c in backend.calls] == ["Ship the draft?"]
    assert "The draft now has tests" in backend.calls[0].prefix + backend.calls[0].prompt
    assert fourth.summary["results"]["single"]["n"] == 2


async def test_a_jsonl_dataset_in_another_folder_resumes_the_same_evaluation(tmp_path, runs_dir):
    """The id named a JSONL dataset by its absolute path, so the same file in a fresh clone (or a
    moved folder) started its evaluation again from the first item. Now the same file resumes."""
    rows = [{"id": "a", "question": "Ship the fix?", "answer": "yes", "context": ["fix.md"]}]
    for folder in ("clone-1", "clone-2"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "fix.md").write_text("The fix passed every test.\n")
        (tmp_path / folder / "qs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    options = dict(procedure="none", baselines=["single"], backend="scripted")
    backend = ScriptedBackend()
    first = await evaluate_async(str(tmp_path / "clone-1" / "qs.jsonl"), backends={"scripted": backend}, **options)
    assert len(backend.calls) == 1
    backend = ScriptedBackend()
    again = await evaluate_async(str(tmp_path / "clone-2" / "qs.jsonl"), backends={"scripted": backend}, **options)
    assert again.eval_id == first.eval_id and not backend.calls
    assert again.summary["results"]["single"]["n"] == 1


async def test_a_smaller_limit_writes_its_report_beside_the_fuller_one(fixtures, runs_dir):
    options = dict(procedure="none", baselines=["single"], backend="scripted", backends={"scripted": ScriptedBackend()})
    full = await evaluate_async(str(fixtures / "adrs.json"), limit=3, **options)
    fuller = (full.folder / "report.md").read_text()
    small = await evaluate_async(str(fixtures / "adrs.json"), limit=1, **options)
    assert small.folder == full.folder and (full.folder / "report.md").read_text() == fuller
    assert json.loads((full.folder / "summary.json").read_text())["results"]["single"]["n"] == 3
    assert json.loads((full.folder / "summary-first-1.json").read_text())["results"]["single"]["n"] == 1
    assert (full.folder / "report-first-1.md").read_text() == small.markdown
    assert full.report == full.folder / "report.md" and small.report == full.folder / "report-first-1.md"


def test_what_a_unit_asked_is_its_content_not_where_the_case_lies():
    from courtroom_chat.case import new_case, pasted_document
    from courtroom_chat.evaluation.datasets import Item
    from courtroom_chat.evaluation.runner import Unit

    def unit(text: str, source: str | None) -> Unit:
        case = new_case("Ship the fix?", [pasted_document(text)]).model_copy(update={"source": source})
        return Unit(Item("a", case, "yes"), "single", "asked", "Ship the fix?", "yes", 0)

    here = unit("All tests pass.", "/home/a/qs.jsonl")
    assert here.digest == unit("All tests pass.", "/mnt/b/qs.jsonl").digest == unit("All tests pass.", None).digest
    assert here.digest != unit("Two tests fail.", "/home/a/qs.jsonl").digest
    assert len(here.digest) == 16


def test_the_ruling_as_first_asked_keeps_the_decision_courts_stored_eval_ids(fixtures, monkeypatch):
    """ruling_facts = false asks the judge as before 2026-11-28, so the evaluations stored before it
    resume (and ``--reuse`` can start the default from them); the default is a new evaluation."""
    from courtroom_chat.config import Settings
    from courtroom_chat.evaluation import runner
    from courtroom_chat.evaluation.datasets import resolve

    dataset = resolve(str(fixtures / "adrs.json"))
    settings = Settings().with_backend("local:qwen2.5-coder-1.5b")
    added = runner.PARAMETERS_ADDED["decision"]  # every decision parameter added since those were stored
    before = settings.with_params("decision", {"ruling_facts": False, "juror_consistency": "off"})
    with monkeypatch.context() as m:
        m.setattr(runner, "PARAMETERS_ADDED", {})
        stored = settings.model_copy(update={"procedures": {
            **settings.procedures, "decision": {
                k: v for k, v in settings.procedures["decision"].items() if k not in added}}})
        old = runner.eval_id(dataset, "decision", 0, stored)
    assert runner.eval_id(dataset, "decision", 0, before) == old
    assert runner.eval_id(dataset, "decision", 0, settings) != old


def test_damaged_result_lines_run_again_and_the_rest_are_kept(tmp_path):
    """A results line that is not UTF-8, not JSON, cut short, or missing its keys is a unit to run
    again, not an error that stops the resumed evaluation."""
    from courtroom_chat.evaluation.runner import Results

    good = {"item": "a", "method": "court", "framing": "asked", "correct": True}
    (tmp_path / "results.jsonl").write_bytes(
        json.dumps(good).encode() + b"\n" + b'{"item": "b", "method": "court", "framing": "asked", "x": "\xff"}\n'
        + b'{"item": "c", "method"\n' + b'{"method": "court"}\n' + b"[1, 2]\n")
    assert Results(tmp_path).rows() == {("a", "court", "asked"): good}
