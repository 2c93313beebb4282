"""A yes/no question becomes a motion, its negation, the plain answers and the mirror question."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from courtroom_chat.motion import (
    MotionError,
    answers,
    asked,
    asks_against,
    asks_what_to_do,
    from_phrase,
    motion_for,
    motion_problems,
    named_terms,
    negate,
    parse,
    ruled,
)
from tests.conftest import motion_jury

# (question, Yes answer, No answer, mirror question)
SHAPES = [
    # the ICLR question that gave "No: do not should ICLR 2017 accept this paper?"
    ("Should ICLR 2017 accept this paper?", "Yes: ICLR 2017 should accept this paper",
     "No: ICLR 2017 should not accept this paper", "Should ICLR 2017 reject this paper?"),
    ("Should I merge PR #214 now?", "Yes: merge PR #214 now", "No: do not merge PR #214 now",
     "Should I not merge PR #214 now?"),
    ("Should we ship on Friday?", "Yes: ship on Friday", "No: do not ship on Friday", "Should we not ship on Friday?"),
    ("should our team adopt Kubernetes", "Yes: adopt Kubernetes", "No: do not adopt Kubernetes",
     "should our team not adopt Kubernetes?"),
    ("Should the board approve the budget?", "Yes: the board should approve the budget",
     "No: the board should not approve the budget", "Should the board reject the budget?"),
    ("Should Acme Corp renew its contract with Initech for 2025?",
     "Yes: Acme Corp should renew its contract with Initech for 2025",
     "No: Acme Corp should not renew its contract with Initech for 2025",
     "Should Acme Corp not renew its contract with Initech for 2025?"),
    ("Should I publish my essay \"The Four-Day Week Is a Productivity Tool\" on the team blog now?",
     "Yes: publish your essay \"The Four-Day Week Is a Productivity Tool\" on the team blog now",
     "No: do not publish your essay \"The Four-Day Week Is a Productivity Tool\" on the team blog now",
     "Should I not publish my essay \"The Four-Day Week Is a Productivity Tool\" on the team blog now?"),
    ("Should we upgrade PostgreSQL 14 to 16 this quarter?", "Yes: upgrade PostgreSQL 14 to 16 this quarter",
     "No: do not upgrade PostgreSQL 14 to 16 this quarter", "Should we not upgrade PostgreSQL 14 to 16 this quarter?"),
    ("Should I not merge this?", "Yes: do not merge this", "No: merge this", "Should I merge this?"),
    ("Should we hire Alice as a data analyst?", "Yes: hire Alice as a data analyst",
     "No: do not hire Alice as a data analyst", "Should we turn down Alice as a data analyst?"),
    ("Shall we enable the feature flag for EU users?", "Yes: enable the feature flag for EU users",
     "No: do not enable the feature flag for EU users", "Shall we disable the feature flag for EU users?"),
    ("Must the court convict the defendant?", "Yes: the court should convict the defendant",
     "No: the court should not convict the defendant", "Must the court acquit the defendant?"),
    ("Is it worth upgrading from PostgreSQL 14 to 16?", "Yes: it is worth upgrading from PostgreSQL 14 to 16",
     "No: it is not worth upgrading from PostgreSQL 14 to 16", "Is upgrading from PostgreSQL 14 to 16 a mistake?"),
    ("Is it a good idea to migrate to Postgres 16?", "Yes: it is a good idea to migrate to Postgres 16",
     "No: it is not a good idea to migrate to Postgres 16", "Is it a bad idea to migrate to Postgres 16?"),
    ("Is it wise to refactor the billing module before Q3?", "Yes: it is wise to refactor the billing module before Q3",
     "No: it is not wise to refactor the billing module before Q3", "Is it unwise to refactor the billing module before Q3?"),
    ("Is it safe to delete the legacy tables?", "Yes: it is safe to delete the legacy tables",
     "No: it is not safe to delete the legacy tables", "Is it unsafe to delete the legacy tables?"),
    ("Is the release ready for production?", "Yes: the release is ready for production",
     "No: the release is not ready for production", "Is the release still not ready for production?"),
    ("Is v2.3 ready for the Black Friday traffic?", "Yes: v2.3 is ready for the Black Friday traffic",
     "No: v2.3 is not ready for the Black Friday traffic", "Is v2.3 still not ready for the Black Friday traffic?"),
    ("Is this PR safe to merge?", "Yes: this PR is safe to merge", "No: this PR is not safe to merge",
     "Is this PR not safe to merge?"),
    ("Is Alice a good fit for the role?", "Yes: Alice is a good fit for the role",
     "No: Alice is not a good fit for the role", "Is Alice not a good fit for the role?"),
    ("Are we ready to launch in March?", "Yes: you are ready to launch in March",
     "No: you are not ready to launch in March", "Are we still not ready to launch in March?"),
    ("Am I ready to apply for the senior role?", "Yes: you are ready to apply for the senior role",
     "No: you are not ready to apply for the senior role", "Am I not ready to apply for the senior role?"),
    ("Is there a security risk in this diff?", "Yes: there is a security risk in this diff",
     "No: there is no security risk in this diff", "Is there no security risk in this diff?"),
    ("Do we need a cache in front of the API?", "Yes: you need a cache in front of the API",
     "No: you do not need a cache in front of the API", "Can we do without a cache in front of the API?"),
    ("Do I need a lawyer for this contract?", "Yes: you need a lawyer for this contract",
     "No: you do not need a lawyer for this contract", "Can I do without a lawyer for this contract?"),
    ("Does the patch fix the memory leak?", "Yes: the patch fixes the memory leak",
     "No: the patch does not fix the memory leak", "Does the patch not fix the memory leak?"),
    ("Does the contract allow early termination?", "Yes: the contract allows early termination",
     "No: the contract does not allow early termination", "Does the contract not allow early termination?"),
    ("Can we ship on Friday?", "Yes: you can ship on Friday", "No: you cannot ship on Friday",
     "Is it impossible for us to ship on Friday?"),
    ("Can I use the MIT-licensed code in our product?", "Yes: you can use the MIT-licensed code in your product",
     "No: you cannot use the MIT-licensed code in your product",
     "Is it impossible for me to use the MIT-licensed code in our product?"),
    ("Can the server handle 10k requests per second?", "Yes: the server can handle 10k requests per second",
     "No: the server cannot handle 10k requests per second", "Is the server unable to handle 10k requests per second?"),
    ("Would it be better to rewrite the parser in Rust?", "Yes: it would be better to rewrite the parser in Rust",
     "No: it would not be better to rewrite the parser in Rust", "Would it be a mistake to rewrite the parser in Rust?"),
    ("Will the migration finish before Monday?", "Yes: the migration will finish before Monday",
     "No: the migration will not finish before Monday", "Will the migration fail to finish before Monday?"),
    ("Has the vendor signed the contract?", "Yes: the vendor has signed the contract",
     "No: the vendor has not signed the contract", "Has the vendor not signed the contract?"),
    ("Is now the right time to raise prices?", "Yes: now is the right time to raise prices",
     "No: now is not the right time to raise prices", "Is now the wrong time to raise prices?"),
    ("Is this the right moment to rebase onto main?", "Yes: this is the right moment to rebase onto main",
     "No: this is not the right moment to rebase onto main", "Is this the wrong moment to rebase onto main?"),
    ("Publish this essay now", "Yes: publish this essay now", "No: do not publish this essay now",
     "Should I not publish this essay now?"),
    ("Merge PR #88?", "Yes: merge PR #88", "No: do not merge PR #88", "Should I not merge PR #88?"),
    ("Accept the offer from Globex at $120,000?", "Yes: accept the offer from Globex at $120,000",
     "No: do not accept the offer from Globex at $120,000", "Should I reject the offer from Globex at $120,000?"),
    ("So, should we move from design A to design B?", "Yes: move from design A to design B",
     "No: do not move from design A to design B", "should we not move from design A to design B?"),
    ("Whether to publish the essay 'The Four-Day Week'", "Yes: publish the essay 'The Four-Day Week'",
     "No: do not publish the essay 'The Four-Day Week'", "Should I not publish the essay 'The Four-Day Week'?"),
    ("We should cut the release on 1 March, or not?", "Yes: cut the release on 1 March",
     "No: do not cut the release on 1 March", "Should we not cut the release on 1 March?"),
    ("Should I take 2 or 3 days off next week?", "Yes: take 2 or 3 days off next week",
     "No: do not take 2 or 3 days off next week", "Should I not take 2 or 3 days off next week?"),
    ("Can we ship with two or three known bugs?", "Yes: you can ship with two or three known bugs",
     "No: you cannot ship with two or three known bugs", "Is it impossible for us to ship with two or three known bugs?"),
    # "not" after the subject: the positive question turned around (the mirror questions the rules write)
    ("Is Dale Hollis not guilty of burglary in the second degree?", "Yes: Dale Hollis is not guilty of burglary in the "
     "second degree", "No: Dale Hollis is guilty of burglary in the second degree",
     "Is Dale Hollis guilty of burglary in the second degree?"),
    ("Should ICLR 2017 not accept this paper?", "Yes: ICLR 2017 should not accept this paper",
     "No: ICLR 2017 should accept this paper", "Should ICLR 2017 accept this paper?"),
    ("Is the PR not ready to merge?", "Yes: the PR is not ready to merge", "No: the PR is ready to merge",
     "Is the PR ready to merge?"),
    ("Is the PR still not ready to merge?", "Yes: the PR is not ready to merge", "No: the PR is ready to merge",
     "Is the PR ready to merge?"),  # the mirror the rules write for "Is the PR ready to merge?"
    ("Did Asha not take the bicycle?", "Yes: Asha did not take the bicycle", "No: Asha took the bicycle",
     "Did Asha take the bicycle?"),
    # a past question is answered in the past, and a team named as the subject is not "you"
    ("Did the board approve the budget?", "Yes: the board approved the budget",
     "No: the board did not approve the budget", "Did the board not approve the budget?"),
    ("Did the team finish the migration?", "Yes: the team finished the migration",
     "No: the team did not finish the migration", "Did the team not finish the migration?"),
    ("Did we submit the form?", "Yes: you submitted the form", "No: you did not submit the form",
     "Did we not submit the form?"),
    ("Did the vendor limit the refund?", "Yes: the vendor did limit the refund",
     "No: the vendor did not limit the refund", "Did the vendor not limit the refund?"),  # "limit" does not double
    ("Does the team need a second on-call engineer?", "Yes: the team needs a second on-call engineer",
     "No: the team does not need a second on-call engineer", "Can the team do without a second on-call engineer?"),
    ("Will our team hit the deadline?", "Yes: your team will hit the deadline", "No: your team will not hit the deadline",
     "Will our team fail to hit the deadline?"),
    # an adjective does not end a subject ("the new does not build regress …" before)
    ("Does the new build regress startup time?", "Yes: the new build regresses startup time",
     "No: the new build does not regress startup time", "Does the new build not regress startup time?"),
    # a demonstrative then a word that is also a verb: "this change" is the subject when a verb follows
    ("Does this change break backward compatibility?", "Yes: this change breaks backward compatibility",
     "No: this change does not break backward compatibility", "Does this change not break backward compatibility?"),
    ("Does this change the plan?", "Yes: this changes the plan", "No: this does not change the plan",
     "Does this not change the plan?"),
    ("Should this change go out today?", "Yes: this change should go out today",
     "No: this change should not go out today", "Should this change not go out today?"),
    # a determiner, a noun and a word that is also a verb: a noun when a verb follows whose object
    # opens at once, or "be"; the verb when a noun follows, or when it takes a bare verb ("help fix")
    ("Will the schema change lock the table?", "Yes: the schema change will lock the table",
     "No: the schema change will not lock the table", "Will the schema change fail to lock the table?"),
    ("Will the schema change fail to lock the table?", "Yes: the schema change will fail to lock the table",
     "No: the schema change will not fail to lock the table", "Will the schema change lock the table?"),
    ("Should the database lock be removed?", "Yes: the database lock should be removed",
     "No: the database lock should not be removed", "Should the database lock not be removed?"),
    ("Will the manager help fix the bug?", "Yes: the manager will help fix the bug",
     "No: the manager will not help fix the bug", "Will the manager fail to help fix the bug?"),
    ("Should team 3 ship release 2.3 today?", "Yes: team 3 should ship release 2.3 today",
     "No: team 3 should not ship release 2.3 today", "Should team 3 not ship release 2.3 today?"),
    ("Will the migration lock the users table?", "Yes: the migration will lock the users table",
     "No: the migration will not lock the users table", "Will the migration fail to lock the users table?"),
    ("Does the new index slow down writes?", "Yes: the new index slows down writes",
     "No: the new index does not slow down writes", "Does the new index not slow down writes?"),
    ("Should I accept the offer rather than negotiate?", "Yes: accept the offer", "No: negotiate",
     "Should I negotiate rather than accept the offer?"),  # "accept the negotiate" before "negotiate" was a verb
    # words the rules did not know: the motion was left to the prosecutor to phrase
    ("Are the benchmark results trustworthy?", "Yes: the benchmark results are trustworthy",
     "No: the benchmark results are not trustworthy", "Are the benchmark results not trustworthy?"),
    ("Is Kubernetes overkill for our app?", "Yes: Kubernetes is overkill for your app",
     "No: Kubernetes is not overkill for your app", "Is Kubernetes not overkill for our app?"),
    ("Did the migration lose data?", "Yes: the migration lost data", "No: the migration did not lose data",
     "Did the migration not lose data?"),
    ("Is there any reason not to merge this?", "Yes: there is some reason not to merge this",
     "No: there is no reason not to merge this", "Is there no reason not to merge this?"),
    ("Ought we to refund the customer?", "Yes: refund the customer", "No: do not refund the customer",
     "Should we not refund the customer?"),
    ("Will customers notice the price change?", "Yes: customers will notice the price change",
     "No: customers will not notice the price change", "Will customers fail to notice the price change?"),
    # "raise" has no one opposite: a seed round is not lowered
    ("Should our startup raise a seed round?", "Yes: your startup should raise a seed round",
     "No: your startup should not raise a seed round", "Should our startup not raise a seed round?"),
    ("Should the new hire lead the project?", "Yes: the new hire should lead the project",
     "No: the new hire should not lead the project", "Should the new hire not lead the project?"),
    ("Did the audit identify gaps?", "Yes: the audit identified gaps", "No: the audit did not identify gaps",
     "Did the audit not identify gaps?"),
    ("Has the team finished the audit?", "Yes: the team has finished the audit",
     "No: the team has not finished the audit", "Has the team not finished the audit?"),
    ("Do we not need a new hire?", "Yes: you do not need a new hire", "No: you need a new hire", "Do we need a new hire?"),
    # a predicate the word list does not name: an adjective before "enough", a participle, an -ly adverb
    ("Is the dataset clean enough for training?", "Yes: the dataset is clean enough for training",
     "No: the dataset is not clean enough for training", "Is the dataset not clean enough for training?"),
    ("Was the outage caused by the config change?", "Yes: the outage was caused by the config change",
     "No: the outage was not caused by the config change", "Was the outage not caused by the config change?"),
    ("Is the customer data properly anonymised?", "Yes: the customer data is properly anonymised",
     "No: the customer data is not properly anonymised", "Is the customer data not properly anonymised?"),
    ("Is the updated plan ready?", "Yes: the updated plan is ready", "No: the updated plan is not ready",
     "Is the updated plan still not ready?"),  # "the" alone is no subject
    ("Is the team's proposed budget approved?", "Yes: the team's proposed budget is approved",
     "No: the team's proposed budget is not approved", "Is the team's proposed budget not approved?"),
    ("Is the family plan cheap enough?", "Yes: the family plan is cheap enough", "No: the family plan is not cheap enough",
     "Is the family plan not cheap enough?"),  # a noun in -ly first is the subject's
    ("Is the need for a rewrite justified?", "Yes: the need for a rewrite is justified",
     "No: the need for a rewrite is not justified", "Is the need for a rewrite not justified?"),  # no subject ends on "for"
    ("Is this approach scalable?", "Yes: this approach is scalable", "No: this approach is not scalable",
     "Is this approach not scalable?"),
    ("Does the bug exist in version 2.3?", "Yes: the bug exists in version 2.3", "No: the bug does not exist in version 2.3",
     "Does the bug not exist in version 2.3?"),
    # "be" after a modal
    ("Should Maria be promoted to team lead?", "Yes: Maria should be promoted to team lead",
     "No: Maria should not be promoted to team lead", "Should Maria not be promoted to team lead?"),
    ("Would switching to Postgres be worth it?", "Yes: switching to Postgres would be worth it",
     "No: switching to Postgres would not be worth it", "Would switching to Postgres not be worth it?"),
    ("Should the team be split in two?", "Yes: the team should be split in two", "No: the team should not be split in two",
     "Should the team not be split in two?"),  # the team is what the question is about, not who acts
    ("Should we be worried about the churn?", "Yes: you should be worried about the churn",
     "No: you should not be worried about the churn", "Should we not be worried about the churn?"),  # not "be worried"
    # context before the question, framings around it, an elliptical question, a labelled option
    ("Tests pass and two people approved. Should I merge PR #88?", "Yes: merge PR #88", "No: do not merge PR #88",
     "Tests pass and two people approved. Should I not merge PR #88?"),
    ("We launch Friday; should we merge the refactor?", "Yes: merge the refactor", "No: do not merge the refactor",
     "We launch Friday; should we not merge the refactor?"),
    ("Should I merge this PR? Tests pass and two people approved.", "Yes: merge this PR", "No: do not merge this PR",
     "Should I not merge this PR? Tests pass and two people approved."),  # the question, then its context
    ("OK to merge PR #88?", "Yes: it is OK to merge PR #88", "No: it is not OK to merge PR #88",
     "Would it be a mistake to merge PR #88?"),  # "OK" is no filler word here
    ("Do you think we should adopt Rust for the parser?", "Yes: adopt Rust for the parser",
     "No: do not adopt Rust for the parser", "Should we not adopt Rust for the parser?"),
    ("Would you merge this PR?", "Yes: merge this PR", "No: do not merge this PR", "Should I not merge this PR?"),
    ("Worth upgrading to Python 3.12?", "Yes: it is worth upgrading to Python 3.12",
     "No: it is not worth upgrading to Python 3.12", "Is upgrading to Python 3.12 a mistake?"),
    ("Time to retire the old API?", "Yes: it is time to retire the old API", "No: it is not time to retire the old API",
     "Would it be a mistake to retire the old API?"),
    ("Is Option A the better choice?", "Yes: Option A is the better choice", "No: Option A is not the better choice",
     "Is Option A not the better choice?"),  # "A" names the option; it opens no predicate
    ("Should we hire her?", "Yes: hire her", "No: do not hire her", "Should we turn her down?"),
    # a contracted negative asks expecting Yes and is answered as the positive question
    ("Isn't the PR ready to merge?", "Yes: the PR is ready to merge", "No: the PR is not ready to merge",
     "Is the PR still not ready to merge?"),
    ("Shouldn't we wait for the security review?", "Yes: wait for the security review",
     "No: do not wait for the security review", "Should we not wait for the security review?"),
    ("Don’t we need a second on-call engineer?", "Yes: you need a second on-call engineer",
     "No: you do not need a second on-call engineer", "Can we do without a second on-call engineer?"),
    ("Would it be a mistake to refactor the billing module?", "Yes: it would be a mistake to refactor the billing module",
     "No: it would not be a mistake to refactor the billing module",
     "Would it not be a mistake to refactor the billing module?"),  # was "it be a mistake to would refactor …"
    # Chinese (the criminal trial data are Chinese)
    ("被告人是否构成盗窃罪？", "是：被告人构成盗窃罪", "否：被告人不构成盗窃罪", "被告人是否不构成盗窃罪？"),
    ("我们应该合并这个PR吗？", "是：我们应该合并这个PR", "否：我们不应该合并这个PR", "我们是否不应该合并这个PR？"),
    ("要不要发布这篇文章？", "是：要发布这篇文章", "否：不要发布这篇文章", "是否不要发布这篇文章？"),
    ("法院是否应当判处被告人有期徒刑三年", "是：法院应当判处被告人有期徒刑三年", "否：法院不应当判处被告人有期徒刑三年",
     "法院是否不应当判处被告人有期徒刑三年？"),
    ("被告人有没有自首情节？", "是：被告人有自首情节", "否：被告人没有自首情节", "被告人是否没有自首情节？"),
    ("我们应该现在升级到Python 3.12吗？", "是：我们应该现在升级到Python 3.12", "否：我们不应该现在升级到Python 3.12",
     "我们是否不应该现在升级到Python 3.12？"),  # the number is "3.12", not "3.12吗"
]

# The mirror of a shape is asked again as a question of its own; these are read whole, and the
# mirror of a negative adjective is its positive (as in the two shapes just above each).
MIRRORS_AGAIN = [
    ("Is it unsafe to delete the legacy tables?", "Yes: it is unsafe to delete the legacy tables",
     "Is it safe to delete the legacy tables?"),  # was "it unsafe to delete is the legacy tables"
    ("Is it unwise to refactor the billing module before Q3?", "Yes: it is unwise to refactor the billing module before Q3",
     "Is it wise to refactor the billing module before Q3?"),
    ("Is it risky to deploy on Friday?", "Yes: it is risky to deploy on Friday",
     "Is it not risky to deploy on Friday?"),  # a pronoun is the whole subject, whatever the adjective
    ("Will they sign the deal?", "Yes: they will sign the deal", "Will they fail to sign the deal?"),
    ("Will they fail to sign the deal?", "Yes: they will fail to sign the deal", "Will they sign the deal?"),
    ("Are the tests flaky?", "Yes: the tests are flaky", "Are the tests not flaky?"),  # an adjective no list holds
    ("Would accepting the Brightwave offer be a good move for me?",  # "offer" is no verb here: the subject runs to "be"
     "Yes: accepting the Brightwave offer would be a good move for you",
     "Would accepting the Brightwave offer not be a good move for me?"),
    ("Is the API unstable?", "Yes: the API is unstable", "Is the API stable?"),
]


@pytest.mark.parametrize(("question", "yes", "mirror"), MIRRORS_AGAIN, ids=[s[0][:40] for s in MIRRORS_AGAIN])
def test_a_mirror_asked_again_and_unlisted_adjectives_read_whole(question, yes, mirror):
    m = motion_for(question)
    assert m.source == "rules" and (m.answer("yes"), m.mirror_question) == (yes, mirror)


# What the regular-expression version gave for eight ICLR papers: none may come back.
OLD_ICLR_ANSWERS = [
    "No: do not should ICLR 2017 accept this paper?",
    "Yes: Should ICLR 2017 accept this paper?",
    "Yes: The prosecution should go ahead (Should ICLR 017 accept this paper)",
    "No: do not go ahead (Should ICLR 2017 accept this paper)",
]


def test_the_table_has_forty_shapes():
    assert len(SHAPES) >= 40


@pytest.mark.parametrize(("question", "yes", "no", "mirror"), SHAPES, ids=[s[0][:40] for s in SHAPES])
def test_each_shape_gives_its_motion_answers_and_mirror(question, yes, no, mirror):
    m = motion_for(question)
    assert m.source == "rules"
    assert (m.answer("yes"), m.answer("no"), m.mirror_question) == (yes, no, mirror)
    assert m.answer("undecided").startswith(("Undecided:", "未决："))
    for text in (m.answer("yes"), m.answer("no")):
        assert text not in OLD_ICLR_ANSWERS
        # the court's machinery never reaches the answer
        assert not re.search(r"(?i)prosecut|defen[cs]e|\bmotion\b|\bjury\b", text)
        # and it is an answer, not the question pasted after "Yes:"
        assert "?" not in text and "？" not in text
    # the mirror question is a motion too, whose Yes is the original's No
    mirrored = parse(mirror)
    assert mirrored is not None and mirrored.mirror_question


@pytest.mark.parametrize("question", [q for q, *_ in SHAPES])
def test_names_and_numbers_survive_into_the_motion_and_answers(question):
    m = motion_for(question)
    for term in named_terms(asked(question)[1]):  # the question's own; its context's stay with the jurors
        assert term in m.yes and term in m.answer("yes") and term in m.answer("no"), term


@pytest.mark.parametrize("question", [
    "Design A or B?", "Should we use Postgres or MySQL?", "Should we ship on Friday or wait until Monday?",
    "Rust or Go for the new service?", "我们用方案A还是方案B？",
])
def test_a_choice_between_options_has_no_motion_of_its_own_and_says_so_in_one_line(question):
    """The motion rules refuse a choice as it is asked; the decision court first rewrites one it
    can split into two options (``choice``) and refuses only the rest."""
    with pytest.raises(MotionError) as err:
        motion_for(question)
    message = str(err.value)
    assert "\n" not in message and "choice between options" in message and "e.g." in message


@pytest.mark.parametrize("question, yes", [
    ("Should we support Python 3.8 or later?", "support Python 3.8 or later"),  # a bound, not a choice
    ("Should we require 16 GB of memory or more?", "require 16 GB of memory or more"),
])
def test_a_bound_with_or_is_not_a_choice(question, yes):
    assert motion_for(question).yes == yes


def test_the_refusal_suggests_one_option_as_a_question():
    with pytest.raises(MotionError, match="e.g. “Should we ship\\?”"):  # one question mark, asked over two sentences
        motion_for("Should we ship? Or wait?")
    with pytest.raises(MotionError, match="“Should we ship on Friday\\?”"):
        motion_for("Should we ship on Friday or wait?")
    with pytest.raises(MotionError, match="“我们用方案A吗？”"):  # asked in Chinese, the example is Chinese
        motion_for("我们用方案A还是方案B？")
    with pytest.raises(MotionError, match="“Should we choose Design A\\?”"):
        motion_for("Design A or B?")
    # two prepositions sharing an object: the example keeps the object, not "… the feature with?"
    with pytest.raises(MotionError, match="“Should we ship the feature with the flag\\?”"):
        motion_for("Should we ship the feature with or without the flag?")
    with pytest.raises(MotionError, match="“Should we deploy before the freeze\\?”"):
        motion_for("Should we deploy before or after the freeze?")
    # the words after the second option go with the first: not "Is Plan A?"
    with pytest.raises(MotionError, match="“Is Plan A cheaper\\?”"):
        motion_for("Is Plan A or Plan B cheaper?")
    with pytest.raises(MotionError, match="“Should Alice lead the project\\?”"):
        motion_for("Should Alice or Bob lead the project?")


# (question, the yes/no question the court tries, Yes answer, No answer, the options the other way round)
CHOICES = [
    ("Design A or B?", "Should we choose Design A rather than Design B?", "Yes: choose Design A",
     "No: choose Design B", "Should we choose Design B rather than Design A?"),
    ("Should we use Postgres or MySQL?", "Should we use Postgres rather than MySQL?", "Yes: use Postgres",
     "No: use MySQL", "Should we use MySQL rather than Postgres?"),
    ("Should I take the internship or the full-time role?",
     "Should I take the internship rather than the full-time role?", "Yes: take the internship",
     "No: take the full-time role", "Should I take the full-time role rather than the internship?"),
    ("Should we migrate now or wait until Q3?", "Should we migrate now rather than wait until Q3?",
     "Yes: migrate now", "No: wait until Q3", "Should we wait until Q3 rather than migrate now?"),
    ("Should we ship on Friday or Monday?", "Should we ship on Friday rather than Monday?", "Yes: ship on Friday",
     "No: ship on Monday", "Should we ship on Monday rather than Friday?"),
    ("Tabs or spaces?", "Should we choose tabs rather than spaces?", "Yes: choose tabs", "No: choose spaces",
     "Should we choose spaces rather than tabs?"),
    ("Should we keep the monolith or split it into services?",
     "Should we keep the monolith rather than split it into services?", "Yes: keep the monolith",
     "No: split it into services", "Should we split it into services rather than keep the monolith?"),
    ("Is it better to rent or buy?", "Is it better to rent rather than buy?", "Yes: it is better to rent",
     "No: it is better to buy", "Is it better to buy rather than rent?"),
    # "or later" after a time is a choice of when, not a bound as in "Python 3.8 or later"
    ("Should we refactor now or later?", "Should we refactor now rather than later?", "Yes: refactor now",
     "No: refactor later", "Should we refactor later rather than now?"),
    ("Is it better to pay today or later?", "Is it better to pay today rather than later?",
     "Yes: it is better to pay today", "No: it is better to pay later", "Is it better to pay later rather than today?"),
    # a choice of when: the option is the time, the rest is shared
    ("Should we publish the essay now or next month?", "Should we publish the essay now rather than next month?",
     "Yes: publish the essay now", "No: publish the essay next month",
     "Should we publish the essay next month rather than now?"),
    ("Merge now or after the release?", "Should we merge now rather than after the release?", "Yes: merge now",
     "No: merge after the release", "Should we merge after the release rather than now?"),
    # what follows the second option, from a preposition on, is shared by both
    ("Should we use PostgreSQL or MongoDB for the billing ledger?",
     "Should we use PostgreSQL rather than MongoDB for the billing ledger?", "Yes: use PostgreSQL for the billing ledger",
     "No: use MongoDB for the billing ledger", "Should we use MongoDB rather than PostgreSQL for the billing ledger?"),
    ("Should we hire Alice or Bob as tech lead?", "Should we hire Alice rather than Bob as tech lead?",
     "Yes: hire Alice as tech lead", "No: hire Bob as tech lead", "Should we hire Bob rather than Alice as tech lead?"),
    # a bare imperative choice, and a verb sharing the other's object
    ("Keep the monolith or split it?", "Should we keep the monolith rather than split it?", "Yes: keep the monolith",
     "No: split it", "Should we split it rather than keep the monolith?"),
    ("Merge or close the PR?", "Should we merge the PR rather than close the PR?", "Yes: merge the PR",
     "No: close the PR", "Should we close the PR rather than merge the PR?"),
    # both options a verb phrase with the same preposition: the second opens on its own verb
    ("Should we pause hiring for the support team or continue hiring for the support team?",
     "Should we pause hiring for the support team rather than continue hiring for the support team?",
     "Yes: pause hiring for the support team", "No: continue hiring for the support team",
     "Should we continue hiring for the support team rather than pause hiring for the support team?"),
    # which / what, then the options: the options are tried, the rest is their context
    ("What should we use, Kafka or RabbitMQ?", "What should we use: should we choose Kafka rather than RabbitMQ?",
     "Yes: choose Kafka", "No: choose RabbitMQ", "What should we use: should we choose RabbitMQ rather than Kafka?"),
    # Chinese: 还是 asked as 而不是 … 吗
    ("我们用方案A还是方案B？", "我们用方案A而不是方案B吗？", "是：我们用方案A", "否：我们用方案B", "我们用方案B而不是方案A吗？"),
    ("我们用MySQL还是PostgreSQL？", "我们用MySQL而不是PostgreSQL吗？", "是：我们用MySQL", "否：我们用PostgreSQL",
     "我们用PostgreSQL而不是MySQL吗？"),
    ("We have two mock-ups. Design A or B? Both are costed.",
     "We have two mock-ups. Should we choose Design A rather than Design B? Both are costed.",
     "Yes: choose Design A", "No: choose Design B",
     "We have two mock-ups. Should we choose Design B rather than Design A? Both are costed."),
]


@pytest.mark.parametrize(("question", "tried", "yes", "no", "other_way"), CHOICES, ids=[c[0][:40] for c in CHOICES])
def test_a_choice_of_two_options_is_tried_as_one_yes_no_question(question, tried, yes, no, other_way):
    from courtroom_chat.motion import choice, swapped

    found = choice(question)
    assert found is not None and (found.question, found.asked, found.swapped) == (question, tried, other_way)
    m = motion_for(tried)
    assert (m.answer("yes"), m.answer("no"), m.mirror_question) == (yes, no, other_way)
    assert swapped(tried) == other_way and swapped(other_way) == tried
    assert choice(tried) is None  # tried once: no "or" left to split


@pytest.mark.parametrize("question", [
    "Is Plan A or Plan B cheaper?",  # the options do not end the question
    "Should Alice or Bob lead the project?",
    "Should we host the offsite in Lisbon or Oslo this year?",  # "this year" opens on no preposition
    "Should we use React, Vue or Svelte?",  # three options
    "Should we ship with or without the flag?",  # "with the flag" or not: asked as one option
    "现在迁移还是等到第三季度？",  # options of a length no rule aligns
    "Should I merge PR 12?",  # no choice at all
])
def test_a_choice_the_rules_cannot_split_is_left_to_the_refusal(question):
    from courtroom_chat.motion import choice

    assert choice(question) is None


def test_a_question_no_rule_fits_gives_bare_answers_not_the_question():
    m = motion_for("Frobnicate the quux for ACME 9?")
    assert m.source == "none" and (m.answer("yes"), m.answer("no")) == ("Yes", "No") and m.mirror_question == ""


def test_the_model_s_motion_is_checked_against_the_question():
    question = "Thoughts on the Q3 roadmap for ACME 9?"
    assert motion_problems(question, "approve the Q3 roadmap for ACME 9") == []
    assert any("names and numbers" in p and "ACME" in p for p in motion_problems(question, "approve the roadmap"))
    assert any("repeats the question" in p for p in motion_problems(question, "Thoughts on the Q3 roadmap for ACME 9?"))
    assert any("speaks of the court" in p for p in motion_problems(question, "the prosecution wins on Q3 ACME 9"))
    m = from_phrase(question, "Approve the Q3 roadmap for ACME 9.")
    assert (m.answer("yes"), m.answer("no")) == ("Yes: approve the Q3 roadmap for ACME 9",
                                                 "No: do not approve the Q3 roadmap for ACME 9")


def test_negation_of_a_written_phrase():
    assert negate("merge PR #214") == "do not merge PR #214"
    assert negate("the board should approve it") == "the board should not approve it"
    assert negate("the patch is ready") == "the patch is not ready"


NAMES = st.sampled_from(["ICLR 2017", "PR #214", "PostgreSQL 16", "Acme Corp", "Alice", "Kubernetes", "Q3",
                         "NeurIPS 2024", "v2.3.1", "Project Orion", "EU", "$5,000", "Python 3.12"])
SHAPE = st.sampled_from([
    "Should I {verb} {name} {tail}?", "Should we {verb} the {noun} for {name}?", "Should {name} {verb} the {noun}?",
    "Is it worth {verb}ing {name}?", "Can we {verb} {name} {tail}?", "Do we need {name} {tail}?",
    "Would it be better to {verb} {name}?", "Is the {noun} for {name} ready {tail}?", "{Verb} {name} {tail}?",
    "Will {name} {verb} the {noun} {tail}?", "Is now the right time to {verb} {name}?",
])


@given(SHAPE, NAMES, st.sampled_from(["accept", "merge", "upgrade", "approve", "fund", "ship", "renew"]),
       st.sampled_from(["budget", "proposal", "release", "contract"]),
       st.sampled_from(["now", "this week", "before the 2025 launch", "in March", "by Friday"]))
def test_property_every_number_and_name_reaches_the_motion(shape, name, verb, noun, tail):
    question = shape.format(name=name, verb=verb, Verb=verb.capitalize(), noun=noun, tail=tail)
    m = motion_for(question)
    assert m.source == "rules", question
    for term in named_terms(question):
        assert term in m.yes and term in m.no, (question, term, m)
    assert name.split(" ")[0] in m.answer("yes") and name.split(" ")[0] in m.answer("no")
    assert m.mirror_question and m.mirror_question != question


# ---------------------------------------------------------------- in the decision court

async def _trial(question, script, settings, **kw):
    from courtroom_chat.backends.scripted import ScriptedBackend
    from courtroom_chat.case import new_case
    from courtroom_chat.engine import Trial

    backend = ScriptedBackend(script=script)
    record = await Trial(new_case(question), settings, store=None, backends={"scripted": backend}, **kw).run()
    return record, backend


def _prosecution(motion):
    return {"motion": motion, "case_statement": "The roadmap is funded and staffed; the risks are named and owned.",
            "exhibits": [], "harm_analysis": "Without a decision the team idles for another quarter."}


async def test_the_court_answers_the_iclr_question_with_its_motion(scripted_settings):
    scripted_settings = motion_jury(scripted_settings)
    record, backend = await _trial("Should ICLR 2017 accept this paper?", {}, scripted_settings)
    assert record.outcome.answer in ("Yes: ICLR 2017 should accept this paper", "No: ICLR 2017 should not accept this paper")
    prosecutor = next(c for c in backend.calls if c.role == "prosecutor")
    assert 'exactly "ICLR 2017 should accept this paper"' in prosecutor.prompt
    juror = next(c for c in backend.calls if c.role == "juror")
    assert set(juror.schema["properties"]["vote"]["enum"]) == {
        "ICLR 2017 should accept this paper", "ICLR 2017 should not accept this paper", "abstain"}


async def test_a_motion_no_rule_forms_is_the_prosecutor_s_checked_and_repaired(scripted_settings):
    question = "Thoughts on the Q3 roadmap for ACME 9?"
    script = {"prosecutor": [_prosecution("approve the roadmap"), _prosecution("approve the Q3 roadmap for ACME 9")],
              **{f"juror-{i}": {"reasoning": "The roadmap is funded and staffed, so approving it is right. " * 3,
                                "vote": "approve the Q3 roadmap for ACME 9"} for i in range(1, 6)}}
    record, backend = await _trial(question, script, scripted_settings)
    first, second = [c for c in backend.calls if c.role == "prosecutor"]
    correction = second.repairs[0][1]
    assert "names and numbers" in correction and "ACME" in correction
    assert record.outcome.answer == "Yes: approve the Q3 roadmap for ACME 9"


async def test_a_motion_that_stays_wrong_gives_a_bare_answer_and_a_warning(scripted_settings):
    question = "Thoughts on the Q3 roadmap for ACME 9?"
    script = {"prosecutor": [_prosecution("approve the roadmap")] * 2,
              **{f"juror-{i}": {"reasoning": "The roadmap is funded and staffed, so the answer is yes on it. " * 3,
                                "vote": "the answer is yes"} for i in range(1, 6)}}
    record, _ = await _trial(question, script, scripted_settings)
    assert record.outcome.answer == "Yes"
    assert any(w.rule == "motion" and "plain Yes or No" in w.message for w in record.warnings)


def test_a_choice_the_rules_cannot_split_is_refused_before_the_trial_starts(scripted_settings):
    from courtroom_chat.case import new_case
    from courtroom_chat.engine import Trial

    with pytest.raises(MotionError, match="choice between options.*“Should we use React\\?”"):
        Trial(new_case("Should we use React, Vue or Svelte?"), scripted_settings, store=None)


def test_a_mirror_needs_a_question_a_rule_can_negate(scripted_settings, tmp_path, runs_dir):
    from courtroom_chat.case import load_case, new_case
    from courtroom_chat.engine import Trial
    from courtroom_chat.errors import CaseError
    from tests.conftest import CASES

    with pytest.raises(CaseError, match="--mirror: no rule negates.*ask it as 'Should I …\\?'"):
        Trial(new_case("Frobnicate the quux for ACME 9?"), scripted_settings, store=None, mirror=True)
    # a court of law is asked about one charge, not told to ask "Should I …?", which it refuses
    with pytest.raises(CaseError, match="no rule negates.*about one charge or claim at a time, as “Is Tom Reed guilty"):
        Trial(load_case(CASES / "criminal-burglary.json").model_copy(
            update={"question": "Is Daniel Reyes guilty of burglary; of theft?"}), scripted_settings, store=None,
            mirror=True)
    # labels to choose among are not a yes/no question: the decision court's "ask about one option" is not the advice
    from typer.testing import CliRunner

    from courtroom_chat.frontends.cli import app

    text = tmp_path / "text.txt"
    text.write_text("What a day, everything went right!\n")
    result = CliRunner().invoke(app, ["run", "Which emotion does the text express: joy or anger?", str(text), "-p",
                                      "classification", "--mirror", "-b", "scripted"])
    assert result.exit_code == 2 and result.output.strip() == (
        "error: --mirror turns a yes/no question around, and “Which emotion does the text express: joy or anger?” "
        "offers a choice of labels or options: run it without --mirror")


def test_a_courts_label_reads_as_what_it_means_for_the_question():
    q = "Is Owen Marsh guilty of embezzlement from Larkfield Dental Practice?"
    assert ruled("not guilty", "no", q, q) == "Not guilty: Owen Marsh is not guilty of embezzlement from Larkfield Dental Practice"
    assert ruled("liable", "yes", "Is Dunmore Builders liable to Ms. Pham for breach of contract?", "x") == \
        "Liable: Dunmore Builders is liable to Ms. Pham for breach of contract"
    # no rule reads it, a choice between options, or a label on neither side: the fallback as given
    assert ruled("guilty", "yes", "Asha, bicycle, Tuesday", "State v. Asha") == "Guilty: State v. Asha"
    assert ruled("guilty", "yes", "Is Asha guilty of theft or fraud?", "Asha on theft") == "Guilty: Asha on theft"
    assert ruled("hung", "undecided", q, "no verdict") == "Hung: no verdict"
    # a question asked the other way: the sentence would contradict the label, so it is not used
    assert ruled("guilty", "yes", "Is Owen Marsh not guilty of embezzlement?", "as asked") == "Guilty: as asked"
    assert ruled("guilty", "yes", "Is Owen Marsh innocent of embezzlement?", "as asked") == "Guilty: as asked"
    assert ruled("not liable", "no", "Should the court find Dunmore liable?", "as asked") == "Not liable: as asked"



NEGATED = ["Is Dale Hollis not guilty of burglary in the second degree?", "Should ICLR 2017 not accept this paper?",
           "Should the team not be split in two?",
           "Is the PR not ready to merge?", "Did Asha not take the bicycle?", "Do we not need a new hire?",
           "Should we not merge PR #214?"]


@pytest.mark.parametrize("question", NEGATED)
def test_a_question_with_not_after_its_subject_turns_back_into_the_positive_one(question):
    """The mirror questions the rules write ("Is X not guilty of …?") read as "X not is guilty"
    before, and a mirror trial argued that motion; their answers are in SHAPES."""
    m = parse(question)
    back = parse(m.mirror_question)
    assert m.mirror_question == question.replace(" not ", " ", 1)
    assert (back.yes, back.no) == (m.no, m.yes)  # asked the other way, the same two positions swap
    assert parse("Is it worth not upgrading?").yes == "it is worth not upgrading"  # "not" inside the predicate: as written


def test_a_question_asked_against_a_courts_label_is_known():
    assert asks_against("Is Dale Hollis not guilty of burglary?", "guilty")
    assert asks_against("Is Dale Hollis innocent of burglary?", "guilty")
    assert asks_against("Is Northline Freight not liable for the injuries?", "liable")
    assert not asks_against("Is Dale Hollis guilty of burglary?", "guilty")
    assert not asks_against("Isn't Dale Hollis guilty of burglary?", "guilty")  # asked expecting guilty
    assert not asks_against("Should we merge PR #214?", "guilty") and not asks_against("Design A or B?", "guilty")


@pytest.mark.parametrize("question,label,expected", [
    ("Is Dale Hollis guilty of burglary?", "guilty", "yes"),
    ("Is Dale Hollis guilty of burglary?", "not guilty", "no"),
    ("Is Dale Hollis not guilty of burglary?", "guilty", "no"),
    ("Is Dale Hollis not guilty of burglary?", "not guilty", "yes"),
    ("Is Dale Hollis not guilty of burglary?", "hung", "undecided"),
    ("Is Dale Hollis guilty of burglary?", "", "undecided"),
])
def test_a_courts_label_answers_the_question_it_was_asked(question, label, expected):
    """One rule for the supreme court's polarity and the bench's sides: guilty is No when the
    question is asked against it, and a label outside the court's two is undecided."""
    against = asks_against(question, "guilty")
    assert answers(label, "guilty", ("guilty", "not guilty"), against) == expected


