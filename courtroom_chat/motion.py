"""A yes/no question turned into its motion: what a Yes commits to, its negation, the plain
answer for each decision, and the mirror question (the same decision asked the other way).

    >>> m = motion_for("Should ICLR 2017 accept this paper?")
    >>> m.answer("yes"), m.answer("no"), m.mirror_question
    ('Yes: ICLR 2017 should accept this paper', 'No: ICLR 2017 should not accept this paper',
     'Should ICLR 2017 reject this paper?')

Rules cover the shapes people type (English and Chinese). Where they cannot form a motion the
procedure asks its model for one and checks it with :func:`motion_problems` (it must keep the
question's names and numbers and must not be the question itself); :func:`from_phrase` then
builds the motion from the model's phrase. A question offering two options ("Design A or B?")
is refused with :class:`MotionError`: the court decides one yes/no question at a time.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from .errors import CaseError
from .sentences import ends_at

Polarity = Literal["yes", "no", "undecided"]


class MotionError(CaseError):
    """The question is not a yes/no question the court can decide."""


@dataclass(frozen=True)
class Motion:
    question: str
    yes: str  # what a Yes commits to: "merge PR #214 now", "ICLR 2017 should accept this paper"
    no: str  # its negation: "do not merge PR #214 now"
    mirror_question: str = ""  # the question negated; '' when no rule can negate it
    language: Literal["en", "zh"] = "en"
    source: Literal["rules", "model", "none"] = "rules"

    def answer(self, polarity: Polarity | str) -> str:
        """'Yes: merge PR #214 now' / 'No: do not merge PR #214 now' / 'Undecided: …'."""
        zh = self.language == "zh"
        if polarity not in ("yes", "no"):
            return "未决：证据不足以作出决定" if zh else "Undecided: the evidence does not decide it"
        head = {"yes": "是", "no": "否"}[polarity] if zh else polarity.capitalize()
        text = self.yes if polarity == "yes" else self.no
        if not text:
            return head
        return f"{head}：{text}" if zh else f"{head}: {text}"

    def phrase(self, polarity: str) -> str:
        """The side's words without the head: the motion, or its negation."""
        return self.yes if polarity == "yes" else self.no


# ------------------------------------------------------------------ vocabulary

_VERBS = set("""
accept acquit acquire act add adopt afford agree allow amend announce apply appoint approve archive ask attend
automate avoid award back ban be become begin block book borrow break bring build buy call cancel change charge
choose close commit complete comply constitute contact continue contribute convert convict count cover create
cut decline decrease delay delete deliver deny deploy deserve design disable dismiss do drop enable end endorse enforce
enter exceed exclude expand extend fail file fine finish fire fit fix follow forbid freeze fund get give go grant grow handle
have hire hold host implement improve include increase infringe install introduce invest issue join keep kill
launch lease leave lend let limit list lower maintain make meet merge migrate move need offer open order
outperform outsource pass pay permit pick pivot postpone prefer prepare present print prioritize prioritise
promote protect publish pull punish purchase push put qualify quit raise reach rebase rebuild recommend reduce
refactor refund reject release relocate remove rename renew rent reopen replace report require reschedule
respond restart restore restructure retire return reverse revert review revise rewrite roll run sanction scale
schedule sell send sentence settle ship shut sign skip spend split sponsor start stay stop submit sue support
suspend switch take terminate test tell trust try turn unblock unfreeze update upgrade use violate wait waive
warrant withdraw work write
affect cause contain exist explain help justify matter outweigh prevent prove satisfy show solve
lead manage win learn mentor regress identify expect know want resolve breach serve see own beat
lose leak crash hurt harm save damage survive negotiate resign escalate retry lock unlock slow corrupt expose
overwrite overload
notice mind care benefit complain understand appreciate react object read
pause halt defer abandon scrap shelve proceed resume discontinue
""".split())

# Words that open the predicate of "Is <subject> <predicate>?".
_PREDICATE = set("""
a an able acceptable accurate affordable ahead allowed already appropriate at behind better broken cheaper
big cheap clean clear compliant complete correct impossible done eligible enough fast faster feasible finished fit
fully good green guilty healthy in innocent large legal liable likely mature more necessary needed ok okay on over
possible production-ready profitable ready really reasonable reliable required responsible right robust safe secure
simple slow slower small solid sound stable still strong suitable sufficient the too true unable under urgent useful
valid well within worse worth worthwhile wrong
competitive confusing consistent ethical expensive fair honest late missing optimal overdue realistic relevant viable
trustworthy overkill premature excessive effective adequate legitimate obsolete redundant essential critical important
significant risky dangerous beneficial convincing misleading credible reproducible worthy sensible smart wise
""".split())

_ANTONYMS = {
    "accept": "reject", "reject": "accept", "approve": "reject", "include": "exclude", "exclude": "include",
    "enable": "disable", "disable": "enable", "allow": "forbid", "permit": "forbid", "keep": "drop",
    "add": "remove", "increase": "decrease", "decrease": "increase",
    "grant": "deny", "deny": "grant", "hire": "turn down", "convict": "acquit", "acquit": "convict",
    "block": "unblock", "unblock": "block", "freeze": "unfreeze", "unfreeze": "freeze",
}
_ADJ_ANTONYMS = {"good": "bad", "wise": "unwise", "safe": "unsafe", "better": "worse", "right": "wrong",
                 "worth": "not worth"}

_USER = {"i", "we", "you", "us", "our team", "my team", "the team", "i really", "we really"}
_SWAP = {"my": "your", "our": "your", "me": "you", "us": "you", "myself": "yourself", "ourselves": "yourselves",
         "i'm": "you're", "we're": "you're", "mine": "yours", "ours": "yours"}
_AUX_NOT = {"can": "cannot", "could": "could not", "will": "will not", "would": "would not", "should": "should not",
            "shall": "shall not", "must": "must not", "may": "may not", "might": "might not", "is": "is not",
            "are": "are not", "was": "was not", "were": "were not", "has": "has not", "have": "have not",
            "had": "had not", "do": "do not", "does": "does not", "did": "did not", "am": "am not"}
_MACHINERY = ("prosecution", "prosecutor", "defense", "defence", "the motion", "the court", "the jury", "juror")
# Words two options can share an object after ("ship with or without the flag", "before or after
# the freeze"): a choice's example keeps the object, so it does not end on the preposition.
_SHARED_OBJECT = {"with", "without", "before", "after", "during", "in", "into", "on", "off", "onto", "to", "from",
                  "for", "against", "above", "below", "over", "under", "inside", "outside", "by", "via"}
_QUESTION_WORDS = {"should", "shall", "can", "could", "may", "might", "must", "do", "does", "did", "is", "are",
                   "was", "were", "will", "would", "has", "have", "had", "am", "whether", "ought"}


# ------------------------------------------------------------------ helpers

def _clean(question: str) -> str:
    q = re.sub(r"\s+", " ", question).strip()
    q = re.sub(r"^(?:(?:so|ok|okay|well|hey|hi|please|quick question)(?! to\b)[,:]?\s+)+", "", q, flags=re.I)  # not "OK to …"
    q = re.sub(r"[?？!！.。\s]+$", "", q)
    q = re.sub(r"(?i)[,;]?\s+(?:or not|yes or no)$", "", q)
    return q.strip()


def _unquoted(text: str) -> str:
    """The text with quoted titles blanked, so words inside them are not read as grammar."""
    return re.sub(r"\"[^\"]*\"|“[^”]*”|'[^']{3,}'|‘[^’]*’|「[^」]*」|《[^》]*》", " Q ", text)


def _choice(q: str) -> str:
    """The two options of an either/or question, or ''."""
    plain = _unquoted(q)
    plain = re.sub(r"(?i)\b(?:and/or|whether or not|more or less|sooner or later|one or more|or so)\b", " ", plain)
    plain = re.sub(r"\b\d[\d.,%]*\s+or\s+\d", " ", plain)  # "2 or 3 days" is a range, not a choice
    plain = re.sub(r"(?i)(?<!\bnow )(?<!\btoday )(?<!\btonight )(?<!\bsoon )(?<!\bfirst )(?<!\bearly )"
                   r"\bor (?:later|newer|above|higher|greater|earlier|older|below|lower|fewer|less|more)\b",
                   " ", plain)  # "Python 3.8 or later" is a bound, not a choice; "refactor now or later" is one
    plain = re.sub(r"(?i)\b(?:one|two|three|four|five|six|seven|eight|nine|ten|a few)\s+or\s+"
                   r"(?:two|three|four|five|six|seven|eight|nine|ten|more|less|fewer)\b", " ", plain)  # "two or three bugs"
    m = re.search(r"(?i)\bor\b", plain) or re.search(r"还是", plain)
    return plain if m else ""


