"""Distance covariance and distance correlation (Szekely, Rizzo & Bakirov 2007), their bias-corrected
U-statistic forms and the partial distance correlation (Szekely & Rizzo 2014), and the tests of
independence built on them: R energy's dcov, dcor, bcdcor, dcovU, pdcor, pdcov, dcor.test,
dcov.test, dcorT.test and pdcor.test.

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
- the permutation tests draw the permutations up front from ``seed`` (so the answer does not depend
  on ``n_jobs``) and run them in parallel by one of four paths:

  * "fast": univariate samples with index 1 use the O(n log n) path for every permutation;
  * "recompute" (dcor/dcov tests, index 1, the smaller of p and q at most ``RECOMPUTE_MAX_DIM``):
    the centred matrix A of the wider sample is built once, and for each permutation pi
    sum_ij A_ij |w_{s_i} - w_{s_j}| (w the narrower sample, s = pi or its inverse) recomputes the
    narrower sample's distances from its permuted data in cache, four pairs per vector instruction
    (compiled C, ``_ext/_dcovperm.h``). Since A's rows and columns sum to zero the permuted side
    needs no centring; the sums agree with the centred-matrix path to about 1e-13 relatively;
  * "matrix": both centred n x n matrices are built once and sum_ij A[pi_i, pi_j] B[i, j] is
    gathered for each permutation;
  * "blocked": when the matrices would need more than ``MATRIX_BYTES``, each permutation is a
    blocked pass that recomputes both sides.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._checks import (as_indep_data, check_choice, check_index, check_n_jobs, check_positive_int, check_progress,
                       check_seed, check_u_statistic_n, is_constant_sample, pow2_scale, refuse_constant_sample,
                       warn_constant)
from .._resampling import PermutationDraw, perm_pvalue, run_stream
from .._checks.public import public_function
from .._result import HTest

__all__ = ["dcov", "dcor", "dcov_u", "dcor_u", "pdcov", "pdcor", "dcor_test", "dcov_test", "pdcor_test"]

#: the memory the permutation tests may spend on their n x n centred matrices (2 matrices for dcor
#: and dcov, 3 for pdcor); above it every permutation is a blocked pass (O(n) memory, slower)
MATRIX_BYTES = 2 * 1024 ** 3
#: 1 - r^2 below this (r the bias-corrected dCor of x, or y, with z) means x (or y) is explained by
#: z: its projection on the complement of z is 0 and pdcor is 0 (as R energy returns)
_PROJ_TOL = 1e-12
#: the "recompute" permutation path (see the module docstring) when the narrower sample has at most
#: this many columns: its cost grows with the columns, the gather path's does not (measured crossover
#: near 24 columns at n = 2000; benchmarks/bench_indep_dcor.py)
RECOMPUTE_MAX_DIM = 16


def _kernels():
    from . import _dcov_kernels

    return _dcov_kernels.load()


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


# ----------------------------------------------------------------------------------------------
# permutation machinery
# ----------------------------------------------------------------------------------------------

class _Permuter:
    """sum_ij L[pi_i, pi_j] R[i, j] for the observed pairing (pi = identity) and for B random
    permutations, by one of four paths (see the module docstring); ``self.path`` names it."""

    def __init__(self, arrays: list[np.ndarray], index: float, kind: str, workers: int = 1):
        # kind: "dcov" (L = A, R = B, double centred) or "pdcor" (L = Px, R = Py, U-centred)
        self.k = _kernels()
        self.workers = workers
        self.kind = kind
        self.n = n = arrays[0].shape[0]
        unbiased = kind == "pdcor"
        nmat = len(arrays)
        if kind == "dcov" and _is_fast(arrays, index):
            self.path = "fast"
            xv, yv = arrays[0][:, 0], arrays[1][:, 0]
            self.ox = np.argsort(xv)
            (self.xs, self.a, self.yc, self.b, self.run_lo, self.run_hi,
             one) = self.k.fast_perm_setup(xv, yv, self.ox, np.argsort(yv))
            self.one = one  # [A, B, Q_xx, Q_yy, S_xx, S_yy]
            _, self.gxx, self.gyy = _from_sums(np.array([0.0, 0.0, *one]), n, False)
        elif (kind == "dcov" and index == 1.0 and min(a.shape[1] for a in arrays) <= RECOMPUTE_MAX_DIM
              and 8.0 * n * n <= MATRIX_BYTES):
            self.path = "recompute"
            x, y = arrays
            # recompute the narrower side; A is the centred matrix of the wider one. The values are
            # those of the matrix path for the same permutations: sum_ij A[p_i, p_j] B_ij with x's
            # side permuted, = sum_ij A_ij B[s_i, s_j] with s the inverse of p when y's side is kept
            self.recompute_x = x.shape[1] < y.shape[1]
            wide, narrow = (y, x) if self.recompute_x else (x, y)
            self.narrow = np.ascontiguousarray(narrow, dtype=np.float64)
            data, starts = _stack([wide, narrow])
            self.left = self.k.centred_matrix(data, 0, int(starts[1]), 1.0, False)
            other = self.k.centred_matrix(data, int(starts[1]), int(starts[2]), 1.0, False)
            g_wide, g_narrow = float(np.vdot(self.left, self.left)), float(np.vdot(other, other))
            del other
            self.gxx, self.gyy = (g_narrow, g_wide) if self.recompute_x else (g_wide, g_narrow)
        elif nmat * 8.0 * n * n <= MATRIX_BYTES:
            self.path = "matrix"
            data, starts = _stack(arrays)
            mats = [self.k.centred_matrix(data, int(starts[s]), int(starts[s + 1]), float(index), unbiased)
                    for s in range(nmat)]
            ident = np.arange(n, dtype=np.int64)[None, :]
            if kind == "dcov":
                self.left, self.right = mats
                self.gxx = self._inner(self.left, self.left, ident)[0]
                self.gyy = self._inner(self.right, self.right, ident)[0]
            else:
                a, b, c = mats
                g = np.empty((3, 3))
                for s, u in ((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)):
                    g[s, u] = g[u, s] = self._inner(mats[s], mats[u], ident)[0]
                self.proj = _projection(g)
                _, pxx, pyy, cx, cy = self.proj
                _sub_scaled(a, c, cx)
                _sub_scaled(b, c, cy)
                del c, mats
                self.left, self.right = a, b
                self.gxx, self.gyy = pxx, pyy
        else:
            self.path = "blocked"
            self.data, self.starts = _stack(arrays)
            self.index = float(index)
            sums = np.empty((nmat, n))
            self.k.row_sums(self.data, self.starts, self.index, sums)
            self.means, self.grand = _centring(n, unbiased, sums)
            self.with_diag = not unbiased
            g = self.k.centred_gram(self.data, self.starts, self.index, self.means, self.grand, self.with_diag)
            if kind == "dcov":
                self.cl, self.cr = np.array([1.0, 0.0]), np.array([0.0, 1.0])
                self.gxx, self.gyy = g[0, 0], g[1, 1]
            else:
                self.proj = _projection(g)
                _, pxx, pyy, cx, cy = self.proj
                self.cl, self.cr = np.array([1.0, 0.0, -cx]), np.array([0.0, 1.0, -cy])
                self.gxx, self.gyy = pxx, pyy

    def _inner(self, left, right, perms):
        out = np.empty(perms.shape[0])
        self.k.perm_inner(left, right, np.ascontiguousarray(perms), out)
        return out

    def cross(self, perms: np.ndarray) -> np.ndarray:
        """The cross inner product for each row of ``perms`` (centred sums over i, j)."""
        perms = np.ascontiguousarray(perms, dtype=np.int64)
        if self.path == "fast":
            out = np.empty((perms.shape[0], 2))
            self.k.fast_perm_sums(self.xs, self.a, self.ox, self.yc, self.b, self.run_lo, self.run_hi, perms, out)
            a, b = self.one[0], self.one[1]
            n = self.n
            return out[:, 0] - (2.0 / n) * out[:, 1] + a * b / (n * n)
        if self.path == "matrix":
            return self._inner(self.left, self.right, perms)
        if self.path == "recompute":
            return self._recompute(perms)

        def one(p):
            return self.k.blocked_perm_inner(self.data, self.starts, self.index, self.means, self.grand,
                                             self.with_diag, self.cl, self.cr, p)

        if self.workers == 1 or perms.shape[0] == 1:
            return np.array([one(p) for p in perms])
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(self.workers) as pool:  # the kernel releases the GIL
            return np.array(list(pool.map(one, perms)))

    def _recompute(self, perms: np.ndarray) -> np.ndarray:
        from .. import _dcovperm

        if not self.recompute_x:
            perms = np.ascontiguousarray(np.argsort(perms, axis=1), dtype=np.int64)
        n, q = self.narrow.shape
        # permutations sharing one pass over A: their permuted data (q x n each) stay in L2
        group = int(min(4, max(1, (512 * 1024) // (8 * q * n))))
        out = np.empty(perms.shape[0])

        def one(lo, hi):
            _dcovperm.perm_dist_inner(self.left, self.narrow, perms[lo:hi], out[lo:hi], group)

        nchunk = min(self.workers, perms.shape[0])
        if nchunk <= 1:
            one(0, perms.shape[0])
            return out
        from concurrent.futures import ThreadPoolExecutor

        bounds = np.linspace(0, perms.shape[0], nchunk + 1).astype(int)
        with ThreadPoolExecutor(nchunk) as pool:  # the kernel releases the GIL
            list(pool.map(one, bounds[:-1], bounds[1:]))
        return out

    def run(self, B: int, rng: np.random.Generator, progress: bool | None = False) -> tuple[float, np.ndarray]:
        """The observed cross product and those of B permutations drawn in order from ``rng``; the
        engine (``statcore._resampling.run_stream``) owns the loop, the chunks and the progress bar."""
        observed = float(self.cross(np.arange(self.n, dtype=np.int64)[None, :])[0])
        parts = run_stream(PermutationDraw(self.n), self.cross, B, rng=rng, bytes_per_resample=8.0 * max(self.n, 1),
                           progress=progress, desc="permutations", unit="perm")
        return observed, np.concatenate(parts)


def _sub_scaled(a: np.ndarray, c: np.ndarray, coef: float) -> None:
    """a -= coef * c in place, a block of rows at a time (no n x n temporary)."""
    if coef != 0.0:
        step = max(1, (1 << 20) // max(a.shape[1], 1))
        for i in range(0, a.shape[0], step):
            a[i:i + step] -= coef * c[i:i + step]


def _workers(n_jobs: int) -> int:
    from ..utils import effective_n_jobs

    return effective_n_jobs(n_jobs)


def _threads(n_jobs: int):
    """numba's threads for a kernel (only numba's: the kernels call no BLAS), restored afterwards."""
    from ..utils import thread_limit

    return thread_limit(_workers(n_jobs), pools="numba")


def _perm_pvalue(stat: float, reps: np.ndarray) -> float:
    """The engine's permutation p-value: (1 + #{T_b >= T}) / (B + 1), ties within TIE_RTOL."""
    return perm_pvalue(stat, reps, alternative="greater")