def test_context_before_the_question_is_split_off_but_abbreviations_and_initials_are_not():
    assert asked("Tests pass. Two approvals. Should I merge?") == ("Tests pass. Two approvals.", "Should I merge?")
    assert asked("We launch Friday; should we merge?") == ("We launch Friday;", "should we merge?")
    assert asked("Is Mr. Hollis guilty of burglary?") == ("", "Is Mr. Hollis guilty of burglary?")
    assert asked("Did J. Smith approve the PR, e.g. in review?") == ("", "Did J. Smith approve the PR, e.g. in review?")
    assert asked("Should we upgrade to 3.12?") == ("", "Should we upgrade to 3.12?")
    assert asked("Should I merge? It has two approvals.") == ("It has two approvals.", "Should I merge?")
    assert asked('Should we choose "Rename it (e.g. \'# 2. Do not use numbers\')"?')[0] == ""  # no cut inside quotes


def test_a_written_motion_keeps_the_questions_names_not_those_of_its_context():
    """Names in the sentences before the question are context; the motion need not repeat them."""
    question = "Alice has 5 years of Go and Bob approved. Should we make the offer?"
    assert motion_problems(question, "make the offer") == []
    assert motion_problems("Should we make Alice the offer?", "make the offer")  # the question's own name is kept


