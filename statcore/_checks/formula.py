"""The formula door: R-style ``"y ~ x | z"`` formulas and a DataFrame in, the arrays of the array call out.

A function decorated with :func:`formula_door` accepts, in place of its first data argument, a formula
string together with ``data=`` (a pandas DataFrame or a mapping of columns). The formula is parsed by
`formulaic <https://matthewwardrop.github.io/formulaic/>`_ (imported on first use only):

- ``lhs ~ rhs`` or ``lhs ~ rhs | cond``: the left side is the response (``y``), the right side the
  tested variables or the treatment (``x``, ``treat``), the part after ``|`` the conditioning set
  or covariates (``z``, ``X``). Each side may hold several terms (``y1 + y2 ~ x1 + x2 | z``).
- Each side is expanded as R's ``model.matrix`` expands it: categorical columns (strings, pandas
  categoricals, ``C(g)``) become treatment-contrast dummies with the first level as reference, and
  interactions and transforms (``a:b``, ``I(x ** 2)``, ``np.log(x)``) are evaluated. The intercept
  column is dropped (every statcore function adds its own where it needs one); the dummy columns are
  named as R names them (``gb`` for the level ``b`` of ``g``, formulaic's ``g[T.b]``).
- Missing values (NaN, None, NA) in the columns the formula uses follow ``nan_policy``: "raise"
  refuses them naming the column and the count; "omit" passes the rows with NaN to the function,
  whose own "omit" drops them (so the result is the array call's with ``nan_policy="omit"``) and the
  ``data_name`` of a test says how many observations were deleted, as R's ``summary.lm`` does.
- A hypothesis test's ``data_name`` reads like R's: ``"y and x given z1 + z2"``.

The call then goes to the array form with the columns in place of the formula, so a formula call and
the corresponding array call give equal results (apart from ``data_name``).
"""
from __future__ import annotations

import dataclasses
import functools
import inspect
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

__all__ = ["formula_door", "model_frame", "ModelFrame"]

_R_NAME = re.compile(r"\[(?:T\.)?([^\]]*)\]")
_ANSI = re.compile(r"\x1b\[[0-9;]*m|[\u29da\u29db]")


@dataclass(frozen=True)
class ModelFrame:
    """The evaluated parts of a formula on the rows of ``data`` (rows with a NaN are NaN throughout).

    ``lhs``, ``rhs`` and ``cond`` are DataFrames (``cond`` None without a ``|`` part) indexed like
    ``data``; the labels are the parts' terms joined by " + "; ``omitted`` counts the rows with a
    missing value in a used column (always 0 under ``nan_policy="raise"``).
    """

    lhs: Any
    rhs: Any
    cond: Any
    lhs_label: str
    rhs_label: str
    cond_label: str | None
    omitted: int

    @property
    def data_name(self) -> str:
        """R's ``data.name`` of a test of the lhs against the rhs given the cond part."""
        s = f"{self.lhs_label} and {self.rhs_label}"
        return s if self.cond_label is None else f"{s} given {self.cond_label}"


def _formulaic():
    try:
        import formulaic
    except ImportError:  # pragma: no cover - formulaic is in the test and formula extras
        raise ImportError("formulas need formulaic: pip install formulaic (or statcore[formula])") from None
    return formulaic


def _as_frame(data: Any):
    import pandas as pd

    if isinstance(data, pd.DataFrame):
        return data
    if isinstance(data, Mapping):
        try:
            return pd.DataFrame(dict(data))
        except ValueError as exc:
            raise ValueError(f"data: the columns of the mapping could not form a table ({exc})") from None
    raise TypeError(f"data must be a pandas DataFrame (or a mapping of column names to columns) to go with a "
                    f"formula, got {type(data).__name__}")


def _terms(part) -> list[str]:
    return [str(t) for t in part if str(t) != "1"]


def _r_names(columns) -> list[str]:
    return [_R_NAME.sub(r"\1", str(c)) for c in columns]


def _values_used(formula: str, parsed, frame) -> list[str]:
    """The data columns the formula reads; an unknown name is an error naming it."""
    names = sorted({str(v) for v in parsed.required_variables})
    unknown = [v for v in names if v not in frame.columns]
    if unknown:
        shown = ", ".join(map(repr, list(frame.columns)[:20]))
        raise ValueError(f"formula {formula!r}: unknown column {', '.join(map(repr, unknown))} (not in data; "
                         f"data has {shown}{', ...' if frame.shape[1] > 20 else ''})")
    return names


def _message(exc: Exception) -> str:
    return _ANSI.sub("", str(exc)).strip().replace("\n\n", ": ")


