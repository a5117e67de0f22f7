"""Scores that judge an uncertainty (or confidence) estimate beyond the ROC area: the area under the
precision-recall curve (average precision), the prediction-rejection ratio, the expected
calibration error with its reliability diagram, and the risk-coverage curve with its area.

Ties in a score are resolved in expectation over a random order of the tied observations (never by
input order), so the answers do not depend on how the data were sorted."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._checks import show_value, apply_nan_policy, as_vector, check_choice, check_nan_policy, check_positive_int
from .._checks.public import public_function
from .._checks.roc import ROC_NAN_POLICIES, as_binary_outcome, as_probabilities, as_roc_data
from .._result import Result
from ._curve import _groups

__all__ = ["auprc", "prediction_rejection_ratio", "calibration_error", "CalibrationResult", "risk_coverage",
           "RiskCoverageResult"]


@public_function(data=("y", "score"), nan_policy=("raise", "omit"))
def auprc(y, score, *, levels=None, nan_policy="raise"):
    """The area under the precision-recall curve as average precision, equal to scikit-learn's
    ``average_precision_score``.

    Parameters
    ----------
    y : array_like
        Class labels, two distinct values; the second of ``levels`` is the positive class.
    score : array_like
        Scores, higher meaning positive.
    levels : tuple, optional
        ``(negative, positive)`` labels; default the two labels in sorted order (0, 1).
    nan_policy : {"raise", "omit"}
        Missing scores or labels: refuse, or drop those observations.

    Returns
    -------
    float
        ``AP = sum_k (R_k - R_{k-1}) P_k`` over the distinct thresholds, from the highest score
        down, with precision ``P_k`` and recall ``R_k`` of the observations at or above the k-th
        threshold (no interpolation: the trapezoid rule over-estimates the area).

    References
    ----------
    Manning, C. D., Raghavan, P. & Schuetze, H. (2008). Introduction to Information Retrieval,
    chapter 8 (average precision). scikit-learn's ``average_precision_score``.

    Examples
    --------
    >>> import statcore
    >>> statcore.auprc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.8333333333333333
    """
    s, is_case, _, _ = as_roc_data(y, score, levels, nan_policy)
    uniq, gid, c, d = _groups(-s, is_case)  # ascending in -s: the highest scores first
    tp = np.cumsum(c)
    total = np.cumsum(c + d)
    return float(np.sum(c / tp[-1] * (tp / total)))


# ----------------------------------------------------------------------------------------------
# rejection curves
# ----------------------------------------------------------------------------------------------

def _loss_and_uncertainty(loss, uncertainty, nan_policy, *, binary=False):
    nan_policy = check_nan_policy(nan_policy, ROC_NAN_POLICIES)
    lo = as_vector(loss, "loss", allow_nan=True)
    u = as_vector(uncertainty, "uncertainty", allow_nan=True)
    if lo.size == 0:
        raise ValueError("loss is empty")
    if u.size == 0:
        raise ValueError("uncertainty is empty")
    if lo.size != u.size:
        raise ValueError(f"loss and uncertainty must have the same length: loss has {lo.size}, "
                         f"uncertainty has {u.size}")
    for name, a in (("loss", lo), ("uncertainty", u)):
        if np.isinf(a).any():
            raise ValueError(f"{name} contains infinite values; all values must be finite")
    lo, u = apply_nan_policy(nan_policy, loss=lo, uncertainty=u)
    if np.any(lo < 0):
        raise ValueError(f"loss must be non-negative (an error or a loss per observation); found {show_value(lo.min())}")
    return np.ascontiguousarray(lo), np.ascontiguousarray(u)


def _kept_loss_curve(loss: np.ndarray, key: np.ndarray):
    """Retention curve: observations are accepted in increasing ``key`` (ties as one block, in
    expectation over their order). Returns the counts accepted at the block ends (0 first) and the
    summed loss accepted there; between ends the expected curve is linear."""
    order = np.argsort(key, kind="stable")
    ks = key[order]
    ls = loss[order]
    ends = np.flatnonzero(np.r_[ks[1:] != ks[:-1], True]) + 1
    cum = np.cumsum(ls)
    return np.r_[0, ends], np.r_[0.0, cum[ends - 1]]


@public_function(data=("loss", "uncertainty"), nan_policy=("raise", "omit"))
def prediction_rejection_ratio(loss, uncertainty, *, nan_policy="raise"):
    """The prediction-rejection ratio (PRR) of an uncertainty score (Malinin et al.).

    Observations are rejected from the most uncertain down; a rejected observation is handed to an
    oracle and costs no loss. The rejection curve is the mean loss over all ``n`` observations
    (rejected ones counting 0) against the fraction rejected. PRR compares the area between the
    random-rejection line and the score's curve with that between the random line and the oracle's
    curve (rejecting the largest losses first):

    ``PRR = (A_random - A_score) / (A_random - A_oracle)``

    1 for a score that ranks losses perfectly, 0 for a random one, negative for a harmful one.

    Parameters
    ----------
    loss : array_like
        A non-negative loss per observation: 0/1 errors (1 - correct), or any graded loss.
    uncertainty : array_like
        The uncertainty score, higher meaning "reject first".
    nan_policy : {"raise", "omit"}
        Missing values: refuse, or drop those observations.

    Returns
    -------
    float
        The ratio (NaN is refused: a loss constant over the observations has no oracle gain, and a
        ``ValueError`` says so).

    Notes
    -----
    Ties in ``uncertainty`` are rejected in expectation over their order (the curve is linear across
    a tied block), so PRR does not depend on the input order. Areas use the exact piecewise-linear
    curve over the fractions ``k / n``. Some papers (LM-Polygraph) plot the mean quality of the
    retained observations instead; this is Malinin & Gales' definition, in which rejected
    observations count as correct.

    References
    ----------
    Malinin, A., Mlodozeniec, B. & Gales, M. (2020). Ensemble distribution distillation. ICLR.
    Malinin, A. & Gales, M. (2021). Uncertainty estimation in autoregressive structured prediction.
    ICLR (section on prediction-rejection ratio).

    Examples
    --------
    >>> import statcore
    >>> err = [0, 0, 1, 0, 1, 1]
    >>> statcore.prediction_rejection_ratio(err, [0.1, 0.2, 0.9, 0.3, 0.8, 0.7])
    1.0
    >>> round(statcore.prediction_rejection_ratio(err, [0.1, 0.9, 0.2, 0.3, 0.8, 0.7]), 4)
    0.1111
    """
    lo, u = _loss_and_uncertainty(loss, uncertainty, nan_policy)
    n = lo.size
    total = lo.sum()

    def area(key):
        # kept loss as a function of the number accepted, accepting by increasing key; the rejection
        # curve at fraction f = 1 - k/n is kept_loss(k) / n
        k, kept = _kept_loss_curve(lo, key)
        return float(np.sum((k[1:] - k[:-1]) / n * (kept[1:] + kept[:-1]) / 2) / n)

    a_score = area(u)
    a_oracle = area(lo)
    a_random = total / n / 2
    if a_random - a_oracle <= 0:
        raise ValueError("loss is the same for every observation, so no rejection can help and the "
                         "prediction-rejection ratio is undefined (0 / 0)")
    return float((a_random - a_score) / (a_random - a_oracle))


@dataclass(frozen=True, repr=False)
class RiskCoverageResult(Result):
    """A risk-coverage curve (selective prediction) and its area.

    Attributes
    ----------
    coverage, risk : numpy.ndarray
        The fraction accepted (the least uncertain first) and the mean loss of the accepted
        observations, at the end of each block of tied uncertainty.
    aurc : float
        The area under the risk-coverage curve: the mean over k = 1..n of the risk of the k least
        uncertain observations (ties in expectation over their order).
    optimal_aurc : float
        The area of the oracle that accepts the smallest losses first.
    excess_aurc : float
        ``aurc - optimal_aurc`` (E-AURC).
    n : int

    Examples
    --------
    >>> import statcore
    >>> res = statcore.risk_coverage([0, 1, 0, 1], [0.1, 0.9, 0.2, 0.5])
    >>> res.aurc, res.excess_aurc
    (0.20833333333333331, 0.0)
    """

    aurc: float
    optimal_aurc: float
    excess_aurc: float
    n: int
    coverage: np.ndarray = field(repr=False)
    risk: np.ndarray = field(repr=False)

    def _repr_parts(self):
        return [("aurc", self.aurc), ("excess_aurc", self.excess_aurc), ("n", self.n)]

    def summary(self) -> str:
        return ("\n\tRisk-coverage curve\n\n"
                f"n = {self.n}, risk at full coverage = {self.risk[-1]:.4g}\n"
                f"AURC = {self.aurc:.4g}, optimal AURC = {self.optimal_aurc:.4g}, "
                f"E-AURC = {self.excess_aurc:.4g}\n")

    def _html_title(self) -> str:
        return f"Risk-coverage curve: AURC {self.aurc:.4g}"

    def to_frame(self):
        """One row per point of the curve: ``coverage``, ``risk``."""
        import pandas as pd

        return pd.DataFrame({"coverage": np.array(self.coverage), "risk": np.array(self.risk)})

    def _plot(self, ax=None, **kwargs):
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.5))
        ax.plot(self.coverage, self.risk, label=kwargs.pop("label", f"AURC = {self.aurc:.3f}"), **kwargs)
        ax.axhline(self.risk[-1], color="0.6", lw=0.8, ls="--", label="risk at full coverage")
        ax.set_xlim(0, 1)
        ax.set_xlabel("Coverage")
        ax.set_ylabel("Selective risk")
        ax.legend(frameon=False)
        return ax


def _aurc(loss: np.ndarray, key: np.ndarray) -> float:
    """Mean over k = 1..n of (expected) loss of the k smallest keys / k, ties in expectation."""
    n = loss.size
    k_end, kept = _kept_loss_curve(loss, key)
    k = np.arange(1, n + 1)
    block = np.searchsorted(k_end, k, side="left")  # block j covers k_end[j-1] < k <= k_end[j]
    k0 = k_end[block - 1]
    size = k_end[block] - k0
    before = kept[block - 1]
    inside = kept[block] - before
    return float(np.mean((before + (k - k0) * inside / size) / k))


@public_function(data=("loss", "uncertainty"), nan_policy=("raise", "omit"))
def risk_coverage(loss, uncertainty, *, nan_policy="raise"):
    """The risk-coverage curve of selective prediction and its area (AURC), with the oracle's area
    and the excess (E-AURC).

    Observations are accepted from the least uncertain up; at coverage ``k / n`` the selective risk
    is the mean loss of the ``k`` accepted.

    Parameters
    ----------
    loss : array_like
        A non-negative loss per observation (0/1 errors, or a graded loss).
    uncertainty : array_like
        The uncertainty score, lower meaning "accept first" (pass ``-confidence`` for a confidence).
    nan_policy : {"raise", "omit"}
        Missing values: refuse, or drop those observations.

    Returns
    -------
    RiskCoverageResult
        ``coverage``, ``risk``, ``aurc``, ``optimal_aurc``, ``excess_aurc``; ``plot()`` draws the curve.

    Notes
    -----
    AURC is the mean of the selective risks at the n coverages k/n (Geifman et al. 2019); tied
    uncertainties are accepted in expectation over their order.

    References
    ----------
    Geifman, Y. & El-Yaniv, R. (2017). Selective classification for deep neural networks. NeurIPS.
    Geifman, Y., Uziel, G. & El-Yaniv, R. (2019). Bias-reduced uncertainty estimation for deep neural
    classifiers. ICLR (AURC and E-AURC).

    Examples
    --------
    >>> import statcore
    >>> res = statcore.risk_coverage([0, 1, 0, 1, 0], [0.1, 0.9, 0.2, 0.5, 0.6])
    >>> round(res.aurc, 4), round(res.optimal_aurc, 4)
    (0.1967, 0.13)
    """
    lo, u = _loss_and_uncertainty(loss, uncertainty, nan_policy)
    k_end, kept = _kept_loss_curve(lo, u)
    a = _aurc(lo, u)
    opt = _aurc(lo, lo)
    return RiskCoverageResult(aurc=a, optimal_aurc=opt, excess_aurc=a - opt, n=int(lo.size),
                              coverage=k_end[1:] / lo.size, risk=kept[1:] / k_end[1:])


# ----------------------------------------------------------------------------------------------
# calibration
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True, repr=False)
class CalibrationResult(Result):
    """Expected (and maximum) calibration error with the reliability table.

    Attributes
    ----------
    ece : float
        ``sum_b n_b / n * |observed_b - predicted_b|`` over the non-empty bins.
    mce : float
        The largest ``|observed_b - predicted_b|``.
    n_bins : int
    strategy : str
    edges : numpy.ndarray
        Bin edges.
    counts, predicted, observed : numpy.ndarray
        Per bin: observations, mean predicted probability, observed frequency (NaN for an empty bin).

    Examples
    --------
    >>> import statcore
    >>> res = statcore.calibration_error([0, 1, 1, 1], [0.2, 0.6, 0.8, 0.9], n_bins=2)
    >>> round(res.ece, 4)
    0.225
    """

    ece: float
    mce: float
    n_bins: int
    strategy: str
    n: int
    edges: np.ndarray = field(repr=False)
    counts: np.ndarray = field(repr=False)
    predicted: np.ndarray = field(repr=False)
    observed: np.ndarray = field(repr=False)

    def _repr_parts(self):
        return [("ece", self.ece), ("mce", self.mce), ("n_bins", self.n_bins), ("strategy", self.strategy)]

    def summary(self) -> str:
        lines = ["", "\tCalibration error (reliability table)", "",
                 f"n = {self.n}, {self.n_bins} {self.strategy} bins", "",
                 f"{'bin':>14} {'n':>7} {'predicted':>10} {'observed':>9}"]
        for i in range(self.n_bins):
            lab = f"({self.edges[i]:.3g}, {self.edges[i + 1]:.3g}]"
            if self.counts[i] == 0:
                lines.append(f"{lab:>14} {0:>7d} {'':>10} {'':>9}")
            else:
                lines.append(f"{lab:>14} {int(self.counts[i]):>7d} {self.predicted[i]:>10.4f} {self.observed[i]:>9.4f}")
        lines += ["", f"ECE = {self.ece:.4g}, MCE = {self.mce:.4g}", ""]
        return "\n".join(lines)

    def _html_title(self) -> str:
        return f"Expected calibration error {self.ece:.4g} ({self.n_bins} {self.strategy} bins)"

    def to_frame(self):
        """One row per bin: ``bin_low``, ``bin_high``, ``n``, ``predicted``, ``observed``, ``gap``."""
        import pandas as pd

        e = np.asarray(self.edges)
        return pd.DataFrame({"bin_low": e[:-1], "bin_high": e[1:], "n": np.asarray(self.counts),
                             "predicted": np.asarray(self.predicted), "observed": np.asarray(self.observed),
                             "gap": np.asarray(self.observed) - np.asarray(self.predicted)})

    def _plot(self, ax=None, **kwargs):
        """The reliability diagram: observed frequency per bin against the mean predicted
        probability, bars spanning each bin, the diagonal of perfect calibration."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(4.5, 4.5))
        e = np.asarray(self.edges)
        ok = np.asarray(self.counts) > 0
        ax.bar(e[:-1][ok], np.asarray(self.observed)[ok], width=np.diff(e)[ok], align="edge",
               color=kwargs.pop("color", "C0"), alpha=0.6, edgecolor="white", label="observed")
        ax.plot(np.asarray(self.predicted)[ok], np.asarray(self.observed)[ok], "o", color="C3", ms=4,
                label="bin means")
        ax.plot([0, 1], [0, 1], color="0.5", lw=0.8, ls="--", label="perfect calibration")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_aspect("equal")
        ax.set_xlabel("Predicted probability")
        ax.set_ylabel("Observed frequency")
        ax.set_title(f"Reliability diagram (ECE = {self.ece:.3f})", fontsize=10)
        ax.legend(frameon=False, loc="upper left", fontsize=8)
        return ax


