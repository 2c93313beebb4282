"""The criminal trial: full scripted trials in Chinese and English, the host, the turn cap,
repairs of repeated and role-breaking turns, the masked indictment, the judgment's sentence
read from its text, both SimCourt formats, bad case files, and the simcourt_ljp dataset."""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from courtroom_chat.backends.scripted import ScriptedBackend
from courtroom_chat.case import Case, load_case
from courtroom_chat.config import Settings
from courtroom_chat.engine import Trial
from courtroom_chat.errors import CaseError
from courtroom_chat.evaluation.datasets import data_dir
from courtroom_chat.frontends.cli import app
from courtroom_chat.procedures import get
from courtroom_chat.procedures.criminal.rules import (
    judgment_problems,
    number,
    same_charges,
    specific_forms,
    stated,
    turn_problems,
)
from courtroom_chat.procedures.criminal.session import judgment_of
from courtroom_chat.procedures.criminal.wire import JudgmentReply, RecordEntry
from tests.conftest import CASES

LJP = data_dir() / "simcourt_ljp"
OLD = data_dir() / "simcourt" / "data"
needs_data = pytest.mark.skipif(not (LJP / "cases").is_dir() or not OLD.is_dir(), reason="shared SimCourt data absent")
STAGES = ["preparation", "investigation", "evidence", "debate", "final_statement", "judgment"]
ENGLISH = CASES / "criminal-burglary.json"


def settings(**params: Any) -> Settings:
    return Settings().with_backend("scripted").with_params("criminal", params) if params else \
        Settings().with_backend("scripted")


async def trial(case: Case, backend: ScriptedBackend | None = None, **params: Any):
    events: list[Any] = []
    backends = {"scripted": backend} if backend else None
    record = await Trial(case, settings(**params), store=None, procedure="criminal", backends=backends).run(events.append)
    return record, events


def entries(record) -> list[RecordEntry]:
    return [RecordEntry(**e) for e in record.outputs["court_record"]["entries"]]


def stage_order(events) -> list[str]:
    return list(dict.fromkeys(e.stage for e in events if e.type == "stage_started"))


async def test_an_english_trial_holds_every_stage_in_order_and_ends_in_a_typed_judgment():
    record, events = await trial(load_case(ENGLISH))
    assert record.status == "complete" and stage_order(events) == STAGES
    judgment = record.outputs["judgment"]
    assert judgment["charges"] == ["burglary"] and judgment["term_months"] == 12 and judgment["probation_months"] == 12
    assert record.outcome.answer.startswith("Daniel Reyes: guilty of burglary")
    record_ = entries(record)
    assert [e.turn for e in record_] == list(range(1, len(record_) + 1))
    assert {e.speaker for e in record_} == {"judge", "prosecution", "advocate", "defendant", "stenographer"}
    assert record_[0].speaker == "stenographer" and record_[-1].stage == "judgment"
    assert not any("\u4e00" <= c <= "\u9fff" for e in record_ for c in e.text)  # a Latin-script case stays so
    debate = [e for e in events if e.type == "stage_started" and e.stage == "debate"]
    assert [e.round for e in debate] == [1, 2]  # one round of the stage per debate focus


async def test_asked_the_other_way_a_conviction_answers_no_and_the_mirror_agrees():
    """"Is X not guilty …?" (what --mirror asks): a conviction is No to it. It was Yes to both, so
    the mirror of every conviction read "Yes to both: it leans toward Yes" where the two agreed."""
    case = load_case(ENGLISH)
    asked = case.model_copy(update={"question": "Is Daniel Reyes not guilty of burglary, and what sentence should the "
                                                "court impose?"})
    record, _ = await trial(asked)
    assert record.outputs["judgment"]["charges"] == ["burglary"]
    assert record.outcome.polarity == "no" and record.outcome.answer.startswith("Daniel Reyes: guilty of burglary")
    straight, _ = await trial(case)
    assert straight.outcome.polarity == "yes"
    mirrored = await Trial(case, settings(), store=None, procedure="criminal", mirror=True).run()
    assert mirrored.outcome.data["mirror"]["kind"] == "agree"


@needs_data
async def test_a_chinese_trial_from_the_judgment_prediction_data():
    record, events = await trial(load_case(LJP / "cases" / "10.json"))
    assert record.status == "complete" and stage_order(events) == STAGES
    assert record.outputs["judgment"]["charges"] == ["盗窃罪"]
    assert record.outcome.label == "盗窃罪" and "判处有期徒刑" in record.outputs["judgment"]["text"]


