"""Validators of statcore.multitest (the one input door: errors name the argument)."""
from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from .core import *  # noqa: F401,F403  (the generic checks every topic builds on)
from .core import _is_pandas  # noqa: F401

__all__ = ['check_p_adjust_n', 'check_lambda_grid', 'as_lfdr', 'check_combine_weights', 'as_ihw_covariate',
           'check_ihw_nbins', 'check_ihw_lambdas', 'check_ihw_folds',
           # e-values, knockoff statistics and the adaptive step-ups (issue 31)
           'as_evalues', 'as_knockoff_stats', 'check_error_level', 'check_knockoff_offset']


def check_p_adjust_n(n: int, m: int) -> int:
    """``n`` of ``p_adjust``: the number of comparisons, at least the ``m`` non-NaN p-values."""
    if n < m:
        raise ValueError(f"n must be at least the number of non-NaN p-values ({m}), got {n}")
    return n


def check_lambda_grid(lambda_: Any) -> np.ndarray:
    """qvalue's ``lambda``: one value or at least 4 values in [0, 1), sorted."""
    lam = np.sort(as_float_array(lambda_, "lambda_").ravel())
    if lam.size == 0:
        raise ValueError("lambda_ must contain at least one value")
    if 1 < lam.size < 4:
        raise ValueError(f"lambda_ must be a single value or at least 4 values, got {lam.size}")
    if lam[0] < 0 or lam[-1] >= 1:
        raise ValueError("lambda_ must lie within [0, 1)")
    return lam


def as_lfdr(lfdr: Any, nan_policy: str, name: str = "lfdr") -> tuple[np.ndarray, np.ndarray | None]:
    """Local FDRs in [0, 1] as a float array and the mask of the values kept under ``nan_policy``
    ("raise" or "omit"; None when all are kept)."""
    if lfdr is None:
        raise TypeError(f"{name} must be an array of local FDRs, got None")
    arr = as_float_array(lfdr, name, allow_nan=True)
    if arr.size == 0:
        raise ValueError(f"{name} is empty; at least one local FDR is needed")
    nan = np.isnan(arr)
    keep = None
    if nan.any():
        k = int(nan.sum())
        if nan_policy == "raise":
            raise ValueError(f"{name} contains {k} NaN value{'s' if k > 1 else ''}; remove the missing "
                             "values, or pass nan_policy='omit' to leave those units unselected")
        keep = ~nan
    vals = arr[~nan]
    if vals.size and (vals.min() < 0 or vals.max() > 1):
        raise ValueError(f"{name} must lie in [0, 1]")
    return arr, keep


def check_combine_weights(weights: Any, p: np.ndarray, axis: int, method: str,
                          nan_policy: str = "raise") -> tuple[np.ndarray | None, np.ndarray | None]:
    """``weights`` of combine_pvalues: Stouffer only; finite or NaN, not all zero, one per p-value along
    ``axis`` (a vector) or ``p``'s shape. NaN follows ``nan_policy`` with its p-value (refused by
    "raise"); a masked weight's pair is omitted whatever the policy (scipy's rule). Returns the weights
    broadcast to ``p``'s shape (NaN where masked) and the broadcast mask (None when nothing is masked)."""
    if weights is None:
        return None, None
    if method != "stouffer":
        raise ValueError(f"weights are used only by method='stouffer', got method={method!r}; drop weights")
    mask = None
    if isinstance(weights, np.ma.MaskedArray) and np.ma.getmaskarray(weights).any():
        mask = np.ma.getmaskarray(weights)
        w = as_float_array(np.ma.getdata(weights), "weights", allow_nan=True, allow_inf=True, copy=True)
        w[mask] = np.nan
        if np.isinf(w).any():
            raise ValueError("weights contains infinite values; all values must be finite")
    else:
        w = as_float_array(weights, "weights", allow_nan=True)
    nan = np.isnan(w) if mask is None else np.isnan(w) & ~mask
    if nan_policy == "raise" and nan.any():
        n_nan = int(nan.sum())
        raise ValueError(f"weights contains {n_nan} NaN value{'s' if n_nan > 1 else ''}; remove the missing "
                         "values, or pass nan_policy='omit' to drop the p-values they weigh")
    k = p.shape[axis]
    if w.ndim == 1 and p.ndim > 1:
        if w.size != k:
            raise ValueError(f"weights must have one value per p-value along axis {axis} ({k}), got {w.size}")
        shape = [1] * p.ndim
        shape[axis] = k
        w = w.reshape(shape)
        mask = None if mask is None else mask.reshape(shape)
    elif w.shape != p.shape:
        raise ValueError(f"weights must have the shape of p {p.shape} (or one value per p-value along "
                         f"axis), got shape {w.shape}")
    w = np.broadcast_to(w, p.shape)
    mask = None if mask is None else np.broadcast_to(mask, p.shape)
    # NaN != 0: a family with a NaN or masked weight is checked again once its pairs are dropped
    if not np.all(np.any(w != 0, axis=axis)):
        raise ValueError("weights must not be all zero")
    return w, mask


