"""learncore.moe's input door: torch tensors of tokens, probabilities and labels.

The scalar checks are statcore's (``statcore.utils``); nothing here modifies its input.
"""
from __future__ import annotations

from typing import Any

import torch
from statcore.utils import check_choice, check_positive_int, check_positive_real  # noqa: F401

__all__ = ["as_float_tensor", "as_index_tensor", "check_fraction", "check_bool"]


def as_float_tensor(x: Any, name: str, *, ndim: tuple[int, ...] | None = None, last: int | None = None,
                    what: str = "") -> torch.Tensor:
    """A finite floating torch tensor with ``ndim`` in the allowed set and last dimension ``last``."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a floating torch tensor{what and ' ' + what}, got {type(x).__name__}")
    if not torch.is_floating_point(x):
        raise TypeError(f"{name} must be a floating torch tensor, got dtype {x.dtype}")
    if ndim is not None and x.dim() not in ndim:
        raise ValueError(f"{name} must have {' or '.join(map(str, ndim))} dimensions{what and ' ' + what}, got "
                         f"shape {tuple(x.shape)}")
    if x.numel() == 0:
        raise ValueError(f"{name} is empty (shape {tuple(x.shape)})")
    if last is not None and x.shape[-1] != last:
        raise ValueError(f"{name} must have {last} entries in its last dimension, got shape {tuple(x.shape)}")
    with torch.no_grad():
        bad = ~torch.isfinite(x)
        if bool(bad.any()):
            raise ValueError(f"{name} has {int(bad.sum())} non-finite value(s) (NaN or inf) of {x.numel()}")
    return x


def as_index_tensor(x: Any, name: str, *, upper: int, shape: tuple[int, ...] | None = None) -> torch.Tensor:
    """An integer torch tensor with entries in 0..upper-1 (and, if given, the leading ``shape``)."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be an integer torch tensor, got {type(x).__name__}")
    if torch.is_floating_point(x) or torch.is_complex(x) or x.dtype == torch.bool:
        raise TypeError(f"{name} must be an integer torch tensor, got dtype {x.dtype}")
    if shape is not None and tuple(x.shape[:len(shape)]) != tuple(shape):
        raise ValueError(f"{name} must have leading shape {tuple(shape)}, got {tuple(x.shape)}")
    if x.numel() and (int(x.min()) < 0 or int(x.max()) >= upper):
        raise ValueError(f"{name} must hold indices in 0..{upper - 1}, got the range "
                         f"[{int(x.min())}, {int(x.max())}]")
    return x


def check_fraction(x: Any, name: str) -> float:
    """A real number in (0, 1]."""
    if isinstance(x, bool) or not isinstance(x, (int, float)) or hasattr(x, "__len__"):
        raise TypeError(f"{name} must be a real number in (0, 1], got {type(x).__name__}")
    x = float(x)
    if not 0.0 < x <= 1.0:
        raise ValueError(f"{name} must lie in (0, 1], got {x}")
    return x


def check_bool(x: Any, name: str) -> bool:
    if not isinstance(x, bool):
        raise TypeError(f"{name} must be True or False, got {type(x).__name__}")
    return x
