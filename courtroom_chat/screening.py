"""A model's second opinion on evidence that gives orders.

The scan in ``injection`` is deterministic and catches orders by their cues. A model reading
the document can catch what cues miss: an order paraphrased, a steer written as a
"note for the automated reviewer", a language the cues do not cover. It is optional:

- ``[injection] second_opinion = "auto"`` (the default) asks for it where the screener's model
  is Claude, and not on the embedded model, Ollama or the scripted backend: on two CPU cores
  each call costs seconds, and a small model's judgement of what "addresses the court" is
  weak. ``"on"`` and ``"off"`` decide for every backend.
- The screener is a court-level role, ``screener``: ``[models] screener = "anthropic:…"``
  gives it a model of its own; otherwise it uses ``default``.

One call per piece of each document (``chunk_chars`` characters, cut at line ends), at
temperature 0, before any agent speaks. The model names passages and copies their words; each
is checked like an exhibit (the evidence's normalised matching) and one that is not in the
document is dropped, after one repair, and counted in a warning. A verified passage becomes a
flag like the scan's (``source="model"``): shown to the person with its place, cut from what
the agents read, refused as an exhibit, and listed in the notice every agent gets. A passage
the scan already flagged is not flagged twice. The model's own explanation is shown to the
person only; agents are told a fixed reason per kind, so no words of the flagged passage
reach a prompt through it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from . import prompts
from .case import Document
from .cost import estimate_cost
from .errors import BackendError, RoleOutputError
from .evidence import EvidenceIndex
from .evidence import _location as location_of
from .injection import Flag, FlagKind
from .replies import Problem

if TYPE_CHECKING:
    from .case import Case
    from .config import Settings
    from .court import Agent, Court
    from .records import RunRecord

ROLE = "screener"
MIN_QUOTE_CHARS = 12
REASONS: dict[str, str] = {
    "instruction": "a model's second opinion: it gives the court's agents instructions",
    "steering": "a model's second opinion: it tries to steer the verdict",
    "hidden": "a model's second opinion: it hides text from a person reading it",
}


class ScreenedPassage(BaseModel):
    model_config = ConfigDict(extra="ignore")

    quote: str = Field(min_length=1, max_length=600, description="the passage's words, copied exactly from the document")
    kind: Literal["instruction", "steering", "hidden"]
    reason: str = Field(max_length=240, description="why, in a few words of your own")


class ScreenerReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    passages: list[ScreenedPassage] = Field(default_factory=list, max_length=6)


def enabled(settings) -> bool:
    """Whether the trial asks a model for a second opinion (see the module's notes)."""
    choice = settings.injection.second_opinion
    if choice != "auto":
        return choice == "on"
    return settings.model_for(ROLE).backend == "anthropic"


def pieces(doc: Document, size: int) -> list[tuple[int, int]]:
    """[start, end) spans of at most ``size`` characters covering ``doc``, cut after a line end
    where one falls in the second half of a piece."""
    text, spans, start = doc.text, [], 0
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            cut = text.rfind("\n", start + size // 2, end)
            end = cut + 1 if cut != -1 else end
        spans.append((start, end))
        start = end
    return spans


def _where(doc: Document, span: tuple[int, int], count: int, n: int) -> str:
    if count == 1:
        return "the whole text"
    first = doc.text.count("\n", 0, span[0]) + 1
    last = doc.text.count("\n", 0, max(span[0], span[1] - 1)) + 1
    return f"part {n} of {count} (lines {first}-{last})"


def _check(index: EvidenceIndex):
    def check(reply: ScreenerReply) -> list[Problem]:
        missing = [p.quote for p in reply.passages if not index.check(p.quote, min_chars=MIN_QUOTE_CHARS, nearest=False).verified]
        if not missing:
            return []
        return [Problem("unverified_passage", f'this passage is not in the document word for word: "{missing[0][:120]}"; '
                                              "copy each passage's words exactly, or leave it out")]
    return check


def _flag(doc: Document, index: EvidenceIndex, passage: ScreenedPassage) -> Flag | None:
    found = index.check(passage.quote, min_chars=MIN_QUOTE_CHARS, nearest=False)
    if not found.verified or found.location is None:
        return None
    start, end = found.location.char_start, found.location.char_end
    tail = passage.quote.rstrip()
    while end < len(doc.text) and tail and doc.text[end] == tail[-1] and tail[-1] in ".!?\"')":
        end, tail = end + 1, tail[:-1]  # the closing stop or quote mark the matching left off
    kind: FlagKind = passage.kind
    return Flag(**location_of(doc, start, end).model_dump(), kind=kind, passage=doc.text[start:end],
                reason=REASONS[kind], source="model", note=passage.reason.strip())


def merge(flags: list[Flag], found: list[Flag]) -> list[Flag]:
    """The scan's flags with the model's added where they overlap none already there, in
    document order (documents in the order given, as the scan lists them)."""
    out = list(flags)
    for f in found:
        if not any(g.document == f.document and f.char_start < g.char_end and g.char_start < f.char_end for g in out):
            out.append(f)
    order = {name: i for i, name in enumerate(dict.fromkeys(f.document for f in flags + found))}
    return sorted(out, key=lambda f: (order[f.document], f.char_start))


async def second_opinion(court: Court, *, dry_run: bool = False) -> list[Flag]:
    """Ask the screener about every piece of every document; the verified passages as flags.
    In a dry run, plan the prompts instead."""
    settings = court.settings
    system = prompts.render("screen-system")
    planned: list[tuple[Agent, Document, int, str]] = []  # one screener agent per piece read
    for doc in court.case.context:
        if not doc.text.strip():
            continue
        spans = pieces(doc, settings.injection.chunk_chars)
        for n, span in enumerate(spans, 1):
            where = _where(doc, span, len(spans), n)
            agent = court.agent(f"{ROLE}-{len(planned) + 1}", ROLE, f"Screener · {doc.name}"
                                + (f" · {where.split(' (')[0]}" if len(spans) > 1 else ""),
                                stage="screening", temperature=0.0, max_tokens=700, expected_output_tokens=80)
            planned.append((agent, doc, n, prompts.render("screen", question=court.case.question, document=doc.name,
                                                          kind=doc.kind, where=where, text=doc.text[span[0]:span[1]])))
    if dry_run:
        for agent, _, _, prompt in planned:
            court.plan_prompt("screening", agent, prompt, ScreenerReply, system=system, prefix="")
        return []
    estimate = sum(estimate_cost(agent.backend.price_provider, agent.model_id,
                                 agent.backend.estimate_tokens(f"{system}\n{prompt}"), agent.expected_output_tokens) or 0.0
                   for agent, _, _, prompt in planned)
    court.check_budget("screening", [], estimate)
    found: list[Flag] = []
    dropped = 0
    indexes: dict[int, EvidenceIndex] = {}
    for agent, doc, n, prompt in planned:
        index = indexes.setdefault(id(doc), EvidenceIndex([doc]))
        try:
            answer = await court.ask(agent, prompt, ScreenerReply, check=_check(index), system=system, prefix="",
                                     inputs={"document": doc.name, "piece": n})
        except (BackendError, RoleOutputError) as exc:
            # The scan has already run; a second opinion that cannot be had is said, not fatal.
            court.warn(ROLE, "second_opinion_failed", (
                f"the model's second opinion on the evidence failed ({exc}); only the deterministic scan screened it"),
                stage="screening")
            break
        mine = [f for f in (_flag(doc, index, p) for p in answer.value.passages) if f is not None]
        dropped += len(answer.value.passages) - len(mine)
        found += mine
        court.finish(agent, answer.value, repaired=answer.repaired, line=f"{len(mine)} passage(s) named",
                     markdown="Nothing here addresses the court." if not mine else "\n".join(
                         f"- `{f.short()}` ({f.kind}): {f.note}" for f in mine))
    if dropped:
        court.warn(ROLE, "unverified_passage", (
            f"the screener named {dropped} passage{'s' if dropped != 1 else ''} not found in the evidence word for word; "
            "left out (only passages found in the evidence are flagged)"), stage="screening")
    return found


async def screen_case(case: Case, settings: Settings, *, backends: dict | None = None) -> tuple[list[Flag], RunRecord]:
    """The second opinion alone, outside a trial (the injection bench measures it this way):
    the model's verified flags, and a record holding its calls and warnings."""
    from .backends import BackendPool
    from .court import Court
    from .procedures import get
    from .records import RunRecord

    procedure = get(case.procedure or "decision")
    record = RunRecord(run_id="screening", case=case, procedure=procedure.name)
    pool = BackendPool(settings, backends)
    try:
        found = await second_opinion(Court(record, settings, pool, lambda event: None, procedure))
    finally:
        await pool.aclose()
    return found, record
