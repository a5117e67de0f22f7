"""The one door for user input: arrays, p-values, probabilities, integers, choices and seeds.

Every public function turns its arguments into what the algorithm wants here, with errors that name
the argument, say what was wrong and what to do (in the spirit of scikit-learn's
``utils.validation``). Algorithm code after this point never re-checks.
"""
from __future__ import annotations

import functools
import inspect
import math
import numbers
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

__all__ = [
    "as_float_array",
    "as_pvalues",
    "check_probability",
    "check_positive_int",
    "check_choice",
    "check_finite_real",
    "check_positive_real",
    "check_seed",
    "check_n_jobs",
    "as_treatment",
    "as_matrix",
    "check_same_n",
    "positive_scale",
    "check_rank",
    "default_r",
    "check_nan_policy",
    "apply_nan_policy",
    "NanPolicyResult",
    "renamed_arguments",
    "InputWrapper",
]


def _is_pandas(obj: Any) -> bool:
    mod = type(obj).__module__
    return mod.startswith("pandas")


def as_float_array(x: Any, name: str, *, allow_nan: bool = False, allow_inf: bool = False,
                   ndim: int | None = None, copy: bool = False) -> np.ndarray:
    """Return ``x`` as a float64 ndarray, or raise naming ``name``.

    Strings, objects that are not numbers, complex numbers and (unless allowed) NaN or infinite
    values are refused. Booleans are refused too: a boolean vector passed as p-values is almost
    always a bug.
    """
    if isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be numeric, got a string {x!r}")
    if x is None:
        raise TypeError(f"{name} is required: got None where numbers were expected")
    if _is_pandas(x):
        values = x.to_numpy()
    else:
        values = x
    try:
        arr = np.asarray(values)
    except Exception as exc:  # ragged lists and the like
        raise TypeError(f"{name} must be an array of numbers: {exc}") from None
    if arr.dtype.kind in "OUS":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"{name} must contain numbers only; found a value of type "
                f"{type(_first_non_numeric(arr)).__name__}"
            ) from None
    elif arr.dtype.kind == "b":
        raise TypeError(f"{name} must be numeric, got booleans; convert explicitly if intended")
    elif arr.dtype.kind == "c":
        raise TypeError(f"{name} must be real, got complex numbers")
    elif arr.dtype.kind not in "fiu":
        raise TypeError(f"{name} must be numeric, got dtype {arr.dtype}")
    arr = np.array(arr, dtype=np.float64, copy=True) if copy else np.asarray(arr, dtype=np.float64)
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {arr.shape}")
    if not (allow_nan and allow_inf) and arr.size:
        if not allow_nan and np.isnan(arr).any():
            raise ValueError(f"{name} contains NaN; remove missing values first")
        if not allow_inf and np.isinf(arr).any():
            raise ValueError(f"{name} contains infinite values; all values must be finite")
    return arr


def _first_non_numeric(arr: np.ndarray) -> Any:
    for v in arr.ravel():
        try:
            float(v)
        except (TypeError, ValueError):
            return v
    return None


def as_pvalues(p: Any, name: str = "p", *, allow_nan: bool = True) -> np.ndarray:
    """Return p-values as float64, NaN allowed (R's NA) unless ``allow_nan`` is False.

    Values must lie in [0, 1]; infinities are refused.
    """
    arr = as_float_array(p, name, allow_nan=allow_nan, allow_inf=True)
    if arr.size:
        # fmin/fmax skip NaN (R's NA) without the all-NaN warnings of nanmin
        lo = np.fmin.reduce(arr, axis=None)
        hi = np.fmax.reduce(arr, axis=None)
        if np.isinf(lo) or np.isinf(hi):
            raise ValueError(f"{name} contains infinite values; p-values must lie in [0, 1]")
        if lo < 0 or hi > 1:
            bad = lo if lo < 0 else hi
            raise ValueError(f"{name} must lie in [0, 1]; found {bad!r}")
    return arr


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
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a number, got {type(x).__name__}")
    v = float(x)
    lo_ok = v > 0 if open_left else v >= 0
    hi_ok = v < 1 if open_right else v <= 1
    if not (lo_ok and hi_ok and np.isfinite(v)):
        interval = ("(" if open_left else "[") + "0, 1" + (")" if open_right else "]")
        raise ValueError(f"{name} must lie in {interval}, got {x!r}")
    return v


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
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a number, got {type(x).__name__}")
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
    v = check_finite_real(x, name)
    if v <= 0:
        raise ValueError(f"{name} must be positive, got {x!r}")
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


