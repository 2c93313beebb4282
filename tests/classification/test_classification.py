"""The classification court on the scripted backend: hearing, the seeded draw of sides, the
bench in parallel and in sequence, precedents, and the cases it refuses."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from courtroom_chat.backends.scripted import ScriptedBackend
from courtroom_chat.case import Case, pasted_document
from courtroom_chat.config import Settings
from courtroom_chat.engine import Trial
from courtroom_chat.errors import CaseError, ConfigError
from courtroom_chat.frontends.cli import app
from courtroom_chat.procedures.classification.labels import case_labels, labels_from_question
from courtroom_chat.store import RunStore

EMOTIONS = "Which emotion does the text express: sadness, joy, love, anger, fear or surprise?"
TEXT = "I waited two hours and nobody called back. I am furious about how they treated us."


def case(question: str = EMOTIONS, text: str = TEXT, **inputs) -> Case:
    return Case(question=question, context=[pasted_document(text)] if text else [], procedure="classification",
                inputs=inputs)


def settings(**params) -> Settings:
    return Settings().with_backend("scripted").with_params("classification", params)


async def trial(c: Case, s: Settings, script: dict | None = None, seed: int | None = None):
    backends = {"scripted": ScriptedBackend(script=script)} if script else None
    return await Trial(c, s, store=None, backends=backends, seed=seed).run()


def judge(label: str, confidence: float = 0.8) -> dict:
    return {"reasoning": f"The text reads as {label}.", "label": label, "confidence": confidence}


@pytest.mark.parametrize(("question", "labels"), [
    (EMOTIONS, ["sadness", "joy", "love", "anger", "fear", "surprise"]),
    ("Labels: entailment, not entailment. Does the premise entail the hypothesis?", ["entailment", "not entailment"]),
    ("Is this review positive or negative?", ["positive", "negative"]),
    ("Is this positive or negative?", ["positive", "negative"]),
    ("Is it raining?", []),
    ("Classify the ticket: bug / feature / question?", ["bug", "feature", "question"]),
])
def test_labels_are_read_from_the_question(question, labels):
    assert labels_from_question(question) == labels


def test_labels_from_inputs_win_and_a_yes_no_question_is_yes_or_no():
    assert case_labels(case(labels=["joy", "anger"])) == ["joy", "anger"]
    assert case_labels(case("Should we merge this commit?")) == ["yes", "no"]


@pytest.mark.parametrize(("c", "message"), [
    (case("Labels: joy. Which fits?"), "two or more candidate labels, got one ('joy')"),
    (case(labels=["joy", "Joy"]), "got one ('Joy')"),
    (case("Which emotion fits: joy?"), "got one ('joy')"),
    (case("What do you make of this?"), "got none"),
    (case(text=""), "the text to classify is empty"),
    (case(text="   \n  "), "the text to classify is empty"),
])
async def test_one_label_or_an_empty_text_is_refused_in_one_line(c, message):
    with pytest.raises(CaseError, match=re.escape(message)) as err:
        await trial(c, settings())
    assert "\n" not in str(err.value)


def test_the_cli_refuses_them_with_exit_2_and_no_traceback(tmp_path, runs_dir):
    text = tmp_path / "text.txt"
    text.write_text(TEXT)
    result = CliRunner().invoke(app, ["run", "-q", "Labels: joy. Which fits?", "-c", str(text), "-b", "scripted",
                                      "-p", "classification"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "two or more candidate labels" in result.output


async def test_the_hearing_proposes_its_top_two_and_the_counsels_argue_them():
    script = {"magistrate": {"reasoning": "Furious is anger; waiting could be sadness.", "top": "Anger",
                             "alternative": "sadness"}}
    record = await trial(case(), settings(), script)
    assert record.outputs["hearing"] == {"first": "anger", "second": "sadness",
                                         "labels": ["sadness", "joy", "love", "anger", "fear", "surprise"]}
    assert {record.outputs["prosecutor"]["label"], record.outputs["attorney"]["label"]} == {"anger", "sadness"}
    quotes = record.outputs["prosecutor"]["quotes"] + record.outputs["attorney"]["quotes"]
    assert quotes and all(q["verified"] and q["location"].startswith("pasted-1.txt:") for q in quotes)
    assert record.outcome.label in ("anger", "sadness") and record.outcome.polarity is None


async def test_with_two_labels_the_alternative_is_the_other_one():
    script = {"magistrate": {"reasoning": "Plainly positive.", "top": "positive", "alternative": "positive"}}
    record = await trial(case("Is this review positive or negative?", "Great food, lovely staff."), settings(), script)
    assert record.outputs["hearing"]["second"] == "negative"


async def test_sides_are_drawn_by_the_seed_and_recorded():
    draws = [(await trial(case(), settings(judges=1), seed=s)).outputs["sides"] for s in range(40)]
    first_to_prosecutor = sum(d["prosecutor_has_first"] for d in draws)
    assert 10 <= first_to_prosecutor <= 30  # a fair coin over 40 seeds
    assert all(d["prosecutor"] != d["attorney"] and d["seed"] == s for s, d in enumerate(draws))
    again = (await trial(case(), settings(judges=1), seed=7)).outputs["sides"]
    assert again == draws[7]
    for seed in (draws.index(next(d for d in draws if d["prosecutor_has_first"])),
                 draws.index(next(d for d in draws if not d["prosecutor_has_first"]))):
        backend = ScriptedBackend()
        record = await Trial(case(), settings(judges=1), store=None, backends={"scripted": backend}, seed=seed).run()
        hearing, sides = record.outputs["hearing"], record.outputs["sides"]
        assert sides["prosecutor"] == (hearing["first"] if sides["prosecutor_has_first"] else hearing["second"])
        for counsel in ("prosecutor", "attorney"):  # each argues the label it drew, and is told so
            [asked] = [r for r in backend.calls if r.agent == counsel]
            assert asked.inputs["label"] == sides[counsel] and f"{sides[counsel]}" in asked.prompt, counsel


async def test_a_quote_not_in_the_text_is_kept_from_the_judges():
    script = {"prosecutor": [{"argument": "It is sadness.", "quotes": ["I cried all night long"]}] * 2}
    record = await trial(case(), settings(judges=1), script)
    [quote] = record.outputs["prosecutor"]["quotes"]
    assert not quote["verified"] and any(w.rule == "quote_unverified" for w in record.warnings)
    judge_prompt = next(c for c in record.calls if c.agent == "judge-1").messages[-1]["content"]
    assert "I cried all night long" not in judge_prompt and "It is sadness." in judge_prompt


async def test_an_argument_over_its_word_limit_is_sent_back():
    """max_argument_words is in each counsel's prompt; an argument past half again as many words
    is asked for once more, shorter, and the shorter one is what the judges read."""
    long = {"argument": " ".join(["The writer is plainly angry about the wait."] * 10), "quotes": [TEXT.split(". ")[1]]}
    short = {"argument": "The writer is furious about how they were treated.", "quotes": [TEXT.split(". ")[1]]}
    record = await trial(case(), settings(judges=1, max_argument_words=30), {"prosecutor": [long, short]})
    first, second = [c for c in record.calls if c.agent == "prosecutor"]
    assert "30 words" in first.messages[-1]["content"]
    assert any("the argument has 80 words; argue in at most 30" in p for p in first.problems)
    assert not second.problems and record.outputs["prosecutor"]["argument"] == short["argument"]


async def test_parallel_the_majority_decides():
    script = {"magistrate": {"reasoning": "r", "top": "anger", "alternative": "sadness"},
              "judge-1": judge("sadness"), "judge-2": judge("anger"), "judge-3": judge("sadness", 0.6)}
    record = await trial(case(), settings(judges=3, mode="parallel"), script)
    assert record.outcome.label == "sadness" and record.outcome.data["votes"] == {"anger": 1, "sadness": 2}
    assert record.outcome.confidence("vote_share") == pytest.approx(2 / 3)
    assert record.outcome.confidence("self_reported") == pytest.approx(0.7)
    assert not record.outcome.data["tie"]


async def test_parallel_a_tie_goes_to_the_hearings_first_label_and_is_recorded():
    script = {"magistrate": {"reasoning": "r", "top": "anger", "alternative": "sadness"},
              "judge-1": judge("sadness"), "judge-2": judge("anger")}
    record = await trial(case(), settings(judges=2, mode="parallel"), script)
    assert record.outcome.label == "anger" and record.outcome.data["tie"] is True
    assert record.outputs["decision"]["tie"] is True
    assert any(w.rule == "tie" and "anger" in w.message for w in record.warnings)


async def test_sequential_each_judge_sees_the_previous_decision_and_the_last_decides():
    script = {"magistrate": {"reasoning": "r", "top": "anger", "alternative": "sadness"},
              "judge-1": judge("anger"), "judge-2": {"reasoning": "Waiting for hours is sad, not angry.",
                                                     "label": "sadness", "confidence": 0.55},
              "judge-3": judge("sadness", 0.65)}
    record = await trial(case(), settings(judges=3, mode="sequential"), script)
    prompts = {c.agent: c.messages[-1]["content"] for c in record.calls if c.agent.startswith("judge")}
    assert "PREVIOUS JUDGE" not in prompts["judge-1"]
    assert 'THE PREVIOUS JUDGE (judge 1) decided "anger"' in prompts["judge-2"]
    assert 'THE PREVIOUS JUDGE (judge 2) decided "sadness"' in prompts["judge-3"]
    assert "Waiting for hours is sad, not angry." in prompts["judge-3"]
    assert record.outcome.label == "sadness" and record.outcome.decided_by == "the last judge"


async def test_each_judge_may_sit_on_another_model():
    record = await trial(case(), settings(judges=3, judge_models="scripted:a, scripted:b"))
    models = [record.outputs[f"judge-{n}"]["model"] for n in (1, 2, 3)]
    assert models == ["scripted:a", "scripted:b", "scripted:a"]


def test_more_judge_models_than_judges_is_one_line_not_models_left_unseated():
    """Five models for three judges seated the first three and never said the last two sat nowhere."""
    with pytest.raises(ConfigError, match=re.escape("judge_models names 5 models for judges = 3; name one a judge")):
        settings(judges=3, judge_models="scripted:a, scripted:b, scripted:c, scripted:d, scripted:e")
    assert settings(judges=5, judge_models="scripted:a, scripted:b, scripted:c, scripted:d, scripted:e")


POOL = [
    {"text": "They kept me on hold for an hour and then hung up. I am so angry.", "label": "anger",
     "reason": "hostility at being mistreated."},
    {"text": "My dog died this morning and the house feels empty.", "label": "sadness", "reason": "grief."},
    {"text": "We won the final and I cannot stop smiling!", "label": "joy", "reason": "delight."},
]


@pytest.mark.parametrize("choice", ["similar", "random"])
async def test_judges_see_precedents_from_the_pool(choice, tmp_path, monkeypatch):
    monkeypatch.setenv("COURTROOM_CACHE_DIR", str(tmp_path))
    record = await trial(case(pool=POOL), settings(judges=1, precedents=1, precedent_choice=choice), seed=3)
    [shown] = record.outputs["precedents"]
    prompt = next(c for c in record.calls if c.agent == "judge-1").messages[-1]["content"]
    assert "PRECEDENTS" in prompt and f"was labelled {shown['label']}. Reason: {shown['reason']}" in prompt
    if choice == "similar":
        assert shown["label"] == "anger" and shown["score"] > 0.3
    assert "PRECEDENTS" not in next(c for c in record.calls if c.agent == "prosecutor").messages[-1]["content"]


async def test_a_pool_never_gives_the_text_on_trial_as_its_own_precedent(tmp_path, monkeypatch):
    monkeypatch.setenv("COURTROOM_CACHE_DIR", str(tmp_path))
    pool = [*POOL, {"text": TEXT, "label": "anger", "reason": "the same text"}]
    record = await trial(case(pool=pool), settings(judges=1, precedents=3, retrieval="bm25"))
    assert TEXT not in [p["text"] for p in record.outputs["precedents"]] and len(record.outputs["precedents"]) == 3



def test_labels_given_as_a_json_list_as_courtroom_procedures_shows_them(tmp_path, runs_dir):
    from courtroom_chat.procedures import get

    shown = re.search(r"\[.*?\]", get("classification").inputs["labels"]).group(0)  # its example: ["joy", "anger"]
    assert case_labels(case(labels=shown)) == ["joy", "anger"]
    assert case_labels(case(labels='["joy","anger"]')) == case_labels(case(labels="joy, anger")) == ["joy", "anger"]
    with pytest.raises(CaseError, match=re.escape("got one ('joy')")):
        case_labels(case(labels='["joy"]'))
    with pytest.raises(CaseError, match=re.escape("""inputs.labels '["joy", anger]' is not a valid JSON list""")):
        case_labels(case(labels='["joy", anger]'))
    text = tmp_path / "text.txt"
    text.write_text(TEXT)
    result = CliRunner().invoke(app, ["run", "-q", "Which emotion fits?", "-c", str(text), "-b", "scripted", "-p",
                                      "classification", "-i", f"labels={shown}", "--dry-run"])
    assert result.exit_code == 0 and 'The candidate labels: "joy", "anger".' in result.output
    assert '"[joy"' not in result.output and "anger]" not in result.output


def pool_file(tmp_path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


@pytest.mark.parametrize(("given", "message"), [
    (lambda d: {"pool_seed": "abc"}, "inputs.pool_seed must be a whole number (the seed a dataset's pool is drawn "
                                     "with), got 'abc'"),
    (lambda d: {"pool": pool_file(d, "p.bin", bytes(range(256)))}, "p.bin looks like a binary file"),
    (lambda d: {"pool": pool_file(d, "p.jsonl", '{"text": "café", "label": "joy"}'.encode("latin-1"))},
     "p.jsonl is not UTF-8 text (invalid byte at position 13)"),
    (lambda d: {"pool": str(d / "missing.jsonl")}, "missing.jsonl not found"),
    (lambda d: {"pool": str(d)}, "is a folder, not a file"),
    (lambda d: {"pool": pool_file(d, "p.jsonl", b'{"text": "t", "label": "joy"}\nnot json\n')},
     "p.jsonl line 2: not valid JSON"),
    (lambda d: {"pool": pool_file(d, "p.jsonl", b'{"text": "t"}\n')}, "p.jsonl line 1: a precedent needs"),
    (lambda d: {"pool": pool_file(d, "p.jsonl", b"\n\n")}, "p.jsonl holds no examples"),
    (lambda d: {"pool": 7}, "inputs.pool must be a dataset name, the path of a JSONL file or a list"),
])
@pytest.mark.parametrize("precedents", [0, 1])
async def test_a_bad_pool_or_seed_is_refused_in_one_line_before_any_model_call(given, message, precedents, tmp_path):
    for dry_run in (True, False):
        backend = ScriptedBackend()
        with pytest.raises(CaseError, match=re.escape(message)) as err:
            await Trial(case(**given(tmp_path)), settings(judges=1, precedents=precedents), store=None,
                        backends={"scripted": backend}, dry_run=dry_run).run()
        assert "\n" not in str(err.value) and backend.calls == []


async def test_a_bad_configured_pool_is_refused_before_the_hearing_a_dry_run_too(tmp_path):
    missing = tmp_path / "pool.jsonl"
    for dry_run in (True, False):
        backend, events = ScriptedBackend(), []
        with pytest.raises(CaseError, match=re.escape(f"precedent pool {missing} not found")):  # when the case is taken
            await Trial(case(), settings(judges=1, precedents=1, precedent_pool=str(missing)), store=None,
                        backends={"scripted": backend}, dry_run=dry_run).run(events.append)
        assert backend.calls == [] and not [e for e in events if e.type == "prompt_planned"]


@pytest.mark.parametrize("pool", ["missing", "reviews"])
def test_a_bad_configured_pool_keeps_no_run(tmp_path, runs_dir, pool):
    """A missing or mislabelled pool named in config.toml is found when the case is taken: one line,
    exit 2, and no failed run stored (it was kept as a partial record)."""
    path = tmp_path / f"{pool}.jsonl"
    if pool == "reviews":
        pool_file(tmp_path, path.name, b'{"text": "Great value.", "label": "positive"}\n')
    config = tmp_path / "c.toml"
    config.write_text(f"[procedures.classification]\nprecedents = 1\nprecedent_pool = {str(path)!r}\n")
    text = tmp_path / "text.txt"
    text.write_text(TEXT)
    result = CliRunner().invoke(app, ["run", EMOTIONS, str(text), "-p", "classification", "-b", "scripted",
                                      "--config", str(config), "--runs-dir", str(runs_dir)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert (f"precedent pool {path} not found" if pool == "missing"
            else "labels its examples positive, none of this case's labels") in " ".join(result.output.split())
    assert RunStore(runs_dir).list() == []


async def test_a_pool_labelled_with_none_of_the_cases_labels_is_refused_before_the_hearing(tmp_path):
    """Precedents of another task (every example "positive" or "negative" for an emotion) were
    shown to the judges as guidance, with no word."""
    other = pool_file(tmp_path, "reviews.jsonl", b'{"text": "Great value.", "label": "positive"}\n'
                                                 b'{"text": "Broke in a day.", "label": "negative"}\n')
    for dry_run in (True, False):
        backend = ScriptedBackend()
        with pytest.raises(CaseError, match=re.escape(f"the precedent pool {other} labels its examples positive, "
                                                      "negative, none of this case's labels (sadness, joy")):
            await Trial(case(pool=other), settings(judges=1, precedents=1), store=None, backends={"scripted": backend},
                        dry_run=dry_run).run()
        assert backend.calls == []
    record = await trial(case(pool=POOL[:1]), settings(judges=1, precedents=1))  # one example of a label is enough
    assert record.outcome is not None


@pytest.mark.parametrize("pool", [None, []])
async def test_precedents_asked_for_with_no_pool_run_without_them_and_say_so(pool):
    given = {"pool": pool} if pool is not None else {}
    backend = ScriptedBackend()
    record = await Trial(case(**given), settings(judges=1, precedents=1), store=None,
                         backends={"scripted": backend}).run()
    [warning] = [w for w in record.warnings if w.rule == "no_precedents"]
    assert warning.message.startswith("precedents = 1 but no precedent pool is named: the judges decide without "
                                      "precedents")
    assert record.outputs["precedents"] == [] and record.status == "complete"
    assert not any("PRECEDENTS" in c.prompt for c in backend.calls)
    events = []
    await Trial(case(**given), settings(judges=1, precedents=1), store=None, dry_run=True).run(events.append)
    assert [e.rule for e in events if e.type == "warning_raised"] == ["no_precedents"]
    quiet = await Trial(case(**given), settings(judges=1), store=None).run()  # precedents = 0: nothing to say
    assert not any(w.rule == "no_precedents" for w in quiet.warnings)


async def test_sampled_hearings_mark_an_ambiguous_text():
    tops = ["anger", "anger", "sadness", "anger", "anger"]
    script = {"magistrate": [{"reasoning": "r", "top": t, "alternative": "fear"} for t in tops]}
    record = await trial(case(), settings(judges=1, ambiguity_samples=5), script)
    assert record.outputs["ambiguity"] == {"samples": 5, "tops": tops, "ambiguous": True}
    assert record.outcome.data["ambiguous"] is True
    steady = await trial(case(), settings(judges=1, ambiguity_samples=5))
    assert steady.outcome.data["ambiguous"] is False


async def test_the_second_label_can_come_from_the_sampled_hearings():
    """second_label = "sampled": the label the sampled hearings put on top most often besides the
    first, else the alternative the hearings named most often; "stated" (the default) keeps the
    first hearing's alternative."""
    tops = ["anger", "anger", "sadness", "fear", "sadness"]
    script = {"magistrate": [{"reasoning": "r", "top": t, "alternative": "joy"} for t in tops]}
    record = await trial(case(), settings(judges=1, ambiguity_samples=5, second_label="sampled"), script)
    assert record.outputs["hearing"]["second"] == "sadness" and record.outputs["hearing"]["second_from"] == "samples"
    assert {record.outputs["sides"][side] for side in ("prosecutor", "attorney")} == {"anger", "sadness"}
    stated = await trial(case(), settings(judges=1, ambiguity_samples=5), script)
    assert stated.outputs["hearing"]["second"] == "joy" and "second_from" not in stated.outputs["hearing"]


