"""Kernels for Gaussian location mixtures on a grid: likelihood matrix, mixture density,
Newton's predictive recursion.

All arrays are contiguous float64 (orders: int64); the kernels never validate.
"""
import math

import numpy as np

from .._jit import lazy_njit

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


@lazy_njit
def likelihood_matrix(x, sd, atoms, step, out, log_scale):
    """out[i, j] = N(x_i; atoms_j, sd_i^2) / max_j N(x_i; atoms_j, sd_i^2), log_scale[i] = log of that max.

    Entries below 1e-150 are set to 0: subnormal numbers (also in products of two entries, as in
    the Hessian L'DL) slow BLAS by orders of magnitude, and such entries change no sum. ``out``
    should be Fortran-ordered (n, m) so columns are contiguous. Scaling each row by its largest
    entry keeps that entry at 1, so no row underflows however far x_i lies from the grid; the
    log-likelihood of weights w is sum_i log((out w)_i) + log_scale[i].

    With ``step`` > 0 the atoms are equally spaced by ``step`` and most entries come from the
    exact recurrence L_{i,j+1} = L_ij r_ij, r_{i,j+1} = r_ij exp(-step^2 / sd_i^2) instead of an
    exponential, for rows with sd_i >= step; every 8th column (and wherever a row leaves the
    zeroed region) is computed directly, so rounding accumulates over at most 8 products
    (measured: within 1e-12 of the direct exponential, relative).
    """
    n = x.shape[0]
    m = atoms.shape[0]
    uniform = step > 0.0
    dmin = np.empty(n)
    for i in range(n):
        dmin[i] = np.inf
    if uniform:
        # nearest atom by position on the grid; its neighbours guard against rounding
        for i in range(n):
            c = int(round(min(max((x[i] - atoms[0]) / step, 0.0), m - 1.0)))
            for j in range(max(c - 1, 0), min(c + 2, m)):
                d = (x[i] - atoms[j]) * (x[i] - atoms[j])
                if d < dmin[i]:
                    dmin[i] = d
    else:
        for j in range(m):
            a = atoms[j]
            for i in range(n):
                d = (x[i] - a) * (x[i] - a)
                if d < dmin[i]:
                    dmin[i] = d
    half_prec = np.empty(n)
    q = np.empty(n)
    for i in range(n):
        half_prec[i] = 0.5 / (sd[i] * sd[i])
        log_scale[i] = -dmin[i] * half_prec[i] - math.log(sd[i]) - _LOG_SQRT_2PI
        q[i] = math.exp(-2.0 * half_prec[i] * step * step)
    cur = np.zeros(n)
    rat = np.zeros(n)
    # the recurrence only where neighbouring entries differ by at most a factor e^(1/2) at the row
    # maximum (sd >= step): there the ratios stay moderate and rounding does not build up;
    # narrower kernels leave few entries above 1e-150 per row anyway
    steady = np.empty(n, dtype=np.bool_)
    for i in range(n):
        steady[i] = uniform and half_prec[i] * step * step <= 0.5
    for j in range(m):
        a = atoms[j]
        anchor = (not uniform) or (j % 8 == 0)
        for i in range(n):
            d = (x[i] - a) * (x[i] - a)
            e = -(d - dmin[i]) * half_prec[i]
            if e <= -345.0:
                v = 0.0
            elif anchor or cur[i] == 0.0 or not steady[i]:
                v = math.exp(e)
                if steady[i]:
                    # L_{i,j+1} / L_ij = exp(h (2 step (x_i - a_j) - step^2)); bounded by e^345
                    # whenever it is used (both entries lie in (e^-345, 1])
                    rat[i] = math.exp(half_prec[i] * step * (2.0 * (x[i] - a) - step))
            else:
                v = cur[i] * rat[i]
                rat[i] *= q[i]
            out[i, j] = v
            cur[i] = v


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
