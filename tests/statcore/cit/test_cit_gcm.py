"""GCM test and the multi-output regressions behind it: closed forms, pgmpy parity, invariances, bad input."""
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from statcore._result import HTest
from statcore.cit import GCMWarning, fit_residualizer, gcm_test, residualize, rpcit
from statcore.cit._gcm_core import max_bootstrap_pvalue


def linear_data(n=300, dx=1, dy=1, dz=2, seed=0, dep=0.0):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, dz))
    x = z @ rng.normal(size=(dz, dx)) + rng.normal(size=(n, dx))
    y = z @ rng.normal(size=(dz, dy)) + rng.normal(size=(n, dy)) + dep * x[:, :1]
    return x, y, z


def direct_gcm(x, y, z):
    """Shah & Peters (2020), eq. (3): least-squares residuals, T = sqrt(n) mean(R) / sd(R)."""
    n = len(x)
    a = np.column_stack([np.ones(n), z])
    rx = x - a @ np.linalg.lstsq(a, x, rcond=None)[0]
    ry = y - a @ np.linalg.lstsq(a, y, rcond=None)[0]
    prod = rx * ry
    t = np.sqrt(n) * prod.mean() / np.sqrt(np.mean(prod ** 2) - prod.mean() ** 2)
    return t, 2 * stats.norm.sf(abs(t)), prod.mean()


# ----------------------------------------------------------------------------------------------
# scalar GCM: direct computation and pgmpy
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dep", [0.0, 0.15])
def test_scalar_equals_direct_computation(dep):
    x, y, z = linear_data(dep=dep, seed=3)
    res = gcm_test(x[:, 0], y[:, 0], z)
    t, p, m = direct_gcm(x[:, 0], y[:, 0], z)
    assert isinstance(res, HTest)
    assert res.statistic == pytest.approx(t, abs=1e-10)
    assert res.p_value == pytest.approx(p, abs=1e-10, rel=1e-10)
    assert res.estimate["generalised covariance"] == pytest.approx(m, abs=1e-12)


def test_scalar_one_sided_and_no_z():
    x, y, _ = linear_data(seed=5, dep=0.1)
    two = gcm_test(x, y, None)
    t = two.statistic
    xc, yc = x[:, 0] - x.mean(), y[:, 0] - y.mean()
    prod = xc * yc
    assert t == pytest.approx(np.sqrt(len(x)) * prod.mean() / prod.std(), abs=1e-12)
    assert gcm_test(x, y, alternative="greater").p_value == pytest.approx(stats.norm.sf(t), abs=1e-14)
    assert gcm_test(x, y, alternative="less").p_value == pytest.approx(stats.norm.cdf(t), abs=1e-14)
    assert gcm_test(x, y, np.empty((len(x), 0))).statistic == pytest.approx(t, abs=1e-14)


def test_scalar_equals_pgmpy():
    pytest.importorskip("pgmpy")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pgmpy.ci_tests import GCM
        from pgmpy.estimators.CITests import gcm as gcm_fn
    for seed, dep in [(0, 0.0), (1, 0.2), (2, -0.1)]:
        x, y, z = linear_data(n=250, dz=3, seed=seed, dep=dep)
        data = pd.DataFrame(np.column_stack([x, y, z]), columns=["x", "y", "a", "b", "c"])
        res = gcm_test(x, y, z)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            test = GCM(data)
            test("x", "y", ["a", "b", "c"])
            t_old, p_old = gcm_fn("x", "y", ["a", "b", "c"], data, boolean=False)
        assert res.statistic == pytest.approx(test.statistic_, abs=1e-10)
        assert res.p_value == pytest.approx(test.p_value_, abs=1e-10)
        assert res.statistic == pytest.approx(t_old, abs=1e-10)
        assert res.p_value == pytest.approx(p_old, abs=1e-10)


