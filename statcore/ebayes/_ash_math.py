"""The arithmetic of adaptive shrinkage (Stephens 2017): the prior's components, the likelihood of
each observation under each component (the convolution with the normal or t error), and the
per-component posterior moments, tail probabilities and distribution functions.

Everything is vectorised over an (n, K) array: observation i, component k. An observation is
betahat = beta + s e, e ~ N(0, 1) or t_df; a component is a normal N(0, sd^2) (sd = 0: the point
mass at zero) or a uniform U[a, b] (a = b: a point mass at a). For a uniform component the
posterior of beta is betahat + s U, U the error law truncated to [(a - betahat)/s, (b - betahat)/s],
so every quantity is a difference of distribution functions, taken in logs (no underflow in the
tails, no cancellation: an interval in the upper tail is reflected into the lower one).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


@dataclass(frozen=True)
class Components:
    """The prior's components: ``family`` "normal" (``sd``) or "uniform" (``a``, ``b``)."""

    family: str
    sd: np.ndarray | None = None
    a: np.ndarray | None = None
    b: np.ndarray | None = None

    @property
    def size(self) -> int:
        return int((self.sd if self.family == "normal" else self.a).size)

    @property
    def null(self) -> np.ndarray:
        """Boolean mask of the point masses at zero."""
        if self.family == "normal":
            return self.sd == 0
        return (self.a == 0) & (self.b == 0)

    def take(self, keep: np.ndarray) -> "Components":
        if self.family == "normal":
            return Components("normal", sd=self.sd[keep])
        return Components("uniform", a=self.a[keep], b=self.b[keep])


class Error:
    """The error law of (betahat - beta) / s: standard normal (``df`` None) or Student t."""

    def __init__(self, df: float | None):
        self.df = df
        if df is not None:
            nu = float(df)
            self._logc = (special.gammaln((nu + 1) / 2) - special.gammaln(nu / 2)
                          - 0.5 * math.log(nu * math.pi))

    def logpdf(self, u):
        if self.df is None:
            return -0.5 * u * u - _LOG_SQRT_2PI
        nu = self.df
        return self._logc - 0.5 * (nu + 1) * np.log1p(u * u / nu)

    def logcdf(self, u):
        if self.df is None:
            return special.log_ndtr(u)
        with np.errstate(divide="ignore"):
            return np.log(special.stdtr(self.df, u))

    def log_diff(self, lo, hi):
        """log(F(hi) - F(lo)) for lo <= hi (-inf where they are equal)."""
        return _log_diff(self.logcdf, lo, hi)

    def first(self, lo, hi, logz):
        """E[U 1{lo < U < hi}] / exp(logz)."""
        if self.df is None:
            return np.exp(self.logpdf(lo) - logz) - np.exp(self.logpdf(hi) - logz)
        nu = self.df
        if nu == 1.0:  # Cauchy: the antiderivative of u f(u) is log(1 + u^2) / (2 pi)
            return (np.log1p(hi * hi) - np.log1p(lo * lo)) / (2 * math.pi) * np.exp(-logz)
        # d/du [(nu + u^2) f(u)] = (1 - nu) u f(u)
        glo = np.exp(np.log(nu + lo * lo) + self.logpdf(lo) - logz)
        ghi = np.exp(np.log(nu + hi * hi) + self.logpdf(hi) - logz)
        return (glo - ghi) / (nu - 1.0)

    def second(self, lo, hi, logz):
        """E[U^2 1{lo < U < hi}] / exp(logz)."""
        if self.df is None:
            with np.errstate(invalid="ignore"):
                t_lo = np.where(np.isfinite(lo), lo * np.exp(self.logpdf(lo) - logz), 0.0)
                t_hi = np.where(np.isfinite(hi), hi * np.exp(self.logpdf(hi) - logz), 0.0)
            return 1.0 + t_lo - t_hi
        nu = self.df
        if nu > 2.0:
            # (nu + u^2) f_nu(u) = nu (nu - 1) / (nu - 2) f_{nu-2}(u sqrt((nu - 2) / nu)) sqrt((nu - 2) / nu)
            r = math.sqrt((nu - 2.0) / nu)
            lower = Error(nu - 2.0)
            return nu * (nu - 1.0) / (nu - 2.0) * np.exp(lower.log_diff(lo * r, hi * r) - logz) - nu
        # nu <= 2: int_0^c u^2 f(u) du through the incomplete beta integral of x = u^2 / (nu + u^2)
        const = (nu / 2.0) / special.beta(0.5, nu / 2.0) / 1.5

        def H(c):
            z = c * c / (nu + c * c)
            return np.sign(c) * const * z ** 1.5 * special.hyp2f1(1.5, 2.0 - nu / 2.0, 2.5, z)

        return (H(hi) - H(lo)) * np.exp(-logz)


def _log_diff(logcdf, lo, hi):
    flip = lo > 0  # both in the upper tail: F(hi) - F(lo) = F(-lo) - F(-hi)
    l2 = np.where(flip, -hi, lo)
    h2 = np.where(flip, -lo, hi)
    lh = logcdf(h2)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = lh + np.log1p(-np.exp(logcdf(l2) - lh))
    return np.where(hi > lo, out, -np.inf)


def log_lik(x: np.ndarray, s: np.ndarray, comp: Components, err: Error) -> np.ndarray:
    """(n, K) log density of betahat_i under component k (the prior convolved with the error)."""
    xc, sc = x[:, None], s[:, None]
    if comp.family == "normal":
        v = sc * sc + comp.sd[None, :] ** 2
        return -0.5 * np.log(v) - _LOG_SQRT_2PI - 0.5 * xc * xc / v
    a, b = comp.a[None, :], comp.b[None, :]
    point = (comp.a == comp.b)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        width = np.where(point, 1.0, b - a)
        spread = err.log_diff((a - xc) / sc, (b - xc) / sc) - np.log(width)
        mass = err.logpdf((xc - a) / sc) - np.log(sc)
    return np.where(point, mass, spread)


