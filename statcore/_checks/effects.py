"""Validators of statcore.effects (the one input door: errors name the argument)."""
from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .arrays import as_float_array, refuse_text, _is_pandas
from .scalars import check_positive_int

__all__ = ["as_sample_vector", "as_counts", "as_paired_table", "check_margin", "check_block",
           "as_ratings", "as_tolerance"]


def as_sample_vector(x: Any, name: str, *, min_n: int = 2) -> np.ndarray:
    """A finite one-dimensional float sample of at least ``min_n`` observations."""
    arr = as_float_array(x, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional (one value per observation), got shape {arr.shape}")
    if arr.size < min_n:
        raise ValueError(f"{name} must hold at least {min_n} observations, got {arr.size}")
    return arr


def as_counts(x: Any, name: str, *, minimum: int = 0) -> np.ndarray:
    """Whole non-negative counts (integers or integer-valued floats) as an int64 array."""
    arr = as_float_array(x, name)
    if arr.size == 0:
        raise ValueError(f"{name} is empty; pass at least one count")
    if np.any(arr != np.floor(arr)):
        raise ValueError(f"{name} must hold whole counts, got {arr[arr != np.floor(arr)].flat[0]!r}")
    if np.any(arr < minimum):
        raise ValueError(f"{name} must hold counts of at least {minimum}, got {arr.min():g}")
    if np.any(arr > 2.0 ** 53):
        raise ValueError(f"{name} holds a count above 2**53 ({arr.max():g}), beyond exact floating-point counts")
    return arr.astype(np.int64)


def _binary_vector(v: Any, name: str) -> np.ndarray:
    """A paired binary vector's values as an array (one-dimensional, not empty)."""
    if isinstance(v, (str, bytes)) or v is None:
        raise TypeError(f"{name} must be a vector of binary outcomes, got {type(v).__name__}")
    arr = np.asarray(v.to_numpy() if _is_pandas(v) else v)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional (one outcome per pair), got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty; pass at least one pair")
    return arr


def as_paired_table(x: Any, y: Any, xname: str = "x", yname: str = "y") -> tuple[np.ndarray, str]:
    """The 2x2 table of paired binary outcomes: ``x`` a 2x2 table of counts (``y`` None) or ``x`` and
    ``y`` two paired binary vectors (0/1, booleans, or two labels). Returns (table, data_name)."""
    if y is None:
        tab = as_counts(x, xname)
        if tab.shape != (2, 2):
            raise ValueError(f"{xname} must be a 2x2 table of counts (or a binary vector with y), got shape "
                             f"{tab.shape}")
        return tab, xname
    xa = _binary_vector(x, xname)
    ya = _binary_vector(y, yname)
    if xa.size != ya.size:
        raise ValueError(f"{xname} and {yname} must have the same length (paired outcomes), got {xa.size} and "
                         f"{ya.size}")
    for a, nm in ((xa, xname), (ya, yname)):
        if a.dtype.kind == "f" and np.isnan(a).any():
            raise ValueError(f"{nm} contains NaN; remove the missing pairs first (nan_policy='omit')")

    def numeric01(a):
        return a.dtype.kind == "b" or (a.dtype.kind in "iuf" and np.all(np.isin(a, (0, 1))))

    if numeric01(xa) and numeric01(ya):
        xs, ys = xa.astype(np.int64), ya.astype(np.int64)
    else:
        if xa.dtype.kind in "iuf" and not numeric01(xa):
            raise ValueError(f"{xname} must hold binary outcomes (0/1, booleans or two labels), got the values "
                             f"{np.unique(xa)[:5].tolist()}")
        if ya.dtype.kind in "iuf" and not numeric01(ya):
            raise ValueError(f"{yname} must hold binary outcomes (0/1, booleans or two labels), got the values "
                             f"{np.unique(ya)[:5].tolist()}")
        labels = sorted(set(xa.astype(str).tolist()) | set(ya.astype(str).tolist()))
        if len(labels) != 2:
            raise ValueError(f"{xname} and {yname} must share exactly two levels (R's mcnemar.test), got "
                             f"{len(labels)}: {labels[:5]}")
        xs = (xa.astype(str) == labels[1]).astype(np.int64)
        ys = (ya.astype(str) == labels[1]).astype(np.int64)
    tab = np.zeros((2, 2), dtype=np.int64)
    np.add.at(tab, (xs, ys), 1)
    return tab, f"{xname} and {yname}"


def check_margin(margin: Any, name: str = "margin") -> tuple[float, float]:
    """An equivalence margin: a positive number m (the interval (-m, m)) or a pair (low, high), low < high."""
    if margin is None:
        raise TypeError(f"{name} is required: the equivalence margin, a positive number or a pair (low, high)")
    if isinstance(margin, numbers.Real) and not isinstance(margin, bool):
        m = float(margin)
        if not np.isfinite(m) or m <= 0:
            raise ValueError(f"{name} must be a positive finite number (the interval (-{name}, {name})), "
                         f"got {margin!r}")
        return -m, m
    arr = as_float_array(margin, name)
    if arr.shape != (2,):
        raise ValueError(f"{name} must be a positive number or a pair (low, high), got shape {arr.shape}")
    if not arr[0] < arr[1]:
        raise ValueError(f"{name} must be (low, high) with low < high, got {arr.tolist()}")
    return float(arr[0]), float(arr[1])


def check_block(block: Any, shape: tuple, name: str = "block") -> tuple[int, int]:
    """A block size (h, w) for a moving-block bootstrap of a 2-D image of ``shape``."""
    if isinstance(block, (str, bytes)) or not hasattr(block, "__len__") or len(block) != 2:
        raise TypeError(f"{name} must be a pair (h, w) of block sides, got {block!r}")
    h = check_positive_int(block[0], f"{name}[0]")
    w = check_positive_int(block[1], f"{name}[1]")
    if len(shape) != 2:
        raise ValueError(f"{name}: a block bootstrap needs a 2-D error image, got error of shape {shape}")
    if h > shape[0] or w > shape[1]:
        raise ValueError(f"{name} ({h}, {w}) is larger than the error image {shape}")
    return h, w


def as_ratings(ratings: Any, name: str = "ratings") -> np.ndarray:
    """A complete subjects x raters matrix of ratings (at least 2 subjects and 2 raters)."""
    if _is_pandas(ratings) and getattr(ratings, "ndim", 1) == 2:
        refuse_text(ratings.to_numpy(), name)
    arr = as_float_array(ratings, name, allow_nan=True)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a subjects x raters matrix (2-D), got shape {arr.shape}")
    if np.isnan(arr).any():
        rows = np.flatnonzero(np.isnan(arr).any(axis=1))
        raise ValueError(f"{name} has a missing cell in {rows.size} subject(s) (first row {rows[0]}); the ICCs need "
                         "complete ratings: drop those subjects (nan_policy='omit')")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains infinite values; all ratings must be finite")
    if arr.shape[0] < 2 or arr.shape[1] < 2:
        raise ValueError(f"{name} must have at least 2 subjects (rows) and 2 raters (columns), got shape {arr.shape}")
    return arr


def as_tolerance(tau: Any, name: str = "tau") -> float:
    """A non-negative finite tolerance."""
    if isinstance(tau, bool) or not isinstance(tau, numbers.Real):
        arr = np.asarray(tau) if not isinstance(tau, (str, bytes)) and tau is not None else None
        if arr is None or arr.ndim != 0 or arr.dtype.kind not in "fiu":
            raise TypeError(f"{name} must be a number (the tolerance), got {type(tau).__name__}")
        tau = arr.item()
    v = float(tau)
    if not np.isfinite(v) or v < 0:
        raise ValueError(f"{name} must be a non-negative finite tolerance, got {tau!r}")
    return v
