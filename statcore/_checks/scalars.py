"""Generic checks of scalar arguments: probabilities, counts, reals, choices, seeds, n_jobs, flags, axes, ranks
(and ``show_value``, how an offending value is shown in a message)."""
from __future__ import annotations

import math
import numbers
from typing import Any, Iterable

import numpy as np


__all__ = ["show_value", "check_probability", "check_positive_int", "check_finite_real",
           "check_positive_real", "check_nonneg_real", "check_in_interval", "check_choice", "check_seed",
           "check_n_jobs", "default_r", "check_rank", "check_axis", "check_flag"]


def show_value(v: Any) -> str:
    """A value as an error message shows it: numpy scalars as Python's own (``1.5``, ``'a'``, not
    ``np.float64(1.5)``, ``np.str_('a')``), arrays and sequences of them likewise."""
    if isinstance(v, np.generic):
        v = v.item()
    elif isinstance(v, np.ndarray):
        v = v.tolist()
    elif isinstance(v, (list, tuple)):
        v = type(v)(x.item() if isinstance(x, np.generic) else x for x in v)
    return repr(v)


def check_probability(x: Any, name: str, *, open_left: bool = True, open_right: bool = False) -> float:
    """A probability-like scalar in (0, 1] by default; ``open_left``/``open_right`` choose the bounds.

    Parameters
    ----------
    x : float
        The value to check.
    name : str
        The argument's name, for the error message.
    open_left, open_right : bool
        Whether 0 (left) or 1 (right) is excluded.

    Returns
    -------
    float

    References
    ----------
    scikit-learn's ``utils.validation`` (one door for input checks).

    Examples
    --------
    >>> check_probability(0.05, "alpha")
    0.05
    """
    closed = {(True, False): "right", (False, True): "left", (True, True): "neither",
              (False, False): "both"}[(bool(open_left), bool(open_right))]
    return check_in_interval(x, name, 0.0, 1.0, closed=closed)


def check_positive_int(x: Any, name: str, *, minimum: int = 1) -> int:
    """An integer (or an integer-valued float, not a boolean) of at least ``minimum``.

    Parameters
    ----------
    x : int
        The value to check.
    name : str
        The argument's name, for the error message.
    minimum : int
        The smallest value allowed.

    Returns
    -------
    int

    References
    ----------
    scikit-learn's ``utils.validation.check_scalar``.

    Examples
    --------
    >>> check_positive_int(3.0, "B")
    3
    """
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        if isinstance(x, numbers.Real) and float(x).is_integer():
            x = int(x)
        else:
            raise TypeError(f"{name} must be an integer, got {x!r}")
    if x < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {x}")
    return int(x)


def check_finite_real(x: Any, name: str) -> float:
    """A finite real scalar (not a boolean), as float.

    Parameters
    ----------
    x : float
        The value to check.
    name : str
        The argument's name, for the error message.

    Returns
    -------
    float

    References
    ----------
    scikit-learn's ``utils.validation.check_scalar``.

    Examples
    --------
    >>> check_finite_real(2, "bw")
    2.0
    """
    if isinstance(x, (bool, np.bool_)) or x is None or isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be a number, got {type(x).__name__}")
    if not isinstance(x, numbers.Real):  # a 0-dimensional array counts as a number
        arr = np.asarray(x)
        if arr.ndim != 0 or arr.dtype.kind not in "fiu":
            raise TypeError(f"{name} must be a number, got {type(x).__name__} of shape {arr.shape}")
        x = arr.item()
    if not np.isfinite(float(x)):
        raise ValueError(f"{name} must be finite, got {x!r}")
    return float(x)


def check_positive_real(x: Any, name: str) -> float:
    """A positive finite real scalar (not a boolean), as float.

    Parameters
    ----------
    x : float
        The value to check.
    name : str
        The argument's name, for the error message.

    Returns
    -------
    float

    References
    ----------
    scikit-learn's ``utils.validation.check_scalar``.

    Examples
    --------
    >>> check_positive_real(1e-5, "tol")
    1e-05
    """
    return check_nonneg_real(x, name, positive=True)


def check_nonneg_real(x: Any, name: str, *, positive: bool = False) -> float:
    """A finite real scalar >= 0 (> 0 with ``positive``), as float.

    Parameters
    ----------
    x : float
        The value to check.
    name : str
        The argument's name, for the error message.
    positive : bool
        Refuse 0 too.

    Returns
    -------
    float

    References
    ----------
    scikit-learn's ``utils.validation.check_scalar``.

    Examples
    --------
    >>> from statcore.utils import check_nonneg_real
    >>> check_nonneg_real(0, "weight_decay")
    0.0
    """
    v = check_finite_real(x, name)
    if v < 0 or (positive and v == 0):
        raise ValueError(f"{name} must be {'positive' if positive else 'non-negative'}, got {x!r}")
    return v


