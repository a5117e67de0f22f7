"""RP-CIT: projection/residual identity, shared-regression equals refitting, parcor parity, bad input."""
import warnings

import numpy as np
import pandas as pd
import pytest

from statcore.cit import fit_residualizer, gcm_test, random_directions, residualize, rpcit
from statcore.multitest import combine_pvalues


def data(n=200, dx=6, dy=5, dz=3, seed=0, dep=0.0):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, dz))
    x = np.tanh(z) @ rng.normal(size=(dz, dx)) + rng.normal(size=(n, dx))
    y = z @ rng.normal(size=(dz, dy)) + rng.normal(size=(n, dy))
    y[:, 0] += dep * x[:, 0]
    return x, y, z


@pytest.mark.parametrize("regression", ["ols", "ridge", "krr", "rf", "rf_oob"])
def test_projection_residual_identity(regression):
    # the residual of x w under the fitted smoother is the residual of x times w, exactly
    x, y, z = data(n=150, seed=1)
    fit = fit_residualizer(x, z, regression=regression, seed=3)
    w = random_directions(x.shape[1], 40, seed=np.random.default_rng(2))
    np.testing.assert_allclose(fit.smoother.residuals(x @ w), fit.residuals @ w, atol=1e-10)
    # and one projection at a time
    for j in range(3):
        np.testing.assert_allclose(fit.smoother.residuals(x @ w[:, j]), fit.residuals @ w[:, j], atol=1e-10)


