"""Evaluation of cubic B-spline fits at many points (R's bvalue, de Boor's algorithm)."""
import numpy as np
from numba.extending import register_jitable  # this module is imported on first use only

from .._jit import lazy_njit


@register_jitable
def bvalue_one(t, coef, nk, x):
    """sum_j coef[j] B_j(x) at one scaled x in [0, 1]: R's bvalue for deriv = 0 (de Boor's
    "A Practical Guide to Splines", BVALUE), the same arithmetic in the same order, so predictions
    agree with R to the last bit. Compiled into its callers (here and ``smspline``)."""
    n_t = nk + 4
    if x == t[nk] and t[nk] == t[nk + 3]:
        i = nk  # right end: the last interval, from the left
    else:
        lo = 0
        hi = n_t - 1
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if x >= t[mid]:
                lo = mid
            else:
                hi = mid
        i = lo + 1
    dm1 = x - t[i - 1]
    dm2 = x - t[i - 2]
    dm3 = x - t[i - 3]
    dp1 = t[i] - x
    dp2 = t[i + 1] - x
    dp3 = t[i + 2] - x
    a0 = coef[i - 4]
    a1 = coef[i - 3]
    a2 = coef[i - 2]
    a3 = coef[i - 1]
    a0 = (a1 * dm3 + a0 * dp1) / (dm3 + dp1)
    a1 = (a2 * dm2 + a1 * dp2) / (dm2 + dp2)
    a2 = (a3 * dm1 + a2 * dp3) / (dm1 + dp3)
    a0 = (a1 * dm2 + a0 * dp1) / (dm2 + dp1)
    a1 = (a2 * dm1 + a1 * dp2) / (dm1 + dp2)
    a0 = (a1 * dm1 + a0 * dp1) / (dm1 + dp1)
    return a0


@lazy_njit
def bvalue_many(t, coef, nk, xs, out):
    """out[q] = sum_j coef[j] B_j(xs[q]) for scaled xs in [0, 1] (knots t, nk coefficients), by
    :func:`bvalue_one`."""
    for q in range(xs.shape[0]):
        out[q] = bvalue_one(t, coef, nk, xs[q])
