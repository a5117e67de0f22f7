"""Solvers for the mixture-weight problem on a fixed grid.

    maximise  sum_i omega_i log (L w)_i   over the simplex  w >= 0, sum_j w_j = 1,

with L (n, m) nonnegative (a row-scaled likelihood matrix, Fortran order) and omega >= 0 summing to
one. Each returns the weights, the KKT certificate max_j sum_i omega_i L_ij / (L w)_i (at least 1,
equal to 1 exactly at the optimum) and the number of iterations.
"""
from __future__ import annotations

import numpy as np


def kkt_ratio(L: np.ndarray, omega: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(L w, r) with r_j = sum_i omega_i L_ij / (L w)_i: the gradient of the objective."""
    s = w > 0
    lw = L[:, s] @ w[s]
    with np.errstate(divide="ignore"):
        r = L.T @ (omega / lw)
    return lw, r


def _nnqp(H: np.ndarray, c: np.ndarray, tol: float, max_iter: int) -> np.ndarray:
    """min 1/2 y'Hy + c'y subject to y >= 0, by the primal active-set method started at y = 0.

    Nocedal & Wright (2006), Algorithm 16.3, specialised to bound constraints as in Kim et al.
    (2020), Algorithm 2: variables enter the free set one at a time (most negative gradient first);
    when the unconstrained minimiser on the free set leaves the orthant, step to the boundary and
    drop the variables that reach zero.
    """
    k = c.size
    y = np.zeros(k)
    free = np.zeros(k, dtype=bool)
    for _ in range(max_iter):
        grad = H @ y + c
        grad[free] = np.inf
        j = int(np.argmin(grad))
        if grad[j] >= -tol:
            return y
        free[j] = True
        while True:
            idx = np.flatnonzero(free)
            z = np.zeros(k)
            try:
                z[idx] = np.linalg.solve(H[np.ix_(idx, idx)], -c[idx])
            except np.linalg.LinAlgError:
                z[idx] = np.linalg.lstsq(H[np.ix_(idx, idx)], -c[idx], rcond=None)[0]
            if np.all(z[idx] > 0):
                y = z
                break
            block = idx[z[idx] <= 0]
            steps = y[block] / (y[block] - z[block])
            alpha = float(np.min(steps)) if steps.size else 0.0
            y = y + alpha * (z - y)
            drop = free & (y <= 1e-300)
            drop[block[steps <= alpha]] = True
            y[drop] = 0.0
            free &= ~drop
            if not free.any():
                break
    return y


def mixsqp(L: np.ndarray, omega: np.ndarray, w0: np.ndarray, tol: float, max_iter: int,
           max_add: int = 60, em_steps: int = 0) -> tuple[np.ndarray, float, int, bool]:
    """Sequential quadratic programming (Kim, Carbonetto & Stephens 2020) with a working set.

    Minimise phi(w) = -sum_i omega_i log (L w)_i + sum_j w_j over w >= 0; its minimiser lies on the
    simplex (Kim et al. 2020, Proposition 3.1). Each iteration takes the quadratic model of phi at
    the current weights (exact Hessian L' diag(omega / (Lw)^2) L), minimises it over the orthant by
    an active-set method, and backtracks along the step (Armijo). The model is built on a working
    set only: the atoms with positive weight plus the ``max_add`` atoms whose gradient violates the
    optimality condition most; the other atoms stay at zero. The Hessian then costs n k^2 with k
    the working-set size instead of n m^2; the full gradient (one product with L') is computed
    every iteration, and convergence is declared only on the full KKT certificate, so the working
    set changes speed, not the answer. After every step w is rescaled to sum 1, which can only
    lower phi.

    From a poor start (uniform weights) the first quadratic models fit badly and the line search
    crawls; ``em_steps`` EM iterations first (cheap, monotone) give a start from which the SQP
    converges in a handful of iterations.
    """
    w = w0 / w0.sum()
    if em_steps:
        w, _, _, _ = em(L, omega, w, 0.0, em_steps)
    kkt = np.inf
    it = 0
    converged = False
    while True:
        lw, r = kkt_ratio(L, omega, w)
        kkt = float(r.max())
        if kkt <= 1.0 + tol:
            converged = True
            break
        if it >= max_iter:
            break
        it += 1
        support = w > 0
        grad = 1.0 - r  # gradient of phi at w (sum w = 1)
        cand = np.flatnonzero(~support & (grad < 0))
        if cand.size > max_add:
            cand = cand[np.argsort(grad[cand])[:max_add]]
        work = np.union1d(np.flatnonzero(support), cand)
        Lw = np.asarray(L[:, work], order="F")
        A = Lw * (np.sqrt(omega) / lw)[:, None]
        H = A.T @ A
        H[np.diag_indices_from(H)] += 1e-10 * max(float(np.max(np.diag(H))), 1.0)
        xw = w[work]
        g = grad[work]
        y = _nnqp(H, g - H @ xw, 1e-12, 20 * work.size + 100)
        p = y - xw
        slope = float(g @ p)
        if not slope < 0:
            break  # no descent direction: at the optimum up to rounding
        phi0 = -float(omega @ np.log(lw)) + 1.0
        alpha = 1.0
        ok = False
        while alpha > 1e-12:
            trial = xw + alpha * p
            lt = Lw @ trial
            if np.all(lt > 0):
                phi = -float(omega @ np.log(lt)) + float(trial.sum())
                if phi <= phi0 + 0.01 * alpha * slope:
                    ok = True
                    break
            alpha *= 0.5
        if not ok:
            break
        w = np.zeros_like(w)
        w[work] = np.maximum(trial, 0.0)
        w /= w.sum()
    return w, kkt, it, converged


def em(L: np.ndarray, omega: np.ndarray, w0: np.ndarray, tol: float, max_iter: int
       ) -> tuple[np.ndarray, float, int, bool]:
    """The EM (fixed-point) iteration w_j <- w_j r_j (Laird 1978; Jiang & Zhang 2009).

    r is the KKT ratio itself, so the certificate comes with every step; the iteration stops once
    max_j r_j <= 1 + tol. Monotone but slow (sublinear near the optimum).
    """
    w = w0 / w0.sum()
    Lt = L.T
    it = 0
    while True:
        lw = L @ w
        r = Lt @ (omega / lw)
        kkt = float(r.max())
        if kkt <= 1.0 + tol:
            return w, kkt, it, True
        if it >= max_iter:
            return w, kkt, it, False
        w = w * r
        w /= w.sum()
        it += 1


def interior_point(L: np.ndarray, omega: np.ndarray, w0: np.ndarray, tol: float, max_iter: int
                   ) -> tuple[np.ndarray, float, int, bool]:
    """Primal-dual interior point method on the dual of Koenker & Mizera (2014).

    Dual: minimise -sum_i omega_i log nu_i subject to L' nu <= 1 (nu > 0); at the optimum
    nu_i = omega_i / (L w)_i, and the mixing weights w are the multipliers of the m constraints,
    so L' nu <= 1 is the KKT certificate itself. Newton steps on the perturbed conditions

        L' nu + s = 1,   nu_i (L w)_i = omega_i,   w_j s_j = mu,

    (the middle one kept bilinear, like a complementarity condition: linearising L w = omega / nu
    instead lets the primal residual blow up when some rows see only atoms of vanishing weight)
    reduce to one m x m system (L' D L + diag(s / w)) dw = ..., D = diag(nu / (L w)), solved by
    Cholesky; Mehrotra's predictor-corrector chooses mu, and steps stop at 0.99 of the distance to
    the boundary. Costs n m^2 per iteration: meant for small or binned problems. Finally weights
    below 1e-10 of the largest are set to zero when the certificate still holds without them.
    """
    keep = omega > 0
    Lk = np.asarray(L[keep], order="F")
    om = omega[keep]
    m = Lk.shape[1]
    w = w0 / w0.sum()
    g = Lk @ w
    nu = om / g
    nu *= 0.5 / float(np.max(Lk.T @ nu))
    s = 1.0 - Lk.T @ nu
    it = 0
    kkt = np.inf
    converged = False

    def certificate(wv):
        wn = wv / wv.sum()
        return float(np.max(L.T @ (omega / np.maximum(L @ wn, 1e-300)))), wn

    while it < max_iter:
        kkt, wn = certificate(w)
        if kkt <= 1.0 + tol:
            converged = True
            break
        it += 1
        g = Lk @ w
        r1 = Lk.T @ nu + s - 1.0
        r2 = om - nu * g
        D = nu / g
        A = Lk * np.sqrt(D)[:, None]
        M = A.T @ A
        M[np.diag_indices(m)] += s / w
        try:
            C = np.linalg.cholesky(M)
        except np.linalg.LinAlgError:
            M[np.diag_indices(m)] += 1e-12 * float(np.max(np.diag(M)))
            C = np.linalg.cholesky(M)
        base = r1 + Lk.T @ (r2 / g)

        def direction(r3):
            rhs = base + r3 / w
            dw = np.linalg.solve(C.T, np.linalg.solve(C, rhs))
            dnu = (r2 - nu * (Lk @ dw)) / g
            ds = (r3 - s * dw) / w
            return dw, dnu, ds

        def max_step(v, dv):
            neg = dv < 0
            return float(np.min(-v[neg] / dv[neg])) if neg.any() else np.inf

        mu = float(w @ s) / m
        dw, dnu, ds = direction(-w * s)            # predictor (affine scaling)
        a_aff = min(1.0, max_step(w, dw), max_step(s, ds), max_step(nu, dnu))
        mu_aff = float((w + a_aff * dw) @ (s + a_aff * ds)) / m
        sigma = (mu_aff / mu) ** 3
        dw, dnu, ds = direction(sigma * mu - w * s - dw * ds)   # corrector
        alpha = min(1.0, 0.99 * min(max_step(w, dw), max_step(s, ds), max_step(nu, dnu)))
        w = w + alpha * dw
        s = s + alpha * ds
        nu = nu + alpha * dnu
    w = w / w.sum()
    if converged:
        clean = np.where(w >= 1e-10 * w.max(), w, 0.0)
        k_clean, clean = certificate(clean)
        if k_clean <= 1.0 + tol:
            w, kkt = clean, k_clean
        else:
            kkt = certificate(w)[0]
    return w, kkt, it, converged
