"""f (named or callable), the north-west-corner merge, ``coupling_mean``, the class of f, the transport LP."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .._checks import check_choice, coupling_mean_inputs
from .._checks.public import public_function

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


def _eval_f(fx: _F, a: np.ndarray, b: np.ndarray, used: np.ndarray | None = None) -> np.ndarray:
    """f on the pairs (a, b), checked: one finite value per pair (``used``: only where True matters)."""
    with np.errstate(all="ignore"):  # non-finite results are reported below, with the pairs
        out = np.asarray(fx.fn(a, b), dtype=np.float64)
    if out.shape != a.shape:
        # a scalar is never broadcast: from a non-vectorised f it is one pair's value, not every pair's
        raise TypeError(f"f must be vectorised: it must return one value per pair; f(y1, y0) on arrays of "
                        f"shape {a.shape} returned shape {out.shape}")
    bad = ~np.isfinite(out) if used is None else ~np.isfinite(out) & used
    if bad.any():
        idx = np.flatnonzero(bad.ravel())
        pairs = ", ".join(f"({a.ravel()[i]:g}, {b.ravel()[i]:g}) -> {out.ravel()[i]:g}" for i in idx[:5])
        raise ValueError(f"f returned non-finite values at {idx.size} (y1, y0) pair(s) of the data, e.g. "
                         f"{pairs}; f must be finite on the support of both arms")
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
    from . import _kernels as kc

    total = W1.sum(axis=1)
    if fx.code is not None:
        return kc.sums(W1, W0, y1s, y0s, counter, fx.code, *fx.params) / total
    pi, pj, plen, npieces = kc.pieces(W1, W0, counter)
    if W1.shape[0] == 1:
        k = int(npieces[0])
        vals = _eval_f(fx, y1s[pi[0, :k]], y0s[pj[0, :k]])
        with np.errstate(invalid="ignore"):
            return np.array([np.dot(vals, plen[0, :k]) / total[0]])
    vals = _eval_f(fx, y1s[pi], y0s[pj], plen > 0)  # rows are padded with zero-length pieces
    with np.errstate(invalid="ignore"):
        return np.sum(vals * plen, axis=1, where=plen > 0) / total


@public_function(data=("y1", "y0"), nan_policy=("raise", "omit", "propagate"), samples="independent")
def coupling_mean(y1, y0, *, f, coupling: str = "comonotone", weights1=None, weights0=None,
                  nan_policy: str = "raise") -> float:
    """E[f(Y1, Y0)] under the comonotone or countercomonotone coupling of two empirical marginals.

    Exact for the (weighted) empirical distributions of ``y1`` and ``y0``, ties included: the two
    cumulative weight sequences are merged (the north-west-corner rule) and f is integrated over the
    pieces of [0, 1] on which both generalised quantile functions are constant, O(n log n).

    Parameters
    ----------
    y1, y0 : array_like
        Samples from the two marginals (vectors of any lengths, finite values).
    f : callable or str
        Vectorised ``f(y1, y0)`` or one of "product", "sq_diff", "abs_diff", "min", "max",
        "indicator(s, t)" (the joint distribution function 1{Y1 <= s, Y0 <= t}).
    coupling : {"comonotone", "countercomonotone"}
        int f(Q1(u), Q0(u)) du or int f(Q1(u), Q0(1 - u)) du.
    weights1, weights0 : array_like, optional
        Non-negative weights of the values of ``y1`` and ``y0`` (normalised within each sample);
        equal by default.
    nan_policy : {"raise", "omit", "propagate"}
        A NaN in ``y1`` or ``y0`` (or in a weight): "raise" refuses it, "omit" drops that value
        (each sample separately), "propagate" returns NaN.

    Returns
    -------
    float
        The value of the integral.

    Examples
    --------
    >>> from statcore.coupling import coupling_mean
    >>> coupling_mean([1, 2, 3], [10, 20, 30], f="product")
    46.666666666666664
    >>> coupling_mean([1, 2, 3], [10, 20, 30], f="product", coupling="countercomonotone")
    33.333333333333336
    >>> coupling_mean([0, 1], [0, 0, 1], f="indicator(0, 0)")  # P(Y1 <= 0, Y0 <= 0) under comonotonicity
    0.5

    References
    ----------
    Cambanis, S., Simons, G. & Stout, W. (1976). Inequalities for Ek(X, Y) when the marginals are
    fixed. Z. Wahrscheinlichkeitstheorie verw. Gebiete 36, 285-294.

    Tchen, A. H. (1980). Inequalities for distributions with given marginals. Ann. Probab. 8, 814-827.
    """
    coupling = check_choice(coupling, "coupling", ("comonotone", "countercomonotone"),
                            {"co": "comonotone", "counter": "countercomonotone",
                             "countermonotone": "countercomonotone"})
    fx = _resolve_f(f)
    a1, v1, a0, v0, propagate = coupling_mean_inputs(y1, y0, weights1, weights0, nan_policy)
    if propagate:
        return float("nan")
    n1, n0 = a1.size, a0.size
    if v1 is None and v0 is None:
        y1s, y0s = np.sort(a1), np.sort(a0)
        # integer-valued weights of equal totals: the merge has no rounding at all
        W1 = np.full((1, n1), float(n0))
        W0 = np.full((1, n0), float(n1))
    else:
        v1 = np.ones(n1) if v1 is None else v1
        v0 = np.ones(n0) if v0 is None else v0
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


_CHECK_GRID = 200        # a class stated for a callable is checked on this many quantiles of each support


def _subgrid(u: np.ndarray, k: int) -> np.ndarray:
    """At most k of the sorted values u, at evenly spaced ranks (both ends kept)."""
    return u[np.unique(np.linspace(0, u.size - 1, k).round().astype(int))]


def _mixed_signs(fx: _F, u1: np.ndarray, u0: np.ndarray) -> tuple[tuple | None, tuple | None]:
    """A positive and a negative mixed difference f(a', b') - f(a', b) - f(a, b') + f(a, b) of
    neighbours a < a' in u1, b < b' in u0, each as (a, a', b, b', value), or None when there is none
    (beyond a relative 1e-12); stops once both are found."""
    found: dict[bool, tuple | None] = {True: None, False: None}
    rows = max(1, 2_000_000 // u0.size)
    prev = _eval_f(fx, np.full(u0.size, u1[0]), u0)
    for start in range(1, u1.size, rows):
        block = u1[start:start + rows]
        F = _eval_f(fx, np.repeat(block, u0.size), np.tile(u0, block.size)).reshape(block.size, u0.size)
        G = np.vstack([prev[None, :], F])
        D = np.diff(np.diff(G, axis=0), axis=1)
        tol = 1e-12 * max(1.0, float(np.abs(G).max()))
        for sign, hit in ((True, D > tol), (False, D < -tol)):
            if found[sign] is None and hit.any():
                i, j = np.unravel_index(int(np.argmax(hit)), D.shape)
                found[sign] = (u1[start + i - 1], u1[start + i], u0[j], u0[j + 1], float(D[i, j]))
        prev = F[-1]
        if found[True] is not None and found[False] is not None:
            break
    return found[True], found[False]


def _detect_class(fx: _F, u1: np.ndarray, u0: np.ndarray) -> tuple[str, str]:
    """("supermodular" | "submodular" | "modular" | "general", how it was found)."""
    if u1.size < 2 or u0.size < 2:
        return "modular", "one support point in an arm: every coupling is the same"
    if fx.known_class is not None:
        return fx.known_class, "by construction"
    note = "mixed differences on the support"
    if u1.size * u0.size > _MAX_CELLS:
        u1, u0 = _subgrid(u1, _SUBGRID), _subgrid(u0, _SUBGRID)
        note = f"mixed differences on a {u1.size} x {u0.size} sub-grid of quantiles of the support"
    pos, neg = _mixed_signs(fx, u1, u0)
    if pos is not None and neg is not None:
        return "general", note
    if pos is not None:
        return "supermodular", note
    if neg is not None:
        return "submodular", note
    return "modular", note


def _check_stated_class(fx: _F, f_class: str, u1: np.ndarray, u0: np.ndarray) -> str:
    """How a class stated by the user was checked; a ValueError when it contradicts f.

    A named f has a known class. For a callable the mixed differences are checked on a sub-grid of
    quantiles of the supports (a sub-grid cell's mixed difference is the sum of the support's
    cells in it, so one of the wrong sign proves the statement wrong; the converse is not checked
    off the sub-grid).
    """
    if f_class == "general":
        return "as stated by the user: the linear program is sharp for any f"
    if fx.known_class is not None:
        if fx.known_class != f_class:
            raise ValueError(f"f_class={f_class!r} contradicts f = {fx.label}, which is {fx.known_class}; "
                             "use f_class='auto' (or 'general' to force the linear program)")
        return "as stated by the user, and by construction"
    if u1.size < 2 or u0.size < 2:
        return "as stated by the user; one support point in an arm: every coupling is the same"
    g1, g0 = _subgrid(u1, _CHECK_GRID), _subgrid(u0, _CHECK_GRID)
    pos, neg = _mixed_signs(fx, g1, g0)
    wrong = neg if f_class == "supermodular" else pos
    if wrong is not None:
        a, a2, b, b2, d = wrong
        raise ValueError(f"f_class={f_class!r} contradicts f: its mixed difference f(a', b') - f(a', b) - "
                         f"f(a, b') + f(a, b) is {d:.4g} at y1 values a = {a:g} < a' = {a2:g} and y0 values "
                         f"b = {b:g} < b' = {b2:g}; use f_class='auto' (or 'general')")
    where = ("the support" if g1.size == u1.size and g0.size == u0.size
             else f"a {g1.size} x {g0.size} sub-grid of quantiles of the support")
    return f"as stated by the user; no mixed difference of the other sign on {where}"


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
