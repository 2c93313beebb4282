"""A verified passage of the side that lost, that nothing answered.

A court's one real advantage over a single call is that each side must file its strongest
verified passage and the bench must answer it. When the verdict goes one way and a verified
exhibit filed for the other way was neither refuted by the defense nor addressed in the ruling,
the verdict has not examined it: How sure names the passage before anything else, and the jury's
vote share is labelled unexamined rather than read as the confidence of a unanimous verdict.

What counts as answered:
- an exhibit of the prosecution, on a No: the defense challenged it as refuted, or the ruling
  addresses it;
- an exhibit of the defense, on a Yes: the ruling addresses it (no stage answers the defense's
  exhibits but the ruling);
- the ruling addresses an exhibit when it names it ("exhibit 2") or states its fact: three of the
  quote's own content words (half of them when it has fewer than six, and two at least) that the
  question does not already hold.

A fact both sides filed (``Defense.turned``) is nobody's loss, and a dismissal loses nothing.
"""

from __future__ import annotations

import re
from typing import Any

from ...replies import shorten
from ..deliberation import key_terms
from .records import Defense, Exhibit, Prosecution, Verdict


def _addressed(exhibit: Exhibit, ruling: str, common: set[str]) -> bool:
    if re.search(rf"(?i)\bexhibit\s*#?\s*{exhibit.number}\b", ruling):
        return True
    own = key_terms(exhibit.source_quote) - common
    return bool(own) and len(own & key_terms(ruling)) >= max(2, min(3, len(own) / 2))


def unanswered(decision: str, question: str, prosecution: Prosecution, defense: Defense | None,
               verdict: Verdict, *, judge_spoke: bool) -> list[dict[str, Any]]:
    """The verified exhibits of the losing side that nothing answered, in the order filed: each
    ``{number, side, quote, why}`` (``why`` is the side's own words on what the passage shows)."""
    if decision not in ("guilty", "not_guilty"):
        return []
    ruling = " ".join([verdict.reasoning, verdict.rationale, *verdict.actions]) if judge_spoke else ""
    common = key_terms(f"{question} {prosecution.motion}")
    turned = set(defense.turned) if defense else set()
    if decision == "guilty":
        losing, side = [e for e in (defense.exhibits if defense else []) if e.verified], "against acting"
        refuted: set[int] = set()
    else:
        losing, side = [e for e in prosecution.exhibits if e.verified and e.number not in turned], "for acting"
        refuted = {c.exhibit for c in (defense.exhibit_challenges if defense else []) if c.effect == "refutes"}
    return [{"number": e.number, "side": side, "quote": e.source_quote, "why": e.harm}
            for e in losing if e.number not in refuted and not _addressed(e, ruling, common)]


def sentence(item: dict[str, Any]) -> str:
    """How sure's one plain sentence on an unanswered passage."""
    why = f" ({shorten(item['why'], 90)})" if item.get("why") else ""
    return (f"Exhibit {item['number']}, filed {item['side']}, says \"{shorten(item['quote'], 140)}\"{why}, and "
            "nothing in the ruling answers it: read it before you act")
