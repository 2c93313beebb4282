"""Benchmark: engine overhead on the scripted backend (issue: decision court).

A full trial with per-call latency L has a critical path of 4·L: the prosecutor, the
defense, the slowest of the parallel jurors, the judge. This prints the wall time divided
by 4·L for several L (target <= 1.10). Figures only: nothing here passes or fails.

    python -m bench.scripted_trial
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from pathlib import Path

from courtroom_chat.case import load_case
from courtroom_chat.config import Settings
from courtroom_chat.engine import Trial
from courtroom_chat.store import RunStore

ROOT = Path(__file__).resolve().parents[1]


async def one(latency_ms: int, store: RunStore) -> tuple[float, int]:
    os.environ["COURTROOM_SCRIPTED_LATENCY_MS"] = str(latency_ms)
    case = load_case(ROOT / "cases" / "code-commit.json")
    started = time.perf_counter()
    record = await Trial(case, Settings().with_backend("scripted"), store=store).run()
    wall = time.perf_counter() - started
    stages = len({c.stage for c in record.calls})
    return wall, stages


async def main() -> None:
    import tempfile

    store = RunStore(tempfile.mkdtemp(prefix="courtroom-bench-"))  # records are saved, as in real use
    worst = 0.0
    for latency_ms in (100, 250, 500, 1000):
        ratios = []
        for _ in range(3):
            wall, stages = await one(latency_ms, store)
            ratios.append(wall / (stages * latency_ms / 1000))
        ratio = statistics.median(ratios)
        worst = max(worst, ratio)
        print(f"L = {latency_ms:4d} ms: wall {wall:6.3f} s over {stages} sequential stages; "
              f"critical path {stages}·L = {stages * latency_ms / 1000:5.2f} s; ratio {ratio:.3f} (median of 3)")
    print(f"--\nworst ratio {worst:.3f} (target <= 1.10)")


if __name__ == "__main__":
    asyncio.run(main())
