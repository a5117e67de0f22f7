"""Validators of statcore.twosample (the one input door: errors name the argument)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .core import *  # noqa: F401,F403  (the generic checks every topic builds on)

__all__ = ["as_feature_samples", "as_mean_cov", "check_subset_size", "unit_scale_samples", "larger_sample"]


def as_feature_samples(x: Any, y: Any, *, min_n: int = 2, names: tuple[str, str] = ("x", "y")
                       ) -> tuple[np.ndarray, np.ndarray]:
    """Two samples of feature vectors as C-contiguous float64 (n, d) matrices (a vector becomes one
    column), with the same number of columns d, at least ``min_n`` rows each, no NaN or infinity.
    Constant columns are allowed (a feature may be constant in a sample)."""
    out = []
    for name, v in zip(names, (x, y)):
        arr = as_matrix(v, name, check_constant=False)
        if arr.shape[1] == 0:
            raise ValueError(f"{name} has no columns (features); pass at least one")
        if arr.shape[0] < min_n:
            raise ValueError(f"{name} needs at least {min_n} observations (rows); got {arr.shape[0]}")
        out.append(np.ascontiguousarray(arr))
    if out[0].shape[1] != out[1].shape[1]:
        raise ValueError(f"{names[0]} and {names[1]} must have the same number of features (columns): "
                         f"{names[0]} has {out[0].shape[1]}, {names[1]} has {out[1].shape[1]}")
    return out[0], out[1]


def as_mean_cov(mu: Any, sigma: Any, mu_name: str, sigma_name: str, d: int | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
    """A mean vector and a symmetric positive semi-definite covariance matrix of matching size."""
    m = as_float_array(mu, mu_name)
    if m.ndim != 1 or m.size == 0:
        raise ValueError(f"{mu_name} must be a non-empty 1-dimensional mean vector, got shape {m.shape}")
    s = as_float_array(sigma, sigma_name)
    if s.ndim == 0 and m.size == 1:
        s = s.reshape(1, 1)
    if s.ndim != 2 or s.shape != (m.size, m.size):
        raise ValueError(f"{sigma_name} must be a {m.size} x {m.size} covariance matrix (the size of "
                         f"{mu_name}), got shape {s.shape}")
    if d is not None and m.size != d:
        raise ValueError(f"{mu_name} has {m.size} features but the first pair has {d}; both pairs need the same d")
    scale = max(1.0, float(np.abs(s).max()))
    if np.abs(s - s.T).max() > 1e-8 * scale:
        raise ValueError(f"{sigma_name} must be symmetric (a covariance matrix); max |S - S^T| = "
                         f"{np.abs(s - s.T).max():.3g}")
    if np.any(np.diag(s) < 0):
        raise ValueError(f"{sigma_name} has negative variances on its diagonal; it is not a covariance matrix")
    return np.ascontiguousarray(m), np.ascontiguousarray((s + s.T) / 2)


def check_subset_size(subset_size: Any, n_x: int, n_y: int, name: str = "subset_size") -> int:
    """A subset size of at least 2 and at most the smaller sample (subsets are drawn without replacement)."""
    m = check_positive_int(subset_size, name, minimum=2)
    if m > min(n_x, n_y):
        raise ValueError(f"{name}={m} is larger than the smaller sample (x has {n_x} rows, y has {n_y}); "
                         "subsets are drawn without replacement: pass a subset_size <= "
                         f"{min(n_x, n_y)}")
    return m


def unit_scale_samples(x: np.ndarray, y: np.ndarray, *, robust: bool = False) -> tuple[np.ndarray, np.ndarray, float]:
    """x and y centred at the pooled column medians and divided by one power of two near their largest
    deviation (``pow2_scale``), and that scale: Euclidean distances and covariances of the scaled
    samples never overflow (1e300) or underflow (1e-300), and a location far from 0 (1e8) loses no
    digits to cancellation. A statistic homogeneous of degree k in the data multiplies back by s ** k.
    ``robust`` (kernels with a median bandwidth): the scale of the median deviation (``pow2_scale``)."""
    center = np.median(np.vstack([x, y]), axis=0)
    s = float(pow2_scale(np.vstack([x, y]), axis=None, center=center, robust=robust))
    return (x - center) / s, (y - center) / s, s


def larger_sample(x: np.ndarray, y: np.ndarray, names: tuple[str, str] = ("x", "y")) -> str:
    """The name of the sample holding the value of largest magnitude (for an overflow message)."""
    return names[0] if np.abs(x).max(initial=0.0) >= np.abs(y).max(initial=0.0) else names[1]
