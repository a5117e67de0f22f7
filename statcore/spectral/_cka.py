"""Linear centred kernel alignment (CKA) of two representations of the same inputs.

Both estimators are computed in feature space, in O(n d_x d_y + n d^2) time and O(d^2) memory,
without the n x n Gram matrices K = X X', L = Y Y'. With the columns of X and Y centred (HSIC is
invariant to it, and so is the unbiased estimator, whose U-statistic kernel is doubly centred):

- biased (Kornblith et al. 2019): tr(K H L H) = ||X'Y||_F^2, so CKA = ||X'Y||^2 / (||X'X|| ||Y'Y||);
- debiased (the unbiased HSIC of Song et al. 2012, eq. 5, in each of the three places): with the
  squared row norms k_i = ||x_i||^2, l_i = ||y_i||^2 (the Gram diagonals) and centred data,
  tr(Kt Lt) = ||X'Y||^2 - k'l, 1'Kt 1 = -sum k, Kt 1 = -k, so
  HSIC_u = [||X'Y||^2 - k'l + (sum k)(sum l) / ((n-1)(n-2)) - 2 k'l / (n-2)] / (n (n-3)).

Each matrix is divided by a power of two near its size first (exact), so that the fourth powers in
the norms neither overflow nor underflow; CKA is invariant to that scaling.
"""
from __future__ import annotations

import math

import numpy as np

from .._checks import as_representation, check_flag, check_same_n, pow2_scale
from .._checks.public import public_function
from ._interval import row_interval

__all__ = ["linear_cka", "linear_cka_ci"]


def _prepared(A: np.ndarray, name: str) -> np.ndarray:
    Z = A - A.mean(axis=0)
    Z = Z / pow2_scale(Z, axis=None)
    if not np.any(Z):
        raise ValueError(f"{name} has no variance (all rows are equal): its CKA with anything is undefined")
    return Z


def _hsic_terms(A: np.ndarray, B: np.ndarray, same: bool) -> float:
    """||A'B||_F^2 (A'B as the smaller of A'B and, when n is small, the n x n product)."""
    n, p = A.shape
    q = B.shape[1]
    if n < min(p, q) and not same:  # the n x n route is cheaper
        return float(np.sum((A @ A.T) * (B @ B.T)))
    C = A.T @ A if same else A.T @ B
    return float(np.sum(C * C))


def _hsic_u(A: np.ndarray, B: np.ndarray, same: bool) -> float:
    n = A.shape[0]
    k = np.einsum("ij,ij->i", A, A)
    l_ = k if same else np.einsum("ij,ij->i", B, B)
    kl = float(k @ l_)
    return (_hsic_terms(A, B, same) - kl + k.sum() * l_.sum() / ((n - 1) * (n - 2)) - 2.0 * kl / (n - 2)) \
        / (n * (n - 3.0))


def _cka(X: np.ndarray, Y: np.ndarray, debiased: bool) -> float:
    A, B = _prepared(X, "X"), _prepared(Y, "Y")
    if not debiased:
        xy, xx, yy = _hsic_terms(A, B, False), _hsic_terms(A, A, True), _hsic_terms(B, B, True)
        return float(min(xy / (math.sqrt(xx) * math.sqrt(yy)), 1.0))
    xy, xx, yy = _hsic_u(A, B, False), _hsic_u(A, A, True), _hsic_u(B, B, True)
    for v, name in ((xx, "X"), (yy, "Y")):
        if not v > 0:
            raise ValueError(f"{name}: the unbiased HSIC of {name} with itself is {v:.3g} (not positive), so the "
                             "debiased CKA is undefined; use more rows or debiased=False")
    return float(xy / (math.sqrt(xx) * math.sqrt(yy)))


def _inputs(X, Y, debiased: bool, extra: int = 0):
    debiased = check_flag(debiased, "debiased")
    X = as_representation(X, "X", min_rows=(4 if debiased else 2) + extra)
    Y = as_representation(Y, "Y", min_rows=(4 if debiased else 2) + extra)
    check_same_n(X=X, Y=Y)
    return X, Y, debiased


