"""Two evaluations of the same items, unit by unit: how many replies came out word for word the
same, and how many answers and confidences. For telling a change from the model's own
run-to-run variation (run the same command twice into two runs folders). A baseline's reply is
its row's reasoning; a court's are every call of its run record (found beside the evaluation,
in RUNS/), compared by agent and attempt.

    python -m bench.same_replies RUNS_A/evals/<id>/results.jsonl RUNS_B/evals/<id>/results.jsonl
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bench.stored import read_text
from courtroom_chat.store import RunStore


def replies(store: RunStore, row: dict) -> dict[tuple[str, int], str]:
    """The row's replies: its run record's calls by (agent, attempt), else its own reasoning."""
    record = store.find(row["run_id"]) if row.get("run_id") else None
    if record is not None:
        return {(c.agent, c.attempt): c.response for c in record.calls}
    return {("reply", 1): (row.get("details") or {}).get("reasoning") or ""}


def rows(path: Path) -> dict[tuple[str, str, str], tuple[dict, object, dict]]:
    """(item, method, framing) -> (its replies, the answer, the confidences); the run records are
    read from the runs folder that holds the evaluation (RUNS/evals/<id>/results.jsonl)."""
    store, out = RunStore(path.parents[2]), {}
    for line in read_text(path).splitlines():
        if line.strip():
            r = json.loads(line)
            out[(r["item"], r["method"], r.get("framing", "asked"))] = (replies(store, r), r.get("predicted"),
                                                                          r.get("confidences") or {})
    return out


def main() -> None:
    a, b = rows(Path(sys.argv[1])), rows(Path(sys.argv[2]))
    keys = sorted(set(a) & set(b))
    calls = [(a[k][0][c], b[k][0][c]) for k in keys for c in sorted(set(a[k][0]) & set(b[k][0]))]
    print(f"{len(keys)} units in both: {sum(a[k][0] == b[k][0] for k in keys)} with every reply word for word the "
          f"same ({sum(x == y for x, y in calls)} of {len(calls)} replies), {sum(a[k][1] == b[k][1] for k in keys)} "
          f"answers the same, {sum(a[k][2] == b[k][2] for k in keys)} confidences the same")


if __name__ == "__main__":
    main()