@pytest.mark.parametrize(("heard", "second"), [
    ([("anger", "joy"), ("anger", "joy"), ("fear", "joy"), ("sadness", "joy"), ("sadness", "joy")], ("sadness", "samples")),
    ([("anger", "joy"), ("fear", "joy"), ("sadness", "joy")], ("fear", "samples")),  # a tie: the one sampled first
    ([("anger", "joy"), ("anger", "fear"), ("anger", "fear")], ("fear", "alternatives")),  # every sample agrees
    ([("anger", "joy"), ("anger", "fear"), ("anger", "joy")], ("joy", "stated")),
])
def test_sampled_second_reads_the_samples_then_the_alternatives(heard, second):
    from courtroom_chat.procedures.classification import sampled_second

    assert sampled_second("anger", heard) == second


async def test_the_dry_run_plans_the_hearing_both_counsels_and_every_judge():
    events = []
    await Trial(case(), settings(judges=5, mode="sequential"), store=None, dry_run=True).run(events.append)
    planned = [e.agent for e in events if e.type == "prompt_planned"]
    assert planned == ["magistrate", "prosecutor", "attorney", *(f"judge-{n}" for n in range(1, 6))]


async def test_one_judge_is_no_split_and_a_repeated_quote_counts_once():
    text = "I am furious about how they treated us."
    script = {"prosecutor": {"argument": "Anger.", "quotes": [text, text]}}
    record = await trial(case(text=text), settings(judges=1), script)
    assert len(record.outputs["prosecutor"]["quotes"]) == 1
    from courtroom_chat.render import how_sure

    assert "the one judge" in record.outcome.markdown
    assert not any("Split vote" in line for line in how_sure(record.outcome.model_dump(mode="json")))


