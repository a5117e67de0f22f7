"""The TwoNN intrinsic dimension (Facco et al. 2017), as scikit-dimension 0.5.0 computes it.

For each point, mu = r2 / r1, the ratio of the distances to its second and first nearest
neighbours, follows a Pareto law with shape d (the intrinsic dimension) when the density is locally
constant. Two estimators of d from the N ratios:

- ``"linear"``: the slope of the line through the origin fitted by least squares to the points
  (log mu_(i), -log(1 - i / N)), i = 1..k, the k = int(N (1 - discard)) smallest ratios (the largest
  ones, most affected by curvature and density changes, are discarded: the paper's heuristic);
- ``"mle"``: the maximum-likelihood estimate. log mu is exponential with rate d, and keeping the k
  smallest of N is type-II censoring: d = (k - 1) / (sum_{i<=k} log mu_(i) + (N - k) log mu_(k)),
  the unbiased form; with ``discard=0`` it is (N - 1) / sum log mu (Denti et al. 2022).

Nearest neighbours. For d <= 16 coordinates the four nearest by a k-d tree (``scipy.spatial.cKDTree``).
Above, a blocked brute force: square blocks of the distance matrix from BLAS products
(|x|^2 + |y|^2 - 2 x.y, the data centred and brought to order one by a power of two), each pair of
blocks computed once (the upper triangle), scanned by a numba kernel that keeps the four nearest
candidates of every point. The products are float32 (twice as fast as float64), and certified: with
u = 2^-24 and M the largest row norm, every squared distance is within (2 d + 32) u M^2 of its float32
value, so when the fourth candidate of a point is farther than its second by more than twice that,
its two true nearest are among its candidates; the points where this fails are screened again with
float64 products against all points. Either way the two nearest are then chosen among the four by exact
distances (coordinate differences, scaled as ``hypot``), so that the rounding of the float64 products
of a rescreened point (about 1e-16 of the squared norms) can only matter when its second and fifth
nearest neighbours are that close; a point whose squared distances overflow (a far outlier) is
scanned in full. Beyond d = 10^5 coordinates (d u > 0.006) the screen is float64 throughout.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .._checks import as_representation, check_choice, check_discard, check_interval_kind, pow2_scale
from .._checks.public import public_function
from .._resampling import bootstrap
from .._warnings import StatcoreWarning

__all__ = ["twonn_dimension", "twonn_dimension_ci"]

#: coordinates up to which the k-d tree is used
_TREE_MAX_D = 16
#: candidates kept per point by the blocked scan (the two nearest are chosen among them exactly)
_CANDIDATES = 4
#: rows (and columns) of one block of the distance matrix
_BLOCK = 1024


def nearest_two(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distances r1 <= r2 of every row of X to its two nearest other rows, in units of a power of
    two (only their ratios are used)."""
    n, d = X.shape
    Z = X - X.mean(axis=0)
    # order one for the bulk of the points (median absolute size), exact: a far outlier's squared
    # distances may overflow, and its two nearest are then found by a scan of exact distances
    Z = np.ascontiguousarray(Z / float(pow2_scale(Z, axis=None, robust=True)))
    from ._kernels import exact_top2

    K = min(_CANDIDATES, n - 1)
    if d <= _TREE_MAX_D:
        from scipy.spatial import cKDTree

        with np.errstate(over="ignore", invalid="ignore"):
            _, idx = cKDTree(Z).query(Z, k=K + 1)
        cand = np.where(idx[:, 1:] < n, idx[:, 1:], -1).astype(np.int64)
        self_hit = cand == np.arange(n)[:, None]  # a duplicate may come before the point itself
        cand[self_hit] = np.where(idx[:, :1] < n, idx[:, :1], -1).repeat(K, axis=1)[self_hit]
    else:
        cand = _screen(Z, K)
    r1, r2 = np.empty(n), np.empty(n)
    exact_top2(Z, cand, r1, r2)
    return r1, r2


