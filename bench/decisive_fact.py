"""Mixed evidence: does the court find the one fact that decides?

Each case's evidence leans one way in tone (approvals, green CI, glowing interviews; or a long
alarming thread) while one plainly stated sentence decides it the other way (a licence policy
broken, a legal bar, a failed mandatory gate, or the concern shown resolved). The cases were all
written before any of them was run (bench/decisive_fact/README.md):

    python -m bench.decisive_fact --model qwen2.5-coder-1.5b [--cases heldout] [--limit N]
                                  [--no-baselines] [--param KEY=VALUE ...] [--runs-dir DIR]

``--cases first`` (the default) is the working set of 40; ``--cases heldout`` the 20 kept back,
run once after the design is frozen. Runs through the evaluation harness (``courtroom eval`` on
the cases file), so it is resumable and every verdict is a stored run; the harness's report.md
has the calibration of every named confidence (Brier, reliability) and McNemar against each
baseline. This script prints, besides:

- accuracy each way with Wilson intervals, per method;
- the deciding-sentence hit rate per side: of the cases where the deciding sentence favours a
  side (the prosecution's when the gold answer is Yes, the defense's when No), how often that
  side filed a verified exhibit quoting it; and how often the other side did;
- how often the verdict flagged a verified passage nobody answered, split by right and wrong;
- seconds and calls per case, against one call's.

Figures only: nothing passes or fails, and timings are the machine's of the day.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from bench.params import add_param_option, params_of, tag_of
from courtroom_chat.config import Settings
from courtroom_chat.evaluation import evaluate
from courtroom_chat.evaluation.stats import mcnemar_exact, wilson
from courtroom_chat.evidence import normalise_text
from courtroom_chat.store import RunStore

HERE = Path(__file__).resolve().parent / "decisive_fact"
SETS = {"first": HERE / "cases.jsonl", "heldout": HERE / "heldout.jsonl"}


def meta() -> dict[str, dict]:
    return {**json.loads((HERE / "meta.json").read_text()), **json.loads((HERE / "heldout.meta.json").read_text())}


def quotes_it(quote: str, deciding: str) -> bool:
    """An exhibit quotes the deciding sentence: it holds the whole sentence, or is a part of it
    that keeps most of it (a quote cut at a clause still carries the fact)."""
    q, d = normalise_text(quote).lower().strip(" ."), normalise_text(deciding).lower().strip(" .")
    return bool(q) and (d in q or (q in d and len(q) >= 0.6 * len(d)))


def hits(store: RunStore, rows: list[dict], facts: dict[str, dict]) -> dict[str, list[int]]:
    """Per court trial, whether each side's verified exhibits quote the deciding sentence: counts of
    [trials, favoured side quoted it, other side quoted it, either quoted it]."""
    out = {"yes": [0, 0, 0, 0], "no": [0, 0, 0, 0]}
    for row in rows:
        record = store.find(row["run_id"]) if row.get("run_id") else None
        if record is None:
            continue
        deciding = facts[row["item"]]["deciding"]
        sides = {key: any(e.get("verified") and quotes_it(e["source_quote"], deciding)
                          for e in (record.outputs.get(key) or {}).get("exhibits", []))
                 for key in ("prosecutor", "defense")}
        favoured, other = ("prosecutor", "defense") if row["gold"] == "yes" else ("defense", "prosecutor")
        tally = out[row["gold"]]
        tally[0] += 1
        tally[1] += sides[favoured]
        tally[2] += sides[other]
        tally[3] += sides[favoured] or sides[other]
    return out


def flagged(store: RunStore, rows: list[dict]) -> dict[str, list[int]]:
    """Verdicts that named an unanswered verified passage: [trials, flagged] among right and wrong."""
    out = {"right": [0, 0], "wrong": [0, 0]}
    for row in rows:
        record = store.find(row["run_id"]) if row.get("run_id") else None
        if record is None or record.outcome is None:
            continue
        tally = out["right" if row["predicted"] == row["gold"] else "wrong"]
        tally[0] += 1
        tally[1] += bool(record.outcome.data.get("unanswered"))
    return out


def pct(k: int, n: int) -> str:
    low, high = wilson(k, n) if n else (0.0, 0.0)
    return f"{k}/{n} ({k / max(1, n):.0%}; {low:.0%}–{high:.0%})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b", help="local model id, or a backend spec with ':'")
    parser.add_argument("--cases", default="first", choices=sorted(SETS))
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--baselines", nargs="+", default=["single", "majority"], choices=["single", "majority"])
    parser.add_argument("--no-baselines", action="store_true", help="the court alone")
    parser.add_argument("--only-baselines", action="store_true", help="the baselines alone, no court")
    parser.add_argument("--runs-dir", default=str(HERE.parent / "results" / "decisive-fact-runs"))
    parser.add_argument("--seed", type=int, default=0)
    add_param_option(parser)
    args = parser.parse_args()
    params, local = params_of(parser, args.param), params_of(parser, args.local)
    backend = args.model if ":" in args.model or args.model == "scripted" else f"local:{args.model}"
    settings = Settings().with_overrides({"runs": {"dir": args.runs_dir}, "procedures": {"decision": params},
                                        "local": local})
    started = time.perf_counter()
    ev = evaluate(str(SETS[args.cases]), baselines=[] if args.no_baselines else args.baselines, limit=args.limit,
                  seed=args.seed, backend=backend, settings=settings, progress=True,
                  procedure=None if args.only_baselines else "decision")
    rows = [json.loads(line) for line in (ev.folder / "results.jsonl").read_text().splitlines() if line.strip()]
    rows = [r for r in rows if r.get("framing") != "mirror"]
    methods = sorted({r["method"] for r in rows}, key=lambda m: (m != "court", m))
    print(f"\n## Mixed evidence ({args.cases} set): {backend}, {tag_of({**params, **local})}, "
          f"{time.strftime('%Y-%m-%d')}\n")
    print("| method | Yes cases answered Yes | No cases answered No | seconds / case | calls / case |")
    print("|---|---|---|---|---|")
    by_method = {m: {r["item"]: r for r in rows if r["method"] == m} for m in methods}
    for m in methods:
        mine = list(by_method[m].values())
        yes = [r for r in mine if r["gold"] == "yes"]
        no = [r for r in mine if r["gold"] == "no"]
        seconds = sum(r.get("seconds") or 0 for r in mine) / max(1, len(mine))
        calls = sum(r.get("calls") or 0 for r in mine) / max(1, len(mine))
        print(f"| {m} | {pct(sum(r['predicted'] == 'yes' for r in yes), len(yes))} | "
              f"{pct(sum(r['predicted'] == 'no' for r in no), len(no))} | {seconds:.1f} | {calls:.1f} |")
    court = by_method.get("court", {})
    for m in methods:
        if m == "court" or not court:
            continue
        both = [i for i in court if i in by_method[m]]
        fixed = sum(court[i]["predicted"] == court[i]["gold"] != by_method[m][i]["predicted"] for i in both)
        broke = sum(by_method[m][i]["predicted"] == court[i]["gold"] != court[i]["predicted"] for i in both)
        print(f"\nCourt against {m} on {len(both)} cases: fixed {fixed}, broke {broke}, "
              f"McNemar exact p = {mcnemar_exact(fixed, broke):.3g}")
    if court:
        store, facts = RunStore(args.runs_dir), meta()
        found = hits(store, list(court.values()), facts)
        print("\n| gold | trials | the side it favours quoted the deciding sentence | the other side did | either |")
        print("|---|---|---|---|---|")
        for gold, (n, fav, other, either) in found.items():
            print(f"| {gold} | {n} | {fav}/{n} | {other}/{n} | {either}/{n} |")
        marks = flagged(store, list(court.values()))
        print(f"\nVerdicts flagging an unanswered verified passage: right {marks['right'][1]}/{marks['right'][0]}, "
              f"wrong {marks['wrong'][1]}/{marks['wrong'][0]}")
    print(f"\nWall time {time.perf_counter() - started:.0f} s. Full report: {ev.folder / 'report.md'}")


if __name__ == "__main__":
    main()
