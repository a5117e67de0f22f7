"""Stereo depth accuracy where it matters: HumanStereo's absolute metrics on matchers written here.

HumanStereo argues that delta_1 and RMSE saturate on close-range human stereo while an absolute
tolerance in millimetres does not. This package builds that protocol on statcore's statistics:

- geometry: :func:`disparity_to_depth` (Z = f B / (d + doffs)), :func:`depth_to_disparity`,
  :func:`back_project` (pixels and depth to 3-D points);
- matchers, compiled with numba: :func:`block_match` (SAD or ZNCC windows, winner-take-all, optional
  left-right check) and :func:`semi_global_match` (census cost, 4 or 8 path aggregation, Hirschmuller
  2008); :func:`opencv_sgbm` wraps OpenCV's SGBM when ``opencv-python-headless`` is installed (optional);
- metrics: :func:`inlier_ratio` (IR(tau) with :func:`statcore.within_tolerance`'s block-bootstrap
  interval), :func:`depth_accuracy` (delta_1, RMSE, abs rel, end-point error, bad-k),
  :func:`landmark_error` (L3DE), :func:`ipd_error`;
- scenes with ground truth: :func:`face_rig` (a synthetic textured head with 3-D landmarks and pupils,
  ours) and :func:`stereo_motorcycle` (scikit-image's Middlebury 2014 pair and its calibration).

numpy and numba only (no torch); numba compiles the kernels on first use.
"""
from ._geometry import back_project, depth_to_disparity, disparity_to_depth
from ._matchers import block_match, opencv_sgbm, semi_global_match
from ._metrics import (DepthAccuracy, InlierRatio, LandmarkError, depth_accuracy, inlier_ratio, ipd_error,
                       landmark_error)
from ._rig import LANDMARKS, StereoScene, face_rig, stereo_motorcycle

__all__ = ["disparity_to_depth", "depth_to_disparity", "back_project", "block_match", "semi_global_match",
           "opencv_sgbm", "inlier_ratio", "InlierRatio", "depth_accuracy", "DepthAccuracy", "landmark_error",
           "LandmarkError", "ipd_error", "face_rig", "stereo_motorcycle", "StereoScene", "LANDMARKS"]
