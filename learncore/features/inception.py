"""The Inception-v3 network of the Frechet Inception Distance (Heusel et al. 2017), in the variant that
pytorch-fid documents as matching TensorFlow's FID graph, with its state-dict key names. The weights
are never downloaded: the user supplies the file."""
from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from .._torch import torch_generator
from ._base import _Extractor, spatial_pool
from ._checks import check_choice, check_layer, check_size

__all__ = ["InceptionV3FID"]

#: pytorch-fid's feature dimensions: 64 (first max pool), 192 (second max pool), 768 (Mixed_6e,
#: before the auxiliary classifier), 2048 (the final average pool, "pool3", the FID features)
LAYERS = ("pool1", "pool2", "mixed_6e", "pool3", "logits")


class _BasicConv2d(nn.Module):
    # keys .conv and .bn; TensorFlow's batch-norm epsilon 0.001
    def __init__(self, inp: int, out: int, **kwargs):
        super().__init__()
        self.conv = nn.Conv2d(inp, out, bias=False, **kwargs)
        self.bn = nn.BatchNorm2d(out, eps=0.001)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)), inplace=True)


def _avg_pool(x):
    # the FID graph's average pools do not count the zero padding (pytorch-fid: count_include_pad=False)
    return F.avg_pool2d(x, kernel_size=3, stride=1, padding=1, count_include_pad=False)


class _InceptionA(nn.Module):
    def __init__(self, inp: int, pool_features: int):
        super().__init__()
        self.branch1x1 = _BasicConv2d(inp, 64, kernel_size=1)
        self.branch5x5_1 = _BasicConv2d(inp, 48, kernel_size=1)
        self.branch5x5_2 = _BasicConv2d(48, 64, kernel_size=5, padding=2)
        self.branch3x3dbl_1 = _BasicConv2d(inp, 64, kernel_size=1)
        self.branch3x3dbl_2 = _BasicConv2d(64, 96, kernel_size=3, padding=1)
        self.branch3x3dbl_3 = _BasicConv2d(96, 96, kernel_size=3, padding=1)
        self.branch_pool = _BasicConv2d(inp, pool_features, kernel_size=1)

    def forward(self, x):
        return torch.cat([self.branch1x1(x), self.branch5x5_2(self.branch5x5_1(x)),
                          self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x))),
                          self.branch_pool(_avg_pool(x))], 1)


class _InceptionB(nn.Module):
    def __init__(self, inp: int):
        super().__init__()
        self.branch3x3 = _BasicConv2d(inp, 384, kernel_size=3, stride=2)
        self.branch3x3dbl_1 = _BasicConv2d(inp, 64, kernel_size=1)
        self.branch3x3dbl_2 = _BasicConv2d(64, 96, kernel_size=3, padding=1)
        self.branch3x3dbl_3 = _BasicConv2d(96, 96, kernel_size=3, stride=2)

    def forward(self, x):
        return torch.cat([self.branch3x3(x), self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x))),
                          F.max_pool2d(x, kernel_size=3, stride=2)], 1)


class _InceptionC(nn.Module):
    def __init__(self, inp: int, c7: int):
        super().__init__()
        self.branch1x1 = _BasicConv2d(inp, 192, kernel_size=1)
        self.branch7x7_1 = _BasicConv2d(inp, c7, kernel_size=1)
        self.branch7x7_2 = _BasicConv2d(c7, c7, kernel_size=(1, 7), padding=(0, 3))
        self.branch7x7_3 = _BasicConv2d(c7, 192, kernel_size=(7, 1), padding=(3, 0))
        self.branch7x7dbl_1 = _BasicConv2d(inp, c7, kernel_size=1)
        self.branch7x7dbl_2 = _BasicConv2d(c7, c7, kernel_size=(7, 1), padding=(3, 0))
        self.branch7x7dbl_3 = _BasicConv2d(c7, c7, kernel_size=(1, 7), padding=(0, 3))
        self.branch7x7dbl_4 = _BasicConv2d(c7, c7, kernel_size=(7, 1), padding=(3, 0))
        self.branch7x7dbl_5 = _BasicConv2d(c7, 192, kernel_size=(1, 7), padding=(0, 3))
        self.branch_pool = _BasicConv2d(inp, 192, kernel_size=1)

    def forward(self, x):
        b7 = self.branch7x7_3(self.branch7x7_2(self.branch7x7_1(x)))
        bd = x
        for i in range(1, 6):
            bd = getattr(self, f"branch7x7dbl_{i}")(bd)
        return torch.cat([self.branch1x1(x), b7, bd, self.branch_pool(_avg_pool(x))], 1)