@pytest.mark.parametrize(("mode", "other"), [("parallel", "sequential"), ("sequential", "parallel")])
async def test_compare_modes_decides_the_other_way_on_the_same_hearing_and_first_judge(mode, other):
    script = {"magistrate": {"reasoning": "r", "top": "anger", "alternative": "sadness"},
              "judge-1": judge("anger"), "judge-2": judge("sadness"), "judge-3": judge("sadness"),
              f"judge-2-{other}": judge("anger"), f"judge-3-{other}": judge("anger", 0.7)}
    record = await trial(case(), settings(judges=3, mode=mode, compare_modes=True), script)
    # the verdict is the mode's: 2-1 sadness in parallel, the last judge's sadness in sequence
    assert record.outcome.label == "sadness" and record.outcome.data["mode"] == mode
    arm = record.outcome.data["arms"][f"court-{other}"]
    assert arm["label"] == "anger" and arm["mode"] == other
    assert arm["only"] == [f"judge-2-{other}", f"judge-3-{other}"] and arm["without"] == ["judge-2", "judge-3"]
    judges = sorted(c.agent for c in record.calls if c.agent.startswith("judge"))
    assert judges == ["judge-1", "judge-2", f"judge-2-{other}", "judge-3", f"judge-3-{other}"]  # judge 1 sits once
    prompts = {c.agent: c.messages[-1]["content"] for c in record.calls if c.agent.startswith("judge")}
    sequential = "judge-2" if mode == "sequential" else "judge-2-sequential"
    parallel = "judge-2-parallel" if mode == "sequential" else "judge-2"
    assert 'THE PREVIOUS JUDGE (judge 1) decided "anger"' in prompts[sequential]
    assert "PREVIOUS JUDGE" not in prompts[parallel]
    if mode == "parallel":  # the other way's chain builds on its own judge 2, not the verdict's
        assert 'THE PREVIOUS JUDGE (judge 2) decided "anger"' in prompts["judge-3-sequential"]
    assert f"Decided in {'sequence' if other == 'sequential' else 'parallel'}" in record.outcome.markdown and "**anger**" in record.outcome.markdown
    assert record.outputs["decision"]["arms"] == {f"court-{other}": {"label": "anger", "split": "3–0", "tie": False}}


