"""HSIC and dHSIC: closed forms and brute force (the trace formula, Song et al.'s unbiased estimator,
dHSIC's V-statistic, the gamma nulls' moments), hyppo's statistics on the same data, the approximate
tests (RFF convergence, Nystrom with every row a landmark, Imhof's tail), input handling.

R's dHSIC is not installable here (not on Debian); its documented formulas are the reference.
Budget: under 60 s with the other non-size tests of this topic."""
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.spatial.distance import pdist, squareform

from statcore import StatcoreWarning, dhsic, dhsic_test, hsic, hsic_test
from statcore.indep import _hsic_approx
from statcore.indep._dhsic import _dhsic_gamma
from statcore.indep._hsic import _gretton_gamma, _hsic_b_parts


# ----------------------------------------------------------------------------------------------
# naive references (numpy, straight from the papers)
# ----------------------------------------------------------------------------------------------

def naive_sigma(x, kernel):
    """The median heuristic as documented: Gaussian s^2 = median |xi - xj|^2 / 2, Laplace s = median
    |xi - xj| (all pairs i < j; the positive distances when the median is 0)."""
    d = pdist(np.asarray(x, float).reshape(len(x), -1))
    vals = d ** 2 if kernel == "gaussian" else d
    med = np.median(vals)
    if med == 0:
        med = np.median(vals[vals > 0])
    return np.sqrt(med / 2) if kernel == "gaussian" else med


def naive_gram(x, kernel="gaussian", sigma=None):
    x = np.asarray(x, float).reshape(len(x), -1)
    if kernel == "discrete":
        return np.all(x[:, None, :] == x[None, :, :], axis=2).astype(float)
    s = naive_sigma(x, kernel) if sigma is None else sigma
    d = squareform(pdist(x))
    return np.exp(-d ** 2 / (2 * s ** 2)) if kernel == "gaussian" else np.exp(-d / s)


def hsic_trace(K, L):
    n = K.shape[0]
    H = np.eye(n) - np.ones((n, n)) / n
    return np.trace(K @ H @ L @ H) / n ** 2


def hsic_song(K, L):
    """Song et al. (2012), eq. (5), written out."""
    n = K.shape[0]
    Kt = K - np.diag(np.diag(K))
    Lt = L - np.diag(np.diag(L))
    one = np.ones(n)
    return (np.trace(Kt @ Lt) + (one @ Kt @ one) * (one @ Lt @ one) / ((n - 1) * (n - 2))
            - 2 / (n - 2) * one @ Kt @ Lt @ one) / (n * (n - 3))


def dhsic_naive(Ks):
    """Pfister et al. (2018), eq. (3.3), with explicit loops over the pairs."""
    n = Ks[0].shape[0]
    t1 = sum(np.prod([K[i, j] for K in Ks]) for i in range(n) for j in range(n)) / n ** 2
    t2 = np.prod([K.sum() / n ** 2 for K in Ks])
    t3 = 2 / n * sum(np.prod([K[i].sum() / n for K in Ks]) for i in range(n))
    return t1 + t2 - t3


def _data(n=60, seed=0, dep=1.0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 2))
    y = dep * np.sin(2 * x[:, :1]) + rng.normal(size=(n, 1))
    return x, y


# ----------------------------------------------------------------------------------------------
# statistics
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kernel", ["gaussian", "laplace"])
def test_hsic_equals_the_trace_formula(kernel):
    x, y = _data()
    K, L = naive_gram(x, kernel), naive_gram(y, kernel)
    assert hsic(x, y, kernel=kernel) == pytest.approx(hsic_trace(K, L), rel=1e-12)
    assert hsic(x, y, kernel=kernel, estimator="unbiased") == pytest.approx(hsic_song(K, L), rel=1e-10)
    # fixed bandwidths, one per variable
    K, L = naive_gram(x, kernel, 0.7), naive_gram(y, kernel, 2.0)
    assert hsic(x, y, kernel=kernel, bandwidth=(0.7, 2.0)) == pytest.approx(hsic_trace(K, L), rel=1e-12)


