"""Validators of statcore.modelsel (the one input door: errors name the argument)."""
from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from .core import *  # noqa: F401,F403  (the generic checks every topic builds on)
from .core import _is_pandas  # noqa: F401

__all__ = ['check_loglik_value', 'check_param_count', 'check_nobs', 'check_ic_penalty', 'check_name_pair', 'as_named_models', 'check_group_fits', 'as_sample', 'as_feature_matrix']


def _modelsel_real(x: Any, name: str, what: str, *, lower: float | None = None, strict: bool = False,
                   finite: bool = True) -> float:
    """A real scalar (not a boolean) as float, at least ``lower`` (above it when ``strict``)."""
    if type(x) is not float and type(x) is not int and (isinstance(x, bool) or not isinstance(x, numbers.Real)):
        raise TypeError(f"{name} must be {what}, got {x!r} of type {type(x).__name__}")
    v = float(x)
    if v != v or (finite and (v == _INF or v == -_INF)):
        raise ValueError(f"{name} must be {what}, got {x!r}")
    if lower is not None and (v <= lower if strict else v < lower):
        raise ValueError(f"{name} must be {what}, got {x!r}")
    return v


_INF = float("inf")


def _int_if_whole(v: float) -> int | float:
    return int(v) if v.is_integer() else v


def check_loglik_value(value: Any, name: str = "value") -> float:
    """A log-likelihood: a real number (-inf and NaN pass: the comparisons refuse them by name)."""
    if type(value) is float:
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number (a log-likelihood), got {value!r} of type "
                        f"{type(value).__name__}")
    return float(value)


def check_param_count(df: Any, name: str = "df") -> int | float:
    """A number of estimated parameters: a finite real >= 0 (an int when whole)."""
    return _int_if_whole(_modelsel_real(df, name, "a non-negative number of parameters", lower=0.0))


def check_nobs(nobs: Any, name: str = "nobs") -> int | float | None:
    """A number of observations: None (unknown) or a finite real > 0 (an int when whole)."""
    if nobs is None:
        return None
    return _int_if_whole(_modelsel_real(nobs, name, "a positive number of observations (or None)",
                                        lower=0.0, strict=True))


def check_ic_penalty(k: Any, name: str = "k") -> float:
    """The penalty per parameter of an information criterion: finite and >= 0."""
    return _modelsel_real(k, name, "a finite non-negative penalty per parameter", lower=0.0)


def check_name_pair(names: Any, name: str = "names", default: tuple[str, str] = ("m0", "m1")) -> tuple[str, str]:
    """Two labels (strings) for a pair of models; None gives ``default``."""
    if names is None:
        return default
    if (not isinstance(names, (tuple, list)) or len(names) != 2
            or not all(isinstance(n, str) for n in names)):
        raise TypeError(f"{name} must be a pair of strings, got {names!r}")
    return (names[0], names[1])


def as_named_models(models: Any, name: str = "models") -> tuple[list[str], list[Any]]:
    """A dict name -> fit, or a list/tuple of fits (named model1, model2, ...), as names and fits."""
    if isinstance(models, Mapping):
        names = [str(k) for k in models]
        fits = list(models.values())
    elif isinstance(models, (list, tuple)):
        names = [f"model{i + 1}" for i in range(len(models))]
        fits = list(models)
    else:
        raise TypeError(f"{name} must be a dict (name -> fit) or a list of fits, got {type(models).__name__}")
    if not fits:
        raise ValueError(f"{name} is empty: at least one model is needed")
    if len(set(names)) != len(names):
        raise ValueError(f"model names in {name} must be unique")
    return names, fits


def check_group_fits(fits: Any, name: str = "fits") -> tuple[list[Any], list[str], list[dict]]:
    """A mapping group -> (mapping model name -> fit), the same model names in every group.

    Returns the groups, the model names (as text, in the first group's order) and, per group, its
    mapping keyed by those names.
    """
    if not isinstance(fits, Mapping):
        raise TypeError(f"{name} must be a mapping group -> (mapping model name -> fit), got {type(fits).__name__}")
    if not fits:
        raise ValueError(f"{name} is empty: at least one group is needed")
    groups = list(fits)
    first = fits[groups[0]]
    if not isinstance(first, Mapping) or not first:
        raise TypeError(f"{name}[{groups[0]!r}] must be a non-empty mapping model name -> fit")
    names = [str(n) for n in first]
    if len(set(names)) != len(names):
        raise ValueError(f"{name}: model names of group {groups[0]!r} collide once written as text: {list(first)}")
    for g in groups:
        models = fits[g]
        if not isinstance(models, Mapping) or sorted(map(str, models)) != sorted(names):
            got = sorted(map(str, models)) if isinstance(models, Mapping) else models
            raise ValueError(f"{name}: group {g!r} does not hold the same models as group {groups[0]!r} "
                             f"({got!r} vs {sorted(names)})")
    keyed = [{str(k): v for k, v in fits[g].items()} for g in groups]
    return groups, names, keyed


def as_sample(data: Any, name: str = "data") -> np.ndarray:
    """A non-empty sample of finite numbers, flattened to one dimension (a scipy likelihood's data)."""
    arr = as_float_array(data, name).ravel()
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    return arr


def as_feature_matrix(X: Any, n_features: int, name: str = "X") -> np.ndarray:
    """Finite observations in rows with ``n_features`` columns (1-D is one column), not empty."""
    arr = as_float_array(X, name)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[1] != n_features or arr.shape[0] == 0:
        raise ValueError(f"{name} must have shape (n, {n_features}) like the training data, with n >= 1; "
                         f"got {arr.shape}")
    return arr
