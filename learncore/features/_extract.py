"""extract(): images -> a feature matrix, with the resizing and quantisation steps of the pipeline
explicit and selectable (Parmar, Zhang & Zhu 2022, clean-fid)."""
from __future__ import annotations

import sys
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ._checks import check_choice, check_positive_int, image_list

__all__ = ["extract", "RESIZE_METHODS"]

#: PIL resamplers (applied per channel on float32 images, Pillow mode "F", so nothing is rounded to
#: 8 bits unless ``quantize`` says so) and torch.nn.functional.interpolate modes
_PIL = {"pil_bicubic": "BICUBIC", "pil_bilinear": "BILINEAR", "pil_lanczos": "LANCZOS", "pil_box": "BOX",
        "pil_nearest": "NEAREST"}
_TORCH = {"torch_bilinear": "bilinear", "torch_bicubic": "bicubic", "torch_area": "area", "torch_nearest": "nearest"}
RESIZE_METHODS = tuple(_PIL) + tuple(_TORCH)
_QUANTIZE = ("input", "resized", "both", "none")


def _quantize(x: np.ndarray | torch.Tensor):
    """To the 256 levels of an 8-bit image file (values outside [0, 1], from a bicubic overshoot,
    are clipped as writing the file would)."""
    if isinstance(x, torch.Tensor):
        return torch.round(x.clamp(0.0, 1.0) * 255.0) / 255.0
    return (np.round(np.clip(x, 0.0, 1.0) * np.float32(255.0)) / np.float32(255.0)).astype(np.float32)


def _resize_pil(img: np.ndarray, size: tuple[int, int], method: str) -> np.ndarray:
    from PIL import Image

    filt = getattr(Image.Resampling, _PIL[method])
    h, w = size
    return np.stack([np.asarray(Image.fromarray(np.ascontiguousarray(c, dtype=np.float32)).resize((w, h), filt),
                                dtype=np.float32) for c in img])


def _resize_torch(batch: torch.Tensor, size: tuple[int, int], method: str, antialias: bool) -> torch.Tensor:
    mode = _TORCH[method]
    kwargs = {"align_corners": False} if mode in ("bilinear", "bicubic") else {}
    if antialias:
        kwargs["antialias"] = True
    return F.interpolate(batch, size=size, mode=mode, **kwargs)


def _progress_bar(progress: Any, total: int):
    if progress is None:
        progress = bool(getattr(sys.stderr, "isatty", lambda: False)())
        if progress:
            try:
                import tqdm  # noqa: F401
            except ImportError:
                return None
    if not isinstance(progress, bool):
        raise TypeError(f"progress must be None, True or False, got {type(progress).__name__}")
    if not progress:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        raise ImportError("progress=True needs tqdm (pip install tqdm)") from None
    return tqdm(total=total, desc="features", unit="img", leave=False)


