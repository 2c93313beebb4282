"""The order control (court with shuffled against fixed order) and the fragility hold rate,
end to end on the scripted backend, and their bad-input lines."""

from __future__ import annotations

import json

import pytest

from courtroom_chat.errors import InputError
from courtroom_chat.evaluation import evaluate
from courtroom_chat.evaluation.report import fragility_counts, order_counts
from courtroom_chat.store import RunStore


def test_order_control_shuffles_the_labels_of_a_court_that_reads_them_in_one_order(fixtures, runs_dir):
    """The default court lists the answers in one order for every juror; its control shuffles them."""
    ev = evaluate(str(fixtures / "adrs.json"), baselines=["single"], backend="scripted", limit=2, order_control=True)
    summary = json.loads((ev.folder / "summary.json").read_text())
    assert summary["methods"] == ["court", "court-shuffled-order", "single"]
    seeds = {}  # each row of results.jsonl carries its unit's seed
    for line in (ev.folder / "results.jsonl").read_text().splitlines():
        row = json.loads(line)
        seeds.setdefault(row["item"], {})[row["method"]] = row["seed"]
    orders = {}
    for row in summary["rows"]:
        if row["method"].startswith("court"):
            record = RunStore(runs_dir).load(row["run_id"])
            shuffled = row["method"] == "court-shuffled-order"
            assert record.settings["procedures"]["decision"]["shuffle_labels"] is shuffled
            assert record.seed == seeds[row["item"]][row["method"]]
            orders.setdefault(row["method"], []).append({a: tuple(o["labels"]) for a, o in record.outputs["orders"].items()})
    # the control is paired: the same trial seed (so the same sampling seeds) as the court's, only
    # the order differs; the one call draws its own
    assert all(s["court"] == s["court-shuffled-order"] != s["single"] for s in seeds.values()) and len(seeds) == 2
    assert all(len(set(labels.values())) == 1 for labels in orders["court"])
    assert any(len(set(labels.values())) > 1 for labels in orders["court-shuffled-order"])
    assert "court-shuffled-order" in summary["comparisons"] and "| court-shuffled-order |" in ev.markdown
    checked = summary["order"]  # the order check runs on the shuffled arm only: one order has nothing to test
    assert list(checked) == ["court-shuffled-order"] and checked["court-shuffled-order"]["trials"] == 2
    assert "## Order check: did the votes follow the order the labels were listed in?" in ev.markdown


def test_order_control_runs_the_court_again_with_every_agent_in_one_order(fixtures, runs_dir):
    from courtroom_chat.config import Settings

    shuffling = Settings().with_backend("scripted").with_params("decision", {"shuffle_labels": True})
    ev = evaluate(str(fixtures / "adrs.json"), baselines=["single"], limit=2, order_control=True, settings=shuffling)
    summary = json.loads((ev.folder / "summary.json").read_text())
    assert summary["methods"] == ["court", "court-fixed-order", "single"]
    store = RunStore(runs_dir)
    orders = {}
    for row in summary["rows"]:
        if row["method"].startswith("court"):
            record = store.load(row["run_id"])
            params = record.settings["procedures"]["decision"]
            fixed = row["method"] == "court-fixed-order"
            assert (params["shuffle_labels"], params["shuffle_exhibits"]) == ((False, False) if fixed else (True, False))
            labels = {agent: o["labels"] for agent, o in record.outputs["orders"].items()}
            orders.setdefault(row["method"], []).append(labels)
    # fixed: every juror reads the labels in the same order; shuffled: at least one reads another
    assert all(len({tuple(v) for v in labels.values()}) == 1 for labels in orders["court-fixed-order"])
    assert any(len({tuple(v) for v in labels.values()}) > 1 for labels in orders["court"])
    # the report compares yes-rate and accuracy of both, and the court item by item with the control
    assert "court-fixed-order" in summary["comparisons"]
    assert "| court-fixed-order |" in ev.markdown


