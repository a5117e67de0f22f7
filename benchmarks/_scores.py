"""Scores of probabilistic predictions for the IVON study (``benchmarks/_bayes_study.py``, run by
``benchmarks/bench_bayes.py`` and the vignette ``vignettes/bayes_ivon.py``), on numpy arrays.

The calibration errors are statcore's public ``statcore.calibration_error`` (one implementation of
the binned calibration error in the project); the proper scoring rules are local helpers.

Classification (``prob``: n x C predicted class probabilities, ``y``: n integer labels):

- :func:`top_label_calibration`: ``statcore.calibration_error`` of the top-label confidence (whether
  the top class is the label, against ``max_c prob[i, c]``) with 15 equal-width bins: its ``ece`` is
  the ECE of Guo et al. (2017), its ``to_frame()`` the reliability table;
- :func:`brier_score`: Brier's (1950) multi-class score, the mean over examples of the squared
  distance between the probability vector and the one-hot label (between 0 and 2);
- :func:`nll_classification`: the mean negative log-probability of the true label.

Regression (a Gaussian predictive ``N(mean, var)`` per example):

- :func:`gaussian_nll`, :func:`gaussian_crps` (the continuous ranked probability score: the Brier
  score integrated over all thresholds, in closed form for a Gaussian);
- :func:`regression_calibration_error`: Kuleshov et al.'s (2018) calibration of the predictive
  quantiles, read at the centres of 15 equal-width bins of probability levels (through
  ``statcore.calibration_error``).
"""
from __future__ import annotations

import math

import numpy as np
from scipy import special, stats
from statcore import calibration_error

N_BINS = 15


def _check_prob(prob, y):
    prob = np.asarray(prob, dtype=float)
    y = np.asarray(y)
    if prob.ndim != 2 or y.ndim != 1 or prob.shape[0] != y.shape[0] or prob.shape[0] == 0:
        raise ValueError(f"prob must be n x C and y n labels, got shapes {prob.shape} and {y.shape}")
    if y.dtype.kind not in "iu" or y.min() < 0 or y.max() >= prob.shape[1]:
        raise ValueError(f"y must hold integer labels in 0..{prob.shape[1] - 1}")
    if not np.isfinite(prob).all() or (prob < 0).any():
        raise ValueError("prob must hold finite non-negative probabilities")
    return prob, y.astype(np.int64)


def _check_bins(n_bins):
    if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive int, got {n_bins!r}")
    return int(n_bins)


def top_label_calibration(prob, y, *, n_bins: int = N_BINS):
    """``statcore.calibration_error`` of the top-label confidence: the outcome is whether the top class
    (``argmax``: ties go to the first class) is the label, the probability ``max_c prob[i, c]``, in
    ``n_bins`` equal-width bins ``(lo, hi]`` of [0, 1] (the first also takes 0). ``.ece`` is the ECE
    of Guo et al. (2017, eq. 3; Naeini et al., 2015), between 0 and 1; ``.to_frame()`` the reliability
    table (``n``, ``predicted``: the mean confidence, ``observed``: the accuracy, per bin)."""
    prob, y = _check_prob(prob, y)
    n_bins = _check_bins(n_bins)
    return calibration_error(prob.argmax(axis=1) == y, prob.max(axis=1), n_bins=n_bins)


def brier_score(prob, y) -> float:
    """Brier's multi-class score: mean_i sum_c (prob[i, c] - 1{y_i = c})^2 (0 is perfect, 2 the worst)."""
    prob, y = _check_prob(prob, y)
    onehot = np.zeros_like(prob)
    onehot[np.arange(y.size), y] = 1.0
    return float(np.mean(np.sum((prob - onehot) ** 2, axis=1)))


def nll_classification(log_prob, y) -> float:
    """Mean negative log-probability of the true label, from log-probabilities (n x C)."""
    log_prob = np.asarray(log_prob, dtype=float)
    _check_prob(np.exp(log_prob), y)
    return float(-np.mean(log_prob[np.arange(len(y)), np.asarray(y, dtype=np.int64)]))


def _check_gauss(y, mean, var):
    y, mean, var = (np.asarray(a, dtype=float).ravel() for a in (y, mean, var))
    if not (y.shape == mean.shape == var.shape) or y.size == 0:
        raise ValueError("y, mean and var must have one value per example")
    if not (np.isfinite(y).all() and np.isfinite(mean).all() and np.isfinite(var).all()) or (var <= 0).any():
        raise ValueError("y, mean and var must be finite, var positive")
    return y, mean, var


def gaussian_nll(y, mean, var) -> float:
    """Mean negative log-density of y under N(mean, var)."""
    y, mean, var = _check_gauss(y, mean, var)
    return float(np.mean(0.5 * np.log(2 * math.pi * var) + 0.5 * (y - mean) ** 2 / var))


def gaussian_crps(y, mean, var) -> float:
    """Mean CRPS of N(mean, var) at y: s [z (2 Phi(z) - 1) + 2 phi(z) - 1 / sqrt(pi)], z = (y - mean) / s
    (Gneiting & Raftery, 2007, eq. 21); the integral over thresholds t of the Brier score of the event
    y <= t, in the units of y."""
    y, mean, var = _check_gauss(y, mean, var)
    s = np.sqrt(var)
    z = (y - mean) / s
    return float(np.mean(s * (z * special.erf(z / math.sqrt(2)) + 2 * stats.norm.pdf(z) - 1 / math.sqrt(math.pi))))


def regression_calibration_error(y, mean, var, *, n_bins: int = N_BINS) -> float:
    """mean_j |p_j - mean_i 1{F_i(y_i) <= p_j}| over the centres p_j = (j - 1/2) / B of B equal-width
    bins of probability levels, F_i the predictive CDF (the probability integral transform; Kuleshov,
    Fenner and Ermon, 2018, with absolute instead of squared differences, so that it reads like the
    ECE). Between 0 and 1/2; 0 when the predictive quantiles hold their nominal levels."""
    y, mean, var = _check_gauss(y, mean, var)
    n_bins = _check_bins(n_bins)
    u = stats.norm.cdf((y - mean) / np.sqrt(var))
    levels = (np.arange(n_bins) + 0.5) / n_bins
    # level p_j predicts the event F_i(y_i) <= p_j with probability p_j for every i: the calibration
    # error of these n * B predictions, binned so that bin j holds level p_j, is mean_j |p_j - observed_j|
    hits = u[None, :] <= levels[:, None]
    return calibration_error(hits.ravel(), np.repeat(levels, u.size), n_bins=n_bins).ece
