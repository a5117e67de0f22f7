"""Stereo matchers written here and compiled with numba (block matching, semi-global matching), and
OpenCV's SGBM as an optional peer."""
from __future__ import annotations

import numpy as np

from statcore.utils import check_choice, check_nonneg_real, check_positive_int, public_function

from ._checks import as_image_pair, check_max_disparity, check_window

__all__ = ["block_match", "semi_global_match", "opencv_sgbm"]


def _flag(v, name):
    if not isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(v).__name__}")
    return bool(v)


@public_function(data=("left", "right"), nan_policy=None)
def block_match(left, right, *, max_disparity=64, window=9, cost="sad", lr_check=False, lr_tol=1.0,
                subpixel=True):
    """Local block matching with winner-take-all: for each left pixel, the disparity d in
    0..max_disparity-1 minimising the window cost against the right pixel x - d.

    Parameters
    ----------
    left, right : array_like
        The rectified pair, (H, W) grey or (H, W, 3) colour (averaged to grey), the same shape.
    max_disparity : int
        The number of disparities searched (0 .. max_disparity - 1).
    window : int
        The odd side of the square matching window.
    cost : {"sad", "zncc"}
        Sum of absolute differences (a mean over the window), or 1 - zero-mean normalised cross-correlation
        (invariant to gain and offset between the cameras).
    lr_check : bool
        Left-right consistency: a pixel whose right-image match points back more than ``lr_tol`` pixels
        away becomes NaN (occlusions, mismatches).
    lr_tol : float
        The left-right tolerance (pixels).
    subpixel : bool
        Refine the winner by the parabola through its neighbours' costs.

    Returns
    -------
    numpy.ndarray
        (H, W) float64 disparities; NaN where no disparity fits (x < d for all d: none) or the
        left-right check fails.

    References
    ----------
    Scharstein, D. & Szeliski, R. (2002). A taxonomy and evaluation of dense two-frame stereo
    correspondence algorithms. IJCV 47, 7-42.

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.stereo import block_match
    >>> right = np.random.default_rng(0).random((20, 40))
    >>> left = np.roll(right, 5, axis=1)
    >>> round(float(np.median(block_match(left, right, max_disparity=8, window=5)[:, 10:])), 2)
    5.0
    """
    from . import _kernels as K

    L, R = as_image_pair(left, right)
    max_disparity = check_max_disparity(max_disparity, L.shape[1])
    window = check_window(window)
    cost = check_choice(cost, "cost", ("sad", "zncc"))
    lr_check = _flag(lr_check, "lr_check")
    lr_tol = check_nonneg_real(lr_tol, "lr_tol")
    subpixel = _flag(subpixel, "subpixel")
    vol = (K.sad_volume if cost == "sad" else K.zncc_volume)(L, R, max_disparity, window // 2)
    disp = K.wta(vol, subpixel)
    if lr_check:
        disp = K.lr_invalidate(disp, K.wta_right(vol), lr_tol)
    return disp


#: path directions (dy, dx): the four of the 4-path variant first
_DIRS = np.array([[0, 1], [0, -1], [1, 0], [-1, 0], [1, 1], [1, -1], [-1, 1], [-1, -1]], dtype=np.int64)


@public_function(data=("left", "right"), nan_policy=None)
def semi_global_match(left, right, *, max_disparity=64, paths=8, p1=8, p2=96, census=(7, 9), lr_check=False,
                      lr_tol=1.0, subpixel=True, median=True):
    """Semi-global matching (Hirschmuller 2008) on a census matching cost.

    The cost of disparity d at a pixel is the Hamming distance between the census bit strings of the left
    pixel and of the right pixel x - d (Zabih & Woodfill 1994). It is aggregated along ``paths``
    directions by the recursion L_r(p, d) = C(p, d) + min(L_r(p - r, d), L_r(p - r, d -/+ 1) + P1,
    min_k L_r(p - r, k) + P2) - min_k L_r(p - r, k) (eq. 13 of the paper, with a constant P2), the
    winner-take-all disparity of the sum S = sum_r L_r is refined by a parabola, filtered by a 3 x 3
    median and optionally checked left against right (the right map taken from the same S).

    Parameters
    ----------
    left, right : array_like
        The rectified pair, (H, W) grey or (H, W, 3) colour, the same shape.
    max_disparity : int
        The number of disparities searched.
    paths : {4, 8}
        The number of aggregation directions.
    p1, p2 : int
        The penalties of a disparity change of one pixel and of more (census bits; p2 >= p1).
    census : (int, int)
        The odd census window (rows, columns); at most 63 neighbours (one 64-bit string).
    lr_check : bool
        Left-right consistency check (NaN where it fails).
    lr_tol : float
        Its tolerance in pixels.
    subpixel : bool
        Parabola refinement of the winner.
    median : bool
        A 3 x 3 median filter of the disparity map (before the left-right check).

    Returns
    -------
    numpy.ndarray
        (H, W) float64 disparities, NaN where the left-right check fails.

    References
    ----------
    Hirschmuller, H. (2008). Stereo processing by semiglobal matching and mutual information. IEEE TPAMI
    30, 328-341. Zabih, R. & Woodfill, J. (1994). Non-parametric local transforms for computing visual
    correspondence. ECCV.

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.stereo import semi_global_match
    >>> right = np.random.default_rng(0).random((20, 40))
    >>> left = np.roll(right, 5, axis=1)
    >>> round(float(np.median(semi_global_match(left, right, max_disparity=8)[:, 10:])), 2)
    5.01
    """
    from . import _kernels as K

    L, R = as_image_pair(left, right)
    max_disparity = check_max_disparity(max_disparity, L.shape[1])
    paths = check_positive_int(paths, "paths")
    if paths not in (4, 8):
        raise ValueError(f"paths must be 4 or 8, got {paths}")
    p1 = check_positive_int(p1, "p1")
    p2 = check_positive_int(p2, "p2")
    if p2 < p1:
        raise ValueError(f"p2 ({p2}) must be at least p1 ({p1})")
    if isinstance(census, (str, bytes)) or not hasattr(census, "__len__") or len(census) != 2:
        raise TypeError(f"census must be a pair (rows, columns) of odd window sides, got {census!r}")
    ch, cw = check_window(census[0], "census[0]"), check_window(census[1], "census[1]")
    nbits = ch * cw - 1
    if nbits > 63 or nbits < 1:
        raise ValueError(f"census window {ch} x {cw} must hold 1 to 63 neighbours, got {nbits}")
    lr_check = _flag(lr_check, "lr_check")
    lr_tol = check_nonneg_real(lr_tol, "lr_tol")
    subpixel = _flag(subpixel, "subpixel")
    median = _flag(median, "median")
    cl = K.census_transform(L, ch // 2, cw // 2)
    cr = K.census_transform(R, ch // 2, cw // 2)
    vol = K.census_volume(cl, cr, max_disparity, nbits)
    S = K.sgm_aggregate(vol, np.ascontiguousarray(_DIRS[:paths]), np.int32(p1), np.int32(p2))
    del vol
    disp = K.wta(S, subpixel)
    if median:
        from scipy.ndimage import median_filter

        disp = median_filter(disp, size=3, mode="nearest")
    if lr_check:
        disp = K.lr_invalidate(disp, K.wta_right(S), lr_tol)
    return disp


def _cv2():
    try:
        import cv2
    except ImportError as exc:  # pragma: no cover (opencv-python-headless installed on the dev machine)
        raise ImportError("opencv_sgbm needs OpenCV: pip install opencv-python-headless "
                          "(an optional peer, never a dependency of learncore)") from exc
    return cv2


@public_function(data=("left", "right"), nan_policy=None)
def opencv_sgbm(left, right, *, max_disparity=64, window=5, p1=None, p2=None, lr_check=False):
    """OpenCV's semi-global block matching (``cv2.StereoSGBM``), as a peer to compare against; needs
    ``opencv-python-headless`` (optional).

    Parameters
    ----------
    left, right : array_like
        The rectified pair, the same shape (grey or colour; rescaled to 8 bits by their common range).
    max_disparity : int
        Disparities searched, rounded up to a multiple of 16 (OpenCV's rule).
    window : int
        The odd block size.
    p1, p2 : int, optional
        The smoothness penalties (default 8 and 32 times the window's area, OpenCV's suggestion).
    lr_check : bool
        OpenCV's ``disp12MaxDiff = 1`` (off: -1).

    Returns
    -------
    numpy.ndarray
        (H, W) float64 disparities (OpenCV's fixed point / 16), NaN where OpenCV gives none: always in
        the first ``max_disparity`` columns (rounded up to 16), which OpenCV leaves unmatched.

    References
    ----------
    Hirschmuller, H. (2008). IEEE TPAMI 30, 328-341. OpenCV: ``cv::StereoSGBM``.

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.stereo import opencv_sgbm
    >>> right = np.random.default_rng(0).random((20, 48))
    >>> left = np.roll(right, 5, axis=1)
    >>> float(np.nanmedian(opencv_sgbm(left, right, max_disparity=16)[:, 20:]))  # doctest: +SKIP
    5.0
    """
    L, R = as_image_pair(left, right)
    max_disparity = check_max_disparity(max_disparity, L.shape[1])
    window = check_window(window)
    lr_check = _flag(lr_check, "lr_check")
    area = window * window
    p1 = 8 * area if p1 is None else check_positive_int(p1, "p1")
    p2 = 32 * area if p2 is None else check_positive_int(p2, "p2")
    if p2 < p1:
        raise ValueError(f"p2 ({p2}) must be at least p1 ({p1})")
    cv2 = _cv2()
    lo = min(L.min(), R.min())
    span = max(L.max(), R.max()) - lo
    span = span if span > 0 else 1.0
    L8 = np.round(255 * (L - lo) / span).astype(np.uint8)
    R8 = np.round(255 * (R - lo) / span).astype(np.uint8)
    nd = 16 * int(np.ceil(max_disparity / 16))
    sgbm = cv2.StereoSGBM_create(minDisparity=0, numDisparities=nd, blockSize=window, P1=p1, P2=p2,
                                 disp12MaxDiff=1 if lr_check else -1, uniquenessRatio=0, speckleWindowSize=0,
                                 mode=cv2.STEREO_SGBM_MODE_HH)
    raw = sgbm.compute(L8, R8).astype(np.float64) / 16.0
    raw[raw < 0] = np.nan
    return raw
