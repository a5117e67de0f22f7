"""statcore.spectral against its oracles: scikit-learn's PCA, scikit-dimension's TwoNN, statcore's own
HSIC and matrix Renyi entropy, closed forms (isotropic and rank-one data, explicit Gram formulas)."""
import warnings

import numpy as np
import pytest

import statcore as sc
from statcore import (StatcoreWarning, effective_rank, effective_rank_ci, explained_variance, feature_correlation,
                      feature_correlation_ci, linear_cka, linear_cka_ci, participation_ratio, participation_ratio_ci,
                      twonn_dimension, twonn_dimension_ci)


@pytest.fixture(scope="module")
def rng():
    return np.random.default_rng(20261205)


def _aniso(rng, n, d):
    return rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) + rng.normal(size=d) * 5


# ----------------------------------------------------------------------------------------------
# explained variance: scikit-learn's PCA
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n, d", [(200, 6), (15, 40)])
def test_explained_variance_matches_sklearn_pca(rng, n, d):
    from sklearn.decomposition import PCA

    X = _aniso(rng, n, d)
    pca = PCA(svd_solver="full").fit(X)
    ev = explained_variance(X)
    k = min(n, d)
    assert ev.ratio.shape == (k,)
    np.testing.assert_allclose(ev.ratio, pca.explained_variance_ratio_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ev.eigenvalues, pca.explained_variance_, rtol=1e-12,
                               atol=1e-12 * pca.explained_variance_[0])
    np.testing.assert_allclose(ev.cumulative, np.cumsum(pca.explained_variance_ratio_), rtol=0, atol=1e-12)
    assert ev.cumulative[-1] == 1.0


def test_explained_variance_k_for_and_uncentred(rng):
    X = rng.normal(size=(400, 4)) * [10.0, 3.0, 1.0, 0.1]
    ev = explained_variance(X)
    for q in (0.01, 0.5, 0.9, 0.95, 0.999, 1.0):
        k = ev.k_for(q)
        assert ev.cumulative[k - 1] >= q and (k == 1 or ev.cumulative[k - 2] < q)
    with pytest.raises(ValueError, match="share"):
        ev.k_for(0.0)
    # uncentred: the eigenvalues of X'X / n
    unc = explained_variance(X + 2.0, center=False)
    ref = np.sort(np.linalg.eigvalsh((X + 2.0).T @ (X + 2.0) / 400))[::-1]
    np.testing.assert_allclose(unc.eigenvalues, ref, rtol=1e-10)
    with pytest.raises(ValueError, match="X has no variance"):
        explained_variance(np.ones((5, 3)))


# ----------------------------------------------------------------------------------------------
# participation ratio and effective rank
# ----------------------------------------------------------------------------------------------

def test_participation_ratio_closed_forms(rng):
    assert participation_ratio([4.0, 1.0, 1.0]) == pytest.approx(2.0, rel=1e-15)
    assert participation_ratio(np.full(7, 3.0)) == pytest.approx(7.0, rel=1e-14)
    X = rng.normal(size=(20000, 10))
    # isotropic: E PR is about d / (1 + d / n) (Marchenko-Pastur spread of the eigenvalues)
    assert participation_ratio(X) == pytest.approx(10 / (1 + 10 / 20000), rel=3e-3)
    line = np.outer(rng.normal(size=50), rng.normal(size=6))
    assert participation_ratio(line) == pytest.approx(1.0, abs=1e-12)
    assert participation_ratio(line, center=False) == pytest.approx(1.0, abs=1e-12)
    # a data matrix and its spectrum give the same value
    Y = _aniso(rng, 100, 5)
    assert participation_ratio(Y) == pytest.approx(participation_ratio(explained_variance(Y).eigenvalues), rel=1e-13)
    with pytest.raises(ValueError, match="non-negative"):
        participation_ratio([1.0, -0.5])
    with pytest.raises(ValueError, match="all zeros"):
        participation_ratio([0.0, 0.0])
    with pytest.raises(ValueError, match="no variance"):
        participation_ratio(np.ones((4, 3)))


def test_participation_ratio_is_exp_renyi2(rng):
    """exp of the order-2 matrix Renyi entropy: renyi_matrix_entropy's Gram matrix is uncentred, so it
    agrees with center=False, and with the default center=True on the column-centred X."""
    X = _aniso(rng, 60, 8)
    assert participation_ratio(X, center=False) == pytest.approx(np.exp(sc.renyi_matrix_entropy(X, order=2)),
                                                                 rel=1e-12)
    Xc = X - X.mean(axis=0)
    assert participation_ratio(X) == pytest.approx(np.exp(sc.renyi_matrix_entropy(Xc, order=2)), rel=1e-12)
    assert abs(participation_ratio(X) - participation_ratio(X, center=False)) > 1e-3  # the centring matters here


