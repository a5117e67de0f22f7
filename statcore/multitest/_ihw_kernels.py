"""Kernels of independent hypothesis weighting (``statcore.multitest._ihw``): the Grenander estimator
of every stratum (the least concave majorant of its ECDF) and the sparse linear programme of the
weights. Pure functions of arrays; no validation, no user errors."""
from __future__ import annotations

import numpy as np

from .._jit import lazy_njit

__all__ = ["grenander_pieces", "Pieces", "lp_thresholds", "knapsack_thresholds", "penalty_holds",
           "thresholds_to_weights", "weighted_pvalues", "bh_rejections"]


@lazy_njit
def grenander_pieces(p, starts):
    """The least concave majorant of the ECDF of each block ``p[starts[g]:starts[g + 1]]`` (sorted
    ascending within the block), through (0, 0) and (1, 1) when no p-value sits there.

    Returns ``(group, x, y, slope)``: one row per linear piece of the majorant (its left knot
    ``(x, y)`` and its slope), the pieces of block 0 first. An empty block gives the uniform CDF.
    """
    n_groups = starts.size - 1
    cap = p.size + 2 * n_groups
    out_g = np.empty(cap, np.int64)
    out_x = np.empty(cap)
    out_y = np.empty(cap)
    out_s = np.empty(cap)
    px = np.empty(p.size + 2)
    py = np.empty(p.size + 2)
    hull = np.empty(p.size + 2, np.int64)
    k = 0
    for g in range(n_groups):
        a = starts[g]
        b = starts[g + 1]
        m = b - a
        npts = 0
        if m == 0 or p[a] > 0.0:
            px[npts] = 0.0
            py[npts] = 0.0
            npts += 1
        i = a
        while i < b:
            j = i
            while j + 1 < b and p[j + 1] == p[i]:
                j += 1
            px[npts] = p[i]
            py[npts] = (j - a + 1) / m
            npts += 1
            i = j + 1
        if m == 0 or p[b - 1] < 1.0:
            px[npts] = 1.0
            py[npts] = 1.0
            npts += 1
        # upper hull of points sorted by x (monotone chain): drop a middle point on or below its chord
        h = 0
        for q in range(npts):
            while h >= 2:
                i0 = hull[h - 2]
                i1 = hull[h - 1]
                if (py[i1] - py[i0]) * (px[q] - px[i0]) <= (py[q] - py[i0]) * (px[i1] - px[i0]):
                    h -= 1
                else:
                    break
            hull[h] = q
            h += 1
        for r in range(h - 1):
            i0 = hull[r]
            i1 = hull[r + 1]
            out_g[k] = g
            out_x[k] = px[i0]
            out_y[k] = py[i0]
            out_s[k] = (py[i1] - py[i0]) / (px[i1] - px[i0])
            k += 1
    return out_g[:k], out_x[:k], out_y[:k], out_s[:k]


class Pieces:
    """The linear pieces of the Grenander estimators of G strata: stratum, left knot, slope, length,
    and each stratum's value at 0."""

    def __init__(self, p_sorted: np.ndarray, starts: np.ndarray):
        self.G = starts.size - 1
        self.grp, self.x, self.y, self.s = grenander_pieces(p_sorted, starts)
        last = np.r_[self.grp[1:] != self.grp[:-1], True]
        self.length = np.r_[self.x[1:], 1.0] - self.x
        self.length[last] = 1.0 - self.x[last]
        first = np.r_[True, self.grp[1:] != self.grp[:-1]]
        self.y0 = np.zeros(self.G)
        self.y0[self.grp[first]] = self.y[first]


def knapsack_thresholds(pc: Pieces, m_holdout: np.ndarray, alpha: float, adjustment_type: str) -> np.ndarray:
    """The thresholds of the LP without a penalty (lambda = Inf), exactly: one coupling constraint
    makes it a fractional knapsack over the pieces, filled by decreasing slope (the gain per unit
    of the budget grows with the slope), the last piece in part."""
    mk = m_holdout[pc.grp].astype(float)
    if adjustment_type == "BH":
        cost = mk * (1.0 - alpha * pc.s)
        budget = alpha * float(np.sum(m_holdout * pc.y0))
    else:
        cost = mk.copy()
        budget = alpha
    d = np.zeros(pc.grp.size)
    useful = (pc.s > 0) & (mk > 0)
    free = useful & (cost <= 0)
    d[free] = pc.length[free]
    budget -= float(np.sum(cost[free] * pc.length[free]))
    idx = np.flatnonzero(useful & ~free)
    idx = idx[np.argsort(-pc.s[idx], kind="stable")]
    spend = cost[idx] * pc.length[idx]
    cum = np.cumsum(spend)
    n_full = int(np.searchsorted(cum, budget, side="right"))
    d[idx[:n_full]] = pc.length[idx[:n_full]]
    if n_full < idx.size:
        rest = budget - (cum[n_full - 1] if n_full else 0.0)
        d[idx[n_full]] = max(rest, 0.0) / cost[idx[n_full]]
    return np.bincount(pc.grp, weights=d, minlength=pc.G)


