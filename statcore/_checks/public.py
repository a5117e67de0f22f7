"""One decorator for every public function that takes data: ``public_function``.

It owns what every such function shares, so that none of them writes it by hand:

- the signature rule: the data parameters come first, everything after them is keyword-only
  (checked once, when the function is defined);
- ``nan_policy``: the value is checked against the policies the function allows; for a function
  whose body does not handle missing values itself, the decorator adds the ``nan_policy`` argument
  and applies it: "raise" names the argument and the count of NaNs, "omit" drops the observations
  (rows) holding one, "propagate" (where allowed) hands the function its input unchanged;
- the pandas round trip: pandas inputs are handed on as pandas objects (rows dropped by "omit" keep
  their index), so a function's ``InputWrapper`` gives a Series back with the input's index; and
  paired pandas inputs whose indexes differ are refused (never silently paired by position);
- the formula door (``formula=``): ``f("y ~ x | z", data=df)`` through
  :func:`statcore._checks.formula.formula_door`.
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .arrays import _first_text
from .core import NAN_POLICIES, check_nan_policy

__all__ = ["public_function", "check_aligned_indexes"]


def _is_pandas(x: Any) -> bool:
    return type(x).__module__.split(".")[0] == "pandas" and hasattr(x, "index")


def check_aligned_indexes(**inputs: Any) -> None:
    """Refuse paired pandas inputs whose indexes differ.

    statcore pairs observations by position, as R does. When two or more of the paired inputs are
    pandas objects, their indexes must be equal (same labels in the same order); otherwise pairing
    by position would silently match different units, and aligning by label would silently drop or
    reorder some. Either is a guess: this raises a ValueError naming both arguments.

    Parameters
    ----------
    **inputs
        The paired inputs by argument name (non-pandas inputs and None are skipped).

    Raises
    ------
    ValueError
        When two pandas inputs have different indexes.

    References
    ----------
    docs/conventions.md, section 3 (the input door); pandas' ``Index.equals``.

    Examples
    --------
    >>> import pandas as pd
    >>> check_aligned_indexes(x=pd.Series([1.0, 2.0]), y=pd.Series([3.0, 4.0]))
    >>> check_aligned_indexes(x=pd.Series([1.0, 2.0]), y=pd.Series([3.0, 4.0], index=[1, 0]))
    Traceback (most recent call last):
    ...
    ValueError: x and y are pandas objects with different indexes; statcore pairs observations by position and will not guess: align them first (x, y = x.align(y, join="inner", axis=0)) or pass arrays
    """
    named = [(name, x) for name, x in inputs.items() if x is not None and _is_pandas(x)]
    for (name0, x0), (name1, x1) in ((named[0], other) for other in named[1:]):
        if not x0.index.equals(x1.index):
            raise ValueError(f"{name0} and {name1} are pandas objects with different indexes; statcore pairs "
                             f"observations by position and will not guess: align them first ({name0}, {name1} = "
                             f"{name0}.align({name1}, join=\"inner\", axis=0)) or pass arrays")


def _nan_rows(x: Any, axis: int) -> np.ndarray | None:
    """A boolean mask of the observations (along ``axis``) holding a NaN, or None when the input is
    not numeric, text that reads as numbers included (then the function's own checks speak:
    ``refuse_text``, the door's one rule; "nan" as text is not a missing value)."""
    try:
        raw = np.asarray(x.to_numpy() if _is_pandas(x) and hasattr(x, "to_numpy") else x)
    except Exception:
        return None
    if _first_text(raw) is not None:
        return None
    try:
        arr = np.asarray(raw, dtype=float)
    except (TypeError, ValueError):
        return None
    if arr.ndim == 0:
        return np.isnan(arr).reshape(1)
    bad = np.isnan(np.moveaxis(arr, axis, 0))
    return bad.any(axis=tuple(range(1, bad.ndim))) if bad.ndim > 1 else bad


def _take(x: Any, keep: np.ndarray, axis: int) -> Any:
    """The kept observations of x, in x's own container (pandas keeps its index)."""
    if _is_pandas(x):
        return x.iloc[keep] if axis == 0 else x.iloc[:, keep]
    if isinstance(x, (list, tuple)) and axis == 0:
        return [v for v, k in zip(x, keep) if k]
    return np.compress(keep, np.asarray(x), axis=axis)


def public_function(*, data: Sequence[str], nan_policy: Sequence[str] | None = NAN_POLICIES,
                    samples: str = "paired", rows: Sequence[str] | None = None,
                    axis: Mapping[str, int] | None = None, formula: Mapping[str, Any] | None = None
                    ) -> Callable:
    """Decorate a public function that takes data: signature rule, ``nan_policy``, pandas, formulas.

    Parameters
    ----------
    data : sequence of str
        The data parameters: the function's leading positional parameters, in order. Every other
        parameter must be keyword-only (a ``TypeError`` when the function is defined otherwise).
    nan_policy : sequence of str or None
        The policies the function allows (a subset of "raise", "omit", "propagate"; the first is
        the default when the decorator adds the argument). None: the function takes no
        ``nan_policy``. When the function defines ``nan_policy`` itself, the decorator checks the
        value against these and the body applies it; otherwise the decorator adds the keyword-only
        argument ``nan_policy`` and applies it to ``rows``.
    samples : {"paired", "independent"}
        "paired": the ``rows`` inputs are observations of the same units (one row each, dropped
        together by "omit"; equal lengths; pandas indexes must be equal, see
        :func:`check_aligned_indexes`). "independent": separate samples (a two-sample test), each
        cleaned on its own.
    rows : sequence of str, optional
        The data parameters whose observations "omit" may drop (default: all of ``data``). A NaN in
        another data parameter (a grid, say) is refused whatever the policy.
    axis : mapping of str to int, optional
        The observation axis of a data parameter (default 0), e.g. ``{"hidden_states": -2}`` for a
        stack of per-layer (T, d) matrices.
    formula : mapping, optional
        Arguments of :func:`statcore._checks.formula.formula_door` (``lhs``, ``rhs``, ``cond``, ...):
        the function then also takes ``formula, data=df`` in place of its first data argument.

    Returns
    -------
    callable
        The decorator. The wrapped function keeps its name, docstring and signature (with
        ``nan_policy`` added where the decorator applies it).

    References
    ----------
    SciPy's ``_axis_nan_policy`` decorator (``scipy.stats``), the model followed for ``nan_policy``.

    Examples
    --------
    >>> import numpy as np
    >>> @public_function(data=("x", "y"), nan_policy=("raise", "omit"), samples="independent")
    ... def mean_gap(x, y):
    ...     return float(np.mean(x) - np.mean(y))
    >>> mean_gap([1.0, np.nan, 3.0], [1.0, 1.0], nan_policy="omit")
    1.0
    >>> mean_gap([1.0, np.nan, 3.0], [1.0, 1.0])
    Traceback (most recent call last):
    ...
    ValueError: x contains NaN (1 value); pass nan_policy="omit" to drop the observations holding one
    """
    data = tuple(data)
    rows_ = tuple(data if rows is None else rows)
    axes = dict(axis or {})
    allowed = None if nan_policy is None else tuple(nan_policy)
    if samples not in ("paired", "independent"):
        raise ValueError(f"samples must be 'paired' or 'independent', got {samples!r}")
    if allowed is not None:
        check_nan_policy(allowed[0])
        for a in allowed:
            check_nan_policy(a)

    def deco(func: Callable) -> Callable:
        sig = inspect.signature(func)
        params = list(sig.parameters.values())
        positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if tuple(positional) != data:
            raise TypeError(f"{func.__name__}: the positional parameters {positional} must be exactly the data "
                            f"{list(data)}; everything after the data is keyword-only (docs/conventions.md)")
        missing = [r for r in rows_ if r not in data]
        if missing:
            raise TypeError(f"{func.__name__}: rows {missing} are not data parameters")
        own = "nan_policy" in sig.parameters
        if allowed is None and own:
            raise TypeError(f"{func.__name__} takes nan_policy: list the policies it allows")
        if own:
            default = sig.parameters["nan_policy"].default
            if default not in allowed:
                raise TypeError(f"{func.__name__}: nan_policy's default {default!r} is not among {allowed}")
            public_sig = sig
        elif allowed is not None:
            new = inspect.Parameter("nan_policy", inspect.Parameter.KEYWORD_ONLY, default=allowed[0])
            kw = [i for i, p in enumerate(params) if p.kind is p.VAR_KEYWORD]
            at = kw[0] if kw else len(params)
            public_sig = sig.replace(parameters=params[:at] + [new] + params[at:])
        else:
            public_sig = sig

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            try:
                bound = public_sig.bind(*args, **kwargs)
            except TypeError as exc:
                raise TypeError(f"{func.__name__}(): {exc}") from None
            arguments = bound.arguments
            if allowed is not None:
                policy = check_nan_policy(arguments.get("nan_policy", public_sig.parameters["nan_policy"].default),
                                          allowed)
            if samples == "paired":
                check_aligned_indexes(**{n: arguments.get(n) for n in rows_})
            if allowed is not None and not own:
                arguments.pop("nan_policy", None)
                _apply(func.__name__, arguments, policy)
            elif own:
                arguments["nan_policy"] = policy
            return func(*bound.args, **bound.kwargs)

        def _apply(fname, arguments, policy):
            scans = {name: _nan_rows(arguments[name], axes.get(name, 0)) for name in data
                     if arguments.get(name) is not None}
            masks = {}
            for name, bad in scans.items():
                if bad is None or not bad.any():
                    continue
                n_nan = int(np.isnan(np.asarray(arguments[name], dtype=float)).sum())
                what = f"{name} contains NaN ({n_nan} value{'s' if n_nan != 1 else ''})"
                if name not in rows_:
                    raise ValueError(f"{what}; {name} must be complete whatever nan_policy")
                if policy == "raise":
                    hint = '; pass nan_policy="omit" to drop the observations holding one' if "omit" in allowed else ""
                    raise ValueError(what + hint)
                masks[name] = bad
            if policy == "propagate" or not masks:
                return
            if samples == "paired":
                lengths = {name: bad.shape[0] for name, bad in scans.items() if name in rows_ and bad is not None}
                if len(set(lengths.values())) > 1:
                    raise ValueError(f"{fname}(): the paired inputs have different numbers of observations "
                                     f"({', '.join(f'{k}: {v}' for k, v in lengths.items())})")
                drop = np.zeros(next(iter(lengths.values())), dtype=bool)
                for bad in masks.values():
                    drop |= bad
                if drop.all():
                    raise ValueError(f"every observation holds a NaN ({', '.join(masks)}); nothing is left after "
                                     "nan_policy='omit'")
                for name in lengths:
                    arguments[name] = _take(arguments[name], ~drop, axes.get(name, 0))
            else:
                for name, bad in masks.items():
                    if bad.all():
                        raise ValueError(f"every observation of {name} holds a NaN; nothing is left after "
                                         "nan_policy='omit'")
                    arguments[name] = _take(arguments[name], ~bad, axes.get(name, 0))

        wrapper.__signature__ = public_sig
        wrapper.__public_function__ = dict(data=data, nan_policy=allowed, samples=samples, rows=rows_)
        if formula is not None:
            from .formula import formula_door

            return formula_door(**formula)(wrapper)
        return wrapper

    return deco
