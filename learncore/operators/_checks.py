"""learncore.operators' input door: dataset sizes, resolutions, sensor arrays, corruption levels.

The generic checks are statcore's (``statcore.utils``); this module only adds what the operator
datasets need. Nothing here modifies its input: arrays are converted into new float64 copies.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from statcore.utils import (as_float_array, check_choice, check_finite_real, check_nonneg_real,  # noqa: F401
                            check_positive_int, check_positive_real, check_probability, check_seed)

__all__ = ["check_dtype", "check_n_sensors", "check_sensor_layout", "check_test_size", "as_sensor_matrix",
           "as_sensor_coords", "as_scale", "seed_label"]

_DTYPES = {"float32": np.float32, "float64": np.float64}


def check_dtype(dtype: Any, name: str = "dtype") -> type:
    """"float32" / "float64" (or the numpy types) -> the numpy scalar type."""
    if dtype in (np.float32, np.float64):
        return dtype
    key = check_choice(dtype if isinstance(dtype, str) else str(getattr(dtype, "__name__", dtype)),
                       name, tuple(_DTYPES))
    return _DTYPES[key]


def check_n_sensors(n_sensors: Any, n_grid: int, name: str = "n_sensors") -> int:
    """A number of sensors between 1 and the number of grid points."""
    m = check_positive_int(n_sensors, name)
    if m > n_grid:
        raise ValueError(f"{name}={m} exceeds the {n_grid} grid points: at most one sensor per grid point")
    return m


def check_sensor_layout(layout: Any, name: str = "sensor_layout") -> str:
    return check_choice(layout, name, ("uniform", "random"))


def check_test_size(test_size: Any, n_samples: int, name: str = "test_size") -> int:
    """A fraction in (0, 1) of the samples -> the number of test samples, round(test_size * n_samples)
    kept within [1, n_samples - 1] so that both sides of the split hold a sample."""
    frac = check_probability(test_size, name, open_left=True, open_right=True)
    return min(max(1, int(round(frac * n_samples))), n_samples - 1)


def as_sensor_matrix(sensors: Any, name: str = "sensors") -> np.ndarray:
    """Sensor readings as a new float64 (N, m) array: finite, at least one sample and one sensor."""
    arr = as_float_array(sensors, name, ndim=2, copy=True)
    if arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"{name} is empty (shape {arr.shape}): give at least one sample and one sensor")
    return arr


def as_sensor_coords(coords: Any, m: int, name: str = "sensor_coords") -> np.ndarray:
    """Sensor coordinates as a float64 (m, d) array (a vector is read as (m, 1)), d in {1, 2}."""
    arr = as_float_array(coords, name, copy=True)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[1] not in (1, 2):
        raise ValueError(f"{name} must have shape (m,) or (m, d) with d = 1 or 2, got {arr.shape}")
    if arr.shape[0] != m:
        raise ValueError(f"{name} has {arr.shape[0]} rows but sensors has {m} columns: one coordinate per sensor")
    return arr


def as_scale(scale: Any, n: int, name: str = "scale") -> np.ndarray:
    """A per-sample positive scale: a scalar or a vector of length n."""
    arr = as_float_array(scale, name)
    if arr.ndim == 0:
        arr = np.full(n, float(arr))
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ValueError(f"{name} must be a scalar or have one value per sample ({n}), got shape {arr.shape}")
    if (arr <= 0).any():
        raise ValueError(f"{name} must be positive: {int((arr <= 0).sum())} value(s) are <= 0")
    return arr


def seed_label(seed: Any) -> int | None:
    """The seed as recorded on a dataset: the int when one was given, else None."""
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        return int(seed)
    return None
