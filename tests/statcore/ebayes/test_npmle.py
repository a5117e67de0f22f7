"""NPMLE of a Gaussian location mixture: KKT certificates computed independently, SQP against an EM
run to convergence (with the duality-gap bound), closed forms, brute-force posterior summaries,
live R mixsqp, bad input."""
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from helpers import r_vector, requires_r, run_r
from statcore._warnings import ConvergenceWarning
from statcore.ebayes import NPMLEResult, npmle


def three_point_data(n, seed, sd=1.0):
    """The issue's benchmark design: 80% nulls at 0, effects at -2 and 3."""
    rng = np.random.default_rng(seed)
    theta = rng.choice([0.0, -2.0, 3.0], size=n, p=[0.8, 0.1, 0.1])
    return theta + rng.normal(0, 1, n) * sd, theta


def lik_matrix(x, atoms, sigma):
    return stats.norm.pdf(np.asarray(x)[:, None], atoms, np.broadcast_to(sigma, np.shape(x))[:, None])


def kkt_direct(x, atoms, w, sigma=1.0, freq=None):
    """max_j sum_i omega_i L_ij / (L w)_i from scipy densities, unscaled."""
    L = lik_matrix(x, atoms, sigma)
    om = np.full(len(x), 1.0 / len(x)) if freq is None else np.asarray(freq, float) / np.sum(freq)
    return float(np.max(L.T @ (om / (L @ w))))


def loglik_direct(x, atoms, w, sigma=1.0, freq=None):
    f = lik_matrix(x, atoms, sigma) @ w
    return float(np.sum(np.log(f) * (1.0 if freq is None else np.asarray(freq, float))))


def density_ratio_bounds(gap_a, gap_b):
    """Bounds on f_a(x_i) / f_b(x_i) for two fits with certified gaps n log kkt.

    With f* the optimal fitted density, d_i = f(x_i) / f*(x_i) - 1 satisfies sum_i d_i <= 0
    (first-order optimality of f* over the convex set of fitted densities), so
    l(f*) - l(f) = sum_i -log(1 + d_i) >= sum_i (d_i - log(1 + d_i)) >= h(d_k) for every k, with
    h(d) = d - log(1 + d) >= 0. Hence h(d_k) <= gap, which confines d_k to [lo(gap), hi(gap)].
    """
    from scipy.optimize import brentq

    def roots(gap):
        gap = max(gap, 1e-300)
        h = lambda d: d - np.log1p(d) - gap  # noqa: E731
        return brentq(h, -1 + 1e-12, 0.0), brentq(h, 0.0, 1e6)

    la, ha = roots(gap_a)
    lb, hb = roots(gap_b)
    return (1 + la) / (1 + hb), (1 + ha) / (1 + lb)


# ------------------------------------------------------------------------------------------------
# optimality


@pytest.mark.parametrize("n, m, seed", [(50, 30, 0), (500, 100, 1), (3000, 300, 2)])
def test_kkt_certificate_holds_and_matches_direct_computation(n, m, seed):
    x, _ = three_point_data(n, seed)
    fit = npmle(x, grid=m)
    assert fit.converged and fit.kkt <= 1 + 1e-8
    k = kkt_direct(x, fit.atoms, fit.weights)
    assert k <= 1 + 1e-6
    assert k == pytest.approx(fit.kkt, abs=1e-9)
    assert fit.weights.sum() == pytest.approx(1.0, abs=1e-12) and np.all(fit.weights >= 0)
    assert fit.loglik == pytest.approx(loglik_direct(x, fit.atoms, fit.weights), rel=1e-12)


