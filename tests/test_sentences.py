"""Where a sentence ends: abbreviations and initials end none, wherever text is cut into sentences."""

from __future__ import annotations

import pytest

from courtroom_chat import sentences
from courtroom_chat.case import Document
from courtroom_chat.evidence import quote_choices
from courtroom_chat.replies import at_last_sentence, finished, unfinished


@pytest.mark.parametrize(("text", "pieces"), [
    # the fragments seen as quotable passages on ICLR reviews and a supreme court transcript
    ("The proposed criterion demonstrates superior performance compared to other criteria, e.g. the BLEU "
     "score. It is fine.",
     ["The proposed criterion demonstrates superior performance compared to other criteria, e.g. the BLEU score.",
      "It is fine."]),
    ("In contrast to previous work (Han et al. (2016)), we prune. The light for Fifth Street, where Mr. Gomez "
     "was driving, had been red.",
     ["In contrast to previous work (Han et al. (2016)), we prune.",
      "The light for Fifth Street, where Mr. Gomez was driving, had been red."]),
    # "a.m.", "etc." and "al." end a sentence before a capital letter only
    ("At about 2:10 a.m. on 3 February he forced the door. He left at 3 a.m. The police came.",
     ["At about 2:10 a.m. on 3 February he forced the door.", "He left at 3 a.m.", "The police came."]),
    ("Tables, chairs, etc. are listed; the rest, etc. Fine.",
     ["Tables, chairs, etc. are listed;", "the rest, etc.", "Fine."]),
    # "No." is a number's before a digit, an answer otherwise
    ("See No. 5 for this. The answer was no. Then we left.", ["See No. 5 for this.", "The answer was no.",
                                                             "Then we left."]),
    ("J. Smith, i.e. the reviewer, agreed (see Fig. 2) vs. the baseline. Done!", [
        "J. Smith, i.e. the reviewer, agreed (see Fig. 2) vs. the baseline.", "Done!"]),
    ("A closing quote ends it.\" Then another? Yes.", ["A closing quote ends it.\" Then another?", "Yes."]),
])
def test_abbreviations_and_initials_end_no_sentence(text, pieces):
    assert sentences.split(text) == pieces


def test_a_question_is_not_cut_at_a_one_letter_abbreviation():
    from courtroom_chat.motion import motion_for

    assert motion_for("Should we ship v. 2 of the app now?").yes == "ship v. 2 of the app now"
    assert motion_for("Should we hire J. Smith?").yes == "hire J. Smith"


def test_a_long_line_offers_whole_sentences_as_quotable_passages():
    line = ("The proposed procedure works in principle and the boosting formulation produces better results than "
            "individual weak learners and better results than e.g. bagging on four of the five data sets. "
            "However, the authors need more discussion about what this method entails and how it compares to other "
            "retraining methods (e.g. Han et al. 2016), which is the main weakness of the paper as it stands.")
    choices = quote_choices([Document(name="review.md", kind="markdown", text=line + "\n")])
    assert choices == [line[:line.index(" However")], line[line.index("However"):]]
    assert not any(c.endswith(("e.g.", "al.")) for c in choices)


def test_prose_cut_at_an_abbreviation_is_unfinished_and_ends_at_a_whole_sentence():
    assert unfinished("It is limited to other benchmark methods, e.g.")
    assert not unfinished("It covers tables, chairs, etc.") and not unfinished("He left at 3 a.m.")
    assert not unfinished("Both are close, so we choose Design B.")  # an initial ends the text, not a title
    assert unfinished("It was reviewed by Dr.")
    assert finished("The tests pass. The reviewers, e.g. Dr. Lee and Mr. Park, approved it and the") == "The tests pass."
    cut = '{"reasoning": "The tests pass. Two reviewers, e.g. Dr. Lee and Mr. Park, approved it and'
    assert at_last_sentence(cut) == '{"reasoning": "The tests pass."}'
