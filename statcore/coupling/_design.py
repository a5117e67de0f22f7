"""Arms, strata and weights of the data; count vectors for the bootstrap; values of both couplings."""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from .._checks import CouplingData, coupling_data_inputs, pow2_scale, strata_codes
from .._warnings import ConvergenceWarning, StatcoreWarning
from ._functions import _MAX_LP_CELLS, _F, _eval_f, _merge_values, _ot_bounds



class OverlapWarning(StatcoreWarning):
    """Some propensity scores were clipped: overlap between the arms is poor there.

    Examples
    --------
    >>> import warnings
    >>> from statcore.coupling import OverlapWarning
    >>> issubclass(OverlapWarning, UserWarning)
    True
    """

# ----------------------------------------------------------------------------------------------
# design: arms, strata, propensity weights, resampling
# ----------------------------------------------------------------------------------------------

def _logistic_fit(X: np.ndarray, t: np.ndarray, w: np.ndarray, beta0: np.ndarray | None = None,
                  max_iter: int = 100) -> tuple[np.ndarray, bool]:
    """Weighted maximum likelihood logistic regression by Newton-Raphson (X has the intercept)."""
    from scipy.special import expit

    beta = np.zeros(X.shape[1]) if beta0 is None else beta0.copy()
    for _ in range(max_iter):
        p = expit(X @ beta)
        g = X.T @ (w * (t - p))
        H = (X * (w * p * (1 - p))[:, None]).T @ X
        try:
            step = np.linalg.solve(H + 1e-12 * np.eye(H.shape[0]), g)
        except np.linalg.LinAlgError:
            return beta, False
        beta = beta + step
        if np.max(np.abs(step)) < 1e-9 * (1 + np.max(np.abs(beta))):
            return beta, bool(np.all(np.isfinite(beta)))
    return beta, False


@dataclass
class _Design:
    y: np.ndarray
    arm: np.ndarray                  # bool: treated
    strata: np.ndarray               # int codes
    levels: list
    p_s: np.ndarray                  # stratum shares n_s / n (held fixed in the bootstrap)
    cells: dict                      # (s, a) -> slice of the units, sorted by y
    pooled: dict                     # a -> units of the arm sorted by y (a slice without strata)
    inv_e: np.ndarray | None         # 1/e (treated) or 1/(1-e) (controls); None: equal weights
    X: np.ndarray | None             # standardised covariates with intercept (refit per replicate)
    beta: np.ndarray | None
    clip: float
    weights_note: str
    perm: np.ndarray                 # unit i of the design is unit perm[i] of the user's data
    Xo: np.ndarray | None = None     # outcome-model covariates with intercept (doubly robust marginals)
    dr: bool = False                 # marginals: doubly robust (True) or inverse-propensity weighted

    @property
    def exact(self) -> bool:
        return self.inv_e is None and len(self.levels) == 1

    def inverse_propensity(self, counts: np.ndarray) -> np.ndarray:
        """1/e or 1/(1 - e) per unit, refitted on the replicate when the propensity was fitted."""
        if self.X is None:
            return np.broadcast_to(self.inv_e, counts.shape)
        from scipy.special import expit

        out = np.empty_like(counts)
        t = self.arm.astype(np.float64)
        for r in range(counts.shape[0]):
            beta, _ = _logistic_fit(self.X, t, counts[r], self.beta)
            e = np.clip(expit(self.X @ beta), self.clip, 1 - self.clip)
            out[r] = np.where(self.arm, 1 / e, 1 / (1 - e))
        return out

    def resample(self, rng: np.random.Generator, n_rep: int, ratio: float | None) -> np.ndarray:
        """Counts (n_rep x n): n_cell draws with replacement within every stratum-by-arm cell
        (round(ratio * n_cell) of them for the m-out-of-n bootstrap); with doubly robust marginals,
        n draws from all units (the arms' sizes vary: the outcome models and the propensity are fitted
        on the pooled sample), a replicate with fewer than p + 2 units in an arm drawn again."""
        from ._kernels import count_draws

        if self.dr:
            n = self.y.size
            counts = np.empty((n_rep, n))
            count_draws(rng.integers(0, n, size=(n_rep, n), dtype=np.int32), counts)
            need = self.Xo.shape[1] + 2
            for r in range(n_rep):
                while min(counts[r, self.arm].sum(), counts[r, ~self.arm].sum()) < need:
                    counts[r] = np.bincount(rng.integers(0, n, size=n), minlength=n)
            return counts

        counts = np.empty((n_rep, self.y.size))
        for sl in self.cells.values():
            size = sl.stop - sl.start
            m = size if ratio is None else max(1, int(round(ratio * size)))
            cell = np.empty((n_rep, size))
            count_draws(rng.integers(0, size, size=(n_rep, m), dtype=np.int32), cell)
            counts[:, sl] = cell
        return counts


