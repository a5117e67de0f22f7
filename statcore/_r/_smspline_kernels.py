"""Compiled parts of the R-exact smoothing spline (statcore._r.smoothspline): the banded normal
equations, their Cholesky solve and the leverages.

Each kernel is a line-for-line transcription of the scalar Python reference in
``statcore._r.smoothspline`` (``_weighted_design``, ``_penalty_gram``, ``_band_cholesky``,
``_band_solve``, ``_inverse_band`` and the leverage sum of ``_Problem.solve``), with the
floating-point operations in the same order and no fastmath, so the results are bit-identical to
the reference (asserted in tests/statcore/_r/test_smoothspline.py) and therefore to R's Fortran.
Helpers are ``register_jitable`` (compiled into their callers); the entry points are
``lazy_njit``, so this module is imported only when a spline is fitted.
"""
from __future__ import annotations

import math

import numpy as np
from numba.extending import register_jitable

from .._jit import lazy_njit
from ._spline_kernels import bvalue_one


@register_jitable
def _find_interval(t, n, x):
    """R's ``interv`` on t[0..n-1]: (1-based left, flag), as ``smoothspline._find_interval``."""
    if x < t[0]:
        return 0, -1
    if x >= t[n - 1]:
        return n, 1
    lo = 0
    hi = n - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if x >= t[mid]:
            lo = mid
        else:
            hi = mid
    return lo + 1, 0


@register_jitable
def _bsplvb(t, left, x, order, vals):
    """de Boor's BSPLVB in place: vals[0..order-1], as ``smoothspline._bspline_values``."""
    d_right = np.empty(4)
    d_left = np.empty(4)
    vals[0] = 1.0
    for j in range(1, order):
        d_right[j - 1] = t[left + j - 1] - x
        d_left[j - 1] = x - t[left - j]
        carry = 0.0
        for i in range(j):
            term = vals[i] / (d_right[i] + d_left[j - 1 - i])
            vals[i] = carry + d_right[i] * term
            carry = d_left[j - 1 - i] * term
        vals[j] = carry


@register_jitable
def _second_derivs(t, left, x, out):
    """Second derivatives of the 4 cubic B-splines on interval ``left`` (BSPLVD), as
    ``smoothspline._bspline_second_derivs``."""
    k = 4
    b2 = np.empty(4)
    _bsplvb(t, left, x, 2, b2)
    a = np.zeros((4, 4))
    for i in range(4):
        a[i, i] = 1.0
    for m in range(2, 4):
        kp1mm = k + 1 - m
        fk = float(kp1mm)
        il = left
        i = k
        for _ in range(kp1mm):
            factor = fk / (t[il + kp1mm - 1] - t[il - 1])
            for j in range(i):
                a[i - 1, j] = (a[i - 1, j] - a[i - 2, j]) * factor
            il -= 1
            i -= 1
    col = np.empty(4)
    col[0] = 0.0
    col[1] = 0.0
    col[2] = b2[0]
    col[3] = b2[1]
    for i in range(k):
        s = 0.0
        for j in range(max(i, 2), k):
            s = a[j, i] * col[j] + s
        out[i] = s


@lazy_njit
def penalty_gram(t, nk, sg):
    """sg[d, i] = Sigma[i, i+d], d = 0..3 (R's sgram), zero-initialised by the caller."""
    lo = np.empty(4)
    hi = np.empty(4)
    slope = np.empty(4)
    for i in range(1, nk + 1):
        left, _ = _find_interval(t, nk + 1, t[i - 1])
        _second_derivs(t, left, t[i - 1], lo)
        _second_derivs(t, left, t[i], hi)
        for r in range(4):
            slope[r] = hi[r] - lo[r]
        width = t[i] - t[i - 1]
        if left < 4:
            return False
        base = left - 4
        for r in range(4):
            for d in range(4 - r):
                c = r + d
                sg[d, base + r] = sg[d, base + r] + width * (
                    lo[r] * lo[c] + (slope[r] * lo[c] + slope[c] * lo[r]) * 0.5
                    + slope[r] * slope[c] * 0.3330)
    return True


@lazy_njit
def weighted_design(xs, ys, ws, t, nk, xwy, hs):
    """X'W y and the band diagonals hs[d, j] of X'W X (R's stxwx), zero-initialised by the caller."""
    b = np.empty(4)
    for q in range(xs.shape[0]):
        xi = xs[q]
        zi = ys[q]
        wi = ws[q]
        left, flag = _find_interval(t, nk + 1, xi)
        if flag == 1:
            if xi <= t[left - 1] + 1e-10:
                left -= 1
            else:
                break
        _bsplvb(t, left, xi, 4, b)
        w2 = wi * wi
        j0 = left - 4
        for r in range(4):
            j = j0 + r
            xwy[j] = xwy[j] + w2 * zi * b[r]
            hs[0, j] = hs[0, j] + w2 * (b[r] * b[r])
            for d in range(1, 4 - r):
                hs[d, j] = hs[d, j] + w2 * b[r] * b[r + d]


