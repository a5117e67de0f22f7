"""numba kernels of the distance covariance family (statcore.indep.dcor).

Three groups:

- the O(n log n) univariate path (p = q = 1, index 1): the sums behind every V- and U-statistic,
  from one sort of x and one merge sort of y carrying x (Huo & Szekely 2016; Chaudhuri & Hu 2019);
- the blocked O(n^2) path for any dimension and index: row sums of the distance matrices (pass 1),
  then the sums of products of the centred entries computed on the fly (pass 2), never holding more
  than a few rows of distances;
- permutation tests: the centred n x n matrices built once, and the permuted inner products
  sum_ij L[pi_i, pi_j] R[i, j] of every permutation, tiled so that the rows in use stay in cache and
  run in parallel over chunks of permutations (each permutation summed in a fixed order, so the
  answer does not depend on the number of threads); the univariate fast path per permutation;
  and a blocked per-permutation pass for n too large to hold the matrices.

Kernels never validate; statcore.indep.dcor does. Helpers called from inside other kernels are
compiled first (``load()``), since a lazily compiled kernel is not callable from numba code.
"""
from __future__ import annotations

import numpy as np

from numba import prange  # this module is imported on first use only (statcore.indep.dcor)

from .._jit import _LazyKernel, lazy_njit


# ----------------------------------------------------------------------------------------------
# the univariate O(n log n) path
# ----------------------------------------------------------------------------------------------

@lazy_njit(nogil=True)
def _sort_runs(xs, ys, run_lo, run_hi):
    """Sort ``ys`` ascending inside each run [run_lo[r], run_hi[r]) of tied ``xs`` (insertion sort
    for short runs, the merge sort below for long ones), so that pairs tied in x are never counted
    as discordant."""
    for r in range(run_lo.size):
        lo = run_lo[r]
        hi = run_hi[r]
        if hi - lo <= 32:
            for i in range(lo + 1, hi):
                v = ys[i]
                j = i - 1
                while j >= lo and ys[j] > v:
                    ys[j + 1] = ys[j]
                    j -= 1
                ys[j + 1] = v
        else:
            m = hi - lo
            _merge_discordant(ys[lo:hi], xs[lo:hi].copy(), np.empty(m), np.empty(m))


@lazy_njit(nogil=True)
def _merge_discordant(ys, xs, y2, x2):
    """Bottom-up merge sort of ``ys`` (ascending, stable) carrying ``xs`` (``y2``, ``x2`` are
    buffers); returns D = sum over pairs j before i with y_j > y_i of (x_i - x_j)(y_i - y_j) (<= 0),
    where "before" is the input order (x ascending, ties in x sorted by y, so that a pair tied in x
    is never counted). Each merge runs from the top: a right element meets exactly the left elements
    already emitted (those with a larger y), whose count and sums of x, y and xy are running sums.
    The sorted values end in ``ys`` and ``xs``."""
    n = ys.size
    d_sum = 0.0
    src_y, src_x = ys, xs
    dst_y, dst_x = y2, x2
    swapped = False
    # runs of 16 by insertion sort, their discordant sums by brute force
    run = 16
    for lo in range(0, n, run):
        hi = min(lo + run, n)
        for i in range(lo + 1, hi):
            yi = src_y[i]
            xi = src_x[i]
            j = i - 1
            while j >= lo and src_y[j] > yi:
                d_sum += (xi - src_x[j]) * (yi - src_y[j])
                src_y[j + 1] = src_y[j]
                src_x[j + 1] = src_x[j]
                j -= 1
            src_y[j + 1] = yi
            src_x[j + 1] = xi
    width = run
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i = mid - 1
            j = hi - 1
            k = hi - 1
            cnt = 0.0
            sx = 0.0
            sy = 0.0
            sxy = 0.0
            while i >= lo and j >= mid:
                yl = src_y[i]
                yr = src_y[j]
                if yl > yr:
                    xl = src_x[i]
                    cnt += 1.0
                    sx += xl
                    sy += yl
                    sxy += xl * yl
                    dst_y[k] = yl
                    dst_x[k] = xl
                    i -= 1
                else:
                    xr = src_x[j]
                    d_sum += cnt * xr * yr - xr * sy - yr * sx + sxy
                    dst_y[k] = yr
                    dst_x[k] = xr
                    j -= 1
                k -= 1
            while j >= mid:
                xr = src_x[j]
                yr = src_y[j]
                d_sum += cnt * xr * yr - xr * sy - yr * sx + sxy
                dst_y[k] = yr
                dst_x[k] = xr
                j -= 1
                k -= 1
            while i >= lo:
                dst_y[k] = src_y[i]
                dst_x[k] = src_x[i]
                i -= 1
                k -= 1
        src_y, dst_y = dst_y, src_y
        src_x, dst_x = dst_x, src_x
        swapped = not swapped
        width *= 2
    if swapped:
        for k in range(n):
            ys[k] = y2[k]
            xs[k] = x2[k]
    return d_sum


