"""Cubic smoothing spline matching R's ``stats::smooth.spline(x, y, w, df = df)`` (R 4.2.2).

This is an independent Python implementation of the algorithm R uses (``smooth.spline`` in
``stats/R/smspline.R`` calling the compiled ``rbart``/``sbart`` routines), written so that the
floating-point operations happen in the same order as R's compiled code.  That matters: for
``df =`` R searches the smoothing parameter ``spar`` with a Brent-type golden-section/parabolic
minimiser of ``3 + (df - tr(S(spar)))^2``, and near the optimum the criterion differences are at
the level of the last bits of ``3.0``.  Reproducing R's iteration sequence (and therefore R's final
``spar`` and fitted values to ~1e-15) requires bit-compatible criterion values, so the numerical
kernels below are plain scalar Python loops over IEEE doubles, not vectorised numpy code.

Model (R's conventions):

* ``x`` is reduced to its unique sorted values (ties within ``1e-6 * IQR(x)`` are merged with
  weight-summed, weighted-mean responses) and scaled to ``[0, 1]``;
* the cubic B-spline basis has the (scaled) unique x values as knots -- or, for more than 49
  unique values, ``.nknots.smspl(n)`` of them -- with triple end knots;
* the fit minimises ``sum w_i (y_i - f(x_i))^2 + lambda * int f''(t)^2 dt`` with
  ``lambda = r * 256^(3 * spar - 1)``, ``r = tr(X'WX) / tr(Sigma)`` (both traces over the band
  diagonal elements ``3 .. nk-3``);
* ``Sigma`` is computed like R's ``sgram``: B'' is linear on each knot interval and the
  quadratic term of the product integral uses R's constant ``0.3330`` (not 1/3).

Only the ``df =`` mode is implemented (no ``spar``/``lambda``/CV/GCV selection modes), since that
is what Bioconductor's ``qvalue`` uses: ``predict(smooth.spline(lambda, pi0, df = 3), x = lambda)``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["SmoothSplineFit", "smooth_spline", "nknots_smspl"]

# R's control.spar defaults
_SPAR_LOW = -1.5
_SPAR_HIGH = 1.5
_SPAR_TOL = 1e-4
_SPAR_EPS = 2e-8
_SPAR_MAXIT = 500

# (3 - sqrt(5)) / 2, the squared inverse golden ratio, as a double
_C_GOLD = 0.381966011250105151795413165634
_BIG = 1e100


# ---------------------------------------------------------------------------------------------
# small scalar helpers with R / C semantics
# ---------------------------------------------------------------------------------------------

def _r_pow(x: float, y: float) -> float:
    """R's ``R_pow(x, y)`` for finite arguments (``x^y`` in R)."""
    if x == 1.0 or y == 0.0:
        return 1.0
    if x == 0.0:
        return 0.0 if y > 0.0 else math.inf
    if y == 2.0:
        return x * x
    return math.pow(x, y)


def _copysign_abs(a: float, b: float) -> float:
    """Fortran/R ``fsign(a, b)``: ``|a|`` with the sign of ``b`` (``b >= 0`` -> positive)."""
    return abs(a) if b >= 0.0 else -abs(a)


def _find_interval(t, n: int, x: float):
    """Locate ``x`` among the first ``n`` knots ``t[0..n-1]`` (R's ``interv``, 1-based result).

    Returns ``(i, flag)``: ``flag == 0`` and ``t[i-1] <= x < t[i]`` (1-based ``i``) when
    ``t[0] <= x < t[n-1]``; ``(0, -1)`` below the range; ``(n, 1)`` when ``x >= t[n-1]``.
    """
    if x < t[0]:
        return 0, -1
    if x >= t[n - 1]:
        return n, 1
    lo, hi = 0, n - 1            # invariant: t[lo] <= x < t[hi]  (0-based)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if x >= t[mid]:
            lo = mid
        else:
            hi = mid
    return lo + 1, 0


