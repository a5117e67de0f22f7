"""The two API checks every public name goes through (see docs/conventions.md).

``sweep_bad_inputs(func, good, data)`` feeds each data argument the usual bad inputs and checks that
every call either succeeds as documented or raises ValueError/TypeError naming the argument, and that
inputs are byte-identical afterwards. ``check_result_protocol(res)`` checks the one result protocol.

Each test module of a package registers what it covers in ``BAD_INPUT_SPECS`` (function name ->
``Spec``) and ``RESULT_EXAMPLES`` (class name -> factory); ``tests/test_api_complete.py`` checks
that together they cover every public function and result class.
"""
from __future__ import annotations

import copy
import dataclasses
import pickle
import re
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pandas as pd

BAD_KINDS = ("empty", "nan", "inf", "wrong_ndim", "short", "string", "none",
             "text", "numeric_text", "huge", "tiny", "negative_id", "huge_id", "nan_callable")

#: variants whose call may succeed (a finite answer exists: scale-free or scale-equivariant statistics),
#: but never with a NaN or an infinite p-value; failing, they must raise ValueError/TypeError naming the
#: argument as every other kind. "huge": one value of the data 1e300; "tiny": all values times 1e-300.
SCALE_KINDS = ("huge", "tiny")

#: errors that must never reach a user from bad input
FORBIDDEN = (IndexError, ZeroDivisionError, KeyError, AttributeError, np.linalg.LinAlgError,
             FloatingPointError, AssertionError, RuntimeError, OverflowError)


@dataclass
class Spec:
    """How to call ``func`` correctly (``good`` keyword arguments) and which arguments are data.

    ``ok``: {(arg, kind)} combinations documented to succeed (for example NaN p-values, which
    ``p_adjust`` omits as R does, or ``None`` for an optional conditioning set). ``short`` makes a
    data argument one observation shorter than the others, so it applies when ``paired``.
    ``nan_result_ok``: {(arg, kind)} where a NaN in the output is the documented answer
    (``nan_policy="propagate"``, R's NA rule).

    The variants added after the review of issue 29: "text" (the data as strings, same shape: text in a
    numeric argument is refused, never dummy-coded), "numeric_text" (the same numbers written as strings,
    "0.25": refused as R's t.test refuses a character vector, never converted), "huge" (one value 1e300) and "tiny" (all values
    times 1e-300): these may succeed, without NaN; "negative_id" and "huge_id" (an integer argument's
    first entry -1 or 10**9: token ids, counts, positions), "nan_callable" (a callable argument that
    returns NaN). ``known``: {(arg, kind): reason} of defects found by the sweep and not yet fixed,
    listed in the open: the sweep leaves them out. ``bounds``: pairs of arguments (low, high) that the
    sweep swaps, which must be refused naming one of them.
    """

    func: Callable
    good: dict
    data: tuple
    ok: set = field(default_factory=set)
    nan_result_ok: set = field(default_factory=set)
    paired: bool = True
    kinds: tuple = BAD_KINDS
    known: dict = field(default_factory=dict)
    #: pairs (low, high) of arguments that are the two ends of something (bounds of a set, an
    #: interval): the sweep swaps their values ("swapped"), which must be refused naming one of them
    bounds: tuple = ()


_GENERIC_KINDS = ("empty", "string", "none")


def _applies(good: Any, kind: str) -> bool:
    """The numeric kinds (NaN, inf, wrong dimension, one row short) need array-like data; a mapping
    or a fitted model gets the generic ones only. The id kinds need integer data, the scale kinds
    real (float) data, "nan_callable" a callable."""
    if kind == "nan_callable":
        return callable(good) and not isinstance(good, type)
    if kind in _GENERIC_KINDS:
        return True
    if isinstance(good, (dict, str)) or not hasattr(good, "__len__"):
        return False
    try:
        dtype = np.asarray(good).dtype.kind
    except Exception:
        return False
    if kind in ("negative_id", "huge_id"):
        return dtype in "iu" and np.asarray(good).size > 0
    if kind in SCALE_KINDS:
        return dtype == "f" and np.asarray(good).size > 0
    return dtype in "fiu"