def _swap(text: str) -> str:
    """The asker's words as the court says them back: 'my draft' -> 'your draft'."""
    return re.sub(r"\b(my|our|me|us|myself|ourselves|I'm|we're|mine|ours)\b",
                  lambda m: _SWAP[m.group(1).lower()], text, flags=re.I)


def _lower_first(text: str) -> str:
    """'The board' -> 'the board'; a name or acronym ('ICLR', 'PostgreSQL', 'Alice') keeps its capitals."""
    first = text.split(" ", 1)[0]
    if first in ("The", "This", "That", "These", "Those", "A", "An", "Our", "My", "Your", "Their", "Its", "It"):
        return first.lower() + text[len(first):]
    return text


_DETERMINERS = {"the", "a", "an", "my", "our", "your", "their", "its", "his", "her", "every", "each", "no", "some", "any"}
_DEMONSTRATIVES = {"this", "that", "these", "those"}  # a subject alone ("Does this work?") or a noun's determiner


_UN = {"unsafe", "unwise", "unlikely", "unclear", "unnecessary", "unacceptable", "unstable", "unreliable",
       "unfair", "unhealthy", "unreasonable", "unsound", "unsustainable", "unaffordable", "unusable",
       "unprofessional", "unethical", "unlawful", "unjustified", "unrealistic", "unsuitable", "unhelpful"}
_PRONOUNS = {"it", "he", "she", "they"}
_LINKS = {"for", "of", "to", "with", "by", "from", "about", "into", "between", "than", "and", "or"}
_ATTRIBUTIVE = {"new", "old", "current", "latest", "next", "last", "first", "second", "main", "final", "same",
                "other", "whole", "entire", "proposed", "existing", "planned", "big", "small", "early", "late"}


def _no_subject(subject: list[str]) -> bool:
    """Words that cannot be the whole subject: determiners alone ("the" of "Is the updated plan
    ready?"), a possessive waiting for its noun ("the team's" of "Is the team's proposed budget
    approved?"), a preposition waiting for its object ("the need for" of "Is the need for a
    rewrite justified?") or an adjective waiting for its noun ("the new" of "Does the new build
    regress startup time?", read "the new does not build …"), so the split goes on to the next
    word that could open the rest."""
    return (all(w.lower() in _DETERMINERS for w in subject) or bool(re.search(r"['’]s$", subject[-1]))
            or subject[-1].lower() in _LINKS or subject[-1] in _DETERMINERS
            or (len(subject) > 1 and subject[-1].lower() in _ATTRIBUTIVE))


def _split_subject(words: list[str], stops: set[str],
                   opens: Callable[[str], bool] | None = None) -> tuple[str, list[str]] | None:
    """(subject, rest) where the rest opens on a word in ``stops`` (a verb, or a predicate) or one
    ``opens`` accepts, after a subject that can stand alone. A personal pronoun is the whole
    subject ("Is it risky to deploy on Friday?" was read "it risky to deploy is on Friday"), and
    "<determiner> <noun> <word>" with nothing after reads the last word as the predicate ("Are the
    tests flaky?", an adjective no list holds)."""
    if len(words) > 1 and words[0].lower() in _PRONOUNS:
        return words[0], words[1:]
    for j in range(1, min(len(words), 7)):
        w = words[j]
        if ((w.lower() in stops or (opens is not None and w.islower() and opens(w)))
                and (w.islower() or w in ("An", "The")) and not _no_subject(words[:j])):  # "Option A" names
            if _noun_before_verb(words, j):
                continue  # "Does this change break …?": "this change" breaks, not "this" changes
            return " ".join(words[:j]), words[j:]
    if (opens is not None and len(words) == 3 and words[0].lower() in _DETERMINERS
            and words[2].islower() and words[2].isalpha()):
        return " ".join(words[:2]), words[2:]
    return None


_NOUN_OPENERS = _DETERMINERS | _DEMONSTRATIVES
_OBJECT_OPENERS = _NOUN_OPENERS | {"it", "them", "us", "me", "him", "her"}
_TAKES_BARE_VERB = {"help", "let", "make", "go", "come", "need", "dare", "try", "see", "watch", "hear", "have",
                    "do", "be"}  # "Will the manager help fix the bug?": "help" is the verb, "fix" its object


def _noun_before_verb(words: list[str], j: int) -> bool:
    """Whether ``words[j]``, a word that is also a verb, ends a noun subject because a verb follows
    it: after a demonstrative alone ("Does this change break …?"), or after a determiner and a noun
    when the next verb's object opens at once ("Will the schema change lock the table?", read "the
    schema will change lock the table" before) or the next verb is "be" or "fail" ("Should the
    database lock be removed?", "Will the schema change fail to lock the table?", the mirror). A noun after the next verb leaves the first verb the verb ("Should the team ship
    release notes?")."""
    if j + 1 >= len(words) or words[j] not in _VERBS or not (words[j + 1].islower() and words[j + 1] in _VERBS):
        return False
    first = words[0].lower()
    if j == 1:
        return first in _DEMONSTRATIVES
    return (first in _NOUN_OPENERS and words[j] not in _TAKES_BARE_VERB
            and (words[j + 1] in ("be", "fail") or (j + 2 < len(words) and words[j + 2].lower() in _OBJECT_OPENERS)))


_NOT_PARTICIPLES = {"need", "seed", "feed", "speed", "bleed", "breed", "greed", "shed", "hundred", "embed",
                    "table", "cable", "variable", "deliverable", "vegetable", "bible"}


def _opens_predicate(word: str) -> bool:
    """Besides the listed predicate words, what opens "Is <subject> …?"'s predicate: a past
    participle ("Was the outage caused by …?", "Is the PR reviewed?"), an adverb in -ly ("Is the
    data properly anonymised?") or an adjective in -able, -ible, -ous or -ful ("Is this approach
    scalable?"); nouns that look like one are let through by ``_no_subject`` when they come first
    ("Is the family ready?") or listed here."""
    w = word.lower().strip(",;:")
    return len(w) > 4 and w not in _NOT_PARTICIPLES and w.endswith(("ed", "ly", "able", "ible", "ous", "ful"))


def _third_person(verb: str) -> str:
    special = {"have": "has", "be": "is", "do": "does", "go": "goes"}
    if verb in special:
        return special[verb]
    if re.search(r"(?:s|sh|ch|x|z|o)$", verb):
        return verb + "es"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ies"
    return verb + "s"


def _mirror_verb(rest: list[str]) -> list[str] | None:
    """The rest with its verb replaced by its opposite ('accept this paper' -> 'reject this paper')."""
    if rest and rest[0].lower() in _ANTONYMS:
        opposite = _ANTONYMS[rest[0].lower()]
        if " " in opposite and len(rest) > 1 and rest[1].lower() in ("her", "him", "them", "it", "me", "us"):
            verb, particle = opposite.split(" ", 1)  # "turn her down", not "turn down her"
            return [verb, rest[1], particle, *rest[2:]]
        return [opposite, *rest[1:]]
    return None


# ------------------------------------------------------------------ English shapes