def as_treatment(treat: Any, n: int, name: str = "treat", other: str = "y") -> np.ndarray:
    """A binary treatment vector (0/1 or booleans) of length ``n`` as booleans, or an error naming
    ``name`` (``other`` names the outcome it must match in length)."""
    if isinstance(treat, (str, bytes)):
        raise TypeError(f"{name} must be a binary vector (0/1 or booleans), got a string")
    t = np.asarray(treat.to_numpy() if _is_pandas(treat) else treat)
    if t.ndim != 1 or t.size != n:
        raise ValueError(f"{name} must be a vector with one value per outcome, the same length as {other} "
                         f"({n}); got shape {t.shape}")
    if t.dtype.kind == "b":
        return t.astype(bool)
    try:
        tf = t.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be binary (0/1 or booleans); found non-numeric values") from None
    bad = ~np.isin(tf, (0.0, 1.0))
    if bad.any():
        raise ValueError(f"{name} must be binary (0/1 or booleans); found the value {tf[bad][0]!r}")
    return tf == 1.0


# ----------------------------------------------------------------------------------------------
# matrices of observations, scales, ranks
# ----------------------------------------------------------------------------------------------

def as_matrix(x: Any, name: str, *, allow_none: bool = False, check_constant: bool = True) -> np.ndarray | None:
    """A finite float64 (n, d) array (1-D becomes one column); None allowed if ``allow_none``.

    Constant columns are refused: they carry no information and make residual scales zero.
    """
    if x is None:
        if allow_none:
            return None
        raise ValueError(f"{name} is required")
    arr = as_float_array(x, name)
    if arr.ndim == 1:
        arr = arr[:, None]
    elif arr.ndim != 2:
        raise ValueError(f"{name} must be 1- or 2-dimensional (observations in rows), got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} has no observations")
    if check_constant and arr.shape[1] and arr.shape[0] > 1:
        const = np.flatnonzero(np.ptp(arr, axis=0) == 0)
        if const.size:
            raise ValueError(f"{name} has constant column(s) {const.tolist()}; remove them before testing")
    return arr


def check_same_n(**arrays: np.ndarray | None) -> int:
    """The common number of rows of the given arrays (None skipped), or a ValueError naming them."""
    sizes = {k: v.shape[0] for k, v in arrays.items() if v is not None}
    if len(set(sizes.values())) > 1:
        desc = ", ".join(f"{k} has {v}" for k, v in sizes.items())
        raise ValueError(f"inputs must have the same number of observations (rows): {desc}")
    return next(iter(sizes.values()))


def positive_scale(value: Any, name: str, n: int | None = None) -> np.ndarray:
    """A positive finite scalar, or (with ``n``) a positive finite vector of length n; float64 array."""
    arr = as_float_array(value, name)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    elif arr.ndim != 1:
        raise ValueError(f"{name} must be a number or a 1-dimensional array, got shape {arr.shape}")
    if arr.size not in (1,) + ((n,) if n is not None else ()):
        want = "a single number" if n is None else f"a single number or {n} values (one per observation)"
        raise ValueError(f"{name} must be {want}, got {arr.size} values")
    if np.any(arr <= 0):
        raise ValueError(f"{name} must be positive, found {float(arr.min())!r}")
    return arr


def default_r(k: int) -> int:
    """statcore's default r of the top-r rule: ceil(k / 10) (at least 1)."""
    return max(1, math.ceil(k / 10))


