"""makarov_bounds: the transport LP (sharpness, left limits), brute-force sup/inf, band containment, normal form."""
import matplotlib
import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.optimize import linprog

from statcore.coupling import makarov_bounds

matplotlib.use("Agg")


def lp_cdf_bounds(u1, a, u0, b, d):
    """min and max of P(Y1 - Y0 <= d) over all couplings of the discrete laws (a on u1, b on u0)."""
    k1, k0 = u1.size, u0.size
    C = (u1[:, None] - u0[None, :] <= d).astype(float).ravel()
    A = np.vstack([np.kron(np.eye(k1), np.ones(k0)), np.kron(np.ones(k1), np.eye(k0))])
    rhs = np.r_[a, b]
    lo = linprog(C, A_eq=A, b_eq=rhs, bounds=(0, None), method="highs").fun
    hi = -linprog(-C, A_eq=A, b_eq=rhs, bounds=(0, None), method="highs").fun
    return lo, hi


@pytest.mark.parametrize("seed", range(6))
def test_equals_transport_lp_for_discrete_outcomes(seed):
    # integer outcomes, deltas on the atoms' differences and between them: sharpness needs the left limit
    rng = np.random.default_rng(seed)
    u1 = np.unique(rng.integers(0, 7, rng.integers(2, 6))).astype(float)
    u0 = np.unique(rng.integers(0, 7, rng.integers(2, 6))).astype(float)
    c1, c0 = rng.integers(1, 6, u1.size), rng.integers(1, 6, u0.size)
    y = np.r_[np.repeat(u1, c1), np.repeat(u0, c0)]
    t = np.r_[np.ones(c1.sum()), np.zeros(c0.sum())]
    deltas = np.arange(-8.0, 8.5, 0.5)
    res = makarov_bounds(y, t, delta=deltas)
    for d, lo, hi in zip(deltas, res.lower, res.upper):
        want_lo, want_hi = lp_cdf_bounds(u1, c1 / c1.sum(), u0, c0 / c0.sum(), d)
        assert lo == pytest.approx(want_lo, abs=1e-9), d
        assert hi == pytest.approx(want_hi, abs=1e-9), d


def ecdf(x, t, strict=False):
    x = np.sort(x)
    return np.searchsorted(x, t, side="left" if strict else "right") / x.size


@pytest.mark.parametrize("seed", range(3))
def test_brute_force_sup_inf_on_a_fine_grid(seed):
    rng = np.random.default_rng(10 + seed)
    y1 = np.round(rng.normal(1, 1, 37), 1)        # ties
    y0 = rng.exponential(size=23)
    y = np.r_[y1, y0]
    t = np.r_[np.ones(y1.size), np.zeros(y0.size)]
    deltas = np.linspace(-4, 5, 41)
    res = makarov_bounds(y, t, delta=deltas)
    eps = 1e-9
    for d, lo, hi in zip(deltas, res.lower, res.upper):
        pts = np.unique(np.r_[y1, y0 + d, np.linspace(-10, 15, 4001)])
        grid = np.unique(np.r_[pts, pts - eps, pts + eps])
        want_lo = max(0.0, np.max(ecdf(y1, grid) - ecdf(y0, grid - d, strict=True)))
        want_hi = 1 + min(0.0, np.min(ecdf(y1, grid) - ecdf(y0, grid - d)))
        assert lo == pytest.approx(want_lo, abs=1e-12)
        assert hi == pytest.approx(want_hi, abs=1e-12)


def test_both_couplings_inside_the_band():
    rng = np.random.default_rng(4)
    n = 400
    y1, y0 = rng.gamma(2, 2, n), rng.normal(3, 1, n)
    deltas = np.linspace(-6, 15, 200)
    res = makarov_bounds(np.r_[y1, y0], np.r_[np.ones(n), np.zeros(n)], delta=deltas)
    for diff in (np.sort(y1) - np.sort(y0), np.sort(y1) - np.sort(y0)[::-1],
                 y1 - y0):  # comonotone, countercomonotone, independent pairing
        F = ecdf(diff, deltas)
        assert np.all(res.lower <= F + 1e-12)
        assert np.all(F <= res.upper + 1e-12)
    assert np.all(np.diff(res.lower) >= -1e-12) and np.all(np.diff(res.upper) >= -1e-12)


