"""Adaptive shrinkage (Stephens 2017): a unimodal prior fitted as a mixture on a fixed grid, with
local false discovery and false sign rates; outputs match R ashr 2.2-65 ``ash()``."""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._checks import (InputWrapper, as_vector, check_choice, check_finite_real, check_flag,
                       check_in_interval, check_positive_real, check_same_n)
from .._checks.public import public_function
from .._r.rformat import format_number, format_vector
from .._result import Result
from .._warnings import ConvergenceWarning, StatcoreWarning
from . import _solvers
from ._ash_math import Components, Error, log_lik, moments, posterior_weights, quantile

__all__ = ["ash", "AshResult"]

_FAMILIES = ("normal", "uniform", "halfuniform", "+uniform", "-uniform")
_R_ZERO = 1e-8         # mixsqp's zero.threshold.solution: weights below it are set to zero
_PI_THRESH = 1e-10     # ashr's pi_thresh: components below it are pruned from the posterior summaries
_TOL = 1e-10           # KKT tolerance of the mixture-weight fit
_MAX_ITER = 1000


def _qval_from_lfdr(lfdr: np.ndarray) -> np.ndarray:
    """ashr's q-value from local rates: the running mean of the sorted rates (ties in input order)."""
    o = np.argsort(lfdr, kind="stable")
    out = np.empty_like(lfdr)
    out[o] = np.cumsum(lfdr[o]) / np.arange(1, lfdr.size + 1)
    return out


