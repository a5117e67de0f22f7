"""Intervals for partially identified parameters and the kink check that chooses the bootstrap."""
from __future__ import annotations

import math

import numpy as np

from .._checks import check_correlation, check_positive_int, interval_inputs
from ._design import _cell_weights, _Design
from ._functions import _F
from ._results import IdentifiedSetInterval

# ----------------------------------------------------------------------------------------------
# inference
# ----------------------------------------------------------------------------------------------

def _bvn_cdf(h: float, k: float, rho: float) -> float:
    """P(A <= h, B <= k) for standard bivariate normal (A, B) with correlation |rho| < 1, finite h, k:
    Owen's (1956) formula in his T function, exact to about 1e-16:
    (Phi(h) + Phi(k)) / 2 - T(h, (k - rho h) / (h s)) - T(k, (h - rho k) / (k s)) - beta, s = sqrt(1 - rho^2),
    beta = 1/2 when h k < 0 or (h k = 0 and h + k < 0), else 0; T(0, +-inf) = +-1/4."""
    from scipy.special import ndtr, owens_t

    if h == 0 and k == 0:
        return 0.25 + math.asin(rho) / (2 * math.pi)
    s = math.sqrt(1.0 - rho * rho)

    def t(x: float, other: float) -> float:
        if x == 0:
            return 0.25 * float(np.sign(other - rho * x))
        return float(owens_t(x, (other - rho * x) / (x * s)))

    beta = 0.0 if (h * k > 0 or (h * k == 0 and h + k >= 0)) else 0.5
    return float(0.5 * (ndtr(h) + ndtr(k)) - t(h, k) - t(k, h) - beta)


def _bvn_upper_lower(a: float, b: float, rho: float) -> float:
    """P(A <= a, B >= -b) for standard bivariate normal (A, B) with correlation rho in [-1, 1]:
    Phi(a) - P(A <= a, B <= -b) (:func:`_bvn_cdf`), with the closed forms at rho = +-1 and at
    infinite a or b."""
    from scipy.stats import norm

    if not np.isfinite(a) or not np.isfinite(b):
        if a == np.inf:
            return float(norm.cdf(b))
        if b == np.inf:
            return float(norm.cdf(a))
        return 0.0
    if rho >= 1.0:           # B = A
        return float(max(0.0, norm.cdf(a) - norm.cdf(-b)))
    if rho <= -1.0:          # B = -A
        return float(norm.cdf(min(a, b)))
    return float(max(0.0, norm.cdf(a) - _bvn_cdf(a, -b, rho)))


def imbens_manski_interval(lower: float, upper: float, se_lower: float, se_upper: float, *,
                           conf_level: float = 0.95) -> IdentifiedSetInterval:
    """Imbens & Manski (2004) confidence interval for a parameter known to lie in [lower, upper].

    The interval [l - c se_l, u + c se_u] with c solving Phi(c + D / max(se_l, se_u)) - Phi(-c) =
    ``conf_level``, D = u - l (clipped at 0): it covers every point of the identified set (not
    the whole set at once) with probability ``conf_level`` asymptotically. c moves from the
    one-sided z_(level) when the bounds are far apart to the two-sided z_((1 + level) / 2) when
    they meet. Its uniform validity needs a superefficient estimate of D (Stoye 2009), which
    :func:`stoye_interval` does without.

    Parameters
    ----------
    lower, upper : float
        Estimates of the two ends of the identified set.
    se_lower, se_upper : float
        Their standard errors, non-negative (both zero: the estimates themselves are returned).
    conf_level : float
        Confidence level in (0, 1).

    Returns
    -------
    IdentifiedSetInterval
        ``conf_low``, ``conf_high`` (it unpacks as ``lo, hi = res``; ``conf_int`` is the pair), the
        inputs, ``ci`` and the critical values ``c_lower``, ``c_upper``.

    Examples
    --------
    >>> from statcore.coupling import imbens_manski_interval
    >>> lo, hi = imbens_manski_interval(0.0, 1.0, 0.1, 0.1, conf_level=0.95)  # far apart: c = 1.645
    >>> round(lo, 4), round(hi, 4)
    (-0.1645, 1.1645)
    >>> lo, hi = imbens_manski_interval(0.5, 0.5, 0.1, 0.1, conf_level=0.95)  # a point: c = 1.96
    >>> round(lo, 4), round(hi, 4)
    (0.304, 0.696)

    References
    ----------
    Imbens, G. W. & Manski, C. F. (2004). Confidence intervals for partially identified
    parameters. Econometrica 72(6), 1845-1857.

    Stoye, J. (2009). More on confidence intervals for partially identified parameters.
    Econometrica 77(4), 1299-1315.
    """
    from scipy.optimize import brentq
    from scipy.stats import norm

    lower, upper, se_lower, se_upper, conf_level = interval_inputs(lower, upper, se_lower, se_upper, conf_level)
    delta = max(upper - lower, 0.0)
    s = max(se_lower, se_upper)
    if s <= 0:
        return _interval(lower, upper, se_lower, se_upper, conf_level, "imbens-manski", None, np.nan, np.nan)
    c = brentq(lambda c: norm.cdf(c + delta / s) - norm.cdf(-c) - conf_level, 0.0, 10.0)
    return _interval(lower, upper, se_lower, se_upper, conf_level, "imbens-manski", None, c, c)


