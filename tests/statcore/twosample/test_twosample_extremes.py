"""Two-sample statistics at extreme magnitudes (issue 29): energy_test, mmd_test and frechet_distance
are computed on unit-scale data, so that values of 1e300 or 1e-300 give the statistic scaled exactly
(E is homogeneous of degree 1, FD of degree 2, MMD with the median bandwidth of degree 0) and the
same p-value; where no finite answer exists (KID's cubic kernel, FD beyond float64) the error names
the sample."""
import numpy as np
import pytest

from statcore import energy_test, frechet_distance, kid, mmd_test

RNG = np.random.default_rng(29)
X = RNG.normal(size=(30, 2))
Y = RNG.normal(0.5, size=(25, 2))


@pytest.mark.parametrize("scale, shift", [(1e150, 0.0), (1e-300, 0.0), (3.7, 0.0), (1.0, 1e6)])
def test_energy_and_mmd_are_scale_and_shift_invariant(scale, shift):
    ref_e = energy_test(X, Y, B=199, seed=1)
    ref_m = mmd_test(X, Y, B=199, seed=1)
    e = energy_test(X * scale + shift, Y * scale + shift, B=199, seed=1)
    m = mmd_test(X * scale + shift, Y * scale + shift, B=199, seed=1)
    assert e.statistic / scale == pytest.approx(ref_e.statistic, rel=1e-9) and e.p_value == ref_e.p_value
    assert m.statistic == pytest.approx(ref_m.statistic, rel=1e-9) and m.p_value == ref_m.p_value
    assert m.extras["bandwidth"] / scale == pytest.approx(ref_m.extras["bandwidth"], rel=1e-9)


def test_energy_with_one_value_of_1e300_is_finite():
    """One value of 1e300 made every squared distance inf: statistic NaN with p = 0.02."""
    x = X[:, :1].copy()
    x[0, 0] = 1e300
    res = energy_test(x, Y[:, :1], B=99, seed=1)
    n1, n2 = 30, 25
    # the outlier's distances dominate: E = n1 n2 / (n1 + n2) (2 * 1e300 / n1 - 2 (n1 - 1) 1e300 / n1^2)
    expected = n1 * n2 / (n1 + n2) * (2e300 / n1 - 2 * (n1 - 1) * 1e300 / n1 ** 2)
    assert np.isfinite(res.statistic) and res.statistic == pytest.approx(expected, rel=1e-12)
    assert np.isfinite(res.extras["replicates"]).all()


@pytest.mark.parametrize("scale", [1e150, 1e-100, 3.7])
def test_frechet_distance_is_homogeneous_of_degree_two(scale):
    ref = frechet_distance(X, Y, B=20, seed=1)
    res = frechet_distance(X * scale, Y * scale, B=20, seed=1)
    assert res.distance / scale ** 2 == pytest.approx(ref.distance, rel=1e-9)
    assert np.allclose(np.asarray(res.conf_int) / scale ** 2, ref.conf_int, rtol=1e-9)


def test_no_finite_answer_is_an_error_naming_the_sample():
    x = X.copy()
    x[0, 0] = 1e300
    with pytest.raises(ValueError, match=r"^x holds features as large as 1e\+300.*Frechet"):
        frechet_distance(x, Y)
    with pytest.raises(ValueError, match=r"^y holds features as large as 1e\+300.*cubic"):
        kid(Y, x, subsets=3, subset_size=20, seed=1)
    with pytest.raises(ValueError, match=r"^x holds features.*cubic"):
        mmd_test(x, Y, kernel="polynomial", B=19, seed=1)


# energy_test with one far outlier: the permutation distribution against exact arithmetic. Oracle: the
# same permutations (drawn in order from the seed's Generator, as the engine draws them) evaluated
# exactly (fractions in one dimension, 800-digit mpmath in two), and the p-value (1 + #{E_b >= E}) / (B + 1).

