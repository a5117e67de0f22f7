"""Joint potential outcomes: comonotone / countercomonotone identification and sharp bounds.

Data never show Y1 and Y0 of one unit together, so E[f(Y1, Y0)] is not identified by the two
marginals. Under comonotonicity (units keep their rank) it is int_0^1 f(Q1(u), Q0(u)) du; under
countercomonotonicity int_0^1 f(Q1(u), Q0(1 - u)) du, with the generalised quantile functions Q, so
discrete, continuous and mixed outcomes are one case. Without either assumption the two values are
the sharp bounds for supermodular f (counter below, co above) and the other way round for submodular
f (Lorentz 1953; Cambanis, Simons & Stout 1976; Tchen 1980). For other f the sharp bounds are the
optimal-transport linear programs on the two marginals.

For empirical (weighted) marginals both integrals are exact finite sums: merging the two cumulative
weight sequences (the north-west-corner rule of the transportation problem) gives the pieces of
[0, 1] on which both quantile functions are constant.

References
----------
Cambanis, S., Simons, G. & Stout, W. (1976). Inequalities for Ek(X, Y) when the marginals are fixed.
Z. Wahrscheinlichkeitstheorie verw. Gebiete 36, 285-294.
Tchen, A. H. (1980). Inequalities for distributions with given marginals. Ann. Probab. 8, 814-827.
Makarov, G. D. (1981). Estimates for the distribution function of a sum of two random variables when
the marginal distributions are fixed. Theory Probab. Appl. 26, 803-806.
Fan, Y. & Park, S. S. (2010). Sharp bounds on the distribution of treatment effects and their
statistical inference. Econometric Theory 26, 931-951.
Heckman, J. J., Smith, J. & Clements, N. (1997). Making the most out of programme evaluations and
social experiments. Rev. Econ. Stud. 64, 487-535.
Imbens, G. W. & Manski, C. F. (2004). Confidence intervals for partially identified parameters.
Econometrica 72, 1845-1857.
Stoye, J. (2009). More on confidence intervals for partially identified parameters. Econometrica 77,
1299-1315.
Bickel, P. J., Goetze, F. & van Zwet, W. R. (1997). Resampling fewer than n observations. Statist.
Sinica 7, 1-31.
"""
from __future__ import annotations

import math
import re
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ._checks import as_float_array, check_choice, check_positive_int, check_probability, check_seed
from ._result import StatcoreWarning, TableResult
from ._rformat import R_DIGITS, format_numbers, format_table

__all__ = ["coupling_mean", "joint_bounds", "JointBounds", "makarov_bounds", "MakarovBounds",
           "ite_variance_bounds", "coupling_functions", "OverlapWarning", "ConvergenceWarning"]


class OverlapWarning(StatcoreWarning):
    """Some propensity scores were clipped: overlap between the arms is poor there."""


class ConvergenceWarning(StatcoreWarning):
    """The logistic propensity fit did not converge (separation or collinear covariates)."""


# ----------------------------------------------------------------------------------------------
# f: named functions with their known class, or a user callable
# ----------------------------------------------------------------------------------------------

# name: (vectorised f, class, label, code of the compiled kernel's built-in f)
_NAMED_F: dict[str, tuple[Callable, str, str, int]] = {
    "product": (lambda a, b: a * b, "supermodular", "Y1 * Y0", 0),
    "sq_diff": (lambda a, b: (a - b) ** 2, "submodular", "(Y1 - Y0)^2", 1),
    "abs_diff": (lambda a, b: np.abs(a - b), "submodular", "|Y1 - Y0|", 2),
    "min": (np.minimum, "supermodular", "min(Y1, Y0)", 3),
    "max": (np.maximum, "submodular", "max(Y1, Y0)", 4),
}

#: Names ``coupling_mean`` and ``joint_bounds`` accept for ``f`` (plus "indicator(s, t)").
coupling_functions: tuple[str, ...] = (*_NAMED_F, "indicator(s, t)")

_INDICATOR = re.compile(r"^\s*indicator\s*\(\s*([^,()]+?)\s*,\s*([^,()]+?)\s*\)\s*$")


@dataclass(frozen=True)
class _F:
    fn: Callable
    label: str
    known_class: str | None  # "supermodular" / "submodular" by construction, None: detect
    code: int | None = None  # built-in f of the compiled merge (no pieces arrays)
    params: tuple = (0.0, 0.0)


def _resolve_f(f: Any) -> _F:
    if isinstance(f, _F):
        return f
    if isinstance(f, str):
        if f in _NAMED_F:
            fn, cls, label, code = _NAMED_F[f]
            return _F(fn, label, cls, code)
        m = _INDICATOR.match(f)
        if m:
            try:
                s, t = float(m.group(1)), float(m.group(2))
            except ValueError:
                raise ValueError(f"f {f!r}: s and t of 'indicator(s, t)' must be numbers") from None
            # 1{Y1 <= s, Y0 <= t}: the joint distribution function, supermodular
            return _F(lambda a, b: ((a <= s) & (b <= t)).astype(np.float64), f"1{{Y1 <= {s:g}, Y0 <= {t:g}}}",
                      "supermodular", 5, (s, t))
        raise ValueError(f"unknown f {f!r}; choose one of {', '.join(map(repr, coupling_functions))} "
                         "or pass a vectorised callable f(y1, y0)")
    if not callable(f):
        raise TypeError(f"f must be a vectorised callable f(y1, y0) or a name, got {type(f).__name__}")
    label = getattr(f, "__name__", "f")
    return _F(f, "f(Y1, Y0)" if label == "<lambda>" else f"{label}(Y1, Y0)", None)