def check_in_interval(x: Any, name: str, low: float, high: float, *, closed: str = "right") -> float:
    """A real scalar in (low, high] (``closed="right"``), [low, high) ("left"), (low, high)
    ("neither") or [low, high] ("both")."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        arr = np.asarray(x) if not isinstance(x, (str, bytes)) else None
        if arr is None or arr.ndim != 0 or arr.dtype.kind not in "fiu":
            raise TypeError(f"{name} must be a number, got {type(x).__name__}")
        x = arr.item()
    v = float(x)
    lo_ok = v >= low if closed in ("left", "both") else v > low
    hi_ok = v <= high if closed in ("right", "both") else v < high
    if not (lo_ok and hi_ok and np.isfinite(v)):
        interval = (("[" if closed in ("left", "both") else "(") + f"{low:g}, {high:g}"
                    + ("]" if closed in ("right", "both") else ")"))
        raise ValueError(f"{name} must lie in {interval}, got {x!r}")
    return v


def check_choice(x: Any, name: str, choices: Iterable[str], aliases: dict[str, str] | None = None) -> str:
    """Resolve a named choice: exact match, then an alias, else a ValueError listing the choices.

    Parameters
    ----------
    x : str
        The value given.
    name : str
        The argument's name, for the error message.
    choices : iterable of str
        The accepted values.
    aliases : dict, optional
        Other spellings mapped to accepted values (R's ``"fdr"`` for ``"BH"``, say).

    Returns
    -------
    str
        One of ``choices``.

    References
    ----------
    R's ``match.arg``.

    Examples
    --------
    >>> check_choice("fdr", "method", ("BH", "BY"), aliases={"fdr": "BH"})
    'BH'
    """
    choices = tuple(choices)
    if not isinstance(x, str):
        raise TypeError(f"{name} must be a string, one of {', '.join(map(repr, choices))}; got {x!r}")
    if x in choices:
        return x
    if aliases and x in aliases:
        return aliases[x]
    raise ValueError(f"unknown {name} {x!r}; choose one of {', '.join(map(repr, choices))}")


def check_seed(seed: Any, name: str = "seed") -> np.random.Generator:
    """``None | int | Generator | SeedSequence`` to one ``numpy.random.Generator`` (no global state).

    Negative integers are refused, as numpy refuses them; so is a legacy ``RandomState``.

    Parameters
    ----------
    seed : None, int, numpy.random.Generator or numpy.random.SeedSequence
        A Generator is returned as it is (so the caller's stream advances); anything else seeds a new
        one.
    name : str
        The argument's name, for the error message.

    Returns
    -------
    numpy.random.Generator

    References
    ----------
    numpy's ``default_rng``; scikit-learn's ``check_random_state``.

    Examples
    --------
    >>> float(check_seed(1).random()) == float(check_seed(1).random())
    True
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or isinstance(seed, np.random.SeedSequence):
        return np.random.default_rng(seed)
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
        if seed < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {seed}")
        return np.random.default_rng(int(seed))
    if isinstance(seed, np.random.RandomState):
        raise TypeError(f"{name}: legacy RandomState is not accepted; pass numpy.random.default_rng(...)")
    raise TypeError(f"{name} must be None, an int or a numpy.random.Generator, got {type(seed).__name__}")


def check_n_jobs(n_jobs: Any, name: str = "n_jobs") -> int:
    """``n_jobs`` in joblib's convention: a positive number of workers, or negative to count back
    from all cores (-1: all, -2: all but one); 0 and non-integers are refused.

    Parameters
    ----------
    n_jobs : int
        The number of workers asked for.
    name : str
        The argument's name, for the error message.

    Returns
    -------
    int
        ``n_jobs`` unchanged (``effective_n_jobs`` resolves negative values).

    References
    ----------
    joblib's ``Parallel(n_jobs=...)``.

    Examples
    --------
    >>> check_n_jobs(-1)
    -1
    """
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral):
        raise TypeError(f"{name} must be a non-zero integer (-1 for all cores), got {n_jobs!r}")
    if n_jobs == 0:
        raise ValueError(f"{name} must be a positive number of workers or negative as in joblib "
                         "(-1: all cores, -2: all but one), not 0")
    return int(n_jobs)


def default_r(k: int) -> int:
    """statcore's default r of the top-r rule: ceil(k / 10) (at least 1)."""
    return max(1, math.ceil(k / 10))


def check_rank(r, k: int, rule: str, arg: str):
    """``r`` of the top-r rule: default ceil(k / 10), at most k; refused for any other rule (``arg``
    names the caller's argument, "method" or "aggregate")."""
    if rule in ("topr", "topr_boot"):
        r = default_r(k) if r is None else check_positive_int(r, "r")
        if r > k:
            raise ValueError(f"r must be at most k = {k} (the number of p-values), got r = {r}")
        return r
    if r is not None:
        raise ValueError(f"r = {r!r} is used only by {arg}='topr', got {arg}={rule!r}; drop r or use {arg}='topr'")
    return None


def check_axis(axis: Any, ndim: int, name: str = "axis", *, allow_none: bool = True) -> int | None:
    """An integer axis of an array with ``ndim`` dimensions (negative counts from the end), returned
    non-negative; None passes when ``allow_none``."""
    if axis is None and allow_none:
        return None
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"{name} must be an integer{' or None' if allow_none else ''}, got {axis!r}")
    nd = max(ndim, 1)
    if not -nd <= axis < nd:
        what = "a 1-dimensional p" if nd == 1 else f"p with {ndim} dimensions"
        raise ValueError(f"{name} {axis} is out of range for {what}")
    return int(axis) % nd


def check_flag(x: Any, name: str) -> bool:
    """A boolean switch (True/False, numpy booleans included)."""
    if not isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {x!r}")
    return bool(x)
