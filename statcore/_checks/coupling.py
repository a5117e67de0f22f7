"""Validators of statcore.coupling (the one input door: errors name the argument)."""
from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from .core import *  # noqa: F401,F403  (the generic checks every topic builds on)
from .core import _is_pandas  # noqa: F401

__all__ = ['COUPLING_MEAN_NAN_POLICIES', 'COUPLING_NAN_POLICIES', 'COUPLING_ASSUMPTIONS', 'as_coupling_weights', 'check_weights_total', 'coupling_mean_inputs', 'strata_codes', 'CouplingData', 'coupling_data_inputs', 'coupling_options', 'interval_inputs', 'check_correlation', 'as_delta']


# validators of statcore.coupling (coupling_mean, joint_bounds, ite_variance_bounds, makarov_bounds,
# imbens_manski_interval, stoye_interval)

#: nan_policy of coupling_mean: "propagate" gives a NaN mean
COUPLING_MEAN_NAN_POLICIES = ("raise", "omit", "propagate")
#: nan_policy of joint_bounds, ite_variance_bounds and makarov_bounds: "propagate" is refused (a NaN
#: outcome has no rank in its arm's quantile function; bounds of NaN say nothing)
COUPLING_NAN_POLICIES = ("raise", "omit")
COUPLING_ASSUMPTIONS = ("comonotone", "countercomonotone", "comonotone given X", "countercomonotone given X")


def as_coupling_weights(w: Any, n: int, name: str, other: str) -> np.ndarray:
    """Non-negative weights, one per value of ``other`` (NaN allowed for the nan_policy step)."""
    arr = as_vector(w, name, allow_nan=True)
    if arr.size != n:
        raise ValueError(f"{name} has {arr.size} values but {other} has {n}; pass one weight per value")
    if arr.size and np.fmin.reduce(arr) < 0:
        raise ValueError(f"{name} must be non-negative; found {show_value(np.fmin.reduce(arr))}")
    return arr


def check_weights_total(w: np.ndarray | None, name: str, what: str = "") -> None:
    """Weights (after the NaN step) must not all be zero."""
    if w is not None and not w.sum() > 0:
        raise ValueError(f"{name} sums to zero{what}; at least one weight must be positive")


def coupling_mean_inputs(y1: Any, y0: Any, weights1: Any, weights0: Any, nan_policy: Any
                         ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, np.ndarray | None, bool]:
    """Validate the two samples of ``coupling_mean`` and their optional weights; ``nan_policy``
    "raise", "omit" (drops a value with a NaN in it or in its weight, separately in each sample) or
    "propagate". Returns (y1, weights1, y0, weights0, propagate)."""
    nan_policy = check_nan_policy(nan_policy, COUPLING_MEAN_NAN_POLICIES)
    out = []
    propagate = False
    for y, w, yname, wname in ((y1, weights1, "y1", "weights1"), (y0, weights0, "y0", "weights0")):
        a = as_vector(y, yname, allow_nan=True)
        if a.size == 0:
            raise ValueError(f"{yname} is empty; each arm needs at least one value")
        v = None if w is None else as_coupling_weights(w, a.size, wname, yname)
        kept = apply_nan_policy(nan_policy, **{yname: a, wname: v})
        a, v = kept.arrays[yname], kept.arrays[wname]
        propagate = propagate or kept.propagate
        if not kept.propagate:
            check_weights_total(v, wname)
        out += [a, v]
    return out[0], out[1], out[2], out[3], propagate


def _strata_labels(strata: Any, n: int, name: str = "strata") -> tuple[np.ndarray, np.ndarray]:
    """Discrete labels, one per unit, and their missing mask (NaN, None, pandas NA, NaT)."""
    if isinstance(strata, (str, bytes)):
        raise TypeError(f"{name} must be an array of labels (one per unit), got a string")
    arr = np.asarray(strata.to_numpy() if _is_pandas(strata) else strata)
    if arr.ndim != 1 or arr.size != n:
        raise ValueError(f"{name} must have one label per outcome ({n}), got shape {arr.shape}")
    import pandas as pd

    return arr, np.asarray(pd.isna(arr), dtype=bool)


