"""The rules a turn and a judgment must keep; each broken one is a ``Problem`` shown to the
speaker once in its repair (the runtime's one repair), then a recorded warning.

Published runs of simulated trials show what to guard against: a turn repeating an earlier
one, a role speaking as another (writing the other side's lines, answering its own
question), vague questions ("elaborate on the circumstances"), and debate off its focus.
The judgment's sentence is read back from its own text (Chinese or English) and must agree
with its fields.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from typing import NamedTuple

from ..base import Problem
from .wire import JudgmentReply, RecordEntry

ROLE_LABELS = {
    "judge": ("审判长", "审判员", "法官", "Judge", "Presiding judge", "The court", "Court"),
    "prosecution": ("公诉人", "检察员", "公诉机关", "Prosecutor", "Prosecution"),
    "advocate": ("辩护人", "律师", "Defense counsel", "Defence counsel", "Counsel", "Advocate", "Defense"),
    "defendant": ("被告人", "被告", "Defendant", "The defendant", "Accused"),
    "stenographer": ("书记员", "Clerk", "Stenographer"),
}
_ANSWER_MARK = re.compile(r"(?m)^\s*(答|问|A|Q|Answer|Question)\s*[:：]")
_VAGUE = re.compile(
    r"(详细|具体)(说明|讲|谈|介绍|陈述)一?下?(案件|事情|相关)?的?(经过|情况)|请(你)?(再)?(详细|具体)?(说说|讲讲|谈谈)(情况|经过)|"
    r"(?i:\b(elaborate on|tell (us|the court) (more )?about|describe) the (circumstances|situation|events|case)\b)")
_CJK = re.compile(r"[\u3400-\u9fff]")


def similarity(a: str, b: str) -> float:
    """How close two turns are (0..1): difflib's ratio on the texts without spaces and punctuation."""
    strip = lambda s: re.sub(r"[\W_]+", "", s.lower())  # noqa: E731
    x, y = strip(a), strip(b)
    if not x or not y:
        return 0.0
    return SequenceMatcher(None, x, y, autojunk=False).ratio()


def repetition(text: str, record: list[RecordEntry], threshold: float) -> RecordEntry | None:
    """The earlier turn (read indictments aside) this one is too close to, if any."""
    for entry in record:
        if entry.speaker != "record" and not entry.repeats and similarity(text, entry.text) >= threshold:
            return entry
    return None


def role_break(text: str, role: str) -> str:
    """The other role this turn speaks as ('公诉人：…' inside the advocate's turn), or an
    answer written into the asker's own question; "" when it keeps to its role."""
    for other, labels in ROLE_LABELS.items():
        if other == role:
            continue
        for label in labels:
            if re.search(rf"(?m)^\s*[*\[【(（]?{re.escape(label)}[*\]】)）]?\s*[:：]", text):
                return f"it writes lines for the {other} ('{label}:')"
    if _ANSWER_MARK.search(text) and len(_ANSWER_MARK.findall(text)) >= 2:
        return "it writes both a question and its answer"
    return ""


def key_terms(text: str, zh: bool) -> set[str]:
    """Content terms: Chinese character pairs, else English words of four letters or more."""
    if zh:
        chars = "".join(_CJK.findall(text))
        stop = {"被告", "告人", "是否", "应当", "如何", "构成", "对被", "的行", "行为"}
        return {chars[i:i + 2] for i in range(len(chars) - 1)} - stop
    stop = {"whether", "what", "which", "that", "this", "there", "with", "should", "does", "deserves"}
    return {w for w in re.findall(r"[a-z]{4,}", text.lower()) if w not in stop}


_GENERIC = {"证据", "证明", "出示", "举证", "本案", "公诉", "诉人", "evidence", "proves", "shows", "court", "present"}


def presents(text: str, item: str, zh: bool) -> bool:
    """Whether a turn presenting ``item`` speaks of it: two of its content terms (all of them
    when it has fewer), words such as "evidence" aside. "好的，请出示证据" presents nothing."""
    wanted = key_terms(item, zh) - _GENERIC
    return len(wanted & key_terms(text, zh)) >= min(2, len(wanted))


# A debate focus on the sentence or on whether the offence is made out is addressed in the words
# of that question, not only the focus's own: "建议判处有期徒刑一年，并处罚金" argues the focus
# "对被告人应当如何量刑" without "量刑", and "其行为构成信用卡诈骗罪" argues "被告人的行为是否构成起诉书指控
# 的罪名" without "起诉书" (on the 1.5B, such arguments were sent back as off the focus).
_FOCUS_KINDS = (
    (re.compile(r"量刑|刑罚|处罚|判处|(?i:sentenc|punish)"),
     re.compile(r"量刑|判处|刑期|有期徒刑|拘役|管制|罚金|缓刑|从轻|减轻|从重|免予|免除处罚|"
                r"(?i:\b(sentenc\w*|prison|imprison\w*|jail|custod\w*|fined|fine of|probation|punish\w*|lenien\w*)\b)")),
    (re.compile(r"罪名|构成|是否.*罪|(?i:\bguilt|\boffen[cs]e|\bcharge)"),
     re.compile(r"构成|\w罪|无罪|(?i:\b(guilty|guilt|offen[cs]e|charged?|crime|convict\w*|acquit\w*)\b)")),
)