# ---------------------------------------------------------------------------------------------
# ihw
# ---------------------------------------------------------------------------------------------

def _is_label_covariate(covariate: Any) -> bool:
    """A pandas Categorical (or categorical Series) or text labels: strata given as they are."""
    import pandas as pd

    if isinstance(covariate, pd.Categorical) or isinstance(getattr(covariate, "dtype", None), pd.CategoricalDtype):
        return True
    dtype = getattr(covariate, "dtype", None)
    if dtype is not None and dtype.kind in "biufc":
        return False
    if dtype is not None and dtype.kind in "USa":
        return True
    arr = np.asarray(covariate, dtype=object).ravel()
    return any(isinstance(v, (str, bytes)) for v in arr)


def as_ihw_covariate(covariate: Any, n: int) -> tuple[np.ndarray, np.ndarray | None, list | None, bool]:
    """The covariate of ``ihw``: ``(values, codes, levels, missing)``. A numeric covariate (ordinal,
    stratified later by quantiles) gives float values and ``codes=None``; a pandas Categorical or text
    labels give integer codes into ``levels`` (the categories in their order, or the sorted labels;
    unused categories dropped) with -1 where missing. ``missing`` marks the missing entries."""
    import pandas as pd

    if covariate is None:
        raise TypeError("covariate must be an array with one value per p-value, got None")
    if np.ndim(covariate) == 0:
        raise ValueError("covariate must be a vector with one value per p-value, got a scalar")
    if _is_label_covariate(covariate):
        if np.ndim(covariate) != 1:
            raise ValueError(f"covariate must be a vector (one value per p-value), got {np.ndim(covariate)} dimensions")
        cat = pd.Categorical(covariate)
        if not isinstance(covariate, pd.Categorical) and not isinstance(getattr(covariate, "dtype", None),
                                                                       pd.CategoricalDtype):
            labels = [v for v in np.asarray(covariate, dtype=object) if not pd.isna(v)]
            kinds = {type(v) for v in labels}
            if not all(issubclass(k, (str, bytes)) for k in kinds):
                raise TypeError("covariate mixes text labels and numbers; pass a numeric covariate or a pandas "
                                "Categorical of the strata")
        cat = cat.remove_unused_categories()
        codes = np.asarray(cat.codes, dtype=np.int64)
        missing = codes < 0
        if codes.size != n:
            raise ValueError(f"covariate has {codes.size} values but p has {n}; give one covariate value per p-value")
        return np.asarray(cat.astype(object)), codes, list(cat.categories), missing
    values = as_vector(covariate, "covariate", allow_nan=True)
    if values.size != n:
        raise ValueError(f"covariate has {values.size} values but p has {n}; give one covariate value per p-value")
    return values, None, None, np.isnan(values)


