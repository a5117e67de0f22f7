"""learncore.operators' input door: sensor batches, dataset geometry, widths and flags.

The scalar checks are statcore's (``statcore.utils``); nothing here modifies its input.
"""
from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import torch
from statcore.utils import check_choice, check_positive_int, check_seed  # noqa: F401

__all__ = ["check_bool", "check_positive_float", "check_nonneg_float", "check_widths", "as_sensor_batch",
           "check_dataset", "check_split"]


def check_bool(x: Any, name: str) -> bool:
    if not isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {x!r}")
    return bool(x)


def _real(x: Any, name: str) -> float:
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(x).__name__}")
    v = float(x)
    if not np.isfinite(v):
        raise ValueError(f"{name} must be finite, got {v!r}")
    return v


def check_positive_float(x: Any, name: str) -> float:
    v = _real(x, name)
    if v <= 0:
        raise ValueError(f"{name} must be positive, got {v!r}")
    return v


def check_nonneg_float(x: Any, name: str) -> float:
    v = _real(x, name)
    if v < 0:
        raise ValueError(f"{name} must be >= 0, got {v!r}")
    return v


def check_widths(x: Any, name: str) -> tuple:
    """A tuple of positive layer widths (an int is one layer; () none)."""
    if isinstance(x, (numbers.Integral, np.integer)) and not isinstance(x, bool):
        x = (x,)
    if isinstance(x, (str, bytes)) or not isinstance(x, (tuple, list)):
        raise TypeError(f"{name} must be a tuple of layer widths, got {type(x).__name__}")
    return tuple(check_positive_int(w, f"{name}[{i}]") for i, w in enumerate(x))


def as_sensor_batch(x: Any, name: str, m: int, dtype: torch.dtype) -> torch.Tensor:
    """Sensor readings (B, m) as a tensor of the model's dtype (numpy in: a new tensor; a tensor is
    not copied, so gradients flow); finite."""
    if x is None or isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be a tensor or array of sensor readings (B, {m}), got {type(x).__name__}")
    if not isinstance(x, torch.Tensor):
        arr = np.asarray(x)
        if arr.dtype.kind not in "fiu":
            raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
        x = torch.as_tensor(np.array(arr, dtype=np.float64), dtype=dtype)
    elif not torch.is_floating_point(x):
        raise TypeError(f"{name} must be a floating tensor, got dtype {x.dtype}")
    elif x.dtype != dtype:
        x = x.to(dtype)
    if x.dim() == 1:
        raise ValueError(f"{name} must have shape (B, {m}) (one row per sample); got a vector of shape "
                         f"{tuple(x.shape)}: pass x[None] for one sample")
    if x.dim() != 2 or x.shape[1] != m:
        raise ValueError(f"{name} must have shape (B, {m}) (the model reads {m} sensors), got {tuple(x.shape)}")
    if x.shape[0] == 0:
        raise ValueError(f"{name} is empty (shape {tuple(x.shape)}); pass at least one sample")
    with torch.no_grad():
        bad = ~torch.isfinite(x)
        if bool(bad.any()):
            raise ValueError(f"{name} has {int(bad.sum())} non-finite reading(s) (NaN or inf); the models read "
                             "every sensor: impute or drop the samples first")
    return x


_DS_FIELDS = ("dim", "grid_shape", "grid", "inputs", "targets", "sensor_idx", "train_idx", "test_idx")


def check_dataset(ds: Any, name: str = "ds") -> None:
    """An OperatorDataset (learncore.operators.data) or any object with its fields."""
    if ds is None or isinstance(ds, (str, bytes, np.ndarray, dict)):
        raise TypeError(f"{name} must be an OperatorDataset (learncore.operators.burgers_1d, ...), "
                        f"got {type(ds).__name__}")
    missing = [f for f in _DS_FIELDS if not hasattr(ds, f)]
    if missing:
        raise TypeError(f"{name} must be an OperatorDataset; {type(ds).__name__} lacks {', '.join(missing)}")
    targets = np.asarray(ds.targets)
    if targets.ndim != 2 or targets.shape[1] != np.asarray(ds.grid).shape[0]:
        raise ValueError(f"{name}.targets must have shape (N, n_grid) with n_grid = {np.asarray(ds.grid).shape[0]}, "
                         f"got {targets.shape}")
    if int(np.prod(ds.grid_shape)) != targets.shape[1]:
        raise ValueError(f"{name}.grid_shape {tuple(ds.grid_shape)} does not hold the {targets.shape[1]} grid points")


def check_split(split: Any, ds: Any) -> np.ndarray:
    """The sample indices of ``split`` ("train", "test", "all")."""
    split = check_choice(split, "split", ("train", "test", "all"))
    if split == "all":
        return np.arange(np.asarray(ds.targets).shape[0])
    idx = np.asarray(ds.train_idx if split == "train" else ds.test_idx, dtype=np.int64)
    if idx.size == 0:
        raise ValueError(f"the dataset's {split} split is empty")
    return idx
