"""Random- and fixed-effects meta-analysis of one effect per study (metafor's ``rma.uni`` without
moderators), every tau^2 estimator computed as metafor 3.8.1 computes it, in O(k).

With one intercept, metafor's k x k matrices P = W - W 1 1' W / sum(W) reduce to sums over the studies:
tr(P), tr(P P), y'P y, y'P P y, tr(P V), tr(P V P V) and sum(P V o P) are written out below, so that
k = 10^4 studies take milliseconds. The iterative estimators stop where metafor stops (Fisher scoring
with ``threshold = 1e-5``, Paule-Mandel by R's ``uniroot`` with ``tol = .Machine$double.eps^0.25``:
``statcore._r.zeroin``), so the numbers are metafor's, not a more precise root.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .._checks import (as_float_array, as_sampling_variances, check_choice, check_flag, check_in_interval,
                       check_positive_int, check_positive_real, public_function)
from .._r.zeroin import uniroot
from .._result import HTest, Result
from .._warnings import ConvergenceWarning

__all__ = ["meta_analysis", "MetaAnalysis"]

#: the estimators of tau^2 offered (metafor's names); "FE" is the fixed-effects (equal-effects) model
META_METHODS = ("REML", "ML", "DL", "PM", "HE", "SJ", "EB", "FE")
_EPS = np.finfo(float).eps


def _wsums(a: np.ndarray, y: np.ndarray):
    """S = sum(a), the a-weighted mean of y, and y'P y for P = diag(a) - a a'/S."""
    S = a.sum()
    mu = (a * y).sum() / S
    r = y - mu
    return S, mu, r, float((a * r * r).sum())


def _trP(a: np.ndarray) -> float:
    S = a.sum()
    return float(S - (a * a).sum() / S)


def _sumPP(a: np.ndarray) -> float:
    S = a.sum()
    a2 = (a * a).sum()
    return float(a2 - 2 * (a ** 3).sum() / S + a2 * a2 / (S * S))


def _trPVPV(a: np.ndarray, v: np.ndarray) -> float:
    S = a.sum()
    return float((a * a * v * v).sum() - 2 * (a ** 3 * v * v).sum() / S + ((a * a * v).sum()) ** 2 / (S * S))


def _sumPVP(a: np.ndarray, v: np.ndarray) -> float:
    S = a.sum()
    return float((a * a * v).sum() - 2 * (a ** 3 * v).sum() / S + (a * a).sum() * (a * a * v).sum() / (S * S))


def _loglik(y, v, tau2, reml: bool) -> float:
    w = 1 / (v + tau2)
    S, _, _, rss = _wsums(w, y)
    k = y.size
    if reml:
        return -0.5 * (k - 1) * math.log(2 * math.pi) - 0.5 * np.log(v + tau2).sum() - 0.5 * math.log(S) - 0.5 * rss
    return -0.5 * k * math.log(2 * math.pi) - 0.5 * np.log(v + tau2).sum() - 0.5 * rss


def _tau2(y: np.ndarray, v: np.ndarray, method: str, tol: float, max_iter: int) -> tuple[float, float, int]:
    """(tau2, its standard error as metafor reports it, iterations)."""
    k = y.size
    p = 1
    if method == "FE":
        return 0.0, float("nan"), 0
    if method in ("HE", "ML", "REML", "EB"):
        one = np.ones(k)
        _, _, _, rss = _wsums(one, y)
        trPV = float(v.sum() - v.sum() / k)
        tau2 = (rss - trPV) / (k - p)
        if method == "HE":
            tau2 = max(0.0, tau2)
            se = math.sqrt(1 / (k - p) ** 2 * (2 * _trPVPV(one, v) + 4 * tau2 * trPV + 2 * tau2 ** 2 * (k - p)))
            return tau2, se, 0
    if method == "DL":
        w = 1 / v
        _, _, _, rss = _wsums(w, y)
        trP = _trP(w)
        tau2 = max(0.0, (rss - (k - p)) / trP)
        se = math.sqrt(1 / trP ** 2 * (2 * (k - p) + 4 * tau2 * trP + 2 * tau2 ** 2 * _sumPP(w)))
        return tau2, se, 0
    if method == "SJ":
        tau0 = float(np.var(y, ddof=1) * (k - 1) / k)
        if tau0 <= 0:
            raise ValueError("y: all effects are equal, so the Sidik-Jonkman starting value var(y) is 0; "
                             "use another method")
        w = 1 / (v + tau0)
        _, _, _, rss = _wsums(w, y)
        tau2 = max(0.0, tau0 * rss / (k - p))
        se = math.sqrt(tau0 ** 2 / (k - p) ** 2 * (2 * _trPVPV(w, v) + 4 * tau2 * _sumPVP(w, v)
                                                  + 2 * tau2 ** 2 * _sumPP(w)))
        return tau2, se, 0
    if method == "PM":
        def qfun(t):
            return _wsums(1 / (v + t), y)[3] - (k - p)

        if qfun(0.0) < 0:
            tau2 = 0.0
            it = 0
        else:
            upper = 100.0
            if qfun(upper) > 0:   # metafor stops here ("tau2.max too low"); we widen, as its advice says
                while qfun(upper) > 0 and upper < 1e300:
                    upper *= 10
            tau2, it, conv = uniroot(qfun, 0.0, upper, tol=_EPS ** 0.25, max_iter=max_iter)
            if not conv:
                warnings.warn("the Paule-Mandel root search stopped before its tolerance", ConvergenceWarning, 2)
        w = 1 / (v + tau2)
        se = math.sqrt(2 * k ** 2 / (k - p) / w.sum() ** 2)
        return max(0.0, tau2), se, it
    # ML, REML, EB: Fisher scoring from the HE estimate, metafor's steps and stopping rule
    tau2 = max(0.0, tau2)
    change = tol + 1
    it = 0
    conv = True
    while change > tol:
        it += 1
        old = tau2
        w = 1 / (v + tau2)
        S, _, r, rss = _wsums(w, y)
        if method == "ML":
            adj = ((w * w * r * r).sum() - S) / (w * w).sum()
        elif method == "REML":
            adj = ((w * w * r * r).sum() - _trP(w)) / _sumPP(w)
        else:
            adj = (rss * k / (k - p) - k) / S
        if not np.isfinite(adj):
            adj = 0.0
        while tau2 + adj < 0:
            adj /= 2
        tau2 = tau2 + adj
        change = abs(old - tau2)
        if it > max_iter:
            conv = False
            break
    if not conv:
        warnings.warn(f"Fisher scoring did not converge in {max_iter} iterations (metafor stops with an error); "
                      "raise max_iter", ConvergenceWarning, 2)
    if conv and method in ("ML", "REML"):
        reml = method == "REML"
        ll0 = _loglik(y, v, 0.0, reml)
        ll = _loglik(y, v, tau2, reml)
        if ll0 - ll > _EPS ** 0.25 and tau2 > tol:
            warnings.warn("Fisher scoring may have stopped at a local maximum; tau^2 set to 0 (as metafor does)",
                          ConvergenceWarning, 2)
            tau2 = 0.0
    tau2 = max(0.0, tau2)
    w = 1 / (v + tau2)
    if method == "ML":
        se = math.sqrt(2 / (w * w).sum())
    elif method == "REML":
        se = math.sqrt(2 / _sumPP(w))
    else:
        se = math.sqrt(2 * k ** 2 / (k - p) / w.sum() ** 2)
    return tau2, se, it


def _qprofile(y: np.ndarray, v: np.ndarray, tau2: float, conf_level: float) -> tuple[float, float]:
    """The Q-profile interval of tau^2 (Viechtbauer 2007) as ``confint.rma.uni(type = "QP")`` computes it:
    R's ``uniroot`` on [0, max(100, 10 tau2)] with ``tol = .Machine$double.eps^0.25``, ``maxiter = 1000``."""
    k = y.size
    alpha = 1 - conf_level
    crit_u = float(stats.chi2.isf(alpha / 2, k - 1))
    crit_l = float(stats.chi2.ppf(alpha / 2, k - 1))
    lo_b, hi_b = min(0.0, tau2), max(100.0, tau2 * 10, 0.0)

    def qe(t):
        return _wsums(1 / (v + t), y)[3]

    q_min, q_max = qe(lo_b), qe(hi_b)
    if q_min < crit_l:
        lb = ub = lo_b
    else:
        ub = hi_b if q_max > crit_l else uniroot(lambda t: qe(t) - crit_l, lo_b, hi_b, tol=_EPS ** 0.25,
                                                  max_iter=1000)[0]
        if q_max > crit_u:
            lb = ub = hi_b
        elif q_min < crit_u:
            lb = lo_b
        else:
            lb = uniroot(lambda t: qe(t) - crit_u, lo_b, hi_b, tol=_EPS ** 0.25, max_iter=1000)[0]
    return float(lb), float(ub)