def test_fragility_reports_the_share_of_verdicts_that_hold(fixtures, runs_dir):
    ev = evaluate(str(fixtures / "adrs.json"), baselines=[], backend="scripted", limit=2, fragility=True)
    summary = json.loads((ev.folder / "summary.json").read_text())
    counts = summary["fragility"]["court"]
    assert counts["trials"] == 2 and counts["held"] + counts["turned"] + counts["not_run"] == 2
    assert "## Fragility: decided again without the most-cited evidence" in ev.markdown
    assert "| where it turned | held on order-driven trials |" in ev.markdown
    assert counts["held_order_driven"] == 0  # the court's jurors read one order: no order check to hold by
    for row in summary["rows"]:
        record = RunStore(runs_dir).load(row["run_id"])
        assert "fragility" in record.outcome.data  # each stored run carries its own finding


def test_fragility_asked_later_tries_the_earlier_trials_again_with_the_check(fixtures, runs_dir):
    """An evaluation resumed with --fragility does not keep trials decided without it (whose
    rows say nothing of fragility): the report covers every trial."""
    plain = evaluate(str(fixtures / "adrs.json"), baselines=["single"], backend="scripted", limit=2)
    first = {r["item"]: r["run_id"] for r in json.loads((plain.folder / "summary.json").read_text())["rows"]
             if r["method"] == "court"}
    checked = evaluate(str(fixtures / "adrs.json"), baselines=["single"], backend="scripted", limit=2, fragility=True)
    assert checked.folder == plain.folder  # the same evaluation, resumed
    summary = json.loads((checked.folder / "summary.json").read_text())
    assert summary["fragility"]["court"]["trials"] == 2
    court = {r["item"]: r["run_id"] for r in summary["rows"] if r["method"] == "court"}
    assert court.keys() == first.keys() and all(court[i] != first[i] for i in court)  # tried again
    again = evaluate(str(fixtures / "adrs.json"), baselines=["single"], backend="scripted", limit=2, fragility=True)
    assert {r["item"]: r["run_id"] for r in json.loads((again.folder / "summary.json").read_text())["rows"]
            if r["method"] == "court"} == court  # once checked, kept


def test_fragility_counts_by_hand():
    def row(held, correct):
        return {"correct": correct, "details": {"fragility": {"held": held}}}

    rows = [row(True, True), row(True, False), row(False, False), row(None, True), {"correct": True, "details": {}}]
    c = fragility_counts(rows)
    assert (c["trials"], c["held"], c["turned"], c["not_run"]) == (4, 2, 1, 1)
    assert c["hold_rate"] == pytest.approx(2 / 3) and c["accuracy_held"] == 0.5 and c["accuracy_turned"] == 0.0
    assert c["held_order_driven"] == 0


def test_fragility_counts_the_holds_of_order_driven_trials_apart():
    """The check keeps each member's order of the labels, so a trial whose votes followed that
    order holds whatever is withheld: counted apart (the report's last fragility column)."""
    def row(held, p):
        order = {"followed": 9, "voters": 9, "chance": 0.5, "p": p, "who": "justices"}
        return {"correct": True, "details": {"fragility": {"held": held}, "order": order}}

    rows = [row(True, 0.002), row(True, 0.5), row(False, 0.002), row(True, 0.0195),
            {"correct": True, "details": {"fragility": {"held": True}}}]
    c = fragility_counts(rows)
    assert (c["held"], c["turned"], c["held_order_driven"]) == (4, 1, 2)


def test_order_counts_by_hand():
    def row(followed, voters, p, correct, chance=0.5):
        return {"correct": correct, "details": {"order": {"followed": followed, "voters": voters, "p": p,
                                                          "chance": chance, "who": "justices"}}}

    rows = [row(9, 9, 0.002, True), row(8, 9, 0.0195, False), row(4, 9, 0.746, True), row(2, 3, 0.26, False, 1 / 3),
            {"correct": True, "details": {}}]
    c = order_counts(rows)
    assert (c["trials"], c["votes"], c["followed"], c["driven"]) == (4, 30, 23, 2)
    assert c["chance"] == pytest.approx((0.5 * 27 + 1 / 3 * 3) / 30)
    assert c["accuracy_driven"] == 0.5 and c["accuracy_rest"] == 0.5


