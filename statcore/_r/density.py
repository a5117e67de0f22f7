"""Gaussian kernel density estimation matching R 4.2.2 ``stats::density.default``.

This is an independent numpy implementation that follows the numerical path
of R's ``density.default`` (with ``bw = "nrd0"``, ``kernel = "gaussian"``,
``weights = NULL``) step by step:

1. ``bw <- adjust * bw.nrd0(x)`` (or ``adjust * bw`` for a numeric ``bw``),
   ``from <- min(x) - cut*bw``, ``to <- max(x) + cut*bw``,
   ``lo <- from - 4*bw``, ``up <- to + 4*bw``.
2. The internal grid size is ``max(n, 512)`` rounded up to a power of two.
3. Linear binning of the data with weight ``1/N`` each onto ``n`` equally
   spaced points over ``[lo, up]`` (spacing ``(up - lo)/(n - 1)``), stored in
   a zero-padded vector of length ``2n`` (R's C routine ``BinDist``).  The
   accumulation order of the C loop is reproduced exactly.
4. The Gaussian kernel is evaluated (with R's ``dnorm`` algorithm) on
   ``seq.int(0, 2*(up - lo), length.out = 2n)`` mirrored to a circular grid.
   Note: in R 4.2.2 this kernel grid spacing, ``2(up-lo)/(2n-1)``, differs
   slightly from the binning spacing; this is reproduced on purpose.
5. Circular convolution by FFT, real part of the first ``n`` values divided
   by ``2n``, clipped below at 0.
6. Linear interpolation (R's ``approx``) from
   ``seq.int(lo, up, length.out = n)`` onto the output grid
   ``seq.int(from, to, length.out = n_user)``.

Only the FFT differs from R's implementation (numpy's pocketfft versus R's
Singleton mixed-radix FFT), which changes results at the 1e-16 level.
"""

from __future__ import annotations

import math

import numpy as np

from .._checks import as_float_array, check_choice, check_finite_real, check_positive_int

__all__ = ["bw_nrd0", "density"]

# Chunk size used for the order-preserving (sequential) reductions.
_CHUNK = 1 << 16
_SUM_CHUNK = 1 << 16

_M_1_SQRT_2PI = 0.398942280401432677939946059934  # 1/sqrt(2*pi)
_DBL_MANT_DIG = 53
_DBL_MIN_EXP = -1021
# Beyond this |x| R's dnorm returns exactly 0 (about 38.58601).
_DNORM_ZERO_BOUND = math.sqrt(-2.0 * math.log(2.0) * (_DBL_MIN_EXP + 1 - _DBL_MANT_DIG))
_DNORM_BIG = 2.0 * math.sqrt(np.finfo(np.float64).max)


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

def _as_finite_vector(x) -> np.ndarray:
    """``x`` as a contiguous 1-d float64 array of finite numbers (the checks live in ``_checks``)."""
    return np.ascontiguousarray(as_float_array(x, "x")).reshape(-1)


def _seq_len_out(start: float, stop: float, length: int) -> np.ndarray:
    """R 4.2.2 ``seq.int(start, stop, length.out = length)`` for doubles.

    Elements ``0..length-2`` are ``start + i*by`` with
    ``by = (stop - start)/(length - 1)``; the last element is ``stop``.
    """
    if length <= 0:
        return np.empty(0, dtype=np.float64)
    if length == 1:
        return np.array([start], dtype=np.float64)
    by = (stop - start) / float(length - 1)
    out = start + np.arange(length, dtype=np.float64) * by
    out[0] = start
    out[-1] = stop
    return out


