"""Result objects: ``HTest`` for every hypothesis test and ``TableResult`` for fits and summaries.

``HTest`` mirrors R's ``htest`` list and prints exactly like ``stats:::print.htest``;
``TableResult`` is the base for table-like results (``summary()``, ``__str__``, ``_repr_html_``,
``to_frame()``, ``plot()``).
"""
from __future__ import annotations

import html
from dataclasses import dataclass, field, fields
from typing import Any, Mapping

import numpy as np

from ._rformat import R_DIGITS, format_named_vector, format_number, format_numbers, format_pval, strwrap

__all__ = ["HTest", "TableResult", "StatcoreWarning"]


class StatcoreWarning(UserWarning):
    """Base class of statcore's warnings about numerically or statistically dubious results."""


_ALTERNATIVES = {"two.sided": "not equal to", "less": "less than", "greater": "greater than"}


def _values_equal(a: Any, b: Any) -> bool:
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_values_equal(a[k], b[k]) for k in a)
    if isinstance(a, (np.ndarray, list, tuple)) or isinstance(b, (np.ndarray, list, tuple)):
        try:
            return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)
        except TypeError:
            return np.array_equal(np.asarray(a, dtype=object), np.asarray(b, dtype=object))
    if isinstance(a, float) and isinstance(b, float) and np.isnan(a) and np.isnan(b):
        return True
    return a == b


@dataclass(frozen=True, eq=False)
class HTest:
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

    A result unpacks like scipy's: ``stat, p = res``.
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

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HTest):
            return NotImplemented
        return all(_values_equal(getattr(self, f.name), getattr(other, f.name)) for f in fields(self))

    __hash__ = None  # mutable-looking contents (dicts, arrays): not hashable, like a dict

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

    def format(self, digits: int = R_DIGITS) -> str:
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

    def __str__(self) -> str:
        return self.format()

    def _repr_html_(self) -> str:
        return "<pre>" + html.escape(self.format()) + "</pre>"

    def to_frame(self):
        """One-row pandas DataFrame: statistic, parameters, p-value, estimates, interval, method."""
        import pandas as pd

        row: dict[str, Any] = {}
        if self.statistic is not None:
            row[self.statistic_name] = self.statistic
        row.update(self.parameter)
        row["p_value"] = self.p_value
        row.update(self.estimate)
        if self.conf_int is not None:
            row["conf_low"], row["conf_high"] = self.conf_int
        row["alternative"] = self.alternative
        row["method"] = self.method
        return pd.DataFrame([row])


def _cat_number(x: float) -> str:
    """How R's ``cat()`` writes a number: up to 7 significant digits, no padding."""
    return format_number(float(x), R_DIGITS)


class TableResult:
    """Base for table-like results.

    Subclasses implement ``to_frame()`` and ``summary()`` (the R-style text); ``__str__`` prints the
    summary, ``_repr_html_`` shows the summary and the frame's head in notebooks, ``plot()`` draws
    the subclass's figure with matplotlib (imported only when plotting).
    """

    def to_frame(self):  # pragma: no cover - abstract
        raise NotImplementedError(f"{type(self).__name__} must implement to_frame()")

    def summary(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError(f"{type(self).__name__} must implement summary()")

    def __str__(self) -> str:
        return self.summary()

    def _repr_html_(self) -> str:
        frame = self.to_frame()
        return "<pre>" + html.escape(self.summary()) + "</pre>" + frame.head(20).to_html()

    def plot(self, ax=None, **kwargs):
        """Draw the result's figure; returns the matplotlib Figure."""
        return self._plot(ax=ax, **kwargs)

    def _plot(self, ax=None, **kwargs):  # pragma: no cover - abstract
        raise NotImplementedError(f"{type(self).__name__} has no plot")