def test_shared_ols_equals_refitting_each_projection():
    x, y, z = data(seed=3, dep=0.2)
    res = rpcit(x, y, z, k=25, seed=11)
    wx, wy = res.extras["directions_x"], res.extras["directions_y"]
    naive = np.array([gcm_test(x @ wx[:, j], y @ wy[:, j], z) for j in range(25)])
    np.testing.assert_allclose(res.extras["statistics"], [t.statistic for t in naive], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(res.extras["p_values"], [t.p_value for t in naive], rtol=1e-9, atol=1e-15)
    assert res.p_value == pytest.approx(min(1.0, 25 * min(t.p_value for t in naive)), rel=1e-9)
    # a callable base refits on every projection and must agree
    slow = rpcit(x, y, z, k=25, seed=11, base=lambda a, b, c: gcm_test(a, b, c))
    np.testing.assert_allclose(slow.extras["p_values"], res.extras["p_values"], rtol=1e-9, atol=1e-15)
    par = rpcit(x, y, z, k=25, seed=11, base=lambda a, b, c: gcm_test(a, b, c).p_value, n_jobs=2)
    np.testing.assert_allclose(par.extras["p_values"], res.extras["p_values"], rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("regression", ["ridge", "krr", "rf"])
def test_shared_regression_is_the_fixed_smoother_applied_to_projections(regression):
    x, y, z = data(n=150, seed=4)
    res = rpcit(x, y, z, k=10, seed=5, regression=regression, variance="standard")
    # replay the seed: directions first, then the regressions of x and of y
    rng = np.random.default_rng(5)
    wx, wy = random_directions(6, 10, seed=rng), random_directions(5, 10, seed=rng)
    rx, ry = residualize(x, z, regression=regression, seed=rng), residualize(y, z, regression=regression, seed=rng)
    np.testing.assert_array_equal(res.extras["directions_x"], wx)
    for j in range(10):
        t = gcm_test(None, None, resid_x=rx @ wx[:, j], resid_y=ry @ wy[:, j])
        assert res.extras["statistics"][j] == pytest.approx(t.statistic, rel=1e-9, abs=1e-12)
    assert res.extras["regression"] == regression


def test_aggregates_are_combine_pvalues_of_the_projection_pvalues():
    x, y, z = data(seed=6, dep=0.1)
    ref = rpcit(x, y, z, k=30, seed=1, aggregate="maxboot")
    p = ref.extras["p_values"]
    for agg in ["bonferroni", "topr", "hommel_global", "simes", "cauchy"]:
        res = rpcit(x, y, z, k=30, seed=1, aggregate=agg)
        np.testing.assert_array_equal(res.extras["p_values"], p)
        assert res.p_value == combine_pvalues(p, method=agg, r=3 if agg == "topr" else None).p_value
    assert rpcit(x, y, z, k=30, seed=1, aggregate="topr", r=7).p_value == combine_pvalues(p, method="topr", r=7).p_value
    # Hommel's global test: min(1, C_k Simes' p-value), C_k = sum_{i<=k} 1/i
    simes = np.min(30 * np.sort(p) / np.arange(1, 31))
    hommel = rpcit(x, y, z, k=30, seed=1, aggregate="hommel_global").p_value
    assert hommel == pytest.approx(min(1.0, np.sum(1 / np.arange(1, 31)) * simes), rel=1e-12)
    assert rpcit(x, y, z, k=30, seed=1, aggregate="topr").parameter == {"k": 30.0, "r": 3.0}
    # maxboot: the joint bootstrap of the same standardised statistics as gcm_test(type="max")
    wx, wy = ref.extras["directions_x"], ref.extras["directions_y"]
    assert ref.statistic == pytest.approx(np.abs(ref.extras["statistics"]).max(), rel=1e-12)
    assert ref.statistic_name == "S" and ref.extras["B"] == 499
    assert 1 / 500 <= ref.p_value <= 1


def test_directions_uniform_and_seeded():
    rng = np.random.default_rng(0)
    w = random_directions(3, 20000, seed=rng)
    np.testing.assert_allclose(np.linalg.norm(w, axis=0), 1.0, rtol=1e-12)
    # uniform on the sphere: E w = 0, E w w' = I / 3 (MC error about 0.004)
    np.testing.assert_allclose(w.mean(axis=1), 0.0, atol=0.02)
    np.testing.assert_allclose(w @ w.T / 20000, np.eye(3) / 3, atol=0.02)
    x, y, z = data(seed=7)
    a, b = rpcit(x, y, z, k=5, seed=3), rpcit(x, y, z, k=5, seed=3)
    assert a == b
    assert not np.array_equal(a.extras["directions_x"], rpcit(x, y, z, k=5, seed=4).extras["directions_x"])


def _projected_frame(x, y, z, wx, wy, j):
    cols = {"x": x @ wx[:, j], "y": y @ wy[:, j]}
    cols.update({f"z{i}": z[:, i] for i in range(z.shape[1])})
    return pd.DataFrame(cols)


def test_parcor_equals_pingouin_and_causallearn():
    pg = pytest.importorskip("pingouin")
    x, y, z = data(n=120, seed=8, dep=0.3)
    res_t = rpcit(x, y, z, k=6, seed=2, base="parcor")
    res_f = rpcit(x, y, z, k=6, seed=2, base="parcor", parcor="fisher")
    wx, wy = res_t.extras["directions_x"], res_t.extras["directions_y"]
    cit = None
    try:
        from causallearn.utils.cit import CIT
    except ImportError:  # pragma: no cover - causal-learn is installed in CI
        CIT = None
    for j in range(6):
        frame = _projected_frame(x, y, z, wx, wy, j)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = pg.partial_corr(frame, x="x", y="y", covar=["z0", "z1", "z2"])
        assert res_t.extras["statistics"][j] == pytest.approx(ref["r"].iloc[0], abs=1e-10)
        assert res_t.extras["p_values"][j] == pytest.approx(ref["p_val"].iloc[0], abs=1e-10)
        if CIT is not None:
            cit = CIT(frame.to_numpy(), "fisherz")
            assert res_f.extras["p_values"][j] == pytest.approx(cit(0, 1, [2, 3, 4]), abs=1e-10)
    assert res_t.method == "Random-projection conditional independence test (partial correlation base, Bonferroni-max)"


def test_precomputed_residuals_and_printing():
    x, y, z = data(seed=9)
    rx, ry = residualize(x, z, regression="krr"), residualize(y, z, regression="krr")
    a = rpcit(None, None, k=15, seed=1, resid_x=rx, resid_y=ry)
    b = rpcit(x, y, z, k=15, seed=1, regression="krr", variance="standard")
    np.testing.assert_allclose(a.extras["p_values"], b.extras["p_values"], rtol=1e-10)
    assert a.data_name == "resid_x and resid_y" and b.data_name == "x and y given z"
    text = str(b)
    assert "\tRandom-projection conditional independence test (GCM base,\n\tBonferroni-max)" in text
    assert "k = 15, p-value" in text


def test_one_dimensional_x_and_y():
    x, y, z = data(dx=1, dy=1, seed=10, dep=0.2)
    res = rpcit(x, y, z, k=4, seed=0)
    # every direction is +-1: all projections give the same |T|
    np.testing.assert_allclose(np.abs(res.extras["statistics"]), abs(gcm_test(x, y, z).statistic), rtol=1e-10)


def test_bad_input():
    x, y, z = data(n=40, seed=0)
    with pytest.raises(ValueError, match="same number of observations"):
        rpcit(x, y[:30], z)
    with pytest.raises(ValueError, match="k must be >= 1"):
        rpcit(x, y, z, k=0)
    with pytest.raises(ValueError, match="r must be at most k = 5"):
        rpcit(x, y, z, k=5, aggregate="topr", r=6)
    for aggregate in ["bonferroni", "hommel_global", "simes", "cauchy", "maxboot"]:
        with pytest.raises(ValueError, match=f"r = 3 is used only by aggregate='topr', got aggregate='{aggregate}'"):
            rpcit(x, y, z, k=5, aggregate=aggregate, r=3)
    with pytest.raises(ValueError, match="r = 2 is used only by aggregate='topr'"):
        rpcit(x, y, z, k=5, r=2)  # default aggregate: bonferroni
    with pytest.raises(ValueError, match="k must be >= 1"):
        random_directions(3, 0, seed=0)
    with pytest.raises(TypeError, match="d must be an integer"):
        random_directions(2.5, 3, seed=0)
    with pytest.raises(TypeError, match="seed must be None, an int or a numpy.random.Generator"):
        random_directions(3, 2, seed="seed")
    with pytest.raises(ValueError, match="needs base='gcm'"):
        rpcit(x, y, z, base="parcor", aggregate="maxboot")
    with pytest.raises(ValueError, match="unknown aggregate"):
        rpcit(x, y, z, aggregate="fisher")
    with pytest.raises(ValueError, match="unknown base"):
        rpcit(x, y, z, base="kci")
    xn = x.copy()
    xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="x contains 1 NaN value"):
        rpcit(xn, y, z)
    with pytest.raises(ValueError, match="y has constant column"):
        rpcit(x, np.column_stack([y, np.zeros(40)]), z)
    with pytest.raises(ValueError, match="needs at least 43 observations"):
        rpcit(x, y, np.random.default_rng(1).normal(size=(40, 40)))
    with pytest.raises(ValueError, match="n_jobs"):
        rpcit(x, y, z, n_jobs=0)
    with pytest.raises(ValueError, match="not residuals"):
        rpcit(None, None, resid_x=x, resid_y=y, base=lambda a, b, c: 0.5)
    with pytest.raises(ValueError, match="not a p-value"):
        rpcit(x, y, z, k=2, base=lambda a, b, c: 2.0)


@pytest.mark.parametrize("regression", ["ols", "ridge", "krr", "rf"])
def test_inputs_not_modified(regression):
    x, y, z = data(n=80, seed=12)
    copies = [x.copy(), y.copy(), z.copy()]
    rpcit(x, y, z, k=5, regression=regression, aggregate="maxboot", B=19, seed=0)
    residualize(x, z, regression=regression, seed=0)
    for a, b in zip([x, y, z], copies):
        np.testing.assert_array_equal(a, b)


def test_one_dimensional_x_and_y_run_the_base_test_once():
    # every direction in one dimension is +1 or -1: k copies of one p-value must not be Bonferroni'd
    from statcore import gcm_test

    rng = np.random.default_rng(11)
    z = rng.normal(size=(300, 2))
    x = z[:, :1] + rng.normal(size=(300, 1))
    y = 0.2 * x + z[:, 1:] + rng.normal(size=(300, 1))
    direct = gcm_test(x, y, z).p_value
    for aggregate in ("bonferroni", "topr", "cauchy", "hommel_global", "simes"):
        res = rpcit(x, y, z, k=50, seed=1, aggregate=aggregate)
        assert res.parameter["k"] == 1.0 and res.extras["k_requested"] == 50
        assert res.p_value == pytest.approx(direct, rel=1e-12)
    # one-dimensional x with multivariate y still projects y
    y2 = np.column_stack([y, rng.normal(size=300)])
    assert rpcit(x, y2, z, k=20, seed=1).parameter["k"] == 20.0