def _seq_sum_ld(values: np.ndarray, shift=None, square=False) -> np.longdouble:
    """Sequential (left-to-right) sum accumulated in long double.

    Reproduces the C loop ``LDOUBLE s = 0; for (k) s += term(v[k]);`` where
    the term is ``v[k]`` (default), ``v[k] - shift`` evaluated in long double
    (``shift`` a long double), or, with ``square=True``, ``(v[k] - shift)^2``
    evaluated in double (``shift`` a double).  numpy's ``sum`` is pairwise,
    so ``cumsum`` (strictly sequential) is used chunk by chunk, with the
    running total placed in front of each chunk.
    """
    n = values.shape[0]
    buf = np.empty(min(n, _SUM_CHUNK) + 1, dtype=np.longdouble)
    total = np.longdouble(0.0)
    for start in range(0, n, _SUM_CHUNK):
        chunk = values[start:start + _SUM_CHUNK]
        m = chunk.shape[0]
        seg = buf[1:m + 1]
        if square:
            d = chunk - shift
            seg[...] = d * d
        else:
            seg[...] = chunk
            if shift is not None:
                np.subtract(seg, shift, out=seg)
        buf[0] = total
        total = np.cumsum(buf[:m + 1])[-1]
    return total


def _r_var(x: np.ndarray) -> float:
    """R's ``var(x)`` for a finite double vector (C_cov, ``use = "everything"``).

    Mean: long double sum / n, plus a long double correction pass; the mean is
    then rounded to double.  Variance: products of double deviations summed
    in long double and divided by n - 1 in long double.
    """
    n = x.shape[0]
    nl = np.longdouble(n)
    tmp = _seq_sum_ld(x) / nl
    if np.isfinite(float(tmp)):
        tmp = tmp + _seq_sum_ld(x, shift=tmp) / nl
    xm = float(tmp)
    ss = _seq_sum_ld(x, shift=xm, square=True)
    return float(ss / np.longdouble(n - 1))


def _r_iqr_type7(x: np.ndarray) -> float:
    """R's ``IQR(x)`` (``quantile(type = 7)``) for a finite double vector."""
    n = x.shape[0]
    probs = (0.25, 0.75)
    index = [1.0 + max(n - 1, 0) * p for p in probs]
    lo = [int(math.floor(v)) for v in index]
    hi = [int(math.ceil(v)) for v in index]
    kth = sorted({k - 1 for k in lo + hi})
    xs = np.partition(x, kth)
    qs = []
    for idx, l, h in zip(index, lo, hi):
        q = float(xs[l - 1])
        xh = float(xs[h - 1])
        if idx > l and xh != q:
            hh = idx - l
            q = (1.0 - hh) * q + hh * xh
        qs.append(q)
    return qs[1] - qs[0]


def _libm_exp(v: np.ndarray) -> np.ndarray:
    """Elementwise C-library ``exp`` (what R calls).

    numpy's vectorised ``exp`` may differ from the platform libm by one ulp;
    ``math.exp`` calls libm directly.  Only used on the kernel grid (2n
    values), so the per-element cost is irrelevant.
    """
    return np.fromiter(map(math.exp, v.tolist()), dtype=np.float64, count=v.shape[0])


def _r_dnorm0(x: np.ndarray, sigma: float) -> np.ndarray:
    """R's ``dnorm(x, mean = 0, sd = sigma)`` (nmath/dnorm.c algorithm)."""
    z = np.abs(x / sigma)
    out = np.zeros_like(z)
    small = z < 5.0
    zs = z[small]
    out[small] = _M_1_SQRT_2PI * _libm_exp(-0.5 * zs * zs) / sigma
    mid = (~small) & (z <= _DNORM_ZERO_BOUND) & (z < _DNORM_BIG)
    if np.any(mid):
        zm = z[mid]
        # split z = z1 + z2 with |z2| <= 2^-16 so that z1*z1 is exact
        z1 = np.ldexp(np.rint(np.ldexp(zm, 16)), -16)
        z2 = zm - z1
        out[mid] = _M_1_SQRT_2PI / sigma * (
            _libm_exp(-0.5 * z1 * z1) * _libm_exp((-0.5 * z2 - z1) * z2)
        )
    return out


