"""Linear smoothers in spectral form: least squares, ridge and kernel ridge regression on z.

OLS, ridge and kernel ridge with fixed tuning are linear smoothers: the residual of ``v @ w`` equals
the residual of ``v`` times ``w``, which is what lets RP-CIT test many random projections for the
price of one regression. One decomposition of z (an SVD, or the eigendecomposition of the centred
kernel matrix) serves every response regressed on it; only the penalty (chosen by generalised
cross-validation) is tuned per response.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._result import Result

__all__ = ["SpectralSmoother", "MIN_RESIDUAL_DF"]

#: Residual degrees of freedom every linear smoother must leave (n minus the trace of its hat matrix,
#: intercept included). With one, all residual vectors lie on the same line: the residuals of x and
#: of y are proportional, their products are a multiple of e^2 for a vector e fixed by z, and the GCM
#: p-value depends on z alone (n = 5, p = 3: every x, y gave p = 0.002191). Two is the least that
#: lets the data decide; OLS therefore needs n >= p + 3, and the GCV search of ridge and kernel ridge
#: is confined to penalties with effective degrees of freedom at most n - 2.
MIN_RESIDUAL_DF = 2

# ----------------------------------------------------------------------------------------------
# linear smoothers: residual(u) = u_c - U diag(f) U' u_c with u_c the column-centred u
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False, repr=False)
class SpectralSmoother(Result):
    """A linear smoother with an unpenalised intercept, in spectral form.

    The fitted values of a response ``u`` are ``mean(u) + U diag(shrink) U' (u - mean(u))`` with
    ``U`` (n, m) orthonormal and orthogonal to the constant vector: OLS (``shrink`` = 1 on the
    column space of the centred Z), ridge (``s^2 / (s^2 + lambda)`` on the singular vectors) and
    kernel ridge (``l / (l + mu)`` on the eigenvectors of the centred kernel matrix).
    ``residuals(u)`` is linear in ``u``: ``residuals(u @ w) == residuals(u) @ w``.

    Attributes
    ----------
    basis : ndarray (n, m)
        The orthonormal vectors ``U``.
    shrink : ndarray (m,)
        The factor applied to each coordinate.
    method : str
        "ols", "ridge", "krr", or "mean" (no z: the residuals are the centred response).
    penalty : float
        The penalty chosen by generalised cross-validation (0 for "ols").

    Examples
    --------
    >>> import numpy as np
    >>> from statcore.cit import fit_residualizer
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(60, 2))
    >>> v = z @ [1.0, -1.0] + rng.normal(size=60)
    >>> sm = fit_residualizer(v, z, regression="ols").smoother
    >>> sm
    SpectralSmoother(method='ols', n=60, df=3, penalty=0)
    >>> bool(np.allclose(sm.residuals(v)[:, None], fit_residualizer(v, z).residuals))
    True
    """

    basis: np.ndarray
    shrink: np.ndarray
    method: str
    penalty: float = 0.0

    @property
    def df(self) -> float:
        """Effective degrees of freedom, the trace of the hat matrix (intercept included)."""
        return 1.0 + float(self.shrink.sum())

    def residuals(self, u: np.ndarray) -> np.ndarray:
        """Residuals of the columns of ``u`` (n, d) under this smoother (a new array)."""
        u = np.asarray(u, dtype=np.float64)
        r = u - u.mean(axis=0)
        if self.basis.shape[1]:
            coef = self.basis.T @ r
            coef *= self.shrink[:, None] if r.ndim == 2 else self.shrink
            r -= self.basis @ coef
        return r

    def matrix(self, n: int | None = None) -> np.ndarray:
        """The (n, n) residual map ``I - 11'/n - U diag(shrink) U'`` as a dense, symmetric array."""
        n = self.basis.shape[0] if n is None else n
        a = np.full((n, n), -1.0 / n)
        a[np.diag_indices(n)] += 1.0
        if self.basis.shape[1]:
            a -= (self.basis * self.shrink) @ self.basis.T
        return a

    # ---- the result protocol -------------------------------------------------------------------
    def _repr_parts(self):
        return [("method", self.method), ("n", self.basis.shape[0]), ("df", self.df), ("penalty", self.penalty)]

    def summary(self) -> str:
        """A short description: the method, n, the effective degrees of freedom and the penalty."""
        return (f"Linear smoother ({self.method}): n = {self.basis.shape[0]}, effective df = {self.df:.4g}, "
                f"penalty = {self.penalty:.4g}\n")

    def to_frame(self):
        """One row: ``method``, ``n``, ``df`` (effective degrees of freedom), ``penalty``."""
        import pandas as pd

        return pd.DataFrame([{"method": self.method, "n": self.basis.shape[0], "df": self.df,
                              "penalty": self.penalty}])


def _centred_svd(z: np.ndarray, scale: bool) -> tuple[np.ndarray, np.ndarray]:
    zc = z - z.mean(axis=0)
    if scale:
        zc /= zc.std(axis=0)
    u, s, _ = np.linalg.svd(zc, full_matrices=False)
    keep = s > s[0] * max(zc.shape) * np.finfo(float).eps if s.size else np.zeros(0, bool)
    return u[:, keep], s[keep]


def _gcv_penalty(eig: np.ndarray, coef2: np.ndarray, rss0: float, n: int, lo: float, hi: float) -> float:
    """The penalty minimising GCV(pen) = n RSS(pen) / (n - df(pen))^2 over [lo, hi] (log scale).

    ``eig`` are the squared singular values (or kernel eigenvalues), ``coef2`` the summed squared
    coordinates of the (column-normalised) centred responses on the matching eigenvectors and
    ``rss0`` their total sum of squares, so RSS(pen) = rss0 - sum (2 f - f^2) coef2, f = eig/(eig+pen).
    """
    from scipy.optimize import minimize_scalar

    def gcv(logpen: float) -> float:
        f = eig / (eig + np.exp(logpen))
        rss = rss0 - float(((2.0 - f) * f) @ coef2)
        dof = 1.0 + f.sum()
        # keep at least MIN_RESIDUAL_DF residual degrees of freedom, as OLS must (see _ols_basis):
        # unconstrained, GCV can pick a near-interpolating fit whose residuals vanish
        return n * max(rss, 0.0) / (n - dof) ** 2 if dof <= n - MIN_RESIDUAL_DF else np.inf

    grid = np.linspace(np.log(lo), np.log(hi), 61)
    vals = np.array([gcv(g) for g in grid])
    i = int(np.argmin(vals))
    # refine between the finite neighbours (penalties below the df cap have GCV = inf)
    lo_i = i - 1 if i > 0 and np.isfinite(vals[i - 1]) else i
    hi_i = i + 1 if i + 1 < grid.size and np.isfinite(vals[i + 1]) else i
    a, b = grid[lo_i], grid[hi_i]
    if b > a:
        res = minimize_scalar(gcv, bounds=(a, b), method="bounded", options={"xatol": 1e-4})
        if res.fun <= vals[i]:
            return float(np.exp(res.x))
    return float(np.exp(grid[i]))


def _column_weights(v: np.ndarray) -> np.ndarray:
    # GCV shared by all outputs: each column counts equally, whatever its scale
    ss = ((v - v.mean(axis=0)) ** 2).sum(axis=0)
    return 1.0 / np.where(ss > 0, ss, 1.0)


@dataclass(frozen=True, eq=False)
class _SpectralBasis:
    """What a linear smoother needs from z alone: orthonormal vectors and their eigenvalues.

    Computed once per z and shared by every response regressed on it (x and y alike); only the
    penalty is tuned per response.
    """

    vectors: np.ndarray
    eig: np.ndarray
    method: str

    def __post_init__(self):
        # read-only, so that every smoother built on this basis shares the same arrays
        self.vectors.flags.writeable = False
        self.eig.flags.writeable = False

    def smoother(self, v: np.ndarray) -> SpectralSmoother:
        if self.method == "ols":
            return SpectralSmoother(self.vectors, np.ones(self.eig.size), "ols")
        w = _column_weights(v)
        vc = v - v.mean(axis=0)
        coef2 = (self.vectors.T @ vc) ** 2 @ w
        rss0 = float(((vc ** 2).sum(axis=0)) @ w)
        top = self.eig[0]
        hi = top * (1e3 if self.method == "ridge" else 10.0)
        pen = _gcv_penalty(self.eig, coef2, rss0, v.shape[0], top * 1e-8, hi)
        return SpectralSmoother(self.vectors, self.eig / (self.eig + pen), self.method, pen)


def _ols_basis(z):
    n, p = z.shape
    if n < p + 1 + MIN_RESIDUAL_DF:
        raise ValueError(f"regression='ols' on z with {p} column(s) needs at least {p + 1 + MIN_RESIDUAL_DF} "
                         f"observations (n - p - 1 >= {MIN_RESIDUAL_DF} residual degrees of freedom), got "
                         f"n = {n}; use regression='ridge' or fewer conditioning columns")
    u, s = _centred_svd(z, scale=False)
    return _SpectralBasis(u, s ** 2, "ols")


def _ridge_basis(z):
    u, s = _centred_svd(z, scale=True)
    return _SpectralBasis(u, s ** 2, "ridge")


def _gaussian_kernel(z: np.ndarray) -> np.ndarray:
    zs = (z - z.mean(axis=0)) / z.std(axis=0)
    sq = (zs ** 2).sum(axis=1)
    d2 = sq[:, None] + sq[None, :] - 2.0 * (zs @ zs.T)
    np.maximum(d2, 0.0, out=d2)
    # median heuristic on (at most 1000 evenly spaced) points
    n = z.shape[0]
    idx = np.linspace(0, n - 1, min(n, 1000)).astype(np.intp)
    sub = d2[np.ix_(idx, idx)][np.triu_indices(idx.size, 1)]
    med = float(np.median(sub[sub > 0])) if np.any(sub > 0) else 1.0
    d2 *= -1.0 / med
    return np.exp(d2, out=d2)


def _krr_basis(z):
    n = z.shape[0]
    k = _gaussian_kernel(z)
    k -= k.mean(axis=0)
    k -= k.mean(axis=1)[:, None]
    lam, q = np.linalg.eigh(k)
    keep = lam > lam[-1] * n * np.finfo(float).eps
    lam, q = lam[keep][::-1], q[:, keep][:, ::-1]
    return _SpectralBasis(np.ascontiguousarray(q), np.ascontiguousarray(lam), "krr")


_BASES = {"ols": _ols_basis, "ridge": _ridge_basis, "krr": _krr_basis}
