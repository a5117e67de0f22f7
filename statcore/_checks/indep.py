"""Validators of statcore.indep (the one input door: errors name the argument)."""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .core import *  # noqa: F401,F403  (the generic checks every topic builds on)
from .core import _is_pandas  # noqa: F401

__all__ = ['INDEP_NAN_POLICIES', 'as_indep_data', 'check_index', 'is_constant_sample', 'warn_constant',
           'HSIC_KERNELS', 'check_kernels', 'check_bandwidths']


#: the nan_policy values of the independence functions: "propagate" is refused, since a distance or
#: kernel matrix with one NaN row turns every statistic and every permutation into NaN
INDEP_NAN_POLICIES = ("raise", "omit")


def as_indep_data(nan_policy: str, /, min_n: int = 2, **arrays: Any) -> tuple[dict, np.ndarray | None]:
    """The samples of an independence function as C-contiguous float64 (n, p) matrices, one row per
    observation (a vector becomes one column); all have the same n; NaN handled by ``nan_policy``
    ("raise" or "omit": drop the rows with a NaN in any sample); infinities refused; at least
    ``min_n`` rows after that. Constant columns are allowed (a multivariate sample may have one; a
    wholly constant sample is the caller's case: see ``is_constant_sample``).
    Returns the arrays (by name, in order) and the rows kept (None: all)."""
    nan_policy = check_nan_policy(nan_policy, INDEP_NAN_POLICIES)
    out: dict = {}
    for name, v in arrays.items():
        arr = as_matrix(v, name, check_constant=False, allow_nan=True)
        if arr.shape[1] == 0:
            raise ValueError(f"{name} has no columns; pass at least one variable")
        out[name] = arr
    check_same_n(**out)
    res = apply_nan_policy(nan_policy, **out)
    out = {k: np.ascontiguousarray(a, dtype=np.float64) for k, a in res.arrays.items()}
    n = next(iter(out.values())).shape[0]
    if n < min_n:
        raise ValueError(f"{' and '.join(out)} need at least {min_n} observations for this statistic; got {n}")
    return out, res.keep


def check_index(index: Any, name: str = "index") -> float:
    """The exponent of the Euclidean distance in distance covariance: a real in (0, 2), as R energy's
    ``index`` (energy refuses index outside (0, 2], where index = 2 makes dCov a covariance of means)."""
    return check_in_interval(index, name, 0.0, 2.0, closed="neither")


def is_constant_sample(arr: np.ndarray) -> bool:
    """True when every row of an (n, p) sample is the same point (all pairwise distances zero)."""
    return bool(arr.shape[0] < 2 or np.all(arr == arr[0]))


def warn_constant(name: str, what: str, stacklevel: int = 3, *, reason: str | None = None) -> None:
    """The one warning for a sample whose rows are all equal: its distance variance is 0, and
    ``what`` is 0 by definition (Szekely, Rizzo & Bakirov 2007; R energy returns 0 too). ``reason``
    replaces the distance-variance clause for other statistics (a kernel's centred Gram matrix)."""
    from .._warnings import StatcoreWarning
    reason = "its distance variance is 0 and {what} is 0 by definition, as in R energy" if reason is None else reason
    warnings.warn(f"{name} is constant (all observations equal): {reason.format(what=what)}; a constant variable "
                  "carries no information on dependence", StatcoreWarning, stacklevel=stacklevel)


#: the kernels of the HSIC family (each has k(x, x) = 1): Gaussian exp(-|x - x'|^2 / (2 s^2)), Laplace
#: exp(-|x - x'| / s) (Euclidean norm) and the discrete kernel 1{x = x'} of R dHSIC
HSIC_KERNELS = ("gaussian", "laplace", "discrete")


def check_kernels(kernel: Any, d: int, name: str = "kernel") -> tuple:
    """``kernel`` of an HSIC function: one name for every variable, or a sequence of d names (one per
    variable, as R dHSIC's ``kernel`` vector); returns a tuple of d names from ``HSIC_KERNELS``."""
    if isinstance(kernel, str):
        return (check_choice(kernel, name, HSIC_KERNELS),) * d
    if isinstance(kernel, (list, tuple)):
        if len(kernel) != d:
            raise ValueError(f"{name} must be one kernel name or {d} of them (one per variable), got {len(kernel)}")
        return tuple(check_choice(k, f"{name}[{i}]", HSIC_KERNELS) for i, k in enumerate(kernel))
    raise TypeError(f"{name} must be a kernel name ({', '.join(map(repr, HSIC_KERNELS))}) or a list of {d} of them, "
                    f"got {type(kernel).__name__}")


def check_bandwidths(bandwidth: Any, kernels: tuple, name: str = "bandwidth") -> tuple:
    """``bandwidth`` of an HSIC function: "median" (the median heuristic), a positive number, or a
    sequence with one of these per variable. Returns a tuple with "median", a float, or None for a
    variable with the discrete kernel (which has no bandwidth: a number given for it by position is
    refused; one number for all variables applies to the others)."""
    d = len(kernels)

    def one(b: Any, label: str):
        if isinstance(b, str):
            return check_choice(b, label, ("median",))
        if b is None:
            raise TypeError(f"{label} must be 'median' or a positive number, got None")
        return check_positive_real(b, label)

    if isinstance(bandwidth, (list, tuple)):
        if len(bandwidth) != d:
            raise ValueError(f"{name} must be 'median', one positive number, or {d} of these (one per variable); "
                             f"got {len(bandwidth)}")
        out = []
        for i, (b, k) in enumerate(zip(bandwidth, kernels)):
            v = one(b, f"{name}[{i}]")
            if k == "discrete":
                if v != "median":
                    raise ValueError(f"{name}[{i}] = {b!r} is given for a variable with the discrete kernel, which has "
                                     "no bandwidth; pass 'median' there")
                v = None
            out.append(v)
        return tuple(out)
    if isinstance(bandwidth, np.ndarray) and bandwidth.ndim == 1:
        return check_bandwidths(tuple(bandwidth.tolist()), kernels, name)
    v = one(bandwidth, name)
    return tuple(None if k == "discrete" else v for k in kernels)



# --- the distance covariance family (statcore/indep/_dcor.py) ---
__all__ += ['check_u_statistic_n', 'refuse_constant_sample']


def check_u_statistic_n(n: int, names: str) -> int:
    """``n`` for a U-statistic of distance covariance (U-centring divides by n - 2 and the inner
    product by n (n - 3)): at least 4, or a ValueError naming n and the samples."""
    if n < 4:
        raise ValueError(f"n = {n} observations in {names}: the bias-corrected (U-statistic) forms need n >= 4, "
                         "since they divide by n (n - 3)")
    return int(n)


def refuse_constant_sample(arr: np.ndarray, name: str) -> None:
    """A test refuses a wholly constant sample: its distance variance is 0, dCor is 0 by definition
    and there is nothing to test (R's tests print p-value NA)."""
    if is_constant_sample(arr):
        raise ValueError(f"{name} is constant (all observations equal): its distance variance is 0, so there is no "
                         "dependence to test (R's tests give p-value NA); remove the constant variable")
