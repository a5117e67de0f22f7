"""The split-conformal quantile, its Mondrian (group-wise) form, and the two coverage checks:
``conformal_quantile``, ``coverage_band`` and ``coverage_test`` (R's ``binom.test``)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import (show_value, as_float_array, as_scores, check_choice, check_flag, check_miscoverage,
                       check_positive_int, check_probability, conformal_rank, min_calibration_size)
from .._checks.public import public_function
from .._checks.core import _is_pandas
from .._result import HTest, Result

__all__ = ["conformal_quantile", "coverage_band", "coverage_test", "CoverageBand"]


@dataclass(frozen=True, repr=False)
class CoverageBand(Result):
    """The exact band of split-conformal marginal coverage (:func:`coverage_band`); it unpacks as
    ``lower, upper = res``.

    Attributes
    ----------
    lower, upper : float
        The bounds of the coverage: 1 - alpha and min(1, 1 - alpha + 1/(n + 1)).
    n : int
        Calibration scores.
    alpha : float
        The miscoverage.
    k : int
        The conformal rank ceil((n + 1)(1 - alpha)); k > n means an infinite set (coverage 1).

    Examples
    --------
    >>> from statcore import coverage_band
    >>> coverage_band(9, alpha=0.1)
    CoverageBand(lower=0.9, upper=1, n=9, alpha=0.1, k=9)
    """

    lower: float
    upper: float
    n: int
    alpha: float
    k: int

    def __iter__(self):
        return iter((self.lower, self.upper))

    def summary(self) -> str:
        exact = "" if self.k > self.n else f"; with distinct scores exactly {self.k}/{self.n + 1}"
        return (f"\n\tSplit-conformal marginal coverage band\n\n"
                f"n = {self.n} calibration scores, alpha = {self.alpha:g}, rank k = {self.k}\n"
                f"coverage in [{self.lower:.6g}, {self.upper:.6g}]{exact}\n")

    def to_frame(self):
        """One row: ``lower``, ``upper``, ``n``, ``alpha``, ``k``."""
        import pandas as pd

        return pd.DataFrame([{"lower": self.lower, "upper": self.upper, "n": self.n, "alpha": self.alpha,
                              "k": self.k}])


def _too_small(n: int, alpha: float, where: str = "") -> ValueError:
    need = min_calibration_size(alpha)
    return ValueError(
        f"too few calibration scores{where} for alpha = {alpha:g}: n = {n}, but ceil((n + 1)(1 - alpha)) = "
        f"{conformal_rank(n, alpha)} > n, so the conformal set would be infinite; split conformal needs "
        f"n >= ceil(1/alpha) - 1 = {need} calibration scores at this alpha (or pass allow_infinite=True to get "
        "an infinite threshold)")


@public_function(data=("scores",), nan_policy=("raise", "omit"))
def conformal_quantile(scores, *, alpha, allow_infinite=False):
    """The split-conformal quantile of calibration scores: the ceil((n + 1)(1 - alpha))-th smallest.

    With n exchangeable calibration scores s_1, ..., s_n and a test score s_{n+1}, the event
    s_{n+1} <= q has probability at least 1 - alpha, and below 1 - alpha + 1/(n + 1) when the
    scores are almost surely distinct (:func:`coverage_band`). A conformal set is then
    {y : s(x, y) <= q}.

    Parameters
    ----------
    scores : array_like, shape (n,)
        Calibration scores (finite; larger means less conforming).
    alpha : float
        The miscoverage, in (0, 1).
    allow_infinite : bool, default False
        What to do when ceil((n + 1)(1 - alpha)) > n, i.e. n < 1/alpha - 1: the conformal set is then
        the whole space. By default a ValueError says so and names the minimum calibration size
        ceil(1/alpha) - 1; with ``allow_infinite=True`` the answer is ``inf`` (an infinite set), which
        is what MAPIE 1.x returns with ``unbounded=True`` (it raises otherwise, naming a minimum size)
        and what crepes returns (with a warning) for its intervals.
    nan_policy : {"raise", "omit"}
        A NaN score: "raise" refuses it (naming the count), "omit" drops it (n counts the scores
        left).

    Returns
    -------
    float
        The threshold q (``inf`` only with ``allow_infinite``).

    Notes
    -----
    The rank k = ceil((n + 1)(1 - alpha)) is computed from the decimal value of ``alpha``: a product
    (n + 1)(1 - alpha) within 1e-12 (n + 1) of an integer counts as that integer. The peers use raw
    floats, which move the rank by one at such exact products: with n = 9 and alpha = 0.7
    (10 * (1 - 0.7) = 3.0000000000000004) MAPIE 1.6 takes the 4th smallest score, statcore and crepes
    the 3rd; with n = 99 at 90% crepes 0.9.1 takes the 91st (1 - 0.9 = 0.09999999999999998), statcore
    and MAPIE the 90th; with n = 9 at 90% crepes returns an infinite interval and MAPIE's estimators
    refuse n < max(1/alpha, 1/(1 - alpha)) = 10, while statcore takes the 9th. Elsewhere the three
    agree exactly.

    References
    ----------
    Vovk, Gammerman & Shafer (2005), *Algorithmic Learning in a Random World*, Springer.
    Lei, G'Sell, Rinaldo, Tibshirani & Wasserman (2018), Distribution-free predictive inference for
    regression, *JASA* 113, 1094-1111 (split conformal, Theorem 2.2).
    Angelopoulos & Bates (2023), Conformal prediction: a gentle introduction, *Foundations and
    Trends in Machine Learning* 16(4), 494-591.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import conformal_quantile
    >>> scores = np.arange(1.0, 20.0)          # 19 scores: k = ceil(20 * 0.9) = 18
    >>> conformal_quantile(scores, alpha=0.1)
    18.0
    >>> conformal_quantile(scores[:5], alpha=0.1, allow_infinite=True)
    inf
    """
    s = as_scores(scores, "scores")
    alpha = check_miscoverage(alpha)
    allow_infinite = check_flag(allow_infinite, "allow_infinite")
    n = s.size
    k = conformal_rank(n, alpha)
    if k > n:
        if allow_infinite:
            return math.inf
        raise _too_small(n, alpha)
    return float(np.partition(s, k - 1)[k - 1])


def group_quantiles(scores: np.ndarray, codes: np.ndarray, n_groups: int, alpha: float, allow_infinite: bool,
                    labels) -> tuple[np.ndarray, np.ndarray]:
    """Mondrian split-conformal quantiles: one conformal_quantile per group code 0..n_groups-1
    (one stable sort by group, then a partial sort within each). Returns (q per group, n per group)."""
    counts = np.bincount(codes, minlength=n_groups)
    small = codes.astype(np.uint16) if n_groups <= 65536 else codes   # a radix sort for 16-bit keys
    by_group = scores[np.argsort(small, kind="stable")]
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    q = np.empty(n_groups)
    for g in range(n_groups):
        n = int(counts[g])
        k = conformal_rank(n, alpha)
        if k > n:
            if not allow_infinite:
                raise _too_small(n, alpha, f" in group {show_value(labels[g])} of groups_cal")
            q[g] = np.inf
        else:
            q[g] = np.partition(by_group[starts[g]:starts[g] + n], k - 1)[k - 1]
    return q, counts


def coverage_band(n, *, alpha):
    """The exact band of split-conformal marginal coverage with n calibration scores.

    For exchangeable scores, P(y_{n+1} in the set) = k/(n + 1) with k = ceil((n + 1)(1 - alpha))
    when the scores are almost surely distinct (at least that with ties), so it lies in
    [1 - alpha, 1 - alpha + 1/(n + 1)). A coverage is at most 1, so the upper end is capped there:
    when k > n (n < 1/alpha - 1) the set is the whole line and covers always.

    Parameters
    ----------
    n : int
        The number of calibration scores (of one group, for Mondrian conformal prediction).
    alpha : float
        The miscoverage, in (0, 1).

    Returns
    -------
    CoverageBand
        ``lower`` = 1 - alpha, ``upper`` = min(1, 1 - alpha + 1/(n + 1)), ``n``, ``alpha`` and the
        rank ``k``; it unpacks as ``lower, upper``.

    References
    ----------
    Lei, G'Sell, Rinaldo, Tibshirani & Wasserman (2018), Distribution-free predictive inference for
    regression, *JASA* 113, 1094-1111, Theorem 2.2. Angelopoulos & Bates (2023), A gentle
    introduction to conformal prediction, Theorem D.1.

    Examples
    --------
    >>> from statcore import coverage_band
    >>> lo, hi = coverage_band(99, alpha=0.1)
    >>> round(lo, 4), round(hi, 4)
    (0.9, 0.91)
    """
    n = check_positive_int(n, "n")
    alpha = check_miscoverage(alpha)
    return CoverageBand(lower=1.0 - alpha, upper=min(1.0, 1.0 - alpha + 1.0 / (n + 1)), n=n, alpha=alpha,
                        k=int(conformal_rank(n, alpha)))


# ----------------------------------------------------------------------------------------------
# R's binom.test
# ----------------------------------------------------------------------------------------------

def _binom_pvalue(x: int, n: int, p: float, alternative: str) -> float:
    from scipy.stats import binom

    if alternative == "less":
        return float(binom.cdf(x, n, p))
    if alternative == "greater":
        return float(binom.sf(x - 1, n, p))
    # two-sided: R's rule, the outcomes no more likely than x (relative tolerance 1e-7)
    rel_err = 1 + 1e-7
    d = binom.pmf(x, n, p)
    m = n * p
    if x == m:
        return 1.0
    if x < m:
        i = np.arange(math.ceil(m), n + 1)
        y = int(np.sum(binom.pmf(i, n, p) <= d * rel_err))
        pval = binom.cdf(x, n, p) + binom.sf(n - y, n, p)
    else:
        i = np.arange(0, math.floor(m) + 1)
        y = int(np.sum(binom.pmf(i, n, p) <= d * rel_err))
        pval = binom.cdf(y - 1, n, p) + binom.sf(x - 1, n, p)
    return float(min(1.0, pval))


def _clopper_pearson(x: int, n: int, conf_level: float, alternative: str) -> tuple[float, float]:
    from scipy.special import betaincinv

    def lower(a):
        return 0.0 if x == 0 else float(betaincinv(x, n - x + 1, a))

    def upper(a):
        return 1.0 if x == n else float(betaincinv(x + 1, n - x, 1 - a))

    if alternative == "less":
        return 0.0, upper(1 - conf_level)
    if alternative == "greater":
        return lower(1 - conf_level), 1.0
    a = (1 - conf_level) / 2
    return lower(a), upper(a)


def _as_covered(covered: Any) -> np.ndarray:
    if covered is None:
        raise TypeError("covered is required: got None where a vector of booleans was expected")
    if isinstance(covered, (str, bytes)):
        raise TypeError("covered must be a vector of booleans (or 0/1), got a string")
    arr = np.asarray(covered.to_numpy() if _is_pandas(covered) else covered)
    if arr.dtype.kind != "b":
        arr = as_float_array(arr, "covered")
        if arr.ndim == 1 and arr.size and not np.all((arr == 0) | (arr == 1)):
            bad = arr[(arr != 0) & (arr != 1)][0]
            raise ValueError(f"covered must hold booleans or 0/1 (whether each test point was covered); found {show_value(bad)}")
    if arr.ndim != 1:
        raise ValueError(f"covered must be a vector (one value per test point), got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError("covered is empty; pass one value per test point")
    return arr.astype(bool)


@public_function(data=("covered",), nan_policy=("raise", "omit"))
def coverage_test(covered, *, alpha, alternative="two.sided", conf_level=0.95):
    """Exact binomial test of the empirical coverage of conformal sets (R's ``binom.test``).

    Tests H0: P(covered) = 1 - alpha from the number of covered test points x out of n, with the
    statistic, parameter, p-value (two-sided: R's rule, the outcomes no more likely than x, relative
    tolerance 1e-7) and Clopper-Pearson interval of ``binom.test(x, n, p = 1 - alpha)``, and its
    printout. Coverage indicators of one calibration set share that set, so they are not independent
    over test points: the binomial test is exact for fresh calibration sets per test point, and for
    one calibration set it checks the conditional coverage given that set.

    Parameters
    ----------
    covered : array_like of bool, shape (n,)
        Whether each test point lies in its conformal set (booleans or 0/1).
    alpha : float
        The nominal miscoverage: the null coverage is 1 - alpha (``binom.test``'s ``p``).
    alternative : {"two.sided", "less", "greater"}
        The alternative, as R's.
    conf_level : float, default 0.95
        The level of the Clopper-Pearson interval of the coverage.
    nan_policy : {"raise", "omit"}
        A NaN in ``covered``: "raise" refuses it (naming the count), "omit" drops it.

    Returns
    -------
    HTest
        ``statistic`` (number of successes, x), ``parameter`` (number of trials, n), ``p_value``,
        ``estimate`` (x / n), ``null_value`` (1 - alpha), ``conf_int``; ``data_name`` is
        ``"x and n"`` with the numbers, as R prints ``binom.test(x, n)``.

    References
    ----------
    R's ``stats::binom.test``; Clopper & Pearson (1934), The use of confidence or fiducial limits
    illustrated in the case of the binomial, *Biometrika* 26, 404-413.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import coverage_test
    >>> covered = np.r_[np.ones(18, bool), np.zeros(2, bool)]
    >>> res = coverage_test(covered, alpha=0.1)
    >>> print(res)  # doctest: +NORMALIZE_WHITESPACE
    <BLANKLINE>
        Exact binomial test
    <BLANKLINE>
    data:  18 and 20
    number of successes = 18, number of trials = 20, p-value = 1
    alternative hypothesis: true probability of success is not equal to 0.9
    95 percent confidence interval:
     0.6830173 0.9876515
    sample estimates:
    probability of success
                       0.9
    <BLANKLINE>
    """
    cov = _as_covered(covered)
    alpha = check_miscoverage(alpha)
    alternative = check_choice(alternative, "alternative", ("two.sided", "less", "greater"))
    conf_level = check_probability(conf_level, "conf_level", open_left=True, open_right=True)
    n = int(cov.size)
    x = int(cov.sum())
    p = 1.0 - alpha
    return HTest(statistic=float(x), statistic_name="number of successes",
                 parameter={"number of trials": float(n)}, p_value=_binom_pvalue(x, n, p, alternative),
                 estimate={"probability of success": x / n}, null_value={"probability of success": p},
                 alternative=alternative, method="Exact binomial test", data_name=f"{x} and {n}",
                 conf_int=_clopper_pearson(x, n, conf_level, alternative), conf_level=conf_level)