class _InceptionD(nn.Module):
    def __init__(self, inp: int):
        super().__init__()
        self.branch3x3_1 = _BasicConv2d(inp, 192, kernel_size=1)
        self.branch3x3_2 = _BasicConv2d(192, 320, kernel_size=3, stride=2)
        self.branch7x7x3_1 = _BasicConv2d(inp, 192, kernel_size=1)
        self.branch7x7x3_2 = _BasicConv2d(192, 192, kernel_size=(1, 7), padding=(0, 3))
        self.branch7x7x3_3 = _BasicConv2d(192, 192, kernel_size=(7, 1), padding=(3, 0))
        self.branch7x7x3_4 = _BasicConv2d(192, 192, kernel_size=3, stride=2)

    def forward(self, x):
        b3 = self.branch3x3_2(self.branch3x3_1(x))
        b7 = self.branch7x7x3_4(self.branch7x7x3_3(self.branch7x7x3_2(self.branch7x7x3_1(x))))
        return torch.cat([b3, b7, F.max_pool2d(x, kernel_size=3, stride=2)], 1)


class _InceptionE(nn.Module):
    """``max_pool``: the last block of the FID graph pools its branch_pool input by a 3x3 max pool
    (pytorch-fid's FIDInceptionE_2, a quirk of TensorFlow's graph), the one before by the average."""

    def __init__(self, inp: int, *, max_pool: bool):
        super().__init__()
        self.max_pool = max_pool
        self.branch1x1 = _BasicConv2d(inp, 320, kernel_size=1)
        self.branch3x3_1 = _BasicConv2d(inp, 384, kernel_size=1)
        self.branch3x3_2a = _BasicConv2d(384, 384, kernel_size=(1, 3), padding=(0, 1))
        self.branch3x3_2b = _BasicConv2d(384, 384, kernel_size=(3, 1), padding=(1, 0))
        self.branch3x3dbl_1 = _BasicConv2d(inp, 448, kernel_size=1)
        self.branch3x3dbl_2 = _BasicConv2d(448, 384, kernel_size=3, padding=1)
        self.branch3x3dbl_3a = _BasicConv2d(384, 384, kernel_size=(1, 3), padding=(0, 1))
        self.branch3x3dbl_3b = _BasicConv2d(384, 384, kernel_size=(3, 1), padding=(1, 0))
        self.branch_pool = _BasicConv2d(inp, 192, kernel_size=1)

    def forward(self, x):
        b3 = self.branch3x3_1(x)
        b3 = torch.cat([self.branch3x3_2a(b3), self.branch3x3_2b(b3)], 1)
        bd = self.branch3x3dbl_2(self.branch3x3dbl_1(x))
        bd = torch.cat([self.branch3x3dbl_3a(bd), self.branch3x3dbl_3b(bd)], 1)
        pooled = F.max_pool2d(x, kernel_size=3, stride=1, padding=1) if self.max_pool else _avg_pool(x)
        return torch.cat([self.branch1x1(x), b3, bd, self.branch_pool(pooled)], 1)


