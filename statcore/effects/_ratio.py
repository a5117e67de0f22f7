"""The ratio of two means (paired or independent) and of two coefficients: Fieller's interval with its
unbounded cases reported, the delta method, and the bootstrap (through the resampling engine)."""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from .._checks import (as_float_array, as_sample_vector, check_choice, check_flag, check_positive_int,
                       check_positive_real, check_probability, pow2_scale, public_function, show_value)
from .._result import Result
from .._r.rformat import format_numbers

__all__ = ["RatioCI", "ratio_ci", "coef_ratio_ci"]

#: the three shapes of a Fieller confidence set
KINDS = ("bounded", "exclusive", "unbounded")


@dataclass(frozen=True, eq=False, repr=False)
class RatioCI(Result):
    """A confidence set for a ratio of two means or of two coefficients (:func:`ratio_ci`,
    :func:`coef_ratio_ci`).

    Attributes
    ----------
    estimate : float
        The ratio of the two means (coefficients).
    conf_low, conf_high : float
        The ends of the confidence set. With ``kind="bounded"`` the set is ``[conf_low, conf_high]``;
        with ``kind="exclusive"`` it is the two rays ``(-inf, conf_low] U [conf_high, inf)`` (one of the
        ends infinite when the set is a single ray); with ``kind="unbounded"`` it is the whole line
        (``conf_low = -inf``, ``conf_high = inf``).
    kind : {"bounded", "exclusive", "unbounded"}
        The shape of the set (Fieller's set is unbounded when the denominator is not significantly
        different from 0 at the level ``1 - conf_level``).
    method : str
        "fieller", "delta" or "bootstrap".
    conf_level : float
    std_error : float
        The delta-method standard error of the ratio (the bootstrap standard deviation for
        ``method="bootstrap"``).
    df : float
        Degrees of freedom of the t quantile (inf: the normal quantile; NaN for the bootstrap).
    g : float
        Fieller's g = q^2 var(denominator) / denominator^2: the set is bounded when g < 1.
    paired : bool or None
        Paired means, independent means, or None for coefficients.
    B : int
        Bootstrap resamples (0 for the other methods).

    Examples
    --------
    >>> import statcore as sc
    >>> res = sc.ratio_ci([2.1, 3.9, 6.2, 8.1], [1.0, 2.0, 3.0, 4.0])
    >>> res.kind, round(res.estimate, 4)
    ('bounded', 2.03)
    """

    estimate: float
    conf_low: float
    conf_high: float
    kind: str
    method: str
    conf_level: float
    std_error: float
    df: float
    g: float
    paired: Any = None
    B: int = 0

    def _repr_parts(self):
        return [("estimate", self.estimate), ("conf_low", self.conf_low), ("conf_high", self.conf_high),
                ("kind", self.kind), ("method", self.method)]

    def contains(self, value: float) -> bool:
        """Whether the confidence set holds ``value`` (the two rays of an exclusive set included)."""
        v = float(value)
        if self.kind == "unbounded":
            return True
        if self.kind == "exclusive":
            return v <= self.conf_low or v >= self.conf_high
        return self.conf_low <= v <= self.conf_high

    def summary(self) -> str:
        what = {True: "paired means", False: "independent means", None: "coefficients"}[self.paired]
        est, lo, hi, se = format_numbers([self.estimate, self.conf_low, self.conf_high, self.std_error], 7)
        level = f"{100 * self.conf_level:g}"
        head = {"fieller": "Fieller", "delta": "Delta-method",
                "bootstrap": f"Percentile bootstrap ({self.B} resamples)"}
        lines = ["", f"\t{head[self.method]} confidence set for a ratio of {what}", "",
                 f"ratio: {est.strip()}   std. error (delta method): {se.strip()}"
                 if self.method != "bootstrap" else f"ratio: {est.strip()}   bootstrap std. error: {se.strip()}"]
        if self.kind == "bounded":
            lines.append(f"{level} percent confidence interval:\n {lo.strip()} {hi.strip()}")
        elif self.kind == "exclusive":
            lines.append(f"{level} percent confidence set (exclusive: two rays, the denominator is not "
                         f"significantly different from 0):\n (-Inf, {lo.strip()}] U [{hi.strip()}, Inf)")
        else:
            lines.append(f"{level} percent confidence set: the whole real line (unbounded: neither mean is "
                         "significantly different from 0 in the Fieller sense)")
        return "\n".join(lines) + "\n"

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame({"estimate": [self.estimate], "conf_low": [self.conf_low], "conf_high": [self.conf_high],
                             "kind": [self.kind], "std_error": [self.std_error], "df": [self.df],
                             "conf_level": [self.conf_level], "method": [self.method]})