def test_pandas_input_and_inputs_unchanged():
    x, y, z = linear_data(seed=7)
    xs, ys = pd.Series(x[:, 0], name="a"), pd.Series(y[:, 0], name="b")
    zf = pd.DataFrame(z, columns=["u", "v"])
    copies = [xs.copy(), ys.copy(), zf.copy()]
    res = gcm_test(xs, ys, zf)
    assert res.p_value == pytest.approx(gcm_test(x[:, 0], y[:, 0], z).p_value, rel=1e-12)
    pd.testing.assert_series_equal(xs, copies[0])
    pd.testing.assert_series_equal(ys, copies[1])
    pd.testing.assert_frame_equal(zf, copies[2])
    text = str(res)
    assert "Generalised covariance measure test" in text and "data:  x and y given z" in text


# ----------------------------------------------------------------------------------------------
# multivariate: max (bootstrap) and quadratic forms
# ----------------------------------------------------------------------------------------------

def test_max_pvalue_invariant_to_rescaling_residuals():
    x, y, z = linear_data(n=200, dx=3, dy=2, seed=11, dep=0.12)
    rx, ry = residualize(x, z), residualize(y, z)
    base = gcm_test(None, None, resid_x=rx, resid_y=ry, kind="max", seed=4)
    scaled = gcm_test(None, None, resid_x=rx * [1.0, 100.0, 0.01], resid_y=ry * [1e3, 1.0], kind="max", seed=4)
    assert scaled.p_value == base.p_value
    assert scaled.statistic == pytest.approx(base.statistic, rel=1e-10)
    # and through the data: rescaling x's columns rescales the OLS residuals
    a = gcm_test(x, y, z, seed=9)
    b = gcm_test(x * [5.0, 0.2, 30.0], y * [0.1, 7.0], z, seed=9)
    assert a.method.startswith("Generalised covariance measure test (max")
    assert b.p_value == a.p_value


def test_max_bootstrap_matches_brute_force():
    x, y, z = linear_data(n=120, dx=2, dy=3, seed=2, dep=0.1)
    rx, ry = residualize(x, z), residualize(y, z)
    prod = np.column_stack([rx[:, j] * ry[:, k] for j in range(2) for k in range(3)])
    n = len(prod)
    tstat = np.sqrt(n) * prod.mean(0) / prod.std(0)
    rng = np.random.default_rng(123)
    exceed = 0
    for _ in range(299):
        e = rng.standard_normal(n)
        draw = np.abs(e @ ((prod - prod.mean(0)) / prod.std(0))) / np.sqrt(n)
        exceed += draw.max() >= np.abs(tstat).max()
    s, p = max_bootstrap_pvalue(prod, tstat, 299, np.random.default_rng(123))
    assert s == pytest.approx(np.abs(tstat).max(), rel=1e-12)
    assert p == (1 + exceed) / 300
    res = gcm_test(None, None, resid_x=rx, resid_y=ry, kind="max", B=299, seed=123)
    assert res.p_value == p
    assert res.extras["statistics"].shape == (2, 3)
    np.testing.assert_allclose(res.extras["statistics"].ravel(), tstat, rtol=1e-10)


def test_max_one_pair_approximates_normal():
    x, y, z = linear_data(n=400, seed=8, dep=0.1)
    scalar = gcm_test(x, y, z)
    boot = gcm_test(x, y, z, kind="max", B=9999, seed=0)
    assert boot.statistic == pytest.approx(abs(scalar.statistic), rel=1e-12)
    se = np.sqrt(scalar.p_value * (1 - scalar.p_value) / 9999)
    assert abs(boot.p_value - scalar.p_value) < 4 * se + 1e-3


def test_quadratic_form_closed_form():
    x, y, z = linear_data(n=300, dx=2, dy=2, seed=4, dep=0.1)
    res = gcm_test(x, y, z, kind="quadratic")
    rx, ry = residualize(x, z), residualize(y, z)
    prod = np.column_stack([rx[:, j] * ry[:, k] for j in range(2) for k in range(2)])
    m = prod.mean(0)
    cov = np.cov(prod, rowvar=False, bias=True)
    q = len(prod) * m @ np.linalg.solve(cov, m)
    assert res.statistic == pytest.approx(q, rel=1e-10)
    assert res.parameter["df"] == 4
    assert res.p_value == pytest.approx(stats.chi2.sf(q, 4), rel=1e-10)
    # one pair: the quadratic form is T^2
    one = gcm_test(x[:, 0], y[:, 0], z, kind="quadratic")
    assert one.statistic == pytest.approx(gcm_test(x[:, 0], y[:, 0], z).statistic ** 2, rel=1e-10)
    assert one.p_value == pytest.approx(gcm_test(x[:, 0], y[:, 0], z).p_value, rel=1e-10)


