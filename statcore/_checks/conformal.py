"""Validators of statcore.conformal (the one input door: errors name the argument)."""
from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from .core import *  # noqa: F401,F403  (the generic checks every topic builds on)
from .core import _is_pandas

__all__ = ["check_miscoverage", "conformal_rank", "min_calibration_size", "as_scores", "as_cal_vector",
           "as_scale", "as_groups", "as_class_probs", "as_class_labels", "as_density_grid",
           "as_threshold"]

#: values of (n + 1)(1 - alpha) within this relative distance of an integer count as that integer, so
#: that a decimal alpha gives the rank its decimal value means (10 * (1 - 0.7) is 3.0000000000000004 in
#: binary floating point; its ceiling would be 4 where (n + 1)(1 - alpha) = 3 exactly)
RANK_RTOL = 1e-12


def check_miscoverage(alpha: Any, name: str = "alpha") -> float:
    """The miscoverage alpha of a conformal set: a real number in (0, 1)."""
    return check_in_interval(alpha, name, 0.0, 1.0, closed="neither")


def _snap(t: float, n: int) -> float:
    r = round(t)
    return float(r) if abs(t - r) <= RANK_RTOL * (n + 1) else t


def conformal_rank(n: int, alpha: float) -> int:
    """ceil((n + 1)(1 - alpha)): the rank of the split-conformal quantile among n calibration scores
    (may exceed n: then the set is infinite)."""
    return int(math.ceil(_snap((n + 1) * (1.0 - alpha), n)))


def min_calibration_size(alpha: float) -> int:
    """The smallest n with ceil((n + 1)(1 - alpha)) <= n, i.e. n >= 1/alpha - 1 (= ceil(1/alpha) - 1)."""
    n = max(1, int(math.ceil(1.0 / alpha)) - 3)
    while conformal_rank(n, alpha) > n:  # (n + 1)(1 - alpha) <= n is monotone in n: a few steps at most
        n += 1
    return n


