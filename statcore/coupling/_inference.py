"""Intervals for partially identified parameters and the kink check that chooses the bootstrap."""
from __future__ import annotations

import math

import numpy as np

from ._design import _cell_weights, _Design
from ._functions import _F

# ----------------------------------------------------------------------------------------------
# inference
# ----------------------------------------------------------------------------------------------

def _bvn_upper_lower(a: float, b: float, rho: float) -> float:
    """P(A <= a, B >= -b) for standard bivariate normal (A, B) with correlation rho."""
    from scipy.stats import multivariate_normal, norm

    if not np.isfinite(a) or not np.isfinite(b):
        if a == np.inf:
            return float(norm.cdf(b))
        if b == np.inf:
            return float(norm.cdf(a))
        return 0.0
    return float(multivariate_normal.cdf([a, b], mean=[0, 0], cov=[[1, -rho], [-rho, 1]]))


def imbens_manski_interval(lower: float, upper: float, se_lower: float, se_upper: float,
                           conf_level: float) -> tuple[float, float]:
    """Imbens & Manski (2004): [l - c se_l, u + c se_u], Phi(c + D / max(se)) - Phi(-c) = level."""
    from scipy.optimize import brentq
    from scipy.stats import norm

    delta = max(upper - lower, 0.0)
    s = max(se_lower, se_upper)
    if s <= 0:
        return lower, upper
    c = brentq(lambda c: norm.cdf(c + delta / s) - norm.cdf(-c) - conf_level, 0.0, 10.0)
    return lower - c * se_lower, upper + c * se_upper


def stoye_interval(lower: float, upper: float, se_lower: float, se_upper: float, rho: float,
                   conf_level: float, n: int) -> tuple[float, float]:
    """Stoye (2009): shortest [l - c_l se_l, u + c_u se_u] covering both ends with probability level.

    The bounds' estimation errors are taken as bivariate normal with the bootstrap correlation rho;
    the width D = u - l enters after the pre-test of Stoye (2009, Sec. 3.3): D is used when it
    exceeds max(se) * sqrt(log n) and set to 0 otherwise (superefficient D, no Imbens-Manski
    discontinuity when the bounds nearly meet).
    """
    from scipy.optimize import brentq, minimize_scalar
    from scipy.stats import norm

    if se_lower <= 0 or se_upper <= 0:
        return imbens_manski_interval(lower, upper, se_lower, se_upper, conf_level)
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
    return lower - cl * se_lower, upper + cu * se_upper


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
