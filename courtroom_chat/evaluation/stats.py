"""The statistics of the report, by hand (no SciPy): Wilson intervals, McNemar's exact test,
Brier scores and reliability tables.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

Z95 = 1.959963984540054


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a proportion (95% by default). (0, 1) when n is 0."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value for ``b`` and ``c`` discordant pairs (a binomial test
    of min(b, c) against n = b + c at one half). 1.0 when there are no discordant pairs."""
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def majority_yes(p: float, n: int = 5) -> float:
    """The chance that more than half of ``n`` independent calls, each Yes with chance ``p``, say Yes."""
    return sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n // 2 + 1, n + 1))


def brier(confidences: Sequence[float], outcomes: Sequence[bool | int]) -> float | None:
    """Mean squared gap between a stated probability and what happened (1 right, 0 wrong)."""
    if not confidences:
        return None
    return sum((c - float(o)) ** 2 for c, o in zip(confidences, outcomes, strict=True)) / len(confidences)


def reliability(confidences: Sequence[float], outcomes: Sequence[bool | int], bins: int = 10) -> list[dict[str, Any]]:
    """A reliability table: ``bins`` equal-width bins over [0, 1] (the last one closed), each with
    its count, mean confidence and the observed share of right answers (None when empty)."""
    rows = [{"low": i / bins, "high": (i + 1) / bins, "n": 0, "confidence": None, "observed": None}
            for i in range(bins)]
    sums = [[0.0, 0.0] for _ in range(bins)]
    for c, o in zip(confidences, outcomes, strict=True):
        i = min(bins - 1, max(0, int(c * bins)))
        rows[i]["n"] += 1
        sums[i][0] += c
        sums[i][1] += float(o)
    for row, (c_sum, o_sum) in zip(rows, sums, strict=True):
        if row["n"]:
            row["confidence"] = c_sum / row["n"]
            row["observed"] = o_sum / row["n"]
    return rows


def expected_calibration_error(table: list[dict[str, Any]]) -> float | None:
    """The count-weighted mean gap between confidence and observed accuracy over the bins."""
    total = sum(r["n"] for r in table)
    if not total:
        return None
    return sum(r["n"] * abs(r["confidence"] - r["observed"]) for r in table if r["n"]) / total
