"""Benchmark: the supreme court's example cases on the embedded model (issues 13 and 21).

Per trial: calls, tokens, wall time and wall / floor (the floor: generated tokens divided by
this machine's plain decoding speed, measured first as in ``bench.local_trial``), how many
justices changed their vote at the conference and whether toward or away from the round-1
majority, the bench's decision, the jury's verdict and whether it agrees, and the share of
the why trace's quotes verified. Over the runs of each case: majority stability between
rounds, the jury's agreement with the bench, and how often the outcome is the modal one.
Figures only: nothing here passes or fails.

    python -m bench.supreme                                  # 1.5B, 10 runs of each example case
    python -m bench.supreme --model qwen2.5-coder-0.5b --runs 10
    python -m bench.supreme --no-tally                       # the conference without the tally (issue 21)
    python -m bench.supreme --stop-when-stable --rounds 3    # early stop, tokens saved
    python -m bench.supreme --peer-order shared              # one digest every justice reads (prompt cache)
    python -m bench.supreme --justices 3 --jurors 3 --runs 1 # a short smoke run
    python -m bench.supreme --runs-dir RUNS --out rows.jsonl # keep each trial and its row as it ends

With ``--out``, the trials already in the file for the same model, case and settings count
toward ``--runs``: the same command run again (in a later session, after a stop) runs only
the trials still missing and sums up all of them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

from bench.local_trial import fresh_backend, generation_speed
from courtroom_chat.case import load_case
from courtroom_chat.config import Settings
from courtroom_chat.engine import Trial
from courtroom_chat.errors import CourtroomError
from courtroom_chat.procedures import get
from courtroom_chat.procedures.base import case_block
from courtroom_chat.procedures.deliberation import ORDER_P
from courtroom_chat.store import RunStore

ROOT = Path(__file__).resolve().parents[1]


def earlier_rows(out: Path | None, model: str, case: str, params: dict) -> list[dict]:
    """The rows of trials ``out`` already holds for this model, case and settings."""
    if out is None or not out.exists():
        return []
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if r.get("model") == model and r.get("case") == case and r.get("params") == params]


def order_line(order: dict | None) -> str:
    """The trial's order check (``deliberation.order_check``) in a few words."""
    if not order:
        return "order: one order for all"
    return (f"order: {order['followed']}/{order['voters']} {order['who']} chose the first-listed label, "
            f"p = {order['p']:.3f}{' (order-driven)' if order['p'] < ORDER_P else ''}")


