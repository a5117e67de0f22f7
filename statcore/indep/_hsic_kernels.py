"""Compiled kernels of the HSIC family (statcore.indep.hsic): Gram matrices, the centred sums of the
statistics and of the gamma null's variance, and the permutation / bootstrap replicates.

Pure loops over C-contiguous float64 (and int64) arrays, compiled on first use (``lazy_njit``); they
never validate, allocate pandas objects or raise user errors. Every O(n^2) loop runs over rows in
parallel (``prange``) and writes one partial sum per row (or per replicate), which numpy then adds
in a fixed order: the same input gives the same answer for any number of threads.
"""
from __future__ import annotations

import math

import numpy as np
from numba import prange

from .._jit import lazy_njit

__all__ = ["sq_condensed", "gram_upper_from_condensed", "gram_upper_direct", "mirror_upper", "centred_rows",
           "offdiag_rows", "perm_stats", "dhsic_rows", "dhsic_replicates"]


@lazy_njit(parallel=True)
def centred_rows(K, L, mk, ml, gk, gl, out):
    """Row sums of the doubly centred Gram matrices' products.

    With ``mk``, ``ml`` the row means and ``gk``, ``gl`` the grand means of K and L, the centred
    entries are ``Kc[i, j] = K[i, j] - mk[i] - mk[j] + gk`` (Kc = HKH). ``out[i, 0]`` is
    ``sum_j Kc[i, j] Lc[i, j]`` and ``out[i, 1]`` is ``sum_{j != i} (Kc[i, j] Lc[i, j])^2``.
    """
    n = K.shape[0]
    for i in prange(n):
        a = gk - mk[i]
        b = gl - ml[i]
        s1 = 0.0
        s2 = 0.0
        for j in range(n):
            p = (K[i, j] - mk[j] + a) * (L[i, j] - ml[j] + b)
            s1 += p
            if j != i:
                s2 += p * p
        out[i, 0] = s1
        out[i, 1] = s2


@lazy_njit(parallel=True)
def offdiag_rows(K, L, out):
    """``out[i] = sum_{j != i} K[i, j] L[i, j]`` (the trace term of the unbiased estimator)."""
    n = K.shape[0]
    for i in prange(n):
        s = 0.0
        for j in range(n):
            if j != i:
                s += K[i, j] * L[i, j]
        out[i] = s


@lazy_njit(parallel=True)
def perm_stats(Kc, L, perms, out):
    """``out[b] = sum_{i, j} Kc[i, j] L[pi_i, pi_j]`` for each permutation ``pi = perms[b]``.

    ``Kc`` is the doubly centred K, so centring L as well would not change the sum. The identity
    permutation gives ``n^2 HSIC_b`` with the same arithmetic as every replicate.
    """
    nb, n = perms.shape
    for b in prange(nb):
        pi = perms[b]
        s = 0.0
        for i in range(n):
            li = L[pi[i]]
            t = 0.0
            for j in range(n):
                t += Kc[i, j] * li[pi[j]]
            s += t
        out[b] = s


@lazy_njit(parallel=True)
def dhsic_rows(Ks, out):
    """For the stacked Gram matrices ``Ks`` (d, n, n): ``out[i, 0] = sum_j prod_k Ks[k, i, j]`` and
    ``out[i, 1 + k] = sum_j Ks[k, i, j]`` (the row sums)."""
    d, n, _ = Ks.shape
    for i in prange(n):
        s = 0.0
        for k in range(d):
            out[i, 1 + k] = 0.0
        for j in range(n):
            p = 1.0
            for k in range(d):
                v = Ks[k, i, j]
                p *= v
                out[i, 1 + k] += v
            s += p
        out[i, 0] = s


@lazy_njit(parallel=True)
def dhsic_replicates(Ks, idx, out):
    """dHSIC of resampled data for each replicate b: variable k's observation i is row ``idx[b, k, i]``
    of the sample (a permutation, or a bootstrap draw with replacement), so its Gram matrix is
    ``Ks[k][idx, idx]``. ``out[b] = dHSIC`` (Pfister et al. 2018, the V-statistic)."""
    nb = idx.shape[0]
    d, n, _ = Ks.shape
    for b in prange(nb):
        ix = idx[b]
        rows = np.zeros((d, n))
        total = 0.0
        for i in range(n):
            for j in range(n):
                p = 1.0
                for k in range(d):
                    v = Ks[k, ix[k, i], ix[k, j]]
                    p *= v
                    rows[k, i] += v
                total += p
        prod_sums = 1.0
        for k in range(d):
            s = 0.0
            for i in range(n):
                s += rows[k, i]
            prod_sums *= s / (n * n)
        cross = 0.0
        for i in range(n):
            p = 1.0
            for k in range(d):
                p *= rows[k, i] / n
            cross += p
        out[b] = total / (n * n) + prod_sums - 2.0 * cross / n


