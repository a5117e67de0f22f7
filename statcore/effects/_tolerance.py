"""Equivalence and tolerance: two one-sided t tests (TOST) and the share of errors within a tolerance,
with a moving-block bootstrap for spatially dependent errors."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from .._checks import (as_float_array, as_sample_vector, as_tolerance, check_block, check_choice, check_flag,
                       check_positive_int, check_probability, check_margin, public_function, pow2_scale)
from .._result import HTest, Result
from .._r.rformat import format_numbers
from ._proportions import PROPORTION_METHODS, _proportion_interval

__all__ = ["tost", "within_tolerance", "WithinTolerance"]


@public_function(data=("x", "y"), nan_policy=("raise", "omit"), samples="independent")
def tost(x, y=None, *, margin, paired=False, var_equal=False, conf_level=0.90):
    """Two one-sided t tests (TOST) of equivalence: is the mean (difference) inside the margin?

    The null hypothesis is that the mean difference lies outside (low, high); it is rejected at level
    alpha when both one-sided t tests, mean > low and mean < high, reject at alpha, i.e. when the
    ``conf_level`` = 1 - 2 alpha t interval lies inside the margin. The p-value is the larger of the
    two one-sided p-values. One sample (``y`` None), paired differences x - y, or two independent
    samples (Welch's test, or the pooled-variance test with ``var_equal``). Equal to statsmodels'
    ``ttost_paired`` / ``ttost_ind(usevar="unequal" | "pooled")``.

    Parameters
    ----------
    x : array_like
        The sample (or the first of two).
    y : array_like, optional
        The second sample (paired with ``x`` when ``paired``).
    margin : float or (float, float)
        The equivalence interval: m for (-m, m), or (low, high).
    paired : bool
        Test the mean of the differences x - y.
    var_equal : bool
        Two independent samples: pooled variance (R's ``var.equal``) rather than Welch's test.
    conf_level : float
        The coverage of the interval reported (1 - 2 alpha: 0.90 for a 5% TOST).
    nan_policy : {"raise", "omit"}
        Missing values: refuse, or drop them (the pairs holding one when ``paired``).

    Returns
    -------
    HTest
        ``statistic`` the t of the larger one-sided p-value, ``p_value`` that p-value, ``conf_int`` the
        1 - 2 alpha interval; ``extras`` ``t_lower``, ``p_lower``, ``t_upper``, ``p_upper``.

    References
    ----------
    Schuirmann, D. J. (1987). A comparison of the two one-sided tests procedure and the power approach
    for assessing the equivalence of average bioavailability. *J Pharmacokinet Biopharm* 15, 657-680.
    R: ``TOSTER::t_TOST``; statsmodels ``ttost_paired``, ``ttost_ind``.

    Examples
    --------
    >>> import statcore as sc
    >>> x = [5.1, 4.9, 5.3, 5.0, 5.2, 4.8, 5.1, 5.0]
    >>> y = [5.0, 5.0, 5.2, 5.1, 5.1, 4.9, 5.0, 5.1]
    >>> res = sc.tost(x, y, margin=0.2, paired=True)
    >>> round(res.p_value, 6)
    0.000567
    """
    low, high = check_margin(margin, "margin")
    paired = check_flag(paired, "paired")
    var_equal = check_flag(var_equal, "var_equal")
    conf_level = check_probability(conf_level, "conf_level", open_left=True, open_right=True)
    xa = as_sample_vector(x, "x")
    ya0 = None if y is None else as_sample_vector(y, "y")
    # one power of two for the data and the margin (exact; the t statistics do not change): no square
    # overflows with a value of 1e300 or underflows with values of 1e-300
    S = float(max(pow2_scale(xa, axis=None), 1.0 if ya0 is None else pow2_scale(ya0, axis=None),
                  pow2_scale(np.array([low, high]), axis=None)))
    xa, low_s, high_s = xa / S, low / S, high / S
    if y is None:
        if paired:
            raise ValueError("y is required when paired=True (the differences x - y are tested)")
        d = xa
        est, se, df = d.mean(), d.std(ddof=1) / math.sqrt(d.size), float(d.size - 1)
        dname, ename = "x", "mean of x"
    else:
        ya = ya0 / S
        if paired:
            if xa.size != ya.size:
                raise ValueError(f"x and y must have the same length when paired, got {xa.size} and {ya.size}")
            d = xa - ya
            est, se, df = d.mean(), d.std(ddof=1) / math.sqrt(d.size), float(d.size - 1)
            ename = "mean difference"
        else:
            n1, n2 = xa.size, ya.size
            v1, v2 = xa.var(ddof=1), ya.var(ddof=1)
            est = xa.mean() - ya.mean()
            if var_equal:
                sp = ((n1 - 1) * v1 + (n2 - 1) * v2) / (n1 + n2 - 2)
                se, df = math.sqrt(sp * (1 / n1 + 1 / n2)), float(n1 + n2 - 2)
            else:
                a1, a2 = v1 / n1, v2 / n2
                se = math.sqrt(a1 + a2)
                df = (a1 + a2) ** 2 / (a1 * a1 / (n1 - 1) + a2 * a2 / (n2 - 1)) if a1 + a2 > 0 else math.inf
            ename = "difference in means"
        dname = "x and y"
    if not se > 0:
        raise ValueError("x has no variation (standard error 0): the t tests are undefined")
    t_lo, t_hi = (est - low_s) / se, (est - high_s) / se
    p_lo, p_hi = float(stats.t.sf(t_lo, df)), float(stats.t.cdf(t_hi, df))
    q = float(stats.t.ppf((1 + conf_level) / 2, df))
    stat, p = (t_lo, p_lo) if p_lo >= p_hi else (t_hi, p_hi)
    return HTest(statistic=float(stat), statistic_name="t", parameter={"df": float(df)}, p_value=max(p_lo, p_hi),
                 method="Two one-sided t tests (TOST) of equivalence"
                 + (", paired" if paired else ("" if y is None else (", pooled variance" if var_equal else ", Welch"))),
                 data_name=dname, estimate={ename: float(est) * S},
                 alternative=f"equivalence: {low:g} < true {ename} < {high:g}",
                 conf_int=(float(est - q * se) * S, float(est + q * se) * S), conf_level=conf_level,
                 extras={"t_lower": float(t_lo), "p_lower": p_lo, "t_upper": float(t_hi), "p_upper": p_hi,
                         "margin": (low, high)})


@dataclass(frozen=True, eq=False, repr=False)
class WithinTolerance(Result):
    """The share of errors within a tolerance with its interval (:func:`within_tolerance`).

    Attributes
    ----------
    estimate : float
        The share of abs(error) <= tau.
    conf_low, conf_high : float
    count, n : int
        Errors within the tolerance, and all errors.
    tau : float
    method : str
        The binomial interval, or "block-bootstrap".
    block : tuple or None
        The block sides (h, w) of the bootstrap.
    conf_level : float
    B : int
        Bootstrap resamples (0 for a binomial interval).

    Examples
    --------
    >>> import statcore as sc
    >>> sc.within_tolerance([0.1, -0.3, 0.05, 0.6, -0.02], 0.2).count
    3
    """

    estimate: float
    conf_low: float
    conf_high: float
    count: int
    n: int
    tau: float
    method: str
    block: Any
    conf_level: float
    B: int

    def _repr_parts(self):
        return [("estimate", self.estimate), ("conf_low", self.conf_low), ("conf_high", self.conf_high),
                ("n", self.n), ("method", self.method)]

    def summary(self) -> str:
        est, lo, hi = format_numbers([self.estimate, self.conf_low, self.conf_high], 7)
        how = (f"moving-block bootstrap, blocks {self.block[0]} x {self.block[1]}, {self.B} resamples"
               if self.block is not None else f"{self.method} interval, independent errors")
        return (f"\n\tShare of errors within the tolerance abs(error) <= {self.tau:g} ({how})\n\n"
                f"{self.count} of {self.n}: {est.strip()}\n"
                f"{100 * self.conf_level:g} percent confidence interval:\n {lo.strip()} {hi.strip()}\n")

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame({"estimate": [self.estimate], "conf_low": [self.conf_low], "conf_high": [self.conf_high],
                             "count": [self.count], "n": [self.n], "tau": [self.tau], "method": [self.method],
                             "conf_level": [self.conf_level]})


class _WindowDraw:
    """Block origins: ``n_blocks`` uniform window indices per resample."""

    def __init__(self, n_windows: int, n_blocks: int):
        self.n_windows, self.n_blocks = n_windows, n_blocks

    def __call__(self, rng, size):
        return rng.integers(0, self.n_windows, (size, self.n_blocks))


class _WindowMean:
    """The share within tolerance of an image assembled from the drawn windows."""

    def __init__(self, window_share: np.ndarray):
        self.window_share = window_share

    def __call__(self, idx):
        return self.window_share[idx].mean(axis=1)


def _window_shares(ind: np.ndarray, h: int, w: int) -> np.ndarray:
    """The share of ones in the h x w window at every one of the H x W positions of a 0/1 image, the
    image wrapped around its edges (circular blocks: every pixel lies in exactly h w windows, so the
    bootstrap distribution is centred on the estimate), by 2-D cumulative sums."""
    wrapped = np.pad(ind, ((0, h - 1), (0, w - 1)), mode="wrap")
    c = np.zeros((wrapped.shape[0] + 1, wrapped.shape[1] + 1))
    c[1:, 1:] = wrapped.cumsum(axis=0).cumsum(axis=1)
    s = c[h:, w:] - c[:-h, w:] - c[h:, :-w] + c[:-h, :-w]
    return (s / (h * w)).ravel()


@public_function(data=("error", "tau"), nan_policy=("raise", "omit"), rows=("error",))
def within_tolerance(error, tau, *, block=None, method="wilson", conf_level=0.95, B=1999, seed=None,
                     nan_policy="raise"):
    """The share of errors within a tolerance, abs(error) <= tau, with a confidence interval.

    For independent errors the interval is a binomial one (:func:`proportion_ci`'s ``method``). When the
    errors are spatially dependent (an error image: neighbouring pixels err together), a binomial
    interval is far too narrow; with ``block=(h, w)`` the interval is a moving-block bootstrap
    percentile interval: each resample tiles an image from floor(H / h) floor(W / w) h x w windows
    drawn uniformly among all H W positions of the image wrapped around its edges (circular blocks,
    Politis & Romano 1992, in two dimensions; Hall 1985), drawn through the resampling engine. Like
    every block bootstrap it needs blocks much longer than the errors' correlation length and many
    blocks; with few blocks it under-covers (its variance misses the dependence between blocks).

    Parameters
    ----------
    error : array_like
        The errors (any shape; with ``block`` a 2-D image).
    tau : float
        The tolerance (>= 0).
    block : (int, int), optional
        Block sides (h, w) for the block bootstrap of a 2-D error image.
    method : {"wilson", "clopper-pearson", "agresti-coull", "jeffreys"}
        The binomial interval (used when ``block`` is None).
    conf_level : float
        The interval's coverage.
    B : int
        Bootstrap resamples (with ``block``).
    seed : None, int or numpy.random.Generator
        The bootstrap's randomness.
    nan_policy : {"raise", "omit"}
        Missing errors: refuse, or leave them out (not with ``block``: an image cannot lose pixels).

    Returns
    -------
    WithinTolerance
        ``estimate``, ``conf_low``, ``conf_high``, ``count``, ``n``.

    References
    ----------
    Wilson, E. B. (1927). *JASA* 22, 209-212. Politis, D. N. & Romano, J. P. (1992). A circular
    block-resampling procedure for stationary data. In *Exploring the Limits of Bootstrap*, 263-270.
    Hall, P. (1985). Resampling a coverage pattern.
    *Stochastic Processes and their Applications* 20, 231-246. Lahiri, S. N. (2003). *Resampling Methods
    for Dependent Data*, chapter 12 (spatial block bootstrap).

    Examples
    --------
    >>> import numpy as np
    >>> import statcore as sc
    >>> err = np.random.default_rng(0).normal(size=(40, 40))
    >>> res = sc.within_tolerance(err, 1.0, block=(8, 8), B=499, seed=1)
    >>> res.method, round(res.estimate, 4)
    ('block-bootstrap', 0.6787)
    """
    tau = as_tolerance(tau, "tau")
    method = check_choice(method, "method", PROPORTION_METHODS)
    conf_level = check_probability(conf_level, "conf_level", open_left=True, open_right=True)
    e = as_float_array(error, "error", allow_nan=True)
    if e.size == 0:
        raise ValueError("error is empty; pass at least one error")
    if np.isinf(e).any():
        raise ValueError("error contains infinite values; all errors must be finite")
    nan = np.isnan(e)
    if nan.any():
        if nan_policy == "raise" or block is not None:
            raise ValueError(f"error contains NaN ({int(nan.sum())} values)"
                             + ("; a block bootstrap needs a complete image" if block is not None
                                else '; pass nan_policy="omit" to leave them out'))
        e = e[~nan]
    inside = np.abs(e) <= tau
    count, n = int(inside.sum()), int(inside.size)
    if block is None:
        lo, hi = _proportion_interval(np.array([float(count)]), np.array([float(n)]), method, conf_level)
        return WithinTolerance(count / n, float(lo[0]), float(hi[0]), count, n, tau, method, None, conf_level, 0)
    h, w = check_block(block, e.shape, "block")
    B = check_positive_int(B, "B")
    from .._resampling import run_resamples, root_seed

    shares = _window_shares(inside.astype(float), h, w)
    n_blocks = (e.shape[0] // h) * (e.shape[1] // w)
    boot = run_resamples(_WindowDraw(shares.size, n_blocks), _WindowMean(shares), B, seed=root_seed(seed),
                         bytes_per_resample=8.0 * n_blocks * 2)
    a = (1 - conf_level) / 2
    lo, hi = np.quantile(boot, [a, 1 - a])
    return WithinTolerance(count / n, float(lo), float(hi), count, n, tau, "block-bootstrap", (h, w), conf_level,
                           int(B))