def check_ihw_nbins(nbins: Any, m: int, n_levels: int | None) -> int:
    """``nbins`` of ``ihw``: "auto" (R: max(1, min(40, floor(m / 1500))), the number of levels of a
    categorical covariate) or a positive integer not above the number of p-values."""
    if isinstance(nbins, str):
        if nbins != "auto":
            raise ValueError(f"nbins must be 'auto' or a positive integer, got {nbins!r}")
        return n_levels if n_levels is not None else max(1, min(40, m // 1500))
    nb = check_positive_int(nbins, "nbins")
    if n_levels is not None and nb != n_levels:
        raise ValueError(f"nbins={nb} but the categorical covariate has {n_levels} levels: its levels are the "
                         "strata; pass nbins='auto'")
    if nb > m:
        raise ValueError(f"nbins={nb} exceeds the number of p-values ({m}); use fewer strata")
    return nb


def check_ihw_lambdas(lambdas: Any, nbins: int) -> np.ndarray:
    """``lambdas`` of ``ihw``: "auto" (R's grid 0, 1, nbins/8, nbins/4, nbins/2, nbins, Inf) or
    non-negative bounds on the weights' total variation (Inf: no bound), in the order given."""
    if isinstance(lambdas, str):
        if lambdas != "auto":
            raise ValueError(f"lambdas must be 'auto' or non-negative numbers, got {lambdas!r}")
        return np.array([0.0, 1.0, nbins / 8, nbins / 4, nbins / 2, float(nbins), np.inf])
    lam = as_float_array(lambdas, "lambdas", allow_inf=True).ravel()
    if lam.size == 0:
        raise ValueError("lambdas must hold at least one value")
    if (lam < 0).any():
        raise ValueError(f"lambdas must be non-negative, found {show_value(float(lam.min()))}")
    return lam


def check_ihw_folds(folds: Any, n: int) -> tuple[int, np.ndarray | None]:
    """``folds`` of ``ihw``: None (5 random folds), a number of random folds, or one integer fold label
    per p-value. Returns ``(nfolds, labels or None)``."""
    if folds is None:
        return 5, None
    if np.ndim(folds) == 0:
        return check_positive_int(folds, "folds"), None
    lab = as_float_array(folds, "folds", allow_nan=True)
    if lab.ndim != 1:
        raise ValueError(f"folds must be a number of folds or a vector of fold labels, got shape {lab.shape}")
    if lab.size != n:
        raise ValueError(f"folds has {lab.size} labels but p has {n}; give one fold label per p-value")
    if np.isnan(lab).any():
        raise ValueError("folds contains NaN; every hypothesis needs a fold label")
    if (lab != np.round(lab)).any():
        raise ValueError("folds must hold integer fold labels (1, 2, ..., as R's folds=)")
    return int(np.unique(lab).size), lab
# ----------------------------------------------------------------------------------------------
# e-values, knockoff statistics, adaptive step-ups
# ----------------------------------------------------------------------------------------------

def as_evalues(e: Any, name: str = "e", *, ndim: int | None = None) -> np.ndarray:
    """e-values as float64: non-negative, +inf allowed (the e-value of p = 0), NaN refused."""
    arr = as_float_array(e, name, allow_nan=False, allow_inf=True, ndim=ndim)
    if arr.size == 0:
        raise ValueError(f"{name} is empty; at least one e-value is needed")
    if np.isneginf(arr).any() or (arr < 0).any():
        bad = float(arr[arr < 0].min())
        raise ValueError(f"{name} must hold e-values, which are >= 0; found {show_value(bad)}")
    return arr


def as_knockoff_stats(W: Any, name: str = "W") -> np.ndarray:
    """Knockoff statistics W_j: a finite one-dimensional vector (NaN refused naming ``name``)."""
    arr = as_float_array(W, name, ndim=1)
    if arr.size == 0:
        raise ValueError(f"{name} is empty; at least one knockoff statistic is needed")
    return arr


def check_error_level(alpha: Any, name: str = "alpha") -> float:
    """A target error rate (FDR) strictly inside (0, 1)."""
    return check_probability(alpha, name, open_left=True, open_right=True)


def check_knockoff_offset(offset: Any, name: str = "offset") -> int:
    """The knockoff offset: 0 (knockoff) or 1 (knockoff+), as R knockoff's ``knockoff.threshold``."""
    if isinstance(offset, bool) or not isinstance(offset, numbers.Real) or offset not in (0, 1):
        raise ValueError(f"{name} must be either 0 or 1 (knockoff or knockoff+), got {show_value(offset)}")
    return int(offset)