def _bspline_values(t, left: int, x: float, order: int = 4):
    """Values at ``x`` of the ``order`` B-splines nonzero on knot interval ``left`` (1-based).

    Cox--de Boor recurrence organised as in de Boor's BSPLVB; returns a list of ``order`` floats,
    the k-th belonging to B-spline number ``left - order + k`` (1-based).
    """
    vals = [1.0]
    d_right = []
    d_left = []
    for j in range(1, order):
        d_right.append(t[left + j - 1] - x)        # t(left + j) - x
        d_left.append(x - t[left - j])             # x - t(left + 1 - j)
        carry = 0.0
        new = []
        for i in range(j):
            term = vals[i] / (d_right[i] + d_left[j - 1 - i])
            new.append(carry + d_right[i] * term)
            carry = d_left[j - 1 - i] * term
        new.append(carry)
        vals = new
    return vals


def _bspline_second_derivs(t, left: int, x: float):
    """Second derivatives at ``x`` of the 4 cubic B-splines nonzero on interval ``left``.

    Follows de Boor's BSPLVD: B-spline values of order 2 are differenced twice.
    """
    k = 4
    # values of the order-2 B-splines (the ones relevant for the 2nd derivative of cubics)
    b2 = _bspline_values(t, left, x, order=2)
    # B-coefficients of the second derivatives of the 4 cubic B-splines, obtained by
    # differencing the identity matrix twice (a[i][j]: coefficient i of spline j).
    a = [[1.0 if i == j else 0.0 for j in range(k)] for i in range(k)]
    for m in (2, 3):
        kp1mm = k + 1 - m
        fk = float(kp1mm)
        il = left
        i = k
        for _ in range(kp1mm):
            factor = fk / (t[il + kp1mm - 1] - t[il - 1])
            for j in range(i):
                a[i - 1][j] = (a[i - 1][j] - a[i - 2][j]) * factor
            il -= 1
            i -= 1
    # combine with the order-2 values, which belong to rows 3..4 (1-based) of the array
    col = [0.0, 0.0, b2[0], b2[1]]
    out = []
    for i in range(k):
        s = 0.0
        for j in range(max(i, 2), k):
            s = a[j][i] * col[j] + s
        out.append(s)
    return out


def _spline_value(t, coef, nk: int, x: float, deriv: int = 0) -> float:
    """Value (``deriv`` = 0) or first/second derivative of the order-4 spline (de Boor BVALUE).

    Only for ``t[3] <= x <= t[nk]`` (i.e. within the data range), which is all R uses it for.
    """
    k = 4
    if deriv >= k:
        return 0.0
    if x != t[nk] or t[nk] != t[nk + k - 1]:
        i, flag = _find_interval(t, nk + k, x)
        if flag != 0:
            raise ValueError("point outside the spline's support")
    else:
        i = nk
    # i is 1-based; within the range we always have k <= i <= nk
    dm = [x - t[i - j] for j in range(1, k)]         # x - t(i+1-j)
    dp = [t[i + j - 1] - x for j in range(1, k)]     # t(i+j) - x
    aj = [coef[i - k + jc - 1] for jc in range(1, k + 1)]
    for j in range(1, deriv + 1):
        kmj = k - j
        fk = float(kmj)
        ilo = kmj
        for jj in range(kmj):
            aj[jj] = ((aj[jj + 1] - aj[jj]) / (dm[ilo - 1] + dp[jj])) * fk
            ilo -= 1
    for j in range(deriv + 1, k):
        kmj = k - j
        ilo = kmj
        for jj in range(kmj):
            aj[jj] = (aj[jj + 1] * dm[ilo - 1] + aj[jj] * dp[jj]) / (dm[ilo - 1] + dp[jj])
            ilo -= 1
    return aj[0]


# ---------------------------------------------------------------------------------------------
# the banded normal equations
# ---------------------------------------------------------------------------------------------

def _penalty_gram(t, nk: int):
    """Band diagonals (0..3) of Sigma[i, j] = int B_i''(u) B_j''(u) du, the way R's sgram does it."""
    sg = [[0.0] * nk for _ in range(4)]
    for i in range(1, nk + 1):
        left, _ = _find_interval(t, nk + 1, t[i - 1])
        lo = _bspline_second_derivs(t, left, t[i - 1])
        hi = _bspline_second_derivs(t, left, t[i])
        slope = [hi[r] - lo[r] for r in range(4)]
        width = t[i] - t[i - 1]
        if left < 4:   # cannot happen for knot vectors with 4-fold boundary knots
            raise ValueError("unexpected knot configuration")
        base = left - 4
        for r in range(4):
            for d in range(4 - r):
                c = r + d
                sg[d][base + r] = sg[d][base + r] + width * (
                    lo[r] * lo[c] + (slope[r] * lo[c] + slope[c] * lo[r]) * 0.5
                    + slope[r] * slope[c] * 0.3330)
    return sg


