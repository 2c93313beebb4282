"""How far to trust a verdict: seeded order controls, the mirror, fragility and the How-sure block."""

from __future__ import annotations

import re

import pytest

from courtroom_chat.backends.scripted import ScriptedBackend
from courtroom_chat.case import load_case
from courtroom_chat.config import Settings
from courtroom_chat.engine import Trial, mirror_summary
from courtroom_chat.events import parse_events
from courtroom_chat.procedures.decision import most_cited
from courtroom_chat.procedures.decision.records import Juror, Jury
from courtroom_chat.render import how_sure, replay
from courtroom_chat.replies import shorten
from tests.conftest import CASES

SETTINGS = Settings().with_backend("scripted")
# jurors who weigh the motion and vote in its words (jury_asks = "motion"; the default is a plain
# juror, asked what a single call is asked): what such a juror is told can be checked in its prompt
MOTION = SETTINGS.with_params("decision", {"jury_asks": "motion"})


def case():
    return load_case(CASES / "code-commit.json")


def juror_prompts(backend: ScriptedBackend) -> dict[str, str]:
    return {r.agent: r.prompt for r in backend.calls if r.role == "juror"}


async def test_label_orders_are_seeded_reproducible_and_differ_between_jurors():
    shuffled = MOTION.with_params("decision", {"shuffle_labels": True})
    runs = []
    for _ in range(2):
        backend = ScriptedBackend()
        record = await Trial(case(), shuffled, store=None, seed=7, backends={"scripted": backend}).run()
        runs.append((record.outputs["orders"], juror_prompts(backend)))
    (orders, prompts), (again, prompts_again) = runs
    assert orders == again and prompts == prompts_again  # the same seed, the same orders and prompts
    labels = [tuple(o["labels"]) for o in orders.values()]
    assert len(set(labels)) > 1, "each juror gets its own order"
    other = await Trial(case(), shuffled, store=None, seed=8).run()
    assert other.outputs["orders"] != orders
    # the prompt lists the votes, in the motion's own words, in the juror's order
    phrases = {"act": "merge PR #214 (retry with backoff for the HTTP client) now",
               "do not act": "do not merge PR #214 (retry with backoff for the HTTP client) now", "abstain": "abstain"}
    first = orders["juror-1"]["labels"]
    text = prompts["juror-1"]
    at = [text.index(f'  - "{phrases[label]}":') for label in first]
    assert at == sorted(at)


async def test_exhibit_order_shuffles_only_when_asked():
    plain = await Trial(case(), SETTINGS, store=None, seed=3).run()
    assert all(o["exhibits"] == [1, 2, 3] for o in plain.outputs["orders"].values())
    shuffled = SETTINGS.with_params("decision", {"shuffle_exhibits": True, "jury_reads": "exhibits", "jury_asks": "motion"})
    backend = ScriptedBackend()
    record = await Trial(case(), shuffled, store=None, seed=3, backends={"scripted": backend}).run()
    orders = {k: tuple(v["exhibits"]) for k, v in record.outputs["orders"].items()}
    assert len(set(orders.values())) > 1
    prompt = juror_prompts(backend)["juror-1"]
    listed = [prompt.index(f'\n{n}. "') for n in orders["juror-1"]]
    assert listed == sorted(listed)
    # jurors who read no exhibit list have no exhibit order to shuffle: refused in one line
    from courtroom_chat.errors import ConfigError

    with pytest.raises(ConfigError, match='shuffle_exhibits needs jury_reads = "exhibits"'):
        SETTINGS.with_params("decision", {"shuffle_exhibits": True})


def evidence_names(text: str) -> list[str]:
    import re

    return re.findall(r"<<<EVIDENCE \d+: (\S+) ", text)


async def test_evidence_order_shuffles_per_juror_only_when_asked_and_the_others_share_one():
    names = ["code-commit/pr-214.md", "code-commit/pr-214.diff", "code-commit/test-log.txt"]
    plain = await Trial(case(), SETTINGS, store=None, seed=3).run()
    assert all("evidence" not in o for o in plain.outputs["orders"].values())
    settings = SETTINGS.with_params("decision", {"shuffle_evidence": True})
    runs = []
    for _ in range(2):
        backend = ScriptedBackend()
        record = await Trial(case(), settings, store=None, seed=3, backends={"scripted": backend}).run()
        runs.append((record, backend))
    (record, backend), (again, _) = runs
    orders = {k: v["evidence"] for k, v in record.outputs["orders"].items()}
    assert orders == {k: v["evidence"] for k, v in again.outputs["orders"].items()}  # seeded: reproducible
    assert len({tuple(o) for o in orders.values()}) > 1 and all(sorted(o) == [1, 2, 3] for o in orders.values())
    for call in backend.calls:
        read = [n.split("/", 1)[-1] for n in evidence_names(call.user_text())]
        if call.role == "juror":
            assert read == [names[i - 1].split("/", 1)[-1] for i in orders[call.agent]]
        else:  # the advocates and the judge read the one shared order, from the prompt cache
            assert read == [n.split("/", 1)[-1] for n in names]
    assert record.status == "complete"
    # the fixed-order control turns it off with the others
    from courtroom_chat.procedures.decision import DecisionCourt

    assert DecisionCourt.fixed_order["shuffle_evidence"] is False


async def test_a_withheld_passage_stays_withheld_from_jurors_who_read_their_own_order():
    first = Trial(case(), SETTINGS, store=None, backends={"scripted": ScriptedBackend()})
    named = [e for e in (await first.run()).prosecution.exhibits if e.verified][-1]
    words = " ".join(["The record supports it."] * 12)
    script = {"juror": [{"reasoning": f"The evidence says {named.source_quote}. {words}", "vote": "act"}]}
    backend = ScriptedBackend(script=script)
    settings = SETTINGS.with_params("decision", {"shuffle_evidence": True})
    record = await Trial(case(), settings, store=None, fragility=True, backends={"scripted": backend}).run()
    assert record.outcome.data["fragility"]["removed"] == f"exhibit {named.number}"
    second = [r for r in backend.calls if r.role == "juror"][5:10]
    assert len(second) == 5 and all(named.source_quote not in r.user_text() for r in second)
    assert all("[passage withheld" in r.user_text() for r in second)


async def test_plain_jurors_are_asked_what_the_single_call_is_asked_word_for_word():
    """jury_asks = "plain": each juror gets the baseline's system prompt, case and prompt (its
    two answers in the juror's own order), no outlook and no abstention; yes / no are counted
    as votes to act / not to act."""
    from courtroom_chat import plain
    from courtroom_chat.backends import BackendPool
    from courtroom_chat.errors import ConfigError
    from courtroom_chat.evaluation.methods import Baselines

    settings = SETTINGS.with_params("decision", {"jury_asks": "plain", "spell_answers": True})
    answers = [{"reasoning": "All tests pass and two reviewers approved.", "decision": d, "confidence": 0.8}
               for d in ("yes", "no", "yes", "yes", "no")]
    backend = ScriptedBackend(script={"juror": answers})
    record = await Trial(case(), settings, store=None, seed=4, backends={"scripted": backend}).run()
    jurors = [c for c in backend.calls if c.role == "juror"]
    single = Baselines(settings, BackendPool(settings), procedure="decision").request("single", case(), 1, 0.2, 0)
    meant = plain.meanings(case().question)  # spell_answers: each answer with what it means here
    assert meant and meant["no"].startswith("do not ")
    orders = record.outputs["orders"]
    for call in jurors:
        order = ["yes" if label == "act" else "no" for label in orders[call.agent]["labels"]]
        assert call.system == single.system == plain.SYSTEM and call.prefix == single.prefix
        assert call.prompt == plain.prompt(order, meant) and call.schema == {"title": "JurorReply", **plain.schema(order)}
        assert sorted(order) == ["no", "yes"]  # no abstention
    # by default every juror lists the answers as the single call does, "yes" first (measured:
    # a 1.5B juror shown "no" first said No to far more Yes cases); shuffled on request
    assert {tuple(o["labels"]) for o in orders.values()} == {("act", "do not act")}
    assert single.prompt == plain.prompt(meanings=meant) and single.schema == plain.schema()
    assert f'"yes" ({meant["yes"]}) or "no" ({meant["no"]})' in single.prompt
    # beside another procedure, the baselines keep the bare prompt their stored rows were asked with
    other = Baselines(settings, BackendPool(settings), procedure="supreme").request("single", case(), 1, 0.2, 0)
    assert other.prompt == plain.prompt()
    bare = SETTINGS  # by default (spell_answers = false) a bare yes or no
    assert Baselines(bare, BackendPool(bare), procedure="decision").request("single", case(), 1, 0.2, 0).prompt == plain.prompt()
    assert all(call.prompt == single.prompt for call in jurors)
    shuffled = await Trial(case(), settings.with_params("decision", {"shuffle_labels": True}), store=None, seed=4).run()
    assert {tuple(o["labels"]) for o in shuffled.outputs["orders"].values()} == {("act", "do not act"),
                                                                                 ("do not act", "act")}
    jury = record.jury
    assert [j.vote for j in jury.jurors] == ["guilty", "not_guilty", "guilty", "guilty", "not_guilty"]
    assert all(j.persona == "" for j in jury.jurors) and jury.split().startswith("3–2")
    assert record.outcome.polarity == "yes"
    shown = replay(parse_events(record.events))
    assert "temperature 0.2" in shown and "** · temperature" not in shown  # no empty outlook shown
    with pytest.raises(ConfigError, match='jury_reads = "exhibits" needs jury_asks = "motion" or "question"'):
        SETTINGS.with_params("decision", {"jury_asks": "plain", "jury_reads": "exhibits"})