@lazy_njit(nogil=True)
def _cross_sum(xs, ys, run_lo, run_hi, keep):
    """S = sum_ij |x_i - x_j||y_i - y_j| for ``xs`` sorted ascending (centred) and the centred ``ys``
    paired with it (``ys`` is overwritten): S = 2 (n sum xy - sum x sum y) - 4 D, with D the sum
    over discordant pairs (``_merge_discordant``). ``xs`` is overwritten unless ``keep``."""
    n = xs.size
    _sort_runs(xs, ys, run_lo, run_hi)
    sxy = 0.0
    sx = 0.0
    sy = 0.0
    for k in range(n):
        sxy += xs[k] * ys[k]
        sx += xs[k]
        sy += ys[k]
    xw = xs.copy() if keep else xs
    y2 = np.empty(n)
    x2 = np.empty(n)
    d_sum = _merge_discordant(ys, xw, y2, x2)
    return 2.0 * (n * sxy - sx * sy) - 4.0 * d_sum


@lazy_njit(nogil=True)
def _runs(xs):
    """The runs [lo, hi) of ties (length > 1) in sorted ``xs``."""
    n = xs.size
    nruns = 0
    k = 0
    while k < n:
        m = k + 1
        while m < n and xs[m] == xs[k]:
            m += 1
        if m - k > 1:
            nruns += 1
        k = m
    run_lo = np.empty(nruns, np.int64)
    run_hi = np.empty(nruns, np.int64)
    r = 0
    k = 0
    while k < n:
        m = k + 1
        while m < n and xs[m] == xs[k]:
            m += 1
        if m - k > 1:
            run_lo[r] = k
            run_hi[r] = m
            r += 1
        k = m
    return run_lo, run_hi


@lazy_njit(nogil=True)
def _row_sums_by_order(v, order, mean, out_sorted, out):
    """Row sums of |v_i - v_j| (v centred by ``mean``): into ``out_sorted`` (in sorted order, may be
    empty) and into ``out`` (in the original order, may be empty); returns [sum, sum of squares of
    the row sums, sum_ij (v_i - v_j)^2]."""
    n = v.size
    total = 0.0
    s2 = 0.0
    for k in range(n):
        t = v[k] - mean
        total += t
        s2 += t * t
    prefix = 0.0
    res = np.zeros(3)
    for k in range(n):
        t = v[order[k]] - mean
        r = (2 * k - n) * t + total - 2.0 * prefix
        prefix += t
        if out_sorted.size:
            out_sorted[k] = r
        if out.size:
            out[order[k]] = r
        res[0] += r
        res[1] += r * r
    res[2] = 2.0 * (n * s2 - total * total)
    return res


@lazy_njit(nogil=True)
def _fast_q(x, y, ox, oy, mx, my):
    """[Q, A, B, Q_xx, Q_yy, S_xx, S_yy]: Q = sum_i a_i b_i and the one-sample sums."""
    n = x.size
    a = np.empty(n)
    b = np.empty(n)
    empty = np.empty(0)
    ra = _row_sums_by_order(x, ox, mx, empty, a)
    rb = _row_sums_by_order(y, oy, my, empty, b)
    q = 0.0
    for i in range(n):
        q += a[i] * b[i]
    out = np.empty(7)
    out[0] = q
    out[1] = ra[0]
    out[2] = rb[0]
    out[3] = ra[1]
    out[4] = rb[1]
    out[5] = ra[2]
    out[6] = rb[2]
    return out