def _weighted_design(xs, ys, ws, t, nk: int):
    """X'W y and the band diagonals of X'W X for the cubic B-spline design (R's stxwx).

    ``ws`` are square roots of the weights, squared again here exactly as R does.
    """
    xwy = [0.0] * nk
    hs = [[0.0] * nk for _ in range(4)]
    for xi, zi, wi in zip(xs, ys, ws):
        left, flag = _find_interval(t, nk + 1, xi)
        if flag == 1:
            if xi <= t[left - 1] + 1e-10:
                left -= 1
            else:
                break
        b = _bspline_values(t, left, xi)
        w2 = wi * wi
        j0 = left - 4
        for r in range(4):
            j = j0 + r
            xwy[j] = xwy[j] + w2 * zi * b[r]
            hs[0][j] = hs[0][j] + w2 * (b[r] * b[r])
            for d in range(1, 4 - r):
                hs[d][j] = hs[d][j] + w2 * b[r] * b[r + d]
    return xwy, hs


def _band_cholesky(diag_bands, nk: int):
    """Upper banded Cholesky (LINPACK dpbfa, bandwidth 3) of the matrix given by its band
    diagonals ``diag_bands[d][i] = A[i, i+d]``.  Returns ``R`` as ``R[d][j] = R[j-d, j]``
    (row ``d`` = d-th superdiagonal, stored at the column index) or ``None`` if not PD.
    """
    m = 3
    R = [[0.0] * nk for _ in range(4)]
    for d in range(4):
        band = diag_bands[d]
        for i in range(nk - d):
            R[d][i + d] = band[i]
    for j in range(nk):
        s = 0.0
        first = max(j - m, 0)                # first row with a nonzero in column j
        for row in range(first, j):
            # t = A[row, j] - sum_{l} R[l, row] R[l, j] over rows l in [max(j-m,0), row)
            acc = 0.0
            for l in range(first, row):
                acc = acc + R[row - l][row] * R[j - l][j]
            tt = R[j - row][j] - acc
            tt = tt / R[0][row]
            R[j - row][j] = tt
            s = s + tt * tt
        s = R[0][j] - s
        if s <= 0.0:
            return None
        R[0][j] = math.sqrt(s)
    return R


def _band_solve(R, nk: int, rhs):
    """Solve R'R x = rhs given the banded Cholesky factor (LINPACK dpbsl order of operations)."""
    m = 3
    b = list(rhs)
    for k in range(nk):
        lm = min(k, m)
        acc = 0.0
        for q in range(lm):
            row = k - lm + q
            acc = acc + R[k - row][k] * b[row]
        b[k] = (b[k] - acc) / R[0][k]
    for k in range(nk - 1, -1, -1):
        lm = min(k, m)
        b[k] = b[k] / R[0][k]
        tk = -b[k]
        for q in range(lm):
            row = k - lm + q
            b[row] = b[row] + tk * R[k - row][k]
    return b


def _inverse_band(R, nk: int):
    """Band part (diagonals 0..3) of (R'R)^{-1} from the banded factor (R's sinerp, pass 1).

    Returns ``P`` with ``P[d][j] = [(R'R)^{-1}]_{j, j+d}``.
    """
    P = [[0.0] * nk for _ in range(4)]
    # w3 = (S[j+1,j+1], S[j+1,j+2], S[j+1,j+3]), w2 = (S[j+2,j+2], S[j+2,j+3]), w1 = S[j+3,j+3]
    w3a = w3b = w3c = 0.0
    w2a = w2b = 0.0
    w1a = 0.0
    for j in range(nk - 1, -1, -1):
        c0 = 1.0 / R[0][j]
        c1 = R[3][j + 3] * c0 if j + 3 < nk else 0.0
        c2 = R[2][j + 2] * c0 if j + 2 < nk else 0.0
        c3 = R[1][j + 1] * c0 if j + 1 < nk else 0.0
        p3 = 0.0 - (c1 * w3a + c2 * w3b + c3 * w3c)     # S[j, j+3]
        p2 = 0.0 - (c1 * w3b + c2 * w2a + c3 * w2b)     # S[j, j+2]
        p1 = 0.0 - (c1 * w3c + c2 * w2b + c3 * w1a)     # S[j, j+1]
        p0 = (c0 * c0 + c1 * c1 * w3a + 2.0 * c1 * c2 * w3b + 2.0 * c1 * c3 * w3c
              + c2 * c2 * w2a + 2.0 * c2 * c3 * w2b + c3 * c3 * w1a)
        P[0][j] = p0
        P[1][j] = p1
        P[2][j] = p2
        P[3][j] = p3
        w3a, w3b, w3c = w2a, w2b, p2
        w2a, w2b = w1a, p1
        w1a = p0
    return P


