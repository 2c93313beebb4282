"""The report end to end on the scripted backend, the CLI, and ``runs.eval_frame``."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from courtroom_chat import runs
from courtroom_chat.evaluation import evaluate
from courtroom_chat.evaluation.report import compare, confusion_table, method_summary
from courtroom_chat.frontends.eval_cli import eval_command
from courtroom_chat.store import RunStore


def test_report_end_to_end_on_the_scripted_backend(fixtures, runs_dir):
    ev = evaluate(str(fixtures / "adrs.json"), baselines=["single", "majority"], backend="scripted")
    assert ev.folder == runs_dir / "evals" / ev.eval_id
    assert {p.name for p in ev.folder.iterdir()} == {"spec.json", "results.jsonl", "summary.json", "report.md"}
    summary = json.loads((ev.folder / "summary.json").read_text())
    assert summary["methods"] == ["court", "single", "majority"] and summary["items"] == 4
    court = summary["results"]["court"]
    assert court["n"] == 4 and court["true_yes_rate"] == 0.5
    assert sum(sum(row.values()) for row in court["confusion"].values()) == 4
    assert {"evidence", "vote_share"} <= set(court["calibration"])  # "judge" too when the judge ruled
    assert len(court["calibration"]["evidence"]["reliability"]) == 10
    assert set(summary["comparisons"]) == {"single", "majority"}
    store = RunStore(runs_dir)
    for row in summary["rows"]:
        if row["method"] == "court":  # each item links to its stored run
            record = store.load(row["run_id"])
            assert record.status == "complete" and record.case.question.startswith("Should we choose")
    text = (ev.folder / "report.md").read_text()
    assert text == ev.markdown
    for heading in ("| method | accuracy | 95% interval | yes-rate (true 50%)", "## The court against each baseline",
                    "## Confusion", "## Calibration of each confidence", "## Items"):
        assert heading in text
    run_ids = [r["run_id"] for r in summary["rows"] if r["method"] == "court"]
    assert all(f"`{run_id}`" in text for run_id in run_ids)


def test_method_summary_and_comparison_by_hand():
    from courtroom_chat.evaluation.datasets import Dataset

    def row(item, gold, predicted, status="decided", **conf):
        return {"item": item, "gold": gold, "predicted": predicted, "correct": predicted == gold, "status": status,
                "confidences": conf, "cost_usd": 0.01, "calls": 8, "input_tokens": 1000, "output_tokens": 200,
                "seconds": 40.0}

    court = [row("a", "yes", "yes", judge=0.9), row("b", "yes", "no", judge=0.6), row("c", "no", "no", judge=0.8),
             row("d", "no", None, "failed")]
    single = [row("a", "yes", "no"), row("b", "yes", "yes"), row("c", "no", "yes"), row("d", "no", "no")]
    s = method_summary(Dataset(), court)
    assert (s["correct"], s["n"], s["accuracy"], s["failed"], s["undecided_share"]) == (2, 4, 0.5, 1, 0.25)
    assert s["confusion"] == {"yes": {"yes": 1, "no": 1, "undecided": 0}, "no": {"yes": 0, "no": 1, "undecided": 1}}
    assert (s["yes_rate"], s["true_yes_rate"]) == (0.25, 0.5)
    assert (s["cost_per_item"], s["calls_per_item"], s["seconds_per_item"]) == (pytest.approx(0.01), 8, 40)
    judge = s["calibration"]["judge"]
    assert judge["n"] == 3 and judge["brier"] == pytest.approx((0.01 + 0.36 + 0.04) / 3)
    c = compare(court, single)
    assert (c["fixed"], c["broken"], c["both_right"], c["both_wrong"]) == (2, 2, 0, 0)
    assert c["fixed_items"] == ["a", "c"] and c["broken_items"] == ["b", "d"] and c["mcnemar_p"] == 1.0


def test_the_confusion_table_shows_every_count_and_only_the_labels_that_occur_in_a_large_set():
    charges = [f"charge-{n:02d}" for n in range(40)]  # a judgment dataset's charge names
    confusion = {gold: {label: 0 for label in (*charges, "undecided")} for gold in charges}
    confusion["charge-03"]["charge-03"] = 2
    confusion["charge-07"]["charge-03"] = 1
    confusion["charge-07"]["a charge in the model's own words"] = 1  # not a label: its own column
    confusion["charge-09"]["undecided"] = 1
    lines = confusion_table(charges, confusion)
    assert lines[0] == "Only the 3 of the dataset's 40 labels that occur in these items are shown."
    assert "Predicted but not among the dataset's labels: a charge in the model's own words." in lines
    table = [line for line in lines if line.startswith("| ")]
    assert table[0] == "| gold | charge-03 | charge-07 | charge-09 | a charge in the model's own words | undecided |"
    assert table[1:] == ["| charge-03 | 2 | 0 | 0 | 0 | 0 |", "| charge-07 | 1 | 0 | 0 | 1 | 0 |",
                         "| charge-09 | 0 | 0 | 0 | 0 | 1 |"]
    counted = sum(int(cell) for line in table[1:] for cell in line.strip("| ").split(" | ")[1:])
    assert counted == 5  # every item of the three rows, none dropped
    small = confusion_table(["yes", "no"], {"yes": {"yes": 1, "no": 0, "undecided": 0}, "no": {"yes": 0, "no": 0, "undecided": 0}})
    assert small == ["| gold | yes | no | undecided |", "|---|---|---|---|", "| yes | 1 | 0 | 0 |", "| no | 0 | 0 | 0 |"]


def test_eval_frame_loads_every_evaluation(fixtures, runs_dir):
    evaluate(str(fixtures / "adrs.json"), baselines=["single"], backend="scripted", limit=2)
    evaluate(str(fixtures / "adrs.json"), procedure="none", baselines=["majority"], backend="scripted", limit=2, seed=1)
    frame = runs.eval_frame()
    assert len(frame) == 6 and frame["eval_id"].nunique() == 2
    assert set(frame["method"]) == {"court", "single", "majority"} and set(frame["dataset"]) == {"adr"}
    assert {"conf_evidence", "conf_vote_share"} <= set(frame.columns)
    assert frame.loc[frame["method"] == "court", "run_id"].notna().all()
    assert str(frame["correct"].dtype) == "boolean" and str(frame["finished_at"].dtype).startswith("datetime64")
    one = runs.eval_frame(runs_dir, eval_id=frame["eval_id"].iloc[0])
    assert one["eval_id"].nunique() == 1
    assert len(runs.eval_frame(runs_dir / "evals" / one["eval_id"].iloc[0])) == len(one)


def test_eval_frame_of_no_evaluations_is_empty_with_columns(runs_dir):
    frame = runs.eval_frame()
    assert frame.empty and "predicted" in frame.columns


# ---------------------------------------------------------------------- the command


def _cli() -> typer.Typer:
    app = typer.Typer()
    app.command("eval")(eval_command)

    @app.command()
    def other() -> None:  # a group, as in courtroom: ``eval`` is a subcommand
        pass

    return app


def test_cli_runs_prints_the_table_and_resumes(fixtures, runs_dir):
    runner = CliRunner()
    args = ["eval", str(fixtures / "adrs.json"), "--backend", "scripted", "--baseline", "single",
            "--baseline", "majority", "--limit", "2", "--seed", "3", "--runs-dir", str(runs_dir)]
    result = runner.invoke(_cli(), args)
    assert result.exit_code == 0, result.output
    assert "accuracy" in result.stdout and "McNemar" in result.stdout and "report: " in result.stderr
    assert "results in" in result.stderr
    again = runner.invoke(_cli(), args)
    assert again.exit_code == 0 and "2 items already finished; resuming" in again.stderr


@pytest.mark.parametrize("args, message", [
    (["iclr2018"], "unknown dataset 'iclr2018'; use one of iclr2017, adr"),
    (["missing.jsonl"], "dataset file not found: missing.jsonl"),
    (["adr", "--baseline", "triple"], "unknown baseline 'triple'"),
])
def test_cli_bad_input_is_one_line_and_exit_2(args, message):
    result = CliRunner().invoke(_cli(), ["eval", *args, "--backend", "scripted"])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]


def test_cli_malformed_jsonl_names_the_line(tmp_path):
    path = tmp_path / "mine.jsonl"
    path.write_text('{"question": "Ship?", "context": [], "answer": "yes"}\n{oops}\n', encoding="utf-8")
    result = CliRunner().invoke(_cli(), ["eval", str(path), "--backend", "scripted"])
    assert result.exit_code == 2 and f"{path} line 2: not valid JSON" in result.stderr


def _calls(*answers):
    return {"calls": [{"text": json.dumps({"reasoning": "r", "decision": a})} for a in answers]}


def test_per_call_signal_counts_every_baseline_call_by_gold_answer():
    from courtroom_chat.evaluation.report import per_call_signal

    rows = [
        {"item": "a", "method": "single", "framing": "asked", "gold": "yes", "details": _calls("yes")},
        {"item": "b", "method": "single", "framing": "asked", "gold": "no", "details": _calls("yes")},
        {"item": "a", "method": "majority", "framing": "asked", "gold": "yes", "details": _calls("yes", "yes", "yes", "no", "no")},
        {"item": "b", "method": "majority", "framing": "asked", "gold": "no", "details": _calls("yes", "no", "no", "no", "no")},
        {"item": "b", "method": "single", "framing": "mirror", "gold": "yes", "details": _calls("no")},  # not counted
        {"item": "c", "method": "single", "framing": "asked", "gold": "no", "details": _calls("maybe")},  # no answer
    ]
    g = per_call_signal(rows)
    assert g["calls"] == {"yes": 6, "no": 6}
    assert g["yes_on_yes"] == pytest.approx(4 / 6) and g["yes_on_no"] == pytest.approx(2 / 6)
    assert g["gap"] == pytest.approx(2 / 6)
    assert g["true_yes_share"] == pytest.approx(1 / 3)  # items a (yes), b and c (no)
    # one call: 1/3 * 4/6 + 2/3 * 4/6; a majority of five at 2/3 says Yes with chance 192/243
    assert g["expected_single"] == pytest.approx(2 / 3)
    assert g["expected_majority"] == pytest.approx(192 / 243)
    assert per_call_signal([r for r in rows if r["gold"] == "yes"]) is None  # needs both kinds of item


def test_the_report_shows_the_per_call_signal_of_the_baselines(fixtures, runs_dir):
    ev = evaluate(str(fixtures / "adrs.json"), baselines=["single", "majority"], backend="scripted")
    summary = json.loads((ev.folder / "summary.json").read_text())
    signal = summary["signal"]
    assert signal["calls"] == {"yes": 2 * 6, "no": 2 * 6}  # 4 items, half each way: one call and five each
    text = (ev.folder / "report.md").read_text()
    assert "## Per-call signal: does the model see anything in this set?" in text
    assert "Expected accuracy if each call is an independent draw" in text


def test_a_court_row_keeps_its_plain_jurors_answers_for_the_per_call_signal(fixtures, runs_dir):
    """The court's jurors are plain calls: their answers ride in the row, so the per-call
    signal can count them without the runs folder of the machine that ran them."""
    from courtroom_chat.evaluation.report import per_call_signal, row_answers

    ev = evaluate(str(fixtures / "adrs.json"), baselines=[], backend="scripted")
    rows = [json.loads(line) for line in (ev.folder / "results.jsonl").read_text().splitlines()]
    court = [r for r in rows if r["method"] == "court"]
    assert court and all(len(r["details"]["juror_answers"]) == 5 for r in court)
    assert all(a in ("yes", "no") for r in court for a in row_answers(r))
    g = per_call_signal(court)
    assert g["calls"] == {"yes": 2 * 5, "no": 2 * 5}  # 4 items, half each way, five jurors each


async def test_a_repaired_juror_counts_once_in_the_rows_answers():
    from courtroom_chat.backends.scripted import ScriptedBackend
    from courtroom_chat.case import load_case
    from courtroom_chat.config import Settings
    from courtroom_chat.engine import Trial
    from courtroom_chat.evaluation.methods import juror_answers
    from tests.conftest import CASES

    cut = {"reasoning": "All tests pass and two reviewers approved, so we should merge the", "decision": "no",
           "confidence": 0.5}
    whole = {"reasoning": "All tests pass and two reviewers approved, so we should merge it.", "decision": "yes",
             "confidence": 0.8}
    backend = ScriptedBackend(script={"juror-1": [cut, whole]})
    record = await Trial(load_case(CASES / "code-commit.json"), Settings().with_backend("scripted"), store=None,
                         backends={"scripted": backend}).run()
    assert len([c for c in record.calls if c.agent == "juror-1"]) == 2  # the cut reply was sent back once
    answers = juror_answers(record)
    assert len(answers) == 5 and answers[0] == "yes"  # the repair's answer, not both


async def test_a_fragility_checks_second_jury_is_not_read_as_the_trials_jurors():
    """The fragility check's jurors are stored in the same record (stages "fragility:jury"):
    the row's juror answers are the trial's own, not the second jury's."""
    from courtroom_chat.backends.scripted import ScriptedBackend
    from courtroom_chat.case import load_case
    from courtroom_chat.config import Settings
    from courtroom_chat.engine import Trial
    from courtroom_chat.evaluation.methods import juror_answers
    from tests.conftest import CASES

    yes = {"reasoning": "All tests pass and two reviewers approved the fix, so merging it now is right.",
           "decision": "yes", "confidence": 0.8}
    no = {"reasoning": "Without that passage nothing shows the fix was tested, so it should not be merged.",
          "decision": "no", "confidence": 0.7}
    backend = ScriptedBackend(script={f"juror-{i}": [yes, no] for i in range(1, 6)})
    record = await Trial(load_case(CASES / "code-commit.json"), Settings().with_backend("scripted"), store=None,
                         fragility=True, backends={"scripted": backend}).run()
    assert record.outcome.data["fragility"]["split"] == "0–5"  # the second jury said No throughout
    assert len([c for c in record.calls if c.role == "juror"]) == 10
    assert juror_answers(record) == ["yes"] * 5
    assert [c.stage for c in record.trial_calls() if c.role == "juror"] == ["jury"] * 5
