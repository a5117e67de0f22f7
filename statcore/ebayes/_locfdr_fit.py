"""The numerical pieces of ``locfdr``: histogram, Poisson spline fit of f, central matching and the
truncated-normal MLE of the empirical null, and the delta-method accuracy of the estimates.

Each piece follows the definitions of Efron (2004, 2007) with the conventions of R locfdr 1.1-8 (bin
rule, starting values, stopping rules, the quantities its accuracy formulas use), as documented in
``locfdr``'s docstring; ``tests/statcore/ebayes/test_locfdr.py`` checks the outputs against R.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr

from .._r.ns import r_seq_length

_SQRT_2PI = math.sqrt(2.0 * math.pi)


def _dnorm(x):
    return np.exp(-0.5 * np.square(x)) / _SQRT_2PI


def histogram(zs: np.ndarray, lo: float, up: float, nbreaks: int
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Counts of z clipped to [lo, up] on ``nbreaks`` equally spaced breaks, right-closed bins with the
    lowest closed on both sides and every break moved by 1e-7 of the median bin width (R's ``hist``).

    Returns (breaks, midpoints, counts, the bin of each z). The bin is first guessed from the
    spacing, then corrected by comparing with the (fuzzed) breaks themselves, so it is exact."""
    breaks = r_seq_length(lo, up, nbreaks)
    diddle = 1e-7 * float(np.median(np.diff(breaks)))
    fuzzy = breaks + np.r_[-diddle, np.full(nbreaks - 1, diddle)]
    nb = nbreaks - 1
    step = (up - lo) / nb
    k = np.floor((zs - lo) / step).astype(np.intp)
    np.clip(k, 0, nb - 1, out=k)
    # z in bin k when fuzzy[k] < z <= fuzzy[k + 1] (the ends take everything beyond them: z is clipped)
    for _ in range(2):
        down = (zs <= fuzzy[k]) & (k > 0)
        k[down] -= 1
        upm = (zs > fuzzy[k + 1]) & (k < nb - 1)
        k[upm] += 1
    counts = np.bincount(k, minlength=nb).astype(float)
    mids = (breaks[1:] + breaks[:-1]) / 2.0
    return breaks, mids, counts, k


def interp_bins(zs: np.ndarray, x: np.ndarray, y: np.ndarray, k: np.ndarray) -> np.ndarray:
    """R's ``approx(x, y, zs, rule = 2)`` at the z-values whose bins are ``k`` (x the bin midpoints):
    the segment is the one between the midpoints around z, found from the bin, not by a search."""
    j = k - (zs < x[k])                 # left midpoint of z's segment
    np.clip(j, 0, x.size - 2, out=j)
    x0 = x[j]
    y0 = y[j]
    t = (zs - x0) / (x[j + 1] - x0)
    out = y0 + (y[j + 1] - y0) * t
    out[zs <= x[0]] = y[0]
    out[zs >= x[-1]] = y[-1]
    return out


def _poisson_dev(y, mu):
    r = mu.copy()
    pos = y > 0
    r[pos] = y[pos] * np.log(y[pos] / mu[pos]) - (y[pos] - mu[pos])
    return 2.0 * float(r.sum())


def poisson_glm(X: np.ndarray, y: np.ndarray, *, epsilon: float = 1e-8, maxit: int = 25) -> np.ndarray:
    """Fitted means of the log-linear Poisson regression of y on X (X holds the intercept).

    Iteratively reweighted least squares as R's ``glm.fit`` runs it: start at mu = y + 0.1, stop when
    the deviance changes by less than ``epsilon`` (relative, |dev - dev_old| / (|dev| + 0.1)); the
    canonical link makes each step a Newton step, so the answer is R's to rounding.
    """
    eps = np.finfo(float).eps
    mu = y + 0.1
    eta = np.log(mu)
    dev_old = _poisson_dev(y, mu)
    for _ in range(maxit):
        mu_eta = np.maximum(np.exp(eta), eps)
        zwork = eta + (y - mu) / mu_eta
        w = np.sqrt(mu_eta ** 2 / mu)
        coef = np.linalg.lstsq(X * w[:, None], zwork * w, rcond=None)[0]
        eta = X @ coef
        mu = np.maximum(np.exp(eta), eps)
        dev = _poisson_dev(y, mu)
        if abs(dev - dev_old) / (abs(dev) + 0.1) < epsilon:
            break
        dev_old = dev
    return mu


