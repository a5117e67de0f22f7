"""shift_breadth: exact checks against closed forms (one-sided p-values, BH by hand, Wilson's interval,
the meta-analytic share), the tau^2 = 0 case, the direction, and the size of the BH breadth under the
global null (seeded simulation: the expected breadth is at most alpha)."""
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import statcore as sc
from statcore.testing import assert_error_rate

SHIFTS = np.array([0.9, 0.5, 0.05, 0.7, -0.1, 0.3, 0.21])
SE = np.array([0.1, 0.1, 0.1, 0.2, 0.1, 0.1, 0.1])


def _bh_by_hand(p):
    k = p.size
    order = np.argsort(p)
    adj = np.empty(k)
    running = 1.0
    for rank in range(k, 0, -1):
        i = order[rank - 1]
        running = min(running, p[i] * k / rank)
        adj[i] = running
    return adj


def test_p_values_and_bh_by_hand():
    res = sc.shift_breadth(SHIFTS, SE, alpha=0.05)
    z = SHIFTS / SE
    p = stats.norm.sf(z)
    np.testing.assert_allclose(res.statistic, z, rtol=1e-15)
    np.testing.assert_allclose(res.p_values, p, rtol=1e-12)
    np.testing.assert_allclose(res.p_adjusted, _bh_by_hand(p), rtol=1e-12)
    assert res.n_significant == int((_bh_by_hand(p) <= 0.05).sum())
    assert res.bh_share == res.n_significant / SHIFTS.size == res.estimate


def test_wilson_interval_closed_form():
    res = sc.shift_breadth(SHIFTS, SE)
    x, n, zq = res.n_significant, SHIFTS.size, stats.norm.isf(0.025)
    ph = x / n
    centre = (ph + zq ** 2 / (2 * n)) / (1 + zq ** 2 / n)
    half = zq / (1 + zq ** 2 / n) * math.sqrt(ph * (1 - ph) / n + zq ** 2 / (4 * n * n))
    assert res.bh_conf_low == pytest.approx(centre - half, abs=1e-12)
    assert res.bh_conf_high == pytest.approx(centre + half, abs=1e-12)


def test_meta_share_is_mathur_vanderweele():
    res = sc.shift_breadth(SHIFTS, SE, method="meta")
    fit = sc.meta_analysis(SHIFTS, SE ** 2)
    assert fit.tau2 > 0
    pe = sc.prop_effects_above(fit, 0.0)
    assert res.meta_share == pytest.approx(1 - stats.norm.cdf(-fit.estimate / math.sqrt(fit.tau2)), rel=1e-12)
    assert (res.estimate, res.conf_low, res.conf_high) == pytest.approx((pe.estimate, pe.conf_low, pe.conf_high),
                                                                         rel=1e-10)
    assert res.pooled_shift == pytest.approx(fit.estimate, rel=1e-10)
    assert res.tau2 == pytest.approx(fit.tau2, rel=1e-8)
    assert res.note == ""


def test_tau2_zero_gives_a_degenerate_meta_share_with_a_note():
    res = sc.shift_breadth([0.5, 0.52, 0.49, 0.51], [0.1] * 4, method="meta")
    assert res.tau2 == 0 and res.meta_share == 1.0 and res.estimate == 1.0
    assert math.isnan(res.meta_conf_low) and math.isnan(res.meta_conf_high) and "tau^2" in res.note
    neg = sc.shift_breadth([-0.5, -0.52, -0.49, -0.51], [0.1] * 4)
    assert neg.meta_share == 0.0 and neg.n_significant == 0


def test_direction_less_mirrors_greater():
    up = sc.shift_breadth(SHIFTS, SE)
    down = sc.shift_breadth(-SHIFTS, SE, alternative="less")
    np.testing.assert_allclose(down.p_values, up.p_values, rtol=1e-15)
    assert down.n_significant == up.n_significant and down.meta_share == pytest.approx(up.meta_share, rel=1e-12)


def test_t_degrees_of_freedom_and_scalar_se():
    res = sc.shift_breadth(SHIFTS, 0.1, df=9)
    np.testing.assert_allclose(res.p_values, stats.t.sf(SHIFTS / 0.1, 9), rtol=1e-12)


def test_series_labels_and_frame():
    s = pd.Series(SHIFTS, index=list("abcdefg"))
    res = sc.shift_breadth(s, SE)
    assert res.topics == tuple("abcdefg")
    frame = res.to_frame()
    assert list(frame["topic"]) == list("abcdefg") and frame["significant"].sum() == res.n_significant


def test_scale_invariance():
    """DL's closed-form tau^2 (REML's stopping rule is absolute on tau^2, so only DL is exactly scale-free)."""
    a = sc.shift_breadth(SHIFTS, SE, tau2_method="DL")
    b = sc.shift_breadth(SHIFTS * 2.0 ** -900, SE * 2.0 ** -900, tau2_method="DL")
    assert a.n_significant == b.n_significant and a.meta_share == pytest.approx(b.meta_share, rel=1e-9)


@pytest.mark.parametrize("kwargs, match", [
    (dict(shifts=[0.1, 0.2], se=[0.1, 0.0]), "se"),
    (dict(shifts=[0.1, 0.2, 0.3], se=[0.1, 0.1]), "se"),
    (dict(shifts=[0.1], se=[0.1]), "shifts"),
    (dict(shifts=[[0.1, 0.2]], se=[0.1, 0.1]), "shifts"),
    (dict(shifts=[0.1, 0.2], se=[0.1, 0.1], alternative="two.sided"), "alternative"),
    (dict(shifts=[0.1, 0.2], se=[0.1, 0.1], method="fdr"), "method"),
    (dict(shifts=[0.1, 0.2], se=[0.1, 0.1], alpha=1.5), "alpha"),
    (dict(shifts=[0.1, 0.2], se=[0.1, 0.1], df=[3, -1]), "df"),
])
def test_bad_input(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        sc.shift_breadth(**kwargs)


def test_global_null_breadth_at_most_alpha():
    """No topic moved: 6 topics, each the mean of 30 N(0, 1) probe shifts with its estimated s.e. and t
    on 29 df. BH's FDR under the global null is its FWER, so E[breadth] <= alpha (FDR control at alpha)."""
    k, n = 6, 30

    def sampler(rng):
        return rng.normal(size=(k, n))

    def breadth(x, rng):
        return sc.shift_breadth(x.mean(1), x.std(1, ddof=1) / np.sqrt(n), df=n - 1, alpha=0.05).bh_share

    res = assert_error_rate(breadth, sampler, alpha=0.05, reps=400, seed=20261205)
    assert res.rates["value"] <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 400)


def test_breadth_grows_with_true_shifts():
    """Every topic moved by 4 s.e.: BH detects nearly all of them (a check that the test can fail)."""
    rng = np.random.default_rng(3)
    shares = [sc.shift_breadth(rng.normal(4.0, 1.0, 8), np.ones(8)).bh_share for _ in range(50)]
    assert np.mean(shares) > 0.9
