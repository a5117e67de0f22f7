"""The one result protocol: ``Result``, its hypothesis-test form ``HTest``, and the freezing helpers.

Every public result of statcore and learncore derives from ``Result`` and is a frozen dataclass:

- a compact ``__repr__`` (one line: the class and its key scalars, never a dump),
- ``summary()`` returning the R-layout text (``print.htest``, ``AIC()``, ``summary.qvalue``, ...),
  and ``__str__`` = ``summary()``,
- ``_repr_html_`` rendering a real HTML table (a caption and ``to_frame()``), for notebooks,
- ``to_frame()``: a pandas DataFrame whose columns are snake_case and named from the one table in
  ``docs/conventions.md`` (``p_value``, ``q_value``, ``std_error``, ``conf_low``, ...),
- ``plot(ax=None)`` where a picture helps, returning the matplotlib Axes it drew on,
- immutability: attributes cannot be set or deleted after construction; lists become tuples, dicts
  read-only mappings and numpy arrays read-only views (``Result.__post_init__``); pandas fields are
  held as copies and handed out as copy-on-write copies (``Result.__getattribute__``),
- one equality for every result: the same class and equal fields, array-aware, never raising, with
  a hash consistent with it (``Result.__eq__``, ``Result.__hash__``, installed on every subclass by
  ``Result.__init_subclass__`` so that the dataclass decorator cannot replace them).

``HTest`` mirrors R's ``htest`` list and prints exactly like ``stats:::print.htest``; its
``to_frame()`` follows ``broom::tidy.htest`` in snake_case (``estimate``, ``statistic``, ``p_value``,
``parameter``, ``conf_low``, ``conf_high``, ``method``, ``alternative``).
"""
from __future__ import annotations

import dataclasses
import html
import math
import numbers
import re
from dataclasses import FrozenInstanceError, dataclass, field, fields
from typing import Any, Mapping

import numpy as np

from ._r.rformat import R_DIGITS, format_named_vector, format_number, format_numbers, format_pval, strwrap
from ._warnings import ConvergenceWarning, StatcoreWarning

__all__ = ["Result", "HTest", "StatcoreWarning", "ConvergenceWarning", "FrozenDict", "freeze", "snake_case"]


# ----------------------------------------------------------------------------------------------
# freezing
# ----------------------------------------------------------------------------------------------

class FrozenDict(dict):
    """A dict that refuses changes after construction (results hold their named values in these)."""

    def _refuse(self, *args, **kwargs):
        raise TypeError("this mapping belongs to a statcore result and is read-only; copy it with dict(...)")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _refuse
    __ior__ = _refuse

    def __reduce__(self):  # pickles (joblib workers return results) without calling __setitem__
        return FrozenDict, (dict(self),)

    def __repr__(self) -> str:
        return dict.__repr__(self)


def _is_pandas(value: Any) -> bool:
    """Whether ``value`` is a pandas Series, DataFrame or Index (without importing pandas)."""
    if not type(value).__module__.startswith("pandas"):
        return False
    import pandas as pd

    return isinstance(value, (pd.Series, pd.DataFrame, pd.Index))


#: type -> whether it is a pandas Series, DataFrame or Index (``Result.__getattribute__`` asks per access)
_PANDAS_TYPE: dict = {}