def test_quadratic_singular_covariance_warns():
    x, y, z = linear_data(n=200, dx=1, dy=2, seed=6)
    xx = np.column_stack([x[:, 0], 2 * x[:, 0]])  # identical products up to scale
    with pytest.warns(GCMWarning, match="singular"):
        res = gcm_test(xx, y, z, kind="quadratic")
    assert res.parameter["df"] == 2


def test_vanishing_residuals_warn():
    rng = np.random.default_rng(0)
    z = rng.normal(size=(100, 2))
    x = z @ [1.0, 2.0]
    y = rng.normal(size=100)
    with pytest.warns(GCMWarning, match="function of z"):
        gcm_test(x, y, z)


# ----------------------------------------------------------------------------------------------
# regressions
# ----------------------------------------------------------------------------------------------

def test_ols_matches_sklearn_and_multioutput():
    from sklearn.linear_model import LinearRegression

    x, y, z = linear_data(n=150, dx=4, seed=1)
    r = residualize(x, z)
    ref = x - LinearRegression().fit(z, x).predict(z)
    np.testing.assert_allclose(r, ref, atol=1e-10)
    np.testing.assert_allclose(residualize(x, z, regression=LinearRegression()), ref, atol=1e-10)
    for j in range(4):
        np.testing.assert_allclose(residualize(x[:, j], z)[:, 0], ref[:, j], atol=1e-10)


def test_ridge_is_sklearn_ridge_at_the_gcv_penalty():
    from sklearn.linear_model import Ridge

    rng = np.random.default_rng(3)
    z = rng.normal(size=(80, 6)) * [1, 2, 3, 0.5, 1, 10]
    v = z[:, :2] @ [[1.0, 0.5], [0.2, -1.0]] + rng.normal(size=(80, 2)) * 2
    fit = fit_residualizer(v, z, regression="ridge")
    zs = (z - z.mean(0)) / z.std(0)
    ref = v - Ridge(alpha=fit.smoother.penalty).fit(zs, v).predict(zs)
    np.testing.assert_allclose(fit.residuals, ref, atol=1e-9)
    # the penalty minimises the equally weighted GCV, computed with explicit hat matrices
    def gcv(pen):
        a = np.column_stack([np.ones(80), zs])
        pmat = np.diag([0.0] + [pen] * 6)
        hat = a @ np.linalg.solve(a.T @ a + pmat, a.T)
        res = v - hat @ v
        w = 1 / ((v - v.mean(0)) ** 2).sum(0)
        return 80 * (res ** 2).sum(0) @ w / (80 - np.trace(hat)) ** 2
    best = gcv(fit.smoother.penalty)
    for factor in [0.5, 0.8, 1.25, 2.0]:
        assert best <= gcv(fit.smoother.penalty * factor) + 1e-12


def test_krr_is_explicit_kernel_ridge():
    rng = np.random.default_rng(4)
    z = rng.normal(size=(120, 2))
    v = np.column_stack([np.sin(2 * z[:, 0]), z[:, 1] ** 2]) + 0.3 * rng.normal(size=(120, 2))
    fit = fit_residualizer(v, z, regression="krr")
    zs = (z - z.mean(0)) / z.std(0)
    d2 = ((zs[:, None, :] - zs[None, :, :]) ** 2).sum(-1)
    kern = np.exp(-d2 / np.median(d2[np.triu_indices(120, 1)]))
    h = np.eye(120) - 1 / 120
    kc = h @ kern @ h
    vc = v - v.mean(0)
    ref = vc - kc @ np.linalg.solve(kc + fit.smoother.penalty * np.eye(120), vc)
    np.testing.assert_allclose(fit.residuals, ref, atol=1e-8)
    # nonlinear signal is removed far better than by OLS
    assert (fit.residuals ** 2).sum() < 0.5 * (residualize(v, z) ** 2).sum()


