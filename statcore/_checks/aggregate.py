"""Validators of statcore.aggregate and statcore.boolean (the one input door: errors name the argument)."""
from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from .core import *  # noqa: F401,F403  (the generic checks every topic builds on)
from .core import as_float_array

__all__ = ["check_power_exponent", "as_nonneg_scores", "as_simplex_weights"]


def check_power_exponent(p: Any, name: str = "p") -> float:
    """The exponent of a power mean: a real number, ``-inf`` (the minimum) and ``inf`` (the maximum) allowed."""
    if isinstance(p, (bool, np.bool_)) or p is None or isinstance(p, (str, bytes)):
        raise TypeError(f"{name} must be a number (the power mean's exponent), got {type(p).__name__}")
    if not isinstance(p, numbers.Real):
        arr = np.asarray(p)
        if arr.ndim != 0 or arr.dtype.kind not in "fiu":
            raise TypeError(f"{name} must be a number (the power mean's exponent), got {type(p).__name__}")
        p = arr.item()
    p = float(p)
    if math.isnan(p):
        raise ValueError(f"{name} must be a real number or +-inf, got nan")
    return p


def as_nonneg_scores(x: Any, name: str, *, allow_nan: bool = False, ndim: int | None = None) -> np.ndarray:
    """Finite, non-negative float scores (NaN only where allowed), with at least one value."""
    arr = as_float_array(x, name, allow_nan=allow_nan, ndim=ndim)
    if arr.size == 0 or (arr.ndim >= 1 and arr.shape[-1] == 0):
        raise ValueError(f"{name} is empty: pass at least one score")
    with np.errstate(invalid="ignore"):
        if np.any(arr < 0):
            raise ValueError(f"{name} must hold non-negative scores (a power mean is defined on [0, inf)), "
                             f"found {float(np.nanmin(arr))!r}")
    return arr


def as_simplex_weights(w: Any, name: str, k: int) -> np.ndarray:
    """k non-negative finite weights with a positive sum, normalised to sum to one."""
    arr = as_float_array(w, name)
    if arr.ndim != 1 or arr.size != k:
        raise ValueError(f"{name} must hold one weight per component ({k}), got shape {arr.shape}")
    if np.any(arr < 0):
        raise ValueError(f"{name} must be non-negative, found {float(arr.min())!r}")
    total = float(arr.sum())
    if not total > 0 or not np.isfinite(total):
        raise ValueError(f"{name} sum to {total!r}: give at least one positive (finite) weight")
    return arr / total