@lazy_njit
def leverage_basis(xs, t, nk, first, basis):
    """Basis values used for the leverages: R evaluates them at the end points moved inside by 1e-11."""
    b = np.empty(4)
    for q in range(xs.shape[0]):
        xi = xs[q]
        left, flag = _find_interval(t, nk + 1, xi)
        xv = xi
        if flag == -1:
            left = 4
            xv = t[3] + 1e-11
        elif flag == 1:
            left = nk
            xv = t[nk] - 1e-11
        _bsplvb(t, left, xv, 4, b)
        first[q] = left - 4
        for r in range(4):
            basis[q, r] = b[r]


@lazy_njit
def solve_penalised(hs, sg, lam, xwy, t, nk, xs, ws, first, basis, coef, fitted, lev):
    """Coefficients, fitted values and leverages for penalty ``lam``; False if X'WX + lam Sigma is not PD.

    The banded Cholesky (LINPACK dpbfa, bandwidth 3; R[d, j] = R[j-d, j]), the solve (dpbsl), the
    band of the inverse (R's sinerp, pass 1; P[d, j] = inv[j, j+d]) and the leverages, each in the
    order of operations of the Python reference in ``statcore._r.smoothspline``.
    """
    m = 3
    R = np.zeros((4, nk))
    for d in range(4):
        for i in range(nk - d):
            R[d, i + d] = hs[d, i] + lam * sg[d, i]
    for j in range(nk):
        s = 0.0
        first_row = max(j - m, 0)
        for row in range(first_row, j):
            acc = 0.0
            for l in range(first_row, row):
                acc = acc + R[row - l, row] * R[j - l, j]
            tt = R[j - row, j] - acc
            tt = tt / R[0, row]
            R[j - row, j] = tt
            s = s + tt * tt
        s = R[0, j] - s
        if s <= 0.0:
            return False
        R[0, j] = math.sqrt(s)
    # solve R'R coef = xwy
    for k in range(nk):
        coef[k] = xwy[k]
    for k in range(nk):
        lm = min(k, m)
        acc = 0.0
        for q in range(lm):
            row = k - lm + q
            acc = acc + R[k - row, k] * coef[row]
        coef[k] = (coef[k] - acc) / R[0, k]
    for k in range(nk - 1, -1, -1):
        lm = min(k, m)
        coef[k] = coef[k] / R[0, k]
        tk = -coef[k]
        for q in range(lm):
            row = k - lm + q
            coef[row] = coef[row] + tk * R[k - row, k]
    for q in range(xs.shape[0]):
        fitted[q] = bvalue_one(t, coef, nk, xs[q])
    # band of the inverse
    P = np.zeros((4, nk))
    w3a = 0.0
    w3b = 0.0
    w3c = 0.0
    w2a = 0.0
    w2b = 0.0
    w1a = 0.0
    for j in range(nk - 1, -1, -1):
        c0 = 1.0 / R[0, j]
        c1 = R[3, j + 3] * c0 if j + 3 < nk else 0.0
        c2 = R[2, j + 2] * c0 if j + 2 < nk else 0.0
        c3 = R[1, j + 1] * c0 if j + 1 < nk else 0.0
        p3 = 0.0 - (c1 * w3a + c2 * w3b + c3 * w3c)
        p2 = 0.0 - (c1 * w3b + c2 * w2a + c3 * w2b)
        p1 = 0.0 - (c1 * w3c + c2 * w2b + c3 * w1a)
        p0 = (c0 * c0 + c1 * c1 * w3a + 2.0 * c1 * c2 * w3b + 2.0 * c1 * c3 * w3c
              + c2 * c2 * w2a + 2.0 * c2 * c3 * w2b + c3 * c3 * w1a)
        P[0, j] = p0
        P[1, j] = p1
        P[2, j] = p2
        P[3, j] = p3
        w3a, w3b, w3c = w2a, w2b, p2
        w2a, w2b = w1a, p1
        w1a = p0
    for q in range(xs.shape[0]):
        j = first[q]
        b0 = basis[q, 0]
        b1 = basis[q, 1]
        b2 = basis[q, 2]
        b3 = basis[q, 3]
        wi = ws[q]
        lev[q] = (P[0, j] * (b0 * b0) + 2.0 * P[1, j] * b0 * b1
                  + 2.0 * P[2, j] * b0 * b2 + 2.0 * P[3, j] * b0 * b3
                  + P[0, j + 1] * (b1 * b1) + 2.0 * P[1, j + 1] * b1 * b2
                  + 2.0 * P[2, j + 1] * b1 * b3 + P[0, j + 2] * (b2 * b2)
                  + 2.0 * P[1, j + 2] * b2 * b3 + P[0, j + 3] * (b3 * b3)) * (wi * wi)
    return True


@lazy_njit
def sequential_sum(v):
    """sum(v) left to right, as a Python loop (not numpy's pairwise sum)."""
    s = 0.0
    for q in range(v.shape[0]):
        s = s + v[q]
    return s


@lazy_njit
def gcv_criterion(ys, fitted, ws, lev, ssw):
    """R's sslvrg, icrit = 1: (RSS / sum w) / (1 - df / sum w)^2, as ``smoothspline._gcv_criterion``."""
    rss = ssw
    df = 0.0
    sumw = 0.0
    for q in range(ys.shape[0]):
        r = (ys[q] - fitted[q]) * ws[q]
        rss += r * r
        df += lev[q]
        sumw += ws[q] * ws[q]
    f = 1.0 - df / sumw
    return (rss / sumw) / (f * f)
