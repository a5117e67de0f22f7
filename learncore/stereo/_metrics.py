"""HumanStereo's accuracy metrics: the absolute inlier ratio, landmark 3-D error and IPD error, next to
the usual relative depth and disparity metrics."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import statcore
from statcore import Result
from statcore.utils import as_float_array, check_positive_real, check_probability, public_function

from ._checks import as_depth, as_disparity, check_calibration, check_tau

__all__ = ["inlier_ratio", "InlierRatio", "depth_accuracy", "DepthAccuracy", "landmark_error", "LandmarkError",
           "ipd_error"]


def _same_shape(a, b, na, nb):
    if a.shape != b.shape:
        raise ValueError(f"{na} and {nb} must have the same shape, got {a.shape} and {b.shape}")


@dataclass(frozen=True, eq=False, repr=False)
class InlierRatio(Result):
    """The absolute inlier ratio IR(tau) with its interval (:func:`inlier_ratio`).

    Attributes
    ----------
    estimate : float
        The share of valid pixels whose depth error is within tau: abs(Z - Z_gt) <= tau.
    conf_low, conf_high : float
        The interval (a moving-block bootstrap with ``block``; Wilson's otherwise).
    tau : float
        The tolerance (the depth's unit, mm).
    count : int
        Valid pixels within the tolerance.
    n : int
        Valid pixels (finite ground truth).
    n_missing : int
        Valid pixels without an estimate (NaN depth): counted as outliers.
    method : str
    block : tuple or None
    conf_level : float

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.stereo import inlier_ratio
    >>> inlier_ratio(np.array([500.0, 505.0, 530.0]), np.array([500.0, 500.0, 500.0]), tau=10.0).count
    2
    """

    estimate: float
    conf_low: float
    conf_high: float
    tau: float
    count: int
    n: int
    n_missing: int
    method: str
    block: object
    conf_level: float

    def _repr_parts(self):
        return [("estimate", self.estimate), ("conf_low", self.conf_low), ("conf_high", self.conf_high),
                ("tau", self.tau), ("n", self.n)]

    def summary(self) -> str:
        how = (f"moving-block bootstrap, blocks {self.block[0]} x {self.block[1]}" if self.block is not None
               else "Wilson interval, pixels treated as independent")
        return (f"\n\tAbsolute inlier ratio IR({self.tau:g}): abs(Z - Z_gt) <= {self.tau:g} ({how})\n\n"
                f"{self.count} of {self.n} valid pixels ({self.n_missing} without an estimate): "
                f"{self.estimate:.4f}\n{100 * self.conf_level:g} percent confidence interval:\n"
                f" {self.conf_low:.4f} {self.conf_high:.4f}\n")

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame({"estimate": [self.estimate], "conf_low": [self.conf_low], "conf_high": [self.conf_high],
                             "tau": [self.tau], "count": [self.count], "n": [self.n],
                             "n_missing": [self.n_missing], "method": [self.method], "conf_level": [self.conf_level]})


@public_function(data=("depth", "depth_gt"), nan_policy=None)
def inlier_ratio(depth, depth_gt, *, tau=10.0, block=None, conf_level=0.95, B=999, seed=None):
    """HumanStereo's absolute inlier ratio IR(tau): the share of valid pixels whose depth is within tau
    of the truth, with an interval from :func:`statcore.within_tolerance`.

    Valid pixels are those with a finite ground truth; a valid pixel without an estimate (NaN depth, e.g.
    refused by a left-right check, or an infinite depth from a disparity of -doffs) counts as an outlier, so a matcher cannot raise its IR by abstaining.
    The paper writes abs(Z - Z_gt) < tau; here, as in :func:`statcore.within_tolerance`, the tolerance is
    closed, abs(Z - Z_gt) <= tau (the two differ only on exact ties, which have probability zero for
    real-valued depths). Neighbouring pixels err together, so the binomial interval is far too narrow for
    an error image: pass ``block=(h, w)`` for ``within_tolerance``'s moving-block bootstrap, with sides
    several times the errors' correlation length (``benchmarks/stereo_ir_coverage.py``: on Gaussian
    fields smoothed with a kernel of s.d. s pixels, 95% intervals covered 0.90-0.93 with 16-pixel blocks
    at s = 2, but 0.88-0.89 at s = 4 and 0.79 at s = 8; Wilson covered 0.10-0.37 there). When some
    pixels have no ground truth, the bootstrap runs on the indicator image "valid and within tau" over
    all pixels and its interval is divided by the share of valid pixels (the valid mask is held fixed).

    Parameters
    ----------
    depth : array_like
        Estimated depths (any shape; with ``block`` a 2-D map), NaN (or +inf) where missing.
    depth_gt : array_like
        True depths, the same shape; NaN where the truth is unknown (those pixels are left out).
    tau : float
        The tolerance in the depths' unit (mm): > 0.
    block : (int, int), optional
        Block sides for the moving-block bootstrap of the error image.
    conf_level : float
        The interval's coverage.
    B : int
        Bootstrap resamples (with ``block``).
    seed : None, int or numpy.random.Generator
        The bootstrap's randomness.

    Returns
    -------
    InlierRatio
        ``estimate``, ``conf_low``, ``conf_high``, ``count``, ``n``, ``n_missing``.

    References
    ----------
    HumanStereo (the seed paper's absolute inlier ratio IR(tau) and its argument that delta_1 saturates).
    Politis, D. N. & Romano, J. P. (1992). A circular block-resampling procedure for stationary data.

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.stereo import inlier_ratio
    >>> rng = np.random.default_rng(0)
    >>> gt = np.full((32, 32), 600.0)
    >>> res = inlier_ratio(gt + rng.normal(0, 8, gt.shape), gt, tau=10.0, block=(8, 8), B=199, seed=1)
    >>> round(res.estimate, 3)
    0.804
    """
    tau = check_tau(tau)
    conf_level = check_probability(conf_level, "conf_level", open_left=True, open_right=True)
    z = as_depth(depth, "depth", allow_inf=True)
    g = as_depth(depth_gt, "depth_gt")
    _same_shape(z, g, "depth", "depth_gt")
    z = np.where(np.isinf(z), np.nan, z)
    valid = ~np.isnan(g)
    n = int(valid.sum())
    if n == 0:
        raise ValueError("depth_gt has no valid pixel (all NaN); nothing to evaluate")
    missing = valid & np.isnan(z)
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs(z - g)
    inside = valid & ~missing & (err <= tau)
    count = int(inside.sum())
    est = count / n
    if block is None:
        wt = statcore.within_tolerance(np.where(inside[valid], 0.0, 2.0 * tau), tau, conf_level=conf_level)
        lo, hi, method = wt.conf_low, wt.conf_high, wt.method
    else:
        if z.ndim != 2:
            raise ValueError(f"depth must be a 2-D map for a block bootstrap, got shape {z.shape}")
        # the indicator image as errors within_tolerance classifies exactly as here (0 inside, 2 tau out)
        coded = np.where(inside, 0.0, 2.0 * tau)
        wt = statcore.within_tolerance(coded, tau, block=block, conf_level=conf_level, B=B, seed=seed)
        share = n / z.size
        lo, hi, method = min(wt.conf_low / share, 1.0), min(wt.conf_high / share, 1.0), wt.method
        block = wt.block
    return InlierRatio(float(est), float(lo), float(hi), tau, count, n, int(missing.sum()), method, block,
                       conf_level)


@dataclass(frozen=True, eq=False, repr=False)
class DepthAccuracy(Result):
    """Relative depth metrics and disparity metrics of one disparity map (:func:`depth_accuracy`).

    Attributes
    ----------
    delta_1 : float
        Share of valid pixels with max(Z / Z_gt, Z_gt / Z) < 1.25.
    rmse : float
        Root mean squared depth error (the depth's unit).
    abs_rel : float
        Mean of abs(Z - Z_gt) / Z_gt.
    epe : float
        End-point error: mean abs(d - d_gt) (pixels).
    bad : float
        Share of valid pixels with abs(d - d_gt) > k pixels (bad-k).
    k : float
    n : int
        Valid pixels (finite truth).
    n_missing : int
        Valid pixels without an estimate (NaN, or d + doffs = 0: infinite depth): outliers in delta_1 and
        bad-k, left out of RMSE, abs rel and EPE.

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.stereo import depth_accuracy
    >>> d = np.array([10.0, 20.0, 30.0])
    >>> depth_accuracy(d, d, f=100.0, baseline=50.0).delta_1
    1.0
    """

    delta_1: float
    rmse: float
    abs_rel: float
    epe: float
    bad: float
    k: float
    n: int
    n_missing: int

    def _repr_parts(self):
        return [("delta_1", self.delta_1), ("rmse", self.rmse), ("abs_rel", self.abs_rel), ("epe", self.epe),
                ("bad", self.bad)]

    def summary(self) -> str:
        return (f"\n\tDepth and disparity accuracy ({self.n} valid pixels, {self.n_missing} without an estimate)\n\n"
                f"delta_1 {self.delta_1:.4f}   RMSE {self.rmse:.4g}   abs rel {self.abs_rel:.4g}\n"
                f"EPE {self.epe:.4g} px   bad-{self.k:g} {self.bad:.4f}\n")

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame({"delta_1": [self.delta_1], "rmse": [self.rmse], "abs_rel": [self.abs_rel],
                             "epe": [self.epe], "bad": [self.bad], "k": [self.k], "n": [self.n],
                             "n_missing": [self.n_missing]})


@public_function(data=("disparity", "disparity_gt"), nan_policy=None)
def depth_accuracy(disparity, disparity_gt, *, f, baseline, doffs=0.0, k=2.0):
    """The relative metrics that saturate (delta_1, RMSE, abs rel) and the disparity metrics (end-point
    error, bad-k) of a disparity map against the truth.

    Parameters
    ----------
    disparity : array_like
        Estimated disparities (pixels), NaN where missing.
    disparity_gt : array_like
        True disparities, the same shape; NaN where unknown (left out).
    f, baseline, doffs : float
        The calibration (:func:`disparity_to_depth`).
    k : float
        The bad-k threshold in pixels (> 0).

    Returns
    -------
    DepthAccuracy

    References
    ----------
    Eigen, D., Puhrsch, C. & Fergus, R. (2014). Depth map prediction from a single image using a
    multi-scale deep network. NeurIPS (delta thresholds, abs rel, RMSE). Scharstein, D. & Szeliski, R.
    (2002). A taxonomy and evaluation of dense two-frame stereo correspondence algorithms. IJCV 47, 7-42
    (bad pixels).

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.stereo import depth_accuracy
    >>> gt = np.array([20.0, 30.0, 40.0, 50.0])
    >>> res = depth_accuracy(gt + [0.5, -0.5, 3.0, 0.0], gt, f=500.0, baseline=60.0)
    >>> res.epe, res.bad
    (1.0, 0.25)
    """
    f, baseline, doffs = check_calibration(f, baseline, doffs)
    k = check_positive_real(k, "k")
    d = as_disparity(disparity, "disparity")
    g = as_disparity(disparity_gt, "disparity_gt")
    _same_shape(d, g, "disparity", "disparity_gt")
    valid = ~np.isnan(g)
    n = int(valid.sum())
    if n == 0:
        raise ValueError("disparity_gt has no valid pixel (all NaN); nothing to evaluate")
    # an estimate at infinite depth (d + doffs = 0) has no finite depth error: missing, like NaN
    have = valid & ~np.isnan(d) & (d + doffs > 0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        z = f * baseline / (d[have] + doffs)
        zg = f * baseline / (g[have] + doffs)
        ratio = np.maximum(z / zg, zg / z)
        delta_1 = float((ratio < 1.25).sum()) / n
        if have.any():
            rz = (z - zg)
            s = float(np.max(np.abs(rz[np.isfinite(rz)]), initial=0.0)) or 1.0
            rmse = s * float(np.sqrt(np.mean((rz / s) ** 2)))
            abs_rel = float(np.mean(np.abs(rz) / zg))
            epe = float(np.mean(np.abs(d[have] - g[have])))
        else:
            rmse = abs_rel = epe = np.nan
        bad = float(n - (np.abs(d[have] - g[have]) <= k).sum()) / n
    return DepthAccuracy(delta_1, rmse, abs_rel, epe, bad, k, n, int(n - have.sum()))


def _as_points(x, name):
    a = as_float_array(x, name, allow_nan=True)
    if a.ndim < 2 or a.shape[-1] != 3:
        raise ValueError(f"{name} must hold 3-D points, shape (..., 3), got shape {a.shape}")
    if np.isinf(a).any():
        raise ValueError(f"{name} contains infinite coordinates")
    return a


@dataclass(frozen=True, eq=False, repr=False)
class LandmarkError(Result):
    """Landmark 3-D distance error (L3DE) (:func:`landmark_error`).

    Attributes
    ----------
    estimate : float
        The mean Euclidean distance between estimated and true landmarks (the points' unit).
    median : float
    distances : numpy.ndarray
        The distance of every landmark (NaN where the estimate is missing).
    n : int
        Landmarks with an estimate.
    n_missing : int

    Examples
    --------
    >>> from learncore.stereo import landmark_error
    >>> landmark_error([[0.0, 0.0, 3.0]], [[0.0, 4.0, 0.0]]).estimate
    5.0
    """

    estimate: float
    median: float
    distances: np.ndarray
    n: int
    n_missing: int

    def _repr_parts(self):
        return [("estimate", self.estimate), ("median", self.median), ("n", self.n)]

    def summary(self) -> str:
        return (f"\n\tLandmark 3-D distance error (L3DE)\n\nmean {self.estimate:.4g}   median {self.median:.4g}   "
                f"({self.n} landmarks, {self.n_missing} missing)\n")

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame({"landmark": np.arange(self.distances.size), "distance": self.distances})


@public_function(data=("points", "points_gt"), nan_policy=None)
def landmark_error(points, points_gt):
    """Landmark 3-D distance error (L3DE): the Euclidean distance between each estimated 3-D landmark
    (a 2-D landmark lifted by the estimated depth, :func:`back_project`) and the truth, and its mean.

    Parameters
    ----------
    points : array_like
        (..., 3) estimated landmarks; a NaN coordinate marks a missing estimate (left out of the mean,
        counted in ``n_missing``).
    points_gt : array_like
        (..., 3) true landmarks, the same shape (finite).

    Returns
    -------
    LandmarkError

    References
    ----------
    HumanStereo (the seed paper's landmark 3-D error).

    Examples
    --------
    >>> from learncore.stereo import landmark_error
    >>> res = landmark_error([[0.0, 0.0, 501.0], [32.0, 0.0, 500.0]], [[0.0, 0.0, 500.0], [30.0, 0.0, 500.0]])
    >>> round(res.estimate, 9)
    1.5
    """
    p = _as_points(points, "points")
    g = _as_points(points_gt, "points_gt")
    _same_shape(p, g, "points", "points_gt")
    if np.isnan(g).any():
        raise ValueError("points_gt contains NaN; the true landmarks must be complete")
    p2, g2 = p.reshape(-1, 3), g.reshape(-1, 3)
    s = float(max(np.nanmax(np.abs(p2), initial=0.0), np.abs(g2).max(), 1e-300))
    dist = s * np.sqrt((((p2 - g2) / s) ** 2).sum(axis=1))
    ok = ~np.isnan(dist)
    if not ok.any():
        raise ValueError("points has no complete landmark (every estimate is NaN)")
    return LandmarkError(float(dist[ok].mean()), float(np.median(dist[ok])), dist, int(ok.sum()),
                         int((~ok).sum()))


@public_function(data=("pupils", "pupils_gt"), nan_policy=None)
def ipd_error(pupils, pupils_gt):
    """Inter-pupillary distance error: IPD(estimate) - IPD(truth), the IPD being the 3-D distance between
    the two pupils, per subject.

    Parameters
    ----------
    pupils : array_like
        (2, 3) estimated pupils (left, right) of one subject, or (n, 2, 3) of n subjects; NaN where
        missing (gives a NaN error).
    pupils_gt : array_like
        The true pupils, the same shape.

    Returns
    -------
    float or numpy.ndarray
        The signed error (the points' unit), one per subject.

    References
    ----------
    HumanStereo (the seed paper's IPD error, against the clinical 1 mm tolerance).

    Examples
    --------
    >>> from learncore.stereo import ipd_error
    >>> ipd_error([[-32.5, 0.0, 500.0], [32.0, 0.0, 500.0]], [[-32.0, 0.0, 500.0], [32.0, 0.0, 500.0]])
    0.5
    """
    p = _as_points(pupils, "pupils")
    g = _as_points(pupils_gt, "pupils_gt")
    _same_shape(p, g, "pupils", "pupils_gt")
    if p.ndim not in (2, 3) or p.shape[-2] != 2:
        raise ValueError(f"pupils must be (2, 3) or (n, 2, 3) (left and right pupil), got shape {p.shape}")
    if np.isnan(g).any():
        raise ValueError("pupils_gt contains NaN; the true pupils must be complete")
    s = float(max(np.nanmax(np.abs(p), initial=0.0), np.abs(g).max(), 1e-300))
    ipd = s * np.sqrt((((p[..., 0, :] - p[..., 1, :]) / s) ** 2).sum(axis=-1))
    ipd_gt = s * np.sqrt((((g[..., 0, :] - g[..., 1, :]) / s) ** 2).sum(axis=-1))
    err = ipd - ipd_gt
    return float(err) if err.ndim == 0 else err