def test_equal_variance_normal_closed_form():
    # F^L = max(0, 2 Phi(d / 2s) - 1), F^U = min(1, 2 Phi(d / 2s)), d = delta - (mu1 - mu0)
    n = 20_000
    z = stats.norm.ppf((np.arange(n) + 0.5) / n)
    mu1, mu0, s = 2.0, 0.5, 1.5
    deltas = np.linspace(-6, 9, 61)
    res = makarov_bounds(np.r_[mu1 + s * z, mu0 + s * z], np.r_[np.ones(n), np.zeros(n)], delta=deltas)
    d = deltas - (mu1 - mu0)
    want_lo = np.maximum(0, 2 * stats.norm.cdf(d / (2 * s)) - 1)
    want_hi = np.minimum(1, 2 * stats.norm.cdf(d / (2 * s)))
    # the grid's empirical CDFs differ from Phi by at most 1/(2n) each
    np.testing.assert_allclose(res.lower, want_lo, atol=2 / n)
    np.testing.assert_allclose(res.upper, want_hi, atol=2 / n)


def test_weights_strata_and_containers():
    rng = np.random.default_rng(6)
    y = rng.integers(0, 5, 50).astype(float)
    t = np.r_[np.ones(25), np.zeros(25)]
    w = rng.integers(1, 4, 50)
    deltas = np.arange(-4.0, 5.0)
    a = makarov_bounds(y, t, delta=deltas, weights=w)
    b = makarov_bounds(np.repeat(y, w), np.repeat(t, w), delta=deltas)
    np.testing.assert_allclose(a.lower, b.lower, atol=1e-12)
    np.testing.assert_allclose(a.upper, b.upper, atol=1e-12)
    s = np.r_[np.zeros(10), np.ones(15), np.zeros(12), np.ones(13)]
    r = makarov_bounds(y, t, delta=deltas, strata=s)
    want_lo = want_hi = 0
    for k in (0, 1):
        m = s == k
        one = makarov_bounds(y[m], t[m], delta=deltas)
        want_lo = want_lo + m.mean() * one.lower
        want_hi = want_hi + m.mean() * one.upper
    np.testing.assert_allclose(r.lower, want_lo, atol=1e-12)
    np.testing.assert_allclose(r.upper, want_hi, atol=1e-12)
    ser = pd.Series(deltas, index=list("abcdefghi"), name="delta")
    rs = makarov_bounds(pd.Series(y, name="earn"), t, delta=ser)
    assert isinstance(rs.lower, pd.Series) and list(rs.lower.index) == list("abcdefghi")
    one = makarov_bounds(y, t, delta=0.0)
    assert isinstance(one.lower, float) and deltas[4] == 0.0
    assert one.lower == makarov_bounds(y, t, delta=deltas).lower[4]
    assert "Makarov" in rs.summary() and "earn by treat" in rs.summary()
    assert list(rs.to_frame().columns) == ["delta", "lower", "upper"]
    ax = rs.plot()
    assert ax.lines
    with pytest.raises(ValueError, match="delta contains NaN"):
        makarov_bounds(y, t, delta=[np.nan])
    with pytest.raises(ValueError, match="weights must be non-negative"):
        makarov_bounds(y, t, delta=0.0, weights=-np.ones(50))


def test_bounds_stay_ordered_under_rounding():
    # found by hypothesis: 7e-44 - 1 rounds to -1 while 1 + (-1) does not round to 7e-44; both bounds
    # must compare Y1 - delta with Y0 the same way
    r = makarov_bounds([7.146622168056567e-44, 1.0], [1, 0], delta=[-1.0, -0.5, 0.0])
    assert np.all(r.lower <= r.upper)