def _index_text(index: float) -> str:
    return f"{index:.15g}"


# ----------------------------------------------------------------------------------------------
# the tests
# ----------------------------------------------------------------------------------------------

def _test_data(nan_policy, min_n, **arrays):
    data = _read(nan_policy, min_n, **arrays)
    for name in ("x", "y"):
        refuse_constant_sample(data[name], name)
    return data


def _small(n: int, B: int, n_jobs: int) -> int:
    """One thread for small problems: waking a thread pool costs more than B permutations of a few
    dozen observations."""
    return 1 if B * n < 50_000 else n_jobs


def _dcov_perm(data: dict, index: float, B: int, rng, n_jobs: int, progress=False):
    x, y = data["x"], data["y"]
    n = x.shape[0]
    n_jobs = _small(n, B, n_jobs)
    with _threads(n_jobs):
        perm = _Permuter([x, y], index, "dcov", _workers(n_jobs))
        obs, reps = perm.run(B, rng, progress)
    v2 = max(obs, 0.0) / n ** 2
    vx, vy = float(perm.gxx) / n ** 2, float(perm.gyy) / n ** 2
    return v2, vx, vy, np.maximum(reps, 0.0) / n ** 2, perm.path


@public_function(data=("x", "y"), nan_policy=("raise", "omit"), formula=dict(lhs="y", rhs="x", cond=None))
def dcor_test(x: Any, y: Any = None, *, method: str = "permutation", B: int = 999, index: float = 1.0,
              seed: Any = None, n_jobs: int = 1, nan_policy: str = "raise", progress: bool | None = None,
              data: Any = None) -> HTest:
    """Distance correlation test of independence: R energy's ``dcor.test`` (permutation) or
    ``dcorT.test`` (the t-test in high dimension).

    ``method="permutation"``: the statistic is dCor_n(x, y) (:func:`dcor`); its null distribution
    comes from B random re-pairings of the rows of y with those of x, and the p-value is R's
    (1 + #{dCor_b >= dCor_n}) / (B + 1). The estimates are dCov, dCor, dVar(X) and dVar(Y), and the
    result prints exactly as R's ``dcor.test`` (p-values differ, as R's draws are its own).

    ``method="t"``: the distance correlation t-test of Szekely & Rizzo (2013):
    T = sqrt(M - 1) R* / sqrt(1 - R*^2) with R* the bias-corrected dCor (:func:`dcor_u`) and
    M = n (n - 3) / 2, against Student's t with M - 1 degrees of freedom (upper tail). It is exact as
    the dimension grows and approximate otherwise (see ``Notes``). No permutations: ``B``, ``seed``
    and ``n_jobs`` are not used.

    Parameters
    ----------
    x, y : array_like (n,) or (n, p), numpy or pandas
        The samples, one row per observation (n >= 2; n >= 4 for ``method="t"``). A wholly constant
        sample is refused (its dCor is 0 by definition and R's p-value is NA).
    method : {"permutation", "t"}
        The calibration, as above.
    B : int
        The number of permutations (R's ``R``), at least 1.
    index : float
        The exponent of the distances, in (0, 2) (R's ``dcorT.test`` has index 1 only).
    seed : None, int or numpy.random.Generator
        The randomness of the permutations; the same seed gives the same p-value, for any ``n_jobs``.
    n_jobs : int
        Threads for the permutations (1: one; -1: all cores). The permutations are drawn before they
        are spread over threads, so the answer does not depend on it.
    nan_policy : {"raise", "omit"}
        What to do with NaN: refuse it, or drop the observations (rows) with a NaN in x or y.
    progress : bool, optional
        A progress bar (tqdm) over the permutations, advancing per batch of permutations (a batch
        holds about 2^22 / n of them). Default (None): only when standard error is a terminal.
    data : pandas.DataFrame, optional
        With a formula in place of ``x``: the table holding its columns.
        ``dcor_test("y ~ x", data=df)`` tests
        y against x (``dcor_test(x, y)``).
        Categorical columns expand to R's treatment-contrast dummies; missing values follow
        ``nan_policy``; the result equals the array call on the formula's columns (docs/conventions.md,
        "Formulas").

    Returns
    -------
    HTest
        ``statistic`` (dCor; for "t" the T statistic with ``parameter`` df), ``p_value``,
        ``estimate`` (R's), ``extras`` with ``replicates`` (the B permutation statistics, read-only),
        ``n``, ``index`` and ``path`` ("fast": O(n log n) per permutation for univariate samples with
        index 1; "recompute": index 1 and the narrower sample has at most ``RECOMPUTE_MAX_DIM``
        columns: one centred matrix kept, the other side's distances recomputed per permutation;
        "matrix": the two centred n x n matrices kept; "blocked": neither, for n beyond
        ``MATRIX_BYTES``; see the module docstring).

    Notes
    -----
    The p-value of the t-test is the upper tail of Student's t (R computes 1 - pt(T, df), which is
    0 below about 1e-16; the two agree to about 1e-16 in absolute terms, so printed p-values below
    about 1e-10 can differ from R's in their last digits, R's being the rounded ones). The t approximation is derived for dimension
    p, q -> infinity and holds the level there (size 0.044-0.061 at p = q = 30, n = 30 and 200,
    Gaussian, t2 and discrete data, 1000 replicates); in low dimension it is loose, anti-conservative:
    about 0.065-0.07 for univariate samples at every n (the null of the U-statistic is then a
    weighted chi-square mixture, not a t) and about 0.06 at p = q = 5 (``benchmarks/size_indep_dcor.py``).
    Use the permutation test there. Peers: hyppo's ``Dcorr().test`` uses the
    bias-corrected statistic (:func:`dcor_u`) and, by default for n > 20, a chi-square approximation
    instead of permutations (``auto=True``); its permutation p-value is (1 + #{T_b >= T}) / (1 + B)
    too.

    References
    ----------
    Szekely, G. J., Rizzo, M. L. & Bakirov, N. K. (2007). Measuring and testing dependence by
    correlation of distances. Annals of Statistics 35(6), 2769-2794.
    Szekely, G. J. & Rizzo, M. L. (2013). The distance correlation t-test of independence in high
    dimension. Journal of Multivariate Analysis 117, 193-213.
    R package energy, functions ``dcor.test`` and ``dcorT.test``.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import dcor_test
    >>> rng = np.random.default_rng(1)
    >>> x = rng.normal(size=(50, 2))
    >>> y = x[:, 0] ** 2 + rng.normal(scale=0.5, size=50)
    >>> res = dcor_test(x, y, B=199, seed=2)
    >>> round(res.statistic, 4), res.p_value
    (0.5062, 0.005)
    >>> t = dcor_test(x, y, method="t")
    >>> print(t.summary().splitlines()[4])
    T = 3.9324, df = 1174, p-value = 4.451e-05
    >>> round(t.estimate["Bias corrected dcor"], 6)
    0.114021
    """
    method = check_choice(method, "method", ("permutation", "t"))
    B = check_positive_int(B, "B")
    index = check_index(index)
    n_jobs = check_n_jobs(n_jobs)
    progress = check_progress(progress)
    rng = check_seed(seed)
    if method == "t":
        return _dcor_t_test(x, y, index, nan_policy)
    data = _test_data(nan_policy, 2, x=x, y=y)
    n = data["x"].shape[0]
    v2, vx, vy, reps, path = _dcov_perm(data, index, B, rng, n_jobs, progress)
    den = math.sqrt(vx * vy)
    stat = min(1.0, math.sqrt(v2 / den))
    rep_stats = np.minimum(1.0, np.sqrt(reps / den))
    fx, fy = _unit_factor(data, index / 2, "x"), _unit_factor(data, index / 2, "y")  # dCov, dVar in data units
    estimate = {"dCov": math.sqrt(v2) * fx * fy, "dCor": stat, "dVar(X)": math.sqrt(vx) * fx * fx,
                "dVar(Y)": math.sqrt(vy) * fy * fy}
    return HTest(statistic=stat, statistic_name="dCor", p_value=_perm_pvalue(stat, rep_stats),
                 estimate=estimate, alternative=None, method="dCor independence test (permutation test)",
                 data_name=f"index {_index_text(index)}, replicates {B}",
                 extras={"replicates": rep_stats, "n": n, "index": index, "path": path})


