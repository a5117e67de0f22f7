"""Validators of statcore.ebayes (the one input door: errors name the argument)."""
from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from .core import *  # noqa: F401,F403  (the generic checks every topic builds on)
from .core import _is_pandas  # noqa: F401
from .public import check_aligned_indexes

__all__ = ['check_mixture_grid', 'NPMLEInputs', 'npmle_inputs', 'predictive_recursion_inputs', 'C2GInputs', 'c2g_inputs', 'c2g_new_covariates']


# validators of statcore.ebayes (npmle, predictive_recursion, c2g)

def check_mixture_grid(grid: Any, name: str = "grid") -> int | np.ndarray:
    """The grid of a mixture estimator: an integer number (>= 2) of equally spaced atoms, returned
    as int, or the atoms themselves, returned sorted (distinct, finite, 1-dimensional)."""
    if isinstance(grid, numbers.Real) and not isinstance(grid, bool) and np.ndim(grid) == 0:
        return check_positive_int(grid, name, minimum=2)
    atoms = as_float_array(grid, name)
    if atoms.ndim != 1 or atoms.size == 0:
        raise ValueError(f"{name} must be a positive integer (number of points) or a 1-dimensional array of "
                         f"atoms, got shape {atoms.shape}")
    atoms = np.sort(atoms)
    if atoms.size > 1 and np.any(np.diff(atoms) == 0):
        raise ValueError(f"{name} contains repeated atoms; pass distinct values")
    return atoms


@dataclass(frozen=True)
class NPMLEInputs:
    """What ``npmle_inputs`` returns: the kept data, their scales and normalised weights."""

    x: np.ndarray
    sigma: np.ndarray
    omega: np.ndarray
    wsum: float
    nobs: int
    bins: int | None
    tol: float
    keep: np.ndarray | None


def npmle_inputs(x: Any, sigma: Any, weights: Any, bins: Any, tol: Any, nan_policy: Any) -> NPMLEInputs:
    """Validate the data of ``npmle``: x (a vector), sigma (one or one per observation), frequency
    weights, bins and tol; ``nan_policy`` "raise" or "omit" (drops the observations with a NaN in
    x, in a per-observation sigma or in weights)."""
    nan_policy = check_nan_policy(nan_policy, ("raise", "omit"))
    xv = as_vector(x, "x", allow_nan=True)
    if xv.size == 0:
        raise ValueError("x is empty; the NPMLE needs at least one observation")
    sd = as_float_array(sigma, "sigma", allow_nan=True)
    if sd.ndim > 1:
        raise ValueError(f"sigma must be a number or a vector (one per observation), got shape {sd.shape}")
    sd = sd.reshape(-1)
    if sd.size not in (1, xv.size):
        raise ValueError(f"sigma has {sd.size} values but x has {xv.size} observations; pass one sigma, or one "
                         "per observation")
    wv = None
    if weights is not None:
        wv = as_vector(weights, "weights", allow_nan=True)
        if wv.size != xv.size:
            raise ValueError(f"weights has {wv.size} values but x has {xv.size} observations; pass one weight per "
                             "observation")
    per_obs = sd.size == xv.size
    if not per_obs and np.isnan(sd).any():
        raise ValueError("sigma is NaN; pass a positive noise standard deviation")
    kept = apply_nan_policy(nan_policy, x=xv, sigma=sd if per_obs else None, weights=wv)
    xv, wv = kept.arrays["x"], kept.arrays["weights"]
    if per_obs:
        sd = kept.arrays["sigma"]
    sd = positive_scale(sd, "sigma", xv.size)
    if wv is None:
        omega = np.full(xv.size, 1.0 / xv.size)
        wsum = float(xv.size)
        nobs = xv.size
    else:
        if np.any(wv < 0) or not np.any(wv > 0):
            raise ValueError("weights must be non-negative and not all zero")
        wsum = float(wv.sum())
        omega = wv / wsum
        nobs = int(round(wsum)) if np.all(wv == np.round(wv)) else xv.size
    if bins is not None:
        bins = check_positive_int(bins, "bins", minimum=2)
        if sd.size > 1 and np.any(sd != sd[0]):
            raise ValueError("bins needs one common sigma; with one sigma per observation use bins=None")
    tol = check_in_interval(tol, "tol", 0.0, 1.0, closed="neither")
    return NPMLEInputs(xv, sd, omega, wsum, nobs, bins, tol, kept.keep)


def predictive_recursion_inputs(x: Any, kernel_sd: Any, sweeps: Any, decay: Any, nan_policy: Any
                                ) -> tuple[np.ndarray, float, int, float, np.ndarray | None]:
    """Validate the data of ``predictive_recursion``: (x, kernel_sd, sweeps, decay, kept rows);
    ``nan_policy`` "raise" or "omit"."""
    nan_policy = check_nan_policy(nan_policy, ("raise", "omit"))
    xv = as_vector(x, "x", allow_nan=True)
    if xv.size == 0:
        raise ValueError("x is empty; predictive recursion needs at least one observation")
    kept = apply_nan_policy(nan_policy, x=xv)
    xv = kept.arrays["x"]
    sd = float(positive_scale(kernel_sd, "kernel_sd")[0])
    sweeps = check_positive_int(sweeps, "sweeps")
    decay = check_in_interval(decay, "decay", 0.5, 1.0, closed="right")
    return xv, sd, sweeps, decay, kept.keep


