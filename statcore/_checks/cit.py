"""Validators of statcore.cit (the one input door: errors name the argument)."""
from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from .core import *  # noqa: F401,F403  (the generic checks every topic builds on)
from .core import _is_pandas  # noqa: F401

__all__ = ['CIT_NAN_POLICIES', 'as_cit_data', 'as_directions']


#: the nan_policy values of the conditional-independence functions: "propagate" is refused, since a
#: regression on z cannot use a row with a NaN and one NaN would spread to every residual
CIT_NAN_POLICIES = ("raise", "omit")


def as_cit_data(nan_policy: str, /, required: Sequence[str] = (), **arrays: Any) -> tuple[dict, np.ndarray | None]:
    """The data of a conditional-independence function as (n, d) float64 matrices with one row per
    observation: ``None`` stays None (an error when its name is in ``required``), vectors become
    one column, all have the same number of rows; NaN handled by ``nan_policy`` ("raise" or
    "omit", dropping the rows with a NaN in any of the arrays), infinities refused, and no constant
    column (checked after the rows are dropped). Returns the arrays and the rows kept (None: all)."""
    nan_policy = check_nan_policy(nan_policy, CIT_NAN_POLICIES)
    out: dict = {}
    for name, v in arrays.items():
        out[name] = as_matrix(v, name, allow_none=name not in required, check_constant=False, allow_nan=True)
    if all(v is None for v in out.values()):
        return out, None
    check_same_n(**out)
    res = apply_nan_policy(nan_policy, **out)
    out = dict(res.arrays)
    for name, arr in out.items():
        if arr is not None:
            refuse_constant_columns(arr, name)
    return out, res.keep


def as_directions(w: Any, name: str, d: int, data: str) -> np.ndarray:
    """k directions of a ``d``-column ``data`` matrix: a finite float64 (d, k) array, k >= 1, no
    zero column."""
    arr = as_float_array(w, name)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[0] != d or arr.shape[1] == 0:
        raise ValueError(f"{name} must be a ({d}, k) array of k directions (columns), one row per column of "
                         f"{data}; got shape {arr.shape}")
    if np.any(np.all(arr == 0, axis=0)):
        raise ValueError(f"{name} has a zero column; every direction needs a non-zero length")
    return arr