def check_rank(r, k: int, rule: str, arg: str):
    """``r`` of the top-r rule: default ceil(k / 10), at most k; refused for any other rule (``arg``
    names the caller's argument, "method" or "aggregate")."""
    if rule == "topr":
        r = default_r(k) if r is None else check_positive_int(r, "r")
        if r > k:
            raise ValueError(f"r must be at most k = {k} (the number of p-values), got r = {r}")
        return r
    if r is not None:
        raise ValueError(f"r = {r!r} is used only by {arg}='topr', got {arg}={rule!r}; drop r or use {arg}='topr'")
    return None



# ----------------------------------------------------------------------------------------------
# missing values: scipy's nan_policy
# ----------------------------------------------------------------------------------------------

NAN_POLICIES = ("raise", "omit", "propagate")


def check_nan_policy(nan_policy: Any, allowed: Sequence[str] = NAN_POLICIES) -> str:
    """``nan_policy`` as in scipy.stats: "raise" (the default everywhere), "omit" (drop the
    observations with a NaN in any of the paired inputs) or "propagate" (a NaN result).

    Parameters
    ----------
    nan_policy : str
        The policy asked for.
    allowed : sequence of str
        The policies that make sense for the calling function.

    Returns
    -------
    str

    References
    ----------
    SciPy's ``nan_policy`` (scipy.stats).

    Examples
    --------
    >>> check_nan_policy("omit", allowed=("raise", "omit"))
    'omit'
    """
    return check_choice(nan_policy, "nan_policy", tuple(allowed))


@dataclass(frozen=True)
class NanPolicyResult:
    """What ``apply_nan_policy`` decided: the arrays to use, the rows kept (None: all) and whether
    the caller must return its NaN result ("propagate" with a NaN present)."""

    arrays: dict
    keep: np.ndarray | None
    propagate: bool

    def __iter__(self):
        return iter(self.arrays.values())


def apply_nan_policy(nan_policy: str, /, **arrays: np.ndarray | None) -> NanPolicyResult:
    """Apply scipy's ``nan_policy`` to paired float arrays (observations in the first axis).

    Call after ``as_float_array(..., allow_nan=True)`` and ``check_nan_policy``. "raise" refuses any
    NaN, naming the argument and the count; "omit" drops every observation (row) with a NaN in any
    array and refuses when no row is left; "propagate" leaves the arrays as they are and sets
    ``propagate`` when a NaN is present, for the caller to return its NaN result.

    Parameters
    ----------
    nan_policy : str
        "raise", "omit" or "propagate".
    **arrays : numpy.ndarray or None
        The paired inputs by argument name (None is skipped).

    Returns
    -------
    NanPolicyResult
        ``arrays`` (to use; iterating gives them in order), ``keep`` (the rows kept, None for all)
        and ``propagate``.

    References
    ----------
    SciPy's ``nan_policy`` (scipy.stats).

    Examples
    --------
    >>> import numpy as np
    >>> x, y = apply_nan_policy("omit", x=np.array([1.0, np.nan, 3.0]), y=np.array([4.0, 5.0, 6.0]))
    >>> x.tolist(), y.tolist()
    ([1.0, 3.0], [4.0, 6.0])
    """
    rows = None
    counts = {}
    for name, a in arrays.items():
        if a is None:
            continue
        bad = np.isnan(a)
        if bad.ndim > 1:
            bad = bad.reshape(bad.shape[0], -1).any(axis=1)
        elif bad.ndim == 0:
            bad = bad.reshape(1)
        if bad.any():
            counts[name] = int(np.isnan(a).sum())
        rows = bad if rows is None else (rows | bad if rows.shape == bad.shape else rows)
    if not counts:
        return NanPolicyResult(dict(arrays), None, False)
    if nan_policy == "raise":
        name, k = next(iter(counts.items()))
        raise ValueError(f"{name} contains {k} NaN value{'s' if k > 1 else ''}; remove the missing values, "
                         "or pass nan_policy='omit' to drop the observations that have them")
    if nan_policy == "propagate":
        return NanPolicyResult(dict(arrays), None, True)
    keep = ~rows
    if not keep.any():
        raise ValueError(f"every observation has a NaN (in {', '.join(counts)}); nothing is left after "
                         "nan_policy='omit'")
    out = {k: (None if a is None else a[keep]) for k, a in arrays.items()}
    return NanPolicyResult(out, keep, False)


