"""learncore.bayes' input door: the optimizers' parameters, hyperparameters and batches.

The scalar checks are statcore's (``statcore.utils``); nothing here modifies its input.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch
from statcore.utils import check_probability

__all__ = ["check_beta", "check_params", "check_batch"]


def check_beta(x: Any, name: str) -> float:
    """A momentum in [0, 1)."""
    return check_probability(x, name, open_left=False, open_right=True)


def check_params(params: Any) -> list:
    """``params`` of an optimizer: a non-empty iterable of tensors or of parameter-group dicts."""
    if params is None or isinstance(params, (str, bytes, torch.Tensor, Mapping)):
        raise TypeError("params must be an iterable of tensors or of parameter-group dicts, such as "
                        f"model.parameters(); got {type(params).__name__}")
    try:
        params = list(params)
    except TypeError:
        raise TypeError("params must be an iterable of tensors or of parameter-group dicts, such as "
                        f"model.parameters(); got {type(params).__name__}") from None
    if not params:
        raise ValueError("params is empty: pass the parameters to learn, such as model.parameters()")
    for p in params:
        if not isinstance(p, (torch.Tensor, Mapping)):
            raise TypeError(f"params must hold tensors or parameter-group dicts; found {type(p).__name__}")
    return params


def check_batch(batch: Any) -> tuple | None:
    if batch is None:
        return None
    if not isinstance(batch, (tuple, list)) or len(batch) != 4:
        raise TypeError("batch must be a tuple (model, loss_fn, x, y)")
    model, loss_fn = batch[0], batch[1]
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"batch[0] must be the torch.nn.Module being trained, got {type(model).__name__}")
    if not callable(loss_fn):
        raise TypeError(f"batch[1] must be the loss function loss_fn(model(x), y), got {type(loss_fn).__name__}")
    return tuple(batch)
