"""The IR interval is statcore.within_tolerance's, exactly; the face rig's protocol (L3DE, IPD) on a
perfect disparity map and on a matcher."""
import numpy as np
import pytest
from scipy.ndimage import uniform_filter

import statcore
from learncore.stereo import (back_project, block_match, disparity_to_depth, face_rig, inlier_ratio, ipd_error,
                              landmark_error, semi_global_match)


def _smooth_error_image(seed, shape=(48, 64), scale=8.0):
    """A spatially correlated error image (a 5 x 5 box filter of white noise) and a true depth map."""
    rng = np.random.default_rng(seed)
    err = uniform_filter(rng.normal(size=shape), size=5, mode="wrap") * 5.0 * scale
    gt = rng.uniform(400.0, 700.0, shape)
    return gt + err, gt


def test_ir_interval_is_within_tolerances_block_bootstrap():
    z, g = _smooth_error_image(0)
    tau, block = 6.0, (8, 8)
    res = inlier_ratio(z, g, tau=tau, block=block, B=299, seed=5)
    wt = statcore.within_tolerance(z - g, tau, block=block, B=299, seed=5)
    assert wt.method == "block-bootstrap" and res.method == wt.method
    assert res.estimate == wt.estimate and res.count == wt.count and res.n == wt.n
    assert (res.conf_low, res.conf_high) == (wt.conf_low, wt.conf_high)
    assert res.block == wt.block == block
    assert res.conf_low < res.estimate < res.conf_high


def test_ir_interval_with_missing_truth_and_missing_estimates():
    """Pixels without truth are left out of the count and the interval is within_tolerance's on all
    pixels (an invalid pixel an outlier) over the share of valid pixels; a missing estimate is an outlier."""
    z, g = _smooth_error_image(1)
    g = g.copy()
    z = z.copy()
    g[:6, :10] = np.nan
    z[20:24, 30:40] = np.nan
    z[30, 5] = np.inf  # d + doffs = 0: a point at infinity, missing
    tau, block = 6.0, (8, 8)
    res = inlier_ratio(z, g, tau=tau, block=block, B=299, seed=3)
    valid = ~np.isnan(g)
    err = np.where(valid & np.isfinite(z), np.abs(z - g), 1e6)  # an invalid pixel or missing estimate: out
    err = np.nan_to_num(err, nan=1e6)
    wt = statcore.within_tolerance(err, tau, block=block, B=299, seed=3)
    share = valid.mean()
    assert res.n == valid.sum() and res.n_missing == 40 + 1
    assert res.count == wt.count and res.estimate == wt.count / valid.sum()
    assert res.conf_low == min(wt.conf_low / share, 1.0) and res.conf_high == min(wt.conf_high / share, 1.0)
    # without a block: Wilson's interval on the valid pixels
    res_w = inlier_ratio(z, g, tau=tau)
    wt_w = statcore.within_tolerance(err[valid], tau)
    assert (res_w.estimate, res_w.conf_low, res_w.conf_high) == (wt_w.estimate, wt_w.conf_low, wt_w.conf_high)


@pytest.fixture(scope="module")
def rig():
    return face_rig(seed=11)  # 160 x 200: every landmark, the chin included, inside the image


def test_face_rig_perfect_disparity_gives_ir_one_l3de_zero_ipd_zero(rig):
    z = disparity_to_depth(rig.disparity, f=rig.f, baseline=rig.baseline, doffs=rig.doffs)
    for tau in (1e-6, 1.0, 10.0):
        res = inlier_ratio(z, rig.depth, tau=tau)
        assert res.estimate == 1.0 and res.n == rig.depth.size and res.n_missing == 0
    # the landmarks lifted by the perfect map against those lifted by the true map: zero
    p = back_project(z, f=rig.f, cx=rig.cx, cy=rig.cy, pixels=rig.landmark_pixels)
    p_true_map = back_project(rig.depth, f=rig.f, cx=rig.cx, cy=rig.cy, pixels=rig.landmark_pixels)
    assert np.isfinite(p).all()
    l3 = landmark_error(p, p_true_map)
    assert l3.n == len(rig.landmark_names) and l3.estimate <= 1e-9
    assert abs(ipd_error(p[:2], p_true_map[:2])) <= 1e-9
    # against the rig's analytic landmarks: only the bilinear lift of the sampled depth remains (well
    # under a tenth of a millimetre at ~1 mm per pixel), far below any matcher's error
    l3_analytic = landmark_error(p, rig.landmarks)
    assert l3_analytic.estimate < 0.1
    assert abs(ipd_error(p[:2], rig.landmarks[:2])) < 0.1
    np.testing.assert_allclose(p[:, 0], rig.landmarks[:, 0], atol=0.1)


@pytest.mark.parametrize("matcher", [block_match, semi_global_match])
def test_a_matcher_on_the_rig_gives_a_finite_l3de(rig, matcher):
    d = matcher(rig.left, rig.right, max_disparity=int(np.ceil(np.nanmax(rig.disparity))) + 8)
    z = disparity_to_depth(d, f=rig.f, baseline=rig.baseline, doffs=rig.doffs)
    p = back_project(z, f=rig.f, cx=rig.cx, cy=rig.cy, pixels=rig.landmark_pixels)
    l3 = landmark_error(p, rig.landmarks)
    assert np.isfinite(l3.estimate) and l3.n >= 8
    # a real matcher is not perfect, and is not lost either (the rig's depth spans hundreds of mm)
    assert 0.05 < l3.median < 50.0
    e = ipd_error(p[:2], rig.landmarks[:2])
    assert np.isfinite(e) and abs(e) < 20.0
    ir = inlier_ratio(z, rig.depth, tau=10.0)
    assert 0.0 < ir.estimate < 1.0
