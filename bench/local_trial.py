"""Benchmark: full trials on the embedded local model (issue: embedded local model).

Prints, per trial: wall time, prompt tokens (read from cache vs processed), generated tokens,
tokens/s, and the ratio of the wall time to a floor: generated tokens divided by this
machine's measured generation speed (tok/s of plain decoding, measured first). Prints
peak RSS and, over all trials, the share of role outputs that were schema-valid after at
most one repair. Figures only: nothing here passes or fails.

    python -m bench.local_trial                      # 0.5B, one trial of cases/code-commit.json
    python -m bench.local_trial --model qwen2.5-coder-1.5b
    python -m bench.local_trial --trials 20          # reliability over 20 trials
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import time
from pathlib import Path

from courtroom_chat.backends.base import ModelRequest
from courtroom_chat.backends.local import LocalBackend, LocalRuntime
from courtroom_chat.case import load_case
from courtroom_chat.config import ModelSpec, Settings
from courtroom_chat.engine import Trial
from courtroom_chat.errors import CourtroomError
from courtroom_chat.procedures.base import case_block

ROOT = Path(__file__).resolve().parents[1]

TARGETS = {"qwen2.5-coder-0.5b": 45.0, "qwen2.5-coder-1.5b": 90.0}


async def generation_speed(backend: LocalBackend, prefix: str) -> float:
    """Plain decoding speed (tok/s) on this machine at the case's context length: 160 tokens
    after the case block, no grammar. The best of two runs."""
    request = ModelRequest(agent="calibrate", role="calibrate", system="You summarise evidence.", prefix=prefix,
                           prompt="Summarise this evidence in detail.", schema={}, schema_name="x",
                           temperature=0.7, max_tokens=160)
    body = backend.body(request)
    body.pop("response_format")
    runtime = backend.runtime()
    speeds = []
    for _ in range(2):
        timings: dict = {}

        def on_chunk(chunk: dict, timings=timings) -> bool:
            timings.update(chunk.get("timings", {}))
            return False

        await asyncio.get_running_loop().run_in_executor(runtime.pool, runtime.generate, body, on_chunk)
        speeds.append(float(timings.get("predicted_per_second", 0.0)))
    return max(speeds)


def fresh_backend(model: str, settings: Settings) -> LocalBackend:
    """A newly loaded runtime: every trial starts with nothing in the prompt cache."""
    LocalRuntime.close_all()
    return LocalBackend(ModelSpec(backend="local", model=model), settings)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="qwen2.5-coder-0.5b")
    parser.add_argument("--case", default=str(ROOT / "cases" / "code-commit.json"))
    parser.add_argument("--trials", type=int, default=1)
    parser.add_argument("--parallel", type=int, default=None, help="decoding slots ([local] parallel)")
    parser.add_argument("--show-problems", action="store_true", help="print what each repaired call got wrong")
    parser.add_argument("--per-call", action="store_true", help="print each call's tokens and seconds")
    args = parser.parse_args()

    settings = Settings().with_backend(f"local:{args.model}")
    if args.parallel:
        settings = settings.with_overrides({"local": {"parallel": args.parallel}})
    case = load_case(args.case, limits=settings.limits)
    backend = fresh_backend(args.model, settings)
    t0 = time.perf_counter()
    backend.runtime().server()
    load_s = time.perf_counter() - t0
    gen_tps = await generation_speed(backend, case_block(case))
    print(f"model {args.model}: assembled+loaded in {load_s:.1f} s; plain generation at this case's context "
          f"{gen_tps:.1f} tok/s; slots {settings.local.parallel}; each trial starts from a fresh runtime (cold cache)")

    walls, agents_total, agents_valid, repairs = [], 0, 0, 0
    first_tokens: dict[str, list[float]] = {}  # role -> seconds from the call's start to its first text
    first_after_free: dict[str, list[float]] = {}  # the same, from when the slot it waited for was free
    first_rss = 0.0
    judged_flags: list[bool] = []
    for i in range(1, args.trials + 1):
        backend = fresh_backend(args.model, settings)
        await asyncio.get_running_loop().run_in_executor(None, lambda b=backend: b.runtime().server())
        trial = Trial(case, settings, store=None, backends={"local": backend})
        started = time.perf_counter()
        try:
            record = await trial.run()
        except CourtroomError as exc:
            record = exc.record  # type: ignore[attr-defined]
            print(f"trial {i}: FAILED: {exc}")
        wall = time.perf_counter() - started
        walls.append(wall)
        judged_flags.append(any(c.role == "judge" for c in record.calls))
        calls = record.calls
        usage = record.usage()
        generated, processed, cached = usage.output_tokens, usage.input_tokens, usage.cache_read_tokens
        floor = generated / gen_tps if gen_tps else float("nan")
        agents = {c.agent for c in calls}
        valid = {c.agent for c in calls if c.ok}
        agents_total += len(agents)
        agents_valid += len(valid)
        repairs += sum(1 for c in calls if c.attempt == 2)
        if args.per_call:
            for c in calls:
                print(f"    {c.agent:<11} attempt {c.attempt} | {c.seconds:5.1f} s | prompt {c.usage.input_tokens:>5,} "
                      f"processed + {c.usage.cache_read_tokens:>5,} cached | generated {c.usage.output_tokens:>4,}")
        if args.show_problems:
            for c in calls:
                if c.problems:
                    print(f"    {c.agent} attempt {c.attempt}: {'; '.join(c.problems)[:300]}")
        for c in calls:
            if c.first_token_seconds is not None:
                first_tokens.setdefault(c.role, []).append(c.first_token_seconds)
                start, first = c.started_at.timestamp(), c.started_at.timestamp() + c.first_token_seconds
                # One slot: a queued call starts decoding when the call before it ends.
                ends = [o.started_at.timestamp() + o.seconds for o in calls if o is not c]
                free = max([start, *(e for e in ends if e <= first)])
                first_after_free.setdefault(c.role, []).append(first - free)
        print("    first token (s from the call's start, queueing included; * = prefix read from cache): "
              + ", ".join(f"{c.agent} {c.first_token_seconds:.2f}{'*' if c.usage.cache_read_tokens else ''}"
                          for c in calls if c.first_token_seconds is not None))
        jury = [c for c in calls if c.role == "juror"]
        if jury:
            start = min(c.started_at.timestamp() for c in jury)
            span = max(c.started_at.timestamp() + c.seconds for c in jury) - start
            jury_tokens = sum(c.usage.output_tokens for c in jury)
            book = backend.runtime().slots
            print(f"    jury stage: {span:.1f} s for {len(jury)} calls, {jury_tokens} tokens generated, "
                  f"{jury_tokens / span:.1f} tok/s aggregate ({jury_tokens / span / gen_tps:.2f}x plain decoding)"
                  + (f"; prefix copies between slots {book.copies} (failed {book.failed})" if book else ""))
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        first_rss = first_rss or rss_mb
        verdict = record.verdict.answer if record.verdict else f"no verdict ({record.status})"
        repaired = sorted({c.agent for c in calls if c.attempt == 2})
        print(
            f"trial {i}: wall {wall:5.1f} s | calls {len(calls)} (repaired: {', '.join(repaired) or 'none'}) | "
            f"prompt {processed + cached:,} tok ({cached:,} from cache, {processed:,} processed) | "
            f"generated {generated:,} tok | {generated / wall:.1f} gen tok/s overall | "
            f"floor {floor:.1f} s, wall/floor {wall / floor:.2f} | jury {record.jury.split() if record.jury else '-'}"
            f"{' + judge' if judged_flags[-1] else ''} | "
            f"{verdict[:60]}"
        )
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    target = TARGETS.get(args.model)
    judged = [w for w, j in zip(walls, judged_flags, strict=True) if j]
    print("--")
    print(f"wall time: median {statistics.median(walls):.1f} s, min {min(walls):.1f} s, max {max(walls):.1f} s"
          + (f" (target <= {target:.0f} s; ratio {statistics.median(walls) / target:.2f})" if target else ""))
    print(f"role outputs schema-valid after <= 1 repair: {agents_valid}/{agents_total} = "
          f"{100 * agents_valid / max(1, agents_total):.1f}% (target >= 99%); repairs: {repairs}")
    jury_only = [w for w, j in zip(walls, judged_flags, strict=True) if not j]
    print("trials the judge ruled on: " + (f"{len(judged)}, median {statistics.median(judged):.1f} s" if judged else "0")
          + "; the jury alone decided: " + (f"{len(jury_only)}, median {statistics.median(jury_only):.1f} s"
                                            if jury_only else "0"))
    print("first token by role, median (max) over all calls, from the call's start: " + ", ".join(
        f"{role} {statistics.median(v):.2f} s ({max(v):.2f})" for role, v in first_tokens.items()))
    print("  and from when the slot was free (queued jurors wait for the one before): " + ", ".join(
        f"{role} {statistics.median(v):.2f} s ({max(v):.2f})" for role, v in first_after_free.items()))
    print(f"peak RSS: {first_rss:,.0f} MB during the first trial (target <= 1,536 MB for the 0.5B); "
          f"{rss_mb:,.0f} MB over all {len(walls)} (a model reload per trial)")


if __name__ == "__main__":
    asyncio.run(main())