def penalty_holds(t: np.ndarray, m_holdout: np.ndarray, lam: float, penalty: str) -> bool:
    """Whether thresholds ``t`` satisfy the penalty bound ``lam`` (then the optimum of a looser
    bound is also the optimum under ``lam``)."""
    if not np.isfinite(lam):
        return True
    total = float(np.sum(m_holdout * t))
    if penalty == "total variation":
        tv = float(np.sum(np.abs(np.diff(t))))
        return tv <= lam * total / float(m_holdout.sum()) * (1 + 1e-12)
    m = float(m_holdout.sum())
    dev = float(np.sum(np.abs(m * t - total)))
    return dev <= lam * total * (1 + 1e-12)


def _lp_rows(G: int, m_holdout: np.ndarray, alpha: float, lam: float, penalty: str, adjustment_type: str):
    """The constraint rows of the LP in the thresholds t (G), the values y = F(t) (G) and the
    penalty's slacks f: dense matrices (T, Y, Fs) and the right-hand side, all rows "<=" ."""
    m = float(m_holdout.sum())
    T, Y, Fs, rhs = [], [], [], []
    if np.isfinite(lam):
        if penalty == "total variation":
            n_f = G - 1
            D = np.zeros((G - 1, G))
            D[np.arange(G - 1), np.arange(1, G)] = 1.0
            D[np.arange(G - 1), np.arange(G - 1)] = -1.0
            for sign in (1.0, -1.0):            # +-(t_{g+1} - t_g) - f_g <= 0
                T.append(sign * D)
                Fs.append(-np.eye(G - 1))
            T.append(-lam * m_holdout[None, :] / m)  # sum_g f_g <= lam * sum_g (m_g / m) t_g
            Fs.append(np.ones((1, G - 1)))
        else:
            n_f = G
            C = m * np.eye(G) - m_holdout[None, :]
            for sign in (1.0, -1.0):            # +-(m t_g - sum_h m_h t_h) - f_g <= 0
                T.append(sign * C)
                Fs.append(-np.eye(G))
            T.append(-lam * m_holdout[None, :])    # sum_g f_g <= lam * sum_g m_g t_g
            Fs.append(np.ones((1, G)))
        rhs.append(np.zeros(2 * n_f + 1))
        Y.append(np.zeros((2 * n_f + 1, G)))
    else:
        n_f = 0
    if adjustment_type == "BH":                 # sum_g m_g (t_g - alpha y_g) <= 0
        T.append(m_holdout[None, :].astype(float))
        Y.append(-alpha * m_holdout[None, :])
        rhs.append(np.zeros(1))
    else:                                        # sum_g m_g t_g <= alpha
        T.append(m_holdout[None, :].astype(float))
        Y.append(np.zeros((1, G)))
        rhs.append(np.array([alpha]))
    Fs.append(np.zeros((1, n_f)))
    return np.vstack(T), np.vstack(Y), np.vstack(Fs), np.concatenate(rhs)


def _solve_window(pc: Pieces, keep: np.ndarray, rows, m_holdout: np.ndarray, G: int) -> np.ndarray:
    """The LP on the pieces ``keep``: the pieces of a stratum left of its kept ones are taken whole
    (t_g >= their end), those right of them left out (t_g <= their start)."""
    from scipy import sparse
    from scipy.optimize import linprog

    T, Y, Fs, rhs = rows
    grp = pc.grp
    # the pieces of a stratum before its first kept piece
    first_kept = np.full(G, grp.size)
    kidx = np.flatnonzero(keep)
    np.minimum.at(first_kept, grp[kidx], kidx)
    below = np.arange(grp.size) < first_kept[grp]
    base_t = np.bincount(grp[below], weights=pc.length[below], minlength=G)
    base_y = pc.y0 + np.bincount(grp[below], weights=pc.s[below] * pc.length[below], minlength=G)
    kg = grp[kidx]
    A = T[:, kg] + Y[:, kg] * pc.s[kidx][None, :]
    n_f = Fs.shape[1]
    A = sparse.csr_matrix(np.hstack([A, Fs]))
    b = rhs - T @ base_t - Y @ base_y
    c = np.zeros(kidx.size + n_f)
    c[:kidx.size] = -(m_holdout[kg] / m_holdout.sum()) * G * pc.s[kidx]
    bounds = np.zeros((c.size, 2))
    bounds[:kidx.size, 1] = pc.length[kidx]
    bounds[kidx.size:, 1] = np.inf
    res = linprog(c, A_ub=A, b_ub=b, bounds=bounds, method="highs")
    if res.status == 2 and base_t.any():  # a window's lower ends too high: widen them
        return None
    if res.status != 0:  # the full LP is always feasible (every t = 0) and bounded (F_g <= 1)
        raise RuntimeError(f"the IHW linear programme failed: {res.message}")
    return base_t + np.bincount(kg, weights=res.x[:kidx.size], minlength=G)


