"""Split-conformal prediction intervals for regression: the absolute and the normalised residual
score (``conformal_interval``) and conformalised quantile regression (``conformal_cqr``), with
Mondrian (group-conditional) calibration; the result ``ConformalIntervals``."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import (apply_nan_policy, as_cal_vector, as_scale, check_choice, check_flag, check_miscoverage,
                       check_nan_policy, check_same_n)
from .._checks.public import public_function
from .._checks.core import _is_pandas
from .._r.rformat import R_DIGITS, format_number
from .._result import Result
from ._base import CalibrationRecord
from ._mondrian import calibrate

__all__ = ["conformal_interval", "conformal_cqr", "ConformalIntervals"]

_SCORES = {"absolute": "absolute residual |y - yhat|",
           "normalized": "normalised residual |y - yhat| / sigma(x)",
           "cqr": "CQR: max(lo - y, y - hi)"}
#: the nan_policy values of the conformal functions: "omit" drops calibration points (rows) with a NaN
CONFORMAL_NAN_POLICIES = ("raise", "omit")


@dataclass(frozen=True, repr=False)
class ConformalIntervals(CalibrationRecord, Result):
    """Split-conformal prediction intervals (:func:`conformal_interval`, :func:`conformal_cqr`).

    Attributes
    ----------
    pred_low, pred_high : numpy.ndarray, shape (n_test,)
        The ends of the intervals (+-inf when the calibration set is too small and
        ``allow_infinite=True``). With CQR and a negative q the interval of a test point whose
        predicted band is narrower than -2q is empty: then ``pred_low > pred_high``.
    q : numpy.ndarray, shape (n_test,)
        The conformal quantile used for each test point (one value, or its group's).
    alpha : float
        The miscoverage.
    score : str
        "absolute", "normalized" or "cqr".
    groups : tuple or None
        The Mondrian groups (sorted labels), None without groups.
    group_q, group_n, group_rank : numpy.ndarray
        Per group (or the one entry without groups): the quantile, the calibration size and the rank
        k = ceil((n + 1)(1 - alpha)) of the quantile among the group's scores.
    test_groups : numpy.ndarray or None
        The group of each test point.
    index : pandas.Index or None
        The index of ``pred_test`` (or ``lo_test``) when it was a pandas Series.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import conformal_interval
    >>> rng = np.random.default_rng(0)
    >>> y_cal = rng.normal(size=99)
    >>> res = conformal_interval(y_cal, np.zeros(99), np.zeros(3), alpha=0.1)
    >>> res
    ConformalIntervals(score='absolute', alpha=0.1, n_cal=99, n_test=3, mean_length=3.149)
    >>> res.to_frame()
       pred_low  pred_high    length         q
    0 -1.574408   1.574408  3.148817  1.574408
    1 -1.574408   1.574408  3.148817  1.574408
    2 -1.574408   1.574408  3.148817  1.574408
    """

    pred_low: np.ndarray
    pred_high: np.ndarray
    q: np.ndarray
    alpha: float
    score: str
    groups: tuple | None
    group_q: np.ndarray
    group_n: np.ndarray
    group_rank: np.ndarray
    test_groups: np.ndarray | None = None
    index: Any = None

    @property
    def length(self) -> np.ndarray:
        """The interval lengths, pred_high - pred_low (0 for an empty CQR interval)."""
        return np.maximum(self.pred_high - self.pred_low, 0.0)

    def _size(self) -> np.ndarray:
        return self.length

    def _observed(self, y) -> np.ndarray:
        yy = as_cal_vector(y, "y")
        if yy.size != self.n_test:
            raise ValueError(f"y must have one value per test point ({self.n_test}), got {yy.size}")
        return (self.pred_low <= yy) & (yy <= self.pred_high)

    def summary(self, digits: int = R_DIGITS) -> str:
        """The score, alpha, the calibration (per group when Mondrian), the coverage band and the
        interval lengths."""
        lines = ["", "\tSplit conformal prediction intervals" + (" (Mondrian)" if self.groups is not None else ""),
                 "", f"score:  {_SCORES[self.score]}"]
        lines += self._calibration_lines(digits)
        length = self.length
        if np.all(np.isfinite(length)):
            lines.append(f"interval length: mean {format_number(float(length.mean()), digits)}, "
                         f"median {format_number(float(np.median(length)), digits)}, range "
                         f"[{format_number(float(length.min()), digits)}, {format_number(float(length.max()), digits)}]")
        else:
            lines.append(f"interval length: {int(np.sum(~np.isfinite(length)))} infinite intervals")
        empty = int(np.sum(self.pred_low > self.pred_high))
        if self.score == "cqr" and empty:
            lines.append(f"{empty} empty intervals (q < 0 narrower than the band)")
        lines.append("")
        return "\n".join(lines) + "\n"

    def to_frame(self):
        """One row per test point: ``pred_low``, ``pred_high`` (the attributes of the same names),
        ``length``, ``q`` and, with Mondrian calibration, ``group`` (the index of the Series passed as test
        predictions)."""
        import pandas as pd

        cols = {"pred_low": self.pred_low, "pred_high": self.pred_high, "length": self.length, "q": self.q}
        if self.test_groups is not None:
            cols["group"] = self.test_groups
        return pd.DataFrame(cols, index=self.index)

    def _repr_parts(self):
        finite = self.length[np.isfinite(self.length)]
        mean_length = float(self.length.mean()) if finite.size == self.length.size else float("inf")
        parts = [("score", self.score), ("alpha", self.alpha), ("n_cal", self.n_cal), ("n_test", self.n_test)]
        if self.groups is not None:
            parts.append(("groups", len(self.groups)))
        return parts + [("mean_length", mean_length)]

    def _plot(self, ax=None, y=None, max_points: int = 300):
        """The intervals of (at most ``max_points``) test points, ordered by their midpoint, with the
        outcomes ``y`` when given (covered in blue, missed in red). Returns the Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
        n = self.n_test
        take = np.arange(n) if n <= max_points else np.linspace(0, n - 1, max_points).astype(int)
        mid = 0.5 * (self.pred_low[take] + self.pred_high[take])
        order = take[np.argsort(mid, kind="stable")]
        x = np.arange(order.size)
        ax.vlines(x, self.pred_low[order], self.pred_high[order], color="0.6", lw=1.5, label="interval")
        if y is not None:
            yy = as_cal_vector(y, "y")
            if yy.size != n:
                raise ValueError(f"y must have one value per test point ({n}), got {yy.size}")
            hit = self._observed(yy)[order]
            ax.scatter(x[hit], yy[order][hit], s=8, color="C0", zorder=3, label="covered")
            ax.scatter(x[~hit], yy[order][~hit], s=12, color="C3", zorder=3, label="not covered")
            ax.legend(fontsize=8, loc="best")
        ax.set_xlabel("test point (ordered by interval midpoint)")
        ax.set_ylabel("y")
        ax.set_title(f"split conformal intervals ({self.score}), alpha = {self.alpha:g}", fontsize=10)
        return ax


def _index_of(x):
    if _is_pandas(x) and getattr(x, "ndim", 0) == 1:
        return x.index
    return None


def _cal_arrays(nan_policy: str, **arrays):
    """Calibration vectors (NaN allowed for nan_policy="omit"), same length; returns (arrays, keep)."""
    nan_policy = check_nan_policy(nan_policy, CONFORMAL_NAN_POLICIES)
    out = {k: as_cal_vector(v, k, allow_nan=True) for k, v in arrays.items()}
    check_same_n(**out)
    res = apply_nan_policy(nan_policy, **out)
    return list(res.arrays.values()), res.keep


@public_function(data=("y_cal", "pred_cal", "pred_test"), nan_policy=("raise", "omit"),
                 rows=("y_cal", "pred_cal"))
def conformal_interval(y_cal, pred_cal, pred_test, *, alpha, score="absolute", scale_cal=None, scale_test=None,
                       groups_cal=None, groups_test=None, allow_infinite=False, nan_policy="raise"):
    """Split-conformal prediction intervals around point predictions.

    From the calibration outcomes ``y_cal`` and the model's predictions ``pred_cal`` (made by a model
    that never saw them), the scores s_i = ``|y_i - yhat_i|`` ("absolute") or ``|y_i - yhat_i| / sigma(x_i)``
    ("normalized", with a difficulty estimate sigma > 0, e.g. a predicted absolute residual) give
    q = :func:`conformal_quantile`; each test interval is yhat +- q (absolute) or
    yhat +- q sigma(x) (normalised), which covers a new exchangeable outcome with probability in
    [1 - alpha, 1 - alpha + 1/(n + 1)). With ``groups_cal`` and ``groups_test`` the quantile is taken
    within each group (Mondrian conformal prediction), which guarantees the coverage within every
    group.

    Parameters
    ----------
    y_cal, pred_cal : array_like, shape (n,)
        Calibration outcomes and their predictions.
    pred_test : array_like, shape (n_test,)
        Predictions at the test points (a pandas Series keeps its index in ``to_frame()``).
    alpha : float
        The miscoverage, in (0, 1).
    score : {"absolute", "normalized"}
        The nonconformity score.
    scale_cal, scale_test : array_like, shape (n,) and (n_test,), optional
        The positive difficulty estimates sigma(x) of the "normalized" score (required for it,
        refused for "absolute").
    groups_cal, groups_test : array_like, optional
        Group labels (numbers or strings) of the calibration and the test points, for Mondrian
        calibration; both or neither. A test group without calibration points is an error.
    allow_infinite : bool, default False
        Return infinite intervals (instead of an error) when a calibration set or group is smaller
        than ceil(1/alpha) - 1 (see :func:`conformal_quantile`).
    nan_policy : {"raise", "omit"}
        "omit" drops the calibration points with a NaN in any calibration input (the remaining points
        are exchangeable with the test points when the missingness is unrelated to the outcome); a NaN
        in a test input is always an error.

    Returns
    -------
    ConformalIntervals
        ``pred_low``, ``pred_high``, ``q`` (per test point), the per-group calibration, ``covers(y)``,
        ``coverage(y)``, ``coverage_table(y)``, ``to_frame()``, ``plot()``.

    Notes
    -----
    The intervals equal MAPIE's ``SplitConformalRegressor`` (``conformity_score="absolute"``, a
    prefit estimator) and crepes' ``ConformalRegressor`` (standard, normalised with ``sigmas``,
    Mondrian with ``bins``) given the same predictions (checked to 1e-12 in the tests). Unlike
    crepes, a test point whose group has no calibration data is refused rather than given the
    interval [0, 0], and a too-small calibration set is an error unless ``allow_infinite``.

    References
    ----------
    Papadopoulos, Proedrou, Vovk & Gammerman (2002), Inductive confidence machines for regression,
    ECML; Lei, G'Sell, Rinaldo, Tibshirani & Wasserman (2018), Distribution-free predictive inference
    for regression, *JASA* 113, 1094-1111 (split conformal; locally weighted residuals, section 5.2);
    Vovk, Lindsay, Nouretdinov & Gammerman (2003), Mondrian confidence machine, technical report;
    Bostrom & Johansson (2020), Mondrian conformal regressors, PMLR 128 (crepes).

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import conformal_interval
    >>> rng = np.random.default_rng(1)
    >>> x_cal, x_test = rng.uniform(0, 2, 500), np.array([0.5, 1.5])
    >>> y_cal = x_cal + x_cal * rng.normal(size=500)        # noise grows with x
    >>> res = conformal_interval(y_cal, x_cal, x_test, alpha=0.1, score="normalized",
    ...                          scale_cal=x_cal, scale_test=x_test)
    >>> res.pred_low.round(3), res.pred_high.round(3)
    (array([-0.388, -1.165]), array([1.388, 4.165]))
    """
    alpha = check_miscoverage(alpha)
    score = check_choice(score, "score", ("absolute", "normalized"), aliases={"normalised": "normalized"})
    allow_infinite = check_flag(allow_infinite, "allow_infinite")
    index = _index_of(pred_test)
    pt = as_cal_vector(pred_test, "pred_test")
    if score == "absolute":
        for name, v in (("scale_cal", scale_cal), ("scale_test", scale_test)):
            if v is not None:
                raise ValueError(f"{name} is used only by score='normalized'; drop it or pass score='normalized'")
        (y, pc), keep = _cal_arrays(nan_policy, y_cal=y_cal, pred_cal=pred_cal)
        scores = np.abs(y - pc)
        st = None
    else:
        for name, v in (("scale_cal", scale_cal), ("scale_test", scale_test)):
            if v is None:
                raise ValueError(f"score='normalized' needs {name} (the difficulty estimates sigma(x) > 0)")
        sc = as_scale(scale_cal, "scale_cal", allow_nan=True)
        (y, pc, sc), keep = _cal_arrays(nan_policy, y_cal=y_cal, pred_cal=pred_cal, scale_cal=sc)
        st = as_scale(scale_test, "scale_test", pt.size, other="pred_test")
        scores = np.abs(y - pc) / sc
    cal = calibrate(scores, pt.size, alpha, allow_infinite, groups_cal, groups_test, keep)
    half = cal.q_test if st is None else cal.q_test * st
    return ConformalIntervals(pred_low=pt - half, pred_high=pt + half, q=cal.q_test, alpha=alpha, score=score,
                              groups=cal.labels, group_q=cal.group_q, group_n=cal.group_n,
                              group_rank=cal.group_rank, test_groups=cal.test_groups, index=index)


@public_function(data=("y_cal", "lo_cal", "hi_cal", "lo_test", "hi_test"), nan_policy=("raise", "omit"),
                 rows=("y_cal", "lo_cal", "hi_cal"))
def conformal_cqr(y_cal, lo_cal, hi_cal, lo_test, hi_test, *, alpha, groups_cal=None, groups_test=None,
                  allow_infinite=False, nan_policy="raise"):
    """Conformalised quantile regression (CQR): split-conformal intervals around predicted quantiles.

    From the calibration outcomes and the predicted lower and upper quantiles (a band [lo, hi] from a
    quantile regression fitted elsewhere), the scores s_i = max(lo_i - y_i, y_i - hi_i) give
    q = :func:`conformal_quantile`, and the test interval is [lo - q, hi + q]: q > 0 widens a band that
    undercovers, q < 0 narrows one that overcovers. Coverage as for :func:`conformal_interval`,
    within each group with Mondrian calibration.

    Parameters
    ----------
    y_cal, lo_cal, hi_cal : array_like, shape (n,)
        Calibration outcomes and their predicted lower and upper quantiles.
    lo_test, hi_test : array_like, shape (n_test,)
        The predicted quantiles at the test points (a pandas Series ``lo_test`` keeps its index).
    alpha : float
        The miscoverage, in (0, 1).
    groups_cal, groups_test : array_like, optional
        Group labels for Mondrian calibration; both or neither.
    allow_infinite : bool, default False
        Return infinite intervals instead of an error when a calibration set or group is too small.
    nan_policy : {"raise", "omit"}
        "omit" drops calibration points with a NaN; a NaN in a test input is an error.

    Returns
    -------
    ConformalIntervals
        With ``score="cqr"``. With q < 0 an interval whose band is narrower than -2q is empty
        (``pred_low > pred_high``, length 0), as in Romano et al.

    Notes
    -----
    The predicted band need not be ordered (lo <= hi); the score is defined either way. The intervals
    equal MAPIE's ``ConformalizedQuantileRegressor`` with prefit quantile estimators and
    ``symmetric_correction=False`` (its default), given the same band.

    References
    ----------
    Romano, Patterson & Candes (2019), Conformalized quantile regression, *NeurIPS* 32, Theorem 1;
    Angelopoulos & Bates (2023), A gentle introduction to conformal prediction, section 2.2.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import conformal_cqr
    >>> rng = np.random.default_rng(2)
    >>> y_cal = rng.normal(size=200)
    >>> res = conformal_cqr(y_cal, np.full(200, -1.0), np.full(200, 1.0), [-1.0], [1.0], alpha=0.1)
    >>> float(res.q[0]) > 0, res.pred_low.round(3), res.pred_high.round(3)
    (True, array([-1.678]), array([1.678]))
    """
    alpha = check_miscoverage(alpha)
    allow_infinite = check_flag(allow_infinite, "allow_infinite")
    index = _index_of(lo_test)
    (y, lo, hi), keep = _cal_arrays(nan_policy, y_cal=y_cal, lo_cal=lo_cal, hi_cal=hi_cal)
    lt = as_cal_vector(lo_test, "lo_test")
    ht = as_cal_vector(hi_test, "hi_test")
    check_same_n(lo_test=lt, hi_test=ht)
    scores = np.maximum(lo - y, y - hi)
    cal = calibrate(scores, lt.size, alpha, allow_infinite, groups_cal, groups_test, keep, test_name="lo_test")
    return ConformalIntervals(pred_low=lt - cal.q_test, pred_high=ht + cal.q_test, q=cal.q_test, alpha=alpha,
                              score="cqr", groups=cal.labels, group_q=cal.group_q, group_n=cal.group_n,
                              group_rank=cal.group_rank, test_groups=cal.test_groups, index=index)