@dataclass(frozen=True, eq=False, repr=False)
class AshResult(Result):
    """The fit of :func:`ash`: the estimated prior g and per-unit posterior summaries.

    Attributes
    ----------
    pi0 : float
        Weight of the point mass at zero in the fitted g (0 without ``pointmass``).
    loglik : float
        Log-likelihood of the data under the fitted g (R's ``ash(...)$loglik``).
    fitted_g : pandas.DataFrame
        The mixture: ``weight``, ``mean``, ``sd`` (normal components) or ``weight``, ``a``,
        ``b`` (uniform components on [a, b]), in R's component order.
    betahat, sebetahat : ndarray
        The data (after ``nan_policy``).
    posterior_mean, posterior_sd, lfdr, lfsr, q_values, s_values : ndarray
        Per-unit posterior mean and sd of beta, local false discovery rate P(beta = 0 | data),
        local false sign rate, and ashr's q-values and s-values (running means of the sorted lfdr
        and lfsr).
    negative_prob, positive_prob : ndarray
        P(beta < 0 | data) and P(beta > 0 | data).
    mixcompdist, method, prior : str
    pointmass : bool
    nullweight : float
    df : float or None
    alpha : float
        The error rate of ``significant`` (lfsr <= alpha) in ``to_frame()``.
    converged : bool
    iterations : int

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import ash
    >>> rng = np.random.default_rng(1)
    >>> beta = np.where(rng.random(200) < 0.8, 0.0, rng.normal(0, 3, 200))
    >>> fit = ash(beta + rng.normal(size=200), np.ones(200))
    >>> fit.to_frame().columns.tolist()[:4]
    ['betahat', 'sebetahat', 'posterior_mean', 'posterior_std_dev']
    """

    pi0: float
    loglik: float
    fitted_g: Any
    betahat: np.ndarray
    sebetahat: np.ndarray
    posterior_mean: np.ndarray
    posterior_sd: np.ndarray
    lfdr: np.ndarray
    lfsr: np.ndarray
    q_values: np.ndarray
    s_values: np.ndarray
    negative_prob: np.ndarray
    positive_prob: np.ndarray
    mixcompdist: str
    method: str
    pointmass: bool
    prior: str
    nullweight: float
    df: float | None
    alpha: float
    converged: bool
    iterations: int
    _wrapper: InputWrapper = field(repr=False, default=InputWrapper("ndarray"))

    def _repr_parts(self):
        return [("n", int(self.betahat.size)), ("mixcompdist", self.mixcompdist), ("pi0", self.pi0),
                ("loglik", self.loglik), ("significant", int(np.sum(self.lfsr <= self.alpha)))]

    def _components(self) -> Components:
        g = self.fitted_g
        if "sd" in g.columns:
            return Components("normal", sd=g["sd"].to_numpy(float))
        return Components("uniform", a=g["a"].to_numpy(float), b=g["b"].to_numpy(float))

    def credible_interval(self, conf_level: float = 0.95):
        """Equal-tailed posterior credible intervals, as R ashr's ``ashci``.

        The ends are the ((1 - conf_level)/2, (1 + conf_level)/2) quantiles of each unit's
        posterior (the fitted g times the likelihood), solved by bisection to the last bit instead of
        ``uniroot(tol = 1e-3)`` and R's rounding to 4 significant digits. As in ``ashci``, an end is
        exactly 0 where the point mass at zero straddles its tail probability, and a unit whose
        posterior sd is 0 gets its posterior mean for both ends.

        Parameters
        ----------
        conf_level : float
            Posterior probability of the interval, in (0, 1).

        Returns
        -------
        pandas.DataFrame
            ``conf_low``, ``conf_high``, one row per unit.

        Examples
        --------
        >>> import numpy as np
        >>> from statcore import ash
        >>> fit = ash(np.array([0.1, -0.5, 3.0, 4.2]), np.ones(4))
        >>> fit.credible_interval().shape
        (4, 2)
        """
        import pandas as pd

        level = check_in_interval(conf_level, "conf_level", 0.0, 1.0, closed="neither")
        comp = self._components()
        pi = self.fitted_g["weight"].to_numpy(float)
        keep = pi > 0
        comp, pi = comp.take(keep), pi[keep]
        x, s = self.betahat, self.sebetahat
        err = Error(self.df)
        W = posterior_weights(log_lik(x, s, comp, err), pi)
        pm, psd = self.posterior_mean, self.posterior_sd
        neg, pos, zero = self.negative_prob, self.positive_prob, self.lfdr
        tail = (1 - level) / 2
        step = np.where(psd > 0, 2 * psd, 1.0)
        low = quantile(tail, pm - step, step, x, s, comp, err, W)
        high = quantile(1 - tail, pm + step, step, x, s, comp, err, W)
        low = np.where((neg < tail) & (zero + neg > tail), 0.0, low)
        high = np.where((pos < tail) & (zero + pos > tail), 0.0, high)
        low = np.where(psd == 0, pm, low)
        high = np.where(psd == 0, pm, high)
        index = self._wrapper.index if self._wrapper.kind == "series" else None
        return pd.DataFrame({"conf_low": low, "conf_high": high}, index=index)

    def summary(self, digits: int = 7) -> str:
        g = self.fitted_g
        normal = "sd" in g.columns
        cols = ("mean", "sd") if normal else ("a", "b")
        parts = ["$pi", format_vector(g["weight"], digits), ""]
        for c in cols:
            parts += [f"${c}", format_vector(g[c], digits), ""]
        parts += ['attr(,"class")', format_vector(["normalmix" if normal else "unimix"], quote=True),
                  f"loglik: {format_number(self.loglik, digits)}, pi0: {format_number(self.pi0, digits)}, "
                  f"n: {self.betahat.size}, significant (lfsr <= {format_number(self.alpha)}): "
                  f"{int(np.sum(self.lfsr <= self.alpha))}"]
        return "\n".join(parts) + "\n"

    def to_frame(self):
        """One row per unit: betahat, sebetahat, posterior_mean, posterior_std_dev (the naming table's sd), lfdr, lfsr, q_value,
        s_value, significant (lfsr <= alpha)."""
        import pandas as pd

        index = self._wrapper.index if self._wrapper.kind == "series" else None
        return pd.DataFrame({"betahat": self.betahat, "sebetahat": self.sebetahat,
                             "posterior_mean": self.posterior_mean, "posterior_std_dev": self.posterior_sd,
                             "lfdr": self.lfdr, "lfsr": self.lfsr, "q_value": self.q_values,
                             "s_value": self.s_values, "significant": self.lfsr <= self.alpha}, index=index)

    def _plot(self, ax=None):
        """Left: the fitted g's distribution function; right: betahat against the posterior mean
        (the shrinkage), the units with lfsr <= alpha in colour. ``ax``: two Axes (a new figure
        when None); returns the array of the two Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            fig, axes = plt.subplots(1, 2, figsize=(10, 4))
        else:
            axes = np.asarray(ax).ravel()
            fig = axes[0].figure
        a1, a2 = axes[0], axes[1]
        g = self.fitted_g
        w = g["weight"].to_numpy(float)
        span = float(np.max(np.abs(self.betahat))) or 1.0
        grid = np.linspace(-span, span, 401)
        if "sd" in g.columns:
            from scipy.special import ndtr

            sd = g["sd"].to_numpy(float)
            with np.errstate(divide="ignore", invalid="ignore"):
                comp = np.where(sd[None, :] > 0, ndtr(grid[:, None] / np.where(sd > 0, sd, 1.0)[None, :]),
                                (grid[:, None] >= 0) * 1.0)
        else:
            a, b = g["a"].to_numpy(float), g["b"].to_numpy(float)
            width = np.where(b > a, b - a, 1.0)
            comp = np.where(b > a, np.clip((grid[:, None] - a) / width, 0.0, 1.0), (grid[:, None] >= a) * 1.0)
        a1.step(grid, comp @ w, where="post", color="C0")
        a1.set_xlabel(r"$\beta$")
        a1.set_ylabel("cdf")
        a1.set_title(f"fitted g ({self.mixcompdist})", fontsize=10)
        sig = self.lfsr <= self.alpha
        a2.plot(self.betahat[~sig], self.posterior_mean[~sig], ".", color="0.6", ms=3)
        a2.plot(self.betahat[sig], self.posterior_mean[sig], ".", color="C3", ms=3,
                label=f"lfsr <= {self.alpha:g}")
        a2.axline((0, 0), slope=1, color="0.3", lw=0.8, ls="--")
        a2.set_xlabel("betahat")
        a2.set_ylabel("posterior mean")
        a2.set_title("shrinkage", fontsize=10)
        if sig.any():
            a2.legend(fontsize=8)
        fig.tight_layout()
        return np.asarray([a1, a2], dtype=object)


def _default_mixsd(x: np.ndarray, s: np.ndarray, mult: float) -> np.ndarray:
    """ashr's automatic grid: from min(s)/10 up to 2 sqrt(max(betahat^2 - s^2)) (8 min(s)/10 when
    every betahat^2 <= s^2), in steps of ``mult``, anchored at the top."""
    lo = float(np.min(s)) / 10
    ax = np.abs(x)
    if np.all(ax <= s):
        hi = 8 * lo
    else:  # 2 sqrt(max(betahat^2 - s^2)), factored so that squares of 1e300 do not overflow
        hi = 2 * float(np.max(np.sqrt(np.maximum(ax - s, 0.0)) * np.sqrt(ax + s)))
    npoint = math.ceil(math.log2(hi / lo) / math.log2(mult))
    exps = np.arange(-npoint, 1) if npoint >= 0 else np.arange(-npoint, -1, -1)
    return mult ** exps.astype(float) * hi


def _components(mixcompdist: str, mixsd: np.ndarray, prior_w: np.ndarray) -> tuple[Components, np.ndarray]:
    """The components and their Dirichlet parameters, in ashr's order."""
    k = mixsd.size
    if mixcompdist == "normal":
        return Components("normal", sd=mixsd), prior_w
    zeros = np.zeros(k)
    if mixcompdist == "uniform":
        return Components("uniform", a=-mixsd, b=mixsd.copy()), prior_w
    if mixcompdist == "+uniform":
        return Components("uniform", a=zeros, b=mixsd.copy()), prior_w
    if mixcompdist == "-uniform":
        return Components("uniform", a=-mixsd, b=zeros), prior_w
    # halfuniform: the negative halves, then the positive halves without a second null component
    if np.min(mixsd) > 0:
        return (Components("uniform", a=np.r_[-mixsd, zeros], b=np.r_[zeros, mixsd]),
                np.r_[prior_w, prior_w])
    nullc = int(np.argmin(mixsd))
    rest = np.delete(np.arange(k), nullc)
    return (Components("uniform", a=np.r_[-mixsd, np.zeros(k - 1)], b=np.r_[zeros, mixsd[rest]]),
            np.r_[prior_w, prior_w[rest]])


