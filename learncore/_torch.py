"""learncore's torch helpers: one way from statcore's ``seed`` to torch's random streams.

- :func:`torch_generator`: ``seed`` -> one ``torch.Generator`` (for every draw learncore makes itself);
- :func:`torch_seeded`: a block in which torch's global generator is seeded from ``seed`` and restored
  afterwards (for what draws from the global generator only, such as ``torch.nn`` layers' initialisation);
- :func:`module_dtype`: the floating dtype a module computes in.

A numpy ``Generator`` passed as ``seed`` gives one 63-bit integer drawn from it, so a function that
holds statcore's one ``Generator`` (``check_seed(seed)``) derives its torch streams from it. Imported
by the torch-using subpackages only (``import learncore`` alone does not import torch).
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

import numpy as np
import torch
from statcore.utils import check_seed

__all__ = ["torch_generator", "torch_seeded", "module_dtype"]


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


@contextmanager
def torch_seeded(seed: Any) -> Iterator[None]:
    """A block in which torch's global CPU generator is seeded as :func:`torch_generator` seeds a
    generator (an int ``s``: ``torch.manual_seed(s)``; a numpy Generator: one integer drawn from it),
    and restored on leaving, so that what it draws is a function of ``seed`` alone."""
    seed = torch_generator(seed).initial_seed()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield


def module_dtype(module: torch.nn.Module) -> torch.dtype:
    """The dtype of a module's first floating parameter or buffer (torch's default dtype if none)."""
    for t in list(module.parameters()) + list(module.buffers()):
        if torch.is_floating_point(t):
            return t.dtype
    return torch.get_default_dtype()
