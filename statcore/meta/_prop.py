"""The proportion of true effects above a threshold in a random-effects meta-analysis (Mathur &
VanderWeele 2019), with a delta-method interval."""
from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd
from scipy import stats

from .._checks import check_finite_real, check_in_interval, public_function
from .._result import Result
from ._rma import MetaAnalysis

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

    def summary(self) -> str:
        pct = f"{100 * self.conf_level:g}%"
        return (f"Proportion of true effects above q = {self.q:g}: {self.estimate:.4f} "
                f"(SE = {self.std_error:.4f}; {pct} CI {self.conf_low:.4f} to {self.conf_high:.4f}, delta method)")

    def to_frame(self):
        return pd.DataFrame({"estimate": [self.estimate], "std_error": [self.std_error], "conf_low": [self.conf_low],
                             "conf_high": [self.conf_high], "q": [self.q], "conf_level": [self.conf_level]})


@public_function(data=("fit", "q"), nan_policy=None)
def prop_effects_above(fit, q=0.0, *, conf_level=0.95):
    """The share of true effects above ``q`` under normally distributed true effects, with a delta-method CI.

    P(theta > q) = 1 - Phi((q - mu) / tau) from a random-effects fit (Mathur & VanderWeele 2019), as
    ``MetaUtility::prop_stronger(q, M, t2, se.M, se.t2, tail = "above")`` computes its parametric
    estimate: the delta-method standard error
    ``phi(z) sqrt(se(mu)^2 / tau^2 + (q - mu)^2 se(tau^2)^2 / (4 tau^6))`` with z = (q - mu) / tau and
    metafor's standard error of tau^2, and a Wald interval clipped to [0, 1]. The delta method is the
    documented choice: it is what the paper's parametric method reports and needs only the fit; the
    authors' bias-corrected bootstrap (better when the share is near 0 or 1, or k is small) needs the
    study-level data and a refit per resample and is not offered here.

    Parameters
    ----------
    fit : MetaAnalysis
        A random-effects :func:`meta_analysis` fit with tau^2 > 0.
    q : float
        The threshold on the effect scale.
    conf_level : float
        The coverage of the interval.

    Returns
    -------
    PropEffectsAbove
        ``estimate``, ``std_error``, ``conf_low``, ``conf_high``.

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
    conf_level = check_in_interval(conf_level, "conf_level", 0.0, 1.0, closed="neither")
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
    crit = float(stats.norm.isf((1 - conf_level) / 2))
    return PropEffectsAbove(est, se, max(0.0, est - crit * se), min(1.0, est + crit * se), q, conf_level)