def test_discrete_kernel_and_mixed_kernels():
    rng = np.random.default_rng(3)
    a = rng.integers(0, 3, size=(50, 2)).astype(float)
    b = a[:, 0] + rng.normal(size=50)
    K, L = naive_gram(a, "discrete"), naive_gram(b, "gaussian")
    assert hsic(a, b, kernel=["discrete", "gaussian"]) == pytest.approx(hsic_trace(K, L), rel=1e-12)
    assert hsic(a, b, kernel=("discrete", "gaussian"), bandwidth=["median", 0.5]) == pytest.approx(
        hsic_trace(K, naive_gram(b, "gaussian", 0.5)), rel=1e-12)


def test_median_heuristic_with_ties_uses_the_positive_distances():
    x = np.array([0.0] * 30 + [1.0, 2.0, 3.0, 5.0])  # most pairs tied: median distance 0
    y = np.arange(34.0)
    assert np.median(pdist(x[:, None])) == 0
    res = hsic_test(x, y)
    assert res.extras["bandwidth"][0] == pytest.approx(naive_sigma(x, "gaussian"), rel=1e-14)
    assert res.extras["bandwidth"][1] == pytest.approx(np.sqrt(np.median(pdist(y[:, None]) ** 2) / 2), rel=1e-14)


def test_dhsic_with_two_variables_is_hsic():
    x, y = _data(n=80, seed=5)
    for kernel in ("gaussian", "laplace"):
        assert abs(dhsic(x, y, kernel=kernel) - hsic(x, y, kernel=kernel)) < 1e-12
    assert abs(dhsic(x, y, bandwidth=[0.4, 1.1]) - hsic(x, y, bandwidth=(0.4, 1.1))) < 1e-12


def test_dhsic_equals_its_definition_for_three_variables():
    rng = np.random.default_rng(7)
    a, b = rng.normal(size=(2, 25))
    c = rng.integers(0, 2, size=25)
    Ks = [naive_gram(a), naive_gram(b, "laplace"), naive_gram(c, "discrete")]
    got = dhsic(a, b, c, kernel=["gaussian", "laplace", "discrete"])
    assert got == pytest.approx(dhsic_naive(Ks), rel=1e-12)


def test_unbiased_estimator_is_centred_under_independence():
    # E(HSIC_u) = 0 under independence; E(HSIC_b) > 0 (the V-statistic's bias)
    rng = np.random.default_rng(11)
    u = [hsic(rng.normal(size=40), rng.normal(size=40), estimator="unbiased", bandwidth=1.0) for _ in range(300)]
    b = [hsic(rng.normal(size=40), rng.normal(size=40), bandwidth=1.0) for _ in range(100)]
    assert abs(np.mean(u)) < 3 * np.std(u) / np.sqrt(300)
    assert np.mean(b) > 10 * np.std(b) / np.sqrt(100)


# ----------------------------------------------------------------------------------------------
# gamma nulls
# ----------------------------------------------------------------------------------------------

def test_gretton_gamma_moments_equal_the_naive_formulas():
    x, y = _data(n=50, seed=2)
    K, L = naive_gram(x), naive_gram(y)
    n = 50
    H = np.eye(n) - 1 / n
    Kc, Lc = H @ K @ H, H @ L @ H
    mux = (K.sum() - n) / (n * (n - 1))
    muy = (L.sum() - n) / (n * (n - 1))
    mean = (1 + mux * muy - mux - muy) / n
    Bm = (Kc * Lc) ** 2
    var = 2 * (n - 4) * (n - 5) / (n * (n - 1) * (n - 2) * (n - 3)) * (Bm.sum() - np.trace(Bm)) / (n * (n - 1))
    s, ssq = _hsic_b_parts(K, L)
    got = _gretton_gamma(K, L, s, ssq)
    assert got["mean"] == pytest.approx(mean, rel=1e-12)
    assert got["var"] == pytest.approx(var, rel=1e-12)
    res = hsic_test(x, y)
    shape, scale = mean ** 2 / var, n * var / mean
    assert res.extras["shape"] == pytest.approx(shape, rel=1e-10)
    assert res.extras["scale"] == pytest.approx(scale, rel=1e-10)
    assert res.p_value == pytest.approx(stats.gamma.sf(n * hsic_trace(K, L), shape, scale=scale), rel=1e-9)
    assert res.extras["null_mean"] == pytest.approx(n * mean, rel=1e-12)