class _Problem:
    """The fixed parts of one smoothing-spline problem (knots, design, penalty, trace ratio).

    ``compiled=True`` (the default) runs the numba kernels of ``statcore._r._smspline_kernels``;
    ``compiled=False`` the scalar Python reference below, which they match bit for bit (tested).
    """

    def __init__(self, xs, ys, ws, knots, nk, compiled: bool = True):
        self.xs = xs
        self.ys = ys
        self.ws = ws
        self.t = knots
        self.nk = nk
        self.compiled = compiled
        self._t_arr = np.asarray(knots, dtype=np.float64)
        self._xs_arr = np.asarray(xs, dtype=np.float64)
        if compiled:
            from . import _smspline_kernels as K

            self._ys_arr = np.asarray(ys, dtype=np.float64)
            self._ws_arr = np.asarray(ws, dtype=np.float64)
            sg = np.zeros((4, nk))
            if not K.penalty_gram(self._t_arr, nk, sg):
                raise ValueError("unexpected knot configuration")
            xwy = np.zeros(nk)
            hs = np.zeros((4, nk))
            K.weighted_design(self._xs_arr, self._ys_arr, self._ws_arr, self._t_arr, nk, xwy, hs)
            self.sigma, self.xwy, self.hs = sg, xwy, hs
            self._lev_first = np.empty(len(xs), dtype=np.int64)
            self._lev_b = np.empty((len(xs), 4))
            K.leverage_basis(self._xs_arr, self._t_arr, nk, self._lev_first, self._lev_b)
        else:
            self.sigma = _penalty_gram(knots, nk)
            self.xwy, self.hs = _weighted_design(xs, ys, ws, knots, nk)
        t1 = 0.0
        t2 = 0.0
        for i in range(2, nk - 3):
            t1 += float(self.hs[0][i])
            t2 += float(self.sigma[0][i])
        self.ratio = t1 / t2
        if compiled:
            return
        # basis values used for the leverages (R evaluates them at the end points moved
        # inside by 1e-11)
        self._lev_basis = []
        for xi in xs:
            left, flag = _find_interval(knots, nk + 1, xi)
            xv = xi
            if flag == -1:
                left, xv = 4, knots[3] + 1e-11
            elif flag == 1:
                left, xv = nk, knots[nk] - 1e-11
            self._lev_basis.append((left - 4, _bspline_values(knots, left, xv)))

    def lambda_of(self, spar: float) -> float:
        return self.ratio * _r_pow(16.0, spar * 6.0 - 2.0)

    def solve(self, lam: float):
        """Fit for penalty ``lam``: returns (coef, fitted, leverages) or None if not PD."""
        if self.compiled:
            from ._smspline_kernels import solve_penalised

            n = len(self.xs)
            coef, fitted, lev = np.empty(self.nk), np.empty(n), np.empty(n)
            ok = solve_penalised(self.hs, self.sigma, lam, self.xwy, self._t_arr, self.nk, self._xs_arr,
                                 self._ws_arr, self._lev_first, self._lev_b, coef, fitted, lev)
            return (coef, fitted, lev) if ok else None
        return self._solve_reference(lam)

    def _solve_reference(self, lam: float):
        nk = self.nk
        hs, sg = self.hs, self.sigma
        bands = [[hs[d][i] + lam * sg[d][i] for i in range(nk - d)] for d in range(4)]
        R = _band_cholesky(bands, nk)
        if R is None:
            return None
        coef = _band_solve(R, nk, self.xwy)
        # the compiled bvalue (same arithmetic as _spline_value, asserted equal in the tests)
        from ._spline_kernels import bvalue_many

        fitted_arr = np.empty(len(self.xs))
        bvalue_many(self._t_arr, np.asarray(coef, dtype=np.float64), nk, self._xs_arr, fitted_arr)
        fitted = fitted_arr.tolist()
        P = _inverse_band(R, nk)
        lev = []
        for (j, b), wi in zip(self._lev_basis, self.ws):
            b0, b1, b2, b3 = b
            v = (P[0][j] * (b0 * b0) + 2.0 * P[1][j] * b0 * b1
                 + 2.0 * P[2][j] * b0 * b2 + 2.0 * P[3][j] * b0 * b3
                 + P[0][j + 1] * (b1 * b1) + 2.0 * P[1][j + 1] * b1 * b2
                 + 2.0 * P[2][j + 1] * b1 * b3 + P[0][j + 2] * (b2 * b2)
                 + 2.0 * P[1][j + 2] * b2 * b3 + P[0][j + 3] * (b3 * b3)) * (wi * wi)
            lev.append(v)
        return coef, fitted, lev