@lazy_njit(parallel=True)
def sq_condensed(x, out):
    """Squared distances of the pairs i < j of the rows of ``x`` (n, p), row by row, into ``out``
    (n (n - 1) / 2,). Task t handles row t / 2 (t even) or n - 1 - t // 2 (t odd): long and short
    rows alternate, so the triangular work is balanced across threads."""
    n, p = x.shape
    for t in prange(n):
        tt = np.int64(t)
        i = tt // 2 if tt % 2 == 0 else n - 1 - tt // 2
        start = i * (2 * n - i - 1) // 2
        for j in range(i + 1, n):
            s = 0.0
            for k in range(p):
                d = x[i, k] - x[j, k]
                s += d * d
            out[start + j - i - 1] = s


@lazy_njit(parallel=True)
def gram_upper_from_condensed(sq, kind, sigma, out):
    """The upper triangle (and unit diagonal) of the Gram matrix ``out`` (n, n) from condensed squared
    distances: kind 0 Gaussian exp(-d^2 / (2 sigma^2)), 1 Laplace exp(-d / sigma). Rows are
    contiguous slices (the loop vectorises); ``mirror_upper`` fills the lower triangle."""
    n = out.shape[0]
    c = 1.0 / (2.0 * sigma * sigma) if kind == 0 else 1.0 / sigma
    for t in prange(n):
        tt = np.int64(t)
        i = tt // 2 if tt % 2 == 0 else n - 1 - tt // 2
        out[i, i] = 1.0
        start = i * (2 * n - i - 1) // 2
        m = n - i - 1
        src = sq[start:start + m]
        dst = out[i, i + 1:]
        if kind == 0:
            for j in range(m):
                dst[j] = math.exp(-src[j] * c)
        else:
            for j in range(m):
                dst[j] = math.exp(-math.sqrt(src[j]) * c)


@lazy_njit(parallel=True)
def gram_upper_direct(x, kind, sigma, out):
    """The upper triangle (and unit diagonal) of the Gram matrix of the rows of ``x`` for a given
    scale (kinds as ``gram_upper_from_condensed``; kind 2 is the discrete kernel 1{x_i = x_j}, sigma
    unused)."""
    n, p = x.shape
    c = 1.0 / (2.0 * sigma * sigma) if kind == 0 else 1.0 / sigma
    for t in prange(n):
        tt = np.int64(t)
        i = tt // 2 if tt % 2 == 0 else n - 1 - tt // 2
        out[i, i] = 1.0
        for j in range(i + 1, n):
            s = 0.0
            same = 1.0
            for k in range(p):
                d = x[i, k] - x[j, k]
                s += d * d
                if d != 0.0:
                    same = 0.0
            if kind == 0:
                out[i, j] = math.exp(-s * c)
            elif kind == 1:
                out[i, j] = math.exp(-math.sqrt(s) * c)
            else:
                out[i, j] = same


@lazy_njit(parallel=True)
def mirror_upper(a):
    """Copy the upper triangle of the square ``a`` into its lower triangle (64 x 64 tiles)."""
    n = a.shape[0]
    bs = 64
    nb = (n + bs - 1) // bs
    for bi in prange(nb):
        for bj in range(bi, nb):
            for i in range(bi * bs, min(n, bi * bs + bs)):
                for j in range(max(i + 1, bj * bs), min(n, bj * bs + bs)):
                    a[j, i] = a[i, j]


#: below this many observations the O(n^2) kernels run on one thread: the work (n^2 < 2.5e5 entries)
#: is smaller than the cost of waking a thread pool, and a busy machine makes that cost erratic
PARALLEL_MIN_N = 500

_SERIAL = {name: lazy_njit(globals()[name].py_func) for name in __all__}


def pick(name: str, n: int, reps: int = 1):
    """The kernel ``name``, serial when its work (``reps`` times n^2) is below ``PARALLEL_MIN_N``^2,
    parallel from there on."""
    return _SERIAL[name] if reps * n * n < PARALLEL_MIN_N ** 2 else globals()[name]