async def test_jurors_without_outlooks_or_abstention_are_told_so_and_vote_one_way():
    settings = MOTION.with_params("decision", {"personas": False, "abstain": False})
    backend = ScriptedBackend()
    record = await Trial(case(), settings, store=None, seed=5, backends={"scripted": backend}).run()
    prompts = juror_prompts(backend)
    assert len(prompts) == 5
    for prompt in prompts.values():
        assert "Your outlook" not in prompt and "Decide on the evidence alone." in prompt
        assert '"abstain"' not in prompt
    assert all(sorted(o["labels"]) == ["act", "do not act"] for o in record.outputs["orders"].values())
    jurors = record.outputs["jury"]["jurors"]
    assert all(j["persona"] == "" and j["vote"] in ("guilty", "not_guilty") for j in jurors)
    # the default keeps both
    backend = ScriptedBackend()
    await Trial(case(), MOTION, store=None, seed=5, backends={"scripted": backend}).run()
    assert all("Your outlook: " in p and '"abstain"' in p for p in juror_prompts(backend).values())


async def test_the_first_release_outlooks_are_given_on_request_and_balanced_ones_by_default():
    from courtroom_chat.errors import ConfigError
    from courtroom_chat.procedures.decision.parameters import FIRST_RELEASE_PERSONAS, PERSONAS

    seen = {}
    for chosen in ("balanced", "first-release"):
        backend = ScriptedBackend()
        record = await Trial(case(), MOTION.with_params("decision", {"persona_set": chosen}), store=None, seed=5,
                             backends={"scripted": backend}).run()
        seen[chosen] = [j["persona"] for j in sorted(record.outputs["jury"]["jurors"], key=lambda j: j["number"])]
        for j in record.outputs["jury"]["jurors"]:
            assert f"Your outlook: {j['persona']}." in juror_prompts(backend)[f"juror-{j['number']}"]
    assert seen["balanced"] == list(PERSONAS[:5])
    assert seen["first-release"] == list(FIRST_RELEASE_PERSONAS[:5])
    assert sum("cautious" in o or "strict" in o or "skeptical" in o or "gone wrong" in o
               for o in seen["first-release"]) >= 2 and not any("cautious" in o for o in seen["balanced"])
    # a plain juror (the default) has no outlook whichever set is named
    record = await Trial(case(), SETTINGS.with_params("decision", {"persona_set": "first-release"}), store=None,
                         seed=5, backends={"scripted": ScriptedBackend()}).run()
    assert all(j["persona"] == "" for j in record.outputs["jury"]["jurors"])
    with pytest.raises(ConfigError, match="persona_set"):
        SETTINGS.with_params("decision", {"persona_set": "cautious"})


async def test_jurors_read_the_evidence_alone_by_default_and_the_exhibit_list_on_request():
    backend = ScriptedBackend()
    record = await Trial(case(), MOTION, store=None, seed=5, backends={"scripted": backend}).run()
    prompts = juror_prompts(backend)
    assert len(prompts) == 5 and record.status == "complete"
    for prompt in prompts.values():
        assert "EXHIBITS:" not in prompt and "citing exhibit numbers" not in prompt
        assert "THE MOTION: merge PR #214" in prompt and "naming the facts" in prompt
    assert all("<<<EVIDENCE 1" in r.user_text() for r in backend.calls if r.role == "juror")  # still read
    backend = ScriptedBackend()
    settings = MOTION.with_params("decision", {"jury_reads": "exhibits", "jury_asks": "motion"})
    await Trial(case(), settings, store=None, seed=5, backends={"scripted": backend}).run()
    listed = juror_prompts(backend).values()
    assert all("EXHIBITS:" in p and "citing exhibit numbers" in p and '1. "' in p for p in listed)


async def test_an_abstention_when_none_is_allowed_is_sent_back_once():
    settings = SETTINGS.with_params("decision", {"abstain": False})
    reply = '{"reasoning": "The evidence is thin either way and I cannot tell which side it favours from exhibits 1 to 3, so I would rather not commit to a vote on it today at all.", "vote": "abstain"}'
    voted = reply.replace('"abstain"', '"do not merge PR #214 (retry with backoff for the HTTP client) now"')
    backend = ScriptedBackend(script={"juror-1": [reply, voted]})
    record = await Trial(case(), settings, store=None, seed=5, backends={"scripted": backend}).run()
    asked = [r for r in backend.calls if r.agent == "juror-1"]
    assert len(asked) == 2 and 'the vote "abstain" is none of' in asked[1].repairs[-1][1]  # repaired, with the choices
    juror = next(j for j in record.outputs["jury"]["jurors"] if j["number"] == 1)
    assert juror["vote"] == "not_guilty" and juror["status"] == "voted"


@pytest.mark.parametrize(("original", "mirrored", "kind"), [
    ("yes", "no", "agree"), ("no", "yes", "agree"), ("no", "no", "no_to_both"), ("yes", "yes", "yes_to_both"),
    ("undecided", "no", "undecided"), (None, "yes", "undecided"),
])
def test_mirror_is_counted_honestly(original, mirrored, kind):
    found = mirror_summary(original, mirrored, "Should we not ship?", "No: do not ship", "r1")
    assert found["kind"] == kind and "r1" in found["summary"]


def test_most_cited_exhibit_is_the_majoritys():
    def juror(n, vote, text):
        return Juror(number=n, persona="p", vote=vote, reasoning=text, status="voted")

    jury = Jury(jurors=[juror(1, "guilty", "Exhibit 2 shows it, and exhibits 2 and 3 agree."),
                        juror(2, "guilty", "As exhibit #2 says."),
                        juror(3, "not_guilty", "Exhibit 1 and exhibit 1 again, exhibit 1."),
                        juror(4, "guilty", "Nothing cited.")])
    assert most_cited(jury, "guilty", [1, 2, 3]) == 2
    assert most_cited(jury, "not_guilty", [1, 2, 3]) == 1
    assert most_cited(Jury(jurors=[juror(1, "guilty", "no citations")]), "guilty", [2, 3]) == 2


async def test_fragility_decides_again_without_the_most_cited_exhibit():
    """Jurors who read the exhibit list (jury_reads = exhibits): the second jury's list lacks it."""
    words = " ".join(["The record supports it."] * 12)
    script = {"juror": [{"reasoning": f"Exhibit 3 decides it. {words}", "vote": "act"}]}
    backend = ScriptedBackend(script=script)
    settings = SETTINGS.with_params("decision", {"jury_reads": "exhibits", "jury_asks": "motion"})
    record = await Trial(case(), settings, store=None, fragility=True, backends={"scripted": backend}).run()
    found = record.outcome.data["fragility"]
    assert found["removed"] == "exhibit 3" and found["held"] is True
    third = next(e for e in record.prosecution.exhibits if e.number == 3)
    assert found["summary"].startswith(f'without exhibit 3 ("{shorten(third.source_quote, 80)}"), the jury votes ')
    again = [r for r in backend.calls if r.role == "juror"][5:]  # the second jury
    assert again and all('\n3. "' not in r.prompt.split("THE JURY:")[0] for r in again)
    assert all('\n3. "' in r.prompt.split("THE JURY:")[0] for r in backend.calls[2:7] if r.role == "juror")
    assert any(c.stage.startswith("fragility:") for c in record.calls)
    text = replay(parse_events(record.events))
    assert "## Fragility check" in text and "Fragility: without exhibit 3" in text


