"""Distance covariance and distance correlation (Szekely, Rizzo & Bakirov 2007), their bias-corrected
U-statistic forms and the partial distance correlation (Szekely & Rizzo 2014): R energy's dcov, dcor, bcdcor,
dcovU, pdcor and pdcov.

For samples x (n, p) and y (n, q), a_ij = |x_i - x_j|^index and b_ij = |y_i - y_j|^index (Euclidean
norms). Double centring A_ij = a_ij - a_i. / n - a_.j / n + a.. / n^2 gives the V-statistic
V^2_n(x, y) = sum_ij A_ij B_ij / n^2; U-centring (a_ij - a_i. / (n - 2) - a_.j / (n - 2)
+ a.. / ((n - 1)(n - 2)) off the diagonal, 0 on it) gives the unbiased
(A~ . B~) = sum_{i != j} A~_ij B~_ij / (n (n - 3)).

How they are computed:

- p = q = 1 and index = 1 (chosen automatically): O(n log n) time and O(n) memory (Huo & Szekely
  2016; Chaudhuri & Hu 2019). The row sums a_i. come from the sorted sample and prefix sums;
  sum_ij a_ij b_ij = 2 (n sum x y - sum x sum y) - 4 D, where D sums (x_i - x_j)(y_i - y_j) over
  the discordant pairs, found by a merge sort of y in the order of x.
- otherwise: O(n^2) time in two blocked passes that never hold a distance matrix: the row sums of
  the distance matrices, then the sums of products of the centred entries, recomputing the
  distances on the fly (rows in parallel).

The tests built on them (permutations, the t-test) are in ``_dcor``.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._checks import as_indep_data, check_index, check_u_statistic_n, is_constant_sample, pow2_scale, warn_constant
from .._checks.public import public_function

__all__ = ["dcov", "dcor", "dcov_u", "dcor_u", "pdcov", "pdcor"]

#: 1 - r^2 below this (r the bias-corrected dCor of x, or y, with z) means x (or y) is explained by
#: z: its projection on the complement of z is 0 and pdcor is 0 (as R energy returns)
_PROJ_TOL = 1e-12


def _kernels():
    from . import _dcov_kernels

    return _dcov_kernels.load()


def _workers(n_jobs: int) -> int:
    from ..utils import effective_n_jobs

    return effective_n_jobs(n_jobs)


def _threads(n_jobs: int):
    """numba's threads for a kernel (only numba's: the kernels call no BLAS), restored afterwards."""
    from ..utils import thread_limit

    return thread_limit(_workers(n_jobs), pools="numba")



# ----------------------------------------------------------------------------------------------
# the inner products of centred distance matrices
# ----------------------------------------------------------------------------------------------

def _is_fast(arrays: list[np.ndarray], index: float) -> bool:
    return index == 1.0 and all(a.shape[1] == 1 for a in arrays)


def _fast_pair(x: np.ndarray, y: np.ndarray, unbiased: bool) -> tuple[float, float, float]:
    """(A . B, A . A, B . B) summed over i, j (V: double centred, all pairs; U: U-centred, i != j)
    for univariate x and y with index 1, in O(n log n)."""
    k = _kernels()
    xv, yv = x[:, 0], y[:, 0]
    s = k.fast_sums(xv, yv, np.argsort(xv), np.argsort(yv))
    return _from_sums(s, x.shape[0], unbiased)


def _from_sums(s: np.ndarray, n: int, unbiased: bool) -> tuple[float, float, float]:
    """The centred inner products from the sums [S_xy, Q_xy, A, B, Q_xx, Q_yy, S_xx, S_yy]
    (S = sum_ij a_ij b_ij, Q = sum_i a_i. b_i., A = a.., B = b..)."""
    s_xy, q_xy, a, b, q_xx, q_yy, s_xx, s_yy = (float(v) for v in s)
    if unbiased:
        f, g = 2.0 / (n - 2), 1.0 / ((n - 1) * (n - 2))
    else:
        f, g = 2.0 / n, 1.0 / (n * n)
    return (s_xy - f * q_xy + g * a * b, s_xx - f * q_xx + g * a * a, s_yy - f * q_yy + g * b * b)


def _centring(n: int, unbiased: bool, sums: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The row terms and grand terms of the centring, from the row sums (k, n)."""
    tot = sums.sum(axis=1)
    if unbiased:
        return sums / (n - 2), tot / ((n - 1) * (n - 2))
    return sums / n, tot / (n * n)


