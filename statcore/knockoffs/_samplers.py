"""Knockoff variables: fixed-X (Barber & Candes 2015, R's ``create.fixed``) and model-X Gaussian
(Candes et al. 2018, R's ``create.gaussian``, with ``create.second_order``'s estimates of mu and Sigma)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import linalg

from .._checks import as_float_array, check_choice, check_seed, pow2_scale
from .._checks.knockoffs import as_covariance, as_design
from .._result import Result
from ._smatrix import SMATRIX_METHODS, KnockoffS, knockoff_s

__all__ = ["knockoffs_fixed_x", "knockoffs_gaussian", "KnockoffVariables"]


@dataclass(frozen=True, repr=False)
class KnockoffVariables(Result):
    """Knockoff copies of the columns of X (R knockoff's ``knockoff.variables``).

    Attributes
    ----------
    X : ndarray, shape (n, p)
        The design the knockoffs belong to: X itself for model-X knockoffs, X with its columns scaled
        to unit Euclidean norm (not centred, as R's ``create.fixed``) for fixed-X knockoffs.
    Xk : ndarray, shape (n, p)
        The knockoffs.
    smatrix : KnockoffS
        The S-matrix used (``smatrix.s``).
    kind : str
        "fixed-X" or "model-X Gaussian".
    mu : ndarray or None
        The mean used by model-X knockoffs (given or estimated; None for fixed-X).
    Sigma : ndarray
        The covariance used: given or estimated (model-X), ``X'X`` of the normalised X (fixed-X).
    names : tuple of str or None
        The column names of a DataFrame X.

    Examples
    --------
    >>> import numpy as np, statcore as sc
    >>> X = np.random.default_rng(1).standard_normal((20, 3))
    >>> kv = sc.knockoffs_fixed_x(X, method="equi", seed=2)
    >>> kv
    KnockoffVariables(kind='fixed-X', n=20, p=3, method='equi', sum_s=...)
    >>> bool(np.allclose(kv.Xk.T @ kv.Xk, kv.X.T @ kv.X))
    True
    """

    X: np.ndarray
    Xk: np.ndarray
    smatrix: KnockoffS
    kind: str
    mu: Any
    Sigma: np.ndarray
    names: Any

    def _repr_parts(self):
        n, p = self.X.shape
        return [("kind", self.kind), ("n", n), ("p", p), ("method", self.smatrix.method),
                ("sum_s", float(np.sum(self.smatrix.s)))]

    def summary(self) -> str:
        """The construction, the dimensions and the S-matrix's summary."""
        n, p = self.X.shape
        return (f"\n\tKnockoff variables ({self.kind})\n\n"
                f"{n} observations of {p} variables\n" + self.smatrix.summary())

    def to_frame(self):
        """One row per variable: ``variable``, ``s`` and ``correlation``, the sample correlation of
        ``X_j`` with its knockoff."""
        import pandas as pd

        xc = self.X - self.X.mean(axis=0)
        kc = self.Xk - self.Xk.mean(axis=0)
        den = np.sqrt(np.sum(xc ** 2, axis=0) * np.sum(kc ** 2, axis=0))
        cor = np.sum(xc * kc, axis=0) / np.where(den > 0, den, np.nan)
        var = list(self.names) if self.names is not None else list(range(self.X.shape[1]))
        return pd.DataFrame({"variable": var, "s": np.asarray(self.smatrix.s, dtype=float), "correlation": cor})


def _names(X) -> Any:
    cols = getattr(X, "columns", None)
    return tuple(str(c) for c in cols) if cols is not None else None


def _orthonormal_complement(U: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """An (n, p) orthonormal matrix orthogonal to the columns of U, uniformly random (R's
    ``decompose(X, randomize = TRUE)`` draws a random rotation of its complement)."""
    n, p = U.shape
    Z = rng.standard_normal((n, p))
    Z -= U @ (U.T @ Z)
    Z -= U @ (U.T @ Z)  # twice is enough (Kahan's rule)
    Q, R = linalg.qr(Z, mode="economic")
    return Q * np.sign(np.diag(R))


def _psd_factor(A: np.ndarray) -> np.ndarray:
    """C with C'C = A for a symmetric positive-semidefinite A: the Cholesky factor (R's ``chol``) when
    A is positive definite, else the eigenvalue root with negative rounding eigenvalues set to 0 (as R's
    ``pmax(0, ...)``)."""
    try:
        return linalg.cholesky((A + A.T) / 2, lower=False, check_finite=False)
    except linalg.LinAlgError:
        pass
    lam, V = linalg.eigh((A + A.T) / 2)
    return np.sqrt(np.maximum(lam, 0.0))[:, None] * V.T


def knockoffs_fixed_x(X, *, method="sdp", seed=None):
    """Fixed-X knockoffs (Barber & Candes 2015; R knockoff's ``create.fixed``).

    The columns of X are scaled to unit norm (not centred), as R does; with G = X'X and S = diag(s),
    ``Xk = X (I - G^{-1} S) + U C`` where U is an (n, p) orthonormal matrix orthogonal to the columns of
    X (drawn at random from ``seed``) and ``C'C = 2 S - S G^{-1} S``; so ``Xk'Xk = X'X`` and
    ``X'Xk = X'X - S`` exactly, whatever U.

    Parameters
    ----------
    X : array_like or pandas DataFrame, shape (n, p)
        The fixed design, of full column rank, with **n >= 2p** (required: R's ``create.fixed``
        augments a design with p < n < 2p by extra rows and a noise estimate from y; that augmentation is
        not done here, and such an X is refused).
    method : {"sdp", "equi", "mvr", "maxent"}
        The S-matrix (:func:`knockoff_s` on ``X'X``). As in R, "equi" is ``min(2 lambda_min(X'X), 1)``
        without ``create.solve_equi``'s safety margin (``create.fixed``'s own formula), and "sdp" sets
        ``s_j <= 1e-5`` to 0.
    seed : None, int or numpy.random.Generator
        The draw of U (R's ``randomize = TRUE``; R's default takes a fixed complement from a QR
        decomposition instead).

    Returns
    -------
    KnockoffVariables
        ``X`` (normalised), ``Xk``, ``smatrix``, ``Sigma`` (= ``X'X`` of the normalised X).

    References
    ----------
    Barber, R. F. and Candes, E. J. (2015). Controlling the false discovery rate via knockoffs. Annals of
    Statistics 43(5), 2055-2085. R package knockoff 0.3.6, ``create.fixed``.

    Examples
    --------
    >>> import numpy as np, statcore as sc
    >>> X = np.random.default_rng(0).standard_normal((50, 5))
    >>> kv = sc.knockoffs_fixed_x(X, method="sdp", seed=1)
    >>> G = kv.X.T @ kv.X
    >>> bool(np.allclose(kv.X.T @ kv.Xk, G - np.diag(kv.smatrix.s)))
    True
    """
    names = _names(X)
    X = as_design(X, "X")
    method = check_choice(method, "method", SMATRIX_METHODS)
    rng = check_seed(seed)
    n, p = X.shape
    if n < 2 * p:
        raise ValueError(f"X must have n >= 2p rows for fixed-X knockoffs (n = {n}, p = {p}); R's create.fixed "
                         "augments p < n < 2p with extra rows, which is not done here: use model-X knockoffs "
                         "(knockoffs_gaussian) instead")
    Xn = X / pow2_scale(X, axis=0)                    # exact: keeps 1e300 and 1e-300 data finite
    Xn = Xn / np.sqrt(np.sum(Xn ** 2, axis=0))
    U, d, Vt = linalg.svd(Xn, full_matrices=False)
    if np.any(d <= 1e-5 * d.max()):
        raise ValueError("X is rank deficient (a column is a linear combination of others): fixed-X knockoffs "
                         "need a design of full column rank")
    G = (Vt.T * d ** 2) @ Vt
    G = (G + G.T) / 2
    if method == "equi":
        sval = min(2 * float(d.min()) ** 2, 1.0)
        s = np.full(p, sval)
        cert = float(linalg.eigvalsh(2 * G - np.diag(s), subset_by_index=[0, 0])[0])
        sm = KnockoffS(s=s, method="equi", certificate=cert, shrink=1.0, objective=float(np.sum(s)), gap=0.0,
                       n_iter=0, converged=True)
    else:
        sm = knockoff_s(G, method=method)
        if method == "sdp":
            s = np.where(sm.s <= 1e-5, 0.0, sm.s)
            if np.any(s != sm.s):
                cert = float(linalg.eigvalsh(2 * G - np.diag(s), subset_by_index=[0, 0])[0])
                sm = KnockoffS(s=s, method=sm.method, certificate=cert, shrink=sm.shrink, objective=float(np.sum(s)),
                               gap=sm.gap, n_iter=sm.n_iter, converged=sm.converged)
        s = np.asarray(sm.s)
    Ginv = (Vt.T / d ** 2) @ Vt
    Ginv_s = Ginv * s[None, :]                       # G^{-1} S
    C = _psd_factor(2 * np.diag(s) - s[:, None] * Ginv_s)
    Uperp = _orthonormal_complement(U, rng)
    Xk = Xn - Xn @ Ginv_s + Uperp @ C
    return KnockoffVariables(X=Xn, Xk=Xk, smatrix=sm, kind="fixed-X", mu=None, Sigma=G, names=names)


def _cov_shrink(X: np.ndarray) -> np.ndarray:
    """The shrinkage covariance of Schafer & Strimmer (2005) and Opgen-Rhein & Strimmer (2007), as
    corpcor's ``cov.shrink``: correlations shrunk towards 0 and variances towards their median, each with
    its estimated optimal intensity (clipped to [0, 1])."""
    n, p = X.shape
    xc = X - X.mean(axis=0)
    # correlations: standardised data, w_kij = x_ki x_kj
    sd = np.sqrt(np.sum(xc ** 2, axis=0) / (n - 1))
    xs = xc / sd
    R = (xs.T @ xs) / (n - 1)
    w2 = (xs ** 2).T @ (xs ** 2)                     # sum_k w_kij^2
    wbar = (xs.T @ xs) / n
    var_r = n / (n - 1) ** 3 * (w2 - n * wbar ** 2)
    off = ~np.eye(p, dtype=bool)
    denom = np.sum(R[off] ** 2)
    lam = 1.0 if denom == 0 else float(np.clip(np.sum(var_r[off]) / denom, 0.0, 1.0))
    Rs = (1 - lam) * R
    np.fill_diagonal(Rs, 1.0)
    # variances towards the median
    w = xc ** 2
    v = np.sum(w, axis=0) / (n - 1)
    var_v = n / (n - 1) ** 3 * np.sum((w - w.mean(axis=0)) ** 2, axis=0)
    target = np.median(v)
    denom_v = np.sum((v - target) ** 2)
    lam_v = 1.0 if denom_v == 0 else float(np.clip(np.sum(var_v) / denom_v, 0.0, 1.0))
    vs = lam_v * target + (1 - lam_v) * v
    sds = np.sqrt(vs)
    return Rs * sds[:, None] * sds[None, :]


def second_order(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """R's ``create.second_order`` estimates: column means, and the sample covariance unless it is not
    positive definite (smallest eigenvalue at most 1e-8, R's ``is_posdef``), then ``cov.shrink``."""
    mu = X.mean(axis=0)
    Sigma = np.cov(X, rowvar=False, ddof=1).reshape(X.shape[1], X.shape[1])
    if linalg.eigvalsh(Sigma, subset_by_index=[0, 0])[0] <= 1e-8:
        Sigma = _cov_shrink(X)
    return mu, Sigma


def gaussian_draw(X: np.ndarray, mu: np.ndarray, Sigma: np.ndarray, s: np.ndarray,
                  rng: np.random.Generator) -> np.ndarray:
    """One draw of Xk given X: mean ``X - (X - mu) Sigma^{-1} D``, covariance ``2 D - D Sigma^{-1} D``."""
    n, p = X.shape
    SinvD = linalg.solve(Sigma, np.diag(s), assume_a="pos")
    mean = X - (X - mu) @ SinvD
    C = _psd_factor(2 * np.diag(s) - np.diag(s) @ SinvD)
    return mean + rng.standard_normal((n, p)) @ C


def knockoffs_gaussian(X, *, mu=None, Sigma=None, method="sdp", seed=None):
    """Model-X Gaussian knockoffs (Candes et al. 2018; R knockoff's ``create.gaussian``).

    For rows ``x ~ N(mu, Sigma)`` and ``D = diag(s)``, each knockoff row is drawn from
    ``N(x - D Sigma^{-1} (x - mu), 2 D - D Sigma^{-1} D)``, so that (X, Xk) has the joint covariance
    ``[[Sigma, Sigma - D], [Sigma - D, Sigma]]``. The covariance factor is the Cholesky factor, as R's ``chol``
    (an eigenvalue root where ``2 D - D Sigma^{-1} D`` is singular: the same distribution).

    Parameters
    ----------
    X : array_like or pandas DataFrame, shape (n, p)
        The covariates.
    mu : array_like, shape (p,), optional
        The mean of the rows. With ``mu`` and ``Sigma`` both None they are estimated as R's
        ``create.second_order`` does: column means, and the sample covariance, replaced by the shrinkage
        estimator of corpcor's ``cov.shrink`` (Schafer & Strimmer 2005) when it is not positive
        definite (e.g. n <= p). Give both or neither.
    Sigma : array_like, shape (p, p), optional
        The covariance of the rows (positive definite).
    method : {"sdp", "equi", "mvr", "maxent"}
        The S-matrix (:func:`knockoff_s`). R's default "asdp" is "sdp" for p <= 500; the approximate SDP
        is not offered.
    seed : None, int or numpy.random.Generator
        The knockoff draw.

    Returns
    -------
    KnockoffVariables
        ``X``, ``Xk``, ``smatrix``, ``mu``, ``Sigma``.

    References
    ----------
    Candes, E., Fan, Y., Janson, L. and Lv, J. (2018). Panning for gold: model-X knockoffs for high
    dimensional controlled variable selection. JRSS B 80(3), 551-577. Schafer, J. and Strimmer, K. (2005).
    A shrinkage approach to large-scale covariance matrix estimation. Statistical Applications in
    Genetics and Molecular Biology 4, 32. R package knockoff 0.3.6, ``create.gaussian``,
    ``create.second_order``.

    Examples
    --------
    >>> import numpy as np, statcore as sc
    >>> Sigma = 0.5 ** np.abs(np.subtract.outer(np.arange(4), np.arange(4)))
    >>> X = np.random.default_rng(0).multivariate_normal(np.zeros(4), Sigma, size=100)
    >>> kv = sc.knockoffs_gaussian(X, mu=np.zeros(4), Sigma=Sigma, method="equi", seed=1)
    >>> kv.Xk.shape
    (100, 4)
    """
    names = _names(X)
    X = as_design(X, "X")
    method = check_choice(method, "method", SMATRIX_METHODS)
    rng = check_seed(seed)
    mu, Sigma = _mean_cov(X, mu, Sigma)
    sm = knockoff_s(Sigma, method=method)
    Xk = gaussian_draw(X, mu, Sigma, np.asarray(sm.s), rng)
    return KnockoffVariables(X=X, Xk=Xk, smatrix=sm, kind="model-X Gaussian", mu=mu, Sigma=Sigma, names=names)


def _mean_cov(X: np.ndarray, mu: Any, Sigma: Any) -> tuple[np.ndarray, np.ndarray]:
    p = X.shape[1]
    if mu is None and Sigma is None:
        return second_order(X)
    if mu is None or Sigma is None:
        raise ValueError("give both mu and Sigma, or neither (then both are estimated from X)")
    mu = as_float_array(mu, "mu")
    if mu.ndim == 0:
        mu = np.full(p, float(mu))
    if mu.ndim != 1 or mu.size != p:
        raise ValueError(f"mu must have one value per column of X ({p}), got shape {mu.shape}")
    return mu, as_covariance(Sigma, "Sigma", p=p)