async def test_fragility_withholds_the_named_fact_from_jurors_who_read_the_evidence():
    """Jurors who read the evidence itself (the default) name facts, not exhibit numbers: the
    exhibit whose fact the majority names is found by its words, and the second jury reads the
    evidence with that passage withheld."""
    first = Trial(case(), SETTINGS, store=None, backends={"scripted": ScriptedBackend()})
    admitted = [e for e in (await first.run()).prosecution.exhibits if e.verified]
    named = admitted[-1]
    words = " ".join(["The record supports it."] * 12)
    script = {"juror": [{"reasoning": f"The evidence says {named.source_quote}. {words}", "vote": "act"}]}
    backend = ScriptedBackend(script=script)
    record = await Trial(case(), SETTINGS, store=None, fragility=True, backends={"scripted": backend}).run()
    found = record.outcome.data["fragility"]
    assert found["removed"] == f"exhibit {named.number}"
    jurors = [r for r in backend.calls if r.role == "juror"]
    assert all(named.source_quote in r.user_text() for r in jurors[:5])
    marker = f"[passage withheld: exhibit {named.number}]"
    assert all(marker in r.user_text() and named.source_quote not in r.user_text() for r in jurors[5:10])
    assert not any(w.rule == "fragility_passage" for w in record.warnings)


async def test_fragility_of_evidence_that_is_one_exhibit_is_not_run():
    """Jurors who read the evidence: when the exhibit withheld is all of it, the second jury would
    read nothing of the evidence, so the check is not run and says why."""
    from courtroom_chat.case import Case, pasted_document

    sentence = "All 38 tests pass and two reviewers approved the fix."
    one = Case(question="Should we merge this pull request?", context=[pasted_document(sentence)])
    backend = ScriptedBackend()
    record = await Trial(one, SETTINGS, store=None, fragility=True, backends={"scripted": backend}).run()
    found = record.outcome.data["fragility"]
    admitted = [e for e in record.prosecution.exhibits if e.verified]
    assert admitted and all(e.source_quote == sentence for e in admitted)
    assert found["held"] is None and found["summary"].startswith("not run: exhibit ")
    assert found["summary"].endswith("is the whole evidence, so withholding it would leave nothing of it to decide on")
    assert not any(c.stage.startswith("fragility:") for c in record.calls)
    assert "Fragility: not run: exhibit " in "\n".join(how_sure(record.outcome.model_dump()))


def test_withhold_matches_across_line_breaks_and_says_when_it_cannot():
    from courtroom_chat.evidence import withhold

    assert withhold("a\nall 38 tests\n pass here", "all 38 tests pass", "[x]") == ("a\n[x] here", True)
    assert withhold("nothing like it", "all 38 tests pass", "[x]") == ("nothing like it", False)


def test_how_sure_claims_no_more_than_was_measured():
    base = {"confidences": [{"kind": "evidence", "label": "e", "value": 0.8, "basis": "2 of 3 verified"}],
            "data": {"votes": {"act": 5, "do not act": 0}, "split": "5–0"}}
    lines = how_sure(base)
    assert "Unanimous on verified evidence; the mirror and fragility checks were not run" in lines[-1]
    split = {**base, "data": {"votes": {"act": 3, "do not act": 2}, "split": "3–2",
                              "fragility": {"held": False, "removed": "exhibit 2", "summary": "rests on it"}}}
    assert how_sure(split)[-1] == "**Split vote, and the verdict rests on exhibit 2: treat it as a coin toss.**"
    none = {"confidences": [{"kind": "evidence", "label": "e", "value": 0.0, "basis": "no exhibit verified"}],
            "data": {"votes": {"act": 0, "do not act": 5}}}
    assert "argument alone" in how_sure(none)[-1]
    against = {"confidences": [{"kind": "evidence", "label": "e", "value": 0.0,
                                "basis": "verified and unrefuted exhibits: 0 for acting, 2 against"}],
               "data": {"votes": {"act": 5, "do not act": 0}, "exhibits_verified": 2}}
    assert how_sure(against)[-1].startswith("**Unanimous, though every verified exhibit left standing was filed for "
                                            "the other side;")
    # exhibits verified but each cited by both sides or refuted: no figure, and no claim either way
    contested = {"confidences": [{"kind": "vote_share", "label": "v", "value": 1.0, "basis": "5 of 5 jurors"}],
                 "data": {"votes": {"act": 0, "do not act": 5}, "exhibits_verified": 3,
                          "evidence_unscored": "3 verified exhibits, 3 cited by both sides: none stands for either "
                                               "side, so the evidence gives no figure"}}
    lines = how_sure(contested)
    assert "Evidence: 3 verified exhibits, 3 cited by both sides: none stands" in "\n".join(lines)
    assert lines[-1].startswith("**Unanimous; both sides cited or refuted every verified exhibit, so the evidence "
                                "does not score it; the mirror")
    assert "other side" not in lines[-1] and "does not score;" not in lines[-1]
    # a record from before then scored it 0; replayed, it reads the same
    old = {"confidences": [*contested["confidences"], {"kind": "evidence", "label": "e", "value": 0.0, "basis":
                           "verified and unrefuted exhibits: 0 for acting, 0 against, 3 cited by both sides"}],
           "data": {"votes": {"act": 0, "do not act": 5}, "exhibits_verified": 3}}
    assert how_sure(old)[-1] == lines[-1]
    assert "Evidence: verified and unrefuted exhibits: 0 for acting, 0 against, 3 cited by both sides: none stands" \
        in "\n".join(how_sure(old))
    checked = {**base, "data": {**base["data"], "mirror": {"kind": "agree", "summary": "s"},
                                "fragility": {"held": True, "summary": "s"}}}
    assert "held under the mirror and fragility checks" in how_sure(checked)[-1]
    not_run = {**base, "data": {**base["data"], "mirror": {"kind": "agree", "summary": "s"},
                                "fragility": {"held": None, "removed": "", "summary": "not run: no exhibit was admitted"}}}
    assert "Fragility: not run: no exhibit was admitted" in how_sure(not_run)
    assert how_sure(not_run)[-1] == ("**Unanimous on verified evidence; the fragility check was not run. "
                                     "A structured argument, not proof.**")  # not "rests on", not "held"
    # a procedure with no evidence confidence (classification, supreme, samvad) never claims verified evidence
    unscored = {"confidences": [{"kind": "vote_share", "label": "v", "value": 1.0, "basis": ""}],
                "data": {"votes": {"joy": 3, "anger": 0}, "split": "3–0"}}
    assert how_sure(unscored)[-1] == ("**Unanimous, on evidence this procedure does not score; the mirror and "
                                      "fragility checks were not run. A structured argument, not proof.**")


def test_a_streaming_reply_reads_as_fields_not_raw_json():
    from courtroom_chat.render import partial_fields_markdown

    assert partial_fields_markdown('{"facts_for": "All 1,482 tests pass; both rev') == \
        "**Facts for:** All 1,482 tests pass; both rev"
    text = partial_fields_markdown('{"motion": "merge", "exhibits": [{"source_quote": "CI passes", "harm": "x')
    assert text == "**Motion:** merge\n\n**Exhibits:**\n- *Source quote:* CI passes · *Harm:* x"
    assert partial_fields_markdown("thinking...") == "thinking..."