@needs_data
async def test_only_the_masked_indictment_reaches_any_prompt():
    path = LJP / "cases" / "10.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    full, masked = raw["prosecution_statement"], raw["prosecution_statement_sub"]
    cut = next(i for i, (a, b) in enumerate(zip(full, masked, strict=False)) if a != b)
    unmasked = full[cut:cut + 12]
    assert unmasked not in masked
    backend = ScriptedBackend()
    record, _ = await trial(load_case(path), backend)
    prompts = [m["content"] for call in record.calls for m in call.messages]
    assert prompts and all(unmasked not in p and raw["result"] not in p for p in prompts)
    assert any(masked.strip()[:200] in p for p in prompts)


class Scripted(ScriptedBackend):
    """The scripted backend with some replies replaced: ``replace(request)`` returns one or None."""

    def __init__(self, replace):
        super().__init__()
        self.replace = replace

    def derive(self, request):
        return self.replace(request) or super().derive(request)


def saying(agent: str, kind: str, text: str) -> Scripted:
    """The scripted backend with ``agent`` giving ``text`` for every turn of ``kind``, repairs too."""
    return Scripted(lambda request: {"text": text} if request.agent == agent and request.inputs.get("kind") == kind
                    else None)


async def test_the_judge_chooses_who_questions_the_defendant_and_ends_the_stage():
    chosen = iter(["judge", "advocate", "end"])

    def host(request):
        if request.schema_name == "HostChoice" and request.inputs.get("stage") == "investigation":
            return {"next": next(chosen), "reason": "order of the court"}
        return None

    record, _ = await trial(load_case(ENGLISH), Scripted(host))
    askers = [e.speaker for e in entries(record) if e.stage == "investigation" and "?" in e.text
              and e.speaker != "defendant" and e.turn > 6]
    assert askers == ["judge", "advocate"]


async def test_the_turn_cap_bounds_a_stage():
    record, _ = await trial(load_case(ENGLISH), max_turns=4)
    spoken = [e for e in entries(record) if e.stage == "investigation" and e.speaker in ("defendant", "advocate")
              or (e.stage == "investigation" and e.speaker == "prosecution" and "?" in e.text)]
    assert len(spoken) <= 4  # the plea, then one question and its answer
    evidence = [e for e in entries(record) if e.stage == "evidence" and e.text.startswith("We present")]
    assert len(evidence) == 1  # five items presented together in the one presentation that fits


async def test_a_role_break_and_a_repeat_are_repaired_once_with_the_reason():
    def bad(request):
        first = not request.repairs
        if request.agent == "advocate" and request.inputs.get("kind") == "challenge" and first:
            return {"text": "Prosecution: we withdraw the exhibit.\nAdvocate: thank you."}
        if request.agent == "defendant" and request.inputs.get("kind") == "final" and first:
            earlier = request.inputs["record"][-2]["text"] if len(request.inputs["record"]) > 1 else ""
            return {"text": earlier}
        return None

    record, _ = await trial(load_case(ENGLISH), Scripted(bad))
    repairs = [c for c in record.calls if c.attempt == 2]
    assert {c.agent for c in repairs} == {"advocate", "defendant"}
    reasons = " ".join(p for c in record.calls for p in c.problems)
    assert "writes lines for the prosecution" in reasons and "repeats turn" in reasons
    assert not any(e.text.startswith("Prosecution:") for e in entries(record))
    assert not record.warnings  # both repaired


async def test_a_turn_that_still_repeats_after_its_repair_is_read_as_a_repeat_not_its_words():
    """On the 1.5B every turn repaired for repeating an earlier one came back the same (0 of 20
    fixed in one trial), and the copy, read by the next speaker, was copied again."""
    copied = "The defendant was seen at the warehouse door at 2 a.m. on the night of the burglary."

    def parrot(request):
        if request.agent == "advocate" and request.inputs.get("kind") == "challenge":
            return {"text": copied}
        if request.agent == "prosecution" and request.inputs.get("kind") == "present":
            return {"text": copied}
        return None

    record, _ = await trial(load_case(ENGLISH), Scripted(parrot))
    lines = entries(record)
    first = next(e for e in lines if e.text == copied)
    again = [e for e in lines if e.text == copied and e.turn != first.turn]
    assert first.repeats == 0 and again and all(e.repeats == first.turn for e in again)  # all kept in the record
    repairs = [c for c in record.calls if c.attempt == 2 and "repeats turn" in " ".join(c.problems)]
    assert repairs and all(c.temperature == 0.9 for c in repairs)  # asked again at the repeat temperature
    asks = [c for c in record.calls if c.attempt == 1 and c.agent in ("prosecution", "advocate")]
    assert all(c.temperature == 0.4 for c in asks)
    later = [c.messages[-1]["content"] for c in record.calls if c.id > max(r.id for r in repairs)]
    assert any(f"(repeats turn {first.turn}; left out)" in m for m in later)
    assert all(m.count(copied) <= 1 for m in later)  # speakers read the first, not its copies


