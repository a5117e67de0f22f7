"""learncore.stereo's public API: the bad-input sweep of every public function, the result protocol of
its result classes (see tests/apicheck.py), and the bad input the issue names (unequal image shapes,
negative disparities, a tolerance <= 0)."""
import numpy as np
import pytest

import apicheck
import learncore.stereo as st
from learncore.stereo import (DepthAccuracy, InlierRatio, LandmarkError, StereoScene, back_project, block_match,
                              depth_accuracy, depth_to_disparity, disparity_to_depth, face_rig, inlier_ratio,
                              ipd_error, landmark_error, opencv_sgbm, semi_global_match, stereo_motorcycle)

_RNG = np.random.default_rng(7)
RIGHT = _RNG.random((16, 24))
LEFT = np.roll(RIGHT, 3, axis=1)
DISP = _RNG.uniform(5.0, 30.0, 12)
DISP_GT = DISP + _RNG.normal(0.0, 0.5, 12)
DEPTH_GT = _RNG.uniform(400.0, 600.0, 12)
DEPTH = DEPTH_GT + _RNG.normal(0.0, 8.0, 12)
DEPTH_MAP = _RNG.uniform(400.0, 600.0, (6, 8))
POINTS_GT = _RNG.uniform(-50.0, 50.0, (5, 3)) + [0.0, 0.0, 500.0]
POINTS = POINTS_GT + _RNG.normal(0.0, 1.0, (5, 3))
PUPILS_GT = np.array([[[-32.0, 0.0, 500.0], [32.0, 0.0, 500.0]], [[-31.0, 1.0, 480.0], [31.5, 1.0, 482.0]]])
PUPILS = PUPILS_GT + _RNG.normal(0.0, 0.5, PUPILS_GT.shape)

try:
    import cv2  # noqa: F401
    HAVE_CV2 = True
except ImportError:  # pragma: no cover (OpenCV is an optional peer)
    HAVE_CV2 = False

S = apicheck.Spec
BAD_INPUT_SPECS = {
    # a missing disparity (NaN) gives a missing depth, as documented
    "disparity_to_depth": S(disparity_to_depth, dict(disparity=DISP, f=500.0, baseline=60.0, doffs=2.0),
                            data=("disparity",), paired=False, ok={("disparity", "nan"), ("disparity", "wrong_ndim")},
                            nan_result_ok={("disparity", "nan")}),
    "depth_to_disparity": S(depth_to_disparity, dict(depth=DEPTH_GT, f=500.0, baseline=60.0),
                            data=("depth",), paired=False, ok={("depth", "nan"), ("depth", "wrong_ndim")},
                            nan_result_ok={("depth", "nan")}),
    "back_project": S(back_project, dict(depth=DEPTH_MAP, f=250.0, cx=3.5, cy=2.5, pixels=[[1.0, 1.0], [2.5, 3.0]]),
                      data=("depth", "pixels"), paired=False,
                      ok={("depth", "nan"), ("depth", "inf"), ("pixels", "none"), ("pixels", "nan")},
                      nan_result_ok={("pixels", "nan"), ("pixels", "huge")}),  # outside the image: NaN
    "block_match": S(block_match, dict(left=LEFT, right=RIGHT, max_disparity=6, window=3), data=("left", "right")),
    "semi_global_match": S(semi_global_match, dict(left=LEFT, right=RIGHT, max_disparity=6, census=(3, 3)),
                           data=("left", "right")),
    # an estimate missing (NaN, or +inf from d + doffs = 0) counts as an outlier: documented
    "inlier_ratio": S(inlier_ratio, dict(depth=DEPTH, depth_gt=DEPTH_GT, tau=10.0), data=("depth", "depth_gt"),
                      ok={("depth", "nan"), ("depth", "inf"), ("depth_gt", "nan")}),
    "depth_accuracy": S(depth_accuracy, dict(disparity=DISP, disparity_gt=DISP_GT, f=500.0, baseline=60.0),
                        data=("disparity", "disparity_gt"), ok={("disparity", "nan"), ("disparity_gt", "nan")}),
    "landmark_error": S(landmark_error, dict(points=POINTS, points_gt=POINTS_GT), data=("points", "points_gt"),
                        ok={("points", "nan")}),
    "ipd_error": S(ipd_error, dict(pupils=PUPILS, pupils_gt=PUPILS_GT), data=("pupils", "pupils_gt"),
                   ok={("pupils", "nan")}, nan_result_ok={("pupils", "nan")}),
    "face_rig": S(face_rig, dict(ipd=62.0, baseline=50.0, shape=(32, 40), seed=0), data=("ipd", "baseline", "shape"),
                  paired=False),
    "stereo_motorcycle": S(stereo_motorcycle, {}, data=()),
}
if HAVE_CV2:
    # OpenCV leaves the first max_disparity columns unmatched (NaN), as documented, whatever the scale
    BAD_INPUT_SPECS["opencv_sgbm"] = S(opencv_sgbm, dict(left=LEFT, right=RIGHT, max_disparity=8, window=3),
                                       data=("left", "right"),
                                       nan_result_ok={(a, k) for a in ("left", "right") for k in ("huge", "tiny")})