def strata_codes(labels: np.ndarray) -> tuple[np.ndarray, list]:
    """Integer codes and the sorted distinct labels."""
    try:
        levels, codes = np.unique(labels, return_inverse=True)
    except TypeError:
        levels, codes = np.unique(labels.astype(str), return_inverse=True)
    return codes.astype(np.int64), [v.item() if hasattr(v, "item") else v for v in levels]


@dataclass(frozen=True)
class CouplingData:
    """What ``coupling_data_inputs`` returns: the kept units' outcomes, arms (booleans), covariates,
    propensity scores, strata labels and weights (None when not given), and how many units were
    dropped by ``nan_policy="omit"``."""

    y: np.ndarray
    arm: np.ndarray
    X: np.ndarray | None
    propensity: np.ndarray | None
    strata: np.ndarray | None
    weights: np.ndarray | None
    n_dropped: int


def coupling_data_inputs(y: Any, treat: Any, *, X: Any = None, propensity: Any = None, strata: Any = None,
                         weights: Any = None, nan_policy: Any = "raise") -> CouplingData:
    """Validate the unit-level data of ``joint_bounds``, ``ite_variance_bounds`` and
    ``makarov_bounds``: y (a vector), treat (binary, same length, both arms non-empty), X (rows =
    units), propensity in (0, 1), strata labels, non-negative weights; ``nan_policy`` "raise" or
    "omit" (drops the units with a NaN in y, treat, X, propensity, weights or a missing stratum)."""
    nan_policy = check_nan_policy(nan_policy, COUPLING_NAN_POLICIES)
    yv = as_vector(y, "y", allow_nan=True)
    n = yv.size
    if n == 0:
        raise ValueError("y is empty; both arms need at least one outcome")
    # treat: NaN marks a missing unit (dropped by "omit"); everything else must be binary
    t_raw, tmask, _ = treatment_with_missing(treat, n)
    Xv = None
    if X is not None:
        Xv = as_float_array(X, "X", allow_nan=True)
        if Xv.ndim == 1:
            Xv = Xv[:, None]
        if Xv.ndim != 2 or Xv.shape[0] != n:
            raise ValueError(f"X must have one row per outcome ({n} rows, the length of y), got shape {Xv.shape}")
    e = None
    if propensity is not None:
        e = as_vector(propensity, "propensity", allow_nan=True)
        if e.size != n:
            raise ValueError(f"propensity has {e.size} values but y has {n}; pass one score per unit")
        bad = (e <= 0) | (e >= 1)
        if bad.any():
            raise ValueError(f"propensity must lie strictly inside (0, 1); found {show_value(e[bad][0])}")
    labels = smask = None
    if strata is not None:
        labels, missing = _strata_labels(strata, n)
        if missing.any():
            if nan_policy == "raise":
                # NaN, None, pandas NA and NaT would otherwise form a stratum of their own
                raise ValueError(f"strata has {int(missing.sum())} missing value(s) (NaN, None or NA), the first "
                                 f"at position {int(np.argmax(missing))}; drop those units (nan_policy='omit') or "
                                 "give them a stratum label")
            smask = np.where(missing, np.nan, 0.0)
    wv = None if weights is None else as_coupling_weights(weights, n, "weights", "y")
    kept = apply_nan_policy(nan_policy, y=yv, treat=tmask, X=Xv, propensity=e, strata=smask, weights=wv)
    keep = kept.keep
    yv, Xv, e, wv = (kept.arrays[k] for k in ("y", "X", "propensity", "weights"))
    if keep is not None:
        t_raw = np.asarray(t_raw)[keep]
        labels = None if labels is None else labels[keep]
    arm = as_treatment(t_raw, yv.size)
    for a, label in ((True, "treated (treat == 1)"), (False, "control (treat == 0)")):
        if not (arm == a).any():
            raise ValueError(f"treat: the {label} arm is empty; both arms need at least one unit")
        if wv is not None:
            check_weights_total(wv[arm == a], "weights", f" in the {label.split(' ')[0]} arm")
    if labels is not None:
        codes, levels = strata_codes(labels)
        for s, level in enumerate(levels):
            for a in (True, False):
                if not np.any((codes == s) & (arm == a)):
                    raise ValueError(f"strata: stratum {level!r} has no {'treated' if a else 'control'} "
                                     "units; merge it with a neighbour or drop it")
    return CouplingData(yv, arm, Xv, e, labels, wv, 0 if keep is None else int((~keep).sum()))