@pytest.mark.parametrize("close", [True, False])
async def test_the_judge_closes_questioning_that_only_repeats_itself(close):
    """A defendant who gives the same answer to every question, even when asked again: the
    judge closes the investigation after the first answer kept as a repeat, saying why; off, the
    questioning goes on with the same words."""
    same = "I took the laptops from the warehouse because I needed money for rent that month."

    record, _ = await trial(load_case(ENGLISH), saying("defendant", "answer", same), close_stalled=close, max_turns=10)
    lines = [e for e in entries(record) if e.stage == "investigation"]
    answers = [e for e in lines if e.speaker == "defendant" and e.text == same]
    stalled = [e for e in lines if e.text == "The court has heard this already; it need not be repeated."]
    if close:
        assert len(answers) == 2 and answers[1].repeats == answers[0].turn  # the second, still a repeat, closes it
        assert len(stalled) == 1 and stalled[0].turn == answers[1].turn + 1 and stalled[0].speaker == "judge"
        assert lines[-1].text == "The court investigation is closed."
    else:
        assert len(answers) == 3 and not stalled  # the scripted host gives each of the three askers the floor
    assert record.status == "complete" and record.outputs["judgment"]


@needs_data
async def test_a_chinese_trial_closes_stalled_questioning_in_chinese():
    same = "我承认起诉书指控的事实，我自愿认罪，请求法庭从轻处罚。"

    record, _ = await trial(load_case(LJP / "cases" / "10.json"), saying("defendant", "answer", same))
    lines = [e for e in entries(record) if e.stage == "investigation"]
    assert [e.text for e in lines if e.speaker == "judge"][-2:] == ["本庭已经听清，相关内容不再重复。", "法庭调查结束。"]
    assert sum(e.text == same for e in lines) == 2 and record.status == "complete"


async def test_the_judge_closes_the_argument_on_a_focus_once_it_repeats():
    same = "The defendant's own words prove the charge beyond doubt and the sentence must reflect it."

    record, _ = await trial(load_case(ENGLISH), saying("prosecution", "debate", same), debate_rounds=3)
    debate = [e for e in entries(record) if e.stage == "debate"]
    argued = [e for e in debate if e.text == same]
    # focus 1 hears one round (nothing repeated yet) and then a second, whose repeat closes it;
    # focus 2 opens on a repeat and closes after its first round
    assert [bool(e.repeats) for e in argued] == [False, True, True]
    assert sum(e.text == "The court has heard this already; it need not be repeated." for e in debate) == 2
    assert sum(e.text == "Argument on this point is closed." for e in debate) == 2


async def test_a_chinese_turn_or_charge_in_english_is_sent_back():
    problems = turn_problems("The defendant applied for the card in 2012.", "prosecution", [], threshold=0.85, zh=True)
    assert [p.rule for p in problems] == ["language"]
    assert turn_problems("被告人于2012年申领了一张Visa信用卡。", "prosecution", [], threshold=0.85, zh=True) == []
    reply = JudgmentReply(facts="f", reasoning="r", law="l", charges=["Credit Card Fraud"], term_months=6, fine=0,
                          probation_months=0, text="被告人曾某犯Credit Card Fraud，判处有期徒刑六个月。")
    problems = judgment_problems(reply, zh=True)
    assert [p.rule for p in problems] == ["judgment_charge"] and "in Chinese" in problems[0].message
    english = reply.model_copy(update={"text": "The defendant is convicted of Credit Card Fraud: 6 months."})
    assert [p.rule for p in judgment_problems(english, zh=True)][0] == "language"
    assert not [p for p in judgment_problems(english, zh=False) if p.rule == "language"]


