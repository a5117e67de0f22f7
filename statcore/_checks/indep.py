"""Validators of statcore.indep (the one input door: errors name the argument)."""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .core import *  # noqa: F401,F403  (the generic checks every topic builds on)
from .core import _is_pandas  # noqa: F401

__all__ = ['INDEP_NAN_POLICIES', 'as_indep_data', 'check_index', 'is_constant_sample', 'warn_constant']


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


def warn_constant(name: str, what: str, stacklevel: int = 3) -> None:
    """The one warning for a sample whose rows are all equal: its distance variance is 0, and
    ``what`` is 0 by definition (Szekely, Rizzo & Bakirov 2007; R energy returns 0 too)."""
    from .._warnings import StatcoreWarning
    warnings.warn(f"{name} is constant (all observations equal): its distance variance is 0 and {what} is 0 by "
                  "definition, as in R energy; a constant variable carries no information on dependence",
                  StatcoreWarning, stacklevel=stacklevel)