def _english(q: str) -> Motion | None:
    words = q.split(" ")
    first = words[0].lower()
    # "Whether to X" / "Whether we should X" / "I wonder whether we should X"
    m = re.match(r"(?i)^(?:i wonder |i'm wondering |wondering )?whether (?:or not )?(?:to )?(.+)$", q)
    if m and m.group(1) != q:
        inner = m.group(1)
        sub = re.match(r"(?i)^(i|we|you) (should|can|could|must) (.+)$", inner)
        return _english(f"Should {sub.group(1)} {sub.group(3)}" if sub else f"Should I {inner}")
    # "Ought we to refund the customer?" asks "Should we refund the customer?"
    m = re.match(r"(?i)^ought (\S+) to (.+)$", q)
    if m:
        return _english(f"Should {m.group(1)} {m.group(2)}")
    # "I/We should X" as a statement
    m = re.match(r"(?i)^(i|we) (?:should|must|ought to) (.+)$", q)
    if m:
        return _english(f"Should {'I' if m.group(1).lower() == 'i' else 'we'} {m.group(2)}")
    # "Do you think we should X?" asks "Should we X?"; "Would you X?" asks the court's advice: "Should I X?"
    m = re.match(r"(?i)^(?:do you (?:think|believe|reckon)|would you say)(?: that)? (.+)$", q)
    if m:
        return _english(m.group(1))
    m = re.match(r"(?i)^would you (\S+) (.+)$", q)
    if m and m.group(1).lower() in _VERBS:
        return _english(f"Should I {m.group(1)} {m.group(2)}")
    # "Worth upgrading?", "Time to retire the old API?", "Safe to deploy today?": "Is it …?"
    if re.match(r"(?i)^(?:worth|time to|safe to|ok to|okay to|good to|ready to|too late to|too early to) ", q):
        return _english(f"Is it {q if q.split(' ')[0].isupper() else q[:1].lower() + q[1:]}")  # "OK to …" keeps its capitals

    positive = uncontracted(q)
    if positive != q and len(words) > 2:
        # "Isn't the PR ready to merge?", "Shouldn't we wait for the review?": asked expecting Yes,
        # answered as the positive question is (Yes: the PR is ready); unlike "Is the PR not …?"
        motion = _english(positive)
        return None if motion is None else Motion(q, motion.yes, motion.no, motion.mirror_question)
    negated = _negated(q, words)
    if negated is not None:
        return negated
    if first in ("should", "shall", "must") and len(words) > 2:
        return _modal(q, words, "should")
    if first in ("can", "could", "may") and len(words) > 2:
        return _modal(q, words, first)
    if first in ("will", "would"):
        return _would(q, words)
    if first in ("do", "does", "did") and len(words) > 2:
        return _do(q, words)
    if first in ("is", "are", "was", "were", "am") and len(words) > 2:
        return _be(q, words)
    if first in ("has", "have") and len(words) > 2:
        return _have(q, words)
    # An imperative: "Merge PR #214 now?", "Publish this essay now"
    if first in _VERBS:
        yes = _swap(_lower_first(words[0].lower() + q[len(words[0]):]))
        mirror = _mirror_verb(q.split(" "))
        return Motion(q, yes, f"do not {yes}",
                      f"Should I {' '.join(mirror)}?" if mirror else f"Should I not {yes}?")
    return None


_CONTRACTED = {"isn't": "Is", "aren't": "Are", "wasn't": "Was", "weren't": "Were", "shouldn't": "Should",
               "can't": "Can", "couldn't": "Could", "won't": "Will", "wouldn't": "Would", "don't": "Do",
               "doesn't": "Does", "didn't": "Did", "hasn't": "Has", "haven't": "Have", "mustn't": "Must"}


def uncontracted(question: str) -> str:
    """The question with a contracted negative opening it made positive ("Isn't X guilty …?" →
    "Is X guilty …?"), which is how such a question is answered; any other question as it is."""
    first, _, rest = question.partition(" ")
    positive = _CONTRACTED.get(first.lower().replace("’", "'"))
    return f"{positive} {rest}" if positive and rest else question


_AUXILIARIES = {"is", "are", "was", "were", "should", "shall", "must", "can", "could", "may", "will", "would", "do",
                "does", "did", "has", "have"}


def _negated(q: str, words: list[str]) -> Motion | None:
    """A question with "not" after its subject ("Is Dale Hollis not guilty of burglary?", "Should
    ICLR 2017 not accept this paper?", the mirror questions this module writes) is the question
    without it, turned around: its Yes is the positive question's No. Only where "not" follows the
    whole subject (the positive question's motion opens with it), so "Is it worth not upgrading?"
    and "Should we not merge?" (the user's refusal, read by ``_modal``) are left to the rules."""
    if words[0].lower() not in _AUXILIARIES:
        return None
    at = next((i for i in range(2, min(len(words), 9)) if words[i].lower() == "not"), None)
    if at is None or at + 1 >= len(words):
        return None
    start = at - 1 if words[at - 1].lower() == "still" and at > 2 else at  # "Is the PR still not ready …?"
    positive = " ".join(words[:start] + words[at + 1:])
    motion = _english(positive)
    said = " ".join(words[1:start])
    subjects = {_lower_first(_swap(said)).lower()} | ({"you"} if said.lower() in _USER else set())  # as the rules write it
    if motion is None or not motion.no or not motion.yes.lower().startswith(tuple(f"{s} " for s in subjects)):
        return None
    return Motion(q, motion.no, motion.yes, f"{positive}?")


def _user_subject(words: list[str]) -> tuple[str, list[str]] | None:
    for n in (3, 2, 1):
        head = " ".join(words[1:1 + n]).lower()
        if head in _USER and len(words) > 1 + n:
            return " ".join(words[1:1 + n]), words[1 + n:]
    return None


_TEAM = {"our team", "my team", "the team"}


def _spoken(subject: str) -> tuple[str, bool]:
    """How an answer names the asker's subject, and whether it takes a third-person verb: "we" and
    "I" are "you"; a team is the team ("Did the team finish the migration?" answered "you did
    finish …" before), "our team" is "your team"."""
    if subject.lower() in _TEAM:
        return _lower_first(_swap(subject)), True
    return "you", False


_PAST = {"go": "went", "do": "did", "make": "made", "take": "took", "get": "got", "give": "gave", "see": "saw",
         "write": "wrote", "run": "ran", "meet": "met", "send": "sent", "pay": "paid", "buy": "bought",
         "bring": "brought", "think": "thought", "find": "found", "keep": "kept", "leave": "left",
         "hold": "held", "tell": "told", "say": "said", "know": "knew", "break": "broke", "choose": "chose",
         "begin": "began", "build": "built", "spend": "spent", "win": "won", "lose": "lost", "sell": "sold",
         "have": "had", "become": "became", "come": "came", "fall": "fell", "feel": "felt", "grow": "grew",
         "hear": "heard", "lead": "led", "mean": "meant", "read": "read", "set": "set", "put": "put",
         "cut": "cut", "hit": "hit", "let": "let", "ship": "shipped", "stop": "stopped", "plan": "planned",
         "drop": "dropped", "submit": "submitted", "commit": "committed", "admit": "admitted", "fit": "fit",
         "understand": "understood", "teach": "taught", "catch": "caught", "fight": "fought", "rise": "rose",
         "drive": "drove", "speak": "spoke", "steal": "stole", "forget": "forgot", "show": "showed",
         "open": "opened", "visit": "visited", "offer": "offered", "happen": "happened", "deliver": "delivered"}


def _past(verb: str) -> str | None:
    """The simple past of a verb, or None where a rule could get it wrong ("Did the board approve
    …?" is answered "the board approved …", not "the board did approve …"). Irregular verbs and
    those whose last consonant doubles are listed; any other verb ending consonant-vowel-consonant
    is left to "did" ("prefer", "refer" double; "limit" does not)."""
    v = verb.lower()
    if not v.isalpha() or verb != v:
        return None
    if v in _PAST:
        return _PAST[v]
    if v.endswith("e"):
        return v + "d"
    if re.search(r"[^aeiou]y$", v):
        return v[:-1] + "ied"
    if re.search(r"[^aeiou][aeiou][^aeiouwxy]$", v):
        return None
    return v + "ed"


def _modal(q: str, words: list[str], aux: str) -> Motion | None:
    """Should/Can/Could/May <subject> <verb> …"""
    user = _user_subject(words)
    if aux == "should" and user and user[1][0].lower() == "be":
        if user[0].lower() not in ("i", "we", "you"):
            user = None  # "Should the team be split in two?": the team is the subject, not the one to act
        else:  # "Should we be worried?": "you should be worried", not the imperative "be worried"
            body = " ".join(user[1])
            return Motion(q, f"you should {_swap(body)}", f"you should not {_swap(body)}", f"{words[0]} {user[0]} not {body}?")
    if aux == "should" and user:
        subject, rest = user
        if rest[0].lower() == "not":  # "Should I not merge?" : the motion is the refusal
            body = " ".join(rest[1:])
            return Motion(q, f"do not {_swap(body)}", _swap(body), f"{words[0]} {subject} {body}?")
        body = " ".join(rest)
        mirror = _mirror_verb(rest)
        return Motion(q, _swap(body), f"do not {_swap(body)}",
                      f"{words[0]} {subject} {' '.join(mirror) if mirror else 'not ' + body}?")
    if user:
        subject, rest = user
        said, body = _spoken(subject)[0], " ".join(rest)
    else:
        split = _split_subject(words[1:], _VERBS)
        if split is None:
            return None
        subject, rest = split
        said, body = _lower_first(_swap(subject)), " ".join(rest)
    yes = f"{said} {aux} {_swap(body)}"
    no = f"{said} {_AUX_NOT[aux]} {_swap(body)}"
    if aux == "should":
        mirror = _mirror_verb(rest)
        mq = f"{words[0]} {subject} {' '.join(mirror) if mirror else 'not ' + body}?"
    else:
        who = {"i": "me", "we": "us", "you": "you"}.get(subject.lower())
        mq = (f"Is it impossible for {who} to {body}?" if who else f"Is {subject} unable to {body}?")
    return Motion(q, yes, no, mq)


