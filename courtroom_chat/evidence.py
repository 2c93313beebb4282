"""Quote verification: is an exhibit's ``source_quote`` really in the evidence?

Both the quote and every document are normalised the same way before comparing:
Unicode NFKC (composed per grapheme), typographic quotes and dashes to ASCII, and every
run of whitespace (line breaks included) to one space. The normalised text keeps a map
back to original character offsets, so a match is reported as file, lines and offsets
in the document exactly as it was attached.

A quote that is not found gets the nearest passage that does exist and its similarity
(rapidfuzz's normalised edit similarity, 0-1), so the prosecutor can be shown exactly what failed.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from pydantic import BaseModel

from . import sentences
from .case import Document

_SINGLE = "\u2018\u2019\u201a\u201b\u2032\u2035\u0060\u00b4"
_DOUBLE = "\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb"
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"
_TRANSLATE = str.maketrans({**{c: "'" for c in _SINGLE}, **{c: '"' for c in _DOUBLE}, **{c: "-" for c in _DASHES}})
_EDGE = " \t\n\"'.\u2026"  # quote marks and ellipses models wrap around quotes


@dataclass(frozen=True)
class Normalised:
    text: str
    origin: list[int]  # origin[i]: where the grapheme that gave normalised char i starts
    ends: list[int]  # ends[i]: where that grapheme ends (after its combining marks)

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Original [start, end) offsets of normalised [start, end)."""
        return self.origin[start], self.ends[end - 1]


def _graphemes(text: str):
    """(offset, cluster) pairs: a base character with its combining marks."""
    i, n = 0, len(text)
    while i < n:
        j = i + 1
        while j < n and unicodedata.combining(text[j]):
            j += 1
        yield i, text[i:j]
        i = j


def _normalise_ascii(text: str) -> Normalised:
    """The same result as ``normalise`` for ASCII text, by whole runs instead of per character."""
    out: list[str] = []
    origin: list[int] = []
    ends: list[int] = []
    for m in re.finditer(r"\S+", text):
        if out:
            out.append(" ")
            origin.append(m.start())
            ends.append(m.start())
        run = m.group()
        out.append(run.translate(_TRANSLATE))  # in ASCII, only the backtick changes
        origin.extend(range(m.start(), m.end()))
        ends.extend(range(m.start() + 1, m.end() + 1))
    return Normalised("".join(out), origin, ends)


def normalise(text: str) -> Normalised:
    return _normalise_ascii(text) if text.isascii() else _normalise_general(text)


def _normalise_general(text: str) -> Normalised:
    out: list[str] = []
    origin: list[int] = []
    ends: list[int] = []
    pending_space = False
    for offset, cluster in _graphemes(text):
        for ch in unicodedata.normalize("NFKC", cluster).translate(_TRANSLATE):
            if ch.isspace() or ch in "\u200b\u200c\u200d\ufeff":
                pending_space = bool(out) and (pending_space or ch.isspace())
                continue
            if pending_space:
                out.append(" ")
                origin.append(offset)
                ends.append(offset)
                pending_space = False
            out.append(ch)
            origin.append(offset)
            ends.append(offset + len(cluster))
    return Normalised("".join(out), origin, ends)


def normalise_text(text: str) -> str:
    return normalise(text).text


def clean_quote(quote: str) -> str:
    """The quote as it will be searched: normalised, without wrapping quote marks/ellipses."""
    return normalise_text(quote).strip(_EDGE)


class Location(BaseModel):
    document: str
    line_start: int
    line_end: int
    char_start: int
    char_end: int

    def short(self) -> str:
        lines = f"{self.line_start}" if self.line_start == self.line_end else f"{self.line_start}-{self.line_end}"
        return f"{self.document}:{lines}"


class NearestMiss(BaseModel):
    passage: str
    similarity: float
    location: Location


class QuoteCheck(BaseModel):
    verified: bool
    location: Location | None = None
    occurrences: int = 0
    nearest: NearestMiss | None = None
    reason: str = ""


def _location(doc: Document, start: int, end: int) -> Location:
    return Location(
        document=doc.name,
        line_start=doc.text.count("\n", 0, start) + 1,
        line_end=doc.text.count("\n", 0, max(start, end - 1)) + 1,
        char_start=start,
        char_end=end,
    )


class EvidenceIndex:
    """The case's documents, normalised once, for checking many quotes."""

    def __init__(self, documents: list[Document]):
        self.documents = documents
        self._norm = [normalise(d.text) for d in documents]
        self._words = [
            [(m.start(), m.end(), m.group().lower()) for m in re.finditer(r"\w+", n.text)] for n in self._norm
        ]

    def check(self, quote: str, *, min_chars: int = 1, nearest: bool = True) -> QuoteCheck:
        """Where ``quote`` is in the evidence; when it is not, the nearest passage (if asked)."""
        needle = clean_quote(quote)
        if len(needle) < min_chars:
            return QuoteCheck(verified=False, reason=f"the quote is empty or shorter than {min_chars} characters")
        if not self.documents:
            return QuoteCheck(verified=False, reason="the case has no evidence documents to quote from")
        first: Location | None = None
        count = 0
        for doc, norm in zip(self.documents, self._norm, strict=True):
            pos = norm.text.find(needle)
            while pos != -1:
                if first is None:
                    first = _location(doc, *norm.span(pos, pos + len(needle)))
                count += 1
                pos = norm.text.find(needle, pos + 1)
        if first is not None:
            return QuoteCheck(verified=True, location=first, occurrences=count)
        miss = self.nearest(needle) if nearest else None
        return QuoteCheck(verified=False, nearest=miss, reason="not found in the evidence")

    def nearest(self, needle: str) -> NearestMiss | None:
        """The most similar passage to ``needle``: rapidfuzz's best partial alignment in each
        document (edit-distance based, in C++), widened to whole words."""
        from rapidfuzz import fuzz

        best: tuple[float, int, int, int] | None = None
        for d, norm in enumerate(self._norm):
            if not norm.text:
                continue
            found = fuzz.partial_ratio_alignment(needle, norm.text, score_cutoff=best[0] if best else 0)
            if found is not None and (best is None or found.score > best[0]):
                best = (found.score, d, found.dest_start, found.dest_end)
        if best is None or best[3] <= best[2]:
            return None
        score, d, start, end = best
        doc, norm = self.documents[d], self._norm[d]
        while start > 0 and norm.text[start - 1].isalnum():
            start -= 1
        while end < len(norm.text) and norm.text[end].isalnum():
            end += 1
        o_start, o_end = norm.span(start, end)
        return NearestMiss(
            passage=doc.text[o_start:o_end],
            similarity=round(score / 100, 3),
            location=_location(doc, o_start, o_end),
        )