@public_function(data=("X", "Y"), nan_policy=("raise", "omit"))
def linear_cka(X, Y, *, debiased=False):
    r"""Linear centred kernel alignment between two representations of the same n inputs.

    .. math:: \mathrm{CKA}(X, Y) = \frac{\mathrm{HSIC}(K, L)}{\sqrt{\mathrm{HSIC}(K, K)\,
              \mathrm{HSIC}(L, L)}}, \quad K = X X^\top,\ L = Y Y^\top,

    which for the biased (V-statistic) HSIC is :math:`\|Y_c^\top X_c\|_F^2 / (\|X_c^\top X_c\|_F
    \|Y_c^\top Y_c\|_F)` with column-centred :math:`X_c, Y_c`: 1 for X with itself, invariant to
    orthogonal transformations and to isotropic scaling of either representation (not to
    arbitrary invertible linear maps), and in [0, 1]. The debiased form puts the unbiased HSIC of
    Song et al. (2012) in all three places, removing the upward bias of the biased CKA between
    unrelated representations with few rows and many features (it can be negative). Both are
    computed without the n x n Gram matrices (see the module notes).

    Parameters
    ----------
    X : array_like, shape (n, d_x)
        One representation, one row per input.
    Y : array_like, shape (n, d_y)
        The other, the same inputs in the same order (the feature counts may differ).
    debiased : bool, default False
        The debiased CKA (needs n >= 4).
    nan_policy : {"raise", "omit"}
        A NaN in X or Y: "raise" refuses it, "omit" drops the rows (inputs) holding one in either.

    Returns
    -------
    float
        The CKA.

    Raises
    ------
    ValueError
        When X or Y has no variance, or (debiased) when the unbiased HSIC of X or Y with itself
        is not positive (too few rows).

    See Also
    --------
    linear_cka_ci : its bootstrap interval over the inputs.
    statcore.hsic : HSIC with Gaussian, Laplace or discrete kernels.

    References
    ----------
    Kornblith, S., Norouzi, M., Lee, H. and Hinton, G. (2019). Similarity of neural network
    representations revisited. ICML, 3519-3529.
    Song, L., Smola, A., Gretton, A., Bedo, J. and Borgwardt, K. (2012). Feature selection via
    dependence maximization. JMLR 13, 1393-1434.
    Nguyen, T., Raghu, M. and Kornblith, S. (2021). Do wide and deep networks learn the same things?
    ICLR (the debiased CKA).

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import linear_cka
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 5))
    >>> Q, _ = np.linalg.qr(rng.normal(size=(5, 5)))
    >>> round(linear_cka(X, 3.0 * X @ Q), 12)
    1.0
    >>> round(linear_cka(X, rng.normal(size=(100, 5))), 3)   # unrelated: biased upwards
    0.039
    >>> round(linear_cka(X, rng.normal(size=(100, 5)), debiased=True), 3)
    -0.017
    """
    X, Y, debiased = _inputs(X, Y, debiased)
    return _cka(X, Y, debiased)


class _CKA:
    def __init__(self, debiased):
        self.debiased = debiased

    def __call__(self, X, Y):
        return _cka(X, Y, self.debiased)


@public_function(data=("X", "Y"), nan_policy=("raise", "omit"))
def linear_cka_ci(X, Y, *, debiased=False, B=999, conf_level=0.95, ci="percentile", seed=None, n_jobs=1,
                  progress=None):
    """Linear CKA with a bootstrap confidence interval over the inputs (rows of X and Y together).

    The rows are resampled with replacement B times, the same rows of X and of Y, and
    :func:`linear_cka` is computed on each resample, through :func:`statcore.bootstrap` (the
    resampling engine). A repeated row counts as a repeated input (as in a bootstrap of any
    statistic of the pairs).

    Parameters
    ----------
    X : array_like, shape (n, d_x)
        One representation, one row per input (n >= 3; >= 5 debiased).
    Y : array_like, shape (n, d_y)
        The other, the same inputs in the same order.
    debiased : bool, default False
        As in :func:`linear_cka`.
    B : int, default 999
        Bootstrap resamples.
    conf_level : float, default 0.95
        The interval's coverage.
    ci : {"percentile", "basic", "bca"}
        The bootstrap interval (:func:`statcore.bootstrap`'s methods).
    seed : None, int, numpy.random.Generator or numpy.random.SeedSequence
        The seed of the resampling streams.
    n_jobs : int, default 1
        Parallel workers (joblib); the result does not depend on it.
    progress : bool or None
        A progress bar over the resamples (None: only on a terminal).
    nan_policy : {"raise", "omit"}
        A NaN in X or Y: "raise" refuses it, "omit" drops the rows holding one in either.

    Returns
    -------
    BootstrapResult
        ``estimate`` (the CKA of X and Y), ``confidence_interval``, ``standard_error`` and the
        ``bootstrap_distribution``.

    References
    ----------
    Kornblith, S., Norouzi, M., Lee, H. and Hinton, G. (2019). Similarity of neural network
    representations revisited. ICML. Efron, B. and Tibshirani, R. J. (1993). *An Introduction to
    the Bootstrap*, Chapman & Hall.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import linear_cka_ci
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 4))
    >>> Y = X[:, :2] + 0.5 * rng.normal(size=(200, 2))
    >>> res = linear_cka_ci(X, Y, B=199, seed=1)
    >>> bool(res.confidence_interval.low < res.estimate < res.confidence_interval.high)
    True
    """
    X, Y, debiased = _inputs(X, Y, debiased, extra=1)
    _cka(X, Y, debiased)
    return row_interval(_CKA(debiased), (X, Y), B=B, conf_level=conf_level, ci=ci, seed=seed, n_jobs=n_jobs,
                        progress=progress)
