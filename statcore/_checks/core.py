"""The generic checks of the one input door: arrays, p-values, scalars, choices, seeds, nan_policy.

Every public function turns its arguments into what the algorithm wants here, with errors that name
the argument, say what was wrong and what to do (in the spirit of scikit-learn's
``utils.validation``). Algorithm code after this point never re-checks.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

__all__ = [
    "show_value",
    "column_labels",
    "as_column_groups",
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
    "treatment_with_missing",
    "as_matrix",
    "refuse_constant_columns",
    "check_same_n",
    "positive_scale",
    "check_rank",
    "default_r",
    "check_nan_policy",
    "apply_nan_policy",
    "NanPolicyResult",
    "InputWrapper",
    "NAN_POLICIES",
    "as_vector",
    "check_axis",
    "check_flag",
    "check_nonneg_real",
    "check_in_interval",
    "pow2_scale",
]


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


def _is_pandas(obj: Any) -> bool:
    mod = type(obj).__module__
    return mod.startswith("pandas")


def as_float_array(x: Any, name: str, *, allow_nan: bool = False, allow_inf: bool = False,
                   ndim: int | None = None, copy: bool = False) -> np.ndarray:
    """Return ``x`` as a float64 ndarray, or raise naming ``name``.

    Strings, objects that are not numbers, complex numbers and (unless allowed) NaN or infinite
    values are refused. Booleans are refused too: a boolean vector passed as p-values is almost
    always a bug.

    Parameters
    ----------
    x : array_like
        The values (a pandas object gives its values).
    name : str
        The argument's name, for the error message.
    allow_nan, allow_inf : bool
        Whether NaN and infinite values are accepted.
    ndim : int, optional
        The number of dimensions required.
    copy : bool
        Return a new array even when ``x`` already is a float64 array (so that the caller may
        modify it without touching its input).

    Returns
    -------
    numpy.ndarray
        float64.

    References
    ----------
    scikit-learn's ``utils.validation.check_array`` (one door for input arrays).

    Examples
    --------
    >>> from statcore.utils import as_float_array
    >>> as_float_array([1, 2, 3], "x")
    array([1., 2., 3.])
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

    Values must lie in [0, 1]; infinities are refused. The masked elements of a numpy masked array
    become NaN (R's NA: whatever lies under the mask is not read); callers that omit masked values
    whatever their ``nan_policy`` (scipy's rule) read ``numpy.ma.getmaskarray(p)`` themselves.
    """
    if isinstance(p, np.ma.MaskedArray) and np.ma.getmask(p) is not np.ma.nomask:
        mask = np.ma.getmaskarray(p)
        if mask.any():
            if not allow_nan:
                k = int(mask.sum())
                raise ValueError(f"{name} has {k} masked value{'s' if k > 1 else ''}; masked (missing) "
                                 "p-values are not allowed here: pass the unmasked values only")
            p = as_float_array(np.ma.getdata(p), name, allow_nan=True, allow_inf=True, copy=True)
            p[mask] = np.nan
    arr = as_float_array(p, name, allow_nan=allow_nan, allow_inf=True)
    if arr.size:
        # fmin/fmax skip NaN (R's NA) without the all-NaN warnings of nanmin
        lo = np.fmin.reduce(arr, axis=None)
        hi = np.fmax.reduce(arr, axis=None)
        if np.isinf(lo) or np.isinf(hi):
            raise ValueError(f"{name} contains infinite values; p-values must lie in [0, 1]")
        if lo < 0 or hi > 1:
            bad = lo if lo < 0 else hi
            raise ValueError(f"{name} must lie in [0, 1]; found {show_value(bad)}")
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
        raise ValueError(f"{name} must be binary (0/1 or booleans); found the value {show_value(tf[bad][0])}")
    return tf == 1.0


def treatment_with_missing(treat: Any, n: int, name: str = "treat", other: str = "y"
                           ) -> tuple[Any, np.ndarray | None, np.ndarray | None]:
    """A treatment vector in which NaN marks a missing unit (for ``nan_policy``).

    Returns ``(raw, mask, values)``: the raw array; a float mask with NaN at the missing units and 0
    elsewhere (for ``apply_nan_policy``), or None when no unit is missing; and the booleans of
    ``as_treatment`` when none is missing (None otherwise: check the kept units after dropping).
    The present values must be binary either way.
    """
    raw = treat
    if treat is not None and not isinstance(treat, (str, bytes)):
        try:
            raw = np.asarray(treat.to_numpy() if _is_pandas(treat) else treat)
        except Exception:  # ragged and the like: as_treatment names the argument
            raw = treat
        else:
            if raw.dtype.kind == "f" and raw.ndim == 1 and raw.size == n and np.isnan(raw).any():
                present = ~np.isnan(raw)
                as_treatment(raw[present], int(present.sum()), name, other)
                return raw, np.where(present, 0.0, np.nan), None
    return raw, None, as_treatment(treat, n, name, other)


# ----------------------------------------------------------------------------------------------
# matrices of observations, scales, ranks
# ----------------------------------------------------------------------------------------------

def as_matrix(x: Any, name: str, *, allow_none: bool = False, check_constant: bool = True,
              allow_nan: bool = False) -> np.ndarray | None:
    """A finite float64 (n, d) array (1-D becomes one column); None allowed if ``allow_none``.

    Constant columns are refused: they carry no information and make residual scales zero
    (``check_constant=False`` leaves that to the caller, e.g. until NaN rows are dropped).
    NaN passes with ``allow_nan`` (for a ``nan_policy`` step); infinities never do.
    """
    if x is None:
        if allow_none:
            return None
        raise ValueError(f"{name} is required")
    arr = as_float_array(x, name, allow_nan=allow_nan)
    if arr.ndim == 1:
        arr = arr[:, None]
    elif arr.ndim != 2:
        raise ValueError(f"{name} must be 1- or 2-dimensional (observations in rows), got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} has no observations")
    if check_constant:
        refuse_constant_columns(arr, name)
    return arr


def refuse_constant_columns(arr: np.ndarray, name: str) -> None:
    """Refuse a matrix with a constant column (no information, and a zero residual scale)."""
    if arr.shape[1] and arr.shape[0] > 1:
        const = np.flatnonzero(np.ptp(arr, axis=0) == 0)
        if const.size:
            raise ValueError(f"{name} has constant column(s) {const.tolist()}; remove them before testing")


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
    if rule in ("topr", "topr_boot"):
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
        if rows is not None and rows.shape != bad.shape:  # callers check_same_n first; never pair silently
            raise ValueError(f"{name} has {bad.shape[0]} observations where the other inputs have {rows.shape[0]}")
        rows = bad if rows is None else rows | bad
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


def as_vector(x: Any, name: str, *, allow_nan: bool = False) -> np.ndarray:
    """A number or a 1-dimensional array of numbers as a float64 vector; a matrix or DataFrame is
    refused (per-observation results could not be returned in its shape)."""
    arr = as_float_array(x, name, allow_nan=allow_nan)
    if arr.ndim > 1:
        raise ValueError(f"{name} must be a vector (one value per observation), got shape {arr.shape}")
    return arr.reshape(-1)


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


def column_labels(data) -> list:
    """The column labels of a DataFrame, or ``V1, ..., Vp`` (R's names) for a 2-d array."""
    if hasattr(data, "columns"):
        return list(data.columns)
    arr = np.asarray(data)
    return [f"V{j + 1}" for j in range(arr.shape[1])] if arr.ndim == 2 else []


def as_column_groups(groups, labels: list, is_frame: bool) -> tuple[list, list]:
    """Named groups of columns (node name -> labels of a DataFrame, or integer positions of an array):
    the names and, per group, an int64 array of column indices; at least two groups, none empty, no
    column listed twice or in two groups."""
    if not isinstance(groups, Mapping):
        raise TypeError(f"groups must be a mapping of node names to lists of columns, got {type(groups).__name__}")
    if len(groups) < 2:
        raise ValueError(f"groups must define at least two nodes, got {len(groups)}")
    where = {lab: j for j, lab in enumerate(labels)}
    names, cols, owner = [], [], {}
    for name, members in groups.items():
        if isinstance(members, (str, bytes)) or not hasattr(members, "__iter__"):
            members = [members]
        members = list(members)
        if not members:
            raise ValueError(f"groups[{name!r}] is empty; every node needs at least one column")
        idx = []
        for m in members:
            if is_frame and m in where:
                j = where[m]
            elif not is_frame and isinstance(m, numbers.Integral) and not isinstance(m, bool) \
                    and -len(labels) <= m < len(labels):
                j = int(m) % len(labels)
            else:
                kind = "a column label of data" if is_frame else f"a column index in [0, {len(labels)})"
                raise ValueError(f"groups[{name!r}] lists {m!r}, which is not {kind}")
            if owner.get(j) == name:
                raise ValueError(f"groups[{name!r}] lists column {show_value(labels[j])} twice")
            if j in owner:
                raise ValueError(f"groups[{name!r}] and groups[{owner[j]!r}] share column {show_value(labels[j])}; "
                                 "nodes must not overlap")
            owner[j] = name
            idx.append(j)
        names.append(name)
        cols.append(np.asarray(idx, dtype=np.int64))
    return names, cols


def pow2_scale(arr: np.ndarray, *, axis: int | None = 0, center: np.ndarray | float = 0.0,
               robust: bool = False) -> np.ndarray:
    """A power of two near the size of ``arr - center`` (the largest absolute value, per column with
    ``axis=0``, overall with ``axis=None``), 1 where that is 0.

    Dividing by it brings finite data of any magnitude (1e300, 1e-300) to order 1, so that squares and
    products neither overflow nor underflow, and it is exact: a power of two changes only the exponent,
    so data of ordinary size (scale 1) is untouched bit for bit. Scale-invariant statistics divide by it
    before squaring; scale-equivariant ones multiply the answer back (and report an overflow there as
    the answer being out of float64's range). ``robust``: the median absolute deviation instead of the
    largest (the largest where that is 0), for statistics that a far outlier must not squash to 0, such as
    a kernel with a median bandwidth (the outlier's own distances may then overflow to inf: exp(-inf) = 0).
    """
    dev = np.abs(np.asarray(arr, dtype=float) - center)
    m = dev.max(axis=axis) if dev.size else np.zeros(() if axis is None else dev.shape[1 - axis])
    if robust and dev.size:
        med = np.median(dev, axis=axis)
        m = np.where(med > 0, med, m)
    m = np.where(np.isfinite(m) & (m > 0), m, 1.0)
    return np.ldexp(1.0, np.frexp(m)[1] - 1)