def _df_criterion(lev, df_target: float) -> float:
    if isinstance(lev, np.ndarray):
        from ._smspline_kernels import sequential_sum

        s = sequential_sum(lev)
    else:
        s = 0.0
        for v in lev:
            s = s + v
    return 3.0 + (df_target - s) * (df_target - s)


def _gcv_criterion(prob: "_Problem", fitted, lev, ssw: float) -> float:
    """R's sslvrg, icrit = 1: (RSS / sum w) / (1 - df / sum w)^2 (df.offset 0, penalty 1)."""
    if prob.compiled:
        from ._smspline_kernels import gcv_criterion

        return gcv_criterion(prob._ys_arr, fitted, prob._ws_arr, lev, ssw)
    rss = ssw
    df = 0.0
    sumw = 0.0
    for yi, si, wi, li in zip(prob.ys, fitted, prob.ws, lev):
        r = (yi - si) * wi
        rss += r * r
        df += li
        sumw += wi * wi
    f = 1.0 - df / sumw
    return (rss / sumw) / (f * f)


def _search_spar(prob: _Problem, df_target: float | None, ssw: float = 0.0):
    """Brent's fmin over spar in [low, high] on 3 + (df - tr S)^2, step for step as R's sbart.

    Returns (spar, crit, state) where ``state`` is the fit of the *last* evaluation (what R
    returns as coef/fitted/leverages/lambda), plus the iteration count.
    """
    last = {}

    def evaluate(sp):
        lam = prob.lambda_of(sp)
        res = prob.solve(lam)
        last["lambda"] = lam
        if res is None:
            last["ier"] = True
            return last.get("crit", math.nan)
        last["coef"], last["fitted"], last["lev"] = res
        if df_target is None:
            last["crit"] = _gcv_criterion(prob, res[1], res[2], ssw)
        else:
            last["crit"] = _df_criterion(res[2], df_target)
        return last["crit"]

    last["ier"] = False
    a, b = _SPAR_LOW, _SPAR_HIGH
    v = a + _C_GOLD * (b - a)
    w = x = v
    d = 0.0
    e = 0.0
    fx = evaluate(x)
    fv = fw = fx
    it = 0
    while not last["ier"]:
        xm = (a + b) * 0.5
        tol1 = _SPAR_EPS * abs(x) + _SPAR_TOL / 3.0
        tol2 = tol1 * 2.0
        it += 1
        if abs(x - xm) <= tol2 - (b - a) * 0.5 or it > _SPAR_MAXIT:
            break
        golden = True
        if not (abs(e) <= tol1 or fx >= _BIG or fv >= _BIG or fw >= _BIG):
            r = (x - w) * (fx - fv)
            q = (x - v) * (fx - fw)
            p = (x - v) * q - (x - w) * r
            q = (q - r) * 2.0
            if q > 0.0:
                p = -p
            q = abs(q)
            r = e
            e = d
            if not (abs(p) >= abs(0.5 * q * r) or q == 0.0
                    or p <= q * (a - x) or p >= q * (b - x)):
                golden = False
                d = p / q
                u = x + d
                if u - a < tol2 or b - u < tol2:
                    d = _copysign_abs(tol1, xm - x)
        if golden:
            e = (a - x) if x >= xm else (b - x)
            d = _C_GOLD * e
        u = x + (d if abs(d) >= tol1 else _copysign_abs(tol1, d))
        fu = evaluate(u)
        if not math.isfinite(fu):
            fu = 2.0 * _BIG
        if fu <= fx:
            if u >= x:
                a = x
            else:
                b = x
            v, fv = w, fw
            w, fw = x, fx
            x, fx = u, fu
        else:
            if u < x:
                a = u
            else:
                b = u
            if fu <= fw or w == x:
                v, fv = w, fw
                w, fw = u, fu
            elif fu <= fv or v == x or v == w:
                v, fv = u, fu
    return x, fx, last, it


