"""What every extractor shares: an ``nn.Module`` mapping a float32 (N, 3, H, W) batch with values in
[0, 1] to an (N, d) feature matrix, with the input size it expects and its layer's name."""
from __future__ import annotations

import torch
from torch import nn

from ._checks import check_seed, load_state_dict_strict


class _Extractor(nn.Module):
    """Base of the extractors: ``input_size`` ((height, width) or None for any size), ``layer``
    (the name of the features returned) and ``forward(x)`` -> (N, d). Always in evaluation mode."""

    input_size: tuple[int, int] | None = None
    layer: str = ""

    def train(self, mode: bool = True):  # an extractor never leaves evaluation mode (BatchNorm statistics)
        return super().train(False)

    def _load_or_init(self, weights, seed) -> None:
        """Load a state dict strictly (``weights`` not None) or draw the subclass's
        ``_random_init(rng)`` from ``seed``; then evaluation mode and no gradients."""
        if weights is None:
            self._random_init(check_seed(seed))
        else:
            load_state_dict_strict(self, weights, "weights")
        self.eval()
        for p in self.parameters():
            p.requires_grad_(False)

    def extra_repr(self) -> str:
        return f"layer={self.layer!r}, input_size={self.input_size}"


def spatial_pool(h: torch.Tensor, pooling: str) -> torch.Tensor:
    """(N, C, H, W) -> (N, C) by the spatial mean, or (N, C*H*W) flattened; (N, d) stays."""
    if h.dim() == 2:
        return h
    if pooling == "mean":
        return h.mean(dim=(2, 3))
    return h.flatten(1)
