"""Ideological breadth and amplification of a narrow fine-tune: the share of held-out topics whose stance
shifted significantly in the trained direction (BH on one-sided p-values, next to the meta-analytic share
of true shifts above 0), and the fine-tuned shift over the few-shot shift with Fieller's interval.

An operationalisation written here (ours) of the breadth and amplification questions of the
ideological-generalisation paper, on statcore's public statistics (``p_adjust``, ``proportion_ci``,
``meta_analysis``, ``prop_effects_above``, ``ratio_ci``, ``coef_ratio_ci``)."""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .._checks import (as_topic_samples, as_topic_shifts, as_topic_std_errors, check_choice, check_flag,
                       check_one_sided, check_probability, public_function)
from .._result import Result

__all__ = ["shift_breadth", "ShiftBreadth", "amplification", "Amplification"]

TAU2_METHODS = ("REML", "ML", "DL", "PM", "HE", "SJ", "EB")


@dataclass(frozen=True, repr=False)
class ShiftBreadth(Result):
    """How broadly a fine-tune's stance shift reached the held-out topics (:func:`shift_breadth`).

    Attributes
    ----------
    estimate, conf_low, conf_high : float
        The headline share (``method``'s) and its interval.
    method : str
        "bh" or "meta": which share is the headline.
    bh_share, bh_conf_low, bh_conf_high : float
        The share of topics significant in the trained direction after BH, with its Wilson interval.
    n_significant, n_topics : int
    meta_share, meta_std_error, meta_conf_low, meta_conf_high : float
        The estimated share of true shifts above 0 (random-effects meta-analysis) and its delta-method
        interval; with tau^2 = 0 the share is 0 or 1 and the interval ends NaN (see ``note``).
    pooled_shift, pooled_std_error, tau2 : float
        The random-effects mean shift, its standard error and the between-topic variance.
    topics : tuple
        The topics' labels.
    shifts, std_error, statistic, p_values, p_adjusted, significant : numpy.ndarray
        Per topic: the shift (signed so that the trained direction is positive), its standard error,
        z = shift / se (or t), the one-sided p-value, the BH-adjusted p-value, the decision.
    alpha, conf_level : float
    alternative : str
        The trained direction ("greater" or "less").
    note : str
        Empty, or why the meta share has no interval.

    Examples
    --------
    >>> import statcore as sc
    >>> res = sc.shift_breadth([0.9, 0.5, 0.05, 0.7, -0.1, 0.3], [0.1] * 6)
    >>> res.n_significant, res.n_topics
    (4, 6)
    """

    estimate: float
    conf_low: float
    conf_high: float
    method: str
    bh_share: float
    bh_conf_low: float
    bh_conf_high: float
    n_significant: int
    n_topics: int
    meta_share: float
    meta_std_error: float
    meta_conf_low: float
    meta_conf_high: float
    pooled_shift: float
    pooled_std_error: float
    tau2: float
    topics: tuple
    shifts: np.ndarray
    std_error: np.ndarray
    statistic: np.ndarray
    p_values: np.ndarray
    p_adjusted: np.ndarray
    significant: np.ndarray
    alpha: float
    conf_level: float
    alternative: str
    note: str = ""

    def _repr_parts(self):
        return [("estimate", self.estimate), ("method", self.method), ("n_significant", self.n_significant),
                ("n_topics", self.n_topics), ("meta_share", self.meta_share)]

    def summary(self) -> str:
        pct = f"{100 * self.conf_level:g}%"
        lines = ["", "\tBreadth of a stance shift across held-out topics", "",
                 f"direction trained: {self.alternative}; topics: {self.n_topics}; BH at alpha = {self.alpha:g}",
                 f"BH share significant: {self.n_significant}/{self.n_topics} = {self.bh_share:.4f} "
                 f"({pct} Wilson CI {self.bh_conf_low:.4f} to {self.bh_conf_high:.4f})",
                 f"meta-analytic share of true shifts above 0: {self.meta_share:.4f} "
                 f"({pct} CI {self.meta_conf_low:.4f} to {self.meta_conf_high:.4f})",
                 f"pooled shift: {self.pooled_shift:.4g} (SE {self.pooled_std_error:.4g}); tau^2 = {self.tau2:.4g}"]
        if self.note:
            lines.append(f"note: {self.note}")
        lines += ["", self.to_frame().to_string(index=False)]
        return "\n".join(lines) + "\n"

    def to_frame(self):
        return pd.DataFrame({"topic": list(self.topics), "estimate": self.shifts, "std_error": self.std_error,
                             "statistic": self.statistic, "p_value": self.p_values, "p_adjusted": self.p_adjusted,
                             "significant": self.significant})

    def _plot(self, ax=None, **kwargs):
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 0.4 * self.n_topics + 1.2))
        y = np.arange(self.n_topics)[::-1]
        q = stats.norm.isf((1 - self.conf_level) / 2)
        colors = np.where(self.significant, "C3", "C0")
        ax.errorbar(self.shifts, y, xerr=q * self.std_error, fmt="none", ecolor="0.5")
        ax.scatter(self.shifts, y, c=list(colors), zorder=3)
        ax.axvline(0, color="k", lw=0.8)
        ax.set_yticks(y, [str(t) for t in self.topics])
        ax.set_xlabel("shift (trained direction positive)")
        ax.set_title(f"BH {self.n_significant}/{self.n_topics}; meta share {self.meta_share:.2f}")
        return ax