def stoye_interval(lower: float, upper: float, se_lower: float, se_upper: float, *, rho: float,
                   conf_level: float = 0.95, n: int) -> IdentifiedSetInterval:
    """Stoye (2009) confidence interval for a parameter known to lie in [lower, upper].

    The shortest [l - c_l se_l, u + c_u se_u] (smallest c_l se_l + c_u se_u) that covers the true
    value with probability ``conf_level`` when it is at either end of the identified set:
    P(Z_l <= c_l, Z_u >= -c_u - D / se_u) >= level and P(Z_l <= c_l + D / se_l, Z_u >= -c_u) >=
    level, with the estimation errors (Z_l, Z_u) of the two ends standard bivariate normal with
    correlation ``rho`` (covering every point of the set, not the whole set at once). The width
    D = u - l enters after the pre-test of Stoye (2009, Sec. 3.3): it is used when it exceeds
    max(se_l, se_u) sqrt(log n) and set to 0 otherwise, so no superefficient estimate of D is
    needed and the interval does not jump when the bounds nearly meet.

    Parameters
    ----------
    lower, upper : float
        Estimates of the two ends of the identified set.
    se_lower, se_upper : float
        Their standard errors, non-negative (if either is zero: :func:`imbens_manski_interval`).
    rho : float
        Correlation of the two estimates (e.g. of their bootstrap replicates); clipped to
        [-0.995, 0.995].
    conf_level : float
        Confidence level in (0, 1).
    n : int
        Sample size, for the pre-test threshold.

    Returns
    -------
    IdentifiedSetInterval
        ``conf_low``, ``conf_high`` (it unpacks as ``lo, hi = res``; ``conf_int`` is the pair), the
        inputs, ``ci`` and the critical values ``c_lower``, ``c_upper``.

    Examples
    --------
    >>> from statcore.coupling import stoye_interval
    >>> lo, hi = stoye_interval(0.0, 1.0, 0.1, 0.2, rho=0.5, conf_level=0.95, n=500)  # far apart: c = 1.645
    >>> round(lo, 4), round(hi, 4)
    (-0.1645, 1.329)
    >>> lo, hi = stoye_interval(0.0, 0.05, 0.1, 0.1, rho=0.5, conf_level=0.95, n=500)  # D below the pre-test
    >>> round(lo, 3), round(hi, 3)
    (-0.196, 0.246)

    References
    ----------
    Stoye, J. (2009). More on confidence intervals for partially identified parameters.
    Econometrica 77(4), 1299-1315.

    Imbens, G. W. & Manski, C. F. (2004). Confidence intervals for partially identified
    parameters. Econometrica 72(6), 1845-1857.
    """
    from scipy.optimize import brentq, minimize_scalar
    from scipy.stats import norm

    lower, upper, se_lower, se_upper, conf_level = interval_inputs(lower, upper, se_lower, se_upper, conf_level)
    rho = check_correlation(rho)
    n = check_positive_int(n, "n")
    if se_lower <= 0 or se_upper <= 0:
        im = imbens_manski_interval(lower, upper, se_lower, se_upper, conf_level=conf_level)
        return _interval(lower, upper, se_lower, se_upper, conf_level, "stoye", rho, im.c_lower, im.c_upper)
    delta = max(upper - lower, 0.0)
    if delta <= max(se_lower, se_upper) * math.sqrt(math.log(max(n, 3))):
        delta = 0.0
    rho = float(np.clip(rho, -0.995, 0.995))
    z = norm.ppf(conf_level)

    def cu_for(cl: float) -> float:
        need = []
        for f in (lambda cu: _bvn_upper_lower(cl, cu + delta / se_upper, rho),
                  lambda cu: _bvn_upper_lower(cl + delta / se_lower, cu, rho)):
            if f(12.0) < conf_level:
                return np.inf
            if f(-12.0) >= conf_level:  # this end is covered whatever c_u is
                need.append(-12.0)
                continue
            need.append(brentq(lambda cu: f(cu) - conf_level, -12.0, 12.0, xtol=1e-7))
        return max(need)

    # the lower end alone must be covered: P(Z_l <= c_l) >= level, so c_l >= z whatever delta is
    res = minimize_scalar(lambda cl: cl * se_lower + cu_for(cl) * se_upper, bounds=(z + 1e-6, 8.0),
                          method="bounded", options={"xatol": 1e-6})
    cl = float(res.x)
    cu = cu_for(cl)
    return _interval(lower, upper, se_lower, se_upper, conf_level, "stoye", rho, cl, cu)