@dataclass(frozen=True)
class C2GInputs:
    """What ``c2g_inputs`` returns: outcomes, treatment (booleans), covariates and kept rows."""

    y: np.ndarray
    treat: np.ndarray
    X: np.ndarray | None
    columns: list | None
    keep: np.ndarray | None
    unit: float = 1.0


def c2g_inputs(y: Any, treat: Any, X: Any, model: str, nan_policy: Any) -> C2GInputs:
    """Validate the data of ``c2g``: y (a vector), treat (binary, same length), X (rows = units,
    optional); ``nan_policy`` "raise" or "omit" (drops the units with a NaN in y, treat or X). At
    least 2 controls and 2 treated units; 4 controls for the additive model with covariates. ``unit``:
    the power of two near the outcomes' spread (largest |y - median(y)|, ``pow2_scale``) that c2g fits
    on y / unit (exact), so that no square of the fit under- or overflows at any magnitude."""
    nan_policy = check_nan_policy(nan_policy, ("raise", "omit"))
    check_aligned_indexes(y=y, treat=treat, X=X)
    yv = as_float_array(y, "y", allow_nan=True)
    if yv.ndim != 1:
        raise ValueError(f"y must be a vector (one outcome per unit), got shape {yv.shape}")
    n = yv.size
    if n == 0:
        raise ValueError("y is empty; C2G needs outcomes of treated and control units")
    Xv = columns = None
    if X is not None:
        columns = list(X.columns) if hasattr(X, "columns") else None
        Xv = as_float_array(X, "X", allow_nan=True)
        if Xv.ndim == 1:
            Xv = Xv[:, None]
        if Xv.ndim != 2 or Xv.shape[0] != n:
            raise ValueError(f"X must have one row per unit ({n} rows, the length of y), got shape {Xv.shape}")
        if Xv.shape[1] == 0:
            Xv = columns = None
    t_raw, tmask, tv = treatment_with_missing(treat, n)   # NaN marks a unit that "omit" drops
    kept = apply_nan_policy(nan_policy, y=yv, treat=tmask, X=Xv)
    if kept.keep is not None:
        yv = kept.arrays["y"]
        Xv = kept.arrays["X"]
        tv = as_treatment(np.asarray(t_raw)[kept.keep], yv.size)
    n = yv.size
    n1 = int(tv.sum())
    if n - n1 < 2:
        raise ValueError(f"treat has {n - n1} control units (treat == 0); C2G needs at least 2 controls, "
                         "the known nulls it learns the null outcome distribution from")
    if n1 < 2:
        raise ValueError(f"treat has {n1} treated units (treat == 1); C2G needs at least 2 treated units")
    if model == "additive" and Xv is not None and n - n1 < 4:
        # the kernel ridge regression of the controls needs two residual degrees of freedom
        # beyond its intercept and half a degree per kernel direction: guaranteed from 4 controls
        raise ValueError(f"treat has {n - n1} control units; the additive model with covariates X needs "
                         "at least 4 controls (or pass X=None, or model='nonparametric')")
    with np.errstate(over="ignore", invalid="ignore"):
        spread = float(np.max(np.abs(yv - np.median(yv))))
    if not np.isfinite(spread):
        raise ValueError("y: the outcomes' spread (largest |y - median(y)|) overflows float64; C2G is "
                         "scale-equivariant, so divide y by a constant (for example 2.0 ** 10) and read the "
                         "outputs in those units")
    # the fit runs on y / unit (a power of two: exact) and reads its outputs back in y's units; a constant
    # y (spread 0) keeps unit 1 and selects nobody
    unit = float(pow2_scale(yv, axis=None, center=np.median(yv)))
    return C2GInputs(yv, tv, Xv, columns, kept.keep, unit)


def c2g_new_covariates(x: Any, center: np.ndarray | None, scale: np.ndarray | None, columns: list | None,
                       name: str = "x") -> np.ndarray | None:
    """Covariates at which a fitted C2G model is queried, standardised as in the fit (None when the
    model has no covariates and ``x`` is None)."""
    if center is None:
        if x is None:
            return None
        n = len(x) if np.ndim(x) else 1
        return np.zeros((n, 0))
    if x is None:
        raise ValueError(f"{name} must be given: the model was fitted with covariates")
    if hasattr(x, "columns") and columns is not None:
        missing = [c for c in columns if c not in x.columns]
        if missing:
            raise ValueError(f"{name} lacks the covariate columns {missing}")
        x = x[columns]
    xv = as_float_array(x, name)
    if xv.ndim == 1:
        xv = xv[None, :] if xv.size == center.size else xv[:, None]
    if xv.ndim != 2 or xv.shape[1] != center.size:
        raise ValueError(f"{name} must have {center.size} covariate columns, got shape {xv.shape}")
    return (xv - center) / scale
