"""Ratios of means and coefficients: Fieller's set against the t test that defines it, the delta method
against its closed form, the three shapes of the set, and coverage (Fieller at its level where the
delta method under-covers)."""
import numpy as np
import pytest
from scipy import stats

import statcore as sc
from statcore.effects._ratio import _delta, _fieller
from statcore.testing import assert_coverage


def _paired(seed, n=15, mua=3.0, mub=1.5):
    rng = np.random.default_rng(seed)
    b = rng.normal(mub, 1.0, n)
    a = rng.normal(mua, 1.0, n) + 0.4 * b
    return a, b


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("conf_level", [0.9, 0.95])
def test_fieller_paired_endpoints_are_the_t_test_boundary(seed, conf_level):
    a, b = _paired(seed)
    res = sc.ratio_ci(a, b, conf_level=conf_level)
    assert res.kind == "bounded"
    for rho in (res.conf_low, res.conf_high):
        p = stats.ttest_1samp(a - rho * b, 0.0).pvalue
        assert abs(p - (1 - conf_level)) < 1e-10
    # inside the set the t test does not reject, outside it does
    mid = 0.5 * (res.conf_low + res.conf_high)
    assert stats.ttest_1samp(a - mid * b, 0.0).pvalue > 1 - conf_level
    assert stats.ttest_1samp(a - (res.conf_high + 0.1) * b, 0.0).pvalue < 1 - conf_level
    assert res.estimate == pytest.approx(a.mean() / b.mean(), rel=1e-14)


def test_fieller_exclusive_and_unbounded_sets_are_reported():
    rng = np.random.default_rng(3)
    b = rng.normal(0.0, 1.0, 12)
    a = rng.normal(4.0, 1.0, 12)
    res = sc.ratio_ci(a, b)
    assert res.kind == "exclusive" and res.conf_low < res.conf_high and res.g > 1
    # the two rays: each finite end is a t-test boundary, the points between are excluded
    for rho in (res.conf_low, res.conf_high):
        assert abs(stats.ttest_1samp(a - rho * b, 0.0).pvalue - 0.05) < 1e-10
    mid = 0.5 * (res.conf_low + res.conf_high)
    assert not res.contains(mid) and stats.ttest_1samp(a - mid * b, 0.0).pvalue < 0.05
    assert res.contains(res.conf_high + 100) and res.contains(res.conf_low - 100)
    assert "two rays" in res.summary()
    # numerator and denominator both indistinguishable from 0: the whole line
    whole = sc.ratio_ci(rng.normal(0, 1, 12), rng.normal(0, 1, 12))
    assert whole.kind == "unbounded" and whole.conf_low == -np.inf and whole.conf_high == np.inf
    assert "whole real line" in whole.summary()
    # a denominator mean of exactly 0 is reported, never hidden
    zero = sc.ratio_ci([1.0, 2.0, 3.0, 2.5], [1.0, -1.0, 0.5, -0.5])
    assert zero.kind in ("exclusive", "unbounded")
    assert sc.ratio_ci([1.0, 2.0, 3.0, 2.5], [1.0, -1.0, 0.5, -0.5], method="delta").kind == "unbounded"


def test_delta_interval_closed_form_and_independent_fieller():
    a, b = _paired(4, n=25)
    res = sc.ratio_ci(a, b, method="delta")
    n = a.size
    r = a.mean() / b.mean()
    cov = np.cov(a, b)
    se = np.sqrt(cov[0, 0] - 2 * r * cov[0, 1] + r * r * cov[1, 1]) / np.sqrt(n) / abs(b.mean())
    q = stats.t.ppf(0.975, n - 1)
    assert res.std_error == pytest.approx(se, rel=1e-12)
    assert res.conf_low == pytest.approx(r - q * se, rel=1e-12)
    assert res.conf_high == pytest.approx(r + q * se, rel=1e-12)
    # independent samples: Welch's test of a - rho b at the ends, df evaluated at the estimate
    rng = np.random.default_rng(5)
    x, y = rng.normal(5, 1, 14), rng.normal(2, 0.6, 19)
    ind = sc.ratio_ci(x, y, paired=False)
    rho = x.mean() / y.mean()
    v1, v2 = x.var(ddof=1) / 14, y.var(ddof=1) / 19
    df = (v1 + rho ** 2 * v2) ** 2 / (v1 ** 2 / 13 + rho ** 4 * v2 ** 2 / 18)
    assert ind.df == pytest.approx(df, rel=1e-12)
    for end in (ind.conf_low, ind.conf_high):
        t = (x.mean() - end * y.mean()) / np.sqrt(v1 + end ** 2 * v2)
        assert abs(abs(t) - stats.t.ppf(0.975, df)) < 1e-9


