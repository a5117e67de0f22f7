"""R's natural cubic spline basis ``splines::ns`` (R 4.2.2), and the helpers it needs.

Written from R's documented behaviour (``?ns``, ``?splineDesign``, ``?quantile``):

* ``df`` without ``knots`` puts ``df - 1 - intercept`` interior knots at the quantiles (type 7) of the
  ``x`` inside the boundary knots, at the equally spaced probabilities strictly between 0 and 1;
  the boundary knots default to ``range(x)``;
* the cubic B-spline basis on the knots (boundary knots repeated four times) is evaluated at ``x``
  (points outside the boundary knots get the linear continuation from the nearest boundary:
  the value and first derivative there);
* the natural-spline constraint (second derivative zero at both boundary knots) is imposed by the
  QR decomposition of the transposed 2 x m constraint matrix: the basis is multiplied by Q (R's
  ``qr.qty`` on the transposed basis) and the first two columns are dropped. LINPACK's Householder
  reflections (R's ``qr``) and LAPACK's (``scipy.linalg.qr``) are the same reflections
  (I - u u' / u_1 with u = x / (sign(x_1) |x|) + e_1), so Q is R's.
"""
from __future__ import annotations

import numpy as np

__all__ = ["ns", "r_quantile7", "r_seq_length"]


def r_seq_length(start: float, stop: float, length: int) -> np.ndarray:
    """R's ``seq(from, to, length.out = n)`` for doubles: from + (1..n-2) * ((to - from) / (n - 1)),
    with both ends exact."""
    if length == 1:
        return np.array([float(start)])
    if length == 2:
        return np.array([float(start), float(stop)])
    if start == stop:
        return np.full(length, float(start))
    step = (stop - start) / (length - 1)
    out = np.empty(length)
    out[0] = start
    out[1:-1] = start + np.arange(1, length - 1) * step
    out[-1] = stop
    return out


def r_quantile7(x: np.ndarray, probs, *, presorted: bool = False) -> np.ndarray:
    """R's ``quantile(x, probs, type = 7)``: (1 - h) x[lo] + h x[hi] at index 1 + (n - 1) p."""
    p = np.atleast_1d(np.asarray(probs, dtype=float))
    v = np.asarray(x, dtype=float)
    n = v.size
    index = 1.0 + max(n - 1, 0) * p
    lo = np.floor(index).astype(np.intp)
    hi = np.ceil(index).astype(np.intp)
    if not presorted:
        v = np.partition(v, np.unique(np.r_[lo, hi]) - 1)
    qs = v[lo - 1].copy()
    xhi = v[hi - 1]
    sel = (index > lo) & (xhi != qs)
    h = (index - lo)[sel]
    qs[sel] = (1.0 - h) * qs[sel] + h * xhi[sel]
    return qs


def _design(knots: np.ndarray, x: np.ndarray, deriv: int = 0) -> np.ndarray:
    """R's ``splineDesign(knots, x, ord = 4, derivs = deriv)`` for x inside the boundary knots."""
    from scipy.interpolate import BSpline

    m = knots.size - 4
    spl = BSpline(knots, np.eye(m), 3, extrapolate=True)
    if deriv:
        spl = spl.derivative(deriv)
    return np.asarray(spl(np.asarray(x, dtype=float)), dtype=float).reshape(np.size(x), m)


def ns(x, df: int | None = None, knots=None, intercept: bool = False, boundary_knots=None
       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """R's ``splines::ns(x, df, knots, intercept, Boundary.knots)``.

    Returns ``(basis, knots, boundary_knots)``: the n x (number of interior knots + 1 + intercept)
    basis matrix (R's value without its attributes), the interior knots and the boundary knots.
    ``x`` must be finite (R drops NAs and puts NA rows back; statcore's callers never pass any).
    """
    x = np.asarray(x, dtype=float).ravel()
    if boundary_knots is None:
        bk = np.array([x.min(), x.max()]) if x.size != 1 else x[0] * np.array([7.0, 9.0]) / 8.0
        outside_l = np.zeros(x.size, bool)
        outside_r = np.zeros(x.size, bool)
    else:
        bk = np.sort(np.asarray(boundary_knots, dtype=float))
        outside_l = x < bk[0]
        outside_r = x > bk[1]
    inside = ~(outside_l | outside_r)
    bk_orig = bk.copy()
    if knots is None:
        if df is None:
            n_int = 0
        else:
            n_int = max(int(df) - 1 - int(bool(intercept)), 0)
        if n_int > 0:
            probs = r_seq_length(0.0, 1.0, n_int + 2)[1:-1]
            knots = r_quantile7(x[inside], probs)
        else:
            knots = np.empty(0)
    else:
        knots = np.asarray(knots, dtype=float).ravel()
    aknots = np.sort(np.r_[np.repeat(bk, 4), knots])
    m = aknots.size - 4
    # B-splines and the constraint's null space are invariant under x -> (x - lo) / width, so the basis is
    # computed on the unit interval (second derivatives on knots 1e-300 apart would overflow)
    width = float(bk[1] - bk[0])
    if width > 0 and np.isfinite(width):
        x = (x - bk[0]) / width
        aknots = (aknots - bk[0]) / width
        bk = (bk - bk[0]) / width
    basis = np.zeros((x.size, m))
    if inside.any():
        basis[inside] = _design(aknots, x[inside])
    for mask, pivot in ((outside_l, bk[0]), (outside_r, bk[1])):
        if mask.any():
            val = _design(aknots, [pivot])[0]
            slope = _design(aknots, [pivot], deriv=1)[0]
            basis[mask] = val[None, :] + (x[mask] - pivot)[:, None] * slope[None, :]
    const = _design(aknots, bk, deriv=2)
    if not intercept:
        const = const[:, 1:]
        basis = basis[:, 1:]
    from scipy.linalg import qr

    q, _ = qr(const.T, mode="full")
    basis = (basis @ q)[:, 2:]
    return basis, knots, bk_orig