def _screen(Z: np.ndarray, K: int) -> np.ndarray:
    """The K nearest candidates of every row, from float32 Gram blocks, certified: a row is kept when
    the K-th candidate is farther than the second by more than twice the bound on the float32 error
    of a squared distance (then the two true nearest are among the K), else rescreened in float64."""
    from ._kernels import topk_block, topk_rows

    n, d = Z.shape
    with np.errstate(over="ignore", invalid="ignore"):
        Z32 = Z.astype(np.float32) if d <= 100_000 else Z
        sq = np.einsum("ij,ij->i", Z32.astype(np.float64), Z32.astype(np.float64))
        best_d = np.full((n, K), np.inf)
        cand = np.full((n, K), -1, dtype=np.int64)
        for i0 in range(0, n, _BLOCK):
            Zi = Z32[i0:i0 + _BLOCK]
            for j0 in range(i0, n, _BLOCK):
                topk_block(Zi @ Z32[j0:j0 + _BLOCK].T, sq, i0, j0, best_d, cand)
        # |v - D| <= (2 d + 32) u M^2 for u = 2^-24 (a float32 dot product of length d, and the
        # rounding of the coordinates to float32), M the largest finite row norm
        finite = np.isfinite(sq)
        u = 2.0 ** -24 if Z32.dtype == np.float32 else 2.0 ** -53
        bound = (2 * d + 32) * u * (sq[finite].max() if finite.any() else np.inf)
        unsure = np.flatnonzero(~(best_d[:, K - 1] - best_d[:, 1] > 2 * bound) & finite)
        if unsure.size:
            sq64 = np.einsum("ij,ij->i", Z, Z)
            step = max(1, (1 << 25) // (8 * n))
            for a in range(0, unsure.size, step):
                rows = unsure[a:a + step]
                topk_rows(Z[rows] @ Z.T, sq64, rows, best_d, cand)
    return cand


def _ratios(X: np.ndarray, warn: bool = True) -> np.ndarray:
    """The finite ratios mu = r2 / r1; points with r1 = 0 (duplicates) dropped with a warning."""
    r1, r2 = nearest_two(X)
    dup = r1 <= 0
    if dup.any():
        if warn:
            warnings.warn(StatcoreWarning(
                f"X: {int(dup.sum())} point(s) have a duplicate (distance 0 to the nearest neighbour, so "
                "mu = r2 / r1 is undefined): they are dropped, as scikit-dimension does"), stacklevel=4)
        r1, r2 = r1[~dup], r2[~dup]
    mu = r2 / r1
    if mu.size < 3:
        raise ValueError(f"X has {mu.size} point(s) without a duplicate; TwoNN needs at least 3")
    return mu


def _n_keep(N: int, discard: float, method: str) -> int:
    k = int(N * (1 - discard))  # scikit-dimension's rule
    if method == "linear":
        k = min(k, N - 1)  # F = N / N = 1 would give -log(0)
    return k


class _Estimator:
    """The TwoNN estimate from ratios mu (one sample, or one per row with ``axis=-1``)."""

    def __init__(self, discard: float, method: str):
        self.discard, self.method = discard, method

    def __call__(self, mu: np.ndarray, axis: int = -1) -> np.ndarray:
        mu = np.sort(np.moveaxis(np.asarray(mu, dtype=np.float64), axis, -1), axis=-1)
        N = mu.shape[-1]
        k = _n_keep(N, self.discard, self.method)
        logmu = np.log(mu[..., :k])
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.method == "mle":
                return (k - 1) / (logmu.sum(axis=-1) + (N - k) * logmu[..., -1])
            y = -np.log1p(-np.arange(1, k + 1) / N)
            return (logmu * y).sum(axis=-1) / (logmu * logmu).sum(axis=-1)


def _setup(X, discard, method, warn=True):
    discard = check_discard(discard, "discard")
    method = check_choice(method, "method", ("linear", "mle"))
    X = as_representation(X, "X", min_rows=3)
    mu = _ratios(X, warn=warn)
    k = _n_keep(mu.size, discard, method)
    if k < 2:
        raise ValueError(f"discard={discard:g} leaves {k} of the {mu.size} ratios; TwoNN needs at least 2 "
                         "(use a smaller discard or more rows of X)")
    est = _Estimator(discard, method)
    value = float(est(mu))
    if not math.isfinite(value):
        raise ValueError("X: the kept ratios r2 / r1 are all 1 (every point's two nearest neighbours are "
                         "equidistant, as on a regular grid), so the TwoNN dimension is undefined")
    return mu, est, value


@public_function(data=("X",), nan_policy=("raise", "omit"))
def twonn_dimension(X, *, discard=0.1, method="linear"):
    r"""The intrinsic dimension of a point cloud by the TwoNN estimator (Facco et al., 2017).

    For each point, :math:`\mu = r_2 / r_1`, the ratio of the distances to its second and first
    nearest neighbours, is Pareto distributed with shape d when the density is constant on the
    scale of the neighbours. ``"linear"`` fits d as the slope of the line through the origin of
    :math:`-\log(1 - F(\mu))` on :math:`\log \mu` (F the empirical distribution, i / N) over the
    smallest ratios, after discarding the largest ``discard`` fraction; ``"mle"`` is the maximum-
    likelihood estimate, which treats the discarded ratios as censored (with ``discard=0``,
    :math:`(N - 1) / \sum \log \mu`). Both match ``skdim.id.TwoNN`` (scikit-dimension 0.5.0) on the
    same points, the number kept being its ``int(N * (1 - discard))``; where that keeps all N ratios
    in the linear fit (``discard=0``, where scikit-dimension fails on :math:`-\log 0`), the largest
    ratio is left out.

    Parameters
    ----------
    X : array_like, shape (n, d)
        One row per point, n >= 3. Euclidean distances.
    discard : float, default 0.1
        The fraction of the largest ratios left out (censored by ``"mle"``), in [0, 1).
    method : {"linear", "mle"}
        The estimator.
    nan_policy : {"raise", "omit"}
        A NaN in X: "raise" refuses it, "omit" drops the rows holding one.

    Returns
    -------
    float
        The estimated intrinsic dimension.

    Warns
    -----
    StatcoreWarning
        When points have a duplicate (r1 = 0, mu undefined): they are dropped, and N counts the
        others, as in scikit-dimension.

    Raises
    ------
    ValueError
        When X has fewer than 3 rows (or fewer than 3 without a duplicate), or when every kept
        ratio is 1.

    See Also
    --------
    twonn_dimension_ci : with a bootstrap interval.

    Notes
    -----
    The nearest neighbours come from a k-d tree for up to 16 coordinates and otherwise from a
    blocked brute force on BLAS products with an exact check of the candidates (module notes of
    ``statcore/spectral/_twonn.py``); at n = 10^5 points in 384 dimensions it needs no n x n
    matrix.

    References
    ----------
    Facco, E., d'Errico, M., Rodriguez, A. and Laio, A. (2017). Estimating the intrinsic dimension
    of datasets by a minimal neighborhood information. Scientific Reports 7, 12140.
    Denti, F., Doimo, D., Laio, A. and Mira, A. (2022). The generalized ratios intrinsic dimension
    estimator. Scientific Reports 12, 20005.
    scikit-dimension (Bac et al. 2021), ``skdim.id.TwoNN``.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import twonn_dimension
    >>> rng = np.random.default_rng(0)
    >>> Z = rng.normal(size=(2000, 3))
    >>> X = Z @ rng.normal(size=(3, 50))          # a 3-dimensional plane in 50 coordinates
    >>> round(twonn_dimension(X), 1)
    3.0
    """
    return _setup(X, discard, method)[2]


@public_function(data=("X",), nan_policy=("raise", "omit"))
def twonn_dimension_ci(X, *, discard=0.1, method="linear", B=999, conf_level=0.95, ci="percentile", seed=None,
                       n_jobs=1, progress=None):
    """The TwoNN intrinsic dimension with a bootstrap confidence interval.

    The nearest neighbours are found once, on all the points; the bootstrap resamples the points'
    ratios mu = r2 / r1 (with replacement, B times) and applies the estimator of
    :func:`twonn_dimension` to each resample, through :func:`statcore.bootstrap` (the resampling
    engine). Resampling the rows of X instead would make duplicate points, whose r1 is 0.

    Parameters
    ----------
    X : array_like, shape (n, d)
        One row per point, n >= 3.
    discard : float, default 0.1
        As in :func:`twonn_dimension`.
    method : {"linear", "mle"}
        As in :func:`twonn_dimension`.
    B : int, default 999
        Bootstrap resamples.
    conf_level : float, default 0.95
        The interval's coverage.
    ci : {"percentile", "basic", "bca"}
        The bootstrap interval (:func:`statcore.bootstrap`'s methods; "bca" evaluates the n
        jackknife samples at once: n^2 memory).
    seed : None, int, numpy.random.Generator or numpy.random.SeedSequence
        The seed of the resampling streams.
    n_jobs : int, default 1
        Parallel workers (joblib); the result does not depend on it.
    progress : bool or None
        A progress bar over the resamples (None: only on a terminal).
    nan_policy : {"raise", "omit"}
        A NaN in X: "raise" refuses it, "omit" drops the rows holding one.

    Returns
    -------
    BootstrapResult
        ``estimate`` (the TwoNN dimension of X), ``confidence_interval``, ``standard_error`` and the
        ``bootstrap_distribution``.

    Warns
    -----
    StatcoreWarning
        When points have a duplicate (dropped, as in :func:`twonn_dimension`).

    References
    ----------
    Facco, E., d'Errico, M., Rodriguez, A. and Laio, A. (2017). Estimating the intrinsic dimension
    of datasets by a minimal neighborhood information. Scientific Reports 7, 12140.
    Efron, B. and Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*, Chapman & Hall.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import twonn_dimension_ci
    >>> X = np.random.default_rng(0).normal(size=(1000, 4))
    >>> res = twonn_dimension_ci(X, B=199, seed=1)
    >>> round(res.estimate, 2), round(res.confidence_interval.low, 2), round(res.confidence_interval.high, 2)
    (4.42, 4.16, 4.72)

    The interval is about the sampling variability of the estimate, not its bias: on Gaussian data
    (a density far from constant at the scale of the neighbours) TwoNN overestimates the dimension 4.
    """
    kind = check_interval_kind(ci)
    mu, est, _ = _setup(X, discard, method)
    return bootstrap((mu,), est, B=B, method=kind, conf_level=conf_level, vectorized=True, seed=seed, n_jobs=n_jobs,
                     progress=progress)