def model_frame(formula: Any, data: Any, *, nan_policy: str = "raise", cond: str = "optional",
                func: str = "this function") -> ModelFrame:
    """Parse ``formula`` and evaluate its parts on ``data`` (see the module docstring).

    Parameters
    ----------
    formula : str
        ``"lhs ~ rhs"`` or ``"lhs ~ rhs | cond"``.
    data : pandas.DataFrame or mapping
        The columns the formula names.
    nan_policy : {"raise", "omit"}
        Rows with a missing value in a used column: refused, or kept as NaN rows for the function's
        own "omit" to drop.
    cond : {"optional", "required", "forbidden"}
        Whether a ``| cond`` part may, must or must not be given.
    func : str
        The function's name, for the messages.

    Returns
    -------
    ModelFrame
    """
    import pandas as pd

    if not isinstance(formula, str):
        raise TypeError(f"formula must be a string such as 'y ~ x | z', got {type(formula).__name__}")
    frame = _as_frame(data)
    if "~" not in formula:
        raise ValueError(f"formula {formula!r} has no '~': write it as 'y ~ x' or 'y ~ x | z'")
    fml = _formulaic()
    try:
        parsed = fml.Formula(formula)
    except Exception as exc:
        raise ValueError(f"formula {formula!r} is malformed: {_message(exc)}") from None
    if not hasattr(parsed, "lhs"):
        raise ValueError(f"formula {formula!r} has nothing on the left of '~'")
    rhs_parts = parsed.rhs if isinstance(parsed.rhs, tuple) else (parsed.rhs,)
    if len(rhs_parts) > 2:
        raise ValueError(f"formula {formula!r} has {len(rhs_parts) - 1} '|' parts; {func} takes at most one "
                         "(y ~ x | z)")
    if cond == "required" and len(rhs_parts) < 2:
        raise ValueError(f"formula {formula!r}: {func} needs a conditioning set, as in 'y ~ x | z'")
    if cond == "forbidden" and len(rhs_parts) > 1:
        raise ValueError(f"formula {formula!r}: {func} tests plain independence and takes no '| z' part; for a "
                         "conditional test use gcm_test, rpcit or pdcor_test")
    lhs_terms = _terms(parsed.lhs)
    rhs_terms = _terms(rhs_parts[0])
    if not lhs_terms:
        raise ValueError(f"formula {formula!r} has nothing on the left of '~'")
    if not rhs_terms:
        raise ValueError(f"formula {formula!r} has no variable on the right of '~'")
    used = _values_used(formula, parsed, frame)
    if nan_policy not in ("raise", "omit"):
        raise ValueError(f"nan_policy must be 'raise' or 'omit' with a formula, got {nan_policy!r}")
    missing = frame[used].isna() if used else pd.DataFrame(index=frame.index)
    counts = missing.sum(axis=0)
    bad_rows = missing.any(axis=1).to_numpy() if used else np.zeros(len(frame), dtype=bool)
    if bad_rows.any() and nan_policy == "raise":
        cols = ", ".join(f"{c!r} ({int(k)})" for c, k in counts.items() if k)
        raise ValueError(f"data has missing values (NaN, None or NA) in the formula's column {cols}; pass "
                         "nan_policy='omit' to drop those rows, as R's na.omit, or fill them")
    complete = frame.loc[~bad_rows] if bad_rows.any() else frame
    if len(complete) == 0:
        raise ValueError(f"data has no row without a missing value in the columns of {formula!r}")
    try:
        mm = fml.model_matrix(parsed, complete, na_action="raise")
    except Exception as exc:
        raise ValueError(f"formula {formula!r} could not be evaluated on data: {_message(exc)}") from None
    _numeric_response(formula, mm.lhs)
    mparts = mm.rhs if isinstance(mm.rhs, tuple) else (mm.rhs,)

    def finish(m) -> Any:
        m = pd.DataFrame(m)
        m = m.drop(columns=[c for c in m.columns if str(c) == "Intercept"])
        m.columns = _r_names(m.columns)
        if bad_rows.any():  # NaN rows back in place, for the function's own nan_policy="omit"
            full = np.full((len(frame), m.shape[1]), np.nan)
            full[~bad_rows] = m.to_numpy(dtype=float)
            m = pd.DataFrame(full, index=frame.index, columns=m.columns)
        return m

    lhs, rhs = finish(mm.lhs), finish(mparts[0])
    cond_frame = finish(mparts[1]) if len(mparts) > 1 else None
    cond_label = None
    if len(rhs_parts) > 1:
        terms = _terms(rhs_parts[1])
        cond_label = " + ".join(terms) if terms else None
        if cond_frame is not None and cond_frame.shape[1] == 0:
            cond_frame = None
    return ModelFrame(lhs=lhs, rhs=rhs, cond=cond_frame, lhs_label=" + ".join(lhs_terms),
                      rhs_label=" + ".join(rhs_terms), cond_label=cond_label, omitted=int(bad_rows.sum()))