@public_function(data=("shifts", "se"), nan_policy=("raise", "omit"))
def shift_breadth(shifts, se, *, alpha=0.05, method="bh", alternative="greater", df=None, conf_level=0.95,
                  tau2_method="REML"):
    """The share of held-out topics whose stance shifted significantly in the trained direction, and
    the meta-analytic share of topics whose true shift is above 0.

    Each topic's shift (the mean stance change of its probes, fine-tuned minus base) gets the one-sided
    p-value of z = shift / se (of t on ``df`` degrees of freedom when given) in the trained direction;
    the p-values are adjusted by Benjamini-Hochberg (``statcore.p_adjust(method="BH")``) and the breadth
    is the share of topics with an adjusted p-value at most ``alpha``, with a Wilson interval
    (``statcore.proportion_ci``) for the share. Under the global null (no topic moved) every rejection is
    false, so the expected breadth is at most BH's FDR, hence at most ``alpha`` (topics independent or
    positively dependent, BH's condition). Next to it, a random-effects meta-analysis of the
    shifts (``statcore.meta_analysis``) estimates the share of topics whose true shift is above 0,
    1 - Phi(-mu / tau) (``statcore.prop_effects_above``, delta-method interval): the BH share counts the
    topics detected (it grows with the number of probes), the meta share estimates how many moved. With
    tau^2 = 0 every true shift equals mu and the meta share is 0 or 1 (the sign of mu) with NaN interval
    ends, said in ``note``.

    Parameters
    ----------
    shifts : array_like
        One shift per held-out topic (a Series' index names the topics).
    se : array_like or float
        Their standard errors (positive; a scalar applies to every topic).
    alpha : float
        The BH false discovery rate.
    method : {"bh", "meta"}
        Which share is the headline ``estimate`` (both are always reported).
    alternative : {"greater", "less"}
        The trained direction: the fine-tune pushed the stance up ("greater") or down.
    df : float or array_like, optional
        Degrees of freedom of each shift's t statistic (n - 1 for a mean of n paired probe differences);
        None: the normal distribution.
    conf_level : float
        The coverage of both intervals.
    tau2_method : str
        The tau^2 estimator of the meta-analysis (``meta_analysis``'s ``method``).
    nan_policy : {"raise", "omit"}
        A topic with a NaN shift or standard error raises, or is dropped.

    Returns
    -------
    ShiftBreadth
        ``estimate`` (the ``method``'s share), ``bh_share`` with its Wilson interval, ``meta_share`` with
        its interval, and per topic the shift, p-value, adjusted p-value and decision (``to_frame()``).

    References
    ----------
    Benjamini, Y. & Hochberg, Y. (1995). Controlling the false discovery rate. *JRSS B* 57, 289-300.
    Mathur, M. B. & VanderWeele, T. J. (2019). New metrics for meta-analyses of heterogeneous effects.
    *Statistics in Medicine* 38, 1336-1342. Wilson, E. B. (1927). *JASA* 22, 209-212.

    Examples
    --------
    >>> import statcore as sc
    >>> res = sc.shift_breadth([0.9, 0.5, 0.05, 0.7, -0.1, 0.3], [0.1] * 6)
    >>> round(res.bh_share, 4), round(res.bh_conf_low, 4), round(res.bh_conf_high, 4)
    (0.6667, 0.3, 0.9032)
    >>> round(res.meta_share, 3)
    0.856
    """
    from ..effects import proportion_ci
    from ..meta import meta_analysis, prop_effects_above
    from ..multitest import p_adjust

    y, topics = as_topic_shifts(shifts, "shifts")
    s = as_topic_std_errors(se, y.size, "se")
    alpha = check_probability(alpha, "alpha", open_left=True, open_right=True)
    method = check_choice(method, "method", ("bh", "meta"))
    alternative = check_one_sided(alternative, "alternative")
    conf_level = check_probability(conf_level, "conf_level", open_left=True, open_right=True)
    tau2_method = check_choice(tau2_method, "tau2_method", TAU2_METHODS)
    k = y.size
    if df is not None:
        from .._checks import as_float_array

        dfa = as_float_array(df, "df")
        dfa = np.broadcast_to(dfa, (k,)) if dfa.ndim == 0 else dfa
        if dfa.shape != (k,) or np.any(dfa <= 0):
            raise ValueError(f"df must be positive degrees of freedom, a scalar or one per topic ({k})")
    signed = y if alternative == "greater" else -y
    z = signed / s
    p = stats.norm.sf(z) if df is None else stats.t.sf(z, dfa)
    p_adj = np.asarray(p_adjust(p, method="BH"), dtype=float)
    sig = p_adj <= alpha
    n_sig = int(sig.sum())
    wil = proportion_ci(n_sig, k, method="wilson", conf_level=conf_level)
    # the meta-analysis on a common power-of-two scale (the share is scale-free; variances must not underflow)
    top = float(np.max(s))
    scale = 1.0 if 1e-100 < top < 1e100 else 2.0 ** math.floor(math.log2(top))
    ys, ss = signed / scale, s / scale
    if not np.all(np.isfinite(ss * ss)) or np.any(ss * ss == 0):
        raise ValueError("se spans too many orders of magnitude for the meta-analysis (a squared standard error "
                         "underflows); rescale the shifts and standard errors")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fit = meta_analysis(ys, ss * ss, method=tau2_method)
        except ValueError as exc:
            raise ValueError(f"shifts and se: the random-effects meta-analysis failed ({exc})") from None
    note = ""
    if fit.tau2 > 0 and math.isfinite(fit.tau2_std_error):
        pe = prop_effects_above(fit, 0.0, conf_level=conf_level)
        m_est, m_se, m_lo, m_hi = pe.estimate, pe.std_error, pe.conf_low, pe.conf_high
    else:
        m_est = float(fit.estimate > 0)
        m_se = m_lo = m_hi = math.nan
        note = ("tau^2 is estimated at 0: every true shift equals the pooled shift, so the meta share is "
                f"{m_est:g} (the sign of the pooled shift) with no sampling distribution; see the BH share")
    if method == "bh":
        est, lo, hi = n_sig / k, float(wil.conf_low), float(wil.conf_high)
    else:
        est, lo, hi = m_est, m_lo, m_hi
    return ShiftBreadth(estimate=float(est), conf_low=float(lo), conf_high=float(hi), method=method,
                        bh_share=n_sig / k, bh_conf_low=float(wil.conf_low), bh_conf_high=float(wil.conf_high),
                        n_significant=n_sig, n_topics=k, meta_share=float(m_est), meta_std_error=float(m_se),
                        meta_conf_low=float(m_lo), meta_conf_high=float(m_hi),
                        pooled_shift=float(fit.estimate) * scale, pooled_std_error=float(fit.std_error) * scale,
                        tau2=float(fit.tau2) * scale * scale, topics=topics, shifts=signed, std_error=s,
                        statistic=z, p_values=np.asarray(p, float), p_adjusted=p_adj, significant=sig,
                        alpha=alpha, conf_level=conf_level, alternative=alternative, note=note)