def identified_set_interval(lower: float, upper: float, se_lower: float, se_upper: float, *, rho: float,
                            conf_level: float = 0.95) -> IdentifiedSetInterval:
    """Confidence interval that covers the whole identified set [lower, upper] at once.

    [l - c se_l, u + c se_u] with c solving P(Z_l <= c, Z_u >= -c) = ``conf_level``, the
    estimation errors (Z_l, Z_u) of the two ends standard bivariate normal with correlation ``rho``
    (a confidence set for the identified set, Horowitz & Manski 2000; Chernozhukov, Hong & Tamer
    2007). c lies between the one-sided z_(level) (rho = -1) and the two-sided z_((1 + level) / 2)
    (rho = 1, the Bonferroni value, which is also the most any rho needs); rho = 0 gives
    Phi(c)^2 = level. :func:`imbens_manski_interval` and :func:`stoye_interval` are shorter because
    they cover each point of the set, not the set as a whole; when the two ends nearly meet,
    covering the set and covering its points become the same promise.

    Parameters
    ----------
    lower, upper : float
        Estimates of the two ends of the identified set.
    se_lower, se_upper : float
        Their standard errors, non-negative (one zero: that end is taken as known and the other
        gets the one-sided z_(level); both zero: the estimates themselves are returned).
    rho : float
        Correlation of the two estimates (e.g. of their bootstrap replicates), in [-1, 1].
    conf_level : float
        Confidence level in (0, 1).

    Returns
    -------
    IdentifiedSetInterval
        ``conf_low``, ``conf_high`` (it unpacks as ``lo, hi = res``; ``conf_int`` is the pair), the
        inputs, ``ci`` and the critical values ``c_lower``, ``c_upper``.

    Examples
    --------
    >>> from statcore.coupling import identified_set_interval
    >>> lo, hi = identified_set_interval(0.0, 1.0, 0.1, 0.1, rho=0.0, conf_level=0.95)  # Phi(c)^2 = 0.95
    >>> round(lo, 4), round(hi, 4)
    (-0.1955, 1.1955)
    >>> lo, hi = identified_set_interval(0.0, 1.0, 0.1, 0.1, rho=1.0, conf_level=0.95)  # c = z_0.975
    >>> round(lo, 4), round(hi, 4)
    (-0.196, 1.196)

    References
    ----------
    Horowitz, J. L. & Manski, C. F. (2000). Nonparametric analysis of randomized experiments with
    missing covariate and outcome data. J. Amer. Statist. Assoc. 95(449), 77-84.

    Chernozhukov, V., Hong, H. & Tamer, E. (2007). Estimation and confidence regions for parameter
    sets in econometric models. Econometrica 75(5), 1243-1284.
    """
    from scipy.optimize import brentq
    from scipy.stats import norm

    lower, upper, se_lower, se_upper, conf_level = interval_inputs(lower, upper, se_lower, se_upper, conf_level)
    rho = check_correlation(rho)
    if se_lower <= 0 and se_upper <= 0:
        return _interval(lower, upper, se_lower, se_upper, conf_level, "whole-set", rho, np.nan, np.nan)
    if se_lower <= 0 or se_upper <= 0:
        c = float(norm.ppf(conf_level))
    else:
        a, b = float(norm.ppf(conf_level)), float(norm.ppf((1 + conf_level) / 2))
        if rho >= 1.0:
            c = b
        elif rho <= -1.0:
            c = a
        else:
            c = brentq(lambda c: _bvn_upper_lower(c, c, rho) - conf_level, a - 1e-9, b + 1e-9, xtol=1e-12)
    return _interval(lower, upper, se_lower, se_upper, conf_level, "whole-set", rho, c, c)