async def test_announcing_the_discipline_and_the_rights_in_the_templates_words_is_no_prompt_leak():
    """The stenographer's and the judge's opening turns state the rules and rights their
    instructions list; counted as prompt leaks, each would be sent back for repair."""
    said = {"discipline": "All rise. The rules of court discipline: only those given the floor may speak; no "
                          "recording, phones off, no disturbance, and respect for the court. The parties are present.",
            "open": "The defendant has the right to apply for recusal, to defend themself and be defended, to "
                    "present evidence, and to make a final statement. Do you understand?"}

    def announce(request):
        kind = request.inputs.get("kind")
        return {"text": said[kind]} if kind in said else None

    record, _ = await trial(load_case(ENGLISH), Scripted(announce))
    assert not [c for c in record.calls if c.attempt == 2 and c.agent in ("stenographer", "judge")]
    assert not [w for w in record.warnings if w.rule == "prompt_leak"]
    texts = [e.text for e in entries(record)]
    assert said["discipline"] in texts and said["open"] in texts
    from courtroom_chat.injection import prompt_leaks
    leaked = '{"text": "Reply with one JSON object with the requested fields, nothing else."}'
    assert prompt_leaks(leaked, get("criminal").instructions(), min_words=6)  # other instructions still count


def test_turn_rules_catch_vague_and_off_focus_turns():
    vague = turn_problems("请你详细说明一下案件的经过。", "prosecution", [], threshold=0.85, kind="question", zh=True)
    assert [p.rule for p in vague] == ["vague_question"]
    off = turn_problems("The weather was fine that day.", "prosecution", [], threshold=0.85, kind="debate",
                        focus="Whether the defendant entered as a trespasser", zh=False)
    assert [p.rule for p in off] == ["off_focus"]
    fine = turn_problems("As a trespasser he entered by force.", "prosecution", [], threshold=0.85, kind="debate",
                         focus="Whether the defendant entered as a trespasser", zh=False)
    assert fine == []


@pytest.mark.parametrize(("text", "focus", "on"), [
    # the focus's own words are not needed when the turn argues the question the focus asks
    ("因此，建议判处被告人黄某甲有期徒刑一年，缓刑一年，并处罚金人民币五千元。", "对被告人应当如何量刑", True),
    ("被告人以非法占有为目的透支信用卡，应当以信用卡诈骗罪追究其刑事责任。", "被告人的行为是否构成起诉书指控的罪名", True),
    ("He deserves twelve months in prison and a fine of $500.", "What sentence the offence deserves", True),
    ("The evidence shows he is guilty of burglary.", "Whether the evidence proves the offence charged", True),
    # and a turn about something else is still off it
    ("我同意被告人的行为构成起诉书指控的罪名。", "对被告人应当如何量刑", False),
    ("我将展示投案情况说明，证明被告人于2016年6月30日主动到派出所投案。", "被告人的行为是否构成起诉书指控的罪名", False),
    ("The weather was fine that day.", "What sentence the offence deserves", False),
])
def test_a_debate_turn_addresses_a_sentencing_or_guilt_focus_in_that_questions_words(text, focus, on):
    zh = not focus.isascii()
    problems = turn_problems(text, "prosecution", [], threshold=0.85, kind="debate", focus=focus, zh=zh)
    assert ("off_focus" not in [p.rule for p in problems]) is on


def test_the_sentence_is_read_from_the_judgment_text_and_validated():
    assert number("二十四") == 24 and number("四千") == 4000 and number("1.5万") == 15000
    said = stated("被告人潘某犯盗窃罪，判处有期徒刑一年六个月，缓刑二年，并处罚金人民币四千元。")
    assert (said.term_months, said.fine, said.probation_months) == (18, 4000, 24)
    assert stated("判处无期徒刑").special == "无期徒刑"
    en = stated("Guilty of burglary: 18 months' imprisonment, suspended for 2 years, and a fine of $2,000.")
    assert (en.term_months, en.fine, en.probation_months) == (18, 2000, 24)
    reply = JudgmentReply(facts="f", reasoning="r", law="l", charges=["盗窃"], term_months=12, fine=4000,
                          probation_months=0, text="被告人潘某犯盗窃罪，判处有期徒刑十个月，并处罚金人民币四千元。")
    problems = judgment_problems(reply, zh=True)
    assert [p.rule for p in problems] == ["judgment_fields"] and "10" in problems[0].message
    assert judgment_of(reply).term_months == 10  # the text wins
    with pytest.raises(ValidationError):
        JudgmentReply(facts="f", reasoning="r", law="l", charges=[], term_months=-3, fine=0, text="t")
    with pytest.raises(ValidationError):
        JudgmentReply(facts="f", reasoning="r", law="l", charges=[], fine=-1, text="t")