@dataclass(frozen=True, repr=False)
class Amplification(Result):
    """The fine-tuned shift over the few-shot shift, per topic and pooled (:func:`amplification`).

    Attributes
    ----------
    estimate, conf_low, conf_high : float
        The pooled ratio and its Fieller set (see ``kind``).
    kind : str
        The pooled Fieller set's shape: "bounded", "exclusive" (two rays ``(-inf, conf_low] U
        [conf_high, inf)``) or "unbounded" (the whole line).
    delta_conf_low, delta_conf_high : float
        The pooled delta-method interval (it under-covers when the few-shot shift is within a few
        standard errors of 0).
    std_error : float
        The pooled ratio's delta-method standard error.
    topics : tuple
    ratios, topic_conf_low, topic_conf_high, topic_delta_low, topic_delta_high, topic_std_error, g : numpy.ndarray
        Per topic: the ratio, its Fieller set's ends, its delta-method interval, its standard error and
        Fieller's g (the set is bounded when g < 1).
    topic_kind : tuple
        Per topic, the Fieller set's shape.
    ft_shift, fs_shift : numpy.ndarray
        Per topic, the mean fine-tuned and few-shot shifts.
    paired : bool
    conf_level : float

    Examples
    --------
    >>> import numpy as np
    >>> import statcore as sc
    >>> rng = np.random.default_rng(0)
    >>> fs = rng.normal(1.0, 1.0, size=(40, 3))
    >>> ft = 3 * fs + rng.normal(0, 0.5, size=(40, 3))
    >>> res = sc.amplification(ft, fs)
    >>> res.kind, bool(res.conf_low < 3 < res.conf_high)
    ('bounded', True)
    """

    estimate: float
    conf_low: float
    conf_high: float
    kind: str
    delta_conf_low: float
    delta_conf_high: float
    std_error: float
    topics: tuple
    ratios: np.ndarray
    topic_conf_low: np.ndarray
    topic_conf_high: np.ndarray
    topic_kind: tuple
    topic_delta_low: np.ndarray
    topic_delta_high: np.ndarray
    topic_std_error: np.ndarray
    g: np.ndarray
    ft_shift: np.ndarray
    fs_shift: np.ndarray
    paired: bool
    conf_level: float

    def _repr_parts(self):
        return [("estimate", self.estimate), ("conf_low", self.conf_low), ("conf_high", self.conf_high),
                ("kind", self.kind), ("topics", len(self.topics))]

    def summary(self) -> str:
        pct = f"{100 * self.conf_level:g}%"
        if self.kind == "bounded":
            fs = f"[{self.conf_low:.4g}, {self.conf_high:.4g}]"
        elif self.kind == "exclusive":
            fs = f"(-Inf, {self.conf_low:.4g}] U [{self.conf_high:.4g}, Inf) (the few-shot shift is not " \
                 "significantly different from 0)"
        else:
            fs = "the whole line (neither shift is significantly different from 0)"
        lines = ["", "\tAmplification: fine-tuned shift over few-shot shift", "",
                 f"{'paired' if self.paired else 'independent'} probes; {len(self.topics)} topic(s)",
                 f"pooled ratio: {self.estimate:.4g} (delta-method SE {self.std_error:.4g})",
                 f"{pct} Fieller set: {fs}",
                 f"{pct} delta-method interval: [{self.delta_conf_low:.4g}, {self.delta_conf_high:.4g}]",
                 "", self.to_frame().to_string(index=False)]
        return "\n".join(lines) + "\n"

    def to_frame(self):
        return pd.DataFrame({"topic": list(self.topics), "ft_shift": self.ft_shift, "fs_shift": self.fs_shift,
                             "estimate": self.ratios, "conf_low": self.topic_conf_low,
                             "conf_high": self.topic_conf_high, "kind": list(self.topic_kind),
                             "delta_conf_low": self.topic_delta_low, "delta_conf_high": self.topic_delta_high,
                             "std_error": self.topic_std_error, "g": self.g})