class InceptionV3FID(_Extractor):
    """The Inception-v3 of the FID (TensorFlow's 2015-12-05 graph as ported by pytorch-fid), weights from a file.

    The architecture and state-dict key names are those of pytorch-fid's ``fid_inception_v3``
    (torchvision's Inception-v3 without the auxiliary classifier, a 1008-class ``fc``, and the FID
    graph's blocks: average pools that do not count padding in Mixed_5b-5d, 6b-6e and 7b, a max pool
    in Mixed_7c's pooling branch), so its weights file ``pt_inception-2015-12-05-6726825d.pth``
    (about 95 MB, from pytorch-fid's release page; learncore never downloads it) loads strictly.
    ``forward`` takes a float batch in [0, 1], resizes it to 299 x 299 by bilinear interpolation
    when it has another size (``resize_input``, pytorch-fid's default; :func:`extract` normally
    resizes first, with the method it is told), scales it to [-1, 1] and returns ``layer``:
    ``"pool1"`` (64), ``"pool2"`` (192), ``"mixed_6e"`` (768), ``"pool3"`` (the 2048 FID features)
    or ``"logits"`` (1008).

    Parameters
    ----------
    weights : str, path, mapping or None
        The state-dict file (or a state dict) with pytorch-fid's key names; None gives a random
        initialisation from ``seed`` (He-normal weights; for tests and for a random-Inception baseline). Strict: missing,
        unexpected or mis-shaped keys raise a ValueError that lists them (BatchNorm's
        ``num_batches_tracked`` counters, absent from files saved before PyTorch 0.4.1, are tolerated).
    layer : {"pool3", "pool1", "pool2", "mixed_6e", "logits"}, default "pool3"
        Which activations ``forward`` returns; intermediate maps are averaged over space
        (``pooling="mean"``, pytorch-fid's choice) or flattened.
    input_size : int or (int, int), default 299
        The size :func:`extract` resizes images to.
    resize_input : bool, default True
        Resize a batch of another size to 299 x 299 inside ``forward`` (bilinear, no antialiasing,
        as pytorch-fid).
    pooling : {"mean", "flatten"}, default "mean"
        How an intermediate layer's maps become a vector.
    seed : None, int or numpy.random.Generator, optional
        The random initialisation when ``weights`` is None.

    References
    ----------
    Heusel, Ramsauer, Unterthiner, Nessler & Hochreiter (2017). GANs trained by a two time-scale
    update rule converge to a local Nash equilibrium. NeurIPS. Szegedy et al. (2016). Rethinking the
    Inception architecture for computer vision. CVPR. pytorch-fid's documentation of its FID
    Inception (https://github.com/mseitzer/pytorch-fid), the key names and block variants followed.

    Examples
    --------
    >>> import torch
    >>> from learncore.features import InceptionV3FID
    >>> net = InceptionV3FID(weights=None, seed=0, layer="pool2")
    >>> net(torch.rand(1, 3, 75, 75)).shape
    torch.Size([1, 192])
    """

    def __init__(self, *, weights: Any, layer: str = "pool3", input_size: Any = 299, resize_input: bool = True,
                 pooling: str = "mean", seed: Any = None):
        super().__init__()
        self.layer = check_layer(layer, "layer", LAYERS)
        self.pooling = check_choice(pooling, "pooling", ("mean", "flatten"))
        self.input_size = check_size(input_size, "input_size")
        if not isinstance(resize_input, bool):
            raise TypeError(f"resize_input must be True or False, got {type(resize_input).__name__}")
        self.resize_input = resize_input
        self.Conv2d_1a_3x3 = _BasicConv2d(3, 32, kernel_size=3, stride=2)
        self.Conv2d_2a_3x3 = _BasicConv2d(32, 32, kernel_size=3)
        self.Conv2d_2b_3x3 = _BasicConv2d(32, 64, kernel_size=3, padding=1)
        self.Conv2d_3b_1x1 = _BasicConv2d(64, 80, kernel_size=1)
        self.Conv2d_4a_3x3 = _BasicConv2d(80, 192, kernel_size=3)
        self.Mixed_5b = _InceptionA(192, pool_features=32)
        self.Mixed_5c = _InceptionA(256, pool_features=64)
        self.Mixed_5d = _InceptionA(288, pool_features=64)
        self.Mixed_6a = _InceptionB(288)
        self.Mixed_6b = _InceptionC(768, c7=128)
        self.Mixed_6c = _InceptionC(768, c7=160)
        self.Mixed_6d = _InceptionC(768, c7=160)
        self.Mixed_6e = _InceptionC(768, c7=192)
        self.Mixed_7a = _InceptionD(768)
        self.Mixed_7b = _InceptionE(1280, max_pool=False)
        self.Mixed_7c = _InceptionE(2048, max_pool=True)
        self.fc = nn.Linear(2048, 1008)
        self._load_or_init(weights, seed)

    def _random_init(self, rng) -> None:
        g = torch_generator(rng)
        with torch.no_grad():
            for m in self.modules():
                if isinstance(m, (nn.Conv2d, nn.Linear)):  # He normal (fan in): activations keep their scale
                    m.weight.normal_(0.0, math.sqrt(2.0 / (m.weight[0].numel())), generator=g)
                    if getattr(m, "bias", None) is not None:
                        m.bias.zero_()
                elif isinstance(m, nn.BatchNorm2d):
                    m.weight.fill_(1.0)
                    m.bias.zero_()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.resize_input and tuple(x.shape[-2:]) != (299, 299):
            x = F.interpolate(x, size=(299, 299), mode="bilinear", align_corners=False)
        h = 2.0 * x - 1.0
        h = self.Conv2d_2b_3x3(self.Conv2d_2a_3x3(self.Conv2d_1a_3x3(h)))
        h = F.max_pool2d(h, kernel_size=3, stride=2)
        if self.layer == "pool1":
            return spatial_pool(h, self.pooling)
        h = F.max_pool2d(self.Conv2d_4a_3x3(self.Conv2d_3b_1x1(h)), kernel_size=3, stride=2)
        if self.layer == "pool2":
            return spatial_pool(h, self.pooling)
        for name in ("Mixed_5b", "Mixed_5c", "Mixed_5d", "Mixed_6a", "Mixed_6b", "Mixed_6c", "Mixed_6d", "Mixed_6e"):
            h = getattr(self, name)(h)
        if self.layer == "mixed_6e":
            return spatial_pool(h, self.pooling)
        h = self.Mixed_7c(self.Mixed_7b(self.Mixed_7a(h))).mean(dim=(2, 3))
        return h if self.layer == "pool3" else self.fc(h)