def test_likelihood_matrix_recurrence_matches_direct_exponentials():
    """On an equally spaced grid most entries come from a multiplicative recurrence; they must
    agree with direct exponentials (kernel called with step 0) and with scipy's densities."""
    from statcore.ebayes._kernels import likelihood_matrix

    rng = np.random.default_rng(31)
    for s in (0.02, 0.3, 1.0, 7.0):
        n = 700
        x = rng.normal(0, 4, n)
        sig = s * rng.uniform(0.5, 2.0, n)
        atoms = np.linspace(-10, 12, 157)
        fast = np.empty((n, atoms.size), order="F")
        slow = np.empty((n, atoms.size), order="F")
        ls_fast, ls_slow = np.empty(n), np.empty(n)
        likelihood_matrix(x, sig, atoms, atoms[1] - atoms[0], fast, ls_fast)
        likelihood_matrix(x, sig, atoms, 0.0, slow, ls_slow)
        np.testing.assert_array_equal(ls_fast, ls_slow)
        np.testing.assert_array_equal(fast > 0, slow > 0)
        np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=0)
        logd = stats.norm.logpdf(x[:, None], atoms, sig[:, None])
        np.testing.assert_allclose(ls_fast, logd.max(axis=1), rtol=1e-12)
        # scipy's log-densities carry absolute rounding eps * (x - a)^2 / (2 sd^2) (up to ~2e6 for
        # sd = 0.01, ~1e4 for sd = 0.15) that the row-max subtraction does not remove
        big = slow > 1e-100
        np.testing.assert_allclose(fast[big], np.exp(logd - logd.max(axis=1, keepdims=True))[big],
                                   rtol=1e-9 if s < 0.1 else 1e-11)


@pytest.mark.parametrize("method", ["sqp", "ip"])
def test_random_problems_are_certified(method):
    """Seeded random problems over scales where the likelihood matrix is nearly diagonal (sigma far
    below the grid step, most atoms seeing no data) or nearly rank one (sigma far above it)."""
    rng = np.random.default_rng(99)
    for _ in range(12):
        n, m = int(rng.integers(1, 800)), int(rng.integers(2, 200))
        s = float(10 ** rng.uniform(-2, 2))
        centers = rng.normal(0, 5, int(rng.integers(1, 5)))
        x = rng.choice(centers, n) + s * rng.normal(size=n) * rng.uniform(0.5, 2)
        sig = s * rng.uniform(0.5, 2, n) if rng.random() < 0.3 else s
        fit = npmle(x, sigma=sig, grid=m, method=method)
        assert fit.converged
        assert kkt_direct(x, fit.atoms, fit.weights, sig) <= 1 + 1e-6


def test_permutation_invariance_and_translation_equivariance():
    x, _ = three_point_data(700, 23)
    grid = np.linspace(-5, 6, 70)
    base = npmle(x, grid=grid)
    perm = npmle(x[np.random.default_rng(1).permutation(x.size)], grid=grid)
    shifted = npmle(x + 2.5, grid=grid + 2.5)
    scaled = npmle(3 * x, sigma=3.0, grid=3 * grid)
    gap = x.size * np.log(base.kkt)
    for other, jac in ((perm, 0.0), (shifted, 0.0), (scaled, x.size * np.log(3.0))):
        # the same problem up to relabelling (a scale change adds -n log 3 to every log-density)
        assert other.loglik + jac == pytest.approx(base.loglik, abs=gap + x.size * np.log(other.kkt) + 1e-8)
    np.testing.assert_allclose(base.posterior_mean(), shifted.posterior_mean() - 2.5, atol=1e-5)


def test_kkt_heteroscedastic():
    rng = np.random.default_rng(7)
    n = 800
    sig = rng.uniform(0.5, 2.0, n)
    theta = rng.choice([0.0, 2.5], size=n, p=[0.6, 0.4])
    x = theta + sig * rng.normal(size=n)
    fit = npmle(x, sigma=sig, grid=120)
    assert not fit.homoscedastic
    assert kkt_direct(x, fit.atoms, fit.weights, sig) <= 1 + 1e-6
    assert fit.loglik == pytest.approx(loglik_direct(x, fit.atoms, fit.weights, sig), rel=1e-12)