def test_a_measured_record_is_shown_and_weakens_the_sentence_when_the_court_trailed_one_call():
    from courtroom_chat import measured

    entry = {"procedure": "supreme", "model": "local:m", "items": 8, "set": "clear cases", "date": "2026-11-27",
             "court": 4, "single": 7, "majority": 7, "results": "bench/results/x"}
    assert measured.summary(entry) == ("on 8 clear cases (2026-11-27) this court followed the evidence in 4; "
                                       "one call in 7, a majority of five calls in 7")
    assert measured.below_baseline(entry) and not measured.below_baseline({**entry, "court": 8})
    assert not measured.below_baseline({**entry, "single": None, "majority": None})
    also = {**entry, "also": "on 4 held-out cases (bench/results/y) the court 1, one call 3"}
    assert measured.summary(also).endswith("a majority of five calls in 7; on 4 held-out cases (bench/results/y) the "
                                           "court 1, one call 3")
    outcome = {"confidences": [{"kind": "evidence", "label": "e", "value": 0.8, "basis": "2 of 3 verified"}],
               "data": {"votes": {"guilty": 9, "not guilty": 0}, "split": "9–0", "measured": entry}}
    lines = how_sure(outcome)
    assert "Measured on this model: on 8 clear cases (2026-11-27) this court followed the evidence in 4" in lines[-2]
    assert lines[-1] == ("**This court, on this model, followed clear evidence less often than one call: treat it as "
                         "weak, and read the evidence yourself.**")
    fine = {**outcome, "data": {**outcome["data"], "measured": {**entry, "court": 8}}}
    assert "Unanimous on verified evidence" in how_sure(fine)[-1]


def test_a_court_measured_right_in_fewer_than_half_its_cases_is_called_weak_without_a_baseline():
    from courtroom_chat import measured

    entry = {"procedure": "samvad", "model": "local:m", "items": 6, "set": "trials of two clear cases",
             "date": "2026-11-26", "court": 2, "single": None, "majority": None, "results": "bench/results/x"}
    assert measured.weakness(entry) == ("this court, on this model, followed clear evidence in fewer than half the "
                                        "cases it was measured on")
    assert measured.weakness({**entry, "court": 3}) == ""  # half is not fewer than half
    assert measured.weakness({**entry, "court": 5, "single": 6}).endswith("less often than one call")
    outcome = {"confidences": [], "data": {"votes": {"guilty": 5, "not guilty": 0}, "split": "5–0", "measured": entry}}
    assert how_sure(outcome)[-1] == ("**This court, on this model, followed clear evidence in fewer than half the cases "
                                     "it was measured on: treat it as weak, and read the evidence yourself.**")


def test_every_measured_entry_names_a_committed_result_and_a_procedure():
    from pathlib import Path

    from courtroom_chat import measured
    from courtroom_chat.procedures import get

    root = Path(__file__).resolve().parent.parent
    for entry in measured.entries():
        get(entry["procedure"])  # a registered procedure
        assert (root / entry["results"]).is_dir(), entry["results"]
        assert 0 <= entry["court"] <= entry["items"]
        assert all(entry[k] is None or 0 <= entry[k] <= entry["items"] for k in ("single", "majority"))


async def test_a_trial_on_a_measured_model_carries_its_record_and_one_on_another_model_does_not(monkeypatch):
    from courtroom_chat import measured

    entry = {"procedure": "decision", "model": "scripted", "items": 20, "set": "clear-cut decisions",
             "date": "2026-11-26", "court": 20, "single": None, "majority": None, "results": "bench/results/y"}
    monkeypatch.setattr(measured, "entries", lambda: (entry,))
    record = await Trial(case(), SETTINGS, store=None, seed=3).run()
    models = set(record.models.values())
    assert models == {"scripted"}, models
    assert record.outcome.data["measured"]["court"] == 20
    assert any("Measured on this model: on 20 clear-cut decisions" in line for line in how_sure(record.outcome.model_dump()))
    assert measured.for_trial("decision", {"juror": "scripted", "judge": "local:other"}) is None
    assert measured.for_trial("supreme", {"juror": "scripted"}) is None


def test_the_shipped_measured_records_name_committed_results():
    from pathlib import Path

    from courtroom_chat import measured

    root = Path(__file__).resolve().parents[1]
    for entry in measured.entries():
        assert (root / entry["results"]).is_dir(), entry["results"]
        for named in re.findall(r"bench/results/[\w.-]+", entry.get("also", "")):
            assert (root / named).is_dir(), named
        assert 0 <= entry["court"] <= entry["items"]


class _Court:
    """What ``order_check`` reads of a court: its parameters and the orders it recorded."""

    def __init__(self, orders: dict, shuffle: bool = True):
        from types import SimpleNamespace
        self.params = SimpleNamespace(shuffle_labels=shuffle)
        self.record = SimpleNamespace(outputs={"orders": orders})


def test_the_order_check_counts_votes_for_the_label_each_member_read_first():
    """Hand-computed binomial tails: 9 of 9 at 1/2 is 1/512; 5 of 9 is 256/512; with three
    shuffled labels 2 of 2 is 1/9. Votes outside the shuffled labels (an undecided kept last) and
    members with no recorded order are left out; without shuffled orders there is no check."""
    from courtroom_chat.procedures.deliberation import order_check

    ab, ba = {"labels": ["guilty", "not guilty"]}, {"labels": ["not guilty", "guilty"]}
    orders = {f"j{n}": (ab if n % 2 else ba) for n in range(1, 10)}
    first = {a: o["labels"][0] for a, o in orders.items()}
    got = order_check(_Court(orders), first, ["guilty", "not guilty"], "justices")
    assert got == {"followed": 9, "voters": 9, "chance": 0.5, "p": round(1 / 512, 4), "who": "justices"}
    five = {a: ("guilty" if n <= 5 else "not guilty") for n, a in enumerate(orders, 1)}  # j1 j3 j5 first, j6 j8
    got = order_check(_Court(orders), five, ["guilty", "not guilty"], "justices")
    assert got["followed"] == 5 and got["p"] == 0.5
    three = {"a": {"labels": ["x", "y", "z"]}, "b": {"labels": ["y", "z", "x"]}, "c": {"labels": ["x", "y", "z"]}}
    got = order_check(_Court(three), {"a": "x", "b": "y", "c": "undecided", "d": "x"}, ["x", "y", "z"], "judges")
    assert (got["followed"], got["voters"], got["p"]) == (2, 2, round(1 / 9, 4))
    assert order_check(_Court(orders, shuffle=False), first, ["guilty", "not guilty"], "justices") is None
    assert order_check(_Court(orders), {"j1": "undecided"}, ["guilty", "not guilty"], "justices") is None


def test_order_driven_is_below_the_threshold_only():
    """One rule for every reader of the order check (How sure, the eval report, fragility's
    order-kept hold): p strictly under ORDER_P; a check that did not run drives nothing."""
    from courtroom_chat.procedures.deliberation import ORDER_P, order_driven

    at = {"followed": 7, "voters": 9, "chance": 0.5, "p": ORDER_P, "who": "justices"}
    assert order_driven({**at, "p": 0.002}) and order_driven({**at, "p": ORDER_P - 1e-4})
    assert not order_driven(at) and not order_driven({**at, "p": 0.5})
    assert not order_driven(None) and not order_driven({})


def test_how_sure_says_when_the_votes_followed_the_order_of_the_labels():
    order = {"followed": 9, "voters": 9, "chance": 0.5, "p": 0.002, "who": "justices"}
    lines = how_sure({"confidences": [], "data": {"votes": {"guilty": 7, "not guilty": 2}, "order": order}})
    assert ("Order: 9 of 9 justices chose the label listed first to them, each in its own shuffled order (by chance "
            "alone 50% each; at least 9 of 9: p = 0.002): the order decided these votes more than the case did") in lines
    assert lines[-1] == ("**The votes followed the order the labels were listed in, not the case: treat it as weak, "
                         "and read the evidence yourself.**")
    calm = how_sure({"confidences": [], "data": {"votes": {"guilty": 7, "not guilty": 2},
                                                 "order": {**order, "followed": 5, "p": 0.5}}})
    assert any(line.endswith("no sign the order decided them") for line in calm) and "weak" not in calm[-1]