# A line that starts a unit of its own, never the rest of the line before it: a list item, a
# heading, a table row, a quoted line, a fenced block, or a "Key: value" field.
_UNIT_START = re.compile(r"^\s*(?:[-*+>|#]|\d+[.)]\s|```|[A-Z][\w /&()'-]{0,30}:\s)")
# The longest passage offered: a whole sentence up to this long is quoted whole (a line of up to
# ``max_chars`` as before); longer ones are left to free text, verified as usual.
_LONGEST = 400


def quotable_units(doc: Document) -> list[str]:
    """The evidence's lines joined into the units a reader quotes: a paragraph or list item hard
    wrapped over several lines is one unit, so a sentence that runs over a line break is offered
    whole (cut at the break, its first half was an exhibit and its second half spilled into the
    exhibit's "Bears on", issue 86). A line continues the one before when that line is long (40
    characters or more) and ends in no stop, colon or semicolon, and this one opens on a
    lowercase letter and starts no unit of its own. A diff, a code block, a log (its lines open
    on symbols, capitals and numbers) and short lines stay line by line."""
    units: list[str] = []
    fenced = False
    for line in doc.text.split("\n"):
        text = line.strip()
        if text.startswith("```"):
            fenced = not fenced
        prev = units[-1] if units else ""
        joins = (doc.kind != "diff" and not fenced and text[:1].islower() and prev and len(prev) >= 40
                 and not prev.endswith((".", "!", "?", ":", ";", "|", '."', ".)", "```"))
                 and not prev.startswith(("#", "|")) and not _UNIT_START.match(line))
        if joins:
            units[-1] = f"{prev} {text}"
        else:
            units.append(text)
    return units


def quote_choices(documents: list[Document], *, question: str = "", limit: int = 400, min_chars: int = 12,
                  max_chars: int = 240) -> list[str]:
    """Passages a quote may be decoded from: every informative line of the evidence, verbatim,
    a paragraph wrapped over several lines read as one (``quotable_units``); a unit longer than
    ``max_chars`` is offered sentence by sentence, each whole up to 400 characters.

    A passage every word of which is in ``question`` states nothing the question does not (an
    option's own name in a list of options, "1. MADR 4.0.0 – The Markdown Architectural
    Decision Records", asked "Should we choose MADR 4.0.0 …?") and is left out.

    Backends that decode under a grammar get these as the allowed values of an exhibit's
    quote, so a small model cannot misquote. Returns [] when the evidence has more than
    ``limit`` passages; the quote is then free text, verified as usual (whitespace, line breaks
    included, is folded before comparing, so a joined paragraph verifies).
    """
    seen: set[str] = set()
    out: list[str] = []
    asked = {w.lower() for w in re.findall(r"\w+", question)}
    for doc in documents:
        title = next((line.strip() for line in doc.text.split("\n") if line.strip()), "")
        for text in quotable_units(doc):
            # Headings and titles state no fact (a prosecutor quoting "# PR #412: …" proves nothing).
            if text.startswith("#") and doc.kind != "diff" or text.endswith(":") or (text == title and not text.endswith(".")):
                continue
            if doc.kind == "diff":
                if text.startswith(("diff --git", "index ", "+++", "---", "@@")):
                    continue  # diff machinery, not evidence
                if text[:1] in "+-":
                    text = text[1:].strip()
            pieces = [text] if len(text) <= max_chars else sentences.split(text)
            for piece in pieces:
                piece = piece.strip()
                if len(piece) < min_chars or len(piece) > max(max_chars, _LONGEST) or piece in seen:
                    continue
                said = [w.lower() for w in re.findall(r"\w+", piece)]
                if len(said) < 3 or asked and all(w in asked or w.isdigit() for w in said):
                    continue
                seen.add(piece)
                out.append(piece)
                if len(out) > limit:
                    return []
    return out


def withhold(text: str, quote: str, marker: str) -> tuple[str, bool]:
    """``text`` with every occurrence of ``quote`` replaced by ``marker``, and whether one was
    found. Whitespace may differ (a quote verified across a line break); nothing else may."""
    for words in (quote.split(), clean_quote(quote).split()):
        if words:
            out, count = re.subn(r"\s+".join(re.escape(w) for w in words), lambda _: marker, text)
            if count:
                return out, True
    return text, False
