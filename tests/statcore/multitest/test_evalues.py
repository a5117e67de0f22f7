"""e-values: e-BH against BH on e = 1/p and against online-fdr's e_bh, the knockoff(+) threshold on a
worked vector (oracle fixed before the code), e-BH on knockoff e-values = the knockoff+ selection,
the calibrators against closed forms, numerical integration and mpmath, and e-BH's FDR under
positive and negative dependence (seeded Monte Carlo, slow)."""
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import quad
from scipy.special import ndtr

import statcore as sc
from statcore.testing import assert_error_rate, pvalues

# the worked vector of issue 31 (oracle fixed before the code): knockoff threshold 1.9 at fdr 0.2,
# knockoff+ threshold infinite (the smallest knockoff+ ratio is (1 + 1) / 7 = 0.286 > 0.2)
W_ISSUE = np.array([5, 4.5, -4, 3.8, 3.5, 3.2, 3, 2.8, -2.5, 2.2, 2, 1.9, -1.8, 1.5, 1.2, -1.1, 1, -0.9,
                    0.8, -0.5, 0.3, -0.2, 0.1, 0])


def _threshold_by_definition(W, fdr, offset):
    # R knockoff's knockoff.threshold, written out: ts <- sort(c(0, abs(W))); first ratio <= fdr
    ts = np.sort(np.r_[0.0, np.abs(W)])
    for t in ts:
        if (offset + np.sum(W <= -t)) / max(1, np.sum(W >= t)) <= fdr:
            return t
    return math.inf


def test_knockoff_threshold_worked_vector():
    assert sc.knockoff_threshold(W_ISSUE, fdr=0.2, offset=0) == 1.9
    assert sc.knockoff_threshold(W_ISSUE, fdr=0.2, offset=1) == math.inf
    # at t = 1.9: #{W <= -1.9} = 2 (-4, -2.5), #{W >= 1.9} = 10: 2/10 = 0.2 <= 0.2
    assert np.sum(W_ISSUE <= -1.9) == 2 and np.sum(W_ISSUE >= 1.9) == 10
    # knockoff+ e-values of an infinite threshold are all 0, and e-BH selects nothing: as knockoff+
    assert np.all(sc.knockoff_e_values(W_ISSUE, fdr=0.2) == 0)
    assert sc.e_bh(sc.knockoff_e_values(W_ISSUE, fdr=0.2), alpha=0.2).n_rejections == 0


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from([-3.0, -2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0]),
                min_size=1, max_size=40),
       st.sampled_from([0.05, 0.1, 0.2, 0.3]), st.sampled_from([0, 1]))
def test_knockoff_threshold_and_e_values_by_definition(W, fdr, offset):
    W = np.array(W)
    T = sc.knockoff_threshold(W, fdr=fdr, offset=offset)
    assert T == _threshold_by_definition(W, fdr, offset)
    e = sc.knockoff_e_values(W, fdr=fdr, offset=offset)
    if math.isinf(T):
        assert np.all(e == 0)
    else:
        denom = max(1, offset + np.sum(W <= -T))
        np.testing.assert_array_equal(e, np.where(W >= T, W.size / denom, 0.0))
    if offset == 1:
        # Ren & Barber (2024): e-BH at alpha = alpha_kn on these e-values is the knockoff+ selection
        sel = sc.e_bh(e, alpha=fdr).rejected
        np.testing.assert_array_equal(sel, W >= T)
        # (their validity, sum over nulls of E[e_j] <= m, holds in expectation only; what holds on every
        # W is the threshold's condition: a finite T gives sum(e) = m #{W >= T} / (1 + #{W <= -T}) >= m / fdr)
        if not math.isinf(T):
            assert e.sum() >= W.size / fdr * (1 - 1e-12)


def _near_bh_boundary(p, alpha):
    # p at a BH boundary alpha k / m (to 1e-12 relative), where m/(alpha k) against 1/p and
    # (m/k) p against alpha may round to different sides
    m = p.size
    k = np.arange(1, m + 1)
    crit = alpha * k / m
    return np.any(np.abs(p[:, None] - crit[None, :]) <= 1e-12 * crit[None, :])


