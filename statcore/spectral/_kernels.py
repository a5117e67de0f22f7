"""numba kernels of statcore.spectral: the nearest-neighbour scans of TwoNN.

``topk_block`` keeps, for every row, the K smallest squared distances seen so far (and their
columns) from one block of the distance matrix, given as the Gram block G = X_I X_J' and the squared
row norms: d_ij = |x_i|^2 + |x_j|^2 - 2 g_ij. A block off the diagonal updates the rows of I and
(transposed) those of J, so that each pair is computed once. ``exact_top2`` recomputes the candidates'
distances coordinate by coordinate (scaled as ``hypot`` is) and keeps the two smallest.

The helper ``_insert`` is ``register_jitable`` (compiled into its caller), so this module imports numba:
``_twonn.py`` imports it on first use only.
"""
from __future__ import annotations

import numpy as np
from numba.extending import register_jitable

from .._jit import lazy_njit


@register_jitable
def _insert(best_d, best_i, r, v, j):
    K = best_d.shape[1]
    if v >= best_d[r, K - 1]:
        return
    q = K - 1
    while q > 0 and best_d[r, q - 1] > v:
        best_d[r, q] = best_d[r, q - 1]
        best_i[r, q] = best_i[r, q - 1]
        q -= 1
    best_d[r, q] = v
    best_i[r, q] = j


@lazy_njit
def topk_block(G, sq, i0, j0, best_d, best_i):
    """Update the K best of rows i0.. (and, off the diagonal, of rows j0..) from G (b_i, b_j)."""
    bi, bj = G.shape
    K = best_d.shape[1]
    diag = i0 == j0
    for a in range(bi):
        r = i0 + a
        sr = sq[r]
        worst_r = best_d[r, K - 1]
        for c in range(bj):
            s = j0 + c
            if diag and s <= r:
                continue
            v = sr + sq[s] - 2.0 * G[a, c]
            if v < worst_r:
                _insert(best_d, best_i, r, v, s)
                worst_r = best_d[r, K - 1]
            if v < best_d[s, K - 1]:
                _insert(best_d, best_i, s, v, r)


@lazy_njit
def topk_rows(G, sq, rows, best_d, best_i):
    """Recompute the K best of the given rows from their full Gram rows G (len(rows), n)."""
    n = G.shape[1]
    K = best_d.shape[1]
    for a in range(rows.shape[0]):
        r = rows[a]
        for q in range(K):
            best_d[r, q] = np.inf
            best_i[r, q] = -1
        sr = sq[r]
        for s in range(n):
            if s == r:
                continue
            v = sr + sq[s] - 2.0 * G[a, s]
            if v < best_d[r, K - 1]:
                _insert(best_d, best_i, r, v, s)


@register_jitable
def _dist(X, i, j):
    """The Euclidean distance of rows i and j, scaled by the largest coordinate difference so that
    neither its square overflows nor underflows (as ``hypot``)."""
    d = X.shape[1]
    m = 0.0
    for t in range(d):
        a = abs(X[i, t] - X[j, t])
        if a > m:
            m = a
    if m == 0.0 or not np.isfinite(m):
        return m
    acc = 0.0
    for t in range(d):
        q = (X[i, t] - X[j, t]) / m
        acc += q * q
    return m * np.sqrt(acc)


@lazy_njit
def exact_top2(X, cand, r1, r2):
    """The two smallest exact distances from each row of X to its candidate rows (-1: none); a row
    with fewer than two finite candidates (its squared distances overflowed) is scanned in full."""
    n = X.shape[0]
    K = cand.shape[1]
    for i in range(n):
        b1 = np.inf
        b2 = np.inf
        for q in range(K):
            j = cand[i, q]
            if j < 0:
                continue
            v = _dist(X, i, j)
            if v < b1:
                b2 = b1
                b1 = v
            elif v < b2:
                b2 = v
        if not b2 < np.inf:
            b1 = np.inf
            b2 = np.inf
            for j in range(n):
                if j == i:
                    continue
                v = _dist(X, i, j)
                if v < b1:
                    b2 = b1
                    b1 = v
                elif v < b2:
                    b2 = v
        r1[i] = b1
        r2[i] = b2
