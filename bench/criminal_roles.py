"""Role evaluation of finished criminal trials (issue 14): a model acting as evaluator scores
the judge, the prosecution and the advocate on SimCourt's aspects (1-10), with the two checks
that say how far such scores can be trusted (``courtroom_chat/procedures/criminal/assess.py``):
the same record scored again (repeatability) and the record with the role's turns swapped for
another role's (discrimination: a reading evaluator scores the real record higher).

    python -m bench.criminal_roles RUNS [RUNS ...] [--results EVAL/results.jsonl] [--backend local:qwen2.5-coder-1.5b]
                                   [--temperature 0.7] [--limit N] [--no-repeat] [--no-swap] [--out FILE.json]

RUNS is a runs folder; every finished criminal run in it is scored (or, with --results, the
court runs of that evaluation, looked up in each folder given: an evaluation resumed over
sessions keeps its trials in more than one). Figures only: nothing passes or fails.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

from bench.stored import kept, read_rows
from courtroom_chat.backends import BackendPool
from courtroom_chat.config import ModelSpec, load_settings
from courtroom_chat.errors import CourtroomError
from courtroom_chat.procedures.criminal.assess import assess, markdown, summary
from courtroom_chat.store import RunStore


def run_ids(stores: list[RunStore], results: Path | None, limit: int | None) -> list[tuple[RunStore, str]]:
    """(store, run id) of each trial to score, in the evaluation's order when ``results`` is given."""
    if results is not None:
        rows = read_rows(results)
        wanted = [r["run_id"] for r in rows if r["method"] == "court" and r.get("run_id") and r["framing"] == "asked"]
        held = {r["run_id"]: store for store in stores for r in store.list(limit=100000)}
        missing = [i for i in wanted if i not in held]
        if missing:
            print(f"{len(missing)} of the evaluation's trials are in none of the runs folders given: "
                  + ", ".join(missing[:5]), file=sys.stderr)
        ids = [(held[i], i) for i in wanted if i in held]
    else:
        ids = [(store, r["run_id"]) for store in stores for r in store.list(limit=100000)
               if r.get("procedure") == "criminal" and r.get("status") == "complete"]
    return ids[:limit] if limit else ids


async def main_async(args: argparse.Namespace) -> None:
    ids = run_ids([RunStore(r) for r in args.runs], args.results, args.limit)
    if not ids:
        where = ", ".join(str(r) for r in args.runs)
        sys.exit(f"no finished criminal runs in {where}; run some first (courtroom eval simcourt_ljp --procedure criminal)")
    spec = ModelSpec.parse(args.backend)
    pool = BackendPool(load_settings(env=False))
    backend = pool.get(spec)
    real, again, swapped = [], [], []
    try:
        for n, (store, run_id) in enumerate(ids, 1):
            record = store.load(run_id)
            try:
                real.append(await assess(record, backend, temperature=args.temperature, seed=0))
                if args.repeat:
                    again.append(await assess(record, backend, temperature=args.temperature, seed=1))
                if args.swap:
                    swapped.append(await assess(record, backend, temperature=args.temperature, seed=0, swap=True))
            except CourtroomError as exc:
                print(f"{run_id}: {exc}", file=sys.stderr)
                continue
            print(f"[{n}/{len(ids)}] {run_id}: " + ", ".join(f"{r} {s.mean:.1f}" for r, s in real[-1].roles.items()),
                  file=sys.stderr)
    except asyncio.CancelledError:  # stopped (Ctrl-C, timeout -s INT): report the trials scored in full
        full = len(swapped) if args.swap else len(again) if args.repeat else len(real)
        real, again, swapped = real[:full], again[:full], swapped[:full]
        print(f"stopped: the summary covers the {full} trials scored in full before it", file=sys.stderr)
    finally:
        await pool.aclose()
    result = summary(real, again, swapped)
    result["model"] = str(spec)
    result["temperature"] = args.temperature
    result["calls"] = sum(a.calls for a in [*real, *again, *swapped])
    result["seconds"] = round(sum(a.seconds for a in [*real, *again, *swapped]), 1)
    print(markdown(result, str(spec)))
    print(f"\n{result['calls']} evaluator calls, {result['seconds']} s.")
    if args.out:
        args.out.write_text(json.dumps(result, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", type=Path, nargs="+", help="runs folders holding criminal trials")
    parser.add_argument("--results", type=Path, help="score only the court runs of this evaluation's results.jsonl")
    parser.add_argument("--backend", default="local:qwen2.5-coder-1.5b", help="the evaluator's model")
    parser.add_argument("--temperature", type=float, default=0.7, help="of every evaluator call (repeatability needs > 0)")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--no-repeat", dest="repeat", action="store_false", help="skip the second scoring")
    parser.add_argument("--no-swap", dest="swap", action="store_false", help="skip the swapped-record control")
    parser.add_argument("--out", type=Path, help="write the summary as JSON here")
    args = parser.parse_args()
    for folder in args.runs:
        if not folder.is_dir():
            parser.error(f"no runs folder at {folder}")
    if args.results is not None and not kept(args.results).is_file():
        parser.error(f"no results file at {args.results}")
    try:
        asyncio.run(main_async(args))
    except KeyboardInterrupt:
        pass  # main_async has printed what it scored


if __name__ == "__main__":
    main()
