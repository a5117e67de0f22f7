"""Validators of learncore.stereo (on statcore.utils' public checks): errors name the argument."""
from __future__ import annotations

import numpy as np

from statcore.utils import as_float_array, check_positive_int, check_positive_real


def as_image(x, name):
    """A finite 2-D grey image (an (H, W, 3) colour image is averaged over its channels)."""
    a = as_float_array(x, name)
    if a.ndim == 3 and a.shape[2] in (3, 4):
        a = a[..., :3].mean(axis=2)
    if a.ndim != 2:
        raise ValueError(f"{name} must be a 2-D grey image (or H x W x 3 colour), got shape {a.shape}")
    if min(a.shape) < 3:
        raise ValueError(f"{name} must be at least 3 x 3 pixels, got shape {a.shape}")
    return np.ascontiguousarray(a)


def as_image_pair(left, right):
    """Two images of the same shape, scaled together by one power of two (no overflow with 1e300)."""
    L = as_image(left, "left")
    R = as_image(right, "right")
    if L.shape != R.shape:
        raise ValueError(f"left and right must have the same shape (a rectified pair), got {L.shape} and {R.shape}")
    m = max(float(np.abs(L).max()), float(np.abs(R).max()))
    if m > 0:
        s = 2.0 ** np.floor(np.log2(m))
        L, R = L / s, R / s
    return np.ascontiguousarray(L), np.ascontiguousarray(R)


def as_disparity(x, name, *, allow_nan=True):
    """A disparity map (any shape): NaN marks a missing value; negative disparities are refused."""
    a = as_float_array(x, name, allow_nan=allow_nan)
    if a.size == 0:
        raise ValueError(f"{name} is empty")
    if np.isinf(a).any():
        raise ValueError(f"{name} contains infinite values; mark missing disparities with NaN")
    if (a[~np.isnan(a)] < 0).any():
        raise ValueError(f"{name} contains negative disparities; a rectified left-right pair has d >= 0 "
                         "(swap left and right, or add doffs)")
    return a


def as_depth(x, name, *, allow_nan=True, allow_inf=False):
    """A depth map (any shape, mm): NaN marks a missing value; depths must be positive."""
    a = as_float_array(x, name, allow_nan=allow_nan, allow_inf=allow_inf)
    if a.size == 0:
        raise ValueError(f"{name} is empty")
    if np.isneginf(a).any() or (not allow_inf and np.isinf(a).any()):
        raise ValueError(f"{name} contains infinite values; mark missing depths with NaN")
    if (a[~np.isnan(a)] <= 0).any():
        raise ValueError(f"{name} contains depths <= 0; a point in front of the camera has Z > 0")
    return a


def check_calibration(f, baseline, doffs):
    f = check_positive_real(f, "f")
    baseline = check_positive_real(baseline, "baseline")
    doffs = float(as_float_array(doffs, "doffs").reshape(-1)[0]) if np.ndim(doffs) == 0 else None
    if doffs is None:
        raise TypeError("doffs must be a number (the difference of the principal points, pixels)")
    if doffs < 0:
        raise ValueError(f"doffs must be >= 0 (cx_right - cx_left in pixels), got {doffs}")
    return f, baseline, doffs


def check_max_disparity(max_disparity, width):
    m = check_positive_int(max_disparity, "max_disparity")
    if m < 2:
        raise ValueError(f"max_disparity must be at least 2, got {m}")
    if m >= width:
        raise ValueError(f"max_disparity ({m}) must be smaller than the image width ({width})")
    return m


def check_window(window, name="window"):
    w = check_positive_int(window, name)
    if w % 2 == 0:
        raise ValueError(f"{name} must be odd (a window centred on the pixel), got {w}")
    return w


def check_tau(tau):
    if isinstance(tau, (str, bytes)) or tau is None or np.ndim(tau) != 0:
        raise TypeError(f"tau must be a number (the tolerance in mm), got {type(tau).__name__}")
    try:
        v = float(tau)
    except (TypeError, ValueError):
        raise TypeError(f"tau must be a number (the tolerance in mm), got {tau!r}") from None
    if isinstance(tau, bool) or not np.isfinite(v) or v <= 0:
        raise ValueError(f"tau must be a positive finite tolerance (mm), got {tau!r}")
    return v