def _dcor_t_test(x, y, index, nan_policy) -> HTest:
    from scipy import stats

    data = _test_data(nan_policy, 1, x=x, y=y)
    n = check_u_statistic_n(data["x"].shape[0], "x and y")
    g = _gram([data["x"], data["y"]], index, unbiased=True)
    r = float(max(-1.0, min(1.0, g[0, 1] / math.sqrt(g[0, 0] * g[1, 1]))))
    m = n * (n - 3) / 2.0
    df = m - 1.0
    if abs(r) < 1.0:
        t = math.sqrt(df) * r / math.sqrt(1.0 - r * r)
    else:
        t = math.copysign(math.inf, r)
    p = float(stats.t.sf(t, df))
    return HTest(statistic=t, statistic_name="T", parameter={"df": df}, p_value=p,
                 estimate={"Bias corrected dcor": r}, alternative=None,
                 method="dcor t-test of independence for high dimension", data_name="x and y",
                 extras={"n": n, "index": index})


@public_function(data=("x", "y"), nan_policy=("raise", "omit"), formula=dict(lhs="y", rhs="x", cond=None))
def dcov_test(x: Any, y: Any = None, *, B: int = 999, index: float = 1.0, seed: Any = None, n_jobs: int = 1,
              nan_policy: str = "raise", progress: bool | None = None, data: Any = None) -> HTest:
    """Distance covariance permutation test of independence, as R energy's ``dcov.test``.

    The statistic is n V^2_n(x, y) = n dCov_n(x, y)^2 (:func:`dcov`); its null distribution comes
    from B random re-pairings of the rows of y with those of x, and the p-value is R's
    (1 + #{T_b >= T}) / (B + 1). The test is equivalent to the dCor permutation test
    (:func:`dcor_test`): for fixed samples dCor is a monotone function of dCov.

    Parameters
    ----------
    x, y : array_like (n,) or (n, p), numpy or pandas
        The samples, one row per observation (n >= 2). A wholly constant sample is refused.
    B : int
        The number of permutations (R's ``R``), at least 1.
    index : float
        The exponent of the distances, in (0, 2).
    seed : None, int or numpy.random.Generator
        The randomness of the permutations; the same seed gives the same p-value, for any ``n_jobs``.
    n_jobs : int
        Threads for the permutations (1: one; -1: all cores); the answer does not depend on it.
    nan_policy : {"raise", "omit"}
        What to do with NaN: refuse it, or drop the observations (rows) with a NaN in x or y.
    progress : bool, optional
        A progress bar (tqdm) over the permutations, advancing per batch of permutations (a batch
        holds about 2^22 / n of them). Default (None): only when standard error is a terminal.
    data : pandas.DataFrame, optional
        With a formula in place of ``x``: the table holding its columns.
        ``dcov_test("y ~ x", data=df)`` is
        ``dcov_test(x, y)``.
        Categorical columns expand to R's treatment-contrast dummies; missing values follow
        ``nan_policy``; the result equals the array call on the formula's columns (docs/conventions.md,
        "Formulas").

    Returns
    -------
    HTest
        ``statistic`` (nV^2), ``p_value``, ``estimate`` {"dCov"}, ``extras`` with ``replicates`` (the
        B permutation statistics), ``estimates`` (dCov, dCor, dVar(X), dVar(Y), R's ``estimates``),
        ``n``, ``index`` and ``path`` (as in :func:`dcor_test`).

    References
    ----------
    Szekely, G. J., Rizzo, M. L. & Bakirov, N. K. (2007). Measuring and testing dependence by
    correlation of distances. Annals of Statistics 35(6), 2769-2794.
    R package energy, function ``dcov.test``.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import dcov_test
    >>> rng = np.random.default_rng(1)
    >>> x = rng.normal(size=40)
    >>> res = dcov_test(x, np.abs(x) + rng.normal(scale=0.3, size=40), B=99, seed=3)
    >>> res.statistic_name, round(res.statistic, 4), res.p_value
    ('nV^2', 2.7753, 0.01)
    """
    B = check_positive_int(B, "B")
    index = check_index(index)
    n_jobs = check_n_jobs(n_jobs)
    progress = check_progress(progress)
    rng = check_seed(seed)
    data = _test_data(nan_policy, 2, x=x, y=y)
    n = data["x"].shape[0]
    v2, vx, vy, reps, path = _dcov_perm(data, index, B, rng, n_jobs, progress)
    dc = min(1.0, math.sqrt(v2 / math.sqrt(vx * vy)))
    p_value = _perm_pvalue(n * v2, n * reps)
    fx, fy = _unit_factor(data, index / 2, "x"), _unit_factor(data, index / 2, "y")  # back in data units
    stat = n * v2 * (fx * fx * fy * fy)
    rep_stats = n * reps * (fx * fx * fy * fy)
    estimates = {"dCov": math.sqrt(v2) * fx * fy, "dCor": dc, "dVar(X)": math.sqrt(vx) * fx * fx,
                 "dVar(Y)": math.sqrt(vy) * fy * fy}
    return HTest(statistic=stat, statistic_name="nV^2", p_value=p_value,
                 estimate={"dCov": estimates["dCov"]}, alternative=None,
                 method="dCov independence test (permutation test)",
                 data_name=f"index {_index_text(index)}, replicates {B}",
                 extras={"replicates": rep_stats, "estimates": estimates, "n": n, "index": index, "path": path})


