"""learncore.features' input door: images, layer names and weight sources.

The scalar checks are statcore's (``statcore.utils``). Nothing here modifies its input: an image
batch is copied into a new float32 tensor before anything else touches it.
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from statcore.utils import check_choice, check_positive_int, check_seed  # noqa: F401

__all__ = ["as_image_batch", "image_list", "check_size", "load_state_dict_strict", "check_layer"]


def _kind_error(x: Any, name: str, what: str) -> TypeError:
    return TypeError(f"{name} must be {what}, got {type(x).__name__}")


def _to_unit_float(arr: np.ndarray, name: str) -> np.ndarray:
    """uint8 levels / 255, or floats checked to lie in [0, 1] (never clipped)."""
    if arr.dtype == np.uint8:
        return arr.astype(np.float32) / np.float32(255.0)
    if arr.dtype.kind in "iu":
        raise TypeError(f"{name} has integer dtype {arr.dtype}: give uint8 images (0..255) or floats in [0, 1]")
    if arr.dtype.kind != "f":
        raise TypeError(f"{name} must hold uint8 or floating pixel values, got dtype {arr.dtype}")
    bad = ~np.isfinite(arr)
    if bad.any():
        raise ValueError(f"{name} has {int(bad.sum())} non-finite pixel value(s) (NaN or inf) of {arr.size}")
    lo, hi = float(arr.min()), float(arr.max())
    if lo < 0.0 or hi > 1.0:
        raise ValueError(f"{name}: floating pixel values must lie in [0, 1] (uint8 images may hold 0..255), "
                         f"got the range [{lo:.4g}, {hi:.4g}]; rescale them, nothing is clipped")
    return arr.astype(np.float32)


def _channels_first(arr: np.ndarray, name: str, layout: str) -> np.ndarray:
    """(H, W), (H, W, C) or (C, H, W) -> (3, H, W); grayscale is repeated on three channels."""
    if arr.ndim == 2:
        arr = arr[None]
    elif arr.ndim == 3:
        if layout == "last":
            arr = np.moveaxis(arr, -1, 0)
    else:
        raise ValueError(f"{name}: each image must have 2 or 3 dimensions, got shape {arr.shape}")
    c = arr.shape[0]
    if c == 1:
        arr = np.repeat(arr, 3, axis=0)
    elif c == 4:
        raise ValueError(f"{name}: images with 4 channels (RGBA?) are refused: drop or composite the alpha "
                         "channel first")
    elif c != 3:
        raise ValueError(f"{name}: images must have 1 or 3 channels, got {c} (channels are the "
                         f"{'last' if layout == 'last' else 'first'} axis here; see the `channels` argument)")
    if arr.shape[1] < 1 or arr.shape[2] < 1:
        raise ValueError(f"{name}: an image has an empty side, shape {arr.shape}")
    return arr


def image_list(images: Any, name: str = "images", *, channels: str | None = None) -> list[np.ndarray]:
    """Images as a list of float32 (3, H, W) arrays with values in [0, 1] (copies).

    ``images``: a numpy array (N, H, W, C) / (N, H, W) (channels last), a torch tensor (N, C, H, W) /
    (N, H, W) (channels first), or a sequence of single images (numpy arrays, tensors or PIL images)
    that may differ in size. ``channels`` ("last" or "first") overrides the layout of the container.
    """
    if images is None or isinstance(images, (str, bytes, Mapping)):
        raise _kind_error(images, name, "an array or tensor of images, or a sequence of images")
    if channels is not None:
        channels = check_choice(channels, "channels", ("last", "first"))
    if isinstance(images, torch.Tensor):
        layout = channels or "first"
        arr = images.detach().cpu().numpy()
        return _batch_list(arr, name, layout)
    if isinstance(images, np.ndarray):
        return _batch_list(images, name, channels or "last")
    if isinstance(images, Sequence) or hasattr(images, "__iter__"):
        out = []
        for i, im in enumerate(images):
            label = f"{name}[{i}]"
            if isinstance(im, torch.Tensor):
                arr, layout = im.detach().cpu().numpy(), channels or "first"
            elif isinstance(im, np.ndarray):
                arr, layout = im, channels or "last"
            elif hasattr(im, "getbands"):  # a PIL image
                arr, layout = np.asarray(im.convert("RGB") if im.mode not in ("L", "RGB", "F") else im), "last"
            else:
                raise _kind_error(im, label, "an image (numpy array, tensor or PIL image)")
            out.append(_channels_first(_to_unit_float(np.asarray(arr), label), label, layout))
        if not out:
            raise ValueError(f"{name} is empty: give at least one image")
        return out
    raise _kind_error(images, name, "an array or tensor of images, or a sequence of images")


def _batch_list(arr: np.ndarray, name: str, layout: str) -> list[np.ndarray]:
    if arr.ndim not in (3, 4):
        raise ValueError(f"{name} must be a batch of images with 3 (N, H, W) or 4 dimensions "
                         f"({'N, H, W, C' if layout == 'last' else 'N, C, H, W'}), got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty: give at least one image")
    arr = _to_unit_float(arr, name)
    return [_channels_first(a, name, layout) for a in arr]


def check_size(size: Any, name: str) -> tuple[int, int] | None:
    """None, an int or an (height, width) pair of positive ints."""
    if size is None:
        return None
    if isinstance(size, (int, np.integer)) and not isinstance(size, bool):
        s = check_positive_int(size, name)
        return (s, s)
    if isinstance(size, (tuple, list)) and len(size) == 2:
        return (check_positive_int(size[0], name), check_positive_int(size[1], name))
    raise _kind_error(size, name, "None, a positive int or a (height, width) pair")


def check_layer(layer: Any, name: str, layers: Sequence[str]) -> str:
    if not isinstance(layer, str):
        raise _kind_error(layer, name, f"one of the layer names {list(layers)}")
    if layer not in layers:
        raise ValueError(f"{name}={layer!r} is not a layer of this network; choose one of {list(layers)}")
    return layer


def _read_state_dict(source: Any, name: str) -> Mapping:
    if isinstance(source, Mapping):
        return source
    if not isinstance(source, (str, os.PathLike)):
        raise _kind_error(source, name, "a path to a state-dict file or a state dict (mapping of tensors)")
    path = Path(source)
    if not path.is_file():
        raise ValueError(f"{name}: no file at {str(path)!r}")
    try:
        obj = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # a file that is not a torch state dict (or not a safe one)
        raise ValueError(f"{name}: {str(path)!r} is not a readable PyTorch state-dict file "
                         f"({type(exc).__name__}: {str(exc)[:200]})") from None
    if isinstance(obj, Mapping) and "state_dict" in obj and isinstance(obj["state_dict"], Mapping):
        obj = obj["state_dict"]
    if not isinstance(obj, Mapping) or not all(isinstance(v, torch.Tensor) for v in obj.values()):
        raise ValueError(f"{name}: {str(path)!r} does not hold a state dict (a mapping of names to tensors)")
    return obj


def load_state_dict_strict(module: torch.nn.Module, source: Any, name: str = "weights") -> None:
    """Load ``source`` into ``module`` with strict key and shape matching, or raise a ValueError that
    lists the missing, unexpected and mis-shaped keys.

    The one tolerance: BatchNorm's ``num_batches_tracked`` counters, which files saved before PyTorch
    0.4.1 (the ported FID Inception weights among them) do not hold and which evaluation never reads.
    """
    state = _read_state_dict(source, name)
    own = module.state_dict()
    missing = [k for k in own if k not in state and not k.endswith("num_batches_tracked")]
    unexpected = [k for k in state if k not in own]
    shapes = [f"{k}: file {tuple(state[k].shape)} vs network {tuple(own[k].shape)}"
              for k in own if k in state and tuple(state[k].shape) != tuple(own[k].shape)]
    if missing or unexpected or shapes:
        parts = []
        for label, keys in (("missing keys", missing), ("unexpected keys", unexpected), ("shape mismatches", shapes)):
            if keys:
                parts.append(f"{len(keys)} {label} (e.g. {', '.join(keys[:4])})")
        raise ValueError(f"{name}: the state dict does not match {type(module).__name__}: " + "; ".join(parts)
                         + ". Is this the right weights file for this network?")
    full = dict(state)
    for k in own:
        if k not in full:  # num_batches_tracked only
            full[k] = own[k]
    with torch.no_grad():
        module.load_state_dict(full, strict=True)
