"""Validators of statcore.uncertainty (the one input door: errors name the argument)."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .core import *  # noqa: F401,F403  (the generic checks every topic builds on)

__all__ = ["as_hidden_matrix", "as_hidden_stack", "as_logit_matrix", "check_renyi_order", "check_top_k"]


def as_hidden_matrix(H: Any, name: str = "H") -> np.ndarray:
    """A finite float64 (T, d) matrix of T >= 1 hidden-state rows of d >= 1 features."""
    arr = as_float_array(H, name)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-dimensional (T, d) matrix (one row per token), got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} has no rows (T = 0 tokens); pass at least one hidden-state row")
    if arr.shape[1] == 0:
        raise ValueError(f"{name} has no columns (d = 0 features)")
    return arr


def as_hidden_stack(hidden_states: Any, name: str = "hidden_states") -> np.ndarray:
    """Per-layer hidden states as a finite float64 (L, T, d) array: a 3-D array, a sequence of L
    (T, d) matrices of the same shape, or one (T, d) matrix (one layer)."""
    if isinstance(hidden_states, (list, tuple)):
        if not hidden_states:
            raise ValueError(f"{name} is empty; pass one (T, d) matrix per layer")
        layers = [as_float_array(h, f"{name}[{i}]") for i, h in enumerate(hidden_states)]
        shapes = {h.shape for h in layers}
        if len(shapes) > 1 or layers[0].ndim != 2:
            raise ValueError(f"{name} must hold (T, d) matrices of one shape, one per layer; got shapes "
                             f"{sorted(shapes)}")
        arr = np.stack(layers)
    else:
        arr = as_float_array(hidden_states, name)
        if arr.ndim == 2:
            arr = arr[None]
    if arr.ndim != 3:
        raise ValueError(f"{name} must be (L, T, d): layers, tokens, features (or one (T, d) matrix), "
                         f"got shape {arr.shape}")
    if 0 in arr.shape:
        what = ("L = 0 layers", "T = 0 tokens", "d = 0 features")[arr.shape.index(0)]
        raise ValueError(f"{name} has {what} (shape {arr.shape}); pass at least one of each")
    return arr


def as_logit_matrix(logits: Any, name: str = "logits") -> np.ndarray:
    """Finite float64 (T, V) logits: one row per generated token over a vocabulary of V >= 2."""
    arr = as_float_array(logits, name)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-dimensional (T, V) matrix (one row of vocabulary logits per "
                         f"token), got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} has no rows (T = 0 tokens); pass the logits of at least one token")
    if arr.shape[1] < 2:
        raise ValueError(f"{name} needs a vocabulary of at least 2 tokens (columns), got {arr.shape[1]}")
    return arr


def check_renyi_order(alpha: Any, name: str = "order") -> float:
    """The order of a Renyi entropy: a positive real number or infinity (1 gives von Neumann's)."""
    if isinstance(alpha, (bool, np.bool_)) or not isinstance(alpha, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a positive number (the Renyi order), got {type(alpha).__name__}")
    a = float(alpha)
    if math.isnan(a) or a <= 0:
        raise ValueError(f"{name} must be a positive Renyi order (1 gives the von Neumann entropy, "
                         f"math.inf the min-entropy), got {alpha!r}")
    return a


def check_top_k(k: Any, V: int, name: str = "k") -> int:
    """A number of top logits between 2 and the vocabulary size V."""
    k = check_positive_int(k, name, minimum=2)
    if k > V:
        raise ValueError(f"{name}={k} is larger than the vocabulary ({V} logit columns); pass k <= {V}")
    return k