# ----------------------------------------------------------------------------------------------
# the kernels (numpy-vectorised: the coverage tests call them on arrays of replicates)
# ----------------------------------------------------------------------------------------------

def _fieller(num, den, v_nn, v_dd, v_nd, q):
    """Fieller's confidence set for num/den: the rho with (num - rho den)^2 <= q^2 (v_nn - 2 rho v_nd +
    rho^2 v_dd). Returns (low, high, kind code 0 bounded / 1 exclusive / 2 unbounded, g), vectorised."""
    num, den, v_nn, v_dd, v_nd, q = np.broadcast_arrays(*(np.asarray(v, dtype=float)
                                                          for v in (num, den, v_nn, v_dd, v_nd, q)))
    q2 = q * q
    A = den * den - q2 * v_dd
    Bq = num * den - q2 * v_nd
    C = num * num - q2 * v_nn
    D = Bq * Bq - A * C
    sq = np.sqrt(np.maximum(D, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(Bq >= 0, 1.0, -1.0)
        top = Bq + s * sq                   # no cancellation; the other root from the product C / A
        r1 = top / A
        r2 = np.where(top != 0, C / top, Bq / A)
        lo, hi = np.minimum(r1, r2), np.maximum(r1, r2)
        ray = C / (2 * Bq)
        g = np.where(den != 0, q2 * v_dd / (den * den), np.inf)
    bounded = A > 0
    exclusive = (A < 0) & (D > 0)
    line = (A == 0) & (Bq != 0)
    code = np.where(bounded, 0, np.where(exclusive | line, 1, 2))
    lo = np.where(bounded | exclusive, lo, np.where(line & (Bq > 0), -np.inf, np.where(line, ray, -np.inf)))
    hi = np.where(bounded | exclusive, hi, np.where(line & (Bq > 0), ray, np.inf))
    return lo, hi, code, g


def _delta(num, den, v_nn, v_dd, v_nd, q):
    """The delta-method interval for num/den: r -/+ q se, se = sqrt(v_nn - 2 r v_nd + r^2 v_dd) / |den|."""
    with np.errstate(divide="ignore", invalid="ignore"):
        r = num / den
        se = np.sqrt(np.maximum(v_nn - 2 * r * v_nd + r * r * v_dd, 0.0)) / np.abs(den)
        return r, r - q * se, r + q * se, se


def _mean_ratio(a, b, axis=-1):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.mean(a, axis=axis) / np.mean(b, axis=axis)


def _moments(a, b, paired):
    """(mean a, mean b, var of mean a, var of mean b, cov of the means, df at the ratio) on scaled data."""
    na, nb = a.size, b.size
    abar, bbar = a.mean(), b.mean()
    vaa = a.var(ddof=1) / na
    vbb = b.var(ddof=1) / nb
    if paired:
        vab = float(np.dot(a - abar, b - bbar)) / (na - 1) / na
        return abar, bbar, vaa, vbb, vab, float(na - 1)
    # Welch-Satterthwaite degrees of freedom of abar - rho bbar at rho = the estimate (Tamhane & Logan 2004)
    rho = abar / bbar if bbar != 0 else 0.0
    num = (vaa + rho * rho * vbb) ** 2
    den = vaa * vaa / (na - 1) + rho ** 4 * vbb * vbb / (nb - 1)
    df = num / den if den > 0 else math.inf
    return abar, bbar, vaa, vbb, 0.0, float(df)


def _quantile(conf_level, df):
    p = 1 - (1 - conf_level) / 2
    return float(stats.norm.ppf(p)) if not np.isfinite(df) else float(stats.t.ppf(p, df))


def _build(est, lo, hi, code, se, df, g, method, conf_level, paired, B=0, scale=1.0):
    with np.errstate(over="ignore", invalid="ignore"):
        vals = [float(v) * scale for v in (est, lo, hi, se)]
    return RatioCI(estimate=vals[0], conf_low=vals[1], conf_high=vals[2], kind=KINDS[int(code)], method=method,
                   conf_level=conf_level, std_error=vals[3], df=float(df), g=float(g), paired=paired, B=int(B))


@public_function(data=("a", "b"), nan_policy=("raise", "omit"))
def ratio_ci(a, b=None, *, paired=True, method="fieller", conf_level=0.95, B=9999, seed=None, nan_policy="raise"):
    """A confidence set for the ratio of two means, mean(a) / mean(b): Fieller's, the delta method's or the
    bootstrap's.

    Fieller's set holds every rho for which the t test of mean(a) - rho mean(b) = 0 does not reject at
    ``1 - conf_level``: with paired observations, the one-sample t test of the differences
    ``a - rho * b`` (exact under normality); with independent samples, Welch's test with its
    degrees of freedom evaluated at the estimate (Tamhane & Logan 2004). When mean(b) is not
    significantly different from 0 the set is not an interval: it is two rays (``kind="exclusive"``)
    or the whole line (``kind="unbounded"``), reported as such. The delta method gives the ratio -/+
    the t quantile times its first-order standard error; it under-covers when mean(b) is within a few
    standard errors of 0. The bootstrap is the percentile interval of the ratio over resamples of the
    pairs (or of each sample), through :func:`statcore.bootstrap`.

    Parameters
    ----------
    a : array_like
        The numerator sample; with ``b`` None, a two-column matrix (numerator, denominator) of pairs.
    b : array_like, optional
        The denominator sample (paired with ``a`` when ``paired``).
    paired : bool
        Paired observations (default) or two independent samples.
    method : {"fieller", "delta", "bootstrap"}
        The interval.
    conf_level : float
        The coverage of the set.
    B : int
        Bootstrap resamples (``method="bootstrap"``).
    seed : None, int or numpy.random.Generator
        The bootstrap's randomness.
    nan_policy : {"raise", "omit"}
        Missing values: refuse, or drop the pairs (each sample's values when not paired) holding one.

    Returns
    -------
    RatioCI
        ``estimate``, ``conf_low``, ``conf_high``, ``kind`` ("bounded", "exclusive" or "unbounded"; see
        :class:`RatioCI` for what the ends mean), ``std_error``, ``df``, ``g``.

    References
    ----------
    Fieller, E. C. (1954). Some problems in interval estimation. *JRSS B* 16, 175-185.
    Franz, V. H. (2007). Ratios: a short guide to confidence limits and proper use. arXiv:0710.2024.
    Tamhane, A. C. & Logan, B. R. (2004). Finding the maximum safe dose level for heteroscedastic data.
    *J Biopharm Stat* 14, 843-856. R: ``mratios::ttestratio`` (independent samples), ``t.test`` of
    ``a - rho * b`` (paired).

    Examples
    --------
    >>> import statcore as sc
    >>> a = [10.2, 11.9, 9.8, 12.4, 10.9, 11.1]
    >>> b = [5.1, 6.2, 4.7, 6.0, 5.6, 5.2]
    >>> res = sc.ratio_ci(a, b)
    >>> res.kind, round(res.conf_low, 4), round(res.conf_high, 4)
    ('bounded', 1.936, 2.1174)
    >>> sc.ratio_ci([1.0, -0.5, 2.0, 0.3], [0.2, -0.4, 0.1, 0.05]).kind
    'unbounded'
    """
    method = check_choice(method, "method", ("fieller", "delta", "bootstrap"))
    paired = check_flag(paired, "paired")
    conf_level = check_probability(conf_level, "conf_level", open_left=True, open_right=True)
    if b is None:
        m = as_float_array(a, "a", allow_nan=nan_policy == "omit")
        if m.ndim == 2:
            m = m[~np.isnan(m).any(axis=1)]
        if m.ndim != 2 or m.shape[1] != 2:
            raise ValueError(f"a must be a sample with b given, or a two-column matrix of (numerator, denominator) "
                             f"pairs, got shape {m.shape}")
        a_, b_ = m[:, 0], m[:, 1]
        if m.shape[0] < 2:
            raise ValueError(f"a must hold at least 2 pairs, got {m.shape[0]}")
    else:
        a_ = as_float_array(a, "a", allow_nan=True)
        b_ = as_float_array(b, "b", allow_nan=True)
        if paired and a_.ndim == b_.ndim == 1 and a_.size != b_.size:
            raise ValueError(f"a and b must have the same length when paired, got {a_.size} and {b_.size}")
        na, nb = np.isnan(a_), np.isnan(b_)
        if nan_policy == "omit":
            if paired and a_.ndim == b_.ndim == 1:
                keep = ~(na | nb)
                a_, b_ = a_[keep], b_[keep]
            else:
                a_, b_ = a_[~na], b_[~nb]
        a_ = as_sample_vector(a_, "a")
        b_ = as_sample_vector(b_, "b")
    if not np.any(b_ != 0):
        raise ValueError("b is identically 0: the ratio's denominator has no information")
    sa, sb = float(pow2_scale(a_, axis=None)), float(pow2_scale(b_, axis=None))
    a_, b_ = a_ / sa, b_ / sb
    scale = sa / sb
    if method == "bootstrap":
        B = check_positive_int(B, "B")
        from .._resampling import bootstrap

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            res = bootstrap((a_, b_), _mean_ratio, B=B, paired=paired, conf_level=conf_level, seed=seed,
                            method="percentile")
        boot = res.bootstrap_distribution
        se = float(np.std(boot[np.isfinite(boot)], ddof=1)) if np.isfinite(boot).sum() > 1 else math.nan
        lo, hi = res.confidence_interval
        return _build(res.estimate, lo, hi, 0, se, math.nan, math.nan, "bootstrap", conf_level, paired, B, scale)
    abar, bbar, vaa, vbb, vab, df = _moments(a_, b_, paired)
    q = _quantile(conf_level, df)
    r, dlo, dhi, se = _delta(abar, bbar, vaa, vbb, vab, q)
    if method == "delta":
        if bbar == 0:
            return _build(r, -np.inf, np.inf, 2, np.inf, df, np.inf, "delta", conf_level, paired, 0, scale)
        return _build(r, dlo, dhi, 0, se, df, q * q * vbb / bbar ** 2, "delta", conf_level, paired, 0, scale)
    lo, hi, code, g = _fieller(abar, bbar, vaa, vbb, vab, q)
    return _build(r, lo, hi, code, se, df, g, "fieller", conf_level, paired, 0, scale)


def _index(key, labels, size, name):
    if labels is not None and not isinstance(key, (int, np.integer)):
        hits = [k for k, lab in enumerate(labels) if lab == key]
        if not hits:
            raise ValueError(f"{name} {show_value(key)} is not a label of params")
        return hits[0]
    if isinstance(key, bool) or not isinstance(key, (int, np.integer)):
        raise TypeError(f"{name} must be an integer position (or a label of a pandas params), got {show_value(key)}")
    if not -size <= int(key) < size:
        raise ValueError(f"{name} {int(key)} is out of range for {size} coefficients")
    return int(key) % size


@public_function(data=("params", "cov", "i", "j"), nan_policy=("raise",), rows=("params", "cov"))
def coef_ratio_ci(params, cov, i, j, *, df=None, conf_level=0.95):
    """Fieller's confidence set for the ratio of two coefficients, params[i] / params[j], under any
    covariance matrix of the estimates.

    The set holds every rho for which the Wald test of params[i] - rho params[j] = 0 does not reject:
    (b_i - rho b_j)^2 <= q^2 (V_ii - 2 rho V_ij + rho^2 V_jj), with q the t(df) quantile (the normal
    quantile when ``df`` is None). It is bounded, two rays (``kind="exclusive"``) or the whole line
    (``kind="unbounded"``), as :func:`ratio_ci` reports.

    Parameters
    ----------
    params : array_like
        The estimates (a pandas Series lets ``i``, ``j`` be labels).
    cov : array_like
        Their covariance matrix (p x p): classical, robust, clustered, bootstrap, ...
    i, j : int or label
        The numerator's and the denominator's position (or label).
    df : float, optional
        Degrees of freedom of the t quantile (a linear model's residual df); None: the normal quantile.
    conf_level : float
        The coverage of the set.
    nan_policy : {"raise"}
        A NaN estimate or covariance is refused.

    Returns
    -------
    RatioCI
        As :func:`ratio_ci` (``paired`` None); ``std_error`` is the delta-method standard error.

    References
    ----------
    Fieller, E. C. (1954). Some problems in interval estimation. *JRSS B* 16, 175-185.
    R: ``mratios::Fieller`` style sets; ``car::deltaMethod`` for the delta-method standard error.

    Examples
    --------
    >>> import statcore as sc
    >>> res = sc.coef_ratio_ci([1.0, 4.0], [[0.04, 0.01], [0.01, 0.25]], 0, 1, df=30)
    >>> res.kind, round(res.conf_low, 4), round(res.conf_high, 4)
    ('bounded', 0.1449, 0.3844)
    """
    labels = list(params.index) if hasattr(params, "index") and hasattr(params, "to_numpy") else None
    p = as_float_array(params, "params")
    if p.ndim != 1 or p.size < 2:
        raise ValueError(f"params must be a vector of at least 2 estimates, got shape {p.shape}")
    V = as_float_array(cov, "cov")
    if V.shape != (p.size, p.size):
        raise ValueError(f"cov must be a {p.size} x {p.size} covariance matrix (one row per estimate in params), "
                         f"got shape {V.shape}")
    if not np.allclose(V, V.T, rtol=1e-8, atol=1e-12 * max(np.abs(V).max(), 1e-300)):
        raise ValueError("cov must be symmetric")
    ii = _index(i, labels, p.size, "i")
    jj = _index(j, labels, p.size, "j")
    if ii == jj:
        raise ValueError(f"i and j must be different coefficients, got position {ii} for both")
    if V[ii, ii] < 0 or V[jj, jj] < 0:
        raise ValueError("cov has a negative variance on its diagonal; it is not a covariance matrix")
    if V[jj, jj] == 0:
        raise ValueError(f"cov gives the denominator coefficient (j = {show_value(j)}) zero variance: Fieller's set "
                         "needs an estimated denominator; with a known denominator divide the numerator's interval")
    conf_level = check_probability(conf_level, "conf_level", open_left=True, open_right=True)
    dfv = math.inf if df is None else check_positive_real(df, "df")
    sn = float(pow2_scale(np.array([p[ii], math.sqrt(V[ii, ii])]), axis=None))
    sd = float(pow2_scale(np.array([p[jj], math.sqrt(V[jj, jj])]), axis=None))
    num, den = p[ii] / sn, p[jj] / sd
    v_nn, v_dd, v_nd = V[ii, ii] / sn / sn, V[jj, jj] / sd / sd, V[ii, jj] / sn / sd
    q = _quantile(conf_level, dfv)
    r, _, _, se = _delta(num, den, v_nn, v_dd, v_nd, q)
    lo, hi, code, g = _fieller(num, den, v_nn, v_dd, v_nd, q)
    return _build(r, lo, hi, code, se, dfv, g, "fieller", conf_level, None, 0, sn / sd)