def lm_coef(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Least-squares coefficients of b on [1, A]; NaN for the columns a rank-deficient fit drops
    (R's ``lm`` pivots a column whose norm falls below 1e-7 of its original)."""
    M = np.column_stack([np.ones(len(b)), A])
    coef = np.full(M.shape[1], np.nan)
    if M.shape[0] == 0:
        return coef
    keep = []
    for j in range(M.shape[1]):
        cols = keep + [j]
        if len(cols) > M.shape[0]:
            continue
        norm0 = np.linalg.norm(M[:, j])
        if norm0 == 0 or not np.isfinite(norm0):
            continue
        if keep:
            Q, _ = np.linalg.qr(M[:, keep])
            resid = M[:, j] - Q @ (Q.T @ M[:, j])
            if np.linalg.norm(resid) < 1e-7 * norm0:
                continue
        keep.append(j)
    coef[keep] = np.linalg.lstsq(M[:, keep], b, rcond=None)[0]
    return coef


@dataclass
class MleFit:
    """The truncated-normal MLE of the null (delta, sigma, p0) and what its accuracy formulas need."""

    delta: float
    sigma: float
    p0: float
    sd: np.ndarray            # standard errors of (delta, sigma, p0)
    z_mean: np.ndarray        # (mean z, mean z^2) over the fitting interval
    n0: int                   # z-values in the interval
    jv: np.ndarray            # J V^{-1} of the last Newton step
    h_last: np.ndarray        # truncated-normal moments H0..H4 of the last Newton step
    a_std: float              # the interval's ends standardised at the final (delta, sigma)
    b_std: float


def _moments(d: float, s: float, a: float, b: float):
    """H0..H4 of the standard normal on the standardised interval and E[X^k], k = 1..4 of
    N(d, s^2) truncated to [a, b]."""
    aa = (a - d) / s
    bb = (b - d) / s
    H0 = float(ndtr(bb) - ndtr(aa))
    fa = float(_dnorm(aa))
    fb = float(_dnorm(bb))
    H = np.array([H0, fa - fb, H0 + aa * fa - bb * fb, (2 + aa ** 2) * fa - (2 + bb ** 2) * fb,
                  3 * H0 + (3 * aa + aa ** 3) * fa - (3 * bb + bb ** 3) * fb])
    r = d / s
    E = np.empty(5)
    for i in range(5):
        E[i] = sum((s ** i) * (math.comb(i, j) * r ** (i - j)) * H[j] for j in range(i + 1)) / H0
    return H, E


def truncated_normal_mle(zs: np.ndarray, center: float, half: float, d: float = 0.0, s: float = 1.0,
                         *, jmle: int = 35, ep: float = 1e-5) -> MleFit | None:
    """Efron's (2007) MLE of (delta, sigma, p0) from the z-values in [center - half, center + half].

    Newton steps on the natural parameters (d / s^2, -1 / (2 s^2)) of the truncated normal, the k-th
    damped by 1 / (1 + 1 / k^2) (by a further 0.1 when it would leave the parameter space), at most
    ``jmle`` of them from (d, s), stopping when a step is shorter than ``ep`` (R locfdr's ``locmle``
    conventions). None when the iteration leaves the parameter space (R's NA estimates).
    """
    a = center - half
    b = center + half
    z0 = zs[(zs >= a) & (zs <= b)]
    n = zs.size
    n0 = z0.size
    if n0 == 0:
        return None
    Y = np.array([z0.mean(), np.mean(z0 ** 2)])
    frac = n0 / n
    bett = None
    for j in range(1, jmle + 1):
        bet = np.array([d / s ** 2, -1.0 / (2 * s ** 2)])
        H, E = _moments(d, s, a, b)
        V = np.array([[E[2] - E[1] ** 2, E[3] - E[1] * E[2]], [E[3] - E[1] * E[2], E[4] - E[2] ** 2]])
        try:
            step = np.linalg.solve(V, Y - E[1:3]) / (1 + 1 / j ** 2)
        except np.linalg.LinAlgError:
            return None
        bett = bet + step
        if bett[1] > 0:
            bett = bet + 0.1 * step
        if not np.all(np.isfinite(bett)) or bett[1] >= 0:
            return None
        d = -bett[0] / (2 * bett[1])
        s = 1.0 / math.sqrt(-2 * bett[1])
        if math.sqrt(float(np.sum((bett - bet) ** 2))) < ep:
            break
    aa = (a - d) / s
    bb = (b - d) / s
    H0 = float(ndtr(bb) - ndtr(aa))
    p0 = frac / H0
    J = s ** 2 * np.array([[1.0, 2 * d], [0.0, s]])
    JV = J @ np.linalg.inv(V)
    JVJ = JV @ J.T
    mat = np.zeros((3, 3))
    mat[0, 0] = p0 * H0 * (1 - p0 * H0) / n
    mat[1:, 1:] = JVJ / n0
    h = np.array([H[1] / H0, (H[2] - H0) / H0])
    tr = np.zeros((3, 3))
    tr[0] = [1 / H0, -(p0 / s) * h[0], -(p0 / s) * h[1]]
    tr[1:, 1:] = np.eye(2)
    C = tr @ mat @ tr.T
    sd = np.sqrt(np.diag(C))            # (p0, delta, sigma)
    if not (np.isfinite(d) and np.isfinite(s) and np.isfinite(p0)):
        return None
    return MleFit(delta=float(d), sigma=float(s), p0=float(p0), sd=sd[[1, 2, 0]], z_mean=Y, n0=n0, jv=JV,
                  h_last=H, a_std=float(aa), b_std=float(bb))


def mle_lfdr_cov(fit: MleFit, n: int, x: np.ndarray, X: np.ndarray, f: np.ndarray) -> np.ndarray:
    """Delta-method covariance of log fdr at the bin midpoints under the MLE null (Efron 2007): the
    derivative of log p0 f0 through the moments of the z-values in the fitting interval minus the
    derivative of log f through the Poisson spline fit, both with respect to the counts."""
    d, s, p0 = fit.delta, fit.sigma, fit.p0
    H = fit.h_last
    M = np.vstack([np.ones_like(x), x - fit.z_mean[0], x ** 2 - fit.z_mean[1]])
    xs = (x - d) / s
    U = np.column_stack([xs - H[1] / H[0], xs ** 2 - H[2] / H[0]])
    # the bins counted: R compares the midpoints with the interval's standardised ends
    inside = (x > fit.a_std) & (x < fit.b_std)
    if inside.any():
        M[:, ~inside] = 0.0
    left = np.column_stack([np.full(x.size, 1 - fit.n0 / n), U @ fit.jv / s])
    dl0 = left @ M / n / H[0] / p0
    G = X.T @ (f[:, None] * X)
    dl = X @ np.linalg.solve(G, X.T)
    dlfdr = dl0 - dl
    return dlfdr @ (f[:, None] * dlfdr.T)


def null_influence(X: np.ndarray, X0: np.ndarray, i0: np.ndarray, f: np.ndarray, ests, n: int
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Delta-method accuracy of a null fitted by least squares to log f on the central bins ``i0``
    (central matching; the theoretical null when X0 is one column): (standard errors of
    (p0, delta, sigma), covariance of log fdr at the midpoints)."""
    d, s, p0 = ests[0], ests[1], ests[2]
    theo = X0.shape[1] == 1
    Xt = X[i0]
    X0t = X0[i0]
    G = X.T @ (f[:, None] * X)
    G0 = X0t.T @ X0t
    Ginv_Xt = np.linalg.solve(G, X.T)
    B0 = X0 @ np.linalg.solve(G0, X0t.T) @ Xt
    C = B0 - X
    cov = C @ np.linalg.solve(G, C.T)
    gam = np.linalg.solve(G0, X0t.T) @ (Xt @ Ginv_Xt)
    if theo:
        pds = np.vstack([gam, np.zeros((2, X.shape[0]))])
    else:
        D = np.array([[1.0, d, s ** 2 + d ** 2], [0.0, s ** 2, 2 * d * s ** 2], [0.0, 0.0, s ** 3]])
        pds = D @ gam
    pds[0] -= 1.0 / n
    m1 = pds @ f
    m2 = (pds ** 2) @ f
    with np.errstate(invalid="ignore"):
        sd = np.sqrt(m2 - m1 ** 2 / n)
    sd[0] *= p0
    return sd, cov
