"""Kernels of the causal two-groups model: bootstrapped nearest-neighbour conditional densities.

A conditional density at a query point x is a kernel-weighted average over the query's neighbour
list (indices into the training sample, x-kernel weights), of Gaussian kernels in y:

    f(y | x) = sum_j c_j w_j phi_h(y - y_j) / sum_j c_j w_j,

where c_j are the multinomial counts of one bootstrap resample of the training sample. The
neighbour lists and weights are computed once; a bootstrap refit only changes the counts.
"""
import math

import numpy as np

from .._jit import lazy_njit

_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


@lazy_njit(nogil=True)
def knn_boot_density(nbr_idx, nbr_w, ytrain, counts, hy, grid, yq, out_grid, out_y):
    """Bootstrap conditional densities on ``grid`` and at each query's own ``yq``.

    nbr_idx (nq, k) int64 and nbr_w (nq, k) float64: neighbour lists and x-kernel weights (weight
    0 marks an unused slot); counts (B, n_train) float64: bootstrap counts; out_grid (nq, B, G)
    and out_y (nq, B) receive the densities (NaN where a resample left no neighbour).
    """
    nq, k = nbr_idx.shape
    n_boot = counts.shape[0]
    n_grid = grid.shape[0]
    inv_h = 1.0 / hy
    phi = np.empty((k, n_grid + 1))
    for q in range(nq):
        for j in range(k):
            yj = ytrain[nbr_idx[q, j]]
            for g in range(n_grid):
                z = (grid[g] - yj) * inv_h
                phi[j, g] = math.exp(-0.5 * z * z)
            z = (yq[q] - yj) * inv_h
            phi[j, n_grid] = math.exp(-0.5 * z * z)
        for b in range(n_boot):
            den = 0.0
            for g in range(n_grid):
                out_grid[q, b, g] = 0.0
            acc_y = 0.0
            for j in range(k):
                cw = counts[b, nbr_idx[q, j]] * nbr_w[q, j]
                if cw == 0.0:
                    continue
                den += cw
                for g in range(n_grid):
                    out_grid[q, b, g] += cw * phi[j, g]
                acc_y += cw * phi[j, n_grid]
            if den > 0.0:
                scale = _INV_SQRT_2PI * inv_h / den
                for g in range(n_grid):
                    out_grid[q, b, g] *= scale
                out_y[q, b] = acc_y * scale
            else:
                for g in range(n_grid):
                    out_grid[q, b, g] = np.nan
                out_y[q, b] = np.nan


@lazy_njit(nogil=True)
def knn_boot_mean(nbr_idx, nbr_w, ytrain, counts, out):
    """Bootstrap kernel-weighted means of y over each neighbour list: out (nq, B)."""
    nq, k = nbr_idx.shape
    n_boot = counts.shape[0]
    for q in range(nq):
        for b in range(n_boot):
            den = 0.0
            acc = 0.0
            for j in range(k):
                cw = counts[b, nbr_idx[q, j]] * nbr_w[q, j]
                den += cw
                acc += cw * ytrain[nbr_idx[q, j]]
            out[q, b] = acc / den if den > 0.0 else np.nan


@lazy_njit(nogil=True)
def binned_boot_sums(ytrain, counts, hy, lo, delta, out):
    """Covariate-free bootstrap kernel sums S_b(u_g) = sum_j c_bj phi_h(u_g - y_j) on a fine grid.

    u_g = lo + g * delta, g < out.shape[1]; the y_j are linearly binned onto the grid, then the bins
    are convolved with the Gaussian kernel truncated at 6 h (binning error O(delta^2 / h^2)).
    out (B, G) receives the sums (not divided by the total count).
    """
    n_boot, n_grid = out.shape
    n_train = ytrain.shape[0]
    half = int(math.ceil(6.0 * hy / delta))
    kern = np.empty(2 * half + 1)
    for m in range(-half, half + 1):
        z = m * delta / hy
        kern[m + half] = math.exp(-0.5 * z * z) * _INV_SQRT_2PI / hy
    pos = np.empty(n_train, dtype=np.int64)
    frac = np.empty(n_train)
    for j in range(n_train):
        u = (ytrain[j] - lo) / delta
        g = int(math.floor(u))
        if g < 0:
            g, f = 0, 0.0
        elif g >= n_grid - 1:
            g, f = n_grid - 2, 1.0
        else:
            f = u - g
        pos[j] = g
        frac[j] = f
    bins = np.empty(n_grid)
    for b in range(n_boot):
        for g in range(n_grid):
            bins[g] = 0.0
            out[b, g] = 0.0
        for j in range(n_train):
            c = counts[b, j]
            if c != 0.0:
                bins[pos[j]] += c * (1.0 - frac[j])
                bins[pos[j] + 1] += c * frac[j]
        for g in range(n_grid):
            v = bins[g]
            if v == 0.0:
                continue
            a = max(0, g - half)
            e = min(n_grid, g + half + 1)
            for t in range(a, e):
                out[b, t] += v * kern[t - g + half]


@lazy_njit(nogil=True)
def loo_boot_density(ytrain, counts, hy, ypoints, self_idx, out):
    """Covariate-free bootstrap densities at ``ypoints`` leaving out training point ``self_idx``.

    self_idx (np,) int64 holds the index of the point itself in the training sample, or -1 when
    the point is not part of it; out (np, B).
    """
    n_pts = ypoints.shape[0]
    n_train = ytrain.shape[0]
    n_boot = counts.shape[0]
    inv_h = 1.0 / hy
    phi = np.empty(n_train)
    for p in range(n_pts):
        for j in range(n_train):
            z = (ypoints[p] - ytrain[j]) * inv_h
            phi[j] = math.exp(-0.5 * z * z)
        s = self_idx[p]
        for b in range(n_boot):
            num = 0.0
            den = 0.0
            for j in range(n_train):
                c = counts[b, j]
                if c != 0.0 and j != s:
                    num += c * phi[j]
                    den += c
            out[p, b] = num * _INV_SQRT_2PI * inv_h / den if den > 0.0 else np.nan