@dataclass
class Moments:
    """Per-unit posterior summaries under the mixture."""

    mean: np.ndarray
    sd: np.ndarray
    negative: np.ndarray
    positive: np.ndarray
    zero: np.ndarray


def posterior_weights(llik: np.ndarray, pi: np.ndarray) -> np.ndarray:
    """(n, K) posterior probabilities of the components (pi > 0)."""
    lp = llik + np.log(pi)[None, :]
    lp -= lp.max(axis=1, keepdims=True)
    W = np.exp(lp, out=lp)
    W /= W.sum(axis=1, keepdims=True)
    return W


def moments(x: np.ndarray, s: np.ndarray, comp: Components, err: Error, W: np.ndarray) -> Moments:
    """Posterior mean, sd and P(beta < 0), P(beta > 0), P(beta = 0), mixing over components."""
    xc, sc = x[:, None], s[:, None]
    null = comp.null[None, :]
    if comp.family == "normal":
        v = comp.sd[None, :] ** 2
        tot = sc * sc + v
        m = xc * (v / tot)
        var = sc * sc * (v / tot)
        with np.errstate(divide="ignore", invalid="ignore"):
            zz = np.where(null, 0.0, xc * np.sqrt(v) / (sc * np.sqrt(tot)))  # m / sqrt(var)
        neg = np.where(null, 0.0, special.ndtr(-zz))
        pos = np.where(null, 0.0, special.ndtr(zz))
        e2 = var + m * m
    else:
        a, b = comp.a[None, :], comp.b[None, :]
        point = (comp.a == comp.b)[None, :]
        lo, hi = (a - xc) / sc, (b - xc) / sc
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            logz = err.log_diff(lo, hi)
            logz = np.where(point | ~np.isfinite(logz), 0.0, logz)
            eu = err.first(lo, hi, logz)
            eu2 = err.second(lo, hi, logz)
            c = -xc / sc  # beta < 0 <=> U < c
            neg = np.exp(err.log_diff(lo, np.minimum(hi, c)) - logz)
            pos = np.exp(err.log_diff(np.maximum(lo, c), hi) - logz)
        m = np.where(point, a, xc + sc * eu)
        var_u = np.maximum(eu2 - eu * eu, 0.0)
        e2 = np.where(point, a * a, m * m + sc * sc * var_u)
        neg = np.where(point, (a < 0) * 1.0, np.where(lo < c, neg, 0.0))
        pos = np.where(point, (a > 0) * 1.0, np.where(hi > c, pos, 0.0))
    mean = np.einsum("ik,ik->i", W, m)
    second = np.einsum("ik,ik->i", W, e2)
    sd = np.sqrt(np.maximum(second - mean * mean, 0.0))
    zero = W[:, comp.null].sum(axis=1) if comp.null.any() else np.zeros(x.size)
    return Moments(mean=mean, sd=sd, negative=np.einsum("ik,ik->i", W, neg),
                   positive=np.einsum("ik,ik->i", W, pos), zero=zero)


def cdf(z: np.ndarray, x: np.ndarray, s: np.ndarray, comp: Components, err: Error, W: np.ndarray) -> np.ndarray:
    """Posterior distribution function P(beta <= z_i | betahat_i), one z per unit."""
    zc, xc, sc = z[:, None], x[:, None], s[:, None]
    null = comp.null[None, :]
    if comp.family == "normal":
        v = comp.sd[None, :] ** 2
        tot = sc * sc + v
        m = xc * (v / tot)
        with np.errstate(divide="ignore", invalid="ignore"):
            sdp = np.sqrt(sc * sc * (v / tot))
            p = np.where(null, (zc >= 0) * 1.0, special.ndtr((zc - m) / sdp))
    else:
        a, b = comp.a[None, :], comp.b[None, :]
        point = (comp.a == comp.b)[None, :]
        lo, hi = (a - xc) / sc, (b - xc) / sc
        cz = (zc - xc) / sc
        with np.errstate(divide="ignore", invalid="ignore"):
            logz = err.log_diff(lo, hi)
            p = np.exp(err.log_diff(lo, np.clip(cz, lo, hi)) - np.where(point, 0.0, logz))
        p = np.where(cz >= hi, 1.0, np.where(cz <= lo, 0.0, p))
        p = np.where(point, (zc >= a) * 1.0, p)
    return np.einsum("ik,ik->i", W, p)


def quantile(target: float, start: np.ndarray, step: np.ndarray, x, s, comp, err, W) -> np.ndarray:
    """Solve cdf(z_i) = target by bracketing from ``start`` (stepping by ``step``, doubling) and
    bisection to the last bit; the root is the generalised inverse where the cdf jumps."""
    lo = start.copy()
    hi = start.copy()
    st = np.where(step > 0, step, 1.0)
    # bracket: cdf(lo) < target <= cdf(hi)
    for _ in range(200):
        bad = cdf(lo, x, s, comp, err, W) >= target
        if not bad.any():
            break
        lo = np.where(bad, lo - st, lo)
        st = np.where(bad, 2 * st, st)
    st = np.where(step > 0, step, 1.0)
    for _ in range(200):
        bad = cdf(hi, x, s, comp, err, W) < target
        if not bad.any():
            break
        hi = np.where(bad, hi + st, hi)
        st = np.where(bad, 2 * st, st)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if not np.any((mid > lo) & (mid < hi)):
            break
        below = cdf(mid, x, s, comp, err, W) < target
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
    return hi
