"""The knockoff(+) threshold of a vector of knockoff statistics W, as R knockoff's ``knockoff.threshold``.

A pure function of W (Barber & Candes 2015; Candes, Fan, Janson & Lv 2018): the knockoff filter and the
derandomised knockoffs' e-values (``statcore.knockoff_e_values``) both start from it.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .._checks import as_knockoff_stats, check_error_level, check_knockoff_offset

__all__ = ["knockoff_threshold"]


def _threshold(W: np.ndarray, fdr: float, offset: int) -> float:
    """T = min{t in {0} U {|W_j|} : (offset + #{W_j <= -t}) / max(1, #{W_j >= t}) <= fdr}, inf if none."""
    m = W.size
    w_sorted = np.sort(W)
    ts = np.unique(np.abs(w_sorted))                 # sorted, the candidates of R's sort(c(0, abs(W)))
    if ts[0] != 0.0:
        ts = np.concatenate(([0.0], ts))
    neg = np.searchsorted(w_sorted, -ts, side="right")           # #{W <= -t}
    pos = m - np.searchsorted(w_sorted, ts, side="left")         # #{W >= t}
    ratio = (offset + neg) / np.maximum(1, pos)
    ok = np.flatnonzero(ratio <= fdr)
    return float(ts[ok[0]]) if ok.size else float("inf")


def knockoff_threshold(W: Any, *, fdr: float = 0.1, offset: int = 1) -> float:
    """The knockoff (``offset=0``) or knockoff+ (``offset=1``) threshold of knockoff statistics W.

    ``T = min{t in {0} U {|W_j|} : (offset + #{j : W_j <= -t}) / max(1, #{j : W_j >= t}) <= fdr}``,
    and T = inf when no t qualifies; the knockoff filter selects {j : W_j >= T}. The candidates are
    those of R knockoff's ``knockoff.threshold`` (0 included, as R's ``sort(c(0, abs(W)))``; Barber &
    Candes 2015 take the non-zero ``|W_j|`` only, which differs only when t = 0 would qualify, i.e. when
    no W_j is negative and the ratio at 0 is at most ``fdr``).

    Parameters
    ----------
    W : array_like or pandas Series
        Knockoff statistics, one per variable (one-dimensional, finite): large positive values are
        evidence against the null.
    fdr : float, keyword-only
        The target false discovery rate in (0, 1) (R's ``fdr``).
    offset : {0, 1}, keyword-only
        1 (knockoff+, controls the FDR) or 0 (knockoff, controls a modified FDR), R's ``offset``.

    Returns
    -------
    float
        The threshold T (``inf`` when nothing can be selected).

    References
    ----------
    R package knockoff, ``knockoff.threshold`` (Patterson & Sesia). Barber, R. F. & Candes, E. J.
    (2015). Controlling the false discovery rate via knockoffs. Annals of Statistics 43(5),
    2055-2085. Candes, E., Fan, Y., Janson, L. & Lv, J. (2018). Panning for gold: model-X knockoffs.
    JRSS-B 80(3), 551-577.

    Examples
    --------
    >>> import statcore as sc
    >>> W = [5, 4.5, -4, 3.8, 3.5, 3.2, 3, 2.8, -2.5, 2.2, 2, 1.9, -1.8, 1.5, 1.2, -1.1, 1, -0.9,
    ...      0.8, -0.5, 0.3, -0.2, 0.1, 0]
    >>> sc.knockoff_threshold(W, fdr=0.2, offset=0)
    1.9
    >>> sc.knockoff_threshold(W, fdr=0.2, offset=1)
    inf
    """
    fdr = check_error_level(fdr, "fdr")
    offset = check_knockoff_offset(offset)
    return _threshold(as_knockoff_stats(W), fdr, offset)