def lp_thresholds(pc: Pieces, m_holdout: np.ndarray, alpha: float, lam: float, penalty: str,
                  adjustment_type: str, window: tuple | None = None) -> np.ndarray:
    """The thresholds t_g of the LP relaxation (Ignatiadis & Huber 2021): maximise the expected
    discoveries sum_g m_g F_g(t_g) over the Grenander estimates F_g of the training strata, subject to
    the plug-in FDR constraint sum_g m_g (t_g - alpha F_g(t_g)) <= 0 ("BH") or the budget
    sum_g m_g t_g <= alpha ("bonferroni"), and a bound lam on the weights' total variation across
    adjacent strata ("total variation") or on their absolute deviation from one ("uniform deviation").
    ``m_holdout``: the counts of the strata in the fold the weights are for.

    Each F_g is concave and piecewise linear on [0, 1], so t_g is the sum of the lengths d_k taken of
    its pieces, 0 <= d_k <= the piece's length, and F_g(t_g) = F_g(0) + sum_k slope_k d_k (concavity
    fills the steepest pieces first): bounded columns, about 2 G rows.

    ``window`` (per stratum, low and high thresholds thought to bracket the optimum) restricts each
    stratum to its pieces in the window; the answer is the optimum of the full LP all the same, because a restricted optimum that
    lies strictly inside every window it was given is a local, hence global, optimum of the LP (a
    window touched is widened and the LP solved again)."""
    G = m_holdout.size
    rows = _lp_rows(G, m_holdout.astype(float), alpha, lam, penalty, adjustment_type)
    n = pc.grp.size
    if window is None:
        return _solve_window(pc, np.ones(n, dtype=bool), rows, m_holdout, G)
    lo = np.array(window[0], dtype=float)
    hi = np.minimum(np.array(window[1], dtype=float), 1.0)
    lo[~(hi > lo)] = 0.0
    hi[~(hi > lo)] = 1.0
    while True:
        keep = (pc.x + pc.length > lo[pc.grp]) & (pc.x < hi[pc.grp])
        first = np.full(G, n)
        last = np.full(G, -1)
        kidx = np.flatnonzero(keep)
        np.minimum.at(first, pc.grp[kidx], kidx)
        np.maximum.at(last, pc.grp[kidx], kidx)
        t = _solve_window(pc, keep, rows, m_holdout, G)
        if t is None:
            lo = np.where(lo / 16 < 1e-300, 0.0, lo / 16)
            continue
        empty = first == n
        start = np.where(empty, 0.0, pc.x[np.minimum(first, n - 1)])
        end = np.where(empty, 1.0, pc.x[np.maximum(last, 0)] + pc.length[np.maximum(last, 0)])
        tol = 1e-12
        at_lo = (start > 0) & (t <= start + tol)
        at_hi = (end < 1) & (t >= end - tol)
        if not (at_lo.any() or at_hi.any()) and not empty.any():
            return t
        if empty.any():
            lo[empty], hi[empty] = 0.0, 1.0
        lo[at_lo] = lo[at_lo] / 16
        lo[lo < 1e-300] = 0.0
        hi[at_hi] = np.minimum(hi[at_hi] * 16, 1.0)


def thresholds_to_weights(t: np.ndarray, m_holdout: np.ndarray) -> np.ndarray:
    """Weights proportional to the thresholds, averaging one over the fold's hypotheses (all one
    when every threshold is zero)."""
    if np.all(t == 0):
        return np.ones(t.size)
    return t * m_holdout.sum() / np.sum(m_holdout * t)


def weighted_pvalues(p: np.ndarray, w: np.ndarray) -> np.ndarray:
    """p / w capped at 1; 0 where p is 0 and 1 where the weight is 0 (R IHW's rule)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.minimum(p / w, 1.0)
    out[w == 0] = 1.0
    out[p == 0] = 0.0
    return out


def bh_rejections(wp_sorted: np.ndarray, alpha: float, adjustment_type: str) -> int:
    """The number of rejections of BH (or Bonferroni) at ``alpha`` among sorted weighted p-values,
    computed as ``p.adjust(..) <= alpha`` counts them (``n / i * p``)."""
    n = wp_sorted.size
    if adjustment_type == "BH":
        ok = np.flatnonzero((n / np.arange(1, n + 1)) * wp_sorted <= alpha)
        return int(ok[-1] + 1) if ok.size else 0
    return int(np.count_nonzero(np.minimum(n * wp_sorted, 1.0) <= alpha))
