"""The proportion of true effects above a threshold in a random-effects meta-analysis (Mathur &
VanderWeele 2019), with a delta-method interval."""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import pandas as pd
from scipy import stats

from .._checks import check_choice, check_finite_real, check_in_interval, check_positive_int, public_function
from .._resampling import bootstrap
from .._result import Result
from ._rma import MetaAnalysis, meta_analysis

__all__ = ["prop_effects_above", "PropEffectsAbove"]


@dataclass(frozen=True, repr=False)
class PropEffectsAbove(Result):
    """The estimated share of true effects above ``q`` with its delta-method interval.

    Attributes
    ----------
    estimate, std_error, conf_low, conf_high : float
    q : float
        The threshold.
    conf_level : float
    method : str
        "delta" or "bca" (the bootstrap).

    Examples
    --------
    >>> from statcore import meta_analysis, prop_effects_above
    >>> fit = meta_analysis([0.10, 0.30, 0.35, 0.65, 0.45, 0.15], [0.03, 0.03, 0.05, 0.01, 0.05, 0.02])
    >>> prop_effects_above(fit, 0.0).estimate > 0.9
    True
    """

    estimate: float
    std_error: float
    conf_low: float
    conf_high: float
    q: float
    conf_level: float
    method: str = "delta"

    def summary(self) -> str:
        pct = f"{100 * self.conf_level:g}%"
        how = "delta method" if self.method == "delta" else "BCa bootstrap"
        return (f"Proportion of true effects above q = {self.q:g}: {self.estimate:.4f} "
                f"(SE = {self.std_error:.4f}; {pct} CI {self.conf_low:.4f} to {self.conf_high:.4f}, {how})")

    def to_frame(self):
        return pd.DataFrame({"estimate": [self.estimate], "std_error": [self.std_error], "conf_low": [self.conf_low],
                             "conf_high": [self.conf_high], "q": [self.q], "conf_level": [self.conf_level],
                             "method": [self.method]})


@public_function(data=("fit", "q"), nan_policy=None)
def prop_effects_above(fit, q=0.0, *, method="delta", conf_level=0.95, B=1000, seed=None):
    """The share of true effects above ``q`` under normally distributed true effects, with a delta-method
    or BCa bootstrap interval.

    P(theta > q) = 1 - Phi((q - mu) / tau) from a random-effects fit (Mathur & VanderWeele 2019), as
    ``MetaUtility::prop_stronger(q, M, t2, se.M, se.t2, tail = "above")`` computes its parametric
    estimate: the delta-method standard error
    ``phi(z) sqrt(se(mu)^2 / tau^2 + (q - mu)^2 se(tau^2)^2 / (4 tau^6))`` with z = (q - mu) / tau and
    metafor's standard error of tau^2, and a Wald interval clipped to [0, 1]. ``method="bca"`` is the
    authors' recommendation when the share is near 0 or 1 or k is small (MetaUtility's ``boot = "ifneeded"``
    bootstrap): the studies are resampled (``statcore.bootstrap``, paired, BCa), the meta-analysis refitted
    with the fit's method for each resample. The delta method is the default: it needs no refits and is
    what ``prop_stronger`` reports away from 0 and 1.

    Parameters
    ----------
    fit : MetaAnalysis
        A random-effects :func:`meta_analysis` fit with tau^2 > 0.
    q : float
        The threshold on the effect scale.
    method : {"delta", "bca"}
        The interval: delta method, or a BCa bootstrap over the studies.
    conf_level : float
        The coverage of the interval.
    B : int
        Bootstrap resamples (``method="bca"``).
    seed : None, int or numpy.random.Generator
        The bootstrap's seed.

    Returns
    -------
    PropEffectsAbove
        ``estimate``, ``std_error`` (the bootstrap's with "bca"), ``conf_low``, ``conf_high``.

    References
    ----------
    Mathur, M. B. & VanderWeele, T. J. (2019). New metrics for meta-analyses of heterogeneous
    effects. Statistics in Medicine 38, 1336-1342. R package MetaUtility, ``prop_stronger``.

    Examples
    --------
    >>> from statcore import meta_analysis, prop_effects_above
    >>> fit = meta_analysis([0.10, 0.30, 0.35, 0.65, 0.45, 0.15], [0.03, 0.03, 0.05, 0.01, 0.05, 0.02])
    >>> res = prop_effects_above(fit, 0.2)
    >>> round(res.estimate, 3)
    0.789
    """
    if not isinstance(fit, MetaAnalysis):
        raise TypeError(f"fit must be a meta_analysis() result, got {type(fit).__name__}")
    q = check_finite_real(q, "q")
    method = check_choice(method, "method", ("delta", "bca"))
    conf_level = check_in_interval(conf_level, "conf_level", 0.0, 1.0, closed="neither")
    B = check_positive_int(B, "B", minimum=2)
    if fit.method == "FE" or not fit.tau2 > 0:
        raise ValueError("fit has tau^2 = 0 (a fixed-effects model or no heterogeneity found): every true effect "
                         "equals mu, so the share above q is 0 or 1 with no sampling distribution; "
                         "refit with a random-effects method")
    if not math.isfinite(fit.tau2_std_error):
        raise ValueError("fit has no standard error of tau^2; refit with a random-effects method")
    t2, mu = fit.tau2, fit.estimate
    z = (q - mu) / math.sqrt(t2)
    est = float(stats.norm.sf(z))
    term = fit.std_error ** 2 / t2 + (q - mu) ** 2 * fit.tau2_std_error ** 2 / (4 * t2 ** 3)
    se = float(math.sqrt(term) * stats.norm.pdf(z))
    if method == "bca":
        def share(y, v):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                f = meta_analysis(y, v, method=fit.method)
            return float(stats.norm.sf((q - f.estimate) / math.sqrt(f.tau2))) if f.tau2 > 0 else float(f.estimate > q)

        boot = bootstrap((fit.y, fit.v), share, B=B, method="bca", conf_level=conf_level, paired=True,
                         vectorized=False, seed=seed)
        ci = boot.confidence_interval
        return PropEffectsAbove(est, float(boot.standard_error), float(ci.low), float(ci.high), q, conf_level, "bca")
    crit = float(stats.norm.isf((1 - conf_level) / 2))
    return PropEffectsAbove(est, se, max(0.0, est - crit * se), min(1.0, est + crit * se), q, conf_level)