def _design_of(y, treat, X=None, propensity=None, strata=None, weights=None, clip: float = 0.01,
               nan_policy: str = "raise") -> _Design:
    """Validate the data and build their design (for internal callers and tests)."""
    data = coupling_data_inputs(y, treat, X=X, propensity=propensity, strata=strata, weights=weights,
                                nan_policy=nan_policy)
    return _make_design(data, clip)


def _make_design(data: CouplingData, clip: float) -> _Design:
    """The design of validated data (``statcore._checks.coupling_data_inputs``); ``data.X`` fits the
    propensity when none is given, and is kept (``Xo``) for doubly robust marginals."""
    yv, arm, strata, x, propensity = data.y, data.arm, data.strata, data.X, data.propensity
    xo = x
    if propensity is not None:
        x = None  # the given propensity is used as it is; X would only be needed to fit it
    if strata is None:
        codes, levels = np.zeros(yv.size, dtype=np.int64), ["(all)"]
    else:
        codes, levels = strata_codes(strata)
    n = yv.size
    p_s = np.bincount(codes, minlength=len(levels)) / n
    # units reordered once by (stratum, arm, y): every stratum-by-arm cell is a sorted contiguous slice,
    # so replicates are count vectors on slices (no gathers, no re-sorting)
    perm = np.lexsort((yv, ~arm, codes))
    yv, arm, codes = yv[perm], arm[perm], codes[perm]
    cells = {}
    for s in range(len(levels)):
        for a in (True, False):
            idx = np.flatnonzero((codes == s) & (arm == a))  # never empty: checked in coupling_data_inputs
            cells[(s, a)] = slice(int(idx[0]), int(idx[-1]) + 1)
    if len(levels) == 1:
        pooled = {a: cells[(0, a)] for a in (True, False)}
    else:
        order = np.argsort(yv, kind="stable")
        pooled = {a: order[arm[order] == a] for a in (True, False)}
    inv_e = X = beta = None
    note = "equal within arms (randomised experiment)"
    if strata is not None:
        note = "equal within stratum-by-arm cells, strata weighted by their shares"
    if data.weights is not None:
        inv_e = data.weights[perm]
        note = "user weights, normalised within arms"
    if propensity is not None:
        e = propensity[perm]
        note = "Hajek inverse-propensity weights (propensity given)"
    elif x is not None:
        xv = x[perm]
        xv = xv / pow2_scale(xv, center=np.median(xv, axis=0))  # exact; the variance of 1e300 overflowed
        sd = xv.std(axis=0)
        keep = sd > 0
        Z = (xv[:, keep] - xv[:, keep].mean(axis=0)) / sd[keep]
        X = np.column_stack([np.ones(n), Z])
        beta, ok = _logistic_fit(X, arm.astype(np.float64), np.ones(n))
        if not ok:
            warnings.warn("the logistic propensity fit did not converge (separation or collinear X); "
                          "weights may be extreme", ConvergenceWarning, stacklevel=5)
        from scipy.special import expit

        e = expit(X @ beta)
        note = "Hajek inverse-propensity weights (propensity fitted by logistic regression on X)"
    if propensity is not None or x is not None:
        low, high = e < clip, e > 1 - clip
        if low.any() or high.any():
            warnings.warn(f"{int(low.sum() + high.sum())} propensity scores outside [{clip:g}, {1 - clip:g}] "
                          "were clipped: overlap is poor there and the weighted marginals lean on few units",
                          OverlapWarning, stacklevel=5)
        e = np.clip(e, clip, 1 - clip)
        inv_e = np.where(arm, 1 / e, 1 / (1 - e))
        note += f", clipped to [{clip:g}, {1 - clip:g}]"
    Xo = None
    if xo is not None:
        xv = xo[perm]
        keep = np.ptp(xv, axis=0) > 0
        xk = xv[:, keep]
        # the linear outcome model's fit does not change when a column is rescaled: exact powers of two
        # bring columns of 1e300 to order 1 (their squares overflowed)
        Xo = np.column_stack([np.ones(n), xk / pow2_scale(xk, center=np.median(xk, axis=0))])
    return _Design(yv, arm, codes, levels, p_s, cells, pooled, inv_e, X, beta, clip, note, perm, Xo)


