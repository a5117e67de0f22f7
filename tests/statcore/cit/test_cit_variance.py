"""The smoother correction of the GCM variance (variance="smoother", the default for krr and forests).

References: the literal definition of the factor (full n x n covariance matrices of the residuals),
the dense residual maps against the smoothers applied to the identity, and a Monte Carlo with the
smoother held fixed, where the corrected statistic must have unit variance and the standard one
must not.
"""
import warnings

import numpy as np
import pytest

from statcore.cit import gcm_test, random_directions, residualize, rpcit
from statcore.cit._gcm_core import AUTO_MAX_N, GCMWarning, smoother_inflation
from statcore.cit._regress import fit_residualizer, fit_residualizers


def nonlinear(n=150, dx=3, dy=2, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.uniform(-2, 2, size=(n, 2))
    x = np.column_stack([np.sin(2 * z[:, 0]), z[:, 0] * z[:, 1], z[:, 1]])[:, :dx] + rng.normal(size=(n, dx))
    y = np.column_stack([np.cos(z[:, 1]), z[:, 0] ** 2])[:, :dy] + rng.normal(size=(n, dy))
    return x, y, z


@pytest.mark.parametrize("regression", ["ols", "ridge", "krr", "rf", "rf_oob"])
def test_dense_residual_map_is_the_smoother_applied_to_the_identity(regression):
    x, _, z = nonlinear(n=80)
    sm = fit_residualizer(x, z, regression=regression, seed=3).smoother
    a = sm.matrix()
    np.testing.assert_allclose(a, sm.residuals(np.eye(80)), atol=1e-12)
    np.testing.assert_allclose(a @ x, fit_residualizer(x, z, regression=regression, seed=3).residuals, atol=1e-10)


@pytest.mark.parametrize("regression", ["ridge", "krr", "rf", "rf_oob"])
def test_inflation_is_the_ratio_of_full_to_diagonal_covariance(regression):
    x, y, z = nonlinear(n=90)
    fx, fy = fit_residualizers([x, y], z, regression=regression, seed=2)
    ax, ay = fx.smoother.residuals(np.eye(90)), fy.smoother.residuals(np.eye(90))
    rx, ry = fx.residuals, fy.residuals

    def literal(u, v):
        cx = ax @ np.diag(u ** 2) @ ax.T        # covariance of Ax x with plug-in variances u^2
        cy = ay @ np.diag(v ** 2) @ ay.T
        return np.sum(cx * cy) / np.sum(np.diag(cx) * np.diag(cy))

    full = smoother_inflation(ax, ay, rx, ry, paired=False, block=7)
    assert full.shape == (3, 2)
    for j in range(3):
        for k in range(2):
            assert full[j, k] == pytest.approx(literal(rx[:, j], ry[:, k]), rel=1e-10)
    wx, wy = random_directions(3, 4, seed=0), random_directions(2, 4, seed=1)
    paired = smoother_inflation(ax, ay, rx @ wx, ry @ wy, paired=True, block=50)
    for p in range(4):
        assert paired[p] == pytest.approx(literal(rx @ wx[:, p], ry @ wy[:, p]), rel=1e-10)


@pytest.mark.parametrize("regression", ["rf", "rf_oob"])
def test_corrected_statistic_has_unit_variance_for_a_fixed_smoother(regression):
    # the smoother is fitted once on a pilot response and then held fixed; pure, heteroscedastic
    # noise gives the null without regression bias, so only the correlation of residual products
    # is left. 20,000 draws: the Monte Carlo s.e. of mean(T^2) is about sqrt(2 / 20000) = 0.01.
    rng = np.random.default_rng(20261203)
    n, draws = 200, 20000
    z = rng.uniform(-2, 2, size=(n, 2))
    pilot = np.column_stack([np.sin(2 * z[:, 0]), z[:, 0] * z[:, 1]]) + 0.5 * rng.normal(size=(n, 2))
    a = fit_residualizer(pilot, z, regression=regression, seed=1).smoother.matrix()
    rx = a @ (rng.normal(size=(n, draws)) * (1 + 0.5 * np.abs(z[:, :1])))
    ry = a @ rng.normal(size=(n, draws))
    prod = rx * ry
    t = np.sqrt(n) * prod.mean(axis=0) / prod.std(axis=0)
    kappa = smoother_inflation(a, a, rx, ry, paired=True)
    se = np.sqrt(2.0 / draws)
    assert np.mean(t ** 2) > 1 + 5 * se                       # the standard variance is too small
    assert abs(np.mean(t ** 2 / kappa) - 1) < 3 * se, np.mean(t ** 2 / kappa)


@pytest.mark.parametrize("regression", ["krr", "rf"])
def test_default_corrects_local_smoothers_and_reports_the_factor(regression):
    x, y, z = nonlinear()
    std = gcm_test(x, y, z, regression=regression, seed=4, variance="standard")
    cor = gcm_test(x, y, z, regression=regression, seed=4)
    assert std.extras["variance"] == "standard" and "variance_inflation" not in std.extras
    assert cor.extras["variance"] == "smoother"
    infl = cor.extras["variance_inflation"]
    assert infl.shape == (3, 2) and np.all(infl > 1)
    np.testing.assert_allclose(cor.extras["statistics"], std.extras["statistics"] / np.sqrt(infl), rtol=1e-12)
    assert cor.method == ("Generalised covariance measure test (max statistic, multiplier bootstrap; "
                          "smoother-corrected variance)")
    one = gcm_test(x[:, 0], y[:, 0], z, regression=regression, seed=4)
    one_std = gcm_test(x[:, 0], y[:, 0], z, regression=regression, seed=4, variance="standard")
    assert one.statistic == pytest.approx(one_std.statistic / np.sqrt(one.extras["variance_inflation"][0, 0]))
    assert one.estimate == one_std.estimate
    q = gcm_test(x, y, z, regression=regression, seed=4, kind="quadratic")
    # n (D^-1 mean)' S^-1 (D^-1 mean), S the products' covariance, D = diag(sqrt(factor))
    fx, fy = fit_residualizers([x, y], z, regression=regression, seed=4)
    prod = (fx.residuals[:, :, None] * fy.residuals[:, None, :]).reshape(150, -1)
    m = prod.mean(axis=0) / np.sqrt(infl.ravel())
    cov = np.cov(prod, rowvar=False, bias=True)
    assert q.statistic == pytest.approx(150 * m @ np.linalg.solve(cov, m), rel=1e-9)


def test_quadratic_form_with_one_pair_is_the_squared_corrected_statistic():
    x, y, z = nonlinear()
    t = gcm_test(x[:, 0], y[:, 0], z, regression="krr")
    q = gcm_test(x[:, 0], y[:, 0], z, regression="krr", kind="quadratic")
    assert q.statistic == pytest.approx(t.statistic ** 2, rel=1e-10)


def test_ols_and_ridge_keep_the_published_gcm():
    x, y, z = nonlinear()
    for reg in ["ols", "ridge"]:
        res = gcm_test(x, y, z, regression=reg, seed=1)
        assert res.extras["variance"] == "standard"
        assert res.p_value == gcm_test(x, y, z, regression=reg, seed=1, variance="standard").p_value
    # asked for, the correction applies to them too (and changes little: O(p / n))
    cor = gcm_test(x, y, z, regression="ols", variance="smoother")
    assert np.all(np.abs(cor.extras["variance_inflation"] - 1) < 0.05)


def test_corrected_pvalue_is_scale_invariant():
    x, y, z = nonlinear(seed=5)
    scale_x, scale_y = np.array([1e-3, 1.0, 1e4]), np.array([50.0, 1e-2])
    a = gcm_test(x, y, z, regression="krr", seed=8)
    b = gcm_test(x * scale_x, y * scale_y, z, regression="krr", seed=8)
    np.testing.assert_allclose(b.extras["variance_inflation"], a.extras["variance_inflation"], rtol=1e-8)
    assert b.statistic == pytest.approx(a.statistic, rel=1e-8) and b.p_value == a.p_value
    # a forest's splits may tie-break differently on rescaled targets; for fixed maps the factor is
    # exactly invariant to the scale of each residual column
    fx, fy = fit_residualizers([x, y], z, regression="rf", seed=8)
    ax, ay = fx.smoother.matrix(), fy.smoother.matrix()
    k1 = smoother_inflation(ax, ay, fx.residuals, fy.residuals, paired=False)
    k2 = smoother_inflation(ax, ay, fx.residuals * scale_x, fy.residuals * scale_y, paired=False)
    np.testing.assert_allclose(k2, k1, rtol=1e-10)


def test_rpcit_corrects_each_projection():
    x, y, z = nonlinear(n=200, seed=6)
    std = rpcit(x, y, z, k=12, seed=3, regression="rf", variance="standard")
    cor = rpcit(x, y, z, k=12, seed=3, regression="rf", aggregate="maxboot")
    infl = cor.extras["variance_inflation"]
    assert infl.shape == (12,) and cor.extras["variance"] == "smoother"
    np.testing.assert_allclose(cor.extras["statistics"], std.extras["statistics"] / np.sqrt(infl), rtol=1e-12)
    assert cor.statistic == pytest.approx(np.abs(cor.extras["statistics"]).max(), rel=1e-12)
    assert "smoother-corrected variance" in cor.method
    # the factor of a projection is that of the projected residuals under the same maps
    rng = np.random.default_rng(3)
    wx, wy = random_directions(3, 12, seed=rng), random_directions(2, 12, seed=rng)
    fx, fy = fit_residualizers([x, y], z, regression="rf", seed=rng)
    ref = smoother_inflation(fx.smoother.matrix(), fy.smoother.matrix(), fx.residuals @ wx, fy.residuals @ wy, True)
    np.testing.assert_allclose(infl, ref, rtol=1e-10)


def test_variance_argument_errors():
    x, y, z = nonlinear()
    rx, ry = residualize(x, z, regression="krr"), residualize(y, z, regression="krr")
    with pytest.raises(ValueError, match="variance"):
        gcm_test(x, y, z, variance="sandwich")
    with pytest.raises(ValueError, match="variance='smoother' needs"):
        gcm_test(None, None, resid_x=rx, resid_y=ry, variance="smoother")
    from sklearn.linear_model import LinearRegression
    with pytest.raises(ValueError, match="variance='smoother' needs"):
        gcm_test(x, y, z, regression=LinearRegression(), variance="smoother")
    with pytest.raises(ValueError, match="variance='smoother' needs"):
        gcm_test(x, y, None, variance="smoother")
    with pytest.raises(ValueError, match="needs base='gcm'"):
        rpcit(x, y, z, base="parcor", variance="smoother")
    # precomputed residuals: the default is the standard variance, silently and correctly
    assert gcm_test(None, None, resid_x=rx, resid_y=ry).extras["variance"] == "standard"


def test_auto_keeps_standard_variance_above_the_size_cap(monkeypatch):
    from statcore.cit import _gcm_core as gcm_module

    x, y, z = nonlinear(n=60)
    monkeypatch.setattr(gcm_module, "AUTO_MAX_N", 50)
    with pytest.warns(GCMWarning, match="variance='auto' keeps the standard GCM variance at n = 60"):
        res = gcm_test(x, y, z, regression="krr")
    assert res.extras["variance"] == "standard"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gcm_test(x, y, z, regression="krr", variance="smoother").extras["variance"] == "smoother"
    assert AUTO_MAX_N == 10_000
