"""courtroom_chat.runs: stored runs as DataFrames and plots (drawn with Agg)."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from notebook_helpers import ESSAY, ROOT

import courtroom_chat
from courtroom_chat import runs
from courtroom_chat.backends.scripted import ScriptedBackend
from courtroom_chat.errors import InputError

CASES = [ESSAY, ROOT / "cases" / "code-commit.json", ROOT / "cases" / "architecture.json"]
SHORT_REASONING = {"reasoning": "Too short.", "vote": "abstain"}  # a plain juror may not abstain: asked again
FULL_REASONING = {"reasoning": " ".join(["The verified exhibits show the change is tested and reviewed."] * 6),
                  "vote": "act"}


@pytest.fixture
def made(store):
    """Three complete runs (one with a repaired juror), one failed run and feedback on the first."""
    repairing = ScriptedBackend(script={"juror-2": [SHORT_REASONING, FULL_REASONING]})
    records = [courtroom_chat.run_sync(str(CASES[0]), backend="scripted"),
               courtroom_chat.run_sync(str(CASES[1]), backend="scripted", backends={"scripted": repairing}),
               courtroom_chat.run_sync(str(CASES[2]), backend="scripted")]
    failing = ScriptedBackend(script={"judge": {"$error": "boom"}})
    try:
        courtroom_chat.run_sync(str(ESSAY), backend="scripted", backends={"scripted": failing})
    except courtroom_chat.CourtroomError as exc:
        records.append(exc.record)
    store.set_feedback(records[0].run_id, "up", "it went well")
    return [store.load(r.run_id) for r in records]


def test_runs_frame_has_one_row_per_run(made, store):
    df = runs.runs_frame(store.root)
    assert list(df["run_id"]) == [r.run_id for r in sorted(made, key=lambda r: r.started_at)]
    assert str(df["started_at"].dtype) .startswith("datetime64") and df["started_at"].is_monotonic_increasing
    by_id = df.set_index("run_id")
    for r in made:
        row = by_id.loc[r.run_id]
        assert row["question"] == r.case.question and row["status"] == r.status
        assert row["cost_usd"] == r.cost_usd and row["duration_s"] == r.duration_ms / 1000
        assert row["backend"] == "scripted" and row["calls"] == len(r.calls)
        if r.verdict:
            assert row["verdict"] == r.verdict.decision and row["answer"] == r.verdict.answer
            assert row["confidence"] == r.verdict.confidence
            assert row["evidence_confidence"] == r.verdict.evidence_confidence
            assert row["split"] == r.jury.split()
            assert (row["guilty"], row["not_guilty"], row["seated"]) == (r.jury.guilty_count, r.jury.not_guilty_count, 5)
    failed = by_id.loc[made[3].run_id]
    assert failed["status"] == "failed" and pd.isna(failed["verdict"]) and math.isnan(failed["confidence"])
    assert failed["error"] == "scripted failure for judge: boom"
    assert failed["split"] == made[3].jury.split()  # the jury voted before the judge failed
    assert by_id.loc[made[0].run_id, "feedback"] == "up"
    assert by_id.loc[made[0].run_id, "feedback_comment"] == "it went well"
    assert pd.isna(by_id.loc[made[1].run_id, "feedback"])


def test_default_source_is_the_runs_dir_in_effect(made):
    assert set(runs.runs_frame()["run_id"]) == {r.run_id for r in made}
    assert len(runs.runs_frame(made[:2])) == 2 and len(runs.runs_frame(made[0])) == 1
    assert len(runs.runs_frame(limit=2)) == 2


def test_calls_frame_has_one_row_per_call(made):
    calls = runs.calls_frame(made)
    assert len(calls) == sum(len(r.calls) for r in made)
    first = calls[calls["run_id"] == made[0].run_id]
    assert list(first["agent"]) == ["prosecutor", "defense", *[f"juror-{n}" for n in range(1, 6)], "judge"]
    assert list(first["juror"].dropna()) == [1, 2, 3, 4, 5] and first["juror"].isna().sum() == 3
    assert list(first["temperature"]) == [0.4, 0.4, 0.2, 0.35, 0.5, 0.65, 0.8, 0.2]
    for call, (_, row) in zip(made[0].calls, first.iterrows(), strict=True):
        assert row["input_tokens"] == call.usage.prompt_tokens and row["output_tokens"] == call.usage.output_tokens
        assert row["tokens"] == row["input_tokens"] + row["output_tokens"] and row["seconds"] == call.seconds
        assert row["model"] == "scripted" and row["role"] == call.role and row["cost_usd"] == 0.0
    assert set(first["outcome"]) == {"valid"}
    juror2 = calls[(calls["run_id"] == made[1].run_id) & (calls["agent"] == "juror-2")]
    assert list(juror2["attempt"]) == [1, 2]
    assert list(juror2["outcome"]) == ["broke rules", "repaired"]
    assert juror2["problems"].iloc[0] == 'the vote "abstain" is none of "yes", "no"; vote with one of them'
    judge = calls[(calls["run_id"] == made[3].run_id) & (calls["role"] == "judge")]
    assert list(judge["outcome"]) == ["failed"] and list(judge["error"]) == ["scripted failure for judge: boom"]


def test_prompts_frame_compares_dry_runs_across_models():
    plans = [courtroom_chat.run_sync(str(ESSAY), backend=m, dry_run=True)
             for m in ("anthropic:claude-sonnet-4-6", "anthropic:claude-haiku-4-5", "local")]
    frame = runs.prompts_frame(plans)
    # eight prompts a run, and on Claude first the evidence screener's second opinion on each of three documents
    assert len(frame) == 30 and set(frame["model"]) == {"anthropic:claude-sonnet-4-6", "anthropic:claude-haiku-4-5",
                                                         "local:qwen2.5-coder-1.5b"}
    assert set(frame[frame["agent"].str.startswith("screener-")]["model"]) == {"anthropic:claude-sonnet-4-6", "anthropic:claude-haiku-4-5"}
    cost = frame.groupby("model")["cost_usd"].sum()
    assert cost["anthropic:claude-haiku-4-5"] < cost["anthropic:claude-sonnet-4-6"]
    assert cost["local:qwen2.5-coder-1.5b"] == 0
    assert frame[frame["model"].str.startswith("anthropic")]["temperature"].isna().all()  # no temperature sent
    # the prompts are the same bytes whatever the model: the estimates differ in price only
    assert frame.groupby("agent")["prompt_chars"].nunique().eq(1).all()


def test_loading_skips_a_damaged_run_with_a_warning(made, store):
    store.path_for(made[2].run_id).write_text("{ not json")
    with pytest.warns(UserWarning, match=f"skipped run {made[2].run_id}: run file .* is damaged"):
        df = runs.runs_frame(store)
    assert made[2].run_id not in set(df["run_id"]) and len(df) == 3


def test_sources_that_are_not_runs_are_one_line_errors(tmp_path):
    with pytest.raises(InputError, match="no runs directory at .*nowhere; give the directory that holds index.sqlite"):
        runs.runs_frame(tmp_path / "nowhere")
    with pytest.raises(InputError, match="expected run records, got dict"):
        runs.runs_frame([{"run_id": "x"}])
    empty = runs.runs_frame(tmp_path)
    assert empty.empty and "evidence_confidence" in empty.columns


def test_vote_split_plot(made):
    record = made[0]
    ax = runs.plot_vote_split(record)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["act", "do not act", "abstain", "failed"]
    assert [p.get_height() for p in ax.patches] == [record.jury.guilty_count, record.jury.not_guilty_count, 0, 0]
    assert ax.lines[0].get_ydata()[0] == record.jury.threshold
    assert ax.get_title() == f"Jury {record.jury.split()} · run {record.run_id}"
    assert runs.plot_vote_split(record.run_id).patches[0].get_height() == record.jury.guilty_count


def test_vote_split_of_a_run_without_a_jury_says_why(store):
    failing = ScriptedBackend(script={"prosecutor": {"$error": "down"}})
    with pytest.raises(courtroom_chat.CourtroomError) as info:
        courtroom_chat.run_sync(str(ESSAY), backend="scripted", backends={"scripted": failing})
    with pytest.raises(InputError, match="has no jury vote \\(status failed\\)"):
        runs.plot_vote_split(info.value.record)


def test_cost_and_time_by_role_plot(made):
    calls = runs.calls_frame(made)
    cost_ax, time_ax = runs.plot_cost_time_by_role(calls)
    assert [t.get_text() for t in time_ax.get_xticklabels()] == ["prosecutor", "defense", "juror", "judge"]
    seconds = calls.groupby("role")["seconds"].sum()
    heights = [p.get_height() for p in time_ax.patches]
    assert heights == pytest.approx([seconds[r] for r in ("prosecutor", "defense", "juror", "judge")])
    assert [p.get_height() for p in cost_ax.patches] == [0.0] * 4
    assert cost_ax.get_ylim()[1] > 0
    with pytest.raises(InputError, match="no model calls to plot"):
        runs.plot_cost_time_by_role(calls.iloc[0:0])


def test_confidence_and_verdicts_over_time_plots(made):
    df = runs.runs_frame(made)
    ax = runs.plot_confidence(df)
    points = sorted(tuple(map(tuple, c.get_offsets())) for c in ax.collections)
    with_verdict = df.dropna(subset=["confidence"])
    assert sorted(sum(points, ())) == sorted(zip(with_verdict["evidence_confidence"], with_verdict["confidence"], strict=True))
    assert ax.get_title() == "Confidence in 3 runs"
    ax = runs.plot_verdicts_over_time(made)
    labels = {line.get_label(): list(line.get_ydata()) for line in ax.lines}
    counts = df["verdict"].value_counts(dropna=False)
    assert labels["no verdict"] == [1]
    for decision, label in (("guilty", "act"), ("not_guilty", "do not act")):
        if decision in counts:
            assert labels[label] == list(range(1, counts[decision] + 1))