def _nan_callable(*args: Any, **kwargs: Any) -> float:
    return float("nan")


def _bad_value(good: Any, kind: str) -> Any:
    if kind == "string":
        return "abc"
    if kind == "none":
        return None
    if isinstance(good, dict) and kind == "empty":
        return {}
    arr = good.to_numpy() if isinstance(good, (pd.Series, pd.DataFrame)) else np.asarray(good)
    if kind == "empty":
        return np.empty((0,) + arr.shape[1:])
    if kind in ("nan", "inf"):
        bad = np.array(arr, dtype=float, copy=True)
        bad.flat[0] = np.nan if kind == "nan" else np.inf
        return pd.Series(bad, index=good.index) if isinstance(good, pd.Series) else bad
    if kind == "wrong_ndim":
        return np.asarray(arr, dtype=float)[..., None, None]
    if kind == "short":
        return arr[:-1]

    def like(v):  # the container of ``good``
        if isinstance(good, pd.Series):
            return pd.Series(v, index=good.index, name=good.name)
        if isinstance(good, pd.DataFrame):
            return pd.DataFrame(v, index=good.index, columns=good.columns)
        return v

    if kind == "text":  # labels, not numbers written as strings
        return like(np.where(np.arange(arr.size).reshape(arr.shape) % 2 == 0, "low", "high").astype(object))
    if kind == "numeric_text":  # the same numbers written as strings ("0.25"): text all the same
        return like(np.asarray(arr).astype(str))
    if kind == "huge":
        bad = np.array(arr, dtype=float, copy=True)
        bad.flat[0] = 1e300
        return like(bad)
    if kind == "tiny":
        return like(np.array(arr, dtype=float, copy=True) * 1e-300)
    if kind in ("negative_id", "huge_id"):
        bad = np.array(arr, copy=True)
        bad.flat[0] = -1 if kind == "negative_id" else 10 ** 9
        return like(bad)
    if kind == "nan_callable":
        return _nan_callable
    raise ValueError(kind)