def _fit_weights(L: np.ndarray, prior_w: np.ndarray) -> tuple[np.ndarray, bool, int]:
    """Mixture weights maximising sum_i log (L w)_i + sum_k (prior_k - 1) log w_k, by statcore's
    mix-SQP: the Dirichlet penalty enters as pseudo-observations (row e_k with weight prior_k - 1)."""
    n, k = L.shape
    if k == 1:
        return np.ones(1), True, 0
    extra = np.flatnonzero(prior_w != 1)
    A = np.empty((n + extra.size, k), order="F")
    A[:n] = L
    A[n:] = 0.0
    A[n + np.arange(extra.size), extra] = 1.0
    omega = np.r_[np.ones(n), prior_w[extra] - 1.0]
    omega /= omega.sum()
    from ._npmle import _blas_single_thread

    # ten EM steps from the uniform start first (as the NPMLE does): from there the SQP converges in
    # a handful of iterations (uniform mixtures at n = 2e5: 6 instead of 56, 0.3 s instead of 1.4 s)
    with _blas_single_thread():
        w, kkt, it, conv = _solvers.mixsqp(A, omega, np.full(k, 1.0 / k), _TOL, _MAX_ITER, em_steps=10)
    w = np.where(w < _R_ZERO, 0.0, w)
    # a stop without a descent direction is the optimum up to rounding: accept a certificate
    # within 1e-7 of 1 (the log-likelihood is then within n 1e-7 of its maximum)
    return w / w.sum(), conv or kkt <= 1.0 + 1e-7, it