def test_rf_and_sklearn_instances():
    from sklearn.neighbors import KNeighborsRegressor

    rng = np.random.default_rng(5)
    z = rng.normal(size=(300, 2))
    v = np.column_stack([np.sin(2 * z[:, 0]), np.abs(z[:, 1])]) + 0.2 * rng.normal(size=(300, 2))
    r1 = residualize(v, z, regression="rf", seed=1)
    assert r1.shape == (300, 2)
    np.testing.assert_array_equal(r1, residualize(v, z, regression="rf", seed=1))
    assert (r1 ** 2).sum() < 0.6 * (residualize(v, z) ** 2).sum()
    knn = residualize(v, z, regression=KNeighborsRegressor(10))
    assert knn.shape == (300, 2)
    res = gcm_test(v[:, 0], v[:, 1], z, regression="rf", seed=2)
    assert res.extras["regression"] == "rf" and 0 <= res.p_value <= 1


# ----------------------------------------------------------------------------------------------
# bad input
# ----------------------------------------------------------------------------------------------

def test_bad_input():
    x, y, z = linear_data(n=50, dx=2, seed=0)
    with pytest.raises(ValueError, match="same number of observations"):
        gcm_test(x[:40], y, z)
    with pytest.raises(ValueError, match="z.*constant"):
        gcm_test(x, y, np.column_stack([z, np.ones(50)]))
    with pytest.raises(ValueError, match="x has constant"):
        gcm_test(np.column_stack([x[:, 0], np.full(50, 3.0)]), y, z)
    xn = x.copy()
    xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="x contains 1 NaN value.*nan_policy='omit'"):
        gcm_test(xn, y, z)
    with pytest.raises(ValueError, match="needs at least 8 observations"):
        gcm_test(x[:7], y[:7], np.random.default_rng(0).normal(size=(7, 5)))
    with pytest.raises(ValueError, match="kind='scalar'"):
        gcm_test(x, y, z, kind="scalar")
    with pytest.raises(ValueError, match="unknown kind"):
        gcm_test(x, y, z, kind="sum")
    with pytest.raises(ValueError, match="B must be >= 1"):
        gcm_test(x, y, z, B=0)
    with pytest.raises(ValueError, match="unknown regression"):
        gcm_test(x, y, z, regression="lasso")
    with pytest.raises(TypeError, match="regression must be"):
        gcm_test(x, y, z, regression=3)
    with pytest.raises(ValueError, match="quadratic"):
        gcm_test(x, y, z, kind="quadratic", alternative="greater")
    with pytest.raises(ValueError, match="y is required"):
        gcm_test(x, None, z)
    with pytest.raises(TypeError, match="x must be numeric, got text"):
        gcm_test(np.array(["a"] * 50), y, z)


def test_invariances():
    # row order, swapping x and y, affine maps of x: the same test (a negative scale flips T's sign)
    x, y, z = linear_data(n=150, seed=12, dep=0.1)
    base = gcm_test(x, y, z)
    perm = np.random.default_rng(0).permutation(150)
    assert gcm_test(x[perm], y[perm], z[perm]).statistic == pytest.approx(base.statistic, rel=1e-10)
    assert gcm_test(y, x, z).statistic == pytest.approx(base.statistic, rel=1e-10)
    assert gcm_test(3.0 * x + 7.0, y, z).statistic == pytest.approx(base.statistic, rel=1e-10)
    assert gcm_test(-2.0 * x, y, z).statistic == pytest.approx(-base.statistic, rel=1e-10)
    assert gcm_test(-2.0 * x, y, z).p_value == pytest.approx(base.p_value, rel=1e-10)
    # quadratic form: invariant to any invertible linear map of the product coordinates' sources
    xx = np.column_stack([x[:, 0], y[:, 0] + x[:, 0]])
    a = gcm_test(xx, np.column_stack([y[:, 0], z[:, 0] ** 2]), z, kind="quadratic")
    mix = np.array([[2.0, 1.0], [0.5, -1.0]])
    b = gcm_test(xx @ mix, np.column_stack([y[:, 0], z[:, 0] ** 2]), z, kind="quadratic")
    assert b.statistic == pytest.approx(a.statistic, rel=1e-8)