@pytest.mark.parametrize("hetero", [False, True])
def test_sqp_interior_point_and_em_agree(hetero):
    """Three independent solvers run to convergence: mix-SQP, Koenker-Mizera's dual interior point
    and EM. The optimum's log-likelihood is unique and concavity gives l* - l(w) <= n log kkt(w)
    (Jensen on sum_i log((L w*)_i / (L w)_i)), so no fit may beat another by more than the
    other's certified gap."""
    rng = np.random.default_rng(17)
    n = 400
    x, _ = three_point_data(n, 17)
    sig = rng.uniform(0.7, 1.5, n) if hetero else 1.0
    grid = np.linspace(-5, 6, 56)
    fits = {meth: npmle(x, sigma=sig, grid=grid, method=meth, tol=1e-6 if meth == "em" else 1e-8,
                        max_iter=300000) for meth in ("sqp", "ip", "em")}
    gaps = {}
    for meth, fit in fits.items():
        assert fit.converged, meth
        k = kkt_direct(x, grid, fit.weights, sig)
        assert k <= 1 + 1e-6, meth
        gaps[meth] = n * np.log(k)
    for a in fits:
        for b in fits:
            assert fits[a].loglik >= fits[b].loglik - gaps[a] - 1e-9, (a, b)
    assert fits["ip"].method == "ip" and fits["ip"].iterations < 100
    assert gaps["em"] <= n * 1e-6 and gaps["sqp"] <= n * 1e-8
    # the fitted marginal density at the data is unique, and near-optimal fits are close to it
    L = lik_matrix(x, grid, sig)
    for meth in ("ip", "em"):
        ratio = L @ fits[meth].weights / (L @ fits["sqp"].weights)
        lo, hi = density_ratio_bounds(gaps[meth], gaps["sqp"])
        assert lo <= ratio.min() and ratio.max() <= hi, meth


def test_sqp_beats_unconverged_em_and_bound_is_valid():
    x, _ = three_point_data(1000, 3)
    grid = np.linspace(-5, 6, 100)
    sqp = npmle(x, grid=grid)
    with pytest.warns(ConvergenceWarning, match="KKT"):
        em = npmle(x, grid=grid, method="em", max_iter=50)
    assert not em.converged and em.kkt > 1 + 1e-8
    assert sqp.loglik >= em.loglik
    assert sqp.loglik - em.loglik <= x.size * np.log(em.kkt) + 1e-9


def test_warm_started_large_problem_is_certified():
    # above 5000 observations the SQP starts from a binned solution: the certificate is still the
    # full-data one
    x, _ = three_point_data(20000, 4)
    fit = npmle(x, grid=150)
    assert fit.kkt <= 1 + 1e-8
    k = kkt_direct(x, fit.atoms, fit.weights)
    assert k <= 1 + 1e-6 and k == pytest.approx(fit.kkt, abs=1e-9)
    # and it is at least as good as a long EM run from the uniform start
    with pytest.warns(ConvergenceWarning):
        em = npmle(x, grid=150, method="em", max_iter=300, tol=1e-12)
    assert fit.loglik >= em.loglik


def test_warm_started_heteroscedastic_problem_is_certified():
    # with one sigma per observation the warm start is an evenly strided subsample
    rng = np.random.default_rng(21)
    n = 12000
    sig = rng.uniform(0.5, 2.0, n)
    x = rng.choice([0.0, -2.0, 3.0], size=n, p=[0.8, 0.1, 0.1]) + sig * rng.normal(size=n)
    fit = npmle(x, sigma=sig, grid=100)
    assert fit.converged
    k = kkt_direct(x, fit.atoms, fit.weights, sig)
    assert k <= 1 + 1e-6 and k == pytest.approx(fit.kkt, abs=1e-9)


# ------------------------------------------------------------------------------------------------
# closed forms


def test_two_far_apart_atoms_recover_sample_proportion():
    """With atoms 10 sd apart the likelihood factorises by cluster (cross terms ~ e^-50), so the
    optimal mass on the negative cluster is exactly the fraction of observations there."""
    rng = np.random.default_rng(5)
    n = 4000
    theta = np.where(rng.random(n) < 0.25, -5.0, 5.0)
    x = theta + rng.normal(size=n)
    grid = np.linspace(-9, 9, 181)
    fit = npmle(x, grid=grid)
    assert fit.weights[grid < 0].sum() == pytest.approx(np.mean(x < 0), abs=1e-7)
    # each cluster's fitted mass sits near its atom
    neg = grid < 0
    assert abs(fit.weights[neg] @ grid[neg] / fit.weights[neg].sum() + 5) < 0.1
    assert abs(fit.weights[~neg] @ grid[~neg] / fit.weights[~neg].sum() - 5) < 0.1


