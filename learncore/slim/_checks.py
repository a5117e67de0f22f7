"""learncore.slim's input door: widths, lists of widths, the attention-scale choice, callables.

The generic checks are statcore's public ones (``statcore.utils``)."""
from __future__ import annotations

from typing import Any

import numpy as np
from statcore.utils import check_choice, check_positive_int, check_probability  # noqa: F401

from ._adapters import ATTENTION_SCALES

__all__ = ["check_width", "check_widths", "check_fits", "check_attention_scale", "check_callable", "check_positive_int",
           "check_probability"]


def check_width(s: Any, name: str = "s") -> float:
    """A width multiplier in (0, 1]."""
    if isinstance(s, (bool, np.bool_)):
        raise TypeError(f"{name} must be a real number in (0, 1], got {s!r}")
    if isinstance(s, (np.ndarray, list, tuple)) and np.ndim(s) > 0:
        raise TypeError(f"{name} must be one real number in (0, 1], got an array of shape {np.shape(s)}")
    return check_probability(s, name, open_left=True, open_right=False)


def check_widths(widths: Any, name: str = "widths") -> tuple[float, ...]:
    """A non-empty sequence of distinct widths in (0, 1], sorted from the largest down."""
    if isinstance(widths, (str, bytes)) or widths is None:
        raise TypeError(f"{name} must be a sequence of widths in (0, 1], got {widths!r}")
    try:
        items = list(np.asarray(widths, dtype=object).ravel()) if not np.isscalar(widths) else [widths]
    except TypeError:
        raise TypeError(f"{name} must be a sequence of widths in (0, 1], got {type(widths).__name__}") from None
    if np.ndim(widths) > 1:
        raise ValueError(f"{name} must be a flat sequence of widths, got an array of shape {np.shape(widths)}")
    if not items:
        raise ValueError(f"{name} is empty: give at least one width in (0, 1]")
    out = [check_width(w, f"{name}[{i}]") for i, w in enumerate(items)]
    if len(set(out)) != len(out):
        raise ValueError(f"{name} holds a width twice: {sorted(out, reverse=True)}")
    return tuple(sorted(out, reverse=True))


def check_fits(adapter, model, widths, name: str = "widths") -> None:
    """Every width keeps at least one unit of every narrowed layer (the error names the width)."""
    for i, s in enumerate(widths):
        try:
            adapter.cost(model, s, None)
        except ValueError as exc:
            raise ValueError(f"{name}[{i}]: {exc}") from None


def check_attention_scale(x: Any, name: str = "attention_scale") -> str:
    return check_choice(x, name, ATTENTION_SCALES)


def check_callable(f: Any, name: str) -> Any:
    if not callable(f):
        raise TypeError(f"{name} must be callable, got {type(f).__name__}")
    return f
