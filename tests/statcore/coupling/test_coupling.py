"""coupling_mean and joint_bounds against closed forms, brute force and the exact transport LP."""
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from statcore.coupling import coupling_mean, ite_variance_bounds, joint_bounds


def grid(n):
    """Midpoints of n equal pieces of (0, 1): a 'sample' whose empirical law is the quantile grid."""
    return (np.arange(n) + 0.5) / n


def brute_coupling(y1, y0, f, counter=False):
    """Definition: repeat each y1 value n0 times and each y0 value n1 times, sort, pair."""
    a = np.repeat(np.sort(y1), len(y0))
    b = np.repeat(np.sort(y0), len(y1))
    if counter:
        b = b[::-1]
    return float(np.mean(f(a, b)))


NAMED = {"product": lambda a, b: a * b, "sq_diff": lambda a, b: (a - b) ** 2,
         "abs_diff": lambda a, b: np.abs(a - b), "min": np.minimum, "max": np.maximum}


# ----------------------------------------------------------------------------------------------
# closed forms
# ----------------------------------------------------------------------------------------------

def test_uniform_grid_exact_finite_n():
    # mean of u_i^2 over the midpoint grid is 1/3 - 1/(12 n^2): exact, so 1e-12
    for n in (1, 2, 7, 1000):
        u = grid(n)
        assert coupling_mean(u, u, f="product") == pytest.approx(1 / 3 - 1 / (12 * n * n), abs=1e-14)
        assert coupling_mean(u, u, f="product", coupling="countercomonotone") == pytest.approx(1 / 6 + 1 / (12 * n * n),
                                                                                  abs=1e-14)


def test_uniform_population_values():
    u = grid(100_000)
    assert coupling_mean(u, u[::-1], f="product") == pytest.approx(1 / 3, abs=1e-9)
    assert coupling_mean(u, u, f="product", coupling="countercomonotone") == pytest.approx(1 / 6, abs=1e-9)


def test_normal_closed_forms():
    # quantile grids of two normals; the midpoint rule's error for E Z^2 is O(log n / n)
    n = 200_000
    z = stats.norm.ppf(grid(n))
    mu1, s1, mu0, s0 = 1.5, 2.0, -0.5, 0.7
    y1, y0 = mu1 + s1 * z, mu0 + s0 * z
    ez2 = float(np.mean(z * z))  # what the grid has for E Z^2 (1 - O(log n / n))
    assert abs(ez2 - 1) < 1e-3
    co = coupling_mean(y1, y0, f="product")
    ct = coupling_mean(y1, y0, f="product", coupling="countercomonotone")
    # exact identities for the grid, closed forms up to the grid's E Z^2
    assert co == pytest.approx(mu1 * mu0 + s1 * s0 * ez2, abs=1e-10)
    assert ct == pytest.approx(mu1 * mu0 - s1 * s0 * ez2, abs=1e-10)
    assert co == pytest.approx(mu1 * mu0 + s1 * s0, abs=2e-3)
    assert ct == pytest.approx(mu1 * mu0 - s1 * s0, abs=2e-3)
    dmu = mu1 - mu0
    res = joint_bounds(np.r_[y1, y0], np.r_[np.ones(n), np.zeros(n)], f="sq_diff", B=0)
    assert res.f_class == "submodular"
    assert res.lower == pytest.approx(dmu ** 2 + (s1 - s0) ** 2, abs=5e-3)
    assert res.upper == pytest.approx(dmu ** 2 + (s1 + s0) ** 2, abs=5e-3)
    assert res.lower == pytest.approx(dmu ** 2 + (s1 - s0) ** 2 * ez2, abs=1e-9)
    assert res.upper == pytest.approx(dmu ** 2 + (s1 + s0) ** 2 * ez2, abs=1e-9)


def test_abs_diff_lower_bound_is_wasserstein_distance():
    rng = np.random.default_rng(3)
    y1 = rng.normal(1, 2, 517)
    y0 = rng.normal(0, 1, 333)
    res = joint_bounds(np.r_[y1, y0], np.r_[np.ones(517), np.zeros(333)], f="abs_diff", B=0)
    assert res.lower == pytest.approx(stats.wasserstein_distance(y1, y0), rel=1e-12, abs=1e-12)
    w1, w0 = rng.uniform(0.1, 3, 517), rng.uniform(0.1, 3, 333)
    got = coupling_mean(y1, y0, f="abs_diff", weights1=w1, weights0=w0)
    assert got == pytest.approx(stats.wasserstein_distance(y1, y0, w1, w0), rel=1e-12)


