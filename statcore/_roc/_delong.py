"""DeLong, DeLong & Clarke-Pearson (1988) placements computed as Sun & Xu (2014) do, in
O(n log n): from the counts of cases and controls per distinct score (one sort, in ``_curve``).

For a case i, the placement ``V10_i`` is the share of controls it beats (ties count one half); for a
control j, ``V01_j`` is the share of cases that beat it. The AUC is the mean of either; its variance
is ``S10 / m + S01 / n`` with ``S10``, ``S01`` the sample (co)variances (divisor m - 1, n - 1) of the
placements of the m cases and the n controls.
"""
from __future__ import annotations

import numpy as np

__all__ = ["placements", "delong_cov", "delong_var"]


def _group_placements(r):
    """Cases and controls per distinct score, their totals, and the placement of each group (a case
    of group g: the share of controls below it, ties one half; a control: of cases above it)."""
    c = np.asarray(r.group_cases, dtype=np.float64)
    d = np.asarray(r.group_controls, dtype=np.float64)
    m, n = c.sum(), d.sum()
    v10 = (np.cumsum(d) - d + 0.5 * d) / n
    v01 = (m - np.cumsum(c) + 0.5 * c) / m
    return c, d, m, n, v10, v01


def placements(r) -> tuple[np.ndarray, np.ndarray]:
    """``(V10, V01)``: the placements of the cases and of the controls, each in input order."""
    _, _, _, _, v10_group, v01_group = _group_placements(r)
    g = np.asarray(r.group)
    case = np.asarray(r.is_case)
    return v10_group[g[case]], v01_group[g[~case]]


def delong_var(r, *, kernel: bool | None = None) -> float:
    """DeLong's variance of one curve's AUC from the per-group placements (O(G), no per-observation
    arrays: every case of a group has the same placement)."""
    from ._curve import _use_kernel

    if _use_kernel(np.asarray(r.group_cases).size, kernel):
        from ._kernels import delong_var_groups

        return float(delong_var_groups(np.asarray(r.group_cases), np.asarray(r.group_controls))[1])
    c, d, m, n, v10, v01 = _group_placements(r)
    a10 = np.dot(c, v10) / m
    a01 = np.dot(d, v01) / n
    s10 = np.dot(c, (v10 - a10) ** 2) / (m - 1)
    s01 = np.dot(d, (v01 - a01) ** 2) / (n - 1)
    return float(s10 / m + s01 / n)


def _cov(a: np.ndarray, b: np.ndarray) -> float:
    k = a.size
    return float(np.dot(a - a.mean(), b - b.mean()) / (k - 1))


def delong_cov(*rocs, kernel: bool | None = None) -> np.ndarray:
    """The DeLong covariance matrix of the AUCs of curves built on the same observations (one curve:
    a 1 x 1 matrix holding its variance)."""
    from ._curve import _use_kernel

    if len(rocs) == 2 and _use_kernel(np.asarray(rocs[0].is_case).size, kernel):
        from ._kernels import delong_cov_paired

        r1, r2 = rocs
        return delong_cov_paired(np.asarray(r1.group), np.asarray(r1.group_cases), np.asarray(r1.group_controls),
                                 np.asarray(r2.group), np.asarray(r2.group_cases), np.asarray(r2.group_controls),
                                 np.asarray(r1.is_case))
    pl = [placements(r) for r in rocs]
    m = pl[0][0].size
    n = pl[0][1].size
    k = len(rocs)
    out = np.empty((k, k))
    for i in range(k):
        for j in range(i, k):
            out[i, j] = out[j, i] = _cov(pl[i][0], pl[j][0]) / m + _cov(pl[i][1], pl[j][1]) / n
    return out