@public_function(data=("y", "prob"), nan_policy=("raise", "omit"))
def calibration_error(y, prob, *, n_bins=15, strategy="uniform"):
    """The expected calibration error (ECE) of predicted probabilities, with the reliability table
    and diagram.

    Parameters
    ----------
    y : array_like
        The outcome, 0/1 or booleans (for a classifier's top label: 1 when the prediction was right).
    prob : array_like
        The predicted probability that ``y`` is 1 (for the top label: the confidence).
    n_bins : int
        Number of bins (Guo et al. use 15).
    strategy : {"uniform", "quantile"}
        Equal-width bins on [0, 1], or bins at the quantiles of ``prob`` (equal counts), as
        scikit-learn's ``calibration_curve``. A probability on an edge belongs to the lower bin
        (bins ``(a, b]``, the first one closed).
    nan_policy : {"raise", "omit"}
        A NaN in ``y`` or ``prob``: "raise" refuses it (naming the argument and the count), "omit"
        drops the observations (rows) holding one.

    Returns
    -------
    CalibrationResult
        ``ece``, ``mce``, the per-bin ``counts``, ``predicted`` (mean probability) and ``observed``
        (frequency of 1), and ``plot()``: the reliability diagram.

    Notes
    -----
    ``predicted`` and ``observed`` of the non-empty bins equal scikit-learn's
    ``calibration_curve(y, prob, n_bins=n_bins, strategy=strategy)`` (``prob_pred``, ``prob_true``).

    References
    ----------
    Naeini, M. P., Cooper, G. F. & Hauskrecht, M. (2015). Obtaining well calibrated probabilities
    using Bayesian binning. AAAI.
    Guo, C., Pleiss, G., Sun, Y. & Weinberger, K. Q. (2017). On calibration of modern neural
    networks. ICML.

    Examples
    --------
    >>> import numpy as np
    >>> import statcore
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(size=2000)
    >>> y = rng.uniform(size=2000) < p
    >>> res = statcore.calibration_error(y, p, n_bins=10)
    >>> res.ece < 0.05
    True
    """
    yy = as_binary_outcome(y, "y")
    p = as_probabilities(prob, "prob")
    if p.size != yy.size:
        raise ValueError(f"y and prob must have the same length: y has {yy.size}, prob has {p.size}")
    n_bins = check_positive_int(n_bins, "n_bins")
    strategy = check_choice(strategy, "strategy", ("uniform", "quantile"))
    if strategy == "uniform":
        edges = np.linspace(0.0, 1.0, n_bins + 1)
    else:
        edges = np.percentile(p, np.linspace(0, 100, n_bins + 1))
    b = np.searchsorted(edges[1:-1], p, side="left")
    counts = np.bincount(b, minlength=n_bins).astype(np.int64)
    sum_p = np.bincount(b, weights=p, minlength=n_bins)
    sum_y = np.bincount(b, weights=yy, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        pred = np.where(counts > 0, sum_p / counts, np.nan)
        obs = np.where(counts > 0, sum_y / counts, np.nan)
    ok = counts > 0
    gap = np.abs(obs[ok] - pred[ok])
    return CalibrationResult(ece=float(np.sum(counts[ok] / p.size * gap)), mce=float(gap.max()), n_bins=n_bins,
                             strategy=strategy, n=int(p.size), edges=edges, counts=counts, predicted=pred,
                             observed=obs)