def test_exponential_closed_forms():
    # E[Q1 Q0] = 2/(l1 l0) comonotone, (2 - pi^2/6)/(l1 l0) countercomonotone
    n = 400_000
    u = grid(n)
    l1, l0 = 0.5, 3.0
    y1, y0 = -np.log1p(-u) / l1, -np.log1p(-u) / l0
    # the midpoint rule for int log(1-u)^2 errs by O(log(n)^2 / n), about 4e-4 here
    assert coupling_mean(y1, y0, f="product") == pytest.approx(2 / (l1 * l0), rel=2e-3)
    assert coupling_mean(y1, y0, f="product", coupling="countercomonotone") == pytest.approx(
        (2 - math.pi ** 2 / 6) / (l1 * l0), rel=2e-3)


@pytest.mark.parametrize("n1,n0", [(10, 10), (7, 13), (50, 3), (1, 9)])
def test_bernoulli_exact(n1, n0):
    for k1 in range(n1 + 1):
        for k0 in range(n0 + 1):
            y1 = np.r_[np.ones(k1), np.zeros(n1 - k1)]
            y0 = np.r_[np.zeros(n0 - k0), np.ones(k0)]
            p1, p0 = k1 / n1, k0 / n0
            assert coupling_mean(y1, y0, f="product") == pytest.approx(min(p1, p0), abs=1e-15)
            assert coupling_mean(y1, y0, f="product", coupling="countercomonotone") == pytest.approx(
                max(0.0, p1 + p0 - 1), abs=1e-15)


def test_probability_of_necessity_and_sufficiency_bounds():
    # PNS = P(Y1 = 1, Y0 = 0): [max(0, p1 - p0), min(p1, 1 - p0)] (Tian & Pearl 2000)
    for k1, k0, n1, n0 in [(6, 3, 10, 10), (2, 7, 10, 10), (5, 5, 9, 11), (9, 0, 9, 4), (0, 3, 5, 5)]:
        y = np.r_[np.ones(k1), np.zeros(n1 - k1), np.ones(k0), np.zeros(n0 - k0)]
        t = np.r_[np.ones(n1), np.zeros(n0)]
        res = joint_bounds(y, t, f=lambda a, b: a * (1 - b), B=0)
        p1, p0 = k1 / n1, k0 / n0
        assert res.lower == pytest.approx(max(0.0, p1 - p0), abs=1e-15)
        assert res.upper == pytest.approx(min(p1, 1 - p0), abs=1e-15)


def test_indicator_is_frechet_hoeffding():
    rng = np.random.default_rng(8)
    y1, y0 = rng.integers(0, 6, 40).astype(float), rng.normal(size=25)
    for s, t in [(2, 0.0), (0, -1.0), (5, 3.0), (-1, 0.3), (2.5, 0.1)]:
        F1, F0 = np.mean(y1 <= s), np.mean(y0 <= t)
        assert coupling_mean(y1, y0, f=f"indicator({s}, {t})") == pytest.approx(min(F1, F0), abs=1e-15)
        assert coupling_mean(y1, y0, f=f"indicator( {s},{t} )", coupling="countercomonotone") == pytest.approx(
            max(0.0, F1 + F0 - 1), abs=1e-15)


# ----------------------------------------------------------------------------------------------
# brute force: ties, unequal sizes, weights
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(5))
def test_brute_force_with_ties(seed):
    rng = np.random.default_rng(seed)
    n1, n0 = rng.integers(1, 30, 2)
    y1 = rng.integers(-3, 4, n1).astype(float)
    y0 = rng.choice([0.0, 0.5, 2.0, 7.0], n0)
    for name, fn in NAMED.items():
        for counter in (False, True):
            got = coupling_mean(y1, y0, f=name, coupling="countercomonotone" if counter else "comonotone")
            assert got == pytest.approx(brute_coupling(y1, y0, fn, counter), rel=1e-13, abs=1e-13)