def _bin_dist(x: np.ndarray, w: float, xlo: float, xhi: float, n: int) -> np.ndarray:
    """R's C ``BinDist``: linear binning onto ``n`` points, zero-padded to ``2n``.

    Every point contributes ``(1 - fx)*w`` to bin ``ix`` and ``fx*w`` to bin
    ``ix + 1`` where ``xpos = (x - xlo)/xdelta``, ``ix = floor(xpos)``,
    ``fx = xpos - ix`` and ``xdelta = (xhi - xlo)/(n - 1)``.  Contributions
    falling outside bins ``0..n-1`` are dropped (so a point with ``ix == -1``
    only adds ``fx*w`` to bin 0 and one with ``ix == n-1`` only adds
    ``(1 - fx)*w`` to bin ``n-1``); points further out are ignored.  The
    additions are performed in exactly the order of the C loop.
    """
    size = 2 * n
    y = np.zeros(size, dtype=np.float64)
    ixmax = n - 2
    xdelta = (xhi - xlo) / (n - 1)
    base_idx = np.arange(size, dtype=np.intp)
    nx = x.shape[0]
    cap = min(nx, _CHUNK)
    idx = np.empty(size + 2 * cap, dtype=np.intp)
    wts = np.empty(size + 2 * cap, dtype=np.float64)
    idx[:size] = base_idx
    for start in range(0, nx, _CHUNK):
        xpos = (x[start:start + _CHUNK] - xlo) / xdelta
        fl = np.floor(xpos)
        fx = xpos - fl
        m = xpos.shape[0]
        end = size + 2 * m
        left_i = idx[size:end:2]
        right_i = idx[size + 1:end:2]
        left_w = wts[size:end:2]
        right_w = wts[size + 1:end:2]
        np.multiply(1.0 - fx, w, out=left_w)
        np.multiply(fx, w, out=right_w)
        if fl.min() >= 0.0 and fl.max() <= ixmax:
            left_i[...] = fl
            np.add(left_i, 1, out=right_i)
        else:
            # clip before the integer cast so that huge values cannot overflow
            ix = np.clip(fl, -2.0, float(n + 1)).astype(np.intp)
            inside = (ix >= 0) & (ix <= ixmax)
            # ix == -1: only the right-hand contribution (to bin 0) is kept;
            # ix == n-1: only the left-hand one (to bin n-1); else dropped.
            drop_left = ~(inside | (ix == ixmax + 1))
            drop_right = ~(inside | (ix == -1))
            left_i[...] = ix
            np.add(ix, 1, out=right_i)
            left_w[drop_left] = 0.0
            right_w[drop_right] = 0.0
            left_i[drop_left] = 0
            right_i[drop_right] = 0
        # The running totals go in front so that bincount's sequential sums
        # carry on exactly as the C loop would (0 + y[b] == y[b] exactly and
        # adding +0.0 for a dropped contribution never changes a sum).
        wts[:size] = y
        y = np.bincount(idx[:end], weights=wts[:end], minlength=size)[:size]
    return y


def _approx_linear(xp: np.ndarray, fp: np.ndarray, v: np.ndarray) -> np.ndarray:
    """R's ``approx(xp, fp, v)$y`` (method "linear", rule 1) for sorted unique xp."""
    nx = xp.shape[0]
    out = np.full(v.shape, np.nan)
    if nx == 0 or v.size == 0:
        return out
    if nx == 1:
        out[v == xp[0]] = fp[0]
        return out
    inside = (v >= xp[0]) & (v <= xp[-1])
    vv = v[inside]
    i = np.searchsorted(xp, vv, side="right") - 1
    i = np.clip(i, 0, nx - 2)
    j = i + 1
    xi, xj, yi, yj = xp[i], xp[j], fp[i], fp[j]
    res = yi + (yj - yi) * ((vv - xi) / (xj - xi))
    res = np.where(vv == xi, yi, res)
    res = np.where(vv == xj, yj, res)
    out[inside] = res
    return out