def test_dhsic_gamma_for_two_variables_factorises():
    x, y = _data(n=40, seed=4)
    Ks = np.stack([naive_gram(x), naive_gram(y)])
    n = 40
    a = Ks.sum(axis=(1, 2)) / n ** 2
    b = (Ks ** 2).sum(axis=(1, 2)) / n ** 2
    c = (Ks.sum(axis=2) ** 2).sum(axis=1) / n ** 3
    mean = (1 - a[0]) * (1 - a[1]) / n
    var = 2 * (n - 4) * (n - 5) / (n * (n - 1) * (n - 2) * (n - 3)) * np.prod(b - 2 * c + a ** 2)
    got = _dhsic_gamma(Ks)
    assert got["mean"] == pytest.approx(mean, rel=1e-12)
    assert got["var"] == pytest.approx(var, rel=1e-12)
    res = dhsic_test(x, y)
    assert res.p_value == pytest.approx(stats.gamma.sf(n * dhsic_naive(list(Ks)), mean ** 2 / var,
                                                       scale=n * var / mean), rel=1e-9)
    # the two gamma nulls of d = 2 estimate the same law: Pfister's mean is ((n-1)/n)^2 Gretton's
    g = hsic_test(x, y)
    assert res.extras["null_mean"] == pytest.approx(g.extras["null_mean"] * ((n - 1) / n) ** 2, rel=1e-12)
    assert res.extras["null_var"] == pytest.approx(g.extras["null_var"], rel=0.3)


def test_dhsic_gamma_moments_match_the_permutation_null_for_three_variables():
    # the general-d formula (Pfister et al. 2018, section 4.3) against the moments of the
    # permutation distribution of n * dHSIC (5000 permutations, Monte Carlo error about 2% / 4%)
    rng = np.random.default_rng(8)
    a, b, c = rng.normal(size=(3, 120))
    res = dhsic_test(a, b, c, method="permutation", B=5000, seed=1)
    g = dhsic_test(a, b, c)
    reps = res.extras["replicates"]
    assert g.extras["null_mean"] == pytest.approx(reps.mean(), rel=0.05)
    assert g.extras["null_var"] == pytest.approx(reps.var(), rel=0.12)


# ----------------------------------------------------------------------------------------------
# resampling tests
# ----------------------------------------------------------------------------------------------

def test_permutation_p_value_and_reproducibility():
    x, y = _data(n=70, seed=9, dep=0.3)
    res = hsic_test(x, y, method="permutation", B=199, seed=4)
    reps = res.extras["replicates"]
    assert reps.shape == (199,)
    assert res.statistic == pytest.approx(70 * hsic(x, y), rel=1e-12)
    assert res.p_value == (1 + np.sum(reps >= res.statistic)) / 200
    assert res == hsic_test(x, y, method="permutation", B=199, seed=4)
    assert res == hsic_test(x, y, method="permutation", B=199, seed=np.random.default_rng(4))
    # every replicate is n * HSIC of x with a permutation of y: same permutation mean
    assert reps.mean() == pytest.approx(hsic_test(x, y).extras["null_mean"], rel=0.1)
    d = dhsic_test(x, y, method="permutation", B=99, seed=4)
    assert d.statistic == pytest.approx(res.statistic, rel=1e-12)
    boot = dhsic_test(x, y, method="bootstrap", B=99, seed=4)
    assert boot.p_value == (1 + np.sum(boot.extras["replicates"] >= boot.statistic)) / 100