else:  # pragma: no cover
    EXEMPT = {"opencv_sgbm": "OpenCV (an optional peer) is not installed here"}

RESULT_EXAMPLES = {
    "InlierRatio": lambda: inlier_ratio(DEPTH_MAP + 3.0, DEPTH_MAP, tau=5.0, block=(2, 2), B=49, seed=0),
    "DepthAccuracy": lambda: depth_accuracy(DISP, DISP_GT, f=500.0, baseline=60.0),
    "LandmarkError": lambda: landmark_error(POINTS, POINTS_GT),
    "StereoScene": lambda: face_rig(shape=(32, 40), seed=0),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_inputs(name):
    assert apicheck.sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    res = RESULT_EXAMPLES[name]()
    assert type(res).__name__ == name
    apicheck.check_result_protocol(res)


def test_every_public_name_is_registered():
    funcs = [n for n in st.__all__ if callable(getattr(st, n)) and not isinstance(getattr(st, n), type)]
    exempt = globals().get("EXEMPT", {})
    assert sorted(set(funcs) - set(BAD_INPUT_SPECS) - set(exempt)) == []
    classes = [n for n in st.__all__ if isinstance(getattr(st, n), type)]
    assert sorted(set(classes) - set(RESULT_EXAMPLES)) == []
    assert {InlierRatio, DepthAccuracy, LandmarkError, StereoScene} == {getattr(st, c) for c in classes}


# -- the bad input the issue names ----------------------------------------------------------------------

@pytest.mark.parametrize("matcher", [block_match, semi_global_match]
                         + ([opencv_sgbm] if HAVE_CV2 else []))
def test_unequal_image_shapes_are_refused(matcher):
    with pytest.raises(ValueError, match=r"left and right must have the same shape"):
        matcher(LEFT, RIGHT[:, :-2], max_disparity=4)
    with pytest.raises(ValueError, match=r"left and right must have the same shape"):
        matcher(LEFT, RIGHT[:-1], max_disparity=4)


def test_negative_disparities_are_refused():
    with pytest.raises(ValueError, match=r"disparity contains negative disparities"):
        disparity_to_depth([3.0, -0.5], f=500.0, baseline=60.0)
    with pytest.raises(ValueError, match=r"disparity contains negative disparities"):
        depth_accuracy([3.0, -0.5], [3.0, 4.0], f=500.0, baseline=60.0)
    with pytest.raises(ValueError, match=r"disparity_gt contains negative disparities"):
        depth_accuracy([3.0, 4.0], [3.0, -1e-12], f=500.0, baseline=60.0)
    # a disparity of zero is a point at infinity, not an error
    assert disparity_to_depth([0.0], f=500.0, baseline=60.0)[0] == np.inf


@pytest.mark.parametrize("tau", [0.0, -1.0, np.nan, np.inf])
def test_a_tolerance_that_is_not_positive_is_refused(tau):
    with pytest.raises(ValueError, match=r"tau must be a positive finite tolerance"):
        inlier_ratio(DEPTH, DEPTH_GT, tau=tau)


@pytest.mark.parametrize("tau", ["10", None, [10.0], True])
def test_a_tolerance_that_is_not_a_number_is_refused(tau):
    with pytest.raises((TypeError, ValueError), match=r"tau"):
        inlier_ratio(DEPTH, DEPTH_GT, tau=tau)


def test_other_shapes_and_calibrations_are_refused():
    with pytest.raises(ValueError, match=r"depth and depth_gt must have the same shape"):
        inlier_ratio(DEPTH[:-1], DEPTH_GT)
    with pytest.raises(ValueError, match=r"depth_gt contains depths <= 0"):
        inlier_ratio(DEPTH, -DEPTH_GT)
    with pytest.raises(ValueError, match=r"max_disparity"):
        block_match(LEFT, RIGHT, max_disparity=24)
    with pytest.raises(ValueError, match=r"window must be odd"):
        block_match(LEFT, RIGHT, max_disparity=4, window=4)
    with pytest.raises(ValueError, match=r"baseline"):
        disparity_to_depth(DISP, f=500.0, baseline=0.0)
    with pytest.raises(ValueError, match=r"block"):
        inlier_ratio(DEPTH, DEPTH_GT, tau=10.0, block=(2, 2))  # a block bootstrap needs a 2-D map