def _eval_f(fx: _F, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.asarray(fx.fn(a, b), dtype=np.float64)
    if out.shape != a.shape:
        out = np.broadcast_to(out, a.shape) if out.ndim == 0 else out
        if out.shape != a.shape:
            raise ValueError(f"f must be vectorised: f(y1, y0) on arrays of shape {a.shape} returned shape "
                             f"{out.shape}")
    return out


# ----------------------------------------------------------------------------------------------
# the north-west-corner merge
# ----------------------------------------------------------------------------------------------

def _merge_values(y1s: np.ndarray, W1: np.ndarray, y0s: np.ndarray, W0: np.ndarray, fx: _F,
                  counter: bool) -> np.ndarray:
    """sum over the coupling's pieces of f * length / total, one value per row of W1, W0.

    ``y1s``, ``y0s`` ascending; ``W1`` (R x n1), ``W0`` (R x n0) non-negative weights in that order,
    each row of W1 with the same total as the row of W0.
    """
    from ._kernels import coupling as kc

    total = W1.sum(axis=1)
    if fx.code is not None:
        return kc.sums(W1, W0, y1s, y0s, counter, fx.code, *fx.params) / total
    pi, pj, plen, npieces = kc.pieces(W1, W0, counter)
    if W1.shape[0] == 1:
        k = int(npieces[0])
        vals = _eval_f(fx, y1s[pi[0, :k]], y0s[pj[0, :k]])
        with np.errstate(invalid="ignore"):
            return np.array([np.dot(vals, plen[0, :k]) / total[0]])
    vals = _eval_f(fx, y1s[pi], y0s[pj])
    with np.errstate(invalid="ignore"):
        return np.sum(vals * plen, axis=1, where=plen > 0) / total


def _as_arm(y: Any, name: str) -> np.ndarray:
    arr = as_float_array(y, name).ravel()
    if arr.size == 0:
        raise ValueError(f"{name} is empty; each arm needs at least one value")
    return arr


def _as_weights(w: Any, n: int, name: str) -> np.ndarray:
    arr = as_float_array(w, name).ravel()
    if arr.size != n:
        raise ValueError(f"{name} has {arr.size} values but its sample has {n}; pass one weight per value")
    if (arr < 0).any():
        raise ValueError(f"{name} must be non-negative; found {arr.min()!r}")
    if not arr.sum() > 0:
        raise ValueError(f"{name} sums to zero; at least one weight must be positive")
    return arr


def coupling_mean(y1, y0, f, coupling: str = "comonotone", w1=None, w0=None) -> float:
    """E[f(Y1, Y0)] under the comonotone or countercomonotone coupling of two empirical marginals.

    Exact for the (weighted) empirical distributions of ``y1`` and ``y0``, ties included: the two
    cumulative weight sequences are merged (the north-west-corner rule) and f is integrated over the
    pieces of [0, 1] on which both generalised quantile functions are constant, O(n log n).

    Parameters
    ----------
    y1, y0 : array_like
        Samples from the two marginals (any lengths).
    f : callable or str
        Vectorised ``f(y1, y0)`` or one of "product", "sq_diff", "abs_diff", "min", "max",
        "indicator(s, t)" (the joint distribution function 1{Y1 <= s, Y0 <= t}).
    coupling : {"comonotone", "countercomonotone"}
        int f(Q1(u), Q0(u)) du or int f(Q1(u), Q0(1 - u)) du.
    w1, w0 : array_like, optional
        Non-negative weights of the values (normalised within each sample); equal by default.

    Returns
    -------
    float

    Examples
    --------
    >>> from statcore.coupling import coupling_mean
    >>> coupling_mean([1, 2, 3], [10, 20, 30], "product")
    46.666666666666664
    >>> coupling_mean([1, 2, 3], [10, 20, 30], "product", coupling="countercomonotone")
    33.333333333333336
    >>> coupling_mean([0, 1], [0, 0, 1], "indicator(0, 0)")  # P(Y1 <= 0, Y0 <= 0) under comonotonicity
    0.5

    References
    ----------
    Cambanis, Simons & Stout (1976); Tchen (1980).
    """
    coupling = check_choice(coupling, "coupling", ("comonotone", "countercomonotone"),
                            {"co": "comonotone", "counter": "countercomonotone",
                             "countermonotone": "countercomonotone"})
    fx = _resolve_f(f)
    a1 = _as_arm(y1, "y1")
    a0 = _as_arm(y0, "y0")
    n1, n0 = a1.size, a0.size
    if w1 is None and w0 is None:
        y1s, y0s = np.sort(a1), np.sort(a0)
        # integer-valued weights of equal totals: the merge has no rounding at all
        W1 = np.full((1, n1), float(n0))
        W0 = np.full((1, n0), float(n1))
    else:
        v1 = np.ones(n1) if w1 is None else _as_weights(w1, n1, "w1")
        v0 = np.ones(n0) if w0 is None else _as_weights(w0, n0, "w0")
        o1 = np.argsort(a1, kind="stable")
        o0 = np.argsort(a0, kind="stable")
        y1s, y0s = a1[o1], a0[o0]
        W1 = (v1[o1] / v1.sum())[None, :]
        W0 = (v0[o0] / v0.sum())[None, :]
    return float(_merge_values(y1s, W1, y0s, W0, fx, coupling == "countercomonotone")[0])


# ----------------------------------------------------------------------------------------------
# class of f: mixed differences on the support
# ----------------------------------------------------------------------------------------------

_MAX_CELLS = 10 ** 8     # full check of the mixed differences up to this many support pairs
_SUBGRID = 4000          # otherwise on this many quantiles of each support


def _detect_class(fx: _F, u1: np.ndarray, u0: np.ndarray) -> tuple[str, str]:
    """("supermodular" | "submodular" | "modular" | "general", how it was found)."""
    if u1.size < 2 or u0.size < 2:
        return "modular", "one support point in an arm: every coupling is the same"
    if fx.known_class is not None:
        return fx.known_class, "by construction"
    note = "mixed differences on the support"
    if u1.size * u0.size > _MAX_CELLS:
        u1 = u1[np.unique(np.linspace(0, u1.size - 1, _SUBGRID).round().astype(int))]
        u0 = u0[np.unique(np.linspace(0, u0.size - 1, _SUBGRID).round().astype(int))]
        note = f"mixed differences on a {u1.size} x {u0.size} sub-grid of quantiles of the support"
    pos = neg = False
    rows = max(1, 2_000_000 // u0.size)
    prev = _eval_f(fx, np.full(u0.size, u1[0]), u0)
    for start in range(1, u1.size, rows):
        block = u1[start:start + rows]
        F = _eval_f(fx, np.repeat(block, u0.size), np.tile(u0, block.size)).reshape(block.size, u0.size)
        if not np.isfinite(F).all():
            raise ValueError("f returned non-finite values on the support of the data")
        G = np.vstack([prev[None, :], F])
        D = np.diff(np.diff(G, axis=0), axis=1)
        tol = 1e-12 * max(1.0, float(np.abs(G).max()))
        pos |= bool((D > tol).any())
        neg |= bool((D < -tol).any())
        prev = F[-1]
        if pos and neg:
            return "general", note
    if pos:
        return "supermodular", note
    if neg:
        return "submodular", note
    return "modular", note


# ----------------------------------------------------------------------------------------------
# the optimal-transport linear program (general f)
# ----------------------------------------------------------------------------------------------

_MAX_LP_CELLS = 250_000


def _ot_bounds(C: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """min and max of sum C * P over couplings P of the probability vectors a and b (HiGHS)."""
    from scipy import sparse
    from scipy.optimize import linprog

    k1, k0 = C.shape
    keep1, keep0 = a > 0, b > 0
    C, a, b = C[np.ix_(keep1, keep0)], a[keep1], b[keep0]
    k1, k0 = C.shape
    a = a / a.sum()
    b = b / b.sum()
    rows = sparse.kron(sparse.eye(k1), np.ones((1, k0)), format="csr")
    cols = sparse.kron(np.ones((1, k1)), sparse.eye(k0), format="csr")
    A = sparse.vstack([rows, cols[:-1]]).tocsr()  # one column constraint is implied by the totals
    rhs = np.concatenate([a, b[:-1]])
    out = []
    for sign in (1.0, -1.0):
        res = linprog(sign * C.ravel(), A_eq=A, b_eq=rhs, bounds=(0, None), method="highs",
                      options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
        if res.status != 0:
            raise RuntimeError(f"the transport linear program failed: {res.message}")
        out.append(sign * res.fun)
    return out[0], out[1]


# ----------------------------------------------------------------------------------------------
# design: arms, strata, propensity weights, resampling
# ----------------------------------------------------------------------------------------------

def _as_treat(treat: Any, n: int) -> np.ndarray:
    t = np.asarray(treat.to_numpy() if hasattr(treat, "to_numpy") else treat)
    if t.ndim != 1 or t.size != n:
        raise ValueError(f"treat must be a 1-d vector with one value per outcome ({n}), got shape {t.shape}")
    if t.dtype.kind == "b":
        return t.astype(bool)
    try:
        tf = t.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError("treat must be binary: 0/1 or False/True") from None
    if not np.isin(tf, (0.0, 1.0)).all():
        bad = tf[~np.isin(tf, (0.0, 1.0))][0]
        raise ValueError(f"treat must be binary: 0/1 or False/True; found {bad!r}")
    return tf == 1.0


def _as_labels(v: Any, n: int, name: str) -> tuple[np.ndarray, list]:
    arr = np.asarray(v.to_numpy() if hasattr(v, "to_numpy") else v)
    if arr.ndim != 1 or arr.size != n:
        raise ValueError(f"{name} must have one label per outcome ({n}), got shape {arr.shape}")
    try:
        levels, codes = np.unique(arr, return_inverse=True)
    except TypeError:
        levels, codes = np.unique(arr.astype(str), return_inverse=True)
    return codes.astype(np.int64), [v.item() if hasattr(v, "item") else v for v in levels]


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
        (round(ratio * n_cell) of them for the m-out-of-n bootstrap)."""
        counts = np.empty((n_rep, self.y.size))
        for sl in self.cells.values():
            size = sl.stop - sl.start
            m = size if ratio is None else max(1, int(round(ratio * size)))
            draws = rng.integers(0, size, size=(n_rep, m))
            draws += (np.arange(n_rep) * size)[:, None]
            counts[:, sl] = np.bincount(draws.ravel(), minlength=n_rep * size).reshape(n_rep, size)
        return counts


def _make_design(y, treat, x, propensity, strata, clip: float, weights=None) -> _Design:
    yv = as_float_array(y, "y").ravel()
    if yv.size == 0:
        raise ValueError("y is empty")
    arm = _as_treat(treat, yv.size)
    for a, label in ((True, "treated (treat == 1)"), (False, "control (treat == 0)")):
        if not (arm == a).any():
            raise ValueError(f"treat: the {label} arm is empty; both arms need at least one unit")
    if strata is None:
        codes, levels = np.zeros(yv.size, dtype=np.int64), ["(all)"]
    else:
        codes, levels = _as_labels(strata, yv.size, "strata")
    n = yv.size
    p_s = np.bincount(codes, minlength=len(levels)) / n
    # units reordered once by (stratum, arm, y): every stratum-by-arm cell is a sorted contiguous slice,
    # so replicates are count vectors on slices (no gathers, no re-sorting)
    perm = np.lexsort((yv, ~arm, codes))
    yv, arm, codes = yv[perm], arm[perm], codes[perm]
    cells = {}
    for s in range(len(levels)):
        for a in (True, False):
            idx = np.flatnonzero((codes == s) & (arm == a))
            if idx.size == 0:
                raise ValueError(f"strata: stratum {levels[s]!r} has no {'treated' if a else 'control'} "
                                 "units; merge it with a neighbour or drop it")
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
    if weights is not None:
        inv_e = _as_weights(weights, n, "weights")[perm]
        note = "user weights, normalised within arms"
    if propensity is not None:
        e = as_float_array(propensity, "propensity").ravel()
        if e.size != n:
            raise ValueError(f"propensity has {e.size} values but y has {n}; pass one score per unit")
        if (e <= 0).any() or (e >= 1).any():
            bad = e[(e <= 0) | (e >= 1)][0]
            raise ValueError(f"propensity must lie strictly inside (0, 1); found {bad!r}")
        e = e[perm]
        note = "Hajek inverse-propensity weights (propensity given)"
    elif x is not None:
        xv = as_float_array(x, "x")
        if xv.ndim == 1:
            xv = xv[:, None]
        if xv.ndim != 2 or xv.shape[0] != n:
            raise ValueError(f"x must have one row per outcome ({n}), got shape {xv.shape}")
        xv = xv[perm]
        sd = xv.std(axis=0)
        keep = sd > 0
        Z = (xv[:, keep] - xv[:, keep].mean(axis=0)) / sd[keep]
        X = np.column_stack([np.ones(n), Z])
        beta, ok = _logistic_fit(X, arm.astype(np.float64), np.ones(n))
        if not ok:
            warnings.warn("the logistic propensity fit did not converge (separation or collinear x); "
                          "weights may be extreme", ConvergenceWarning, stacklevel=4)
        from scipy.special import expit

        e = expit(X @ beta)
        note = "Hajek inverse-propensity weights (propensity fitted by logistic regression on x)"
    if propensity is not None or x is not None:
        low, high = e < clip, e > 1 - clip
        if low.any() or high.any():
            warnings.warn(f"{int(low.sum() + high.sum())} propensity scores outside [{clip:g}, {1 - clip:g}] "
                          "were clipped: overlap is poor there and the weighted marginals lean on few units",
                          OverlapWarning, stacklevel=4)
        e = np.clip(e, clip, 1 - clip)
        inv_e = np.where(arm, 1 / e, 1 / (1 - e))
        note += f", clipped to [{clip:g}, {1 - clip:g}]"
    return _Design(yv, arm, codes, levels, p_s, cells, pooled, inv_e, X, beta, clip, note, perm)


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


def _cell_weights(design: _Design, counts: np.ndarray) -> np.ndarray:
    """Unit weights per replicate: each arm sums to one, each stratum-arm cell to its stratum share."""
    raw = counts if design.inv_e is None else counts * design.inverse_propensity(counts)
    w = np.zeros_like(raw)
    for (s, a), idx in design.cells.items():
        tot = raw[:, idx].sum(axis=1, keepdims=True)
        w[:, idx] = raw[:, idx] * (design.p_s[s] / np.where(tot > 0, tot, 1.0))
    return w


def _lp_rows(y1s, W1, y0s, W0, fx: _F) -> tuple[np.ndarray, np.ndarray]:
    u1, inv1 = np.unique(y1s, return_inverse=True)
    u0, inv0 = np.unique(y0s, return_inverse=True)
    if u1.size * u0.size > _MAX_LP_CELLS:
        raise ValueError(f"f is neither supermodular nor submodular on the support and the transport "
                         f"linear program would have {u1.size} x {u0.size} cells (> {_MAX_LP_CELLS}); "
                         "round or bin the outcome first")
    C = _eval_f(fx, np.repeat(u1, u0.size), np.tile(u0, u1.size)).reshape(u1.size, u0.size)
    lo = np.empty(W1.shape[0])
    hi = np.empty(W1.shape[0])
    for r in range(W1.shape[0]):
        a = np.bincount(inv1, weights=W1[r], minlength=u1.size)
        b = np.bincount(inv0, weights=W0[r], minlength=u0.size)
        lo[r], hi[r] = _ot_bounds(C, a, b)
    return lo, hi


def _pair_values(y1s, W1, y0s, W0, fx: _F, f_class: str):
    co = _merge_values(y1s, W1, y0s, W0, fx, False)
    counter = _merge_values(y1s, W1, y0s, W0, fx, True)
    if f_class == "supermodular":
        lo, hi = counter, co
    elif f_class == "submodular":
        lo, hi = co, counter
    elif f_class == "modular":
        lo, hi = np.minimum(co, counter), np.maximum(co, counter)
    else:
        lo, hi = _lp_rows(y1s, W1, y0s, W0, fx)
    return co, counter, lo, hi


def _values(design: _Design, counts: np.ndarray, fx: _F, f_class: str) -> _Values:
    y = design.y
    if design.exact:
        # integer weights of equal totals: exact merge (counts * size of the other arm)
        i1, i0 = design.pooled[True], design.pooled[False]
        c1, c0 = counts[:, i1], counts[:, i0]
        W1 = c1 * c0.sum(axis=1, keepdims=True)
        W0 = c0 * c1.sum(axis=1, keepdims=True)
        co, counter, lo, hi = _pair_values(y[i1], W1, y[i0], W0, fx, f_class)
        return _Values(co, counter, lo, hi, co, counter)
    w = _cell_weights(design, counts)
    i1, i0 = design.pooled[True], design.pooled[False]
    co, counter, lo_p, hi_p = _pair_values(y[i1], w[:, i1], y[i0], w[:, i0], fx, f_class)
    if len(design.levels) == 1:
        return _Values(co, counter, lo_p, hi_p, co, counter)
    lo = np.zeros_like(co)
    hi = np.zeros_like(co)
    co_x = np.zeros_like(co)
    counter_x = np.zeros_like(co)
    rows = []
    for s in range(len(design.levels)):
        j1, j0 = design.cells[(s, True)], design.cells[(s, False)]
        vals = _pair_values(y[j1], w[:, j1], y[j0], w[:, j0], fx, f_class)
        ps = design.p_s[s]
        co_x += ps * vals[0]
        counter_x += ps * vals[1]
        lo += ps * vals[2]
        hi += ps * vals[3]
        rows.append(tuple(float(v[0]) for v in vals))
    return _Values(co, counter, lo, hi, co_x, counter_x, rows)


def _weighted_means(design: _Design, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if design.exact:
        out = []
        for a in (True, False):
            idx = design.pooled[a]
            c = counts[:, idx]
            out.append((c @ design.y[idx]) / c.sum(axis=1))
        return out[0], out[1]
    w = _cell_weights(design, counts)
    return tuple((w[:, design.pooled[a]] @ design.y[design.pooled[a]]) for a in (True, False))


# ----------------------------------------------------------------------------------------------
# inference
# ----------------------------------------------------------------------------------------------

def _bvn_upper_lower(a: float, b: float, rho: float) -> float:
    """P(A <= a, B >= -b) for standard bivariate normal (A, B) with correlation rho."""
    from scipy.stats import multivariate_normal, norm

    if not np.isfinite(a) or not np.isfinite(b):
        if a == np.inf:
            return float(norm.cdf(b))
        if b == np.inf:
            return float(norm.cdf(a))
        return 0.0
    return float(multivariate_normal.cdf([a, b], mean=[0, 0], cov=[[1, -rho], [-rho, 1]]))


def imbens_manski_interval(lower: float, upper: float, se_lower: float, se_upper: float,
                           conf_level: float) -> tuple[float, float]:
    """Imbens & Manski (2004): [l - c se_l, u + c se_u], Phi(c + D / max(se)) - Phi(-c) = level."""
    from scipy.optimize import brentq
    from scipy.stats import norm

    delta = max(upper - lower, 0.0)
    s = max(se_lower, se_upper)
    if s <= 0:
        return lower, upper
    c = brentq(lambda c: norm.cdf(c + delta / s) - norm.cdf(-c) - conf_level, 0.0, 10.0)
    return lower - c * se_lower, upper + c * se_upper


def stoye_interval(lower: float, upper: float, se_lower: float, se_upper: float, rho: float,
                   conf_level: float, n: int) -> tuple[float, float]:
    """Stoye (2009): shortest [l - c_l se_l, u + c_u se_u] covering both ends with probability level.

    The bounds' estimation errors are taken as bivariate normal with the bootstrap correlation rho;
    the width D = u - l enters after the pre-test of Stoye (2009, Sec. 3.3): D is used when it
    exceeds max(se) * sqrt(log n) and set to 0 otherwise (superefficient D, no Imbens-Manski
    discontinuity when the bounds nearly meet).
    """
    from scipy.optimize import brentq, minimize_scalar
    from scipy.stats import norm

    if se_lower <= 0 or se_upper <= 0:
        return imbens_manski_interval(lower, upper, se_lower, se_upper, conf_level)
    delta = max(upper - lower, 0.0)
    if delta <= max(se_lower, se_upper) * math.sqrt(math.log(max(n, 3))):
        delta = 0.0
    rho = float(np.clip(rho, -0.995, 0.995))
    z = norm.ppf(conf_level)

    def cu_for(cl: float) -> float:
        need = []
        for f in (lambda cu: _bvn_upper_lower(cl, cu + delta / se_upper, rho),
                  lambda cu: _bvn_upper_lower(cl + delta / se_lower, cu, rho)):
            if f(12.0) < conf_level:
                return np.inf
            if f(-12.0) >= conf_level:  # this end is covered whatever c_u is
                need.append(-12.0)
                continue
            need.append(brentq(lambda cu: f(cu) - conf_level, -12.0, 12.0, xtol=1e-7))
        return max(need)

    lo_cl = z + 1e-6 if delta > 0 else norm.ppf(conf_level) + 1e-6
    res = minimize_scalar(lambda cl: cl * se_lower + cu_for(cl) * se_upper, bounds=(lo_cl, 8.0),
                          method="bounded", options={"xatol": 1e-6})
    cl = float(res.x)
    cu = cu_for(cl)
    return lower - cl * se_lower, upper + cu * se_upper


def _kink_boundaries(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Cumulative weights at the ends of atoms (values holding >= 1% of the weight, >= 2 units)."""
    u, inv, cnt = np.unique(y, return_inverse=True, return_counts=True)
    mass = np.bincount(inv, weights=w, minlength=u.size)
    mass = mass / mass.sum()
    atom = (mass >= 0.01) & (cnt >= 2)
    ends = atom.copy()
    ends[:-1] |= atom[1:]          # the end of the piece just below an atom is a jump of Q too
    c = np.cumsum(mass)[:-1]
    return c[ends[:-1]]


def _kink(design: _Design, fx: _F) -> str | None:
    """Why the functional may be non-differentiable at the data's marginals (None: smooth).

    Either a jump of Q1 (an atom boundary) meets a jump of Q0 or of Q0(1 - .) within 2 s.e.
    (discrete outcomes with p1 = p0), or f has a kink on the diagonal (|y1 - y0|, min, max) and
    Q1(u) = Q0(u) on a set of u holding at least 1% (atoms shared by the arms).
    """
    from ._kernels import coupling as kc

    w = _cell_weights(design, np.ones((1, design.y.size)))[0]
    n1 = int(design.arm.sum())
    n0 = design.y.size - n1
    i1, i0 = design.pooled[True], design.pooled[False]
    y1, y0, w1, w0 = design.y[i1], design.y[i0], w[i1], w[i0]
    b1 = _kink_boundaries(y1, w1)
    b0 = _kink_boundaries(y0, w0)
    if b1.size and b0.size:
        for other in (b0, 1 - b0):
            d = np.abs(b1[:, None] - other[None, :])
            pbar = np.clip((b1[:, None] + other[None, :]) / 2, 1e-9, 1 - 1e-9)
            se = np.sqrt(pbar * (1 - pbar) * (1 / n1 + 1 / n0))
            if (d <= 2 * se).any():
                return ("a jump of Q1 meets a jump of Q0 (discrete outcomes with equal cumulative "
                        "probabilities)")
    if fx.code in (2, 3, 4):
        for counter in (False, True):
            pi, pj, plen, k = kc.pieces((w1 / w1.sum())[None, :], (w0 / w0.sum())[None, :], counter)
            k = int(k[0])
            if plen[0, :k][y1[pi[0, :k]] == y0[pj[0, :k]]].sum() >= 0.01:
                return (f"Q1(u) = Q0(u) on a set of u of positive measure (atoms shared by the arms), where "
                        f"{fx.label} is not differentiable")
    return None


# ----------------------------------------------------------------------------------------------
# result
# ----------------------------------------------------------------------------------------------

_ASSUMPTIONS = ("comonotone", "countercomonotone", "comonotone given X", "countercomonotone given X")


@dataclass
class JointBounds(TableResult):
    """Sharp bounds on E[f(Y1, Y0)] and, under a stated assumption, its identified value.

    Attributes
    ----------
    lower, upper : float
        Sharp bounds (with ``strata``: the covariate-tightened bounds E_X[bounds given X]).
    estimate : float or None
        The identified value under ``assumption`` (None without one).
    conf_int : tuple or None
        Confidence interval for the point under ``assumption``, else for the identified set.
    set_conf_int, point_conf_int : tuple or None
        Both intervals (the point interval only with an assumption).
    comonotone, countercomonotone : float
        E f(Q1(U), Q0(U)) and E f(Q1(U), Q0(1 - U)) of the (weighted) marginals.
    f_class : str
        "supermodular", "submodular", "modular" or "general" (bounds from the transport LP).
    se : dict
        Bootstrap standard errors of lower, upper, estimate.
    boot : dict of arrays
        The bootstrap replicates (lower, upper, comonotone, countercomonotone, estimate).
    """

    lower: float
    upper: float
    estimate: float | None
    conf_int: tuple | None
    set_conf_int: tuple | None
    point_conf_int: tuple | None
    comonotone: float
    countercomonotone: float
    f_label: str
    f_class: str
    class_note: str
    assumption: str | None
    conf_level: float
    ci: str
    B: int
    bootstrap: str
    m_ratio: float | None
    kink: bool
    n1: int
    n0: int
    weights_note: str
    data_name: str
    se: dict
    boot: dict
    strata_table: Any = None
    given_x: dict | None = None
    notes: list = field(default_factory=list)
    _curves: Any = None

    def to_frame(self):
        """One row per quantity: bounds, the two couplings, the identified value; estimate and s.e."""
        import pandas as pd

        rows = {"lower": (self.lower, self.se.get("lower")), "upper": (self.upper, self.se.get("upper")),
                "comonotone": (self.comonotone, self.se.get("comonotone")),
                "countercomonotone": (self.countercomonotone, self.se.get("countercomonotone"))}
        if self.estimate is not None:
            rows["estimate"] = (self.estimate, self.se.get("estimate"))
        df = pd.DataFrame({"value": [v[0] for v in rows.values()],
                           "std_error": [np.nan if v[1] is None else v[1] for v in rows.values()]},
                          index=list(rows))
        df.index.name = "quantity"
        return df

    def summary(self, digits: int = R_DIGITS) -> str:
        kind = "Identified value and sharp bounds" if self.assumption else "Sharp bounds"
        lines = ["", f"\t{kind} on E[{self.f_label}] from the two marginals", "",
                 f"data:  {self.data_name} (n1 = {self.n1}, n0 = {self.n0})",
                 f"weights: {self.weights_note}",
                 f"f: {self.f_label}, {self.f_class} ({self.class_note})"]
        if self.f_class == "general":
            lines.append("bounds: exact optimal-transport linear program on the two marginals (HiGHS)")
        lines.append("assumption: " + (self.assumption if self.assumption else
                                       "none (sharp bounds only)"))
        if self.strata_table is not None:
            lines.append(f"strata: {len(self.strata_table)}; bounds are E_X[bounds given X]")
        lines.append("")
        names = ["lower bound", "upper bound", "comonotone", "countercomonotone"]
        if self.strata_table is not None or self.given_x is not None:
            names[2:] = ["comonotone (pooled)", "countercomonotone (pooled)"]
        vals = [self.lower, self.upper, self.comonotone, self.countercomonotone]
        ses = [self.se.get("lower"), self.se.get("upper"), self.se.get("comonotone"),
               self.se.get("countercomonotone")]
        if self.given_x is not None:
            for k in ("comonotone given X", "countercomonotone given X"):
                names.append(k)
                vals.append(self.given_x[k])
                ses.append(self.se.get(k))
        if self.estimate is not None:
            names.append(f"estimate ({self.assumption})")
            vals.append(self.estimate)
            ses.append(self.se.get("estimate"))
        cols = {"Estimate": vals}
        if self.B > 0:
            cols["Std. Error"] = [np.nan if s is None else s for s in ses]
        lines.append(format_table(names, cols, digits))
        lines.append("")
        level = format_numbers([100 * self.conf_level])[0].strip()
        if self.B > 0:
            how = {"imbens-manski": "Imbens-Manski", "stoye": "Stoye"}[self.ci]
            boot = (f"{self.bootstrap} bootstrap, B = {self.B}" if self.bootstrap == "n-out-of-n" else
                    f"m-out-of-n bootstrap (m/n = {self.m_ratio:.3g}), B = {self.B}")
            if self.set_conf_int is not None:
                set_how = how if self.bootstrap == "n-out-of-n" else "equal-tailed per end"
                lines.append(f"{level} percent confidence interval for the identified set ({set_how}; {boot}):")
                lines.append(" " + " ".join(format_numbers(self.set_conf_int, digits)))
            if self.point_conf_int is not None:
                lines.append(f"{level} percent confidence interval for the value under '{self.assumption}' "
                             f"({boot}):")
                lines.append(" " + " ".join(format_numbers(self.point_conf_int, digits)))
        else:
            lines.append("no confidence interval (B = 0)")
        for note in self.notes:
            lines.append("Note: " + note)
        lines.append("")
        return "\n".join(lines) + "\n"

    def _plot(self, ax=None, points: int = 400):
        """Left: Q1(u), Q0(u), Q0(1 - u). Right: the two integrands f(Q1(u), Q0(u)), f(Q1(u), Q0(1 - u))."""
        import matplotlib.pyplot as plt

        y1s, c1, y0s, c0, fx = self._curves
        u = (np.arange(points) + 0.5) / points
        q1 = y1s[np.minimum(np.searchsorted(c1, u, side="left"), y1s.size - 1)]
        q0 = y0s[np.minimum(np.searchsorted(c0, u, side="left"), y0s.size - 1)]
        q0r = y0s[np.minimum(np.searchsorted(c0, 1 - u, side="left"), y0s.size - 1)]
        if ax is None:
            fig, axes = plt.subplots(1, 2, figsize=(10, 4))
        else:
            axes = np.asarray(ax).ravel()
            fig = axes[0].figure
        a1, a2 = axes
        a1.step(u, q1, where="mid", color="C3", label="$Q_1(u)$")
        a1.step(u, q0, where="mid", color="C0", label="$Q_0(u)$ (comonotone)")
        a1.step(u, q0r, where="mid", color="C0", ls="--", label="$Q_0(1-u)$ (countercomonotone)")
        a1.set_xlabel("u")
        a1.set_ylabel("quantile")
        a1.legend(fontsize=8)
        a2.step(u, _eval_f(fx, q1, q0), where="mid", color="C2", label=f"comonotone: {self.comonotone:.4g}")
        a2.step(u, _eval_f(fx, q1, q0r), where="mid", color="C1", ls="--",
                label=f"countercomonotone: {self.countercomonotone:.4g}")
        a2.set_xlabel("u")
        a2.set_ylabel(self.f_label)
        a2.set_title(f"bounds [{self.lower:.4g}, {self.upper:.4g}]", fontsize=10)
        a2.legend(fontsize=8)
        fig.tight_layout()
        return fig


# ----------------------------------------------------------------------------------------------
# joint_bounds
# ----------------------------------------------------------------------------------------------

def _n_threads(n_jobs: int):
    import numba

    mx = numba.config.NUMBA_NUM_THREADS
    return mx if n_jobs == -1 else max(1, min(n_jobs, mx))


def _check_args(conf_level, B, ci, bootstrap, assumption, f_class, n_jobs, clip, strata, x):
    conf_level = check_probability(conf_level, "conf_level", open_right=True)
    B = check_positive_int(B, "B", minimum=0)
    ci = check_choice(ci, "ci", ("imbens-manski", "stoye"), {"im": "imbens-manski", "IM": "imbens-manski"})
    bootstrap = check_choice(bootstrap, "bootstrap", ("auto", "n-out-of-n", "m-out-of-n"), {"n": "n-out-of-n"})
    if assumption is not None:
        assumption = check_choice(assumption, "assumption", _ASSUMPTIONS + ("none",))
        if assumption == "none":
            assumption = None
    if assumption is not None and assumption.endswith("given X") and strata is None:
        raise ValueError(f"assumption {assumption!r} needs strata (a discrete X): E_X of the coupling "
                         "within strata. Without strata choose 'comonotone' or 'countercomonotone', "
                         "which restrict the unconditional joint law")
    f_class = check_choice(f_class, "f_class", ("auto", "supermodular", "submodular", "general"))
    if n_jobs != -1:
        n_jobs = check_positive_int(n_jobs, "n_jobs")
    clip = check_probability(clip, "clip", open_left=False, open_right=True)
    if clip >= 0.5:
        raise ValueError(f"clip must be below 0.5, got {clip!r}")
    return conf_level, B, ci, bootstrap, assumption, f_class, n_jobs, clip


def _bounds(y, treat, fx: _F, x, propensity, strata, assumption, f_class, conf_level, B, ci, seed,
            n_jobs, bootstrap, m, clip, adjust, data_name, weights=None) -> JointBounds:
    conf_level, B, ci, bootstrap, assumption, f_class, n_jobs, clip = _check_args(
        conf_level, B, ci, bootstrap, assumption, f_class, n_jobs, clip, strata, x)
    if x is not None and propensity is not None:
        x = None  # the given propensity is used as it is; x would only be needed to fit it
    design = _make_design(y, treat, x, propensity, strata, clip, weights)
    rng = check_seed(seed)
    i1, i0 = design.pooled[True], design.pooled[False]
    if f_class == "auto":
        f_class, class_note = _detect_class(fx, np.unique(design.y[i1]), np.unique(design.y[i0]))
    else:
        class_note = "as stated by the user"
    n1 = int(design.arm.sum())
    n0 = design.y.size - n1

    def compute(counts: np.ndarray) -> dict:
        v = _values(design, counts, fx, f_class)
        out = {"lower": v.lower, "upper": v.upper, "comonotone": v.co, "countercomonotone": v.counter,
               "comonotone given X": v.co_x, "countercomonotone given X": v.counter_x}
        if adjust is not None:
            m1, m0 = _weighted_means(design, counts)
            corr = adjust(m1, m0)
            out = {k: val - corr for k, val in out.items()}
        out["_rows"] = v.strata_rows
        return out

    import numba

    old_threads = numba.get_num_threads() if B > 0 else None
    try:
        if B > 0:
            numba.set_num_threads(_n_threads(n_jobs))
        point = compute(np.ones((1, design.y.size)))
        est = {k: float(v[0]) for k, v in point.items() if k != "_rows"}
        lower, upper = est["lower"], est["upper"]
        estimate = est[assumption] if assumption else None
        notes = []
        why = _kink(design, fx)
        kink = why is not None
        if bootstrap == "auto":
            bootstrap = "m-out-of-n" if kink else "n-out-of-n"
            if kink and B > 0:
                notes.append(f"{why}: the functional has a kink there and the n-out-of-n bootstrap is "
                             "inconsistent, so the m-out-of-n bootstrap was used")
        elif kink and bootstrap == "n-out-of-n" and B > 0:
            notes.append(f"{why}: the functional may have a kink; consider bootstrap='m-out-of-n'")
        ratio = None
        if bootstrap == "m-out-of-n":
            if m is None:
                nmin = min(n1, n0)
                ratio = float(np.ceil(nmin ** (2 / 3))) / nmin
            else:
                mm = check_positive_int(m, "m", minimum=2)
                ratio = min(1.0, mm / min(n1, n0))
        boot: dict = {}
        if B > 0:
            chunk = max(1, min(B, 2_000_000 // max(1, design.y.size)))
            parts = []
            for start in range(0, B, chunk):
                counts = design.resample(rng, min(chunk, B - start), ratio)
                parts.append(compute(counts))
            boot = {k: np.concatenate([p[k] for p in parts]) for k in parts[0] if k != "_rows"}
    finally:
        if old_threads is not None:
            numba.set_num_threads(old_threads)

    se: dict = {}
    set_ci = point_ci = None
    if B > 0:
        alpha = 1 - conf_level
        if bootstrap == "n-out-of-n":
            se = {k: float(np.std(v, ddof=1)) if B > 1 else 0.0 for k, v in boot.items()}
            if ci == "imbens-manski":
                set_ci = imbens_manski_interval(lower, upper, se["lower"], se["upper"], conf_level)
            else:
                rho = float(np.corrcoef(boot["lower"], boot["upper"])[0, 1]) if B > 2 else 0.0
                rho = 0.0 if not np.isfinite(rho) else rho
                set_ci = stoye_interval(lower, upper, se["lower"], se["upper"], rho, conf_level, n1 + n0)
            if assumption:
                from scipy.stats import norm

                z = norm.ppf(1 - alpha / 2)
                point_ci = (estimate - z * se[assumption], estimate + z * se[assumption])
        else:
            # sqrt(n)(theta_n - theta) is approximated by sqrt(m)(theta*_m - theta_n)
            sc = math.sqrt(ratio)
            se = {k: float(np.std(v, ddof=1)) * sc if B > 1 else 0.0 for k, v in boot.items()}
            dl = sc * (boot["lower"] - lower)
            du = sc * (boot["upper"] - upper)
            set_ci = (lower - float(np.quantile(dl, 1 - alpha / 2)), upper - float(np.quantile(du, alpha / 2)))
            if assumption:
                d = sc * (boot[assumption] - estimate)
                point_ci = (estimate - float(np.quantile(d, 1 - alpha / 2)),
                            estimate - float(np.quantile(d, alpha / 2)))
        if assumption:
            se["estimate"] = se[assumption]
    strata_table = None
    if strata is not None:
        import pandas as pd

        strata_table = pd.DataFrame(point["_rows"], columns=["comonotone", "countercomonotone", "lower", "upper"],
                                    index=pd.Index(design.levels, name="stratum"))
        strata_table.insert(0, "share", design.p_s)
        if assumption in ("comonotone", "countercomonotone") and not (lower - 1e-12 <= estimate <= upper + 1e-12):
            notes.append(f"the unconditional '{assumption}' value lies outside the covariate-tightened bounds: "
                         "that assumption contradicts the conditional marginals; consider "
                         f"'{assumption} given X'")
        if adjust is not None:
            strata_table = None  # per-stratum rows are of E f, not of the adjusted quantity
    wts = _cell_weights(design, np.ones((1, design.y.size)))[0]
    curves = (design.y[i1], np.cumsum(wts[i1]) / wts[i1].sum(), design.y[i0], np.cumsum(wts[i0]) / wts[i0].sum(),
              fx)
    return JointBounds(
        lower=lower, upper=upper, estimate=estimate,
        conf_int=point_ci if assumption else set_ci, set_conf_int=set_ci, point_conf_int=point_ci,
        comonotone=est["comonotone"], countercomonotone=est["countercomonotone"],
        f_label=fx.label, f_class=f_class, class_note=class_note, assumption=assumption,
        conf_level=conf_level, ci=ci, B=B, bootstrap=bootstrap, m_ratio=ratio, kink=kink, n1=n1, n0=n0,
        weights_note=design.weights_note, data_name=data_name, se=se, boot=boot,
        strata_table=strata_table, notes=notes, _curves=curves,
        given_x={k: est[k] for k in ("comonotone given X", "countercomonotone given X")} if strata is not None
        else None)


def _data_name(y, treat) -> str:
    yn = getattr(y, "name", None) or "y"
    tn = getattr(treat, "name", None) or "treat"
    return f"{yn} by {tn}"


def joint_bounds(y, treat, f, x=None, propensity=None, strata=None, assumption=None, f_class="auto",
                 conf_level=0.95, B=999, ci="imbens-manski", seed=None, n_jobs=1, *,
                 bootstrap="auto", m=None, clip=0.01) -> JointBounds:
    """Sharp bounds on E[f(Y1, Y0)] from the two arms, or its value under a rank assumption.

    The marginals of Y1 and Y0 are the (weighted) empirical laws of ``y`` among treated and controls.
    For supermodular f the sharp lower bound is the countercomonotone value
    int f(Q1(u), Q0(1 - u)) du and the upper bound the comonotone value int f(Q1(u), Q0(u)) du; for
    submodular f the other way round (Cambanis, Simons & Stout 1976; Tchen 1980). The class is
    detected from the mixed differences f(a', b') - f(a', b) - f(a, b') + f(a, b) on the support
    (named f: known); for any other f both bounds come from the exact optimal-transport linear
    program on the two empirical marginals (scipy's HiGHS).

    Parameters
    ----------
    y : array_like
        Outcomes.
    treat : array_like
        Binary treatment (0/1 or bool).
    f : callable or str
        Vectorised ``f(y1, y0)`` or a name (see :func:`coupling_mean`).
    x : array_like, optional
        Covariates (n x p). With no ``propensity`` a logistic regression of ``treat`` on ``x`` gives
        the propensity; each arm's marginal is then Hajek inverse-propensity weighted.
    propensity : array_like, optional
        Known propensity scores P(treat = 1 | x) in (0, 1).
    strata : array_like, optional
        Discrete covariate: bounds become E_X[bounds given X] (tighter), with the stratum shares of
        the sample.
    assumption : {None, "comonotone", "countercomonotone", "comonotone given X", "countercomonotone given X"}
        None: sharp bounds only. "comonotone" restricts the unconditional joint law (ranks kept in the
        whole population); "comonotone given X" ranks kept within strata, E_X of the within-stratum
        coupling. They differ; the choice is printed.
    f_class : {"auto", "supermodular", "submodular", "general"}
        "auto" detects it; "general" forces the linear program.
    conf_level : float
    B : int
        Bootstrap replicates (0: no interval). Resampling is within arms (within stratum-by-arm cells
        with strata, the propensity refitted on each replicate when it was fitted); each replicate is a
        vector of counts on the once-sorted data, and the merges of all replicates run in parallel.
    ci : {"imbens-manski", "stoye"}
        Interval for the identified set: Imbens & Manski (2004) or Stoye (2009).
    seed : None, int or numpy.random.Generator
    n_jobs : int
        Threads for the bootstrap merges (-1: all).
    bootstrap : {"auto", "n-out-of-n", "m-out-of-n"}
        "auto" switches to the m-out-of-n bootstrap when a jump of Q1 meets a jump of Q0 (discrete
        outcomes with p1 = p0: a kink of the functional), and says so in the result.
    m : int, optional
        Resample size for the smaller arm in the m-out-of-n bootstrap (default ceil(n^(2/3))); the
        other arm uses the same fraction.
    clip : float
        Propensity scores are clipped to [clip, 1 - clip], with an OverlapWarning when any is.

    Returns
    -------
    JointBounds

    Examples
    --------
    >>> import numpy as np
    >>> from statcore.coupling import joint_bounds
    >>> y = np.array([1.0, 2.0, 3.0, 4.0, 2.0, 4.0, 6.0, 8.0])
    >>> t = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    >>> res = joint_bounds(y, t, "sq_diff", B=0)
    >>> res.f_class, res.lower, res.upper
    ('submodular', 7.5, 17.5)
    >>> joint_bounds(y, t, "product", assumption="comonotone", B=0).estimate
    15.0

    References
    ----------
    Cambanis, Simons & Stout (1976); Tchen (1980); Heckman, Smith & Clements (1997);
    Imbens & Manski (2004); Stoye (2009); Bickel, Goetze & van Zwet (1997).
    """
    fx = _resolve_f(f)
    return _bounds(y, treat, fx, x, propensity, strata, assumption, f_class, conf_level, B, ci, seed,
                   n_jobs, bootstrap, m, clip, None, _data_name(y, treat))


def ite_variance_bounds(y, treat, x=None, propensity=None, strata=None, assumption=None, conf_level=0.95,
                        B=999, ci="imbens-manski", seed=None, n_jobs=1, **kwargs) -> JointBounds:
    """Sharp bounds on Var(Y1 - Y0), the variance of individual treatment effects.

    Var(Y1 - Y0) = E(Y1 - Y0)^2 - (E Y1 - E Y0)^2; the second term is identified and (Y1 - Y0)^2 is
    submodular, so the bounds are the comonotone (lower) and countercomonotone (upper) values,
    s1^2 + s0^2 - 2 Cov under either coupling; they lie inside [(s1 - s0)^2, (s1 + s0)^2] and reach
    those ends when the two marginals differ only by location and scale (e.g. two normals).
    Arguments as :func:`joint_bounds`; the bootstrap replicates recompute both terms.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore.coupling import ite_variance_bounds
    >>> y = np.array([1.0, 2.0, 3.0, 4.0, 2.0, 4.0, 6.0, 8.0])
    >>> t = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    >>> r = ite_variance_bounds(y, t, B=0)
    >>> r.lower, r.upper
    (1.25, 11.25)

    References
    ----------
    Heckman, Smith & Clements (1997); Fan & Park (2010).
    """
    fx = _F(lambda a, b: (a - b) ** 2, "(Y1 - Y0)^2 - (E Y1 - E Y0)^2 = Var(Y1 - Y0)", "submodular", 1)
    res = _bounds(y, treat, fx, x, propensity, strata, assumption, "auto", conf_level, B, ci, seed, n_jobs,
                  kwargs.pop("bootstrap", "auto"), kwargs.pop("m", None), kwargs.pop("clip", 0.01),
                  lambda m1, m0: (m1 - m0) ** 2, _data_name(y, treat), _pop_none(kwargs))
    # a variance is never negative: intersecting the intervals with [0, inf) keeps their coverage
    for name in ("conf_int", "set_conf_int", "point_conf_int"):
        ci_ = getattr(res, name)
        if ci_ is not None:
            setattr(res, name, (max(0.0, ci_[0]), max(0.0, ci_[1])))
    return res


def _pop_none(kwargs: dict):
    if kwargs:
        raise TypeError(f"unexpected keyword arguments: {', '.join(kwargs)}")
    return None


# ----------------------------------------------------------------------------------------------
# Makarov bounds on the distribution function of Y1 - Y0
# ----------------------------------------------------------------------------------------------

def _makarov_one(y1: np.ndarray, w1: np.ndarray, y0: np.ndarray, w0: np.ndarray,
                 delta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """lower = max(0, sup_y F1(y) - F0(y - d)-), upper = 1 + min(0, inf_y F1(y) - F0(y - d))."""
    u1, inv1 = np.unique(y1, return_inverse=True)
    u0, inv0 = np.unique(y0, return_inverse=True)
    F1 = np.cumsum(np.bincount(inv1, weights=w1, minlength=u1.size))
    F1 /= F1[-1]
    F0 = np.cumsum(np.bincount(inv0, weights=w0, minlength=u0.size))
    F0 /= F0[-1]
    F0ext = np.concatenate([[0.0], F0])
    F1ext = np.concatenate([[0.0], F1])
    lower = np.empty(delta.size)
    upper = np.empty(delta.size)
    step = max(1, 2_000_000 // max(u1.size, u0.size))
    for s in range(0, delta.size, step):
        d = delta[s:s + step, None]
        # the sup over y is attained at an atom of Y1 (F1 jumps up there; F0(. - d)- is left-continuous)
        t = (u1[None, :] - d).ravel()
        left0 = F0ext[np.searchsorted(u0, t, side="left")].reshape(d.shape[0], u1.size)
        lower[s:s + step] = np.maximum(0.0, np.max(F1[None, :] - left0, axis=1))
        # the inf at y = an atom of Y0 shifted by d (F0(. - d) jumps up there)
        t = (u0[None, :] + d).ravel()
        right1 = F1ext[np.searchsorted(u1, t, side="right")].reshape(d.shape[0], u0.size)
        upper[s:s + step] = 1.0 + np.minimum(0.0, np.min(right1 - F0[None, :], axis=1))
    return lower, upper


@dataclass
class MakarovBounds(TableResult):
    """Pointwise sharp bounds on P(Y1 - Y0 <= delta) (Makarov 1981; Fan & Park 2010).

    Attributes: ``delta``, ``lower``, ``upper`` (same container as ``delta``), ``n1``, ``n0``,
    ``strata`` (number of strata; bounds are E_X of the within-stratum bounds), ``data_name``.
    """

    delta: Any
    lower: Any
    upper: Any
    n1: int
    n0: int
    n_strata: int
    data_name: str
    weights_note: str

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame({"delta": np.asarray(self.delta, float).ravel(),
                             "lower": np.asarray(self.lower, float).ravel(),
                             "upper": np.asarray(self.upper, float).ravel()})

    def summary(self, digits: int = R_DIGITS) -> str:
        df = self.to_frame()
        show = df if len(df) <= 20 else df.iloc[np.unique(np.linspace(0, len(df) - 1, 20).round().astype(int))]
        lines = ["", "\tMakarov bounds on the distribution function of Y1 - Y0", "",
                 f"data:  {self.data_name} (n1 = {self.n1}, n0 = {self.n0})",
                 f"weights: {self.weights_note}"]
        if self.n_strata > 1:
            lines.append(f"strata: {self.n_strata}; bounds are E_X[bounds given X]")
        lines += ["", format_table([str(i + 1) for i in show.index],
                                   {"delta": list(show["delta"]), "lower": list(show["lower"]),
                                    "upper": list(show["upper"])}, digits)]
        if len(df) > len(show):
            lines.append(f"({len(show)} of {len(df)} rows shown)")
        lines.append("")
        return "\n".join(lines) + "\n"

    def _plot(self, ax=None):
        import matplotlib.pyplot as plt

        d = np.asarray(self.delta, float).ravel()
        lo = np.asarray(self.lower, float).ravel()
        hi = np.asarray(self.upper, float).ravel()
        o = np.argsort(d)
        if ax is None:
            fig, ax = plt.subplots(figsize=(6, 4))
        fig = ax.figure
        ax.fill_between(d[o], lo[o], hi[o], step="post", color="C0", alpha=0.25, label="Makarov band")
        ax.step(d[o], lo[o], where="post", color="C0")
        ax.step(d[o], hi[o], where="post", color="C0")
        ax.set_xlabel(r"$\delta$")
        ax.set_ylabel(r"$P(Y_1 - Y_0 \leq \delta)$")
        ax.set_ylim(-0.02, 1.02)
        ax.legend(fontsize=8)
        return fig


def makarov_bounds(y, treat, delta, weights=None, strata=None) -> MakarovBounds:
    """Sharp pointwise bounds on the distribution function of the individual effect Y1 - Y0.

    F^L(d) = max(0, sup_y [F1(y) - F0(y - d)-]) and F^U(d) = 1 + min(0, inf_y [F1(y) - F0(y - d)])
    (Makarov 1981; Fan & Park 2010), with the left limit F0(t)- = P(Y0 < t) so that they stay sharp
    for discrete outcomes. The empirical (weighted) distribution functions of the arms are plugged
    in; the sup and inf are exact (attained at atoms). With ``strata`` the band is the average of the
    within-stratum bands weighted by the stratum shares (tighter).

    Parameters
    ----------
    y, treat : array_like
        Outcomes and binary treatment.
    delta : float or array_like
        Points at which to bound P(Y1 - Y0 <= delta).
    weights : array_like, optional
        Non-negative unit weights (e.g. inverse propensity), normalised within arms (within
        stratum-by-arm cells with ``strata``).
    strata : array_like, optional
        Discrete covariate.

    Returns
    -------
    MakarovBounds

    Examples
    --------
    >>> from statcore.coupling import makarov_bounds
    >>> r = makarov_bounds([0, 1, 0, 1], [0, 0, 1, 1], [-1, 0, 1])
    >>> r.lower, r.upper
    (array([0. , 0.5, 1. ]), array([0.5, 1. , 1. ]))

    References
    ----------
    Makarov (1981); Williamson & Downs (1990); Fan & Park (2010).
    """
    from ._checks import InputWrapper

    wrapper = InputWrapper.of(delta)
    d = as_float_array(delta, "delta")
    shape = d.shape
    d = d.ravel()
    design = _make_design(y, treat, None, None, strata, 0.01, weights)
    base = np.ones(design.y.size) if design.inv_e is None else design.inv_e
    lower = np.zeros(d.size)
    upper = np.zeros(d.size)
    for s in range(len(design.levels)):
        j1, j0 = design.cells[(s, True)], design.cells[(s, False)]
        lo, hi = _makarov_one(design.y[j1], base[j1], design.y[j0], base[j0], d)
        lower += design.p_s[s] * lo
        upper += design.p_s[s] * hi
    lower = np.clip(lower, 0.0, 1.0).reshape(shape)
    upper = np.clip(upper, 0.0, 1.0).reshape(shape)
    if wrapper.kind == "scalar":
        lower, upper = float(lower), float(upper)
    elif wrapper.kind == "series":
        lower, upper = wrapper.wrap(lower, "lower"), wrapper.wrap(upper, "upper")
    return MakarovBounds(delta=delta, lower=lower, upper=upper, n1=int(design.arm.sum()),
                         n0=int((~design.arm).sum()), n_strata=len(design.levels),
                         data_name=_data_name(y, treat),
                         weights_note="user weights, normalised within arms" if weights is not None
                         else "equal within arms")
