"""Two baseline extractors without pretrained weights: the raw pixels and a seeded random CNN."""
from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from .._torch import torch_generator
from ._base import _Extractor
from ._checks import check_positive_int, check_seed, check_size

__all__ = ["RawPixels", "RandomCNN"]


class RawPixels(_Extractor):
    """The pixels themselves as features: a batch (N, 3, H, W) in [0, 1] becomes (N, 3 H W).

    The baseline that any learned embedding has to beat; at patch sizes it is also what classical
    two-sample statistics see. Grayscale images are repeated on three channels by :func:`extract`,
    so their raw-pixel features hold each value three times (set ``grayscale=True`` to keep one).

    Parameters
    ----------
    input_size : None, int or (int, int), optional
        The size :func:`extract` resizes images to; None keeps their size (then all images must
        share one).
    grayscale : bool, default False
        Average the three channels into one (features of length H W).

    References
    ----------
    Theis, van den Oord & Bethge (2016). A note on the evaluation of generative models. ICLR (why
    pixel-space distances are a baseline, not a perceptual metric).

    Examples
    --------
    >>> import torch
    >>> from learncore.features import RawPixels
    >>> RawPixels()(torch.zeros(2, 3, 4, 4)).shape
    torch.Size([2, 48])
    """

    def __init__(self, *, input_size: Any = None, grayscale: bool = False):
        super().__init__()
        self.input_size = check_size(input_size, "input_size")
        if not isinstance(grayscale, bool):
            raise TypeError(f"grayscale must be True or False, got {type(grayscale).__name__}")
        self.grayscale = grayscale
        self.layer = "pixels"

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (x.mean(dim=1) if self.grayscale else x).flatten(1)


class RandomCNN(_Extractor):
    """A convolutional network with random, never trained weights, drawn from ``seed``.

    ``depth`` blocks of a 3 x 3 convolution with stride 2 and a ReLU, the channels doubling from
    ``width``; the features are the spatial means of the last block's maps (``width * 2**(depth-1)``
    of them). Weights are He-normal (fan in), biases zero, so activations keep their scale through
    the blocks. Random embeddings are the domain-agnostic baseline of Naeem et al. (2020, Sec. 5):
    they carry no ImageNet bias, and comparing a ranking under them with one under a trained network
    shows how much the ranking owes to the trained features.

    Parameters
    ----------
    seed : None, int or numpy.random.Generator, default 0
        The weights (same seed, same network).
    width : int, default 32
        Channels of the first block.
    depth : int, default 4
        Number of blocks (each halves the spatial size; images must have at least ``2**depth``
        pixels a side after resizing).
    input_size : None, int or (int, int), optional
        The size :func:`extract` resizes images to; None keeps their size.

    References
    ----------
    Naeem, Oh, Uh, Choi & Yoo (2020). Reliable fidelity and diversity metrics for generative
    models. ICML (random embeddings, Sec. 5). He, Zhang, Ren & Sun (2015). Delving deep into
    rectifiers. ICCV (the initialisation).

    Examples
    --------
    >>> import torch
    >>> from learncore.features import RandomCNN
    >>> net = RandomCNN(seed=0, width=8, depth=3)
    >>> net(torch.rand(2, 3, 32, 32)).shape
    torch.Size([2, 32])
    """

    def __init__(self, *, seed: Any = 0, width: int = 32, depth: int = 4, input_size: Any = None):
        super().__init__()
        width = check_positive_int(width, "width")
        depth = check_positive_int(depth, "depth")
        self.input_size = check_size(input_size, "input_size")
        self.layer = f"block{depth}"
        rng = check_seed(seed)
        g = torch_generator(rng)
        convs, inp = [], 3
        for i in range(depth):
            out = width * 2**i
            conv = nn.Conv2d(inp, out, kernel_size=3, stride=2, padding=1)
            with torch.no_grad():
                conv.weight.normal_(0.0, math.sqrt(2.0 / (inp * 9)), generator=g)
                conv.bias.zero_()
            conv.weight.requires_grad_(False)
            conv.bias.requires_grad_(False)
            convs.append(conv)
            inp = out
        self.convs = nn.ModuleList(convs)
        self.eval()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = 2.0 * x - 1.0
        for conv in self.convs:
            h = F.relu(conv(h))
        return h.mean(dim=(2, 3))
