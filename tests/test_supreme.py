"""The supreme court: transcripts, the bench in rounds, the jury's rules, the why trace, the
verdict document, conformity between rounds, and the throttle measured from the scripted log."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from courtroom_chat.backends.scripted import ScriptedBackend
from courtroom_chat.case import load_case
from courtroom_chat.config import Settings
from courtroom_chat.engine import Trial
from courtroom_chat.errors import CaseError, ConfigError
from courtroom_chat.frontends.cli import app
from courtroom_chat.procedures.deliberation import seated
from courtroom_chat.procedures.supreme.rules import STANDARDS, conformity, jury_needed, jury_verdict
from tests.conftest import CASES, SHARED_DATA, needs_shared, staggered

NASLAB = SHARED_DATA / "trial_transcripts" / "naslab_jury_scenario1.txt"
naslab = needs_shared("trial_transcripts", "naslab_jury_scenario1.txt")
CRIMINAL, CIVIL = STANDARDS["criminal"], STANDARDS["civil"]


def settings(**params) -> Settings:
    return Settings().with_backend("scripted").with_params("supreme", params) if params else \
        Settings().with_backend("scripted")


async def trial(case: str = "burglary", script: dict | None = None, latency_ms: int = 0, base: Settings | None = None,
                seed: int | None = None, **params):
    backend = ScriptedBackend(script=script or {}, latency_ms=latency_ms)
    record = await Trial(load_case(CASES / f"{case}.json"), base or settings(**params), store=None, seed=seed,
                         backends={"scripted": backend}).run()
    return record, backend


def prompts(backend: ScriptedBackend, role: str, marker: str = "") -> dict[str, str]:
    return {r.agent: r.prompt for r in backend.calls if r.role == role and marker in r.prompt}


def opinion(verdict: str, confidence: float = 0.7, **extra) -> dict:
    return {"key_facts": [f"A witness testified to a fact that supports {verdict}."],
            "evidence_analysis": f"The testimony, weighed for and against, supports a verdict of {verdict} on this record.",
            "verdict": verdict, "confidence": confidence, **extra}


def held(verdict: str, changed: bool = False) -> dict:
    return opinion(verdict, changed=changed, why="The other opinions raised nothing the record does not answer.")


# ---------------------------------------------------------------- whole trials


@pytest.mark.parametrize(("case", "labels", "burden"), [
    ("burglary", {"guilty", "not guilty"}, "beyond a reasonable doubt"),
    ("negligence", {"liable", "not liable"}, "a preponderance of the evidence"),
])
async def test_the_example_cases_are_tried_in_full(case, labels, burden):
    record, backend = await trial(case)
    assert record.status == "complete" and record.outcome.label in labels
    assert len(backend.calls) == 9 + 9 + 12 + 2  # two rounds of nine, twelve jurors, the two-call why trace
    assert {f"justice-{n}@{r}" for n in range(1, 10) for r in (1, 2)} <= set(record.outputs)
    doc = record.outputs["verdict"]
    assert doc["burden"] == burden and doc["decision"] == record.outcome.label
    votes = [record.outputs[f"justice-{n}@2"]["verdict"] for n in range(1, 10)]
    assert doc["bench"]["votes"][doc["decision"]] == votes.count(doc["decision"]) >= 5
    assert all(d["verdict"] != doc["decision"] for d in doc["dissents"])
    assert len(doc["dissents"]) == 9 - votes.count(doc["decision"])
    assert doc["opinion_of_the_court"]["author"].startswith("Justice ")
    assert doc["jury"]["agrees"] == (doc["jury"]["verdict"] == doc["decision"])
    assert doc["why"]["facts"] and all(f["verified"] for f in doc["why"]["facts"])
    assert "Opinion of the court" in record.outcome.markdown and "Between rounds" in record.outcome.markdown
    result = record.to_result()
    assert result["verdict"]["decision"] == doc["decision"]
    json.dumps(result, default=str)


def test_the_cli_writes_the_verdict_document_as_json_and_markdown(tmp_path, runs_dir):
    runner = CliRunner()
    out = tmp_path / "verdict.json"
    result = runner.invoke(app, ["run", str(CASES / "negligence.json"), "-b", "scripted", "-o", str(out)])
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())["verdict"]
    assert doc["type"] == "civil" and doc["jury"]["rule"] == "9 of 12 needed"
    md = tmp_path / "verdict.md"
    result = runner.invoke(app, ["run", str(CASES / "burglary.json"), "-b", "scripted", "-o", str(md)])
    assert result.exit_code == 0 and "**Opinion of the court**" in md.read_text()


@naslab
def test_the_naslab_transcript_loads_as_plain_text_with_its_type(runs_dir):
    result = CliRunner().invoke(app, ["run", "-p", "supreme", "-b", "scripted", "--type", "criminal",
                                      "-q", "Are Tomer and Stan guilty of murder?", "-c", str(NASLAB)])
    assert result.exit_code == 0, result.output
    assert "beyond a reasonable doubt" in result.stdout and "Traceback" not in result.output


@naslab
async def test_plain_evidence_with_no_type_is_tried_on_the_default_and_says_so():
    case = load_case(question="Should the city repave Elm Street this year?", context=[str(NASLAB)])
    record = await Trial(case, settings(), procedure="supreme", store=None).run()
    assert record.outputs["verdict"]["type"] == "civil"
    assert any(w.rule == "case_type" for w in record.warnings)
    guilty = case.model_copy(update={"question": "Is Tomer guilty of murder?"})
    record = await Trial(guilty, settings(), procedure="supreme", store=None).run()
    assert record.outputs["verdict"]["type"] == "criminal" and not any(w.rule == "case_type" for w in record.warnings)


async def test_a_type_given_against_the_transcript_is_followed_with_a_warning():
    case = load_case(CASES / "burglary.json")
    record = await Trial(case.model_copy(update={"inputs": {**case.inputs, "type": "civil"}}), settings(justices=3, jurors=3),
                         store=None).run()
    assert record.outputs["verdict"]["type"] == "civil"
    [warning] = [w for w in record.warnings if w.rule == "case_type"]
    assert "though the transcript says it is criminal" in warning.message
    record, _ = await trial(justices=3, jurors=3)
    assert not any(w.rule == "case_type" for w in record.warnings)  # as written: nothing to say



async def test_asked_the_other_way_a_guilty_verdict_answers_no():
    """The mirror question the rules write ("Is Dale Hollis not guilty …?"): the court still finds
    guilty or not guilty, and its answer to that question is the other side."""
    base = load_case(CASES / "burglary.json")
    asked = base.model_copy(update={"question": "Is Dale Hollis not guilty of burglary in the second degree?"})
    record = await Trial(asked, settings(jurors=3), store=None, backends={"scripted": ScriptedBackend()}).run()
    label = record.outcome.label
    assert record.outcome.polarity == {"guilty": "no", "not guilty": "yes"}[label]
    assert record.outcome.answer == {
        "guilty": "Guilty: Dale Hollis is guilty of burglary in the second degree",
        "not guilty": "Not guilty: Dale Hollis is not guilty of burglary in the second degree"}[label]
    # the switches between rounds are scored against the gold answer as sides of this question too
    moves = [m for r in record.outputs["verdict"]["conformity"]["rounds"] for m in r["moves"]]
    assert moves and all((m["from_side"], m["to_side"]) == ({"guilty": "no", "not guilty": "yes"}[m["from"]],
                                                             {"guilty": "no", "not guilty": "yes"}[m["to"]]) for m in moves)

async def test_a_recorded_case_runs_again_with_the_inputs_its_transcript_gave_and_a_misspelt_one_is_refused():
    from courtroom_chat.records import RunRecord

    record, _ = await trial(justices=3, jurors=3)
    assert record.case.derived_inputs == ["title", "transcript_type"]  # written by the court, not the person
    again = RunRecord.model_validate_json(record.model_dump_json()).case  # as the chat's re-run reads it
    backend = ScriptedBackend()
    rerun = await Trial(again, settings(justices=3, jurors=3), store=None, backends={"scripted": backend}).run()
    assert rerun.status == "complete" and rerun.outcome.answer == record.outcome.answer and backend.calls
    # the answer says what the verdict means for the question, not the label beside the question
    assert record.outcome.answer in ("Guilty: Dale Hollis is guilty of burglary in the second degree",
                                     "Not guilty: Dale Hollis is not guilty of burglary in the second degree")
    older = again.model_copy(update={"derived_inputs": []})  # a record from before derived_inputs
    assert (await Trial(older, settings(justices=3, jurors=3), store=None).run()).status == "complete"
    typo = again.model_copy(update={"inputs": {**again.inputs, "typ": "civil"}})
    with pytest.raises(CaseError) as err:
        Trial(typo, settings(), store=None)
    assert str(err.value) == (f"{CASES / 'burglary.json'}: the supreme procedure does not read the case input typ; "
                              "it reads type; check the spelling, or drop it (`courtroom procedures` lists each "
                              "procedure's inputs)")


@pytest.mark.parametrize("with_json", [True, False])
def test_inputs_the_court_reads_from_the_transcript_are_refused_when_given(tmp_path, with_json):
    plain = tmp_path / "transcript.txt"
    plain.write_text("Opening: the defendant was seen near the store.\nQ: Where were you? A: At home.\n")
    args = (["run", str(CASES / "burglary.json")] if with_json else
            ["run", "-q", "Is the defendant guilty?", "-c", str(plain), "--type", "criminal"])
    result = CliRunner().invoke(app, [*args, "-p", "supreme", "-b", "scripted", "--dry-run",
                                      "--input", "transcript_type=civil"])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert result.stderr.strip().splitlines()[-1].endswith(
        "transcript_type is read from the case by the supreme procedure, not given; drop --input transcript_type "
        "(--type criminal or civil sets the case type)")


# ---------------------------------------------------------------- the burden and the conference


async def test_an_opinion_that_restates_the_burden_of_proof_is_no_prompt_leak():
    """On the 1.5B (2026-11-26) justices named the standard in the burden's own words, and the
    prompt-leak rule sent 18 of 18 opinions back, for nothing: the repairs said it again."""
    restated = opinion("not guilty", evidence_analysis="The burden of proof is beyond a reasonable doubt, and it rests "
                       "on the prosecution; a reasonable doubt can come from the defense's evidence as well as from gaps "
                       "in the prosecution's, and one remains here.")
    kept = restated | {"changed": False, "why": "The other opinions raised nothing the record does not answer."}
    record, backend = await trial(script={f"justice-{n}": [restated, kept] for n in range(1, 10)})
    assert not [w for w in record.warnings if w.rule == "prompt_leak"]
    assert len([c for c in backend.calls if c.role == "justice"]) == 18  # two rounds, no repair
    leaked = opinion("not guilty", evidence_analysis="Reply with one JSON object with the requested fields, nothing "
                     "else, and weigh the testimony.")
    _, backend = await trial(script={"justice-1": leaked})
    assert len([c for c in backend.calls if c.agent == "justice-1"]) > 2  # other instructions still count


@pytest.mark.parametrize(("case", "mine", "other"), [
    ("burglary", "BEYOND A REASONABLE DOUBT", "PREPONDERANCE"),
    ("negligence", "PREPONDERANCE OF THE EVIDENCE", "REASONABLE DOUBT"),
])
async def test_every_prompt_carries_the_burden_of_its_case_type(case, mine, other):
    _, backend = await trial(case)
    for request in backend.calls:
        assert mine in request.prompt and other not in request.prompt, request.agent


async def test_the_conference_reads_the_tally_and_anonymised_summaries():
    script = {f"justice-{n}": [opinion("guilty" if n <= 4 else "not guilty", 0.6 + n / 100), held("not guilty")]
              for n in range(1, 10)}
    record, backend = await trial(script=script)
    conference = prompts(backend, "justice", "ROUND 2")
    assert len(conference) == 9
    for prompt in conference.values():
        assert re.search(r"TALLY OF ROUND 1: 4 guilty, mean confidence 0\.6[23]; 5 not guilty, mean confidence 0\.67", prompt)
        assert sorted(re.findall(r"^- Justice ([A-H]) ", prompt, re.M)) == list("ABCDEFGH")  # eight peers, by letter
        assert not re.search(r"Justice \d|justice-\d", prompt.split("YOU ARE JUSTICE")[0])  # no seat numbers
    orders = {a: re.findall(r"^- Justice [A-H] \((\w[\w ]*), confidence ([\d.]+)", p, re.M) for a, p in conference.items()}
    assert len({tuple(o) for o in orders.values()}) > 1  # each justice reads the peers in its own order
    assert record.outputs["verdict"]["conformity"]["changed"] == 4


async def test_a_shared_peer_order_gives_every_justice_the_same_digest_and_names_its_own_letter():
    """``peer_order = "shared"``: one seeded order of all nine opinions, the same text for every
    justice up to its own part, so a local model reads the digest once, not nine times."""
    script = {f"justice-{n}": [opinion("guilty" if n <= 4 else "not guilty", 0.6 + n / 100), held("not guilty")]
              for n in range(1, 10)}
    record, backend = await trial(script=script, peer_order="shared")
    conference = prompts(backend, "justice", "ROUND 2")
    heads = {p.split("YOUR OPINION IN ROUND")[0] for p in conference.values()}
    assert len(conference) == 9 and len(heads) == 1  # one shared prefix
    head = heads.pop()
    assert "Every justice's opinion from round 1 is below, yours among them" in head
    entries = dict(re.findall(r"^- Justice ([A-I]) \((?:guilty|not guilty), confidence ([\d.]+)\)", head, re.M))
    assert sorted(entries) == list("ABCDEFGHI")  # all nine, the justice's own among them
    assert not re.search(r"Justice \d|justice-\d", head)  # still no seat numbers
    for agent, prompt in conference.items():
        mine = re.search(r"YOUR OPINION IN ROUND 1 \(Justice ([A-I]) above\)", prompt).group(1)
        assert float(entries[mine]) == round(0.6 + int(agent.split("-")[1]) / 100, 2), agent
    assert record.outputs["verdict"]["conformity"]["changed"] == 4


@pytest.mark.parametrize("peer_order", ["own", "shared"])
async def test_the_conference_order_depends_on_the_seed_not_on_which_reply_finished_first(peer_order):
    """Peers are shuffled from seat order: replies finishing in another order give the same
    round-2 prompts, and the rounds are kept in seat order."""
    script = {f"justice-{n}": [opinion("guilty" if n <= 4 else "not guilty", 0.6 + n / 100), held("not guilty")]
              for n in range(1, 10)}
    runs = []
    def later_seats_sooner(agent: str) -> float:
        return (10 - int(agent[8:])) * 0.004 if agent.startswith("justice-") else 0

    for backend in (ScriptedBackend(script=copy.deepcopy(script)),
                    staggered(later_seats_sooner, script=copy.deepcopy(script))):
        record = await Trial(load_case(CASES / "burglary.json"), settings(peer_order=peer_order), store=None, seed=5,
                             backends={"scripted": backend}).run()
        finished = [agent for agent, *_ in backend.timeline if agent.startswith("justice-")][:9]  # as they finished
        runs.append((prompts(backend, "justice", "ROUND 2"), record.outputs["verdict"]["conformity"], finished))
    (plain, moved, first), (late, moved_late, first_late) = runs
    assert first == sorted(first, key=lambda a: int(a[8:])) and first_late != first  # finished in another order
    assert len(plain) == 9 and plain == late
    assert moved == moved_late and [m["justice"].split(" (")[0] for m in moved["rounds"][0]["moves"]] == \
        [f"Justice {n}" for n in range(1, 5)]  # kept in seat order
    assert list(seated({"justice-10": 0, "justice-2": 0, "justice-1": 0})) == ["justice-1", "justice-2", "justice-10"]


async def test_a_peer_naming_its_own_philosophy_is_withheld_at_the_conference():
    script = {f"justice-{n}": [opinion("guilty", evidence_analysis="As a strict constructionist I read the statute "
                                       "narrowly; a broad interpreter would not."), held("guilty")] for n in range(1, 4)}
    _, backend = await trial(script=script, justices=3, jurors=3)
    for agent, prompt in prompts(backend, "justice", "ROUND 2").items():
        peers = prompt.split("YOUR OPINION IN ROUND")[0]  # the digest; its own opinion and seat follow
        assert "[outlook withheld]" in peers, agent
        assert not re.search(r"constructionist|interpreter", peers, re.I), agent


async def test_seats_follow_the_spectrum_and_a_changed_spectrum_reaches_the_prompts():
    from courtroom_chat.procedures.supreme import Parameters

    p = Parameters()
    assert [p.seat(n)[0] for n in range(1, 10)] == ["strict constructionist"] * 3 + ["moderate pragmatist"] * 3 + \
        ["broad interpreter"] * 3
    _, backend = await trial(justices=3, jurors=3, spectrum="textualist, purposivist, living constitutionalist")
    opening = {a: r.prompt for a, r in ((r.agent, r) for r in backend.calls) if a.startswith("justice-")}
    assert "textualist" in opening["justice-1"] and "living constitutionalist" in opening["justice-3"]
    assert "strict constructionist" not in opening["justice-1"]


async def test_jurors_read_the_transcript_and_never_the_justices():
    script = {f"justice-{n}": [opinion("guilty", evidence_analysis="JUSTICE-ONLY-MARK weighs the record."),
                               held("guilty")] for n in range(1, 4)}
    _, backend = await trial(script=script, justices=3, jurors=3)
    jurors = [r for r in backend.calls if r.role == "juror"]
    assert len(jurors) == 3
    for r in jurors:
        assert "JUSTICE-ONLY-MARK" not in r.prompt and "TALLY" not in r.prompt and "Justice A" not in r.prompt


async def test_the_conference_can_see_positions_without_the_tally():
    _, backend = await trial(show_tally=False)
    for prompt in prompts(backend, "justice", "ROUND 2").values():
        assert "TALLY" not in prompt and "confidence 0." not in prompt.split("YOUR OPINION")[0]
        assert re.search(r"^- Justice A \((guilty|not guilty)\)", prompt, re.M)


def test_conformity_counts_moves_toward_and_away_from_the_majority():
    before = {"justice-1": "guilty", "justice-2": "guilty", "justice-3": "not guilty", "justice-4": "guilty",
              "justice-5": "not guilty"}
    after = {**before, "justice-3": "guilty", "justice-2": "not guilty"}
    moved = conformity(before, after, CRIMINAL)
    assert moved["previous_majority"] == "guilty" and moved["changed"] == 2
    assert (moved["toward"], moved["away"]) == (1, 1) and moved["majority_held"]
    directions = {m["justice"]: m["direction"] for m in moved["moves"]}
    assert directions == {"justice-3": "toward the majority", "justice-2": "away from the majority"}


async def test_stopping_early_when_positions_stop_changing_reports_tokens_saved():
    script = {"justice": [opinion("guilty"), held("guilty"), held("guilty")]}
    script |= {f"justice-{n}": [opinion("not guilty"), held("not guilty")] for n in (1, 2)}
    record, backend = await trial(script=script, rounds=3, stop_when_stable=True)
    flow = record.outputs["verdict"]["conformity"]
    assert flow["rounds_held"] == 2 and flow["rounds_skipped"] == 1 and flow["tokens_saved"] > 0
    assert not prompts(backend, "justice", "ROUND 3")
    assert "tokens saved" in record.outcome.markdown
    record, backend = await trial(script=script, rounds=3)  # the option off: every round is held
    assert record.outputs["verdict"]["conformity"]["rounds_held"] == 3 and prompts(backend, "justice", "ROUND 3")
    unanimous, backend = await trial(script={"justice": opinion("guilty")}, stop_when_stable=True)
    assert unanimous.outputs["verdict"]["conformity"]["rounds_held"] == 1 and not prompts(backend, "justice", "ROUND 2")


# ---------------------------------------------------------------- the jury


def test_unanimity_majority_and_a_hung_jury():
    assert jury_needed(12, CRIMINAL, "unanimous", 0.75) == 12
    assert jury_needed(12, CRIMINAL, "majority", 0.75) == 7
    assert jury_needed(12, CIVIL, "unanimous", 0.75) == 9
    assert jury_needed(12, CIVIL, "unanimous", 0.5) == 7  # a bare majority is more than half: no 6–6 verdict
    assert jury_verdict(["guilty"] * 12, 12, 12, CRIMINAL) == "guilty"
    assert jury_verdict(["guilty"] * 11 + ["not guilty"], 12, 12, CRIMINAL) == "hung"
    assert jury_verdict(["liable"] * 9 + ["not liable"] * 3, 12, 9, CIVIL) == "liable"
    assert jury_verdict(["liable"] * 8 + ["not liable"] * 4, 12, 9, CIVIL) == "hung"


def juror(verdict: str) -> dict:
    return {"facts_for": ["The testimony proves the defendant was near the scene."],
            "facts_against": ["No witness saw the defendant take anything."],
            "reasoning": f"Weighed against the burden of proof, those facts lead me to a verdict of {verdict} here.",
            "verdict": verdict}


async def test_the_jury_rule_decides_hung_or_not_in_a_trial():
    split = {"juror": juror("guilty"), "juror-12": juror("not guilty")}
    record, _ = await trial(script=split)
    assert record.outputs["jury"]["verdict"] == "hung" and record.outputs["jury"]["votes"] == {"guilty": 11, "not guilty": 1}
    record, _ = await trial(script=split, criminal_rule="majority")
    assert record.outputs["jury"]["verdict"] == "guilty"
    civil = {"juror": juror("liable"), **{f"juror-{n}": juror("not liable") for n in (10, 11, 12)}}
    record, _ = await trial("negligence", script=civil)
    assert record.outputs["jury"]["verdict"] == "liable"  # 9 of 12 reach the civil majority
    record, _ = await trial("negligence", script=civil, civil_majority=0.8)
    assert record.outputs["jury"]["verdict"] == "hung"


# ---------------------------------------------------------------- the why trace


async def test_the_why_trace_verifies_every_quote_with_location_and_nearest_miss():
    real = "No. The impression was too soft for individual characteristics."
    invented = "The print was made by the defendant's left shoe beyond any doubt."
    facts = {"facts": [
        {"source_quote": real, "kind": "physical evidence", "bears_on": "identity", "favours": "defense"},
        {"source_quote": invented, "kind": "testimony", "bears_on": "identity", "favours": "prosecution"},
    ]}
    reasoning = {"narrative": "Someone forced the door; who is not shown.", "contradictions": [],
                 "law_applied": "Identity is not proved beyond a reasonable doubt.", "verdict": "not guilty",
                 "confidence": 0.7}
    record, backend = await trial(script={"clerk": [facts, facts, reasoning]})
    clerk = [r for r in backend.calls if r.role == "clerk"]
    assert "fact 2: the source_quote" in clerk[1].repairs[0][1]  # the repair names the missed quote
    trace = record.outputs["verdict"]["why"]
    first, second = trace["facts"]
    assert first["verified"] and first["location"]["document"] == "burglary/transcript.txt"
    text = record.case.context[0].text
    assert text.splitlines()[first["location"]["line_start"] - 1].endswith(real)
    assert not second["verified"] and second["nearest"]["similarity"] > 0
    assert real in clerk[-1].prompt and invented not in clerk[-1].prompt  # only verified facts are reasoned from
    assert any(w.rule == "fact_unverified" for w in record.warnings)
    assert trace["verdict"] == "not guilty"


async def test_a_failed_clerk_leaves_the_verdict_standing_and_says_the_trace_is_missing():
    small = {"justices": 3, "jurors": 3}
    record, _ = await trial(script={"clerk": [{"$error": "the model went away"}]}, **small)
    assert record.status == "complete" and record.outcome is not None
    assert record.outputs["verdict"]["why"] == {}
    [warning] = [w for w in record.warnings if w.rule == "why_trace"]
    assert warning.agent == "clerk-facts" and "no why trace" in warning.message and "the model went away" in warning.message
    facts = {"facts": [{"source_quote": "No. The impression was too soft for individual characteristics.",
                        "kind": "physical evidence", "bears_on": "identity", "favours": "defense"}]}
    record, _ = await trial(script={"clerk": [facts, {"$error": "timeout"}]}, **small)
    assert record.status == "complete" and record.outputs["verdict"]["why"]["facts"]  # the facts are kept
    assert any(w.rule == "why_trace" and "stops at the facts" in w.message for w in record.warnings)


# ---------------------------------------------------------------- bad transcripts


def write(tmp_path: Path, transcript: dict) -> Path:
    (tmp_path / "t.json").write_text(json.dumps(transcript), encoding="utf-8")
    case = tmp_path / "case.json"
    case.write_text(json.dumps({"question": "Is the defendant guilty?", "procedure": "supreme", "context": ["t.json"]}))
    return case


GOOD = json.loads((CASES / "burglary" / "transcript.json").read_text())


@pytest.mark.parametrize(("change", "message"), [
    ({"type": None}, "t.json: the transcript has no 'type'; add \"type\": \"criminal\" or \"civil\""),
    ({"type": "admiralty"}, "t.json: unknown case type 'admiralty'"),
    ({"witnesses": []}, "t.json: the transcript has no witness sessions"),
    ({"witnesses": [{"witness": "Officer Brandt", "questions": []}]},
     "t.json: malformed witness session at witnesses[0].called_by: Field required"),
    ({"witnesses": [{"witness": "A", "called_by": "defense", "questions": [
        {"question": "Q?", "objection": {"by": "prosecution", "ground": "hearsay", "ruling": "maybe"}}]}]},
     "malformed witness session at witnesses[0].questions[0].objection.ruling"),
    ({**dict.fromkeys(["witnesses", "opening_statements", "closing_statements", "charges", "claims"]),
      "Witnesses": GOOD["witnesses"]},  # sent to the justices as raw JSON text before, with no word
     "t.json: 'Witnesses' is not a transcript field; did you mean 'witnesses'?"),
    ({**dict.fromkeys(["witnesses", "opening_statements", "closing_statements", "charges", "claims"]),
      "witness": GOOD["witnesses"], "charge": GOOD["charges"]},  # tried as a JSON exhibit of plain text before
     "t.json: the transcript has no witness sessions; add 'witnesses'"),
])
def test_bad_transcripts_get_one_clear_line(tmp_path, runs_dir, change, message):
    transcript = {k: v for k, v in {**GOOD, **change}.items() if v is not None}
    case = write(tmp_path, transcript)
    with pytest.raises(CaseError, match=re.escape(message)):
        Trial(load_case(case), settings(), store=None)
    result = CliRunner().invoke(app, ["run", str(case), "-b", "scripted"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert message in result.output and len(result.output.strip().splitlines()) == 1


@naslab
def test_a_bad_type_on_the_command_line_is_one_line(runs_dir):
    result = CliRunner().invoke(app, ["run", "-p", "supreme", "-b", "scripted", "--type", "maritime", "-q",
                                      "Is he guilty?", "-c", str(NASLAB)])
    assert result.exit_code == 2 and "unknown case type 'maritime'" in result.output
    result = CliRunner().invoke(app, ["run", "-p", "supreme", "-b", "scripted", "--input", "type", "-q", "x?"])
    assert result.exit_code == 2 and "--input takes KEY=VALUE" in result.output


def test_an_empty_type_or_input_value_is_one_line_not_ignored(runs_dir):
    # an unset shell variable (`--type "$T"`) must not quietly become "no type given"
    for extra, message in ((["--type", " "], "--type is empty"), (["--input", "type="], "--input type= has no value")):
        result = CliRunner().invoke(app, ["run", "-p", "supreme", "-b", "scripted", *extra, "-q", "Is he guilty?",
                                          "-c", "cases/burglary/transcript.json"])
        assert result.exit_code == 2 and message in result.output, result.output
        assert len(result.output.strip().splitlines()) == 1


def test_an_even_bench_is_refused():
    with pytest.raises(ConfigError, match="justices must be an odd number"):
        settings(justices=8)


# ---------------------------------------------------------------- the throttle


def overlap(timeline: list[tuple[str, float, float]]) -> int:
    """The most calls in flight at once."""
    edges = sorted([(s, 1) for _, s, _ in timeline] + [(e, -1) for _, _, e in timeline])
    now = most = 0
    for _, step in edges:
        now += step
        most = max(most, now)
    return most


async def test_the_throttle_bounds_concurrency_and_spaces_starts():
    small = {"justices": 3, "jurors": 4}
    unlimited = settings(**small).with_overrides({"throttle": {"max_concurrency": 0}})
    _, free = await trial(latency_ms=40, base=unlimited)
    assert overlap(free.timeline) >= 4  # unthrottled, the jury's calls run together
    base = settings(**small).with_overrides({"throttle": {"max_concurrency": 2, "delay_ms": 25}})
    _, backend = await trial(latency_ms=40, base=base)
    assert overlap(backend.timeline) <= 2
    starts = sorted(s for _, s, _ in backend.timeline)
    assert min(b - a for a, b in zip(starts, starts[1:], strict=False)) >= 0.025 - 0.002


async def test_by_default_each_backend_keeps_its_own_bound_and_a_hosted_api_is_spaced_200_ms():
    """[throttle] defaults: each backend keeps its profile's bound (none for the scripted backend:
    it calls no service) and spacing: 200 ms between starts to a hosted API with rate limits,
    none to the scripted one."""
    small = settings(justices=3, jurors=4)
    assert small.throttle.max_concurrency is None and small.throttle.delay_ms is None
    _, scripted = await trial(latency_ms=40, base=small)
    starts = sorted(s for _, s, _ in scripted.timeline)
    assert overlap(scripted.timeline) >= 4 and min(b - a for a, b in zip(starts, starts[1:], strict=False)) < 0.05
    model = ScriptedBackend(latency_ms=5)
    model.name = "anthropic"  # stands in for a hosted API
    record = await Trial(load_case(CASES / "burglary.json"), small.with_params("supreme", {"justices": 3, "jurors": 2,
                                                                                          "rounds": 1}),
                         store=None, backends={"scripted": model}).run()
    assert record.status == "complete"
    starts = sorted(s for _, s, _ in model.timeline)
    assert len(starts) >= 5 and min(b - a for a, b in zip(starts, starts[1:], strict=False)) >= 0.2 - 0.002


def test_the_bound_is_the_backends_own_unless_the_config_sets_one():
    """A five-juror jury goes out at once to an API server (Anthropic, OpenAI-compatible), and
    without spacing to a server that batches; the
    embedded model takes as many as it has decoding slots; an Ollama host four; the scripted
    backend no limit; a plugin backend the old default of 3. ``[throttle] max_concurrency``
    set, it bounds every backend."""
    from courtroom_chat.backends import BackendPool

    base = Settings()
    pacer = BackendPool(base).pacer
    assert {name: pacer.limit(name) for name in ("anthropic", "openai", "local", "ollama", "scripted", "toy")} == {
        "anthropic": 8, "openai": 8, "local": 1, "ollama": 4, "scripted": 0, "toy": 3}
    assert BackendPool(base.with_overrides({"local": {"parallel": 4}})).pacer.limit("local") == 4
    assert {name: pacer.spacing(name) for name in ("anthropic", "openai", "local", "ollama", "scripted", "toy")} == {
        "anthropic": 0.2, "openai": 0.0, "local": 0.0, "ollama": 0.0, "scripted": 0.0, "toy": 0.2}
    capped = BackendPool(base.with_overrides({"throttle": {"max_concurrency": 2, "delay_ms": 50}})).pacer
    assert {capped.limit(name) for name in ("anthropic", "local", "scripted")} == {2}
    assert {capped.spacing(name) for name in ("anthropic", "local", "scripted")} == {0.05}


async def test_a_jury_goes_out_at_once_to_an_api_backend_by_default():
    """Five jurors on an API backend's profile run together (the old default of 3 at once ran
    them in two waves: 1.26 times the four stages' time at 3 s a call)."""
    small = settings(justices=3, jurors=5)
    model = ScriptedBackend(latency_ms=40)
    model.name = "anthropic"  # stands in for an API backend
    record = await Trial(load_case(CASES / "burglary.json"), small.with_overrides({"throttle": {"delay_ms": 0}}),
                         store=None, backends={"scripted": model}).run()
    assert record.status == "complete"
    assert overlap(model.timeline) >= 5


