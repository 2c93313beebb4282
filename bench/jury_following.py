"""Does the jury follow the evidence? The jury stage alone, on the twenty clear-cut decisions
of bench/evidence_following, with everything else held still.

    python -m bench.jury_following --model qwen2.5-coder-1.5b [--param jury_asks=question] [--cases F.jsonl] [--limit N]

The prosecutor, the defense and the judge run on the scripted backend (their demo replies:
verified quotes from the evidence, the same for every variant), and only the jurors run on the
embedded model, so a change to the jurors' prompt or vote is measured on its own, in about a
quarter of a whole trial's time. ``--param KEY=VALUE`` sets a [procedures.decision] parameter
(repeatable), so two jury designs are compared on the same cases and seeds.

Prints, per case, each juror's vote and whether it follows the evidence, and in all: jurors who
follow the evidence, each way; juries whose majority does; and how often a juror voted for the
option listed first in its prompt (a position bias would show there, with labels shuffled).
It runs through the evaluation harness, so it is resumable and every trial is a stored run.
Figures only: nothing passes or fails.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

from bench.params import add_param_option, params_of, tag_of
from courtroom_chat.config import Settings
from courtroom_chat.evaluation import evaluate
from courtroom_chat.store import RunStore

HERE = Path(__file__).resolve().parent

CASES = HERE / "evidence_following" / "cases.jsonl"
SIDE = {"guilty": "yes", "not_guilty": "no", "abstain": "abstain"}
LABEL = {"guilty": "act", "not_guilty": "do not act", "abstain": "abstain"}


def jury_rows(store: RunStore, rows: list[dict]) -> list[dict]:
    """Each court trial's jurors: vote, the side it stands for, and the label listed first."""
    out = []
    for row in rows:
        record = store.find(row["run_id"]) if row.get("run_id") else None
        if record is None:  # no run, or one kept on another machine
            continue
        orders = record.outputs.get("orders") or {}
        jurors = (record.outputs.get("jury") or {}).get("jurors", [])
        for juror in jurors:
            labels = (orders.get(f"juror-{juror['number']}") or {}).get("labels") or []
            out.append({"item": row["item"], "gold": row["gold"], "juror": juror["number"],
                        "temperature": juror.get("temperature"), "status": juror.get("status"),
                        "side": SIDE.get(juror.get("vote") or "", "failed"),
                        "first": bool(labels) and LABEL.get(juror.get("vote") or "") == labels[0],
                        "options": len(labels)})
    return out


def by_temperature(jurors: list[dict]) -> str:
    """Juror votes that follow the evidence, per juror temperature ("0.2: 19/20, 0.35: 18/20")."""
    by_t: dict[float, list[int]] = {}
    for j in jurors:
        tally = by_t.setdefault(j["temperature"] or 0.0, [0, 0])
        tally[0] += j["side"] == j["gold"]
        tally[1] += 1
    return ", ".join(f"{t:g}: {a}/{n}" for t, (a, n) in sorted(by_t.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b", help="local model id, or a backend spec with ':'")
    add_param_option(parser)
    parser.add_argument("--cases", default=str(CASES), help="a .jsonl of clear cases (default: the twenty)")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs-dir", default=None, help="default: bench/results/jury-following-runs/<params>")
    args = parser.parse_args()
    params, local = params_of(parser, args.param), params_of(parser, args.local)
    juror = args.model if ":" in args.model or args.model == "scripted" else f"local:{args.model}"
    tag = tag_of({**params, **local})
    runs_dir = args.runs_dir or str(HERE / "results" / "jury-following-runs" / tag)
    settings = Settings().with_overrides({
        "runs": {"dir": runs_dir},
        "models": {"default": "scripted", "juror": juror},
        "procedures": {"decision": params},
        "local": local,
    })
    started = time.perf_counter()
    ev = evaluate(args.cases, baselines=[], limit=args.limit, seed=args.seed, settings=settings, progress=True)
    rows = [json.loads(line) for line in (ev.folder / "results.jsonl").read_text().splitlines() if line.strip()]
    rows = [r for r in rows if r["method"] == "court" and r.get("framing") != "mirror"]
    jurors = jury_rows(RunStore(runs_dir), rows)

    print(f"\n## Jury following: jurors on {juror}, {tag}, {time.strftime('%Y-%m-%d')}\n")
    print("| case | gold | votes (juror 1..n) | jury |")
    print("|---|---|---|---|")
    for row in rows:
        mine = [j for j in jurors if j["item"] == row["item"]]
        votes = " ".join(j["side"] for j in sorted(mine, key=lambda j: j["juror"]))
        print(f"| {row['item']} | {row['gold']} | {votes} | {row['predicted']} |")
    print("\n| measure | Yes cases | No cases |")
    print("|---|---|---|")
    line = []
    for gold_side in ("yes", "no"):
        mine = [j for j in jurors if j["gold"] == gold_side]
        line.append(f"{sum(j['side'] == gold_side for j in mine)}/{len(mine)}")
    print(f"| jurors whose vote follows the evidence | {line[0]} | {line[1]} |")
    line = []
    for gold_side in ("yes", "no"):
        mine = [r for r in rows if r["gold"] == gold_side]
        line.append(f"{sum(r['predicted'] == gold_side for r in mine)}/{len(mine)}")
    print(f"| juries (the trial's answer) that follow it | {line[0]} | {line[1]} |")
    sides = Counter(j["side"] for j in jurors)
    voted = [j for j in jurors if j["status"] == "voted"]
    options = max((j["options"] for j in voted), default=0)
    print(f"\nVotes: {dict(sides)}. Voted for the option listed first: {sum(j['first'] for j in voted)}/{len(voted)} "
          f"(with {options} options shuffled, 1/{options} is no position bias).")
    print(f"Per temperature, votes that follow the evidence: {by_temperature(jurors)}")
    print(f"\nWall time {time.perf_counter() - started:.0f} s. Runs: {runs_dir}; report: {ev.folder / 'report.md'}")


if __name__ == "__main__":
    main()
