"""Validators of statcore.roc (the one input door: errors name the argument)."""
from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .core import *  # noqa: F401,F403  (the generic checks every topic builds on)
from .core import _is_pandas

__all__ = ["ROC_NAN_POLICIES", "as_binary_response", "as_roc_data", "check_direction", "check_partial_auc",
           "check_roc_object", "as_binary_outcome", "as_probabilities"]

#: the nan_policy values of the ROC functions: "propagate" is refused (a curve with a NaN score has no
#: meaning; pROC's na.rm=TRUE is nan_policy="omit")
ROC_NAN_POLICIES = ("raise", "omit")


def _raw_labels(y: Any, name: str) -> np.ndarray:
    if y is None:
        raise TypeError(f"{name} is required: got None where class labels were expected")
    if isinstance(y, (str, bytes)):
        raise TypeError(f"{name} must be a vector of class labels, got a string {y!r}")
    if isinstance(y, numbers.Number) or np.isscalar(y):
        raise TypeError(f"{name} must be a vector of class labels (one per observation), got a single value {y!r}")
    try:
        arr = np.asarray(y.to_numpy() if _is_pandas(y) else y)
    except Exception as exc:
        raise TypeError(f"{name} must be a vector of class labels: {exc}") from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a vector of class labels (one per observation), got shape {arr.shape}")
    if arr.dtype.kind == "c":
        raise TypeError(f"{name} must hold class labels, got complex numbers")
    return arr


def _label_missing(arr: np.ndarray) -> np.ndarray:
    """NaN / None / pandas NA among labels."""
    if arr.dtype.kind == "f":
        return np.isnan(arr)
    if arr.dtype.kind == "O":
        out = np.zeros(arr.size, dtype=bool)
        for i, v in enumerate(arr):
            if v is None or (isinstance(v, float) and np.isnan(v)):
                out[i] = True
            else:
                try:
                    import pandas as pd

                    out[i] = v is pd.NA or v is pd.NaT
                except ImportError:  # pragma: no cover
                    pass
        return out
    return np.zeros(arr.size, dtype=bool)


def as_binary_response(y: Any, levels: Any, name: str = "y") -> tuple[np.ndarray, tuple, np.ndarray]:
    """Class labels as a boolean "is a case" vector, with pROC's ``levels`` rule.

    ``levels=None``: the two distinct labels of ``y`` in sorted order, the first the controls and the
    second the cases (R's ``levels(as.factor(y))``; booleans: False controls, True cases); anything
    but exactly two distinct labels is refused. ``levels=(control, case)``: every label of ``y``
    must be one of the two (pROC drops the others; statcore refuses rather than drop data silently).
    Returns ``(is_case, levels, missing)``: ``missing`` marks NaN/None labels (for ``nan_policy``).
    """
    arr = _raw_labels(y, name)
    if arr.size == 0:
        raise ValueError(f"{name} is empty; a ROC curve needs controls and cases")
    missing = _label_missing(arr)
    present = arr[~missing]
    if arr.dtype.kind == "O":
        try:
            uniq = np.unique(present)
        except TypeError:
            raise TypeError(f"{name} mixes labels of different types that cannot be sorted; "
                            "pass levels=(control, case) or labels of one type") from None
    else:
        uniq = np.unique(present)
    if levels is None:
        if uniq.size != 2:
            shown = ", ".join(repr(v.item() if hasattr(v, "item") else v) for v in uniq[:5])
            raise ValueError(f"{name} must be binary (two classes: controls and cases); found {uniq.size} "
                             f"distinct label{'s' if uniq.size != 1 else ''} ({shown}{', ...' if uniq.size > 5 else ''}). "
                             + ("A ROC curve needs both classes." if uniq.size < 2 else
                                "Pass levels=(control, case) after keeping only two classes."))
        lv = tuple(v.item() if hasattr(v, "item") else v for v in uniq)
    else:
        if isinstance(levels, (str, bytes)) or not hasattr(levels, "__len__") or len(levels) != 2:
            raise ValueError(f"levels must be a pair (control, case) of labels of {name}, got {levels!r}")
        lv = tuple(levels)
        if lv[0] == lv[1]:
            raise ValueError(f"levels must name two different labels (control, case), got {lv!r}")
        known = set()
        for v in uniq:
            known.add(v.item() if hasattr(v, "item") else v)
        for v in lv:
            if v not in known:
                raise ValueError(f"levels: {v!r} is not a label of {name} (labels found: "
                                 f"{', '.join(map(repr, sorted(known, key=str)[:5]))})")
        other = [v for v in known if v not in lv]
        if other:
            raise ValueError(f"{name} has labels outside levels={lv!r} (e.g. {show_value(other[0])}); keep only the "
                             "control and case observations before building the curve")
    is_case = np.zeros(arr.size, dtype=bool)
    is_case[~missing] = present == lv[1] if arr.dtype.kind != "O" else np.array([v == lv[1] for v in present], bool)
    return is_case, lv, missing