def test_max_one_sided_matches_brute_force():
    x, y, z = linear_data(n=100, dx=2, dy=2, seed=13, dep=0.2)
    rx, ry = residualize(x, z), residualize(y, z)
    prod = np.column_stack([rx[:, j] * ry[:, k] for j in range(2) for k in range(2)])
    n = len(prod)
    tstat = np.sqrt(n) * prod.mean(0) / prod.std(0)
    std = (prod - prod.mean(0)) / prod.std(0) / np.sqrt(n)
    for alt, sign in [("greater", 1.0), ("less", -1.0)]:
        rng = np.random.default_rng(77)
        draws = (rng.standard_normal((199, n)) @ std * sign).max(axis=1)
        expected = (1 + np.sum(draws >= (sign * tstat).max())) / 200
        res = gcm_test(x, y, z, kind="max", B=199, alternative=alt, seed=77)
        assert res.statistic == pytest.approx((sign * tstat).max(), rel=1e-10)
        assert res.p_value == expected


# ----------------------------------------------------------------------------------------------
# minimum sample sizes per regression
# ----------------------------------------------------------------------------------------------

def test_ols_needs_two_residual_degrees_of_freedom():
    # n = p + 2 leaves one residual df: the residuals of x and y are proportional and the p-value was a
    # function of z alone (0.002191 for every x, y). Refused; n = p + 3 is accepted and depends on x, y.
    rng = np.random.default_rng(5)
    z = rng.normal(size=(5, 3))
    with pytest.raises(ValueError, match=r"regression='ols' on z with 3 column\(s\) needs at least 6 "
                                         r"observations.*got n = 5"):
        gcm_test(rng.normal(size=5), rng.normal(size=5), z)
    z6 = rng.normal(size=(6, 3))
    p = {round(gcm_test(rng.normal(size=6), rng.normal(size=6), z6).p_value, 10) for _ in range(20)}
    assert len(p) == 20


@pytest.mark.parametrize("regression, n_min", [("ridge", 4), ("krr", 4), ("rf", 20)])
def test_minimum_n_per_regression(regression, n_min):
    rng = np.random.default_rng(6)
    x, y, z = rng.normal(size=(n_min, 2)), rng.normal(size=n_min), rng.normal(size=n_min)
    with pytest.raises(ValueError, match=f"regression='{regression}' needs at least {n_min} observations, "
                                         f"got n = {n_min - 1}"):
        gcm_test(x[:-1, 0], y[:-1], z[:-1], regression=regression, seed=0)
    with pytest.raises(ValueError, match=f"needs at least {n_min} observations"):
        rpcit(x[:-1], np.column_stack([y, z])[:-1], z[:-1], regression=regression, seed=0)
    assert 0 <= gcm_test(x[:, 0], y, z, regression=regression, seed=0).p_value <= 1


@pytest.mark.parametrize("regression, n, p", [("ridge", 30, 50), ("ridge", 6, 3), ("krr", 6, 3), ("krr", 8, 1)])
def test_gcv_leaves_two_residual_degrees_of_freedom(regression, n, p):
    # unconstrained, GCV chose near-interpolating fits here (effective df = n, residuals ~ 0)
    rng = np.random.default_rng(7)
    z = rng.normal(size=(n, p))
    for _ in range(30):
        v = z @ rng.normal(size=p) / np.sqrt(p) + rng.normal(size=n)
        fit = fit_residualizer(v, z, regression=regression)
        assert fit.smoother.df <= n - 2 + 1e-9
        assert np.sum(fit.residuals ** 2) > 1e-6 * np.sum((v - v.mean()) ** 2)


