"""The classification datasets on real rows of the shared data, label-set baselines, and
`courtroom eval rte --procedure classification` end to end on the scripted backend."""

from __future__ import annotations

import json

import pytest

from courtroom_chat.backends import BackendPool
from courtroom_chat.backends.scripted import ScriptedBackend
from courtroom_chat.case import Case, pasted_document
from courtroom_chat.config import Settings
from courtroom_chat.evaluation import datasets
from courtroom_chat.evaluation.harness import evaluate
from courtroom_chat.evaluation.methods import Baselines, arm_prediction, prediction_from_record, run_baseline
from courtroom_chat.records import Outcome, RunRecord
from courtroom_chat.retrieval import fingerprint

EXPECTED = {  # name: labels, items drawn, precedents
    "rte": (("entailment", "not entailment"), 200, 77),
    "boolq": (("yes", "no"), 500, 1000),
    "qnli": (("entailment", "not entailment"), 500, 1000),
    "anli": (("entailment", "neutral", "contradiction"), 500, 1000),
    # one validation text is also a test item, so it leaves the pool
    "emotion": (("sadness", "joy", "love", "anger", "fear", "surprise"), 500, 999),
}


@pytest.fixture
def benchmarks():
    root = datasets.data_dir() / "benchmarks"
    if not (root / "rte").is_dir():
        pytest.skip(f"the shared benchmarks are not at {root}; set COURTROOM_DATA_DIR")
    return root


@pytest.mark.parametrize("name", list(EXPECTED))
def test_each_adapter_reads_its_real_rows(name, benchmarks):
    labels, n_items, n_pool = EXPECTED[name]
    source = datasets.resolve(name, seed=0)
    assert source.labels == labels and source.yes_no == (name == "boolq")
    items, pool = source.items(), source.pool()
    assert len(items) == n_items and len(pool) == n_pool
    for item in items[:3]:
        assert item.gold in labels and item.case.context[0].text.strip()
        assert item.case.inputs == {"labels": list(labels), "pool": name, "pool_seed": 0}
        from courtroom_chat.procedures.classification.labels import check

        assert check(item.case) == list(labels)  # the court accepts it as it is
    assert {e.label for e in pool} <= set(labels) and all(e.reason for e in pool[:20])
    judged = {fingerprint(i.case.context[0].text) for i in items}
    assert not judged & {fingerprint(e.text) for e in pool}  # the pool is disjoint from the items
    assert [i.id for i in datasets.resolve(name, seed=0).items()[:5]] == [i.id for i in items[:5]]
    assert [i.id for i in datasets.resolve(name, seed=1).items()[:5]] != [i.id for i in items[:5]]


def test_known_rows_read_as_in_the_files(benchmarks):
    rte = datasets.resolve("rte")
    [row] = [r for r in rte.rows(rte.file) if r["id"] == "0"]
    assert row["label"] == "not entailment" and row["text"].startswith("Premise: Dana Reeve")
    assert row["text"].endswith("Hypothesis: Christopher Reeve had an accident.")
    anli = datasets.resolve("anli")
    first = anli.rows("anli_v1.0_R1_test.jsonl")[0]
    assert first["label"] == "entailment" and "Ernest Jones" in first["text"] and "London" in first["reason"]
    raw = {r["uid"][:8]: " ".join(r["reason"].split()) for r in map(json.loads, (anli.root / "anli_v1.0_R1_dev.jsonl").open())}
    cut = [(r["reason"][:-1], raw[r["id"]]) for r in anli.rows("anli_v1.0_R1_dev.jsonl") if r["reason"].endswith("…")]
    assert cut and all(len(said) < 200 and whole.startswith(said) and whole[len(said)] in " ,;:" for said, whole in cut)
    emotion = datasets.resolve("emotion").rows("setfit_emotion_test.jsonl")[0]
    assert emotion == {"id": "test0", "text": "im feeling rather rotten so im not very ambitious right now",
                       "label": "sadness"}
    boolq = datasets.resolve("boolq").rows("boolq_dev.jsonl")[0]
    assert boolq["label"] == "no" and boolq["text"].endswith("Question: Does ethanol take more energy make that produces?")


