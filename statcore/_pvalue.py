"""The one permutation (and Monte Carlo) p-value rule of the resampling engine: (1 + #{T_b >= T}) / (B + 1)
with one tie tolerance, :data:`TIE_RTOL` (a replicate within ``TIE_RTOL * abs(T)`` of T counts as a tie).
Public as :func:`statcore.utils.perm_pvalue`; ``statcore._resampling`` builds every loop on it."""
from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_choice

__all__ = ["perm_pvalue"]

#: relative tie tolerance of every permutation p-value: T_b counts as >= T when T_b >= T - TIE_RTOL |T|
TIE_RTOL = 1e-9
_ALTERNATIVES = ("two.sided", "less", "greater")
_ALT_ALIASES = {"two-sided": "two.sided", "two_sided": "two.sided"}


def check_alternative(alternative: Any, name: str = "alternative") -> str:
    """R's spelling ("two.sided", "less", "greater"); scipy's "two-sided" is accepted as well."""
    return check_choice(alternative, name, _ALTERNATIVES, aliases=_ALT_ALIASES)


def exceed_count(observed: float, null: np.ndarray, *, alternative: str = "greater") -> int:
    """#{T_b >= T - tol} ("greater") or #{T_b <= T + tol} ("less"), ``tol = TIE_RTOL * |T|``: the
    count behind :func:`perm_pvalue`, for loops that see the replicates a chunk at a time."""
    null = np.asarray(null, dtype=np.float64)
    tol = TIE_RTOL * abs(float(observed))
    if alternative == "greater":
        return int(np.count_nonzero(null >= observed - tol))
    if alternative == "less":
        return int(np.count_nonzero(null <= observed + tol))
    raise ValueError(f"alternative must be 'greater' or 'less' for a count, got {alternative!r}")


def pvalue_from_count(count: int, B: int, *, exact: bool = False) -> float:
    """(1 + count) / (B + 1), or count / B when the B replicates are every distinct permutation."""
    adj = 0 if exact else 1
    return float(min(1.0, (int(count) + adj) / (int(B) + adj)))


def perm_pvalue(observed: float, null: np.ndarray, *, alternative: str = "greater", exact: bool = False) -> float:
    """The one permutation (or Monte Carlo) p-value rule of statcore and learncore.

    ``greater``: (1 + #{T_b >= T - tol}) / (B + 1); ``less``: (1 + #{T_b <= T + tol}) / (B + 1);
    ``two.sided``: twice the smaller, at most 1 (scipy's rule). ``exact=True`` (every distinct
    permutation enumerated, the identity among them) drops the two 1s. ``tol = 1e-9 |T|``
    (``statcore._resampling.TIE_RTOL``): replicates equal to T up to rounding count as ties.

    Parameters
    ----------
    observed : float
        The statistic T on the data.
    null : array_like
        The B replicates T_b.
    alternative : {"greater", "less", "two.sided"}
        Which replicates count as at least as extreme.
    exact : bool
        Whether ``null`` holds every distinct permutation (then no +1).

    Returns
    -------
    float

    References
    ----------
    Phipson, B. and Smyth, G. K. (2010). Permutation p-values should never be zero. *Statistical
    Applications in Genetics and Molecular Biology* 9(1).

    Examples
    --------
    >>> perm_pvalue(2.0, [1.0, 2.0, 3.0])
    0.75
    """
    null = np.asarray(null, dtype=np.float64).ravel()
    alternative = check_alternative(alternative)
    if alternative == "two.sided":
        p = 2.0 * min(pvalue_from_count(exceed_count(observed, null, alternative=a), null.size, exact=exact)
                      for a in ("greater", "less"))
        return float(min(p, 1.0))
    return pvalue_from_count(exceed_count(observed, null, alternative=alternative), null.size, exact=exact)
