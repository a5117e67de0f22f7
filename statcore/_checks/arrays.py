"""Generic checks of array arguments: float arrays, p-values, treatments, matrices, vectors, column groups,
the pandas round trip (``InputWrapper``) and exact power-of-two scaling (``pow2_scale``)."""
from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from .scalars import show_value

__all__ = ["as_float_array", "refuse_text", "as_pvalues", "as_treatment", "treatment_with_missing", "as_matrix",
           "refuse_constant_columns", "check_same_n", "positive_scale", "as_vector", "InputWrapper",
           "column_labels", "as_column_groups", "pow2_scale"]


def _is_pandas(obj: Any) -> bool:
    mod = type(obj).__module__
    return mod.startswith("pandas")


def as_float_array(x: Any, name: str, *, allow_nan: bool = False, allow_inf: bool = False,
                   ndim: int | None = None, copy: bool = False) -> np.ndarray:
    """Return ``x`` as a float64 ndarray, or raise naming ``name``.

    Strings, objects that are not numbers, complex numbers and (unless allowed) NaN or infinite
    values are refused. Text is refused even when it reads as a number ("1.5"), as R's ``cor`` and
    ``wilcox.test`` refuse a character vector ("'x' must be numeric"): see :func:`refuse_text`. An object
    array (a pandas column of dtype object) holding numbers only is read as numbers. Booleans are
    refused too: a boolean vector passed as p-values is almost always a bug.

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
    refuse_text(arr, name)
    if arr.dtype.kind == "O":
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


def _first_text(arr: np.ndarray) -> "str | bytes | None":
    """The first string of ``arr`` (a str/bytes array, or an object array holding one), else None."""
    if arr.dtype.kind in "US":
        return arr.ravel()[0].item() if arr.size else ""
    if arr.dtype.kind == "O":
        text = next((v for v in arr.ravel() if isinstance(v, (str, bytes))), None)
        return text.item() if isinstance(text, np.generic) else text
    return None


def refuse_text(x: Any, name: str) -> None:
    """Refuse text where numbers are expected, even text that reads as a number ("0.4"), naming ``name``.

    The one rule of the input door: numbers stored as text are a column read with the wrong type,
    and converting them silently would hide it. R refuses them too (``cor(c("1", "2"), 1:2)`` and
    ``wilcox.test(c("1", "2"))``: "'x' must be numeric"; pROC's ``roc``: "Predictor must be numeric or
    ordered"). An object array
    holding numbers only (a pandas column of dtype object) is not text and passes.

    Parameters
    ----------
    x : array_like
        The values (a pandas object gives its values). A single string is refused too.
    name : str
        The argument's name, for the error message.

    Raises
    ------
    TypeError
        When ``x`` is a string or holds one (a ``str``/``bytes`` array, or an object array with a
        string element), with one of the strings found.

    References
    ----------
    R's ``cor`` and ``wilcox.test`` ("'x' must be numeric") and pROC's ``roc`` ("Predictor must be
    numeric or ordered"), which refuse character vectors.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore._checks import refuse_text
    >>> refuse_text(np.array([1.5, 2.0], dtype=object), "x")
    >>> refuse_text(["1.5", "2.0"], "x")
    Traceback (most recent call last):
    ...
    TypeError: x must be numeric, got text (e.g. '1.5'); text is never read as numbers, not even numbers stored as text (R's cor and wilcox.test refuse them too: "'x' must be numeric"): convert them first, e.g. np.asarray(x, dtype=float)
    """
    if isinstance(x, (str, bytes)):
        text = x
    else:
        values = x.to_numpy() if _is_pandas(x) and hasattr(x, "to_numpy") else x
        try:
            arr = values if isinstance(values, np.ndarray) else np.asarray(values)
        except Exception:  # ragged input: the caller's conversion explains
            return
        text = _first_text(arr)
        if text is None:
            return
    raise TypeError(f"{name} must be numeric, got text (e.g. {text!r}); text is never read as numbers, not even "
                    f"numbers stored as text (R's cor and wilcox.test refuse them too: \"'x' must be numeric\"): "
                    f"convert them first, e.g. np.asarray({name}, dtype=float)")


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


def as_treatment(treat: Any, n: int, name: str = "treat", other: str = "y") -> np.ndarray:
    """A binary treatment vector (0/1 or booleans) of length ``n`` as booleans, or an error naming
    ``name`` (``other`` names the outcome it must match in length)."""
    if isinstance(treat, (str, bytes)):
        raise TypeError(f"{name} must be a binary vector (0/1 or booleans), got a string")
    t = np.asarray(treat.to_numpy() if _is_pandas(treat) else treat)
    refuse_text(t, name)  # "1"/"0" as text is not a treatment indicator (the door's one rule)
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


def as_vector(x: Any, name: str, *, allow_nan: bool = False) -> np.ndarray:
    """A number or a 1-dimensional array of numbers as a float64 vector; a matrix or DataFrame is
    refused (per-observation results could not be returned in its shape)."""
    arr = as_float_array(x, name, allow_nan=allow_nan)
    if arr.ndim > 1:
        raise ValueError(f"{name} must be a vector (one value per observation), got shape {arr.shape}")
    return arr.reshape(-1)


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