def test_effective_rank_closed_forms(rng):
    line = np.outer(rng.normal(size=40), rng.normal(size=5))
    assert effective_rank(line) == pytest.approx(1.0, abs=1e-12)
    Q, _ = np.linalg.qr(rng.normal(size=(30, 6)))  # six equal singular values
    assert effective_rank(Q, center=False) == pytest.approx(6.0, rel=1e-12)
    X = rng.normal(size=(20000, 10))
    assert 9.9 < effective_rank(X) <= 10.0
    # the definition, from numpy's SVD
    Y = _aniso(rng, 80, 7)
    s = np.linalg.svd(Y - Y.mean(axis=0), compute_uv=False)
    p = s / s.sum()
    assert effective_rank(Y) == pytest.approx(np.exp(-(p * np.log(p)).sum()), rel=1e-12)
    assert 1.0 < effective_rank(Y) < 7.0
    # scale invariance, and data of 1e300 / 1e-300 without overflow
    assert effective_rank(Y * 1e-300) == pytest.approx(effective_rank(Y), rel=1e-12)
    assert participation_ratio(Y * 1e300) == pytest.approx(participation_ratio(Y), rel=1e-12)


# ----------------------------------------------------------------------------------------------
# feature correlation
# ----------------------------------------------------------------------------------------------

def test_feature_correlation_brute_force_and_constant_columns(rng):
    X = rng.normal(size=(50, 5)) + rng.normal(size=(50, 1))
    R = np.corrcoef(X, rowvar=False)
    ref = (np.abs(R).sum() - 5) / 20
    assert feature_correlation(X) == pytest.approx(ref, rel=1e-12)
    x = rng.normal(size=30)
    assert feature_correlation(np.c_[x, -3 * x + 1, 2 * x]) == pytest.approx(1.0, abs=1e-14)
    with pytest.warns(StatcoreWarning, match="1 constant column"):
        with_const = feature_correlation(np.c_[X[:, :2], np.full(50, 4.0), X[:, 2:]])
    assert with_const == pytest.approx(ref, rel=1e-12)
    with pytest.raises(ValueError, match="two non-constant columns"):
        feature_correlation(np.c_[x, np.zeros(30)])


# ----------------------------------------------------------------------------------------------
# linear CKA: invariances, explicit Gram formulas, statcore.hsic
# ----------------------------------------------------------------------------------------------

def _hsic_b(K, L):
    n = K.shape[0]
    H = np.eye(n) - 1.0 / n
    return np.trace(K @ H @ L @ H) / n ** 2


def _hsic_u(K, L):
    n = K.shape[0]
    Kt, Lt, o = K - np.diag(np.diag(K)), L - np.diag(np.diag(L)), np.ones(n)
    return (np.trace(Kt @ Lt) + (o @ Kt @ o) * (o @ Lt @ o) / ((n - 1) * (n - 2))
            - 2 / (n - 2) * (o @ Kt @ Lt @ o)) / (n * (n - 3))


def _cka_gram(X, Y, h):
    K, L = X @ X.T, Y @ Y.T
    return h(K, L) / np.sqrt(h(K, K) * h(L, L))


def test_linear_cka_invariances(rng):
    X = _aniso(rng, 80, 6)
    assert linear_cka(X, X) == pytest.approx(1.0, abs=1e-14)
    assert linear_cka(X, X, debiased=True) == pytest.approx(1.0, abs=1e-14)
    Q, _ = np.linalg.qr(rng.normal(size=(6, 6)))
    Y = X[:, :3] + rng.normal(size=(80, 3))
    for deb in (False, True):
        base = linear_cka(X, Y, debiased=deb)
        assert linear_cka(2.5 * X @ Q, Y, debiased=deb) == pytest.approx(base, rel=1e-12)
        assert linear_cka(X, -0.1 * Y, debiased=deb) == pytest.approx(base, rel=1e-12)
        assert linear_cka(Y, X, debiased=deb) == pytest.approx(base, rel=1e-12)
        assert linear_cka(X + 100.0, Y, debiased=deb) == pytest.approx(base, rel=1e-12)
    # not invariant to an arbitrary invertible map
    assert abs(linear_cka(X @ np.diag([1, 1, 1, 1, 1, 20.0]), Y) - linear_cka(X, Y)) > 1e-3


@pytest.mark.parametrize("n, dx, dy", [(30, 4, 7), (12, 20, 25)])
def test_linear_cka_matches_gram_formulas(rng, n, dx, dy):
    X, Y = rng.normal(size=(n, dx)), rng.normal(size=(n, dy))
    Y[:, 0] += X[:, 0]
    assert linear_cka(X, Y) == pytest.approx(_cka_gram(X, Y, _hsic_b), rel=1e-12)
    assert linear_cka(X, Y, debiased=True) == pytest.approx(_cka_gram(X, Y, _hsic_u), rel=1e-10)