def test_permutations_count_ties_with_discrete_data():
    # x has two groups (6 and 2 rows); y is 0 except one 1, on an x = 1 row. A permutation gives the
    # observed statistic (up to rounding) exactly when it moves the 1 to one of the two x = 1 rows:
    # P = 2/8, and these ties must count as ">= T"
    x = np.array([0, 0, 0, 0, 0, 0, 1, 1.0])
    y = np.array([0, 0, 0, 0, 0, 0, 0, 1.0])
    for kernel in ("discrete", "gaussian"):
        res = hsic_test(x, y, method="permutation", kernel=kernel, B=1999, seed=0)
        assert res.p_value == pytest.approx(0.25, abs=0.03)
        d = dhsic_test(x, y, method="permutation", kernel=kernel, B=1999, seed=0)
        assert d.p_value == pytest.approx(0.25, abs=0.03)


def test_power_against_a_nonlinear_dependence():
    rng = np.random.default_rng(12)
    x = rng.uniform(-2, 2, size=150)
    y = x ** 2 + 0.5 * rng.normal(size=150)
    assert abs(np.corrcoef(x, y)[0, 1]) < 0.2
    for method in ("gamma", "permutation"):
        assert hsic_test(x, y, method=method, B=199, seed=1).p_value < 0.01


# ----------------------------------------------------------------------------------------------
# the approximate tests
# ----------------------------------------------------------------------------------------------

def test_nystrom_with_every_row_a_landmark_is_exact():
    x, y = _data(n=150, seed=13)
    exact = hsic_test(x, y)
    for kernel in ("gaussian", "laplace"):
        exact = hsic_test(x, y, kernel=kernel)
        ny = hsic_test(x, y, kernel=kernel, approx="nystrom", n_features=150, seed=1)
        assert ny.statistic == pytest.approx(exact.statistic, rel=1e-8)
    a = np.round(x)
    assert hsic_test(a, y, kernel=["discrete", "gaussian"], approx="nystrom", n_features=150,
                     seed=1).statistic == pytest.approx(hsic_test(a, y, kernel=["discrete", "gaussian"]).statistic,
                                                        rel=1e-8)


def test_rff_statistic_converges_to_the_exact_one():
    # n = 200 (median on all rows: the same bandwidth as the exact test). The relative error of the
    # RFF statistic is O(n_features^-1/2): its root mean square over 4 seeds was 0.28 (Gaussian) and
    # 0.37 (Laplace) at 40 features, 0.029 and 0.039 at 2000 (0.023 and 0.007 at 4000)
    x, y = _data(n=200, seed=14)
    for kernel in ("gaussian", "laplace"):
        exact = hsic_test(x, y, kernel=kernel).statistic

        def rms(n_features):
            errs = [hsic_test(x, y, kernel=kernel, approx="rff", n_features=n_features, seed=s).statistic / exact - 1
                    for s in range(4)]
            return float(np.sqrt(np.mean(np.square(errs))))

        small, large = rms(40), rms(2000)
        assert large < 0.05
        assert large < small / 4


def test_feature_gamma_is_grettons_gamma_on_the_approximate_gram_matrices():
    rng = np.random.default_rng(15)
    x, y = rng.normal(size=(2, 80))
    fx = _hsic_approx.rff_features(x[:, None], "gaussian", 1.0, 40, np.random.default_rng(1))
    fy = _hsic_approx.nystrom_features(y[:, None], "laplace", 0.8, 30, np.random.default_rng(2))
    K, L = fx @ fx.T, fy @ fy.T  # centred approximate Gram matrices
    n = 80
    assert _hsic_approx.feature_statistic(fx, fy) == pytest.approx(n * hsic_trace(K, L), rel=1e-10)
    mean, var = _hsic_approx.feature_gamma_moments(fx, fy)
    assert mean == pytest.approx(np.trace(K) * np.trace(L) / (n - 1) ** 2, rel=1e-12)
    off = ~np.eye(n, dtype=bool)
    mk, ml = np.mean(K[off] ** 2), np.mean(L[off] ** 2)
    assert var == pytest.approx(n ** 2 * 2 * (n - 4) * (n - 5) / (n * (n - 1) * (n - 2) * (n - 3)) * mk * ml,
                                rel=1e-10)
    # the gamma law of the approximate test matches these moments
    res = hsic_test(x, y, approx="rff", n_features=40, seed=3)
    assert res.extras["null_var"] / res.extras["null_mean"] == pytest.approx(res.extras["scale"], rel=1e-12)