def test_residualize_pandas_in_pandas_out():
    rng = np.random.default_rng(8)
    z = pd.DataFrame(rng.normal(size=(40, 2)), columns=["a", "b"])
    idx = pd.Index([f"s{i}" for i in range(40)], name="sample")
    frame = pd.DataFrame(z.to_numpy() @ [[1.0, 0.5, 0.0], [0.0, 1.0, -1.0]] + rng.normal(size=(40, 3)),
                         index=idx, columns=["x1", "x2", "x3"])
    expected = residualize(frame.to_numpy(), z.to_numpy())
    with pytest.raises(ValueError, match="v and z are pandas objects with different indexes"):
        residualize(frame, z)                      # never paired by position behind the user's back
    z = z.set_axis(idx)
    for regression in ["ols", "krr"]:
        out = residualize(frame, z, regression=regression)
        assert isinstance(out, pd.DataFrame)
        assert out.index.equals(idx) and list(out.columns) == ["x1", "x2", "x3"]
        if regression == "ols":
            np.testing.assert_allclose(out.to_numpy(), expected, atol=1e-12)
        s = residualize(frame["x2"], z, regression=regression)
        assert isinstance(s, pd.Series) and s.index.equals(idx) and s.name == "x2"
        np.testing.assert_allclose(s.to_numpy(), residualize(frame[["x2"]], z, regression=regression)["x2"], atol=1e-12)
    # plain arrays keep the (n, d) ndarray
    assert residualize(frame["x2"].to_numpy(), z).shape == (40, 1)


# ----------------------------------------------------------------------------------------------
# the random forest as a fixed linear smoother
# ----------------------------------------------------------------------------------------------

def _sklearn_oob_forest(v, z, seed):
    """The forest "rf_oob" grows, replayed with scikit-learn: its out-of-bag residuals."""
    from sklearn.ensemble import RandomForestRegressor

    rng = np.random.default_rng(seed)
    mu, sd = v.mean(axis=0), v.std(axis=0)
    forest = RandomForestRegressor(n_estimators=100, min_samples_leaf=5, max_features=1.0, oob_score=True,
                                   random_state=int(rng.integers(2 ** 31 - 1))).fit(z, (v - mu) / sd)
    return ((v - mu) / sd - forest.oob_prediction_) * sd


def test_rf_oob_is_the_forests_out_of_bag_fit_as_a_smoother():
    # the forest's out-of-bag kernel weights reproduce scikit-learn's out-of-bag predictions, and the
    # smoother they define gives them for any response (here the fitted one)
    rng = np.random.default_rng(21)
    z = rng.normal(size=(300, 3))
    v = np.column_stack([np.sin(2 * z[:, 0]), z[:, 1] * z[:, 2]]) + 0.3 * rng.normal(size=(300, 2))
    fit = fit_residualizer(v, z, regression="rf_oob", seed=4)
    np.testing.assert_allclose(fit.residuals, _sklearn_oob_forest(v, z, 4), atol=1e-10)
    np.testing.assert_allclose(fit.smoother.residuals(v), fit.residuals, atol=1e-12)
    w = fit.smoother.weights
    assert np.allclose(np.asarray(w.sum(axis=1)).ravel(), 1.0)  # a weighted mean of other rows
    assert np.all(w.diagonal() == 0)  # out of bag: no observation predicts itself
    assert fit.smoother.passes == 1 and fit.smoother.linear is None


def _brute_force_honest_weights(forest, z):
    """Tree by tree: the mean of the out-of-bag rows (other than i) in the leaf holding i, averaged
    over the trees that have such rows; the mean of all other rows if no tree has."""
    n = z.shape[0]
    leaves = forest.apply(z)
    total, used = np.zeros((n, n)), np.zeros(n)
    for t, sample in enumerate(forest.estimators_samples_):
        oob = np.bincount(sample, minlength=n) == 0
        for i in range(n):
            j = np.flatnonzero(oob & (leaves[:, t] == leaves[i, t]) & (np.arange(n) != i))
            if j.size:
                total[i, j] += 1.0 / j.size
                used[i] += 1
    for i in np.flatnonzero(used == 0):
        total[i] = 1.0 / (n - 1)
        total[i, i] = 0.0
        used[i] = 1
    return total / used[:, None]