@pytest.mark.parametrize(("question", "what_to_do"), [
    ("Should I merge PR #214 (retry with backoff for the HTTP client) now?", True),
    ("Tests pass and two people approved. Can we ship on Friday?", True),
    ("Shouldn't we ship it?", True),
    ("Publish this essay now?", True),
    ("Design A or B?", True),
    ("我们是否应该发布3.0版本？", True),
    ("Is Tom Reed guilty of burglary?", False),  # a charge
    ("Should we convict Tom Reed?", False),  # "we", but a verdict
    ("Should we affirm the ruling?", False),
    ("Can we prove that Ravi took the phone?", False),
    ("Can I sue my landlord for the deposit?", False),
    ("Is the defendant liable for the injury?", False),
    ("Did Dana take the laptop?", False),  # neither asks what the asker should do: let through
    ("Should the committee reject the proposal?", False),
    ("被告人陈某是否有罪，应如何判处？", False),
    ("the husband or the relative of the husband of a woman subjects such woman to cruelty", False),  # no question
])
def test_a_question_of_what_to_do_is_told_from_a_case_at_law(question, what_to_do):
    assert asks_what_to_do(question) is what_to_do


@pytest.mark.parametrize("message, refused", [
    ("hi", "is not a yes/no question"),
    ("thanks!", "is not a yes/no question"),
    ("The build is broken.", "is not a yes/no question"),
    ("What is this?", "asks what, which a yes or a no cannot answer"),
    ("Why not ship now?", "asks why"),
    ("Should I merge PR #214 now? Should I also deploy it to prod?",
     "asks 2 questions; the court decides one at a time: ask “Should I merge PR #214 now?” first"),
    ("Should I merge PR #214?", ""),
    ("Deploy?", ""),
    ("Merge PR #214 now?", ""),
    ("Tests pass and two people approved. Should I merge?", ""),
    ("Should I merge? It has two approvals.", ""),
    ("Should we ship? Or wait?", ""),
    ("Design A or B?", ""),
    ("Which design should we use, A or B?", ""),
    ("Should I merge PR #214 (is it safe? yes) now?", ""),
    ("是否上线", ""),
    ("Whether to publish the essay now", ""),
    ("Merge PR #214 now", ""),
    ("Decide whether to merge PR #214.", ""),
    ("Publish the essay this week", ""),
    ("ok", "is not a yes/no question"),
    # the asking sentence is the motion every agent restates: a paragraph of it ran their replies out
    ("Should we ship " + "very " * 400 + "soon?", "is asked in 2,020 characters; the court tries one short question: "
     "ask it in one sentence of at most 600 characters and put the rest in the evidence"),
    ("We ran " + "the load test again, " * 40 + "and it passed. Should we ship?", ""),  # long context, short question
])
def test_a_message_that_is_no_yes_no_question_is_named(message, refused):
    from courtroom_chat.motion import not_asked

    why = not_asked(message)
    assert (refused in why) if refused else why == ""