def coupling_options(conf_level: Any, B: Any, ci: Any, bootstrap: Any, assumption: Any, f_class: Any,
                     n_jobs: Any, clip: Any, has_strata: bool) -> tuple:
    """The options of ``joint_bounds``: (conf_level, B, ci, bootstrap, assumption, f_class, n_jobs,
    clip), each checked and named."""
    conf_level = check_probability(conf_level, "conf_level", open_right=True)
    B = check_positive_int(B, "B", minimum=0)
    ci = check_choice(ci, "ci", ("imbens-manski", "stoye", "whole-set"), {"im": "imbens-manski", "IM": "imbens-manski"})
    bootstrap = check_choice(bootstrap, "bootstrap", ("auto", "n-out-of-n", "m-out-of-n", "numerical-delta"),
                             {"n": "n-out-of-n"})
    if assumption is not None:
        assumption = check_choice(assumption, "assumption", COUPLING_ASSUMPTIONS + ("none",))
        if assumption == "none":
            assumption = None
    if assumption is not None and assumption.endswith("given X") and not has_strata:
        raise ValueError(f"assumption {assumption!r} needs strata (a discrete X): E_X of the coupling "
                         "within strata. Without strata choose 'comonotone' or 'countercomonotone', "
                         "which restrict the unconditional joint law")
    f_class = check_choice(f_class, "f_class", ("auto", "supermodular", "submodular", "general"))
    n_jobs = check_n_jobs(n_jobs)
    clip = check_probability(clip, "clip", open_left=False, open_right=True)
    if clip >= 0.5:
        raise ValueError(f"clip must be below 0.5, got {clip!r}")
    return conf_level, B, ci, bootstrap, assumption, f_class, n_jobs, clip


def interval_inputs(lower: Any, upper: Any, se_lower: Any, se_upper: Any, conf_level: Any
                    ) -> tuple[float, float, float, float, float]:
    """The estimated ends of an identified set (lower <= upper, up to rounding), their standard errors and
    the coverage."""
    lo, hi = check_finite_real(lower, "lower"), check_finite_real(upper, "upper")
    if lo > hi + 1e-9 * max(1.0, abs(lo), abs(hi)):  # the tolerance of joint_bounds' own check
        raise ValueError(f"lower = {lo!r} is above upper = {hi!r}: the ends of an identified set must satisfy "
                         "lower <= upper (swapped arguments?)")
    return (lo, hi, check_nonneg_real(se_lower, "se_lower"), check_nonneg_real(se_upper, "se_upper"),
            check_probability(conf_level, "conf_level", open_right=True))


def check_correlation(rho: Any, name: str = "rho") -> float:
    """A correlation in [-1, 1]."""
    v = check_finite_real(rho, name)
    if not -1.0 <= v <= 1.0:
        raise ValueError(f"{name} must be a correlation in [-1, 1], got {v!r}")
    return v


def as_delta(delta: Any, name: str = "delta") -> np.ndarray:
    """Finite points (a number or a non-empty vector), as a float64 vector."""
    d = as_float_array(delta, name)
    if d.ndim > 1:
        raise ValueError(f"{name} must be a number or a vector of points, got shape {d.shape}")
    if d.size == 0:
        raise ValueError(f"{name} is empty; pass at least one point")
    return d.reshape(-1)
