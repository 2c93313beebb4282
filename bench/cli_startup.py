"""Benchmark: how long `courtroom --help` takes to start (target < 0.5 s).

Runs it 10 times in fresh processes and prints the median and worst. Figures only.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    command = [sys.executable, "-m", "courtroom_chat.frontends.cli", "--help"]
    subprocess.run(command, capture_output=True, check=True, cwd=ROOT)  # warm the file cache
    times = []
    for _ in range(10):
        started = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True, cwd=ROOT)
        times.append(time.perf_counter() - started)
    print(f"courtroom --help: median {statistics.median(times):.3f} s, worst {max(times):.3f} s "
          f"(target < 0.5 s; ratio {statistics.median(times) / 0.5:.2f})")


if __name__ == "__main__":
    main()