# ---------------------------------------------------------------------------------------------
# R-level preprocessing
# ---------------------------------------------------------------------------------------------

def nknots_smspl(n: int) -> int:
    """R's ``.nknots.smspl(n)``: number of inner knots used for ``n`` unique x values."""
    n = int(n)
    if n < 50:
        return n
    a1 = math.log2(50.0)
    a2 = math.log2(100.0)
    a3 = math.log2(140.0)
    a4 = math.log2(200.0)
    if n < 200:
        val = _r_pow(2.0, a1 + (a2 - a1) * (n - 50) / 150)
    elif n < 800:
        val = _r_pow(2.0, a2 + (a3 - a2) * (n - 200) / 600)
    elif n < 3200:
        val = _r_pow(2.0, a3 + (a4 - a3) * (n - 800) / 2400)
    else:
        val = 200 + _r_pow(float(n - 3200), 0.2)
    return int(math.trunc(val))


def _seq_length_out(frm: float, to: float, length_out: int) -> np.ndarray:
    """R's ``seq.int(from, to, length.out = n)`` for n >= 1 (doubles)."""
    n = int(length_out)
    out = np.empty(n)
    if n > 0:
        out[0] = frm
    if n > 1:
        out[n - 1] = to
    if n > 2:
        by = (to - frm) / (n - 1)
        for i in range(1, n - 1):
            out[i] = frm + float(i) * by
    return out


def _r_mean(v: np.ndarray) -> float:
    """R's mean(): long-double sum / n with one refinement pass."""
    from .density import _seq_sum_ld

    ld = np.longdouble
    v = np.asarray(v, dtype=np.float64)
    n = len(v)
    s = _seq_sum_ld(v) if n else ld(0)
    s /= ld(n)
    if np.isfinite(s):
        t = _seq_sum_ld(v, shift=s) if n else ld(0)
        s += t / ld(n)
    return float(s)


def _r_sum(v) -> float:
    """R's sum() of doubles (long-double accumulator, left to right)."""
    from .density import _seq_sum_ld

    v = np.asarray(v, dtype=np.float64).ravel()
    return float(_seq_sum_ld(v)) if v.size else 0.0


def _r_quantile7(sorted_v: np.ndarray, p: float) -> float:
    """R's quantile(x, p, type = 7) of already sorted data."""
    n = len(sorted_v)
    index = 1.0 + max(n - 1, 0) * p
    lo = math.floor(index)
    hi = math.ceil(index)
    qs = float(sorted_v[lo - 1])
    xhi = float(sorted_v[hi - 1])
    if index > lo and xhi != qs:
        h = index - lo
        qs = (1.0 - h) * qs + h * xhi
    return qs