def _would(q: str, words: list[str]) -> Motion | None:
    aux = words[0].lower()
    m = re.match(r"(?i)^(?:would|will) it be (better|best|wise|a good idea|worth it|smart|safer|cheaper|faster) (to .+|if .+)$", q)
    if m:
        adj, rest = m.group(1), m.group(2)
        return Motion(q, f"it would be {adj} {_swap(rest)}", f"it would not be {adj} {_swap(rest)}",
                      f"Would it be a mistake {rest}?" if rest.startswith("to ") else f"Would it be worse {rest}?")
    user = _user_subject(words)
    gerund = words[1].lower().endswith("ing") and "be" in (w.lower() for w in words[2:8])
    if user:
        subject, rest = user
        said = _spoken(subject)[0]
    elif gerund:  # "Would accepting the Brightwave offer be …": the subject runs to "be", whatever verbs it holds
        at = next(i for i, w in enumerate(words) if i > 1 and w.lower() == "be")
        subject, rest = " ".join(words[1:at]), words[at:]
        said = _lower_first(_swap(subject))
    else:
        split = _split_subject(words[1:], _VERBS)
        if split is None:
            return None
        subject, rest = split
        said = _lower_first(_swap(subject))
    body = " ".join(rest)
    if aux == "will":  # the mirror of "Will they fail to X?" is "Will they X?", not "fail to fail to"
        again = body[len("fail to "):] if body.lower().startswith("fail to ") else f"fail to {body}"
        mirror = f"{words[0]} {subject} {again}?"
    else:
        mirror = f"{words[0]} {subject} not {body}?"
    return Motion(q, f"{said} {aux} {_swap(body)}", f"{said} {_AUX_NOT[aux]} {_swap(body)}", mirror)


def _do(q: str, words: list[str]) -> Motion | None:
    aux = words[0].lower()
    user = _user_subject(words)
    if user:
        subject, rest = user
        said, third = _spoken(subject)
        third = third and aux == "does"
    else:
        split = _split_subject(words[1:], _VERBS)
        if split is None:
            return None
        subject, rest = split
        said, third = _lower_first(_swap(subject)), aux == "does"
    verb, body = rest[0], " ".join(rest[1:])
    tail = f" {_swap(body)}" if body else ""
    if aux == "did":
        past = _past(verb)
        yes = f"{said} {past}{tail}" if past else f"{said} did {verb}{tail}"
    else:
        yes = f"{said} {_third_person(verb.lower()) if third else verb}{tail}"
    no = f"{said} {_AUX_NOT['does' if third else 'do' if aux != 'did' else 'did']} {verb}{tail}"  # you do not; it does not
    if verb.lower() == "need" and body:
        mirror = f"Can {subject} do without {body}?"
    else:
        mirror = f"{words[0]} {subject} not {' '.join(rest)}?"
    return Motion(q, yes, no, mirror)


def _be(q: str, words: list[str]) -> Motion | None:
    be = words[0].lower()
    # "Is it worth X" / "Is it a good idea to X" / "Is it wise to X"
    m = re.match(r"(?i)^(?:is|was) it (worth|a good idea|wise|safe|right|better|smart|sensible|ok|okay|time) (.+)$", q)
    if m:
        adj, rest = m.group(1), _swap(m.group(2))
        opposite = _ADJ_ANTONYMS.get(adj.lower())
        mirror = (f"Is it {opposite} {m.group(2)}?" if opposite and adj.lower() != "worth"
                  else f"Is {m.group(2)} a mistake?" if adj.lower() == "worth" else f"Would it be a mistake {m.group(2)}?")
        if adj.lower() == "a good idea":
            mirror = f"Is it a bad idea {m.group(2)}?"
        return Motion(q, f"it is {adj} {rest}", f"it is not {adj} {rest}", mirror)
    # "Is now the right time to X"
    m = re.match(r"(?i)^is (now|this|today|this week|this quarter) (the right|a good) (time|moment) (.+)$", q)
    if m:
        when, rest = m.group(1).lower(), m.group(4)
        return Motion(q, f"{when} is {m.group(2)} {m.group(3)} {_swap(rest)}",
                      f"{when} is not {m.group(2)} {m.group(3)} {_swap(rest)}",
                      f"Is {when} the wrong {m.group(3)} {rest}?")
    # "Is there a/any X"
    m = re.match(r"(?i)^(is|are) there (.+)$", q)
    if m:
        rest = _swap(m.group(2))
        bare = re.match(r"(?i)^(a|an|any) (.+)$", m.group(2))
        if bare:  # "Is there any reason to wait?": Yes, "there is some reason to wait"
            said = f"some {_swap(bare.group(2))}" if bare.group(1).lower() == "any" else rest
            return Motion(q, f"there {be} {said}", f"there {be} no {_swap(bare.group(2))}",
                          f"{words[0]} there no {bare.group(2)}?")
        return Motion(q, f"there {be} {rest}", f"there {be} not {rest}", f"{words[0]} there not {m.group(2)}?")
    if be == "am" and words[1].lower() == "i":
        rest = " ".join(words[2:])
        return Motion(q, f"you are {_swap(rest)}", f"you are not {_swap(rest)}", f"Am I not {rest}?")
    user = _user_subject(words)
    if user and user[0].lower() in ("we", "you"):
        subject, rest = user
        said, verb = "you", "are"
    else:
        split = _split_subject(words[1:], _PREDICATE, _opens_predicate)
        if split is None:
            return None
        subject, rest = split
        said, verb = _lower_first(_swap(subject)), be
    body = " ".join(rest)
    if rest[0].lower() == "ready":
        mirror = f"{words[0]} {subject} still not {body}?"
    elif rest[0].lower() in _UN:  # "Is it unsafe to X?": "Is it safe to X?", not "not unsafe"
        mirror = f"{words[0]} {subject} {' '.join([rest[0][2:], *rest[1:]])}?"
    else:
        mirror = f"{words[0]} {subject} not {body}?"
    return Motion(q, f"{said} {verb} {_swap(body)}", f"{said} {verb} not {_swap(body)}", mirror)


def _have(q: str, words: list[str]) -> Motion | None:
    aux = words[0].lower()
    user = _user_subject(words)
    if user:
        subject, rest = user
        said, third = _spoken(subject)
        verb = "has" if third and aux in ("has", "have") else "have"
    else:
        split = [(" ".join(words[1:j]), words[j:]) for j in range(2, min(len(words), 7))
                 if words[j].islower() and words[j].endswith(("ed", "en", "wn", "ne", "ught", "ound", "ilt", "ent"))]
        if not split:
            return None
        subject, rest = split[0]
        said, verb = _lower_first(_swap(subject)), aux
    body = " ".join(rest)
    return Motion(q, f"{said} {verb} {_swap(body)}", f"{said} {verb} not {_swap(body)}",
                  f"{words[0]} {subject} not {body}?")


# ------------------------------------------------------------------ Chinese shapes

_ZH_MODALS = ("应该", "应当", "需要", "可以", "能够", "必须", "值得", "会", "能", "要", "该", "是", "有")
_ZH_NOT = {"必须": "不必", "有": "没有"}


def _chinese(q: str) -> Motion | None:
    q = re.sub(r"[吗嘛呢]$", "", q).strip()
    # A-not-A: 要不要 / 能不能 / 应不应该 / 可不可以 / 是不是 / 有没有
    for word in sorted(_ZH_MODALS, key=len, reverse=True):
        for form in (f"{word}不{word}", f"{word[0]}不{word}", f"{word}没{word}"):
            i = q.find(form)
            if i >= 0:
                prefix, tail = q[:i], q[i + len(form):]
                neg = _ZH_NOT.get(word, "不" + word)
                return Motion(q, prefix + word + tail, prefix + neg + tail, f"{prefix}是否{neg}{tail}？", language="zh")
    if "是否" in q:
        prefix, tail = q.split("是否", 1)
        word = next((w for w in _ZH_MODALS if tail.startswith(w)), "")
        neg = _ZH_NOT.get(word, "不" + word)
        rest = tail[len(word):]
        return Motion(q, prefix + tail, prefix + neg + rest, f"{prefix}是否{neg}{rest}？", language="zh")
    for word in _ZH_MODALS:
        i = q.find(word)
        if 0 < i < 12:
            neg = _ZH_NOT.get(word, "不" + word)
            prefix, tail = q[:i], q[i + len(word):]
            return Motion(q, q, prefix + neg + tail, f"{prefix}是否{neg}{tail}？", language="zh")
    return None