# ---------------------------------------------------------------------------
# public API
# ---------------------------------------------------------------------------

def bw_nrd0(x) -> float:
    """R's ``bw.nrd0(x)``: ``0.9 * min(sd, IQR/1.34) * length(x)^-0.2``.

    If ``min(sd, IQR/1.34)`` is zero the scale falls back to ``sd``, then to
    ``abs(x[1])``, then to 1, exactly as in R.
    """
    x = _as_finite_vector(x)
    n = x.shape[0]
    if n < 2:
        raise ValueError("need at least 2 data points in 'x'")
    hi = math.sqrt(_r_var(x))
    lo = min(hi, _r_iqr_type7(x) / 1.34)
    if not lo:
        lo = hi
        if not lo:
            lo = abs(float(x[0]))
            if not lo:
                lo = 1.0
    return 0.9 * lo * math.pow(float(n), -0.2)


def density(x, adjust=1.0, bw=None, n=512, cut=3.0, kernel="gaussian"):
    """Gaussian kernel density estimate as R's ``density.default``.

    Equivalent to R's
    ``density(x, bw = bw, adjust = adjust, kernel = "gaussian", n = n, cut = cut)``
    with ``bw = None`` (or ``"nrd0"``) meaning ``bw = "nrd0"``.  As in R the
    bandwidth actually used is ``adjust * bw``.

    Returns ``(grid, y)``: the output grid
    ``seq.int(from, to, length.out = n)`` and the density estimate on it.
    """
    check_choice(kernel, "kernel", ("gaussian",))
    x = _as_finite_vector(x)
    nx = x.shape[0]
    if nx == 0:
        raise ValueError("'x' must contain at least one value")

    n_user = check_positive_int(n, "n", minimum=0)
    n_int = max(n_user, 512)
    if n_int > 512:
        n_int = 1 << (n_int - 1).bit_length()  # 2^ceiling(log2(n))

    if bw is None or (isinstance(bw, str) and bw.lower() == "nrd0"):
        if nx < 2:
            raise ValueError("need at least 2 points to select a bandwidth automatically")
        bw_val = bw_nrd0(x)
    elif isinstance(bw, str):
        raise ValueError("unknown bandwidth rule %r (only 'nrd0' is implemented)" % bw)
    else:
        bw_val = check_finite_real(bw, "bw")
    bw_val = check_finite_real(adjust, "adjust") * bw_val
    if not bw_val > 0:
        raise ValueError("'bw' is not positive.")
    cut = check_finite_real(cut, "cut")

    xmin = float(x.min())
    xmax = float(x.max())
    from_ = xmin - cut * bw_val
    to = xmax + cut * bw_val
    if not math.isfinite(from_):
        raise ValueError("non-finite 'from'")
    if not math.isfinite(to):
        raise ValueError("non-finite 'to'")
    lo = from_ - 4.0 * bw_val
    up = to + 4.0 * bw_val

    # weights rep.int(1/nx, nx); totMass == 1 for finite data
    y = _bin_dist(x, 1.0 / nx, lo, up, n_int)

    m = 2 * n_int
    kords = _seq_len_out(0.0, 2.0 * (up - lo), m)
    # kords[(n+2):(2n)] <- -kords[n:2]   (1-based R indices)
    kords[n_int + 1:] = -kords[n_int - 1:0:-1]
    kords = _r_dnorm0(kords, bw_val)

    conv = np.fft.ifft(np.fft.fft(y) * np.conj(np.fft.fft(kords)))
    # R: Re(fft(..., inverse = TRUE))[1:n] / length(y); numpy's ifft already
    # divides by m (a power of two, so the scaling is exact).
    dens = np.maximum(0.0, conv.real[:n_int])

    xords = _seq_len_out(lo, up, n_int)
    grid = _seq_len_out(from_, to, n_user)
    return grid, _approx_linear(xords, dens, grid)