# ---------------------------------------------------------------------------------------------
# public API
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class SmoothSplineFit:
    """A fitted cubic smoothing spline, mirroring the parts of R's ``smooth.spline`` object.

    Attributes
    ----------
    x : unique sorted x values (R ``fit$x``).
    fitted : fitted values at ``x`` (R ``fit$y``).
    w : weights of the unique x values (R ``fit$w``).
    yin : (weighted mean) responses at the unique x values (R ``fit$yin``).
    df : trace of the smoother matrix, ``sum(lev)`` (R ``fit$df``).
    lev : leverages (R ``fit$lev``).
    lambda_ : penalty ``lambda`` (R ``fit$lambda``).
    spar : smoothing parameter found by the search (R ``fit$spar``).
    ratio : ``tr(X'WX) / tr(Sigma)`` (R ``fit$ratio``).
    crit : final criterion ``3 + (df_target - df)^2`` (R ``fit$crit``).
    iterations : number of search iterations (R ``fit$iparms[["iter"]]``).
    coef : B-spline coefficients (R ``fit$fit$coef``).
    knots : full knot vector on the scaled [0, 1] axis (R ``fit$fit$knot``).
    xmin, xrange : the affine scaling ``(x - xmin) / xrange`` (R ``fit$fit$min``, ``$range``).
    """

    x: np.ndarray
    fitted: np.ndarray
    w: np.ndarray
    yin: np.ndarray
    df: float
    lev: np.ndarray
    lambda_: float
    spar: float
    ratio: float
    crit: float
    iterations: int
    coef: np.ndarray
    knots: np.ndarray
    xmin: float
    xrange: float

    @property
    def nk(self) -> int:
        return len(self.coef)

    def predict(self, xnew) -> np.ndarray:
        """Evaluate the spline at ``xnew`` like R's ``predict(fit, x = xnew)$y``.

        Inside the data range the cubic spline is evaluated; outside, R's linear extrapolation
        from the end value with the end slope is used.
        """
        xq = np.atleast_1d(np.asarray(xnew, dtype=float))
        from ._spline_kernels import bvalue_many

        s = xq - self.xmin
        s /= self.xrange
        s = s.ravel()
        out = np.empty_like(s)
        knots = np.ascontiguousarray(self.knots, dtype=np.float64)
        coef = np.ascontiguousarray(self.coef, dtype=np.float64)
        if s.size and s.min() >= 0.0 and s.max() <= 1.0:  # the usual case: no masks, no copies
            bvalue_many(knots, coef, self.nk, s, out)
            return out.reshape(np.shape(xnew))
        inside = (s >= 0.0) & (s <= 1.0)
        if inside.any():
            vals = np.empty(int(inside.sum()))
            bvalue_many(knots, coef, self.nk, np.ascontiguousarray(s[inside]), vals)
            out[inside] = vals
        outside = ~inside & ~np.isnan(s)
        if outside.any():
            knots = list(self.knots)
            coef = list(self.coef)
            nk = self.nk
            e0 = (self.xmin - self.xmin) / self.xrange
            e1 = (self.xmin + self.xrange - self.xmin) / self.xrange
            val = [_spline_value(knots, coef, nk, e, 0) for e in (e0, e1)]
            slope = [(_spline_value(knots, coef, nk, e, 1) / self.xrange) * self.xrange
                     for e in (e0, e1)]
            lo = outside & (s < 0.0)
            hi = outside & (s > 1.0)
            out[lo] = val[0] + slope[0] * (s[lo] - 0.0)
            out[hi] = val[1] + slope[1] * (s[hi] - 1.0)
        out[np.isnan(s)] = np.nan
        out = out.reshape(xq.shape)
        if np.ndim(xnew) == 0:
            return out.reshape(())
        return out.reshape(np.shape(xnew))

    __call__ = predict


