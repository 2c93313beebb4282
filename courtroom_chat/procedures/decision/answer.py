"""The decision court's confidences, computed in code from the record (the plain answer is
built from the decision and the question's motion: courtroom_chat.motion). Each confidence is named by what it measures: the jury's vote share for the
decision reached, the evidence verified and unrefuted, and the judge's own estimate.
"""

from __future__ import annotations

import re
from typing import Any

from ...records import Confidence
from ..deliberation import cited_most
from .records import Defense, Jury, Prosecution, Verdict


def vote_share(decision: str, jury: Jury) -> tuple[float, str]:
    """The share of votes cast for the decision reached (abstentions count as cast)."""
    cast = jury.voted
    votes = {"guilty": jury.guilty_count, "not_guilty": jury.not_guilty_count, "dismissed": jury.abstain_count}[decision]
    if not cast:
        return 0.0, "no juror voted"
    return round(votes / cast, 3), f"{votes} of {cast} jurors"


def refutations_count(own_verified: bool, turned: Any) -> bool:
    """Whether the defense's "refutes" takes an exhibit out of the evidence figure: only when the
    defense stands on verified evidence of its own (an exhibit, or a quote both sides claimed). A
    refutation by argument alone does not; the exhibit list says so beside the exhibit, from this
    same rule, so the list and the figure never disagree (issue 86: "refuted by the defense" beside
    "3 for acting, 0 against")."""
    return bool(own_verified or turned)


def evidence_confidence(decision: str, jury: Jury, prosecution: Prosecution, defense: Defense | None) -> tuple[float, dict[str, Any]]:
    """The evidence verified and unrefuted for the decision: one quantity, computed from the
    record, not reported by a model, and apart from the jury's vote share (its own confidence).

    The verified exhibits on the decision's side over all verified exhibits (the prosecution's
    speak for acting, the defense's against), less the prosecution's that the defense refuted
    with a verified exhibit of its own, and less those the defense quoted for its own side (one
    fact claimed by both counts for neither). A dismissal is supported by evenly balanced
    exhibits. With no exhibit verified on either side there is no evidence to speak of: the
    figure is 0 and says so. (Until 2026-11-30 the figure was half this and half the jury's
    margin, under the name "jury and verified evidence"; the ``jury_part`` is still kept in the
    basis for those records' readers.)
    """
    cast = jury.voted or 1
    g, n = jury.guilty_count, jury.not_guilty_count
    own = [e for e in (defense.exhibits if defense else []) if e.verified]
    turned = set(defense.turned) if defense else set()  # claimed by both sides: counted for neither
    refuted = ({c.exhibit for c in (defense.exhibit_challenges if defense else []) if c.effect == "refutes"}
               if refutations_count(own, turned) else set())
    for_yes = sum(1 for e in prosecution.exhibits if e.verified and e.number not in refuted | turned)
    for_no = len(own)
    verified = sum(1 for e in prosecution.exhibits if e.verified) + for_no
    total = for_yes + for_no
    if decision == "guilty":
        jury_part, exhibit_part = (1 + (g - n) / cast) / 2, (for_yes / total if total else 0.0)
    elif decision == "not_guilty":
        jury_part, exhibit_part = (1 + (n - g) / cast) / 2, (for_no / total if total else 0.0)
    else:
        jury_part, exhibit_part = 1 - abs(g - n) / cast, (1 - abs(for_yes - for_no) / total if total else 0.0)
    value = round(exhibit_part, 3) if verified else 0.0
    basis = {
        "jury_for": g if decision == "guilty" else n if decision == "not_guilty" else jury.abstain_count,
        "jury_cast": jury.voted,
        "jury_part": round(jury_part, 3),
        "exhibits_survived": for_yes,
        "exhibits_filed": len(prosecution.exhibits) + len(defense.exhibits if defense else []),
        "exhibits_for": for_yes,
        "exhibits_against": for_no,
        "exhibits_contested": len(turned),
        "verified": verified,
        "exhibit_part": round(exhibit_part, 3),
    }
    return value, basis