def _exact_energy(z, n1, perm, sqrt, num):
    """The E-statistic of the split perm[:n1] | perm[n1:] in exact (or high-precision) arithmetic."""
    n = len(z)
    n2 = n - n1
    gx, gy = perm[:n1], perm[n1:]

    def dist(i, j):
        if len(z[i]) == 1:  # one dimension: |a - b|, exact in fractions
            return abs(num(z[i][0]) - num(z[j][0]))
        return sqrt(sum((num(a) - num(b)) ** 2 for a, b in zip(z[i], z[j])))

    D = [[dist(i, j) for j in range(n)] for i in range(n)]
    sxy = sum(D[i][j] for i in gx for j in gy)
    sxx = sum(D[i][j] for i in gx for j in gx)
    syy = sum(D[i][j] for i in gy for j in gy)
    return num(n1 * n2) / num(n) * (2 * sxy / num(n1 * n2) - sxx / num(n1 ** 2) - syy / num(n2 ** 2))


def _exact_pvalue(x, y, B, seed, sqrt, num):
    z = [tuple(r) for r in np.vstack([x, y])]
    n1 = len(x)
    rng = np.random.default_rng(seed)
    perms = [rng.permutation(len(z)) for _ in range(B)]
    obs = _exact_energy(z, n1, np.arange(len(z)), sqrt, num)
    reps = [_exact_energy(z, n1, p, sqrt, num) for p in perms]
    return (1 + sum(r >= obs for r in reps)) / (B + 1), obs


@pytest.mark.parametrize("outlier, n2", [(1e300, 12), (1e300, 9), (-1e300, 12), (1e14, 12), (1e6, 9)])
def test_energy_with_a_far_outlier_keeps_the_bulk_information_1d(outlier, n2):
    """The outlier's contribution is the same for every split that leaves it in its sample: in float64
    it swamped the bulk's (p = 1 for any data, R's eqdist.etest gives E = NaN); the statistic is now
    compared without it, as exact arithmetic compares."""
    from fractions import Fraction

    rng = np.random.default_rng(5)
    x = rng.normal(size=(12, 1))
    y = rng.normal(2.0, size=(n2, 1))
    x[3, 0] = outlier
    res = energy_test(x, y, B=99, seed=7)
    p, obs = _exact_pvalue(x, y, 99, 7, sqrt=None, num=Fraction)
    assert res.p_value == p
    if n2 == 12:
        # equal sizes: the outlier's term is the same in every split, and the bulk's shift is found; with
        # unequal sizes it is larger in every split that moves the outlier to the smaller sample, and
        # exact arithmetic counts those splits as at least as extreme (p about n2 / (n1 + n2) or more)
        assert res.p_value < 0.05
    assert res.statistic == pytest.approx(float(obs), rel=1e-12)


def test_energy_with_a_far_outlier_keeps_the_bulk_information_2d():
    mpmath = pytest.importorskip("mpmath")
    mp = mpmath.mp.clone() if hasattr(mpmath.mp, "clone") else mpmath.mp
    mp.dps = 800
    rng = np.random.default_rng(6)
    x = rng.normal(size=(10, 2))
    y = rng.normal(1.5, size=(8, 2))
    x[0] = [1e300, -3e299]
    res = energy_test(x, y, B=59, seed=2)
    p, obs = _exact_pvalue(x, y, 59, 2, sqrt=mp.sqrt, num=mp.mpf)
    assert res.p_value == p
    assert res.statistic == pytest.approx(float(obs), rel=1e-12)


def test_energy_with_an_outlier_in_ordinary_data_matches_exact_arithmetic_under_the_null():
    """Same distribution in both samples: the p-value is the exact one (not 1, not tiny)."""
    from fractions import Fraction

    rng = np.random.default_rng(9)
    x, y = rng.normal(size=(11, 1)), rng.normal(size=(11, 1))
    y[4, 0] = 1e250
    res = energy_test(x, y, B=99, seed=3)
    p, _ = _exact_pvalue(x, y, 99, 3, sqrt=None, num=Fraction)
    assert res.p_value == p and 0.05 < p < 1.0


def test_energy_warns_when_the_bulk_vanishes_beside_the_outlier():
    """A bulk of size 1e-300 beside a value of 1e300: no float64 unit holds both, the permuted
    statistics tie with the observed one, and a StatcoreWarning says so (p counts the ties)."""
    from statcore import StatcoreWarning

    rng = np.random.default_rng(4)
    x, y = rng.normal(size=(10, 1)) * 1e-300, rng.normal(3.0, size=(10, 1)) * 1e-300
    x[0, 0] = 1e300
    with pytest.warns(StatcoreWarning, match="2\\^1000"):
        res = energy_test(x, y, B=49, seed=1)
    assert res.p_value == 1.0 and np.isfinite(res.statistic)
