"""Kernels of independent hypothesis weighting (``statcore.multitest._ihw``): the Grenander estimator
of every stratum (the least concave majorant of its ECDF) and the sparse linear programme of the
weights. Pure functions of arrays; no validation, no user errors."""
from __future__ import annotations

import numpy as np

from .._jit import lazy_njit

__all__ = ["grenander_pieces", "ihw_lp_thresholds", "thresholds_to_weights", "bh_rejections"]


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


def ihw_lp_thresholds(p_sorted: np.ndarray, starts: np.ndarray, m_holdout: np.ndarray, alpha: float,
                      lam: float, penalty: str, adjustment_type: str) -> np.ndarray:
    """The thresholds t_g of the LP relaxation (Ignatiadis & Huber 2021): maximise the expected
    discoveries sum_g m_g F_g(t_g) over the Grenander estimates F_g of the training strata, subject to
    the plug-in FDR constraint sum_g m_g (t_g - alpha F_g(t_g)) <= 0 ("BH") or the budget
    sum_g m_g t_g <= alpha ("bonferroni"), and a bound lam on the weights' total variation across
    adjacent strata ("total variation") or on their absolute deviation from one ("uniform deviation").
    Variables: y (G), t (G), f (the penalty's slack); all non-negative. ``m_holdout``: the counts of the
    strata in the fold the weights are for."""
    from scipy import sparse
    from scipy.optimize import linprog

    G = m_holdout.size
    grp, x, y, s = grenander_pieces(p_sorted, starts)
    K = grp.size
    m = float(m_holdout.sum())
    rows = [np.arange(K), np.arange(K)]
    cols = [grp, G + grp]
    vals = [np.ones(K), -s]
    rhs = [y - s * x]
    r = K
    n_f = 0
    if np.isfinite(lam):
        if penalty == "total variation":
            n_f = G - 1
            d = np.arange(G - 1)
            for sign in (1.0, -1.0):      # +-(t_{g+1} - t_g) - f_g <= 0
                rows += [r + d, r + d, r + d]
                cols += [G + d + 1, G + d, 2 * G + d]
                vals += [np.full(G - 1, sign), np.full(G - 1, -sign), np.full(G - 1, -1.0)]
                rhs.append(np.zeros(G - 1))
                r += G - 1
            # sum_g f_g <= lam * sum_g (m_g / m) t_g
            rows += [np.full(G, r), np.full(G - 1, r)]
            cols += [G + np.arange(G), 2 * G + d]
            vals += [-lam * m_holdout / m, np.ones(G - 1)]
            rhs.append(np.zeros(1))
            r += 1
        else:
            n_f = G
            g_ = np.arange(G)
            for sign in (1.0, -1.0):      # +-(m t_g - sum_h m_h t_h) - f_g <= 0
                dense = -sign * np.tile(m_holdout.astype(float), (G, 1))
                dense[g_, g_] += sign * m
                rr, cc = np.nonzero(dense)
                rows += [r + rr, r + g_]
                cols += [G + cc, 2 * G + g_]
                vals += [dense[rr, cc], np.full(G, -1.0)]
                rhs.append(np.zeros(G))
                r += G
            rows += [np.full(G, r), np.full(G, r)]
            cols += [G + g_, 2 * G + g_]
            vals += [-lam * m_holdout.astype(float), np.ones(G)]
            rhs.append(np.zeros(1))
            r += 1
    g_ = np.arange(G)
    if adjustment_type == "BH":
        rows += [np.full(G, r), np.full(G, r)]
        cols += [g_, G + g_]
        vals += [-alpha * m_holdout, m_holdout.astype(float)]
        rhs.append(np.zeros(1))
    else:
        rows.append(np.full(G, r))
        cols.append(G + g_)
        vals.append(m_holdout.astype(float))
        rhs.append(np.array([alpha]))
    r += 1
    n_var = 2 * G + n_f
    A = sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                          shape=(r, n_var))
    c = np.zeros(n_var)
    c[:G] = -(m_holdout / m) * G
    res = linprog(c, A_ub=A, b_ub=np.concatenate(rhs), bounds=(0, None), method="highs")
    if res.status != 0:  # the LP is always feasible (t = y = 0) and bounded (F_g <= 1)
        raise RuntimeError(f"the IHW linear programme failed: {res.message}")
    return np.maximum(res.x[G:2 * G], 0.0)


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