def test_weights_are_multiplicities():
    rng = np.random.default_rng(11)
    y1, y0 = rng.normal(size=12), rng.integers(0, 3, 9).astype(float)
    c1, c0 = rng.integers(0, 5, 12), rng.integers(1, 4, 9)
    c1[0] = 3
    for name in NAMED:
        for cp in ("comonotone", "countercomonotone"):
            got = coupling_mean(y1, y0, f=name, coupling=cp, weights1=c1, weights0=c0)
            want = coupling_mean(np.repeat(y1, c1), np.repeat(y0, c0), f=name, coupling=cp)
            assert got == pytest.approx(want, rel=1e-12, abs=1e-12)
    # scaling the weights changes nothing
    assert coupling_mean(y1, y0, f="product", weights1=c1 * 7.5, weights0=c0) == pytest.approx(
        coupling_mean(y1, y0, f="product", weights1=c1, weights0=c0), rel=1e-13)


def test_callable_and_names_agree_and_inputs_untouched():
    rng = np.random.default_rng(2)
    y1 = pd.Series(rng.normal(size=30))
    y0 = rng.normal(size=20)
    keep1, keep0 = y1.copy(), y0.copy()
    for name, fn in NAMED.items():
        assert coupling_mean(y1, y0, f=name) == pytest.approx(coupling_mean(y1, y0, f=fn), rel=1e-14)
    pd.testing.assert_series_equal(y1, keep1)
    np.testing.assert_array_equal(y0, keep0)


def test_single_values():
    assert coupling_mean([2.0], [3.0], f="product") == 6.0
    assert coupling_mean([2.0], [3.0, 5.0], f="max", coupling="countercomonotone") == 4.0


def test_large_exact_equal_n_matches_sorted_pairs():
    rng = np.random.default_rng(0)
    y1, y0 = rng.normal(size=100_000), rng.exponential(size=100_000)
    want = float(np.mean(np.sort(y1) * np.sort(y0)))
    assert coupling_mean(y1, y0, f="product") == pytest.approx(want, rel=1e-12)
    want = float(np.mean(np.sort(y1) * np.sort(y0)[::-1]))
    assert coupling_mean(y1, y0, f="product", coupling="countercomonotone") == pytest.approx(want, rel=1e-12)


# ----------------------------------------------------------------------------------------------
# bad input
# ----------------------------------------------------------------------------------------------

def test_bad_input_coupling_mean():
    with pytest.raises(TypeError, match="f must be"):
        coupling_mean([1.0], [2.0], f=3)
    with pytest.raises(ValueError, match="unknown f"):
        coupling_mean([1.0], [2.0], f="sqdiff")
    with pytest.raises(ValueError, match="indicator"):
        coupling_mean([1.0], [2.0], f="indicator(a, 1)")
    with pytest.raises(ValueError, match="y1 is empty"):
        coupling_mean([], [2.0], f="product")
    with pytest.raises(ValueError, match="coupling"):
        coupling_mean([1.0], [2.0], f="product", coupling="independent")
    with pytest.raises(ValueError, match="weights1 must be non-negative"):
        coupling_mean([1.0, 2.0], [2.0], f="product", weights1=[1.0, -1.0])
    with pytest.raises(ValueError, match="weights0 has 2 values"):
        coupling_mean([1.0, 2.0], [2.0], f="product", weights0=[1.0, 1.0])
    with pytest.raises(ValueError, match="weights1 sums to zero"):
        coupling_mean([1.0, 2.0], [2.0], f="product", weights1=[0.0, 0.0])
    with pytest.raises(ValueError, match="y0 contains 1 NaN"):
        coupling_mean([1.0], [np.nan], f="product")
    with pytest.raises(TypeError, match="vectorised"):
        coupling_mean([1.0, 2.0], [2.0, 3.0], f=lambda a, b: np.array([1.0, 2.0, 3.0]))


def test_non_vectorised_f_is_refused_not_broadcast():
    # a scalar from f is one pair's value: broadcasting it to every pair gave a wrong mean silently
    msg = "f must be vectorised: it must return one value per pair"
    first_pair = lambda a, b: float(a[0] * b[0])  # noqa: E731
    with pytest.raises(TypeError, match=msg):
        coupling_mean([1.0, 2.0, 3.0], [10.0, 20.0, 30.0], f=first_pair)
    with pytest.raises(TypeError, match=msg):
        coupling_mean([1.0, 2.0], [2.0, 3.0], f=lambda a, b: np.float64(1.0))
    with pytest.raises(TypeError, match=msg):
        coupling_mean([1.0, 2.0], [2.0, 3.0], f=lambda a, b: (a * b)[:, None])
    y, t = np.array([1.0, 2.0, 3.0, 2.0, 4.0, 6.0]), np.array([0, 0, 0, 1, 1, 1])
    for f_class in ("auto", "general"):
        with pytest.raises(TypeError, match=msg):
            joint_bounds(y, t, f=first_pair, f_class=f_class, B=0)