@lazy_njit(nogil=True)
def _fast_s(x, y, ox, mx, my):
    n = x.size
    xs = np.empty(n)
    ys = np.empty(n)
    for k in range(n):
        xs[k] = x[ox[k]] - mx
        ys[k] = y[ox[k]] - my
    run_lo, run_hi = _runs(xs)
    return _cross_sum(xs, ys, run_lo, run_hi, False)


@lazy_njit(nogil=True)
def fast_sums(x, y, ox, oy):
    """All sums of the univariate path for the pair (x, y), given the orders ``ox``, ``oy`` that
    sort x and y: [S_xy, Q_xy, A, B, Q_xx, Q_yy, S_xx, S_yy] with S = sum_ij a_ij b_ij,
    Q = sum_i a_i b_i, A = sum_i a_i, B = sum_i b_i (a_ij = |x_i - x_j|, a_i its row sums; b for y).
    Memory: four vectors of n doubles besides the inputs and the orders."""
    n = x.size
    mx = 0.0
    my = 0.0
    for k in range(n):
        mx += x[k]
        my += y[k]
    mx /= n
    my /= n
    q = _fast_q(x, y, ox, oy, mx, my)
    out = np.empty(8)
    out[0] = _fast_s(x, y, ox, mx, my)
    out[1:] = q
    return out


@lazy_njit(nogil=True)
def fast_perm_setup(x, y, ox, oy):
    """What the permutations of the univariate path reuse: x centred and sorted (``xs``), its row
    sums in that order (``a``), the centred y (``yc``) and its row sums (``b``) in the original
    order, the runs of ties in x, and [A, B, Q_xx, Q_yy, S_xx, S_yy]."""
    n = x.size
    mx = 0.0
    my = 0.0
    for k in range(n):
        mx += x[k]
        my += y[k]
    mx /= n
    my /= n
    xs = np.empty(n)
    yc = np.empty(n)
    for k in range(n):
        xs[k] = x[ox[k]] - mx
        yc[k] = y[k] - my
    a = np.empty(n)
    ra = _row_sums_by_order(x, ox, mx, a, np.empty(0))
    b = np.empty(n)
    rb = _row_sums_by_order(y, oy, my, np.empty(0), b)
    run_lo, run_hi = _runs(xs)
    one = np.empty(6)
    one[0] = ra[0]
    one[1] = rb[0]
    one[2] = ra[1]
    one[3] = rb[1]
    one[4] = ra[2]
    one[5] = rb[2]
    return xs, a, yc, b, run_lo, run_hi, one


@lazy_njit(nogil=True, parallel=True)
def fast_perm_sums(xs, a, ox, yc, b, run_lo, run_hi, perms, out):
    """[S, Q] of the pairing (x_{p_i}, y_i) for every permutation p (a row of ``perms``), the same
    pairing as ``perm_inner``; one permutation per iteration. x sits sorted (``xs``, ``a``, its order
    ``ox``), so the y paired with the k-th smallest x is y_j with p_j = ox_k."""
    n_perm = perms.shape[0]
    n = xs.size
    for t in prange(n_perm):
        inv = np.empty(n, np.int64)
        for i in range(n):
            inv[perms[t, i]] = i
        ys = np.empty(n)
        q = 0.0
        for k in range(n):
            j = inv[ox[k]]
            ys[k] = yc[j]
            q += a[k] * b[j]
        out[t, 0] = _cross_sum(xs, ys, run_lo, run_hi, True)
        out[t, 1] = q


# ----------------------------------------------------------------------------------------------
# the blocked O(n^2) path: samples side by side in one (n, P) matrix, sample s in columns
# starts[s]:starts[s + 1]
# ----------------------------------------------------------------------------------------------

@lazy_njit(nogil=True)
def _dist(data, i, j, c0, c1, index):
    if c1 - c0 == 1:
        d = abs(data[i, c0] - data[j, c0])
    else:
        acc = 0.0
        for c in range(c0, c1):
            t = data[i, c] - data[j, c]
            acc += t * t
        d = np.sqrt(acc)
    if index != 1.0:
        d = d ** index
    return d


@lazy_njit(nogil=True, parallel=True)
def row_sums(data, starts, index, out):
    """Pass 1: ``out[s, i] = sum_j |x_i - x_j|^index`` for each sample s (rows in parallel)."""
    n = data.shape[0]
    k = starts.size - 1
    for i in prange(n):
        for s in range(k):
            out[s, i] = 0.0
        for j in range(n):
            if j == i:
                continue
            for s in range(k):
                out[s, i] += _dist(data, i, j, starts[s], starts[s + 1], index)