def addresses(text: str, focus: str, zh: bool) -> bool:
    """Whether a debate turn argues its focus: it shares a content term with the focus, or the
    focus asks about the sentence (or whether the offence is made out) and the turn speaks of one."""
    if key_terms(focus, zh) & key_terms(text, zh):
        return True
    return any(asks.search(focus) and said.search(text) for asks, said in _FOCUS_KINDS)


def turn_problems(text: str, role: str, record: list[RecordEntry], *, threshold: float, kind: str = "",
                  focus: str = "", zh: bool = False, repeats: dict[str, RecordEntry] | None = None,
                  item: str = "") -> list[Problem]:
    """What is wrong with one turn: a repeat, a role break, a vague question, debate off its focus,
    an evidence item presented without a word of it. The turn a text repeats is also left in
    ``repeats`` (text -> earlier entry) when given."""
    problems = []
    earlier = repetition(text, record, threshold)
    if earlier is not None:
        if repeats is not None:
            repeats[text] = earlier
        problems.append(Problem("repetition", f"it repeats turn {earlier.turn} ({earlier.speaker}) nearly word for word; "
                                              "say something new that moves the trial on"))
    broken = role_break(text, role)
    if broken:
        problems.append(Problem("role_break", f"{broken}; speak only as the {role}, in your own voice"))
    if kind == "question" and _VAGUE.search(text):
        problems.append(Problem("vague_question", "the question is vague; ask about one specific fact (a date, an amount, "
                                                  "an act, a piece of evidence) the record leaves open"))
    if zh and not chinese(text):
        problems.append(Problem("language", "the turn is not in Chinese; the trial is held in Chinese (用中文发言)"))
    if item and not presents(text, item, zh):
        problems.append(Problem("off_item", "the turn does not present the evidence item; say what the item is and "
                                            "what fact it proves, in its own words"))
    if kind == "debate" and focus and not addresses(text, focus, zh):
        problems.append(Problem("off_focus", f"the argument does not address the debate focus ('{focus}'); argue that point"))
    return problems


# ---------------------------------------------------------------------- the sentence in the text

_DIGIT = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_DIGITS = "".join(_DIGIT)
_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10_000}
NUMBER = rf"[\d.,{_DIGITS}十百千万]+"


def number(text: str | None) -> float | None:
    """A number written in digits or Chinese numerals (十个月, 二十四, 四千, 1.5万, 10,000)."""
    text = (text or "").replace(",", "").strip()
    if not text:
        return None
    if re.fullmatch(r"\d+(\.\d+)?万", text):
        return float(text[:-1]) * 10_000
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return float(text)
    total, section, digit = 0, 0, 0
    for ch in text:
        if ch in _DIGIT:
            digit = _DIGIT[ch]
        elif ch.isdigit():
            digit = digit * 10 + int(ch)
        elif ch in ("十", "百", "千"):
            section += (digit or 1) * _UNITS[ch]
            digit = 0
        elif ch == "万":
            total += (section + digit) * 10_000
            section, digit = 0, 0
        else:
            return None
    return float(total + section + digit)


class Stated(NamedTuple):
    """The sentence a judgment's text states (None: the text does not say)."""

    term_months: float | None
    fine: float | None
    probation_months: float | None
    special: str


def _months(years: str | None, months: str | None) -> float:
    return (number(years) or 0) * 12 + (number(months) or 0) if (years or months) else 0.0


_ZH_TERM = re.compile(rf"(有期徒刑|拘役|管制)(?:({NUMBER})年)?(?:({NUMBER})个?月)?")
_ZH_FINE = re.compile(rf"罚金(?:人民币)?\s*({NUMBER})\s*元")
_ZH_PROBATION = re.compile(rf"缓刑(?:({NUMBER})年)?(?:({NUMBER})个?月)?")
_EN_NUMBER = r"\d+(?:\.\d+)?"
_EN_TERM = re.compile(rf"(?i)({_EN_NUMBER})\s*(years?|months?)(?:'s?)?\s+(?:of\s+)?(?:imprisonment|in prison|custody|detention|jail)"
                      rf"|(?:imprisonment|prison term|custody|detention)\s+(?:term\s+)?(?:of|for)\s+({_EN_NUMBER})\s*(years?|months?)")
_EN_FINE = re.compile(r"(?i)fine[ds]?\s+(?:of\s+)?(?:[$£€]|USD\s*|EUR\s*|GBP\s*)?([\d,]+(?:\.\d+)?)")
_EN_PROBATION = re.compile(rf"(?i)(?:suspended|probation)\s+(?:for|of)\s+({_EN_NUMBER})\s*(years?|months?)")


