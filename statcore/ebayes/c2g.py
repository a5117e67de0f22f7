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

import warnings
from typing import Any

import numpy as np

from .._checks import (InputWrapper, as_float_array, as_treatment, check_choice, check_n_jobs, check_positive_int,
                       check_probability, check_seed)
from .._result import StatcoreWarning, TableResult
from .._r.rformat import format_number, format_numbers

__all__ = ["c2g", "C2GResult"]

_MODELS = ("additive", "nonparametric")
_CONTROLS = ("bayes", "empirical")
_NOISES = ("pr", "npmle")


def _validate(y, treat, X, alpha, model, control, noise, n_boot, boot_quantile, n_jobs):
    yv = as_float_array(y, "y", ndim=1)
    n = yv.size
    tv = as_treatment(treat, n)
    n1 = int(tv.sum())
    if n - n1 < 2:
        raise ValueError(f"treat has {n - n1} control units (treat == 0); C2G needs at least 2 controls, "
                         "the known nulls it learns the null outcome distribution from")
    if n1 < 2:
        raise ValueError(f"treat has {n1} treated units (treat == 1); C2G needs at least 2 treated units")
    Xv = None
    columns = None
    if X is not None:
        columns = list(X.columns) if hasattr(X, "columns") else None
        Xv = as_float_array(X, "X")
        if Xv.ndim == 1:
            Xv = Xv[:, None]
        if Xv.ndim != 2 or Xv.shape[0] != n:
            raise ValueError(f"X must have one row per unit ({n} rows), got shape {Xv.shape}")
        if Xv.shape[1] == 0:
            Xv = None
    alpha = check_probability(alpha, "alpha", open_right=True)
    model = check_choice(model, "model", _MODELS)
    if model == "additive" and Xv is not None and n - n1 < 4:
        # the kernel ridge regression of the controls needs two residual degrees of freedom
        # beyond its intercept and half a degree per kernel direction: guaranteed from 4 controls
        raise ValueError(f"treat has {n - n1} control units; the additive model with covariates X needs "
                         "at least 4 controls (or pass X=None, or model='nonparametric')")
    control = check_choice(control, "control", _CONTROLS)
    noise = check_choice(noise, "noise", _NOISES, aliases={"predictive_recursion": "pr"})
    n_boot = check_positive_int(n_boot, "n_boot", minimum=10)
    boot_quantile = check_probability(boot_quantile, "boot_quantile", open_right=True)
    if boot_quantile >= 0.5:
        raise ValueError(f"boot_quantile must lie in (0, 0.5), got {boot_quantile!r}")
    check_n_jobs(n_jobs)
    return yv, tv, Xv, columns, alpha, model, control, noise, n_boot, boot_quantile


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