def _fcf(x: float, digits: int = 4) -> str:
    return f"{x:.{digits}f}"


def _pval_text(p: float, showeq: bool, digits: int = 4) -> str:
    if p < 10 ** -digits:
        return "< ." + "0" * (digits - 1) + "1" if showeq else "<." + "0" * (digits - 1) + "1"
    return ("= " if showeq else "") + _fcf(p, digits)


def _stars(p: float) -> str:
    return "***" if p <= 0.001 else "**" if p <= 0.01 else "*" if p <= 0.05 else "." if p <= 0.1 else " "


@dataclass(frozen=True, repr=False)
class MetaAnalysis(Result):
    """A meta-analysis of one effect per study (metafor's ``rma.uni`` object, intercept only).

    Attributes
    ----------
    estimate, std_error, statistic, p_value, conf_low, conf_high : float
        The pooled effect mu, its standard error, z (or t with ``hksj``), two-sided p-value, interval.
    df : float
        The t test's degrees of freedom (k - 1) with ``hksj``, infinite otherwise.
    tau2, tau2_std_error : float
        The between-study variance and metafor's standard error of it (NaN for "FE").
    tau2_conf_low, tau2_conf_high : float
        The Q-profile interval of tau^2 (metafor's ``confint``; NaN for "FE").
    i2, h2 : float
        I^2 (percent) and H^2.
    q_test : HTest
        Cochran's Q test of heterogeneity (chi-squared on k - 1 df).
    pred_low, pred_high : float
        The prediction interval of a new study's true effect (metafor's ``predict``); with "FE"
        (tau^2 = 0) it is the confidence interval, where metafor's ``predict`` reports none.
    method : str
    hksj : bool
    k : int
    conf_level : float
    y, v : ndarray
        The effects and sampling variances analysed (for the forest plot).

    Examples
    --------
    >>> from statcore import meta_analysis
    >>> fit = meta_analysis([0.1, 0.3, 0.35, 0.65], [0.03, 0.03, 0.05, 0.01], method="DL")
    >>> fit.method, fit.k
    ('DL', 4)
    """

    estimate: float
    std_error: float
    statistic: float
    p_value: float
    conf_low: float
    conf_high: float
    df: float
    tau2: float
    tau2_std_error: float
    i2: float
    h2: float
    q_test: HTest
    pred_low: float
    pred_high: float
    tau2_conf_low: float
    tau2_conf_high: float
    method: str
    hksj: bool
    k: int
    conf_level: float
    iterations: int = 0
    y: Any = field(default=None, repr=False)
    v: Any = field(default=None, repr=False)

    def _repr_parts(self):
        return [("method", self.method), ("k", self.k), ("estimate", self.estimate), ("std_error", self.std_error),
                ("tau2", self.tau2), ("i2", self.i2)]

    @property
    def tau(self) -> float:
        return math.sqrt(self.tau2)

    def summary(self) -> str:
        """metafor's ``print.rma.uni`` layout (digits = 4)."""
        L = [""]
        if self.method == "FE":
            L.append(f"Fixed-Effects Model (k = {self.k})")
        else:
            L.append(f"Random-Effects Model (k = {self.k}; tau^2 estimator: {self.method})")
        L.append("")
        if self.method != "FE":
            small = self.tau2 <= _EPS * 10
            t2 = "0" if small else _fcf(self.tau2)
            L.append(f"tau^2 (estimated amount of total heterogeneity): {t2} (SE = {_fcf(self.tau2_std_error)})")
            L.append(f"tau (square root of estimated tau^2 value):      {'0' if small else _fcf(self.tau)}")
        L.append(f"I^2 (total heterogeneity / total variability):   {_fcf(self.i2, 2)}%")
        L.append(f"H^2 (total variability / sampling variability):  {_fcf(self.h2, 2)}")
        L.append("")
        L.append("Test for Heterogeneity:")
        q = self.q_test
        L.append(f"Q(df = {self.k - 1}) = {_fcf(q.statistic)}, p-val {_pval_text(q.p_value, True)}")
        L.append("")
        L.append("Model Results:")
        L.append("")
        cols = {"estimate": _fcf(self.estimate), "se": _fcf(self.std_error),
                ("tval" if self.hksj else "zval"): _fcf(self.statistic)}
        if self.hksj:
            cols["df"] = str(int(self.df))
        cols.update({"pval": _pval_text(self.p_value, False), "ci.lb": _fcf(self.conf_low),
                     "ci.ub": _fcf(self.conf_high), "": _stars(self.p_value) + " "})
        head, row = [], []
        for i, (name, cell) in enumerate(cols.items()):
            w = max(len(name), len(cell))
            gap = "" if i == 0 else "  "
            head.append(gap + name.rjust(w))
            row.append(gap + cell.rjust(w))
        L.append("".join(head))
        L.append("".join(row))
        L.append("")
        L.append("---")
        L.append("Signif. codes:  0 \u2018***\u2019 0.001 \u2018**\u2019 0.01 \u2018*\u2019 0.05 "
                 "\u2018.\u2019 0.1 \u2018 \u2019 1")
        L.append("")
        return "\n".join(L) + "\n"

    def to_frame(self):
        """One row: the pooled effect, its interval, the prediction interval and the heterogeneity."""
        return pd.DataFrame({"estimate": [self.estimate], "std_error": [self.std_error], "statistic": [self.statistic],
                             "df": [self.df], "p_value": [self.p_value], "conf_low": [self.conf_low],
                             "conf_high": [self.conf_high], "pred_low": [self.pred_low], "pred_high": [self.pred_high],
                             "tau2": [self.tau2], "tau2_std_error": [self.tau2_std_error],
                             "tau2_conf_low": [self.tau2_conf_low], "tau2_conf_high": [self.tau2_conf_high],
                             "i2": [self.i2],
                             "h2": [self.h2], "q": [self.q_test.statistic],
                             "heterogeneity_p_value": [self.q_test.p_value], "k": [self.k]},
                            index=pd.Index([self.method], name="method"))

    def _plot(self, ax=None, **kwargs):
        """A forest plot: each study's effect and interval, the pooled effect as a diamond, the
        prediction interval as a bar beneath it."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 0.3 * self.k + 1.5))
        z = stats.norm.isf((1 - self.conf_level) / 2)
        y = np.asarray(self.y)
        se = np.sqrt(np.asarray(self.v))
        pos = np.arange(self.k, 0, -1) + 1.0
        ax.errorbar(y, pos, xerr=z * se, fmt="s", color="black", ecolor="black", markersize=4, capsize=0)
        d = [self.conf_low, self.estimate, self.conf_high, self.estimate]
        ax.fill(d, [0.5, 0.8, 0.5, 0.2], color="black")
        if self.method != "FE":
            ax.plot([self.pred_low, self.pred_high], [0.5, 0.5], color="grey", lw=1, ls="--")
        ax.axvline(0, color="grey", lw=0.5)
        ax.set_yticks(list(pos) + [0.5])
        ax.set_yticklabels([f"Study {i + 1}" for i in range(self.k)] + [f"{self.method} model"])
        ax.set_xlabel("Observed outcome")
        return ax


@public_function(data=("y", "v"), nan_policy=("raise", "omit"))
def meta_analysis(y, v, *, method="REML", hksj=False, conf_level=0.95, tol=1e-5, max_iter=100):
    """Meta-analysis of one effect per study: the pooled effect, tau^2, I^2, H^2, Q and the prediction interval.

    Mirrors ``metafor::rma(yi = y, vi = v, method = method, test = "knha" if hksj else "z", level =
    100 * conf_level)`` and ``predict()`` of it (R package metafor 3.8.1), without moderators. tau^2 is
    estimated as metafor estimates it: REML, ML and EB by Fisher scoring from the Hedges estimate
    (metafor's stopping rule ``|change| <= tol``, ``threshold = 1e-5``), PM by R's ``uniroot`` root of
    the generalised Q (tolerance ``.Machine$double.eps^0.25``), DL, HE and SJ in closed form; "FE" is the
    fixed-effects model. With ``hksj`` the Hartung-Knapp-Sidik-Jonkman t test and interval on k - 1 df.

    Parameters
    ----------
    y : array_like
        The observed effects, one per study.
    v : array_like
        Their sampling variances (positive).
    method : {"REML", "ML", "DL", "PM", "HE", "SJ", "EB", "FE"}
        The tau^2 estimator (metafor's names).
    hksj : bool
        Knapp & Hartung's adjustment (metafor's ``test = "knha"``).
    conf_level : float
        The coverage of the confidence and prediction intervals.
    tol, max_iter : float, int
        metafor's ``control = list(threshold = , maxiter = )`` of Fisher scoring (and ``maxiter`` of PM).
    nan_policy : {"raise", "omit"}
        A study with a NaN effect or variance raises, or is dropped.

    Returns
    -------
    MetaAnalysis
        ``estimate``, ``std_error``, ``statistic``, ``p_value``, ``conf_low``, ``conf_high``, ``tau2``,
        ``tau2_std_error``, ``tau2_conf_low``, ``tau2_conf_high`` (the Q-profile interval of
        ``confint()``), ``i2``, ``h2``, ``q_test`` (an HTest), ``pred_low``, ``pred_high``;
        ``summary()`` prints metafor's ``print.rma`` and ``plot()`` draws a forest plot.

    References
    ----------
    Viechtbauer, W. (2010). Conducting meta-analyses in R with the metafor package. Journal of
    Statistical Software 36(3). R package metafor 3.8.1, ``rma.uni``, ``predict.rma``.
    DerSimonian, R. & Laird, N. (1986). Controlled Clinical Trials 7, 177-188. Paule, R. C. & Mandel,
    J. (1982). J. Res. Natl. Bur. Stand. 87, 377-385. Hartung, J. & Knapp, G. (2001). Statistics in
    Medicine 20, 3875-3889. Higgins, J. P. T. & Thompson, S. G. (2002). Statistics in Medicine 21, 1539-1558.

    Examples
    --------
    >>> from statcore import meta_analysis
    >>> y = [0.10, 0.30, 0.35, 0.65, 0.45, 0.15]
    >>> v = [0.03, 0.03, 0.05, 0.01, 0.05, 0.02]
    >>> fit = meta_analysis(y, v, method="REML")
    >>> round(fit.estimate, 4), round(fit.tau2, 4)
    (0.3463, 0.0331)
    >>> round(fit.q_test.p_value, 4)
    0.0253
    """
    y = as_float_array(y, "y")
    v = as_float_array(v, "v")
    if y.ndim != 1 or v.ndim != 1:
        raise ValueError(f"y and v must be one-dimensional (one value per study); got y of shape {y.shape}, v of "
                         f"shape {v.shape}")
    k = y.size
    if k < 2:
        raise ValueError(f"y has {k} stud{'y' if k == 1 else 'ies'}; a meta-analysis needs at least 2")
    v = as_sampling_variances(v, k, "v")
    method = check_choice(method, "method", META_METHODS)
    hksj = check_flag(hksj, "hksj")
    conf_level = check_in_interval(conf_level, "conf_level", 0.0, 1.0, closed="neither")
    tol = check_positive_real(tol, "tol")
    max_iter = check_positive_int(max_iter, "max_iter")
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        try:
            res = _fit(y, v, method, hksj, conf_level, tol, max_iter)
        except (ArithmeticError, RuntimeWarning):
            res = None
        except ValueError as exc:   # math.sqrt of an overflowed (NaN or negative) quantity
            if "math domain" not in str(exc):
                raise
            res = None
    if res is None or not all(np.isfinite(getattr(res, a)) for a in ("estimate", "std_error", "tau2", "pred_low",
                                                                         "pred_high", "i2", "h2")):
        raise ValueError("y and v are on a scale where the meta-analysis overflows (values near 1e300 or "
                         "variances near 1e-300); rescale y (and v by the square of the factor)")
    return res


def _fit(y, v, method, hksj, conf_level, tol, max_iter) -> MetaAnalysis:
    k = y.size
    tau2, se_tau2, it = _tau2(y, v, method, tol, max_iter)
    w = 1 / (v + tau2)
    S, mu, _, rss = _wsums(w, y)
    mu = float(mu)
    vb = 1 / S
    if hksj:
        s2w = rss / (k - 1) if rss > _EPS else 0.0
        vb = s2w * vb
    se = math.sqrt(vb)
    if hksj:
        df = float(k - 1)
        crit = float(stats.t.isf((1 - conf_level) / 2, df))
    else:
        df = math.inf
        crit = float(stats.norm.isf((1 - conf_level) / 2))
    stat = mu / se if se > 0 else math.copysign(math.inf, mu)
    pval = float(2 * (stats.t.sf(abs(stat), df) if hksj else stats.norm.sf(abs(stat))))
    # heterogeneity: Cochran's Q with the fixed-effects weights
    w0 = 1 / v
    _, _, _, Q = _wsums(w0, y)
    Q = max(0.0, Q)
    Qp = float(stats.chi2.sf(Q, k - 1))
    vt = (k - 1) / _trP(w0)
    if method == "FE":
        i2 = max(0.0, 100 * (Q - (k - 1)) / Q) if Q > 0 else 0.0
        h2 = Q / (k - 1)
    else:
        i2 = 100 * tau2 / (vt + tau2)
        h2 = tau2 / vt + 1
    spread = crit * math.sqrt(vb + tau2)
    t2_ci = (math.nan, math.nan) if method == "FE" else _qprofile(y, v, tau2, conf_level)
    q_test = HTest(statistic=Q, statistic_name="Q", parameter={"df": float(k - 1)}, p_value=Qp,
                   method="Cochran's Q test for heterogeneity", data_name=f"{k} studies",
                   null_value={"tau^2": 0.0}, alternative="greater")
    return MetaAnalysis(estimate=float(mu), std_error=se, statistic=float(stat), p_value=pval,
                        conf_low=float(mu - crit * se), conf_high=float(mu + crit * se), df=df, tau2=float(tau2),
                        tau2_std_error=float(se_tau2), i2=float(i2), h2=float(h2), q_test=q_test,
                        pred_low=float(mu - spread), pred_high=float(mu + spread),
                        tau2_conf_low=t2_ci[0], tau2_conf_high=t2_ci[1], method=method, hksj=hksj, k=k,
                        conf_level=conf_level, iterations=it, y=y.copy(), v=v.copy())
