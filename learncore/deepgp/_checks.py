"""learncore.deepgp's input door: inputs of the sampler, bandwidths, dimensions, depths and grids.

The scalar checks are statcore's (``statcore.utils``); these add what the deep-GP functions need,
with errors that name the argument. Nothing here modifies its input.
"""
from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import torch
from statcore.utils import (check_choice, check_positive_int, check_positive_real, check_probability,  # noqa: F401
                            check_seed)

__all__ = ["as_inputs", "check_bandwidth", "check_dim", "check_depth", "as_grid",
           "check_choice", "check_positive_int", "check_positive_real", "check_probability", "check_seed"]


def as_inputs(X: Any, name: str = "X") -> torch.Tensor:
    """Input points as a float64 tensor (n, d): a vector is n points in one dimension; finite,
    non-empty; a copy (the caller's array or tensor is never modified)."""
    if X is None:
        raise TypeError(f"{name} is required: got None where a matrix of input points (n, d) was expected")
    if isinstance(X, (str, bytes)):
        raise TypeError(f"{name} must be a matrix of real numbers (n inputs by d dimensions), got {type(X).__name__}")
    if isinstance(X, torch.Tensor):
        if X.dtype == torch.bool or X.is_complex():
            raise TypeError(f"{name} must be a real tensor, got dtype {X.dtype}")
        arr = X.detach().cpu().to(torch.float64).numpy()
    else:
        if hasattr(X, "to_numpy"):
            X = X.to_numpy()
        arr = np.asarray(X)
        if arr.dtype.kind not in "fiu":
            raise TypeError(f"{name} must be a matrix of real numbers (n inputs by d dimensions), "
                            f"got dtype {arr.dtype}")
    arr = np.array(arr, dtype=np.float64, copy=True)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a matrix (rows are input points, columns dimensions), got shape {arr.shape}")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape}); pass at least one input point")
    bad = ~np.isfinite(arr)
    if bad.any():
        i = int(np.flatnonzero(bad.any(axis=1))[0])
        raise ValueError(f"{name} has {int(bad.sum())} non-finite value(s) (NaN or inf), first in row {i}; "
                         "the inputs of a GP prior must be finite points")
    return torch.from_numpy(arr)


def check_bandwidth(r: Any, name: str = "r") -> float:
    """The kernel bandwidth r > 0 (finite)."""
    return check_positive_real(r, name)


def check_dim(d: Any, name: str = "d") -> int:
    """The dimension d >= 1 of the layers (an integer)."""
    return check_positive_int(d, name)


def check_depth(depth: Any, name: str = "depth") -> int:
    """The number of layers, at least one."""
    return check_positive_int(depth, name)


def as_grid(values: Any, name: str, check) -> tuple:
    """A non-empty sequence (or one value) checked element by element with ``check``."""
    if values is None or isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be a number or a sequence of numbers, got {type(values).__name__}")
    if isinstance(values, torch.Tensor):
        values = values.tolist()
    if isinstance(values, (numbers.Number, np.number)):
        values = [values]
    arr = np.asarray(values, dtype=object)
    if arr.ndim > 1:
        raise ValueError(f"{name} must be a number or a flat sequence of numbers, got shape {arr.shape}")
    arr = arr.ravel()
    if arr.size == 0:
        raise ValueError(f"{name} is empty; pass at least one value")
    return tuple(check(v, name) for v in arr.tolist())