def test_single_observation_puts_all_mass_on_nearest_atom():
    # one point: the likelihood sum_j w_j phi(x - a_j) is maximised by the atom nearest x
    fit = npmle([0.37], grid=np.linspace(-2, 2, 41))
    assert fit.weights[np.argmin(np.abs(fit.atoms - 0.37))] == pytest.approx(1.0)
    assert fit.loglik == pytest.approx(stats.norm.logpdf(0.37, 0.4, 1.0), rel=1e-12)


def test_posterior_mean_and_lfdr_by_brute_force():
    x, theta = three_point_data(600, 8)
    fit = npmle(x, grid=90)
    assert 0.0 in fit.atoms
    w, a = fit.weights, fit.atoms
    L = lik_matrix(x, a, 1.0)
    post = L * w / (L @ w)[:, None]
    np.testing.assert_allclose(fit.posterior_mean(), post @ a, rtol=1e-10, atol=1e-12)
    j0 = int(np.flatnonzero(a == 0.0)[0])
    np.testing.assert_allclose(fit.lfdr(null=0), w[j0] * L[:, j0] / (L @ w), rtol=1e-10, atol=1e-300)
    # new points with their own sigma
    y = np.array([-3.0, 0.1, 2.5])
    Ly = lik_matrix(y, a, 2.0)
    np.testing.assert_allclose(fit.posterior_mean(y, sigma=2.0), (Ly * w) @ a / (Ly @ w),
                               rtol=1e-10)
    np.testing.assert_allclose(fit.lfdr(y, null=0, sigma=2.0), w[j0] * Ly[:, j0] / (Ly @ w), rtol=1e-10)
    # pdf is the fitted marginal density
    np.testing.assert_allclose(fit.pdf(y), lik_matrix(y, a, 1.0) @ w, rtol=1e-12)
    np.testing.assert_allclose(fit.pdf(y, sigma=2.0), Ly @ w, rtol=1e-12)


def test_posterior_far_in_tail_does_not_underflow():
    fit = npmle(np.r_[np.zeros(50), 3.0 * np.ones(50)] + np.linspace(-0.5, 0.5, 100), grid=40)
    pm = fit.posterior_mean(np.array([-60.0, 80.0]))
    assert np.all(np.isfinite(pm))
    assert pm[0] == pytest.approx(fit.atoms[fit.support][0]) and pm[1] == pytest.approx(
        fit.atoms[fit.support][-1])
    assert np.all(np.isfinite(fit.lfdr(np.array([-60.0, 80.0]), null=0)))