def stated(text: str) -> Stated:
    """Read the term, fine and probation back from a judgment's operative text."""
    special = next((w for w in ("死刑缓期二年执行", "死刑，缓期二年执行", "无期徒刑", "死刑") if w in text), "")
    if not special:
        special = next((w for w in ("life imprisonment", "death") if re.search(rf"(?i)\b{w}\b", text)), "")
    term = fine = probation = None
    if (m := _ZH_TERM.search(text)) and (m.group(2) or m.group(3)):
        term = _months(m.group(2), m.group(3))
    elif m := _EN_TERM.search(text):
        value, unit = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        term = float(value) * (12 if unit.lower().startswith("year") else 1)
    if m := _ZH_FINE.search(text):
        fine = number(m.group(1))
    elif m := _EN_FINE.search(text):
        fine = float(m.group(1).replace(",", ""))
    if (m := _ZH_PROBATION.search(text)) and (m.group(1) or m.group(2)):
        probation = _months(m.group(1), m.group(2))
    elif m := _EN_PROBATION.search(text):
        probation = float(m.group(1)) * (12 if m.group(2).lower().startswith("year") else 1)
    return Stated(term, fine, probation, special)


def judgment_problems(reply: JudgmentReply, zh: bool) -> list[Problem]:
    """The judgment's fields must be what its text says, and its text must name each charge."""
    problems = []
    if zh and not chinese(reply.text):
        problems.append(Problem("language", "the judgment text is not in Chinese; the trial is held in Chinese, so write "
                                            "the judgment in Chinese (用中文书写)"))
    said = stated(reply.text)
    pairs = (("term_months", said.term_months, reply.term_months), ("fine", said.fine, reply.fine),
             ("probation_months", said.probation_months, reply.probation_months))
    for name, in_text, field in pairs:
        if in_text is not None and abs(in_text - field) > 0.01:
            problems.append(Problem("judgment_fields", f"the text says {in_text:g} for {name} but the field holds {field:g}; "
                                                       "make the field and the text state the same sentence"))
        elif in_text is None and field > 0 and not said.special:
            problems.append(Problem("judgment_fields", f"{name} is {field:g} but the text does not state it; "
                                                       "write it in the text too"))
    if not reply.charges and not said.special and (sentence := [name for name, in_text, field in pairs if field > 0 or (in_text or 0) > 0]):
        # an acquittal that sentences (a 1.5B judge: no charge, "not guilty", and a month's prison and a fine)
        problems.append(Problem("judgment_acquittal", (
            f"the judgment names no charge, an acquittal, yet sentences the defendant ({', '.join(sentence)}); name the "
            "charge the facts found prove and keep the sentence, or acquit and set term_months, fine and "
            "probation_months to 0 and state no sentence in the text")))
    for charge in reply.charges:
        if zh and not chinese(charge):
            problems.append(Problem("judgment_charge", f"the charge '{charge}' is not named in Chinese; name each charge "
                                                       "as the Criminal Law names it, in Chinese, ending in 罪"))
        elif normalise_charge(charge, zh) not in normalise_charge(reply.text, zh):
            problems.append(Problem("judgment_charge", f"the text does not name the charge '{charge}'"))
    return problems


def chinese(text: str) -> bool:
    """Mostly Chinese: at least as many Chinese characters as Latin letters (a name or a card's
    brand in Latin letters is fine)."""
    return len(_CJK.findall(text)) >= len(re.findall(r"[A-Za-z]", text)) and bool(_CJK.search(text))


def normalise_charge(charge: str, zh: bool) -> str:
    """A charge as compared: no spaces or punctuation, lower case; a Chinese charge ends in 罪."""
    text = re.sub(r"[\s\W_]+", "", charge.lower())
    if zh and text and "罪" not in text:
        text += "罪"
    return text


def is_subsequence(short: str, long: str) -> bool:
    rest = iter(long)
    return all(ch in rest for ch in short)


def specific_forms(official: str, judgment: str) -> list[str]:
    """The names a judgment's text gives the official charge ``official`` in this case, when
    ``official`` is a selective charge (选择性罪名: its name lists alternatives, 非法持有、私藏枪支、
    弹药罪) and the court named only what applied (犯非法持有枪支罪): each "犯…罪" in the text whose
    characters are the official name's, in order. Normalised; an ordinary charge has none."""
    if "、" not in official:
        return []
    whole = normalise_charge(official, True)
    named = (normalise_charge(m, True) for m in re.findall(r"犯([^，。；,;：:]{2,40}?罪)", judgment))
    return list(dict.fromkeys(n for n in named if n != whole and is_subsequence(n, whole)))


def same_charges(predicted: str, forms: dict[str, list[str]]) -> bool:
    """Whether a predicted charge key names the gold charges: each official charge (the keys of
    ``forms``) named once, by its official name or one of the specific forms its court used."""
    said = [c for c in predicted.split("+") if c]
    if len(said) != len(forms):
        return False
    meant = set()
    for charge in said:
        meant |= {official for official, names in forms.items() if charge == official or charge in names}
    return meant == set(forms)


def charge_key(charges: list[str], zh: bool) -> str:
    """A set of charges as one label: normalised, sorted, joined."""
    return "+".join(sorted({normalise_charge(c, zh) for c in charges if c.strip()})) or "acquitted"