def _interval(lower, upper, se_lower, se_upper, conf_level, ci, rho, c_lower, c_upper) -> IdentifiedSetInterval:
    """The result: [lower - c_lower se_lower, upper + c_upper se_upper] (the ends themselves when the
    critical values are NaN: both standard errors zero)."""
    lo = lower if not np.isfinite(c_lower) else lower - c_lower * se_lower
    hi = upper if not np.isfinite(c_upper) else upper + c_upper * se_upper
    return IdentifiedSetInterval(conf_low=float(lo), conf_high=float(hi), lower=float(lower), upper=float(upper),
                                 se_lower=float(se_lower), se_upper=float(se_upper), conf_level=float(conf_level),
                                 ci=ci, rho=None if rho is None else float(rho), c_lower=float(c_lower),
                                 c_upper=float(c_upper))


def _kink_boundaries(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Where Q jumps between atoms of a discrete outcome: cumulative weights at the atoms' ends.

    Only for discrete outcomes (values seen at least twice hold >= 99% of the weight): the end of an
    atom followed by a continuous part (earnings with a mass at zero) is no jump of Q.
    """
    mass, discrete = _atoms(y, w)
    return np.cumsum(mass)[:-1] if discrete else np.empty(0)


def _atoms(y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, bool]:
    """Masses of the distinct values, and whether values seen at least twice hold >= 99% of them."""
    u, inv, cnt = np.unique(y, return_inverse=True, return_counts=True)
    mass = np.bincount(inv, weights=w, minlength=u.size)
    mass = mass / mass.sum()
    return mass, bool(mass[cnt >= 2].sum() >= 0.99)


def _is_discrete(design: _Design) -> bool:
    w = _cell_weights(design, np.ones((1, design.y.size)))[0]
    return all(_atoms(design.y[sl], w[sl])[1] for sl in design.cells.values())


def _kink(design: _Design, fx: _F) -> str | None:
    """Why the functional may be non-differentiable at the data's marginals (None: smooth).

    A jump of Q1 (an atom boundary) meets a jump of Q0 or of Q0(1 - .) within 2 s.e. (discrete
    outcomes with p1 = p0). Atoms shared by the arms are no kink by themselves: there Q1 = Q0 exactly
    in every resample.
    """
    w = _cell_weights(design, np.ones((1, design.y.size)))[0]
    n1 = int(design.arm.sum())
    n0 = design.y.size - n1
    i1, i0 = design.pooled[True], design.pooled[False]
    y1, y0, w1, w0 = design.y[i1], design.y[i0], w[i1], w[i0]
    b1 = _kink_boundaries(y1, w1)
    b0 = _kink_boundaries(y0, w0)
    if b1.size and b0.size:
        for other in (b0, 1 - b0):
            d = np.abs(b1[:, None] - other[None, :])
            pbar = np.clip((b1[:, None] + other[None, :]) / 2, 1e-9, 1 - 1e-9)
            se = np.sqrt(pbar * (1 - pbar) * (1 / n1 + 1 / n0))
            if (d <= 2 * se).any():
                return ("a jump of Q1 meets a jump of Q0 (discrete outcomes with equal cumulative "
                        "probabilities)")
    return None
