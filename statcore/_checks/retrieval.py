"""Validators of statcore.retrieval (the one input door: errors name the argument)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .arrays import _is_pandas, refuse_text

__all__ = ["as_distance_matrix", "as_labels", "as_assignments"]

#: rows of a distance matrix checked for non-finite values at a time (no full-size temporary)
_CHECK_ROWS = 256


def as_distance_matrix(dist: Any, name: str = "dist") -> np.ndarray:
    """A finite (n_queries, n_gallery) float32 or float64 matrix, C-contiguous; float32 is kept as it
    is (no float64 copy of a large matrix), every other real dtype becomes float64."""
    if isinstance(dist, (str, bytes)):
        raise TypeError(f"{name} must be a numeric matrix of distances, got a string {dist!r}")
    if dist is None:
        raise TypeError(f"{name} is required: got None where a distance matrix was expected")
    values = dist.to_numpy() if _is_pandas(dist) else dist
    try:
        arr = np.asarray(values)
    except Exception as exc:  # ragged lists
        raise TypeError(f"{name} must be a matrix of numbers: {exc}") from None
    refuse_text(arr, name)
    if arr.dtype.kind == "O":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must contain numbers only") from None
    if arr.dtype.kind == "b":
        raise TypeError(f"{name} must be numeric, got booleans")
    if arr.dtype.kind not in "fiu":
        raise TypeError(f"{name} must be real numbers, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-dimensional (n_queries, n_gallery) matrix, got shape {arr.shape}")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape}); pass at least one query and one gallery entry")
    if arr.dtype != np.float32:
        arr = arr.astype(np.float64, copy=False)
    arr = np.ascontiguousarray(arr)
    for a in range(0, arr.shape[0], _CHECK_ROWS):
        block = arr[a:a + _CHECK_ROWS]
        if not np.isfinite(block).all():
            n_nan = int(np.isnan(block).sum())
            what = "NaN" if n_nan else "infinite values"
            raise ValueError(f"{name} contains {what} (first in rows {a}..{a + block.shape[0] - 1}); every distance "
                             "must be finite: remove or impute the missing ones first")
    return arr


def as_labels(x: Any, name: str, n: int | None = None, other: str = "") -> np.ndarray:
    """A one-dimensional array of labels (integers, text, ...), compared for equality only; NaN refused.
    With ``n``: it must have exactly ``n`` entries (``other`` says where n comes from)."""
    if x is None:
        raise TypeError(f"{name} is required: got None where one label per entry was expected")
    if isinstance(x, (str, bytes)) or np.ndim(x) == 0:
        raise TypeError(f"{name} must be a sequence of labels (one per entry), got {type(x).__name__}")
    values = x.to_numpy() if _is_pandas(x) else x
    try:
        arr = np.asarray(values)
    except Exception as exc:
        raise TypeError(f"{name} must be a sequence of labels: {exc}") from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional (one label per entry), got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty; pass one label per entry")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinite values ({int((~np.isfinite(arr)).sum())}): every "
                         "entry needs a label")
    if arr.dtype.kind == "c":
        raise TypeError(f"{name} must hold labels (integers or text), got complex numbers")
    if arr.dtype.kind == "O":
        if any(v is None or (isinstance(v, float) and v != v) for v in arr):
            raise ValueError(f"{name} contains missing labels (None or NaN): every entry needs a label")
        try:
            arr = arr.astype(str) if any(isinstance(v, str) for v in arr) else arr.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must hold labels (integers or text) of one kind") from None
    if n is not None and arr.size != n:
        raise ValueError(f"{name} has {arr.size} entries but there are {n} {other}; one label per entry is needed")
    return arr


def as_assignments(x: Any, name: str = "assignments") -> tuple[np.ndarray, bool]:
    """Routing decisions: a 1-d vector of whole expert indices (>= 0) or a 2-d (n_tokens, n_experts)
    matrix of non-negative routing weights. Returns the float64 array and whether it is a matrix."""
    from .arrays import as_float_array

    arr = as_float_array(x, name)
    if arr.ndim not in (1, 2):
        raise ValueError(f"{name} must be a vector of expert indices or an (n_tokens, n_experts) matrix of "
                         f"routing probabilities, got shape {arr.shape}")
    if arr.shape[0] == 0 or (arr.ndim == 2 and arr.shape[1] == 0):
        raise ValueError(f"{name} is empty (shape {arr.shape}); pass at least one token")
    if arr.ndim == 1:
        if np.any(arr < 0) or np.any(arr != np.floor(arr)):
            bad = arr[(arr < 0) | (arr != np.floor(arr))][0]
            raise ValueError(f"{name} must hold expert indices 0, 1, ..., n_experts - 1, got {bad!r}")
        if arr.max() >= 2 ** 31:
            raise ValueError(f"{name} holds an expert index of {arr.max():g}: expert indices run from 0 to "
                             "n_experts - 1")
        return arr, False
    if np.any(arr < 0):
        raise ValueError(f"{name} must hold non-negative routing weights, got {arr.min():g}")
    if not np.any(arr.sum(axis=1) > 0):
        raise ValueError(f"{name} has no positive routing weight")
    return arr, True
