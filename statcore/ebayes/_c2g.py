"""Causal two-groups (C2G) empirical Bayes: which treated units responded, with FDR control.

The C2G model (Tosh, Zhang & Tansey 2025) extends the two-groups model to a treated/control study:
controls are known nulls, and a treated unit with covariates x responds (h = 1) with probability
pi(x),

    y | x, h ~ (1 - h) f0(y | x) + h f1(y | x),   h | x, t = 1 ~ Bernoulli(pi(x)),   h = 0 if t = 0.

The posterior null probability P(h = 0 | x, y, t = 1) of each treated unit is a local false
discovery rate; selecting by the running mean of the sorted values (Sun & Cai 2007) controls the
FDR of the selected responders.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .._checks import (InputWrapper, c2g_inputs, check_choice, check_in_interval, check_n_jobs, check_progress,
                       check_positive_int, check_probability, check_seed)
from .._checks.public import public_function
from ._c2g_result import C2GResult

__all__ = ["c2g", "C2GResult"]

_MODELS = ("additive", "nonparametric")
_CONTROLS = ("bayes", "empirical")
_NOISES = ("pr", "npmle")
_BANDWIDTHS = ("per_group", "shared")
_BANDS = ("pointwise", "simultaneous")


def _options(alpha, model, control, noise, B, boot_quantile, n_jobs, bandwidth, band):
    alpha = check_probability(alpha, "alpha", open_right=True)
    model = check_choice(model, "model", _MODELS)
    control = check_choice(control, "control", _CONTROLS)
    noise = check_choice(noise, "noise", _NOISES, aliases={"predictive_recursion": "pr"})
    B = check_positive_int(B, "B", minimum=10)
    boot_quantile = check_in_interval(boot_quantile, "boot_quantile", 0.0, 0.5, closed="neither")
    n_jobs = check_n_jobs(n_jobs)
    bandwidth = check_choice(bandwidth, "bandwidth", _BANDWIDTHS)
    band = check_choice(band, "band", _BANDS)
    return alpha, model, control, noise, B, boot_quantile, n_jobs, bandwidth, band


def _empirical_qvalues(lfdr_t: np.ndarray, lfdr_c: np.ndarray, bayes_q: np.ndarray, null_frac: float) -> np.ndarray:
    """Control-calibrated q-values (see ``c2g``, ``control="empirical"``)."""
    n1, n0 = lfdr_t.size, lfdr_c.size
    k = np.searchsorted(np.sort(lfdr_t), lfdr_t, side="right")
    m = np.searchsorted(np.sort(lfdr_c), lfdr_t, side="right")
    fdr_hat = null_frac * (n1 / n0) * m / k
    c = np.maximum(bayes_q, fdr_hat)
    order = np.argsort(lfdr_t, kind="stable")
    q = np.empty_like(c)
    q[order] = np.minimum.accumulate(c[order][::-1])[::-1]
    return np.minimum(q, 1.0)


@public_function(data=("y", "treat", "X"), nan_policy=("raise", "omit"),
                 formula=dict(lhs="y", rhs="treat", cond="X", single=("y", "treat"), pandas=True))
def c2g(y: Any, treat: Any = None, X: Any = None, *, model: str = "additive", alpha: float = 0.1,
        control: str = "bayes", seed: Any = None, n_jobs: int = 1, noise: str = "pr",
        B: int = 100, boot_quantile: float = 0.2, bandwidth: str = "per_group", band: str = "simultaneous",
        nan_policy: str = "raise", progress: bool | None = None, data: Any = None) -> C2GResult:
    """Select the treated units that responded, with the FDR controlled (causal two-groups model).

    Parameters
    ----------
    y : array_like or pandas.Series
        Outcomes of all units (treated and controls). pandas inputs (``y``, ``treat``, ``X``) must
        share one index (same labels, same order), as statsmodels requires of endog and exog;
        otherwise a ValueError (they are never matched by position silently). Plain arrays match
        by position.
    treat : array_like of {0, 1} or bool
        Treatment indicator; controls (0) are known non-responders.
    X : array_like (n, p), pandas.DataFrame or None
        Covariates (biomarkers, confounders). ``None`` gives the covariate-free two-sample version.
        Both models take the controls' outcome distribution at x as the treated non-responders'
        one, so X must hold every covariate that drives both treatment and outcome (an omitted
        confounder raises the realised FDR; see Notes). The additive model with covariates needs
        at least 4 controls.
    model : {"additive", "nonparametric"}
        "additive" (semi-parametric, identifiable): y = mu0(x) + eps for non-responders and
        y = mu1(x) + eps for responders, eps ~ g. mu0 is a kernel ridge regression on the controls
        (Gaussian kernel, unpenalised linear part when n_controls > 5 (p + 1), bandwidth and
        penalty by the exact leave-one-out error; Nystrom features on 500 landmarks beyond 500
        controls); g a Gaussian mixture fitted to the controls' leave-one-out residuals by
        predictive recursion (kernel sd by the predictive-recursion marginal likelihood, at least
        the median spacing of the distinct outcomes) or, with ``noise="npmle"``, the NPMLE of the
        mixing distribution at that sd; then EM on the treated for mu1(x) and pi(x)
        (random-feature regressions with a linear part, 5-fold cross-fitted and cross-validated),
        stopped when the observed-data log-likelihood of the treated changes by at most 1e-4 per
        unit (``loglik``, ``loglik_trace``, ``converged``, ``n_iter`` on the result; a run that
        reaches the 200-iteration cap warns). A split-sample test of "somebody responded" guards
        the selection: the treated are halved, the mixture fitted on one half is compared with
        the null model on the other by the held-out log-likelihood gain; its one-sided p-value
        (``response_p_value``) floors every q-value, so when nobody responded the FDR (the chance
        of any selection) stays at alpha. Fewer than 10 treated cannot be split: nothing is
        selected then, nor when the cross-fitted mixture does not beat "nobody responded" by more
        than one standard error of the held-out gain. The posterior null probability reported is
        the bound (1 - pi*(x)) g(y - mu0(x)) / f_t(y | x) with the fitted treated density
        f_t = (1 - pi) g(. - mu0) + pi g(. - mu1) and
        pi*(x) = pi(x) (1 - min_r g(r - mu1(x) + mu0(x)) / g(r)), the minimum over the observed
        residuals: the part of pi(x) the outcomes can reveal (conservative when effects are small).
        "nonparametric" (not identifiable, still testable): nearest-neighbour kernel estimates of
        f0(y | x) (controls) and f_t(y | x) (treated); pi*(x) = 1 - min_y f_t / f0, the lower bound
        of pi(x), from a bootstrap band (``band``); the posterior null probability
        (1 - pi*(x)) f0(y | x) / f_t(y | x) with the upper f0 and lower f_t bootstrap quantiles at
        the unit's outcome upper-bounds the true local FDR (y-bandwidths: ``bandwidth``).
    alpha : float in (0, 1)
        Target FDR.
    control : {"bayes", "empirical"}
        "bayes": select the treated units with the smallest posterior null probabilities while
        their running mean stays at or below alpha (``bfdr_select``). "empirical": additionally
        calibrate on the controls, as the paper's "-EC" variant: at the threshold t = the k-th
        smallest treated posterior null probability, the number of false selections is estimated
        by the controls passing the same threshold, rescaled to the treated group and by an upper
        bound of the null fraction,

            FDR_hat(k) = pi0_bar * (n_treated / n_controls) * #{controls: lfdr <= t} / k,

        and the selection is the largest k with max(running mean_k, FDR_hat(k)) <= alpha.
        pi0_bar = 1 - mean of pi*(x) over the treated in the nonparametric model (pi* bounds pi
        from below, so pi0_bar bounds the null fraction from above); pi0_bar = 1 in the additive
        model, as in the paper: there 1 - mean pi(x) is only an estimate, and an overestimated
        response fraction would switch the calibration off.
        Recommended whenever effects are weak relative to the noise or samples are small: the
        Bayes rule trusts the fitted pi(x) and mu1(x) (see Notes).
    seed : None, int or numpy.random.Generator
        Random folds, random features, bootstrap resamples and predictive-recursion orders.
    n_jobs : int
        Threads for the nonparametric model's density evaluations (-1: all cores). The linear
        algebra runs single-threaded (many small solves).
    noise : {"pr", "npmle"}
        Noise density estimator of the additive model.
    B : int
        Bootstrap resamples of the nonparametric model (>= 10).
    boot_quantile : float in (0, 0.5)
        Bootstrap quantile of the nonparametric model's conservative bounds.
    bandwidth : {"per_group", "shared"}
        The nonparametric model's y-bandwidths. Each group's own is chosen by leave-one-out
        likelihood. "per_group" (the default, as the authors' code): the densities at the units'
        own outcomes (the posterior null probabilities) use each group's own bandwidth; pi*(x)
        smooths both groups with the larger of the two, since only one kernel for both keeps the
        mixture structure f_t = (1 - pi) f0 + pi f1 and so pi* below pi(x). "shared": one
        bandwidth, the larger, for everything: more conservative, with far less power where the
        treated outcomes spread much wider than the controls'. Use "shared" when the most
        conservative selection is wanted, or when a group's bandwidth choice is doubtful (few
        units per group).
    band : {"simultaneous", "pointwise"}
        How the nonparametric model's pi*(x) = 1 - min_y f_t / f0 takes the bootstrap into
        account. "simultaneous" (the default): a studentised bootstrap band of log f_t - log f0
        holding over all y at once with probability 1 - ``boot_quantile``, whose lower edge is
        minimised. "pointwise" (the paper's recipe): at each y the upper (1 - ``boot_quantile``)
        quantile of f_t over the lower quantile of f0, then the minimum over y; the minimum of
        many pointwise quantile ratios is biased low, so pointwise pi* is larger: a little more
        power, but pi* can exceed pi. Use "pointwise" to reproduce the paper, "simultaneous" when
        pi*(x) is to be reported as a lower bound.
    nan_policy : {"raise", "omit"}
        Missing values: "raise" (the default) refuses a NaN in ``y``, ``treat`` or ``X``; "omit"
        drops the units with a NaN in any of them (the per-unit outputs then refer to the kept
        units, and ``kept`` says which). "propagate" is not offered.
    progress : bool, optional
        The nonparametric model: a progress bar (tqdm) over the bootstrap density evaluations,
        counting units as their chunks finish (also with ``n_jobs`` or on a Dask cluster). Default
        (None): only when standard error is a terminal. The additive model has no long loop.
    data : pandas.DataFrame, optional
        With a formula in place of ``y``: the table holding its columns.
        ``c2g("y ~ treat | age + stage", data=df)`` is ``c2g(y, treat, X)`` with
        the columns ``age`` and the dummies of ``stage`` as X.
        Categorical columns expand to R's treatment-contrast dummies (a two-level treatment column
        becomes 0/1, its first level 0); missing values follow ``nan_policy``; the result equals
        the array call on the formula's columns (docs/conventions.md, "Formulas").

    Returns
    -------
    C2GResult
        ``lfdr`` (posterior null probabilities, 1 for controls) and ``q_values`` in the container of
        ``y`` (a Series keeps its index), ``responders`` (integer positions of the selected units),
        ``selected``, ``pi`` (pi(x) or pi*(x) at every unit), ``erpf``, ``care(x)``, ``summary()``,
        ``to_frame()``, ``plot()``; additive model: ``loglik``, ``converged``, ``n_iter``,
        ``response_p_value``.

    Notes
    -----
    C2G reads the treated outcomes as a two-groups mixture of non-responders, distributed as the
    controls at the same x, and responders, and selects the treated units with the smallest
    posterior null probabilities. It controls the FDR at ``alpha`` when the non-responders' outcome
    model holds given X, and the nonparametric model's pi*(x) bounds the response fraction from
    below; it fails when a confounder of treatment and outcome is missing from X (the treated
    non-responders then differ from the controls, and the realised FDR exceeds alpha), and the
    additive model's Bayes rule can exceed alpha with weak effects or few units
    (``control="empirical"`` holds there). The measured FDR and power, the comparison with the
    authors' code and the design choices behind the options are in ``benchmarks/README.md``,
    section "c2g".

    The fit runs on y divided by a power of two near its spread (exact) and every output is read in
    y's units, so c2g(y * k) is c2g(y) with the means, CARE and the noise density times k and the
    log-likelihoods less n_treated log k, at any magnitude float64 holds (bit for bit when k is a
    power of two).

    Examples
    --------
    >>> import numpy as np
    >>> from statcore.ebayes import c2g
    >>> rng = np.random.default_rng(1)
    >>> t = rng.random(2000) < 0.5
    >>> h = t & (rng.random(2000) < 0.3)
    >>> y = rng.normal(3.0 * h, 1.0)
    >>> res = c2g(y, t, alpha=0.1, seed=1)
    >>> round(res.erpf, 1)
    0.3
    >>> bool(np.all(t[res.responders]))
    True

    References
    ----------
    Tosh, C., Zhang, B. & Tansey, W. (2025). Treatment response as a latent variable.
    arXiv:2502.08776.
    Sun, W. & Cai, T. T. (2007). Oracle and adaptive compound decision rules for false discovery
    rate control. JASA 102, 901-912.
    Newton, M. A. (2002). On a nonparametric recursive estimator of the mixing distribution.
    Sankhya A 64, 306-322.
    """
    from statcore.multitest import bfdr_select

    alpha, model, control, noise, B, boot_quantile, n_jobs, bandwidth, band = _options(
        alpha, model, control, noise, B, boot_quantile, n_jobs, bandwidth, band)
    progress = check_progress(progress)
    data = c2g_inputs(y, treat, X, model, nan_policy)
    yv, tv, Xv, columns = data.y, data.treat, data.X, data.columns
    rng = check_seed(seed)
    wrapper = InputWrapper.of(y) if InputWrapper.of(y).kind == "series" else InputWrapper("ndarray")
    if wrapper.kind == "series" and data.keep is not None:
        wrapper = InputWrapper("series", wrapper.index[data.keep], wrapper.name)
    if Xv is not None:
        center, scale = Xv.mean(axis=0), Xv.std(axis=0)
        scale[scale == 0] = 1.0
        Z = (Xv - center) / scale
    else:
        center = scale = None
        Z = None
    from ..utils import thread_limit

    # many small linear-algebra calls: threaded BLAS only oversubscribes the cores (benchmarks/README.md,
    # ebayes); parallelism comes from n_jobs
    # the fit runs on y / unit, unit a power of two near y's spread (exact, so the fit on y * 2^k is the
    # fit on y bit for bit); the models read their outputs back in y's units
    unit = data.unit
    ys = yv / unit
    with thread_limit(1, pools="blas"):
        if model == "additive":
            fit = _fit_additive(Z, ys, tv, noise, rng).in_units(unit)
        else:
            from ._c2g_nonparametric import fit_nonparametric

            fit = _NonparametricModel(fit_nonparametric(Z, ys, tv, B, boot_quantile, rng, n_jobs, progress,
                                                        bandwidth=bandwidth, band=band), unit)
    if model == "additive" and not fit.em.converged:
        import warnings

        from .._warnings import ConvergenceWarning

        warnings.warn(f"C2G additive: the EM stopped at its cap of {fit.em.n_iter} iterations before the "
                      "observed-data log-likelihood settled (loglik_trace on the result shows its path)",
                      ConvergenceWarning, stacklevel=2)
    lfdr_all = fit.lfdr
    lfdr_t = lfdr_all[tv]
    erpf = float(np.mean(fit.pi[tv]))
    sel = bfdr_select(lfdr_t, alpha=alpha)
    try:
        q_t = np.asarray(sel.q_values, dtype=float)
    except AttributeError:  # BFDRSelection before the naming table (q_values)
        q_t = np.asarray(sel.qvalues, dtype=float)
    if control == "empirical":
        # null fraction: 1 - mean pi* (nonparametric, an upper bound); 1 in the additive model,
        # where an overestimated ERPF would shrink the calibration towards zero
        null_frac = 1.0 - erpf if model == "nonparametric" else 1.0
        q_t = _empirical_qvalues(lfdr_t, lfdr_all[~tv], q_t, null_frac)
    if model == "additive":
        # the split-sample test of "somebody responded": no unit is selected at a level below its
        # p-value, which holds the FDR under the global null (``response_gate``)
        q_t = np.maximum(q_t, fit.em.gate_p_value)
    q = np.ones(yv.size)
    q[tv] = q_t
    lfdr_out = np.ones(yv.size)
    lfdr_out[tv] = lfdr_t
    selected = q <= alpha
    return C2GResult._build(model=model, y=yv, treat=tv, lfdr=lfdr_out, lfdr_model=lfdr_all, q_values=q,
                            selected=selected, alpha=alpha, control=control, erpf=erpf, fit=fit,
                            wrapper=wrapper, center=center, scale=scale, columns=columns, kept=data.keep)


class _AdditiveModel:
    """Fitted additive C2G model: mu0, g, mu1, pi and the per-unit quantities."""

    def __init__(self, krr, rff, noise, em, mu0, mu1, pi, lfdr):
        self.krr, self.rff, self.noise, self.em = krr, rff, noise, em
        self.mu0, self.mu1, self.pi, self.lfdr = mu0, mu1, pi, lfdr
        self.unit = 1.0     # the fit ran on y / unit: krr, em and mu0_const are in those units

    def in_units(self, unit: float) -> "_AdditiveModel":
        """The model read in y's units, fitted on y / unit: the means, the noise density and the
        treated log-likelihoods (the density of y is that of y / unit divided by unit)."""
        if unit == 1.0:
            return self
        from ._c2g_additive import ScaledNoise

        self.unit = unit
        self.mu0, self.mu1 = self.mu0 * unit, self.mu1 * unit
        self.noise = ScaledNoise(self.noise, unit)
        self.loglik = np.asarray(self.em.loglik, dtype=float) - self.n_treated * np.log(unit)
        return self

    def predict_mu0(self, Z):
        if self.krr is None:
            return np.full(Z.shape[0], self.mu0_const * self.unit)
        return self.krr.predict(Z) * self.unit

    def care(self, Z):
        return self.rff(Z) @ self.em.beta_mu * self.unit - self.predict_mu0(Z)


def _fit_additive(Z, y, treat, noise_method, rng):
    from scipy.special import expit

    from ._c2g_additive import (fit_kernel_ridge, fit_noise, fit_treated_em, identified_pi,
                                make_random_features, median_distance, pooled_null_mean)

    ctrl = ~treat
    n = y.size
    Zc = np.zeros((n, 0)) if Z is None else Z
    mu0 = np.empty(n)
    if Z is None:
        krr = None
        y0 = y[ctrl]
        n0 = y0.size
        mu0_const = float(y0.mean())
        mu0[ctrl] = (y0.sum() - y0) / (n0 - 1)        # leave-one-out means
        mu0[treat] = mu0_const
        bandwidth = 1.0
    else:
        krr = fit_kernel_ridge(Z[ctrl], y[ctrl], rng)
        mu0[ctrl] = krr.loo
        mu0[treat] = krr.predict(Z[treat])
        mu0_const = None
        bandwidth = krr.bandwidth if Z.shape[1] else median_distance(Z, rng)
    # residual scales below 1e-10 of the outcomes' magnitude are rounding errors of the regression
    # (constant outcomes): without this floor they were fitted as noise and every treated unit
    # whose rounding error differed looked like a responder
    # outcomes on a lattice (rounded, discrete): the kernel sd is at least the median spacing of
    # the distinct outcomes (for continuous outcomes about range / n, which no candidate is below)
    levels = np.unique(y)
    spacing = float(np.median(np.diff(levels))) if levels.size > 1 else 0.0
    g = fit_noise(y[ctrl] - mu0[ctrl], noise_method, rng, min_scale=1e-10 * float(np.max(np.abs(y))),
                  min_kernel_sd=spacing)
    rff = make_random_features(Zc.shape[1], bandwidth, rng)
    F = rff(Zc)
    n1 = int(treat.sum())
    perm = rng.permutation(n1)
    halves = [np.sort(perm[: n1 // 2]), np.sort(perm[n1 // 2:])]
    if krr is None:
        # no covariates: the pooled null mean is the mean of the controls and the other half
        y0, y1 = y[ctrl], y[treat]
        mu0_pooled = np.empty(n1)
        for h in (0, 1):
            mu0_pooled[halves[h]] = (y0.sum() + y1[halves[1 - h]].sum()) / (y0.size + halves[1 - h].size)
    else:
        mu0_pooled = pooled_null_mean(krr, Z, y, treat, halves)
    em = fit_treated_em(F[treat], y[treat], mu0[treat], g, rng, gate=(mu0_pooled, halves))
    mu1 = F @ em.beta_mu
    pi = expit(F @ em.beta_pi)
    mu1[treat] = em.mu1_cf
    pi[treat] = em.pi_cf
    pi = np.clip(pi, 1e-6, 1 - 1e-6)
    log_null, log_alt = g.logpdf(y - mu0), g.logpdf(y - mu1)
    pistar = identified_pi(pi, mu1 - mu0, y - mu0, g)
    # posterior null bound (1 - pi*) g0 / f_t with the fitted f_t = (1 - pi) g0 + pi g1
    f_t = np.logaddexp(np.log1p(-pi) + log_null, np.log(pi) + log_alt)
    lfdr = np.minimum(np.exp(np.log1p(-pistar) + log_null - f_t), 1.0)
    if em.null_chosen:
        # as stated: pi(x) = 0, so every posterior null probability is 1 (the clip above only
        # guards the logarithms)
        pi = pistar = np.zeros(n)
        lfdr = np.ones(n)
    model = _AdditiveModel(krr, rff, g, em, mu0, mu1, pi, lfdr)
    model.pi_star = pistar
    model.mu0_const = mu0_const
    model.n_treated = n1
    model.loglik = np.asarray(em.loglik, dtype=float)
    return model


class _NonparametricModel:
    def __init__(self, fit, unit=1.0):
        self.np_fit = fit
        self.pi = fit.pi_star
        self.lfdr = fit.lfdr
        self.unit = unit    # the fit ran on y / unit: its means (mu0, mu_t) are in those units
