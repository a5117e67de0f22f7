"""Disparity, depth and 3-D points of a rectified stereo pair."""
from __future__ import annotations

import numpy as np

from statcore.utils import as_float_array, check_finite_real, public_function

from ._checks import as_depth, as_disparity, check_calibration

__all__ = ["disparity_to_depth", "depth_to_disparity", "back_project"]


@public_function(data=("disparity",), nan_policy=None)
def disparity_to_depth(disparity, *, f, baseline, doffs=0.0):
    """Depth from disparity in a rectified pair: Z = f B / (d + doffs).

    Parameters
    ----------
    disparity : array_like
        Disparities d >= 0 in pixels (any shape); NaN marks a missing value and gives NaN depth.
    f : float
        The focal length in pixels.
    baseline : float
        The baseline B (the depth comes in its unit: mm for Middlebury).
    doffs : float
        The x-difference of the principal points, cx_right - cx_left (pixels; Middlebury's ``doffs``).

    Returns
    -------
    numpy.ndarray
        Z, the shape of ``disparity``; ``d + doffs = 0`` (a point at infinity) gives ``inf``.

    References
    ----------
    Scharstein, D. et al. (2014). High-resolution stereo datasets with subpixel-accurate ground truth.
    GCPR 2014 (the calibration files' ``Z = baseline * f / (d + doffs)``).

    Examples
    --------
    >>> from learncore.stereo import disparity_to_depth
    >>> float(disparity_to_depth(40.0, f=1000.0, baseline=60.0))
    1500.0
    """
    f, baseline, doffs = check_calibration(f, baseline, doffs)
    d = as_disparity(disparity, "disparity")
    den = d + doffs
    with np.errstate(divide="ignore"):
        return f * baseline / den


@public_function(data=("depth",), nan_policy=None)
def depth_to_disparity(depth, *, f, baseline, doffs=0.0):
    """Disparity from depth in a rectified pair: d = f B / Z - doffs (the inverse of
    :func:`disparity_to_depth`).

    Parameters
    ----------
    depth : array_like
        Depths Z > 0 (any shape, in the baseline's unit); NaN marks a missing value.
    f : float
        The focal length in pixels.
    baseline : float
        The baseline B.
    doffs : float
        cx_right - cx_left in pixels.

    Returns
    -------
    numpy.ndarray
        d, the shape of ``depth``.

    References
    ----------
    Scharstein, D. et al. (2014). GCPR 2014.

    Examples
    --------
    >>> from learncore.stereo import depth_to_disparity
    >>> float(depth_to_disparity(1500.0, f=1000.0, baseline=60.0))
    40.0
    """
    f, baseline, doffs = check_calibration(f, baseline, doffs)
    z = as_depth(depth, "depth")
    return f * baseline / z - doffs


def _bilinear(img, u, v):
    """Bilinear samples of img at (u, v) = (column, row); NaN outside the image or next to a NaN."""
    H, W = img.shape
    out = np.full(u.shape, np.nan)
    ok = (u >= 0) & (u <= W - 1) & (v >= 0) & (v <= H - 1)
    u0 = np.clip(np.floor(u[ok]).astype(int), 0, max(W - 2, 0))
    v0 = np.clip(np.floor(v[ok]).astype(int), 0, max(H - 2, 0))
    a = u[ok] - u0
    b = v[ok] - v0
    u1 = np.minimum(u0 + 1, W - 1)
    v1 = np.minimum(v0 + 1, H - 1)
    out[ok] = ((1 - a) * (1 - b) * img[v0, u0] + a * (1 - b) * img[v0, u1] + (1 - a) * b * img[v1, u0]
               + a * b * img[v1, u1])
    return out


@public_function(data=("depth",), nan_policy=None)
def back_project(depth, *, f, cx, cy, pixels=None):
    """3-D points (X, Y, Z) of the left camera from its depth map: X = (u - cx) Z / f,
    Y = (v - cy) Z / f.

    Parameters
    ----------
    depth : array_like
        The (H, W) depth map (NaN where missing; +inf, a point at infinity from d + doffs = 0, is missing
        too, as in :func:`inlier_ratio`).
    f : float
        The focal length in pixels.
    cx, cy : float
        The left camera's principal point (pixels; pixel centres at integer coordinates).
    pixels : array_like, optional
        (n, 2) sub-pixel positions (u, v) = (column, row), e.g. 2-D landmarks: the depth is sampled there
        bilinearly (NaN when a neighbour is missing or the point lies outside the image).

    Returns
    -------
    numpy.ndarray
        (H, W, 3) points, or (n, 3) with ``pixels``.

    References
    ----------
    Hartley, R. & Zisserman, A. (2004). *Multiple View Geometry*, 2nd ed., section 6.1 (the pinhole camera).

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.stereo import back_project
    >>> back_project(np.full((3, 3), 500.0), f=250.0, cx=1.0, cy=1.0, pixels=[[2.0, 1.0]]).round(3)
    array([[  2.,   0., 500.]])
    """
    f = check_finite_real(f, "f")
    if f <= 0:
        raise ValueError(f"f must be positive (pixels), got {f}")
    cx = check_finite_real(cx, "cx")
    cy = check_finite_real(cy, "cy")
    z = as_depth(depth, "depth", allow_inf=True)
    z = np.where(np.isinf(z), np.nan, z)
    if z.ndim != 2:
        raise ValueError(f"depth must be a 2-D depth map, got shape {z.shape}")
    if pixels is None:
        v, u = np.mgrid[0:z.shape[0], 0:z.shape[1]].astype(float)
        return np.stack([(u - cx) * z / f, (v - cy) * z / f, z], axis=-1)
    p = as_float_array(pixels, "pixels")
    if p.ndim != 2 or p.shape[1] != 2:
        raise ValueError(f"pixels must be an (n, 2) array of (u, v) positions, got shape {p.shape}")
    if p.shape[0] == 0:
        raise ValueError("pixels is empty; pass at least one (u, v) position, or pixels=None for the whole map")
    u, v = p[:, 0], p[:, 1]
    zs = _bilinear(z, u, v)
    return np.stack([(u - cx) * zs / f, (v - cy) * zs / f, zs], axis=-1)