def test_bootstrap_ratio_goes_through_the_engine_and_is_seeded():
    a, b = _paired(6, n=30)
    r1 = sc.ratio_ci(a, b, method="bootstrap", B=999, seed=11)
    r2 = sc.ratio_ci(a, b, method="bootstrap", B=999, seed=11)
    assert r1 == r2 and r1.B == 999
    ref = sc.bootstrap((a, b), lambda u, v, axis=-1: u.mean(axis) / v.mean(axis), B=999, paired=True, seed=11)
    assert (r1.conf_low, r1.conf_high) == pytest.approx(tuple(ref.confidence_interval), rel=1e-12)
    fl = sc.ratio_ci(a, b)
    assert abs(r1.conf_low - fl.conf_low) < 0.1 and abs(r1.conf_high - fl.conf_high) < 0.1


def test_coef_ratio_ci_wald_boundary_and_errors():
    params = np.array([0.8, 2.5, -1.0])
    cov = np.array([[0.04, 0.01, 0.0], [0.01, 0.09, 0.02], [0.0, 0.02, 0.5]])
    res = sc.coef_ratio_ci(params, cov, 0, 1, df=40)
    q = stats.t.ppf(0.975, 40)
    for rho in (res.conf_low, res.conf_high):
        w = (params[0] - rho * params[1]) ** 2 / (cov[0, 0] - 2 * rho * cov[0, 1] + rho ** 2 * cov[1, 1])
        assert w == pytest.approx(q * q, rel=1e-10)
    normal = sc.coef_ratio_ci(params, cov, 0, 1)
    assert normal.df == np.inf and normal.conf_high - normal.conf_low < res.conf_high - res.conf_low
    # labels of a pandas Series; the third coefficient as denominator is not significant: unbounded set
    import pandas as pd

    s = pd.Series(params, index=["a", "b", "c"])
    assert sc.coef_ratio_ci(s, cov, "a", "b", df=40) == res
    assert sc.coef_ratio_ci(params, cov, 0, 2).kind in ("exclusive", "unbounded")
    bad = cov.copy()
    bad[1, 1] = 0.0
    bad[0, 1] = bad[1, 0] = 0.0
    with pytest.raises(ValueError, match="cov"):
        sc.coef_ratio_ci(params, bad, 0, 1)
    with pytest.raises(ValueError, match="j"):
        sc.coef_ratio_ci(params, cov, 1, 1)
    with pytest.raises(ValueError, match="b is identically 0"):
        sc.ratio_ci([1.0, 2.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="a and b"):
        sc.ratio_ci([1.0, 2.0, 3.0], [1.0, 2.0])


@pytest.mark.slow
def test_fieller_covers_where_the_delta_method_undercovers():
    """Denominator mean / s.e. = 2 (n = 20): Fieller's set is exact under normality, the delta method's
    interval covers well below 95% (a demonstrated failure)."""
    n, mua, mub = 20, 2.0, 0.45
    rho = mua / mub
    q = stats.t.ppf(0.975, n - 1)

    def sampler(rng):
        return rng.normal(mua, 1.0, (4000, n)), rng.normal(mub, 1.0, (4000, n))

    def moments(data):
        a, b = data
        ab, bb = a.mean(1), b.mean(1)
        vab = ((a - ab[:, None]) * (b - bb[:, None])).sum(1) / (n - 1) / n
        return ab, bb, a.var(1, ddof=1) / n, b.var(1, ddof=1) / n, vab

    def fieller(data, rng):
        lo, hi, code, _ = _fieller(*moments(data), q)
        return np.where(code == 0, (lo <= rho) & (rho <= hi), np.where(code == 1, (rho <= lo) | (rho >= hi), True))

    def delta(data, rng):
        _, lo, hi, _ = _delta(*moments(data), q)
        return (lo <= rho) & (rho <= hi)

    # the kernels are the public function's
    (a,), (b,) = (x[:1] for x in sampler(np.random.default_rng(0)))
    pub = sc.ratio_ci(a, b)
    lo, hi, code, _ = _fieller(*(m[0] for m in moments((a[None], b[None]))), q)
    assert (pub.conf_low, pub.conf_high) == pytest.approx((float(lo), float(hi)), rel=1e-12)

    assert_coverage(fieller, sampler, conf_level=0.95, seed=20261205, vectorized=True, std_error="nominal")
    with pytest.raises(AssertionError, match="coverage"):
        assert_coverage(delta, sampler, conf_level=0.95, seed=20261205, vectorized=True, std_error="nominal")
    cover = delta(sampler(np.random.default_rng(20261205)), None).mean()
    assert cover < 0.95 - 3 * np.sqrt(0.95 * 0.05 / 4000)