@settings(max_examples=300, deadline=None)
@given(pvalues(min_size=1, max_size=60), st.sampled_from([0.01, 0.05, 0.1, 0.2, 0.25]))
def test_e_bh_on_reciprocal_p_is_bh(p, alpha):
    with np.errstate(divide="ignore", over="ignore"):
        e = 1.0 / p
    bh = sc.p_adjust(p, method="BH") <= alpha
    ebh = sc.e_bh(e, alpha=alpha)
    if not _near_bh_boundary(p, alpha):
        np.testing.assert_array_equal(ebh.rejected, bh)
    assert ebh.n_rejections == int(ebh.rejected.sum())


def test_e_bh_exact_boundary_ties():
    # k* = 3 exactly at the boundary: e_(3) = m / (alpha 3) = 20 / (0.5 * 3); tied e-values go together
    m, alpha = 20, 0.5
    e = np.zeros(m)
    e[:3] = 20 / (alpha * 3)
    e[3] = 20 / (alpha * 4) - 1e-9      # just below the 4th boundary 10
    res = sc.e_bh(e, alpha=alpha)
    assert res.n_rejections == 3 and res.rejected[:3].all() and not res.rejected[3:].any()
    e[:4] = 10.0  # four tied: 10 >= 20 / (0.5 * 4) = 10
    res = sc.e_bh(e, alpha=alpha)
    assert res.n_rejections == 4 and res.threshold == 10.0


def test_e_bh_against_online_fdr():
    pytest.importorskip("online_fdr")
    from online_fdr.e_values import e_bh as peer

    rng = np.random.default_rng(31)
    for _ in range(300):
        m = int(rng.integers(1, 80))
        e = rng.exponential(2.0, m) * rng.choice([1.0, 30.0], m)
        e = np.round(e, int(rng.integers(0, 3)))  # ties
        alpha = float(rng.choice([0.05, 0.1, 0.2]))
        np.testing.assert_array_equal(sc.e_bh(e, alpha=alpha).rejected, np.array(peer(list(e), alpha)))


def test_e_bh_pandas_and_result():
    e = pd.Series([100.0, 1.0, 40.0, 0.5, 25.0, np.inf], index=list("abcdef"))
    res = sc.e_bh(e, alpha=0.1)
    assert isinstance(res.rejected, pd.Series) and list(res.rejected.index) == list("abcdef")
    assert res.rejected.tolist() == [True, False, True, False, True, True]
    assert res.n_rejections == 4 and res.threshold == 6 / (0.1 * 4)
    assert list(res.to_frame().index) == list("abcdef")
    assert "Number of rej.: 4" in res.summary()
    none = sc.e_bh([1.0, 2.0], alpha=0.1)
    assert none.n_rejections == 0 and none.threshold == math.inf and not none.rejected.any()


@pytest.mark.parametrize("bad, match", [([1.0, -0.5], "e must hold e-values"), ([1.0, np.nan], "e contains NaN")])
def test_e_bh_refuses_bad_e(bad, match):
    with pytest.raises(ValueError, match=match):
        sc.e_bh(bad)


@pytest.mark.parametrize("alpha", [0.0, 1.0, -0.1, 1.5])
def test_alpha_outside_unit_interval(alpha):
    with pytest.raises(ValueError, match="alpha"):
        sc.e_bh([1.0, 2.0], alpha=alpha)
    with pytest.raises(ValueError, match="fdr"):
        sc.knockoff_threshold([1.0, 2.0], fdr=alpha)


def test_bad_w_and_p():
    with pytest.raises(ValueError, match="W contains NaN"):
        sc.knockoff_e_values([1.0, np.nan])
    with pytest.raises(ValueError, match="offset"):
        sc.knockoff_threshold([1.0, 2.0], offset=2)
    with pytest.raises(ValueError, match=r"p must lie in \[0, 1\]"):
        sc.p_to_e([0.5, 1.2])
    with pytest.raises(ValueError, match="kappa"):
        sc.p_to_e([0.5], kappa=1.0)


# ---- calibrators -------------------------------------------------------------------------------

P_GRID = np.array([1e-300, 1e-100, 1e-20, 1e-8, 1e-3, 0.01, 0.1, 0.3, 0.36, 0.37, 0.5, 0.9, 0.99,
                   1 - 1e-6, 1 - 1e-12])


