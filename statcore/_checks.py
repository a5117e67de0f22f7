"""The one door for user input: arrays, p-values, probabilities, integers, choices and seeds.

Every public function turns its arguments into what the algorithm wants here, with errors that name
the argument, say what was wrong and what to do (in the spirit of scikit-learn's
``utils.validation``). Algorithm code after this point never re-checks.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np

__all__ = [
    "as_float_array",
    "as_pvalues",
    "check_probability",
    "check_positive_int",
    "check_choice",
    "check_seed",
    "check_n_jobs",
    "as_treatment",
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
    """A scalar in (0, 1] by default (``open_left``/``open_right`` choose the bounds)."""
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
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        if isinstance(x, numbers.Real) and float(x).is_integer():
            x = int(x)
        else:
            raise TypeError(f"{name} must be an integer, got {x!r}")
    if x < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {x}")
    return int(x)


def check_choice(x: Any, name: str, choices: Iterable[str], aliases: dict[str, str] | None = None) -> str:
    """Resolve a method name: exact match, then an alias, else a ValueError listing the choices."""
    choices = tuple(choices)
    if not isinstance(x, str):
        raise TypeError(f"{name} must be a string, one of {', '.join(map(repr, choices))}; got {x!r}")
    if x in choices:
        return x
    if aliases and x in aliases:
        return aliases[x]
    raise ValueError(f"unknown {name} {x!r}; choose one of {', '.join(map(repr, choices))}")


def check_seed(seed: Any, name: str = "seed") -> np.random.Generator:
    """``None | int | numpy.random.Generator | SeedSequence`` to one Generator (no global state)."""
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
    """joblib's convention: a positive number of workers, or negative to count back from all cores
    (-1: all, -2: all but one); 0 and non-integers are refused."""
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
