"""Predictive recursion: against a plain Python transcription of Newton's recursion, seeding,
closed-form limits and bad input."""
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from statcore.ebayes import predictive_recursion


def newton_recursion_plain(x, order, grid, sd, decay):
    """Newton (2002), eq. (2), transcribed with scipy densities: one pass in the given order."""
    w = np.full(grid.size, 1.0 / grid.size)
    pll = 0.0
    for k, i in enumerate(order, start=1):
        kern = stats.norm.pdf(x[i], loc=grid, scale=sd)
        m = float(np.sum(w * kern))
        pll += np.log(m)
        gamma = (k + 1.0) ** (-decay)
        w = (1 - gamma) * w + gamma * w * kern / m
    return w, pll


@pytest.mark.parametrize("decay", [0.67, 1.0])
def test_one_order_matches_plain_transcription(decay):
    rng = np.random.default_rng(3)
    x = np.r_[rng.normal(0, 1, 150), rng.normal(3, 1, 50)]
    grid = np.linspace(-4, 7, 45)
    fit = predictive_recursion(x, kernel_sd=1.0, grid=grid, sweeps=1, seed=11, decay=decay)
    order = np.random.default_rng(11).permutation(x.size)
    w, pll = newton_recursion_plain(x, order, grid, 1.0, decay)
    np.testing.assert_allclose(fit.weights, w / w.sum(), rtol=1e-10, atol=1e-15)
    assert fit.predictive_loglik == pytest.approx(pll, rel=1e-12)
    assert fit.loglik == pytest.approx(np.sum(np.log(stats.norm.pdf(x[:, None], grid, 1.0) @ fit.weights)),
                                       rel=1e-12)