def as_roc_data(y: Any, score: Any, levels: Any, nan_policy: str, *, y_name: str = "y",
                score_name: str = "score") -> tuple[np.ndarray, np.ndarray, tuple, np.ndarray | None]:
    """Labels and scores of a ROC curve: ``(score, is_case, levels, kept)`` after ``nan_policy``
    ("raise" or "omit"; a missing label counts as a NaN); at least one control and one case."""
    nan_policy = check_nan_policy(nan_policy, ROC_NAN_POLICIES)
    refuse_text(score, score_name)  # the door's one rule (pROC too: "Predictor must be numeric or ordered")
    s = as_vector(score, score_name, allow_nan=True)
    if s.size == 0:
        raise ValueError(f"{score_name} is empty; a ROC curve needs scores of controls and cases")
    if np.isinf(s).any():
        raise ValueError(f"{score_name} contains infinite values; all scores must be finite")
    is_case, lv, missing = as_binary_response(y, levels, y_name)
    if is_case.size != s.size:
        raise ValueError(f"{y_name} and {score_name} must have the same length (one label per score): "
                         f"{y_name} has {is_case.size}, {score_name} has {s.size}")
    mask = np.where(missing, np.nan, 0.0)
    nan = apply_nan_policy(nan_policy, **{score_name: s, y_name: mask})
    s, _ = nan
    kept = nan.keep
    if kept is not None:
        is_case = is_case[kept]
    n_case = int(is_case.sum())
    if n_case == 0 or n_case == is_case.size:
        which = "case" if n_case == 0 else "control"
        raise ValueError(f"{y_name} has no {which} observation (levels: control = {show_value(lv[0])}, case = {show_value(lv[1])}); "
                         "a ROC curve needs both classes")
    return np.ascontiguousarray(s), is_case, lv, kept


def check_direction(direction: Any) -> str:
    """pROC's ``direction``: "auto", "<" (controls < cases: higher scores mean case) or ">"."""
    return check_choice(direction, "direction", ("auto", "<", ">"))


_FOCUS_ALIASES = {"sp": "specificity", "spec": "specificity", "se": "sensitivity", "sens": "sensitivity"}


def check_partial_auc(partial_auc: Any, focus: Any, correct: Any) -> tuple[tuple[float, float] | None, str, bool]:
    """pROC's partial AUC specification: ``partial_auc`` None (the full area) or two bounds in [0, 1]
    (any order, distinct), ``partial_auc_focus`` "specificity" or "sensitivity" (pROC's "sp", "se",
    "spec", "sens" too), ``partial_auc_correct`` a flag."""
    focus = check_choice(focus, "partial_auc_focus", ("specificity", "sensitivity"), aliases=_FOCUS_ALIASES)
    correct = check_flag(correct, "partial_auc_correct")
    if partial_auc is None or partial_auc is False:
        return None, focus, correct
    if isinstance(partial_auc, (str, bytes)) or not hasattr(partial_auc, "__len__") or len(partial_auc) != 2:
        raise ValueError(f"partial_auc must be None (the full area) or two bounds in [0, 1], got {partial_auc!r}")
    b = as_float_array(partial_auc, "partial_auc")
    if np.any(b < 0) or np.any(b > 1):
        raise ValueError(f"partial_auc bounds must lie in [0, 1] (fractions, not percent), got {tuple(b.tolist())}")
    if b[0] == b[1]:
        raise ValueError(f"partial_auc bounds must differ (an interval of {focus}), got {tuple(b.tolist())}")
    return (float(b[0]), float(b[1])), focus, correct


def check_roc_object(obj: Any, name: str, cls: type) -> Any:
    """A ROC curve built by ``statcore.roc``."""
    if not isinstance(obj, cls):
        raise TypeError(f"{name} must be a ROC curve from statcore.roc(y, score), got {type(obj).__name__}")
    return obj


def as_binary_outcome(y: Any, name: str, n: int | None = None) -> np.ndarray:
    """A 0/1 (or boolean) outcome vector as float64 0.0/1.0, of length ``n`` when given."""
    if y is None:
        raise TypeError(f"{name} is required: got None where a 0/1 vector was expected")
    if isinstance(y, (str, bytes)):
        raise TypeError(f"{name} must be a 0/1 vector, got a string {y!r}")
    arr = np.asarray(y.to_numpy() if _is_pandas(y) else y)
    if arr.dtype.kind == "b":
        arr = arr.astype(np.float64)
    else:
        arr = as_float_array(arr, name, allow_nan=True)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a vector (one value per observation), got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    if np.isnan(arr).any():
        raise ValueError(f"{name} contains {int(np.isnan(arr).sum())} NaN values; remove the missing observations")
    bad = (arr != 0) & (arr != 1)
    if bad.any():
        raise ValueError(f"{name} must be binary (0/1 or booleans); found the value {show_value(arr[bad][0])}")
    if n is not None and arr.size != n:
        raise ValueError(f"{name} must have one value per observation ({n}), got {arr.size}")
    return arr


def as_probabilities(p: Any, name: str, n: int | None = None) -> np.ndarray:
    """Predicted probabilities in [0, 1] as a float64 vector of length ``n`` when given."""
    arr = as_vector(p, name)
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    if np.any(arr < 0) or np.any(arr > 1):
        bad = arr[(arr < 0) | (arr > 1)][0]
        raise ValueError(f"{name} must be probabilities in [0, 1]; found {show_value(bad)}")
    if n is not None and arr.size != n:
        raise ValueError(f"{name} must have one value per observation ({n}), got {arr.size}")
    return arr