# ----------------------------------------------------------------------------------------------
# renamed arguments and keyword-only arguments: one release of grace with a FutureWarning
# ----------------------------------------------------------------------------------------------

def renamed_arguments(renamed: Mapping[str, str] | None = None, *, old_positional: Sequence[str] = ()
                      ) -> Callable:
    """Keep old calls working for one release, with a ``FutureWarning``.

    Parameters
    ----------
    renamed : dict, optional
        Old keyword names mapped to new ones (``{"n_boot": "B"}``).
    old_positional : sequence of str
        In their former order and under their new names, the arguments after the data that used to
        be positional and are now keyword-only: a call that still passes them by position is mapped
        onto them with a warning.

    Returns
    -------
    callable
        A decorator; the wrapped function keeps its signature for ``inspect`` and the docs.

    References
    ----------
    NEP 23 (backwards compatibility and deprecation policy), numpy; scikit-learn's deprecation of
    positional arguments (``_deprecate_positional_args``).

    Examples
    --------
    >>> import warnings
    >>> @renamed_arguments({"n_boot": "B"}, old_positional=("B",))
    ... def f(x, *, B=10):
    ...     return B
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     f(1, n_boot=5), w[0].category.__name__
    (5, 'FutureWarning')
    """
    renamed = dict(renamed or {})
    old_positional = tuple(old_positional)

    def deco(func: Callable) -> Callable:
        sig = inspect.signature(func)
        n_pos = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in sig.parameters.values())
        has_varargs = any(p.kind is p.VAR_POSITIONAL for p in sig.parameters.values())

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if len(args) > n_pos and old_positional and not has_varargs:
                extra = args[n_pos:]
                if len(extra) > len(old_positional):
                    raise TypeError(f"{func.__name__}() takes {n_pos} positional argument"
                                    f"{'s' if n_pos != 1 else ''} but {len(args)} were given")
                names = old_positional[:len(extra)]
                warnings.warn(f"{func.__name__}(): pass {', '.join(names)} by keyword "
                              f"({', '.join(f'{n}=...' for n in names)}); passing "
                              f"{'them' if len(names) > 1 else 'it'} by position stops working in the "
                              "next release", FutureWarning, stacklevel=2)
                for n, v in zip(names, extra):
                    if n in kwargs:
                        raise TypeError(f"{func.__name__}() got multiple values for argument {n!r}")
                    kwargs[n] = v
                args = args[:n_pos]
            for old, new in renamed.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(f"{func.__name__}() got both {old!r} (its former name) and {new!r}")
                    warnings.warn(f"{func.__name__}(): the argument {old!r} is now called {new!r}; the old "
                                  "name stops working in the next release", FutureWarning, stacklevel=2)
                    kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        wrapper.__signature__ = sig
        return wrapper

    return deco


@dataclass(frozen=True)
class InputWrapper:
    """Remembers what container the user passed, to hand back the same kind (arrays in, same out)."""

    kind: str  # "series", "ndarray", "list", "scalar"
    index: Any = None
    name: Any = None

    @classmethod
    def of(cls, x: Any) -> "InputWrapper":
        if _is_pandas(x) and hasattr(x, "index") and getattr(x, "ndim", 0) == 1:
            return cls("series", x.index, getattr(x, "name", None))
        if _is_pandas(x) and hasattr(x, "columns"):
            return cls("frame", x.index, x.columns)
        if np.isscalar(x):
            return cls("scalar")
        return cls("ndarray")

    def wrap(self, values: np.ndarray, name: Any = None) -> Any:
        if self.kind == "series":
            import pandas as pd

            return pd.Series(values, index=self.index, name=self.name if name is None else name)
        if self.kind == "frame":
            import pandas as pd

            return pd.DataFrame(values, index=self.index, columns=self.name)
        if self.kind == "scalar":
            return float(values.reshape(()))
        return values


# ----------------------------------------------------------------------------------------------
# topic validators (moved here from the topic modules; each section is owned by its topic)
# ----------------------------------------------------------------------------------------------

