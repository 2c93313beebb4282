"""Does the court follow the evidence? Twenty clear-cut decisions, ten whose evidence plainly
says Yes and ten plainly No, through the court and the single-call and majority baselines.

    python -m bench.evidence_following --model qwen2.5-coder-1.5b [--limit N] [--baselines single majority]
                                       [--no-baselines] [--cases FILE] [--param KEY=VALUE ...]

``--cases bench/evidence_following/shapes.jsonl`` runs ten more, written after the court's prompts
were last changed and asked in other shapes than "Should we X?": "Is X ready …?", "Is it safe
to X?", "Should we postpone X?" (Yes is not acting), "Did X meet …?", "Does X meet …?", "Isn't X
ready …?", a question after a sentence of context, "Has X passed …?", "Would doing X be …?".
``--cases bench/evidence_following/inverted.jsonl`` runs six more whose Yes means not going
ahead ("Should we cancel / pause / revert / stop X?", "Should the committee reject X?"), the
shape the 1.5B lost on the held-out ten (three Yes, three No; written 2026-11-28).
``--cases bench/evidence_following/choices.jsonl`` runs six choices between two options ("Should
we use MongoDB or PostgreSQL?", "Vendor Kestrel or vendor Alder?"), tried as "… rather than …":
"yes" is the first option, three cases each way (written 2026-11-28).
``--cases bench/evidence_following/choices-heldout.jsonl`` runs six more choices, written after the
balanced jurors were measured and before any of them was run (three each way; "Which laptop …,
the Z13 or the X14?", "BuildFleet or QuickPipe?", "Ship the changes as v2 or change v1 in place?").

Both baselines run unless ``--no-baselines`` is given. (Until 2026-11-25, a bare ``--baselines``
with no names meant no baselines: the results folders whose command reads so ran the court alone.)

Prints, per method, the share that follow the evidence each way (Yes cases answered Yes,
No cases answered No), and for the court whether the exhibits filed include a fact that
decides the case (bench/evidence_following/facts.json). It runs through the evaluation
harness (``courtroom eval`` on bench/evidence_following/cases.jsonl), so it is resumable and
every verdict is a stored run. Figures only: nothing passes or fails on a timing.
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
from courtroom_chat.evaluation.methods import AnswerReply
from courtroom_chat.evidence import normalise_text
from courtroom_chat.procedures.base import parse_reply
from courtroom_chat.store import RunStore

HERE = Path(__file__).resolve().parent

CASES = HERE / "evidence_following" / "cases.jsonl"
FACTS = json.loads((HERE / "evidence_following" / "facts.json").read_text())


def follows(rows: list[dict], gold: str) -> tuple[int, int]:
    mine = [r for r in rows if r["gold"] == gold]
    return sum(r["predicted"] == gold for r in mine), len(mine)


def decisive_exhibits(store: RunStore, rows: list[dict]) -> tuple[int, int]:
    """Court runs whose verified exhibits (either side) quote a fact that decides the case.
    Rows whose run is not in this runs folder (results carried over from another machine to
    resume a run) are not counted."""
    hit = total = 0
    for row in rows:
        if not row.get("run_id"):
            continue
        record = store.find(row["run_id"])
        if record is None:
            continue
        quotes = [normalise_text(e["source_quote"]).lower() for key in ("prosecutor", "defense")
                  for e in (record.outputs.get(key) or {}).get("exhibits", []) if e.get("verified")]
        facts = [normalise_text(f).lower() for f in FACTS.get(row["item"], [])]
        total += 1
        hit += any(f in q for f in facts for q in quotes)
    return hit, total


def defense_challenges(store: RunStore, rows: list[dict]) -> dict:
    """How the defense answered the prosecution's verified exhibits, per court trial: trials whose
    every verified exhibit got exactly one challenge (the first release gave one exhibit two and
    another none), and the challenges' effects on Yes cases and on No cases (a defense that
    follows the evidence concedes more where the evidence says Yes). Rows whose run is not in
    this runs folder are not counted."""
    even = total = 0
    effects: dict[str, Counter] = {"yes": Counter(), "no": Counter()}
    for row in rows:
        record = store.find(row["run_id"]) if row.get("run_id") else None
        if record is None:
            continue
        admitted = [e["number"] for e in (record.outputs.get("prosecutor") or {}).get("exhibits", []) if e.get("verified")]
        challenges = (record.outputs.get("defense") or {}).get("exhibit_challenges", [])
        named = Counter(c["exhibit"] for c in challenges)
        total += 1
        even += all(named[n] == 1 for n in admitted) and sum(named.values()) == len(admitted)
        effects[row["gold"]].update(c.get("effect", "weakens") for c in challenges)
    return {"even": even, "trials": total, "effects": effects}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b", help="local model id, or a backend spec with ':'")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--baselines", nargs="+", default=["single", "majority"], choices=["single", "majority"])
    parser.add_argument("--no-baselines", action="store_true", help="the court alone")
    parser.add_argument("--runs-dir", default=str(HERE / "results" / "evidence-following-runs"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cases", default=str(CASES),
                        help="the cases file (default: the twenty); shapes.jsonl holds ten more, asked in other shapes")
    parser.add_argument("--reuse", default=None, metavar="EVAL_ID",
                        help="start each court trial from evaluation EVAL_ID's (stored in --runs-dir): every request "
                             "made in the same words gets that trial's reply, so a change to the judge alone costs "
                             "only the judge's calls")
    add_param_option(parser)
    args = parser.parse_args()
    params, local = params_of(parser, args.param), params_of(parser, args.local)
    backend = args.model if ":" in args.model or args.model == "scripted" else f"local:{args.model}"
    settings = Settings().with_overrides({"runs": {"dir": args.runs_dir}, "procedures": {"decision": params},
                                        "local": local})
    started = time.perf_counter()
    ev = evaluate(args.cases, baselines=[] if args.no_baselines else args.baselines, limit=args.limit, seed=args.seed, backend=backend,
                  settings=settings, progress=True, reuse=args.reuse)
    rows = [json.loads(line) for line in (ev.folder / "results.jsonl").read_text().splitlines() if line.strip()]
    methods = sorted({r["method"] for r in rows}, key=lambda m: (m != "court", m))
    print(f"\n## Evidence following: {backend}, {tag_of({**params, **local})}, {time.strftime('%Y-%m-%d')}\n")
    print("| method | Yes cases answered Yes | No cases answered No | seconds per item |")
    print("|---|---|---|---|")
    for m in methods:
        mine = [r for r in rows if r["method"] == m and not r.get("framing") == "mirror"]
        y, ny = follows(mine, "yes")
        n, nn = follows(mine, "no")
        seconds = sum(r.get("seconds") or 0 for r in mine) / max(1, len(mine))
        print(f"| {m} | {y}/{ny} ({y / max(1, ny):.0%}) | {n}/{nn} ({n / max(1, nn):.0%}) | {seconds:.1f} |")
    court = [r for r in rows if r["method"] == "court" and not r.get("framing") == "mirror"]
    if court:
        hit, total = decisive_exhibits(RunStore(args.runs_dir), court)
        missing = f" ({len(court) - total} runs not in {args.runs_dir}, not counted)" if total < len(court) else ""
        print(f"\nCourt trials whose verified exhibits quote a deciding fact: {hit}/{total}{missing}")
        d = defense_challenges(RunStore(args.runs_dir), court)
        print(f"Court trials whose defense challenged every verified exhibit exactly once: {d['even']}/{d['trials']}")
        for gold, name in (("yes", "Yes cases"), ("no", "No cases")):
            counts = d["effects"][gold]
            print(f"Defense challenges on {name}: " + ", ".join(f"{k} {counts[k]}" for k in ("refutes", "weakens", "concedes")))
    by_temperature = per_temperature([r for r in rows if r["method"] == "majority" and r.get("framing") != "mirror"])
    if by_temperature:
        print("\n## One call per temperature (the five calls of the majority baseline, each scored alone)\n")
        print("| temperature | Yes cases answered Yes | No cases answered No |")
        print("|---|---|---|")
        for t, counts in sorted(by_temperature.items()):
            (y, ny), (n, nn) = counts["yes"], counts["no"]
            print(f"| {t:g} | {y}/{ny} | {n}/{nn} |")
    print(f"\nWall time {time.perf_counter() - started:.0f} s. Full report: {ev.folder / 'report.md'}")


def per_temperature(rows: list[dict]) -> dict[float, dict[str, tuple[int, int]]]:
    """Each call of the majority baseline scored on its own, by its temperature: how a single
    juror follows the evidence as the temperature rises, with no extra model call."""
    out: dict[float, dict[str, list[int]]] = {}
    for row in rows:
        for call in (row.get("details") or {}).get("calls", []):
            if call.get("temperature") is None or call.get("error"):
                continue
            value, _ = parse_reply(call["text"], AnswerReply)
            if value is None:
                continue
            tally = out.setdefault(call["temperature"], {"yes": [0, 0], "no": [0, 0]})[row["gold"]]
            tally[0] += value.decision == row["gold"]
            tally[1] += 1
    return {t: {g: (c[0], c[1]) for g, c in v.items()} for t, v in out.items()}


if __name__ == "__main__":
    main()