def _snapshot(obj: Any) -> Any:
    if isinstance(obj, np.ndarray):
        return ("nd", obj.dtype.str, obj.shape, obj.tobytes())
    if isinstance(obj, (pd.Series, pd.DataFrame)):
        return ("pd", pickle.dumps(obj))
    if isinstance(obj, dict):
        return {k: _snapshot(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_snapshot(v) for v in obj]
    return None


def _has_nan(res: Any) -> bool:
    p = getattr(res, "p_value", None)
    if isinstance(p, (float, np.floating)) and not np.isfinite(p):
        return True
    vals = []
    for name in ("p_value", "statistic", "lower", "upper", "estimate", "value"):
        v = getattr(res, name, None)
        if isinstance(v, (float, np.floating)):
            vals.append(float(v))
    if isinstance(res, (float, np.floating)):
        vals.append(float(res))
    if isinstance(res, (np.ndarray, pd.Series)) and res.dtype.kind == "f":
        return bool(np.isnan(np.asarray(res)).any())
    return any(np.isnan(v) for v in vals)


def sweep_bad_inputs(spec: Spec) -> list[str]:
    """Run the sweep; returns the list of failures (empty when every call behaved)."""
    failures = []
    for arg in spec.data:
        for kind in spec.kinds:
            if (kind == "short" and not spec.paired) or not _applies(spec.good[arg], kind):
                continue
            if (arg, kind) in spec.known:
                continue
            kwargs = dict(spec.good)
            kwargs[arg] = _bad_value(spec.good[arg], kind)
            before = {k: _snapshot(v) for k, v in kwargs.items()}
            label = f"{spec.func.__name__}({arg}={kind})"
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = spec.func(**kwargs)
            except (ValueError, TypeError) as exc:
                msg = str(exc)
                # the argument's name as a word: a one-letter name ("x") must not match inside "index"
                if not re.search(rf"(?<![A-Za-z0-9_]){re.escape(arg)}(?![A-Za-z0-9_])", msg):
                    failures.append(f"{label}: {type(exc).__name__} does not name {arg!r}: {msg[:200]}")
            except FORBIDDEN as exc:
                failures.append(f"{label}: raised {type(exc).__name__}: {str(exc)[:200]}")
            except Exception as exc:  # numba typing errors and the like
                failures.append(f"{label}: raised {type(exc).__module__}.{type(exc).__name__}: {str(exc)[:200]}")
            else:
                if kind in SCALE_KINDS:
                    if _has_nan(res) and (arg, kind) not in spec.nan_result_ok:
                        failures.append(f"{label}: returned a NaN result silently")
                elif (arg, kind) not in spec.ok:
                    failures.append(f"{label}: succeeded, which is not documented")
                elif _has_nan(res) and (arg, kind) not in spec.nan_result_ok:
                    failures.append(f"{label}: returned a NaN result silently")
            after = {k: _snapshot(v) for k, v in kwargs.items()}
            if before != after:
                failures.append(f"{label}: modified its input")
    for lo, hi in spec.bounds:
        kwargs = dict(spec.good)
        kwargs[lo], kwargs[hi] = spec.good[hi], spec.good[lo]
        label = f"{spec.func.__name__}({lo}<->{hi}=swapped)"
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                spec.func(**kwargs)
        except (ValueError, TypeError) as exc:
            if not any(re.search(rf"(?<![A-Za-z0-9_]){a}(?![A-Za-z0-9_])", str(exc)) for a in (lo, hi)):
                failures.append(f"{label}: {type(exc).__name__} names neither {lo!r} nor {hi!r}: {str(exc)[:200]}")
        except Exception as exc:
            failures.append(f"{label}: raised {type(exc).__name__}: {str(exc)[:200]}")
        else:
            failures.append(f"{label}: succeeded with {lo} > {hi}")
    # the good call itself must leave its inputs as they were
    kwargs = copy.copy(spec.good)
    before = {k: _snapshot(v) for k, v in kwargs.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec.func(**kwargs)
    if {k: _snapshot(v) for k, v in kwargs.items()} != before:
        failures.append(f"{spec.func.__name__}: the valid call modified its input")
    return failures


def check_result_protocol(res: Any, *, plot: bool | None = None) -> None:
    """Assert the one result protocol on an instance (docs/conventions.md, section 2)."""
    from statcore._result import Result

    name = type(res).__name__
    assert isinstance(res, Result), f"{name} does not derive from statcore._result.Result"
    assert dataclasses.is_dataclass(res) and type(res).__dataclass_params__.frozen, f"{name} is not a frozen dataclass"
    r = repr(res)
    assert "object at 0x" not in r and r.startswith(name) and len(r.splitlines()) <= 2 and len(r) <= 400, \
        f"{name} repr is not compact: {r[:500]}"
    s = res.summary()
    assert isinstance(s, str) and s.strip() and str(res) == s, f"{name}: summary()/str() disagree or are empty"
    h = res._repr_html_()
    assert "<table" in h and "<pre>" not in h, f"{name}: _repr_html_ is not a real table"
    frame = res.to_frame()
    assert isinstance(frame, pd.DataFrame), f"{name}: to_frame() is not a DataFrame"
    for col in frame.columns:
        assert isinstance(col, str) and col == col.lower() and " " not in col and "." not in col, \
            f"{name}: to_frame() column {col!r} is not snake_case"
    for f in dataclasses.fields(res):
        try:
            setattr(res, f.name, None)
        except (dataclasses.FrozenInstanceError, AttributeError):
            pass
        else:  # pragma: no cover - the failure message is the point
            raise AssertionError(f"{name}.{f.name} can be assigned")
        v = getattr(res, f.name)
        if isinstance(v, np.ndarray) and v.size:
            assert not v.flags.writeable, f"{name}.{f.name} is a writeable array"
        if isinstance(v, dict):
            try:
                v["__probe__"] = 1
            except TypeError:
                pass
            else:  # pragma: no cover
                raise AssertionError(f"{name}.{f.name} is a mutable dict")
        assert not isinstance(v, list), f"{name}.{f.name} is a mutable list"
    _check_equality(res)
    _check_pandas_frozen(res)
    _check_tests_are_htests(res)
    _check_columns_named(frame, name)
    _check_prediction_interval_fields(res, frame, name)
    if plot is None:
        plot = type(res)._plot is not Result._plot
    if plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.axes import Axes

        ax = res.plot()
        ok = isinstance(ax, Axes) or (isinstance(ax, np.ndarray) and all(isinstance(a, Axes) for a in ax.ravel()))
        assert ok, f"{name}.plot() returned {type(ax).__name__}, not the Axes"
        plt.close("all")


# -- the result-protocol checks of docs/conventions.md section 2 that need more than a line ------------

def _changed(value: Any) -> Any:
    """A copy of a field's value that a value equality must tell apart, or None when there is none."""
    if isinstance(value, (bool, np.bool_)):
        return not value
    if isinstance(value, (int, float, np.integer, np.floating)) and np.isfinite(value):
        return value + 1
    if isinstance(value, np.ndarray) and value.size and value.dtype.kind in "biuf":
        out = np.array(value, copy=True)
        out.flat[0] = (not out.flat[0]) if out.dtype.kind == "b" else out.flat[0] + 1
        if out.dtype.kind == "f" and not np.isfinite(out.flat[0]):
            out.flat[0] = 0.5
        return out
    if isinstance(value, pd.DataFrame) and value.shape[1]:
        return value.assign(__probe__=1)
    if isinstance(value, str):
        return value + " (changed)"
    return None


def _check_equality(res: Any) -> None:
    """``==`` never raises and compares values; ``hash`` agrees with it (Result's one equality)."""
    name = type(res).__name__
    same = copy.copy(res)
    assert res == res and same == res and not (same != res), f"{name}: a result is not equal to its copy"
    assert hash(same) == hash(res), f"{name}: equal results hash differently"
    assert res != object() and not (res == "text"), f"{name}: a result equals an object of another type"
    for f in dataclasses.fields(res):
        if not f.compare:
            continue
        other = _changed(object.__getattribute__(res, f.name))
        if other is None:
            continue
        changed = copy.copy(res)
        object.__setattr__(changed, f.name, other)
        assert changed != res and not (changed == res), f"{name}: == does not see a change of {f.name}"


def _pandas_inside(value: Any) -> bool:
    from statcore._result import Result

    if isinstance(value, (pd.Series, pd.DataFrame, pd.Index)):
        return True
    if isinstance(value, Result):  # a nested result guards its own fields
        return False
    if isinstance(value, dict):
        return any(_pandas_inside(v) for v in value.values())
    if isinstance(value, (tuple, list)):
        return any(_pandas_inside(v) for v in value)
    return False


def _check_pandas_frozen(res: Any) -> None:
    """A pandas field cannot be edited in place through the result (pandas' copy-on-write and the
    copy ``Result`` hands out), and no pandas object hides inside a container field."""
    name = type(res).__name__
    summary = res.summary()
    for f in dataclasses.fields(res):
        raw = object.__getattribute__(res, f.name)
        if not isinstance(raw, (pd.Series, pd.DataFrame, pd.Index)):
            assert not _pandas_inside(raw), \
                f"{name}.{f.name}: a pandas object inside a container can be edited in place; hold it as a field"
            continue
        before = raw.copy(deep=True)
        got = getattr(res, f.name)
        assert got is not raw, f"{name}.{f.name}: the stored pandas object is handed out for editing"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if not isinstance(got, pd.Index) and got.size:
                cell = got.iloc[(0,) * got.ndim]
                try:
                    got.iloc[(0,) * got.ndim] = cell + 1 if isinstance(cell, (int, float, np.number)) else "__probe__"
                except (TypeError, ValueError):
                    pass
            if isinstance(got, pd.DataFrame):
                got["__probe__"] = 1
            got.index.name = "__probe__"
        now = object.__getattribute__(res, f.name)
        assert now.equals(before) and now.index.name == before.index.name, \
            f"{name}.{f.name}: an in-place edit of the pandas field reached the result"
        assert res.summary() == summary, f"{name}.{f.name}: an in-place edit changed summary()"


_PVALUE_TEXT = re.compile(r"p-value\s?(?:[=<]\s?)?[<\d.]|[(,;] p\s?[=<]\s?[<\d.]|\(p\s?[=<]\s?[<\d.]")


def _held_tests(value: Any) -> list:
    from statcore._result import HTest, Result

    if isinstance(value, HTest):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _held_tests(v)]
    if isinstance(value, tuple):
        return [t for v in value for t in _held_tests(v)]
    return []


def _check_tests_are_htests(res: Any) -> None:
    """A test is an HTest printed by the one R printer: a result that is not an HTest prints no p-value of
    its own (a table of many p-values is fine); the tests it reports are HTest fields, whose
    ``summary()`` text it may print as it is."""
    from statcore._result import HTest

    if isinstance(res, HTest):
        return
    text = res.summary()
    for f in dataclasses.fields(res):
        for test in _held_tests(object.__getattribute__(res, f.name)):
            text = text.replace(test.summary().strip("\n"), "")
    hit = _PVALUE_TEXT.search(text)
    assert hit is None, (f"{type(res).__name__}.summary() prints a p-value of its own "
                         f"({text[max(0, hit.start() - 60):hit.end() + 20]!r}): hold the test as an HTest")


def _column_table() -> tuple[set, dict]:
    """The names of docs/conventions.md's column table and the names it forbids (its "never" column)."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "conventions.md").read_text()
    part = text.split("### Column and attribute names", 1)[1]
    names, never = set(), {}
    for line in part.splitlines():
        if not line.startswith("|"):
            if names:
                break
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] in ("name", "---") or set(cells[0]) <= set("-"):
            continue
        good = re.findall(r"`([^`]+)`", cells[0])
        names.update(good)
        for bad in re.findall(r"`([^`]+)`", cells[2]) if len(cells) > 2 else []:
            never[bad] = ", ".join(good)
    return names, never


def _prediction_interval_ends() -> tuple:
    """The names the naming table gives the ends of a prediction interval (``pred_low``, ``pred_high``)."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "conventions.md").read_text()
    part = text.split("### Column and attribute names", 1)[1]
    for line in part.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) > 1 and cells[1].startswith("the ends of a prediction interval"):
            return tuple(re.findall(r"`([^`]+)`", cells[0]))
    raise AssertionError("docs/conventions.md names no ends of a prediction interval")


