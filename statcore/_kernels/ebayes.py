"""Kernels for Gaussian location mixtures on a grid: likelihood matrix, mixture density,
Newton's predictive recursion.

All arrays are contiguous float64 (orders: int64); the kernels never validate.
"""
import math

import numpy as np

from . import lazy_njit

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


@lazy_njit
def likelihood_matrix(x, sd, atoms, out, log_scale):
    """out[i, j] = N(x_i; atoms_j, sd_i^2) / max_j N(x_i; atoms_j, sd_i^2), log_scale[i] = log of that max.

    Entries below 1e-150 are set to 0. ``out`` should be Fortran-ordered (n, m) so columns are contiguous. Working with the row-scaled
    matrix keeps every row's largest entry at 1, so no row underflows however far x_i lies from the
    grid; the log-likelihood of weights w is sum_i log((out w)_i) + log_scale[i].
    """
    n = x.shape[0]
    m = atoms.shape[0]
    dmin = np.empty(n)
    for i in range(n):
        dmin[i] = np.inf
    for j in range(m):
        a = atoms[j]
        for i in range(n):
            d = (x[i] - a) * (x[i] - a)
            if d < dmin[i]:
                dmin[i] = d
    half_prec = np.empty(n)
    for i in range(n):
        half_prec[i] = 0.5 / (sd[i] * sd[i])
        log_scale[i] = -dmin[i] * half_prec[i] - math.log(sd[i]) - _LOG_SQRT_2PI
    for j in range(m):
        a = atoms[j]
        for i in range(n):
            d = (x[i] - a) * (x[i] - a)
            e = -(d - dmin[i]) * half_prec[i]
            # below e^-345 (1e-150) store 0: subnormal numbers (also in products of two entries,
            # as in the Hessian L'DL) slow BLAS by orders of magnitude; such entries change no sum
            out[i, j] = math.exp(e) if e > -345.0 else 0.0


@lazy_njit
def mixture_pdf(y, sd, atoms, weights, out):
    """out[i] = sum_j weights_j N(y_i; atoms_j, sd_i^2)."""
    n = y.shape[0]
    m = atoms.shape[0]
    for i in range(n):
        half_prec = 0.5 / (sd[i] * sd[i])
        c = math.exp(-_LOG_SQRT_2PI) / sd[i]
        s = 0.0
        for j in range(m):
            d = y[i] - atoms[j]
            s += weights[j] * math.exp(-d * d * half_prec)
        out[i] = c * s


@lazy_njit
def predictive_recursion_sweeps(x, orders, atoms, sd, decay, w_out, pll_out):
    """Newton's predictive recursion over the grid ``atoms``, once per row of ``orders``.

    For each order, start from uniform weights and for k = 1..n, with i the k-th index of the
    order and gamma_k = (k + 1)^(-decay):
        m_k = sum_j w_j N(x_i; a_j, sd^2),
        w_j <- (1 - gamma_k) w_j + gamma_k w_j N(x_i; a_j, sd^2) / m_k.
    w_out[s] receives the final weights of order s and pll_out[s] the predictive log-likelihood
    sum_k log m_k (Newton 2002; Martin & Tokdar 2009). Kernel values are scaled by their largest
    value over the grid before the division, which cancels in the update and avoids underflow.
    """
    n_orders = orders.shape[0]
    n = orders.shape[1]
    m = atoms.shape[0]
    half_prec = 0.5 / (sd * sd)
    log_norm = -math.log(sd) - _LOG_SQRT_2PI
    k_val = np.empty(m)
    w = np.empty(m)
    for s in range(n_orders):
        for j in range(m):
            w[j] = 1.0 / m
        pll = 0.0
        for k in range(n):
            xi = x[orders[s, k]]
            dmin = np.inf
            for j in range(m):
                d = (xi - atoms[j]) * (xi - atoms[j])
                k_val[j] = d
                if d < dmin:
                    dmin = d
            mk = 0.0
            for j in range(m):
                k_val[j] = math.exp(-(k_val[j] - dmin) * half_prec)
                mk += w[j] * k_val[j]
            gamma = (k + 2.0) ** (-decay)
            pll += math.log(mk) - dmin * half_prec + log_norm
            g_over_m = gamma / mk
            for j in range(m):
                w[j] = (1.0 - gamma) * w[j] + g_over_m * w[j] * k_val[j]
        # the update keeps sum(w) = 1 exactly in exact arithmetic; remove the rounding drift once
        tot = 0.0
        for j in range(m):
            tot += w[j]
        for j in range(m):
            w_out[s, j] = w[j] / tot
        pll_out[s] = pll
