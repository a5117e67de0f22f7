"""Global p-values from k dependent p-values of one null hypothesis (RP-CIT's aggregation rules).

k projections of the same data give dependent p-values of unknown dependence. Bonferroni, top-r
(Ruger) and Hommel's (1983) combination are valid under any dependence; the Cauchy combination
approximately so at small levels; Simes' combination only for independent or positively dependent
(PRDS) p-values. One small function per rule, keyed by name.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .._checks import as_pvalues, check_choice, check_positive_int, check_rank, default_r

__all__ = ["combine_pvalues", "COMBINE_METHODS"]


def _bonferroni(p: np.ndarray, r: int) -> np.ndarray:
    # Bonferroni-max: min(1, k min p)
    return np.minimum(1.0, p.shape[-1] * p.min(axis=-1))


def _topr(p: np.ndarray, r: int) -> np.ndarray:
    # Ruger (1978): the r-th smallest p-value times k / r is a valid p-value under any dependence
    k = p.shape[-1]
    pr = np.partition(p, r - 1, axis=-1)[..., r - 1]
    return np.minimum(1.0, (k / r) * pr)


def _simes(p: np.ndarray, r: int) -> np.ndarray:
    # Simes (1986): min_i k p_(i) / i, the smallest Hommel-adjusted p-value; valid under PRDS
    k = p.shape[-1]
    return np.minimum(1.0, (k * np.sort(p, axis=-1) / np.arange(1, k + 1)).min(axis=-1))


def _hommel(p: np.ndarray, r: int) -> np.ndarray:
    # Hommel (1983): Simes' p-value times sum_{i<=k} 1/i is valid under any dependence
    k = p.shape[-1]
    return np.minimum(1.0, _harmonic(k) * _simes(p, r))


def _harmonic(k: int) -> float:
    return float(np.sum(1.0 / np.arange(1, k + 1)))


def _cauchy(p: np.ndarray, r: int) -> np.ndarray:
    # Liu & Xie (2020): T = mean tan((1/2 - p) pi) is approximately standard Cauchy under the null
    # whatever the dependence. tan((1/2 - p) pi) = 1 / tan(p pi) keeps precision for tiny p.
    with np.errstate(divide="ignore", over="ignore"):
        t = np.where(p < 1e-15, 1.0 / (np.pi * p), np.tan((0.5 - p) * np.pi))
    t = t.mean(axis=-1)
    # upper tail of the standard Cauchy, written without cancellation for large t
    with np.errstate(divide="ignore"):
        out = np.where(t > 1.0, np.arctan(1.0 / t) / np.pi, 0.5 - np.arctan(t) / np.pi)
    return np.clip(out, 0.0, 1.0)


_RULES: dict[str, Callable[[np.ndarray, int], np.ndarray]] = {
    "bonferroni": _bonferroni,
    "topr": _topr,
    "hommel": _hommel,
    "simes": _simes,
    "cauchy": _cauchy,
}

#: Names accepted by ``combine_pvalues``.
COMBINE_METHODS: tuple[str, ...] = tuple(_RULES)


def combine_pvalues(p: Any, method: str = "bonferroni", r: int | None = None) -> Any:
    """Combine k p-values of the same null hypothesis into one, valid under dependence.

    Parameters
    ----------
    p : array_like (k,) or (m, k)
        p-values; a 2-D array combines each row separately (m families of k). No NaN.
    method : str
        ``"bonferroni"``: min(1, k min p). ``"topr"``: Ruger's min(1, (k / r) p_(r)), with
        p_(r) the r-th smallest. ``"hommel"``: Hommel's (1983) combination for arbitrary dependence,
        min(1, C_k min_i k p_(i) / i) with C_k = sum_{i<=k} 1/i. ``"simes"``: Simes' combination
        min_i k p_(i) / i (the smallest Hommel-adjusted p-value, ``p_adjust(p, "hommel").min()``),
        valid for independent or positively dependent (PRDS) p-values only. ``"cauchy"``: Cauchy combination, the standard Cauchy upper tail of mean tan((1/2 - p) pi).
    r : int, optional
        The rank used by ``"topr"``, 1 <= r <= k; default ``ceil(k / 10)``. An error with other methods.

    Returns
    -------
    float, or ndarray (m,) for 2-D input.

    Notes
    -----
    Bonferroni, top-r and Hommel's combination are valid for any dependence among the p-values.
    Simes' p-value is valid for independent and positively dependent (PRDS) p-values (Simes 1986;
    Sarkar 1998) but not in general: under arbitrary dependence P(Simes <= alpha) can reach
    C_k alpha (Hommel 1983), which the factor C_k (2.45 for k = 6, 4.50 for k = 50) removes, at the
    price of power. Random projections of the same data are not known to be PRDS, so RP-CIT's
    valid-by-construction choices are "bonferroni", "topr", "hommel" and "maxboot". The Cauchy combination is exact in the tail
    for independent p-values and approximately valid at small levels under arbitrary dependence.

    Examples
    --------
    >>> p = [0.001, 0.02, 0.3, 0.5, 0.9]
    >>> combine_pvalues(p, "bonferroni")
    0.005
    >>> round(combine_pvalues(p, "topr", r=2), 4)
    0.05
    >>> round(combine_pvalues(p, "simes"), 4)
    0.005
    >>> round(combine_pvalues(p, "hommel"), 4)  # 0.005 * (1 + 1/2 + 1/3 + 1/4 + 1/5)
    0.0114
    >>> round(combine_pvalues(p, "cauchy"), 4)
    0.0048

    References
    ----------
    Ruger (1978), Das maximale Signifikanzniveau des Tests "Lehne H0 ab, wenn k unter n gegebenen
    Tests zur Ablehnung fuhren", Metrika 25. Hommel (1983), Tests of the overall hypothesis for
    arbitrary dependence structures, Biometrical Journal 25(5). Liu & Xie (2020), Cauchy combination
    test, JASA 115(529). Simes (1986), An improved Bonferroni procedure for multiple tests of
    significance, Biometrika 73(3). Sarkar (1998), Some probability inequalities for ordered MTP2 random
    variables: a proof of the Simes conjecture, Annals of Statistics 26(2).
    """
    method = check_choice(method, "method", COMBINE_METHODS)
    arr = as_pvalues(p, "p", allow_nan=False)
    if arr.ndim not in (1, 2):
        raise ValueError(f"p must be 1-D (k p-values) or 2-D (one family per row), got shape {arr.shape}")
    k = arr.shape[-1]
    if k < 1:
        raise ValueError("p is empty; at least one p-value is needed")
    r = check_rank(r, k, method, "method")
    out = _RULES[method](arr, r)
    return float(out) if arr.ndim == 1 else np.asarray(out, dtype=np.float64)
