"""Missing values: scipy's ``nan_policy`` (``check_nan_policy``, ``apply_nan_policy``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from .scalars import check_choice

__all__ = ["NAN_POLICIES", "check_nan_policy", "NanPolicyResult", "apply_nan_policy"]


NAN_POLICIES = ("raise", "omit", "propagate")


def check_nan_policy(nan_policy: Any, allowed: Sequence[str] = NAN_POLICIES) -> str:
    """``nan_policy`` as in scipy.stats: "raise" (the default everywhere), "omit" (drop the
    observations with a NaN in any of the paired inputs) or "propagate" (a NaN result).

    Parameters
    ----------
    nan_policy : str
        The policy asked for.
    allowed : sequence of str
        The policies that make sense for the calling function.

    Returns
    -------
    str

    References
    ----------
    SciPy's ``nan_policy`` (scipy.stats).

    Examples
    --------
    >>> check_nan_policy("omit", allowed=("raise", "omit"))
    'omit'
    """
    return check_choice(nan_policy, "nan_policy", tuple(allowed))


@dataclass(frozen=True)
class NanPolicyResult:
    """What ``apply_nan_policy`` decided: the arrays to use, the rows kept (None: all) and whether
    the caller must return its NaN result ("propagate" with a NaN present)."""

    arrays: dict
    keep: np.ndarray | None
    propagate: bool

    def __iter__(self):
        return iter(self.arrays.values())


def apply_nan_policy(nan_policy: str, /, **arrays: np.ndarray | None) -> NanPolicyResult:
    """Apply scipy's ``nan_policy`` to paired float arrays (observations in the first axis).

    Call after ``as_float_array(..., allow_nan=True)`` and ``check_nan_policy``. "raise" refuses any
    NaN, naming the argument and the count; "omit" drops every observation (row) with a NaN in any
    array and refuses when no row is left; "propagate" leaves the arrays as they are and sets
    ``propagate`` when a NaN is present, for the caller to return its NaN result.

    Parameters
    ----------
    nan_policy : str
        "raise", "omit" or "propagate".
    **arrays : numpy.ndarray or None
        The paired inputs by argument name (None is skipped).

    Returns
    -------
    NanPolicyResult
        ``arrays`` (to use; iterating gives them in order), ``keep`` (the rows kept, None for all)
        and ``propagate``.

    References
    ----------
    SciPy's ``nan_policy`` (scipy.stats).

    Examples
    --------
    >>> import numpy as np
    >>> x, y = apply_nan_policy("omit", x=np.array([1.0, np.nan, 3.0]), y=np.array([4.0, 5.0, 6.0]))
    >>> x.tolist(), y.tolist()
    ([1.0, 3.0], [4.0, 6.0])
    """
    rows = None
    counts = {}
    for name, a in arrays.items():
        if a is None:
            continue
        bad = np.isnan(a)
        if bad.ndim > 1:
            bad = bad.reshape(bad.shape[0], -1).any(axis=1)
        elif bad.ndim == 0:
            bad = bad.reshape(1)
        if bad.any():
            counts[name] = int(np.isnan(a).sum())
        if rows is not None and rows.shape != bad.shape:  # callers check_same_n first; never pair silently
            raise ValueError(f"{name} has {bad.shape[0]} observations where the other inputs have {rows.shape[0]}")
        rows = bad if rows is None else rows | bad
    if not counts:
        return NanPolicyResult(dict(arrays), None, False)
    if nan_policy == "raise":
        name, k = next(iter(counts.items()))
        raise ValueError(f"{name} contains {k} NaN value{'s' if k > 1 else ''}; remove the missing values, "
                         "or pass nan_policy='omit' to drop the observations that have them")
    if nan_policy == "propagate":
        return NanPolicyResult(dict(arrays), None, True)
    keep = ~rows
    if not keep.any():
        raise ValueError(f"every observation has a NaN (in {', '.join(counts)}); nothing is left after "
                         "nan_policy='omit'")
    out = {k: (None if a is None else a[keep]) for k, a in arrays.items()}
    return NanPolicyResult(out, keep, False)
