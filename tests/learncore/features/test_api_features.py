"""learncore.features' public API: the bad-input sweep of extract and the constructors' input checks
(docs/conventions.md). The extractors are torch modules, not results: no RESULT_EXAMPLES."""
import numpy as np
import pytest

from helpers import require_torch

torch = require_torch()
torch.set_num_threads(1)

import apicheck  # noqa: E402
import learncore.features as lf  # noqa: E402
from learncore.features import (InceptionV3FID, MobileNetV2, RandomCNN, RawPixels, extract,  # noqa: E402
                                mobilenet_v2_weights)

IMGS = np.random.default_rng(0).random((3, 8, 8, 3))

S = apicheck.Spec
BAD_INPUT_SPECS = {
    # a (N, H, W) batch is grayscale (documented), so "wrong_ndim" is a 5-D array
    "extract": S(extract, dict(images=IMGS, extractor=RawPixels(), resize=None), data=("images",), paired=False),
}

#: no arguments to sweep: it finds the installed weights file
EXEMPT = {"mobilenet_v2_weights": "takes no arguments"}

RESULT_EXAMPLES: dict = {}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_input_sweep(name):
    assert apicheck.sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


def test_every_public_callable_is_registered():
    funcs = [n for n in lf.__all__ if callable(getattr(lf, n)) and not isinstance(getattr(lf, n), type)]
    assert sorted(set(funcs) - set(BAD_INPUT_SPECS) - set(EXEMPT)) == []
    assert callable(mobilenet_v2_weights)


def test_import_learncore_does_not_import_torch():
    import subprocess
    import sys

    code = "import sys, learncore; assert 'torch' not in sys.modules, 'learncore imported torch'"
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("cls, kwargs, arg, err", [
    (MobileNetV2, dict(weights=None, layer="fc"), "layer", ValueError),
    (MobileNetV2, dict(weights=None, layer=3), "layer", TypeError),
    (MobileNetV2, dict(weights=None, pooling="max"), "pooling", ValueError),
    (MobileNetV2, dict(weights=None, input_size=0), "input_size", ValueError),
    (MobileNetV2, dict(weights=None, input_size="big"), "input_size", TypeError),
    (MobileNetV2, dict(weights=None, seed=-1), "seed", ValueError),
    (MobileNetV2, dict(weights=3.0), "weights", TypeError),
    (MobileNetV2, dict(weights="/nonexistent/file.pth"), "weights", ValueError),
    (InceptionV3FID, dict(weights=None, layer="pool4"), "layer", ValueError),
    (InceptionV3FID, dict(weights=None, resize_input="yes"), "resize_input", TypeError),
    (RandomCNN, dict(width=0), "width", ValueError),
    (RandomCNN, dict(depth=1.5), "depth", TypeError),
    (RandomCNN, dict(seed="a"), "seed", TypeError),
    (RawPixels, dict(input_size=(4,)), "input_size", TypeError),
    (RawPixels, dict(grayscale=1), "grayscale", TypeError),
])
def test_constructor_checks(cls, kwargs, arg, err):
    with pytest.raises(err, match=arg):
        cls(**kwargs)


@pytest.mark.parametrize("kwargs, arg, err", [
    (dict(extractor="mobilenet"), "extractor", TypeError),
    (dict(batch_size=0), "batch_size", ValueError),
    (dict(resize="cubic"), "resize", ValueError),
    (dict(quantize="yes"), "quantize", ValueError),
    (dict(resize="pil_bicubic", antialias=False), "antialias", ValueError),
    (dict(resize="torch_area", antialias=True), "antialias", ValueError),
    (dict(antialias="no"), "antialias", TypeError),
    (dict(channels="middle"), "channels", ValueError),
    (dict(progress="yes"), "progress", TypeError),
])
def test_extract_argument_checks(kwargs, arg, err):
    call = dict(images=IMGS, extractor=RawPixels(input_size=4))
    call.update(kwargs)
    with pytest.raises(err, match=arg):
        extract(**call)


@pytest.mark.parametrize("images, what", [
    (IMGS * 2.0, r"\[0, 1\]"),                                             # floats beyond [0, 1]: never clipped
    (-IMGS, r"\[0, 1\]"),
    ((IMGS * 255).astype(np.int64), "uint8"),                              # integer but not uint8: ambiguous range
    (np.zeros((2, 8, 8, 4), np.uint8), "4 channels"),                      # RGBA
    (np.zeros((2, 8, 8, 2), np.uint8), "1 or 3 channels"),
    ([np.zeros((8, 8, 3)), "x"], r"images\[1\]"),
    ([], "empty"),
    (np.zeros((2, 8, 8, 3), bool), "dtype"),
])
def test_extract_refuses_bad_images(images, what):
    with pytest.raises((ValueError, TypeError), match=what):
        extract(images, RawPixels(), resize=None)


def test_sizes_must_match_without_resize():
    with pytest.raises(ValueError, match="resize=None"):
        extract(IMGS, RawPixels(input_size=4), resize=None)
    with pytest.raises(ValueError, match="differ in size"):
        extract([IMGS[0], IMGS[1, :4]], RawPixels(), resize=None)


def test_extractor_must_return_a_matrix():
    with pytest.raises(TypeError, match="extractor"):
        extract(IMGS, torch.nn.Identity(), resize=None)