@pytest.mark.parametrize(("mode", "other", "toward"), [("parallel", "sequential", 2), ("sequential", "parallel", 1)])
async def test_a_bench_in_sequence_is_read_against_its_twin_in_parallel(mode, other, toward):
    """Issue 21's conformity for the judges in sequence: judge n against the label the same seat
    chose alone (the parallel bench beside it, judge 1 shared), toward the judge before it or away;
    kept in the record, said in the outcome and How sure, and counted by the evaluation per judge."""
    from courtroom_chat.evaluation.methods import arm_prediction, prediction_from_record
    from courtroom_chat.evaluation.report import switches
    from courtroom_chat.render import how_sure

    script = {"magistrate": {"reasoning": "r", "top": "anger", "alternative": "sadness"},
              "judge-1": judge("anger"), "judge-2": judge("sadness"), "judge-3": judge("sadness"),
              f"judge-2-{other}": judge("anger"), f"judge-3-{other}": judge("anger")}
    record = await trial(case(), settings(judges=3, mode=mode, compare_modes=True), script)
    data = record.outcome.data
    conf = data["arms"]["court-sequential"]["conformity"] if mode == "parallel" else data["conformity"]
    # in parallel: the sequence's judges 2 and 3 both left sadness (their own) for anger, judge 1's and judge 2's;
    # in sequence: judge 2 left anger (its own) for sadness, away from judge 1; judge 3 followed judge 2 to sadness
    assert [(r["round"], r["moves"][0]["from"], r["moves"][0]["to"], r["toward"]) for r in conf["rounds"]] == (
        [(2, "sadness", "anger", 1), (3, "sadness", "anger", 1)] if mode == "parallel"
        else [(2, "anger", "sadness", 0), (3, "anger", "sadness", 1)])
    assert (conf["changed"], conf["toward"], conf["away"], conf["rounds_skipped"]) == (2, toward, 2 - toward, 0)
    said = f"2 judges changed from the label they chose alone after reading the judge before ({toward} to that " \
           f"judge's label, {2 - toward} away)"
    lines = how_sure(record.outcome.model_dump(mode="json"))
    if mode == "parallel":  # the verdict's bench is the parallel one: the sequence is said beside it
        assert f"In sequence, {said}." in record.outcome.markdown and not any("Sequence:" in x for x in lines)
        row = arm_prediction(prediction_from_record(record, ["anger", "sadness"]), "court-sequential")
    else:
        assert f"Sequence: {said}" in lines
        row = prediction_from_record(record, ["anger", "sadness"])
    counted = switches([{"gold": "anger", "details": row.details}])
    assert counted == {2: {"switches": 1, "correct_to_wrong": int(mode == "sequential"),
                           "wrong_to_correct": int(mode == "parallel"), "toward_majority": int(mode == "parallel"),
                           "away_from_majority": int(mode == "sequential")},
                       3: {"switches": 1, "correct_to_wrong": int(mode == "sequential"),
                           "wrong_to_correct": int(mode == "parallel"), "toward_majority": 1, "away_from_majority": 0}}


