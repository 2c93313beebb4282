"""Benchmark: does decoding several sequences at once raise throughput on this machine? (issue 11)

Issue 11's goal (a trial's wall / floor <= 1.0) needs the jurors' decoding, batched, to run
faster in aggregate than one stream decodes alone. This script measures that directly, without
the court: N concurrent completions (one llama.cpp slot each, so the server decodes them as one
batch each step) of the same length after a short prompt, and their aggregate decoding speed
against N = 1. Three sampling setups: plain (no grammar, no DRY), the court's sampling (JSON
schema grammar + DRY), and plain with a different thread count. Figures only.

    python -m bench.batched_decode                               # 0.5B, N = 1, 2, 5
    python -m bench.batched_decode --model qwen2.5-coder-1.5b
    python -m bench.batched_decode --threads 1 --threads 2       # thread counts to compare
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time

from bench.local_trial import fresh_backend
from courtroom_chat.backends.base import ModelRequest
from courtroom_chat.backends.local import LocalRuntime
from courtroom_chat.config import Settings

SCHEMA = {"type": "object", "properties": {"vote": {"enum": ["yes", "no"]}, "reasoning": {"type": "string"}},
          "required": ["reasoning", "vote"]}
TOPICS = ["a pull request that fixes a crash", "hiring a designer", "renewing a data contract",
          "moving a launch date", "buying new laptops", "an essay's second draft", "a vendor's offer",
          "a database migration"]


def request(i: int, tokens: int) -> ModelRequest:
    return ModelRequest(agent=f"s{i}", role="bench", system="You are a careful reviewer.", prefix="",
                        prompt=f"Write a long, detailed review of {TOPICS[i % len(TOPICS)]}, point by point.",
                        schema=SCHEMA, schema_name="review", temperature=0.8, max_tokens=tokens)


async def measure(model: str, n: int, threads: int, court_sampling: bool, tokens: int) -> tuple[float, int, float]:
    """Aggregate generated tok/s for n concurrent streams, the tokens generated, and the slowest
    stream's share of time spent reading its prompt."""
    settings = Settings().with_backend(f"local:{model}").with_overrides(
        {"local": {"parallel": n, "threads": threads, "n_ctx": 2048}})
    backend = fresh_backend(model, settings)
    runtime = backend.runtime()
    runtime.server()
    loop = asyncio.get_running_loop()

    def body(i: int) -> dict:
        b = backend.body(request(i, tokens))
        if not court_sampling:
            b.pop("response_format")
            for key in ("dry_multiplier", "dry_base", "dry_allowed_length", "repeat_penalty"):
                b.pop(key, None)
            b["ignore_eos"] = True  # every plain stream decodes exactly `tokens` tokens
        return b

    # Warm the weights into memory first so the first config does not pay for the page-in.
    await loop.run_in_executor(runtime.pool, runtime.generate, {**body(0), "max_tokens": 8}, lambda c: False)
    timings: list[dict] = [{} for _ in range(n)]

    def collector(i: int):
        def on_chunk(chunk: dict) -> bool:
            timings[i].update(chunk.get("timings", {}))
            return False
        return on_chunk

    started = time.perf_counter()
    await asyncio.gather(*(loop.run_in_executor(runtime.pool, runtime.generate, body(i), collector(i))
                           for i in range(n)))
    wall = time.perf_counter() - started
    generated = sum(int(t.get("predicted_n", 0)) for t in timings)
    prompt_share = max(float(t.get("prompt_ms", 0.0)) for t in timings) / 1000 / wall
    LocalRuntime.close_all()
    return generated / wall, generated, prompt_share


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="qwen2.5-coder-0.5b")
    parser.add_argument("--streams", type=int, action="append", help="concurrent streams (repeatable); default 1, 2, 5")
    parser.add_argument("--threads", type=int, action="append", help="threads (repeatable); default: one per core")
    parser.add_argument("--tokens", type=int, default=128, help="tokens each stream decodes")
    args = parser.parse_args()
    streams = sorted({1, *(args.streams or [2, 5])})  # one stream first: the speed the others are read against
    thread_counts = args.threads or [os.cpu_count() or 2]
    print(f"model {args.model}; {args.tokens} tokens a stream after a ~60-token prompt; one slot a stream")
    print("| sampling | threads | streams | generated | aggregate tok/s | x one stream | prompt share of wall |")
    print("|---|---|---|---|---|---|---|")
    for court_sampling in (False, True):
        for threads in thread_counts:
            single = 0.0
            for n in streams:
                speed, generated, prompt_share = await measure(args.model, n, threads, court_sampling, args.tokens)
                single = single or speed  # streams[0] == 1
                name = "grammar + DRY (the court's)" if court_sampling else "plain"
                print(f"| {name} | {threads} | {n} | {generated} | {speed:.1f} | {speed / single:.2f} | "
                      f"{prompt_share:.0%} |", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
