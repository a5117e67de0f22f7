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