async def test_a_sequence_without_its_twin_counts_no_moves():
    record = await trial(case(), settings(judges=3, mode="sequential"))
    assert "conformity" not in record.outcome.data  # nothing says what a judge would have chosen alone


@pytest.mark.parametrize("stop", [True, False])
async def test_a_sequence_stops_once_a_judge_keeps_the_label_before_it(stop):
    from courtroom_chat.evaluation.methods import prediction_from_record
    from courtroom_chat.evaluation.report import early_stops

    script = {"magistrate": {"reasoning": "r", "top": "anger", "alternative": "sadness"},
              "judge-1": judge("anger"), "judge-2": judge("anger"), "judge-3": judge("sadness")}
    record = await trial(case(), settings(judges=3, mode="sequential", stop_when_stable=stop), script)
    sat = [c.agent for c in record.calls if c.agent.startswith("judge")]
    if not stop:
        assert sat == ["judge-1", "judge-2", "judge-3"] and record.outcome.label == "sadness"
        assert "conformity" not in record.outcome.data
        return
    assert sat == ["judge-1", "judge-2"] and record.outcome.label == "anger"  # judge 3 never sat
    assert "the last of 2 judges in sequence" in record.outcome.markdown
    judge_2 = next(c for c in record.calls if c.agent == "judge-2")
    saved = judge_2.usage.prompt_tokens + judge_2.usage.output_tokens
    conf = record.outcome.data["conformity"]
    assert (conf["rounds"], conf["rounds_skipped"], conf["tokens_saved"]) == ([], 1, saved) and saved > 0
    assert any(w.rule == "stopped_early" and f"about {saved:,} tokens saved" in w.message for w in record.warnings)
    details = prediction_from_record(record, ["anger", "sadness"]).details
    assert early_stops([{"details": details}]) == {"trials": 1, "of": 1, "rounds_skipped": 1, "tokens_saved": saved}


async def test_without_compare_modes_no_other_bench_sits():
    record = await trial(case(), settings(judges=3))
    assert "arms" not in record.outcome.data
    assert sorted(c.agent for c in record.calls if c.agent.startswith("judge")) == ["judge-1", "judge-2", "judge-3"]


async def test_the_dry_run_plans_the_other_ways_judges_with_compare_modes():
    events = []
    await Trial(case(), settings(judges=3, compare_modes=True), store=None, dry_run=True).run(events.append)
    planned = [e.agent for e in events if e.type == "prompt_planned"]
    assert planned[-5:] == ["judge-1", "judge-2", "judge-3", "judge-2-sequential", "judge-3-sequential"]


async def test_compare_modes_with_one_judge_gives_the_same_decision_both_ways():
    record = await trial(case(), settings(judges=1, compare_modes=True))
    arm = record.outcome.data["arms"]["court-sequential"]
    assert arm["label"] == record.outcome.label and arm["only"] == [] and arm["without"] == []
    assert [c.agent for c in record.calls if c.agent.startswith("judge")] == ["judge-1"]


@pytest.mark.parametrize(("choice", "other"), [("similar", "random"), ("random", "similar")])
async def test_compare_precedents_seats_a_bench_that_reads_the_other_precedents(choice, other, tmp_path, monkeypatch):
    """The published comparison (retrieved against random precedents) inside one trial: the
    whole bench sits again in the verdict's mode on the same hearing and arguments, each judge
    reading the other choice's precedents, kept beside the verdict as an evaluation method."""
    monkeypatch.setenv("COURTROOM_CACHE_DIR", str(tmp_path))
    script = {"magistrate": {"reasoning": "r", "top": "anger", "alternative": "sadness"},
              "judge-1": judge("anger"), "judge-2": judge("anger"), "judge-3": judge("sadness"),
              f"judge-1-{other}": judge("sadness"), f"judge-2-{other}": judge("sadness"),
              f"judge-3-{other}": judge("anger")}
    s = settings(judges=3, precedents=1, precedent_choice=choice, compare_precedents=True)
    record = await trial(case(pool=POOL), s, script, seed=3)
    alone = await trial(case(pool=POOL), settings(judges=3, precedents=1, precedent_choice=other), seed=3)
    assert record.outcome.label == "anger" and record.outcome.data["split"] == "2–1"  # the verdict is the bench's own
    arm = record.outcome.data["arms"][f"court-{other}-precedents"]
    assert arm["label"] == "sadness" and arm["split"] == "1–2" and arm["precedent_choice"] == other
    assert arm["only"] == [f"judge-{n}-{other}" for n in (1, 2, 3)] and arm["without"] == ["judge-1", "judge-2", "judge-3"]
    beside = record.outputs["precedents_beside"]
    assert beside["choice"] == other and beside["precedents"] == alone.outputs["precedents"]  # the same draw
    prompts = {c.agent: c.messages[-1]["content"] for c in record.calls if c.agent.startswith("judge")}
    theirs, ours = beside["precedents"][0], record.outputs["precedents"][0]
    for n in (1, 2, 3):
        assert f'was labelled {theirs["label"]}. Reason: {theirs["reason"]}' in prompts[f"judge-{n}-{other}"]
        assert f'was labelled {ours["label"]}. Reason: {ours["reason"]}' in prompts[f"judge-{n}"]
        # the same hearing and arguments: the prompts differ only in their precedents
        assert prompts[f"judge-{n}"].split("PRECEDENTS")[0] == prompts[f"judge-{n}-{other}"].split("PRECEDENTS")[0]
    read = "random precedents" if other == "random" else "the most similar precedents"
    assert f"Reading {read} instead" in record.outcome.markdown and "**sadness**" in record.outcome.markdown
    assert record.outputs["decision"]["arms"] == {f"court-{other}-precedents": {"label": "sadness", "split": "1–2",
                                                                                 "tie": False}}