def _check_prediction_interval_fields(res: Any, frame: pd.DataFrame, name: str) -> None:
    """A result whose ``to_frame()`` reports a prediction interval holds its ends as fields of the same
    names (the table: one name as a column and as an attribute), not as ``lower``/``upper`` (the ends of
    an identified set or bound) nor under both names."""
    ends = _prediction_interval_ends()
    if not set(ends) & set(frame.columns):
        return
    fields = {f.name for f in dataclasses.fields(res)}
    missing = [e for e in ends if e not in fields]
    assert not missing, (f"{name}: to_frame() reports the prediction interval {ends}, but the fields {missing} "
                         f"are absent: the naming table gives them the same names as attributes")
    other = sorted(fields & {"lower", "upper"})
    assert not other, (f"{name}: a prediction interval's ends are {ends} in the naming table, yet fields {other} "
                       f"remain (lower/upper name an identified set's or a bound's ends)")


def _check_columns_named(frame: pd.DataFrame, name: str) -> None:
    """``to_frame()`` uses the table's names: no column the table forbids, no ``*_p``/``*_pval`` p-value."""
    _, never = _column_table()
    for col in frame.columns:
        assert col not in never, f"{name}: to_frame() column {col!r} is spelled {never[col]!r} in the naming table"
        assert not re.search(r"(^|_)(p|pval|pvalue|se|sd)$", col), \
            f"{name}: to_frame() column {col!r}: a p-value is p_value, a standard error std_error (naming table)"