def _numeric_response(formula: str, lhs) -> None:
    """The response must be numeric (or logical): R's ``model.response`` keeps text as text and the fit
    fails, so text or a category on the left of '~' is refused rather than dummy-coded."""
    spec = getattr(lhs, "model_spec", None)
    coded = [str(f) for f in (getattr(spec, "factor_contrasts", None) or {})]
    if coded:
        raise TypeError(f"formula {formula!r}: the response {', '.join(map(repr, coded))} holds text or "
                        "categories, not numbers; a response (left of '~') must be numeric or logical, as in "
                        "R, where model.response keeps text as text and the fit fails. Convert the column "
                        "(for example df['y'] == 'yes' for a 0/1 outcome)")


def _single(frame, label: str, role: str, formula: str, func: str):
    if frame.shape[1] != 1:
        raise ValueError(f"formula {formula!r}: {func} takes one {role} on the {'left' if role == 'y' else 'right'} "
                         f"of '~', got {frame.shape[1]} columns ({', '.join(map(str, frame.columns))})")
    return frame.iloc[:, 0].rename(label)


def _vector_or_matrix(frame) -> np.ndarray:
    arr = np.ascontiguousarray(frame.to_numpy(dtype=float))  # C order, as an array call's column_stack
    return np.ascontiguousarray(arr[:, 0]) if arr.shape[1] == 1 else arr


def formula_door(*, lhs: str, rhs: str, cond: str | None, cond_rule: str = "optional",
                 single: tuple = (), pandas: bool = False) -> Callable:
    """Let a function take ``formula, data=df`` in place of its first data argument.

    Parameters
    ----------
    lhs, rhs, cond : str
        The parameters that receive the left side, the right side and the ``|`` part (``cond`` None:
        the function has no conditioning argument and a ``|`` part is refused).
    cond_rule : {"optional", "required"}
        Whether the ``|`` part may be left out.
    single : tuple of str
        Parameters that take one column (a vector): ``("y", "treat")`` for ``c2g``.
    pandas : bool
        Pass pandas objects (a named Series, a DataFrame with the model-matrix column names) rather
        than float arrays: for functions whose results keep names and indexes.

    Returns
    -------
    callable
        The decorator; the wrapped function keeps its signature (which must have ``data``).
    """

    def deco(func: Callable) -> Callable:
        sig = inspect.signature(func)
        params = list(sig.parameters)
        first = params[0]
        roles = {lhs: "lhs", rhs: "rhs"} | ({cond: "cond"} if cond else {})

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            try:
                bound = sig.bind_partial(*args, **kwargs)
            except TypeError:
                return func(*args, **kwargs)  # the function's own message
            arguments = bound.arguments
            formula = arguments.get(first)
            data = arguments.pop("data", None)
            if not isinstance(formula, str):
                if data is not None:
                    raise TypeError(f"{func.__name__}(): data= goes with a formula as the first argument "
                                    f"(for example {func.__name__}('y ~ x', data=df)); {first} is not a string")
                return func(*bound.args, **bound.kwargs)
            if data is None:
                raise TypeError(f"{func.__name__}(): {first} is the string {formula[:60]!r}, read as a formula "
                                f"('y ~ x'), which needs data=, a DataFrame holding its columns; pass "
                                f"{first} as an array otherwise")
            given = [p for p in roles if p != first and arguments.get(p) is not None]
            if given:
                raise TypeError(f"{func.__name__}(): with a formula, {', '.join(given)} come"
                                f"{'s' if len(given) == 1 else ''} from the formula; do not pass "
                                f"{'it' if len(given) == 1 else 'them'}")
            nan_policy = arguments.get("nan_policy", sig.parameters["nan_policy"].default)
            rule = "forbidden" if cond is None else cond_rule
            mf = model_frame(formula, data, nan_policy=nan_policy, cond=rule, func=f"{func.__name__}()")
            parts = {lhs: (mf.lhs, mf.lhs_label, "y"), rhs: (mf.rhs, mf.rhs_label, "x")}
            if cond is not None:
                parts[cond] = (mf.cond, mf.cond_label, "z")
            for name, (frame, label, role) in parts.items():
                if frame is None:
                    arguments[name] = None
                elif name in single:
                    s = _single(frame, label, "y" if name == lhs else name, formula, f"{func.__name__}()")
                    arguments[name] = s if pandas else s.to_numpy(dtype=float)
                else:
                    arguments[name] = frame if pandas else _vector_or_matrix(frame)
            res = func(*bound.args, **bound.kwargs)
            return _rename(res, mf)

        return wrapper

    return deco


def _rename(res: Any, mf: ModelFrame) -> Any:
    """A test's data_name from the formula, as R's: ``"y and x given z1 + z2"``."""
    from .._result import HTest

    if not isinstance(res, HTest):
        return res
    name = mf.data_name
    old = res.data_name or ""
    for generic in ("x and y given z", "resid_x and resid_y", "x and y"):
        if old.startswith(generic):
            old = old[len(generic):].lstrip(", ")
            break
    if old:
        name = f"{name}, {old}"
    if mf.omitted:
        name += f" ({mf.omitted} observation{'s' if mf.omitted != 1 else ''} deleted due to missingness)"
    return dataclasses.replace(res, data_name=name)