@public_function(data=("betahat", "sebetahat"), nan_policy=("raise", "omit"))
def ash(betahat, sebetahat, *, mixcompdist="normal", pointmass=None, nullweight=10.0, method="fdr",
        df=None, grid=None, prior=None, alpha=0.05):
    """Adaptive shrinkage: empirical Bayes with a unimodal prior, local false sign rates.

    The estimates betahat_i = beta_i + s_i e_i (e_i standard normal, or Student t with ``df``) are
    shrunk towards zero under a prior g on beta fitted by maximum penalised likelihood among
    mixtures on a fixed grid: zero-mean normals (a scale mixture) or uniforms on [-a, a] (any
    symmetric unimodal g), [-a, 0] and [0, a] ("halfuniform": any unimodal g with mode 0),
    [0, a] or [-a, 0] only (effects of one sign), plus a point mass at zero. The weights are
    fitted by mix-SQP (Kim et al. 2020; statcore's solver), with a Dirichlet penalty that pulls the
    null weight up (``prior="nullbiased"``), so that pi0 is estimated conservatively. From the
    posterior come the posterior mean and sd, the local false discovery rate lfdr = P(beta_i = 0
    | data) and the local false sign rate lfsr = min(P(beta_i >= 0 | data), P(beta_i <= 0 | data)),
    and their q-values and s-values.

    Follows R ashr 2.2-65 ``ash()`` (Stephens 2017) with its defaults otherwise: the same grid
    (mixture sds or half-widths from min(s)/10 to 2 sqrt(max(betahat^2 - s^2)), ratio sqrt(2)),
    the same penalised likelihood (weights below 1e-8 set to zero, as mixsqp does), components below
    1e-10 pruned from the posterior summaries, and the same definitions of every output.
    Purposeful differences: the weights are the exact optimum (ashr runs ``mixsqp`` with
    ``eps = 1e-6`` added to the likelihoods inside the logarithms, which moves its answers by about
    1e-6 relative; ``ash(..., control = list(eps = 0))`` gives statcore's); ``mixcompdist`` defaults to "normal"
    (R: "uniform"); the mode is fixed at 0 (R's ``mode``, ``grange``, ``g``/``fixg``,
    ``outputlevel``, ``optmethod`` and "halfnormal" are not offered); R's ``alpha`` (the exponent
    of the exchangeable-effects model, beta / s^alpha) is not mirrored: statcore's ``alpha`` is
    the error rate of ``significant`` (lfsr <= alpha) in ``to_frame()``; ``grid`` is ashr's
    ``mixsd``; a halfuniform fit without the null-biased prior warns as R does, an explicit
    ``pointmass`` or ``prior`` overriding ``method``'s choice does not.

    Parameters
    ----------
    betahat : array_like or pandas.Series
        The estimates (a vector).
    sebetahat : array_like or pandas.Series
        Their standard errors: positive and finite, one per estimate.
    mixcompdist : {"normal", "uniform", "halfuniform", "+uniform", "-uniform"}
        The family of the mixture components (see above). "normal" needs ``df=None``, as in ashr.
    pointmass : bool, optional
        Include a point mass at zero. Default: set by ``method`` (True for "fdr", False for
        "shrink").
    nullweight : float
        The Dirichlet parameter of the null component under ``prior="nullbiased"`` (the others
        get 1); at least 1, as ashr requires.
    method : {"fdr", "shrink"}
        ashr's shortcut for the defaults of ``pointmass`` and ``prior``: "fdr" (point mass,
        null-biased prior), "shrink" (no point mass, uniform prior: all Dirichlet parameters 1,
        the plain maximum likelihood).
    df : float, optional
        Degrees of freedom of the t distribution of (betahat - beta) / s; None: normal errors.
        With uniform families only (ashr has no normal mixture for a t likelihood).
    grid : array_like, optional
        The mixture sds (normal) or half-widths (uniform families), ashr's ``mixsd``: positive;
        the point mass, when asked for, is added in front. Default: ashr's automatic grid.
    prior : {"nullbiased", "uniform"}, optional
        The Dirichlet penalty on the weights. Default: set by ``method``.
    alpha : float
        Error rate for ``significant`` in ``to_frame()``: lfsr <= alpha.
    nan_policy : {"raise", "omit"}
        A NaN in ``betahat`` or ``sebetahat``: refuse it ("raise", the default) or drop the unit
        ("omit"; the per-unit outputs then refer to the units kept).

    Returns
    -------
    AshResult
        ``pi0``, ``loglik``, ``fitted_g``, the per-unit ``posterior_mean``, ``posterior_sd``,
        ``lfdr``, ``lfsr``, ``q_values``, ``s_values``, ``credible_interval()``, ``summary()``
        (the fitted g as R prints it), ``to_frame()``, ``plot()``.

    Notes
    -----
    Memory and time are linear in n: the n x K likelihood matrix (K about 20-30 components)
    and one mix-SQP fit; about 25x (normal) and 8-13x (uniform) faster than R ashr at n = 200,000.

    References
    ----------
    Stephens, M. (2017). False discovery rates: a new deal. Biostatistics 18, 275-294.
    R package ashr 2.2-65, ``ash()``, ``ashci()``.
    Kim, Y., Carbonetto, P., Stephens, M. & Anitescu, M. (2020). A fast algorithm for maximum
    likelihood estimation of mixture proportions using sequential quadratic programming. J. Comput.
    Graph. Statist. 29, 261-273.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import ash
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(0.5, 1.5, 1000)
    >>> beta = np.where(rng.random(1000) < 0.7, 0.0, rng.normal(0, 3, 1000))
    >>> fit = ash(beta + s * rng.normal(size=1000), s)
    >>> round(fit.pi0, 2)
    0.73
    >>> bool(np.all(fit.lfdr <= fit.lfsr))
    True
    >>> int(fit.to_frame()["significant"].sum())   # lfsr <= 0.05
    83
    """
    wrapper = InputWrapper.of(betahat)
    x = as_vector(betahat, "betahat")
    s = as_vector(sebetahat, "sebetahat")
    check_same_n(betahat=x, sebetahat=s)
    if x.size == 0:
        raise ValueError("betahat is empty; ash needs at least one estimate")
    if not np.all(np.isfinite(x)):
        raise ValueError("betahat must be finite; found an infinite value")
    if not np.all(np.isfinite(s)) or np.any(s <= 0):
        raise ValueError("sebetahat must be positive and finite, found "
                         f"{float(s[~(np.isfinite(s) & (s > 0))][0])!r}")
    mixcompdist = check_choice(mixcompdist, "mixcompdist", _FAMILIES)
    method = check_choice(method, "method", ("fdr", "shrink"))
    pointmass = (method == "fdr") if pointmass is None else check_flag(pointmass, "pointmass")
    prior = ({"fdr": "nullbiased", "shrink": "uniform"}[method] if prior is None
             else check_choice(prior, "prior", ("nullbiased", "uniform")))
    nullweight = check_finite_real(nullweight, "nullweight")
    if prior == "nullbiased" and nullweight < 1:
        raise ValueError(f"nullweight must be at least 1 (ashr refuses Dirichlet parameters below 1), "
                         f"got {nullweight!r}")
    if df is not None:
        df = check_positive_real(df, "df")
        if mixcompdist == "normal":
            raise ValueError("mixcompdist='normal' needs df=None: ashr has no normal mixture for a "
                             "t likelihood; use a uniform family")
    alpha = check_in_interval(alpha, "alpha", 0.0, 1.0, closed="neither")
    if mixcompdist == "halfuniform" and prior != "nullbiased":
        warnings.warn("halfuniform without the nullbiased prior can give misleading local false sign "
                      "rates (ashr's warning)", StatcoreWarning, stacklevel=2)

    # the problem in units of a power of two near the largest standard error (exact rescaling)
    unit = 2.0 ** math.floor(math.log2(float(np.max(s))))
    xs, ss = x / unit, s / unit
    if grid is None:
        mixsd = _default_mixsd(xs, ss, math.sqrt(2.0))
    else:
        mixsd = as_vector(grid, "grid")
        if mixsd.size == 0 or not np.all(np.isfinite(mixsd)) or np.any(mixsd <= 0):
            raise ValueError("grid must hold positive finite mixture sds or half-widths")
        mixsd = mixsd / unit
    if pointmass:
        mixsd = np.r_[0.0, mixsd]
    prior_w = np.ones(mixsd.size)
    if prior == "nullbiased":
        prior_w[int(np.argmin(mixsd))] = nullweight
    comp, prior_w = _components(mixcompdist, mixsd, prior_w)
    err = Error(df)

    llik = log_lik(xs, ss, comp, err)
    lnorm = llik.max(axis=1)
    if not np.all(np.isfinite(lnorm)):
        i = int(np.argmax(~np.isfinite(lnorm)))
        raise ValueError(f"betahat[{i}] with sebetahat[{i}] has likelihood 0 (in float64) under every "
                         "component of the grid: standard errors too far apart in scale, or a grid that does not "
                         "reach it; rescale the data or pass a grid")
    L = np.exp(llik - lnorm[:, None])
    cols = (L.max(axis=0) > 0) | (prior_w > 1)
    pi = np.zeros(comp.size)
    w, converged, iters = _fit_weights(np.asarray(L[:, cols], order="F"), prior_w[cols])
    pi[cols] = w
    if not converged:
        warnings.warn(f"ash: mix-SQP stopped after {iters} iterations short of its tolerance; the "
                      "weights may be inaccurate", ConvergenceWarning, stacklevel=2)
    loglik = float(np.sum(lnorm + np.log(L @ pi))) - x.size * math.log(unit)

    keep = pi > _PI_THRESH
    comp_k = comp.take(keep)
    W = posterior_weights(llik[:, keep], pi[keep] / pi[keep].sum())
    mo = moments(xs, ss, comp_k, err, W)
    lfsr = np.clip(np.minimum(mo.negative, mo.positive) + mo.zero, 0.0, 1.0)
    lfdr = mo.zero

    import pandas as pd

    if comp.family == "normal":
        g = pd.DataFrame({"weight": pi, "mean": np.zeros(comp.size), "sd": comp.sd * unit})
    else:
        g = pd.DataFrame({"weight": pi, "a": comp.a * unit, "b": comp.b * unit})
    if wrapper.kind != "series":
        wrapper = InputWrapper("ndarray")
    return AshResult(pi0=float(pi[comp.null].sum()), loglik=loglik, fitted_g=g, betahat=x.copy(),
                     sebetahat=s.copy(), posterior_mean=mo.mean * unit, posterior_sd=mo.sd * unit,
                     lfdr=lfdr, lfsr=lfsr, q_values=_qval_from_lfdr(lfdr), s_values=_qval_from_lfdr(lfsr),
                     negative_prob=mo.negative, positive_prob=mo.positive, mixcompdist=mixcompdist,
                     method=method, pointmass=pointmass, prior=prior, nullweight=nullweight, df=df,
                     alpha=alpha, converged=converged, iterations=iters, _wrapper=wrapper)
