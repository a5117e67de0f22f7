"""The additive (semi-parametric) causal two-groups model: fitting routines.

y | x, h = 0 ~ mu0(x) + eps and y | x, h = 1 ~ mu1(x) + eps with eps ~ g, h | x, t = 1 ~
Bernoulli(pi(x)) (Tosh, Zhang & Tansey 2025, Section 3). mu0 is a kernel ridge regression on the
controls (Gaussian kernel plus an unpenalised linear part, tuning by leave-one-out error); g a Gaussian-mixture
density estimate of the controls' leave-one-out residuals; mu1 and pi random-feature regressions
fitted on the treated by EM with K-fold cross-fitting (each treated unit's mu1 and pi come from the
fold that did not see it).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.special import expit

_N_LANDMARKS = 500
_N_RFF = 64
_N_FOLDS = 5


def standardize(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column means and scales (scale 1 for constant columns)."""
    mean = X.mean(axis=0)
    sd = X.std(axis=0)
    sd[sd == 0] = 1.0
    return mean, sd


def _sq_dists(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    d = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2.0 * A @ B.T
    np.maximum(d, 0.0, out=d)
    return d


def median_distance(Z: np.ndarray, rng: np.random.Generator) -> float:
    """Median pairwise distance (on at most 500 rows), the usual kernel bandwidth heuristic."""
    sub = Z if Z.shape[0] <= 500 else Z[rng.choice(Z.shape[0], 500, replace=False)]
    d = np.sqrt(_sq_dists(sub, sub)[np.triu_indices(sub.shape[0], 1)])
    med = float(np.median(d)) if d.size else 1.0
    return med if med > 0 else 1.0


# ---------------------------------------------------------------------------------------------
# mu0: kernel ridge regression (Nystrom features on at most 500 landmarks: exact below that),
# linear part unpenalised when the controls are plenty, tuning (bandwidth, lambda) by the exact leave-one-out error.
# ---------------------------------------------------------------------------------------------

@dataclass
class KernelRidge:
    landmarks: np.ndarray
    proj: np.ndarray            # Nystrom map: K(x, landmarks) @ proj
    bandwidth: float
    lam: float
    beta: np.ndarray            # coefficients of the kernel features
    gamma: np.ndarray           # coefficients of the unpenalised part [1, x] (or [1])
    linear: bool
    press: float                # mean squared leave-one-out error of the chosen fit
    df: float
    loo: np.ndarray             # leave-one-out predictions at the training points

    def features(self, Z: np.ndarray) -> np.ndarray:
        K = np.exp(-_sq_dists(Z, self.landmarks) / (2.0 * self.bandwidth ** 2))
        return K @ self.proj

    def unpenalized(self, Z: np.ndarray) -> np.ndarray:
        return np.column_stack([np.ones(Z.shape[0]), Z]) if self.linear else np.ones((Z.shape[0], 1))

    def predict(self, Z: np.ndarray) -> np.ndarray:
        return self.unpenalized(Z) @ self.gamma + self.features(Z) @ self.beta


def _orthonormal_basis(U: np.ndarray) -> np.ndarray:
    """Orthonormal basis of the column span of U, by SVD (rank-revealing: constant or duplicated
    columns add no direction; a plain QR would return spurious orthonormal columns for them)."""
    Q, s, _ = np.linalg.svd(U, full_matrices=False)
    return Q[:, s > s[0] * max(U.shape) * np.finfo(float).eps]


def fit_kernel_ridge(Z: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> KernelRidge:
    n, p = Z.shape
    linear = n > 5 * (p + 1)
    U0 = np.column_stack([np.ones(n), Z]) if linear else np.ones((n, 1))
    Q0 = _orthonormal_basis(U0)
    y_t = y - Q0 @ (Q0.T @ y)
    lev0 = (Q0 * Q0).sum(1)
    lm = Z if n <= _N_LANDMARKS else Z[np.sort(rng.choice(n, _N_LANDMARKS, replace=False))]
    med = median_distance(Z, rng)
    best = None
    for bw in med * np.array([0.5, 1.0, 2.0, 4.0]):
        Kmm = np.exp(-_sq_dists(lm, lm) / (2.0 * bw ** 2))
        e, V = np.linalg.eigh(Kmm)
        keep = e > 1e-9 * e.max()
        proj = V[:, keep] / np.sqrt(e[keep])
        F = np.exp(-_sq_dists(Z, lm) / (2.0 * bw ** 2)) @ proj
        F_t = F - Q0 @ (Q0.T @ F)
        U, s, Vt = np.linalg.svd(F_t, full_matrices=False)
        # directions of F inside the unpenalised span (rounding residue: all of F when the
        # covariates are constant) carry no signal; fitting them would fit rounding noise
        keep = s > 1e-9 * np.sqrt(float((F * F).sum()))
        U, s, Vt = U[:, keep], s[keep], Vt[keep]
        s2 = s * s
        uy = U.T @ y_t
        r_perp = y_t - U @ uy
        U2 = U * U
        # penalties up to 10^4 times the largest eigenvalue: the kernel part switched off in
        # effect (the linear or constant fit), which the smallest n often needs
        for lam in (s2.max() if s2.size else 1.0) * np.logspace(-8, 4, 25):
            d = s2 / (s2 + lam)
            df = Q0.shape[1] + float(d.sum())
            if df >= n - 1:
                continue
            lev = lev0 + U2 @ d
            if np.max(lev) >= 1.0 - 1e-8:
                continue
            # exact leave-one-out error (PRESS), not GCV: GCV replaces each leverage by the mean
            # and at small n chose near-interpolating fits (df 53 on 55 controls, GCV below the
            # noise variance), whose predictions at new points were wild
            resid = r_perp + U @ ((1.0 - d) * uy)
            press = float(np.mean((resid / (1.0 - lev)) ** 2))
            if best is None or press < best[0]:
                best = (press, bw, lam, proj, F, U, s, Vt, uy, d, df)
    press, bw, lam, proj, F, U, s, Vt, uy, d, df = best
    beta = Vt.T @ ((s / (s * s + lam)) * uy)
    gamma = np.linalg.lstsq(U0, y - F @ beta, rcond=None)[0]
    fitted = U0 @ gamma + F @ beta
    lev = lev0 + (U * U) @ d
    loo = y - (y - fitted) / np.maximum(1.0 - lev, 1e-8)
    return KernelRidge(lm, proj, float(bw), float(lam), beta, gamma, linear, float(press), df, loo)


def refit_kernel_ridge(krr: KernelRidge, Z: np.ndarray, y: np.ndarray, n_tuned: int) -> KernelRidge:
    """The kernel ridge ``krr`` (its landmarks, bandwidth and linear part) refitted to (Z, y), the
    penalty scaled by n / n_tuned so that each observation weighs as in the tuning fit."""
    n = len(y)
    U0 = krr.unpenalized(Z)
    Q0 = _orthonormal_basis(U0)
    F = krr.features(Z)
    F_t = F - Q0 @ (Q0.T @ F)
    y_t = y - Q0 @ (Q0.T @ y)
    A = F_t.T @ F_t
    A[np.diag_indices_from(A)] += krr.lam * n / n_tuned
    beta = np.linalg.solve(A, F_t.T @ y_t)
    gamma = np.linalg.lstsq(U0, y - F @ beta, rcond=None)[0]
    return KernelRidge(krr.landmarks, krr.proj, krr.bandwidth, krr.lam, beta, gamma, krr.linear, np.nan,
                       np.nan, np.empty(0))


def pooled_null_mean(krr: KernelRidge, Z: np.ndarray, y: np.ndarray, treat: np.ndarray,
                     halves: list) -> np.ndarray:
    """Null-model means at the treated, half by half: the regression of "nobody responded" fitted
    on the controls and the other half of the treated (under that model every unit is a null unit).
    ``halves`` index the treated."""
    trt = np.flatnonzero(treat)
    ctrl = np.flatnonzero(~treat)
    out = np.empty(trt.size)
    for h in (0, 1):
        train = np.concatenate([ctrl, trt[halves[1 - h]]])
        fit = refit_kernel_ridge(krr, Z[train], y[train], ctrl.size)
        out[halves[h]] = fit.predict(Z[trt[halves[h]]])
    return out


# ---------------------------------------------------------------------------------------------
# Noise density: a Gaussian mixture (atoms, weights, kernel sd) from predictive recursion or the
# NPMLE, with log-linear tails beyond the observed residuals (as the paper's interpolated log
# density), so that treated outcomes beyond the controls' range keep a sensible null density.
# ---------------------------------------------------------------------------------------------

@dataclass
class NoiseDensity:
    fit: object
    atoms: np.ndarray
    weights: np.ndarray
    sd: float
    lo: float
    hi: float
    method: str

    def __post_init__(self):
        delta = 0.05 * self.sd
        v = np.log(self._mix_pdf(np.array([self.lo, self.lo + delta, self.hi - delta, self.hi])))
        floor = 1.0 / max(self.hi - self.lo, self.sd)
        self._slope_lo = max((v[1] - v[0]) / delta, floor)
        self._slope_hi = max((v[2] - v[3]) / delta, floor)
        self._log_lo, self._log_hi = float(v[0]), float(v[3])

    def _mix_pdf(self, r: np.ndarray) -> np.ndarray:
        return np.maximum(np.asarray(self.fit.pdf(r), dtype=float), 1e-300)

    def logpdf(self, r: np.ndarray) -> np.ndarray:
        r = np.asarray(r, dtype=float)
        out = np.empty_like(r)
        inside = (r >= self.lo) & (r <= self.hi)
        out[inside] = np.log(self._mix_pdf(r[inside]))
        left = r < self.lo
        out[left] = self._log_lo - self._slope_lo * (self.lo - r[left])
        right = r > self.hi
        out[right] = self._log_hi - self._slope_hi * (r[right] - self.hi)
        return out

    def atom_mean(self, r: np.ndarray) -> np.ndarray:
        """E[atom | residual r]: the E-step of the location M-step (ECM)."""
        keep = self.weights > 0
        a, lw = self.atoms[keep], np.log(self.weights[keep])
        logp = lw[None, :] - 0.5 * ((r[:, None] - a[None, :]) / self.sd) ** 2
        logp -= logp.max(axis=1, keepdims=True)
        p = np.exp(logp)
        return (p @ a) / p.sum(axis=1)


class ScaledNoise:
    """A ``NoiseDensity`` fitted to residuals / unit, read in the residuals' own units (c2g fits on the
    outcomes divided by a power of two near their spread): density g(r / unit) / unit, atoms, kernel sd
    and support times unit; ``base`` is the density as fitted, ``fit`` its estimator's result."""

    def __init__(self, base: NoiseDensity, unit: float):
        self.base, self.unit = base, float(unit)
        self.fit, self.method, self.weights = base.fit, base.method, base.weights
        self.atoms = base.atoms * self.unit
        self.sd, self.lo, self.hi = base.sd * self.unit, base.lo * self.unit, base.hi * self.unit

    def logpdf(self, r: np.ndarray) -> np.ndarray:
        return self.base.logpdf(np.asarray(r, dtype=float) / self.unit) - np.log(self.unit)

    def atom_mean(self, r: np.ndarray) -> np.ndarray:
        return self.base.atom_mean(np.asarray(r, dtype=float) / self.unit) * self.unit


def fit_noise(resid: np.ndarray, noise: str, seed: np.random.Generator, min_scale: float = 0.0,
              min_kernel_sd: float = 0.0) -> NoiseDensity:
    """Noise density of the residuals; their scale is taken as at least ``min_scale`` (residuals
    below it are rounding errors of the regression, not noise), the kernel sd at least
    ``min_kernel_sd`` (the spacing of outcomes recorded on a lattice: a narrower kernel resolves
    the lattice, and treated residuals, shifted off it by mu0(x), then look like responses)."""
    from statcore.ebayes import npmle, predictive_recursion

    r = np.asarray(resid, dtype=float)
    q75, q25 = np.percentile(r, [75, 25])
    s = min(float(r.std()), float(q75 - q25) / 1.349) or float(r.std()) or 1.0
    s = max(s, min_scale)
    span = float(r.max() - r.min()) or s
    grid = np.linspace(r.min() - 0.1 * span, r.max() + 0.1 * span, 200)
    int_seed = int(seed.integers(2 ** 31))
    best = None
    # kernel sd by the predictive-recursion marginal likelihood (Newton 2002; Martin & Tokdar 2011)
    for h in np.unique(np.maximum(s * np.array([0.1, 0.2, 0.3, 0.45, 0.65, 0.9]), min_kernel_sd)):
        pr = predictive_recursion(r, kernel_sd=h, grid=grid, sweeps=10, seed=int_seed)
        if best is None or pr.predictive_loglik > best[0]:
            best = (pr.predictive_loglik, h, pr)
    _, h, pr = best
    if noise == "npmle":
        fit = npmle(r, sigma=h, grid=grid)
        atoms, weights, method = np.asarray(fit.atoms), np.asarray(fit.weights), "NPMLE"
    else:
        fit = pr
        atoms, weights, method = np.asarray(pr.grid), np.asarray(pr.weights), "predictive recursion"
    return NoiseDensity(fit, atoms, weights / weights.sum(), float(h), float(r.min()), float(r.max()), method)


# ---------------------------------------------------------------------------------------------
# mu1 and pi: random-feature regressions [1, x, cos(x W / bw + b)] fitted by EM on the treated.
# ---------------------------------------------------------------------------------------------

@dataclass
class RandomFeatures:
    W: np.ndarray
    b: np.ndarray

    def __call__(self, Z: np.ndarray) -> np.ndarray:
        cols = [np.ones((Z.shape[0], 1))]
        if Z.shape[1]:
            cols.append(Z)
            if self.W.shape[1]:
                cols.append(np.sqrt(2.0 / self.W.shape[1]) * np.cos(Z @ self.W + self.b))
        return np.hstack(cols)


def make_random_features(p: int, bandwidth: float, rng: np.random.Generator) -> RandomFeatures:
    n_feat = _N_RFF if p else 0
    return RandomFeatures(rng.standard_normal((p, n_feat)) / bandwidth, rng.uniform(0, 2 * np.pi, n_feat))


def _weighted_ridge(F, z, w, lams):
    """Weighted ridge (intercept = column 0, unpenalised) for several lambdas: (D, n_lam)."""
    sw = w.sum()
    if F.shape[1] == 1 or sw <= 0:
        c = float(w @ z / sw) if sw > 0 else float(z.mean())
        out = np.zeros((F.shape[1], len(lams)))
        out[0] = c
        return out
    G = F[:, 1:]
    gm = (w @ G) / sw
    zm = float(w @ z) / sw
    Gc = G - gm
    A = Gc.T @ (Gc * w[:, None])
    bvec = Gc.T @ (w * (z - zm))
    e, Q = np.linalg.eigh(A)
    qb = Q.T @ bvec
    scale = max(float(np.trace(A)) / A.shape[0], 1e-12)
    out = np.empty((F.shape[1], len(lams)))
    for k, lam in enumerate(lams):
        beta = Q @ (qb / (e + lam * scale))
        out[1:, k] = beta
        out[0, k] = zm - gm @ beta
    return out


def _soft_logistic(F, target, lam, beta0, max_newton=25, tol=1e-8):
    """Ridge logistic regression on soft labels (intercept unpenalised), Newton from beta0."""
    beta = beta0.copy()
    scale = max(float((F[:, 1:] ** 2).sum()) / max(F.shape[1] - 1, 1), 1e-12) / F.shape[0]
    pen = np.full(F.shape[1], lam * scale * F.shape[0])
    pen[0] = 0.0
    for _ in range(max_newton):
        p = expit(F @ beta)
        grad = F.T @ (p - target) + pen * beta
        H = F.T @ (F * (p * (1 - p) + 1e-10)[:, None]) + np.diag(pen)
        step = np.linalg.solve(H, grad)
        beta -= step
        if np.max(np.abs(step)) < tol:
            break
    return beta


_LAMS_MU = np.logspace(-4, 3, 8)
_LAMS_PI = np.logspace(-4, 2, 7)


@dataclass
class TreatedFit:
    mu1_cf: np.ndarray          # cross-fitted mu1 at the treated
    pi_cf: np.ndarray           # cross-fitted pi at the treated
    beta_mu: np.ndarray         # full-data coefficients (for prediction)
    beta_pi: np.ndarray
    resp: np.ndarray            # final posterior response probabilities of the treated
    n_iter: int
    converged: bool
    evidence: float             # held-out log-likelihood gain over the null model, in standard errors
    null_chosen: bool           # gain within one standard error: no response (pi = 0) is kept
    loglik: np.ndarray = field(default_factory=lambda: np.empty(0))  # observed-data log-lik per iteration
    gate_statistic: float = np.nan    # split-sample test of "somebody responded": z statistic
    gate_p_value: float = 0.0         # and its one-sided p-value (floors every q-value)


def _cv_mu(F, z, w, folds, lam_idx):
    """Cross-fitted weighted ridge predictions: (n, n_lambda), or (n,) for one lambda index."""
    lams = _LAMS_MU if lam_idx is None else _LAMS_MU[[lam_idx]]
    preds = np.empty((len(z), len(lams)))
    for test in folds:
        train = np.ones(len(z), bool)
        train[test] = False
        B = _weighted_ridge(F[train], z[train], w[train], lams)
        preds[test] = F[test] @ B
    return preds if lam_idx is None else preds[:, 0]


def _cv_pi(F, target, folds, lam_idx, betas):
    """Cross-fitted soft-label logistic ridge probabilities: (n, n_lambda), or (n,) for one index.

    Warm starts are kept in ``betas`` per fold and lambda.
    """
    idx = range(len(_LAMS_PI)) if lam_idx is None else [lam_idx]
    logits = np.empty((len(target), len(_LAMS_PI)))
    for f, test in enumerate(folds):
        train = np.ones(len(target), bool)
        train[test] = False
        for k in idx:
            beta = _soft_logistic(F[train], target[train], _LAMS_PI[k], betas.get((f, k), np.zeros(F.shape[1])))
            betas[(f, k)] = beta
            logits[test, k] = F[test] @ beta
    return expit(logits) if lam_idx is None else expit(logits[:, lam_idx])


def _heldout_marginal(y, mu1_all, pi_all, log_null, noise):
    """Held-out log-likelihood terms log((1 - pi_i) g(y_i - mu0_i) + pi_i g(y_i - mu1_i)) of every
    unit for every pair of penalties: (n, n_lambda_mu, n_lambda_pi)."""
    log_alt = np.column_stack([noise.logpdf(y - mu1_all[:, i]) for i in range(mu1_all.shape[1])])
    pi = np.clip(pi_all, 1e-6, 1 - 1e-6)
    a = (np.log1p(-pi) + log_null[:, None])[:, None, :]
    b = log_alt[:, :, None] + np.log(pi)[:, None, :]
    return np.logaddexp(a, b)


def _one_se_choice(ll):
    """The most penalised pair whose held-out log-likelihood is within one standard error of the
    best (Breiman's one-standard-error rule; the error of the difference, paired over units)."""
    total = ll.sum(axis=0)
    best = np.unravel_index(int(np.argmax(total)), total.shape)
    d = ll[:, best[0], best[1]][:, None, None] - ll
    se = d.std(axis=0) * np.sqrt(ll.shape[0])
    ok = d.sum(axis=0) <= se
    i, j = np.nonzero(ok)
    k = np.lexsort((i, j, i + j))[-1]            # most penalised: largest index sum, then pi's
    return int(i[k]), int(j[k])


def _em_core(F, y, log_null, noise, rng, max_iter, tol):
    """The cross-fitted EM; returns (mu1, pi, lam_mu, lam_pi, shift, resp, n_iter, converged, loglik)."""
    n = len(y)
    perm = rng.permutation(n)
    folds = [np.sort(f) for f in np.array_split(perm, min(_N_FOLDS, n))]
    lo_q, hi_q = np.quantile(log_null, [0.25, 0.75])
    resp = np.full(n, 0.5)
    resp[log_null < lo_q] = 0.9
    resp[log_null > hi_q] = 0.1
    mean_atom = float(noise.weights @ noise.atoms)
    shift = np.full(n, mean_atom)
    lam_mu = lam_pi = None
    betas = {}
    converged = False
    trace = []
    it = 0
    for it in range(1, max_iter + 1):
        reselect = (it - 1) % 5 == 0
        if reselect:
            mu1_all = _cv_mu(F, y - shift, resp, folds, None)
            pi_all = _cv_pi(F, resp, folds, None, betas)
            lam_mu, lam_pi = _one_se_choice(_heldout_marginal(y, mu1_all, pi_all, log_null, noise))
            mu1, pi = mu1_all[:, lam_mu], pi_all[:, lam_pi]
        else:
            mu1 = _cv_mu(F, y - shift, resp, folds, lam_mu)
            pi = _cv_pi(F, resp, folds, lam_pi, betas)
        pi = np.clip(pi, 1e-6, 1 - 1e-6)
        log_alt = noise.logpdf(y - mu1)
        a = np.log1p(-pi) + log_null
        b = np.log(pi) + log_alt
        trace.append(float(np.logaddexp(a, b).sum()))
        resp = np.exp(b - np.logaddexp(a, b))
        shift = noise.atom_mean(y - mu1)
        # stop on the observed-data log-likelihood sum_i log((1 - pi_i) g0_i + pi_i g1_i): its
        # change per unit below tol (not right after the penalties were re-chosen)
        if not reselect and len(trace) >= 2 and abs(trace[-1] - trace[-2]) <= tol * n:
            converged = True
            break
    return mu1, pi, lam_mu, lam_pi, shift, resp, it, converged, np.array(trace)


def fit_treated_em(F: np.ndarray, y: np.ndarray, mu0: np.ndarray, noise: NoiseDensity,
                   rng: np.random.Generator, max_iter: int = 200, tol: float = 1e-4,
                   gate: tuple | None = None) -> TreatedFit:
    """EM for mu1(x) and pi(x) on the treated (Tosh, Zhang & Tansey 2025, Alg. 1).

    E-step: posterior response probabilities r_i = pi_i g(y_i - mu1_i) / (pi_i g(y_i - mu1_i) +
    (1 - pi_i) g(y_i - mu0_i)). M-step for mu1 (one ECM step for a Gaussian-mixture noise): weighted
    ridge of y_i - E[atom | y_i - mu1_i] on the features, weights r_i; for pi: ridge logistic
    regression on the soft labels r_i. Both are K-fold cross-fitted. Every fifth iteration the
    pair of penalties is re-chosen by the held-out marginal likelihood of the treated outcomes,
    sum_i log((1 - pi_i) g(y_i - mu0_i) + pi_i g(y_i - mu1_i)) with cross-fitted pi_i and mu1_i
    (the mixture's own criterion), taking the most penalised pair within one standard error of
    the best. Noisy pi(x) and mu1(x) are not harmless here: selecting the smallest posterior null
    probabilities picks the units whose pi(x) noise happens to be upward (a winner's curse; see
    benchmarks/README.md, ebayes). The iteration stops when the observed-data log-likelihood
    changes by at most ``tol`` per unit between two iterations (``max_iter`` at most).

    ``gate = (mu0_pooled_halves, halves)``: the split-sample test of "somebody responded" (see
    ``response_gate``).
    """
    n = len(y)
    log_null = noise.logpdf(y - mu0)
    mu1, pi, lam_mu, lam_pi, shift, resp, it, converged, trace = _em_core(F, y, log_null, noise, rng,
                                                                           max_iter, tol)
    beta_mu = _weighted_ridge(F, y - shift, resp, _LAMS_MU[[lam_mu]])[:, 0]
    beta_pi = _soft_logistic(F, resp, _LAMS_PI[lam_pi], np.zeros(F.shape[1]))
    # The null model (nobody responded) is the most parsimonious candidate of all: keep it unless
    # the cross-fitted mixture beats it by more than one standard error of the held-out
    # log-likelihood gain. Without this, a global null lets EM settle on pi(x) near 1 with
    # mu1(x) near mu0(x), where every posterior null probability is small.
    gain = posterior_loglik_gain(pi, noise.logpdf(y - mu1), log_null)
    se = float(gain.std()) * np.sqrt(n)
    evidence = float(gain.sum() / se) if se > 0 else 0.0
    z, p = (np.nan, 0.0) if gate is None else response_gate(F, y, mu0, noise, rng, *gate)
    # ... nor unless the split-sample (held-out) gain is positive
    null_chosen = evidence <= 1.0 or bool(z <= 0.0)
    if null_chosen:
        pi = np.zeros(n)
        resp = np.zeros(n)
        beta_pi = np.zeros(F.shape[1])
        beta_pi[0] = -np.inf
    return TreatedFit(mu1, pi, beta_mu, beta_pi, resp, it, converged, evidence,
                      null_chosen, trace, z, p)


def response_gate(F, y, mu0, noise, rng, mu0_pooled, halves, max_iter=50, tol=1e-4):
    """Split-sample test of "somebody responded" on the treated (one-sided z test).

    The treated are split in two halves; on each, the mixture (pi, mu1) fitted by EM on the other
    half is compared with the null model by the held-out log-likelihood gain
    log((1 - pi_i) g(y_i - mu0_i) + pi_i g(y_i - mu1_i)) - log g(y_i - m_i). The null mean m is
    taken twice: mu0 from the controls, and the pooled null regression (controls and the other
    half's treated: under "nobody responded" every unit is a null unit), whose extra data the
    mixture's mu1 would otherwise get for free. z is the smaller of the two standardised sums
    and p = 1 - Phi(z). Under the global null the held-out gain has mean at most 0 (the fitted
    mixture is independent of the held-out half), so P(p <= alpha) <= alpha up to the normal
    approximation, and flooring the q-values at p keeps the FDR (= the probability of any
    selection) at alpha. With fewer than 2 x 5 treated there is nothing to split: p = 1. The gain seen by the EM's own cross-fitting is not held out (the
    responsibilities of one iteration carry every unit's outcome into the next), and under the
    global null at n = 100 it exceeded one standard error in about 4 runs of 10.
    """
    from scipy.stats import norm

    if min(len(halves[0]), len(halves[1])) < _N_FOLDS:
        return np.nan, 1.0                      # too few treated to test: nothing is selected
    log_null = noise.logpdf(y - mu0)
    gains = [np.empty(len(y)), np.empty(len(y))]
    for h in (0, 1):
        test, train = halves[h], halves[1 - h]
        mu1, pi, lam_mu, lam_pi, shift, resp, *_ = _em_core(F[train], y[train], log_null[train], noise, rng,
                                                            max_iter, tol)
        b_mu = _weighted_ridge(F[train], y[train] - shift, resp, _LAMS_MU[[lam_mu]])[:, 0]
        b_pi = _soft_logistic(F[train], resp, _LAMS_PI[lam_pi], np.zeros(F.shape[1]))
        pi_t = np.clip(expit(F[test] @ b_pi), 1e-6, 1 - 1e-6)
        mix = np.logaddexp(np.log1p(-pi_t) + log_null[test], np.log(pi_t) + noise.logpdf(y[test] - F[test] @ b_mu))
        gains[0][test] = mix - log_null[test]
        gains[1][test] = mix - noise.logpdf(y[test] - mu0_pooled[test])
    zs = []
    for g in gains:
        se = float(g.std()) * np.sqrt(g.size)
        zs.append(float(g.sum() / se) if se > 0 else 0.0)
    z = min(zs)
    return z, float(norm.sf(z))


def posterior_loglik_gain(pi, log_alt, log_null):
    """Per-unit log((1 - pi) g0 + pi g1) - log g0."""
    pi = np.clip(pi, 1e-12, 1 - 1e-12)
    return np.logaddexp(np.log1p(-pi) + log_null, np.log(pi) + log_alt) - log_null


def identified_pi(pi: np.ndarray, delta: np.ndarray, resid: np.ndarray, noise: NoiseDensity,
                  n_grid: int = 200) -> np.ndarray:
    """pi*(x) = pi(x) (1 - min_r g(r - delta(x)) / g(r)), the minimum over the observed residuals.

    The treated density is f_t = (1 - pi) g(r) + pi g(r - delta) with r = y - mu0(x), so
    1 - min_r f_t / f0 = pi (1 - min_r g(r - delta) / g(r)): the part of pi(x) that the outcomes
    can reveal. Over the whole line it equals pi; over the range where outcomes are seen (and g is
    at least 5% of its maximum) it shrinks towards 0 as the effect delta(x) shrinks, where
    responders cannot be told from non-responders (the two-groups model's ridge pi * delta = const).
    """
    lo, hi = np.quantile(resid, [0.0, 1.0])
    r = np.linspace(lo, hi, n_grid)
    lg = noise.logpdf(r)
    keep = lg >= lg.max() + np.log(0.05)
    r, lg = r[keep], lg[keep]
    out = np.empty_like(pi)
    for s in range(0, pi.size, 2048):
        d = delta[s:s + 2048, None]
        lr = noise.logpdf((r[None, :] - d).ravel()).reshape(d.shape[0], -1) - lg[None, :]
        out[s:s + 2048] = pi[s:s + 2048] * (1.0 - np.exp(np.minimum(lr.min(axis=1), 0.0)))
    return out


def posterior_null(pi: np.ndarray, log_null: np.ndarray, log_alt: np.ndarray) -> np.ndarray:
    """(1 - pi) g0 / ((1 - pi) g0 + pi g1), computed on the log scale."""
    a = np.log1p(-pi) + log_null
    b = np.log(pi) + log_alt
    return np.exp(a - np.logaddexp(a, b))