def as_scores(scores: Any, name: str = "scores") -> np.ndarray:
    """Calibration scores: a non-empty vector of finite real numbers."""
    arr = as_float_array(scores, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a vector of calibration scores (1-dimensional), got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty; a conformal quantile needs calibration scores")
    return arr


def as_cal_vector(x: Any, name: str, *, allow_nan: bool = False) -> np.ndarray:
    """A non-empty 1-dimensional float vector (NaN only when ``allow_nan``; never infinities)."""
    arr = as_float_array(x, name, allow_nan=allow_nan)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a vector (one value per observation), got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty; pass at least one observation")
    return arr


def as_scale(x: Any, name: str, n: int | None = None, *, allow_nan: bool = False, other: str = "") -> np.ndarray:
    """A vector of positive finite scales sigma_hat(x), n of them when n is given (NaN only when
    ``allow_nan``)."""
    arr = as_cal_vector(x, name, allow_nan=allow_nan)
    if n is not None and arr.size != n:
        raise ValueError(f"{name} must have one value per observation ({n}{', as ' + other if other else ''}), "
                         f"got {arr.size}")
    finite = arr[~np.isnan(arr)]
    if finite.size and finite.min() <= 0:
        raise ValueError(f"{name} must be positive (a scale sigma_hat(x) > 0); found {float(finite.min())!r}")
    return arr


def as_groups(groups: Any, name: str, n: int, other: str = "") -> np.ndarray:
    """A vector of n group labels (hashable numbers or strings; no missing values) as an object or
    numeric numpy array."""
    if groups is None:
        raise TypeError(f"{name} is required: got None where group labels were expected")
    if isinstance(groups, (str, bytes)):
        raise TypeError(f"{name} must be a vector of group labels, got a string")
    values = groups.to_numpy() if _is_pandas(groups) else groups
    try:
        arr = np.asarray(values)
    except Exception as exc:
        raise TypeError(f"{name} must be a vector of group labels: {exc}") from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a vector (one group label per observation), got shape {arr.shape}")
    if arr.size != n:
        raise ValueError(f"{name} must have one label per observation ({n}{', as ' + other if other else ''}), "
                         f"got {arr.size}")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        bad = arr[~np.isfinite(arr)][0]
        raise ValueError(f"{name} contains {int(np.sum(~np.isfinite(arr)))} non-finite label(s) ({show_value(bad)}); every "
                         "observation needs a group label (a finite number or a string)")
    if arr.dtype.kind == "O":
        for v in arr:
            if v is None or (isinstance(v, float) and math.isnan(v)):
                raise ValueError(f"{name} contains a missing label ({v!r}); every observation needs a group")
            try:
                hash(v)
            except TypeError:
                raise TypeError(f"{name} must hold hashable labels (numbers or strings), found "
                                f"{type(v).__name__}") from None
    elif arr.dtype.kind not in "biufUS":
        raise TypeError(f"{name} must hold numbers or strings, got dtype {arr.dtype}")
    return arr


def as_class_probs(probs: Any, name: str, *, n_classes: int | None = None, tol: float = 1e-6) -> np.ndarray:
    """An (n, K) matrix of class probabilities: values in [0, 1], rows summing to 1 within ``tol``,
    K >= 2 (``n_classes`` when given)."""
    arr = as_float_array(probs, name)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a matrix of class probabilities (one row per observation, one "
                         f"column per class), got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} has no rows; pass at least one observation")
    if arr.shape[1] < 2:
        raise ValueError(f"{name} must have at least two columns (classes), got {arr.shape[1]}")
    if n_classes is not None and arr.shape[1] != n_classes:
        raise ValueError(f"{name} has {arr.shape[1]} columns (classes) where the calibration probabilities "
                         f"have {n_classes}")
    if arr.min() < 0 or arr.max() > 1:
        bad = arr.min() if arr.min() < 0 else arr.max()
        raise ValueError(f"{name} must hold probabilities in [0, 1]; found {float(bad)!r}")
    dev = np.abs(arr.sum(axis=1) - 1.0)
    if dev.max() > tol:
        i = int(np.argmax(dev))
        raise ValueError(f"{name}: every row must sum to 1 (class probabilities, e.g. a softmax); row {i} sums "
                         f"to {float(arr[i].sum())!r}")
    return arr


def as_class_labels(y: Any, name: str, n: int, classes: Any, other: str = "the probabilities") -> np.ndarray:
    """Observed labels as column indices (int64) of the probability matrix: ``classes`` None means the
    labels are the column indices 0..K-1 themselves; otherwise ``classes`` lists the label of each
    column and every label of y must be one of them."""
    if y is None:
        raise TypeError(f"{name} is required: got None where class labels were expected")
    if isinstance(y, (str, bytes)):
        raise TypeError(f"{name} must be a vector of class labels, got a string")
    arr = np.asarray(y.to_numpy() if _is_pandas(y) else y)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a vector (one label per observation), got shape {arr.shape}")
    if arr.size != n:
        raise ValueError(f"{name} must have one label per row of {other} ({n}), got {arr.size}")
    K = len(classes)
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ValueError(f"{name} contains {int(np.sum(~np.isfinite(arr)))} NaN or infinite value(s); every "
                         "observation needs a class label")
    if arr.dtype.kind == "b":
        raise TypeError(f"{name} must hold class labels, got booleans; convert them to 0/1 if intended")
    where = {c: j for j, c in enumerate(classes)}
    if arr.dtype.kind in "iu" or (arr.dtype.kind == "f" and np.all(arr == np.round(arr))):
        if all(isinstance(c, numbers.Integral) and c == j for j, c in enumerate(classes)):
            idx = arr.astype(np.int64)
            bad = (idx < 0) | (idx >= K)
            if bad.any():
                raise ValueError(f"{name} holds the label {arr[bad][0].item()!r}, which is not a class: the labels are "
                                 f"the column indices 0..{K - 1} of the probabilities (pass classes= for others)")
            return idx
    out = np.empty(arr.size, dtype=np.int64)
    for i, v in enumerate(arr.tolist()):
        j = where.get(v)
        if j is None:
            raise ValueError(f"{name} holds the label {v!r}, which is not one of the classes {list(classes)!r}")
        out[i] = j
    return out


def as_density_grid(density: Any, grid: Any) -> tuple[np.ndarray, np.ndarray, bool]:
    """A predictive density on a grid: ``grid`` a strictly increasing finite vector of m >= 2 points,
    ``density`` an (m,) or (n, m) array of non-negative finite values. Returns (density as (n, m),
    grid, whether the input was one density)."""
    g = as_float_array(grid, "grid")
    if g.ndim != 1:
        raise ValueError(f"grid must be a vector of points, got shape {g.shape}")
    if g.size < 2:
        raise ValueError(f"grid must have at least two points, got {g.size}")
    if np.any(np.diff(g) <= 0):
        raise ValueError("grid must be strictly increasing (sorted, no repeated points)")
    d = as_float_array(density, "density")
    single = d.ndim == 1
    if d.ndim not in (1, 2):
        raise ValueError(f"density must be an (m,) array on the grid or an (n, m) array (one density per row), "
                         f"got shape {d.shape}")
    d2 = d.reshape(1, -1) if single else d
    if d2.shape[0] == 0:
        raise ValueError("density has no rows; pass at least one density")
    if d2.shape[1] != g.size:
        raise ValueError(f"density must have one value per grid point ({g.size}) in its last axis, got {d2.shape[1]}")
    if d2.size and d2.min() < 0:
        raise ValueError(f"density must be non-negative, found {float(d2.min())!r}")
    return d2, g, single


def as_threshold(q: Any, n: int) -> np.ndarray:
    """The threshold q of a conformal set: one number, or one per density row (n values); NaN refused,
    +inf allowed (an infinite set)."""
    arr = as_float_array(q, "q", allow_inf=True)
    if arr.ndim == 0:
        arr = np.full(n, float(arr))
    elif arr.ndim != 1 or arr.size != n:
        raise ValueError(f"q must be one number or one per density row ({n}), got shape {arr.shape}")
    if np.any(arr == -np.inf):
        raise ValueError("q must not be -inf (a threshold from conformal_quantile is finite, or +inf)")
    return arr