def smooth_spline(x, y, df: float | None = 3.0, w=None, *, _compiled: bool = True) -> SmoothSplineFit:
    """Cubic smoothing spline with ``df`` equivalent degrees of freedom, as R's
    ``smooth.spline(x, y, w = w, df = df)`` (default knots, default ``control.spar``);
    ``df=None`` chooses spar by generalised cross-validation, R's default ``smooth.spline(x, y)``.

    Parameters
    ----------
    x, y : array_like
        Data; at least four unique x values are required.
    df : float
        Target trace of the smoother matrix, ``1 < df <= number of unique x``.
    w : array_like, optional
        Non-negative case weights (normalised as R does to sum to the number of positive ones).
    """
    x = np.asarray(x, dtype=float).ravel()
    y = np.asarray(y, dtype=float).ravel()
    n = len(x)
    if len(y) != n:
        raise ValueError("'x' and 'y' lengths differ")
    if n == 0 or not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("missing or infinite values in inputs are not allowed")
    no_wgts = w is None
    if no_wgts:
        wv = np.ones(n)
    else:
        wv = np.asarray(w, dtype=float).ravel()
        if len(wv) != n:
            raise ValueError("lengths of 'x' and 'w' must match")
        if np.any(wv < 0):
            raise ValueError("all weights should be non-negative")
        if np.all(wv == 0):
            raise ValueError("some weights should be positive")
        wv = (wv * float(np.sum(wv > 0))) / _r_sum(wv)

    # unique x values up to tol = 1e-6 * IQR(x)
    order = np.argsort(x, kind="stable")
    xsorted = x[order]
    tol = 1e-6 * (_r_quantile7(xsorted, 0.75) - _r_quantile7(xsorted, 0.25))
    if not (math.isfinite(tol) and tol > 0):
        raise ValueError("'tol' must be strictly positive and finite")
    xx = np.round((x - _r_mean(x)) / tol)
    xxs = xx[order]
    new_group = np.concatenate(([True], xxs[:-1] < xxs[1:]))
    ux = xsorted[new_group]
    nx = len(ux)
    if nx <= 3:
        raise ValueError("need at least four unique 'x' values")
    if nx == n:
        wbar = wv[order]
        ybar = (wv * y)[order] / np.where(wbar > 0, wbar, 1.0)
    else:
        group_of_sorted = np.cumsum(new_group) - 1
        wbar = np.empty(nx)
        ysum = np.empty(nx)
        for g in range(nx):
            idx = np.sort(order[group_of_sorted == g])   # R: split() keeps original order
            wbar[g] = _r_sum(wv[idx]) if not no_wgts else float(len(idx))
            ysum[g] = _r_sum(wv[idx] * y[idx]) if not no_wgts else _r_sum(y[idx])
        ybar = ysum / np.where(wbar > 0, wbar, 1.0)

    # R: yssw <- sum(w * y^2 - wbar * ybar^2) over the unique-x groups, added to the GCV RSS
    if nx == n:
        yssw = _r_sum(wv[order] * y[order] ** 2 - wbar * ybar ** 2)
    else:
        yssw = _r_sum(np.bincount(group_of_sorted, weights=(wv * y * y)[order], minlength=nx)
                      - wbar * ybar ** 2)
    if df is not None:
        df = float(df)
    if df is not None and not (df > 1 and df <= nx):
        raise ValueError(f"invalid df; must have 1 < df <= n := #{{unique x}} = {nx}")

    r_ux = ux[nx - 1] - ux[0]
    xbar = (ux - ux[0]) / r_ux
    nknots = nknots_smspl(nx)
    if nknots == nx:
        inner = xbar
    else:
        idx = _seq_length_out(1.0, float(nx), nknots).astype(np.int64)  # R truncates indices
        inner = xbar[idx - 1]
    knots = np.concatenate((np.repeat(xbar[0], 3), inner, np.repeat(xbar[nx - 1], 3)))
    nk = nknots + 2

    xs = [float(v) for v in xbar]
    ys = [float(v) for v in ybar]
    ws = [math.sqrt(v) if v > 0 else float(v) for v in wbar]
    prob = _Problem(xs, ys, ws, [float(v) for v in knots], nk, compiled=_compiled)
    spar, crit, last, iters = _search_spar(prob, df, yssw)

    if last["ier"]:
        if spar < 0.5:
            raise FloatingPointError("smoothing parameter value too small")
        # R: warning("smoothing parameter value too large ... setting df = 1")
        import warnings
        warnings.warn("smoothing parameter value too large\nsetting df = 1  __use with care!__",
                      RuntimeWarning, stacklevel=2)
        fitted = np.full(nx, _r_mean(y))
        lev = np.asarray(last.get("lev", [math.nan] * nx))
        df_out = 1.0
    else:
        fitted = np.asarray(last["fitted"])
        lev = np.asarray(last["lev"])
        df_out = _r_sum(lev)
    return SmoothSplineFit(
        x=ux.copy(), fitted=fitted, w=np.asarray(wbar, dtype=float), yin=np.asarray(ybar),
        df=df_out, lev=lev, lambda_=float(last["lambda"]), spar=float(spar),
        ratio=float(prob.ratio), crit=float(crit), iterations=int(iters),
        coef=np.asarray(last.get("coef", [math.nan] * nk)), knots=knots,
        xmin=float(ux[0]), xrange=float(r_ux),
    )
