"""The independence statistics at extreme magnitudes (issue 29): each sample is brought to order 1 by a
power of two before its distances or kernel are formed, so dCor, pdCor, HSIC (median bandwidth) and the
tests' p-values do not change when the data are multiplied by 1e-300 or 1e300 (ZeroDivisionError, NaN
and dCor = 1.0 before), and dCov-type values scale with their degree."""
import numpy as np
import pytest

import statcore as sc

RNG = np.random.default_rng(17)
X = RNG.normal(size=(40, 2))
Y = X[:, 0] ** 2 + RNG.normal(size=40)
Z = X[:, 1] + RNG.normal(size=40)


@pytest.mark.parametrize("s", [1e-300, 1e300, 1e-150, 5.0])
def test_scale_free_statistics_do_not_change(s):
    for f in (sc.dcor, sc.dcor_u, sc.hsic):
        assert f(X * s, Y * s) == pytest.approx(f(X, Y), rel=1e-9), f.__name__
    assert sc.pdcor(X * s, Y * s, Z * s) == pytest.approx(sc.pdcor(X, Y, Z), rel=1e-9)
    assert sc.hsic(X * s, Y * s, bandwidth=[s, 2 * s]) == pytest.approx(sc.hsic(X, Y, bandwidth=[1.0, 2.0]), rel=1e-9)
    for test, kw in ((sc.dcor_test, {"B": 99}), (sc.dcov_test, {"B": 99}), (sc.hsic_test, {}),
                     (sc.hsic_test, {"method": "permutation", "B": 99})):
        assert test(X * s, Y * s, seed=1, **kw).p_value == pytest.approx(test(X, Y, seed=1, **kw).p_value, rel=1e-9)
    a, b = sc.pdcor_test(X * s, Y * s, Z * s, B=99, seed=1), sc.pdcor_test(X, Y, Z, B=99, seed=1)
    assert a.statistic == pytest.approx(b.statistic, rel=1e-9) and a.p_value == pytest.approx(b.p_value, rel=1e-9)
    assert sc.dcor_test(X * s, Y * s, method="t").p_value == pytest.approx(sc.dcor_test(X, Y, method="t").p_value,
                                                                          rel=1e-9)


@pytest.mark.parametrize("s", [1e-150, 1e100, 5.0])
def test_dcov_type_values_scale_with_their_degree(s):
    assert sc.dcov(X * s, Y * s) / s == pytest.approx(sc.dcov(X, Y), rel=1e-9)
    assert sc.dcov_u(X * s, Y * s) / s ** 2 == pytest.approx(sc.dcov_u(X, Y), rel=1e-9)
    assert sc.pdcov(X * s, Y * s, Z * s) / s ** 2 == pytest.approx(sc.pdcov(X, Y, Z), rel=1e-9)
    a, b = sc.dcov_test(X * s, Y * s, B=49, seed=1), sc.dcov_test(X, Y, B=49, seed=1)
    assert a.statistic / s ** 2 == pytest.approx(b.statistic, rel=1e-9)
    assert np.allclose(a.extras["replicates"] / s ** 2, b.extras["replicates"], rtol=1e-9)
    est_a, est_b = sc.dcor_test(X * s, Y * s, B=49, seed=1).estimate, sc.dcor_test(X, Y, B=49, seed=1).estimate
    for k in ("dCov", "dVar(X)", "dVar(Y)"):
        assert est_a[k] / s == pytest.approx(est_b[k], rel=1e-9), k