@public_function(data=("x", "y", "z"), nan_policy=("raise", "omit"),
                 formula=dict(lhs="y", rhs="x", cond="z", cond_rule="required"))
def pdcor_test(x: Any, y: Any = None, z: Any = None, *, B: int = 999, index: float = 1.0, seed: Any = None,
               n_jobs: int = 1, nan_policy: str = "raise", progress: bool | None = None, data: Any = None) -> HTest:
    """Partial distance correlation permutation test of x independent of y given z (in the sense of
    pdCor = 0), as R energy's ``pdcor.test``.

    The statistic is pdCor(x, y; z) (:func:`pdcor`). Following Szekely & Rizzo (2014, Sec. 4.3), the
    permutations act on the projection Px of x's U-centred distance matrix (rows and columns
    together) while Py stays, and the p-value is R's (1 + #{pdCor_b >= pdCor}) / (B + 1).

    Parameters
    ----------
    x, y, z : array_like (n,) or (n, p), numpy or pandas
        The samples, one row per observation; n >= 4. A wholly constant x or y is refused, and so is
        an x or y explained by z (a zero projection: pdCor is undefined and R's p-value is NA).
    B : int
        The number of permutations (R's ``R``), at least 1.
    index : float
        The exponent of the distances, in (0, 2) (R's ``pdcor.test`` has index 1 only).
    seed : None, int or numpy.random.Generator
        The randomness of the permutations; the same seed gives the same p-value, for any ``n_jobs``.
    n_jobs : int
        Threads for the permutations (1: one; -1: all cores); the answer does not depend on it.
    nan_policy : {"raise", "omit"}
        What to do with NaN: refuse it, or drop the observations (rows) with a NaN in x, y or z.
    progress : bool, optional
        A progress bar (tqdm) over the permutations, advancing per batch of permutations (a batch
        holds about 2^22 / n of them). Default (None): only when standard error is a terminal.
    data : pandas.DataFrame, optional
        With a formula in place of ``x``: the table holding its columns.
        ``pdcor_test("y ~ x | z", data=df)`` is
        ``pdcor_test(x, y, z)``.
        Categorical columns expand to R's treatment-contrast dummies; missing values follow
        ``nan_policy``; the result equals the array call on the formula's columns (docs/conventions.md,
        "Formulas").

    Returns
    -------
    HTest
        ``statistic`` (pdcor), ``p_value``, ``estimate`` {"pdcor"}, ``extras`` with ``replicates``,
        ``n``, ``index`` and ``path`` ("matrix" or "blocked", as in :func:`dcor_test`).

    Notes
    -----
    pdCor = 0 is not conditional independence in general (Szekely & Rizzo 2014, Sec. 4.4); the test
    checks the partial distance correlation, as R's does.

    References
    ----------
    Szekely, G. J. & Rizzo, M. L. (2014). Partial distance correlation with methods for
    dissimilarities. Annals of Statistics 42(6), 2382-2412.
    R package energy, function ``pdcor.test``.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import pdcor_test
    >>> rng = np.random.default_rng(4)
    >>> z = rng.normal(size=60)
    >>> x, y = z + rng.normal(size=60), z + rng.normal(size=60)
    >>> res = pdcor_test(x, y, z, B=199, seed=5)
    >>> round(res.statistic, 4), res.p_value
    (0.0458, 0.035)
    """
    B = check_positive_int(B, "B")
    index = check_index(index)
    n_jobs = check_n_jobs(n_jobs)
    progress = check_progress(progress)
    rng = check_seed(seed)
    data = _test_data(nan_policy, 1, x=x, y=y, z=z)
    n = check_u_statistic_n(data["x"].shape[0], "x, y and z")
    n_jobs = _small(n, B, n_jobs)
    with _threads(n_jobs):
        perm = _Permuter([data["x"], data["y"], data["z"]], index, "pdcor", _workers(n_jobs))
        _, pxx, pyy, _, _ = perm.proj
        for name, val in (("x", pxx), ("y", pyy)):
            if val == 0.0:
                raise ValueError(f"{name} is explained by z (its U-centred distance matrix is a multiple of z's): "
                                 "its projection is zero and pdcor is undefined (R's pdcor.test gives p-value NA)")
        obs, reps = perm.run(B, rng, progress)
    den = math.sqrt(perm.gxx * perm.gyy)
    stat = float(max(-1.0, min(1.0, obs / den)))
    rep_stats = np.clip(reps / den, -1.0, 1.0)
    return HTest(statistic=stat, statistic_name="pdcor", p_value=_perm_pvalue(stat, rep_stats),
                 estimate={"pdcor": stat}, alternative=None, method="pdcor test", data_name=f"replicates {B}",
                 extras={"replicates": rep_stats, "n": n, "index": index, "path": perm.path})
