"""Pieces of the GCM shared with RP-CIT (private): residual pairs, standardised products, the
multiplier bootstrap of their maximum, the quadratic form and the smoother's variance factor.

``gcm.py`` and ``rpcit.py`` import from here; nothing here is public API.
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._checks import as_cit_data, check_seed, pow2_scale
from .._resampling import exceed_count, pvalue_from_count, run_stream
from .._warnings import StatcoreWarning
from ._regress import _residual_fits, regression_name


def _special():
    # scipy.special costs ~0.2 s to import; ndtr/chdtrc are what scipy.stats' norm.sf/chi2.sf call
    from scipy import special

    return special

_KINDS = ("scalar", "quadratic", "max")
_VARIANCES = ("auto", "standard", "smoother")

#: Regressions whose residual products ``variance="auto"`` corrects for the smoother (local smoothers
#: with many effective degrees of freedom; OLS and ridge on a few columns change the variance by
#: O(p / n) and keep Shah & Peters' estimate, so their GCM equals the published one).
SMOOTHER_CORRECTED = ("krr", "rf", "rf_oob")

#: Largest n for which ``variance="auto"`` applies the correction: it forms two dense (n, n)
#: residual maps (2 x 0.8 GB and about a minute of O(n^3) products at 10,000).
AUTO_MAX_N = 10_000
_ALTERNATIVES = ("two.sided", "less", "greater")
_ESTIMAND = "generalised covariance"

#: Smallest n from which on the scalar GCM held its level (rejection rate at most alpha + 3 Monte
#: Carlo SE, 1000 data sets per n, alpha = 0.05) at every larger n measured (up to 100), with one z,
#: on the nulls of benchmarks/size_cit_small_n.py where the regression is consistent: heteroscedastic
#: t_5 noise around linear means ("ols", "ridge", "krr") and a nonlinear null ("krr"). Below it the
#: normal reference is too light-tailed for the mean of a few heavy-tailed residual products ("ols":
#: 0.146 at n = 8, 0.121 at 10, 0.073 at 20; "ridge" 0.135 at 8; "krr" 0.079 at 8). ``gcm_test`` and
#: ``rpcit`` (base "gcm") warn below it. Not measured: "rf" (which refuses n < 20, regress.MIN_N)
#: and scikit-learn regressors. The table is in benchmarks/README.md ("cit").
GCM_MIN_N = {"ols": 25, "ridge": 25, "krr": 20}


class GCMWarning(StatcoreWarning):
    """The GCM result is numerically dubious (singular covariance, residuals that vanish).

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from statcore.cit import GCMWarning, gcm_test
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(50, 2))
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = gcm_test(z @ [1.0, 2.0], rng.normal(size=50), z)  # x is a function of z
    >>> caught[0].category is GCMWarning
    True
    """


# ----------------------------------------------------------------------------------------------
# pieces shared with RP-CIT (which works on the same residual products)
# ----------------------------------------------------------------------------------------------

def standardised_products(prod: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Column means, standard deviations (ddof 0) and the statistics sqrt(n) mean / sd of (n, m) products."""
    n = prod.shape[0]
    mean = prod.mean(axis=0)
    sd = prod.std(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        stat = np.sqrt(n) * mean / sd
    return mean, sd, stat


def normal_pvalue(t: np.ndarray, alternative: str) -> np.ndarray:
    if alternative == "two.sided":
        return np.minimum(1.0, 2.0 * _special().ndtr(-np.abs(t)))
    if alternative == "greater":
        return _special().ndtr(-t)
    return _special().ndtr(t)


def _signed_max(a: np.ndarray, alternative: str, axis: int) -> np.ndarray:
    if alternative == "two.sided":
        return np.abs(a).max(axis=axis)
    if alternative == "greater":
        return a.max(axis=axis)
    return (-a).max(axis=axis)


def _signed_order(a: np.ndarray, alternative: str, axis: int, rank: int) -> np.ndarray:
    """The ``rank``-th largest of |a| (two-sided), a or -a along ``axis`` (rank 1: the maximum)."""
    if rank == 1:
        return _signed_max(a, alternative, axis)
    v = np.abs(a) if alternative == "two.sided" else (a if alternative == "greater" else -a)
    return -np.partition(-v, rank - 1, axis=axis).take(rank - 1, axis=axis)


def max_bootstrap_pvalue(prod: np.ndarray, stat: np.ndarray, B: int, rng: np.random.Generator,
                         alternative: str = "two.sided", rank: int = 1,
                         progress: bool | None = False) -> tuple[float, float]:
    """Max statistic and its Gaussian multiplier bootstrap p-value (Shah & Peters 2020, Sec. 3.1).

    ``prod`` (n, m) are the residual products, ``stat`` their standardised means. The draws are
    max_j |n^-1/2 sum_i e_i (prod_ij - mean_j) / sd_j| with e_i iid N(0, 1), the same
    standardisation as ``stat``. p = (1 + #{draw >= observed}) / (B + 1). With ``rank`` = r > 1
    the statistic is the r-th largest |T_j| instead of the largest, calibrated by the r-th largest
    of each draw (the top-r statistic; Chernozhukov, Chetverikov & Kato 2013 cover any such
    functional of the maximal vector). ``progress``: the engine's bar over the B draws (it draws
    nothing from ``rng``).
    """
    n, m = prod.shape
    mean, sd = prod.mean(axis=0), prod.std(axis=0)
    std = (prod - mean) / (sd * np.sqrt(n))
    observed = float(_signed_order(stat, alternative, 0, rank))
    # the engine owns the loop: normal multipliers drawn in order from rng, in its chunks
    parts = run_stream(_NormalRows(n), _MaxDraws(std, alternative, rank), B, rng=rng,
                       bytes_per_resample=8.0 * max(n, m), progress=progress, desc="multiplier bootstrap",
                       unit="draw")
    null = np.concatenate(parts)
    return observed, pvalue_from_count(exceed_count(observed, null, alternative="greater"), B)


class _NormalRows:
    def __init__(self, n: int):
        self.n = n

    def __call__(self, rng: np.random.Generator, size: int) -> np.ndarray:
        return rng.standard_normal((size, self.n))


class _MaxDraws:
    def __init__(self, std: np.ndarray, alternative: str, rank: int):
        self.std, self.alternative, self.rank = std, alternative, rank

    def __call__(self, e: np.ndarray) -> np.ndarray:
        return _signed_order(e @ self.std, self.alternative, 1, self.rank)


def smoother_inflation(ax: np.ndarray, ay: np.ndarray, rx: np.ndarray, ry: np.ndarray, paired: bool,
                       block: int = 512) -> np.ndarray:
    """How much a linear smoother inflates the variance of the GCM numerator over its usual estimate.

    With residuals ``rx = Ax x`` and ``ry = Ay y`` of two fixed linear smoothers (``ax``, ``ay``: the
    dense (n, n) residual maps) and, under the null, x and y independent given z with independent
    observations of variances ``sx2_j``, ``sy2_l``, the numerator ``sum_i rx_i ry_i = x' M y``
    (``M = Ax' Ay``) has variance ``sum_jl M_jl^2 sx2_j sy2_l``, while the GCM's sample variance of
    the products estimates only its diagonal part ``sum_i (Ax Sx Ax')_ii (Ay Sy Ay')_ii``. The ratio
    of the two, with the squared residuals as plug-in variances, is the factor returned; dividing the
    GCM statistic by its square root accounts for the correlation between neighbouring residual
    products that a local smoother (kernel ridge, a forest) creates. The ratio does not change when
    x or y is rescaled.

    ``rx`` (n, a) and ``ry`` (n, b) are the residual columns; ``paired``: the factor of each column
    pair (a == b, RP-CIT's projections), else of all a * b pairs, as an (a, b) array. ``M`` is
    formed ``block`` columns at a time: memory O(n * block) beyond the two maps, time O(n^3).
    """
    n = rx.shape[0]
    dx, dy = rx ** 2, ry ** 2
    gx = (ax * ax) @ dx                               # (Ax Dx Ax')_ii, column by column of dx
    gy = gx if (ay is ax and ry is rx) else (ay * ay) @ dy
    md = np.zeros_like(dy)
    axt = ax.T
    for start in range(0, n, block):
        m = axt @ ay[:, start:start + block]          # columns of M = Ax' Ay
        m *= m
        md += m @ dy[start:start + block]             # sum_l M_il^2 dy_l
    if paired:
        return np.einsum("ip,ip->p", dx, md) / np.einsum("ip,ip->p", gx, gy)
    return (dx.T @ md) / (gx.T @ gy)


def quadratic_form(prod: np.ndarray, inflation: np.ndarray | None = None) -> tuple[float, int, bool]:
    """n mean' S^+ mean with S the (ddof 0) covariance of the products; its rank; whether S was singular.

    ``inflation`` (m,): variance factors of the column means (:func:`smoother_inflation`); S becomes
    D S D with D = diag(sqrt(inflation)), the correlations kept.
    """
    n, m = prod.shape
    mean = prod.mean(axis=0)
    centred = prod - mean
    cov = centred.T @ centred / n
    if inflation is not None:
        # n (D^-1 mean)' S^+ (D^-1 mean): the means' variances inflated, their correlations kept
        mean = mean / np.sqrt(inflation)
    lam, vec = np.linalg.eigh(cov)
    tol = lam.max() * m * np.finfo(float).eps * 1e2 if lam.size else 0.0
    keep = lam > tol
    coord = vec[:, keep].T @ mean
    q = float(n * np.sum(coord ** 2 / lam[keep]))
    rank = int(keep.sum())
    return q, rank, rank < m


def row_products(rx: np.ndarray, ry: np.ndarray) -> np.ndarray:
    """(n, dx * dy) products rx[:, j] * ry[:, k], j slowest."""
    n = rx.shape[0]
    return (rx[:, :, None] * ry[:, None, :]).reshape(n, -1)


def warn_if_vanishing(r: np.ndarray, v: np.ndarray | None, name: str) -> None:
    """Warn when a residual column is numerically zero: X (or Y) is a function of Z."""
    scale = np.abs(v - v.mean(axis=0)).max(axis=0) if v is not None else np.ones(r.shape[1])
    tiny = np.abs(r).max(axis=0) <= 1e-10 * np.where(scale > 0, scale, 1.0)
    if tiny.any():
        warnings.warn(f"the residuals of {name} column(s) {np.flatnonzero(tiny).tolist()} on z vanish: "
                      f"{name} is (numerically) a function of z and the test is not informative",
                      GCMWarning, stacklevel=3)


def warn_if_small_n(n: int, reg: str, stacklevel: int = 4) -> None:
    """A GCMWarning when n is below the smallest n at which the GCM held its level for ``reg``."""
    m = GCM_MIN_N.get(reg)
    if m is not None and n < m:
        warnings.warn(f"n = {n} is below {m}, the smallest n at which the GCM test held its level with "
                      f"regression={reg!r} in seeded simulations: the normal reference is too light-tailed "
                      "for so few residual products and the test may reject too often (measured sizes: "
                      "benchmarks/README.md, 'cit')",
                      GCMWarning, stacklevel=stacklevel)


#: rpcit with kernel ridge ("krr") and many projections: below this n the aggregated tests were
#: oversized on the bounded nonlinear null of benchmarks/bench_cit.py (dims 20/20/5, k = 100); the
#: figures are in benchmarks/README.md ("cit").
KRR_RPCIT_MIN_N = 2000


def warn_if_krr_rpcit_small_n(n: int, k: int, reg: str, aggregate: str, stacklevel: int = 4) -> None:
    """A GCMWarning for rpcit with kernel ridge below KRR_RPCIT_MIN_N (a documented limit)."""
    if reg == "krr" and k > 1 and n < KRR_RPCIT_MIN_N and aggregate not in ("topr", "hommel_global"):
        warnings.warn(f"rpcit with regression='krr' at n = {n} < {KRR_RPCIT_MIN_N} may reject too often with "
                      f"aggregate={aggregate!r}; Ruger's 'topr' and 'hommel_global' held the level there (but are "
                      "conservative) (measured sizes: benchmarks/README.md, 'cit')",
                      GCMWarning, stacklevel=stacklevel)


def residual_pair(x: Any, y: Any, z: Any, regression: Any, seed: Any, resid_x: Any, resid_y: Any,
                  n_jobs: int = 1, nan_policy: str = "raise") -> tuple[np.ndarray, np.ndarray, str, tuple | None]:
    """Validated residuals of x on z and y on z (or the given residuals), the regression's name and
    the two smoothers (None unless both residuals come from a named regression on a non-empty z).

    x and y are regressed separately (each multi-output). ``seed`` feeds both regressions. Rows
    with a NaN in any of x, y, z, resid_x, resid_y are dropped with ``nan_policy="omit"``.
    """
    rng = check_seed(seed)
    for name, v, given in (("x", x, resid_x), ("y", y, resid_y)):
        if v is None and given is None:
            raise ValueError(f"{name} is required: pass {name}, or its residuals on z as resid_{name}")
    data, _ = as_cit_data(nan_policy, x=x, y=y, z=z, resid_x=resid_x, resid_y=resid_y)
    xa, ya, za, given_x, given_y = (data[k] for k in ("x", "y", "z", "resid_x", "resid_y"))
    if za is not None and za.shape[1] == 0:
        za = None
    n = next(a.shape[0] for a in (xa, ya, given_x, given_y) if a is not None)
    if n < 3:
        raise ValueError(f"at least 3 observations are needed, got n = {n}")
    name = "precomputed" if given_x is not None and given_y is not None else regression_name(regression)
    # data of any magnitude (1e160, 1e-160) to order 1 by exact powers of two, column by column, so that
    # the regressions' squares neither overflow nor underflow; the residuals are scaled back exactly
    sx, sy = (pow2_scale(v, center=v.mean(axis=0)) if v is not None else None for v in (xa, ya))
    xa, ya = (v / s if v is not None else None for v, s in ((xa, sx), (ya, sy)))
    if za is not None:
        za = za / pow2_scale(za, center=za.mean(axis=0))
    todo = [(v, label) for given, v, label in ((given_x, xa, "x"), (given_y, ya, "y")) if given is None]
    # x and y on the same z: one decomposition of z (ols, ridge, krr), one fit per variable
    fits = iter(_residual_fits([v for v, _ in todo], za, regression, rng, n_jobs,
                               tuple(lab for _, lab in todo)) if todo else ())
    out, smoothers = [], []
    for given, v, label in ((given_x, xa, "x"), (given_y, ya, "y")):
        fit = next(fits) if given is None else None
        r = given if given is not None else fit[0] * (sx if label == "x" else sy)
        warn_if_vanishing(r, v * (sx if label == "x" else sy) if given is None else None, label)
        out.append(r)
        smoothers.append(None if fit is None or za is None else fit[1])
    return out[0], out[1], name, (None if None in smoothers else tuple(smoothers))


def variance_inflation(variance: str, smoothers: tuple | None, reg: str, rx: np.ndarray, ry: np.ndarray,
                       paired: bool) -> np.ndarray | None:
    """The smoother correction asked for by ``variance`` (see :func:`gcm_test`), or None for none."""
    if variance == "standard":
        return None
    n = rx.shape[0]
    if smoothers is None:
        if variance == "smoother":
            raise ValueError("variance='smoother' needs the residual maps of a named regression of x and y on a "
                             "non-empty z ('ols', 'ridge', 'krr', 'rf', 'rf_oob'); precomputed residuals and "
                             "scikit-learn regressors have none: use variance='standard'")
        return None
    if variance == "auto":
        if reg not in SMOOTHER_CORRECTED:
            return None
        if n > AUTO_MAX_N:
            warnings.warn(f"variance='auto' keeps the standard GCM variance at n = {n} > {AUTO_MAX_N}: the "
                          f"smoother correction needs two dense (n, n) maps; pass variance='smoother' to "
                          f"apply it anyway or variance='standard' to silence this", GCMWarning, stacklevel=3)
            return None
    sx, sy = smoothers
    ax = sx.matrix()
    ay = ax if sy is sx else sy.matrix()
    return smoother_inflation(ax, ay, rx, ry, paired)