def test_spectral_tail_of_the_approximate_test():
    rng = np.random.default_rng(15)
    x, y = rng.normal(size=(2, 400))
    spec = hsic_test(x, y, approx="rff", n_features=60, seed=2, method="spectral")
    assert spec.statistic == hsic_test(x, y, approx="rff", n_features=60, seed=2).statistic
    lx, ly = spec.extras["eigen_x"], spec.extras["eigen_y"]
    # the spectral p-value is the tail of sum lambda_i eta_j z_ij^2 (Monte Carlo, 2e5 draws)
    w = np.multiply.outer(lx, ly).ravel()
    w = w[w > w.max() * 1e-8]
    draws = (rng.standard_normal((200_000, w.size)) ** 2) @ w
    assert spec.p_value == pytest.approx(np.mean(draws > spec.statistic), abs=0.005)


def test_imhof_against_chi_square_laws():
    for q in (0.1, 3.84, 25.0):
        assert _hsic_approx.weighted_chisq_sf(q, np.array([1.0])) == pytest.approx(stats.chi2.sf(q, 1), abs=1e-11)
        assert _hsic_approx.weighted_chisq_sf(q, np.full(5, 2.0)) == pytest.approx(stats.chi2.sf(q / 2, 5), abs=1e-11)
    # far in the tail the Chernoff bound is returned: an upper bound, small
    p = _hsic_approx.weighted_chisq_sf(200.0, np.full(3, 1.0))
    assert stats.chi2.sf(200, 3) <= p < 1e-12


def test_approx_bandwidth_uses_a_seeded_subsample():
    rng = np.random.default_rng(16)
    x, y = rng.normal(size=(2, 3000))
    a = hsic_test(x, y, approx="rff", seed=5)
    assert a == hsic_test(x, y, approx="rff", seed=5)
    bw = a.extras["bandwidth"][0]
    assert bw == pytest.approx(naive_sigma(x, "gaussian"), rel=0.1)  # a subsample of 1000 rows
    assert bw != pytest.approx(naive_sigma(x, "gaussian"), rel=1e-9)
    # under n = 1000 every row is used: the exact test's bandwidth
    b = hsic_test(x[:500], y[:500], approx="nystrom", seed=5)
    assert b.extras["bandwidth"] == hsic_test(x[:500], y[:500]).extras["bandwidth"]


def test_approx_permutation_method():
    x, y = _data(n=300, seed=17, dep=1.0)
    res = hsic_test(x, y, approx="nystrom", n_features=50, method="permutation", B=99, seed=1)
    assert res.p_value == 0.01
    assert "permutation test" in res.method and res.extras["replicates"].shape == (99,)


# ----------------------------------------------------------------------------------------------
# hyppo on the same data
# ----------------------------------------------------------------------------------------------

def test_hyppo_hsic_statistic_is_a_normalised_hsic(monkeypatch):
    hyppo = pytest.importorskip("hyppo.independence")
    # hyppo's Hsic is its Dcorr on kernel-induced distances; its numba kernels take about a minute to
    # compile on a cold cache, so they run as the Python functions they were compiled from
    import hyppo.independence.dcorr as hd

    for name in ("_dcorr", "_dcov", "_center_distmat", "_fast_1d_dcov", "_cpu_cumsum"):
        monkeypatch.setattr(hd, name, getattr(hd, name).py_func)
    x, y = _data(n=90, seed=18)
    bw = np.median(pdist(x))  # hyppo: the first variable's median distance for both, s = median
    for bias, est in ((True, "biased"), (False, "unbiased")):
        ratio = hsic(x, y, bandwidth=bw, estimator=est) / np.sqrt(
            hsic(x, x, bandwidth=bw, estimator=est) * hsic(y, y, bandwidth=bw, estimator=est))
        want = hyppo.Hsic(bias=bias).statistic(x, y)
        assert (np.sqrt(ratio) if bias else ratio) == pytest.approx(want, abs=1e-10)
    # the Laplace kernel (sklearn's is on the L1 norm: the same for one column)
    x1 = x[:, :1]
    ratio = hsic(x1, y, kernel="laplace", bandwidth=2.0, estimator="unbiased") / np.sqrt(
        hsic(x1, x1, kernel="laplace", bandwidth=2.0, estimator="unbiased")
        * hsic(y, y, kernel="laplace", bandwidth=2.0, estimator="unbiased"))
    assert ratio == pytest.approx(hyppo.Hsic(compute_kernel="laplacian", gamma=0.5).statistic(x1, y), abs=1e-10)


