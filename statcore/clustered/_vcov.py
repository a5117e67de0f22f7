"""Cluster-robust covariance matrices CR0, CR1, CR2 (Bell-McCaffrey) and CR3 of linear models, and the
pieces of the Satterthwaite degrees of freedom of Pustejovsky & Tipton (2018), without n x n matrices.

Every cluster's adjustment matrix is identity plus a low-rank term: for OLS ``I - H_jj = I - X_j M X_j'``
and for WLS ``G_j = I - H_jj - H_jj' + X_j M Omega M X_j'`` (clubSandwich's working model, target the
identity), so ``G_j^(-1/2) = I + Z_j K_j Z_j'`` with ``Z_j = X_j`` (OLS) or ``[X_j, W_j X_j]`` (WLS) and a
small ``K_j`` from the eigendecomposition of a (2p x 2p) matrix per cluster. Every quantity needed is then
a per-cluster cross-product of the rows (``X'X``, ``X'WX``, ``X'W^2X``, ``X'e``, ``X'We``), summed with
``np.add.reduceat``; the Satterthwaite matrix of each coefficient (J x J) is handled through its
low-rank form, so nothing larger than J x p x p is formed.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._checks import as_cluster_codes, as_linear_fit, check_choice, public_function
from .._r.rformat import format_table
from .._result import Result

__all__ = ["cluster_vcov", "ClusterVcov"]

KINDS = ("CR0", "CR1", "CR2", "CR3")
#: eigenvalues of a cluster's Gram matrix below this share of its largest are rank deficiency
_RANK_TOL = 1e-10
#: clubSandwich's ``matrix_power`` drops eigenvalues at or below 1e-12
_POWER_TOL = 1e-12
#: rows x p x p floats summed at once by ``_cluster_sums`` (memory budget, about 64 MB)
_CHUNK = 8_000_000


def _cluster_sums(rows: np.ndarray, starts: np.ndarray, n: int) -> np.ndarray:
    """Per-cluster sums of the rows of ``rows`` (sorted by cluster), chunked at cluster boundaries."""
    per_row = int(np.prod(rows.shape[1:])) or 1
    if rows.shape[0] * per_row <= _CHUNK:
        return np.add.reduceat(rows, starts, axis=0)
    out = np.empty((starts.size,) + rows.shape[1:])
    bounds = np.append(starts, n)
    step = max(1, _CHUNK // per_row)
    j = 0
    while j < starts.size:
        stop = np.searchsorted(bounds, bounds[j] + step, side="right") - 1
        stop = max(stop, j + 1)
        lo, hi = bounds[j], bounds[stop]
        out[j:stop] = np.add.reduceat(rows[lo:hi], starts[j:stop] - lo, axis=0)
        j = stop
    return out


def _outer_sums(A: np.ndarray, B: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """sum over rows i of cluster j of A_i B_i' (J x a x b)."""
    n, a = A.shape
    b = B.shape[1]
    if n * a * b <= _CHUNK:
        return np.add.reduceat(A[:, :, None] * B[:, None, :], starts, axis=0)
    bounds = np.append(starts, n)
    out = np.empty((starts.size, a, b))
    step = max(1, _CHUNK // (a * b))
    j = 0
    while j < starts.size:
        stop = max(int(np.searchsorted(bounds, bounds[j] + step, side="right")) - 1, j + 1)
        lo, hi = bounds[j], bounds[stop]
        out[j:stop] = np.add.reduceat(A[lo:hi, :, None] * B[lo:hi, None, :], starts[j:stop] - lo, axis=0)
        j = stop
    return out


@dataclass(frozen=True)
class _Pieces:
    """The per-cluster quantities of one adjustment: the vcov and what Satterthwaite's df needs."""

    vcov: np.ndarray
    M: np.ndarray            # (X'WX)^-1 with the weights normalised to mean 1
    Omega: np.ndarray        # X'W^2X (normalised weights)
    T: np.ndarray            # J x p x p: M X_j'W_j A_j X_j
    F: np.ndarray            # J x p x p: M X_j'W_j A_j W_j X_j
    d: np.ndarray            # J x p: diag(M X_j'W_j A_j A_j' W_j X_j M)


def _cr_pieces(X: np.ndarray, e: np.ndarray, w: np.ndarray, codes: np.ndarray, J: int, kind: str,
               ols: bool) -> _Pieces:
    n, p = X.shape
    order = np.argsort(codes, kind="stable")
    Xs, es = X[order], e[order]
    ws = w[order] / np.mean(w)
    counts = np.bincount(codes, minlength=J)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    WX = ws[:, None] * Xs
    S1 = _outer_sums(Xs, WX, starts)                           # X'WX per cluster
    S2 = S1 if ols else _outer_sums(WX, WX, starts)            # X'W^2X
    g1 = _cluster_sums(WX * es[:, None], starts, n)            # X'We
    M = np.linalg.inv(S1.sum(axis=0))
    M = (M + M.T) / 2
    Omega = S2.sum(axis=0)
    if kind in ("CR0", "CR1"):
        c = 1.0 if kind == "CR0" else np.sqrt(J * (n - 1) / ((J - 1) * (n - p)))
        comp = c * g1
        XWA_X, XWA_WX = c * S1, c * S2
        XWAAWX = c * c * S2
    elif kind == "CR3":
        # A_j = (I - X_j M X_j'W_j)^-1 = I + X_j P_j X_j'W_j, P_j = M (I - S1_j M)^-1 (Woodbury)
        I = np.eye(p)
        core = I[None] - S1 @ M[None]
        det_ok = np.linalg.cond(core) < 1e12
        if not np.all(det_ok):
            bad = int(np.flatnonzero(~det_ok)[0])
            raise ValueError(f"cluster: I - H_jj is singular for cluster {bad} (a cluster with leverage 1, e.g. "
                             "a cluster fitted exactly by its own coefficient); CR3 is not defined, use kind='CR2'")
        P = M[None] @ np.linalg.inv(core)
        L = I[None] + S1 @ P                                   # X_j'W_j A_j = L_j X_j'W_j
        comp = np.einsum("jab,jb->ja", L, g1)
        XWA_X = L @ S1
        XWA_WX = L @ S2
        XWAAWX = L @ S2 @ np.swapaxes(L, 1, 2)
    else:  # CR2
        if ols:   # Z = X, G = I - X M X'
            ZZ = S1
            XtZ = S1                                           # X'W Z (W = I)
            Ze = _cluster_sums(Xs * es[:, None], starts, n)
            ZX, ZWX = S1, S1
            C = -M
        else:     # Z = [X, WX], G = I + Z C Z', C = [[M Omega M, -M], [-M, 0]]
            S0 = _outer_sums(Xs, Xs, starts)
            ZZ = np.concatenate([np.concatenate([S0, S1], axis=2), np.concatenate([S1, S2], axis=2)], axis=1)
            XtZ = np.concatenate([S1, S2], axis=2)
            g0 = _cluster_sums(Xs * es[:, None], starts, n)
            Ze = np.concatenate([g0, g1], axis=1)
            ZX = np.concatenate([S0, S1], axis=1)
            ZWX = np.concatenate([S1, S2], axis=1)
            MOM = M @ Omega @ M
            C = np.block([[MOM, -M], [-M, np.zeros((p, p))]])
        D, V = np.linalg.eigh(ZZ)
        top = np.maximum(D[:, -1:], 0.0)
        keep = D > _RANK_TOL * np.where(top > 0, top, 1.0)
        sq = np.where(keep, np.sqrt(np.where(keep, D, 1.0)), 0.0)
        isq = np.where(keep, 1.0 / np.where(keep, sq, 1.0), 0.0)
        VC = np.swapaxes(V, 1, 2) @ C[None] @ V
        N = sq[:, :, None] * VC * sq[:, None, :]
        N = (N + np.swapaxes(N, 1, 2)) / 2
        lam, U = np.linalg.eigh(N)
        val = 1.0 + lam
        ok = val > _POWER_TOL
        pw = np.where(ok, 1.0 / np.sqrt(np.where(ok, val, 1.0)), 0.0)
        R = V * isq[:, None, :]
        RU = R @ U
        K = (RU * (pw - 1.0)[:, None, :]) @ np.swapaxes(RU, 1, 2)          # A_j = I + Z K Z'
        K2 = (RU * (pw * pw - 1.0)[:, None, :]) @ np.swapaxes(RU, 1, 2)    # A_j A_j' = I + Z K2 Z'
        comp = g1 + np.einsum("jab,jb->ja", XtZ @ K, Ze)
        XtZK = XtZ @ K
        XWA_X = S1 + XtZK @ ZX
        XWA_WX = S2 + XtZK @ ZWX
        XWAAWX = S2 + XtZ @ K2 @ ZWX
    meat = comp.T @ comp
    vcov = M @ meat @ M
    vcov = (vcov + vcov.T) / 2
    T = M[None] @ XWA_X
    F = M[None] @ XWA_WX
    d = np.einsum("ab,jbc,ac->ja", M, XWAAWX, M)
    return _Pieces(vcov, M, Omega, T, F, d)


def _inverse_var_pieces(X: np.ndarray, e: np.ndarray, w: np.ndarray, codes: np.ndarray, J: int,
                        kind: str) -> _Pieces:
    """clubSandwich's ``inverse_var = TRUE`` case (its GLM method): working model Theta = W^-1, the
    adjustments from each cluster's dense n_j x n_j block (Theta_j is not a multiple of the identity, so
    the low-rank form of ``_cr_pieces`` does not apply). ``X`` is the GLM's d mu / d eta * X."""
    n, p = X.shape
    M = np.linalg.inv((X * w[:, None]).T @ X)
    M = (M + M.T) / 2
    order = np.argsort(codes, kind="stable")
    bounds = np.concatenate(([0], np.cumsum(np.bincount(codes, minlength=J))))
    c = 1.0 if kind in ("CR0", "CR2", "CR3") else np.sqrt(J * (n - 1) / ((J - 1) * (n - p)))
    comp = np.empty((J, p))
    T = np.empty((J, p, p))
    d = np.empty((J, p))
    for j in range(J):
        idx = order[bounds[j]:bounds[j + 1]]
        Xj, wj, ej = X[idx], w[idx], e[idx]
        th = 1 / wj
        if kind == "CR2":
            sq = np.sqrt(th)
            G = sq[:, None] * (np.diag(th) - Xj @ M @ Xj.T) * sq[None, :]
            vals, vecs = np.linalg.eigh((G + G.T) / 2)
            pw = np.where(vals > _POWER_TOL, 1 / np.sqrt(np.where(vals > _POWER_TOL, vals, 1.0)), 0.0)
            A = sq[:, None] * ((vecs * pw) @ vecs.T) * sq[None, :]
        elif kind == "CR3":
            IH = np.eye(idx.size) - Xj @ M @ (Xj * wj[:, None]).T
            if np.linalg.cond(IH) > 1e12:
                raise ValueError(f"cluster: I - H_jj is singular for cluster {j} (leverage 1); CR3 is not defined, "
                                 "use kind='CR2'")
            A = np.linalg.inv(IH)
        else:
            A = c * np.eye(idx.size)
        E = (Xj * wj[:, None]).T @ A            # X_j'W_j A_j
        comp[j] = E @ ej
        ME = M @ E
        T[j] = ME @ Xj
        d[j] = ((ME * np.sqrt(th)[None, :]) ** 2).sum(axis=1)
    vcov = M @ (comp.T @ comp) @ M
    return _Pieces((vcov + vcov.T) / 2, M, None, T, None, d)


def satterthwaite_df(pieces: _Pieces) -> np.ndarray:
    """Pustejovsky & Tipton's (2018) degrees of freedom of each coefficient (clubSandwich's
    ``Satterthwaite``): ``(tr P)^2 / ||P||_F^2`` with P = diag(d) + Z K Z' of low rank, Z = [F_k, T_k]."""
    M, Omega = pieces.M, pieces.Omega
    p = M.shape[0]
    if Omega is None:   # working model W^-1 (clubSandwich's inverse_var): P = diag(d) - T M T'
        Kk = -M
    else:
        Kk = np.block([[np.zeros((p, p)), -M], [-M, M @ Omega @ M]])
    out = np.empty(p)
    for k in range(p):
        if Omega is None:
            Z = pieces.T[:, k, :]
        else:
            Z = np.concatenate([pieces.F[:, k, :], pieces.T[:, k, :]], axis=1)      # J x 2p
        d = pieces.d[:, k]
        ZK = Z @ Kk
        diag = np.einsum("ja,ja->j", ZK, Z)
        ZtZ = Z.T @ Z
        KZZ = Kk @ ZtZ
        frob = np.sum(d * d) + 2.0 * np.sum(d * diag) + np.sum(KZZ * KZZ.T)
        trace = np.sum(d) + np.sum(diag)
        out[k] = trace * trace / frob if frob > 0 else np.nan
    return out


@dataclass(frozen=True, repr=False)
class ClusterVcov(Result):
    """A cluster-robust covariance matrix (clubSandwich's ``vcovCR``) with what made it.

    Attributes
    ----------
    vcov : pandas.DataFrame
        The p x p covariance matrix of the coefficients, labelled by their names.
    kind : str
        "CR0", "CR1", "CR2" or "CR3".
    n_clusters, nobs : int
        The number of clusters and of observations.

    Examples
    --------
    >>> import numpy as np, statsmodels.api as sm
    >>> from statcore import cluster_vcov
    >>> rng = np.random.default_rng(0)
    >>> g = np.repeat(np.arange(5), 4)
    >>> X = sm.add_constant(rng.normal(size=20))
    >>> v = cluster_vcov(sm.OLS(X @ [1.0, 2.0] + rng.normal(size=20), X).fit(), g, kind="CR1")
    >>> v.values.shape, v.kind
    ((2, 2), 'CR1')
    """

    vcov: Any
    kind: str
    n_clusters: int
    nobs: int
    _codes: Any = field(default=None, compare=False)
    _pieces: Any = field(default=None, compare=False)

    def _repr_parts(self):
        return [("kind", self.kind), ("n_clusters", self.n_clusters), ("nobs", self.nobs)]

    def summary(self) -> str:
        v = self.vcov
        head = f"{self.kind} cluster-robust covariance ({self.n_clusters} clusters, {self.nobs} observations)"
        return head + "\n" + format_table(list(v.index), {c: v[c].to_numpy() for c in v.columns})

    def to_frame(self):
        """The matrix as a DataFrame (one row and one column per coefficient)."""
        return self.vcov

    @property
    def values(self) -> np.ndarray:
        """The matrix as a numpy array."""
        return self.vcov.to_numpy()


@public_function(data=("fit", "cluster"), nan_policy=None)
def cluster_vcov(fit, cluster, *, kind="CR2"):
    """Cluster-robust covariance matrix of a linear model's coefficients: CR0, CR1, CR2 or CR3.

    Mirrors ``clubSandwich::vcovCR(fit, cluster, type = kind)`` (R package clubSandwich 0.5.8) for
    ``lm`` fits with and without weights and for ``glm`` fits: CR2 is Bell & McCaffrey's (2002)
    bias-reduced estimator in Pustejovsky & Tipton's (2018) form (clubSandwich's working model: the
    identity for OLS and WLS, W^-1 for a GLM), CR3 the jackknife-like ``(I - H_jj)^-1`` adjustment.
    ``"CR1"`` is the small-sample factor of Stata, of ``sandwich::vcovCL(type = "HC1")`` (sandwich
    3.0.2) and of statsmodels' ``cov_type="cluster"``, G/(G-1) (n-1)/(n-p) (clubSandwich's ``"CR1S"``).
    For linear models the matrix is computed from p x p cross-products per cluster: no n x n hat
    matrix, nor any n_j x n_j block, is formed.

    Parameters
    ----------
    fit : statsmodels results
        A fitted ``OLS``, ``WLS`` (array or formula API: ``smf.ols("y ~ x", data).fit()``) or ``GLM``
        (clubSandwich's ``glm`` method: the model matrix scaled by d mu / d eta, weights w / V(mu),
        response residuals, working model W^-1; its clusters are handled as dense blocks).
    cluster : array_like
        One cluster label per observation of the fit (numbers or text). A pandas Series longer than
        the fit (the fit dropped rows holding NaN) is taken at the fit's row labels.
    kind : {"CR2", "CR0", "CR1", "CR3"}
        The small-sample adjustment.

    Returns
    -------
    ClusterVcov
        ``vcov`` (a labelled DataFrame), ``kind``, ``n_clusters``, ``nobs``; ``values`` gives the array.

    References
    ----------
    Bell, R. M. & McCaffrey, D. F. (2002). Bias reduction in standard errors for linear regression
    with multi-stage samples. Survey Methodology 28, 169-181.
    Pustejovsky, J. E. & Tipton, E. (2018). Small-sample methods for cluster-robust variance
    estimation and hypothesis testing in fixed effects models. Journal of Business & Economic
    Statistics 36, 672-683. R package clubSandwich 0.5.8, ``vcovCR``; sandwich 3.0.2, ``vcovCL``.

    Examples
    --------
    >>> import numpy as np, statsmodels.api as sm
    >>> from statcore import cluster_vcov
    >>> rng = np.random.default_rng(1)
    >>> g = np.repeat(np.arange(8), 5)
    >>> x = rng.normal(size=40) + rng.normal(size=8)[g]
    >>> y = 1 + 0.5 * x + rng.normal(size=8)[g] + rng.normal(size=40)
    >>> fit = sm.OLS(y, sm.add_constant(x)).fit()
    >>> v = cluster_vcov(fit, g, kind="CR2")
    >>> v
    ClusterVcov(kind='CR2', n_clusters=8, nobs=40)
    >>> bool(np.all(np.diag(v.values) > 0))
    True
    """
    kind = check_choice(kind, "kind", KINDS)
    lf = as_linear_fit(fit, "fit")
    n = lf.X.shape[0]
    codes, J = as_cluster_codes(cluster, n, lf.row_labels, "cluster")
    return _make_vcov(lf, codes, J, kind)


def _make_vcov(lf, codes: np.ndarray, J: int, kind: str) -> ClusterVcov:
    n, p = lf.X.shape
    if lf.kind == "glm":
        pieces = _inverse_var_pieces(lf.X, lf.resid, lf.weights, codes, J, kind)
    else:
        pieces = _cr_pieces(lf.X, lf.resid, lf.weights, codes, J, kind, lf.kind == "ols")
    V = pieces.vcov
    if not np.all(np.isfinite(V)):
        raise ValueError("fit: the cluster-robust covariance is not finite (data on an extreme scale?)")
    frame = pd.DataFrame(V, index=list(lf.names), columns=list(lf.names))
    return ClusterVcov(frame, kind, J, n, _codes=codes, _pieces=pieces)
