from __future__ import annotations

import unicodedata

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from courtroom_chat.case import pasted_document
from courtroom_chat.evidence import EvidenceIndex, clean_quote, normalise, normalise_text, quote_choices

TEXT = st.text(
    alphabet=st.characters(
        whitelist_categories=("Lu", "Ll", "Nd", "Zs", "Pd", "Pi", "Pf", "Po", "Mn"),
        whitelist_characters="\n\t\u2019\u201c\u201d\u2013\u2014\u00a0\u00e9",
    ),
    min_size=1,
    max_size=300,
)

VARIANTS = {"'": "\u2019", '"': "\u201d", "-": "\u2013", " ": "\n  "}


def disguise(text: str) -> str:
    """What a model does to a quote: typographic marks, reflowed whitespace, another Unicode form."""
    out = "".join(VARIANTS.get(ch, ch) for ch in text)
    return unicodedata.normalize("NFD", out)


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=200))
def test_the_ascii_fast_path_equals_the_general_one(text):
    from courtroom_chat.evidence import _normalise_ascii, _normalise_general

    assert _normalise_ascii(text) == _normalise_general(text)


@given(TEXT)
def test_normalise_is_idempotent(text):
    once = normalise_text(text)
    assert normalise_text(once) == once


@given(TEXT)
def test_normalised_offsets_point_back_into_the_original(text):
    n = normalise(text)
    assert len(n.origin) == len(n.text)
    assert all(0 <= o < len(text) for o in n.origin)
    assert n.origin == sorted(n.origin)


QUOTE = TEXT.filter(lambda q: len(clean_quote(q)) >= 3 and not unicodedata.combining(q[0]))


@settings(max_examples=150)
@given(TEXT, QUOTE, TEXT)
def test_any_disguised_quote_verifies_where_it_stands(prefix, quote, suffix):
    assume(not (suffix and unicodedata.combining(suffix[0])))  # a quote never ends inside a grapheme
    text = prefix + quote + suffix
    doc = pasted_document("", 1).model_copy(update={"text": text})
    found = EvidenceIndex([doc]).check(disguise(quote))
    assert found.verified
    loc = found.location
    # the located span, normalised, contains the normalised quote, and its line number is right
    assert clean_quote(quote) in normalise_text(text[loc.char_start : loc.char_end])
    assert loc.line_start == text.count("\n", 0, loc.char_start) + 1


@given(TEXT, TEXT)
def test_a_quote_absent_from_the_evidence_is_not_verified(text, other):
    needle = clean_quote(other)
    assume(len(needle) >= 3 and needle not in normalise_text(text))
    doc = pasted_document("", 1).model_copy(update={"text": text})
    assert not EvidenceIndex([doc]).check(other).verified


def test_location_file_line_and_offsets():
    diff = pasted_document("", 1).model_copy(update={"name": "pr.diff", "text": "line one\n+    retries = 0\nline three\n"})
    log = pasted_document("", 2).model_copy(update={"name": "log.txt", "text": "FAILED test_x - ValueError: bad\n"})
    found = EvidenceIndex([diff, log]).check("ValueError:   bad")
    assert found.verified and found.location.document == "log.txt"
    assert (found.location.line_start, found.location.char_start, found.location.char_end) == (1, 16, 31)
    assert found.location.short() == "log.txt:1"
    two_lines = EvidenceIndex([diff]).check("line one retries = 0")
    assert not two_lines.verified  # the diff marker sits between them: not verbatim
    spanning = EvidenceIndex([diff]).check("line one + retries = 0")
    assert spanning.verified and spanning.location.short() == "pr.diff:1-2"


def test_nearest_miss_reports_the_real_passage_and_similarity():
    doc = pasted_document("", 1).model_copy(update={
        "name": "essay.md",
        "text": "Intro.\nWe closed 212 tickets in the six months of the trial, against 181 before.\nEnd.\n",
    })
    found = EvidenceIndex([doc]).check("We closed 221 tickets in the six month trial, against 181 before")
    assert not found.verified
    assert found.nearest.location.line_start == 2
    assert "212 tickets" in found.nearest.passage
    assert 0.8 < found.nearest.similarity < 1.0


def test_wrapping_quote_marks_and_ellipses_are_ignored():
    doc = pasted_document("The release branch is cut on Thursday.", 1)
    assert EvidenceIndex([doc]).check("\u201c\u2026the release branch is cut on Thursday\u201d").verified is False  # case matters
    assert EvidenceIndex([doc]).check("\u201c...release branch is cut on Thursday.\u201d").verified