def _stack(arrays: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    data = np.ascontiguousarray(np.hstack(arrays), dtype=np.float64)
    starts = np.cumsum([0] + [a.shape[1] for a in arrays]).astype(np.int64)
    return data, starts


def _gram(arrays: list[np.ndarray], index: float, unbiased: bool) -> np.ndarray:
    """G[s, t] = sum_ij C^s_ij C^t_ij for the centred distance matrices of the samples (V: double
    centred; U: U-centred, i != j): the O(n log n) path for univariate samples with index 1, else the
    two blocked O(n^2) passes."""
    m = len(arrays)
    n = arrays[0].shape[0]
    if _is_fast(arrays, index):
        g = np.empty((m, m))
        for s in range(m):
            for t in range(s + 1, m):
                g[s, t], g[s, s], g[t, t] = _fast_pair(arrays[s], arrays[t], unbiased)
                g[t, s] = g[s, t]
        if m == 1:
            g[0, 0] = _fast_pair(arrays[0], arrays[0], unbiased)[1]
        return g
    k = _kernels()
    data, starts = _stack(arrays)
    sums = np.empty((m, n))
    import numba

    # one thread for small problems (a thread pool costs more than they do), else numba's threads
    with _threads(1 if n * n * data.shape[1] < 4_000_000 else numba.get_num_threads()):
        k.row_sums(data, starts, float(index), sums)
        means, grand = _centring(n, unbiased, sums)
        return k.centred_gram(data, starts, float(index), means, grand, not unbiased)


class _Data(dict):
    """The samples by name, each divided by a power of two near its spread (``units``: those powers)."""

    units: dict


def _read(nan_policy: str, min_n: int, **arrays: Any) -> dict:
    """The samples, each brought to order 1 by a power of two (exact): distances of data of 1e300 squared
    overflowed (dCor 1.0, dCov NaN) and those of 1e-300 underflowed (ZeroDivisionError). dCor and pdCor
    are scale-free; dCov-type values are multiplied back by ``_unit_factor``."""
    out, _ = as_indep_data(nan_policy, min_n=min_n, **arrays)
    data = _Data()
    data.units = {}
    for name, arr in out.items():
        unit = float(pow2_scale(arr, axis=None, center=np.median(arr, axis=0)))
        data[name] = arr / unit if unit != 1.0 else arr
        data.units[name] = unit
    return data


def _unit_factor(data: "_Data", power: float, *names: str) -> float:
    """prod(unit_name ** power): a statistic of degree ``power`` in each named sample back in its units."""
    f = 1.0
    for name in names:
        f *= data.units[name] ** power
    return f


def _warn_constant(data: dict, what: str) -> bool:
    """Warn for each wholly constant sample; True when any is."""
    const = False
    for name, arr in data.items():
        if is_constant_sample(arr):
            warn_constant(name, what, stacklevel=4)
            const = True
    return const


# ----------------------------------------------------------------------------------------------
# the statistics
# ----------------------------------------------------------------------------------------------

@public_function(data=("x", "y"), nan_policy=("raise", "omit"))
def dcov(x: Any, y: Any, *, index: float = 1.0, nan_policy: str = "raise") -> float:
    """Distance covariance of two samples (the V-statistic), as R energy's ``dcov``.

    dCov_n(x, y) = sqrt(V^2_n) with V^2_n = sum_ij A_ij B_ij / n^2, A and B the double-centred
    matrices of the distances ``|x_i - x_j|^index`` and ``|y_i - y_j|^index`` (Euclidean norms). It is zero
    in the population if and only if x and y are independent (for index in (0, 2)).

    For univariate x and y with ``index`` 1 the O(n log n) algorithm of Huo & Szekely (2016) is used
    automatically (O(n) memory: n = 10^7 takes seconds); otherwise two blocked O(n^2) passes that
    hold no n x n matrix.

    Parameters
    ----------
    x, y : array_like (n,) or (n, p), numpy or pandas
        The samples, one row per observation (a vector is one variable).
    index : float
        The exponent of the distances, in (0, 2) (R's ``index``).
    nan_policy : {"raise", "omit"}
        What to do with NaN: refuse it, or drop the observations (rows) with a NaN in x or y.

    Returns
    -------
    float
        dCov_n(x, y) (0 for a wholly constant sample, with a ``StatcoreWarning``).

    See Also
    --------
    dcov_u : the unbiased (U-statistic) form of the squared distance covariance.

    Notes
    -----
    The ``dcor`` package's ``distance_covariance`` is the same quantity (and
    ``distance_covariance_sqr`` its square, V^2_n).

    References
    ----------
    Szekely, G. J., Rizzo, M. L. & Bakirov, N. K. (2007). Measuring and testing dependence by
    correlation of distances. Annals of Statistics 35(6), 2769-2794.
    Huo, X. & Szekely, G. J. (2016). Fast computing for distance covariance. Technometrics 58(4),
    435-447.
    R package energy, function ``dcov``.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import dcov
    >>> x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    >>> round(dcov(x, x ** 2), 6)
    2.701111
    """
    index = check_index(index)
    data = _read(nan_policy, 1, x=x, y=y)
    if _warn_constant(data, "dCov"):
        return 0.0
    g = _gram([data["x"], data["y"]], index, unbiased=False)
    n = data["x"].shape[0]
    return math.sqrt(max(g[0, 1], 0.0)) / n * _unit_factor(data, index / 2, "x", "y")


def _dcor_from_gram(g: np.ndarray) -> float:
    den = g[0, 0] * g[1, 1]
    if not den > 0:
        return 0.0
    return min(1.0, math.sqrt(max(g[0, 1], 0.0) / math.sqrt(den)))


@public_function(data=("x", "y"), nan_policy=("raise", "omit"))
def dcor(x: Any, y: Any, *, index: float = 1.0, nan_policy: str = "raise") -> float:
    """Distance correlation of two samples, as R energy's ``dcor``.

    dCor_n(x, y) = sqrt(V^2_n(x, y) / sqrt(V^2_n(x, x) V^2_n(y, y))) (see :func:`dcov`): in [0, 1],
    zero in the population if and only if x and y are independent, one for y = a + b C x (C
    orthogonal, b != 0). Invariant to shifts, orthogonal maps and global rescaling of either sample.

    For univariate x and y with ``index`` 1 the O(n log n) algorithm of Huo & Szekely (2016) is used
    automatically; otherwise two blocked O(n^2) passes that hold no n x n matrix.

    Parameters
    ----------
    x, y : array_like (n,) or (n, p), numpy or pandas
        The samples, one row per observation.
    index : float
        The exponent of the distances, in (0, 2).
    nan_policy : {"raise", "omit"}
        What to do with NaN: refuse it, or drop the observations (rows) with a NaN in x or y.

    Returns
    -------
    float
        dCor_n(x, y), not squared (0 when a sample is wholly constant, with a ``StatcoreWarning``, as
        R energy returns 0).

    See Also
    --------
    dcor_u : the bias-corrected squared distance correlation.

    Notes
    -----
    Peers: the ``dcor`` package's ``distance_correlation`` is the same quantity (its
    ``distance_correlation_sqr`` the square). hyppo's ``Dcorr(bias=True).statistic`` is this dCor,
    while hyppo's default ``Dcorr()`` is the bias-corrected squared form (:func:`dcor_u`).

    References
    ----------
    Szekely, G. J., Rizzo, M. L. & Bakirov, N. K. (2007). Measuring and testing dependence by
    correlation of distances. Annals of Statistics 35(6), 2769-2794.
    Huo, X. & Szekely, G. J. (2016). Fast computing for distance covariance. Technometrics 58(4),
    435-447.
    R package energy, function ``dcor``.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import dcor
    >>> x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    >>> round(dcor(x, x ** 2), 6)
    0.986916
    >>> dcor(x, 3 - 2 * x)
    1.0
    """
    index = check_index(index)
    data = _read(nan_policy, 1, x=x, y=y)
    if _warn_constant(data, "dCor"):
        return 0.0
    return _dcor_from_gram(_gram([data["x"], data["y"]], index, unbiased=False))


@public_function(data=("x", "y"), nan_policy=("raise", "omit"))
def dcov_u(x: Any, y: Any, *, index: float = 1.0, nan_policy: str = "raise") -> float:
    """The unbiased estimator of the squared distance covariance, as R energy's ``dcovU``.

    (A~ . B~) = sum_{i != j} A~_ij B~_ij / (n (n - 3)) with A~, B~ the U-centred distance matrices
    (Szekely & Rizzo 2014): a U-statistic, unbiased for dCov^2(x, y), and so possibly negative.

    Parameters
    ----------
    x, y : array_like (n,) or (n, p), numpy or pandas
        The samples, one row per observation; n >= 4.
    index : float
        The exponent of the distances, in (0, 2) (R's ``dcovU`` has index 1 only).
    nan_policy : {"raise", "omit"}
        What to do with NaN: refuse it, or drop the observations (rows) with a NaN in x or y.

    Returns
    -------
    float
        The U-statistic (0 for a wholly constant sample, with a ``StatcoreWarning``).

    Notes
    -----
    The ``dcor`` package's ``u_distance_covariance_sqr`` is the same quantity.

    References
    ----------
    Szekely, G. J. & Rizzo, M. L. (2014). Partial distance correlation with methods for
    dissimilarities. Annals of Statistics 42(6), 2382-2412.
    R package energy, function ``dcovU``.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import dcov_u
    >>> x = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    >>> round(dcov_u(x, x ** 2), 6)
    10.888889
    """
    index = check_index(index)
    data = _read(nan_policy, 1, x=x, y=y)
    n = check_u_statistic_n(data["x"].shape[0], "x and y")
    if _warn_constant(data, "the U-statistic of dCov^2"):
        return 0.0
    g = _gram([data["x"], data["y"]], index, unbiased=True)
    return float(g[0, 1] / (n * (n - 3.0))) * _unit_factor(data, index, "x", "y")


@public_function(data=("x", "y"), nan_policy=("raise", "omit"))
def dcor_u(x: Any, y: Any, *, index: float = 1.0, nan_policy: str = "raise") -> float:
    """The bias-corrected squared distance correlation, as R energy's ``bcdcor``.

    R*_n(x, y) = (A~ . B~) / sqrt((A~ . A~)(B~ . B~)) with the U-centred distance matrices
    (Szekely & Rizzo 2014): an estimator of dCor^2(x, y) without the upward bias of dCor_n^2 in high
    dimension; in [-1, 1] and possibly negative (it is the squared form: do not take its root).

    For univariate x and y with ``index`` 1 the O(n log n) algorithm of Huo & Szekely (2016) is used
    automatically.

    Parameters
    ----------
    x, y : array_like (n,) or (n, p), numpy or pandas
        The samples, one row per observation; n >= 4.
    index : float
        The exponent of the distances, in (0, 2) (R's ``bcdcor`` has index 1 only).
    nan_policy : {"raise", "omit"}
        What to do with NaN: refuse it, or drop the observations (rows) with a NaN in x or y.

    Returns
    -------
    float
        R*_n(x, y) (0 when a sample is wholly constant, with a ``StatcoreWarning``, as R energy).

    Notes
    -----
    Peers: the ``dcor`` package's ``u_distance_correlation_sqr`` and hyppo's default
    ``Dcorr().statistic`` (``bias=False``) are this same squared, bias-corrected quantity; the
    ``dcor`` package's name says "sqr" because it estimates dCor^2.

    References
    ----------
    Szekely, G. J. & Rizzo, M. L. (2014). Partial distance correlation with methods for
    dissimilarities. Annals of Statistics 42(6), 2382-2412.
    Szekely, G. J. & Rizzo, M. L. (2013). The distance correlation t-test of independence in high
    dimension. Journal of Multivariate Analysis 117, 193-213.
    R package energy, function ``bcdcor``.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import dcor_u
    >>> x = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    >>> round(dcor_u(x, x ** 2), 6)
    0.988538
    """
    index = check_index(index)
    data = _read(nan_policy, 1, x=x, y=y)
    check_u_statistic_n(data["x"].shape[0], "x and y")
    if _warn_constant(data, "the bias-corrected dCor"):
        return 0.0
    g = _gram([data["x"], data["y"]], index, unbiased=True)
    den = g[0, 0] * g[1, 1]
    return float(max(-1.0, min(1.0, g[0, 1] / math.sqrt(den)))) if den > 0 else 0.0


def _projection(g: np.ndarray) -> tuple[float, float, float, float, float]:
    """From the U-centred Gram matrix of (x, y, z): (Px . Py, Px . Px, Py . Py, cx, cy), with
    Px = A~ - cx C~ and Py = B~ - cy C~ the projections on the complement of z (Szekely & Rizzo
    2014, Sec. 4); a constant z (C~ = 0) projects nothing. A projection with 1 - r^2 below
    ``_PROJ_TOL`` (r the bias-corrected dCor with z) is zero."""
    if g[2, 2] > 0:
        cx, cy = g[0, 2] / g[2, 2], g[1, 2] / g[2, 2]
    else:
        cx = cy = 0.0
    pxy = g[0, 1] - cx * g[1, 2]
    pxx = g[0, 0] - cx * g[0, 2]
    pyy = g[1, 1] - cy * g[1, 2]
    if pxx <= _PROJ_TOL * g[0, 0]:
        pxx = 0.0
    if pyy <= _PROJ_TOL * g[1, 1]:
        pyy = 0.0
    return pxy, pxx, pyy, cx, cy


def _pd_checks(index, nan_policy, x, y, z):
    index = check_index(index)
    data = _read(nan_policy, 1, x=x, y=y, z=z)
    n = check_u_statistic_n(data["x"].shape[0], "x, y and z")
    return index, data, n


def _partial_products(x, y, z, index, nan_policy, what):
    """The inner products (Px.Py, Px.Px, Py.Py) of the projected U-centred matrices (in unit-scale data), n and
    the factor of Px.Py back in the data's units, or None when x or y is wholly constant (warned: ``what`` is then 0)."""
    index, data, n = _pd_checks(index, nan_policy, x, y, z)
    if _warn_constant({k: data[k] for k in ("x", "y")}, what):
        return None
    pxy, pxx, pyy, _, _ = _projection(_gram([data["x"], data["y"], data["z"]], index, unbiased=True))
    return pxy, pxx, pyy, n, _unit_factor(data, index, "x", "y")


@public_function(data=("x", "y", "z"), nan_policy=("raise", "omit"))
def pdcor(x: Any, y: Any, z: Any, *, index: float = 1.0, nan_policy: str = "raise") -> float:
    """Partial distance correlation of x and y given z, as R energy's ``pdcor``.

    pdCor(x, y; z) = (Px . Py) / sqrt((Px . Px)(Py . Py)), where Px = A~ - ((A~ . C~) / (C~ . C~)) C~
    is the projection of x's U-centred distance matrix on the orthogonal complement of z's (and Py
    likewise); equivalently (R*_xy - R*_xz R*_yz) / sqrt((1 - R*_xz^2)(1 - R*_yz^2)) in the
    bias-corrected squared distance correlations R* (Szekely & Rizzo 2014). In [-1, 1].

    Parameters
    ----------
    x, y, z : array_like (n,) or (n, p), numpy or pandas
        The samples, one row per observation; n >= 4.
    index : float
        The exponent of the distances, in (0, 2) (R's ``pdcor`` has index 1 only).
    nan_policy : {"raise", "omit"}
        What to do with NaN: refuse it, or drop the observations (rows) with a NaN in x, y or z.

    Returns
    -------
    float
        pdCor(x, y; z). It is 0 when x or y is wholly constant (with a ``StatcoreWarning``) or is
        explained by z (1 - R*^2 < 1e-12 with z: its projection is zero), as R energy returns 0; a
        constant z projects nothing, and pdCor is then :func:`dcor_u`.

    Notes
    -----
    The ``dcor`` package's ``partial_distance_correlation`` is the same quantity.

    References
    ----------
    Szekely, G. J. & Rizzo, M. L. (2014). Partial distance correlation with methods for
    dissimilarities. Annals of Statistics 42(6), 2382-2412.
    R package energy, function ``pdcor``.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import pdcor
    >>> z = np.arange(8.0)
    >>> x = z + np.array([0.3, -0.1, 0.4, -0.2, 0.1, 0.0, -0.3, 0.2])
    >>> y = z + np.array([-0.2, 0.1, 0.2, -0.4, 0.3, 0.1, 0.0, -0.1])
    >>> round(pdcor(x, y, z), 6)
    0.74983
    """
    parts = _partial_products(x, y, z, index, nan_policy, "pdCor")
    if parts is None:
        return 0.0
    pxy, pxx, pyy, n, _ = parts
    if not pxx * pyy > 0:
        return 0.0
    return float(max(-1.0, min(1.0, pxy / math.sqrt(pxx * pyy))))


@public_function(data=("x", "y", "z"), nan_policy=("raise", "omit"))
def pdcov(x: Any, y: Any, z: Any, *, index: float = 1.0, nan_policy: str = "raise") -> float:
    """Partial distance covariance of x and y given z, as R energy's ``pdcov``.

    pdCov(x, y; z) = (Px . Py) / (n (n - 3)) with Px, Py the projections of the U-centred distance
    matrices of x and y on the orthogonal complement of z's (see :func:`pdcor`); it can be negative.

    Parameters
    ----------
    x, y, z : array_like (n,) or (n, p), numpy or pandas
        The samples, one row per observation; n >= 4.
    index : float
        The exponent of the distances, in (0, 2) (R's ``pdcov`` has index 1 only).
    nan_policy : {"raise", "omit"}
        What to do with NaN: refuse it, or drop the observations (rows) with a NaN in x, y or z.

    Returns
    -------
    float
        pdCov(x, y; z) (0 when x or y is wholly constant, with a ``StatcoreWarning``, or explained by
        z).

    Notes
    -----
    The ``dcor`` package's ``partial_distance_covariance`` is the same quantity.

    References
    ----------
    Szekely, G. J. & Rizzo, M. L. (2014). Partial distance correlation with methods for
    dissimilarities. Annals of Statistics 42(6), 2382-2412.
    R package energy, function ``pdcov``.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import pdcov
    >>> z = np.arange(8.0)
    >>> x = z + np.array([0.3, -0.1, 0.4, -0.2, 0.1, 0.0, -0.3, 0.2])
    >>> y = z + np.array([-0.2, 0.1, 0.2, -0.4, 0.3, 0.1, 0.0, -0.1])
    >>> round(pdcov(x, y, z), 6)
    0.067143
    """
    parts = _partial_products(x, y, z, index, nan_policy, "pdCov")
    if parts is None:
        return 0.0
    pxy, pxx, pyy, n, factor = parts
    if pxx == 0.0 or pyy == 0.0:
        return 0.0
    return float(pxy / (n * (n - 3.0))) * factor
