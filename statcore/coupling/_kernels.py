"""North-west-corner merge of two cumulative weight sequences (comonotone / countercomonotone couplings).

For values sorted ascending in each arm with weights ``w1`` and ``w0`` of equal total, the comonotone
coupling of the two weighted empirical laws puts mass on consecutive pairs (i, j) as the two cumulative
sums are merged (the north-west-corner rule of the transportation problem); the countercomonotone
coupling does the same with arm 0 read in descending order. Each row of the weight matrices is one
(bootstrap) replicate; rows are independent and run in parallel.
"""
import numpy as np
from numba import prange

from .._jit import lazy_njit


@lazy_njit(parallel=True)
def nw_pieces(w1, w0, reverse0, pi, pj, plen, npieces):
    """Fill ``pi[r, :k]``, ``pj[r, :k]``, ``plen[r, :k]`` with the coupling's pieces; ``npieces[r] = k``.

    ``w1`` (R x n1) and ``w0`` (R x n0) are non-negative weights in ascending order of the values; the
    pieces index those sorted positions. ``reverse0`` reads arm 0 from the largest value down
    (countercomonotone). Zero weights are skipped; with integer-valued weights of equal totals the
    merge is exact (no rounding at all).
    """
    n_rep = w1.shape[0]
    n1 = w1.shape[1]
    n0 = w0.shape[1]
    for r in prange(n_rep):
        i = 0
        j = 0
        k = 0
        a = w1[r, 0]
        jj = n0 - 1 if reverse0 else 0
        b = w0[r, jj]
        while i < n1 and j < n0:
            if a <= 0.0:
                i += 1
                if i < n1:
                    a = w1[r, i]
                continue
            if b <= 0.0:
                j += 1
                if j < n0:
                    jj = n0 - 1 - j if reverse0 else j
                    b = w0[r, jj]
                continue
            pi[r, k] = i
            pj[r, k] = jj
            if a < b:
                plen[r, k] = a
                b -= a
                i += 1
                if i < n1:
                    a = w1[r, i]
            elif b < a:
                plen[r, k] = b
                a -= b
                j += 1
                if j < n0:
                    jj = n0 - 1 - j if reverse0 else j
                    b = w0[r, jj]
            else:
                plen[r, k] = a
                i += 1
                j += 1
                if i < n1:
                    a = w1[r, i]
                if j < n0:
                    jj = n0 - 1 - j if reverse0 else j
                    b = w0[r, jj]
            k += 1
        npieces[r] = k
        for q in range(k, pi.shape[1]):
            pi[r, q] = 0
            pj[r, q] = 0
            plen[r, q] = 0.0


def pieces(w1: np.ndarray, w0: np.ndarray, reverse0: bool):
    """Allocate and fill the piece arrays for all rows (see ``nw_pieces``)."""
    n_rep, n1 = w1.shape
    n0 = w0.shape[1]
    m = n1 + n0
    pi = np.empty((n_rep, m), dtype=np.int64)
    pj = np.empty((n_rep, m), dtype=np.int64)
    plen = np.empty((n_rep, m), dtype=np.float64)
    npieces = np.empty(n_rep, dtype=np.int64)
    nw_pieces(np.ascontiguousarray(w1, dtype=np.float64), np.ascontiguousarray(w0, dtype=np.float64),
              bool(reverse0), pi, pj, plen, npieces)
    return pi, pj, plen, npieces


@lazy_njit(parallel=True)
def nw_sums(w1, w0, y1, y0, reverse0, fcode, s, t, out):
    """out[r] = sum over the pieces of f(y1[i], y0[j]) * length, for the named f without pieces arrays.

    fcode: 0 product, 1 squared difference, 2 absolute difference, 3 min, 4 max,
    5 indicator(y1 <= s and y0 <= t). Same merge as ``nw_pieces``.
    """
    n_rep = w1.shape[0]
    n1 = w1.shape[1]
    n0 = w0.shape[1]
    for r in prange(n_rep):
        i = 0
        j = 0
        acc = 0.0
        a = w1[r, 0]
        jj = n0 - 1 if reverse0 else 0
        b = w0[r, jj]
        while i < n1 and j < n0:
            if a <= 0.0:
                i += 1
                if i < n1:
                    a = w1[r, i]
                continue
            if b <= 0.0:
                j += 1
                if j < n0:
                    jj = n0 - 1 - j if reverse0 else j
                    b = w0[r, jj]
                continue
            u = y1[i]
            v = y0[jj]
            if fcode == 0:
                fv = u * v
            elif fcode == 1:
                fv = (u - v) * (u - v)
            elif fcode == 2:
                fv = abs(u - v)
            elif fcode == 3:
                fv = min(u, v)
            elif fcode == 4:
                fv = max(u, v)
            else:
                fv = 1.0 if (u <= s and v <= t) else 0.0
            if a < b:
                acc += fv * a
                b -= a
                i += 1
                if i < n1:
                    a = w1[r, i]
            elif b < a:
                acc += fv * b
                a -= b
                j += 1
                if j < n0:
                    jj = n0 - 1 - j if reverse0 else j
                    b = w0[r, jj]
            else:
                acc += fv * a
                i += 1
                j += 1
                if i < n1:
                    a = w1[r, i]
                if j < n0:
                    jj = n0 - 1 - j if reverse0 else j
                    b = w0[r, jj]
        out[r] = acc


def sums(w1: np.ndarray, w0: np.ndarray, y1: np.ndarray, y0: np.ndarray, reverse0: bool, fcode: int,
         s: float = 0.0, t: float = 0.0) -> np.ndarray:
    out = np.empty(w1.shape[0])
    nw_sums(np.ascontiguousarray(w1, dtype=np.float64), np.ascontiguousarray(w0, dtype=np.float64),
            np.ascontiguousarray(y1, dtype=np.float64), np.ascontiguousarray(y0, dtype=np.float64),
            bool(reverse0), int(fcode), float(s), float(t), out)
    return out


@lazy_njit(parallel=True)
def count_draws(draws, out):
    """out[r, k] = number of times k occurs in draws[r] (bootstrap counts from drawn positions)."""
    for r in prange(draws.shape[0]):
        for k in range(out.shape[1]):
            out[r, k] = 0.0
        for q in range(draws.shape[1]):
            out[r, draws[r, q]] += 1.0