async def test_baselines_choose_among_a_label_set():
    case = Case(question="Which emotion? Labels: joy, anger, fear.", context=[pasted_document("I am furious.")])
    settings = Settings().with_backend("scripted")
    script = {"juror": [{"reasoning": "Furious.", "decision": "Anger.", "confidence": 0.9}]}
    baselines = Baselines(settings, BackendPool(settings, {"scripted": ScriptedBackend(script=script)}))
    p = await run_baseline("single", case, baselines, seed=1, labels=["joy", "anger", "fear"])
    assert p.label == "anger" and p.status == "decided"
    request = baselines.request("single", case, 1, None, 1, ["joy", "anger", "fear"])
    assert request.schema["properties"]["decision"]["enum"] == ["joy", "anger", "fear"]
    assert '"joy" / "anger" / "fear"' in request.prompt
    bad = {"juror": [{"reasoning": "r", "decision": "rage", "confidence": 0.5}]}
    baselines = Baselines(settings, BackendPool(settings, {"scripted": ScriptedBackend(script=bad)}))
    p = await run_baseline("majority", case, baselines, seed=1, labels=["joy", "anger", "fear"])
    assert p.status == "failed" and "none of joy, anger, fear" in p.error


async def test_baselines_see_the_judges_precedents_few_shot():
    """With [procedures.classification] precedents = k, a labelled item with a pool shows the
    single and majority calls the same k precedents the judges would see (the published
    table's few-shot baselines); with k = 0, or no pool, none."""
    pool = [{"text": "The storm flooded every street downtown.", "label": "fear", "reason": "danger"},
            {"text": "I am furious that the store lost my order again.", "label": "anger", "reason": "blame"},
            {"text": "We won the cup and danced all night.", "label": "joy", "reason": "celebration"}]
    case = Case(question="Which emotion? Labels: joy, anger, fear.", inputs={"labels": ["joy", "anger", "fear"], "pool": pool},
                context=[pasted_document("The store lost my order and I am furious.")])
    labels = ["joy", "anger", "fear"]
    base = Settings().with_backend("scripted")
    shown = Baselines(base.with_params("classification", {"precedents": 1, "retrieval": "bm25"}), BackendPool(base))
    request = shown.request("majority", case, 2, 0.5, 7, labels)
    assert request.prompt.startswith("PRECEDENTS:") and "was labelled anger" in request.prompt
    assert "was labelled joy" not in request.prompt and request.prompt.endswith('the probability, from 0 to 1, that your label is right.')
    assert request.prefix == shown.request("single", case, 1, 0.2, 3, labels).prefix  # the case is read as before
    two = Baselines(base.with_params("classification", {"precedents": 2, "retrieval": "bm25"}), BackendPool(base))
    assert two.request("single", case, 1, 0.2, 3, labels).prompt.count("was labelled") == 2
    none = Baselines(base, BackendPool(base))
    assert "PRECEDENTS" not in none.request("single", case, 1, 0.2, 3, labels).prompt
    unpooled = Case(question=case.question, inputs={"labels": labels}, context=case.context)
    assert "PRECEDENTS" not in shown.request("single", unpooled, 1, 0.2, 3, labels).prompt
    # a baseline beside a compare_shots bench sees its own number, whatever precedents says
    assert shown.request("single-2-shot", case, 1, 0.2, 3, labels).prompt.count("was labelled") == 2
    zero = shown.request("majority-0-shot", case, 4, 0.5, 3, labels)
    assert "PRECEDENTS" not in zero.prompt and zero.agent == "majority-0-shot-4" and zero.role == "juror"
    assert shown.temperatures("majority-0-shot") == shown.temperatures("majority")
    assert shown.spec("single-0-shot") == shown.spec("single")


def test_a_court_record_is_read_by_its_label_for_a_label_set():
    record = RunRecord(run_id="r", case=Case(question="q?"), status="complete",
                       outcome=Outcome(answer="Label: not entailment", label="not entailment"))
    assert prediction_from_record(record, ["entailment", "not entailment"]).label == "not entailment"
    assert prediction_from_record(record).label is None  # no polarity: undecided on a yes/no dataset
    assert prediction_from_record(record, ["joy", "anger"]).status == "undecided"


@pytest.mark.parametrize("name", ["rte", "emotion"])
def test_courtroom_eval_runs_the_court_and_both_baselines(name, benchmarks, tmp_path, monkeypatch):
    monkeypatch.setenv("COURTROOM_CACHE_DIR", str(tmp_path / "cache"))
    settings = Settings().with_backend("scripted").with_params("classification", {"judges": 3, "ambiguity_samples": 2})
    ev = evaluate(name, procedure="classification", baselines=["single", "majority"], limit=3, settings=settings,
                  runs_dir=tmp_path / "runs")
    results = ev.summary["results"]
    assert set(results) == {"court", "single", "majority"} and all(r["n"] == 3 for r in results.values())
    assert results["court"]["failed"] == 0 and results["single"]["failed"] == 0
    assert results["court"]["calls_per_item"] == 2 + 2 + 3  # two hearings, two counsels, three judges
    assert set(results["court"]["confusion"]) == set(EXPECTED[name][0])
    assert any("accuracy on normal items" in k for k in ev.summary["extra"])