@lazy_njit(nogil=True, parallel=True)
def centred_gram(data, starts, index, means, grand, with_diag):
    """Pass 2: G[s, t] = sum_ij C^s_ij C^t_ij for the centred distance matrices
    C^s_ij = d^s_ij - means[s, i] - means[s, j] + grand[s] (double centring: means = row means and
    grand = the grand mean; U-centring: a_i. / (n - 2) and a.. / ((n - 1)(n - 2)), without the
    diagonal: ``with_diag`` False). Pairs i < j counted twice; rows i and n - 1 - i go to the same
    iteration so that the work is balanced; per-iteration sums are added in a fixed order."""
    n = data.shape[0]
    k = starts.size - 1
    half = (n + 1) // 2
    part = np.zeros((half, k, k))
    for t in prange(half):
        c = np.empty(k)
        for rep in range(2):
            i = np.int64(t) if rep == 0 else np.int64(n - 1) - np.int64(t)
            if rep == 1 and i == np.int64(t):
                break
            for j in range(i, n):
                if j == i:
                    if not with_diag:
                        continue
                    for s in range(k):
                        c[s] = -2.0 * means[s, i] + grand[s]
                    w = 1.0
                else:
                    for s in range(k):
                        c[s] = (_dist(data, i, j, starts[s], starts[s + 1], index)
                                - means[s, i] - means[s, j] + grand[s])
                    w = 2.0
                for s in range(k):
                    for u in range(s, k):
                        part[t, s, u] += w * c[s] * c[u]
    out = np.zeros((k, k))
    for t in range(half):
        for s in range(k):
            for u in range(s, k):
                out[s, u] += part[t, s, u]
    for s in range(k):
        for u in range(s):
            out[s, u] = out[u, s]
    return out


@lazy_njit(nogil=True)
def blocked_perm_inner(data, starts, index, means, grand, with_diag, cl, cr, perm):
    """sum_ij L[p_i, p_j] R[i, j] for one permutation ``p`` without any n x n matrix, where
    L = sum_s cl[s] C^s and R = sum_s cr[s] C^s (centred as in ``centred_gram``); serial, so that
    several permutations can run in threads (the GIL is released)."""
    n = data.shape[0]
    k = starts.size - 1
    total = 0.0
    for i in range(n):
        pi = perm[i]
        acc = 0.0
        if with_diag:
            lv = 0.0
            rv = 0.0
            for s in range(k):
                lv += cl[s] * (-2.0 * means[s, pi] + grand[s])
                rv += cr[s] * (-2.0 * means[s, i] + grand[s])
            acc += 0.5 * lv * rv
        for j in range(i + 1, n):
            pj = perm[j]
            lv = 0.0
            rv = 0.0
            for s in range(k):
                if cl[s] != 0.0:
                    lv += cl[s] * (_dist(data, pi, pj, starts[s], starts[s + 1], index)
                                   - means[s, pi] - means[s, pj] + grand[s])
                if cr[s] != 0.0:
                    rv += cr[s] * (_dist(data, i, j, starts[s], starts[s + 1], index)
                                   - means[s, i] - means[s, j] + grand[s])
            acc += lv * rv
        total += acc
    return 2.0 * total


# ----------------------------------------------------------------------------------------------
# permutation tests with the centred matrices kept
# ----------------------------------------------------------------------------------------------

@lazy_njit(nogil=True)
def centred_matrix(data, c0, c1, index, unbiased):
    """The n x n centred distance matrix of the sample in columns c0:c1: double centred
    (a_ij - a_i. / n - a_.j / n + a.. / n^2) or, with ``unbiased``, U-centred
    (a_ij - a_i. / (n - 2) - a_.j / (n - 2) + a.. / ((n - 1)(n - 2)), zero diagonal)."""
    n = data.shape[0]
    m = np.empty((n, n))
    rs = np.zeros(n)
    for i in range(n):
        m[i, i] = 0.0
        for j in range(i + 1, n):
            d = _dist(data, i, j, c0, c1, index)
            m[i, j] = d
            m[j, i] = d
            rs[i] += d
            rs[j] += d
    tot = 0.0
    for i in range(n):
        tot += rs[i]
    if unbiased:
        for i in range(n):
            rs[i] /= n - 2.0
        g = tot / ((n - 1.0) * (n - 2.0))
    else:
        for i in range(n):
            rs[i] /= n
        g = tot / (n * float(n))
    for i in range(n):
        for j in range(n):
            m[i, j] = m[i, j] - rs[i] - rs[j] + g
        if unbiased:
            m[i, i] = 0.0
    return m