def test_linear_cka_is_normalised_hsic(rng):
    """statcore.hsic has no linear kernel; its Gaussian kernel exp(-|x - y|^2 / (2 s^2)) is
    1 - |x - y|^2 / (2 s^2) + O(s^-4), whose doubly centred Gram matrix is that of the linear kernel
    over s^2. So the normalised biased HSIC tends to the CKA as s grows (error O(s^-2): 1e-9 at
    s = 1e5 for data of order 1), and the unbiased one, whose cancellation forbids a large s, is
    extrapolated from s, 2s, 4s (Richardson, the series being in s^-2)."""
    n = 40
    X = rng.normal(size=(n, 3))
    Y = X @ rng.normal(size=(3, 4)) + rng.normal(size=(n, 4))

    def biased(a, b):
        return sc.hsic(a, b, bandwidth=1e5)

    def unbiased(a, b, s=40.0):
        f = [sc.hsic(a, b, bandwidth=t, estimator="unbiased") * t ** 4 for t in (s, 2 * s, 4 * s)]
        r1, r2 = (4 * f[1] - f[0]) / 3, (4 * f[2] - f[1]) / 3
        return (16 * r2 - r1) / 15

    for h, deb, tol in ((biased, False, 1e-7), (unbiased, True, 1e-6)):
        ref = h(X, Y) / np.sqrt(h(X, X) * h(Y, Y))
        assert linear_cka(X, Y, debiased=deb) == pytest.approx(ref, abs=tol)
    # and the unbiased HSIC itself (scale: s^4 HSIC_u(Gaussian) -> HSIC_u(linear))
    assert unbiased(X, Y) == pytest.approx(_hsic_u(X @ X.T, Y @ Y.T), rel=1e-6)


def test_linear_cka_refusals(rng):
    X = rng.normal(size=(10, 3))
    with pytest.raises(ValueError, match="same number of observations"):
        linear_cka(X, X[:-1])
    with pytest.raises(ValueError, match="Y has no variance"):
        linear_cka(X, np.ones((10, 2)))
    with pytest.raises(ValueError, match="at least 4 rows"):
        linear_cka(X[:3], X[:3], debiased=True)


# ----------------------------------------------------------------------------------------------
# TwoNN: scikit-dimension
# ----------------------------------------------------------------------------------------------

def _skdim_twonn(X, discard, method):
    skdim = pytest.importorskip("skdim")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return skdim.id.TwoNN(discard_fraction=discard, method=method).fit(X).dimension_


@pytest.mark.parametrize("shape", [(400, 3, 3), (500, 5, 40)])
def test_twonn_matches_skdim(rng, shape):
    n, d, D = shape
    X = rng.normal(size=(n, d)) @ rng.normal(size=(d, D)) if D != d else rng.normal(size=(n, d))
    for method, discard in (("linear", 0.1), ("linear", 0.25), ("mle", 0.1), ("mle", 0.0), ("mle", 0.3)):
        ref = _skdim_twonn(X, discard, method)
        assert twonn_dimension(X, discard=discard, method=method) == pytest.approx(ref, rel=1e-12)


def test_twonn_duplicates_dropped_with_warning_as_skdim(rng):
    X = rng.normal(size=(300, 5))
    X = np.r_[X, X[:5], X[7:8], X[7:8]]           # 13 points with a duplicate
    with pytest.warns(StatcoreWarning, match="13 point"):
        est = twonn_dimension(X)
    assert est == pytest.approx(_skdim_twonn(X, 0.1, "linear"), rel=1e-12)


def test_twonn_blocked_scan_is_exact(rng):
    """The blocked BLAS scan (over 16 coordinates, several blocks) finds the neighbours a k-d tree
    finds, and the zero coordinates added to cross the threshold change nothing."""
    from scipy.spatial import cKDTree

    n = 2300
    X = rng.normal(size=(n, 4)) @ rng.normal(size=(4, 18))
    dist, _ = cKDTree(X).query(X, k=3)
    mu = np.sort(dist[:, 2] / dist[:, 1])
    k = int(n * 0.9)
    y = -np.log1p(-np.arange(1, k + 1) / n)
    ref = (np.log(mu[:k]) * y).sum() / (np.log(mu[:k]) ** 2).sum()
    assert twonn_dimension(X) == pytest.approx(ref, rel=1e-12)
    low = rng.normal(size=(1500, 6))
    assert twonn_dimension(np.c_[low, np.zeros((1500, 14))]) == pytest.approx(twonn_dimension(low), rel=1e-12)