def test_hyppo_dhsic_statistic():
    dv = pytest.importorskip("hyppo.d_variate")
    rng = np.random.default_rng(19)
    a = rng.normal(size=(70, 2))
    b = (a[:, :1] * rng.normal(size=(70, 1)))
    c = rng.normal(size=(70, 1))
    bw = np.median(pdist(a))
    assert dhsic(a, b, c, bandwidth=bw) == pytest.approx(dv.dHsic().statistic(a, b, c), abs=1e-12)


# ----------------------------------------------------------------------------------------------
# the printout and the result
# ----------------------------------------------------------------------------------------------

def test_htest_layout():
    x, y = _data(n=40, seed=20)
    res = hsic_test(x, y)
    assert res.method == "HSIC test of independence (gamma approximation)"
    assert res.statistic_name == "n*HSIC" and list(res.estimate) == ["HSIC"]
    assert res.parameter == {} and res.alternative is None
    assert res.estimate["HSIC"] == pytest.approx(hsic(x, y), rel=1e-12)
    text = res.summary()
    assert "data:  x and y\nn*HSIC = " in text and "sample estimates:" in text
    stat, p = res
    assert stat == res.statistic and p == res.p_value
    frame = res.to_frame()
    assert list(frame.columns) == ["estimate", "statistic", "p_value", "method", "alternative"]
    d = dhsic_test(x, y, x[:, 0] + y[:, 0])
    assert d.method == "dHSIC test of joint independence (gamma approximation)"
    assert d.data_name == "variables[0], variables[1] and variables[2]" and d.extras["d"] == 3
    a = hsic_test(x, y, approx="rff", seed=1)
    assert a.method == "HSIC test of independence (random Fourier features, 100 features; gamma approximation)"


# ----------------------------------------------------------------------------------------------
# input handling
# ----------------------------------------------------------------------------------------------

def test_nan_policy_omit_drops_rows():
    x, y = _data(n=50, seed=21)
    x2 = x.copy()
    x2[3, 1] = np.nan
    y2 = y.copy()
    y2[10, 0] = np.nan
    keep = np.ones(50, bool)
    keep[[3, 10]] = False
    with pytest.raises(ValueError, match="x contains 1 NaN"):
        hsic(x2, y2)
    assert hsic(x2, y2, nan_policy="omit") == hsic(x[keep], y[keep])
    assert hsic_test(x2, y2, nan_policy="omit") == hsic_test(x[keep], y[keep])
    assert dhsic(x2, y2, nan_policy="omit") == dhsic(x[keep], y[keep])
    with pytest.raises(ValueError, match="nan_policy"):
        hsic(x2, y2, nan_policy="propagate")
    with pytest.raises(ValueError, match=r"variables\[0\] contains 1 NaN"):
        dhsic_test(x2, y2)


def test_pandas_inputs():
    x, y = _data(n=40, seed=22)
    frame = pd.DataFrame(x, columns=["a", "b"])
    assert hsic(frame, pd.Series(y[:, 0])) == hsic(x, y)