# === multitest ===


def as_pvalue_array(p: Any, name: str = "p", *, allow_nan: bool = True) -> np.ndarray:
    """``as_pvalues`` that also refuses None (``as_float_array`` turns None into a NaN scalar)."""
    if p is None:
        raise TypeError(f"{name} must be an array of p-values, got None")
    return as_pvalues(p, name, allow_nan=allow_nan)


def check_p_adjust_n(n: int, m: int) -> int:
    """``n`` of ``p_adjust``: the number of comparisons, at least the ``m`` non-NaN p-values."""
    if n < m:
        raise ValueError(f"n must be at least the number of non-NaN p-values ({m}), got {n}")
    return n


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


def check_p_adjust_axis(axis: Any, ndim: int) -> int | None:
    """``axis`` of ``p_adjust``: None (all values together) or an axis of ``p``."""
    return check_axis(axis, ndim)


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


def check_nonneg_real(x: Any, name: str, *, positive: bool = False) -> float:
    """A finite real scalar >= 0 (> 0 with ``positive``)."""
    v = check_finite_real(x, name)
    if v < 0 or (positive and v == 0):
        raise ValueError(f"{name} must be {'positive' if positive else 'non-negative'}, got {x!r}")
    return v


def check_flag(x: Any, name: str) -> bool:
    """A boolean switch (True/False, numpy booleans included)."""
    if not isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {x!r}")
    return bool(x)


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


def check_combine_weights(weights: Any, p: np.ndarray, axis: int, method: str) -> np.ndarray | None:
    """``weights`` of combine_pvalues: Stouffer only; finite, not all zero, one per p-value along
    ``axis`` (a vector) or ``p``'s shape; returned broadcast to ``p``'s shape."""
    if weights is None:
        return None
    if method != "stouffer":
        raise ValueError(f"weights are used only by method='stouffer', got method={method!r}; drop weights")
    w = as_float_array(weights, "weights")
    k = p.shape[axis]
    if w.ndim == 1 and p.ndim > 1:
        if w.size != k:
            raise ValueError(f"weights must have one value per p-value along axis {axis} ({k}), got {w.size}")
        shape = [1] * p.ndim
        shape[axis] = k
        w = w.reshape(shape)
    elif w.shape != p.shape:
        raise ValueError(f"weights must have the shape of p {p.shape} (or one value per p-value along "
                         f"axis), got shape {w.shape}")
    w = np.broadcast_to(w, p.shape)
    if not np.all(np.any(w != 0, axis=axis)):
        raise ValueError("weights must not be all zero")
    return w


# === modelsel ===

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


# === cit ===

#: the nan_policy values of the conditional-independence functions: "propagate" is refused, since a
#: regression on z cannot use a row with a NaN and one NaN would spread to every residual
CIT_NAN_POLICIES = ("raise", "omit")


def as_cit_data(nan_policy: str, /, required: Sequence[str] = (), **arrays: Any) -> tuple[dict, np.ndarray | None]:
    """The data of a conditional-independence function as (n, d) float64 matrices with one row per
    observation: ``None`` stays None (an error when its name is in ``required``), vectors become
    one column, all have the same number of rows; NaN handled by ``nan_policy`` ("raise" or
    "omit", dropping the rows with a NaN in any of the arrays), infinities refused, and no constant
    column (checked after the rows are dropped). Returns the arrays and the rows kept (None: all)."""
    nan_policy = check_nan_policy(nan_policy, CIT_NAN_POLICIES)
    out: dict = {}
    for name, v in arrays.items():
        if v is None:
            if name in required:
                raise ValueError(f"{name} is required")
            out[name] = None
            continue
        arr = as_float_array(v, name, allow_nan=True)
        if arr.ndim == 1:
            arr = arr[:, None]
        elif arr.ndim != 2:
            raise ValueError(f"{name} must be 1- or 2-dimensional (observations in rows), got shape {arr.shape}")
        if arr.shape[0] == 0:
            raise ValueError(f"{name} has no observations")
        out[name] = arr
    if all(v is None for v in out.values()):
        return out, None
    check_same_n(**out)
    res = apply_nan_policy(nan_policy, **out)
    out = dict(res.arrays)
    for name, arr in out.items():
        if arr is not None and arr.shape[1] and arr.shape[0] > 1:
            const = np.flatnonzero(np.ptp(arr, axis=0) == 0)
            if const.size:
                raise ValueError(f"{name} has constant column(s) {const.tolist()}; remove them before testing")
    return out, res.keep