def extract(images: Any, extractor: Any, *, batch_size: int = 64, resize: str | None = "pil_bicubic",
            antialias: bool | None = None, quantize: str = "input", channels: str | None = None,
            progress: bool | None = None) -> np.ndarray:
    """Features of a set of images: resize, quantise, run the extractor in batches.

    The pipeline, with each step a named choice because each changes FID-type scores (Parmar,
    Zhang & Zhu 2022 measured FID shifts from the resizing library and from JPEG/8-bit storage that
    rival the gaps between models):

    1. ``quantize="input"`` / ``"both"``: floating images are rounded to the 256 levels of an 8-bit
       file, as a generator's samples are when saved as PNG and as the real images already are, so
       the two sets are compared on equal footing (uint8 images are unchanged).
    2. Resize to ``extractor.input_size`` by ``resize``: ``"pil_bicubic"`` (the default: clean-fid's
       "clean" mode, Pillow's antialiased bicubic on float32 channels), ``"pil_bilinear"``,
       ``"pil_lanczos"``, ``"pil_box"``, ``"pil_nearest"``, or ``torch.nn.functional.interpolate``'s
       ``"torch_bilinear"`` (without antialiasing, clean-fid's "legacy_pytorch", which aliases
       when it shrinks an image), ``"torch_bicubic"``, ``"torch_area"``, ``"torch_nearest"``.
       None: no resizing (images must already have the input size, or the extractor takes any).
    3. ``quantize="resized"`` / ``"both"``: round the resized images to 8 bits, as pipelines that
       resize uint8 images do (Pillow on an 8-bit image, most data loaders).
    4. The extractor on batches of ``batch_size`` (float32 (N, 3, H, W) in [0, 1]; each extractor
       applies its own normalisation), in evaluation mode without gradients.

    Parameters
    ----------
    images : array, tensor or sequence of images
        A numpy array (N, H, W, 3) or (N, H, W) (channels last, as scikit-image), a torch tensor
        (N, 3, H, W) or (N, H, W) (channels first), or a sequence of images (numpy arrays, tensors
        or PIL images) that may differ in size. uint8 values are 0..255; floating values must lie
        in [0, 1] (nothing is clipped or rescaled silently). Grayscale images are repeated on three
        channels. Not modified.
    extractor : torch.nn.Module
        :class:`MobileNetV2`, :class:`InceptionV3FID`, :class:`RandomCNN`, :class:`RawPixels` or
        any module mapping (N, 3, H, W) in [0, 1] to (N, d) (its ``input_size`` attribute, if any,
        is the resize target).
    batch_size : int, default 64
        Images per forward pass (the features do not depend on it beyond float32 rounding).
    resize : str or None, default "pil_bicubic"
        The resizing method (above).
    antialias : bool or None, optional
        For ``"torch_bilinear"`` and ``"torch_bicubic"``: low-pass filter when shrinking (PyTorch's
        ``antialias=True``, close to Pillow's). None means False for torch (PyTorch's default and
        clean-fid's "legacy_pytorch") and True for Pillow, which always widens its filter when
        shrinking (``antialias=False`` with a ``pil_`` method is refused).
    quantize : {"input", "resized", "both", "none"}, default "input"
        Where images are rounded to 8 bits (above).
    channels : {"last", "first"} or None, optional
        The channel axis of ``images`` when it is not the container's default (numpy last, torch first).
    progress : bool or None, optional
        A tqdm progress bar over images; None shows it only when standard error is a terminal.

    Returns
    -------
    numpy.ndarray
        The (N, d) float64 feature matrix, one row per image in the input order.

    References
    ----------
    Parmar, Zhang & Zhu (2022). On aliased resizing and surprising subtleties in GAN evaluation.
    CVPR (clean-fid: the resizing and quantisation choices). Heusel et al. (2017), NeurIPS (FID's
    pipeline: Inception pool3 features of 299 x 299 images).

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.features import RawPixels, extract
    >>> imgs = np.random.default_rng(0).integers(0, 256, size=(5, 16, 16, 3), dtype=np.uint8)
    >>> extract(imgs, RawPixels(input_size=8), resize="pil_box").shape
    (5, 192)
    """
    if not isinstance(extractor, nn.Module):
        raise TypeError(f"extractor must be a torch.nn.Module (MobileNetV2, InceptionV3FID, RandomCNN, RawPixels, "
                        f"...), got {type(extractor).__name__}")
    batch_size = check_positive_int(batch_size, "batch_size")
    if resize is not None:
        resize = check_choice(resize, "resize", RESIZE_METHODS)
    quantize = check_choice(quantize, "quantize", _QUANTIZE)
    if antialias is not None and not isinstance(antialias, bool):
        raise TypeError(f"antialias must be None, True or False, got {type(antialias).__name__}")
    if resize in _PIL and antialias is False:
        raise ValueError(f"antialias=False with resize={resize!r}: Pillow always widens its filter when it shrinks "
                         "an image; for a non-antialiased resize choose 'torch_bilinear' or 'torch_bicubic'")
    if resize in ("torch_area", "torch_nearest") and antialias:
        raise ValueError(f"antialias=True applies to 'torch_bilinear' and 'torch_bicubic', not resize={resize!r}")
    imgs = image_list(images, "images", channels=channels)
    size = getattr(extractor, "input_size", None)
    if size is not None:
        size = (int(size[0]), int(size[1]))
        wrong = [i for i, im in enumerate(imgs) if im.shape[1:] != size]
        if wrong and resize is None:
            raise ValueError(f"images: {len(wrong)} image(s) are not {size[0]} x {size[1]} (e.g. image {wrong[0]} is "
                             f"{imgs[wrong[0]].shape[1]} x {imgs[wrong[0]].shape[2]}) and resize=None; choose a "
                             "resize method")
    elif len({im.shape for im in imgs}) > 1:
        raise ValueError("images differ in size and the extractor has no input_size to resize them to; give it one "
                         "(input_size=...) or resize the images first")
    bar = _progress_bar(progress, len(imgs))
    device = next((p.device for p in extractor.parameters()), torch.device("cpu"))
    out = []
    try:
        for start in range(0, len(imgs), batch_size):
            chunk = imgs[start:start + batch_size]
            if quantize in ("input", "both"):
                chunk = [_quantize(im) for im in chunk]
            if size is not None and resize in _PIL:
                chunk = [im if im.shape[1:] == size else _resize_pil(im, size, resize) for im in chunk]
            same = len({im.shape for im in chunk}) == 1
            if size is not None and resize in _TORCH:
                if same:
                    batch = torch.from_numpy(np.stack(chunk))
                    if tuple(batch.shape[-2:]) != size:
                        batch = _resize_torch(batch, size, resize, bool(antialias))
                else:
                    batch = torch.cat([_resize_torch(torch.from_numpy(im)[None], size, resize, bool(antialias))
                                       if im.shape[1:] != size else torch.from_numpy(im)[None] for im in chunk])
            else:
                batch = torch.from_numpy(np.stack(chunk))
            if quantize in ("resized", "both"):
                batch = _quantize(batch)
            with torch.inference_mode():
                feats = extractor(batch.to(device))
            if not isinstance(feats, torch.Tensor) or feats.dim() != 2 or feats.shape[0] != batch.shape[0]:
                raise TypeError(f"extractor must return an (N, d) tensor; {type(extractor).__name__} returned "
                                f"{getattr(feats, 'shape', type(feats).__name__)}")
            out.append(feats.detach().to("cpu", torch.float64).numpy())
            if bar is not None:
                bar.update(len(chunk))
    finally:
        if bar is not None:
            bar.close()
    return np.ascontiguousarray(np.concatenate(out, axis=0))
