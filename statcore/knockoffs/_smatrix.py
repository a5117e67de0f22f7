"""The S-matrix of knockoffs: diag(s) with 2 Sigma - diag(s) positive semidefinite.

Four choices (``knockoff_s``): equicorrelated (closed form, R knockoff's ``create.solve_equi``), SDP
(R's ``create.solve_sdp``; solved here by a primal log-barrier interior-point method), and the minimum
variance-based reconstructability (MVR) and maximum entropy (maxent) S-matrices of Spector & Janson
(2022), by exact coordinate descent. Every solver works on the correlation matrix and scales s back by
the variances, as R and knockpy do.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import linalg

from .._checks import check_choice
from .._checks.knockoffs import as_covariance
from .._result import Result
from .._warnings import ConvergenceWarning

__all__ = ["knockoff_s", "KnockoffS", "SMATRIX_METHODS"]

SMATRIX_METHODS = ("sdp", "equi", "mvr", "maxent")

#: R knockoff's feasibility check ``is_posdef(A, tol = 1e-9)``: the smallest eigenvalue above 10 * tol
_R_POSDEF = 1e-8


@dataclass(frozen=True, repr=False)
class KnockoffS(Result):
    """The S-matrix of a knockoff construction (:func:`knockoff_s`): its diagonal ``s``.

    Attributes
    ----------
    s : ndarray
        The diagonal of S, on the scale of Sigma (``s_j <= 2 Sigma_jj``; ``s_j <= Sigma_jj`` for "sdp"
        and "equi").
    method : str
        "sdp", "equi", "mvr" or "maxent".
    certificate : float
        The smallest eigenvalue of ``2 Sigma - diag(s)``: the feasibility certificate (>= -1e-8 always;
        about 1e-8 times the scale for "sdp" and "equi", R's safety margin).
    shrink : float
        The factor ``1 - eps`` that s was multiplied by to keep ``2 G - diag(s)`` positive definite (R's
        margin, ``eps`` the first of 1e-8, 1e-7, ... that suffices).
    objective : float
        The criterion at s on the correlation scale: ``sum(s)`` for "sdp" and "equi", the trace of the
        inverse joint correlation matrix for "mvr", minus its log-determinant for "maxent".
    gap : float
        A bound on the optimality gap of ``objective`` (the barrier's duality gap for "sdp"; the last
        relative change of the criterion for "mvr" and "maxent"; 0 for "equi").
    n_iter : int
        Newton steps ("sdp") or coordinate sweeps ("mvr", "maxent"); 0 for "equi".
    converged : bool

    Examples
    --------
    >>> import numpy as np, statcore as sc
    >>> Sigma = 0.5 ** np.abs(np.subtract.outer(np.arange(4), np.arange(4)))
    >>> res = sc.knockoff_s(Sigma, method="equi")
    >>> res.s.round(4)
    array([0.75, 0.75, 0.75, 0.75])
    >>> res.certificate > 0
    True
    """

    s: np.ndarray
    method: str
    certificate: float
    shrink: float
    objective: float
    gap: float
    n_iter: int
    converged: bool

    def _repr_parts(self):
        return [("method", self.method), ("p", int(self.s.size)), ("sum_s", float(np.sum(self.s))),
                ("certificate", self.certificate), ("converged", self.converged)]

    def summary(self) -> str:
        """What was solved, sum(s), the certificate and the spread of s."""
        s = np.asarray(self.s)
        names = {"sdp": "SDP (maximise sum s)", "equi": "equicorrelated",
                 "mvr": "minimum variance-based reconstructability (MVR)", "maxent": "maximum entropy"}
        q = np.quantile(s, [0, 0.5, 1])
        return (f"\n\tKnockoff S-matrix: {names[self.method]}\n\n"
                f"{s.size} variables, sum(s) = {np.sum(s):.6g}\n"
                f"s: min {q[0]:.6g}, median {q[1]:.6g}, max {q[2]:.6g}\n"
                f"certificate: lambda_min(2 Sigma - diag(s)) = {self.certificate:.3g}\n"
                f"objective = {self.objective:.10g} (gap <= {self.gap:.2g}), "
                f"{self.n_iter} iterations, {'converged' if self.converged else 'NOT converged'}\n")

    def to_frame(self):
        """One row per variable: ``variable`` (0-based) and ``s``."""
        import pandas as pd

        return pd.DataFrame({"variable": np.arange(np.size(self.s)), "s": np.asarray(self.s, dtype=float)})


def knockoff_s(Sigma, *, method="sdp", tol=1e-9, max_iter=500):
    """The S-matrix of Gaussian (model-X) or fixed-X knockoffs: s with ``2 Sigma - diag(s) >= 0``.

    Parameters
    ----------
    Sigma : array_like, shape (p, p)
        A symmetric positive-definite covariance (or correlation) matrix.
    method : {"sdp", "equi", "mvr", "maxent"}
        ``"equi"``: R knockoff's ``create.solve_equi``: on the correlation matrix G,
        ``s_j = min(1, 2 lambda_min(G))``, multiplied by ``1 - eps`` with ``eps`` the first of 1e-8,
        1e-7, ... for which ``2 G - diag(s)`` has its smallest eigenvalue above 1e-8 (R's ``s_eps``
        loop, exactly), then by the variances ``diag(Sigma)``.
        ``"sdp"``: R's ``create.solve_sdp``: maximise ``sum(s)`` subject to ``0 <= s <= 1`` and
        ``2 G - diag(s) >= 0`` on the correlation scale. R calls DSDP (Rdsdp, ``gaptol = 1e-6``); here a
        primal log-barrier interior-point method with Newton steps solves it to a duality gap of
        ``tol * p``. The answer then goes through R's same post-processing: clipped to [0, 1],
        multiplied by ``1 - eps`` (eps from 1e-8 up to 0.1 by factors of 10, the first for which the
        smallest eigenvalue exceeds 1e-8) and by the variances.
        ``"mvr"``: minimise ``trace(G_S^{-1})``, G_S the joint correlation matrix of (X, X~),
        ``= sum(1 / s) + trace((2 G - diag(s))^{-1})``; ``"maxent"``: maximise ``log det G_S =
        sum(log s) + log det(2 G - diag(s))`` (Spector & Janson 2022). Both by coordinate descent,
        each coordinate minimised in closed form with a Sherman-Morrison update of the inverse,
        until the criterion changes by less than ``tol`` (relative), then R's ``1 - eps`` margin.
    tol : float
        The tolerance: the barrier's duality gap per variable ("sdp"), the relative change of the
        criterion over a sweep ("mvr", "maxent"). Not used by "equi".
    max_iter : int
        Newton steps ("sdp") or sweeps ("mvr", "maxent") at most.

    Returns
    -------
    KnockoffS
        ``s``, ``method``, ``certificate`` (the smallest eigenvalue of ``2 Sigma - diag(s)``),
        ``shrink``, ``objective``, ``gap``, ``n_iter``, ``converged``. A result rather than a plain
        array because the certificate and the convergence belong to the answer (CONTRIBUTING: anything
        that is not a test returns a ``Result``); ``res.s`` is the vector.

    Raises
    ------
    ValueError
        If Sigma is not square, symmetric and positive definite.

    References
    ----------
    Barber, R. F. and Candes, E. J. (2015). Controlling the false discovery rate via knockoffs. Annals of
    Statistics 43(5), 2055-2085.
    Candes, E., Fan, Y., Janson, L. and Lv, J. (2018). Panning for gold: model-X knockoffs for high
    dimensional controlled variable selection. JRSS B 80(3), 551-577.
    Spector, A. and Janson, L. (2022). Powerful knockoffs via minimizing reconstructability. Annals of
    Statistics 50(1), 252-276.
    R package knockoff 0.3.6, ``create.solve_equi`` and ``create.solve_sdp``.

    Examples
    --------
    >>> import numpy as np, statcore as sc
    >>> Sigma = 0.5 ** np.abs(np.subtract.outer(np.arange(10), np.arange(10)))
    >>> res = sc.knockoff_s(Sigma, method="sdp")
    >>> res.s.round(4).tolist()
    [1.0, 0.6667, 0.6667, 0.6667, 0.6667, 0.6667, 0.6667, 0.6667, 0.6667, 1.0]
    >>> bool(res.certificate >= -1e-8)
    True
    """
    from .._checks import check_positive_int, check_positive_real

    S = as_covariance(Sigma, "Sigma")
    method = check_choice(method, "method", SMATRIX_METHODS)
    tol = check_positive_real(tol, "tol")
    max_iter = check_positive_int(max_iter, "max_iter")
    sd = np.sqrt(np.diag(S))
    G = S / sd[:, None] / sd[None, :]
    G = (G + G.T) / 2
    np.fill_diagonal(G, 1.0)
    if method == "equi":
        s, objective, gap, n_iter, converged = _solve_equi(G)
        s, shrink = _r_margin(G, s, cap=None)
    elif method == "sdp":
        s, objective, gap, n_iter, converged = _solve_sdp(G, tol, max_iter)
        s = np.clip(s, 0.0, 1.0)
        s, shrink = _r_margin(G, s, cap=0.1)
        objective = float(np.sum(s))
    else:
        s, objective, gap, n_iter, converged = _solve_mrc(G, method, tol, max_iter)
        s, shrink = _r_margin(G, s, cap=0.1)
        objective = _mrc_objective(G, s, method)
    if not converged:
        warnings.warn(f"knockoff_s(method={method!r}) stopped after {n_iter} iterations short of tol={tol:g}; "
                      "raise max_iter", ConvergenceWarning, stacklevel=2)
    s_out = s * np.diag(S)
    cert = float(linalg.eigvalsh(2 * S - np.diag(s_out), subset_by_index=[0, 0])[0])
    return KnockoffS(s=s_out, method=method, certificate=cert, shrink=float(shrink), objective=float(objective),
                     gap=float(gap), n_iter=int(n_iter), converged=bool(converged))


def _lambda_min(A: np.ndarray) -> float:
    return float(linalg.eigvalsh(A, subset_by_index=[0, 0])[0])


def _r_margin(G: np.ndarray, s: np.ndarray, cap: float | None) -> tuple[np.ndarray, float]:
    """R knockoff's safety margin: s * (1 - eps), eps the first of 1e-8, 1e-7, ... (up to ``cap``) with
    lambda_min(2 G - diag(s (1 - eps))) > 1e-8."""
    eps = 1e-8
    while True:
        if _lambda_min(2 * G - np.diag(s * (1 - eps))) > _R_POSDEF:
            break
        if cap is not None and eps * 10 > cap * (1 + 1e-12):
            break
        eps *= 10
        if cap is None and eps >= 1:  # pragma: no cover - cannot happen for a positive-definite G
            break
    out = s * (1 - eps)
    out[out < 0] = 0.0
    return out, 1 - eps


def _solve_equi(G: np.ndarray):
    lam = _lambda_min(G)
    s = np.full(G.shape[0], min(2 * lam, 1.0))
    return s, float(np.sum(s)), 0.0, 0, True


def _solve_sdp(G: np.ndarray, tol: float, max_iter: int):
    """max 1's subject to 0 < s < 1, 2G - diag(s) > 0, by the barrier method (Boyd & Vandenberghe 2004,
    section 11.3): minimise t * (-1's) - log det(2G - diag s) - sum log s - sum log(1 - s) by damped
    Newton steps for t growing by a factor of 10 until the duality gap bound (3p / t) is below tol * p."""
    p = G.shape[0]
    lam = _lambda_min(G)
    s = np.full(p, 0.5 * min(2 * lam, 1.0))
    m = 3.0 * p
    t = max(1.0, m / max(np.sum(s), 1e-12))
    n_iter = 0
    two_g = 2 * G

    def barrier(s_, t_):
        if np.any(s_ <= 0) or np.any(s_ >= 1):
            return np.inf, None
        try:
            c = linalg.cholesky(two_g - np.diag(s_), lower=True, check_finite=False)
        except linalg.LinAlgError:
            return np.inf, None
        logdet = 2 * np.sum(np.log(np.diag(c)))
        return -t_ * np.sum(s_) - logdet - np.sum(np.log(s_)) - np.sum(np.log1p(-s_)), c

    f, c = barrier(s, t)
    converged = False
    eye = np.eye(p)
    while n_iter < max_iter:
        # centring: damped Newton steps on the barrier problem at this t (at most 50)
        for _ in range(50):
            if n_iter >= max_iter:
                break
            n_iter += 1
            minv = linalg.cho_solve((c, True), eye, check_finite=False)
            grad = -t + np.diag(minv) - 1 / s + 1 / (1 - s)
            hess = minv * minv
            hess[np.diag_indices(p)] += 1 / s ** 2 + 1 / (1 - s) ** 2
            try:
                # near the boundary the Hessian is ill-conditioned (1/s^2 for s -> 0 next to O(1) entries):
                # scipy's LinAlgWarning is expected there and harmless (the line search and the final
                # certificate guard the answer), so it is not passed on to the user hundreds of times
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", linalg.LinAlgWarning)
                    step = -linalg.solve(hess, grad, assume_a="pos", check_finite=False)
            except linalg.LinAlgError:  # pragma: no cover - the Hessian is positive definite
                step = -grad / np.diag(hess)
            dec = -float(grad @ step)
            if dec / 2 <= 1e-8:
                break
            alpha = 1.0
            neg = step < 0
            if np.any(neg):
                alpha = min(alpha, 0.99 * np.min(-s[neg] / step[neg]))
            pos = step > 0
            if np.any(pos):
                alpha = min(alpha, 0.99 * np.min((1 - s[pos]) / step[pos]))
            f_new, c_new = barrier(s + alpha * step, t)
            while f_new > f - 0.25 * alpha * dec and alpha > 1e-12:
                alpha *= 0.5
                f_new, c_new = barrier(s + alpha * step, t)
            if c_new is None or f_new > f:
                break  # no progress possible at this t (rounding): go on to the next t
            s = s + alpha * step
            f, c = f_new, c_new
        if m / t <= tol * p:
            converged = True
            break
        t *= 10.0
        f, c = barrier(s, t)
    return s, float(np.sum(s)), m / t, n_iter, converged


def _mrc_objective(G: np.ndarray, s: np.ndarray, method: str) -> float:
    M = 2 * G - np.diag(s)
    if method == "mvr":
        return float(np.sum(1 / s) + np.trace(np.linalg.inv(M)))
    sign, logdet = np.linalg.slogdet(M)
    return float(-(np.sum(np.log(s)) + logdet))


def _solve_mrc(G: np.ndarray, method: str, tol: float, max_iter: int):
    """Coordinate descent for MVR and maxent. Changing s_j by d changes M = 2G - diag(s) by -d e_j e_j';
    with c = (M^-1)_jj and v = ||M^-1 e_j||^2, trace(M^-1) grows by d v / (1 - d c) and log det M by
    log(1 - d c). The coordinate minimum is closed-form:
    maxent: d = (1 - c s_j) / (2 c); MVR: d = (1 - sqrt(v) s_j) / (c + sqrt(v))."""
    p = G.shape[0]
    lam = _lambda_min(G)
    s = np.full(p, 0.5 * min(2 * lam, 1.0))
    minv = np.linalg.inv(2 * G - np.diag(s))
    obj = _mrc_objective(G, s, method)
    change = np.inf
    converged = False
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        if n_iter > 1:  # a fresh inverse each sweep: no drift from the rank-one updates
            minv = np.linalg.inv(2 * G - np.diag(s))
        for j in range(p):
            col = minv[:, j].copy()
            c = col[j]
            if method == "maxent":
                d = (1 - c * s[j]) / (2 * c)
            else:
                rv = np.sqrt(col @ col)
                d = (1 - rv * s[j]) / (c + rv)
            denom = 1 - d * c
            if d == 0 or denom <= 0:
                continue
            s[j] += d
            minv += (d / denom) * np.outer(col, col)
        new = _mrc_objective(G, s, method)
        change = abs(obj - new) / max(1.0, abs(new))
        obj = new
        if change <= tol:
            converged = True
            break
    return s, obj, change, n_iter, converged