@public_function(data=("ft", "fs"), nan_policy=("raise",))
def amplification(ft, fs, *, paired=True, conf_level=0.95):
    """How many times the fine-tuned stance shift exceeds the few-shot one: the ratio of the mean shifts
    per topic and pooled over topics, with Fieller's confidence set and the delta-method interval.

    Per topic the ratio mean(ft) / mean(fs) of the probes' shifts gets :func:`statcore.ratio_ci`'s
    Fieller set (paired: the t test of ``ft - rho fs`` on n - 1 degrees of freedom, exact under
    normality; independent probes: Welch's) and its delta-method interval. Pooled over topics (each
    topic weighted equally), the ratio of the averages of the topic means gets
    :func:`statcore.coef_ratio_ci`'s Fieller set under the covariance of the two averages (normal
    quantile). When the few-shot shift is within a few standard errors of 0 the delta method
    under-covers and Fieller's set widens, or is unbounded (two rays or the whole line: ``kind``).

    Parameters
    ----------
    ft : array_like or dict
        The fine-tuned shifts of the probes (fine-tuned minus base stance): a 1-D sample (one topic), a
        probes x topics matrix (DataFrame columns name the topics) or a mapping topic -> sample.
    fs : array_like or dict
        The few-shot shifts (few-shot minus base stance), laid out as ``ft``.
    paired : bool
        The same probes under both conditions (default) or different probes.
    conf_level : float
        The coverage of the sets.
    nan_policy : {"raise"}
        Missing shifts are refused.

    Returns
    -------
    Amplification
        ``estimate``, ``conf_low``, ``conf_high``, ``kind`` (pooled Fieller), ``delta_conf_low``,
        ``delta_conf_high``, and per topic the same (``to_frame()``).

    References
    ----------
    Fieller, E. C. (1954). Some problems in interval estimation. *JRSS B* 16, 175-185.
    Franz, V. H. (2007). Ratios: a short guide to confidence limits and proper use. arXiv:0710.2024.

    Examples
    --------
    >>> import statcore as sc
    >>> ft = [2.1, 3.9, 6.2, 8.1, 5.0]
    >>> fs = [1.0, 2.0, 3.0, 4.0, 2.4]
    >>> res = sc.amplification(ft, fs)
    >>> round(res.estimate, 4), res.kind
    (2.0403, 'bounded')
    """
    from ..effects import coef_ratio_ci, ratio_ci

    paired = check_flag(paired, "paired")
    conf_level = check_probability(conf_level, "conf_level", open_left=True, open_right=True)
    topics, cf, cs = as_topic_samples(ft, fs, paired)
    per = {"r": [], "lo": [], "hi": [], "kind": [], "dlo": [], "dhi": [], "se": [], "g": []}
    # the pooled moments on a common power-of-two scale per condition (no overflow of a variance)
    sa = 2.0 ** math.floor(math.log2(max(float(np.max(np.abs(a))) for a in cf) or 1.0))
    sb = 2.0 ** math.floor(math.log2(max(float(np.max(np.abs(b))) for b in cs)))
    mf, ms, vff, vss, vfs = [], [], [], [], []
    for a, b in zip(cf, cs):
        fi = ratio_ci(a, b, paired=paired, method="fieller", conf_level=conf_level)
        de = ratio_ci(a, b, paired=paired, method="delta", conf_level=conf_level)
        for key, v in (("r", fi.estimate), ("lo", fi.conf_low), ("hi", fi.conf_high), ("kind", fi.kind),
                       ("dlo", de.conf_low), ("dhi", de.conf_high), ("se", fi.std_error), ("g", fi.g)):
            per[key].append(v)
        a_, b_ = a / sa, b / sb
        mf.append(a_.mean())
        ms.append(b_.mean())
        vff.append(a_.var(ddof=1) / a.size)
        vss.append(b_.var(ddof=1) / b.size)
        vfs.append(float(np.dot(a_ - a_.mean(), b_ - b_.mean())) / (a.size - 1) / a.size if paired else 0.0)
    T = len(topics)
    if T == 1:
        fi = ratio_ci(cf[0], cs[0], paired=paired, method="fieller", conf_level=conf_level)
        est, lo, hi, kind, se = fi.estimate, fi.conf_low, fi.conf_high, fi.kind, fi.std_error
        dlo, dhi = per["dlo"][0], per["dhi"][0]
    else:
        num, den = float(np.mean(mf)), float(np.mean(ms))
        V = np.array([[np.sum(vff), np.sum(vfs)], [np.sum(vfs), np.sum(vss)]]) / T ** 2
        if den == 0:
            raise ValueError("fs averages exactly 0 over the topics: the pooled ratio is undefined")
        pooled = coef_ratio_ci(np.array([num, den]), V, 0, 1, conf_level=conf_level)
        f = sa / sb
        est, lo, hi, kind, se = (pooled.estimate * f, pooled.conf_low * f, pooled.conf_high * f, pooled.kind,
                                 pooled.std_error * f)
        q = float(stats.norm.isf((1 - conf_level) / 2))
        dlo, dhi = est - q * se, est + q * se
    arr = {k: np.asarray(v, float) for k, v in per.items() if k != "kind"}
    return Amplification(estimate=float(est), conf_low=float(lo), conf_high=float(hi), kind=kind,
                         delta_conf_low=float(dlo), delta_conf_high=float(dhi), std_error=float(se),
                         topics=tuple(topics), ratios=arr["r"], topic_conf_low=arr["lo"], topic_conf_high=arr["hi"],
                         topic_kind=tuple(per["kind"]), topic_delta_low=arr["dlo"], topic_delta_high=arr["dhi"],
                         topic_std_error=arr["se"], g=arr["g"], ft_shift=np.asarray(mf, float) * sa,
                         fs_shift=np.asarray(ms, float) * sb, paired=paired, conf_level=conf_level)
