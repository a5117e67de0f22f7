"""Validators of statcore.spectral (the one input door: errors name the argument)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .core import *  # noqa: F401,F403  (the generic checks every topic builds on)
from .core import as_float_array, check_choice, check_in_interval

__all__ = ["as_representation", "check_discard", "check_interval_kind"]


def as_representation(X: Any, name: str = "X", *, min_rows: int = 2) -> np.ndarray:
    """A finite float64 (n, d) matrix of representations: n >= ``min_rows`` rows (observations) and
    d >= 1 columns (features)."""
    arr = as_float_array(X, name)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-dimensional (n, d) matrix with one row per observation, "
                         f"got shape {arr.shape}")
    if arr.shape[0] < min_rows:
        raise ValueError(f"{name} must have at least {min_rows} rows (observations), got {arr.shape[0]}")
    if arr.shape[1] == 0:
        raise ValueError(f"{name} has no columns (d = 0 features)")
    return arr


def check_discard(discard: Any, name: str = "discard") -> float:
    """The fraction of the largest TwoNN ratios left out: a number in [0, 1)."""
    return check_in_interval(discard, name, 0.0, 1.0, closed="left")


def check_interval_kind(ci: Any, name: str = "ci") -> str:
    """The bootstrap interval of a ``*_ci`` function: "percentile", "basic" or "bca"."""
    return check_choice(ci, name, ("percentile", "basic", "bca"))
