"""The report's statistics against values worked out by hand."""

from __future__ import annotations

import pytest

from courtroom_chat.evaluation import stats


def test_wilson_against_hand_computed_values():
    # 8 of 10, z = 1.96: centre (0.8 + 0.19208) / 1.38416 = 0.716738,
    # half-width 1.96 * sqrt(0.016 + 0.009604) / 1.38416 = 0.226581
    low, high = stats.wilson(8, 10, z=1.96)
    assert low == pytest.approx(0.716738 - 0.226581, abs=1e-5)
    assert high == pytest.approx(0.716738 + 0.226581, abs=1e-5)
    # 0 of 10: the interval starts at 0 and ends at z² / (n + z²) = 3.8416 / 13.8416
    low, high = stats.wilson(0, 10, z=1.96)
    assert low == 0 and high == pytest.approx(3.8416 / 13.8416, abs=1e-6)
    # 19 of 38 is centred on one half: half-width 1.96 * sqrt(0.25/38 + 3.8415/5776) / 1.10109 = 0.15150
    low, high = stats.wilson(19, 38)
    assert (low + high) / 2 == pytest.approx(0.5) and low == pytest.approx(0.5 - 0.15150, abs=1e-4)
    assert stats.wilson(0, 0) == (0.0, 1.0)


def test_mcnemar_exact_against_the_binomial():
    assert stats.mcnemar_exact(1, 6) == pytest.approx(2 * (1 + 7) / 2**7)  # 0.125
    assert stats.mcnemar_exact(0, 5) == pytest.approx(2 / 2**5)  # 0.0625
    assert stats.mcnemar_exact(6, 1) == stats.mcnemar_exact(1, 6)
    assert stats.mcnemar_exact(3, 3) == 1.0  # 2 * 42/64 capped at 1
    assert stats.mcnemar_exact(0, 0) == 1.0
    assert stats.mcnemar_exact(2, 10) == pytest.approx(2 * (1 + 12 + 66) / 4096)


def test_brier_by_hand():
    # (0.9 - 1)² + (0.6 - 0)² + (0.3 - 1)² = 0.01 + 0.36 + 0.49 = 0.86, over 3
    assert stats.brier([0.9, 0.6, 0.3], [True, False, True]) == pytest.approx(0.86 / 3)
    assert stats.brier([0.5] * 4, [1, 0, 1, 0]) == pytest.approx(0.25)
    assert stats.brier([], []) is None


def test_reliability_bins_by_hand():
    confidences = [0.05, 0.3, 0.35, 0.6, 0.95, 1.0, 1.0]
    outcomes = [False, True, False, True, True, True, False]
    table = stats.reliability(confidences, outcomes)
    assert len(table) == 10 and table[0]["low"] == 0.0 and table[9]["high"] == 1.0
    filled = {i: (r["n"], r["confidence"], r["observed"]) for i, r in enumerate(table) if r["n"]}
    assert filled.keys() == {0, 3, 6, 9}
    assert filled[0] == (1, pytest.approx(0.05), 0.0)
    assert filled[3] == (2, pytest.approx(0.325), 0.5)
    assert filled[6] == (1, pytest.approx(0.6), 1.0)
    assert filled[9] == (3, pytest.approx((0.95 + 1 + 1) / 3), pytest.approx(2 / 3))  # 1.0 falls in the last bin
    assert table[1] == {"low": 0.1, "high": 0.2, "n": 0, "confidence": None, "observed": None}
    # ECE: (1*0.05 + 2*0.175 + 1*0.4 + 3*|0.98333 - 0.66667|) / 7
    assert stats.expected_calibration_error(table) == pytest.approx((0.05 + 0.35 + 0.4 + 3 * (2.95 / 3 - 2 / 3)) / 7)