@lazy_njit(nogil=True, parallel=True)
def perm_inner(left, right, perms, out):
    """out[b] = sum_ij left[p_i, p_j] right[i, j] for each permutation p = perms[b] (symmetric
    matrices: twice the sum over i < j plus the diagonal).

    The pass is memory-bound: each row i of ``right`` is read from j = i + 1 on, and the row p_i of
    ``left`` is gathered at the columns p_j. To serve both from cache, the pairs are tiled: rows i
    in blocks of ``bs`` (about 1 MiB of ``right``) and rows p_i of ``left`` in blocks of the same
    size; a tile (I, U) holds the rows i in I with p_i in U, so its working set (about 2 MiB) stays
    in L2/L3 while a chunk of permutations runs through it. Permutations are split into chunks run in
    parallel; each permutation adds its tiles in the same fixed order (four interleaved partial sums
    per row), so the result depends on n only, not on the chunks or the number of threads."""
    n_perm = perms.shape[0]
    n = left.shape[0]
    bs = max(16, (1 << 20) // (8 * max(n, 1)))
    bs = min(n, max(bs, (n + 63) // 64))  # at most 64 x 64 tiles
    nb = (n + bs - 1) // bs
    chunk = max(1, min(128, (n_perm + 7) // 8))
    nchunk = (n_perm + chunk - 1) // chunk
    for c in prange(nchunk):
        b0 = c * chunk
        b1 = min(n_perm, b0 + chunk)
        acc = np.zeros(b1 - b0)
        dg = np.zeros(b1 - b0)
        for bi in range(nb):
            i0 = bi * bs
            i1 = min(n, i0 + bs)
            for bu in range(nb):
                u0 = bu * bs
                u1 = min(n, u0 + bs)
                for b in range(b0, b1):
                    p = perms[b]
                    a_t = 0.0
                    d_t = 0.0
                    for i in range(i0, i1):
                        pi = p[i]
                        if pi < u0 or pi >= u1:
                            continue
                        lrow = left[pi]
                        rrow = right[i]
                        d_t += lrow[pi] * rrow[i]
                        s0 = 0.0
                        s1 = 0.0
                        s2 = 0.0
                        s3 = 0.0
                        j = i + 1
                        while j + 3 < n:
                            s0 += lrow[p[j]] * rrow[j]
                            s1 += lrow[p[j + 1]] * rrow[j + 1]
                            s2 += lrow[p[j + 2]] * rrow[j + 2]
                            s3 += lrow[p[j + 3]] * rrow[j + 3]
                            j += 4
                        while j < n:
                            s0 += lrow[p[j]] * rrow[j]
                            j += 1
                        a_t += (s0 + s1) + (s2 + s3)
                    acc[b - b0] += a_t
                    dg[b - b0] += d_t
        for b in range(b0, b1):
            out[b] = 2.0 * acc[b - b0] + dg[b - b0]


# ----------------------------------------------------------------------------------------------
# helpers compiled before the kernels that call them
# ----------------------------------------------------------------------------------------------

_HELPERS = ("_sort_runs", "_merge_discordant", "_cross_sum", "_runs", "_row_sums_by_order", "_fast_q", "_fast_s",
            "_dist")
_loaded = False


def load():
    """Compile the helpers that other kernels call (a lazily compiled kernel is not callable from
    numba code: the module globals are swapped for the compiled dispatchers) and return this
    module."""
    global _loaded
    if not _loaded:
        import sys

        mod = sys.modules[__name__]
        for name in _HELPERS:
            obj = getattr(mod, name)
            if isinstance(obj, _LazyKernel):
                setattr(mod, name, obj._compile())
        _loaded = True
    return __import__(__name__, fromlist=["load"])