async def test_a_request_stopped_while_it_waits_for_the_throttle_is_never_started():
    """The pacer starts a request only when its turn comes, so stopping a trial while requests
    wait makes none of them (and leaves no coroutine that was made but never awaited)."""
    import asyncio
    import gc
    import warnings

    from courtroom_chat.config import Throttle
    from courtroom_chat.throttle import Pacer

    pacer = Pacer(Throttle(max_concurrency=1, delay_ms=0))
    release, started = asyncio.Event(), []

    async def request(name: str) -> str:
        started.append(name)
        await release.wait()
        return name

    first = asyncio.create_task(pacer.run(lambda: request("first"), "ollama"))
    waiting = asyncio.create_task(pacer.run(lambda: request("waiting"), "ollama"))
    await asyncio.sleep(0.01)
    assert started == ["first"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        release.set()
        assert await first == "first"
        gc.collect()
    assert started == ["first"] and not [w for w in caught if "never awaited" in str(w.message)]
    assert await pacer.run(lambda: request("after"), "ollama") == "after"  # the slot was given back


def test_the_throttle_is_on_the_command_line(runs_dir):
    from courtroom_chat.store import RunStore

    result = CliRunner().invoke(app, ["run", str(CASES / "burglary.json"), "-b", "scripted", "--max-concurrency", "3",
                                      "--delay-ms", "5"])
    assert result.exit_code == 0, result.output
    [row] = RunStore(runs_dir).list()
    assert RunStore(runs_dir).load(row["run_id"]).settings["throttle"] == {"max_concurrency": 3, "delay_ms": 5}
    result = CliRunner().invoke(app, ["run", str(CASES / "burglary.json"), "-b", "scripted", "--delay-ms", "-1"])
    assert result.exit_code == 2 and "delay_ms" in result.output


# ---------------------------------------------------------------- conformity in the evaluation


async def test_eval_counts_switches_per_round_against_the_gold_answer():
    from courtroom_chat.evaluation.methods import prediction_from_record
    from courtroom_chat.evaluation.report import switches

    script = {f"justice-{n}": [opinion("guilty" if n <= 4 else "not guilty"), held("not guilty")] for n in range(1, 10)}
    script["justice-9"] = [opinion("not guilty"), held("guilty")]
    record, _ = await trial(script=script)
    details = prediction_from_record(record).details
    rows = [{"gold": "no", "details": details}, {"gold": "yes", "details": details}, {"gold": "no", "details": {}}]
    counted = switches(rows)
    # justices 1-4 go guilty -> not guilty (toward the majority), justice 9 not guilty -> guilty (away), in each row
    assert counted == {2: {"switches": 10, "correct_to_wrong": 4 + 1, "wrong_to_correct": 1 + 4,
                           "toward_majority": 8, "away_from_majority": 2}}
    assert switches([{"gold": "no", "details": {}}]) == {}


@pytest.mark.parametrize(("name", "size"), [("clear.jsonl", 8), ("heldout.jsonl", 4)])
def test_the_clear_case_set_loads_with_each_type_read_from_its_question(name, size):
    """bench/supreme/clear.jsonl: eight transcripts (heldout.jsonl: four more, written after the
    fixes they measure), half with each answer, half criminal and half civil; the question's
    words decide the type and the labelled answer is the verdict's polarity."""
    from pathlib import Path

    from courtroom_chat.evaluation.datasets import JsonlDataset
    from courtroom_chat.procedures.supreme.transcript import case_type

    items = JsonlDataset(Path(__file__).resolve().parents[1] / "bench" / "supreme" / name).items()
    half = size // 2
    assert len(items) == size and sorted(i.gold for i in items) == ["no"] * half + ["yes"] * half
    kinds = {i.id: case_type(i.case, "civil")[0] for i in items}
    assert sorted(kinds.values()) == ["civil"] * half + ["criminal"] * half
    for item in items:
        (document,) = item.case.context
        assert f"Type: {kinds[item.id]}." in document.text and "CLOSING STATEMENT" in document.text
    assert {(i.gold, kinds[i.id]) for i in items} == {("yes", "criminal"), ("no", "criminal"), ("yes", "civil"), ("no", "civil")}


async def test_every_reply_writes_its_verdict_after_its_reasons_in_the_order_its_prompt_lists():
    """JSON is decoded in the schema's field order. A verdict inherited from a base class kept
    the base's place, first, so every justice and juror committed to a verdict before its
    reasoning, against the prompts' "in this order" (a juror wrote "not guilty", then "there is
    no reasonable doubt about any element"). The schemas sent now follow the prompts."""
    for form, wires in (("analysis", ("OpinionReply", "ConferenceReply")),
                        ("findings", ("FindingsOpinionReply", "FindingsConferenceReply"))):
        record, backend = await trial(opinion_form=form)
        assert record.status == "complete"
        sent, listed = {}, {}
        for call in backend.calls:
            if call.schema and "verdict" in call.schema.get("properties", {}) and call.schema_name not in sent:
                sent[call.schema_name] = list(call.schema["properties"])
                listed[call.schema_name] = re.findall(r'^- "(\w+)":', call.prompt, re.M)  # the prompt as sent
        assert set(sent) == {*wires, "JurorReply", "ReasoningReply"}
        assert all(sent[name] == listed[name] for name in sent), (sent, listed)
        assert sent["JurorReply"] == ["facts_for", "facts_against", "reasoning", "verdict"]
        for fields in sent.values():
            assert fields.index("verdict") >= 2  # after at least two fields of reasons


@pytest.mark.parametrize(("case", "yes", "no"), [("burglary", "guilty", "not guilty"), ("negligence", "liable", "not liable")])
async def test_jurors_list_the_facts_for_each_verdict_and_justices_one_list_of_key_facts(case, yes, no):
    """Each juror lists the facts pointing to each verdict, named by its label, before weighing
    them. Justices keep one list of key facts: given the two lists (293a7bf), 276 of the 1.5B's
    431 items were a witness's heading ("WITNESS 1: Joan Pruitt, neighbour, called by the
    prosecution."), against none of 433 with one list, and no verdict followed the evidence
    better (bench/results/supreme-clear-1.5b-2026-11-27-after/)."""
    script = {f"justice-{n}": [opinion(yes, key_facts=["The clerk saw the defendant at the till.",
                                                       "The defendant was on a flight at the time."]), held(yes)]
              for n in range(1, 10)}
    record, backend = await trial(case, script=script)
    for prompt in prompts(backend, "juror").values():
        assert '"facts_for": the facts' in prompt and f'point to "{yes}"' in prompt and f'point to "{no}"' in prompt
    for call in backend.calls:
        if call.role == "justice":
            assert '"key_facts"' in call.prompt and "facts_for" not in call.prompt
            assert "key_facts" in call.schema["properties"] and "facts_for" not in call.schema["properties"]
    for prompt in prompts(backend, "justice", "ROUND 2").values():
        assert "Key facts: The clerk saw the defendant at the till; The defendant was on a flight at the time." in prompt
    court = record.outputs["verdict"]["opinion_of_the_court"]
    assert court["key_facts"] == [f"A witness testified to a fact that supports {yes}."]


async def test_an_opinion_that_lists_no_key_fact_is_asked_again():
    empty = opinion("guilty", key_facts=[])
    _, backend = await trial(script={"justice-1": [empty, opinion("guilty")]}, rounds=1)
    calls = [c for c in backend.calls if c.agent == "justice-1"]
    assert len(calls) == 2 and "list the key facts" in calls[1].repairs[0][1]


def test_opinions_and_a_juror_recorded_before_the_jurors_two_lists_still_read():
    """Replaying a trial: an opinion's key facts, and a juror's facts in one sentence (before 293a7bf)."""
    from courtroom_chat.procedures.supreme import present

    old = {"verdict": "guilty", "confidence": 0.8, "key_facts": ["The video shows the defendant."],
           "evidence_analysis": "Strong.", "standard": "Met."}
    assert "- The video shows the defendant." in present.opinion_markdown(old)
    assert "Key facts: The video shows the defendant." in present.digest([("Justice A", old)], [old], True, ["guilty", "not guilty"], 1)
    assert "**Facts found:** near the scene" in present.juror_markdown({"verdict": "guilty", "facts": "near the scene",
                                                                        "reasoning": "Proved."})


async def test_shuffled_labels_give_each_agent_its_own_seeded_order_in_prompt_and_schema():
    """The order control (issue 21): with ``shuffle_labels`` each justice, juror and the clerk
    read the two verdicts in their own seeded order, the schema's in the same order, recorded
    in the run; the same seed gives the same orders, and off every agent reads guilty first.
    On by default: in one order the 1.5B's bench said Yes to every clear case, 9-0."""
    record, backend = await trial(shuffle_labels=True, seed=7)
    orders = record.outputs["orders"]
    assert len(orders) == 9 + 12 + 1 and {tuple(o["labels"]) for o in orders.values()} == {
        ("guilty", "not guilty"), ("not guilty", "guilty")}
    for call in backend.calls:
        if call.agent in orders and not call.repairs:
            first, second = orders[call.agent]["labels"]
            assert f'"verdict": exactly "{first}" or "{second}"' in call.prompt, call.agent
            assert call.schema["properties"]["verdict"]["enum"] == [first, second]
    again, _ = await trial(shuffle_labels=True, seed=7)
    other, _ = await trial(shuffle_labels=True, seed=8)
    assert again.outputs["orders"] == orders != other.outputs["orders"]
    plain, backend = await trial(shuffle_labels=False)
    assert "orders" not in plain.outputs
    assert all('exactly "guilty" or "not guilty"' in c.prompt for c in backend.calls if c.role in ("justice", "juror"))
    default, _ = await trial(seed=7)  # on by default since the clear cases (bench/results/supreme-order-control-*)
    assert default.outputs["orders"] == orders


async def test_the_standard_applied_is_the_case_types_and_no_justice_restates_it_before_its_verdict():
    """Asked for "the legal standard applied" just before the verdict, every justice copied the
    burden instruction ("The verdict is 'guilty' only if…") and wrote "guilty" next, against its
    own analysis (a fire the marshal found electrical, no accelerant, the defendant at work
    across town: guilty 9-0). The standard is recorded from the case type; the analysis ends on
    whether it is met."""
    record, backend = await trial()
    assert all('"standard"' not in c.prompt for c in backend.calls if c.role == "justice")
    assert all("standard" not in c.schema["properties"] for c in backend.calls if c.role == "justice")
    assert record.outputs["justice-1@1"]["standard"] == "beyond a reasonable doubt, the burden on the prosecution"
    assert record.outputs["verdict"]["opinion_of_the_court"]["standard"].startswith("beyond a reasonable doubt")


async def test_an_opinion_that_concludes_in_plain_words_is_not_sent_back_as_a_leak():
    """Told to end "with whether the burden of proof is met", justices wrote "The burden of proof
    is met" and the prompt-leak rule sent 12 of 18 opinions back (whitlock-theft on the 1.5B,
    2026-11-27: 44 calls, 726 s instead of 33 and 459). The prompts now ask in words a
    conclusion does not repeat, and a philosophy may be restated in its own words."""
    said = opinion("guilty", evidence_analysis="The video and the signed statement outweigh the defense's points, and the "
                   "burden of proof is met. Read as a whole, the overall pattern of the evidence points to guilt; "
                   "the prosecution proved its case beyond a reasonable doubt.",
                   key_facts=["No receipt was produced, which does not cast doubt on the charge."])
    held_said = said | {"changed": False, "why": "Nothing in the other opinions changes the record."}
    record, backend = await trial(script={f"justice-{n}": [said, held_said] for n in range(1, 10)})
    assert not [w for w in record.warnings if w.rule == "prompt_leak"]
    assert len([c for c in backend.calls if c.role == "justice"]) == 18


async def test_a_justices_vote_can_be_read_from_its_own_analysis():
    """``verdict_from = "analysis"``: on the 1.5B justices wrote analyses that followed the
    evidence and a verdict next that did not ("the video shows no fall, the log shows no spill"
    → liable). A second short call reads the analysis alone (no transcript, no philosophy), in
    the justice's own order of the verdicts, and its answer is the vote; the written verdict is
    kept, and where the two differ the opinion and the verdict document say so."""
    doubt = opinion("guilty", evidence_analysis="The airline's records put the defendant on a flight at the hour of the "
                    "burglary, so the identification cannot be right and the prosecution did not prove its case.")
    read = {"finding": "The analysis finds the defendant was elsewhere.", "verdict": "not guilty"}
    final = doubt | {"changed": False, "why": "Nothing in the other opinions changes the record."}
    script = {"justice-1": [doubt, read, final, read]}
    record, backend = await trial(script=script, seed=3, verdict_from="analysis")
    first, second = record.outputs["justice-1@1"], record.outputs["justice-1@2"]
    assert first["verdict"] == "not guilty" and first["written_verdict"] == "guilty" and first["reading"] == read["finding"]
    assert second["verdict"] == "not guilty" and second["changed"] is False  # what it did: held not guilty
    rereads = [c for c in backend.calls if c.role == "justice" and c.schema_name == "RereadReply"]
    assert len(rereads) == 18 and len(backend.calls) == 18 + 18 + 12 + 2
    mine = [c for c in rereads if c.agent == "justice-1"]
    assert mine[0].prefix == "" and "airline's records" in mine[0].prompt and "Lena Brandt" not in mine[0].prompt
    assert "philosophy" not in mine[0].prompt and mine[0].temperature == 0.0
    order = record.outputs["orders"]["justice-1"]["labels"]
    assert all(c.schema["properties"]["verdict"]["enum"] == order for c in mine)
    assert f'exactly "{order[0]}" or "{order[1]}"' in mine[0].prompt
    from courtroom_chat.procedures.supreme import present
    assert 'the opinion wrote "guilty", which its analysis does not support' in present.opinion_markdown(first)
    readings = record.outputs["verdict"]["readings"]
    assert readings["read"] == 18 and readings["differed"] == [
        "Justice 1 (strict constructionist), round 1: wrote guilty, analysis supports not guilty",
        "Justice 1 (strict constructionist), round 2: wrote guilty, analysis supports not guilty"]
    assert "Votes read from the analyses: 18 opinions; in 2 the written verdict" in record.outcome.markdown.replace("**", "")


async def test_a_reading_that_fails_leaves_the_written_verdict_with_a_warning():
    bad = {"finding": "Unclear.", "verdict": "maybe"}
    record, _ = await trial(script={"justice-2": [opinion("guilty"), bad, bad]}, verdict_from="analysis")
    assert record.outputs["justice-2@1"]["verdict"] == "guilty" and "written_verdict" not in record.outputs["justice-2@1"]
    assert [w for w in record.warnings if w.rule == "reread" and w.agent == "justice-2"]


async def test_by_default_the_vote_is_the_written_verdict_and_nothing_is_read_back():
    record, backend = await trial()
    assert not [c for c in backend.calls if c.schema_name == "RereadReply"]
    assert "written_verdict" not in record.outputs["justice-1@1"] and "readings" not in record.outputs["verdict"]


def dry_run(tmp_path: Path, supreme: str) -> str:
    """The CLI's dry run of the burglary case with ``supreme`` as its [procedures.supreme] lines."""
    config = tmp_path / "c.toml"
    config.write_text(f"[procedures.supreme]\n{supreme}\n")
    result = CliRunner().invoke(app, ["run", str(CASES / "burglary.json"), "--procedure", "supreme", "--backend",
                                      "scripted", "--dry-run", "--config", str(config)], env={"COURTROOM_RUNS_DIR": str(tmp_path)})
    assert result.exit_code == 0, result.output
    return result.output


def test_a_dry_run_shows_the_reading_of_each_analysis_when_votes_are_read_back(tmp_path):
    output = dry_run(tmp_path, 'verdict_from = "analysis"')
    assert "Which verdict does this analysis support?" in output
    assert "[the justice's evidence analysis]" in output


def test_a_transcript_that_is_not_json_is_one_line_not_text_tried(tmp_path, runs_dir):
    (tmp_path / "t.json").write_text('{"type": "criminal", "title": "x",', encoding="utf-8")
    case = tmp_path / "case.json"
    case.write_text(json.dumps({"question": "Is the defendant guilty?", "procedure": "supreme", "context": ["t.json"]}))
    result = CliRunner().invoke(app, ["run", str(case), "-b", "scripted"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "t.json: malformed JSON at line 1" in result.output and len(result.output.strip().splitlines()) == 1


def test_a_reason_names_a_witness_by_surname_or_number_but_not_the_accused_by_name():
    """Which witness a fragility check withholds starts from the names in the reasons; a party
    the question names (the accused, the plaintiff) is named in every reason, testifying or not,
    so that surname does not count, though "witness 3" does."""
    from courtroom_chat.procedures.supreme.transcript import names

    q = "Is Dana Whitlock guilty of theft of the laptop?"
    assert names("Officer Brandt found the laptop in the car.", 2, "Officer Lena Brandt", q)
    assert names("As witness 2 said, the bag was in the car.", 2, "Officer Lena Brandt", q)
    assert not names("Whitlock took the laptop.", 3, "Dana Whitlock, the defendant", q)
    assert names("Whitlock took the laptop.", 3, "Dana Whitlock, the defendant")  # no question: the name counts
    assert names("Witness 3 admitted taking it.", 3, "Dana Whitlock, the defendant", q)
    assert not names("Officer Brandtner said so.", 2, "Officer Lena Brandt", q)  # a whole word only


WHITLOCK = Path(__file__).resolve().parents[1] / "bench" / "supreme" / "clear" / "whitlock-theft.txt"


def test_testimony_is_who_the_witness_is_and_what_was_asked_and_answered():
    """What reasons are matched against: the witness's name and role, each question and answer
    without its speaker's label, in either rendering ("A:" or "A (Name):"); not who called the
    witness, nor an objection and its ruling."""
    from courtroom_chat.procedures.supreme.transcript import parse, sessions, testimony

    brandt = sessions(WHITLOCK.read_text(encoding="utf-8"))[1][2]
    said = testimony(brandt)
    assert said.splitlines()[:2] == ["Officer Lena Brandt", "What did you find when you stopped the defendant's car?"]
    assert "No. She said she had never had one." in said.splitlines()
    assert "called by" not in said and "Hearsay" not in said and "Q (" not in said and "A:" not in said
    rendered = parse("burglary", json.loads((CASES / "burglary" / "transcript.json").read_text(encoding="utf-8"))).text()
    okafor = testimony(sessions(rendered)[2][2])
    assert okafor.startswith("Detective Samuel Okafor, crime scene technician\nWhat did you find outside the rear door?\n"
                             "Two partial shoe impressions") and "A (" not in okafor


def test_the_last_witness_session_ends_where_the_closing_statements_begin():
    """A transcript written in the rendered shape goes on, after its last witness, to the closing
    statements ("CLOSING STATEMENT (prosecution): …"). They are not that witness's testimony:
    withholding the last witness keeps them (before, every .txt transcript's last session ran to
    the end, and a check withholding it withheld the closings too)."""
    from courtroom_chat.case import Document
    from courtroom_chat.procedures.supreme.transcript import sessions, without

    text = WHITLOCK.read_text(encoding="utf-8")
    number, witness, lines = sessions(text)[-1]
    assert (number, witness) == (3, "Dana Whitlock, the defendant") and lines.endswith("A: Yes, that is me.")
    left = without([Document(name="whitlock.txt", kind="text", text=text)], 0, number, witness, lines)[0].text
    assert "WITNESS 3: Dana Whitlock, the defendant [testimony withheld]" in left and "Yes, that is me." not in left
    assert "CLOSING STATEMENT (prosecution): The video, the serial number" in left
    assert "OBJECTION (defense): Hearsay." in sessions(text)[1][2]  # an objection stays in its session


def test_the_witness_cited_most_is_the_one_whose_own_testimony_the_reasons_state():
    """Witnesses restate one another's facts, and the defendant's two answers ("No, I did not pay
    for it", "Yes, that is me") share the words every reason uses. Matched on half of each
    session's words, reasons that state the store manager's testimony pick the defendant (the
    1.5B's bench on whitlock, 2026-12-01); matched on the words a testimony alone holds, not the
    question's, they pick the store manager."""
    from courtroom_chat.procedures.deliberation import cited_most
    from courtroom_chat.procedures.supreme.transcript import names, sessions, testimony

    question = "Is Dana Whitlock guilty of theft of the laptop?"
    held = sessions(WHITLOCK.read_text(encoding="utf-8"))
    reasons = ["The store video shows Whitlock lifting the boxed laptop off the shelf and walking past the tills "
               "to the exit; the defendant did not pay for it.",
               "The video shows her face at the exit door in a red jacket, and no sale of the laptop was recorded "
               "that evening, so the defendant took it without paying.",
               "The defendant is the person in the store video and she did not pay for the laptop."]

    def named(text: str) -> set[int]:
        return {i for i, (number, witness, _) in enumerate(held) if names(text, number, witness, question)}

    before = cited_most({i: s[2] for i, s in enumerate(held)}, reasons, reasons, named)
    after = cited_most({i: testimony(s[2]) for i, s in enumerate(held)}, reasons, reasons, named, apart=question)
    assert held[before][1] == "Dana Whitlock, the defendant" and held[after][1] == "Kevin Osei, store manager"
    # a name still counts, and the officer's own facts point to her
    officer = ["Officer Brandt said the serial number matched and the security tag was inside the box.",
               "She signed the officer's notebook after her rights were read."]
    assert held[cited_most({i: testimony(s[2]) for i, s in enumerate(held)}, officer, officer, named,
                           apart=question)][1] == "Officer Lena Brandt"


async def test_fragility_withholds_the_witness_the_majority_relied_on_and_the_justices_sit_again():
    """The majority's final opinions name Okafor (witness 3): his session is withheld from the
    transcript the justices read again (both rounds, no jury); here the decision turns."""
    relied = opinion("guilty", key_facts=["Detective Okafor matched the shoe impressions to the defendant's size."])
    script = {f"justice-{n}": [relied, {**relied, "changed": False, "why": "Nothing new."},
                               opinion("not guilty"), held("not guilty")] for n in range(1, 10)}
    backend = ScriptedBackend(script=script)
    record = await Trial(load_case(CASES / "burglary.json"), settings(), store=None, fragility=True,
                         backends={"scripted": backend}).run()
    assert record.outcome.label == "guilty"
    found = record.outcome.data["fragility"]
    assert found["removed"] == "witness 3's testimony (Detective Samuel Okafor)" and found["held"] is False
    assert found["answer"] == "not guilty" and found["split"] == "9–0"
    assert found["summary"].startswith("the decision rests on witness 3's testimony: without the testimony of witness 3")
    justices = [r for r in backend.calls if r.role == "justice"]
    again = justices[18:]
    assert len(again) == 18 and not any(r.role == "juror" for r in backend.calls[backend.calls.index(again[0]):])
    assert all("WITNESS 3: Detective Samuel Okafor, crime scene technician [testimony withheld]" in r.user_text()
               for r in again)
    assert all("Stridex" not in r.user_text().split("WITNESS 3:")[1].split("WITNESS 4:")[0] for r in again)
    assert "WITNESS 2: Ruth Abernathy, called by the prosecution" in again[0].user_text()  # the others stay
    assert sum(c.stage.startswith("fragility:") for c in record.calls) == 18


async def test_fragility_keeps_each_justices_order_of_the_verdicts_and_says_what_a_hold_then_means():
    """The check decides again with the same seed, so every justice reads the two verdicts in the
    order it read them in the trial. Justices who vote whatever is listed first to them (the 1.5B
    on heldout marsh, 2026-12-01: 9 of 9, with and without the most-cited witness) hold by that
    order alone, and How sure says the hold says little of the evidence."""
    from courtroom_chat.render import how_sure

    first, _ = await trial(seed=5)
    orders = first.outputs["orders"]
    top = {n: orders[f"justice-{n}"]["labels"][0] for n in range(1, 10)}
    script = {f"justice-{n}": [opinion(top[n]), held(top[n]), opinion(top[n]), held(top[n])] for n in range(1, 10)}
    backend = ScriptedBackend(script=script)
    record = await Trial(load_case(CASES / "burglary.json"), settings(), store=None, fragility=True, seed=5,
                         backends={"scripted": backend}).run()
    listed: dict[str, list[str]] = {}  # each justice's first-listed verdict, call by call
    for r in backend.calls:
        if r.role == "justice":
            listed.setdefault(r.agent, []).append(re.search(r'"verdict": exactly "([^"]+)" or', r.prompt).group(1))
    assert listed == {f"justice-{n}": [top[n]] * 4 for n in range(1, 10)}
    data = record.outcome.data
    assert data["order"]["followed"] == 9 and data["fragility"]["held"] is True
    line = next(x for x in how_sure(record.outcome.model_dump()) if x.startswith("Fragility:"))
    assert line.endswith("the check kept each member's order of the labels, which decided these votes, so its "
                         "holding says little of the evidence")


@naslab
async def test_fragility_of_a_plain_text_transcript_is_not_run(runs_dir):
    case = load_case(None, question="Is Marcus Webb guilty of murder?", context=[str(NASLAB)])
    record = await Trial(case, settings(), procedure="supreme", store=None, fragility=True).run()
    assert record.procedure == "supreme" and record.outcome.data["fragility"]["held"] is None


def findings(verdict: str, *found: str, **extra) -> dict:
    return {"key_facts": ["Officer Brandt saw a man near the store at 11:47 p.m."],
            "elements": [{"element": f"Element {n}.", "evidence": "Officer Brandt", "finding": f}
                         for n, f in enumerate(found, 1)],
            "verdict": verdict, "confidence": 0.7, **extra}


async def test_the_findings_form_asks_a_finding_on_each_element_and_binds_the_verdict_to_them():
    record, backend = await trial(opinion_form="findings")
    justice = next(c for c in backend.calls if c.agent == "justice-1")
    assert '- "elements": each element the prosecution must prove, in order' in justice.prompt
    assert '"guilty" only if every element is "proved"; if any is "not proved", "not guilty".' in justice.prompt
    assert "evidence_analysis" not in justice.prompt
    assert list(justice.schema["properties"]) == ["key_facts", "elements", "verdict", "confidence"]
    conference = next(c for c in backend.calls if c.agent == "justice-1" and "CONFERENCE" in c.prompt)
    assert list(conference.schema["properties"]) == ["key_facts", "elements", "verdict", "confidence", "changed", "why"]
    opinion = record.outputs["justice-1@1"]
    assert opinion["elements"] and opinion["evidence_analysis"].startswith(opinion["elements"][0]["element"].rstrip("."))
    plan = await Trial(load_case(CASES / "burglary.json"), settings(opinion_form="findings"), store=None,
                       dry_run=True).run()
    assert any('"elements": each element' in str(e) for e in plan.events)


async def test_a_verdict_against_its_own_findings_is_sent_back_then_read_from_them():
    against = findings("guilty", "proved", "not proved")
    script = {"justice-3": [against, against, *[held("not guilty")] * 2]}
    record, backend = await trial(script=script, opinion_form="findings")
    calls = [c for c in backend.calls if c.agent == "justice-3"]
    assert "your findings leave element 2 not proved, yet your verdict is guilty" in calls[1].repairs[0][1]  # the repair
    opinion = record.outputs["justice-3@1"]
    assert opinion["verdict"] == "not guilty" and opinion["written_verdict"] == "guilty"
    assert any(w.rule == "findings_verdict" and w.agent == "justice-3" for w in record.warnings)
    assert "wrote guilty, its findings support not guilty" in " ".join(record.outputs["verdict"]["readings"]["differed"])


async def test_the_analysis_form_is_unchanged_by_default():
    record, backend = await trial()
    justice = next(c for c in backend.calls if c.agent == "justice-1")
    assert "evidence_analysis" in justice.schema["properties"] and "elements" not in justice.schema["properties"]
    assert '- "evidence_analysis": three or four sentences weighing the evidence for and against, including its ' \
           'weaknesses; end with one sentence on whether the prosecution proved its case.\n- "verdict": exactly' in justice.prompt


class OrderFollower(ScriptedBackend):
    """The demo court, except that the named members write whichever verdict is listed first
    to them, as the 1.5B's justices mostly did on the clear No cases."""

    def __init__(self, followers: set[str], **kw):
        super().__init__(**kw)
        self.followers = followers

    def derive(self, request):
        reply = super().derive(request)
        enum = ((request.schema or {}).get("properties", {}).get("verdict") or {}).get("enum")
        if request.agent in self.followers and isinstance(reply, dict) and enum:
            reply = {**reply, "verdict": enum[0]}
        return reply


async def test_both_orders_asks_every_member_twice_and_a_verdict_that_follows_the_order_goes_to_the_defense():
    """``both_orders`` (issue 13): each justice (both rounds) and juror is asked again with the
    two verdicts listed the other way; a verdict that holds counts, one that follows the order
    was not persuaded and counts for the side without the burden. The second asking reads the
    same transcript, is not shown as a second card, and the opinion says what it did."""
    followers = {"justice-1", "justice-2", "juror-1", "juror-2", "juror-3"}
    backend = OrderFollower(followers)
    record = await Trial(load_case(CASES / "burglary.json"), settings(both_orders=True), store=None, seed=7,
                         backends={"scripted": backend}).run()
    by_agent: dict[str, list] = {}
    for call in backend.calls:
        by_agent.setdefault(call.agent, []).append(call)
    assert len(backend.calls) == 9 * 2 * 2 + 12 * 2 + 2
    orders = record.outputs["orders"]
    for name in ("justice-1", "justice-5", "juror-1", "juror-7"):
        calls = by_agent[name]
        for first, again in zip(calls[::2], calls[1::2], strict=True):
            assert first.schema["properties"]["verdict"]["enum"] == orders[name]["labels"]
            assert again.schema["properties"]["verdict"]["enum"] == orders[name]["labels"][::-1]
            assert again.inputs.get("swapped") is True and "swapped" not in first.inputs
            assert again.case is first.case and again.prompt != first.prompt
            a, b = orders[name]["labels"]
            assert f'exactly "{b}" or "{a}"' in again.prompt
    one = record.outputs["justice-1@1"]
    assert one["verdict"] == "not guilty" and {k: v for k, v in one["orders"].items() if k != "confidence"} == {
        "held": False, "first": orders["justice-1"]["labels"][0], "other": orders["justice-1"]["labels"][1]}
    assert one["confidence"] == 0.5
    assert "followed the order the verdicts were listed in" in present_opinion(one)
    steady = record.outputs["justice-5@1"]
    assert steady["orders"]["held"] is True and steady["verdict"] == steady["orders"]["first"]
    assert "held with the verdicts listed either way" in present_opinion(steady)
    doc = record.outputs["verdict"]
    assert doc["both_orders"]["asked"] == 18 and doc["both_orders"]["counted_for"] == "not guilty"
    assert doc["both_orders"]["held"] == 14 and len(doc["both_orders"]["followed"]) == 4  # justices 1 and 2, twice
    assert all(f.startswith(("Justice 1 ", "Justice 2 ")) for f in doc["both_orders"]["followed"])
    assert record.outputs["jury"]["both_orders"] == {"asked": 12, "held": 9}
    assert record.outputs["juror-1"]["verdict"] == "not guilty"
    assert "Verdicts asked both ways round:" in record.outcome.markdown
    started = [e for e in record.events if e.get("type") == "agent_started" and e.get("agent") == "justice-1"]
    assert len(started) == 2  # one card a round: the second asking is not announced


def present_opinion(o: dict) -> str:
    from courtroom_chat.procedures.supreme import present
    return present.opinion_markdown(o)


async def test_with_both_orders_off_each_member_is_asked_once():
    record, backend = await trial(seed=7)
    assert len(backend.calls) == 9 * 2 + 12 + 2 and not any("swapped" in c.inputs for c in backend.calls)
    assert "both_orders" not in record.outputs["verdict"] and "orders" not in record.outputs["justice-1@1"]


async def test_a_second_asking_that_fails_leaves_the_first_verdict_with_a_warning():
    record, _ = await trial(script={"justice-2": [opinion("guilty"), {"$error": "the model went away"},
                                                  held("guilty"), held("guilty")]}, both_orders=True, seed=7)
    first = record.outputs["justice-2@1"]
    assert first["verdict"] == "guilty" and "orders" not in first
    assert [w for w in record.warnings if w.rule == "both_orders" and w.agent == "justice-2"]
    assert record.outputs["justice-2@2"]["orders"]["held"] is True


def test_held_both_keeps_a_label_given_both_ways_else_the_default():
    from courtroom_chat.procedures.deliberation import held_both
    assert held_both("guilty", "guilty", "not guilty") == ("guilty", True)
    assert held_both("not guilty", "not guilty", "not guilty") == ("not guilty", True)
    assert held_both("guilty", "not guilty", "not guilty") == ("not guilty", False)
    assert held_both("liable", "not liable", "not liable") == ("not liable", False)


def test_a_dry_run_with_both_orders_shows_every_prompt_in_both_orders(tmp_path):
    output = dry_run(tmp_path, "both_orders = true\nshuffle_labels = false")
    assert "**Dry run:** 62 prompts" in output  # 18 opinions, 12 jurors, each twice; 2 clerk steps
    assert output.count('exactly "guilty" or "not guilty"') == 9 * 2 + 12 + 1  # the clerk's once
    assert output.count('exactly "not guilty" or "guilty"') == 9 * 2 + 12


async def test_both_orders_with_votes_read_from_the_analyses_reads_each_asking():
    """With ``verdict_from = "analysis"`` each asking is read back on its own; the opinion says
    what its analysis supported, and whether that held with the order reversed."""
    read_ng = {"finding": "The analysis finds the defendant was elsewhere.", "verdict": "not guilty"}
    read_g = {"finding": "The analysis finds the entry proved.", "verdict": "guilty"}
    script = {"justice-1": [opinion("guilty"), read_ng, opinion("guilty"), read_g,
                            held("guilty"), read_g, held("guilty"), read_g]}
    record, backend = await trial(script=script, seed=3, verdict_from="analysis", both_orders=True)
    first = record.outputs["justice-1@1"]
    assert first["orders"] == {"held": False, "first": "not guilty", "other": "guilty", "confidence": 0.7}
    assert first["verdict"] == "not guilty"
    from courtroom_chat.procedures.supreme import present
    text = present.opinion_markdown(first)
    assert 'the opinion wrote "guilty", which its analysis does not support' in text and "followed the order" in text
    second = record.outputs["justice-1@2"]
    assert second["orders"]["held"] is True and second["verdict"] == "guilty"
    assert len([c for c in backend.calls if c.agent == "justice-1" and c.schema_name == "RereadReply"]) == 4
    assert record.outputs["verdict"]["readings"]["differed"] == [
        "Justice 1 (strict constructionist), round 1: wrote guilty, analysis supports not guilty"]


async def test_with_both_orders_an_opinion_that_followed_the_order_never_speaks_for_the_court():
    """Every justice writes whichever verdict is listed first, with an analysis for it: the rule
    counts each for not guilty, so the court decides not guilty 9-0, and no opinion arguing
    guilty is handed down as the court's; at the conference each reads what it wrote, and what
    its vote was counted as."""
    justices = {f"justice-{n}" for n in range(1, 10)}
    backend = OrderFollower(justices)
    record = await Trial(load_case(CASES / "burglary.json"), settings(both_orders=True), store=None, seed=7,
                         backends={"scripted": backend}).run()
    doc = record.outputs["verdict"]
    assert doc["decision"] == "not guilty" and doc["bench"]["votes"]["not guilty"] == 9
    assert doc["opinion_of_the_court"]["author"] == "" and "No opinion of the majority held" in \
        doc["opinion_of_the_court"]["analysis"]
    assert "**No opinion of the court:**" in record.outcome.markdown
    first = record.outputs["justice-1@1"]
    conference = [c for c in backend.calls if c.agent == "justice-1" and "ROUND 2" in c.prompt][0]
    wrote = first["orders"]["first"]
    assert f"YOUR OPINION IN ROUND 1: {wrote} (confidence " in conference.prompt
    assert f'you wrote "{first["orders"]["other"]}"' in conference.prompt
    assert 'so your vote was counted as "not guilty"' in conference.prompt


def test_both_orders_and_the_findings_form_are_refused_together():
    with pytest.raises(ConfigError, match="use one of both_orders and opinion_form"):
        settings(both_orders=True, opinion_form="findings").procedure_params("supreme")


async def test_a_json_exhibit_beside_the_transcript_is_evidence_and_cased_fields_are_named(tmp_path):
    from courtroom_chat.case import pasted_document
    from courtroom_chat.procedures.supreme.transcript import is_transcript

    exhibit = pasted_document('{"charge": "theft", "officer": "Smith"}', 1).model_copy(update={"name": "exhibit.json",
                                                                                           "kind": "json"})
    assert is_transcript(exhibit) is None
    cased = exhibit.model_copy(update={"text": json.dumps({"Opening Statements": [], "type": "civil"})})
    with pytest.raises(CaseError, match="'Opening Statements' is not a transcript field; did you mean 'opening_statements'"):
        is_transcript(cased)
