"""Replies from models: tolerant JSON parsing, validation problems, and the JSON schemas
that shape decoding.

Every procedure asks for typed JSON. A reply is parsed tolerantly (fences, prose around
it, raw control characters), validated against the role's pydantic wire model, and each
failure becomes a ``Problem`` the runtime shows the agent once in its repair.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

from pydantic import BaseModel, Field, ValidationError, field_validator

from .sentences import ends_at

T = TypeVar("T", bound=BaseModel)


class Problem(NamedTuple):
    rule: str  # schema, exhibit_quote, harm_specific, juror_words, ...
    message: str


_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```\s*$")


def extract_json(text: str) -> Any:
    """The JSON object in a reply: tolerant of code fences, prose around it and raw control
    characters inside strings (seen from llama.cpp's schema decoding)."""
    body = _FENCE.sub("", text.strip())
    start, end = body.find("{"), body.rfind("}")
    if start == -1 or end < start:
        raise ValueError("the reply holds no JSON object")
    return json.loads(body[start : end + 1], strict=False)


def parse_reply(text: str, wire: type[T]) -> tuple[T | None, list[Problem]]:
    try:
        data = extract_json(text)
    except (ValueError, json.JSONDecodeError) as exc:
        snippet = text.strip().replace("\n", " ")[:120]
        return None, [Problem("schema", f"the reply is not valid JSON ({exc}); it began: {snippet!r}")]
    try:
        return wire.model_validate(data), []
    except ValidationError as exc:
        problems = []
        for err in exc.errors()[:6]:
            where = ".".join(str(p) for p in err["loc"]) or "(the object)"
            problems.append(Problem("schema", f"field {where}: {err['msg']}"))
        return None, problems


def unlooped(text: str, shortest: int = 12) -> str:
    """A reply cut off at its token limit while it wrote one passage over and over, cut after the
    passage's first copy, at the last sentence end in it, with its JSON closed; "" when the reply
    does not end in three or more copies of a passage of ``shortest`` characters or more, or
    cannot be closed. Seen on the 1.5B judge of a Chinese criminal case (2026-11-29): the judgment
    text restated "本院认为 …" until 1,500 tokens, and again when asked to be shorter; the
    anti-repetition sampler looks back 64 tokens, less than one copy."""
    s = text.rstrip()
    n = len(s)
    period = next((p for p in range(shortest, n // 3 + 1)
                   if s[n - p:] == s[n - 2 * p:n - p] == s[n - 3 * p:n - 2 * p]), 0)
    if not period:
        return ""
    start = n - period
    while start > 0 and s[start - 1] == s[start - 1 + period]:
        start -= 1  # where the repeating begins
    # the first copy, and the character after it (the second copy's first, which ends the first
    # copy's last sentence when the repeating begins at a full stop), back to a sentence end in it
    cut = s[:start + period + 1]
    ends = [m.end() for m in re.finditer(r"[.!?。！？]", cut) if m.end() > start + 1]
    return _closed((cut[:ends[-1]] if ends else cut[:-1]).rstrip())


def at_last_sentence(text: str) -> str:
    """A reply cut off at its token limit, cut back to its last full sentence with its JSON
    closed; "" when no sentence ends inside the string being written, or it cannot be closed.
    Seen on the 1.5B defendant of a Chinese criminal case (ljp-201, 2026-11-29): asked to answer
    the indictment, it copied the indictment's facts to 400 tokens, and to 600 when asked again,
    and the whole trial failed on its third turn."""
    s = text.rstrip()
    ends = [m.end() for m in re.finditer(r"[。！？]|[.!?](?=\s)", s) if ends_at(s, m.end(), m.end())]
    for end in reversed(ends[-8:]):  # the last few: one inside the open string closes it
        if body := _closed(s[:end]):
            return body
    return ""


# What a last-resort cut says, by how it was cut: the court's warning and a baseline call's log alike
SALVAGE_SAID = {
    "looped": "the reply wrote one passage over and over until its token limit, also when asked again; it was "
              "kept cut after the passage's first copy",
    "cut": "the reply reached its token limit, also when asked again; it was kept cut at its last full sentence",
}


def salvaged(texts: list[str], read: Callable[[str], Any]) -> tuple[Any, str, str] | None:
    """The last resort before a reply counts as failed, for the court's roles and the baselines
    alike, over ``texts`` (replies that hit their token limit): one cut after the first copy of a
    passage it wrote over and over (``unlooped``, "looped"), else one cut at its last full sentence
    (``at_last_sentence``, "cut"), whichever ``read`` accepts first (it returns the value or None):
    (value, the cut text, how it was cut: a key of ``SALVAGE_SAID``); None when none is."""
    for cut, how in ((unlooped, "looped"), (at_last_sentence, "cut")):
        for text in texts:
            if (body := cut(text)) and (value := read(body)) is not None:
                return value, body, how
    return None


def _closed(prefix: str) -> str:
    """A JSON object cut off inside a string value, closed: the string, then each open array and
    object; "" when the cut is anywhere else (a key, or between a key and its value)."""
    stack: list[str] = []
    in_string = escaped = False
    for ch in prefix:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]" and stack:
            stack.pop()
    if not in_string or escaped or not stack:
        return ""
    body = prefix + '"' + "".join(reversed(stack))
    try:
        json.loads(body[body.find("{"):], strict=False)
    except (json.JSONDecodeError, ValueError):
        return ""  # cut inside a key: the closed string has no value
    return body


def fraction(v: Any) -> Any:
    """A confidence as a fraction: 70 or "70%" means 0.7 (models often answer in percent, and
    grammars do not bound numbers). Anything unreadable is left for validation to refuse."""
    if isinstance(v, str):
        v = v.strip().rstrip("%")
    try:
        number = float(v)
    except (TypeError, ValueError):
        return v
    return number / 100 if 1 < number <= 100 else number


def renamed(data: Any, field: str, alias: str) -> Any:
    """A reply that gives ``field`` under another name (a plain juror's "decision" is its vote;
    a reply written to a juror's schema carries its answer as "vote"): the value as ``field``.
    For a ``model_validator(mode="before")``."""
    if isinstance(data, dict) and field not in data and alias in data:
        return {**data, field: data[alias]}
    return data


class Confident(BaseModel):
    """A reply that may say how sure it is: a probability, read as a fraction when given in percent."""

    confidence: float | None = Field(default=None, ge=0.0, le=1.0)

    @field_validator("confidence", mode="before")
    @classmethod
    def _fraction(cls, v: Any) -> Any:
        return fraction(v)


def words(text: str) -> int:
    return len(re.findall(r"\w+(?:['’-]\w+)*", text))


# Chinese, Japanese and Korean characters and full-width forms: kept out of the text of a
# case written in a Latin script (a 0.5B model at a high temperature drifts into Chinese).
FOREIGN = "\u3000-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"
_FOREIGN = re.compile(f"[{FOREIGN}]")


_STOP, _CLOSE = r"[.!?\u2026]", r"[\"'\u201d\u2019)\]]*"
_END = _STOP + _CLOSE  # a sentence's end: its stop, and any closing quote or bracket
_SENTENCE_END = re.compile(_END + "$")
_DANGLING = ",;:-\u2013\u2014 "  # what a cut phrase may end on


def shorten(text: str, limit: int) -> str:
    """``text`` with its whitespace folded, cut at a word boundary with an ellipsis, never mid-word
    (a quote cut so still verifies: the evidence check drops a closing ellipsis)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:") or text[: limit - 1]
    return cut + "…"


def unfinished(text: str) -> bool:
    """True when prose stops mid-sentence: it does not end with . ! ? or …, with any closing
    quote or bracket after, or it ends at an abbreviation ("… than other methods, e.g.").
    A field cut at its length limit always does."""
    t = text.strip()
    return bool(t) and not (_SENTENCE_END.search(t) and ends_at(t, len(t)))


def finished(text: str) -> str:
    """Prose that stops mid-sentence, shortened by the code: to its last whole sentence, or, if
    it has none, to its last whole word with "…". Text that ends properly is returned as it is."""
    t = text.strip()
    if not unfinished(t):
        return t
    ends = [m.end() for m in re.finditer(_END + r"(?=\s)", t) if ends_at(t, m.end(), m.end())]
    if ends:
        return t[:ends[-1]]
    head = t.rsplit(None, 1)[0] if " " in t else t
    return head.rstrip(_DANGLING) + "\u2026"


_SENTENCE_GAP = re.compile(f"((?<={_STOP}){_CLOSE}\\s+)")


def unrepeated(text: str, min_words: int = 6, *, known: str = "") -> tuple[str, int]:
    """``text`` without the sentences (of ``min_words`` words or more) that repeat an earlier
    sentence of the same text word for word, case and punctuation aside; and how many were left
    out. On the evidence-following cases (2026-11-26) the 1.5B judge wrote the same sentence two
    or three times in one reasoning: 1,418 of the 3,162 repeated eight-word runs of 20 trials
    were the judge's, and 595 of those went with its repeated sentences.

    With ``known`` (another agent's text), only the sentences that repeat one of ``known``'s are
    left out: the 1.5B defense wrote 18 of its 54 sentences on the twenty clear cases (2026-12-01)
    as the prosecution's, word for word, "Acting now will ensure …" among them."""
    before = {_said(s) for s in _SENTENCE_GAP.split(known)[::2]} if known else set()
    parts = _SENTENCE_GAP.split(text)
    seen: set[str] = set()
    kept: list[str] = []
    dropped = 0
    for i in range(0, len(parts), 2):
        sentence, gap = parts[i], parts[i + 1] if i + 1 < len(parts) else ""
        key = _said(sentence)
        if len(key.split()) >= min_words and (key in before if known else key in seen):
            dropped += 1
            continue
        seen.add(key)
        kept.append(sentence + gap)
    return ("".join(kept).strip() if dropped else text), dropped


def _said(sentence: str) -> str:
    """A sentence's words, lower case, without its punctuation: what counts as written again."""
    return " ".join(re.findall(r"\w+", sentence.lower()))


def finished_parts(text: str, heads: list[str], high: int) -> str:
    """Prose decoded under a grammar of fixed heads, each part but the last bounded to ``high``
    characters and closed by the head after it (the judge's "The prosecution …. The defense ….
    The jury …"). At its bound the grammar closes a part mid-word with the next head's full stop,
    so a part that ran into it ends at its last whole sentence instead (or its last whole word
    with "…"), as ``finished`` ends a field. Text of another shape is returned as it is."""
    shape = "".join(f"{re.escape(head)}(.+?)" for head in heads[:-1]) + re.escape(heads[-1]) + "(.*)"
    m = re.fullmatch(shape, text.strip(), re.S)
    if not m:
        return text
    out = heads[0]
    for i, part in enumerate(m.groups()[:-1]):
        cut = len(part) >= high and unfinished(part)
        out += (finished(part) + heads[i + 1].lstrip(".!?")) if cut else part + heads[i + 1]
    return out + m.groups()[-1]


def finished_item(text: str) -> str:
    """A list item (an action) that ran into its length bound: a phrase needs no full stop, so
    one without a whole sentence keeps its words and loses only a dangling comma or dash; one
    that stops mid-sentence after a whole sentence ends at that sentence, as ``finished`` does."""
    t = text.strip()
    if not unfinished(t):
        return t
    short = finished(t)
    return short if not short.endswith("\u2026") else t.rstrip(_DANGLING)


# Prose that stops mid-sentence after at least one whole sentence: the code shortens it to that
# sentence (``finished``) and the court does not ask the model again for it alone. On ICLR 2017
# trials on the 1.5B (2026-11-25) every such field kept a whole sentence (90% of its text), and
# of the 16 repairs asked (for any rule) 3 came back breaking none, 7 word for word the same.
SHORTENED = "unfinished_shortened"


def unfinished_problems(fields: dict[str, str], *, shorten: bool = False) -> list[Problem]:
    """One problem per prose field that stops mid-sentence, quoting its last words, so the
    repair asks for the short form instead of the code cutting it.

    With ``shorten``, a field that has a whole sentence to end at is reported under
    ``SHORTENED`` instead: the court records it as a warning and does not ask again for it."""
    problems = []
    for name, text in fields.items():
        if unfinished(text):
            tail = " ".join(text.split()[-6:])
            if shorten and not finished(text).endswith("\u2026"):
                problems.append(Problem(SHORTENED, f'the {name} stopped mid-sentence ("…{tail}"); it ends at its '
                                                   "last whole sentence"))
            else:
                problems.append(Problem("unfinished", f'the {name} stops mid-sentence ("…{tail}"); say it in fewer '
                                                      "words and end it with a full stop"))
    return problems


def latin_script(text: str) -> bool:
    """Whether ``text`` is written in a Latin script (fewer than 1% CJK characters)."""
    letters = sum(1 for c in text if c.isalpha())
    return not letters or len(_FOREIGN.findall(text)) / letters < 0.01


def foreign_characters(text: str) -> str:
    """The CJK characters in ``text`` (for the rule that keeps a Latin-script case's replies in its script)."""
    return "".join(_FOREIGN.findall(text))


def text_class(latin: bool, cjk: bool = False) -> str:
    """One character of a JSON string (no quote, no escape), without CJK when ``latin``, and
    without Latin letters but X when ``cjk`` (a reply to a Chinese case cannot slip into
    English under the grammar; the 1.5B, refused lower-case letters, wrote "I, [DEFENDANT]" in
    capitals. X stays for the case files' masks, "XXX年X月X日"; "POS机" becomes "刷卡机")."""
    return '[^"\\\\' + (FOREIGN if latin else "") + ("A-WYZa-z" if cjk else "") + "]"


def word_pattern(low: int, high: int, longest: int = 40, *, latin: bool = False) -> str:
    """A JSON-string pattern of ``low`` to ``high`` words separated by single spaces.

    Each word is at most ``longest`` characters: unbounded, a small model could loop inside
    one "word" until it ran out of tokens and left invalid JSON (measured once in 20 trials).
    Keep ``high`` generous (well above what the prompt asks for): at the bound no space is
    allowed, and a model that has not finished its sentence glues the next words together.
    """
    word = f'[^"\\\\ {FOREIGN if latin else ""}]{{1,{longest}}}'
    return f"^({word} ){{{max(0, low - 1)},{max(0, high - 1)}}}{word}$"


def text_pattern(low: int, high: int, *, latin: bool = False, cjk: bool = False, end: str = "") -> str:
    """A JSON-string pattern of ``low`` to ``high`` characters. Keep ``high`` generous: at the
    bound the string must close, mid-word if need be; the prompt asks for the short form.
    ``end``: a character class the string must end with (``"[?？]"``: a question). With
    ``cjk`` (and ``low`` at least 1) the string starts with a CJK character or CJK punctuation:
    a model that opens in Chinese goes on in Chinese."""
    first = f"[{FOREIGN}]" if cjk and low >= 1 else ""
    taken = (1 if first else 0) + (1 if end else 0)
    return f"^{first}{text_class(latin, cjk)}{{{max(0, low - taken)},{max(0, high - taken)}}}{end}$"


def literal_pattern(text: str) -> str | None:
    """``text`` as a regex literal that llama.cpp's schema-to-grammar converter accepts.

    The converter rejects most backslash escapes (``\\#``, ``\\.``) and then accepts any
    string with only a warning, so every character but letters, digits and spaces goes in a
    one-character class (``[#]``). None when ``text`` holds a character that cannot sit in
    a class that way (a quote, a backslash, ``]``, ``^``, a control or non-ASCII character).
    """
    if not text or any(c in '"\\]^' or not (" " <= c <= "~") for c in text):
        return None
    return "".join(c if c.isalnum() or c == " " else f"[{c}]" for c in text)


def refine_schema(wire: type[BaseModel], constraints: dict[str, dict[str, Any] | None]) -> dict[str, Any]:
    """The wire model's JSON schema for decoding: every field required, constraints added.

    ``constraints`` maps a field, ``"field"`` (top level) or ``"Model.field"`` (a nested
    model), to JSON-schema keywords: ``{"exhibits": {"maxItems": 3}, "ExhibitReply.harm":
    {"minLength": 40}}``. Keywords with an empty or None value are left out; a field mapped to
    None is left out of the schema (a field kept on the wire model for older records but no
    longer asked for, which a grammar would otherwise make the model write). Backends that
    decode under a grammar (llama.cpp, Ollama) enforce them token by token, which keeps
    small models concise and well-formed; others may ignore them. Replies are still
    validated against the permissive wire model, and the procedure's rules still apply.
    """
    schema = wire.model_json_schema()
    # Every field is written: under a grammar an optional field may otherwise be skipped
    # (a judge leaving out its actions). Validation still fills defaults for other backends.
    for holder in [schema, *schema.get("$defs", {}).values()]:
        if "properties" in holder:
            holder["required"] = list(holder["properties"])
    for key, keywords in constraints.items():
        model, _, name = key.rpartition(".")
        holder = schema["$defs"][model] if model else schema
        if keywords is None:
            holder["properties"].pop(name)
            holder["required"].remove(name)
            continue
        holder["properties"][name].update({k: v for k, v in keywords.items() if v not in (None, [], "")})
    return schema