def test_accuracy_on_ambiguous_and_normal_items_with_intervals():
    from courtroom_chat.procedures.classification.datasets import LabelledTexts

    def row(item, method, correct, ambiguous=None):
        details = {"ambiguous": ambiguous} if method == "court" else {}
        return {"item": item, "method": method, "framing": "asked", "correct": correct, "details": details}

    rows = [row("a", "court", True, True), row("b", "court", False, True), row("c", "court", True, False),
            row("a", "single", False), row("b", "single", False), row("c", "single", True)]
    out = LabelledTexts.extra_metrics(None, rows)  # type: ignore[arg-type]
    assert out["court accuracy on ambiguous items"] == "1/2 = 50% (9%–91%)"
    assert out["court accuracy on normal items"] == "1/1 = 100% (21%–100%)"
    assert out["single accuracy on ambiguous items"] == "0/2 = 0% (0%–66%)"  # flagged by the court's hearings
    assert LabelledTexts.extra_metrics(None, [row("a", "single", True)]) == {}  # type: ignore[arg-type]


def test_compare_modes_scores_parallel_and_sequential_on_the_same_trials(benchmarks, tmp_path, monkeypatch):
    monkeypatch.setenv("COURTROOM_CACHE_DIR", str(tmp_path / "cache"))
    settings = Settings().with_backend("scripted").with_params(
        "classification", {"judges": 3, "ambiguity_samples": 2, "compare_modes": True})
    ev = evaluate("rte", procedure="classification", baselines=["single"], limit=3, settings=settings,
                  runs_dir=tmp_path / "runs")
    results = ev.summary["results"]
    assert ev.summary["methods"] == ["court", "court-sequential", "single"]
    assert results["court-sequential"]["n"] == 3 and results["court-sequential"]["failed"] == 0
    # each counts its own calls: two hearings, two counsels, judge 1, and its own two judges
    assert results["court"]["calls_per_item"] == results["court-sequential"]["calls_per_item"] == 2 + 2 + 3
    assert "court-sequential" in ev.summary["comparisons"]
    rows = [r for r in ev.summary["rows"] if r["method"] == "court-sequential"]
    court = {r["item"]: r["run_id"] for r in ev.summary["rows"] if r["method"] == "court"}
    assert all(r["run_id"] == court[r["item"]] for r in rows)  # read from the court's own trial
    assert any("court-sequential accuracy on normal items" in k for k in ev.summary["extra"])
    lines = (ev.folder / "results.jsonl").read_text().splitlines()
    again = evaluate("rte", procedure="classification", baselines=["single"], limit=3, settings=settings,
                     runs_dir=tmp_path / "runs")
    assert (again.folder / "results.jsonl").read_text().splitlines() == lines  # resumed: nothing ran again


def test_compare_precedents_scores_retrieved_and_random_precedents_on_the_same_trials(benchmarks, tmp_path, monkeypatch):
    monkeypatch.setenv("COURTROOM_CACHE_DIR", str(tmp_path / "cache"))
    settings = Settings().with_backend("scripted").with_params(
        "classification", {"judges": 3, "precedents": 1, "compare_modes": True, "compare_precedents": True})
    ev = evaluate("rte", procedure="classification", baselines=["single"], limit=2, settings=settings,
                  runs_dir=tmp_path / "runs")
    results = ev.summary["results"]
    assert ev.summary["methods"] == ["court", "court-sequential", "court-random-precedents", "single"]
    # each counts its own calls: the hearing, two counsels, and its own judges
    assert results["court"]["calls_per_item"] == 1 + 2 + 3
    assert results["court-sequential"]["calls_per_item"] == 1 + 2 + 3  # judge 1 shared with the court
    assert results["court-random-precedents"]["calls_per_item"] == 1 + 2 + 3
    assert results["court-random-precedents"]["n"] == 2 and results["court-random-precedents"]["failed"] == 0
    assert "court-random-precedents" in ev.summary["comparisons"]
    court = {r["item"]: r["run_id"] for r in ev.summary["rows"] if r["method"] == "court"}
    rows = [r for r in ev.summary["rows"] if r["method"] == "court-random-precedents"]
    assert rows and all(r["run_id"] == court[r["item"]] for r in rows)  # read from the court's own trial