#: Residual draws per unit in the imputation part of the doubly robust marginals.
DR_DRAWS = 10
_GOLDEN = (np.sqrt(5.0) - 1.0) / 2.0


_LEVELS: dict = {}


def _isotonic(v: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted least-squares increasing fit (pool adjacent violators): scipy's, else scikit-learn's."""
    try:
        from scipy.optimize import isotonic_regression
    except ImportError:        # scipy < 1.12
        from sklearn.isotonic import isotonic_regression

        return isotonic_regression(v, sample_weight=w, increasing=True)
    return isotonic_regression(v, weights=w, increasing=True).x


def _dr_levels(n: int, K: int) -> tuple[np.ndarray, np.ndarray]:
    """The residual quantile levels (k + frac(i * golden ratio)) / K of units i < n, sorted, and
    their positions in the n x K array (cached: they depend on n and K only)."""
    if (n, K) not in _LEVELS:
        lev = ((np.arange(K)[None, :] + ((np.arange(n) * _GOLDEN) % 1.0)[:, None]) / K).ravel()
        order = np.argsort(lev, kind="stable")
        if len(_LEVELS) > 8:
            _LEVELS.clear()
        _LEVELS[(n, K)] = (lev[order], order)
    return _LEVELS[(n, K)]


def _dr_marginal(design: _Design, counts: np.ndarray, inv_e: np.ndarray, a: bool) -> tuple:
    """Doubly robust (augmented inverse-propensity weighted) estimate of one arm's marginal law.

    F(y) = mean_i G(y - m(X_i)) + sum_{i in arm} v_i [1{Y_i <= y} - G(y - m(X_i))], with m the
    least-squares regression of Y on X in the arm, G the empirical law of its residuals (a location
    shift model), v_i the Hajek-normalised inverse-propensity weights of the arm, all weighted by the
    replicate's ``counts``. G(y - m(X_i)) is represented by ``DR_DRAWS`` residual quantiles per unit at
    levels (k + frac(i * golden ratio)) / DR_DRAWS (deterministic, spread evenly over all units). The
    signed estimate is projected on distribution functions (weighted isotonic regression on [0, 1],
    weights the gaps between atoms). Returns (sorted atoms, masses summing to 1, mean).
    """
    Xo, y = design.Xo, design.y
    sel = design.arm if a else ~design.arm
    ca = counts[sel]
    Xa, ya = Xo[sel], y[sel]
    sw = np.sqrt(ca)
    coef = np.linalg.lstsq(Xa * sw[:, None], ya * sw, rcond=None)[0]
    res = ya - Xa @ coef
    o = np.argsort(res, kind="stable")
    rs = res[o]
    cs = np.cumsum(ca[o])
    cs /= cs[-1]
    K = DR_DRAWS
    n = y.size
    lev, order = _dr_levels(n, K)
    eps = np.empty(n * K)
    eps[order] = rs[np.minimum(np.searchsorted(cs, lev, side="left"), rs.size - 1)]
    eps = eps.reshape(n, K)
    m = Xo @ coef
    imp = m[:, None] + eps
    v = ca * inv_e[sel]
    v = v / v.sum()
    loc = np.concatenate([imp.ravel(), ya, imp[sel].ravel()])
    w = np.concatenate([np.repeat(counts / counts.sum() / K, K), v, -np.repeat(v / K, K)])
    nz = w != 0
    loc, w = loc[nz], w[nz]
    o = np.argsort(loc)
    loc, w = loc[o], w[o]
    F = np.cumsum(w)
    gaps = np.maximum(np.diff(loc, append=loc[-1]), 1e-12 * max(1.0, float(np.ptp(loc))))
    F = np.clip(_isotonic(F, gaps), 0.0, 1.0)     # the projection on [0, 1]-valued increasing sequences
    F[-1] = 1.0
    mass = np.diff(np.r_[0.0, F])
    keep = mass > 0
    loc, mass = loc[keep], mass[keep]
    return loc, mass, float(mass @ loc)


# ----------------------------------------------------------------------------------------------
# one pass over replicates: values of both couplings, pooled and per stratum
# ----------------------------------------------------------------------------------------------

@dataclass
class _Values:
    co: np.ndarray          # pooled marginals, comonotone
    counter: np.ndarray
    lower: np.ndarray       # sharp bounds (per-stratum, averaged over strata when strata are given)
    upper: np.ndarray
    co_x: np.ndarray        # E_X of the per-stratum comonotone values
    counter_x: np.ndarray
    strata_rows: list = field(default_factory=list)   # per stratum (co, counter, lower, upper) for R = 1
    means: tuple | None = None                         # the arms' means (doubly robust marginals)


def _cell_weights(design: _Design, counts: np.ndarray) -> np.ndarray:
    """Unit weights per replicate: each arm sums to one, each stratum-arm cell to its stratum share."""
    raw = counts if design.inv_e is None else counts * design.inverse_propensity(counts)
    w = np.zeros_like(raw)
    for (s, a), idx in design.cells.items():
        tot = raw[:, idx].sum(axis=1, keepdims=True)
        w[:, idx] = raw[:, idx] * (design.p_s[s] / np.where(tot > 0, tot, 1.0))
    return w


def _lp_rows(y1s, W1, y0s, W0, fx: _F, n_jobs: int = 1) -> tuple[np.ndarray, np.ndarray]:
    u1, inv1 = np.unique(y1s, return_inverse=True)
    u0, inv0 = np.unique(y0s, return_inverse=True)
    if u1.size * u0.size > _MAX_LP_CELLS:
        raise ValueError(f"f is neither supermodular nor submodular on the support and the transport "
                         f"linear program would have {u1.size} x {u0.size} cells (> {_MAX_LP_CELLS}); "
                         "round or bin the outcome first")
    C = _eval_f(fx, np.repeat(u1, u0.size), np.tile(u0, u1.size)).reshape(u1.size, u0.size)
    A = [np.bincount(inv1, weights=W1[r], minlength=u1.size) for r in range(W1.shape[0])]
    Bm = [np.bincount(inv0, weights=W0[r], minlength=u0.size) for r in range(W1.shape[0])]
    if n_jobs == 1 or W1.shape[0] == 1:
        res = [_ot_bounds(C, a, b) for a, b in zip(A, Bm)]
    else:
        # one linear program per replicate: joblib, so a Dask backend can take over
        from joblib import Parallel, delayed

        res = Parallel(n_jobs=n_jobs)(delayed(_ot_bounds)(C, a, b) for a, b in zip(A, Bm))
    lo, hi = np.array(res).reshape(-1, 2).T
    return lo.copy(), hi.copy()


def _pair_values(y1s, W1, y0s, W0, fx: _F, f_class: str, n_jobs: int = 1):
    co = _merge_values(y1s, W1, y0s, W0, fx, False)
    counter = _merge_values(y1s, W1, y0s, W0, fx, True)
    if f_class == "supermodular":
        lo, hi = counter, co
    elif f_class == "submodular":
        lo, hi = co, counter
    elif f_class == "modular":
        lo, hi = np.minimum(co, counter), np.maximum(co, counter)
    else:
        lo, hi = _lp_rows(y1s, W1, y0s, W0, fx, n_jobs)
    return co, counter, lo, hi


def _values(design: _Design, counts: np.ndarray, fx: _F, f_class: str,
            weights: np.ndarray | None = None, n_jobs: int = 1) -> _Values:
    """Both couplings per replicate from counts, or from final unit ``weights`` (each arm summing to 1)."""
    y = design.y
    if design.dr:
        inv = design.inverse_propensity(counts)
        rows = []
        for r in range(counts.shape[0]):
            l1, w1, m1 = _dr_marginal(design, counts[r], inv[r], True)
            l0, w0, m0 = _dr_marginal(design, counts[r], inv[r], False)
            vals = _pair_values(l1, w1[None], l0, w0[None], fx, f_class, n_jobs)
            rows.append(vals + (np.array([m1]), np.array([m0])))
        co, counter, lo, hi, m1, m0 = (np.concatenate(c) for c in zip(*rows))
        return _Values(co, counter, lo, hi, co, counter, means=(m1, m0))
    if design.exact and weights is None:
        # integer weights of equal totals: exact merge (counts * size of the other arm)
        i1, i0 = design.pooled[True], design.pooled[False]
        c1, c0 = counts[:, i1], counts[:, i0]
        W1 = c1 * c0.sum(axis=1, keepdims=True)
        W0 = c0 * c1.sum(axis=1, keepdims=True)
        co, counter, lo, hi = _pair_values(y[i1], W1, y[i0], W0, fx, f_class, n_jobs)
        return _Values(co, counter, lo, hi, co, counter)
    w = _cell_weights(design, counts) if weights is None else weights
    i1, i0 = design.pooled[True], design.pooled[False]
    co, counter, lo_p, hi_p = _pair_values(y[i1], w[:, i1], y[i0], w[:, i0], fx, f_class, n_jobs)
    if len(design.levels) == 1:
        return _Values(co, counter, lo_p, hi_p, co, counter)
    lo = np.zeros_like(co)
    hi = np.zeros_like(co)
    co_x = np.zeros_like(co)
    counter_x = np.zeros_like(co)
    rows = []
    for s in range(len(design.levels)):
        j1, j0 = design.cells[(s, True)], design.cells[(s, False)]
        vals = _pair_values(y[j1], w[:, j1], y[j0], w[:, j0], fx, f_class, n_jobs)
        ps = design.p_s[s]
        co_x += ps * vals[0]
        counter_x += ps * vals[1]
        lo += ps * vals[2]
        hi += ps * vals[3]
        rows.append(tuple(float(v[0]) for v in vals))
    return _Values(co, counter, lo, hi, co_x, counter_x, rows)


def _weighted_means(design: _Design, counts: np.ndarray,
                    weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    if weights is not None:
        return tuple((weights[:, design.pooled[a]] @ design.y[design.pooled[a]]) for a in (True, False))
    if design.exact:
        out = []
        for a in (True, False):
            idx = design.pooled[a]
            c = counts[:, idx]
            out.append((c @ design.y[idx]) / c.sum(axis=1))
        return out[0], out[1]
    w = _cell_weights(design, counts)
    return tuple((w[:, design.pooled[a]] @ design.y[design.pooled[a]]) for a in (True, False))


def _perturbed_atom_weights(design: _Design, counts: np.ndarray, step: float) -> np.ndarray:
    """Hong & Li (2018) numerical-delta replicates on the atoms: a + step * (a* - a) per atom.

    ``a`` are the atoms' masses in the data, ``a*`` in the replicate (counts); each atom's mass sits on
    its first unit (units of an atom are consecutive: cells are sorted by y). Masses are clipped at 0
    and each cell rescaled to its stratum share.
    """
    base = _cell_weights(design, np.ones((1, design.y.size)))
    star = _cell_weights(design, counts)
    out = np.zeros_like(star)
    for (s, _), sl in design.cells.items():
        yy = design.y[sl]
        starts = np.flatnonzero(np.r_[True, yy[1:] != yy[:-1]])
        a = np.add.reduceat(base[:, sl], starts, axis=1)
        a_star = np.add.reduceat(star[:, sl], starts, axis=1)
        pert = np.maximum(a + step * (a_star - a), 0.0)
        tot = pert.sum(axis=1, keepdims=True)
        pert *= design.p_s[s] / np.where(tot > 0, tot, 1.0)
        out[:, sl.start + starts] = pert
    return out
