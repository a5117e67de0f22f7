"""Validators of statcore.knockoffs (the one input door: errors name the argument)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .core import *  # noqa: F401,F403  (the generic checks every topic builds on)

__all__ = ["as_covariance", "as_design"]


def as_covariance(Sigma: Any, name: str = "Sigma", p: int | None = None) -> np.ndarray:
    """A finite symmetric positive-definite (p, p) matrix as float64, or a ValueError naming ``name``.

    Symmetry is checked to 1e-8 relative to the largest entry (and the matrix symmetrised); positive
    definiteness as knockoff's ``is_posdef``: the smallest eigenvalue of the correlation matrix above
    1e-8 (a singular or indefinite covariance gives knockoffs without power, or none at all)."""
    S = as_float_array(Sigma, name)
    if S.ndim != 2 or S.shape[0] != S.shape[1] or S.shape[0] == 0:
        raise ValueError(f"{name} must be a square (p, p) covariance matrix, got shape {S.shape}")
    if p is not None and S.shape[0] != p:
        raise ValueError(f"{name} must be {p} x {p} (one row and column per column of X), got {S.shape}")
    scale = np.max(np.abs(S))
    if not np.allclose(S, S.T, rtol=0, atol=1e-8 * scale):
        raise ValueError(f"{name} must be symmetric")
    d = np.diag(S)
    if np.any(d <= 0):
        raise ValueError(f"{name} must have a positive diagonal (variances), found {float(d.min())!r}")
    S = (S + S.T) / 2
    sd = np.sqrt(d)
    G = S / sd[:, None] / sd[None, :]
    lam = np.linalg.eigvalsh(G)[0]
    if not lam > 1e-8:
        raise ValueError(f"{name} must be positive definite: the smallest eigenvalue of its correlation matrix "
                         f"is {lam:.3g} (knockoffs need 2 Sigma - diag(s) >= 0 with s > 0)")
    return S


def as_design(X: Any, name: str = "X") -> np.ndarray:
    """A finite (n, p) design matrix with p >= 1 and no constant column."""
    arr = as_float_array(X, name)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-dimensional (n, p) matrix (observations in rows), got shape {arr.shape}")
    if arr.shape[0] < 2 or arr.shape[1] == 0:
        raise ValueError(f"{name} must have at least 2 rows and 1 column, got shape {arr.shape}")
    refuse_constant_columns(arr, name)
    return arr
