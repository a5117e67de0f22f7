"""DeLong, DeLong & Clarke-Pearson (1988) placements computed as Sun & Xu (2014) do, in
O(n log n): from the counts of cases and controls per distinct score (one sort, in ``_curve``).

For a case i, the placement ``V10_i`` is the share of controls it beats (ties count one half); for a
control j, ``V01_j`` is the share of cases that beat it. The AUC is the mean of either; its variance
is ``S10 / m + S01 / n`` with ``S10``, ``S01`` the sample (co)variances (divisor m - 1, n - 1) of the
placements of the m cases and the n controls.
"""
from __future__ import annotations

import numpy as np

__all__ = ["placements", "delong_cov"]


def placements(r) -> tuple[np.ndarray, np.ndarray]:
    """``(V10, V01)``: the placements of the cases and of the controls, each in input order."""
    c = np.asarray(r.group_cases, dtype=np.float64)
    d = np.asarray(r.group_controls, dtype=np.float64)
    m, n = c.sum(), d.sum()
    below = np.cumsum(d) - d
    above = m - np.cumsum(c)
    v10_group = (below + 0.5 * d) / n
    v01_group = (above + 0.5 * c) / m
    g = np.asarray(r.group)
    case = np.asarray(r.is_case)
    return v10_group[g[case]], v01_group[g[~case]]


def _cov(a: np.ndarray, b: np.ndarray) -> float:
    k = a.size
    return float(np.dot(a - a.mean(), b - b.mean()) / (k - 1))


def delong_cov(*rocs) -> np.ndarray:
    """The DeLong covariance matrix of the AUCs of curves built on the same observations (one curve:
    a 1 x 1 matrix holding its variance)."""
    pl = [placements(r) for r in rocs]
    m = pl[0][0].size
    n = pl[0][1].size
    k = len(rocs)
    out = np.empty((k, k))
    for i in range(k):
        for j in range(i, k):
            out[i, j] = out[j, i] = _cov(pl[i][0], pl[j][0]) / m + _cov(pl[i][1], pl[j][1]) / n
    return out