async def test_compare_precedents_beside_compare_modes_and_in_sequence(tmp_path, monkeypatch):
    monkeypatch.setenv("COURTROOM_CACHE_DIR", str(tmp_path))
    s = settings(judges=3, mode="sequential", precedents=1, compare_modes=True, compare_precedents=True)
    backend = ScriptedBackend()
    record = await Trial(case(pool=POOL), s, store=None, seed=1, backends={"scripted": backend}).run()
    assert set(record.outcome.data["arms"]) == {"court-parallel", "court-random-precedents"}
    judges = [c.agent for c in backend.calls if c.role == "judge"]
    assert judges == ["judge-1", "judge-2", "judge-3", *(f"judge-{n}-parallel" for n in (2, 3)),
                      *(f"judge-{n}-random" for n in (1, 2, 3))]  # the random bench in sequence, as the verdict's
    prompts = {c.agent: c.prompt for c in backend.calls if c.role == "judge"}
    assert 'THE PREVIOUS JUDGE (judge 2) decided' in prompts["judge-3-random"]
    assert "PREVIOUS JUDGE" not in prompts["judge-1-random"]
    from courtroom_chat.procedures import get

    assert get("classification").arms(s.procedure_params("classification")) == ("court-parallel",
                                                                                 "court-random-precedents")


async def test_compare_precedents_is_not_run_again_by_fragility_and_is_planned_by_the_dry_run(tmp_path, monkeypatch):
    monkeypatch.setenv("COURTROOM_CACHE_DIR", str(tmp_path))
    s = settings(judges=3, precedents=1, compare_precedents=True)
    events = []
    await Trial(case(pool=POOL), s, store=None, dry_run=True).run(events.append)
    planned = [e.agent for e in events if e.type == "prompt_planned"]
    assert planned[-6:] == ["judge-1", "judge-2", "judge-3", "judge-1-random", "judge-2-random", "judge-3-random"]
    prompts = [e for e in events if e.type == "prompt_planned" and e.agent == "judge-1-random"]
    assert "PRECEDENTS: [the 1 random labelled examples]" in str(prompts[0].model_dump())
    record = await Trial(case(pool=POOL), s, store=None, fragility=True).run()
    again = [c for c in record.calls if c.stage.startswith("fragility:")]
    assert len(again) == 3 and not any(c.agent.endswith("-random") for c in again)


@pytest.mark.parametrize(("setting", "message"), [
    ("compare_precedents = true", "compare_precedents compares two ways of choosing precedents, but precedents = 0"),
    ('second_label = "sampled"', 'second_label = "sampled" reads the sampled hearings, but ambiguity_samples is 0'),
    ("stop_when_stable = true", 'stop_when_stable ends a sequence of judges, but mode = "parallel" seats none'),
])
def test_a_setting_that_needs_another_is_refused_in_one_line(tmp_path, runs_dir, setting, message):
    config = tmp_path / "c.toml"
    config.write_text(f"[procedures.classification]\n{setting}\n")
    result = CliRunner().invoke(app, ["run", "-p", "classification", "-q", EMOTIONS, "-c", "-", "--dry-run",
                                      "--config", str(config), "--runs-dir", str(runs_dir)], input=TEXT)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert message in result.output


async def test_compare_shots_seats_benches_reading_other_numbers_of_precedents(tmp_path, monkeypatch):
    """The published few-shot table inside one trial: per number of precedents in compare_shots
    the whole bench sits again in the verdict's mode, and with compare_modes in the other way
    (sharing that bench's judge 1), on the same hearing and arguments, each judge reading that
    many precedents chosen as the verdict's are."""
    monkeypatch.setenv("COURTROOM_CACHE_DIR", str(tmp_path))
    backend = ScriptedBackend()
    s = settings(judges=3, precedents=1, compare_modes=True, compare_shots="0, 2")
    events = []
    record = await Trial(case(pool=POOL), s, store=None, seed=4, backends={"scripted": backend}).run(events.append)
    from courtroom_chat.procedures import get

    names = ("court-sequential", "court-0-shot", "court-sequential-0-shot", "court-2-shot", "court-sequential-2-shot")
    assert get("classification").arms(s.procedure_params("classification")) == names
    assert get("classification").baseline_shots(s.procedure_params("classification")) == (0, 2)
    arms = record.outcome.data["arms"]
    assert tuple(arms) == names
    judges = [c.agent for c in backend.calls if c.role == "judge" and not c.repairs]
    assert judges == ["judge-1", "judge-2", "judge-3", "judge-2-sequential", "judge-3-sequential",
                      "judge-1-0-shot", "judge-2-0-shot", "judge-3-0-shot",
                      "judge-2-sequential-0-shot", "judge-3-sequential-0-shot",
                      "judge-1-2-shot", "judge-2-2-shot", "judge-3-2-shot",
                      "judge-2-sequential-2-shot", "judge-3-sequential-2-shot"]
    assert arms["court-0-shot"]["mode"] == "parallel" and arms["court-0-shot"]["shots"] == 0
    assert arms["court-0-shot"]["only"] == ["judge-1-0-shot", "judge-2-0-shot", "judge-3-0-shot"]
    assert arms["court-sequential-2-shot"]["mode"] == "sequential" and arms["court-sequential-2-shot"]["shots"] == 2
    assert arms["court-sequential-2-shot"]["only"] == ["judge-1-2-shot", "judge-2-sequential-2-shot",
                                                       "judge-3-sequential-2-shot"]  # judge 1 shared
    assert arms["court-sequential-2-shot"]["without"] == ["judge-1", "judge-2", "judge-3"]
    prompts = {c.agent: c.prompt for c in backend.calls if c.role == "judge" and not c.repairs}
    for n in (1, 2, 3):
        assert "PRECEDENTS" not in prompts[f"judge-{n}-0-shot"]
        assert prompts[f"judge-{n}-2-shot"].count("was labelled") == 2 and prompts[f"judge-{n}"].count("was labelled") == 1
        # the same hearing and arguments: the prompts differ only in their precedents
        assert prompts[f"judge-{n}"].split("PRECEDENTS")[0] == prompts[f"judge-{n}-2-shot"].split("PRECEDENTS")[0]
    assert "THE PREVIOUS JUDGE (judge 2) decided" in prompts["judge-3-sequential-0-shot"]
    assert "PREVIOUS JUDGE" not in prompts["judge-2-0-shot"]
    two = await Trial(case(pool=POOL), settings(judges=3, precedents=2), store=None, seed=4).run()
    assert record.outputs["precedents_shots"] == {"0": [], "2": two.outputs["precedents"]}  # chosen as the verdict's
    assert record.outcome.answer == (await Trial(case(pool=POOL), settings(judges=3, precedents=1), store=None,
                                                 seed=4).run()).outcome.answer  # the verdict is its own bench's
    md = record.outcome.markdown
    assert "Reading no precedents, on the same hearing" in md and "Reading 2 precedents in sequence, on the same" in md
    titles = [e.title for e in events if getattr(e, "agent", "") == "judge-3-sequential-2-shot" and getattr(e, "title", "")]
    assert titles and all(t.startswith("Judge 3 · 2 precedents, sequential") for t in titles)


