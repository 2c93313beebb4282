"""The classification court's demo replies for the scripted backend, built from the case: the
hearing ranks labels by the words of the text, counsels quote the text verbatim, and the
judges mostly follow the hearing, with one dissent on a bench of three or more (so a demo
shows a split), and in sequence each follows the judge before it."""

from __future__ import annotations

import re
from typing import Any

from ...backends.base import ModelRequest
from .labels import case_text


def _stems(text: str) -> set[str]:
    return {w[:5] for w in re.findall(r"[a-z]{3,}", text.lower())}


# A few words that signal common labels, so a demo of the emotion or sentiment labels reads sensibly.
CUES = {
    "joy": "happy glad delighted smiling excited wonderful", "sadness": "sad crying lonely miserable rotten missing",
    "anger": "angry furious annoyed hate outraged mad", "fear": "afraid scared worried nervous anxious terrified",
    "love": "adore caring beloved tender romantic", "surprise": "surprised amazed shocked astonished unexpected",
    "positive": "good great lovely excellent", "negative": "bad awful terrible poor",
}


def rank(labels: list[str], text: str) -> list[str]:
    """Labels by how many of their words' stems (and cue words) the text has (the given order breaks ties)."""
    found = _stems(text)
    scores = {label: len(_stems(f"{label} {CUES.get(label.lower(), '')}") & found) for label in labels}
    return sorted(labels, key=lambda label: (-scores[label], labels.index(label)))


def demo_reply(request: ModelRequest) -> dict[str, Any] | None:
    inputs = request.inputs
    text = case_text(request.case) if request.case is not None else ""
    if request.role == "magistrate":
        labels = list(inputs.get("labels") or ["yes", "no"])
        ranked = rank(labels, text)
        return {"reasoning": f"The wording of the text is closest to {ranked[0]}, with {ranked[1]} the next reading.",
                "top": ranked[0], "alternative": ranked[1]}
    if request.role in ("prosecutor", "attorney"):
        label = str(inputs.get("label", "the label"))
        choices = list(inputs.get("choices") or [])
        wanted = _stems(label)
        quote = next((c for c in choices if _stems(c) & wanted), choices[0] if choices else "")
        said = f' where it says "{" ".join(quote.split()[:12])}"' if quote else ""
        return {"argument": f"The text supports {label}{said}; read plainly, that is {label} and not the other label.",
                "quotes": [quote] if quote else []}
    if request.role == "judge":
        first, second = str(inputs.get("first", "")), str(inputs.get("second", ""))
        number = int(inputs.get("number", 1))
        previous = inputs.get("previous") or {}
        label = previous.get("label") or (second if number == 2 else first)
        sides = inputs.get("sides") or {}
        counsel = next((s for s, lab in sides.items() if lab == label), "prosecutor")
        build = f" I agree with judge {previous['number']}." if previous else ""
        return {"reasoning": f"The {counsel}'s reading of the text as {label} holds better than the other side's; "
                             f"its quoted passage fits {label}.{build}",
                "label": label, "confidence": 0.7 if label == first else 0.6}
    return None
