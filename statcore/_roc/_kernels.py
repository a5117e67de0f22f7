"""Kernels of statcore.roc: one-pass loops over the sorted scores and the per-group counts that
numpy would spread over a dozen temporary arrays (at n = 10^6 each numpy pass costs a few ms and
the passes dominated after the sort: benchmarks/README.md).

Groups are the distinct scores in ascending order; ``cases[g]``, ``controls[g]`` count them. A case
in group g has DeLong placement ``(controls below g + controls[g] / 2) / n``; a control in group g
``(cases above g + cases[g] / 2) / m`` (Sun & Xu 2014)."""
import numpy as np

from .._jit import lazy_njit

__all__ = ["sorted_groups", "delong_var_groups", "delong_cov_paired"]


@lazy_njit(nogil=True)
def sorted_groups(order, s, is_case):
    """From ``order = argsort(s)``: the distinct values (ascending), the group of each observation,
    and the cases and controls per group."""
    n = order.size
    n_groups = 1
    for i in range(1, n):
        if s[order[i]] != s[order[i - 1]]:
            n_groups += 1
    uniq = np.empty(n_groups)
    cases = np.zeros(n_groups, np.int64)
    controls = np.zeros(n_groups, np.int64)
    gid = np.empty(n, np.int64)
    g = -1
    prev = 0.0
    for i in range(n):
        j = order[i]
        v = s[j]
        if i == 0 or v != prev:
            g += 1
            uniq[g] = v
            prev = v
        gid[j] = g
        if is_case[j]:
            cases[g] += 1
        else:
            controls[g] += 1
    return uniq, gid, cases, controls


@lazy_njit(nogil=True)
def delong_var_groups(cases, controls):
    """(AUC, DeLong variance) of one curve from its per-group counts."""
    G = cases.size
    m = 0.0
    n = 0.0
    for g in range(G):
        m += cases[g]
        n += controls[g]
    v10 = np.empty(G)
    v01 = np.empty(G)
    below = 0.0
    above = m
    for g in range(G):
        above -= cases[g]
        v10[g] = (below + 0.5 * controls[g]) / n
        v01[g] = (above + 0.5 * cases[g]) / m
        below += controls[g]
    a = 0.0
    for g in range(cases.size):
        a += cases[g] * v10[g]
    a /= m
    s10 = 0.0
    s01 = 0.0
    for g in range(cases.size):
        s10 += cases[g] * (v10[g] - a) ** 2
        s01 += controls[g] * (v01[g] - a) ** 2
    return a, s10 / (m - 1) / m + s01 / (n - 1) / n


@lazy_njit(nogil=True)
def delong_cov_paired(gid1, cases1, controls1, gid2, cases2, controls2, is_case):
    """The 2 x 2 DeLong covariance of two curves on the same observations."""
    m = 0.0
    n = 0.0
    for g in range(cases1.size):
        m += cases1[g]
        n += controls1[g]
    pl = []
    for c, d in ((cases1, controls1), (cases2, controls2)):
        v10 = np.empty(c.size)
        v01 = np.empty(c.size)
        below = 0.0
        above = m
        for g in range(c.size):
            above -= c[g]
            v10[g] = (below + 0.5 * d[g]) / n
            v01[g] = (above + 0.5 * c[g]) / m
            below += d[g]
        pl.append((v10, v01))
    p10, p01 = pl[0]
    q10, q01 = pl[1]
    a1 = 0.0
    for g in range(cases1.size):
        a1 += cases1[g] * p10[g]
    a1 /= m
    a2 = 0.0
    for g in range(cases2.size):
        a2 += cases2[g] * q10[g]
    a2 /= m
    s = np.zeros(6)  # cases: 11, 22, 12; controls: 11, 22, 12
    for i in range(gid1.size):
        if is_case[i]:
            x = p10[gid1[i]] - a1
            y = q10[gid2[i]] - a2
            s[0] += x * x
            s[1] += y * y
            s[2] += x * y
        else:
            x = p01[gid1[i]] - a1
            y = q01[gid2[i]] - a2
            s[3] += x * x
            s[4] += y * y
            s[5] += x * y
    out = np.empty((2, 2))
    out[0, 0] = s[0] / (m - 1) / m + s[3] / (n - 1) / n
    out[1, 1] = s[1] / (m - 1) / m + s[4] / (n - 1) / n
    out[0, 1] = s[2] / (m - 1) / m + s[5] / (n - 1) / n
    out[1, 0] = out[0, 1]
    return out