def freeze(value: Any) -> Any:
    """A read-only version of ``value``: arrays become read-only views, dicts FrozenDicts, lists
    tuples (recursively), pandas objects a copy of their own (pandas' copy-on-write makes the
    shallow copy safe: a later in-place edit of the caller's object copies first); everything else is
    returned as it is."""
    if _is_pandas(value):
        return value.copy(deep=False)
    if isinstance(value, np.ndarray):
        if value.flags.writeable:
            value = value.view()
            value.flags.writeable = False
        return value
    if isinstance(value, FrozenDict):
        return value
    if isinstance(value, dict):
        return FrozenDict({k: freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(freeze(v) for v in value)
    return value


_SNAKE_SUB = re.compile(r"[^0-9a-zA-Z]+")


def snake_case(name: str) -> str:
    """``"mean of x"`` -> ``"mean_of_x"``, ``"Pr(>Chisq)"`` -> ``"pr_chisq"``: the column-name rule."""
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", str(name))
    return _SNAKE_SUB.sub("_", s).strip("_").lower()


def _short(v: Any) -> str:
    """A value as the one-line repr shows it."""
    if isinstance(v, bool) or v is None:
        return repr(v)
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        return f"{float(v):.4g}"
    if isinstance(v, str):
        return repr(v if len(v) <= 40 else v[:37] + "...")
    if isinstance(v, tuple) and len(v) <= 3 and all(isinstance(e, numbers.Real) for e in v):
        return "(" + ", ".join(_short(e) for e in v) + ")"
    size = getattr(v, "size", None) if not isinstance(v, Mapping) else len(v)
    if size is None and hasattr(v, "__len__"):
        size = len(v)
    return f"<{size}>" if size is not None else f"<{type(v).__name__}>"


def _is_scalar(v: Any) -> bool:
    return v is None or isinstance(v, (bool, numbers.Number, str))


# ----------------------------------------------------------------------------------------------
# the protocol
# ----------------------------------------------------------------------------------------------

class Result:
    """Base of every statcore and learncore result (see the module docstring for the protocol).

    Subclasses are frozen dataclasses that implement ``summary()`` and ``to_frame()``, and
    ``_plot(ax=None, ...)`` (returning the Axes) where a picture helps. ``_repr_parts()`` chooses
    what the one-line ``repr`` shows (default: the first scalar fields).

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> import pandas as pd
    >>> from statcore import Result
    >>> @dataclass(frozen=True, repr=False)
    ... class Mean(Result):
    ...     estimate: float
    ...     n: int
    ...     def summary(self):
    ...         return f"mean {self.estimate:.3f} of {self.n} values"
    ...     def to_frame(self):
    ...         return pd.DataFrame({"estimate": [self.estimate], "n": [self.n]})
    >>> Mean(1.25, 8)
    Mean(estimate=1.25, n=8)
    >>> print(Mean(1.25, 8))
    mean 1.250 of 8 values
    """

    def __post_init__(self):
        if dataclasses.is_dataclass(self):
            for f in fields(self):
                value = getattr(self, f.name)
                frozen = freeze(value)
                if frozen is not value:
                    object.__setattr__(self, f.name, frozen)

    def __init_subclass__(cls, **kwargs):
        # One equality for every result: a subclass may not define its own, and the dataclass
        # decorator (eq=True by default) must not generate one either: it compares the fields as
        # tuples, so arrays make ``==`` raise and ``hash`` fail. Putting Result's methods in the
        # class's own namespace makes ``dataclass`` leave them alone.
        super().__init_subclass__(**kwargs)
        for name in ("__eq__", "__hash__"):
            own = cls.__dict__.get(name, None)
            if own is not None and own is not getattr(Result, name):
                raise TypeError(f"{cls.__name__} defines {name}: results compare through Result.{name} "
                                "(docs/conventions.md, section 2); remove it")
        cls.__eq__ = Result.__eq__
        cls.__hash__ = Result.__hash__

    def __eq__(self, other: object) -> bool:
        """Two results are equal when they are of the same class and every compared field (all but
        ``field(compare=False)``) is equal: arrays by shape and values (NaN equal to NaN), pandas
        objects by ``.equals``, containers recursively, fitted models by identity
        (``_values_equal``). Never raises."""
        if other is self:
            return True
        if type(other) is not type(self):
            return NotImplemented
        get = object.__getattribute__
        return all(_values_equal(get(self, f.name), get(other, f.name)) for f in fields(self) if f.compare)

    def __hash__(self) -> int:
        """Consistent with ``==``: the class and the scalar fields (numbers, strings, booleans, None;
        NaN as one value); arrays, tables and containers do not enter the hash."""
        get = object.__getattribute__
        keys = tuple((f.name, _hash_key(get(self, f.name))) for f in fields(self) if f.compare)
        return hash((type(self).__module__, type(self).__qualname__, keys))

    def __getattribute__(self, name: str) -> Any:
        # a pandas field is handed out as a shallow copy: under pandas' copy-on-write an in-place
        # edit of it (``res.table.iloc[0, 0] = 99``, a new column, a renamed index) copies first
        # and never reaches the result
        value = object.__getattribute__(self, name)
        kind = type(value)
        pandas = _PANDAS_TYPE.get(kind)
        if pandas is None:
            pandas = _PANDAS_TYPE[kind] = _is_pandas(value)
        return value.copy(deep=False) if pandas else value

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"{type(self).__name__} is immutable: cannot set {name!r}; "
                                  "results are never edited in place")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"{type(self).__name__} is immutable: cannot delete {name!r}")

    # -- text --------------------------------------------------------------------------------
    def summary(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError(f"{type(self).__name__} must implement summary()")

    def __str__(self) -> str:
        return self.summary()

    def _repr_parts(self) -> list[tuple[str, Any]]:
        if not dataclasses.is_dataclass(self):
            return []
        parts = [(f.name, getattr(self, f.name)) for f in fields(self) if f.repr and not f.name.startswith("_")]
        return [(k, v) for k, v in parts if _is_scalar(v)][:6]

    def __repr__(self) -> str:
        body = ", ".join(f"{k}={_short(v)}" for k, v in self._repr_parts())
        return f"{type(self).__name__}({body})"

    # -- tables ------------------------------------------------------------------------------
    def to_frame(self):  # pragma: no cover - abstract
        raise NotImplementedError(f"{type(self).__name__} must implement to_frame()")

    def _html_title(self) -> str:
        for line in self.summary().splitlines():
            if line.strip():
                return line.strip()
        return type(self).__name__

    def _repr_html_(self) -> str:
        frame = self.to_frame()
        table = frame.to_html(max_rows=20, border=0, classes="statcore-result")
        return (f'<div class="statcore-result"><p><strong>{html.escape(self._html_title())}</strong></p>'
                f"{table}</div>")

    # -- pictures ----------------------------------------------------------------------------
    def plot(self, ax=None, **kwargs):
        """Draw the result's figure on ``ax`` (a new figure when None); returns the Axes drawn on
        (an array of Axes for a multi-panel figure)."""
        return self._plot(ax=ax, **kwargs)

    def _plot(self, ax=None, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} has no plot")


_ALTERNATIVES = {"two.sided": "not equal to", "less": "less than", "greater": "greater than"}


def _values_equal(a: Any, b: Any) -> bool:
    """The equality of two result fields, array-aware, that never raises: numpy arrays (and torch
    tensors) by shape and values with NaN equal to NaN, pandas objects by ``.equals`` (type, index,
    dtypes, values), mappings by keys and values and sequences element by element (recursively),
    floats with NaN equal to NaN, results by their own ``==``; anything whose ``==`` raises or does
    not answer with one boolean (a fitted model, a network) by identity."""
    try:
        return _equal(a, b)
    except Exception:
        return a is b


def _as_numpy(v: Any) -> Any:
    """A torch tensor as a numpy array (for comparison); anything else unchanged."""
    if type(v).__module__.startswith("torch") and hasattr(v, "detach"):
        return v.detach().cpu().numpy()
    return v


def _equal(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if _is_pandas(a) or _is_pandas(b):
        return type(a) is type(b) and bool(a.equals(b))
    a, b = _as_numpy(a), _as_numpy(b)
    if type(a).__module__.startswith("scipy.sparse") or type(b).__module__.startswith("scipy.sparse"):
        return type(a) is type(b) and a.shape == b.shape and (a != b).nnz == 0
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if isinstance(a, Mapping) or isinstance(b, Mapping):
            return False
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return False
        if a.dtype.kind in "biufc" and b.dtype.kind in "biufc":
            return bool(np.array_equal(a, b, equal_nan=True))
        return all(_equal(x, y) for x, y in zip(a.ravel().tolist(), b.ravel().tolist()))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
        if a != a and b != b:  # both NaN
            return True
    out = a == b
    if isinstance(out, (bool, np.bool_)):
        return bool(out)
    return False


_NAN_KEY = ("nan",)


def _hash_key(v: Any) -> Any:
    """The part of a field that ``Result.__hash__`` hashes: a scalar (NaN as one key, a 0-d array as
    its value, so that fields ``_values_equal`` calls equal hash alike), else None."""
    if isinstance(v, np.ndarray) and v.ndim == 0 and v.dtype.kind in "biufc":
        v = v.item()
    if isinstance(v, (str, bool, type(None))):
        return v
    if isinstance(v, numbers.Number):
        return _NAN_KEY if v != v else v
    return None


@dataclass(frozen=True, eq=False, repr=False)
class HTest(Result):
    """A hypothesis test result, R's ``htest``.

    Attributes
    ----------
    statistic : float or None
        The test statistic; ``statistic_name`` is its label ("t", "X-squared", ...).
    parameter : dict
        Named parameters of the null distribution, e.g. ``{"df": 3.0}``.
    p_value : float
    estimate : dict
        Named estimates, e.g. ``{"mean of x": 0.3}``.
    null_value : dict
        The hypothesised value(s), e.g. ``{"difference in means": 0.0}``.
    alternative : str
        "two.sided", "less" or "greater" (or free text when the test has none of these).
    method, data_name : str
    conf_int : tuple (lower, upper) or None, with ``conf_level``.
    extras : dict
        Test-specific extras (per-projection p-values, bootstrap draws, ...).

    A result unpacks like scipy's: ``stat, p = res``; ``res.pvalue`` is ``res.p_value``.

    Examples
    --------
    >>> from statcore import HTest
    >>> res = HTest(statistic=2.5, statistic_name="t", parameter={"df": 9.0}, p_value=0.0339,
    ...             method="One Sample t-test", data_name="x", null_value={"mean": 0.0})
    >>> print(res.summary().strip())
    One Sample t-test
    <BLANKLINE>
    data:  x
    t = 2.5, df = 9, p-value = 0.0339
    alternative hypothesis: true mean is not equal to 0
    >>> res.to_frame()[["statistic", "parameter", "p_value"]]
       statistic  parameter  p_value
    0        2.5        9.0   0.0339
    """

    statistic: float | None = None
    p_value: float | None = None
    method: str = ""
    data_name: str = ""
    statistic_name: str = "statistic"
    parameter: Mapping[str, float] = field(default_factory=dict)
    estimate: Mapping[str, float] = field(default_factory=dict)
    null_value: Mapping[str, float] = field(default_factory=dict)
    alternative: str | None = "two.sided"
    conf_int: tuple[float, float] | None = None
    conf_level: float | None = None
    extras: Mapping[str, Any] = field(default_factory=dict)

    # scipy habit: res.pvalue and tuple unpacking
    @property
    def pvalue(self) -> float | None:
        return self.p_value

    def __iter__(self):
        return iter((self.statistic, self.p_value))

    def __repr__(self) -> str:
        parts = [f"method={self.method!r}"]
        if self.statistic is not None:
            parts.append(f"{self.statistic_name}={self.statistic!r}")
        for k, v in self.parameter.items():
            parts.append(f"{k}={v!r}")
        parts.append(f"p_value={self.p_value!r}")
        if self.extras:
            parts.append("extras=[" + ", ".join(self.extras) + "]")
        return "HTest(" + ", ".join(parts) + ")"

    def summary(self, digits: int = R_DIGITS) -> str:
        """The text R's ``print.htest`` prints (``digits`` as R's ``getOption("digits")``)."""
        lines = ["", *strwrap(self.method, prefix="\t"), "", f"data:  {self.data_name}"]
        out = []
        d2 = max(1, digits - 2)
        if self.statistic is not None:
            out.append(f"{self.statistic_name} = {format_number(self.statistic, d2)}")
        if self.parameter:
            vals = format_numbers(list(self.parameter.values()), d2)
            out.extend(f"{k} = {v}" for k, v in zip(self.parameter, vals))
        if self.p_value is not None:
            fp = format_pval(self.p_value, max(1, digits - 3))
            out.append("p-value " + (fp if fp.startswith("<") else "= " + fp))
        if out:
            lines.extend(strwrap(", ".join(out)))
        if self.alternative is not None:
            if self.null_value:
                if len(self.null_value) == 1:
                    (name, value), = self.null_value.items()
                    alt = _ALTERNATIVES.get(self.alternative, self.alternative)
                    lines.append(f"alternative hypothesis: true {name} is {alt} {_cat_number(value)}")
                else:
                    lines.append(f"alternative hypothesis: {self.alternative}")
                    lines.append("null values:")
                    lines.append(format_named_vector(list(self.null_value), list(self.null_value.values()), digits))
            else:
                lines.append(f"alternative hypothesis: {self.alternative}")
        if self.conf_int is not None:
            level = format_number(100 * (self.conf_level if self.conf_level is not None else 0.95))
            ci = format_numbers(self.conf_int, digits)
            lines.append(f"{level} percent confidence interval:")
            lines.append(" " + " ".join(ci))
        if self.estimate:
            lines.append("sample estimates:")
            lines.append(format_named_vector(list(self.estimate), list(self.estimate.values()), digits))
        lines.append("")
        return "\n".join(lines) + "\n"

    def _html_title(self) -> str:
        return self.method or "Hypothesis test"

    def to_frame(self):
        """One row in ``broom::tidy.htest``'s layout, snake_case: ``estimate`` (or ``estimate1``,
        ``estimate2``, ...), ``statistic``, ``p_value``, ``parameter`` (or ``parameter1``, ...),
        ``conf_low``, ``conf_high``, ``method``, ``alternative``."""
        import pandas as pd

        row: dict[str, Any] = {}

        def numbered(prefix: str, values: Mapping[str, Any]) -> None:
            if len(values) == 1:
                row[prefix] = next(iter(values.values()))
            else:
                row.update({f"{prefix}{i}": v for i, v in enumerate(values.values(), 1)})

        numbered("estimate", self.estimate)
        if self.statistic is not None:
            row["statistic"] = self.statistic
        row["p_value"] = self.p_value
        numbered("parameter", self.parameter)
        if self.conf_int is not None:
            row["conf_low"], row["conf_high"] = self.conf_int
        row["method"] = self.method
        row["alternative"] = self.alternative
        return pd.DataFrame([row])


def _cat_number(x: float) -> str:
    """How R's ``cat()`` writes a number: up to 7 significant digits, no padding."""
    return format_number(float(x), R_DIGITS)