def test_how_sure_says_a_fragility_check_that_held_on_order_driven_votes_says_little():
    """The check decides again with the same seed, so each member reads the labels in the same
    order: votes that followed the order hold whatever is withheld, and the line says so."""
    order = {"followed": 9, "voters": 9, "chance": 0.5, "p": 0.002, "who": "justices"}
    held = {"held": True, "removed": "witness 1's testimony (Grace Holloway)",
            "summary": "without the testimony of witness 1 (Grace Holloway), the justices decide not guilty (6–3)"}
    data = {"votes": {"not guilty": 6, "guilty": 3}, "order": order, "fragility": held}
    lines = how_sure({"confidences": [], "data": data})
    assert ("Fragility: without the testimony of witness 1 (Grace Holloway), the justices decide not guilty (6–3); "
            "the check kept each member's order of the labels, which decided these votes, so its holding says "
            "little of the evidence") in lines
    calm = how_sure({"confidences": [], "data": {**data, "order": {**order, "followed": 5, "p": 0.5}}})
    assert "Fragility: without the testimony of witness 1 (Grace Holloway), the justices decide not guilty (6–3)" in calm
    turned = {**held, "held": False, "summary": "the decision rests on witness 1's testimony: …"}
    assert "Fragility: the decision rests on witness 1's testimony: …" in how_sure(
        {"confidences": [], "data": {**data, "fragility": turned}})  # a turn is not the order's doing


async def test_a_bench_that_votes_the_order_it_was_shown_is_called_out_in_the_verdict():
    """The supreme court with its default shuffled orders: justices scripted to pick whatever
    verdict is listed first to them (what the 1.5B did on the clear cases, 9 of 9 twice) get
    the order line and the weak sentence; the same trial's demo justices, who decide by the case, do not."""
    from tests.test_supreme import opinion, trial

    seeded, _ = await trial(seed=5)
    orders = seeded.outputs["orders"]
    assert seeded.outcome.data["order"]["voters"] == 9  # the check runs on every shuffled trial
    script = {f"justice-{n}": [opinion(orders[f"justice-{n}"]["labels"][0]),
                               opinion(orders[f"justice-{n}"]["labels"][0], changed=False, why="Nothing changes it.")]
              for n in range(1, 10)}
    record, _ = await trial(script=script, seed=5)
    assert record.outcome.data["order"] == {"followed": 9, "voters": 9, "chance": 0.5, "p": 0.002, "who": "justices"}
    text = "\n".join(how_sure(record.outcome.model_dump()))
    assert "the order decided these votes more than the case did" in text and "not the case" in text


async def test_the_decision_courts_jury_gets_the_order_check_when_its_labels_are_shuffled():
    settings = Settings().with_backend("scripted")
    shuffled = await Trial(load_case(CASES / "code-commit.json"), settings.with_params("decision", {"shuffle_labels": True}),
                           store=None, seed=3).run()
    order, orders = shuffled.outcome.data["order"], shuffled.outputs["orders"]
    votes = {f"juror-{j.number}": j.vote for j in shuffled.jury.jurors if j.vote}
    words = {"guilty": "act", "not_guilty": "do not act", "abstain": "abstain"}
    assert order["who"] == "jurors" and order["voters"] == len(votes) == 5
    assert order["followed"] == sum(orders[a]["labels"][0] == words[v] for a, v in votes.items())
    fixed = await Trial(load_case(CASES / "code-commit.json"), settings, store=None, seed=3).run()
    assert "order" not in fixed.outcome.data  # one order for every juror: nothing to test against


async def test_a_question_whose_yes_means_not_going_ahead_is_named_where_the_model_was_weak_on_it(monkeypatch):
    """Measured on the 1.5B (2026-11-28): it read good news as Yes whatever the question asked, and
    lost "Should we postpone the data-center move?" on evidence that said postpone."""
    from courtroom_chat import measured
    from courtroom_chat.case import new_case, pasted_document
    from courtroom_chat.motion import holds_back

    assert holds_back("Should we postpone the data-center move?") == "postpone"
    assert holds_back("Should the board reject the budget?") == "reject"
    assert holds_back("Should I merge PR 12?") == "" and holds_back("Design A or B?") == ""
    entry = {"procedure": "decision", "model": "scripted", "items": 20, "set": "clear-cut decisions",
             "date": "2026-11-28", "court": 20, "single": None, "majority": None, "results": "bench/results/y",
             "inverted": "the court lost one of two such cases"}
    monkeypatch.setattr(measured, "entries", lambda: (entry,))
    notes = pasted_document("The new site failed its power test.\nOnly 2 of 9 switches were delivered.\n")
    record = await Trial(new_case("Should we postpone the data-center move?", [notes]), SETTINGS, store=None).run()
    lines = how_sure(record.outcome.model_dump())
    assert any(line.startswith('Question: a Yes here means not going ahead ("postpone"); the court lost one') for line in lines)
    assert "Yes means not going ahead" in lines[-1] and ("weak" in lines[-1] or "coin toss" in lines[-1])
    # the direct question, or a model with no such measurement, says nothing of it
    record = await Trial(new_case("Should we go ahead with the data-center move?", [notes]), SETTINGS, store=None).run()
    assert "holds_back" not in record.outcome.data
    monkeypatch.setattr(measured, "entries", lambda: ({k: v for k, v in entry.items() if k != "inverted"},))
    record = await Trial(new_case("Should we postpone the data-center move?", [notes]), SETTINGS, store=None).run()
    assert "holds_back" not in record.outcome.data and not any("not going ahead" in x for x in how_sure(record.outcome.model_dump()))


@pytest.mark.parametrize("question, direct", [
    ("Should we cancel our contract with Brightline Couriers?", "Should we keep our contract with Brightline Couriers?"),
    ("Should we pause hiring for the support team?", "Should we continue hiring for the support team?"),
    ("Should we stop the pricing page A/B test early?", "Should we continue the pricing page A/B test as planned?"),
    ("Should we delay the mobile app 5.0 release to next month?",
     "Should we go ahead with the mobile app 5.0 release as planned?"),
    ("Should we postpone the launch until March 3?", "Should we go ahead with the launch as planned?"),
    ("Should the committee reject the proposal to move the office to Harbor Park?",
     "Should the committee accept the proposal to move the office to Harbor Park?"),
    ("The vendor missed two deadlines. Should we halt the rollout now?",
     "The vendor missed two deadlines. Should we continue the rollout as planned?"),
    ("Should we delay the move to the Berlin office?", "Should we go ahead with the move to the Berlin office as planned?"),
])
def test_a_question_that_holds_back_is_asked_the_direct_way(question, direct):
    from courtroom_chat.motion import direct_question, holds_back

    found = direct_question(question)
    assert found is not None and found.question == direct and found.verb == holds_back(question)
    assert holds_back(found.question) == ""  # asked the direct way, it no longer holds back


@pytest.mark.parametrize("question, tried, yes, no", [
    ("Should we cancel our contract with Brightline Couriers?",
     "Should we cancel our contract with Brightline Couriers rather than keep our contract with Brightline Couriers?",
     "Yes: cancel your contract with Brightline Couriers", "No: keep your contract with Brightline Couriers"),
    ("Should we delay the mobile app 5.0 release to next month?",
     "Should we delay the mobile app 5.0 release to next month rather than go ahead with the mobile app 5.0 release as planned?",
     "Yes: delay the mobile app 5.0 release to next month", "No: go ahead with the mobile app 5.0 release as planned"),
    ("Should the committee reject the proposal?", "Should the committee reject the proposal rather than accept the proposal?",
     "Yes: the committee should reject the proposal", "No: the committee should accept the proposal"),
    ("The vendor missed two deadlines. Should we halt the rollout now? It is at 10%.",
     "The vendor missed two deadlines. Should we halt the rollout now rather than continue the rollout as planned? It is at 10%.",
     "Yes: halt the rollout now", "No: continue the rollout as planned"),
])
def test_a_question_that_holds_back_is_the_choice_between_holding_back_and_going_ahead(question, tried, yes, no):
    from courtroom_chat.motion import asked, held_back_choice, motion_for, swapped

    found = held_back_choice(question)
    assert found is not None and found.question == question and found.asked == tried
    m = motion_for(asked(tried)[1])
    assert (m.answer("yes"), m.answer("no")) == (yes, no)
    assert found.swapped == swapped(tried) and swapped(found.swapped) == tried  # the options the other way round


@pytest.mark.parametrize("question", [
    "Should I merge PR 12?", "Should we skip the retro?",  # no hold-back, or no safe counterpart
    "Should we cancel the cancel button?",  # the verb twice: no safe rewrite
    "Design A or B?", "Should we stop, or continue?",
])
def test_no_direct_question_where_no_rule_turns_it_safely(question):
    from courtroom_chat.motion import direct_question, held_back_choice

    assert direct_question(question) is None and held_back_choice(question) is None


