"""Compiled feature maps of the large-n HSIC (random Fourier and Nystrom features): pure loops over
C-contiguous float64 arrays, compiled on first use (``lazy_njit``); called by ``_hsic_approx``."""
from __future__ import annotations

import math

import numpy as np
from numba import prange

from .._jit import lazy_njit

# ----------------------------------------------------------------------------------------------
# compiled feature maps
# ----------------------------------------------------------------------------------------------

@lazy_njit(parallel=True)
def _cos_sin(x, w, out):
    """``out[i, k] = cos(x_i . w_k) / sqrt(m)`` and ``out[i, m + k] = sin(x_i . w_k) / sqrt(m)`` for the
    m columns ``w_k`` of ``w`` (p, m)."""
    n, p = x.shape
    m = w.shape[1]
    c = 1.0 / math.sqrt(m)
    for i in prange(n):
        for k in range(m):
            t = 0.0
            for j in range(p):
                t += x[i, j] * w[j, k]
            out[i, k] = math.cos(t) * c
            out[i, m + k] = math.sin(t) * c


@lazy_njit(parallel=True)
def _cross_gram(x, z, sigma, kind, out):
    """``out[i, l] = k(x_i, z_l)``: kind 0 Gaussian exp(-|.|^2 / (2 sigma^2)), 1 Laplace
    exp(-|.| / sigma), 2 discrete 1{x_i = z_l}."""
    n, p = x.shape
    m = z.shape[0]
    c = 1.0 / (2.0 * sigma * sigma) if kind == 0 else 1.0 / sigma
    for i in prange(n):
        row = out[i]
        if kind == 2:
            for l in range(m):
                same = 1.0
                for j in range(p):
                    if x[i, j] != z[l, j]:
                        same = 0.0
                row[l] = same
            continue
        for l in range(m):
            s = 0.0
            for j in range(p):
                d = x[i, j] - z[l, j]
                s += d * d
            row[l] = s
        if kind == 0:
            for l in range(m):
                row[l] = math.exp(-row[l] * c)
        else:
            for l in range(m):
                row[l] = math.exp(-math.sqrt(row[l]) * c)


@lazy_njit(parallel=True)
def _centre_columns(a):
    """Subtract each column's mean, in place (rows split across threads in a fixed way: the column
    sums are added in row order within each of a fixed number of blocks)."""
    n, m = a.shape
    nblk = 64
    partial = np.zeros((nblk, m))
    step = (n + nblk - 1) // nblk
    for b in prange(nblk):
        lo = b * step
        hi = min(n, lo + step)
        for i in range(lo, hi):
            for k in range(m):
                partial[b, k] += a[i, k]
    mean = np.zeros(m)
    for b in range(nblk):
        for k in range(m):
            mean[k] += partial[b, k]
    for k in range(m):
        mean[k] /= n
    for i in prange(n):
        for k in range(m):
            a[i, k] -= mean[k]


_KIND = {"gaussian": 0, "laplace": 1, "discrete": 2}

#: below this many feature values (n times the feature dimension) the feature kernels run on one thread
PARALLEL_MIN_WORK = 250_000
_SERIAL = {f.__name__: lazy_njit(f.py_func) for f in (_cos_sin, _cross_gram, _centre_columns)}


def _pick(kernel, work: int):
    return _SERIAL[kernel.__name__] if work < PARALLEL_MIN_WORK else kernel
