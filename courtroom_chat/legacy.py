"""Reading run records of the first release, before records and events were procedure-neutral.

That release knew only the decision court: its records kept ``prosecution``, ``defense``,
``jury`` and ``verdict`` at the top level, and its events were ``exhibit_checked``,
``tally_updated`` with guilty/not-guilty counts, and ``verdict_reached``. They are upgraded
on reading, so every stored run still lists, opens, replays and exports.
"""

from __future__ import annotations

from typing import Any

from .procedures.decision import VOTE_LABELS, present
from .procedures.decision.answer import POLARITY, confidences
from .procedures.decision.records import Defense, Jury, Verdict


def upgrade_record(data: dict[str, Any]) -> dict[str, Any]:
    data = dict(data)
    outputs = dict(data.get("outputs") or {})
    prosecution, defense, jury, verdict = (data.pop(k, None) for k in ("prosecution", "defense", "jury", "verdict"))
    if prosecution is not None:
        outputs["prosecutor"] = prosecution
    if defense is not None:
        outputs["defense"] = defense
    if jury is not None:
        outputs["jury"] = jury
        for juror in jury.get("jurors", []):
            if juror.get("status") == "voted":
                outputs[f"juror-{juror['number']}"] = juror
    if verdict is not None:
        outputs["verdict"] = verdict
        if verdict.get("decided_by", "judge") == "judge":
            outputs["judge"] = verdict
        if data.get("outcome") is None:
            data["outcome"] = outcome_of(verdict, jury, prosecution, defense,
                                         [w.get("message", "") for w in data.get("warnings", [])])
    data["outputs"] = outputs
    data["events"] = upgrade_events(data.get("events") or [])
    return data


def outcome_of(verdict: dict[str, Any], jury: dict[str, Any] | None, prosecution: dict[str, Any] | None,
               defense: dict[str, Any] | None, warnings: list[str]) -> dict[str, Any]:
    v = Verdict.model_validate(verdict)
    j = Jury.model_validate(jury) if jury else None
    exhibits = (prosecution or {}).get("exhibits", [])
    effects = present.challenge_effects(exhibits, Defense.model_validate(defense).model_dump(mode="json")) if defense else ""
    split = j.split() if j else ""
    return {
        "answer": v.answer, "label": v.decision, "polarity": POLARITY[v.decision],
        "decided_by": present.decided_by(v.decided_by == "jury", judge_spoke=False),
        "confidences": [c.model_dump() for c in confidences(v, j)],
        "partial": bool(j and j.voted < j.seated), "warnings": warnings,
        "markdown": present.verdict_body(verdict, split, j.voted if j else 0, j.seated if j else 0, effects),
        "data": {"split": split, "decision": v.decision,
                 "votes": {"act": j.guilty_count, "do not act": j.not_guilty_count, "abstain": j.abstain_count} if j else {}},
    }


def upgrade_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    exhibits: list[dict[str, Any]] = []
    prosecution: dict[str, Any] | None = None
    defense: dict[str, Any] | None = None
    jury: dict[str, Any] | None = None
    for e in events:
        kind = e.get("type")
        if kind == "exhibit_checked":
            ex = e["exhibit"]
            exhibits.append(ex)
            e = {"type": "item_checked", "t": e.get("t", 0.0), "stage": "prosecution", "agent": "prosecutor",
                 "kind": "exhibit", "number": ex["number"], "title": present.exhibit_title(ex), "ok": ex.get("verified", False),
                 "detail": present.exhibit_markdown(ex), "line": present.exhibit_line(ex), "data": ex}
        elif kind == "tally_updated" and "counts" not in e:
            e = {"type": "tally_updated", "t": e.get("t", 0.0), "stage": "jury", "title": "Tally", "labels": VOTE_LABELS,
                 "counts": {"act": e["guilty"], "do not act": e["not_guilty"], "abstain": e["abstain"]},
                 "pending": e["pending"], "failed": e["failed"], "seated": e["seated"]}
        elif kind == "agent_finished" and "markdown" not in e:
            e = {**e, **_agent_view(e["agent"], e["output"], exhibits)}
            if e["agent"] == "prosecutor":
                prosecution = e["output"]
            elif e["agent"] == "defense":
                defense = e["output"]
        elif kind == "stage_finished" and e.get("stage") == "jury" and "state" not in e:
            jury = e.get("summary") or None
            e = {**e, "state": (jury or {}).get("split", "")}
        elif kind == "verdict_reached":
            e = {"type": "outcome_reached", "t": e.get("t", 0.0),
                 "outcome": outcome_of(e["verdict"], jury, prosecution, defense, e.get("warnings", []))}
        out.append(e)
    return out


def _agent_view(agent: str, output: dict[str, Any], exhibits: list[dict[str, Any]]) -> dict[str, str]:
    if agent == "prosecutor":
        return {"title": "Prosecutor", "markdown": present.prosecution_markdown(output), "line": ""}
    if agent == "defense":
        return {"title": "Defense", "markdown": present.defense_markdown(output, exhibits), "line": ""}
    if agent.startswith("juror-"):
        return {"title": present.juror_title(output), "markdown": present.juror_markdown(output), "line": ""}
    if agent == "judge":
        return {"title": "Judge", "markdown": f"**Ruling:** {output.get('answer', '')}\n\n{output.get('reasoning', '')}",
                "line": ""}
    return {"title": agent, "markdown": "", "line": ""}
