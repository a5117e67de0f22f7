"""Pieces shared by the grid estimators of a Gaussian location mixture (NPMLE, predictive recursion):
grid construction and evaluation of the fitted density (the argument checks live in
``statcore._checks``, section ebayes)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .._checks import InputWrapper, as_float_array, check_mixture_grid, positive_scale


def make_grid(grid: Any, x: np.ndarray, scale: float, *, align: float | None = None) -> np.ndarray:
    """Atoms from ``grid``: an integer number of equally spaced points over the range of ``x``,
    or the sorted array of atoms itself.

    With ``align`` inside the range, the equally spaced grid is shifted by less than half a step so
    that ``align`` is one of the atoms (the NPMLE can then put mass exactly on a null value).
    """
    grid = check_mixture_grid(grid, "grid")
    if isinstance(grid, int):
        m = grid
        lo, hi = float(np.min(x)), float(np.max(x))
        if hi - lo <= 0:
            lo, hi = lo - scale, hi + scale
        atoms = np.linspace(lo, hi, m)
        if align is not None and lo <= align <= hi:
            atoms = atoms - atoms[np.argmin(np.abs(atoms - align))] + align
            atoms[np.argmin(np.abs(atoms - align))] = align  # exact, whatever the rounding
        return atoms
    return grid


def mixture_pdf(y: Any, atoms: np.ndarray, weights: np.ndarray, sd: Any, *, name: str = "y",
                sd_name: str = "sd") -> Any:
    """sum_j weights_j N(y; atoms_j, sd^2) at every y (same container out as in)."""
    from ._kernels import mixture_pdf as kernel

    wrapper = InputWrapper.of(y)
    arr = as_float_array(y, name, allow_inf=True)
    flat = np.ascontiguousarray(arr.ravel())
    sdv = positive_scale(sd, sd_name, flat.size)
    sdv = np.ascontiguousarray(np.broadcast_to(sdv, flat.shape), dtype=np.float64)
    keep = weights > 0
    out = np.empty(flat.size)
    kernel(flat, sdv, np.ascontiguousarray(atoms[keep]), np.ascontiguousarray(weights[keep]), out)
    return wrapper.wrap(out.reshape(arr.shape))


def mixture_loglik(x: np.ndarray, atoms: np.ndarray, weights: np.ndarray, sd: float,
                   chunk: int = 4096) -> float:
    """sum_i log sum_j weights_j N(x_i; atoms_j, sd^2), on the log scale (finite however far x_i
    lies from the atoms, where the density itself underflows)."""
    keep = weights > 0
    a, lw = atoms[keep], np.log(weights[keep])
    total = 0.0
    for s in range(0, x.size, chunk):
        e = lw[None, :] - (x[s:s + chunk, None] - a[None, :]) ** 2 * (0.5 / sd ** 2)
        mx = e.max(axis=1)
        total += float(np.sum(mx + np.log(np.exp(e - mx[:, None]).sum(axis=1))))
    return total - x.size * (np.log(sd) + 0.5 * np.log(2.0 * np.pi))