async def test_jurors_answer_the_direct_question_and_their_answers_count_the_other_way():
    """ask_direct: a question whose Yes means not going ahead is put to the jurors the direct way
    and their answers count the other way (measured, and off by default: see its description)."""
    from courtroom_chat.case import new_case, pasted_document

    review = pasted_document("41% of deliveries arrived late this quarter, against a contracted 5%.\n"
                             "The contract can be cancelled at 30 days' notice without penalty.\n")
    asked = "Should we cancel our contract with Brightline Couriers?"
    direct = "Should we keep our contract with Brightline Couriers?"
    said = {"reasoning": "Deliveries are late far beyond the contract; keeping it costs us.", "decision": "no",
            "confidence": 0.8}
    direct_way = SETTINGS.with_params("decision", {"ask_direct": True})
    backend = ScriptedBackend(script={f"juror-{n}": [said] for n in range(1, 6)})
    record = await Trial(new_case(asked, [review]), direct_way, store=None, seed=1, backends={"scripted": backend}).run()
    assert record.outputs["direct"] == {"question": direct, "verb": "cancel"}
    jurors = [r for r in backend.calls if r.role == "juror"]
    assert len(jurors) == 5 and all(f"QUESTION: {direct}" in r.prefix and asked not in r.prefix for r in jurors)
    others = [r for r in backend.calls if r.role != "juror"]
    assert others and all(f"QUESTION: {asked}" in r.prefix for r in others)  # the rest of the court: as asked
    assert record.jury.guilty_count == 5 and record.verdict.decision == "guilty"  # No to keep: Yes, cancel
    assert record.verdict.answer == "Yes: cancel your contract with Brightline Couriers"
    assert all(j.asked == direct and j.answered == "no" for j in record.jury.jurors)
    from courtroom_chat.procedures.decision import present

    card = present.juror_markdown(record.jury.jurors[0].model_dump(mode="json"))
    assert f"Asked instead: *{direct}* · answered no, which counts as" in card and "**Vote: act**" in card
    # off (the default), or a question asked the direct way already: jurors answer the question as asked
    backend = ScriptedBackend(script={f"juror-{n}": [said] for n in range(1, 6)})
    record = await Trial(new_case(asked, [review]), SETTINGS, store=None, seed=1, backends={"scripted": backend}).run()
    assert "direct" not in record.outputs and record.verdict.decision == "not_guilty"
    assert all(f"QUESTION: {asked}" in r.prefix for r in backend.calls)
    record = await Trial(new_case(direct, [review]), direct_way, store=None, seed=1).run()
    assert "direct" not in record.outputs and not any(j.asked for j in record.jury.jurors)


async def test_the_dry_run_shows_jurors_the_direct_question():
    from courtroom_chat.case import new_case, pasted_document

    review = pasted_document("41% of deliveries arrived late this quarter.\n")
    events = []
    await Trial(new_case("Should we pause hiring for the support team?", [review]),
                SETTINGS.with_params("decision", {"ask_direct": True}), store=None, dry_run=True).run(events.append)
    planned = {e.agent: "\n".join(m["content"] for m in e.messages) for e in events if type(e).__name__ == "PromptPlanned"}
    assert all("QUESTION: Should we continue hiring for the support team?" in text
               for agent, text in planned.items() if agent.startswith("juror"))
    assert "QUESTION: Should we pause hiring for the support team?" in planned["prosecutor"]
    from courtroom_chat.errors import ConfigError

    with pytest.raises(ConfigError, match='ask_direct needs jury_asks = "plain"'):
        SETTINGS.with_params("decision", {"ask_direct": True, "jury_asks": "motion"})


async def test_a_choice_is_tried_as_one_question_and_every_second_juror_hears_the_options_the_other_way():
    """balance_options (the default): "Design A or B?" is tried as "Should we choose Design A
    rather than Design B?"; jurors 2 and 4 are asked for Design B rather than Design A and their
    answers count the other way, so a juror that prefers Design A helps it whichever way it was
    asked, and a lean to one answer no longer favours the option named second."""
    from courtroom_chat.case import new_case, pasted_document
    from courtroom_chat.procedures.decision import present

    mockups = pasted_document("Design A: loads in 0.8 s and passed the accessibility review.\n"
                              "Design B: loads in 2.4 s and failed the accessibility review.\n")
    tried, other_way = ("Should we choose Design A rather than Design B?",
                        "Should we choose Design B rather than Design A?")
    prefer_a = {"reasoning": "Design A loads three times faster and passed the accessibility review.", "confidence": 0.8}
    script = {f"juror-{n}": [{**prefer_a, "decision": "no" if n % 2 == 0 else "yes"}] for n in range(1, 6)}
    backend = ScriptedBackend(script=script)
    record = await Trial(new_case("Design A or B?", [mockups]), SETTINGS, store=None, seed=1,
                         backends={"scripted": backend}).run()
    assert record.case.question == tried and record.case.inputs == {"asked": "Design A or B?"}
    assert record.outputs["direct"] == {"question": other_way, "verb": "", "jurors": [2, 4]}
    asked = {r.agent: r.prefix for r in backend.calls if r.role == "juror"}
    assert all((f"QUESTION: {other_way}" in asked[f"juror-{n}"]) == (n % 2 == 0) for n in range(1, 6))
    assert all(f"QUESTION: {tried}" in r.prefix for r in backend.calls if r.role != "juror")
    assert record.jury.guilty_count == 5 and record.verdict.answer == "Yes: choose Design A"
    assert [j.answered for j in record.jury.jurors] == ["", "no", "", "no", ""]
    # the verdict names the option chosen, not the vote's "act"
    assert "**Decision:** choose Design A · decided by" in record.outcome.markdown
    card = present.juror_markdown(record.jury.jurors[1].model_dump(mode="json"))
    assert f"Asked instead: *{other_way}* · answered no, which counts as" in card and "**Vote: act**" in card
    both = {"as_asked": {"yes": 3, "no": 0}, "other_way": {"yes": 0, "no": 2}, "lean": ""}
    assert record.outcome.data["both_ways"] == both  # each group chose Design A: no lean
    sure = how_sure(record.outcome.model_dump(mode="json"))
    assert "Asked both ways round: yes 3, no 0 as asked; yes 0, no 2 turned around" in sure
    assert not any("whichever way round" in line for line in sure)
    # jurors who answer "yes" both ways round answer the wording: the verdict says so and reads as weak
    yes_both = {f"juror-{n}": [{**prefer_a, "decision": "yes"}] for n in range(1, 6)}
    leaning = await Trial(new_case("Design A or B?", [mockups]), SETTINGS, store=None, seed=1,
                          backends={"scripted": ScriptedBackend(script=yes_both)}).run()
    assert leaning.outcome.data["both_ways"]["lean"] == "yes"
    sure = how_sure(leaning.outcome.model_dump(mode="json"))
    assert any('("yes" both ways: the answers followed the wording, not the evidence)' in line for line in sure)
    assert 'jurors answered "yes" whichever way round the question was put' in sure[-1]
    # the recorded case runs again as it was tried (its "asked" input is the court's own)
    again = await Trial(record.case, SETTINGS, store=None, seed=1, backends={"scripted": ScriptedBackend(script=script)}).run()
    assert again.case.question == tried and again.verdict.answer == "Yes: choose Design A"
    # balance_options off: every juror is asked the question as tried
    backend = ScriptedBackend(script=script)
    record = await Trial(new_case("Design A or B?", [mockups]), SETTINGS.with_params("decision", {"balance_options": False}),
                         store=None, seed=1, backends={"scripted": backend}).run()
    assert "direct" not in record.outputs and all(f"QUESTION: {tried}" in r.prefix for r in backend.calls)
    assert (record.jury.guilty_count, record.jury.not_guilty_count) == (3, 2) and "both_ways" not in record.outcome.data
    # ask_direct finds no direct way to ask a choice, so the options are still put both ways round
    record = await Trial(new_case("Design A or B?", [mockups]), SETTINGS.with_params("decision", {"ask_direct": True}),
                         store=None, seed=1, backends={"scripted": ScriptedBackend(script=script)}).run()
    assert record.outputs["direct"]["jurors"] == [2, 4] and record.verdict.answer == "Yes: choose Design A"