def test_kappa_calibrator_closed_form_and_integral():
    for kappa in (0.1, 0.5, 0.9):
        e = sc.p_to_e(P_GRID, kappa=kappa)
        np.testing.assert_allclose(e, kappa * P_GRID ** (kappa - 1), rtol=1e-14)
        # a calibrator integrates to 1 over [0, 1]
        total, _ = quad(lambda p: sc.p_to_e(np.array([p]), kappa=kappa)[0], 0, 1, epsabs=0, epsrel=1e-12,
                        limit=200, points=[1e-8, 1e-4])
        assert total == pytest.approx(1.0, rel=1e-8)
    np.testing.assert_array_equal(sc.p_to_e([0.0, 1.0], kappa=0.25), [np.inf, 0.25])


def test_integral_calibrator_against_quadrature_and_mpmath():
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 50
    e = sc.p_to_e(P_GRID, calibrator="integral")
    for p, val in zip(P_GRID, e):
        exact = mpmath.quad(lambda k: k * mpmath.mpf(p) ** (k - 1), [0, 1])
        assert val == pytest.approx(float(exact), rel=1e-12), p
        if 1e-20 <= p <= 0.99:  # ordinary double quadrature, where the integrand is tame
            num, _ = quad(lambda k: k * p ** (k - 1), 0, 1, epsabs=0, epsrel=1e-13)
            assert val == pytest.approx(num, rel=1e-12), p
    # the closed form (1 - p + p log p) / (p (log p)^2) away from the ends
    mid = P_GRID[(P_GRID > 1e-8) & (P_GRID < 0.9)]
    L = np.log(mid)
    np.testing.assert_allclose(sc.p_to_e(mid, calibrator="integral"), (1 - mid + mid * L) / (mid * L ** 2),
                               rtol=1e-12)
    np.testing.assert_array_equal(sc.p_to_e([0.0, 1.0], calibrator="integral"), [np.inf, 0.5])
    # monotone through the switch between the series and the closed form at p = 1/e
    grid = np.linspace(0.3, 0.45, 2001)
    assert np.all(np.diff(sc.p_to_e(grid, calibrator="integral")) < 0)


def test_e_to_p_and_merge_e():
    np.testing.assert_array_equal(sc.e_to_p([0.0, 0.5, 1.0, 4.0, np.inf]), [1.0, 1.0, 1.0, 0.25, 0.0])
    s = sc.e_to_p(pd.Series([2.0, 8.0], index=["x", "y"]))
    assert list(s.index) == ["x", "y"] and s.tolist() == [0.5, 0.125]
    E = np.array([[1.0, 3.0, 8.0], [0.0, 2.0, 4.0]])
    np.testing.assert_array_equal(sc.merge_e(E), [4.0, 2.0])
    np.testing.assert_array_equal(sc.merge_e(E, method="product"), [24.0, 0.0])
    np.testing.assert_array_equal(sc.merge_e(E, axis=0), [0.5, 2.5, 6.0])
    assert sc.merge_e(E, axis=None) == pytest.approx(3.0)
    with pytest.raises(ValueError, match="product is undefined"):
        sc.merge_e([0.0, np.inf], method="product")


# ---- FDR under arbitrary dependence --------------------------------------------------------------

M, REPS, ALPHA = 100, 2000, 0.2


def _dependent_z(rng, kind):
    nonnull = rng.uniform(size=(REPS, M)) < 0.2
    x = rng.standard_normal((REPS, M))
    if kind == "positive":       # one common factor: equicorrelation 0.6
        z = np.sqrt(0.6) * rng.standard_normal((REPS, 1)) + np.sqrt(0.4) * x
    else:                        # neighbouring pairs with correlation -0.9
        a = x[:, 0::2]
        b = -0.9 * a + np.sqrt(1 - 0.81) * x[:, 1::2]
        z = np.empty_like(x)
        z[:, 0::2], z[:, 1::2] = a, b
    return z + 3.5 * nonnull, nonnull


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["positive", "negative"])
def test_e_bh_fdr_under_dependence(kind):
    def error(data, rng):
        z, nonnull = data
        e = sc.p_to_e(ndtr(-z), kappa=0.1)     # one-sided p-values, calibrated row by row
        out = np.empty(REPS)
        for i in range(REPS):
            sel = sc.e_bh(e[i], alpha=ALPHA).rejected
            out[i] = (sel & ~nonnull[i]).sum() / max(sel.sum(), 1)
        return out

    res = assert_error_rate(error, lambda rng: _dependent_z(rng, kind), alpha=ALPHA, seed=3100 + len(kind),
                            vectorized=True)
    assert 0 <= res.rates["value"] <= ALPHA + 3 * res.std_errors["value"]