def test_twonn_float64_rescreen_of_uncertified_points(rng, monkeypatch):
    """A tight cluster beside far points: the float32 screen cannot certify the cluster's neighbours
    (their squared distances are below its error bound), which are rescreened in float64; the ratios
    are then those of a k-d tree."""
    from scipy.spatial import cKDTree

    import statcore.spectral._kernels as kernels

    X = np.r_[rng.normal(size=(1500, 20)) * 1e-3, rng.normal(size=(800, 20)) * 50]
    rescreened = []
    original = kernels.topk_rows

    def spy(G, sq, rows, best_d, best_i):
        rescreened.append(rows.size)
        return original(G, sq, rows, best_d, best_i)

    monkeypatch.setattr(kernels, "topk_rows", spy)
    dist, _ = cKDTree(X).query(X, k=3)
    mu = np.sort(dist[:, 2] / dist[:, 1])
    k = int(len(X) * 0.9)
    y = -np.log1p(-np.arange(1, k + 1) / len(X))
    ref = (np.log(mu[:k]) * y).sum() / (np.log(mu[:k]) ** 2).sum()
    assert twonn_dimension(X) == pytest.approx(ref, rel=1e-10)
    assert sum(rescreened) >= 1000


def test_twonn_discard_zero_linear_and_refusals(rng):
    X = rng.normal(size=(200, 2))
    r = np.sort(cdist_sorted(X))
    mu = np.sort(r[:, 2] / r[:, 1])
    k = 199                                        # F = 1 of the largest ratio left out
    y = -np.log1p(-np.arange(1, k + 1) / 200)
    ref = (np.log(mu[:k]) * y).sum() / (np.log(mu[:k]) ** 2).sum()
    assert twonn_dimension(X, discard=0.0) == pytest.approx(ref, rel=1e-12)
    assert twonn_dimension(X, discard=0.0, method="mle") == pytest.approx(199 / np.log(mu).sum(), rel=1e-12)
    with pytest.raises(ValueError, match="at least 3 rows"):
        twonn_dimension(X[:2])
    grid = np.c_[np.arange(10.0), np.zeros(10)]
    with pytest.raises(ValueError, match="equidistant"):
        twonn_dimension(grid, discard=0.2)  # the two ends (mu = 2) discarded
    with pytest.raises(ValueError, match="discard"):
        twonn_dimension(X, discard=1.0)
    with pytest.raises(ValueError, match="method"):
        twonn_dimension(X, method="ml")


def cdist_sorted(X):
    from scipy.spatial.distance import cdist

    return np.sort(cdist(X, X), axis=1)


def test_twonn_recovers_the_dimension(rng):
    Z = rng.normal(size=(3000, 5))
    X = Z @ rng.normal(size=(5, 60))
    assert twonn_dimension(X) == pytest.approx(5.0, rel=0.1)
    assert twonn_dimension(X, method="mle") == pytest.approx(5.0, rel=0.1)


# ----------------------------------------------------------------------------------------------
# the bootstrap intervals (through statcore.bootstrap)
# ----------------------------------------------------------------------------------------------

def test_ci_functions(rng):
    X = _aniso(rng, 120, 4)
    Y = X[:, :2] + rng.normal(size=(120, 2))
    cases = [(participation_ratio_ci, participation_ratio, (X,)), (effective_rank_ci, effective_rank, (X,)),
             (feature_correlation_ci, feature_correlation, (X,)), (linear_cka_ci, linear_cka, (X, Y)),
             (twonn_dimension_ci, twonn_dimension, (X,))]
    for ci_func, func, data in cases:
        res = ci_func(*data, B=99, seed=7)
        assert isinstance(res, sc.BootstrapResult) and res.B == 99
        assert res.estimate == pytest.approx(func(*data), rel=1e-14)
        lo, hi = res.confidence_interval
        assert lo < hi and np.all(np.isfinite(res.bootstrap_distribution))
        again = ci_func(*data, B=99, seed=7, ci="basic")
        assert np.array_equal(again.bootstrap_distribution, res.bootstrap_distribution)  # same streams
    # the rows are what is resampled: the engine's percentile interval of the statistic of rows
    idx_boot = sc.bootstrap((np.arange(120.0),), lambda i: participation_ratio(X[i.astype(int)]), B=99, seed=7,
                            vectorized=False)
    np.testing.assert_allclose(participation_ratio_ci(X, B=99, seed=7).bootstrap_distribution,
                               idx_boot.bootstrap_distribution, rtol=1e-13)
    with pytest.raises(ValueError, match="ci"):
        participation_ratio_ci(X, ci="student")
    with pytest.raises(ValueError, match="at least 3 rows"):
        effective_rank_ci(X[:2])