async def test_hold_back_as_choice_tries_a_question_that_holds_back_as_holding_back_rather_than_going_ahead():
    """hold_back_as_choice: "Should we cancel our contract with Brightline Couriers?" is tried as the
    choice between cancelling and keeping it, answered in the option's words, every second juror
    asked the options the other way round; off (the default), the question is tried as asked."""
    from courtroom_chat.case import new_case, pasted_document

    review = pasted_document("41% of deliveries arrived late. The contract can be cancelled with no fee.\n")
    question = "Should we cancel our contract with Brightline Couriers?"
    tried = ("Should we cancel our contract with Brightline Couriers rather than keep our contract with "
             "Brightline Couriers?")
    other_way = ("Should we keep our contract with Brightline Couriers rather than cancel our contract with "
                 "Brightline Couriers?")
    cancel = {"reasoning": "Deliveries are late and cancelling costs nothing.", "confidence": 0.8}
    script = {f"juror-{n}": [{**cancel, "decision": "no" if n % 2 == 0 else "yes"}] for n in range(1, 6)}
    backend = ScriptedBackend(script=script)
    settings = SETTINGS.with_params("decision", {"hold_back_as_choice": True})
    record = await Trial(new_case(question, [review]), settings, store=None, seed=1, backends={"scripted": backend}).run()
    assert record.case.question == tried and record.case.inputs == {"asked": question}
    assert record.outputs["direct"] == {"question": other_way, "verb": "", "jurors": [2, 4]}
    assert record.jury.guilty_count == 5 and record.verdict.answer == "Yes: cancel your contract with Brightline Couriers"
    assert "**Decision:** cancel your contract with Brightline Couriers · decided by" in record.outcome.markdown
    # the default: tried as asked
    record = await Trial(new_case(question, [review]), SETTINGS, store=None, seed=1,
                         backends={"scripted": ScriptedBackend(script=script)}).run()
    assert record.case.question == question and "asked" not in record.case.inputs and "direct" not in record.outputs


async def test_balance_answers_puts_the_mirror_to_every_second_juror_and_counts_it_the_other_way():
    """balance_answers: jurors 2 and 4 are asked the question turned around; a juror that reads
    the evidence as saying merge answers "yes" as asked and "no" turned around, and both count for
    merging. Its reasoning ("we should merge") is not read as contradicting its "no" there."""
    from courtroom_chat.case import new_case, pasted_document

    pr = pasted_document("All 1,482 tests pass.\nBoth reviewers approved the change.\n")
    asked, mirror = "Should I merge PR 12?", "Should I not merge PR 12?"
    merge = {"reasoning": "All tests pass and both reviewers approved, so we should merge PR 12.", "confidence": 0.8}
    script = {f"juror-{n}": [{**merge, "decision": "no" if n % 2 == 0 else "yes"}] for n in range(1, 6)}
    backend = ScriptedBackend(script=script)
    record = await Trial(new_case(asked, [pr]), SETTINGS.with_params("decision", {"balance_answers": True}), store=None,
                         seed=1, backends={"scripted": backend}).run()
    assert record.outputs["direct"] == {"question": mirror, "verb": "", "jurors": [2, 4]}
    jurors = {r.agent: r for r in backend.calls if r.role == "juror"}
    assert len(jurors) == 5 and all((f"QUESTION: {mirror}" in jurors[f"juror-{n}"].prefix) == (n % 2 == 0)
                                    for n in range(1, 6))
    assert not any(r.problems for r in record.calls if r.role == "juror")  # no contradiction read into "no"
    assert record.jury.guilty_count == 5 and record.verdict.answer == "Yes: merge PR 12"
    assert record.outcome.data["both_ways"] == {"as_asked": {"yes": 3, "no": 0}, "other_way": {"yes": 0, "no": 2},
                                                "lean": ""}
    # off (the default): every juror is asked the question as it is
    backend = ScriptedBackend(script=script)
    record = await Trial(new_case(asked, [pr]), SETTINGS, store=None, seed=1, backends={"scripted": backend}).run()
    assert "direct" not in record.outputs and (record.jury.guilty_count, record.jury.not_guilty_count) == (3, 2)


@pytest.mark.parametrize("rationale, verb, decision, flagged", [
    ("The evidence strongly supports delaying the mobile app 5.0 release to next month.", "delay", "do not act", True),
    ("Moving the billing database next weekend is necessary: the rehearsal failed after 3 hours.", "move", "do not act", True),
    ("The rehearsal failed after 3 hours, so we should not move the database yet.", "move", "act", True),
    ("There is no reason to delay: all 212 release tests pass.", "delay", "do not act", False),
    ("The evidence strongly supports delaying the release: 3 blockers are open.", "delay", "act", False),
    ("Moving the database is not necessary this month; the old cluster has headroom.", "move", "do not act", False),
    ("The prosecution argues we should stop the test; the sample is 4 of 14 days.", "stop", "do not act", False),
    ("All tests pass and two reviewers approved.", "merge", "do not act", False),
    ("The committee should reject the proposal: the lease costs 60% more.", "reject", "do not act", True),
    ("Based on this, the decision to not publish the essay is justified.", "publish", "do not act", False),
    ("While the pilot went well, it is not clear that we should roll out the scheduler.", "roll", "do not act", False),
    ("It is difficult to decide whether postponing the move is justified.", "postpone", "do not act", False),
    ("We cannot say whether the team should buy the licence.", "buy", "do not act", False),
    ("The evidence supports keeping the booth.", "", "do not act", False),  # no action verb read: nothing checked
])
def test_a_rationale_that_argues_against_its_own_decision_is_found(rationale, verb, decision, flagged):
    from courtroom_chat.procedures.decision.rules import argues_against

    assert bool(argues_against(rationale, verb, decision)) is flagged


async def test_the_judge_is_asked_again_when_its_rationale_argues_against_the_decision():
    from courtroom_chat.case import new_case, pasted_document

    notes = pasted_document("The 5.0 build passed all 212 release tests.\nMarketing launch is booked for Monday.\n")
    against = {"decision": "do not act", "reasoning": "The prosecution argued to delay. The defense argued to ship. The "
               "jury decided.", "rationale": "The evidence strongly supports delaying the 5.0 release to next month.",
               "actions": ["Ship the 5.0 build on Monday as booked."], "confidence": 0.8}
    fixed = {**against, "rationale": "The 5.0 build passed all 212 release tests and the launch is booked for Monday."}
    said = {"reasoning": "All release tests pass and the launch is booked.", "decision": "no", "confidence": 0.9}
    backend = ScriptedBackend(script={"judge": [against, fixed], **{f"juror-{n}": [said] for n in range(1, 6)}})
    record = await Trial(new_case("Should we delay the 5.0 release to next month?", [notes]), SETTINGS, store=None,
                         backends={"scripted": backend}).run()
    judge = [r for r in backend.calls if r.role == "judge"]
    assert len(judge) == 2 and "argues against the decision" in judge[1].messages()[-1]["content"]
    assert record.verdict.decision == "not_guilty" and record.verdict.rationale.startswith("The 5.0 build passed")