async def test_compare_shots_is_planned_by_the_dry_run_and_not_run_again_by_fragility(tmp_path, monkeypatch):
    monkeypatch.setenv("COURTROOM_CACHE_DIR", str(tmp_path))
    s = settings(judges=3, precedents=0, compare_shots="1")
    events = []
    await Trial(case(pool=POOL), s, store=None, dry_run=True).run(events.append)
    planned = [e for e in events if e.type == "prompt_planned"]
    assert [e.agent for e in planned][-6:] == ["judge-1", "judge-2", "judge-3", "judge-1-1-shot", "judge-2-1-shot",
                                                "judge-3-1-shot"]
    assert "PRECEDENTS: [the 1 most similar labelled examples]" in str(planned[-1].model_dump())
    assert "PRECEDENTS" not in str(planned[-4].model_dump())
    record = await Trial(case(pool=POOL), s, store=None, fragility=True).run()
    assert record.outputs["precedents_shots"]["1"] and not record.outputs["precedents"]
    again = [c for c in record.calls if c.stage.startswith("fragility:")]
    assert len(again) == 3 and not any(c.agent.endswith("-shot") for c in again)


@pytest.mark.parametrize(("line", "message"), [
    ("precedents = 1\ncompare_shots = \"1, 2\"", "names the verdict's own precedents = 1"),
    ("compare_shots = \"2, 2\"", "repeats a number"),
    ("compare_shots = \"4\"", "'4' is not a number of precedents from 0 to 3"),
])
def test_compare_shots_that_repeat_or_leave_the_range_are_refused_in_one_line(line, message, tmp_path, runs_dir):
    config = tmp_path / "c.toml"
    config.write_text(f"[procedures.classification]\n{line}\n")
    result = CliRunner().invoke(app, ["run", "-p", "classification", "-q", EMOTIONS, "-c", "-", "--dry-run",
                                      "--config", str(config), "--runs-dir", str(runs_dir)], input=TEXT)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert message in result.output


@pytest.mark.parametrize(("shuffled", "tag"), [(False, "shuffled"), (True, "fixed")])
async def test_compare_orders_seats_a_bench_that_reads_labels_and_arguments_the_other_way(shuffled, tag):
    """The order control (issue 21) inside one trial: the whole bench sits again on the same
    hearing and arguments, each judge reading the labels and arguments in its own seeded order
    when the verdict's bench reads them in one order (and in one order when it shuffles)."""
    backend = ScriptedBackend()
    s = settings(judges=5, compare_orders=True, shuffle_labels=shuffled, shuffle_arguments=shuffled)
    record = await Trial(case(), s, store=None, seed=5, backends={"scripted": backend}).run()
    hearing = record.outputs["hearing"]
    pair = (hearing["first"], hearing["second"])
    arm = record.outcome.data["arms"][f"court-judges-{tag}"]
    assert arm["order"] == tag and arm["mode"] == "parallel" and len(arm["judges"]) == 5
    assert arm["only"] == [f"judge-{n}-{tag}" for n in range(1, 6)] and arm["without"] == [f"judge-{n}" for n in range(1, 6)]
    orders = {a: o for a, o in record.outputs.get("orders", {}).items()}
    shuffled_agents = [f"judge-{n}" for n in range(1, 6)] if shuffled else [f"judge-{n}-{tag}" for n in range(1, 6)]
    one_order = [f"judge-{n}-{tag}" for n in range(1, 6)] if shuffled else [f"judge-{n}" for n in range(1, 6)]
    assert set(orders) == set(shuffled_agents)  # only the shuffled bench's orders are drawn and kept
    assert {tuple(orders[a]["labels"]) for a in shuffled_agents} == {pair, pair[::-1]}
    calls = {c.agent: c for c in backend.calls if c.role == "judge" and not c.repairs}
    for agent in one_order:
        assert f'- "label": "{pair[0]}" or "{pair[1]}";' in calls[agent].prompt
        assert calls[agent].prompt.index("THE PROSECUTOR argues") < calls[agent].prompt.index("THE ATTORNEY argues")
    for agent in shuffled_agents:
        one, two = orders[agent]["labels"]
        assert f'- "label": "{one}" or "{two}";' in calls[agent].prompt
        assert calls[agent].schema["properties"]["label"]["enum"] == [one, two]
        first_heard = orders[agent]["arguments"][0].upper()
        assert calls[agent].prompt.index(f"THE {first_heard} argues") == min(
            calls[agent].prompt.index(f"THE {side} argues") for side in ("PROSECUTOR", "ATTORNEY"))
    check = arm.get("order_check")  # the shuffled bench's own order check; the verdict's when it is shuffled
    if shuffled:
        assert check is None and record.outcome.data["order"]["voters"] == 5
    else:
        assert check["voters"] == 5 and check["followed"] == sum(
            orders[f"judge-{n}-{tag}"]["labels"][0] == arm["judges"][n - 1]["label"] for n in range(1, 6))
        assert "order" not in record.outcome.data
    way = "each in its own order" if tag == "shuffled" else "in one order"
    assert f"Reading the labels and arguments {way}, on the same hearing and arguments" in record.outcome.markdown
    from courtroom_chat.procedures import get

    assert get("classification").arms(s.procedure_params("classification")) == (f"court-judges-{tag}",)


async def test_the_dry_run_plans_the_other_orders_bench():
    events = []
    await Trial(case(), settings(judges=3, compare_orders=True), store=None, dry_run=True).run(events.append)
    planned = [e.agent for e in events if e.type == "prompt_planned"]
    assert planned[-6:] == ["judge-1", "judge-2", "judge-3", "judge-1-shuffled", "judge-2-shuffled", "judge-3-shuffled"]


