"""Validators of statcore.protocols' information-discernment functions (the one input door: errors name
the argument)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .arrays import as_float_array
from .clustered import as_cluster_codes

__all__ = ["as_advice_arrays", "as_discern_data"]


def as_advice_arrays(prior: Any, posterior: Any, claim: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Prior, posterior and claim as float arrays of one shape (scalars broadcast), with no claim equal
    to its prior (the weight of advice is 0/0 or x/0 there)."""
    arrs = {}
    for name, v in (("prior", prior), ("posterior", posterior), ("claim", claim)):
        a = as_float_array(v, name, allow_nan=True)
        if a.size == 0:
            raise ValueError(f"{name} is empty; pass at least one trial")
        if np.isinf(a).any():
            raise ValueError(f"{name} contains infinite values; beliefs and claims must be finite numbers")
        arrs[name] = a
    shapes = {k: a.shape for k, a in arrs.items() if a.ndim > 0}
    if len(set(shapes.values())) > 1:
        raise ValueError("prior, posterior and claim must have one shape (one value per trial; a scalar is "
                         "repeated), got shapes " + ", ".join(f"{k} {v}" for k, v in shapes.items()))
    shape = next(iter(shapes.values())) if shapes else ()
    p, q, c = (np.broadcast_to(arrs[k], shape) for k in ("prior", "posterior", "claim"))
    same = (c == p)
    if same.any():
        i = int(np.flatnonzero(same.ravel())[0])
        raise ValueError(f"claim equals prior in {int(same.sum())} trial(s) (first at position {i}, value "
                         f"{c.ravel()[i]:g}): the weight of advice (posterior - prior) / (claim - prior) is "
                         "undefined there; drop those trials (a claim that repeats the prior carries no advice)")
    return p, q, c


def as_discern_data(woa: Any, reliability: Any, improvement: Any, popularity: Any, cluster: Any,
                    nan_policy: str) -> tuple[dict, np.ndarray, int, np.ndarray | None]:
    """The four trial vectors of :func:`statcore.discernment` (one value per trial, finite; NaN rows
    raised or omitted) and the cluster codes. Returns (arrays, codes, n_clusters, kept)."""
    arrays = {}
    n = None
    for name, v in (("woa", woa), ("reliability", reliability), ("improvement", improvement),
                    ("popularity", popularity)):
        a = as_float_array(v, name, allow_nan=True)
        if a.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional (one value per trial), got shape {a.shape}")
        if np.isinf(a).any():
            raise ValueError(f"{name} contains infinite values; pass finite numbers")
        if n is None:
            n = a.shape[0]
        elif a.shape[0] != n:
            raise ValueError(f"{name} has {a.shape[0]} values but woa has {n}; pass one value per trial")
        arrays[name] = a
    kept = None
    nan = np.zeros(n, bool)
    for name, a in arrays.items():
        bad = np.isnan(a)
        if bad.any():
            if nan_policy == "raise":
                raise ValueError(f"{name} contains NaN ({int(bad.sum())} value{'s' if bad.sum() != 1 else ''}); "
                                 'pass nan_policy="omit" to drop the trials holding one')
            nan |= bad
    if cluster is None or isinstance(cluster, (str, bytes, dict)) or np.ndim(cluster) == 0:
        raise TypeError(f"cluster must be a vector of labels (the question of each trial), got "
                        f"{type(cluster).__name__}")
    if np.shape(cluster)[0] != n:
        raise ValueError(f"cluster has {np.shape(cluster)[0]} labels but woa has {n}; pass the question of each trial")
    if nan.any():
        kept = ~nan
        arrays = {k: a[kept] for k, a in arrays.items()}
        cluster = np.asarray(cluster)[kept]
        n = int(kept.sum())
    if n < 4:
        raise ValueError(f"woa must hold at least 4 trials, got {n}")
    codes, J = as_cluster_codes(cluster, n, None, "cluster")
    if J < 3:
        raise ValueError(f"cluster has {J} questions; the cluster bootstrap and CR2 errors need at least 3")
    for name, a in arrays.items():
        if np.all(a == a[0]):
            raise ValueError(f"{name} is constant; its Spearman correlation with the weight of advice is undefined")
    return arrays, codes, J, kept
