"""The generalised covariance measure (GCM) test of conditional independence, Shah & Peters (2020).

Residuals of X on Z and of Y on Z; under X independent of Y given Z (and regressions that are good
enough) the mean of their products is asymptotically normal around zero. One pair of columns: the
normalised mean against N(0, 1). Several: the maximum over all pairs of columns, calibrated by a
Gaussian multiplier bootstrap (Shah & Peters, Sec. 3), or a quadratic form against chi-square.

The max statistic and its bootstrap draws are both built from the products standardised column by
column (Shah & Peters' T_jk = sqrt(n) mean / sd), so the p-value does not change when a residual
column is rescaled. Implementations that standardise only the draws compare an unstandardised
maximum with standardised draws and are miscalibrated whenever residual scales differ.
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._checks import check_choice, check_positive_int, check_seed
from .._result import HTest, StatcoreWarning
from .._checks import as_matrix, check_same_n
from .regress import fit_residualizers, regression_name


def _special():
    # scipy.special costs ~0.2 s to import; ndtr/chdtrc are what scipy.stats' norm.sf/chi2.sf call
    from scipy import special

    return special

__all__ = ["gcm_test", "GCMWarning"]

_TYPES = ("scalar", "quadratic", "max")
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


class GCMWarning(StatcoreWarning):
    """The GCM result is numerically dubious (singular covariance, residuals that vanish)."""


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


def max_bootstrap_pvalue(prod: np.ndarray, stat: np.ndarray, B: int, rng: np.random.Generator,
                         alternative: str = "two.sided") -> tuple[float, float]:
    """Max statistic and its Gaussian multiplier bootstrap p-value (Shah & Peters 2020, Sec. 3.1).

    ``prod`` (n, m) are the residual products, ``stat`` their standardised means. The draws are
    max_j |n^-1/2 sum_i e_i (prod_ij - mean_j) / sd_j| with e_i iid N(0, 1), the same
    standardisation as ``stat``. p = (1 + #{draw >= observed}) / (B + 1).
    """
    n, m = prod.shape
    mean, sd = prod.mean(axis=0), prod.std(axis=0)
    std = (prod - mean) / (sd * np.sqrt(n))
    observed = float(_signed_max(stat, alternative, axis=0))
    exceed = 0
    block = max(1, min(B, 4_000_000 // max(n, 1)))
    done = 0
    while done < B:
        b = min(block, B - done)
        draws = rng.standard_normal((b, n)) @ std
        exceed += int(np.count_nonzero(_signed_max(draws, alternative, axis=1) >= observed))
        done += b
    return observed, (1.0 + exceed) / (B + 1.0)


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


def residual_pair(x: Any, y: Any, z: Any, regression: Any, seed: Any, resid_x: Any, resid_y: Any,
                  n_jobs: int = 1) -> tuple[np.ndarray, np.ndarray, str, tuple | None]:
    """Validated residuals of x on z and y on z (or the given residuals), the regression's name and
    the two smoothers (None unless both residuals come from a named regression on a non-empty z).

    x and y are regressed separately (each multi-output). ``seed`` feeds both regressions.
    """
    rng = check_seed(seed)
    given_x = as_matrix(resid_x, "resid_x", allow_none=True)
    given_y = as_matrix(resid_y, "resid_y", allow_none=True)
    xa = as_matrix(x, "x", allow_none=given_x is not None)
    ya = as_matrix(y, "y", allow_none=given_y is not None)
    za = as_matrix(z, "z", allow_none=True)
    if za is not None and za.shape[1] == 0:
        za = None
    n = check_same_n(x=xa, y=ya, z=za, resid_x=given_x, resid_y=given_y)
    if n < 3:
        raise ValueError(f"at least 3 observations are needed, got n = {n}")
    name = "precomputed" if given_x is not None and given_y is not None else regression_name(regression)
    todo = [(v, label) for given, v, label in ((given_x, xa, "x"), (given_y, ya, "y")) if given is None]
    # x and y on the same z: one decomposition of z (ols, ridge, krr), one fit per variable
    fits = iter(fit_residualizers([v for v, _ in todo], za, regression, rng, n_jobs,
                                  tuple(lab for _, lab in todo)) if todo else ())
    out, smoothers = [], []
    for given, v, label in ((given_x, xa, "x"), (given_y, ya, "y")):
        fit = next(fits) if given is None else None
        r = given if given is not None else fit.residuals
        warn_if_vanishing(r, v if given is None else None, label)
        out.append(r)
        smoothers.append(None if fit is None or za is None else fit.smoother)
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


def _data_name(x, y, z, resid_x, resid_y) -> str:
    xs = "resid_x" if resid_x is not None else "x"
    ys = "resid_y" if resid_y is not None else "y"
    if resid_x is not None and resid_y is not None:
        return f"{xs} and {ys}"
    return f"{xs} and {ys}" + (" given z" if z is not None and np.size(z) else "")


def gcm_test(x: Any, y: Any, z: Any = None, regression: Any = "ols", type: str | None = None,
             B: int = 499, alternative: str = "two.sided", seed: Any = None, resid_x: Any = None,
             resid_y: Any = None, n_jobs: int = 1, variance: str = "auto") -> HTest:
    """Generalised covariance measure test of X independent of Y given Z.

    Parameters
    ----------
    x, y : array_like (n,) or (n, d)
        The variables tested; may be None when the matching ``resid_x`` / ``resid_y`` is given.
    z : array_like (n, p), optional
        Conditioning variables (None: a test of plain independence, residuals are centred values).
    regression : str or scikit-learn regressor
        How x and y are regressed on z: "ols", "ridge", "krr", "rf" or a regressor instance (see
        :func:`statcore.cit.residualize`). Multi-output regressions fit once for all columns.
    type : {"scalar", "quadratic", "max"}, optional
        "scalar" (one column each): T = sqrt(n) mean(R) / sd(R) against N(0, 1), R the residual
        products. "max": max over the dx * dy column pairs of |T_jk|, with a Gaussian multiplier
        bootstrap of the same standardised statistics. "quadratic": n Rbar' S^-1 Rbar against
        chi-square with dx * dy degrees of freedom (a pseudo-inverse and its rank when S is
        singular, with a warning). Default: "scalar" for one column each, else "max".
    B : int
        Bootstrap draws for "max".
    alternative : {"two.sided", "greater", "less"}
        Sign of the covariance under the alternative ("quadratic" is two-sided only).
    seed : None, int or numpy.random.Generator
        For the bootstrap and a random-forest regression.
    resid_x, resid_y : array_like, optional
        Precomputed residuals, used as given; they replace the regression of x (of y) on z.
    n_jobs : int
        Threads for a random-forest regression.
    variance : {"auto", "standard", "smoother"}
        The variance of each mean residual product. "standard": Shah & Peters' sample variance of the
        products, which treats them as independent. "smoother": that variance times the factor by
        which the regression's smoother correlates neighbouring products
        (:func:`statcore.cit.gcm.smoother_inflation`; each T_jk is divided by its square root, the
        bootstrap and the quadratic form keep the products' correlations). "auto" (default):
        "smoother" for the local smoothers "krr", "rf" and "rf_oob" up to n = 10,000 (above, the
        standard variance with a warning), "standard" otherwise, so OLS and ridge give the published
        GCM. "smoother" needs a named regression on a non-empty z.

    Returns
    -------
    HTest
        ``statistic`` T (scalar), S (max) or X-squared (quadratic); ``estimate`` the mean residual
        product for one pair; ``extras``: ``"statistics"`` the (dx, dy) matrix of T_jk,
        ``"regression"``, ``"n"``, ``"variance"`` ("standard" or "smoother"),
        ``"variance_inflation"`` the (dx, dy) factors when corrected, and ``"B"`` for the bootstrap.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> z = rng.normal(size=500)
    >>> x = z + rng.normal(size=500)
    >>> y = z + rng.normal(size=500)
    >>> res = gcm_test(x, y, z)
    >>> round(res.statistic, 3), round(res.p_value, 3)
    (2.076, 0.038)
    >>> gcm_test(x, y + 0.3 * x, z).p_value < 1e-6
    True

    Notes
    -----
    The level is asymptotic and needs regressions whose errors vanish fast enough (Shah & Peters,
    Thm. 6). In finite samples a flexible smoother also makes the residuals correlated across
    observations, which Shah & Peters' variance estimate ignores: for kernel ridge at n = 500 with
    about 32 effective degrees of freedom the numerator's variance is about 5% larger than
    estimated, for the twiced forest "rf" at n = 2000 about 5-6%, and a maximum over many
    projections turns that into a size near 0.08 at alpha = 0.05 (benchmarks/bench_cit.py).
    ``variance="smoother"`` (the default for those regressions) estimates the factor from the
    smoother's residual maps, treating the fitted smoother as fixed. Linear regression on a few
    variables is unaffected.

    References
    ----------
    Shah & Peters (2020), The hardness of conditional independence testing and the generalised
    covariance measure, Annals of Statistics 48(3), 1514-1538.
    """
    B = check_positive_int(B, "B")
    alternative = check_choice(alternative, "alternative", _ALTERNATIVES)
    variance = check_choice(variance, "variance", _VARIANCES)
    if type is not None:
        type = check_choice(type, "type", _TYPES)
    rng = check_seed(seed)
    rx, ry, reg, smoothers = residual_pair(x, y, z, regression, rng, resid_x, resid_y, n_jobs)
    n, dx, dy = rx.shape[0], rx.shape[1], ry.shape[1]
    if type is None:
        type = "scalar" if dx * dy == 1 else "max"
    if type == "scalar" and dx * dy > 1:
        raise ValueError(f"type='scalar' needs one column in x and in y, got {dx} and {dy}; "
                         f"use type='max' or type='quadratic'")
    if type == "quadratic" and alternative != "two.sided":
        raise ValueError("type='quadratic' is two-sided; use alternative='two.sided' or type='max'")
    prod = row_products(rx, ry)
    mean, sd, tstat = standardised_products(prod)
    if np.any(sd == 0):
        raise ValueError("the residual products are constant: x or y is a function of z; no test possible")
    inflation = variance_inflation(variance, smoothers, reg, rx, ry, paired=False)
    extras: dict[str, Any] = {"regression": reg, "n": n,
                              "variance": "standard" if inflation is None else "smoother"}
    if inflation is not None:
        inflation = inflation.ravel()       # the order of row_products: x's column slowest
        tstat = tstat / np.sqrt(inflation)
        extras["variance_inflation"] = inflation.reshape(dx, dy)
    extras["statistics"] = tstat.reshape(dx, dy)
    data_name = _data_name(x, y, z, resid_x, resid_y)
    base = "Generalised covariance measure test"
    tag = "" if inflation is None else "smoother-corrected variance"

    def method(kind: str) -> str:
        parts = "; ".join(p for p in (kind, tag) if p)
        return f"{base} ({parts})" if parts else base

    if type == "scalar":
        t = float(tstat[0])
        return HTest(statistic=t, statistic_name="T", p_value=float(normal_pvalue(t, alternative)),
                     estimate={_ESTIMAND: float(mean[0])}, null_value={_ESTIMAND: 0.0},
                     alternative=alternative, method=method(""), data_name=data_name, extras=extras)
    if type == "max":
        s, p = max_bootstrap_pvalue(prod, tstat, B, rng, alternative)
        extras["B"] = B
        return HTest(statistic=s, statistic_name="S", p_value=p, null_value={_ESTIMAND: 0.0},
                     alternative=alternative, method=method("max statistic, multiplier bootstrap"),
                     data_name=data_name, extras=extras)
    q, rank, singular = quadratic_form(prod, inflation)
    if singular:
        warnings.warn(f"the covariance of the {dx * dy} residual products is singular (rank {rank}); "
                      f"the quadratic form uses its pseudo-inverse and {rank} degrees of freedom",
                      GCMWarning, stacklevel=2)
    return HTest(statistic=q, statistic_name="X-squared", parameter={"df": float(rank)},
                 p_value=float(_special().chdtrc(rank, q)), null_value={_ESTIMAND: 0.0},
                 alternative=alternative, method=method("quadratic form"), data_name=data_name,
                 extras=extras)