def test_compare_shots_scores_the_court_and_both_baselines_at_each_number_of_precedents(benchmarks, tmp_path,
                                                                                       monkeypatch):
    """One evaluation gives the few-shot table: the court's benches at each number of precedents
    read from the same trials, and each baseline run again at each, seeing that many."""
    monkeypatch.setenv("COURTROOM_CACHE_DIR", str(tmp_path / "cache"))
    settings = Settings().with_backend("scripted").with_params(
        "classification", {"judges": 3, "precedents": 1, "compare_modes": True, "compare_shots": "0, 2"})
    ev = evaluate("rte", procedure="classification", baselines=["single", "majority"], limit=2, settings=settings,
                  runs_dir=tmp_path / "runs")
    assert ev.summary["methods"] == ["court", "court-sequential", "court-0-shot", "court-sequential-0-shot",
                                     "court-2-shot", "court-sequential-2-shot", "single", "majority",
                                     "single-0-shot", "majority-0-shot", "single-2-shot", "majority-2-shot"]
    results = ev.summary["results"]
    assert all(results[m]["n"] == 2 and results[m]["failed"] == 0 for m in ev.summary["methods"])
    assert results["court-0-shot"]["calls_per_item"] == 1 + 2 + 3  # the hearing, two counsels, its own judges
    assert results["court-sequential-2-shot"]["calls_per_item"] == 1 + 2 + 3  # judge 1 shared with court-2-shot
    assert results["majority-2-shot"]["calls_per_item"] == 5 and results["single-0-shot"]["calls_per_item"] == 1
    court = {r["item"]: r["run_id"] for r in ev.summary["rows"] if r["method"] == "court"}
    assert all(r["run_id"] == court[r["item"]] for r in ev.summary["rows"] if r["method"].startswith("court-"))
    assert {"single-2-shot", "majority-2-shot"} <= set(ev.summary["comparisons"])
    shots = ev.summary["shots"]  # the published table: each structure at 0, 1 (the verdict's own) and 2
    assert list(shots) == ["court", "court-sequential", "single", "majority"]
    assert all(list(cells) == [0, 1, 2] for cells in shots.values())
    assert shots["court"][1]["method"] == "court" and shots["court-sequential"][0]["method"] == "court-sequential-0-shot"
    assert shots["majority"][2]["correct"] == results["majority-2-shot"]["correct"]
    report = (ev.folder / "report.md").read_text()
    assert "## Few-shot table" in report and "| the court in parallel |" in report and "| single (one call) |" in report


def test_compare_orders_scores_the_other_order_and_its_order_check(benchmarks, tmp_path, monkeypatch):
    monkeypatch.setenv("COURTROOM_CACHE_DIR", str(tmp_path / "cache"))
    settings = Settings().with_backend("scripted").with_params("classification", {"judges": 3, "compare_orders": True})
    ev = evaluate("rte", procedure="classification", baselines=[], limit=2, settings=settings, runs_dir=tmp_path / "runs")
    assert ev.summary["methods"] == ["court", "court-judges-shuffled"]
    assert ev.summary["results"]["court-judges-shuffled"]["calls_per_item"] == 1 + 2 + 3
    assert set(ev.summary["order"]) == {"court-judges-shuffled"}  # the verdict's bench reads in one order
    assert ev.summary["order"]["court-judges-shuffled"]["trials"] == 2
    assert "court-judges-shuffled" in ev.summary["comparisons"]
    assert "Order check" in (ev.folder / "report.md").read_text()


def test_each_arm_of_a_shared_trial_counts_its_own_calls_tokens_and_seconds():
    from datetime import UTC, datetime, timedelta

    from courtroom_chat.records import CallRecord, Usage

    t0 = datetime(2026, 11, 26, tzinfo=UTC)

    def call(n, agent, seconds, tokens, at):
        start = t0 + timedelta(seconds=at)
        return CallRecord(id=n, agent=agent, role="judge", stage="judgment", backend="local", model="m", ok=True,
                          seconds=seconds, usage=Usage(input_tokens=tokens, output_tokens=10), cost_usd=0.0,
                          started_at=start)

    arms = {"court-sequential": {"label": "entailment", "mode": "sequential", "split": "2–1",
                                 "only": ["judge-2-sequential"], "without": ["judge-2"]}}
    record = RunRecord(run_id="r", case=Case(question="q?"), status="complete", duration_ms=10_000,
                       calls=[call(1, "magistrate", 4.0, 100, 0), call(2, "judge-1", 2.0, 50, 4),
                              call(3, "judge-2", 1.5, 50, 6), call(4, "judge-2-sequential", 2.5, 70, 7.5)],
                       outcome=Outcome(answer="Label: not entailment", label="not entailment", data={"arms": arms}))
    court = prediction_from_record(record, ["entailment", "not entailment"])
    assert court.label == "not entailment" and court.calls == 3 and court.input_tokens == 200
    assert court.seconds == pytest.approx(7.5)  # the wall time less the other way's own call
    arm = arm_prediction(court, "court-sequential")
    assert arm.label == "entailment" and arm.calls == 3 and arm.input_tokens == 220
    assert arm.seconds == pytest.approx(8.5) and arm.run_id == "r" and arm.details["split"] == "2–1"