def test_an_acquittal_that_sentences_is_sent_back():
    """Seen on the 1.5B (ljp-110): no charge, "not guilty", and a month's prison, a fine and probation."""
    reply = JudgmentReply(facts="f", reasoning="r", law="l", charges=[], term_months=1, fine=500, probation_months=3,
                          text="被告人刘某无罪。判处有期徒刑一个月，缓刑三个月，并处罚金人民币五百元。")
    problems = [p for p in judgment_problems(reply, zh=True) if p.rule == "judgment_acquittal"]
    assert len(problems) == 1 and "term_months, fine, probation_months" in problems[0].message
    acquitted = reply.model_copy(update={"term_months": 0, "fine": 0, "probation_months": 0, "text": "被告人刘某无罪。"})
    assert judgment_problems(acquitted, zh=True) == []
    convicted = reply.model_copy(update={"charges": ["非法持有枪支罪"], "text": "被告人刘某犯非法持有枪支罪，" + reply.text[7:]})
    assert not [p for p in judgment_problems(convicted, zh=True) if p.rule == "judgment_acquittal"]


@needs_data
def test_both_simcourt_formats_load_in_place():
    new = load_case(LJP / "cases" / "10.json")
    assert new.procedure == "criminal" and new.inputs["defense_evidence"] == [] or isinstance(new.inputs["defense_evidence"], list)
    assert set(new.inputs) == {"defendant", "indictment", "prosecution_evidence", "defense_evidence", "account",
                               "debate_focus", "plea"}
    old = load_case(OLD / "example_5" / "data.json")
    assert old.inputs["debate_focus"][0] == "被告人胡兴旺是否构成诈骗罪。" and len(old.inputs["prosecution_evidence"]) == 5
    get("criminal").check_case(old)


def test_bad_case_files_get_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"defendant_information": "被告人甲", "prosecution_statement_sub": "起诉书",
                               "evidence": "not a list"}, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(CaseError, match="'evidence' must be a list") as info:
        load_case(bad)
    assert "\n" not in str(info.value)
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"defendant_information": "", "prosecution_statement_sub": "x", "evidence": []}))
    with pytest.raises(CaseError, match="'defendant_information' must be non-empty"):
        load_case(empty)
    inputs = tmp_path / "inputs.json"
    inputs.write_text(json.dumps({"question": "Guilty?", "procedure": "criminal",
                                  "inputs": {"defendant": "A", "indictment": "", "prosecution_evidence": [1]}}))
    with pytest.raises(CaseError, match="criminal trial input 'indictment'"):
        get("criminal").check_case(load_case(inputs))
    result = CliRunner().invoke(app, ["run", str(bad), "-b", "scripted"])
    assert result.exit_code != 0 and "Traceback" not in result.output and "'evidence' must be a list" in result.output


def test_evidence_given_as_text_is_one_item_a_line_as_the_inputs_are_listed():
    """`--input prosecution_evidence=…` of two lines was one item, P1, of both (`courtroom procedures`
    says one item a line, as the bench's inputs are read)."""
    from courtroom_chat.procedures.criminal.cases import dossier

    d = dossier(Case(question="Is Tom Reed guilty of burglary?", procedure="criminal", inputs={
        "defendant": "Tom Reed", "indictment": "Burglary of 12 Elm Street.",
        "prosecution_evidence": "CCTV shows him at the door.\n\nHis prints are on the frame.",
        "debate_focus": "Whether he entered"}))
    assert d.prosecution_evidence == ["CCTV shows him at the door.", "His prints are on the frame."]
    assert d.debate_focus == ["Whether he entered"] and d.defense_evidence == []


def test_a_plea_reads_as_typed_and_a_wrong_one_names_the_plea():
    """`plea=Not Guilty` was refused, and a wrong plea's hint spoke of the defendant and the evidence."""
    from courtroom_chat.procedures.criminal.cases import dossier

    given = {"defendant": "Tom Reed", "indictment": "Burglary of 12 Elm Street."}
    assert dossier(Case(question="Is Tom Reed guilty?", inputs={**given, "plea": " Not  Guilty"})).plea == "not guilty"
    with pytest.raises(CaseError, match=re.escape("input 'plea': Input should be 'guilty', 'not guilty' or ''; give plea "
                                                  "as guilty or not guilty, or leave it out")):
        dossier(Case(question="Is Tom Reed guilty?", inputs={**given, "plea": "maybe"}))