def test_quote_choices_are_verbatim_lines_and_give_up_on_huge_evidence():
    doc = pasted_document("short\n+    delay = float(retry_after)\nA longer line of plain prose here.\n", 1)
    choices = quote_choices([doc.model_copy(update={"kind": "diff"})])
    assert "delay = float(retry_after)" in choices
    assert all(EvidenceIndex([doc]).check(c).verified for c in choices)
    big = pasted_document("\n".join(f"distinct line number {i} of evidence" for i in range(500)), 1)
    assert quote_choices([big], limit=400) == []


def test_a_sentence_wrapped_over_a_line_break_is_one_quote_choice_and_verifies():
    """Issue 86: "Support asked for this fix before the end of the" was an exhibit and "month
    because three customers hit failed checkouts…" spilled into its "Bears on"."""
    text = ("The release branch is cut on Thursday. Support asked for this fix before the end of the\n"
            "month because three customers hit failed checkouts during the last payments outage.\n"
            "- Review: Priya approved; the refund path is covered by two new tests in\n"
            "  test_refunds.py and one in test_checkout.py.\n"
            "Status: approved\n"
            "Risk: low, the change is behind the retry flag and can be turned off\n"
            "E   ValueError: could not convert string to float: 'Wed, 21 Oct 2026 07:28:00 GMT' in the parser\n"
            "1 failed, 37 passed in 2.41s\n")
    doc = pasted_document(text, 1)
    choices = quote_choices([doc])
    assert ("The release branch is cut on Thursday. Support asked for this fix before the end of the month because "
            "three customers hit failed checkouts during the last payments outage.") in choices
    assert ("- Review: Priya approved; the refund path is covered by two new tests in test_refunds.py and one in "
            "test_checkout.py.") in choices
    assert "Status: approved" not in choices  # too short to state a fact: as before
    assert "Risk: low, the change is behind the retry flag and can be turned off" in choices  # a field stays a line
    assert "1 failed, 37 passed in 2.41s" in choices  # a log line opening on a number is not a continuation
    assert all(EvidenceIndex([doc]).check(c).verified for c in choices)
    diff = doc.model_copy(update={"kind": "diff"})
    assert "month because three customers hit failed checkouts during the last payments outage." in quote_choices([diff])


def test_a_long_sentence_is_offered_whole_up_to_400_characters():
    sentence = ("Our master services agreement with Halvorsen Bank prohibits us from hiring any Halvorsen employee who "
                "worked on our engagement within the previous 12 months, and Lukas was on the Halvorsen side of that "
                "engagement until 14 February this year.")
    assert 240 < len(sentence) <= 400
    doc = pasted_document(f"- {sentence}\n- Both interviewers recommend an offer at level 5.\n", 1)
    assert f"- {sentence}" in quote_choices([doc])
    too_long = pasted_document("word " * 90 + "end.\n", 1)
    assert quote_choices([too_long]) == []


def test_a_passage_that_only_repeats_the_question_is_no_quote_choice():
    """Seen on ADR: the prosecutor's exhibit was the option's own line in the list of options,
    which states no fact, and the fragility check then found the verdict "rested" on it."""
    doc = pasted_document("Considered options:\n1. MADR 4.0.0 – The Markdown Architectural Decision Records\n"
                          "2. Michael Nygard's template\nMADR 4.0.0 is maintained and has 12 active contributors.\n", 1)
    question = 'Should we choose "MADR 4.0.0 – The Markdown Architectural Decision Records"?'
    choices = quote_choices([doc], question=question)
    assert "1. MADR 4.0.0 – The Markdown Architectural Decision Records" not in choices
    assert "MADR 4.0.0 is maintained and has 12 active contributors." in choices
    assert "2. Michael Nygard's template" in choices  # the other option says something the question does not
    assert "1. MADR 4.0.0 – The Markdown Architectural Decision Records" in quote_choices([doc])


def test_a_long_quote_the_repair_names_is_cut_at_a_word_and_the_cut_passage_still_verifies():
    from courtroom_chat.procedures.decision.rules import quote_problems

    line = ("Summary of review: all 214 tests pass on the branch, two maintainers approved the change, and the "
            "crash it fixes affects twelve percent of sessions on the current release according to the telemetry "
            "dashboard reviewed on Tuesday by the whole team")
    index = EvidenceIndex([pasted_document(line)])
    miss = line.replace("214", "241").replace("twelve", "eleven")  # a misquote as long as the line
    [problem] = quote_problems([miss], index, first=1)
    shown = problem.message.split('passage is "', 1)[1].split('" at ', 1)[0]
    assert shown.endswith("…") and len(shown) <= 200
    assert line.startswith(shown[:-1]) and line[len(shown) - 1] == " "  # whole words, never "dashbo"
    assert index.check(shown).verified  # a model that copies the cut passage files a verified quote
