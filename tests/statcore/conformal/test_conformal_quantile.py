"""conformal_quantile and coverage_band: the order statistic by brute force (a sorted list and the
definition of the rank), the minimum calibration size, the decimal-alpha rank rule, bad input."""
import math
from fractions import Fraction

import numpy as np
import pytest

from statcore import CoverageBand, conformal_quantile, coverage_band
from statcore._checks import conformal_rank, min_calibration_size


def _rank_decimal(n, alpha_text):
    """ceil((n + 1)(1 - alpha)) in exact decimal arithmetic."""
    return math.ceil((n + 1) * (1 - Fraction(alpha_text)))


@pytest.mark.parametrize("alpha_text", ["0.5", "0.3", "0.2", "0.1", "0.05", "0.01", "0.15", "0.07", "0.9",
                                        "0.25", "0.33", "0.001", "0.7", "0.45", "0.85", "0.95"])
def test_rank_equals_the_decimal_rank(alpha_text):
    alpha = float(alpha_text)
    for n in range(1, 2000):
        assert conformal_rank(n, alpha) == _rank_decimal(n, alpha_text), (n, alpha_text)


@pytest.mark.parametrize("alpha_text", ["0.5", "0.3", "0.2", "0.1", "0.05", "0.01", "0.15", "0.07", "0.9",
                                        "0.33", "0.001"])
def test_min_calibration_size_is_the_smallest_finite_n(alpha_text):
    alpha = float(alpha_text)
    brute = next(n for n in range(1, 10 ** 5) if _rank_decimal(n, alpha_text) <= n)
    assert min_calibration_size(alpha) == brute
    assert brute == max(1, math.ceil(1 / Fraction(alpha_text)) - 1)


def test_quantile_is_the_kth_smallest_score():
    rng = np.random.default_rng(0)
    for n in (1, 2, 9, 10, 19, 57, 100, 1001):
        s = rng.normal(size=n)
        for alpha in (0.5, 0.3, 0.1, 0.05, 0.01):
            k = _rank_decimal(n, repr(alpha))
            if k > n:
                with pytest.raises(ValueError, match=rf"n >= ceil\(1/alpha\) - 1 = {min_calibration_size(alpha)}"):
                    conformal_quantile(s, alpha=alpha)
                assert conformal_quantile(s, alpha=alpha, allow_infinite=True) == math.inf
            else:
                assert conformal_quantile(s, alpha=alpha) == sorted(s.tolist())[k - 1]


def test_quantile_with_ties_and_lists():
    s = [3.0, 1.0, 2.0, 2.0, 2.0, 5.0, 4.0, 0.0, 2.0]        # n = 9, alpha = 0.2: k = ceil(8) = 8
    assert conformal_quantile(s, alpha=0.2) == 4.0
    assert conformal_quantile(s, alpha=0.5) == 2.0           # k = 5
    assert conformal_quantile(np.array(s), alpha=0.3) == 3.0  # k = 7
    assert conformal_quantile(np.array(s), alpha=0.7) == 2.0  # k = 3 (decimal 0.7), not 4


def test_decimal_alpha_rank_rule_versus_raw_floats():
    """10 * (1 - 0.7) is 3.0000000000000004 in binary floating point: the raw ceiling is 4."""
    assert math.ceil(10 * (1 - 0.7)) == 4 and math.ceil(100 * (1 - 0.45)) == 56
    assert conformal_rank(9, 0.7) == 3 and conformal_rank(99, 0.45) == 55
    assert conformal_quantile(np.arange(1.0, 10.0), alpha=0.7) == 3.0
    assert conformal_quantile(np.arange(1.0, 100.0), alpha=0.45) == 55.0


def test_minimum_size_message_names_n():
    with pytest.raises(ValueError, match="n = 8.*= 9 calibration scores"):
        conformal_quantile(np.arange(8.0), alpha=0.1)
    assert conformal_quantile(np.arange(9.0), alpha=0.1) == 8.0
    with pytest.raises(ValueError, match="= 19 calibration"):
        conformal_quantile(np.arange(18.0), alpha=0.05)


@pytest.mark.parametrize("alpha", [0, 1, -0.1, 1.5, float("nan"), float("inf")])
def test_alpha_outside_unit_interval(alpha):
    with pytest.raises(ValueError, match="alpha must lie in"):
        conformal_quantile([1.0, 2.0, 3.0], alpha=alpha)


def test_bad_scores():
    with pytest.raises(ValueError, match="scores contains NaN"):
        conformal_quantile([1.0, np.nan, 2.0], alpha=0.5)
    with pytest.raises(ValueError, match="scores is empty"):
        conformal_quantile([], alpha=0.5)
    with pytest.raises(ValueError, match="scores must be a vector"):
        conformal_quantile(np.ones((3, 3)), alpha=0.5)
    with pytest.raises(TypeError, match="alpha must be a number"):
        conformal_quantile([1.0, 2.0], alpha="0.1")
    with pytest.raises(TypeError, match="allow_infinite"):
        conformal_quantile([1.0, 2.0], alpha=0.5, allow_infinite=1)


def test_coverage_band():
    assert tuple(coverage_band(9, alpha=0.1)) == (0.9, 0.9 + 0.1)
    lo, hi = coverage_band(99, alpha=0.05)
    assert lo == 0.95 and hi == pytest.approx(0.96)
    for n in (9, 10, 57, 1000):
        k = conformal_rank(n, 0.1)
        band = coverage_band(n, alpha=0.1)
        assert band.lower <= k / (n + 1) < band.upper and band.k == k and band.n == n
    with pytest.raises(ValueError, match="n must be >= 1"):
        coverage_band(0, alpha=0.1)
    # too few scores: k > n, the set is the whole line and covers with probability 1, not 1.067
    small = coverage_band(5, alpha=0.1)
    assert small.k == 6 > small.n and (small.lower, small.upper) == (0.9, 1.0)
    assert isinstance(small, CoverageBand) and "coverage in [0.9, 1]" in small.summary()


@pytest.mark.parametrize("n, alpha", [(5, 0.1), (1, 0.3), (8, 0.1), (18, 0.05), (1, 0.01)])
def test_coverage_band_is_capped_at_one(n, alpha):
    """coverage_band(5, alpha=0.1) was (0.9, 1.067): a coverage above 1. With k > n the set is the whole
    line (conformal_quantile gives inf), so the coverage is exactly 1, inside the capped band."""
    lo, hi = coverage_band(n, alpha=alpha)
    assert hi <= 1.0 and lo == 1.0 - alpha
    k = conformal_rank(n, alpha)
    exact = 1.0 if k > n else k / (n + 1)
    if k > n:
        assert conformal_quantile(np.arange(n, dtype=float), alpha=alpha, allow_infinite=True) == np.inf
    assert lo <= exact <= hi