def test_average_over_orders_is_mean_of_single_orders_and_seeded():
    rng = np.random.default_rng(5)
    x = rng.normal(1, 1.5, 120)
    grid = np.linspace(-4, 6, 30)
    fit = predictive_recursion(x, kernel_sd=0.8, grid=grid, sweeps=4, seed=7)
    gen = np.random.default_rng(7)
    singles = [newton_recursion_plain(x, gen.permutation(x.size), grid, 0.8, 0.67)[0] for _ in range(4)]
    np.testing.assert_allclose(fit.weights_by_order, singles, rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(fit.weights, np.mean(singles, axis=0), rtol=1e-10, atol=1e-15)
    again = predictive_recursion(x, kernel_sd=0.8, grid=grid, sweeps=4, seed=7)
    np.testing.assert_array_equal(fit.weights, again.weights)
    other = predictive_recursion(x, kernel_sd=0.8, grid=grid, sweeps=4, seed=8)
    assert not np.array_equal(fit.weights, other.weights)
    gen_fit = predictive_recursion(x, kernel_sd=0.8, grid=grid, sweeps=4, seed=np.random.default_rng(7))
    np.testing.assert_array_equal(fit.weights, gen_fit.weights)


def test_pdf_is_the_stated_mixture_and_keeps_series():
    rng = np.random.default_rng(2)
    x = rng.normal(size=200)
    fit = predictive_recursion(x, kernel_sd=0.5, grid=40, seed=1)
    assert fit.grid.size == 40 and fit.grid[0] == x.min() and fit.grid[-1] == x.max()
    y = np.array([-3.0, -0.2, 0.0, 1.7, 40.0])
    want = stats.norm.pdf(y[:, None], fit.grid, 0.5) @ fit.weights
    np.testing.assert_allclose(fit.pdf(y), want, rtol=1e-12, atol=1e-300)
    s = pd.Series(y, index=list("abcde"))
    out = fit.pdf(s)
    assert isinstance(out, pd.Series) and list(out.index) == list("abcde")
    assert isinstance(fit.pdf(0.3), float)
    # a density: integrates to one
    ys = np.linspace(-10, 10, 20001)
    assert np.trapezoid(fit.pdf(ys), ys) == pytest.approx(1.0, abs=1e-6)


def test_recovers_two_point_mixing_distribution():
    # atoms far apart relative to the kernel: PR's weights concentrate near the true atoms
    rng = np.random.default_rng(4)
    n = 4000
    x = np.where(rng.random(n) < 0.3, 6.0, 0.0) + rng.normal(0, 1, n)
    grid = np.linspace(-3, 9, 121)
    fit = predictive_recursion(x, kernel_sd=1.0, grid=grid, sweeps=5, seed=2)
    mass_hi = fit.weights[grid > 3].sum()
    # binomial SE of the sample proportion at n = 4000 is 0.0072; PR's own bias is small here
    assert abs(mass_hi - 0.3) < 0.03
    assert abs(fit.mean() - 1.8) < 0.15


def test_far_observation_does_not_underflow():
    x = np.array([0.0, 0.1, -0.2, 60.0])
    fit = predictive_recursion(x, kernel_sd=0.5, grid=np.linspace(-1, 1, 11), sweeps=2, seed=0)
    assert np.all(np.isfinite(fit.weights)) and fit.weights.sum() == pytest.approx(1.0)
    assert np.isfinite(fit.predictive_loglik)
    # the log-likelihood too (was -inf: the density at 60 underflows, its log does not)
    from scipy.special import logsumexp
    logp = np.log(fit.weights) + stats.norm.logpdf(x[:, None], fit.grid, 0.5)
    assert fit.loglik == pytest.approx(float(logsumexp(logp, axis=1).sum()), rel=1e-12)


def test_input_not_modified_and_summary():
    x = np.array([0.3, -1.0, 2.0, 0.5])
    x0 = x.copy()
    fit = predictive_recursion(x, kernel_sd=1.0, grid=10, sweeps=2, seed=0)
    np.testing.assert_array_equal(x, x0)
    text = str(fit)
    assert "Predictive recursion" in text and "observations: 4" in text
    frame = fit.to_frame()
    assert list(frame.columns) == ["atom", "weight"] and len(frame) == 10
    assert "PredictiveRecursionResult(nobs=4" in repr(fit)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = fit.plot(data=x)
    assert len(ax.figure.axes) == 1 and len(ax.lines) == 2
    plt.close(ax.figure)


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(x=[1.0, np.nan], kernel_sd=1.0, grid=10), ValueError, "x"),
    (dict(x=[], kernel_sd=1.0, grid=10), ValueError, "x"),
    (dict(x=[1.0, 2.0], kernel_sd=0.0, grid=10), ValueError, "kernel_sd"),
    (dict(x=[1.0, 2.0], kernel_sd=[1.0, 2.0], grid=10), ValueError, "kernel_sd"),
    (dict(x=[1.0, 2.0], kernel_sd=1.0, grid=1), ValueError, "grid"),
    (dict(x=[1.0, 2.0], kernel_sd=1.0, grid=[0.0, 0.0, 1.0]), ValueError, "grid"),
    (dict(x=[1.0, 2.0], kernel_sd=1.0, grid=10, sweeps=0), ValueError, "sweeps"),
    (dict(x=[1.0, 2.0], kernel_sd=1.0, grid=10, decay=0.4), ValueError, "decay"),
    (dict(x=["a", "b"], kernel_sd=1.0, grid=10), TypeError, "x"),
    (dict(x=[1.0, 2.0], kernel_sd=1.0, grid=10, seed="1"), TypeError, "seed"),
])
def test_bad_input(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        predictive_recursion(**kwargs)


# ------------------------------------------------------------------------------------------------
# missing values


def test_nan_policy():
    x = np.random.default_rng(1).normal(size=60)
    xn = x.copy()
    xn[[3, 10]] = np.nan
    with pytest.raises(ValueError, match="x contains 2 NaN"):
        predictive_recursion(xn, kernel_sd=1.0, grid=15, seed=0)
    fit = predictive_recursion(xn, kernel_sd=1.0, grid=15, seed=0, nan_policy="omit")
    ref = predictive_recursion(x[~np.isnan(xn)], kernel_sd=1.0, grid=15, seed=0)
    assert fit.nobs == 58
    np.testing.assert_array_equal(fit.weights, ref.weights)
    with pytest.raises(ValueError, match="nan_policy"):
        predictive_recursion(x, kernel_sd=1.0, grid=15, nan_policy="propagate")