async def test_a_juror_whose_answer_goes_against_its_own_reasoning_is_asked_again():
    """On the 1.5B (2026-11-28) five of five jurors wrote "the committee should reject the proposal"
    and answered "no" to "Should the committee reject the proposal …?"."""
    from courtroom_chat.case import new_case, pasted_document

    notes = pasted_document("The Harbor Park lease costs 60% more per year than the current one.\n"
                            "82% of staff are against the move.\n")
    question = "Should the committee reject the proposal to move the office to Harbor Park?"
    against = {"reasoning": "The lease costs 60% more and 82% of staff are against it. The committee should reject "
               "the proposal.", "decision": "no", "confidence": 0.8}
    fixed = {**against, "decision": "yes"}

    async def tried(settings, script=None):  # juror 1 mends its answer when asked again, juror 2 does not
        backend = ScriptedBackend(script=script or {"juror-1": [against, fixed], "juror-2": [against, against],
                                                    **{f"juror-{n}": [fixed] for n in range(3, 6)}})
        record = await Trial(new_case(question, [notes]), settings, store=None, seed=1,
                             backends={"scripted": backend}).run()
        return record, backend

    record, backend = await tried(SETTINGS)
    asked = {n: [r for r in backend.calls if r.agent == f"juror-{n}"] for n in range(1, 6)}
    assert [len(asked[n]) for n in range(1, 6)] == [2, 2, 1, 1, 1]
    repair = asked[1][1].messages()[-1]["content"]
    assert 'your reasoning says "The committee should reject the proposal."' in repair and 'answered "no"' in repair
    # juror 2 kept its answer against its reasoning: by default its answer counts, warned, and How sure says so
    assert [j.vote for j in record.jury.jurors] == ["guilty", "not_guilty", "guilty", "guilty", "guilty"]
    assert any(w.agent == "juror-2" and "your reasoning says" in w.message for w in record.warnings)
    assert record.outcome.data["against_reasoning"] == 1
    lines = how_sure(record.outcome.model_dump())
    assert any(line.startswith("Self-contradiction: 1 voter answered against its own reasoning") for line in lines)
    assert "1 voter answered against its own reasoning" in lines[-1]
    # "reasoning": its reasoning counts, and the run says so
    record, _ = await tried(SETTINGS.with_params("decision", {"juror_consistency": "reasoning"}))
    assert [j.vote for j in record.jury.jurors] == ["guilty"] * 5
    assert record.jury.jurors[1].against_reasoning.startswith('answered "no", yet its reasoning says "The committee')
    assert any(w.agent == "juror-2" and "its vote counts as its reasoning concludes: act" in w.message
               for w in record.warnings)
    from courtroom_chat.procedures.decision import present

    card = present.juror_markdown(record.jury.jurors[1].model_dump(mode="json"))
    assert "counted as its reasoning concludes" in card and "**Vote: act**" in card
    # off: the answers stand as given, unasked
    record, backend = await tried(SETTINGS.with_params("decision", {"juror_consistency": "off"}),
                                  {f"juror-{n}": [against] for n in range(1, 6)})
    assert len([r for r in backend.calls if r.role == "juror"]) == 5 and record.jury.not_guilty_count == 5


def test_an_accuracy_entry_says_right_on_and_the_criminal_and_classification_courts_carry_theirs():
    """The classification court's labels and the criminal trial's charges were measured against a
    dataset's gold answers, not as clear evidence followed: their How sure line says "was right on",
    and on the 1.5B both trailed one call, so their verdicts are called weak."""
    from courtroom_chat import measured

    entry = {"procedure": "classification", "model": "local:m", "kind": "accuracy", "items": 100, "set": "RTE items",
             "date": "2026-11-28", "court": 62, "single": 65, "majority": 66, "results": "bench/results/x"}
    assert measured.summary(entry) == ("on 100 RTE items (2026-11-28) this court was right on 62; one call on 65, "
                                       "a majority of five calls on 66")
    assert measured.weakness(entry) == "this court, on this model, was right less often than one call"
    assert measured.weakness({**entry, "court": 40, "single": None, "majority": None}) == (
        "this court, on this model, was right on fewer than half the items it was measured on")
    judgment = {"confidences": [], "data": {"measured": entry}}  # a judgment: no votes, no exhibits
    assert how_sure(judgment)[-1] == ("**This court, on this model, was right less often than one call: treat it as "
                                      "weak, and read the evidence yourself.**")
    local = "local:qwen2.5-coder-1.5b"
    for procedure in ("classification", "criminal"):
        shipped = measured.for_trial(procedure, {"judge": local, "prosecution": local})
        assert shipped and shipped["kind"] == "accuracy" and measured.weakness(shipped).endswith("than one call")
    assert "further from the real one" in measured.summary(measured.for_trial("criminal", {"judge": local}))
    assert measured.for_trial("criminal", {"judge": local, "defendant": "local:qwen2.5-coder-0.5b"}) is None


def test_how_sure_says_who_moved_between_rounds_and_calls_an_overturned_first_majority_weak():
    """The bench's rounds on the 1.5B turned a right round-1 majority into a wrong consensus in 2 of
    6 clear transcripts (every move toward guilty): a verdict the later rounds reached against round
    1's majority says so and reads as weak; one that kept round 1's majority only counts the moves."""
    moved = {"rounds": [{"round": 2, "previous_majority": "not guilty", "changed": 3, "toward": 0, "away": 3,
                         "moves": []}], "changed": 3, "toward": 0, "away": 3}
    outcome = {"label": "guilty", "confidences": [], "data": {"votes": {"guilty": 5, "not guilty": 0}, "split": "5–0",
                                                             "conformity": moved}}
    lines = how_sure(outcome)
    assert ("Rounds: 3 members changed position after round 1 (0 toward its majority, 3 away); round 1's majority "
            "was not guilty, the verdict is guilty") in lines
    assert lines[-1] == ("**The later rounds overturned the first round's majority (not guilty): treat it as weak, "
                         "and read the evidence yourself.**")
    kept = {**outcome, "label": "not guilty", "data": {**outcome["data"], "votes": {"guilty": 0, "not guilty": 5}}}
    assert "Rounds: 3 members changed position after round 1 (0 toward its majority, 3 away)" in how_sure(kept)
    assert "overturned" not in how_sure(kept)[-1] and "Unanimous" in how_sure(kept)[-1]
    hung = {**outcome, "label": "hung"}
    assert "overturned" not in " ".join(how_sure(hung))  # no verdict: nothing overturned
    still = {**outcome, "data": {**outcome["data"], "conformity": {"rounds": [{"previous_majority": "guilty"}],
                                                                    "changed": 0, "toward": 0}}}
    assert "Rounds: no member changed position after round 1" in how_sure(still)
    assert not any(line.startswith("Rounds") for line in how_sure({**outcome, "data": {"votes": {"guilty": 5}}}))


def test_how_sure_is_three_lines_with_the_rest_one_click_or_verbose_away():
    """Issue 86: the split, the evidence and the one sentence that names what most weakens the
    verdict; the rest in a <details> block (notebook), a linked element's name (chat), or inline
    with --verbose (CLI, full=True)."""
    from courtroom_chat.render import IN_FULL, how_sure, how_sure_brief, outcome_markdown

    outcome = {"answer": "Yes", "data": {"votes": {"yes": 3, "no": 2}, "split": "3–2", "flags": 1,
                                         "mirror": {"summary": "the negated question agreed", "kind": "agree"}},
               "confidences": [{"kind": "evidence", "label": "verified evidence for it", "value": 1.0,
                                "basis": "verified and unrefuted exhibits: 2 for acting, 0 against"}]}
    full = how_sure(outcome)
    brief = how_sure_brief(full)
    assert len(full) > 3 and len(brief) == 3
    assert brief[0].startswith("Votes: 3–2") and brief[1].startswith("Evidence:") and brief[2] == full[-1]
    assert "Split vote, and evidence that tried to give orders" in brief[2]
    notebook = outcome_markdown(outcome)
    assert f"<details><summary>{IN_FULL}</summary>" in notebook and "- Mirror:" in notebook.split("<details>")[1]
    chat = outcome_markdown(outcome, html=False)
    assert f"- {IN_FULL}" in chat and "Mirror:" not in chat
    verbose = outcome_markdown(outcome, full=True)
    assert "- Mirror:" in verbose and "<details>" not in verbose and IN_FULL not in verbose
    assert "Mirror:" not in outcome_markdown(outcome, full=False)


def test_the_replays_status_and_cost_are_separate_paragraphs():
    """Issue 86, item 8: "Status: incomplete (…) · 3463.8 s This trial: $0 …" read as one line."""
    from courtroom_chat.events import RunFinished

    text = replay([RunFinished(run_id="r", status="incomplete", stages_completed=["prosecution"], duration_ms=3_463_800,
                               cost_usd=0.0, cost_known=True, cost_by_role={}, error="interrupted")], html=False)
    status = next(line for line in text.splitlines() if line.startswith("Status:"))
    assert status.endswith("· 3463.8 s") and "\n\n**This trial:** $0" in text


def test_the_scripted_rulings_sentences_read_as_sentences():
    """Issue 86, item 8: the demo's rationale read "on the verified evidence: | Error rate | 0.21% |
    0.20% |." and "… summary,."."""
    from courtroom_chat.procedures.decision.demo import _sentence

    assert _sentence("| Error rate | 0.21% | 0.20% |") == "Error rate: 0.21%, 0.20%."
    assert _sentence("- the release summary,") == "the release summary."
    assert _sentence("All 1,204 tests pass!") == "All 1,204 tests pass!"