def test_constant_samples():
    x = np.ones(30)
    y = np.random.default_rng(0).normal(size=30)
    with pytest.warns(StatcoreWarning, match="x is constant"):
        assert hsic(x, y) == 0.0
    with pytest.warns(StatcoreWarning, match="y is constant"):
        assert hsic(y, np.zeros(30), estimator="unbiased") == 0.0
    with pytest.warns(StatcoreWarning, match=r"variables\[1\] is constant"):
        assert dhsic(y, x) == 0.0
    # d = 3: the constant variable drops out, dHSIC is that of the other two
    z = y ** 2 + np.random.default_rng(1).normal(size=30)
    with pytest.warns(StatcoreWarning):
        assert dhsic(y, x, z) == pytest.approx(dhsic(y, z), rel=1e-10)
    with pytest.raises(ValueError, match="x is constant"):
        hsic_test(x, y)
    with pytest.raises(ValueError, match="y is constant"):
        hsic_test(y, np.full((30, 2), 3.0), method="permutation")
    with pytest.raises(ValueError, match=r"variables\[2\] is constant"):
        dhsic_test(y, z, x)
    # a constant column in a multivariate sample is fine
    xy = np.column_stack([y, np.ones(30)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert hsic(xy, z) == pytest.approx(hsic(y, z), rel=1e-12)


def test_bad_arguments():
    x, y = _data(n=30, seed=23)
    with pytest.raises(ValueError, match="same number of observations"):
        hsic(x, y[:-1])
    with pytest.raises(ValueError, match="at least 4 observations"):
        hsic(x[:3], y[:3], estimator="unbiased")
    assert np.isfinite(hsic(x[:3], y[:3]))
    with pytest.raises(ValueError, match="at least 6 observations"):
        hsic_test(x[:5], y[:5])
    with pytest.raises(ValueError, match="unknown estimator"):
        hsic(x, y, estimator="u")
    with pytest.raises(ValueError, match="unknown kernel 'rbf'"):
        hsic(x, y, kernel="rbf")
    with pytest.raises(ValueError, match=r"unknown kernel\[1\]"):
        hsic(x, y, kernel=["gaussian", "linear"])
    with pytest.raises(ValueError, match="kernel must be one kernel name or 2"):
        hsic(x, y, kernel=["gaussian"] * 3)
    with pytest.raises(TypeError, match="kernel must be a kernel name"):
        hsic(x, y, kernel=3)
    for bad in (0, -1.0, np.inf, "mean"):
        with pytest.raises((ValueError, TypeError), match="bandwidth"):
            hsic(x, y, bandwidth=bad)
    with pytest.raises(ValueError, match=r"bandwidth\[1\] = 2.0 is given for a variable with the discrete"):
        hsic(x, np.round(y), kernel=["gaussian", "discrete"], bandwidth=[1.0, 2.0])
    assert hsic(x, np.round(y), kernel=["gaussian", "discrete"], bandwidth=1.0) == pytest.approx(
        hsic(x, np.round(y), kernel=["gaussian", "discrete"], bandwidth=[1.0, "median"]))
    with pytest.raises(ValueError, match="B must be >= 1"):
        hsic_test(x, y, method="permutation", B=0)
    with pytest.raises(TypeError, match="B must be an integer"):
        dhsic_test(x, y, B=9.5)
    with pytest.raises(ValueError, match="method='spectral' is the null of the approximate test"):
        hsic_test(x, y, method="spectral")
    with pytest.raises(ValueError, match="unknown method 'bootstrap'"):
        hsic_test(x, y, method="bootstrap")
    with pytest.raises(ValueError, match="unknown approx"):
        hsic_test(x, y, approx="fastfood")
    with pytest.raises(ValueError, match="n_features must be even"):
        hsic_test(x, y, approx="rff", n_features=51)
    with pytest.raises(ValueError, match="only 30 observations"):
        hsic_test(x, y, approx="nystrom")
    with pytest.raises(ValueError, match="no random Fourier features"):
        hsic_test(x, np.round(y), approx="rff", kernel=["gaussian", "discrete"])
    with pytest.raises(ValueError, match="needs at least 2 variables"):
        dhsic(x)
    with pytest.raises(ValueError, match="needs at least 2 variables"):
        dhsic_test()
    with pytest.raises(ValueError, match="at least 10 observations"):
        dhsic_test(x[:9], y[:9], x[:9, 0])  # gamma with d = 3 needs n >= 4d - 2
    with pytest.raises(TypeError, match="seed"):
        hsic_test(x, y, seed="a")
    with pytest.raises(TypeError, match="positional"):
        hsic(x, y, "gaussian")  # keyword-only after the data