def as_directions(w: Any, name: str, d: int, data: str) -> np.ndarray:
    """k directions of a ``d``-column ``data`` matrix: a finite float64 (d, k) array, k >= 1, no
    zero column."""
    arr = as_float_array(w, name)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[0] != d or arr.shape[1] == 0:
        raise ValueError(f"{name} must be a ({d}, k) array of k directions (columns), one row per column of "
                         f"{data}; got shape {arr.shape}")
    if np.any(np.all(arr == 0, axis=0)):
        raise ValueError(f"{name} has a zero column; every direction needs a non-zero length")
    return arr

# === coupling ===
# validators of statcore.coupling (coupling_mean, joint_bounds, ite_variance_bounds, makarov_bounds,
# imbens_manski_interval, stoye_interval)

#: nan_policy of coupling_mean: "propagate" gives a NaN mean
COUPLING_MEAN_NAN_POLICIES = ("raise", "omit", "propagate")
#: nan_policy of joint_bounds, ite_variance_bounds and makarov_bounds: "propagate" is refused (a NaN
#: outcome has no rank in its arm's quantile function; bounds of NaN say nothing)
COUPLING_NAN_POLICIES = ("raise", "omit")
COUPLING_ASSUMPTIONS = ("comonotone", "countercomonotone", "comonotone given X", "countercomonotone given X")


def as_coupling_vector(x: Any, name: str, *, allow_nan: bool = True) -> np.ndarray:
    """A number or a 1-dimensional array of numbers as a float64 vector (NaN allowed for the
    nan_policy step, infinities refused); a matrix is refused."""
    arr = as_float_array(x, name, allow_nan=allow_nan)
    if arr.ndim > 1:
        raise ValueError(f"{name} must be a vector (one value per unit), got shape {arr.shape}")
    return arr.reshape(-1)


def as_coupling_weights(w: Any, n: int, name: str, other: str) -> np.ndarray:
    """Non-negative weights, one per value of ``other`` (NaN allowed for the nan_policy step)."""
    arr = as_coupling_vector(w, name)
    if arr.size != n:
        raise ValueError(f"{name} has {arr.size} values but {other} has {n}; pass one weight per value")
    if arr.size and np.fmin.reduce(arr) < 0:
        raise ValueError(f"{name} must be non-negative; found {np.fmin.reduce(arr)!r}")
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
        a = as_coupling_vector(y, yname)
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
    yv = as_coupling_vector(y, "y")
    n = yv.size
    if n == 0:
        raise ValueError("y is empty; both arms need at least one outcome")
    # treat: NaN marks a missing unit (dropped by "omit"); everything else must be binary
    t_raw, tmask = treat, None
    if not isinstance(treat, (str, bytes)) and treat is not None:
        try:
            t_raw = np.asarray(treat.to_numpy() if _is_pandas(treat) else treat)
        except Exception:  # ragged and the like: as_treatment names the argument
            t_raw = treat
        else:
            if t_raw.dtype.kind == "f" and t_raw.ndim == 1 and t_raw.size == n and np.isnan(t_raw).any():
                tmask = np.where(np.isnan(t_raw), np.nan, 0.0)
                if np.isinf(t_raw).any():
                    as_treatment(t_raw[~np.isnan(t_raw)], int((~np.isnan(t_raw)).sum()))
    if tmask is None:
        as_treatment(treat, n)  # length and binary checks before any unit is dropped
    Xv = None
    if X is not None:
        Xv = as_float_array(X, "X", allow_nan=True)
        if Xv.ndim == 1:
            Xv = Xv[:, None]
        if Xv.ndim != 2 or Xv.shape[0] != n:
            raise ValueError(f"X must have one row per outcome ({n} rows, the length of y), got shape {Xv.shape}")
    e = None
    if propensity is not None:
        e = as_coupling_vector(propensity, "propensity")
        if e.size != n:
            raise ValueError(f"propensity has {e.size} values but y has {n}; pass one score per unit")
        bad = (e <= 0) | (e >= 1)
        if bad.any():
            raise ValueError(f"propensity must lie strictly inside (0, 1); found {e[bad][0]!r}")
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
    ci = check_choice(ci, "ci", ("imbens-manski", "stoye"), {"im": "imbens-manski", "IM": "imbens-manski"})
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