def test_no_question_of_the_decision_benches_is_refused_as_no_question():
    """Every question the decision court's benches, cases and evaluation sets ask reads as one."""
    import glob
    import json

    from courtroom_chat.motion import not_asked

    root = Path(__file__).resolve().parents[1]
    asked = [json.loads(line)["question"] for f in glob.glob(str(root / "bench" / "evidence_following" / "*.jsonl"))
             for line in open(f, encoding="utf-8") if line.strip()]
    asked += [json.loads(Path(f).read_text())["question"] for f in glob.glob(str(root / "cases" / "*.json"))
              if json.loads(Path(f).read_text()).get("procedure") in (None, "decision")]
    assert len(asked) > 40 and [q for q in asked if not_asked(q)] == []


@pytest.mark.parametrize("question", ["why did the build break", "How many tests fail", "Tell me a joke",
                                      "explain me the diff"])
def test_a_question_of_why_or_how_many_or_a_request_for_words_is_refused_without_its_question_mark(question):
    """Issue 83, item 6: these were tried and answered "Yes: proceed as asked about"."""
    from courtroom_chat.motion import not_asked

    why = not_asked(question)
    assert why.startswith(f"“{question}” asks") and "yes/no question" in why
    assert not_asked("Merge PR #214 now") == "" and not_asked("Should I merge?") == ""