def test_bad_input_joint_bounds():
    y = np.arange(6.0)
    with pytest.raises(ValueError, match="treat must be binary"):
        joint_bounds(y, [0, 1, 2, 0, 1, 0], f="product", B=0)
    with pytest.raises(TypeError, match="treat must be numeric, got text"):   # never read from text
        joint_bounds(y, ["a", "b", "a", "b", "a", "b"], f="product", B=0)
    with pytest.raises(TypeError, match="treat must be numeric, got text"):
        joint_bounds(y, ["0", "1", "0", "1", "0", "1"], f="product", B=0)
    with pytest.raises(ValueError, match="treated .* arm is empty"):
        joint_bounds(y, np.zeros(6), f="product", B=0)
    with pytest.raises(ValueError, match="control .* arm is empty"):
        joint_bounds(y, np.ones(6), f="product", B=0)
    with pytest.raises(ValueError, match="one value per outcome"):
        joint_bounds(y, [0, 1, 0], f="product", B=0)
    with pytest.raises(TypeError, match="f must be"):
        joint_bounds(y, [0, 1] * 3, f=None, B=0)
    with pytest.raises(ValueError, match="propensity must lie strictly inside"):
        joint_bounds(y, [0, 1] * 3, f="product", propensity=[0.5, 0.5, 1.0, 0.5, 0.5, 0.5], B=0)
    with pytest.raises(ValueError, match="propensity must lie strictly inside"):
        joint_bounds(y, [0, 1] * 3, f="product", propensity=[0.5, 0.0, 0.5, 0.5, 0.5, 0.5], B=0)
    with pytest.raises(ValueError, match="propensity has 2 values"):
        joint_bounds(y, [0, 1] * 3, f="product", propensity=[0.5, 0.5], B=0)
    with pytest.raises(ValueError, match="needs strata"):
        joint_bounds(y, [0, 1] * 3, f="product", assumption="comonotone given X", B=0)
    with pytest.raises(ValueError, match="assumption"):
        joint_bounds(y, [0, 1] * 3, f="product", assumption="rank invariance", B=0)
    with pytest.raises(ValueError, match="stratum 'b' has no control"):
        joint_bounds(y, [0, 1, 1, 1, 1, 1], f="product", strata=list("aabbbb"), B=0)
    with pytest.raises(ValueError, match="B must be"):
        joint_bounds(y, [0, 1] * 3, f="product", B=-1)
    with pytest.raises(ValueError, match="conf_level"):
        joint_bounds(y, [0, 1] * 3, f="product", conf_level=1.5, B=0)
    with pytest.raises(ValueError, match="y contains 1 NaN"):
        joint_bounds(np.r_[y[:5], np.nan], [0, 1] * 3, f="product", B=0)
    with pytest.raises(TypeError, match="unexpected keyword"):
        ite_variance_bounds(y, [0, 1] * 3, B=0, foo=1)


def test_non_finite_f_values_are_refused_with_the_pairs():
    log_times = lambda a, b: np.log(a) * b  # noqa: E731  (NaN for a < 0, -inf for a = 0)
    with pytest.raises(ValueError, match=r"f returned non-finite values at 1 \(y1, y0\) pair.*\(-1, 10\) -> nan"):
        coupling_mean([-1.0, 1.0, 2.0], [10.0, 20.0, 30.0], f=log_times)
    with pytest.raises(ValueError, match=r"non-finite values .*\(0, 30\) -> -inf"):
        coupling_mean([0.0, 1.0, 2.0], [10.0, 20.0, 30.0], f=log_times, coupling="countercomonotone")
    # only the pairs the coupling uses matter: f is NaN off the diagonal, the comonotone pairs are on it
    diag = lambda a, b: np.where(a == b, a, np.nan)  # noqa: E731
    assert coupling_mean([0.0, 1.0], [0.0, 1.0], f=diag) == 0.5
    with pytest.raises(ValueError, match="non-finite"):
        coupling_mean([0.0, 1.0], [0.0, 1.0], f=diag, coupling="countercomonotone")
    y, t = np.array([-1.0, 1.0, 2.0, 10.0, 20.0, 30.0]), np.array([1, 1, 1, 0, 0, 0])
    for f_class in ("auto", "general", "supermodular"):
        with pytest.raises(ValueError, match=r"non-finite values .*\(-1, "):
            joint_bounds(y, t, f=log_times, f_class=f_class, B=0)