async def test_shuffled_labels_give_each_judge_its_own_order_in_prompt_and_schema():
    """The order control (issue 21) on the bench of judges: with ``shuffle_labels`` each judge
    reads the hearing's two labels in its own seeded order where it decides (the hearing's
    order stays as the hearing said it), recorded in the run; off, the hearing's order."""
    from courtroom_chat.backends.scripted import ScriptedBackend

    backend = ScriptedBackend()
    record = await Trial(case(), settings(judges=5, shuffle_labels=True), store=None, seed=5,
                         backends={"scripted": backend}).run()
    hearing = record.outputs["hearing"]
    orders = {a: tuple(o["labels"]) for a, o in record.outputs["orders"].items()}
    pair = (hearing["first"], hearing["second"])
    assert len(orders) == 5 and set(orders.values()) == {pair, pair[::-1]}
    for call in backend.calls:
        if call.agent in orders and not call.repairs:
            one, two = orders[call.agent]
            assert f'- "label": "{one}" or "{two}";' in call.prompt and call.schema["properties"]["label"]["enum"] == [one, two]
            assert f'narrowed the labels to two: "{pair[0]}" and "{pair[1]}"' in call.prompt
    backend = ScriptedBackend()
    plain = await Trial(case(), settings(judges=5), store=None, seed=5, backends={"scripted": backend}).run()
    assert "orders" not in plain.outputs
    first, second = plain.outputs["hearing"]["first"], plain.outputs["hearing"]["second"]
    assert all(f'- "label": "{first}" or "{second}";' in c.prompt for c in backend.calls if c.role == "judge")
    order = record.outcome.data["order"]  # the order check: how many judges chose the label they read first
    labels = {a: o["label"] for a, o in record.outputs.items() if a.startswith("judge-") and isinstance(o, dict)}
    assert order["who"] == "judges" and order["voters"] == 5 == len(labels)
    assert order["followed"] == sum(orders[a][0] == v for a, v in labels.items())
    assert "order" not in plain.outcome.data


async def test_fragility_withholds_the_passage_the_majority_relied_on_and_decides_again():
    """The winning counsel's verified passage that the majority's reasons state most is withheld
    from the text and struck from its argument; the bench sits again (its own mode only)."""
    quotes = ["I waited two hours and nobody called back.", "I am furious about how they treated us."]
    relied = {"reasoning": "The writer is furious about how they were treated.", "label": "anger", "confidence": 0.8}
    script = {"magistrate": {"reasoning": "r", "top": "anger", "alternative": "sadness"},
              "prosecutor": {"argument": "The text says so plainly.", "quotes": quotes},
              "attorney": {"argument": "The text says so plainly.", "quotes": quotes},
              "judge-1": [relied, judge("sadness")], "judge-2": [relied, judge("sadness")],
              "judge-3": [judge("sadness"), judge("sadness")]}
    backend = ScriptedBackend(script=script)
    s = settings(judges=3, mode="parallel", compare_modes=True)
    record = await Trial(case(), s, store=None, fragility=True, backends={"scripted": backend}).run()
    assert record.outcome.label == "anger"
    found = record.outcome.data["fragility"]
    side = record.outputs["decision"]["side"]
    assert found["held"] is False and found["split"] == "0–3"
    assert found["removed"] == f'the {side}\'s passage "{quotes[1]}"'
    assert found["summary"].startswith(f'the verdict rests on the {side}\'s passage "{quotes[1]}"')
    again = [r for r in backend.calls if r.role == "judge"][5:]  # after the bench and the other way's two
    assert len(again) == 3 and all(r.agent in ("judge-1", "judge-2", "judge-3") for r in again)
    assert all(quotes[1] not in r.user_text() and "[passage withheld]" in r.user_text() for r in again)
    assert all(quotes[0] in r.user_text() for r in again)  # the other passage stays
    assert sum(c.stage.startswith("fragility:") for c in record.calls) == 3


async def test_fragility_without_a_verified_passage_is_not_run():
    script = {"magistrate": {"reasoning": "r", "top": "anger", "alternative": "sadness"},
              "prosecutor": {"argument": "It is plain.", "quotes": []}, "attorney": {"argument": "It is plain.", "quotes": []}}
    record = await Trial(case(), settings(judges=1), store=None, fragility=True,
                         backends={"scripted": ScriptedBackend(script=script)}).run()
    found = record.outcome.data["fragility"]
    assert found["held"] is None and found["summary"].startswith("not run: the ")


async def test_fragility_of_a_one_sentence_text_is_not_run():
    """Withholding the passage a verdict rests on must leave some text to decide on: where the
    passage is the whole text (an Emotion tweet), the bench would decide on the arguments
    alone, which tests nothing; the check says so and asks no judge again."""
    sentence = "I am furious about how they treated us."
    script = {"magistrate": {"reasoning": "r", "top": "anger", "alternative": "sadness"},
              "prosecutor": {"argument": "It is plain.", "quotes": [sentence]},
              "attorney": {"argument": "It is plain.", "quotes": [sentence]},
              "judge-1": judge("anger"), "judge-2": judge("anger"), "judge-3": judge("anger")}
    record = await Trial(case(text=sentence), settings(judges=3), store=None, fragility=True,
                         backends={"scripted": ScriptedBackend(script=script)}).run()
    found = record.outcome.data["fragility"]
    side = record.outputs["decision"]["side"]
    assert found["held"] is None and found["summary"] == (f'not run: the {side}\'s passage "{sentence}" is the whole '
                                                          "text, so withholding it would leave the judges the arguments alone")
    assert not any(c.stage.startswith("fragility:") for c in record.calls)
    # the same passage in a text that says more is still checked
    record = await Trial(case(), settings(judges=3), store=None, fragility=True,
                         backends={"scripted": ScriptedBackend(script=script)}).run()
    assert record.outcome.data["fragility"]["held"] is True
    assert sum(c.stage.startswith("fragility:") for c in record.calls) == 3


async def test_shuffled_arguments_give_each_judge_its_own_order_of_the_counsels():
    backend = ScriptedBackend()
    s = settings(judges=5, shuffle_arguments=True)
    record = await Trial(case(), s, store=None, seed=3, backends={"scripted": backend}).run()
    heard = {a: tuple(o["arguments"]) for a, o in record.outputs["orders"].items()}
    assert len(heard) == 5 and set(heard.values()) == {("prosecutor", "attorney"), ("attorney", "prosecutor")}
    for call in backend.calls:
        if call.agent in heard:
            first, second = heard[call.agent]
            assert call.prompt.index(f"THE {first.upper()} argues") < call.prompt.index(f"THE {second.upper()} argues")
    plain = await trial(case(), settings(judges=3), seed=3)
    assert "orders" not in plain.outputs
