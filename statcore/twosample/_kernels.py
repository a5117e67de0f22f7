"""numba kernels of statcore.twosample: permuted block sums of a pooled kernel or distance matrix,
and the chunked k-nearest-neighbour reductions of precision/recall and density/coverage.

Kernels never validate; the topic modules do. This module is imported on first use only.
"""
from __future__ import annotations

import numpy as np
from numba import prange
from numba.extending import register_jitable

from .._jit import lazy_njit


@register_jitable
def _one_perm_block_sums(m, p, n1, out):
    """The sums of M over p[:n1] x p[:n1] and p[n1:] x p[n1:] (diagonals included) and the traces of
    the two blocks, into out[0:4], in a fixed order."""
    n = p.shape[0]
    sxx = 0.0
    dxx = 0.0
    for i in range(n1):
        row = p[i]
        dxx += m[row, row]
        for j in range(n1):
            sxx += m[row, p[j]]
    syy = 0.0
    dyy = 0.0
    for i in range(n1, n):
        row = p[i]
        dyy += m[row, row]
        for j in range(n1, n):
            syy += m[row, p[j]]
    out[0] = sxx
    out[1] = syy
    out[2] = dxx
    out[3] = dyy


@lazy_njit(parallel=True, nogil=True)
def perm_block_sums(m, perms, n1):
    """For each permutation p (a row of ``perms``), the block sums and traces of
    ``_one_perm_block_sums``. Threads split the permutations only, so the answer does not depend
    on the number of threads."""
    B = perms.shape[0]
    out = np.empty((B, 4))
    for b in prange(B):
        _one_perm_block_sums(m, perms[b], n1, out[b])
    return out


@lazy_njit(nogil=True)
def perm_block_sums_serial(m, perms, n1):
    """``perm_block_sums`` on one thread (small problems, where a thread pool costs more than it
    saves on a busy machine); the same numbers."""
    B = perms.shape[0]
    out = np.empty((B, 4))
    for b in range(B):
        _one_perm_block_sums(m, perms[b], n1, out[b])
    return out


@lazy_njit(nogil=True)
def kth_smallest_rows(d2, k, skip_self_offset):
    """The k-th smallest value of every row of a block of squared distances; when
    ``skip_self_offset >= 0`` the entry (i, i + skip_self_offset) (the point itself) is left out.
    Keeps the k smallest in a sorted buffer (k is small: O(columns * k) per row)."""
    r, c = d2.shape
    out = np.empty(r)
    buf = np.empty(k)
    for i in range(r):
        m = 0
        for j in range(c):
            if skip_self_offset >= 0 and j == i + skip_self_offset:
                continue
            v = d2[i, j]
            if m < k:
                p = m
                m += 1
            elif v < buf[k - 1]:
                p = k - 1
            else:
                continue
            while p > 0 and buf[p - 1] > v:
                buf[p] = buf[p - 1]
                p -= 1
            buf[p] = v
        out[i] = buf[k - 1]
    return out


@lazy_njit(nogil=True)
def ball_counts(d2, radii2, counts_cols, nearest_rows):
    """For a block of squared distances d2[i, j] between reference points i (ball radii^2 ``radii2``)
    and query points j: add to ``counts_cols[j]`` the number of balls containing j (strictly inside),
    ``nearest_rows[i]`` keeps the running minimum of
    d2[i, :]. Strict inequality, as the reference implementation of Naeem et al. (2020)."""
    r, c = d2.shape
    for i in range(r):
        rad = radii2[i]
        mn = nearest_rows[i]
        for j in range(c):
            v = d2[i, j]
            if v < rad:
                counts_cols[j] += 1.0
            if v < mn:
                mn = v
        nearest_rows[i] = mn
    return 0
