"""Agreement between two methods or several raters: Bland-Altman limits of agreement (approximate and
exact intervals, proportional bias), Lin's concordance correlation and the six intraclass correlations."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from .._checks import (as_ratings, as_sample_vector, check_choice, check_probability, pow2_scale, public_function)
from .._result import HTest, Result
from .._r.rformat import format_numbers

__all__ = ["BlandAltman", "bland_altman", "CCC", "ccc", "ICC", "icc"]


# ----------------------------------------------------------------------------------------------
# Bland-Altman
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False, repr=False)
class BlandAltman(Result):
    """Bland-Altman agreement of two methods (:func:`bland_altman`).

    Attributes
    ----------
    bias : float
        The mean difference a - b.
    std_dev : float
        The standard deviation of the differences.
    lower_loa, upper_loa : float
        The limits of agreement, bias -/+ z std_dev with z the normal quantile of ``agreement``.
    bias_conf : tuple
        The t interval of the bias.
    lower_loa_conf, upper_loa_conf : tuple
        Bland & Altman's (1999) approximate intervals of the limits.
    lower_loa_exact, upper_loa_exact : tuple
        The exact intervals (Carkeet 2015): noncentral-t quantiles (the two-sided tolerance factors).
    proportional_bias : HTest
        The t test of the slope of the regression of the differences on the means.
    slope, intercept : float
        That regression's coefficients.
    means, differences : numpy.ndarray
        (a + b) / 2 and a - b per pair.
    agreement, conf_level : float
    n : int

    Examples
    --------
    >>> import statcore as sc
    >>> res = sc.bland_altman([10.1, 12.3, 9.8, 11.0, 10.6], [10.0, 12.0, 10.1, 10.4, 10.2])
    >>> round(res.bias, 4)
    0.22
    """

    bias: float
    std_dev: float
    lower_loa: float
    upper_loa: float
    bias_conf: tuple
    lower_loa_conf: tuple
    upper_loa_conf: tuple
    lower_loa_exact: tuple
    upper_loa_exact: tuple
    proportional_bias: HTest
    slope: float
    intercept: float
    means: np.ndarray
    differences: np.ndarray
    agreement: float
    conf_level: float
    n: int

    def _repr_parts(self):
        return [("bias", self.bias), ("lower_loa", self.lower_loa), ("upper_loa", self.upper_loa), ("n", self.n)]

    def to_frame(self):
        import pandas as pd

        rows = {"bias": (self.bias, *self.bias_conf, *self.bias_conf),
                "lower_loa": (self.lower_loa, *self.lower_loa_conf, *self.lower_loa_exact),
                "upper_loa": (self.upper_loa, *self.upper_loa_conf, *self.upper_loa_exact)}
        frame = pd.DataFrame.from_dict(rows, orient="index",
                                       columns=["estimate", "conf_low", "conf_high", "exact_conf_low",
                                                "exact_conf_high"])
        frame.index.name = "quantity"
        return frame

    def summary(self) -> str:
        f = self.to_frame()
        body = f.to_string(float_format=lambda v: format_numbers([v], 7)[0].strip())
        return (f"\n\tBland-Altman limits of agreement ({100 * self.agreement:g}% of differences; "
                f"{100 * self.conf_level:g}% confidence intervals: approximate (Bland & Altman 1999) and exact "
                f"(Carkeet 2015))\n\n"
                f"n = {self.n}, sd of differences = {format_numbers([self.std_dev], 7)[0].strip()}\n{body}\n\n"
                f"proportional bias: difference = {format_numbers([self.intercept], 7)[0].strip()} + "
                f"{format_numbers([self.slope], 7)[0].strip()} * mean\n"
                + self.proportional_bias.summary())

    def _plot(self, ax=None):
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots()
        ax.scatter(self.means, self.differences, s=12, color="0.3")
        for v, conf, ls in ((self.bias, self.bias_conf, "-"), (self.lower_loa, self.lower_loa_exact, "--"),
                            (self.upper_loa, self.upper_loa_exact, "--")):
            ax.axhline(v, color="C3", ls=ls)
            ax.axhspan(conf[0], conf[1], color="C3", alpha=0.12)
        xs = np.array([self.means.min(), self.means.max()])
        ax.plot(xs, self.intercept + self.slope * xs, color="C0", lw=1)
        ax.set_xlabel("mean of the two methods")
        ax.set_ylabel("difference (a - b)")
        return ax


def _loa_exact_factors(n, z, conf_level):
    """Carkeet's exact interval of bias + z sd: bias + sd * q / sqrt(n), q the (1 -/+ conf)/2 quantiles of
    the noncentral t with n - 1 df and noncentrality z sqrt(n)."""
    a = (1 - conf_level) / 2
    nc = z * math.sqrt(n)
    lo, hi = stats.nct.ppf([a, 1 - a], n - 1, nc)
    return lo / math.sqrt(n), hi / math.sqrt(n)


@public_function(data=("a", "b"), nan_policy=("raise", "omit"))
def bland_altman(a, b, *, agreement=0.95, conf_level=0.95):
    """Bland-Altman analysis of agreement between two methods measuring the same subjects.

    The bias is the mean of the differences d = a - b, the limits of agreement bias -/+ z s with s the
    standard deviation of d and z = the normal quantile at (1 + agreement) / 2 (1.96 for 95%). Their
    confidence intervals are given two ways: approximately (Bland & Altman 1999), limit -/+ t s
    sqrt(1/n + z^2 / (2 (n - 1))), and exactly (Carkeet 2015), bias + s q / sqrt(n) with q the
    noncentral-t quantiles (n - 1 df, noncentrality z sqrt(n)): the two-sided tolerance factor.
    Proportional bias is tested by the least-squares regression of d on (a + b) / 2.

    Parameters
    ----------
    a, b : array_like
        The two methods' measurements of the same n subjects (paired).
    agreement : float
        The share of differences the limits should hold (0.95).
    conf_level : float
        The coverage of the intervals of the bias and the limits.
    nan_policy : {"raise", "omit"}
        Missing values: refuse, or drop the pairs holding one.

    Returns
    -------
    BlandAltman
        ``bias``, ``lower_loa``, ``upper_loa``, their intervals, the proportional-bias test;
        ``plot()`` draws the Bland-Altman plot.

    References
    ----------
    Bland, J. M. & Altman, D. G. (1999). Measuring agreement in method comparison studies. *Stat Methods
    Med Res* 8, 135-160. Carkeet, A. (2015). Exact parametric confidence intervals for Bland-Altman limits
    of agreement. *Optom Vis Sci* 92, e71-e80. R: ``BlandAltmanLeh::bland.altman.stats`` (approximate
    intervals), ``epiR::epi.ccc``'s ``sblalt``.

    Examples
    --------
    >>> import statcore as sc
    >>> a = [101, 98, 110, 95, 104, 99, 107, 102]
    >>> b = [99, 99, 106, 96, 101, 97, 104, 103]
    >>> res = sc.bland_altman(a, b)
    >>> round(res.bias, 3), round(res.lower_loa, 3), round(res.upper_loa, 3)
    (1.375, -2.674, 5.424)
    """
    agreement = check_probability(agreement, "agreement", open_left=True, open_right=True)
    conf_level = check_probability(conf_level, "conf_level", open_left=True, open_right=True)
    x = as_sample_vector(a, "a", min_n=3)
    y = as_sample_vector(b, "b", min_n=3)
    if x.size != y.size:
        raise ValueError(f"a and b must have the same length (paired measurements), got {x.size} and {y.size}")
    n = x.size
    s0 = float(max(pow2_scale(x, axis=None), pow2_scale(y, axis=None)))
    d = x / s0 - y / s0
    m = (x / s0 + y / s0) / 2
    bias = d.mean()
    sd = d.std(ddof=1)
    z = float(stats.norm.ppf((1 + agreement) / 2))
    t = float(stats.t.ppf((1 + conf_level) / 2, n - 1))
    se_bias = sd / math.sqrt(n)
    se_loa = sd * math.sqrt(1 / n + z * z / (2 * (n - 1)))
    lo, hi = bias - z * sd, bias + z * sd
    qlo, qhi = _loa_exact_factors(n, z, conf_level)
    mc = m - m.mean()
    sxx = float(mc @ mc)
    if sxx > 0:
        slope = float(mc @ (d - bias)) / sxx
        intercept = bias - slope * m.mean()
        resid = d - intercept - slope * m
        s2 = float(resid @ resid) / (n - 2)
        se_slope = math.sqrt(s2 / sxx)
        tstat = slope / se_slope if se_slope > 0 else (0.0 if slope == 0 else math.copysign(math.inf, slope))
        p = float(2 * stats.t.sf(abs(tstat), n - 2))
    else:
        slope, intercept, tstat, p = 0.0, bias, 0.0, 1.0
    test = HTest(statistic=float(tstat), statistic_name="t", parameter={"df": float(n - 2)}, p_value=p,
                 method="Proportional bias: t test of the slope of the differences on the means",
                 data_name="a - b on (a + b) / 2", estimate={"slope": slope}, null_value={"slope": 0.0})
    S = s0

    def f(v):
        return float(v) * S

    return BlandAltman(bias=f(bias), std_dev=f(sd), lower_loa=f(lo), upper_loa=f(hi),
                       bias_conf=(f(bias - t * se_bias), f(bias + t * se_bias)),
                       lower_loa_conf=(f(lo - t * se_loa), f(lo + t * se_loa)),
                       upper_loa_conf=(f(hi - t * se_loa), f(hi + t * se_loa)),
                       lower_loa_exact=(f(bias - sd * qhi), f(bias - sd * qlo)),
                       upper_loa_exact=(f(bias + sd * qlo), f(bias + sd * qhi)),
                       proportional_bias=test, slope=float(slope), intercept=f(intercept), means=m * S,
                       differences=d * S, agreement=agreement, conf_level=conf_level, n=int(n))


# ----------------------------------------------------------------------------------------------
# Lin's concordance correlation
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False, repr=False)
class CCC(Result):
    """Lin's concordance correlation coefficient (:func:`ccc`), as ``epiR::epi.ccc``.

    Attributes
    ----------
    estimate, conf_low, conf_high : float
        rho_c and its interval (``rho.c``).
    scale_shift : float
        sd(b) / sd(a) (``s.shift``).
    location_shift : float
        (mean(b) - mean(a)) / (var(a) var(b))^(1/4), variances with divisor n (``l.shift``).
    bias_correction : float
        rho_c / r, the accuracy factor C_b (``C.b``).
    pearson_r : float
    std_error : float
        The asymptotic standard error of rho_c (Lin 2000).
    ci : str
        "z-transform" or "asymptotic".
    conf_level : float
    n : int

    Examples
    --------
    >>> import statcore as sc
    >>> res = sc.ccc([1.0, 2.1, 2.9, 4.2, 5.1], [1.1, 1.9, 3.2, 3.9, 5.3])
    >>> round(res.estimate, 4)
    0.9875
    """

    estimate: float
    conf_low: float
    conf_high: float
    scale_shift: float
    location_shift: float
    bias_correction: float
    pearson_r: float
    std_error: float
    ci: str
    conf_level: float
    n: int

    def _repr_parts(self):
        return [("estimate", self.estimate), ("conf_low", self.conf_low), ("conf_high", self.conf_high), ("n", self.n)]

    def summary(self) -> str:
        est, lo, hi, s, l_, cb = format_numbers([self.estimate, self.conf_low, self.conf_high, self.scale_shift,
                                                 self.location_shift, self.bias_correction], 7)
        return (f"\n\tLin's concordance correlation coefficient ({self.ci} interval)\n\n"
                f"rho.c: {est.strip()}   n = {self.n}\n"
                f"{100 * self.conf_level:g} percent confidence interval:\n {lo.strip()} {hi.strip()}\n"
                f"scale shift: {s.strip()}   location shift: {l_.strip()}   bias correction C.b: {cb.strip()}\n")

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame({"estimate": [self.estimate], "conf_low": [self.conf_low], "conf_high": [self.conf_high],
                             "std_error": [self.std_error], "scale_shift": [self.scale_shift],
                             "location_shift": [self.location_shift], "bias_correction": [self.bias_correction],
                             "pearson_r": [self.pearson_r], "n": [self.n], "conf_level": [self.conf_level]})


@public_function(data=("a", "b"), nan_policy=("raise", "omit"))
def ccc(a, b, *, ci="z-transform", conf_level=0.95):
    """Lin's concordance correlation coefficient of two measurements of the same subjects, with its
    interval: ``epiR::epi.ccc(a, b, ci, conf.level)``.

    rho_c = 2 s_ab / (s_a^2 + s_b^2 + (mean(a) - mean(b))^2) with divisor-n moments. Its asymptotic
    standard error is Lin's (2000); the default interval is formed on Fisher's z = atanh(rho_c) scale
    (``ci="z-transform"``) and transformed back, or directly (``ci="asymptotic"``).

    Parameters
    ----------
    a, b : array_like
        Paired measurements (epiR's ``x`` and ``y``).
    ci : {"z-transform", "asymptotic"}
        The interval (epiR's ``ci``).
    conf_level : float
        The interval's coverage.
    nan_policy : {"raise", "omit"}
        Missing values: refuse, or drop the pairs holding one (epiR drops them).

    Returns
    -------
    CCC
        ``estimate``, ``conf_low``, ``conf_high``, ``scale_shift``, ``location_shift``,
        ``bias_correction``.

    References
    ----------
    Lin, L. I.-K. (1989). A concordance correlation coefficient to evaluate reproducibility. *Biometrics*
    45, 255-268; (2000) A note on the concordance correlation coefficient. *Biometrics* 56, 324-325.
    R: ``epiR::epi.ccc``.

    Examples
    --------
    >>> import statcore as sc
    >>> res = sc.ccc([1.0, 2.1, 2.9, 4.2, 5.1], [1.1, 1.9, 3.2, 3.9, 5.3])
    >>> round(res.conf_low, 4), round(res.conf_high, 4)
    (0.8867, 0.9987)
    """
    ci = check_choice(ci, "ci", ("z-transform", "asymptotic"))
    conf_level = check_probability(conf_level, "conf_level", open_left=True, open_right=True)
    x = as_sample_vector(a, "a", min_n=3)
    y = as_sample_vector(b, "b", min_n=3)
    if x.size != y.size:
        raise ValueError(f"a and b must have the same length (paired measurements), got {x.size} and {y.size}")
    # each sample brought to order 1 by its own power of two (exact); the moments are rewritten in the
    # scaled quantities so that no square overflows or underflows (one value 1e300, all values 1e-300)
    sa, sb = float(pow2_scale(x, axis=None)), float(pow2_scale(y, axis=None))
    x, y = x / sa, y / sb
    k = x.size
    xb, yb = x.mean(), y.mean()
    vx, vy = x.var(), y.var()
    if vx == 0 or vy == 0:
        raise ValueError(f"{'a' if vx == 0 else 'b'} is constant: the concordance correlation's interval needs "
                         "varying measurements")
    r = float(np.corrcoef(x, y)[0, 1])
    rab, rba = math.sqrt(sa / sb), math.sqrt(sb / sa)
    shift = rba * yb - rab * xb                 # (mean(b) - mean(a)) / sqrt(sa sb)
    p = 2 * r * math.sqrt(vx * vy) / ((sa / sb) * vx + (sb / sa) * vy + shift * shift)
    v = (sb / sa) * math.sqrt(vy / vx)
    u = shift / (vx * vy) ** 0.25
    zv = float(stats.norm.ppf(1 - (1 - conf_level) / 2))
    var = ((1 - r * r) * p * p * (1 - p * p) / (r * r) + 2 * p ** 3 * (1 - p) * u * u / r
           - 0.5 * p ** 4 * u ** 4 / (r * r)) / (k - 2)
    sep = math.sqrt(var) if var >= 0 else math.nan
    if ci == "asymptotic":
        lo, hi = p - zv * sep, p + zv * sep
    else:
        t = math.atanh(p) if abs(p) < 1 else math.copysign(math.inf, p)
        se_t = sep / (1 - p * p) if abs(p) < 1 else 0.0
        lo, hi = math.tanh(t - zv * se_t), math.tanh(t + zv * se_t)
    return CCC(estimate=float(p), conf_low=float(lo), conf_high=float(hi), scale_shift=float(v),
               location_shift=float(u), bias_correction=float(p / r), pearson_r=r, std_error=float(sep), ci=ci,
               conf_level=conf_level, n=int(k))


# ----------------------------------------------------------------------------------------------
# intraclass correlations
# ----------------------------------------------------------------------------------------------

ICC_KINDS = ("ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k")
_ICC_ROWS = ("Single_raters_absolute", "Single_random_raters", "Single_fixed_raters", "Average_raters_absolute",
             "Average_random_raters", "Average_fixed_raters")


@dataclass(frozen=True, eq=False, repr=False)
class ICC(Result):
    """Intraclass correlations of a subjects x raters table (:func:`icc`), as ``psych::ICC``.

    Attributes
    ----------
    kind : str
        The ICC reported in ``estimate`` ("ICC1", ..., "ICC3k").
    estimate, conf_low, conf_high : float
        That ICC and its interval.
    test : HTest
        Its F test (ICC = 0).
    table : pandas.DataFrame
        All six: ``kind``, ``estimate``, ``statistic`` (F), ``df1``, ``df2``, ``p_value``, ``conf_low``,
        ``conf_high``, indexed by psych's row names.
    mean_squares : dict
        ``msb`` (subjects), ``msw`` (within subjects), ``msj`` (raters), ``mse`` (residual).
    n_subjects, n_raters : int
    conf_level : float

    Examples
    --------
    >>> import statcore as sc
    >>> res = sc.icc([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]],
    ...              kind="ICC1")
    >>> round(res.estimate, 4)
    0.1657
    """

    kind: str
    estimate: float
    conf_low: float
    conf_high: float
    test: HTest
    table: Any
    mean_squares: dict
    n_subjects: int
    n_raters: int
    conf_level: float

    def _repr_parts(self):
        return [("kind", self.kind), ("estimate", self.estimate), ("conf_low", self.conf_low),
                ("conf_high", self.conf_high), ("n_subjects", self.n_subjects), ("n_raters", self.n_raters)]

    def summary(self) -> str:
        t = self.table.rename(columns={"kind": "type", "estimate": "ICC", "statistic": "F", "p_value": "p",
                                       "conf_low": "lower bound", "conf_high": "upper bound"})
        body = t.to_string(float_format=lambda v: format_numbers([v], 3)[0].strip())
        return (f"\nIntraclass correlation coefficients (psych::ICC layout; {100 * self.conf_level:g}% intervals)\n"
                f"{body}\n\n Number of subjects = {self.n_subjects}     Number of Judges = {self.n_raters}\n"
                f"\nSelected: {self.kind}\n" + self.test.summary())

    def to_frame(self):
        return self.table.copy()


def _icc_table(X, conf_level):
    n, k = X.shape
    grand = X.mean()
    rows, cols = X.mean(axis=1), X.mean(axis=0)
    ss_b = k * float(((rows - grand) ** 2).sum())
    ss_j = n * float(((cols - grand) ** 2).sum())
    ss_t = float(((X - grand) ** 2).sum())
    ss_e = max(ss_t - ss_b - ss_j, 0.0)
    msb, msj = ss_b / (n - 1), ss_j / (k - 1)
    mse = ss_e / ((n - 1) * (k - 1))
    msw = (ss_j + ss_e) / (n * (k - 1))
    alpha = 1 - conf_level
    with np.errstate(divide="ignore", invalid="ignore"):
        icc1 = (msb - msw) / (msb + (k - 1) * msw)
        icc2 = (msb - mse) / (msb + (k - 1) * mse + k * (msj - mse) / n)
        icc3 = (msb - mse) / (msb + (k - 1) * mse)
        icc1k = (msb - msw) / msb
        icc2k = (msb - mse) / (msb + (msj - mse) / n)
        icc3k = (msb - mse) / msb
        f1, f2 = msb / msw, msb / mse
    d1n, d1d = n - 1, n * (k - 1)
    d2n, d2d = n - 1, (n - 1) * (k - 1)
    p1 = float(stats.f.sf(f1, d1n, d1d))
    p2 = float(stats.f.sf(f2, d2n, d2d))
    with np.errstate(divide="ignore", invalid="ignore"):
        f1l = f1 / stats.f.ppf(1 - alpha / 2, d1n, d1d)
        f1u = f1 * stats.f.ppf(1 - alpha / 2, d1d, d1n)
        f3l = f2 / stats.f.ppf(1 - alpha / 2, d2n, d2d)
        f3u = f2 * stats.f.ppf(1 - alpha / 2, d2d, d2n)
        fj = msj / mse
        vn = (k - 1) * (n - 1) * (k * icc2 * fj + n * (1 + (k - 1) * icc2) - k * icc2) ** 2
        vd = (n - 1) * k * k * icc2 * icc2 * fj * fj + (n * (1 + (k - 1) * icc2) - k * icc2) ** 2
        v = vn / vd
        fu = stats.f.ppf(1 - alpha / 2, n - 1, v)
        fl = stats.f.ppf(1 - alpha / 2, v, n - 1)
        l2 = n * (msb - fu * mse) / (fu * (k * msj + (k * n - k - n) * mse) + n * msb)
        u2 = n * (fl * msb - mse) / (k * msj + (k * n - k - n) * mse + n * fl * msb)
    est = [icc1, icc2, icc3, icc1k, icc2k, icc3k]
    F = [f1, f2, f2, f1, f2, f2]
    df1 = [d1n, d2n, d2n, d1n, d2n, d2n]
    df2 = [d1d, d2d, d2d, d1d, d2d, d2d]
    pv = [p1, p2, p2, p1, p2, p2]
    low = [(f1l - 1) / (f1l + k - 1), l2, (f3l - 1) / (f3l + k - 1), 1 - 1 / f1l, l2 * k / (1 + l2 * (k - 1)),
           1 - 1 / f3l]
    high = [(f1u - 1) / (f1u + k - 1), u2, (f3u - 1) / (f3u + k - 1), 1 - 1 / f1u, u2 * k / (1 + u2 * (k - 1)),
            1 - 1 / f3u]
    import pandas as pd

    table = pd.DataFrame({"kind": list(ICC_KINDS), "estimate": np.array(est, float), "statistic": np.array(F, float),
                          "df1": np.array(df1, float), "df2": np.array(df2, float), "p_value": np.array(pv, float),
                          "conf_low": np.array(low, float), "conf_high": np.array(high, float)},
                         index=pd.Index(_ICC_ROWS))
    return table, {"msb": msb, "msw": msw, "msj": msj, "mse": mse}


@public_function(data=("ratings",), nan_policy=("raise", "omit"))
def icc(ratings, *, kind="ICC2", conf_level=0.95):
    """Intraclass correlations of a subjects x raters table, the six of Shrout & Fleiss (1979) with their
    F tests and intervals: ``psych::ICC(ratings, lmer = FALSE, alpha = 1 - conf_level)``.

    From the two-way ANOVA mean squares (subjects MSB, raters MSJ, residual MSE, within subjects MSW):
    ICC1 (one-way random, single rater), ICC2 (two-way random, absolute agreement), ICC3 (two-way
    mixed, consistency) and their averages over the k raters ICC1k, ICC2k, ICC3k; the F tests and
    intervals are psych's (McGraw & Wong 1996; ICC2's interval with Satterthwaite's degrees of freedom).
    ``kind`` picks the one reported in ``estimate`` and ``test``; ``table`` holds all six.

    Parameters
    ----------
    ratings : array_like
        An n x k matrix or DataFrame: n subjects (rows) rated by the same k raters (columns).
    kind : {"ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k"}
        The ICC reported.
    conf_level : float
        The intervals' coverage (psych's ``alpha = 1 - conf_level``).
    nan_policy : {"raise", "omit"}
        A missing cell: refused (psych's ``missing = TRUE`` stops too), or its subject dropped.

    Returns
    -------
    ICC
        ``estimate``, ``conf_low``, ``conf_high``, the F ``test``, the ``table`` of all six.

    References
    ----------
    Shrout, P. E. & Fleiss, J. L. (1979). Intraclass correlations: uses in assessing rater reliability.
    *Psychological Bulletin* 86, 420-428. McGraw, K. O. & Wong, S. P. (1996). Forming inferences about
    some intraclass correlation coefficients. *Psychological Methods* 1, 30-46. R: ``psych::ICC``
    (``lmer = FALSE``: the ANOVA mean squares; its default ``lmer = TRUE`` estimates them by REML,
    equal for complete data up to the optimiser's tolerance except MSW).

    Examples
    --------
    >>> import statcore as sc
    >>> sf = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
    >>> res = sc.icc(sf, kind="ICC3")
    >>> round(res.estimate, 4), round(res.conf_low, 4), round(res.conf_high, 4)
    (0.7148, 0.3425, 0.9459)
    """
    kind = check_choice(kind, "kind", ICC_KINDS)
    conf_level = check_probability(conf_level, "conf_level", open_left=True, open_right=True)
    X = as_ratings(ratings, "ratings")
    if X.shape[0] < 3:
        raise ValueError(f"ratings must have at least 3 subjects (rows) for the F intervals, got {X.shape[0]}")
    scale = float(pow2_scale(X, axis=None, center=float(np.median(X))))
    X = X / scale
    if np.ptp(X, axis=1).max() == 0 and np.ptp(X.mean(axis=1)) == 0:
        raise ValueError("ratings are all equal: the intraclass correlations are 0/0")
    table, ms = _icc_table(X, conf_level)
    ms = {key: val * scale * scale for key, val in ms.items()}
    row = table.iloc[ICC_KINDS.index(kind)]
    test = HTest(statistic=float(row["statistic"]), statistic_name="F",
                 parameter={"df1": float(row["df1"]), "df2": float(row["df2"])}, p_value=float(row["p_value"]),
                 method=f"F test of {kind} = 0 (Shrout & Fleiss 1979)", data_name="ratings",
                 estimate={kind: float(row["estimate"])}, null_value={kind: 0.0}, alternative="greater",
                 conf_int=(float(row["conf_low"]), float(row["conf_high"])), conf_level=conf_level)
    return ICC(kind=kind, estimate=float(row["estimate"]), conf_low=float(row["conf_low"]),
               conf_high=float(row["conf_high"]), test=test, table=table, mean_squares=ms,
               n_subjects=int(X.shape[0]), n_raters=int(X.shape[1]), conf_level=conf_level)