def evidence_scores(basis: dict[str, Any]) -> bool:
    """Whether the evidence gives the verdict a figure. Not when exhibits were verified but none
    stands for either side (each cited by both sides, or refuted): a 0 would then read as evidence
    against the verdict, where nothing was measured. On the 1.5B the defense quoted back every
    exhibit in 18 of 20 clear cases (2026-11-30). With nothing verified at all, the figure is 0
    and the verdict says it rests on argument alone."""
    if "exhibits_against" not in basis or not basis.get("verified"):
        return True
    return bool(basis["exhibits_for"] + basis["exhibits_against"])


def evidence_basis_text(basis: dict[str, Any]) -> str:
    if "verified" in basis and not basis["verified"]:
        return f"no exhibit verified ({basis.get('exhibits_filed', 0)} filed): the decision rests on argument alone"
    if not evidence_scores(basis):
        verified = basis["verified"]
        contested = min(basis.get("exhibits_contested", 0), verified)  # a quote both filed may be unverified
        parts = [f"{contested} cited by both sides" if contested else "",
                 f"{verified - contested} refuted" if verified > contested else ""]
        return (f"{verified} verified exhibit{'s' if verified != 1 else ''}, {' and '.join(p for p in parts if p)}: "
                "none stands for either side, so the evidence gives no figure")
    if "exhibits_against" in basis:
        contested = basis.get("exhibits_contested", 0)
        return (f"verified and unrefuted exhibits: {basis['exhibits_for']} for acting, {basis['exhibits_against']} "
                "against" + (f", {contested} cited by both sides" if contested else ""))
    return (f"jury {basis.get('jury_for', '?')} of {basis.get('jury_cast', '?')} for this decision; "
            f"{basis.get('exhibits_survived', '?')} of {basis.get('exhibits_filed', '?')} exhibits verified and unrefuted")


POLARITY = {"guilty": "yes", "not_guilty": "no", "dismissed": "undecided"}


def confidences(verdict: Verdict, jury: Jury | None, judge_spoke: bool | None = None,
                unanswered: list[int] | None = None) -> list[Confidence]:
    """The verdict's confidences, each named by what it measures; the judge's own estimate only
    when a judge wrote the ruling (by default: when the judge decided). With ``unanswered``
    (verified exhibits of the losing side that nothing answered) the vote share is labelled
    unexamined: a unanimous vote that never weighed a verified passage is no confidence in it."""
    out: list[Confidence] = []
    if jury is not None:
        share, basis = vote_share(verdict.decision, jury)
        if unanswered:
            named = ", ".join(map(str, unanswered))
            label, basis = "jury vote share, unexamined", f"{basis}; exhibit {named} against it was never answered"
        else:
            label = "jury vote share"
        out.append(Confidence(kind="vote_share", label=label, value=share, basis=basis))
    if evidence_scores(verdict.evidence_basis):  # otherwise the outcome's data says why there is no figure
        out.append(Confidence(kind="evidence", label="verified evidence for it", value=verdict.evidence_confidence,
                              basis=evidence_basis_text(verdict.evidence_basis)))
    if judge_spoke if judge_spoke is not None else verdict.decided_by == "judge":
        out.append(Confidence(kind="self_reported", label="judge's own estimate", value=verdict.confidence))
    return out


def most_cited(jury: Jury, decision: str, numbers: list[int], quotes: dict[int, str] | None = None) -> int:
    """The exhibit the jurors who voted for ``decision`` cite most (all jurors' citations break
    ties and stand in when the majority cites none); the first admitted one when nobody cites any.

    A juror cites an exhibit by number ("exhibit 2"), or, given ``quotes`` (number: quoted text),
    by naming its fact: at least half the quote's key terms (and two or more) in its reasoning.
    Jurors who read the evidence without the exhibit list name facts, not numbers."""
    vote = {"guilty": "guilty", "not_guilty": "not_guilty"}.get(decision)

    def named(text: str) -> set[int]:
        return {int(n) for group in re.findall(r"(?i)exhibits?\s*#?\s*(\d+(?:\s*(?:,|and|&)\s*#?\d+)*)", text)
                for n in re.findall(r"\d+", group)}

    voted = [j for j in jury.jurors if j.status == "voted"]
    return cited_most({n: (quotes or {}).get(n, "") for n in numbers}, [j.reasoning for j in voted if j.vote == vote],
                      [j.reasoning for j in voted], named)