@pytest.mark.parametrize("n_trees, n", [(100, 120), (1, 40)])
def test_honest_forest_weights_match_brute_force(n_trees, n):
    # one tree on 40 rows leaves some rows without an out-of-bag neighbour: the mean of the others
    from sklearn.ensemble import RandomForestRegressor
    from statcore.cit._forests import _honest_forest_weights

    rng = np.random.default_rng(31)
    z = rng.normal(size=(n, 2))
    v = np.sin(2 * z[:, 0]) + 0.3 * rng.normal(size=n)
    for seed in [1, 11, 13]:
        forest = RandomForestRegressor(n_estimators=n_trees, min_samples_leaf=5, max_features=1.0,
                                       random_state=seed).fit(z, v)
        w = _honest_forest_weights(forest, z)
        np.testing.assert_allclose(w.toarray(), _brute_force_honest_weights(forest, z), atol=1e-13)
        if n_trees == 1:
            # the weight on j comes only from trees that never saw j: zero on the tree's bootstrap rows
            dense = w.toarray()
            inbag = np.bincount(forest.estimators_samples_[0], minlength=n) > 0
            fallback = np.all(np.isclose(dense + np.eye(n) / (n - 1), 1.0 / (n - 1)), axis=1)
            assert 0 < fallback.sum() < n
            assert np.all(dense[~fallback][:, inbag] == 0)


def test_rf_is_a_kernel_ridge_prefit_then_the_forest_twice():
    # "rf": kernel ridge on z, the forest grown on its residuals, its honest weights applied twice
    rng = np.random.default_rng(22)
    z = rng.normal(size=(200, 2))
    v = np.column_stack([z[:, 0] + np.sin(3 * z[:, 1]), np.abs(z[:, 0])]) + 0.3 * rng.normal(size=(200, 2))
    fit = fit_residualizer(v, z, regression="rf", seed=5)
    sm = fit.smoother
    assert sm.passes == 2 and sm.linear.method == "krr"
    e = fit_residualizer(v, z, regression="krr").residuals
    np.testing.assert_allclose(sm.linear.residuals(v), e, atol=1e-12)
    once = e - sm.weights @ e
    np.testing.assert_allclose(fit.residuals, once - sm.weights @ once, atol=1e-12)
    # it fits better than the plain forest on a mostly linear signal
    assert (fit.residuals ** 2).sum() < (fit_residualizer(v, z, regression="rf_oob", seed=5).residuals ** 2).sum()


def test_rf_handles_a_response_linear_in_z():
    # the kernel ridge stage leaves (almost) nothing for the forest; no division by a zero scale
    rng = np.random.default_rng(23)
    z = rng.normal(size=(100, 2))
    v = np.column_stack([z @ [1.0, 2.0], rng.normal(size=100)])
    r = residualize(v, z, regression="rf", seed=0)
    assert np.all(np.isfinite(r))


@pytest.mark.parametrize("regression, rtol", [("ols", 1e-9), ("ridge", 1e-9), ("krr", 1e-9), ("rf", 1e-2)])
@pytest.mark.parametrize("scale", [1e160, 1e-160, 1e300, 3e5])
def test_gcm_is_scale_invariant_at_extreme_magnitudes(regression, rtol, scale):
    """gcm_test at scale 1e160 returned p = nan (the residual products overflowed) and at 1e-160 called
    the products constant; the statistic is scale-invariant, and so must the computation be."""
    import warnings

    rng = np.random.default_rng(11)
    z = rng.normal(size=(120, 2))
    x = z[:, 0] + rng.normal(size=120)
    y = x + z[:, 1] + rng.normal(size=120)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = gcm_test(x, y, z, regression=regression, seed=1)
        res = gcm_test(x * scale, y * scale, z * scale, regression=regression, seed=1)
        mixed = gcm_test(np.c_[x, x * scale], np.c_[y, y / scale], z, kind="max", seed=2)
        plain = gcm_test(np.c_[x, x], np.c_[y, y], z, kind="max", seed=2)
    assert np.isfinite(res.statistic) and res.statistic == pytest.approx(ref.statistic, rel=rtol)
    assert res.p_value == pytest.approx(ref.p_value, rel=rtol)
    assert mixed.statistic == pytest.approx(plain.statistic, rel=1e-9) and mixed.p_value == plain.p_value
    est = next(iter(res.estimate.values()))
    if regression == "ols" and 1e-150 < scale < 1e150:
        assert est == pytest.approx(next(iter(ref.estimate.values())) * scale ** 2, rel=1e-9)
