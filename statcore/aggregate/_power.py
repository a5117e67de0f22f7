"""Weighted power means along the last axis: the harmonic (p = -1), geometric (p = 0) and arithmetic
(p = 1) means and every other real p, with the minimum and maximum at p = -inf and inf.

The mean is computed on the log scale, ``log M_p = (1/p) log sum_i w_i exp(p log x_i)`` with the
weights normalised to sum to one (``scipy.special.logsumexp``), so that scores of 1e300 or 1e-300
neither overflow nor underflow. A component with zero weight takes no part at all (its score may be
anything, zero included). The zero rule: for p <= 0 a zero score with a positive weight makes the
mean 0 (the weighted harmonic mean of HiFD-style composites is 0 as soon as one component with
positive weight is 0).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import logsumexp

from .._checks import as_float_array, as_nonneg_scores, check_nan_policy, check_power_exponent
from .._checks.public import public_function

__all__ = ["power_mean"]


def pmean_core(x: np.ndarray, w: np.ndarray, p: float) -> np.ndarray:
    """The weighted power mean along the last axis of validated arrays (broadcast): x >= 0 finite,
    w >= 0 with a positive sum on every slice."""
    x, w = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(w, dtype=np.float64))
    pos = w > 0
    if p == np.inf:
        return np.max(np.where(pos, x, -np.inf), axis=-1)
    if p == -np.inf:
        return np.min(np.where(pos, x, np.inf), axis=-1)
    wn = w / w.sum(axis=-1, keepdims=True)
    m = np.max(np.where(pos, x, 0.0), axis=-1, keepdims=True)
    m = np.where(m > 0, m, 1.0)
    x = x / m                                               # in [0, 1] on the components that count
    zero_hit = np.any(pos & (x == 0), axis=-1)
    xs = np.where(pos & ((x > 0) | (p > 0)), x, 1.0)        # zero weights (and p <= 0 zeros) out of the logs
    with np.errstate(divide="ignore"):
        logx = np.log(xs)
    if p == 0:
        out = np.exp(np.sum(np.where(pos, wn * logx, 0.0), axis=-1))
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.exp(logsumexp(p * logx, b=wn, axis=-1) / p)
    out = out * m[..., 0]
    if p <= 0:
        out = np.where(zero_hit, 0.0, out)
    return out


def _as_weights(weights, shape: tuple) -> np.ndarray:
    w = as_float_array(weights, "weights")
    if w.ndim == 0 or w.size == 0:
        raise ValueError(f"weights must hold one weight per score along the last axis ({shape[-1]}), got shape "
                         f"{w.shape}")
    try:
        w = np.broadcast_to(w, shape)
    except ValueError:
        raise ValueError(f"weights of shape {w.shape} do not broadcast against scores of shape {shape}: give one "
                         f"weight per score along the last axis ({shape[-1]})") from None
    if np.any(w < 0):
        raise ValueError(f"weights must be non-negative, found {float(w.min())!r}")
    sums = w.sum(axis=-1)
    if np.any(~(sums > 0)) or not np.all(np.isfinite(sums)):
        raise ValueError("weights sum to 0 (or overflow) along the last axis: every mean needs a positive, finite "
                         "total weight")
    return w


@public_function(data=("scores",), nan_policy=("raise", "omit", "propagate"))
def power_mean(scores, *, weights=None, p=-1, nan_policy="raise"):
    r"""The weighted power mean of non-negative scores along the last axis.

    :math:`M_p(x; w) = \left(\sum_i w_i x_i^p / \sum_i w_i\right)^{1/p}`, the geometric mean
    :math:`\prod_i x_i^{w_i / \sum w}` at p = 0, the minimum at p = -inf and the maximum at p = inf
    (over the components with positive weight). ``p=-1`` is the weighted harmonic mean that HiFD-style
    composite scores use; ``p=1`` the weighted arithmetic mean. For p <= 0 a zero score with a positive
    weight gives 0 (the zero rule). Equal to ``scipy.stats.pmean`` (``hmean``, ``gmean``) with
    ``weights`` and ``axis=-1``.

    Parameters
    ----------
    scores : array_like
        Non-negative, finite scores; the mean is taken along the last axis (a DataFrame: along each
        row, one column per component).
    weights : array_like, optional
        Non-negative weights broadcast against ``scores`` (one per component along the last axis, or
        the full shape), with a positive sum on every slice; only their ratios matter. Default: equal.
    p : float, default -1
        The exponent: any real number, ``-numpy.inf`` or ``numpy.inf``.
    nan_policy : {"raise", "omit", "propagate"}
        A NaN score: "raise" refuses it, "omit" leaves it out of its mean (as if its weight were 0),
        "propagate" makes that mean NaN.

    Returns
    -------
    float or numpy.ndarray or pandas.Series
        The mean (a float for 1-d scores; one per row for a 2-d array; a Series with the index of a
        DataFrame).

    References
    ----------
    Hardy, G. H., Littlewood, J. E. and Polya, G. (1952). *Inequalities*, 2nd ed., chapter II.
    ``scipy.stats.pmean``.

    Examples
    --------
    >>> from statcore import power_mean
    >>> s, w = [0.9, 0.8, 0.7, 0.6, 0.5], [0.3, 0.2, 0.2, 0.15, 0.15]
    >>> round(power_mean(s, weights=w), 10), round(105 / 149, 10)     # harmonic: exactly 105/149
    (0.7046979866, 0.7046979866)
    >>> power_mean([0.9, 0.0, 0.7]), power_mean([0.9, 0.0, 0.7], weights=[1, 0, 1]) > 0
    (0.0, True)
    >>> round(power_mean([1.0, 4.0], p=0), 12), power_mean([1.0, 4.0], p=1)
    (2.0, 2.5)
    """
    nan_policy = check_nan_policy(nan_policy, ("raise", "omit", "propagate"))
    p = check_power_exponent(p, "p")
    index = scores.index if isinstance(scores, pd.DataFrame) else None
    x = as_nonneg_scores(scores, "scores", allow_nan=True)
    if x.ndim == 0:
        x = x.reshape(1)
    w = np.ones(x.shape) if weights is None else _as_weights(weights, x.shape)
    nan = np.isnan(x)
    if nan.any():
        if nan_policy == "raise":
            raise ValueError(f"scores holds {int(nan.sum())} NaN value(s); pass nan_policy='omit' to leave them out "
                             "of their means or 'propagate' to return NaN")
        if nan_policy == "omit":
            w = np.where(nan, 0.0, w)
            if np.any(~(w.sum(axis=-1) > 0)):
                raise ValueError("scores: with nan_policy='omit' a mean has no score with positive weight left "
                                 "(all of its scores are NaN)")
    bad = np.isnan(x).any(axis=-1) if nan_policy == "propagate" else np.zeros(x.shape[:-1], dtype=bool)
    out = pmean_core(np.where(np.isnan(x), 1.0, x), w, p)
    if bad.any():
        out = np.where(bad, np.nan, out)
    if index is not None:
        return pd.Series(out, index=index, name="power_mean")
    return float(out) if np.ndim(out) == 0 else out