def summary(name: str, rows: list[dict]) -> None:
    done = [r for r in rows if r["decision"]]
    if not done:
        print(f"{name}: no trial reached a verdict")
        return
    modal, count = Counter(r["decision"] for r in done).most_common(1)[0]
    walls = [r["wall"] for r in done]
    print(f"{name}: {len(done)}/{len(rows)} trials reached a verdict | outcome '{modal}' in {count}/{len(done)} "
          f"| majority held between rounds in {sum(r['held'] for r in done)}/{len(done)} "
          f"| jury agreed with the bench in {sum(r['agrees'] for r in done)}/{len(done)} "
          f"(hung {sum(r['jury'] == 'hung' for r in done)}) "
          f"| justices changed per trial: mean {statistics.mean(r['changed'] for r in done):.2f} "
          f"({sum(r['toward'] for r in done)} toward the majority, {sum(r['away'] for r in done)} away) "
          f"| wall median {statistics.median(walls):.0f} s, wall/floor median "
          f"{statistics.median(r['wall'] / r['floor'] for r in done):.2f} | calls median "
          f"{statistics.median(r['calls'] for r in done):.0f} | tokens saved by stopping early "
          f"{sum(r['saved'] for r in done):,}")
    checked = [r for r in done if r.get("order")]
    if checked:
        print(f"{name}: order-driven benches (p < {ORDER_P}) in {sum(r['order']['p'] < ORDER_P for r in checked)}"
              f"/{len(checked)} trials")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--cases", nargs="+", default=["burglary", "negligence"])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--justices", type=int, default=None)
    parser.add_argument("--jurors", type=int, default=None)
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--no-tally", action="store_true", help="the conference sees positions without the tally")
    parser.add_argument("--stop-when-stable", action="store_true")
    parser.add_argument("--peer-order", choices=["own", "shared"], default=None,
                        help="the conference's opinions in each justice's own order, or one order all read")
    parser.add_argument("--runs-dir", type=Path, default=None, help="store each trial here (courtroom show opens it)")
    parser.add_argument("--out", type=Path, default=None, help="append each trial's row to this JSONL file as it ends")
    args = parser.parse_args()
    store = RunStore(args.runs_dir) if args.runs_dir else None

    params = {k: v for k, v in {"justices": args.justices, "jurors": args.jurors, "rounds": args.rounds}.items() if v}
    if args.no_tally:
        params["show_tally"] = False
    if args.stop_when_stable:
        params["stop_when_stable"] = True
    if args.peer_order:
        params["peer_order"] = args.peer_order
    settings = Settings().with_backend(f"local:{args.model}").with_params("supreme", params)
    print(f"model {args.model}; [procedures.supreme] {settings.procedure_params('supreme').model_dump()}")
    for name in args.cases:
        kept = earlier_rows(args.out, args.model, name, params)
        if len(kept) >= args.runs:
            print(f"{name}: {len(kept)} trials already in {args.out}; nothing to run")
            summary(name, kept)
            continue
        if kept:
            print(f"{name}: {len(kept)} trials already in {args.out}; running {args.runs - len(kept)} more")
        case = get("supreme").prepare(load_case(ROOT / "cases" / f"{name}.json", limits=settings.limits))
        backend = fresh_backend(args.model, settings)
        await asyncio.get_running_loop().run_in_executor(None, lambda b=backend: b.runtime().server())
        gen_tps = await generation_speed(backend, case_block(case))
        print(f"{name}: plain generation at this case's context {gen_tps:.1f} tok/s")
        rows = kept
        for i in range(len(kept) + 1, args.runs + 1):
            backend = fresh_backend(args.model, settings)
            await asyncio.get_running_loop().run_in_executor(None, lambda b=backend: b.runtime().server())
            started = time.perf_counter()
            try:
                record = await Trial(case, settings, store=store, backends={"local": backend}).run()
            except CourtroomError as exc:
                record = exc.record  # type: ignore[attr-defined]
                print(f"  trial {i}: FAILED: {exc}")
            wall = time.perf_counter() - started
            usage = record.usage()
            doc = record.outputs.get("verdict") or {}
            flow = doc.get("conformity", {})
            facts = (doc.get("why") or {}).get("facts", [])
            row = {"wall": wall, "calls": len(record.calls), "floor": usage.output_tokens / gen_tps,
                   "decision": doc.get("decision"), "jury": (doc.get("jury") or {}).get("verdict"),
                   "agrees": bool((doc.get("jury") or {}).get("agrees")), "held": bool(flow.get("majority_held")),
                   "changed": flow.get("changed", 0), "toward": flow.get("toward", 0), "away": flow.get("away", 0),
                   "saved": flow.get("tokens_saved", 0),
                   "order": (record.outcome.data.get("order") if record.outcome else None)}
            rows.append(row)
            if args.out:
                with args.out.open("a", encoding="utf-8") as out:
                    out.write(json.dumps({"case": name, "model": args.model, "trial": i, "run": record.run_id,
                                          "params": params, **row}) + "\n")
            print(f"  trial {i}: {row['decision'] or record.status} {(doc.get('bench') or {}).get('split', '')} | jury "
                  f"{row['jury']} ({'agrees' if row['agrees'] else 'differs'}) | changed {row['changed']} "
                  f"({row['toward']} toward, {row['away']} away) | {order_line(row['order'])} | facts verified "
                  f"{sum(f['verified'] for f in facts)}/{len(facts)} | calls {row['calls']} "
                  f"(repairs {sum(c.attempt == 2 for c in record.calls)}) | prompt {usage.prompt_tokens:,} tok "
                  f"({usage.cache_read_tokens:,} cached), generated {usage.output_tokens:,} | wall {wall:.0f} s, "
                  f"floor {row['floor']:.0f} s, wall/floor {wall / row['floor']:.2f}")
        summary(name, rows)


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:  # a stop (Ctrl-C, timeout -s INT): the trial under way is lost, the rows written stay
        print("stopped: the trial under way is not kept; the same command resumes after the trials in --out")
        sys.exit(130)
