"""Validators of statcore.protocols' breadth and amplification (the one input door: errors name the
argument)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .arrays import as_float_array, _is_pandas

__all__ = ["as_topic_shifts", "as_topic_std_errors", "as_topic_samples", "check_one_sided"]


def as_topic_shifts(shifts: Any, name: str = "shifts") -> tuple[np.ndarray, tuple]:
    """One finite shift per topic (at least 2 topics) and the topics' labels (a Series' index, else
    0 .. k - 1)."""
    labels = tuple(shifts.index) if _is_pandas(shifts) and getattr(shifts, "ndim", 2) == 1 else None
    arr = as_float_array(shifts, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional (one shift per topic), got shape {arr.shape}")
    if arr.size < 2:
        raise ValueError(f"{name} must hold at least 2 topics, got {arr.size}")
    return arr, labels if labels is not None else tuple(range(arr.size))


def as_topic_std_errors(se: Any, k: int, name: str = "se", shifts_name: str = "shifts") -> np.ndarray:
    """Positive finite standard errors, one per topic (a scalar is broadcast)."""
    arr = as_float_array(se, name)
    if arr.ndim == 0:
        arr = np.full(k, float(arr))
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional (one standard error per topic), got shape {arr.shape}")
    if arr.size != k:
        raise ValueError(f"{name} must hold one standard error per topic: {shifts_name} has {k} topics, "
                         f"{name} has {arr.size}")
    if np.any(arr <= 0):
        raise ValueError(f"{name} must hold positive standard errors, got {arr[arr <= 0][0]:g}")
    return arr


def check_one_sided(alternative: Any, name: str = "alternative") -> str:
    """The trained direction: "greater" or "less"."""
    if not isinstance(alternative, str) or alternative not in ("greater", "less"):
        raise ValueError(f"{name} must be 'greater' or 'less' (the direction the fine-tune trained), "
                         f"got {alternative!r}")
    return alternative


def _columns(x: Any, name: str) -> tuple[list, list]:
    """(labels, list of 1-D float samples) from a mapping topic -> sample, a DataFrame (columns are
    topics), a 2-D array (columns are topics) or a 1-D array (one topic)."""
    if isinstance(x, dict):
        if not x:
            raise ValueError(f"{name} is an empty mapping; pass one sample of shifts per topic")
        labels = list(x)
        cols = [as_float_array(x[t], f"{name}[{t!r}]") for t in labels]
        for t, c in zip(labels, cols):
            if c.ndim != 1:
                raise ValueError(f"{name}[{t!r}] must be one-dimensional (one shift per probe), got shape {c.shape}")
        return labels, cols
    labels = list(x.columns) if _is_pandas(x) and getattr(x, "ndim", 1) == 2 else None
    arr = as_float_array(x, name)
    if arr.ndim == 1:
        return [0], [arr]
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a sample of shifts (1-D), a probes x topics matrix (2-D) or a mapping "
                         f"topic -> sample, got shape {arr.shape}")
    return labels if labels is not None else list(range(arr.shape[1])), [arr[:, j] for j in range(arr.shape[1])]


def as_topic_samples(ft: Any, fs: Any, paired: bool, names: tuple = ("ft", "fs")) -> tuple[list, list, list]:
    """Per-topic samples of the fine-tuned and the few-shot shifts, same topics, at least 2 probes each
    (the same number per topic when paired)."""
    lf, cf = _columns(ft, names[0])
    ls, cs = _columns(fs, names[1])
    if len(lf) != len(ls) or (isinstance(ft, dict) and isinstance(fs, dict) and set(lf) != set(ls)):
        raise ValueError(f"{names[0]} and {names[1]} must hold the same topics, got {len(lf)} and {len(ls)}")
    if isinstance(ft, dict) and isinstance(fs, dict):
        cs = [cs[ls.index(t)] for t in lf]
    for t, a, b in zip(lf, cf, cs):
        for arr, nm in ((a, names[0]), (b, names[1])):
            if arr.size < 2:
                raise ValueError(f"{nm} must hold at least 2 probes per topic, topic {t!r} has {arr.size}")
        if paired and a.size != b.size:
            raise ValueError(f"{names[0]} and {names[1]} must have the same number of probes per topic when "
                             f"paired, topic {t!r} has {a.size} and {b.size}")
        if not np.any(b != 0):
            raise ValueError(f"{names[1]} is identically 0 in topic {t!r}: the ratio's denominator has no "
                             "information")
    return lf, cf, cs
