"""learncore's torch helpers: one way from statcore's ``seed`` to a ``torch.Generator``.

Imported by the torch-using subpackages only (``import learncore`` alone does not import torch).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import torch
from statcore.utils import check_seed

__all__ = ["torch_generator"]


def torch_generator(seed: Any, device: torch.device | str = "cpu") -> torch.Generator:
    """``seed`` (None, a non-negative int, a ``torch.Generator``, a numpy ``Generator`` or
    ``SeedSequence``) to one ``torch.Generator``. An int seeds the generator directly, so
    ``seed=s`` draws the stream ``torch.manual_seed(s)`` would; a torch Generator is used as it is."""
    if isinstance(seed, torch.Generator):
        return seed
    if seed is None or isinstance(seed, (np.random.Generator, np.random.SeedSequence)):
        seed = int(check_seed(seed).integers(0, 2**63 - 1))
    else:
        check_seed(seed)  # the naming-table checks: non-negative int, no RandomState, no other types
        seed = int(seed)
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    return gen