# ------------------------------------------------------------------ public

def is_chinese(text: str) -> bool:
    return len(re.findall(r"[\u4e00-\u9fff]", text)) >= max(2, len(text.replace(" ", "")) // 4)


def _sentences(question: str) -> list[str]:
    """The question's sentences. Abbreviations and initials ("Mr. Hollis", "J. Smith") end none,
    and neither does a stop inside quotes or brackets."""
    q = re.sub(r"\s+", " ", question).strip()
    masked = re.sub(r"\"[^\"]*\"|“[^”]*”|‘[^’]*’|\([^()]*\)", lambda m: "x" * len(m.group(0)), q)  # no cut inside quotes
    cuts = [m.end() for m in re.finditer(r"[.!?;:](?:[\"'’”)\]])?\s+(?=\S)", masked)
            if ends_at(q, m.start() + 1, m.end())]
    bounds = [0, *cuts, len(q)]
    return [q[a:b].strip() for a, b in zip(bounds, bounds[1:], strict=False)]


def _parts(question: str) -> tuple[str, str, str]:
    """(before, question, after): the sentence that asks (the last ending in "?", else the last)
    and the sentences of context around it."""
    q = re.sub(r"\s+", " ", question).strip()
    sentences = _sentences(q)
    at = next((i for i in range(len(sentences) - 1, -1, -1) if sentences[i].endswith("?")), len(sentences) - 1)
    while at > 0 and sentences[at].lower().startswith("or "):  # "Should we ship? Or wait?" is one question
        sentences[at - 1:at + 1] = [f"{sentences[at - 1]} {sentences[at]}"]
        at -= 1
    if len(sentences) == 1 or len(sentences[at].split(" ")) < 2:
        return "", q, ""
    return " ".join(sentences[:at]), sentences[at], " ".join(sentences[at + 1:])


_WH = {"what", "why", "how", "who", "whom", "whose", "where", "when", "which"}


MAX_ASKING = 600  # characters in the asking sentence (context sentences before or after it aside)


def not_asked(question: str) -> str:
    """Why ``question`` is no yes/no question a verdict can answer, or "": a greeting or a
    statement ("hi", "The build is broken."), a question of what or why ("What is this?"), or two
    questions at once ("Should I merge PR #214? Should I also deploy it?", where the court would
    answer only the second). Chinese questions, which need no question mark, are left to the
    rules; a choice ("Which design, A or B?") is the choice rules' to word."""
    q = re.sub(r"\s+", " ", question).strip()
    if not _clean(q):
        return "the question is empty; ask a yes/no question such as 'Should I merge this PR?'"
    if is_chinese(q):
        return ""
    shown = q if len(q) <= 60 else q[:57] + "…"
    asking = [s for s in _sentences(q) if s.endswith("?") and not s.lower().startswith("or ")]
    opener = lambda s: re.sub(r"^[\"“‘(\[]+", "", s).split(" ")[0].lower().strip(",")  # noqa: E731
    last = _parts(q)[1]
    if len(last) > MAX_ASKING:  # tried as the motion every agent restates: a paragraph of it ran out their replies
        return (f"“{shown}” is asked in {len(last):,} characters; the court tries one short question: ask it in one "
                f"sentence of at most {MAX_ASKING} characters and put the rest in the evidence")
    # no question mark: a statement ("The build is broken.") or a word ("hi", "thanks!") is none; a
    # proposal in the imperative ("Merge PR #214 now", "Decide whether to ship") is still asked
    if (not asking and opener(last) not in _QUESTION_WORDS and not re.search(r"(?i)\bwhether\b", q)
            and (re.search(r"[.!…]$", q) or len(q.split(" ")) <= 2)):
        return (f"“{shown}” is not a yes/no question; ask one the court can decide, such as “Should I merge "
                "PR #214?”, and attach the evidence")
    if not asking and opener(last) in _WH and not re.search(r"(?i)\bor\b|,", last):  # "why did the build break"
        return (f"“{shown}” asks {opener(last)}, which a yes or a no cannot answer; ask a yes/no question, "
                "such as “Should we ship the release on Friday?”")
    if not asking and re.match(r"(?i)(tell|explain|describe|summari[sz]e|write|give|show|list|translate)\s+(me|us)\b",
                               last):  # "Tell me a joke" asks the court for text, not a decision
        return (f"“{shown}” asks for an answer in words, which a verdict cannot give; ask a yes/no question the "
                "court can decide, such as “Should I merge PR #214?”")
    yes_no = [s for s in asking if opener(s) not in _WH]
    if len(yes_no) > 1:
        return (f"“{shown}” asks {len(yes_no)} questions; the court decides one at a time: ask “{yes_no[0]}” "
                "first, then the next")
    if asking and not yes_no and opener(asking[-1]) in _WH and not re.search(r"(?i)\bor\b|,", asking[-1]):
        return (f"“{shown}” asks {opener(asking[-1])}, which a yes or a no cannot answer; ask a yes/no question, "
                "such as “Should we ship the release on Friday?”")
    return ""


def asked(question: str) -> tuple[str, str]:
    """(context, question) of a question put among sentences of context ("Tests pass and two
    people approved. Should I merge?" → the first sentence, "Should I merge?"; "Should I merge? It
    has two approvals." → the second, "Should I merge?"); ('', the whole) when there are none."""
    before, asking, after = _parts(question)
    return " ".join(part for part in (before, after) if part), asking


@dataclass(frozen=True)
class Choice:
    """A question offering two options, tried as one yes/no question: "Design A or B?" is asked
    "Should we choose Design A rather than Design B?" (a Yes is the first option, a No the
    second); ``swapped`` asks the same with the options the other way round."""
    question: str  # as the person asked it
    first: str
    second: str
    asked: str
    swapped: str


_OPTION_OPENERS = _DETERMINERS | _SHARED_OBJECT | {"to"}


_TAIL_OPENERS = _SHARED_OBJECT | {"as", "at"}
# A choice of when: "publish the essay now or next month", "ship today or after the freeze"
_WHEN = {"now", "today", "tonight", "tomorrow", "later", "soon", "immediately"}
_WHEN_OPENERS = _WHEN | {"next", "in", "after", "before", "on", "this", "at", "by", "until", "once"}


def _options(left: list[str], right: list[str], start: int) -> tuple[int, str, str, str] | None:
    """Where the first of two options begins in ``left`` (the words before "or" / "rather than",
    at ``start`` or later), the two options, and the words after the second that both share,
    given ``right`` (the words after): the second opens like the first ("the internship or the
    full-time role", "migrate now or wait until Q3"), is a label sharing the first's head ("Design
    A or B": "Design B"), or is as many words long ("Postgres or MySQL"), a preposition then
    opening what both share ("Alice or Bob as tech lead", "MongoDB or PostgreSQL for the
    ledger"). None when the options cannot be told apart safely, or there are more than two
    ("React, Vue or Svelte")."""
    if not right or len(left) <= start:
        return None
    r0 = right[0].lower()
    second, tail = right, []
    if left[-1].lower() in _WHEN and r0 in _WHEN_OPENERS and len(left) - 1 >= start:
        return len(left) - 1, left[-1], " ".join(right), ""  # "publish the essay now or next month": when
    if len(right) == 1 and r0 in _WHEN:  # the same the other way round: "… next month rather than now"
        at = next((i for i in range(len(left) - 1, start, -1) if left[i].lower() in _WHEN_OPENERS), None)
        if at is not None:
            return at, " ".join(left[at:]), right[0], ""
    if r0 in _OPTION_OPENERS:
        at = next((i for i in range(len(left) - 1, start - 1, -1) if left[i].lower() == r0), None)
    elif r0 in _VERBS and right[0].islower():
        at = next((i for i in range(start, len(left)) if left[i].lower() in _VERBS and left[i].islower()), None)
    else:
        cut = next((k for k in range(1, len(right)) if right[k].lower() in _TAIL_OPENERS), len(right))
        second, tail = right[:cut], right[cut:]
        if (len(second) == 1 and len(left) - start >= 2 and len(second[0]) <= 3 and len(left[-1]) <= 3
                and not second[0].islower() and not left[-1].islower()):
            at, second = max(start, len(left) - 2), [*left[max(start, len(left) - 2):-1], second[0]]  # "Design A or B"
        else:  # as many words, opening alike: "Postgres or MySQL", not "the offer" for "Priya Raman"
            at = len(left) - len(second) if len(left) - len(second) >= start else None
            if at is not None and left[at][:1].isupper() != second[0][:1].isupper() and at > 0:
                return None
    if at is None:
        return None
    first = " ".join(left[at:])
    if (r0 in _VERBS and len(left) - at == 1 and len(second) > 1
            and (second[1].lower() in _DETERMINERS or second[1].lower() in ("it", "them", "this", "that"))):
        first = f"{first} {' '.join(second[1:])}"  # "Merge or close the PR?": "merge the PR" or "close the PR"
    if "," in first or "," in " ".join(second) or (at and left[at - 1].endswith(",")) or not first.strip():
        return None
    return at, first, " ".join(second), " ".join(tail)


def choice(question: str) -> Choice | None:
    """The yes/no question that tries a choice between two options ("Should we use Postgres or
    MySQL?" → "Should we use Postgres rather than MySQL?"; "Design A or B?" → "Should we choose
    Design A rather than Design B?"), or None (not a choice of two options the rules can split:
    "Is Plan A or Plan B cheaper?" is refused as before). The asking sentence is rewritten; the
    context around it stays."""
    if is_chinese(question):
        return _zh_choice(question)
    before, asking, after = _parts(question)
    q = _clean(asking)
    if not _choice(q) or len(re.findall(r"(?i)\bor\b", _unquoted(q))) != 1:
        return None
    def retold(found: Choice | None) -> Choice | None:  # the asking sentence reworded, back among its context
        return found and Choice(question.strip(), found.first, found.second,
                                *(_in_context(before, text, after) for text in (found.asked, found.swapped)))

    wh = re.match(r"(?i)^((?:which|what)\b[^,:]*),\s*(\S.*\bor\b.*)$", q)
    if wh:  # "Which design is better, A or B?": the options after the comma, the rest their context
        return retold(choice(f"{wh.group(1)}: {wh.group(2)}?"))
    left, right = (part.strip(" ,").split(" ") for part in re.split(r"(?i)\s+or\s+", q, maxsplit=1))
    if (left[0].lower() in _VERBS and right[0] in _VERBS and left[0].lower() not in _QUESTION_WORDS
            and not re.match(r"(?i)^(?:which|what)\b", q)):  # "Keep the monolith or split it?": what should we do
        return retold(choice(" ".join(["Should we", left[0].lower(), *left[1:], "or", *right]) + "?"))
    if (left[0].lower() in _VERBS and left[0].lower() not in _QUESTION_WORDS and left[-1].lower() in _WHEN
            and right[0].lower() in _WHEN_OPENERS):  # "Merge now or after the release?": when to merge
        return retold(choice(" ".join(["Should we", left[0].lower(), *left[1:], "or", *right]) + "?"))
    asking_word = left[0].lower() in _QUESTION_WORDS
    found = _options(left, right, 2 if asking_word else 0)
    if found is None:
        return None
    at, first, second, tail = found
    head = " ".join(left[:at]) if asking_word else "Should we choose"
    if not asking_word and at:
        return None  # "Option A or B" only when the options are the whole question
    if not asking_word and second[:1].islower() and (first[1:] == first[1:].lower()
                                                     or first.split(" ")[0].lower() == second.split(" ")[0]):
        first = first[:1].lower() + first[1:]  # "Tabs or spaces?", "Vendor X or vendor Y?": "choose tabs …"
    if first.lower() == second.lower():
        return None
    shared = f" {tail}" if tail else ""
    asked = f"{head} {first} rather than {second}{shared}?"
    if _rather(_clean(asked)) is None:
        return None
    swapped = f"{head} {second} rather than {first}{shared}?"
    return Choice(question.strip(), first, second, _in_context(before, asked, after),
                  _in_context(before, swapped, after))


def _rather(q: str) -> Motion | None:
    """"Should we use Postgres rather than MySQL?": a Yes uses Postgres, a No MySQL ("Yes: use
    Postgres" / "No: use MySQL"), and the mirror asks for MySQL rather than Postgres."""
    if len(re.findall(r"(?i)\brather than\b", q)) != 1:
        return None
    left, right = (part.strip(" ,").split(" ") for part in re.split(r"(?i)\s+rather than\s+", q, maxsplit=1))
    asking_word = left[0].lower() in _QUESTION_WORDS
    found = _options(left, right, 2 if asking_word else 0) if asking_word else None
    if found is None:
        return None
    at, first, second, tail = found
    head, shared = " ".join(left[:at]), f" {tail}" if tail else ""
    yes, no = _english(f"{head} {first}{shared}"), _english(f"{head} {second}{shared}")
    if yes is None or no is None or not yes.yes or not no.yes:
        return None
    return Motion(q, yes.yes, no.yes, f"{head} {second} rather than {first}{shared}?")


def _zh_options(q: str, word: str) -> tuple[str, str, str] | None:
    """(head, first option, second option) of a Chinese question with ``word`` (还是, 而不是) once
    between two options ("我们用方案A还是方案B"): the second is a Latin name ("MySQL" /
    "PostgreSQL") matched by the Latin word that ends the first, or a few characters matched by
    as many ("北京" / "上海")."""
    q = re.sub(r"[吗呢嘛]$", "", q).strip()
    if q.count(word) != 1:
        return None
    left, right = q.split(word)
    if re.match(r"^[A-Za-z0-9]", right):
        m = re.search(r"[A-Za-z0-9][A-Za-z0-9 .+#-]*$", left)
        at = m.start() if m else -1
    else:
        at = len(left) - len(right) if len(right) <= 4 else -1
    if at < 0 or left[at:] == right or re.search(r"[，,、]", left[at:] + right):
        return None
    return left[:at], left[at:], right


def _zh_choice(question: str) -> Choice | None:
    """A Chinese choice between two options, asked as one yes/no question: "我们用方案A还是方案B？"
    → "我们用方案A而不是方案B吗？" (是：我们用方案A / 否：我们用方案B)."""
    found = _zh_options(_clean(question), "还是")
    if found is None:
        return None
    head, first, second = found
    head = head or "选择"
    return Choice(question.strip(), first, second, f"{head}{first}而不是{second}吗？", f"{head}{second}而不是{first}吗？")


def _zh_rather(q: str) -> Motion | None:
    """"我们用方案A而不是方案B吗": a Yes uses 方案A, a No 方案B."""
    found = _zh_options(q, "而不是")
    if found is None:
        return None
    head, first, second = found
    return Motion(re.sub(r"[吗呢嘛]$", "", q).strip(), f"{head}{first}", f"{head}{second}",
                  f"{head}{second}而不是{first}吗？", language="zh")


def _in_context(before: str, asking: str, after: str) -> str:
    """An asking sentence put back among its context: after a clause ending ";", ":" or ","
    ("We launch Friday; should we …?") it stays one sentence, its question word lowercased."""
    if before.endswith((";", ":", ",")) and asking.split(" ")[0].lower() in _QUESTION_WORDS:
        asking = asking[:1].lower() + asking[1:]
    return " ".join(part for part in (before, asking, after) if part)


def parse(question: str) -> Motion | None:
    """The motion the rules find in ``question``; None when no rule fits.

    Raises :class:`MotionError` for a question that offers a choice between options."""
    q = _clean(question)
    if not q:
        raise MotionError("the question is empty; ask a yes/no question such as 'Should I merge this PR?'")
    chinese = is_chinese(q)
    before, asking, after = ("", q, "") if chinese else _parts(question)
    if before or after:  # the question among sentences of context, which the jurors still read
        q = _clean(asking)
    if _choice(q):
        first, *second = re.split(r"(?i)\s+or\s+|还是", q, maxsplit=1)
        first = first.strip(" ,?？").split(",")[0]  # "Should we use React, Vue or Svelte?": "Should we use React?"
        rest = second[0].strip(" ,?？").split(" ")[1:] if second else []
        if first.split(" ")[-1].lower() in _SHARED_OBJECT and rest:  # "with or without the flag": the option is "with the flag"
            first = f"{first} {' '.join(rest)}"
        elif second and not is_chinese(q):  # "Is Plan A or Plan B cheaper?": "Is Plan A cheaper?"
            words, other = first.split(" "), second[0].strip(" ,?？").split(" ")
            for n in (2, 1):
                if (len(other) > n and len(words) > n and other[n - 1][:1].isupper() and words[-1][:1].isupper()
                        and (n == 1 or other[0] == words[-2])):
                    first = f"{first} {' '.join(other[n:])}"
                    break
        example = (f"{first}吗？" if is_chinese(q) else f"{first}?" if first.split(" ")[0].lower() in _QUESTION_WORDS
                   else f"Should we choose {first}?")
        raise MotionError(
            f"“{question.strip()}” offers a choice between options; the court decides one yes/no question at a "
            f"time: ask about one option, e.g. “{example}”")
    rather = _zh_rather(q) if chinese else _rather(q)
    motion = rather or (_chinese(q) if chinese else _english(q))
    if motion is not None and (before or after):  # its mirror keeps the context where it was
        again = motion.mirror_question
        mirror = _in_context(before, again, after) if again else ""
        motion = Motion(_clean(question), motion.yes, motion.no, mirror)
    if motion is not None and motion_problems(question, f"{motion.yes}; {motion.no}" if rather else motion.yes):
        return None
    return motion


# Verbs whose Yes means not going ahead ("Should we postpone the move?"): the 1.5B reads good news
# as Yes whatever the question asks, and lost such a question on clear evidence (2026-11-28).
_HOLD_BACK = {"postpone", "delay", "cancel", "pause", "stop", "halt", "abandon", "drop", "reject", "decline",
              "defer", "suspend", "withdraw", "scrap", "shelve", "revert", "skip", "freeze", "hold"}


def action_verb(question: str) -> str:
    """The verb of the action a Yes to ``question`` commits to, by rule ("Should we postpone the
    move?": "postpone"; "Should the board reject the budget?": "reject"), else "" (no rule reads
    it, or it asks of a state: "Is the API ready?")."""
    try:
        motion = parse(question)
    except MotionError:
        return ""
    if swapped(question):
        return ""  # a choice: a juror arguing for the other option argues for the same verb ("choose")
    words = motion.yes.lower().split() if motion is not None else []
    verb = words[words.index("should") + 1] if "should" in words[:-1] else words[0] if words else ""
    return verb if verb in _VERBS | _HOLD_BACK and verb not in ("be", "do", "have", "get", "make") else ""


def swapped(question: str) -> str:
    """The question with its two options the other way round ("Should we use Postgres rather than
    MySQL?" → "Should we use MySQL rather than Postgres?"), its context kept; "" when it does not
    choose between two options."""
    if is_chinese(question):
        motion = _zh_rather(_clean(question))
        return motion.mirror_question if motion else ""
    before, asking, after = _parts(question)
    motion = _rather(_clean(asking))
    return _in_context(before, motion.mirror_question, after) if motion else ""


# Words of a case at law: a question with one of them is about a charge, a claim or a case, even
# when its asker is "I" or "we" ("Should we convict Tom Reed of burglary?", "Can I sue my landlord?").
_LEGAL = re.compile(
    r"(?i)\b(?:guilt\w*|innocen\w*|charg\w*|accus\w*|defendant\w*|plaintiff\w*|claimant\w*|petitioner\w*|"
    r"respondent\w*|convict\w*|acquit\w*|liab\w*|sue|sued|suing|lawsuit\w*|offen[cs]\w*|crim\w*|sentenc\w*|"
    r"prosecut\w*|indict\w*|court\w*|law|laws|lawful\w*|unlawful\w*|legal\w*|illegal\w*|statut\w*|"
    r"section|article|act|verdict\w*|damages|breach\w*|negligen\w*|tort\w*|theft|thie\w*|steal\w*|stole\w*|"
    r"murder\w*|homicid\w*|assault\w*|fraud\w*|burglar\w*|robb\w*|rape\w*|kill\w*|arrest\w*|police|bail|"
    r"appeal\w*|justice\w*|judg\w*|jury|juror\w*|evidence|testimon\w*|witness\w*|trial\w*|custody|"
    r"penal\w*|punish\w*|fine|fined|prison\w*|jail\w*|probation|parole|ipc|bns|crpc|ruling\w*|affirm\w*|"
    r"overturn\w*|uph[eo]l\w*|remand\w*|quash\w*|lawyer\w*|attorney\w*|counsel|litig\w*|tribunal\w*|"
    r"magistrate\w*|hearing\w*|prov(?:e|ed|en|es|ing)|proof|victim\w*|complain\w*|cheat\w*|brib\w*|forg(?:e|ed|ery)|"
    r"smuggl\w*|injur\w*|harass\w*|abet\w*|dowry|cruelty|trespass\w*|extort\w*|kidnap\w*|abduct\w*|embezzl\w*|"
    r"defam\w*|libel\w*|slander\w*|contract\w*|tenan\w*|landlord\w*|evict\w*|lease\w*)\b"
    r"|罪|被告|指控|判处|判决|刑|起诉|诉讼|原告|赔偿|法院|违法|犯")
_ZH_ASKER = re.compile(r"^(?:我们|咱们|我)(?:是否|应该|应当|要不要|该不该|能否|能不能|可以|可不可以|该|要)")


def asks_what_to_do(question: str) -> bool:
    """Whether the question asks what its asker should do, not about a case at law: "Should I merge
    PR #214 now?", "Publish this essay now?", "Design A or B?", "我们是否应该发布3.0版本？", with no word
    of a charge, a claim or a trial in it. A court that tries charges or legal disputes refuses
    such a question rather than try it as the charge (conservative: anything else is let through)."""
    if _LEGAL.search(question):
        return False
    asking = uncontracted(asked(question)[1]).strip()
    if is_chinese(asking):
        return bool(_ZH_ASKER.match(asking))
    words = asking.split(" ")
    if words[0].lower() in _QUESTION_WORDS and _user_subject(words) is not None:
        return True  # "Should I merge …?", "Can we ship …?"
    if not asking.endswith("?"):
        return False
    return words[0].lower() in _VERBS or choice(asking) is not None  # "Publish this essay now?", "Design A or B?"


def holds_back(question: str) -> str:
    """The verb when a Yes to ``question`` means not going ahead ("Should we postpone the move?":
    "postpone"; "Should the board reject the budget?": "reject"), else ""."""
    verb = action_verb(question)
    return verb if verb in _HOLD_BACK else ""


# What going ahead is, for a verb that holds back: "Should we cancel the contract?" asked directly is
# "Should we keep the contract?". Verbs with no safe counterpart (skip, freeze, hold) have none.
_GO_AHEAD = {"cancel": "keep", "revert": "keep", "drop": "keep", "scrap": "keep", "withdraw": "keep",
             "pause": "continue", "stop": "continue", "halt": "continue", "suspend": "continue",
             "abandon": "continue with", "shelve": "continue with", "reject": "accept", "decline": "accept",
             "postpone": "go ahead with", "delay": "go ahead with", "defer": "go ahead with"}
_ON_TIME = {"postpone", "delay", "defer"}  # "… as planned", the new date left out
_EARLY = re.compile(r"(?i)\s+(?:early|now|right now|immediately|today|for now|for the time being)$")
_LATER = re.compile(r"(?i)\s+(?:until|till|to|by|for|past|into|after|beyond|a|an|one|two|three|four|six)\b\s+(?:\S+\s+){0,3}?"
                    r"(?:next|later|\w+day|week|weeks|month|months|year|quarter|q[1-4]|spring|summer|autumn|fall|winter|"
                    r"january|february|march|april|may|june|july|august|september|october|november|december|"
                    r"sprint|release|\d{4})\b.*$")


@dataclass(frozen=True)
class Direct:
    """A question whose Yes means not going ahead, asked the direct way: a Yes to ``question``
    is a No to the original (``verb`` is the original's verb that holds back)."""
    question: str
    verb: str


def direct_question(question: str) -> Direct | None:
    """The same decision asked as going ahead: "Should we cancel our contract with X?" → "Should
    we keep our contract with X?"; "Should we delay the 5.0 release to next month?" → "Should we
    go ahead with the 5.0 release as planned?". None when the question does not hold back, or no
    rule can turn it safely (the asking sentence must hold the verb once, and the result must be
    a question the rules read, that does not hold back, and keeps the question's names).

    The decision court's ``ask_direct`` puts it to the jurors. Measured on the 1.5B (2026-11-28):
    it moved the misses on such questions to the other side without removing them (the model
    leans No on them in either framing)."""
    turned = _going_ahead(question)
    if turned is None:
        return None
    before, head, _, going, after, verb = turned
    return Direct(_in_context(before, f"{head}{going}?", after), verb)


def _going_ahead(question: str) -> tuple[str, str, str, str, str, str] | None:
    """The parts of a question whose Yes means not going ahead, and of the same question asked as
    going ahead: (context before, the asking sentence's head, what holding back is, what going
    ahead is, context after, the verb that holds back): "Should we cancel our contract with X?"
    → ("", "Should we ", "cancel our contract with X", "keep our contract with X", "", "cancel").
    None when no rule turns it safely (see :func:`direct_question`)."""
    verb = holds_back(question)
    if verb not in _GO_AHEAD:
        return None
    before, asking, after = _parts(question)
    found = list(re.finditer(rf"(?i)\b{verb}\b", asking))
    if len(found) != 1:
        return None
    at = found[0]
    head, tail = asking[:at.start()], re.sub(r"[?？!.\s]+$", "", asking[at.end():])
    held = head and re.sub(r"[?？!.\s]+$", "", asking[at.start():])
    planned, dropped = "", ""
    cut = (_LATER if verb in _ON_TIME else _EARLY).search(tail)
    if cut:  # the new date, or "early": going ahead is going ahead as planned
        tail, dropped = tail[:cut.start()], cut.group(0)
    if cut or verb in _ON_TIME:
        planned = " as planned"
    if not tail.strip():
        return None
    go = _GO_AHEAD[verb]
    going = f"{go[:1].upper() + go[1:] if asking[at.start()].isupper() else go}{tail}{planned}"
    direct = f"{head}{going}?"
    if parse(direct) is None or holds_back(direct) or [t for t in named_terms(asking)
                                                       if t not in direct and t not in dropped]:
        return None
    return before, head, held, going, after, verb


def held_back_choice(question: str) -> Choice | None:
    """A question whose Yes means not going ahead, tried as the choice it is between holding back
    and going ahead: "Should we cancel our contract with X?" → "Should we cancel our contract with
    X rather than keep our contract with X?" (a Yes cancels it, a No keeps it). None when
    :func:`direct_question` finds no safe way to say going ahead, the question has no words
    before its verb, or the rules cannot read the choice back. English only (the rules that hold
    back are English)."""
    turned = _going_ahead(question)
    if turned is None or not turned[2]:
        return None
    before, head, held, going, after, _ = turned
    asked, other = f"{head}{held} rather than {going}?", f"{head}{going} rather than {held}?"
    if _rather(asked) is None or swapped(asked) != other:
        return None
    return Choice(question.strip(), held, going, _in_context(before, asked, after), _in_context(before, other, after))


def motion_for(question: str) -> Motion:
    """The motion by rule, or an unformed one (bare Yes/No answers, no mirror) when no rule fits;
    a procedure with a model asks it for the motion instead (:func:`from_phrase`)."""
    return parse(question) or Motion(_clean(question), "", "", "", "zh" if is_chinese(question) else "en", "none")


def ruled(label: str, polarity: str, question: str, fallback: str) -> str:
    """A court's label and what it means for the question, as the answer reads: "Not guilty:
    Owen Marsh is not guilty of embezzlement from …" for "Is Owen Marsh guilty of embezzlement
    from …?" (not "Not guilty: Is Owen Marsh guilty …?"). The sentence is used only where it
    says the label itself ("not guilty" in it for not guilty; "guilty", not negated, for guilty),
    so a question asked the other way ("Is Owen Marsh not guilty …?", "… innocent …?") never
    reads "Guilty: Owen Marsh is not guilty …"; else, and where no rule reads the question or
    the label is neither side, ``fallback``."""
    try:
        motion = parse(question)
    except MotionError:
        motion = None
    said = motion.phrase(polarity) if motion is not None and polarity in ("yes", "no") else ""
    named, low = label.lower(), said.lower()
    if not re.search(rf"\b{re.escape(named)}\b", low) or (
            not named.startswith("not ") and re.search(rf"\bnot {re.escape(named)}\b", low)):
        said = ""
    return f"{label[:1].upper()}{label[1:]}: {said or fallback}"


_AGAINST = {"guilty": ("not guilty", "innocent"), "liable": ("not liable",)}


def asks_against(question: str, label: str) -> bool:
    """Whether a Yes to ``question`` is the court's label turned down: "Is Dale Hollis not guilty
    of burglary?" (or "… innocent of …?") asked of a court whose verdicts are guilty / not
    guilty. Such a court's guilty is then the question's No, and its answer must say so."""
    try:
        motion = parse(question)
    except MotionError:
        return False
    said = motion.yes.lower() if motion is not None else ""
    return any(re.search(rf"\b{re.escape(w)}\b", said) for w in _AGAINST.get(label.lower(), (f"not {label.lower()}",)))


def answers(label: str, yes: str, labels: tuple[str, ...] | list[str], against: bool = False) -> str:
    """A court's label as an answer to the question: its ``yes`` label ("guilty") is Yes to "Is X
    guilty …?" and, ``against`` (``asks_against``), No to "Is X not guilty …?"; a label outside
    ``labels`` ("hung", "") is undecided. The supreme court and the bench score with it."""
    if label not in labels:
        return "undecided"
    return "yes" if (label == yes) != against else "no"


def named_terms(question: str) -> list[str]:
    """Numbers, names and quoted titles in the question, which the motion must keep unchanged."""
    q = _clean(question)
    terms = re.findall(r"\"([^\"]+)\"|“([^”]+)”|‘([^’]+)’|《([^》]+)》|「([^」]+)」", q)
    found = [next(t for t in group if t) for group in terms]
    plain = _unquoted(q)
    found += re.findall(r"#?\d[A-Za-z0-9_.,:/%-]*[A-Za-z0-9_]|#?\d", plain)  # "3.12", not "3.12吗"
    words = plain.split(" ")
    for i, w in enumerate(words):
        w = w.strip(",;:()[]'’")
        if i == 0 or w in ("I", "Q", "I'm", "I've") or not w or w.lower() in _QUESTION_WORDS:
            continue
        if w[0].isupper() and re.match(r"^[A-Z][\w.+#-]*$", w):
            found.append(w)
    return list(dict.fromkeys(found))


def motion_problems(question: str, phrase: str) -> list[str]:
    """Why a motion phrase does not state what a Yes commits to ('' list when it does)."""
    phrase = phrase.strip()
    problems = []
    if not phrase:
        return ["the motion is empty: state what a Yes commits to"]
    if phrase.endswith(("?", "？")) or (phrase.split(" ")[0].lower() in _QUESTION_WORDS - {"do"} and
                                        phrase.split(" ")[0][0].isupper()):
        problems.append("the motion repeats the question: state what a Yes commits to, not the question")
    missing = [t for t in named_terms(asked(question)[1]) if t not in phrase]  # the question's, not its context's
    if missing:
        problems.append(f"the motion must keep the question's names and numbers unchanged: {', '.join(missing)}")
    lowered = phrase.lower()
    used = [w for w in _MACHINERY if w in lowered and w not in question.lower()]
    if used:
        problems.append(f"the motion speaks of the court ({', '.join(used)}); state the action or fact itself")
    return problems


def negate(phrase: str) -> str:
    """A motion phrase's negation: 'merge PR #214' -> 'do not merge PR #214',
    'the board should approve it' -> 'the board should not approve it'."""
    words = phrase.strip().split(" ")
    for i, w in enumerate(words[:7]):
        if w.lower() in _AUX_NOT and i > 0:
            return " ".join([*words[:i], _AUX_NOT[w.lower()], *words[i + 1:]])
    return f"do not {_lower_first(phrase.strip())}"


def from_phrase(question: str, phrase: str) -> Motion:
    """The motion a model wrote for a question no rule fits (checked by :func:`motion_problems`)."""
    phrase = phrase.strip().rstrip(".")
    phrase = phrase[0].lower() + phrase[1:] if phrase[:1].isupper() and phrase[1:2].islower() else phrase
    zh = is_chinese(question)
    if zh:
        return Motion(_clean(question), phrase, "不" + phrase, "", "zh", "model")
    return Motion(_clean(question), phrase, negate(phrase), "", "en", "model")