def _coupling_scalar(x: Any, name: str, *, nonneg: bool = False) -> float:
    """A finite real number (a 0-dimensional array too); ``nonneg``: >= 0."""
    if isinstance(x, bool) or x is None or isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be a number, got {type(x).__name__}")
    if not isinstance(x, numbers.Real):
        arr = np.asarray(x)
        if arr.ndim != 0 or arr.dtype.kind not in "fiu":
            raise TypeError(f"{name} must be a number, got {type(x).__name__} of shape {arr.shape}")
        x = arr.item()
    v = float(x)
    if not np.isfinite(v):
        raise ValueError(f"{name} must be finite, got {v!r}")
    if nonneg and v < 0:
        raise ValueError(f"{name} must be non-negative (a standard error), got {v!r}")
    return v


def interval_inputs(lower: Any, upper: Any, se_lower: Any, se_upper: Any, conf_level: Any
                    ) -> tuple[float, float, float, float, float]:
    """The estimated ends of an identified set, their standard errors and the coverage."""
    return (_coupling_scalar(lower, "lower"), _coupling_scalar(upper, "upper"),
            _coupling_scalar(se_lower, "se_lower", nonneg=True), _coupling_scalar(se_upper, "se_upper", nonneg=True),
            check_probability(conf_level, "conf_level", open_right=True))


def check_correlation(rho: Any, name: str = "rho") -> float:
    """A correlation in [-1, 1]."""
    v = _coupling_scalar(rho, name)
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


# === ebayes ===
# validators of statcore.ebayes (npmle, predictive_recursion, c2g)

def as_data_vector(x: Any, name: str, *, allow_nan: bool = False) -> np.ndarray:
    """A number or a 1-dimensional array of numbers as a float64 vector; a matrix or DataFrame is
    refused (per-observation results could not be returned in its shape)."""
    arr = as_float_array(x, name, allow_nan=allow_nan)
    if arr.ndim > 1:
        raise ValueError(f"{name} must be a vector (one value per observation), got shape {arr.shape}")
    return arr.reshape(-1)


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
    xv = as_data_vector(x, "x", allow_nan=True)
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
        wv = as_data_vector(weights, "weights", allow_nan=True)
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
    xv = as_data_vector(x, "x", allow_nan=True)
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


def c2g_inputs(y: Any, treat: Any, X: Any, model: str, nan_policy: Any) -> C2GInputs:
    """Validate the data of ``c2g``: y (a vector), treat (binary, same length), X (rows = units,
    optional); ``nan_policy`` "raise" or "omit" (drops the units with a NaN in y, treat or X). At
    least 2 controls and 2 treated units; 4 controls for the additive model with covariates."""
    nan_policy = check_nan_policy(nan_policy, ("raise", "omit"))
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
    t_raw = treat
    tmask = None
    if not isinstance(treat, (str, bytes)):
        try:
            t_raw = np.asarray(treat.to_numpy() if _is_pandas(treat) else treat)
        except Exception:  # ragged and the like: as_treatment names the argument
            t_raw = treat
        else:
            if t_raw.dtype.kind == "f" and t_raw.ndim == 1 and t_raw.size == n and np.isnan(t_raw).any():
                tmask = np.where(np.isnan(t_raw), np.nan, 0.0)
    if tmask is None:
        tv = as_treatment(treat, n)   # the length and binary checks, before any NaN is dropped
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
    return C2GInputs(yv, tv, Xv, columns, kept.keep)


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


# === learncore ===
