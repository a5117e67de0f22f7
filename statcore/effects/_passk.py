"""pass@k: the unbiased estimator of the chance that at least one of k samples passes, and its
bootstrap interval over problems."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import as_counts, check_positive_int, check_probability, public_function
from .._result import Result
from .._r.rformat import format_numbers

__all__ = ["pass_at_k", "pass_at_k_ci", "PassAtK"]


def _check_nck(n, c, k):
    ns = as_counts(n, "n", minimum=1)
    cs = as_counts(c, "c")
    ks = as_counts(k, "k", minimum=1)
    if ns.ndim > 1 or cs.ndim > 1:
        raise ValueError(f"n and c must be scalars or vectors (one entry per problem), got shapes {ns.shape} and "
                         f"{cs.shape}")
    try:
        nb, cb, kb = np.broadcast_arrays(ns, cs, ks)
    except ValueError:
        raise ValueError(f"n, c and k must have broadcastable shapes, got {ns.shape}, {cs.shape} and "
                         f"{ks.shape}") from None
    if np.any(cb > nb):
        i = int(np.flatnonzero((cb > nb).ravel())[0])
        raise ValueError(f"c must not exceed n (correct samples among n drawn): c = {cb.ravel()[i]} > "
                         f"n = {nb.ravel()[i]}")
    if np.any(kb > nb):
        i = int(np.flatnonzero((kb > nb).ravel())[0])
        raise ValueError(f"k must not exceed n (the estimator needs n >= k samples): k = {kb.ravel()[i]} > "
                         f"n = {nb.ravel()[i]}")
    return nb, cb, kb


def _pass_at_k(n, c, k):
    """1 - C(n - c, k) / C(n, k) = 1 - prod_{i = n - c + 1}^{n} (1 - k / i), vectorised over 1-D arrays.

    The product runs over the c largest denominators i = n, n - 1, ..., n - c + 1 (a ragged product
    computed as a masked (m, max c) array of factors); it is 1 - 0 when n - c < k.
    """
    n, c, k = (np.asarray(v, dtype=np.float64).ravel() for v in (n, c, k))
    out = np.ones(n.size)
    live = (n - c) >= k
    if live.any():
        nl, cl, kl = n[live], c[live], k[live]
        width = int(cl.max()) if cl.size else 0
        if width == 0:
            out[live] = 0.0
        else:
            j = np.arange(width, dtype=np.float64)
            i = nl[:, None] - j[None, :]
            factors = np.where(j[None, :] < cl[:, None], 1.0 - kl[:, None] / np.maximum(i, 1.0), 1.0)
            out[live] = 1.0 - np.prod(factors, axis=1)
    return out


@public_function(data=("n", "c", "k"), nan_policy=("raise",))
def pass_at_k(n, c, k):
    """The unbiased pass@k estimator, 1 - C(n - c, k) / C(n, k), per problem.

    Of ``n`` samples drawn for a problem, ``c`` pass; pass@k estimates the probability that at least
    one of ``k`` samples passes without bias (Chen et al. 2021), computed as the stable product
    1 - prod_{i = n - c + 1}^{n} (1 - k / i) (no binomial coefficient is formed). Vectorised: ``n``,
    ``c``, ``k`` broadcast (one entry per problem). The benchmark score is the mean over problems;
    :func:`pass_at_k_ci` adds its bootstrap interval.

    Parameters
    ----------
    n : int or array_like of int
        Samples drawn per problem (n >= k).
    c : int or array_like of int
        Samples that pass (0 <= c <= n).
    k : int or array_like of int
        The k of pass@k (k >= 1).
    nan_policy : {"raise"}
        Missing counts are refused.

    Returns
    -------
    float or numpy.ndarray
        pass@k per problem (a float for scalar input).

    References
    ----------
    Chen, M. et al. (2021). Evaluating large language models trained on code. arXiv:2107.03374
    (the unbiased estimator and its numerically stable product form).

    Examples
    --------
    >>> import statcore as sc
    >>> [round(sc.pass_at_k(10, 3, k), 6) for k in (1, 2, 5)]
    [0.3, 0.533333, 0.916667]
    """
    nb, cb, kb = _check_nck(n, c, k)
    out = _pass_at_k(nb, cb, kb).reshape(nb.shape)
    return float(out) if out.ndim == 0 else out


@dataclass(frozen=True, eq=False, repr=False)
class PassAtK(Result):
    """pass@k averaged over problems with its bootstrap interval (:func:`pass_at_k_ci`).

    Attributes
    ----------
    estimate : float
        The mean over problems of the unbiased per-problem pass@k.
    conf_low, conf_high : float
        The percentile bootstrap interval (problems resampled with replacement).
    std_error : float
        The bootstrap standard deviation of the mean.
    k : int
    values : numpy.ndarray
        pass@k per problem.
    conf_level : float
    B : int

    Examples
    --------
    >>> import statcore as sc
    >>> res = sc.pass_at_k_ci([10, 10, 10, 10], [3, 0, 10, 5], 1, B=999, seed=1)
    >>> round(res.estimate, 4)
    0.45
    """

    estimate: float
    conf_low: float
    conf_high: float
    std_error: float
    k: int
    values: np.ndarray
    conf_level: float
    B: int

    def _repr_parts(self):
        return [("estimate", self.estimate), ("conf_low", self.conf_low), ("conf_high", self.conf_high),
                ("k", self.k), ("B", self.B)]

    def summary(self) -> str:
        est, lo, hi, se = format_numbers([self.estimate, self.conf_low, self.conf_high, self.std_error], 7)
        return (f"\n\tpass@{self.k} over {self.values.size} problems (unbiased estimator; percentile bootstrap "
                f"over problems, {self.B} resamples)\n\n"
                f"pass@{self.k}: {est.strip()}   bootstrap std. error: {se.strip()}\n"
                f"{100 * self.conf_level:g} percent confidence interval:\n {lo.strip()} {hi.strip()}\n")

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame({"k": [self.k], "estimate": [self.estimate], "std_error": [self.std_error],
                             "conf_low": [self.conf_low], "conf_high": [self.conf_high],
                             "conf_level": [self.conf_level], "nobs": [int(self.values.size)], "b": [self.B]})


@public_function(data=("n", "c", "k"), nan_policy=("raise", "omit"), rows=("n", "c"))
def pass_at_k_ci(n, c, k, *, conf_level=0.95, B=9999, seed=None):
    """pass@k over a benchmark, the mean over problems of the unbiased estimator, with a percentile
    bootstrap interval over problems.

    The problems are resampled with replacement (the sampling of the benchmark's problems is the
    uncertainty quantified; the within-problem sampling is already averaged by the unbiased
    estimator) through :func:`statcore.bootstrap` (the resampling engine).

    Parameters
    ----------
    n : array_like of int
        Samples drawn per problem (a scalar: the same for all).
    c : array_like of int
        Samples that pass, per problem.
    k : int
        The k of pass@k.
    conf_level : float
        The interval's coverage.
    B : int
        Bootstrap resamples.
    seed : None, int or numpy.random.Generator
        The bootstrap's randomness.
    nan_policy : {"raise", "omit"}
        Missing counts: refuse, or drop the problems holding one.

    Returns
    -------
    PassAtK
        ``estimate``, ``conf_low``, ``conf_high``, ``std_error``, the per-problem ``values``.

    References
    ----------
    Chen, M. et al. (2021). Evaluating large language models trained on code. arXiv:2107.03374.
    Efron, B. & Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*, chapter 13.

    Examples
    --------
    >>> import statcore as sc
    >>> res = sc.pass_at_k_ci([20] * 6, [0, 2, 5, 9, 20, 1], 5, B=999, seed=0)
    >>> bool(res.conf_low <= res.estimate <= res.conf_high)
    True
    """
    from .._resampling import bootstrap

    k = check_positive_int(k, "k")
    conf_level = check_probability(conf_level, "conf_level", open_left=True, open_right=True)
    B = check_positive_int(B, "B")
    nb, cb, kb = _check_nck(n, c, k)
    vals = _pass_at_k(nb, cb, kb).reshape(np.shape(nb))
    vals = np.atleast_1d(vals)
    if vals.size < 2:
        raise ValueError(f"c must hold at least 2 problems to bootstrap over problems, got {vals.size}")
    res = bootstrap((vals,), np.mean, B=B, conf_level=conf_level, seed=seed, method="percentile")
    lo, hi = res.confidence_interval
    return PassAtK(float(vals.mean()), float(lo), float(hi), float(res.standard_error), int(k), vals, conf_level,
                   int(B))
