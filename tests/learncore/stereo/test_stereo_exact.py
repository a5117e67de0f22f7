"""Exact checks of learncore.stereo: perfect disparity, the disparity-offset identity, known shifts,
bad input."""
import numpy as np
import pytest

from learncore.stereo import (back_project, block_match, depth_accuracy, disparity_to_depth, inlier_ratio,
                              landmark_error, semi_global_match)


def test_perfect_disparity_gives_ir_one_and_l3de_zero():
    rng = np.random.default_rng(0)
    d = rng.uniform(5, 40, (24, 30))
    z = disparity_to_depth(d, f=500.0, baseline=60.0, doffs=3.0)
    assert inlier_ratio(z, z.copy(), tau=10.0).estimate == 1.0
    pix = rng.uniform(2, 20, (6, 2))
    p = back_project(z, f=500.0, cx=15.0, cy=12.0, pixels=pix)
    assert landmark_error(p, p.copy()).estimate == 0.0
    assert depth_accuracy(d, d.copy(), f=500.0, baseline=60.0, doffs=3.0).delta_1 == 1.0


def test_disparity_offset_moves_depth_by_closed_form():
    rng = np.random.default_rng(1)
    d = rng.uniform(1, 60, 200)
    f, B, doffs, delta = 994.978, 193.001, 31.086, 0.37
    dz = disparity_to_depth(d + delta, f=f, baseline=B, doffs=doffs) - disparity_to_depth(d, f=f, baseline=B, doffs=doffs)
    expect = -f * B * delta / ((d + doffs) * (d + doffs + delta))
    np.testing.assert_allclose(dz, expect, rtol=0, atol=1e-9)


@pytest.mark.parametrize("matcher", [block_match, semi_global_match])
def test_matchers_recover_a_known_shift(matcher):
    right = np.random.default_rng(2).random((30, 60))
    left = np.roll(right, 7, axis=1)
    d = matcher(left, right, max_disparity=12, subpixel=False)
    assert np.nanmedian(np.abs(d[5:-5, 15:-5] - 7.0)) < 1e-9


def test_bad_input_names_the_argument():
    a = np.zeros((10, 12))
    with pytest.raises(ValueError, match="left and right"):
        block_match(a, np.zeros((10, 11)))
    with pytest.raises(ValueError, match="disparity"):
        disparity_to_depth([-1.0, 2.0], f=1.0, baseline=1.0)
    with pytest.raises(ValueError, match="tau"):
        inlier_ratio([1.0], [1.0], tau=0.0)
