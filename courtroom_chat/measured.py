"""What was measured about a procedure on a model, for the "How sure" block of every verdict.

``measured.json`` holds, per procedure and model, how the court did on a set of clear cases
(the evidence plainly one way) against one plain call and a majority vote, with the date and
where the results are committed. A trial whose every role ran on that model carries the entry
in its outcome (``data["measured"]``), so every front end can say how far this court, on this
model, followed clear evidence when it was measured, and claim no more. An entry with
``"kind": "accuracy"`` counts items scored right against a dataset's gold answers (the
classification court's labels, the criminal trial's charges) instead of clear cases followed.
Update an entry only from a committed ``courtroom eval`` or evidence-following result."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

# How an entry's count reads, by its kind: what the court did on the items, what it did less
# often than one call, and what it did on fewer than half of them
PHRASES = {
    "evidence": {"scored": "followed the evidence in", "of_others": "in",
                 "less": "followed clear evidence less often than one call",
                 "fewer": "followed clear evidence in fewer than half the cases it was measured on"},
    "accuracy": {"scored": "was right on", "of_others": "on", "less": "was right less often than one call",
                 "fewer": "was right on fewer than half the items it was measured on"},
}


@cache
def entries() -> tuple[dict[str, Any], ...]:
    text = resources.files("courtroom_chat").joinpath("measured.json").read_text(encoding="utf-8")
    return tuple(json.loads(text)["entries"])


def for_trial(procedure: str, models: dict[str, str]) -> dict[str, Any] | None:
    """The entry for ``procedure`` when every role ran on the one model it was measured on."""
    used = set(models.values())
    if len(used) != 1:
        return None
    (model,) = used
    return next((dict(e) for e in entries() if e["procedure"] == procedure and e["model"] == model), None)


def summary(entry: dict[str, Any]) -> str:
    """One line: "on 8 clear cases (2026-11-27) this court followed the evidence in 4; one call in 7, a majority of five calls in 7"."""
    said = PHRASES[entry.get("kind", "evidence")]
    line = f"on {entry['items']} {entry['set']} ({entry['date']}) this court {said['scored']} {entry['court']}"
    others = [f"{name} {said['of_others']} {entry[key]}" for key, name in (("single", "one call"), ("majority", "a majority of five calls"))
              if entry.get(key) is not None]
    line += f"; {', '.join(others)}" if others else ""
    line += f"; {entry['also']}" if entry.get("also") else ""
    return line + (f" (earlier, {entry['earlier']})" if entry.get("earlier") else "")


def below_baseline(entry: dict[str, Any]) -> bool:
    """Whether the court was measured below one call or a majority vote on the same cases."""
    return any(entry.get(key) is not None and entry["court"] < entry[key] for key in ("single", "majority"))


def weakness(entry: dict[str, Any]) -> str:
    """What the measurement says against trusting this court on this model, or "": it followed
    clear evidence (or was right) less often than one call (or a majority vote), or in fewer than
    half the cases it was measured on (where no baseline ran beside it)."""
    said = PHRASES[entry.get("kind", "evidence")]
    if below_baseline(entry):
        return f"this court, on this model, {said['less']}"
    if entry["court"] * 2 < entry["items"]:
        return f"this court, on this model, {said['fewer']}"
    return ""
