"""numba kernels of statcore.retrieval: the per-query scan behind CMC, AP and INP.

For one query, only the ranks of its true matches matter. The true matches (the gallery entries
with the query's id that the protocol keeps) are taken from the gallery grouped by id (``order``,
``starts``) and sorted by (distance, gallery index). The k-th true match (k = 1..m) has the rank
``k + #{other entries ranked before it}``, so only the number of other entries falling between
consecutive true distances is needed, never a sort of the row. A grid of 64 m equal cells between the
nearest and the farthest true distance gives it in two passes over the row: a branch-free histogram
of the cells (the map from a distance to its cell is monotone, so every entry of a cell without a
true distance precedes the same true matches), then an exact binary search for the few entries
whose cell holds a true distance. Entries with the query's id (true matches, or removed by the
protocol) are taken out of the histogram. From the ranks come the first-hit rank (CMC), the average
precision (1/m) sum_k k / rank_k and the inverse negative penalty m / rank_m.

``tie``: 0 "stable" (ties ordered by gallery index), 1 "optimistic" (a true match before the other
entries at its distance), 2 "pessimistic" (after them).
"""
from __future__ import annotations

import numpy as np
from numba.extending import register_jitable

from .._jit import lazy_njit


#: cells of the grid per true match
GRID = 64


@register_jitable
def _cell(d, dmin, dmax, scale, G):
    """The cell of a distance: 0 below the nearest true match, 1..G+1 the grid between the nearest and
    the farthest (monotone in d), G + 2 beyond the farthest."""
    v = min(max((d - dmin) * scale, 0.0), float(G))
    g = 1 + int(v)
    g = 0 if d < dmin else g
    return G + 2 if d > dmax else g


@lazy_njit
def query_scan(dist, q0, q1, qcode, qcam, gcode, gcam, order, starts, exclude, tie,
               first_hit, n_match, ap, inp):
    """Fill ``first_hit``, ``n_match``, ``ap`` and ``inp`` for the queries q0..q1-1 (rows of dist)."""
    ng = dist.shape[1]
    td = np.empty(ng, dtype=np.float64)
    tj = np.empty(ng, dtype=np.int64)
    cnt = np.zeros(ng + 1, dtype=np.int64)
    hist = np.zeros((1 << 16) + 3, dtype=np.int64)
    below = np.zeros((1 << 16) + 3, dtype=np.int64)
    dirty = np.zeros((1 << 16) + 3, dtype=np.bool_)
    code = np.empty(ng, dtype=np.int32)
    for i in range(q0, q1):
        first_hit[i] = 0
        n_match[i] = 0
        ap[i] = np.nan
        inp[i] = np.nan
        c = qcode[i]
        if c < 0:
            continue
        m = 0
        for p in range(starts[c], starts[c + 1]):
            j = order[p]
            if exclude and gcam[j] == qcam[i]:
                continue
            td[m] = np.float64(dist[i, j])
            tj[m] = j  # the candidates come in increasing gallery index
            m += 1
        if m == 0:
            continue
        if m <= 64:  # insertion sort by (distance, index)
            for a in range(1, m):
                d = td[a]
                jj = tj[a]
                q = a
                while q > 0 and td[q - 1] > d:
                    td[q] = td[q - 1]
                    tj[q] = tj[q - 1]
                    q -= 1
                td[q] = d
                tj[q] = jj
        else:  # a stable sort keeps the index order within equal distances
            perm = np.argsort(td[:m], kind="mergesort")
            sd = td[:m][perm]
            sj = tj[:m][perm]
            td[:m] = sd
            tj[:m] = sj
        for k in range(m + 1):
            cnt[k] = 0
        dmin = td[0]
        dmax = td[m - 1]
        G = min(GRID * m, hist.shape[0] - 3)
        scale = G / (dmax - dmin) if dmax > dmin else 0.0
        if not np.isfinite(scale):  # a subnormal spread: one cell, searched exactly
            scale = 0.0
        for g in range(G + 3):
            hist[g] = 0
            below[g] = 0
            dirty[g] = False
        # pass 1: the cell of every entry (branch-free) and the histogram of the cells
        row = dist[i]
        for j in range(ng):
            code[j] = _cell(np.float64(row[j]), dmin, dmax, scale, G)
        for j in range(ng):
            hist[code[j]] += 1
        for p in range(starts[c], starts[c + 1]):  # the query's own id: true matches or removed
            hist[_cell(np.float64(dist[i, order[p]]), dmin, dmax, scale, G)] -= 1
        # cells holding a true distance are "dirty"; in a clean cell every entry precedes the same
        # true matches (the cell map is monotone): those with a smaller cell
        for k in range(m):
            g = _cell(td[k], dmin, dmax, scale, G)
            dirty[g] = True
            below[g] += 1
        acc = 0
        for g in range(G + 2):
            nb = below[g]
            if not dirty[g]:
                cnt[acc] += hist[g]
            acc += nb
        # pass 2: the entries of dirty cells, one by one
        for j in range(ng):
            if not dirty[code[j]]:
                continue
            if gcode[j] == c:
                continue
            d = np.float64(row[j])
            lo = 0  # lo = #{true distances < d} by binary search
            hi = m
            while lo < hi:
                mid = (lo + hi) >> 1
                if td[mid] < d:
                    lo = mid + 1
                else:
                    hi = mid
            b = lo
            if tie != 2:
                while b < m and td[b] == d and (tie == 1 or tj[b] < j):
                    b += 1
            if b < m:
                cnt[b] += 1
        s = 0
        total = 0.0
        rank = 0
        for k in range(m):
            s += cnt[k]
            rank = k + 1 + s
            total += (k + 1.0) / rank
            if k == 0:
                first_hit[i] = rank
        n_match[i] = m
        ap[i] = total / m
        inp[i] = m / rank