def test_a_failed_trial_fails_its_arm_too_with_the_trials_cost(benchmarks, tmp_path, monkeypatch):
    from courtroom_chat.evaluation import runner
    from courtroom_chat.evaluation.methods import Prediction

    async def failing(*args, **kwargs):
        return Prediction(None, "failed", run_id="r1", error="the judge never answered", calls=7, seconds=3.0)

    monkeypatch.setattr(runner, "run_court", failing)
    settings = Settings().with_backend("scripted").with_params("classification", {"judges": 3, "compare_modes": True})
    ev = evaluate("rte", procedure="classification", baselines=[], limit=1, settings=settings, runs_dir=tmp_path / "runs")
    row = next(r for r in ev.summary["rows"] if r["method"] == "court-sequential")
    assert row["status"] == "failed" and row["error"] == "the judge never answered" and row["calls"] == 7
    assert ev.summary["results"]["court-sequential"]["failed"] == 1


def test_calls_that_ran_beside_others_save_only_the_time_they_ran_alone():
    from datetime import UTC, datetime, timedelta

    from courtroom_chat.evaluation.methods import alone_seconds
    from courtroom_chat.records import CallRecord

    t0 = datetime(2026, 11, 26, tzinfo=UTC)

    def call(n, agent, at, seconds):
        return CallRecord(id=n, agent=agent, role="judge", stage="judgment", backend="local", model="m",
                          started_at=t0 + timedelta(seconds=at), seconds=seconds)

    # three parallel judges from 10 s (ending at 20, 30, 25), then two sequential ones
    record = RunRecord(run_id="r", case=Case(question="q?"), duration_ms=50_000,
                       calls=[call(1, "magistrate", 0, 10), call(2, "judge-1", 10, 10), call(3, "judge-2", 10, 20),
                              call(4, "judge-3", 10, 15), call(5, "judge-2-sequential", 30, 10),
                              call(6, "judge-3-sequential", 40, 10)])
    assert alone_seconds(record, {"judge-2", "judge-3"}) == pytest.approx(10.0)  # 20 to 30: only they ran
    assert alone_seconds(record, {"judge-2-sequential", "judge-3-sequential"}) == pytest.approx(20.0)
    assert alone_seconds(record, set()) == 0.0


def test_reused_calls_are_counted_among_the_calls_the_verdicts_row_counts(benchmarks, tmp_path, monkeypatch):
    """A trial with benches beside its verdict, started from another configuration's (``--reuse``):
    the report said "court: 903 of 501 calls" when the benches' reused calls were counted against
    the verdict's own calls. Now the reused calls are the verdict's own, never more than its calls."""
    import json

    monkeypatch.setenv("COURTROOM_CACHE_DIR", str(tmp_path / "cache"))
    base = {"judges": 3, "precedents": 1, "compare_modes": True, "compare_precedents": True}
    first = evaluate("rte", procedure="classification", baselines=[], limit=2, runs_dir=tmp_path / "runs",
                     settings=Settings().with_backend("scripted").with_params("classification", base))
    again = evaluate("rte", procedure="classification", baselines=[], limit=2, runs_dir=tmp_path / "runs",
                     reuse=first.folder.name, settings=Settings().with_backend("scripted").with_params(
                         "classification", {**base, "compare_shots": "0"}))
    rows = [json.loads(line) for line in (again.folder / "results.jsonl").read_text().splitlines()]
    court = [r for r in rows if r["method"] == "court"]
    assert len(court) == 2 and all(r["details"]["reused_calls"] == r["calls"] == 1 + 2 + 3 for r in court)
    reused = again.summary["reused"]["court"]
    assert reused == {"trials": 2, "calls": 12, "of": 12} and "court: 12 of 12 calls in 2 trials" in again.markdown
