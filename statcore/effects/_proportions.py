"""Proportions: intervals for one proportion (vectorised), McNemar's test of paired proportions and
intervals for their difference."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special, stats

from .._checks import (as_counts, as_paired_table, check_choice, check_flag, check_probability, public_function)
from .._result import HTest, Result
from .._r.rformat import format_numbers

__all__ = ["ProportionCI", "PairedPropCI", "proportion_ci", "paired_prop_ci", "mcnemar_test"]

PROPORTION_METHODS = ("wilson", "clopper-pearson", "agresti-coull", "jeffreys")


@dataclass(frozen=True, eq=False, repr=False)
class ProportionCI(Result):
    """Confidence intervals for binomial proportions x / n (:func:`proportion_ci`), one per input.

    Attributes
    ----------
    estimate, conf_low, conf_high : float or numpy.ndarray
        x / n and the ends of its interval (arrays with the broadcast shape of ``x`` and ``n``).
    x, n : int or numpy.ndarray
        The counts.
    method : str
    conf_level : float

    Examples
    --------
    >>> import statcore as sc
    >>> res = sc.proportion_ci(7, 20)
    >>> round(res.conf_low, 4), round(res.conf_high, 4)
    (0.1812, 0.5671)
    """

    estimate: Any
    conf_low: Any
    conf_high: Any
    x: Any
    n: Any
    method: str
    conf_level: float

    def _repr_parts(self):
        return [("estimate", self.estimate), ("conf_low", self.conf_low), ("conf_high", self.conf_high),
                ("method", self.method)]

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame({"x": np.ravel(self.x), "n": np.ravel(self.n), "estimate": np.ravel(self.estimate),
                             "conf_low": np.ravel(self.conf_low), "conf_high": np.ravel(self.conf_high),
                             "method": self.method, "conf_level": self.conf_level})

    def summary(self) -> str:
        level = f"{100 * self.conf_level:g}"
        frame = self.to_frame()
        plural = "s" if len(frame) > 1 else ""
        head = f"\n\t{level} percent confidence interval{plural} for a proportion ({self.method})\n\n"
        return head + frame[["x", "n", "estimate", "conf_low", "conf_high"]].to_string(index=False) + "\n"


def _as_xn(x, n):
    xs = as_counts(x, "x")
    ns = as_counts(n, "n", minimum=1)
    try:
        xb, nb = np.broadcast_arrays(xs, ns)
    except ValueError:
        raise ValueError(f"x and n must have broadcastable shapes, got {xs.shape} and {ns.shape}") from None
    if np.any(xb > nb):
        k = int(np.flatnonzero((xb > nb).ravel())[0])
        raise ValueError(f"x must not exceed n: x = {xb.ravel()[k]} > n = {nb.ravel()[k]} (entry {k})")
    return np.array(xb), np.array(nb), np.ndim(x) == 0 and np.ndim(n) == 0


def _proportion_interval(x, n, method, conf_level):
    """(low, high) of the named interval, vectorised over arrays x, n (float)."""
    alpha = 1 - conf_level
    z = stats.norm.ppf(1 - alpha / 2)
    p = x / n
    if method == "wilson":
        # prop.test(correct = FALSE)'s score interval
        z22n = z * z / (2 * n)
        centre = p + z22n
        width = z * np.sqrt(p * (1 - p) / n + z22n / (2 * n))
        den = 1 + 2 * z22n
        return np.maximum(0.0, (centre - width) / den), np.minimum(1.0, (centre + width) / den)
    if method == "clopper-pearson":
        # binom.test's interval: beta quantiles, 0 and 1 at the edges
        with np.errstate(invalid="ignore"):
            lo = np.where(x == 0, 0.0, special.betaincinv(np.maximum(x, 1), n - x + 1, alpha / 2))
            hi = np.where(x == n, 1.0, special.betaincinv(x + 1, np.maximum(n - x, 1), 1 - alpha / 2))
        return lo, hi
    if method == "agresti-coull":
        nt = n + z * z
        pt = (x + z * z / 2) / nt
        d = z * np.sqrt(pt * (1 - pt) / nt)
        return np.clip(pt - d, 0.0, 1.0), np.clip(pt + d, 0.0, 1.0)
    # Jeffreys: the equal-tailed interval of the Beta(x + 1/2, n - x + 1/2) posterior (statsmodels' form)
    return (special.betaincinv(x + 0.5, n - x + 0.5, alpha / 2),
            special.betaincinv(x + 0.5, n - x + 0.5, 1 - alpha / 2))


@public_function(data=("x", "n"), nan_policy=("raise",))
def proportion_ci(x, n, *, method="wilson", conf_level=0.95):
    """Confidence intervals for binomial proportions x / n, vectorised over ``x`` and ``n``.

    ``"wilson"`` is the score interval of R's ``prop.test(x, n, correct = FALSE)``; ``"clopper-pearson"``
    the exact interval of R's ``binom.test(x, n)``; ``"agresti-coull"`` and ``"jeffreys"`` those of
    statsmodels' ``proportion_confint`` (the Agresti-Coull interval clipped to [0, 1]; Jeffreys the
    equal-tailed Beta(x + 1/2, n - x + 1/2) interval). All four agree with
    ``statsmodels.stats.proportion.proportion_confint`` (methods "wilson", "beta", "agresti_coull",
    "jeffreys").

    Parameters
    ----------
    x : int or array_like of int
        Successes (0 <= x <= n).
    n : int or array_like of int
        Trials (n >= 1), broadcast against ``x``.
    method : {"wilson", "clopper-pearson", "agresti-coull", "jeffreys"}
        The interval.
    conf_level : float
        The coverage.
    nan_policy : {"raise"}
        Missing counts are refused.

    Returns
    -------
    ProportionCI
        ``estimate`` = x / n, ``conf_low``, ``conf_high`` (floats for scalar input, arrays otherwise).

    References
    ----------
    Wilson, E. B. (1927). Probable inference, the law of succession, and statistical inference. *JASA* 22.
    Clopper, C. J. & Pearson, E. S. (1934). *Biometrika* 26, 404-413.
    Agresti, A. & Coull, B. A. (1998). Approximate is better than "exact". *Am Stat* 52, 119-126.
    Brown, L. D., Cai, T. T. & DasGupta, A. (2001). Interval estimation for a binomial proportion.
    *Stat Sci* 16, 101-133. R: ``prop.test``, ``binom.test``.

    Examples
    --------
    >>> import statcore as sc
    >>> res = sc.proportion_ci([0, 3, 10], 10, method="clopper-pearson")
    >>> res.conf_low.round(4).tolist(), res.conf_high.round(4).tolist()
    ([0.0, 0.0667, 0.6915], [0.3085, 0.6525, 1.0])
    """
    method = check_choice(method, "method", PROPORTION_METHODS)
    conf_level = check_probability(conf_level, "conf_level", open_left=True, open_right=True)
    xb, nb, scalar = _as_xn(x, n)
    xf, nf = xb.astype(float), nb.astype(float)
    lo, hi = _proportion_interval(xf, nf, method, conf_level)
    est = xf / nf
    if scalar:
        return ProportionCI(float(est), float(lo), float(hi), int(xb), int(nb), method, conf_level)
    return ProportionCI(est, np.asarray(lo, float), np.asarray(hi, float), xb, nb, method, conf_level)


# ----------------------------------------------------------------------------------------------
# paired proportions
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False, repr=False)
class PairedPropCI(Result):
    """A confidence interval for the difference of two paired proportions (:func:`paired_prop_ci`).

    Attributes
    ----------
    estimate : float
        p1 - p2 = (n12 - n21) / n: the share of "yes" under the first condition (the table's first row
        margin) minus that under the second (first column margin).
    conf_low, conf_high : float
    table : numpy.ndarray
        The 2x2 table (rows: first condition yes/no as 1/0 ordered (0, 1) for vectors).
    method : str
    conf_level : float

    Examples
    --------
    >>> import statcore as sc
    >>> res = sc.paired_prop_ci([[794, 150], [86, 570]])
    >>> round(res.estimate, 4)
    0.04
    """

    estimate: float
    conf_low: float
    conf_high: float
    table: np.ndarray
    method: str
    conf_level: float

    def _repr_parts(self):
        return [("estimate", self.estimate), ("conf_low", self.conf_low), ("conf_high", self.conf_high),
                ("method", self.method)]

    def summary(self) -> str:
        est, lo, hi = format_numbers([self.estimate, self.conf_low, self.conf_high], 7)
        name = {"newcombe": "Newcombe's hybrid score interval (method 10)", "agresti-min": "Agresti-Min interval"}
        return (f"\n\tDifference of paired proportions: {name[self.method]}\n\n"
                f"difference p1 - p2: {est.strip()}\n"
                f"{100 * self.conf_level:g} percent confidence interval:\n {lo.strip()} {hi.strip()}\n")

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame({"estimate": [self.estimate], "conf_low": [self.conf_low], "conf_high": [self.conf_high],
                             "n": [int(self.table.sum())], "method": [self.method], "conf_level": [self.conf_level]})


def _paired_table(x, y):
    return as_paired_table(x, y)


@public_function(data=("x", "y"), nan_policy=("raise", "omit"))
def paired_prop_ci(x, y=None, *, method="newcombe", conf_level=0.95):
    """A confidence interval for the difference p1 - p2 of two paired proportions.

    With the 2x2 table [[a, b], [c, d]] of n pairs (rows: first outcome 1 / 0 for the table given, or
    levels (0, 1) of vectors: see below), p1 - p2 is the difference of the two "success" margins,
    (b - c) / n for a table with the successes first. ``"newcombe"`` is Newcombe's (1998) method 10:
    Wilson score intervals for the two margins combined ("square and add") with the correlation phi
    of the pairs, phi's numerator ad - bc shrunk towards 0 by n / 2 when positive (Newcombe's phi*);
    ``"agresti-min"`` the Wald interval after adding 1/2 to each cell (Agresti & Min 2005), clipped to
    [-1, 1].

    For two binary vectors (0/1, booleans, or two labels: the later in sorted order is the "success"),
    p1 is the share of successes in ``x`` and p2 in ``y``. A table given as counts is read with its
    first row and column the successes, as in R's ``mcnemar.test`` layout of Newcombe's Table II.

    Parameters
    ----------
    x : array_like
        A 2x2 table of counts, or the first binary vector of the pairs.
    y : array_like, optional
        The second binary vector (with ``x`` a vector).
    method : {"newcombe", "agresti-min"}
        The interval.
    conf_level : float
        The coverage.
    nan_policy : {"raise", "omit"}
        Missing outcomes: refuse, or drop the pairs holding one.

    Returns
    -------
    PairedPropCI
        ``estimate``, ``conf_low``, ``conf_high``, the ``table``.

    References
    ----------
    Newcombe, R. G. (1998). Improved confidence intervals for the difference between binomial
    proportions based on paired data. *Statistics in Medicine* 17, 2635-2650 (method 10).
    Agresti, A. & Min, Y. (2005). Simple improved confidence intervals for comparing matched
    proportions. *Statistics in Medicine* 24, 729-740 (R: ``PropCIs::diffpropci.mp``).

    Examples
    --------
    >>> import statcore as sc
    >>> res = sc.paired_prop_ci([[794, 150], [86, 570]])
    >>> round(res.conf_low, 4), round(res.conf_high, 4)
    (0.0212, 0.0587)
    """
    method = check_choice(method, "method", ("newcombe", "agresti-min"))
    conf_level = check_probability(conf_level, "conf_level", open_left=True, open_right=True)
    tab, _ = _paired_table(x, y)
    if y is not None:
        tab = tab[::-1, ::-1]  # successes (level 1) first, as a table given by hand
    a, b, c, d = (float(v) for v in tab.ravel())
    n = a + b + c + d
    if n == 0:
        raise ValueError("x holds no pairs: the table's counts sum to 0")
    z = float(stats.norm.ppf(1 - (1 - conf_level) / 2))
    est = (b - c) / n
    if method == "agresti-min":
        nn = n + 2
        diff = (b - c) / nn
        sd = np.sqrt(max((b + c + 1) - (b - c) ** 2 / nn, 0.0)) / nn
        lo, hi = max(diff - z * sd, -1.0), min(diff + z * sd, 1.0)
        return PairedPropCI(est, float(lo), float(hi), tab, method, conf_level)
    p1, p2 = (a + b) / n, (a + c) / n
    (l1, l2), (u1, u2) = _proportion_interval(np.array([a + b, a + c]), np.array([n, n]), "wilson", conf_level)
    den = (a + b) * (c + d) * (a + c) * (b + d)
    # Newcombe's phi with its correction towards 0: ad - bc beyond n / 2 is reduced by n / 2, a positive
    # ad - bc within n / 2 counts as 0, a negative one is kept (0 when a margin is empty)
    ad_bc = a * d - b * c
    shrunk = ad_bc - n / 2 if ad_bc > n / 2 else (0.0 if ad_bc >= 0 else ad_bc)
    phi = shrunk / np.sqrt(den) if den > 0 else 0.0
    dl = np.sqrt(max((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2, 0.0))
    du = np.sqrt(max((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2, 0.0))
    return PairedPropCI(est, float(max(est - dl, -1.0)), float(min(est + du, 1.0)), tab, method, conf_level)


@public_function(data=("x", "y"), nan_policy=("raise", "omit"))
def mcnemar_test(x, y=None, *, correct=True, exact=False):
    """McNemar's test of symmetry of a 2x2 table of paired binary outcomes: R's ``mcnemar.test``.

    The chi-squared statistic is (abs(n12 - n21) - 1)^2 / (n12 + n21) with the continuity correction
    (applied, as in R, only when the table is not symmetric) and (n12 - n21)^2 / (n12 + n21) without,
    on 1 degree of freedom. With ``exact`` the test is the binomial test of n12 successes in n12 + n21
    trials at 1/2 (R's ``binom.test(n12, n12 + n21)``), with the Clopper-Pearson interval of the
    discordant proportion n12 / (n12 + n21).

    Parameters
    ----------
    x : array_like
        A 2x2 table of counts, or the first of two paired binary vectors (0/1, booleans or two labels,
        tabulated with the levels sorted, as R's ``table`` of two factors).
    y : array_like, optional
        The second paired binary vector.
    correct : bool
        The continuity correction (chi-squared test).
    exact : bool
        The exact binomial test on the discordant pairs instead of the chi-squared test.
    nan_policy : {"raise", "omit"}
        Missing outcomes: refuse, or drop the pairs holding one.

    Returns
    -------
    HTest
        Printed as R's ``mcnemar.test`` (``statistic`` "McNemar's chi-squared", ``parameter`` df); the
        exact test as ``binom.test`` (``statistic`` n12, ``parameter`` n12 + n21, ``estimate`` the
        discordant proportion, ``conf_int`` its Clopper-Pearson interval at 95%).

    References
    ----------
    McNemar, Q. (1947). Note on the sampling error of the difference between correlated proportions or
    percentages. *Psychometrika* 12, 153-157. R: ``stats::mcnemar.test``, ``stats::binom.test``.

    Examples
    --------
    >>> import statcore as sc
    >>> res = sc.mcnemar_test([[794, 86], [150, 570]])
    >>> res.method
    "McNemar's Chi-squared test with continuity correction"
    >>> round(res.statistic, 4), float(f"{res.p_value:.4g}")
    (16.8178, 4.115e-05)
    """
    correct = check_flag(correct, "correct")
    exact = check_flag(exact, "exact")
    tab, dname = _paired_table(x, y)
    n12, n21 = int(tab[0, 1]), int(tab[1, 0])
    m = n12 + n21
    if exact:
        if m == 0:
            raise ValueError("x has no discordant pairs (n12 + n21 = 0): the exact McNemar test is undefined")
        p_value = float(stats.binomtest(n12, m, 0.5).pvalue)
        ci = _proportion_interval(np.array([float(n12)]), np.array([float(m)]), "clopper-pearson", 0.95)
        return HTest(statistic=float(n12), statistic_name="number of successes",
                     parameter={"number of trials": float(m)}, p_value=p_value,
                     method="Exact McNemar test (binomial test on the discordant pairs)", data_name=dname,
                     estimate={"proportion of n12 among discordant pairs": n12 / m},
                     null_value={"proportion of n12 among discordant pairs": 0.5}, alternative="two.sided",
                     conf_int=(float(ci[0][0]), float(ci[1][0])), conf_level=0.95,
                     extras={"table": tab})
    if m == 0:
        raise ValueError("x has no discordant pairs (n12 + n21 = 0): McNemar's statistic is 0/0 (R returns NaN)")
    use = correct and n12 != n21
    stat = ((abs(n12 - n21) - 1) ** 2 if use else (n12 - n21) ** 2) / m
    method = "McNemar's Chi-squared test" + (" with continuity correction" if use else "")
    return HTest(statistic=float(stat), statistic_name="McNemar's chi-squared", parameter={"df": 1.0},
                 p_value=float(stats.chi2.sf(stat, 1)), method=method, data_name=dname, alternative=None,
                 extras={"table": tab})