def c2g(y: Any, treat: Any, X: Any = None, model: str = "additive", alpha: float = 0.1,
        control: str = "bayes", seed: Any = None, n_jobs: int = 1, *, noise: str = "pr",
        n_boot: int = 100, boot_quantile: float = 0.2) -> "C2GResult":
    """Select the treated units that responded, with the FDR controlled (causal two-groups model).

    Parameters
    ----------
    y : array_like or pandas.Series
        Outcomes of all units (treated and controls), no missing values.
    treat : array_like of {0, 1} or bool
        Treatment indicator; controls (0) are known non-responders.
    X : array_like (n, p), pandas.DataFrame or None
        Covariates (biomarkers, confounders). ``None`` gives the covariate-free two-sample version.
        The additive model with covariates needs at least 4 controls.
    model : {"additive", "nonparametric"}
        "additive" (semi-parametric, identifiable): y = mu0(x) + eps for non-responders and
        y = mu1(x) + eps for responders, eps ~ g. mu0 is a kernel ridge regression on the controls
        (Gaussian kernel, unpenalised linear part when n_controls > 5 (p + 1), bandwidth and
        penalty by GCV; Nystrom features on 500 landmarks beyond 500 controls); g a Gaussian
        mixture fitted to the controls' leave-one-out residuals by predictive recursion (kernel sd
        by the predictive-recursion marginal likelihood, at least the median spacing of the
        distinct outcomes so that rounded or discrete outcomes do not give a spiky g) or, with
        ``noise="npmle"``, the NPMLE of
        the mixing distribution at that sd; then EM on the treated for mu1(x) and pi(x)
        (random-feature regressions with a linear part, 5-fold cross-fitted and cross-validated).
        If the cross-fitted mixture does not beat "nobody responded" by more than one standard
        error of the held-out log-likelihood gain, pi(x) is set to 0 and nothing is selected.
        The posterior null probability reported is the bound (1 - pi*(x)) g(y - mu0(x)) / f_t(y | x)
        with the fitted treated density f_t = (1 - pi) g(. - mu0) + pi g(. - mu1) and
        pi*(x) = pi(x) (1 - min_r g(r - mu1(x) + mu0(x)) / g(r)), the minimum over the observed
        residuals: the part of pi(x) the outcomes can reveal. It equals the plain posterior null
        probability when effects are large and stays conservative when they are small (where
        pi(x) and mu1(x) - mu0(x) trade off along a flat likelihood ridge).
        "nonparametric" (not identifiable, still testable): nearest-neighbour kernel estimates of
        f0(y | x) (controls) and f_t(y | x) (treated); pi*(x) = 1 - min_y f_t / f0, the lower bound
        of pi(x), from bootstrap quantiles (upper quantile of f_t over lower quantile of f0); the
        posterior null probability (1 - pi*(x)) f0(y | x) / f_t(y | x) with the upper f0 and lower
        f_t quantiles upper-bounds the true local FDR.
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
        response fraction would switch the calibration off (seen in small samples).
        Recommended whenever effects are weak relative to the noise or samples are small: the
        Bayes rule trusts the fitted pi(x), mu1(x), and in the paper's additive simulation with
        small effects its realised FDR exceeded the target (benchmarks/sim_c2g.py).
    seed : None, int or numpy.random.Generator
        Random folds, random features, bootstrap resamples and predictive-recursion orders.
    n_jobs : int
        Threads for the nonparametric model's density evaluations (-1: all cores). The linear
        algebra runs single-threaded (many small solves).
    noise : {"pr", "npmle"}
        Noise density estimator of the additive model.
    n_boot : int
        Bootstrap resamples of the nonparametric model (>= 10).
    boot_quantile : float in (0, 0.5)
        Bootstrap quantile of the nonparametric model's conservative bounds.

    Returns
    -------
    C2GResult
        ``lfdr`` (posterior null probabilities, 1 for controls) and ``qvalues`` in the container of
        ``y`` (a Series keeps its index), ``responders`` (integer positions of the selected units),
        ``selected``, ``pi`` (pi(x) or pi*(x) at every unit), ``erpf``, ``care(x)``, ``summary()``,
        ``to_frame()``, ``plot()``.

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

    yv, tv, Xv, columns, alpha, model, control, noise, n_boot, boot_quantile = _validate(
        y, treat, X, alpha, model, control, noise, n_boot, boot_quantile, n_jobs)
    rng = check_seed(seed)
    wrapper = InputWrapper.of(y) if InputWrapper.of(y).kind == "series" else InputWrapper("ndarray")
    if Xv is not None:
        center, scale = Xv.mean(axis=0), Xv.std(axis=0)
        scale[scale == 0] = 1.0
        Z = (Xv - center) / scale
    else:
        center = scale = None
        Z = None
    from threadpoolctl import threadpool_limits

    # many small linear-algebra calls: threaded BLAS only oversubscribes the cores (measured 15-30x
    # slower with 2 OpenBLAS threads on a busy 2-core machine); parallelism comes from n_jobs
    with threadpool_limits(limits=1, user_api="blas"):
        if model == "additive":
            fit = _fit_additive(Z, yv, tv, noise, rng)
        else:
            from ._c2g_nonparametric import fit_nonparametric

            fit = _NonparametricModel(fit_nonparametric(Z, yv, tv, n_boot, boot_quantile, rng, n_jobs))
    lfdr_all = fit.lfdr
    lfdr_t = lfdr_all[tv]
    erpf = float(np.mean(fit.pi[tv]))
    sel = bfdr_select(lfdr_t, alpha)
    q_t = np.asarray(sel.qvalues, dtype=float)
    if control == "empirical":
        # null fraction: 1 - mean pi* (nonparametric, an upper bound); 1 in the additive model,
        # where an overestimated ERPF would shrink the calibration towards zero
        null_frac = 1.0 - erpf if model == "nonparametric" else 1.0
        q_t = _empirical_qvalues(lfdr_t, lfdr_all[~tv], q_t, null_frac)
    q = np.ones(yv.size)
    q[tv] = q_t
    lfdr_out = np.ones(yv.size)
    lfdr_out[tv] = lfdr_t
    selected = q <= alpha
    return C2GResult(model=model, y=yv, treat=tv, lfdr=lfdr_out, lfdr_model=lfdr_all, qvalues=q,
                     selected=selected, alpha=alpha, control=control, erpf=erpf, fit=fit,
                     wrapper=wrapper, center=center, scale=scale, columns=columns)


class _AdditiveModel:
    """Fitted additive C2G model: mu0, g, mu1, pi and the per-unit quantities."""

    def __init__(self, krr, rff, noise, em, mu0, mu1, pi, lfdr):
        self.krr, self.rff, self.noise, self.em = krr, rff, noise, em
        self.mu0, self.mu1, self.pi, self.lfdr = mu0, mu1, pi, lfdr

    def predict_mu0(self, Z):
        if self.krr is None:
            return np.full(Z.shape[0], self.mu0_const)
        return self.krr.predict(Z)

    def care(self, Z):
        return self.rff(Z) @ self.em.beta_mu - self.predict_mu0(Z)


def _fit_additive(Z, y, treat, noise_method, rng):
    from scipy.special import expit

    from ._c2g_additive import (fit_kernel_ridge, fit_noise, fit_treated_em, identified_pi,
                                make_random_features, median_distance)

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
    em = fit_treated_em(F[treat], y[treat], mu0[treat], g, rng)
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
    return model


class _NonparametricModel:
    def __init__(self, fit):
        self.np_fit = fit
        self.pi = fit.pi_star
        self.lfdr = fit.lfdr


class C2GResult(TableResult):
    """Result of ``c2g``: posterior null probabilities, q-values, selected responders, estimands.

    Attributes
    ----------
    model, control : str
    alpha : float
    lfdr : per-unit posterior null probability (container of ``y``); controls are known nulls (1).
        In the nonparametric model an upper bound of the true local FDR.
    lfdr_model : ndarray
        The model's posterior null probability at every unit, controls included (what
        ``control="empirical"`` calibrates with; ``plot()`` shows it).
    qvalues : per-unit q-value (1 for controls): the smallest target FDR selecting the unit.
    selected : bool per unit; ``responders`` the integer positions of the selected units.
    pi : per-unit response probability pi(x) (additive) or its lower bound pi*(x) (nonparametric).
    erpf : float
        Expected response probability among the treated, mean of pi(x) over the treated (additive),
        or the lower end mean pi*(x) of its identification interval (nonparametric).
    erpf_interval : (float, float) or None
        Nonparametric: the identification interval [mean pi*, 1].
    erpf_ci : (float, float) or None
        Nonparametric: 95% bootstrap interval of the lower end, the means over the treated of the
        per-unit intervals of pi*(x) from simultaneous bootstrap bands of log f_t / f0.
    """

    def __init__(self, *, model, y, treat, lfdr, lfdr_model, qvalues, selected, alpha, control, erpf, fit,
                 wrapper, center, scale, columns):
        self.model = model
        self.alpha = alpha
        self.control = control
        self.erpf = erpf
        self._y, self._treat, self._fit, self._wrapper = y, treat, fit, wrapper
        self._center, self._scale, self._columns = center, scale, columns
        self.lfdr = wrapper.wrap(lfdr, name="lfdr")
        self.lfdr_model = lfdr_model
        self.qvalues = wrapper.wrap(qvalues, name="qvalue")
        self.selected = wrapper.wrap(selected, name="selected")
        self.responders = np.flatnonzero(selected).astype(np.int64)
        self.pi = wrapper.wrap(np.asarray(fit.pi, dtype=float), name="pi")
        self.n_treated = int(treat.sum())
        self.n_controls = int(treat.size - treat.sum())
        if model == "nonparametric":
            npf = fit.np_fit
            self.erpf_interval = (erpf, 1.0)
            self.erpf_ci = (float(npf.pi_star_lo[treat].mean()), float(npf.pi_star_hi[treat].mean()))
        else:
            self.erpf_interval = None
            self.erpf_ci = None

    @property
    def n_selected(self) -> int:
        return int(self.responders.size)

    @property
    def noise(self):
        """Additive model: the fitted noise density (Gaussian mixture with log-linear tails)."""
        return getattr(self._fit, "noise", None)

    def _covariates(self, x) -> np.ndarray | None:
        if self._center is None:
            if x is None:
                return None
            n = len(x) if np.ndim(x) else 1
            return np.zeros((n, 0))
        if x is None:
            raise ValueError("x must be given: the model was fitted with covariates")
        if hasattr(x, "columns") and self._columns is not None:
            missing = [c for c in self._columns if c not in x.columns]
            if missing:
                raise ValueError(f"x lacks the covariate columns {missing}")
            x = x[self._columns]
        xv = as_float_array(x, "x")
        if xv.ndim == 1:
            xv = xv[None, :] if xv.size == self._center.size else xv[:, None]
        if xv.ndim != 2 or xv.shape[1] != self._center.size:
            raise ValueError(f"x must have {self._center.size} covariate columns, got shape {xv.shape}")
        return (xv - self._center) / self._scale

    def care(self, x: Any = None, conf_level: float | None = None):
        """Conditional average response effect CARE(x) = mu1(x) - mu0(x).

        Additive model: the point estimate at each row of ``x`` (a Series for a DataFrame ``x``).
        Nonparametric model: CARE is not identified; returns a DataFrame with the identification
        interval [mu_T(x) - mu0(x), (mu_T(x) - mu0(x)) / pi*(x)] (ends swapped when the difference
        is negative; infinite when pi*(x) = 0), mu_T and mu0 the kernel-regression means of the
        treated and controls, and ``conf_level`` bootstrap intervals of both ends: each end over
        the corners of the percentile interval of mu_T - mu0 and the band interval of pi*(x).
        ``x=None`` in the covariate-free model gives the single value. ``conf_level`` (default
        0.95) applies to the nonparametric model's intervals only. When the additive fit found no
        evidence of response (pi(x) set to 0), mu1 and so CARE are not estimable: NaN with a warning.
        """
        if self.model == "additive" and conf_level is not None:
            raise ValueError("conf_level applies to the nonparametric model's CARE intervals; the "
                             "additive model gives a point estimate (leave conf_level unset)")
        Z = self._covariates(x)
        index = x.index if hasattr(x, "index") and hasattr(x, "columns") else None
        if self.model == "additive":
            if Z is None:
                Z = np.zeros((1, 0))
            val = self._fit.care(Z)
            if self._fit.em.null_chosen:
                warnings.warn("the fit found no evidence of response (pi(x) set to 0): CARE(x) is not "
                              "estimable and is returned as NaN", StatcoreWarning, stacklevel=2)
                val = np.full(np.shape(val), np.nan)
            if index is not None:
                import pandas as pd

                return pd.Series(val, index=index, name="care")
            return float(val[0]) if x is None else val
        level = 0.95 if conf_level is None else conf_level
        return self._care_interval(Z, index, check_probability(level, "conf_level", open_right=True))

    def _care_interval(self, Z, index, conf_level):
        import pandas as pd

        npf = self._fit.np_fit
        if Z is None or Z.shape[1] == 0:
            first = int(np.flatnonzero(self._treat)[0])
            m = 1 if Z is None else Z.shape[0]
            res = {k: np.repeat(getattr(npf, a)[[first]], m, axis=0)
                   for k, a in (("mu0", "mu0"), ("mut", "mu_t"), ("pi_star", "pi_star"),
                                ("pi_star_lo", "pi_star_lo"), ("pi_star_hi", "pi_star_hi"),
                                ("mu0_boot", "mu0_boot"), ("mut_boot", "mu_t_boot"))}
        else:
            res = npf.query(Z)
        diff = res["mut"] - res["mu0"]
        lo, hi = _care_ends(diff, res["pi_star"])
        a = (1.0 - conf_level) / 2.0
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            d_boot = res["mut_boot"] - res["mu0_boot"]
            d_ci = (np.nanquantile(d_boot, a, axis=1), np.nanquantile(d_boot, 1 - a, axis=1))
        # each end over the corners of (difference interval) x (pi* interval): a union, conservative
        corners = [_care_ends(d, p) for d in d_ci for p in (res["pi_star_lo"], res["pi_star_hi"])]
        lows = np.stack([c[0] for c in corners])
        highs = np.stack([c[1] for c in corners])
        return pd.DataFrame({"lower": lo, "upper": hi, "lower_ci_low": lows.min(0), "lower_ci_high": lows.max(0),
                             "upper_ci_low": highs.min(0), "upper_ci_high": highs.max(0),
                             "pi_star": res["pi_star"]}, index=index)

    def summary(self, digits: int = 4) -> str:
        title = ("Causal two-groups model, additive (semi-parametric)" if self.model == "additive"
                 else "Causal two-groups model, nonparametric (bounds)")
        ncov = 0 if self._center is None else self._center.size
        lines = ["", "\t" + title, "",
                 f"data:  y by treat ({'no covariates' if ncov == 0 else f'{ncov} covariates'})",
                 f"units: {self._treat.size} (treated {self.n_treated}, controls {self.n_controls})",
                 f"target FDR: {format_number(self.alpha)}, control: {self.control}",
                 f"responders selected: {self.n_selected} of {self.n_treated} treated"]
        if self.model == "additive":
            lines.append(f"ERPF (mean pi(x) over treated): {format_number(self.erpf, digits)}")
            g = self._fit.noise
            lines.append(f"noise density: {g.method}, kernel sd {format_number(g.sd, digits)}")
            em = self._fit.em
            lines.append(f"EM: {em.n_iter} iterations{'' if em.converged else ' (not converged)'}; "
                         f"held-out gain over no response: {format_number(em.evidence, 3)} s.e.")
            if em.null_chosen:
                lines.append("no evidence of response (gain within one s.e.): pi(x) set to 0")
        else:
            lo, hi = self.erpf_ci
            lines.append("ERPF identification interval: [" + format_number(self.erpf, digits) + ", 1]")
            lines.append("  lower end, 95% bootstrap interval: ["
                         + ", ".join(format_numbers([lo, hi], digits)) + "]")
        if self.n_selected:
            q = np.asarray(self.qvalues, dtype=float)[self.responders]
            lines.append(f"largest q-value selected: {format_number(float(q.max()), digits)}")
        lt = np.asarray(self.lfdr, dtype=float)[self._treat]
        stats = np.quantile(lt, [0, 0.25, 0.5]).tolist() + [float(lt.mean())] + np.quantile(lt, [0.75, 1]).tolist()
        names = ["Min.", "1st Qu.", "Median", "Mean", "3rd Qu.", "Max."]
        vals = format_numbers(stats, digits)
        width = [max(len(a), len(b)) for a, b in zip(names, vals)]
        lines.append("posterior null probability of the treated:")
        lines.append(" ".join(a.rjust(w) for a, w in zip(names, width)))
        lines.append(" ".join(b.rjust(w) for b, w in zip(vals, width)))
        return "\n".join(lines) + "\n"

    def to_frame(self):
        """One row per unit: y, treat, pi, lfdr, qvalue, selected (+ mu0, mu1 in the additive model)."""
        import pandas as pd

        idx = self._wrapper.index if self._wrapper.kind == "series" else None
        cols = {"y": self._y, "treat": self._treat.astype(int), "pi": np.asarray(self.pi, dtype=float),
                "lfdr": np.asarray(self.lfdr, dtype=float), "qvalue": np.asarray(self.qvalues, dtype=float),
                "selected": np.asarray(self.selected, dtype=bool)}
        if self.model == "additive":
            cols["mu0"] = self._fit.mu0
            cols["mu1"] = self._fit.mu1
        return pd.DataFrame(cols, index=idx)

    def _plot(self, ax=None):
        """Outcome against posterior null probability; controls grey, selected responders red."""
        import matplotlib.pyplot as plt

        if ax is None:
            fig, ax = plt.subplots(figsize=(6, 4))
        else:
            fig = ax.figure
        lt = self.lfdr_model
        t = self._treat
        sel = np.asarray(self.selected, dtype=bool)
        ax.scatter(lt[~t], self._y[~t], s=6, c="0.75", label="controls (model lfdr)")
        ax.scatter(lt[t & ~sel], self._y[t & ~sel], s=8, c="tab:blue", label="treated")
        ax.scatter(lt[sel], self._y[sel], s=10, c="tab:red", label=f"selected ({sel.sum()})")
        ax.set_xlabel("posterior null probability")
        ax.set_ylabel("outcome")
        ax.set_title(f"C2G ({self.model}), target FDR {format_number(self.alpha)}")
        ax.legend(loc="best", fontsize=8)
        return fig


def _care_ends(diff, pistar):
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = np.where(pistar > 0, diff / np.where(pistar > 0, pistar, 1.0), np.sign(diff) * np.inf)
    scaled = np.where(diff == 0, 0.0, scaled)
    return np.minimum(diff, scaled), np.maximum(diff, scaled)