def test_posterior_of_em_fit_with_vanishing_weights_far_away():
    # EM leaves weights down to 1e-300 and below; the posterior at far points is a balance of
    # log-weight and log-density, brute-forced here with logsumexp
    from scipy.special import logsumexp

    rng = np.random.default_rng(19)
    x = rng.choice([0.0, 3.0], size=300) + rng.normal(size=300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit = npmle(x, grid=50, method="em", max_iter=3000)
    assert fit.weights[fit.weights > 0].min() < 1e-150
    y = np.array([-40.0, -5.0, 1.0, 60.0])
    s = fit.weights > 0
    logp = np.log(fit.weights[s]) + stats.norm.logpdf(y[:, None], fit.atoms[s], 1.0)
    post = np.exp(logp - logsumexp(logp, axis=1, keepdims=True))
    np.testing.assert_allclose(fit.posterior_mean(y), post @ fit.atoms[s], rtol=1e-10)
    # a prior whose atom nearest to y = -40 has weight 1e-200: log-weight -460.5 + log-density
    # -450 loses to the atom at 0 (0 - 800), so the posterior sits at 0, not at -10
    prior = NPMLEResult(atoms=np.array([-10.0, 0.0]), weights=np.array([1e-200, 1.0]), loglik=0.0,
                        kkt=1.0, converged=True, iterations=0, method="sqp", sigma=1.0, x=np.zeros(1),
                        nobs=1, bins=None, tol=1e-8)
    assert prior.posterior_mean(np.array([-40.0]))[0] == pytest.approx(0.0, abs=1e-30)
    assert prior.lfdr(np.array([-40.0]), null=0)[0] == pytest.approx(1.0)


def test_heteroscedastic_posterior_brute_force():
    rng = np.random.default_rng(9)
    n = 300
    sig = rng.uniform(0.5, 1.5, n)
    x = rng.choice([0.0, 2.0], n) + sig * rng.normal(size=n)
    fit = npmle(x, sigma=sig, grid=60)
    L = lik_matrix(x, fit.atoms, sig)
    np.testing.assert_allclose(fit.posterior_mean(), (L * fit.weights) @ fit.atoms / (L @ fit.weights),
                               rtol=1e-10)
    with pytest.raises(ValueError, match="sigma"):
        fit.pdf([0.0])
    with pytest.raises(ValueError, match="sigma"):
        fit.posterior_mean([0.0])


def test_frequency_weights_equal_repeated_data():
    rng = np.random.default_rng(12)
    xu = rng.normal(size=60) + rng.choice([0.0, 3.0], 60)
    counts = rng.integers(1, 5, 60)
    grid = np.linspace(-3, 6, 50)
    a = npmle(xu, grid=grid, weights=counts)
    b = npmle(np.repeat(xu, counts), grid=grid)
    assert a.nobs == counts.sum() == b.nobs
    assert a.loglik == pytest.approx(b.loglik, abs=counts.sum() * 1e-7)
    assert kkt_direct(xu, grid, a.weights, freq=counts) <= 1 + 1e-6
    assert a.loglik == pytest.approx(loglik_direct(xu, grid, a.weights, freq=counts), rel=1e-12)


def test_binning_is_close_to_exact_and_not_better():
    x, _ = three_point_data(20000, 13)
    exact = npmle(x, grid=200)
    binned = npmle(x, grid=200, bins=1000)
    assert binned.bins == 1000 and binned.kkt <= 1 + 1e-8
    # loglik is that of the unbinned data, so the exact fit is an upper bound ...
    assert binned.loglik <= exact.loglik + 1e-6
    # ... and bins of width ~0.01 sd lose little: bounded by n log of the binned fit's full-data KKT
    full_kkt = kkt_direct(x, binned.atoms, binned.weights)
    assert exact.loglik - binned.loglik <= x.size * np.log(full_kkt) + 1e-9
    assert exact.loglik - binned.loglik < 1.0


def test_default_grid_contains_zero_and_spans_data():
    x = np.array([-1.234, 0.5, 2.71, 3.3])
    fit = npmle(x, grid=25)
    assert 0.0 in fit.atoms and fit.atoms.size == 25
    step = np.diff(fit.atoms)
    np.testing.assert_allclose(step, step[0])
    assert fit.atoms[0] <= x.min() + step[0] / 2 and fit.atoms[-1] >= x.max() - step[0] / 2
    with pytest.raises(ValueError, match="not an atom"):
        npmle(x, grid=np.linspace(-2, 4, 10)).lfdr(null=0.1)


# ------------------------------------------------------------------------------------------------
# loglik generic, containers, printing


def test_loglik_generic_registration():
    from statcore.modelsel import loglik

    x, _ = three_point_data(300, 14)
    fit = npmle(x, grid=50)
    ll = loglik(fit)
    assert ll.value == fit.loglik and ll.nobs == 300
    assert ll.df == np.count_nonzero(fit.weights > 0) - 1


def test_series_in_series_out_and_input_untouched():
    x, _ = three_point_data(200, 15)
    s = pd.Series(x, index=[f"g{i}" for i in range(200)])
    x0 = s.copy()
    fit = npmle(s, grid=40)
    pm, lf = fit.posterior_mean(), fit.lfdr()
    assert isinstance(pm, pd.Series) and list(pm.index) == list(s.index)
    assert isinstance(lf, pd.Series) and (lf.between(0, 1)).all()
    pd.testing.assert_series_equal(s, x0)
    assert isinstance(fit.posterior_mean(0.5), float)


def test_summary_frame_plot():
    x, _ = three_point_data(300, 16)
    fit = npmle(x, grid=50)
    text = str(fit)
    assert "Nonparametric MLE" in text and "KKT certificate" in text and "converged" in text
    assert f"support: {int(fit.support.sum())} atoms" in text
    frame = fit.to_frame()
    assert list(frame.columns) == ["atom", "weight"] and len(frame) == 50
    assert "<table" in fit._repr_html_()
    import matplotlib

    matplotlib.use("Agg")
    axes = fit.plot()
    assert axes.shape == (2,) and all(a.figure is axes[0].figure for a in axes)
    import matplotlib.pyplot as plt

    plt.close(axes[0].figure)
    assert isinstance(fit, NPMLEResult)


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(x=[1.0, np.nan]), ValueError, "x"),
    (dict(x=[]), ValueError, "x"),
    (dict(x=["a"]), TypeError, "x"),
    (dict(x=[1.0, 2.0], sigma=0.0), ValueError, "sigma"),
    (dict(x=[1.0, 2.0], sigma=[1.0, 1.0, 1.0]), ValueError, "sigma"),
    (dict(x=[1.0, 2.0], grid=1), ValueError, "grid"),
    (dict(x=[1.0, 2.0], grid=[0.0, 0.0]), ValueError, "grid"),
    (dict(x=[1.0, 2.0], grid=np.ones((2, 2))), ValueError, "grid"),
    (dict(x=[1.0, 2.0], weights=[1.0]), ValueError, "weights"),
    (dict(x=[1.0, 2.0], weights=[1.0, -1.0]), ValueError, "weights"),
    (dict(x=[1.0, 2.0], weights=[0.0, 0.0]), ValueError, "weights"),
    (dict(x=[1.0, 2.0], sigma=[1.0, 2.0], bins=10), ValueError, "bins"),
    (dict(x=[1.0, 2.0], bins=1), ValueError, "bins"),
    (dict(x=[1.0, 2.0], method="newton"), ValueError, "method"),
    (dict(x=[1.0, 2.0], method="ip", max_iter=-1), ValueError, "max_iter"),
    (dict(x=[1.0, 2.0], tol=0.0), ValueError, "tol"),
    (dict(x=np.zeros((3, 2))), ValueError, "x must be a vector"),
    (dict(x=pd.DataFrame({"a": [1.0, 2.0], "b": [0.5, 0.1]})), ValueError, "x must be a vector"),
    (dict(x=[1.0, 2.0], weights=np.ones((2, 1))), ValueError, "weights must be a vector"),
])
def test_bad_input(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        npmle(**kwargs)


# ------------------------------------------------------------------------------------------------
# live R mixsqp


@requires_r("mixsqp")
def test_live_r_mixsqp():
    x, _ = three_point_data(2000, 5)
    fit = npmle(x, grid=80)
    a = fit.atoms
    out = run_r(f"""suppressMessages(library(mixsqp))
x <- {r_vector(x)}; a <- {r_vector(a)}
fit <- mixsqp(dnorm(outer(x, a, "-")), control = list(verbose = FALSE, tol.svd = 0))
cat(sprintf("%.17g", fit$x), sep = "\\n")""")
    # tol.svd = 0: mixsqp's default (1e-6) replaces L by a randomised truncated SVD, so its answer
    # changed from run to run (cluster masses off by up to 0.039 in one CI run); the exact matrix
    # makes the reference deterministic
    wr = np.array(out.split(), dtype=float)
    wr = wr / wr.sum()
    ll_r = loglik_direct(x, a, wr)
    assert fit.loglik >= ll_r - 1e-6
    assert kkt_direct(x, a, fit.weights) <= 1 + 1e-6
    # The likelihood is nearly flat when mass moves between neighbouring atoms (columns of L for
    # atoms 0.14 sd apart are almost collinear), so the weights agree at the grid's resolution,
    # not atom by atom: Wasserstein-1 distance of the two mixing distributions within two grid
    # steps, and the mass of each cluster (cuts midway between the true atoms) within one binomial
    # standard error of its estimate, sqrt(0.1 * 0.9 / 2000) = 0.0067: solver differences must be
    # negligible against sampling error.
    step = a[1] - a[0]
    w1 = np.sum(np.abs(np.cumsum(fit.weights) - np.cumsum(wr))[:-1] * np.diff(a))
    assert w1 <= 2 * step
    for lo, hi in [(-np.inf, -1.0), (-1.0, 1.5), (1.5, np.inf)]:
        sel = (a > lo) & (a <= hi)
        assert abs(fit.weights[sel].sum() - wr[sel].sum()) <= 0.0067


def test_new_x_matrix_refused():
    """posterior_mean/lfdr of a matrix of new points: refused (the flattened result lost the
    shape; for a DataFrame x, npmle itself failed later in pandas with 'Shape of passed values')."""
    fit = npmle(np.linspace(-2, 2, 30), grid=21)
    with pytest.raises(ValueError, match="x must be a vector"):
        fit.posterior_mean(np.zeros((2, 2)))
    assert fit.posterior_mean(0.5) == pytest.approx(float(fit.posterior_mean([0.5])[0]))


def test_warm_start_heteroscedastic_with_zero_weights():
    """n > 5000, one sigma per observation, weight 0 on every 4th observation: the strided warm
    start hit only zero weights (ValueError from a NaN start). The fit must equal the one on the
    observations with positive weight."""
    rng = np.random.default_rng(0)
    n = 8000
    x = rng.choice([0.0, 3.0], n, p=[0.8, 0.2]) + rng.normal(size=n)
    sd = rng.uniform(0.8, 1.2, n)
    w = (np.arange(n) % 4 != 0).astype(float)
    grid = np.linspace(-3, 6, 100)
    fit = npmle(x, sigma=sd, weights=w, grid=grid)
    ref = npmle(x[w > 0], sigma=sd[w > 0], grid=grid)
    assert fit.converged and fit.kkt <= 1 + 1e-8
    assert fit.loglik == pytest.approx(ref.loglik, rel=1e-9)


@pytest.mark.parametrize("method", ["sqp", "ip", "em"])
def test_zero_weight_observation_far_from_support(method):
    """A weight-0 observation far beyond the support ((L w)_i = 0) changes nothing: same fit and
    log-likelihood as without it (sqp and em failed on 0/0)."""
    x = np.random.default_rng(0).normal(size=300)
    grid = np.linspace(-3, 100, 200)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        fit = npmle(np.r_[x, 100.0], weights=np.r_[np.ones(300), 0.0], grid=grid, method=method,
                    tol=1e-6 if method == "em" else 1e-8)
    ref = npmle(x, grid=grid, method=method, tol=1e-6 if method == "em" else 1e-8)
    assert fit.converged and fit.nobs == 300
    assert fit.loglik == pytest.approx(ref.loglik, rel=1e-9)
    assert np.isfinite(np.asarray(fit.posterior_mean())).all()


# ------------------------------------------------------------------------------------------------
# the one ConvergenceWarning, missing values


def test_nan_policy_omit_drops_paired_observations():
    rng = np.random.default_rng(41)
    x, _ = three_point_data(120, 41)
    sig = rng.uniform(0.8, 1.2, 120)
    w = rng.integers(1, 3, 120).astype(float)
    xn, sn, wn = x.copy(), sig.copy(), w.copy()
    xn[0], sn[5], wn[9] = np.nan, np.nan, np.nan
    for kwargs in (dict(x=xn, sigma=sig, weights=w), dict(x=x, sigma=sn, weights=w), dict(x=x, sigma=sig, weights=wn)):
        name = next(k for k, v in kwargs.items() if np.isnan(v).any())
        with pytest.raises(ValueError, match=f"{name} contains 1 NaN"):
            npmle(**kwargs, grid=30)
    keep = np.ones(120, bool)
    keep[[0, 5, 9]] = False
    s = pd.Series(xn, index=[f"u{i}" for i in range(120)])
    fit = npmle(s, sigma=sn, weights=wn, grid=np.linspace(-4, 5, 30), nan_policy="omit")
    ref = npmle(x[keep], sigma=sig[keep], weights=w[keep], grid=np.linspace(-4, 5, 30))
    assert fit.loglik == ref.loglik and fit.nobs == ref.nobs
    pm = fit.posterior_mean()
    assert list(pm.index) == list(s.index[keep])
    with pytest.raises(ValueError, match="nan_policy"):
        npmle(x, nan_policy="propagate")