@pytest.mark.parametrize("options, message", [
    ({"procedure": "none", "baselines": ["single"], "order_control": True}, "--order-control compares the court"),
    ({"procedure": "none", "baselines": ["single"], "fragility": True}, "--fragility decides court trials again"),
])
def test_controls_without_a_court_are_refused_in_one_line(fixtures, options, message):
    with pytest.raises(InputError, match=message):
        evaluate(str(fixtures / "adrs.json"), backend="scripted", **options)


def test_order_control_is_refused_for_a_procedure_without_order_controls(fixtures):
    from courtroom_chat.procedures import register, unregister
    from tests.toy_procedure import INFO

    register(INFO)
    try:
        with pytest.raises(InputError, match="procedure justices has no order controls"):
            evaluate(str(fixtures / "adrs.json"), procedure="justices", backend="scripted", order_control=True)
    finally:
        unregister("justices")


def test_each_court_trial_is_seeded_by_its_item_so_its_draws_repeat(fixtures, runs_dir):
    from courtroom_chat.config import Settings

    shuffling = Settings().with_backend("scripted").with_params("decision", {"shuffle_labels": True})
    ev = evaluate(str(fixtures / "adrs.json"), baselines=[], limit=2, settings=shuffling)
    rows = [json.loads(line) for line in (ev.folder / "results.jsonl").read_text().splitlines()]
    store = RunStore(runs_dir)
    first = {}
    for row in rows:
        record = store.load(row["run_id"])
        assert record.seed == row["seed"]
        first[row["item"]] = record.outputs["orders"]
    again = evaluate(str(fixtures / "adrs.json"), baselines=[], limit=2, settings=shuffling,
                     runs_dir=runs_dir / "again")
    for row in (json.loads(line) for line in (again.folder / "results.jsonl").read_text().splitlines()):
        assert RunStore(runs_dir / "again").load(row["run_id"]).outputs["orders"] == first[row["item"]]


def test_the_supreme_courts_order_control_runs_it_again_with_the_verdicts_in_one_order(runs_dir):
    from pathlib import Path

    clear = Path(__file__).parents[2] / "bench" / "supreme" / "clear.jsonl"
    ev = evaluate(str(clear), procedure="supreme", baselines=["single"], backend="scripted", limit=1, order_control=True)
    summary = json.loads((ev.folder / "summary.json").read_text())
    assert summary["methods"] == ["court", "court-fixed-order", "single"]
    store = RunStore(runs_dir)
    court = store.load(next(r for r in summary["rows"] if r["method"] == "court")["run_id"])
    fixed = store.load(next(r for r in summary["rows"] if r["method"] == "court-fixed-order")["run_id"])
    assert court.settings["procedures"]["supreme"]["shuffle_labels"] is True
    assert len({tuple(o["labels"]) for o in court.outputs["orders"].values()}) == 2
    assert fixed.settings["procedures"]["supreme"]["shuffle_labels"] is False and "orders" not in fixed.outputs


@pytest.mark.parametrize(("dataset", "procedure", "message"), [
    ("adr", "criminal", "--procedure criminal is scored on judgments (charges and sentences), and dataset adr has "
                        "yes/no answers; evaluate it with --procedure decision or --procedure classification"),
    ("simcourt_ljp", "decision", "dataset simcourt_ljp has judgments (charges and sentences); evaluate it with "
                                 "--procedure criminal"),
    ("rte", "supreme", "dataset rte has labels (entailment, not entailment); evaluate it with --procedure classification"),
    ("boolq", "decision", "dataset boolq has labels (yes, no); evaluate it with --procedure classification"),
])
def test_a_procedure_is_not_scored_on_answers_its_verdicts_do_not_have(dataset, procedure, message, tmp_path):
    """A criminal judgment scored against an ADR decision's yes/no (or a yes/no against a sentence)
    would print an accuracy that means nothing: refused in one line before anything runs."""
    from typer.testing import CliRunner

    from courtroom_chat.frontends.cli import app

    result = CliRunner().invoke(app, ["eval", dataset, "--procedure", procedure, "--limit", "1", "-b", "scripted",
                                      "--runs-dir", str(tmp_path)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert message in result.output and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "evals").exists()
