"""learncore.hprobz's input door: arrays and tensors into the distributions, the heads and fit.

The scalar checks are statcore's (``statcore.utils``); these turn data and parameters into float
arrays or tensors, refusing what the methods cannot read with errors that name the argument.
Nothing here modifies its input.
"""
from __future__ import annotations

import numbers
from typing import Any, Sequence

import numpy as np
import torch
from statcore.utils import check_choice, check_positive_int, check_positive_real, check_seed  # noqa: F401

__all__ = ["as_param", "as_data_matrix", "as_steps", "as_values"]


def _kind_error(x: Any, name: str, what: str) -> TypeError:
    return TypeError(f"{name} must be {what}, got {type(x).__name__}")


def as_param(x: Any, name: str, *, dtype: torch.dtype | None = None, min_dim: int = 1) -> torch.Tensor:
    """A distribution parameter as a floating tensor (numpy arrays and lists become float64 tensors;
    a tensor keeps its dtype unless ``dtype`` is given), finite, with at least ``min_dim`` dimensions.
    The tensor is not copied (autograd flows through it)."""
    if x is None or isinstance(x, (str, bytes)):
        raise _kind_error(x, name, "a tensor or array of real numbers")
    if not isinstance(x, torch.Tensor):
        arr = np.asarray(x)
        if arr.dtype.kind not in "fiu":
            raise _kind_error(x, name, "a tensor or array of real numbers")
        x = torch.as_tensor(arr, dtype=dtype or torch.float64)
    elif not torch.is_floating_point(x):
        if x.dtype == torch.bool or x.is_complex():
            raise TypeError(f"{name} must be a real floating tensor, got dtype {x.dtype}")
        x = x.to(dtype or torch.get_default_dtype())
    if dtype is not None and x.dtype != dtype:
        x = x.to(dtype)
    if x.dim() < min_dim:
        raise ValueError(f"{name} must have at least {min_dim} dimension(s), got shape {tuple(x.shape)}")
    with torch.no_grad():
        bad = ~torch.isfinite(x)
        if bool(bad.any()):
            raise ValueError(f"{name} has {int(bad.sum())} non-finite value(s) (NaN or inf) of {x.numel()}; "
                             "the parameters of a distribution must be finite (a network that outputs NaN or inf "
                             "has diverged: lower the learning rate or check its inputs)")
    return x


def as_values(x: Any, name: str, dtype: torch.dtype) -> torch.Tensor:
    """Observed values (outcomes) as a finite tensor of ``dtype`` (at least one dimension)."""
    return as_param(x, name, dtype=dtype, min_dim=1)


def as_data_matrix(x: Any, name: str, *, n: int | None = None, allow_none: bool = False) -> np.ndarray | None:
    """A 2-D float64 data matrix (a vector becomes one column), finite, non-empty; a copy."""
    if x is None:
        if allow_none:
            return None
        raise TypeError(f"{name} is required: got None where a matrix of numbers was expected")
    if isinstance(x, (str, bytes)):
        raise _kind_error(x, name, "a matrix of numbers")
    if isinstance(x, torch.Tensor):
        x = x.detach().cpu().numpy()
    try:
        import pandas as pd

        if isinstance(x, (pd.DataFrame, pd.Series)):
            x = x.to_numpy()
    except ImportError:  # pragma: no cover
        pass
    arr = np.asarray(x)
    if arr.dtype.kind == "b" or arr.dtype.kind not in "fiu":
        raise _kind_error(x, name, "a matrix of real numbers")
    arr = np.array(arr, dtype=np.float64, copy=True)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a matrix (rows are observations), got shape {arr.shape}")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape}); pass at least one observation")
    bad = ~np.isfinite(arr)
    if bad.any():
        i = int(np.flatnonzero(bad.any(axis=1))[0])
        raise ValueError(f"{name} has {int(bad.sum())} non-finite value(s) (NaN or inf), first in row {i}")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} must have one row per observation ({n}), got {arr.shape[0]}")
    return arr


def as_steps(steps: Any, T: int, name: str) -> list[int]:
    """A non-empty sequence of distinct step indices in [0, T) (negative indices count from the end)."""
    if isinstance(steps, (numbers.Integral, np.integer)) and not isinstance(steps, bool):
        steps = [steps]
    if isinstance(steps, torch.Tensor):
        steps = steps.tolist()
    if isinstance(steps, (str, bytes)) or not isinstance(steps, (Sequence, np.ndarray)):
        raise TypeError(f"{name} must be a step index or a sequence of step indices, got {type(steps).__name__}")
    out = []
    for s in list(steps):
        if isinstance(s, bool) or not isinstance(s, (numbers.Integral, np.integer)):
            raise TypeError(f"{name} must hold integer step indices, got {s!r}")
        s = int(s)
        if not -T <= s < T:
            raise ValueError(f"{name}: step {s} is out of range for T = {T} steps")
        out.append(s % T)
    if not out:
        raise ValueError(f"{name} is empty; pass at least one step")
    if len(set(out)) != len(out):
        raise ValueError(f"{name} repeats a step: {list(steps)}")
    return out
