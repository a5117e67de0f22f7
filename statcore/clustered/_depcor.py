"""Two dependent correlations sharing a variable: Williams' t in Steiger's (1980) form (psych's
``r.test(n, r12, r13, r23)``) and Zou's (2007) confidence interval for their difference."""
from __future__ import annotations

import math

import numpy as np
from scipy import optimize, stats

from .._checks import check_choice, check_correlation, check_in_interval, check_positive_int, public_function
from .._result import HTest

__all__ = ["dependent_correlation_test"]


def _zou_interval(r12: float, r13: float, r23: float, n: int, level: float) -> tuple[float, float]:
    z = stats.norm.isf((1 - level) / 2)
    h = z / math.sqrt(n - 3)
    l1, u1 = math.tanh(math.atanh(r12) - h), math.tanh(math.atanh(r12) + h)
    l2, u2 = math.tanh(math.atanh(r13) - h), math.tanh(math.atanh(r13) + h)
    # the correlation of r12 and r13 (Zou 2007, eq. 8, from Olkin & Finn's asymptotic covariance)
    c = (((r23 - 0.5 * r12 * r13) * (1 - r12 ** 2 - r13 ** 2 - r23 ** 2) + r23 ** 3)
         / ((1 - r12 ** 2) * (1 - r13 ** 2)))
    d = r12 - r13
    low = d - math.sqrt(max(0.0, (r12 - l1) ** 2 + (u2 - r13) ** 2 - 2 * c * (r12 - l1) * (u2 - r13)))
    high = d + math.sqrt(max(0.0, (u1 - r12) ** 2 + (r13 - l2) ** 2 - 2 * c * (u1 - r12) * (r13 - l2)))
    return low, high


def _zou_pvalue(r12: float, r13: float, r23: float, n: int) -> float:
    """1 - the confidence level at which Zou's interval just reaches 0 (the interval's inversion)."""
    if r12 == r13:
        return 1.0
    end = 0 if r12 > r13 else 1

    def f(level):
        return _zou_interval(r12, r13, r23, n, level)[end]

    hi = 1 - 1e-15
    if (f(hi) > 0) == (r12 > r13):   # the interval excludes 0 at every level we can represent
        return 1 - hi
    return 1 - optimize.brentq(f, 1e-12, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps)


@public_function(data=("r12", "r13", "r23", "n"), nan_policy=None)
def dependent_correlation_test(r12, r13, r23, n, *, method="steiger", conf_level=0.95):
    """Test whether two correlations that share a variable are equal (r12 = r13), with Zou's interval.

    ``method="steiger"`` is the t test of ``psych::r.test(n, r12, r13, r23)`` (R package psych 2.2.9):
    Williams' (1959) t in the form Steiger (1980, eq. 7) recommends, on n - 3 degrees of freedom.
    ``method="zou"`` tests by Zou's (2007) confidence interval for r12 - r13 (the p-value is one minus
    the confidence level at which the interval's end reaches 0). Both report Zou's interval at
    ``conf_level`` as ``conf_int``.

    Parameters
    ----------
    r12, r13 : float
        The two correlations compared: variable 1 with variables 2 and 3, in (-1, 1).
    r23 : float
        The correlation of variables 2 and 3, in [-1, 1].
    n : int
        The sample size (at least 4).
    method : {"steiger", "zou"}
        The test.
    conf_level : float
        The coverage of Zou's interval for r12 - r13.

    Returns
    -------
    HTest
        ``statistic`` (t, "steiger" only), ``parameter`` (df = n - 3), ``p_value`` (two-sided),
        ``estimate`` ({"r12 - r13": ...}), ``conf_int`` (Zou's interval).

    References
    ----------
    Steiger, J. H. (1980). Tests for comparing elements of a correlation matrix. Psychological
    Bulletin 87, 245-251. Williams, E. J. (1959). The comparison of regression variables. JRSS B 21,
    396-399. Zou, G. Y. (2007). Toward using confidence intervals to compare correlations.
    Psychological Methods 12, 399-413. R package psych 2.2.9, ``r.test``.

    Examples
    --------
    >>> from statcore import dependent_correlation_test
    >>> res = dependent_correlation_test(0.4, 0.2, 0.5, 103)
    >>> round(res.statistic, 4), res.parameter["df"]
    (2.1727, 100.0)
    >>> [round(v, 4) for v in res.conf_int]
    [0.017, 0.381]
    """
    r12 = check_correlation(r12, "r12")
    r13 = check_correlation(r13, "r13")
    r23 = check_correlation(r23, "r23")
    for v, name in ((r12, "r12"), (r13, "r13")):
        if abs(v) == 1:
            raise ValueError(f"{name} must lie strictly inside (-1, 1) (its Fisher z is infinite), got {v!r}")
    if isinstance(n, float) and float(n).is_integer():
        n = int(n)
    n = check_positive_int(n, "n", minimum=4)
    method = check_choice(method, "method", ("steiger", "zou"))
    conf_level = check_in_interval(conf_level, "conf_level", 0.0, 1.0, closed="neither")
    det = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
    if det < -1e-12:
        raise ValueError(f"r12, r13 and r23 are not the correlations of three variables (their correlation "
                         f"matrix has determinant {det:.4g} < 0); check r23")
    det = max(det, 0.0)
    ci = _zou_interval(r12, r13, r23, n, conf_level)
    diff = r12 - r13
    data_name = f"r12 = {r12:g}, r13 = {r13:g}, r23 = {r23:g}, n = {n}"
    if method == "steiger":
        av = (r12 + r13) / 2
        denom = (2 * (n - 1) / (n - 3)) * det + av * av * (1 - r23) ** 3
        if denom <= 0:
            raise ValueError("r23 = 1 with r12 = r13 = 0 leaves the t statistic undefined; check r23")
        t = diff * math.sqrt((n - 1) * (1 + r23) / denom)
        p = float(2 * stats.t.sf(abs(t), n - 3))
        return HTest(statistic=float(t), statistic_name="t", parameter={"df": float(n - 3)}, p_value=p,
                     method="Williams-Steiger t test of two dependent correlations",
                     data_name=data_name, estimate={"r12 - r13": diff}, null_value={"difference in correlations": 0.0},
                     conf_int=ci, conf_level=conf_level)
    p = float(_zou_pvalue(r12, r13, r23, n))
    return HTest(statistic=None, p_value=p, method="Zou's interval test of two dependent correlations",
                 data_name=data_name, estimate={"r12 - r13": diff}, null_value={"difference in correlations": 0.0},
                 conf_int=ci, conf_level=conf_level)