@pytest.mark.parametrize("fields", [
    {"prosecution_statement": "公诉机关指控…建议判处有期徒刑一年", "charge": ["盗窃罪"], "term": 12},  # the unmasked one only
    {"charge": ["盗窃罪"]},  # no indictment at all
])
def test_a_simcourt_case_without_its_masked_indictment_is_told_so(fields, tmp_path, runs_dir):
    file = tmp_path / "ljp.json"
    file.write_text(json.dumps({"defendant_information": "被告人张某，男", "evidence": [["证人证言"], []], "fact": "…",
                                **fields}, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(CaseError) as err:
        load_case(file)
    assert str(err.value) == f"{file}: a SimCourt case needs 'prosecution_statement_sub' (the masked indictment)"
    result = CliRunner().invoke(app, ["run", str(file), "-b", "scripted"])
    assert result.exit_code == 2 and "unknown field" not in result.output and "prosecution_statement_sub" in result.output


@needs_data
def test_the_dataset_scores_charges_terms_and_the_published_anchors_on_the_same_items(tmp_path):
    from courtroom_chat.evaluation import evaluate
    from courtroom_chat.evaluation.datasets import resolve

    ev = evaluate("simcourt_ljp", procedure="criminal", baselines=["single", "majority"], limit=3, backend="scripted",
                  runs_dir=tmp_path)
    extra = ev.summary["extra"]
    assert set(extra["methods"]) == {"court", "single", "majority"}
    court = extra["methods"]["court"]
    assert court["judged"] == 3 and court["turns_per_trial"] > 20 and court["term_mae"] is not None
    assert all(a["term_n"] <= 3 for a in extra["anchors"].values()) and "SimCourt" in extra["anchors"]
    rows = ev.summary["rows"]
    assert all(r["predicted"] for r in rows)  # charge sets, not yes/no
    single = [r for r in rows if r["method"] == "single"]
    items = {i.id: i for i in resolve("simcourt_ljp").items()}
    assert all(r["correct"] == (r["predicted"] == r["gold"] or same_charges(r["predicted"], items[r["item"]].meta["forms"]))
               for r in single)
    assert "Published anchors on exactly these items" in ev.markdown


def test_a_selective_charge_is_right_in_the_specific_form_its_court_pronounced():
    """非法持有、私藏枪支、弹药罪 lists alternatives; the real judgment of case 114 reads 犯非法持有枪支罪,
    and the single call said exactly that, yet was counted wrong against the whole name."""
    forms = {"非法持有私藏枪支弹药罪": specific_forms("非法持有、私藏枪支、弹药罪", "被告人陈某犯非法持有枪支罪，判处有期徒刑一年。"),
             "盗窃罪": specific_forms("盗窃罪", "被告人陈某犯盗窃罪，判处")}
    assert forms == {"非法持有私藏枪支弹药罪": ["非法持有枪支罪"], "盗窃罪": []}
    assert same_charges("盗窃罪+非法持有枪支罪", forms) and same_charges("盗窃罪+非法持有私藏枪支弹药罪", forms)
    assert not same_charges("非法持有枪支罪", forms)  # one charge missing
    assert not same_charges("盗窃罪+非法持有弹药罪", forms)  # a form this court did not pronounce
    assert not same_charges("盗窃罪+非法持有枪支罪+故意伤害罪", forms)
    assert specific_forms("聚众斗殴罪", "犯聚众斗殴罪；被告人乙犯故意伤害罪") == []  # a co-defendant's charge is no form
    assert not same_charges("诈骗罪", {"合同诈骗罪": []})  # an ordinary charge: its own name only


@needs_data
def test_the_dataset_scores_the_specific_form_and_past_rows_are_scored_again(tmp_path):
    from courtroom_chat.evaluation import evaluate
    from courtroom_chat.evaluation.datasets import resolve

    data = resolve("simcourt_ljp")
    items = {i.id: i for i in data.items()}
    assert data.score(items["ljp-114"], "非法持有枪支罪") and data.score(items["ljp-114"], items["ljp-114"].gold)
    assert not data.score(items["ljp-114"], "非法持有弹药罪") and not data.score(items["ljp-114"], None)
    evaluate("simcourt_ljp", procedure="criminal", baselines=["single"], limit=1, backend="scripted", runs_dir=tmp_path)
    results = next(tmp_path.glob("evals/*/results.jsonl"))
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    for row in rows:  # as rows scored by a rule since changed would read
        row["correct"] = not data.score(items[row["item"]], row["predicted"])
    results.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    again = evaluate("simcourt_ljp", procedure="criminal", baselines=["single"], limit=1, backend="scripted", runs_dir=tmp_path)
    assert len(again.summary["rows"]) == len(rows) == 2
    assert all(r["correct"] == data.score(items[r["item"]], r["predicted"]) for r in again.summary["rows"])


def test_the_direct_baseline_answers_under_the_trial_judgments_grammar():
    """One call and the trial differ only by the trial: the baseline's judgment has the trial's
    Chinese grammar (the 1.5B's unconstrained baseline named a charge in English plus 罪)."""
    import re

    from courtroom_chat.procedures.criminal.dataset import direct_format
    from courtroom_chat.procedures.criminal.session import judgment_schema
    from courtroom_chat.procedures.criminal.wire import JudgmentReply

    direct = direct_format().schema["properties"]
    trial = judgment_schema(JudgmentReply, zh=True, latin=False)["properties"]
    for field in ("facts", "reasoning", "law", "text"):
        assert direct[field]["pattern"] == trial[field]["pattern"]
        assert not re.fullmatch(direct[field]["pattern"], "The defendant used the card.")
    charge = direct["charges"]["items"]["pattern"]
    assert charge == trial["charges"]["items"]["pattern"] and re.fullmatch(charge, "信用卡诈骗罪")
    assert not re.fullmatch(charge, "virtualinvoicingoftaxreducinginvoices罪") and not re.fullmatch(charge, "信用卡诈骗")


@needs_data
async def test_a_chinese_trials_grammar_keeps_it_in_chinese_and_its_questions_questions():
    """Under a grammar, a Chinese trial's turns and judgment cannot slip into English (they
    open with a Chinese character and hold no Latin letter but the masks' X: the 1.5B, refused
    lower-case letters, wrote "I, [DEFENDANT]"), a question must end with a question mark, and
    each charge ends in 罪. Every turn restates who speaks."""
    import re

    backend = ScriptedBackend()
    record, _ = await trial(load_case(LJP / "cases" / "10.json"), backend)
    assert record.status == "complete"
    turns = [c for c in backend.calls if c.inputs.get("kind")]
    for call in turns:
        pattern = call.schema["properties"]["text"]["pattern"]
        assert not re.fullmatch(pattern, "The defendant applied for the card."), pattern
        assert re.fullmatch(pattern, "被告人在刷卡机上刷卡了吗？")
        assert not re.fullmatch(pattern, "I, [DEFENDANT], I, [DEFENDANT].") and not re.fullmatch(pattern, "我，[DEFENDANT]。")
        assert not re.fullmatch(pattern, "被告人在POS机上刷卡了吗？")  # a capitalised English word too
        if call.inputs["kind"] != "question":
            assert re.fullmatch(pattern, "被告人曾某，XXX年X月X日出生。")  # the case files' masks stay writable
        assert (call.inputs["kind"] == "question") == pattern.endswith("[?？]$")
        assert "YOUR TURN (you are the " in call.prompt
    question = next(c for c in turns if c.inputs["kind"] == "question")
    assert f"YOUR TURN (you are the {question.role}" in question.prompt
    assert re.fullmatch(question.schema["properties"]["text"]["pattern"], "你是哪天去的派出所？")
    assert not re.fullmatch(question.schema["properties"]["text"]["pattern"], "我理解指控并愿意合作。")
    judgment = next(c for c in backend.calls if c.inputs.get("task") == "judgment").schema["properties"]
    charge = judgment["charges"]["items"]["pattern"]
    assert re.fullmatch(charge, "信用卡诈骗罪") and not re.fullmatch(charge, "Credit Card Fraud")
    assert not re.fullmatch(judgment["text"]["pattern"], "The defendant is guilty.")


async def test_an_english_trials_grammar_leaves_its_letters_alone():
    backend = ScriptedBackend()
    record, _ = await trial(load_case(ENGLISH), backend)
    import re

    for call in (c for c in backend.calls if c.inputs.get("kind") in ("answer", "debate")):
        assert re.fullmatch(call.schema["properties"]["text"]["pattern"], "He entered by force.")
    judgment = next(c for c in backend.calls if c.inputs.get("task") == "judgment").schema["properties"]
    assert "pattern" not in json.dumps(judgment["charges"])  # an English charge is any words


def test_presenting_evidence_without_a_word_of_it_is_sent_back():
    item = "银行交易明细，证明被告人透支本金29942.52元未还"
    off = turn_problems("好的，请出示证据。", "prosecution", [], threshold=0.85, kind="present", zh=True, item=item)
    assert [p.rule for p in off] == ["off_item"]
    assert turn_problems("现出示银行交易明细，证明被告人透支未还。", "prosecution", [], threshold=0.85, kind="present",
                         zh=True, item=item) == []
    item_en = "Hardware store receipt for a crowbar, dated the day before the burglary"
    assert [p.rule for p in turn_problems("Yes, please go ahead.", "prosecution", [], threshold=0.85,
                                          kind="present", item=item_en)] == ["off_item"]
    assert turn_problems("This receipt shows he bought a crowbar the day before.", "prosecution", [], threshold=0.85,
                         kind="present", item=item_en) == []


async def test_each_speaker_reads_what_the_last_one_read_then_what_followed():
    """The record's start moves in steps of half the window, so from one call to the next the
    prompt grows only at its end and the local model's prompt cache reuses the last reading."""
    from courtroom_chat.procedures.criminal import present

    assert [present.record_start(n, 6) for n in (0, 5, 6, 8, 9, 11, 12, 14, 15)] == [0, 0, 0, 0, 3, 3, 6, 6, 9]
    assert [present.record_start(n, 6, step=1) for n in (5, 8, 9)] == [0, 2, 3]  # the judgment's: the last six
    record, _ = await trial(load_case(ENGLISH))
    prompts = [c.messages[-1]["content"] for c in record.calls if c.attempt == 1]
    pairs = [(a, b) for a, b in itertools.pairwise(prompts) if "\n\nYOU ARE THE" in a]
    grown = 0
    for a, b in pairs:
        if b.startswith(a[:a.index("\n\nYOU ARE THE")]):  # the case file and all of the record a read
            grown += 1
        else:  # the record's start moved on (or a read none of it yet): the case file is still shared
            head = a.index("THE COURT RECORD SO FAR (")
            assert b[:head] == a[:head]
    assert len(pairs) > 20 and grown >= 0.8 * len(pairs)
    # the role's instructions follow the record, beside the turn they are for
    last = prompts[-1]
    assert last.index("THE COURT RECORD SO FAR (from turn ") < last.index("YOU ARE THE") < last.index("YOUR TURN (")


async def test_a_judgment_that_loops_to_its_token_limit_is_kept_cut_after_the_first_copy():
    """Seen on the 1.5B (ljp-234, 2026-11-29): the judgment's text restated one paragraph until the
    token limit, and again when asked to be shorter, so the whole trial failed. The reply is now
    kept, cut after the paragraph's first copy, with a warning that says so."""
    paragraph = "The court finds that Daniel Reyes entered the house at 12 Elm Street at night and took the laptop. "

    def looping(request):
        if request.inputs.get("task") != "judgment":
            return None
        head = json.dumps({"facts": "He entered at night and took the laptop.", "reasoning": "The video and the "
                           "pawn receipt prove it.", "law": "Section 459.", "charges": ["burglary"], "term_months": 12,
                           "fine": 0, "probation_months": 0}, ensure_ascii=False)[:-1]
        return head + ', "text": "Judgment. ' + paragraph * 400

    record, _ = await trial(load_case(ENGLISH), Scripted(looping))
    assert record.status == "complete"
    calls = [c for c in record.calls if c.stage == "judgment"]
    assert [(c.attempt, c.finish_reason, c.ok) for c in calls] == [(1, "length", False), (2, "length", False)]
    assert record.outputs["judgment"]["text"] == "Judgment. " + paragraph.strip()
    assert record.outputs["judgment"]["charges"] == ["burglary"] and record.outputs["judgment"]["term_months"] == 12
    assert any(w.rule == "looped" and "cut after the passage's first copy" in w.message for w in record.warnings)


async def test_a_turn_cut_at_its_token_limit_twice_is_kept_to_its_last_full_sentence():
    """Seen on the 1.5B (ljp-201, 2026-11-29): the defendant, asked to answer the indictment,
    copied its facts to the token limit, and again when asked to be shorter, and the whole trial
    failed on its third turn. The turn is now kept to its last full sentence, with a warning."""
    said = {"n": 0}

    def copying(request):
        if request.agent != "defendant" or said["n"] >= 2:
            return None
        said["n"] += 1
        return '{"text": "I admit I entered the shop. ' + " ".join(f"Then item {i} was taken and" for i in range(400))

    record, _ = await trial(load_case(ENGLISH), Scripted(copying))
    assert record.status == "complete"
    first = [c for c in record.calls if c.agent == "defendant"][:2]
    assert [(c.attempt, c.finish_reason, c.ok) for c in first] == [(1, "length", False), (2, "length", False)]
    assert any(w.rule == "cut" and "kept cut at its last full sentence" in w.message for w in record.warnings)
    first_answer = next(v for k, v in record.outputs.items() if k.endswith("-defendant"))
    assert first_answer["text"] == "I admit I entered the shop."  # no sentence ended after it
