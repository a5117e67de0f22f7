"""The spectrum of a representation matrix: explained variance, participation ratio, effective rank,
and the mean absolute correlation between its features.

Every spectral quantity here is computed from the singular values of X (centred by default), from
the data brought to order one by a power of two (``_checks.pow2_scale``: exact, so that 1e300 or
1e-300 neither overflow nor underflow when squared); the eigenvalues of the covariance are the
squared singular values over n - 1. The singular values come from LAPACK's SVD of the (n, d) matrix
(O(n d^2), no n x n matrix), which keeps the small eigenvalues to the precision of the data rather
than to that of their squares.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._checks import as_float_array, as_representation, check_flag, check_in_interval, pow2_scale
from .._checks.public import public_function
from .._result import Result
from .._warnings import StatcoreWarning
from ._interval import row_interval

__all__ = ["explained_variance", "ExplainedVariance", "participation_ratio", "participation_ratio_ci",
           "effective_rank", "effective_rank_ci", "feature_correlation", "feature_correlation_ci"]


# ----------------------------------------------------------------------------------------------
# the computations (validated arrays in, numbers out)
# ----------------------------------------------------------------------------------------------

def _scaled(X: np.ndarray, center: bool, name: str = "X") -> tuple[np.ndarray, float]:
    """X centred (or not) and divided by a power of two near its largest absolute value; the scale."""
    Z = X - X.mean(axis=0) if center else X
    s = float(pow2_scale(Z, axis=None))
    Z = Z / s
    if not np.any(Z):
        what = "no variance (all rows are equal)" if center else "only zeros"
        raise ValueError(f"{name} has {what}: its spectrum is empty")
    return Z, s


def _singular_values(Z: np.ndarray) -> np.ndarray:
    from scipy.linalg import svd

    return svd(Z, compute_uv=False, check_finite=False, lapack_driver="gesdd")


def _pr_of_eigenvalues(lam: np.ndarray) -> float:
    m = lam.max()
    w = lam / m  # in [0, 1]: no overflow of the squares
    return float(w.sum() ** 2 / np.dot(w, w))


def _participation_ratio(X: np.ndarray, center: bool) -> float:
    sv = _singular_values(_scaled(X, center)[0])
    return _pr_of_eigenvalues(sv * sv)


def _effective_rank(X: np.ndarray, center: bool) -> float:
    sv = _singular_values(_scaled(X, center)[0])
    p = sv[sv > 0] / sv.sum()
    return float(math.exp(-np.dot(p, np.log(p))))


def _feature_correlation(X: np.ndarray, name: str = "X", warn: bool = False) -> float:
    keep = np.ptp(X, axis=0) > 0
    n_const = int(X.shape[1] - keep.sum())
    if keep.sum() < 2:
        raise ValueError(f"{name} needs at least two non-constant columns for a correlation, got "
                         f"{int(keep.sum())} (of {X.shape[1]})")
    if n_const and warn:
        warnings.warn(StatcoreWarning(f"{name} has {n_const} constant column(s) (no correlation defined): "
                                      "they are left out of the mean"), stacklevel=3)
    Z = X[:, keep]
    Z = Z - Z.mean(axis=0)
    Z = Z / pow2_scale(Z, axis=0)  # per column, exact: the norms below neither overflow nor underflow
    Z = Z / np.linalg.norm(Z, axis=0)
    p = Z.shape[1]
    R = Z.T @ Z
    off = np.abs(R).sum() - np.abs(np.diag(R)).sum()
    return float(min(off / (p * (p - 1)), 1.0))


# ----------------------------------------------------------------------------------------------
# explained variance
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False, repr=False)
class ExplainedVariance(Result):
    """The variance spectrum of a data matrix (what :func:`explained_variance` returns).

    Attributes
    ----------
    eigenvalues : numpy.ndarray
        The variance along each principal component, largest first: the eigenvalues of the sample
        covariance (squared singular values of the centred X over n - 1; over n when not centred:
        the eigenvalues of X'X / n). ``min(n, d)`` of them, as scikit-learn's PCA.
    ratio : numpy.ndarray
        ``eigenvalues / eigenvalues.sum()`` (scikit-learn's ``explained_variance_ratio_``).
    cumulative : numpy.ndarray
        Their running sum (the last is 1).
    n, d : int
        Rows (observations) and columns (features) of X.
    center : bool
        Whether the columns were centred.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import explained_variance
    >>> X = np.random.default_rng(0).normal(size=(200, 3)) * [3.0, 1.0, 0.1]
    >>> ev = explained_variance(X)
    >>> ev.k_for(0.9)
    1
    >>> ev.to_frame().columns.tolist()
    ['component', 'eigenvalue', 'ratio', 'cumulative']
    """

    eigenvalues: np.ndarray
    ratio: np.ndarray
    cumulative: np.ndarray
    n: int
    d: int
    center: bool

    def k_for(self, share: float) -> int:
        """The number of leading components that explain at least ``share`` of the variance.

        Parameters
        ----------
        share : float
            The share of the variance, in (0, 1] (``q`` in issue 34; ``q`` is reserved by the naming
            table).

        Returns
        -------
        int
            The smallest k with ``cumulative[k - 1] >= share``.
        """
        share = check_in_interval(share, "share", 0.0, 1.0, closed="right")
        return int(np.searchsorted(np.asarray(self.cumulative), share, side="left")) + 1

    def _repr_parts(self):
        return [("n", self.n), ("d", self.d), ("components", int(np.asarray(self.ratio).size)),
                ("first_ratio", float(self.ratio[0])), ("k_90", self.k_for(0.9))]

    def summary(self) -> str:
        """R's ``summary(prcomp(X))`` table ("Importance of components"), components in columns."""
        sd = np.sqrt(np.asarray(self.eigenvalues))
        k = sd.size
        table = pd.DataFrame([sd, np.asarray(self.ratio), np.asarray(self.cumulative)],
                             index=["Standard deviation", "Proportion of Variance", "Cumulative Proportion"],
                             columns=[f"PC{i + 1}" for i in range(k)])
        shown = table.iloc[:, :12]
        more = "" if k <= 12 else f"\n... and {k - 12} more components"
        head = (f"Importance of components ({'centred' if self.center else 'uncentred'}; n = {self.n}, "
                f"d = {self.d}):")
        return head + "\n" + shown.to_string(float_format=lambda v: f"{v:.4g}") + more + "\n"

    def to_frame(self) -> pd.DataFrame:
        """One row per component: ``component`` (1, 2, ...), ``eigenvalue``, ``ratio``, ``cumulative``."""
        k = np.asarray(self.ratio).size
        return pd.DataFrame({"component": np.arange(1, k + 1), "eigenvalue": np.asarray(self.eigenvalues),
                             "ratio": np.asarray(self.ratio), "cumulative": np.asarray(self.cumulative)})

    def _plot(self, ax=None):
        """The scree plot: each component's share (bars) and the cumulative share (line)."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.2), layout="constrained")
        k = np.arange(1, np.asarray(self.ratio).size + 1)
        ax.bar(k, self.ratio, color="0.7", label="ratio")
        ax.plot(k, self.cumulative, "o-", color="C3", ms=3, label="cumulative")
        ax.set_xlabel("component")
        ax.set_ylabel("share of variance")
        ax.set_ylim(0, 1.02)
        ax.legend(frameon=False)
        return ax


@public_function(data=("X",), nan_policy=("raise", "omit"))
def explained_variance(X, *, center=True):
    """The share of the variance of X along each principal component (a PCA spectrum).

    The eigenvalues of the sample covariance matrix of the columns of X, from the singular values
    s of the centred X (``s**2 / (n - 1)``, scikit-learn's ``PCA.explained_variance_``), their
    shares of the total and the running sum of the shares.

    Parameters
    ----------
    X : array_like, shape (n, d)
        One row per observation (a representation vector), one column per feature; n >= 2.
    center : bool, default True
        Centre the columns first (PCA). False: the spectrum of the second-moment matrix X'X / n
        (the uncentred Gram spectrum that :func:`statcore.renyi_matrix_entropy` uses).
    nan_policy : {"raise", "omit"}
        A NaN in X: "raise" refuses it, "omit" drops the rows holding one.

    Returns
    -------
    ExplainedVariance
        ``eigenvalues``, ``ratio``, ``cumulative`` (``min(n, d)`` components, largest first) and
        ``k_for(share)``, the number of components that explain that share of the variance.

    Raises
    ------
    ValueError
        When X has no variance (all rows equal; with ``center=False``: X is all zeros).

    References
    ----------
    Jolliffe, I. T. (2002). *Principal Component Analysis*, 2nd ed., Springer, section 6.1.
    R's ``summary(prcomp(X))``; scikit-learn's ``PCA.explained_variance_ratio_``.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import explained_variance
    >>> X = np.random.default_rng(1).normal(size=(500, 4)) @ np.diag([2.0, 1.0, 1.0, 0.5])
    >>> ev = explained_variance(X)
    >>> np.round(ev.ratio, 2)
    array([0.62, 0.18, 0.16, 0.04])
    >>> ev.k_for(0.75)
    2
    """
    center = check_flag(center, "center")
    X = as_representation(X, "X", min_rows=2)
    n, d = X.shape
    Z, s = _scaled(X, center)
    sv = _singular_values(Z)
    lam_s = sv * sv
    cum = np.cumsum(lam_s)
    ratio = lam_s / cum[-1]
    cumulative = cum / cum[-1]
    with np.errstate(over="ignore", under="ignore"):
        eigenvalues = (sv * s) ** 2 / (n - 1 if center else n)  # 0, never 0 * inf, for a null direction
    return ExplainedVariance(eigenvalues=eigenvalues, ratio=ratio, cumulative=np.minimum(cumulative, 1.0), n=int(n),
                             d=int(d), center=bool(center))


# ----------------------------------------------------------------------------------------------
# participation ratio, effective rank, feature correlation
# ----------------------------------------------------------------------------------------------

@public_function(data=("X",), nan_policy=("raise", "omit"))
def participation_ratio(X, *, center=True):
    r"""The participation ratio of a spectrum: :math:`(\sum_i \lambda_i)^2 / \sum_i \lambda_i^2`.

    The effective number of dimensions a representation spreads its variance over: 1 when the
    rows lie on a line, d when the d eigenvalues are equal. With :math:`p_i = \lambda_i / \sum_j
    \lambda_j` it is :math:`1 / \sum_i p_i^2 = \exp S_2(p)`, the exponential of the order-2 Renyi
    entropy of the normalised spectrum: with ``center=False`` it equals
    ``exp(statcore.renyi_matrix_entropy(X, order=2))`` (whose Gram matrix is uncentred), with the
    default ``center=True`` that of the column-centred X.

    Parameters
    ----------
    X : array_like
        A data matrix, shape (n, d) (one row per observation, n >= 2): the eigenvalues are those of
        its covariance matrix (of X'X / n when ``center=False``). Or a one-dimensional array of
        eigenvalues (a spectrum, not negative, not all zero), used as given.
    center : bool, default True
        Centre the columns of a data matrix first (ignored for a spectrum).
    nan_policy : {"raise", "omit"}
        A NaN in X: "raise" refuses it, "omit" drops the rows (or eigenvalues) holding one.

    Returns
    -------
    float
        The participation ratio, between 1 and the number of non-zero eigenvalues.

    Raises
    ------
    ValueError
        When the spectrum is empty or zero (X without variance) or an eigenvalue is negative.

    See Also
    --------
    participation_ratio_ci : its bootstrap interval over the rows of X.
    effective_rank : the exponential of the Shannon (order 1) entropy of the singular values.

    References
    ----------
    Gao, P., Trautmann, E., Yu, B., Santhanam, G., Ryu, S., Shenoy, K. and Ganguli, S. (2017). A
    theory of multineuronal dimensionality, dynamics and measurement. bioRxiv 214262.
    Recanatesi, S. et al. (2019). Dimensionality compression and expansion in deep neural networks.
    arXiv:1906.00443.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import participation_ratio
    >>> participation_ratio([4.0, 1.0, 1.0])
    2.0
    >>> X = np.random.default_rng(0).normal(size=(5000, 10))
    >>> round(participation_ratio(X), 1)
    10.0
    """
    center = check_flag(center, "center")
    arr = as_float_array(X, "X")
    if arr.ndim == 1:
        if arr.size == 0:
            raise ValueError("X is empty: pass a data matrix (n, d) or a spectrum of eigenvalues")
        if np.any(arr < 0):
            raise ValueError(f"X: a spectrum (1-d X) must hold non-negative eigenvalues, found {float(arr.min())!r}")
        lam = arr / pow2_scale(arr, axis=None)
        if not np.any(lam):
            raise ValueError("X: the spectrum is all zeros; its participation ratio is undefined")
        return _pr_of_eigenvalues(lam)
    X = as_representation(arr, "X", min_rows=2)
    return _participation_ratio(X, center)


@public_function(data=("X",), nan_policy=("raise", "omit"))
def effective_rank(X, *, center=True):
    r"""The effective rank of a matrix (Roy and Vetterli, 2007).

    With :math:`\sigma_i` the singular values of X and :math:`p_i = \sigma_i / \sum_j \sigma_j`,
    the effective rank is :math:`\exp(-\sum_i p_i \log p_i)`, the exponential of the Shannon entropy
    of the normalised singular values: 1 for a rank-one matrix, d for d equal singular values, and
    between 1 and the rank otherwise.

    Parameters
    ----------
    X : array_like, shape (n, d)
        One row per observation (n >= 2).
    center : bool, default True
        Centre the columns first (the spread of the representation around its mean, as
        :func:`participation_ratio`); False: the singular values of X as given, Roy and Vetterli's
        definition for an arbitrary matrix (and the RankMe score of embeddings).
    nan_policy : {"raise", "omit"}
        A NaN in X: "raise" refuses it, "omit" drops the rows holding one.

    Returns
    -------
    float
        The effective rank.

    Raises
    ------
    ValueError
        When X has no variance (all rows equal; with ``center=False``: all zeros).

    See Also
    --------
    effective_rank_ci : its bootstrap interval over the rows of X.

    References
    ----------
    Roy, O. and Vetterli, M. (2007). The effective rank: a measure of effective dimensionality.
    15th European Signal Processing Conference (EUSIPCO), 606-610.
    Garrido, Q., Balestriero, R., Najman, L. and LeCun, Y. (2023). RankMe: assessing the downstream
    performance of pretrained self-supervised representations by their rank. ICML.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import effective_rank
    >>> round(effective_rank(np.outer(np.arange(5.0), [1.0, 2.0, -1.0])), 10)  # rank one
    1.0
    >>> round(effective_rank(np.random.default_rng(0).normal(size=(5000, 8))), 2)
    8.0
    """
    center = check_flag(center, "center")
    X = as_representation(X, "X", min_rows=2)
    return _effective_rank(X, center)


@public_function(data=("X",), nan_policy=("raise", "omit"))
def feature_correlation(X):
    r"""The mean absolute correlation between the features (columns) of X.

    :math:`\frac{1}{d(d-1)} \sum_{j \ne k} |r_{jk}|`, with :math:`r_{jk}` Pearson's correlation of
    columns j and k: 0 for uncorrelated features, 1 when every feature is a linear function of
    every other. A constant column (a dead unit) has no correlation: it is left out, with a
    ``StatcoreWarning`` naming the count, and d counts the other columns.

    Parameters
    ----------
    X : array_like, shape (n, d)
        One row per observation (n >= 2), at least two non-constant columns.
    nan_policy : {"raise", "omit"}
        A NaN in X: "raise" refuses it, "omit" drops the rows holding one.

    Returns
    -------
    float
        The mean absolute off-diagonal correlation, in [0, 1].

    Raises
    ------
    ValueError
        When fewer than two columns of X vary.

    See Also
    --------
    feature_correlation_ci : its bootstrap interval over the rows of X.

    References
    ----------
    Cogswell, M., Ahmed, F., Girshick, R., Zitnick, L. and Batra, D. (2016). Reducing overfitting in
    deep networks by decorrelating representations. ICLR.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import feature_correlation
    >>> x = np.arange(10.0)
    >>> round(feature_correlation(np.c_[x, -2 * x, x ** 2 - 3]), 3)
    0.975
    """
    X = as_representation(X, "X", min_rows=2)
    return _feature_correlation(X, "X", warn=True)


# ----------------------------------------------------------------------------------------------
# the bootstrap intervals
# ----------------------------------------------------------------------------------------------

_CI_PARAMS = """    B : int, default 999
        Bootstrap resamples of the rows.
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
        A NaN in the data: "raise" refuses it, "omit" drops the rows holding one."""


def _ci_doc(func):
    func.__doc__ = func.__doc__.replace("    {ci_params}", _CI_PARAMS)
    return func


class _PR:
    def __init__(self, center):
        self.center = center

    def __call__(self, X):
        return _participation_ratio(X, self.center)


class _ER:
    def __init__(self, center):
        self.center = center

    def __call__(self, X):
        return _effective_rank(X, self.center)


def _fc(X):
    return _feature_correlation(X)


@public_function(data=("X",), nan_policy=("raise", "omit"))
@_ci_doc
def participation_ratio_ci(X, *, center=True, B=999, conf_level=0.95, ci="percentile", seed=None, n_jobs=1,
                           progress=None):
    """The participation ratio of a data matrix with a bootstrap confidence interval over its rows.

    The rows of X are resampled with replacement B times and :func:`participation_ratio` is
    computed on each resample, through :func:`statcore.bootstrap` (the resampling engine).

    Parameters
    ----------
    X : array_like, shape (n, d)
        One row per observation, n >= 3.
    center : bool, default True
        As in :func:`participation_ratio`.
    {ci_params}

    Returns
    -------
    BootstrapResult
        ``estimate`` (the participation ratio of X), ``confidence_interval``, ``standard_error``
        and the ``bootstrap_distribution``.

    References
    ----------
    Efron, B. and Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*, Chapman & Hall.
    Gao, P. et al. (2017). A theory of multineuronal dimensionality, dynamics and measurement.
    bioRxiv 214262.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import participation_ratio_ci
    >>> X = np.random.default_rng(0).normal(size=(300, 5)) * [3.0, 1.0, 1.0, 1.0, 1.0]
    >>> res = participation_ratio_ci(X, B=199, seed=1)
    >>> bool(res.confidence_interval.low < res.estimate < res.confidence_interval.high)
    True
    """
    center = check_flag(center, "center")
    X = as_representation(X, "X", min_rows=3)
    _participation_ratio(X, center)  # refuses X without variance before resampling
    return row_interval(_PR(center), (X,), B=B, conf_level=conf_level, ci=ci, seed=seed, n_jobs=n_jobs,
                        progress=progress)


@public_function(data=("X",), nan_policy=("raise", "omit"))
@_ci_doc
def effective_rank_ci(X, *, center=True, B=999, conf_level=0.95, ci="percentile", seed=None, n_jobs=1,
                      progress=None):
    """The effective rank of a data matrix with a bootstrap confidence interval over its rows.

    The rows of X are resampled with replacement B times and :func:`effective_rank` is computed on
    each resample, through :func:`statcore.bootstrap` (the resampling engine).

    Parameters
    ----------
    X : array_like, shape (n, d)
        One row per observation, n >= 3.
    center : bool, default True
        As in :func:`effective_rank`.
    {ci_params}

    Returns
    -------
    BootstrapResult
        ``estimate`` (the effective rank of X), ``confidence_interval``, ``standard_error`` and the
        ``bootstrap_distribution``.

    References
    ----------
    Roy, O. and Vetterli, M. (2007). The effective rank: a measure of effective dimensionality.
    EUSIPCO, 606-610. Efron, B. and Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import effective_rank_ci
    >>> X = np.random.default_rng(0).normal(size=(300, 5))
    >>> res = effective_rank_ci(X, B=199, seed=1)
    >>> bool(res.confidence_interval.low < res.estimate < res.confidence_interval.high)
    True
    """
    center = check_flag(center, "center")
    X = as_representation(X, "X", min_rows=3)
    _effective_rank(X, center)
    return row_interval(_ER(center), (X,), B=B, conf_level=conf_level, ci=ci, seed=seed, n_jobs=n_jobs,
                        progress=progress)


@public_function(data=("X",), nan_policy=("raise", "omit"))
@_ci_doc
def feature_correlation_ci(X, *, B=999, conf_level=0.95, ci="percentile", seed=None, n_jobs=1, progress=None):
    """The mean absolute feature correlation with a bootstrap confidence interval over the rows.

    The rows of X are resampled with replacement B times and :func:`feature_correlation` is
    computed on each resample, through :func:`statcore.bootstrap` (the resampling engine). Columns
    constant in X are left out (with a warning) before resampling; a column constant in a resample
    only is left out of that resample's mean.

    Parameters
    ----------
    X : array_like, shape (n, d)
        One row per observation, n >= 3, at least two non-constant columns.
    {ci_params}

    Returns
    -------
    BootstrapResult
        ``estimate`` (the mean absolute correlation of X), ``confidence_interval``,
        ``standard_error`` and the ``bootstrap_distribution``.

    References
    ----------
    Cogswell, M. et al. (2016). Reducing overfitting in deep networks by decorrelating
    representations. ICLR. Efron, B. and Tibshirani, R. J. (1993). *An Introduction to the
    Bootstrap*.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import feature_correlation_ci
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(300, 1))
    >>> X = z + rng.normal(size=(300, 4))
    >>> res = feature_correlation_ci(X, B=199, seed=1)
    >>> bool(res.confidence_interval.low < 0.5 < res.confidence_interval.high)
    True
    """
    X = as_representation(X, "X", min_rows=3)
    _feature_correlation(X, "X", warn=True)
    X = X[:, np.ptp(X, axis=0) > 0]
    return row_interval(_fc, (X,), B=B, conf_level=conf_level, ci=ci, seed=seed, n_jobs=n_jobs, progress=progress)
