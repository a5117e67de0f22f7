"""Stereo scenes with ground truth: a synthetic face-like rig, and scikit-image's Middlebury pair."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from statcore import Result
from statcore.utils import check_positive_int, check_positive_real, check_seed

__all__ = ["StereoScene", "face_rig", "stereo_motorcycle", "LANDMARKS"]

#: the face rig's landmarks, in the order of ``StereoScene.landmarks``
LANDMARKS = ("left_pupil", "right_pupil", "nose_tip", "left_eye_outer", "left_eye_inner", "right_eye_inner",
             "right_eye_outer", "mouth_left", "mouth_right", "chin")


@dataclass(frozen=True, eq=False, repr=False)
class StereoScene(Result):
    """A rectified stereo pair with ground truth (:func:`face_rig`, :func:`stereo_motorcycle`).

    Attributes
    ----------
    left, right : numpy.ndarray
        (H, W) grey images (float64).
    disparity : numpy.ndarray
        The true left disparity, NaN where unknown.
    depth : numpy.ndarray
        The true depth Z = f baseline / (disparity + doffs), NaN where unknown (mm).
    f : float
        Focal length (pixels).
    baseline : float
        Baseline (mm).
    doffs : float
        cx_right - cx_left (pixels).
    cx, cy : float
        The left principal point (pixels).
    landmarks : numpy.ndarray
        (n, 3) true 3-D landmarks in the left camera's frame (mm); (0, 3) when the scene has none.
    landmark_pixels : numpy.ndarray
        (n, 2) their (u, v) positions in the left image.
    landmark_names : tuple of str
    ipd : float
        The true inter-pupillary distance (mm; NaN without pupils).
    name : str

    Examples
    --------
    >>> from learncore.stereo import face_rig
    >>> scene = face_rig(shape=(60, 80), seed=0)
    >>> scene.left.shape, round(scene.ipd, 3) == round(float(((scene.landmarks[0] - scene.landmarks[1]) ** 2).sum() ** 0.5), 3)
    ((60, 80), True)
    """

    left: np.ndarray
    right: np.ndarray
    disparity: np.ndarray
    depth: np.ndarray
    f: float
    baseline: float
    doffs: float
    cx: float
    cy: float
    landmarks: np.ndarray
    landmark_pixels: np.ndarray
    landmark_names: tuple = field(default=())
    ipd: float = float("nan")
    name: str = ""

    def _repr_parts(self):
        return [("name", self.name), ("shape", self.left.shape), ("f", self.f), ("baseline", self.baseline)]

    def summary(self) -> str:
        d = self.disparity[~np.isnan(self.disparity)]
        return (f"\n\tStereo scene {self.name!r}: {self.left.shape[0]} x {self.left.shape[1]} pixels\n\n"
                f"f {self.f:g} px, baseline {self.baseline:g} mm, doffs {self.doffs:g} px, principal point "
                f"({self.cx:g}, {self.cy:g})\ntrue disparity {d.min():.2f} to {d.max():.2f} px on {d.size} pixels, "
                f"{len(self.landmark_names)} landmarks\n")

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame({"landmark": list(self.landmark_names), "u": self.landmark_pixels[:, 0],
                             "v": self.landmark_pixels[:, 1], "x": self.landmarks[:, 0], "y": self.landmarks[:, 1],
                             "z": self.landmarks[:, 2]})

    def _plot(self, ax=None):
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(1, 3, figsize=(11, 3))
        ax[0].imshow(self.left, cmap="gray")
        ax[0].plot(self.landmark_pixels[:, 0], self.landmark_pixels[:, 1], "r+", ms=6)
        ax[1].imshow(self.right, cmap="gray")
        im = ax[2].imshow(self.depth, cmap="viridis")
        plt.colorbar(im, ax=ax[2], label="depth (mm)")
        for a, t in zip(ax, ("left", "right", "true depth")):
            a.set_title(t)
            a.axis("off")
        return ax


def face_rig(*, ipd=64.0, baseline=60.0, distance=450.0, shape=(160, 200), f=400.0, noise=0.01, seed=None):
    """A synthetic face-like stereo rig: a textured parametric head rendered as a rectified pair with
    exact depth and 3-D landmarks, pupils included.

    The head is the front of an ellipsoid (semi-axes 75, 100, 90 mm; a random +-8% per subject) with a
    Gaussian nose (20 to 26 mm high) and two shallow eye recesses at +-ipd/2, in front of a plane 250 mm
    behind it. Its texture is a sum of 24 random plane waves fixed on the surface (so it moves with the
    surface between the views) with dark pupil discs of radius 3.5 mm. Each camera is a pinhole with focal
    length ``f``, principal point at the image centre, the right one ``baseline`` mm to the right of the
    left (doffs 0); every pixel's ray is marched to the surface and bisected to 1e-9 mm, the image is the
    texture averaged over 5 sub-pixel rays, plus Gaussian noise. The ground truth is the exact depth at the
    pixel centre and d = f baseline / Z.

    Parameters
    ----------
    ipd : float
        The inter-pupillary distance (mm).
    baseline : float
        The stereo baseline (mm).
    distance : float
        The depth of the nose tip (mm).
    shape : (int, int)
        Image rows and columns (16 to 4096 each).
    f : float
        Focal length (pixels).
    noise : float
        The standard deviation of the image noise (the texture spans about 0 to 1).
    seed : None, int or numpy.random.Generator
        The subject's shape, texture and noise.

    Returns
    -------
    StereoScene
        With the landmarks of ``LANDMARKS`` and the true ``ipd``.

    References
    ----------
    HumanStereo (the seed paper's landmark and IPD protocol, on real faces; this rig is our synthetic
    stand-in with known truth).

    Examples
    --------
    >>> from learncore.stereo import face_rig
    >>> scene = face_rig(ipd=62.0, shape=(60, 80), seed=1)
    >>> round(scene.ipd, 6)
    62.0
    """
    from . import _kernels as K

    ipd = check_positive_real(ipd, "ipd")
    baseline = check_positive_real(baseline, "baseline")
    distance = check_positive_real(distance, "distance")
    f = check_positive_real(f, "f")
    noise = float(noise)
    if not np.isfinite(noise) or noise < 0:
        raise ValueError(f"noise must be a finite standard deviation >= 0, got {noise}")
    if isinstance(shape, (str, bytes)) or not hasattr(shape, "__len__") or len(shape) != 2:
        raise TypeError(f"shape must be a pair (rows, columns), got {shape!r}")
    H, W = check_positive_int(shape[0], "shape[0]"), check_positive_int(shape[1], "shape[1]")
    if H < 16 or W < 16:
        raise ValueError(f"shape must be at least 16 x 16, got {(H, W)}")
    if H > 4096 or W > 4096:
        raise ValueError(f"shape must be at most 4096 x 4096 (a rendered rig, not a camera sensor), got {(H, W)}")
    rng = check_seed(seed)
    scale = 1.0 + rng.uniform(-0.08, 0.08, 3)
    a, b, c = 75.0 * scale[0], 100.0 * scale[1], 90.0 * scale[2]
    nose_h = rng.uniform(20.0, 26.0)
    nose_y = 5.0
    # the nose tip (X=x0, Y=y0+nose_y) lies at depth ``distance``: zc - c - nose_h = distance (up to the
    # eye recesses' tails, accounted for by the exact surface below)
    zc = distance + c + nose_h
    x0 = baseline / 2.0  # the head faces the middle of the rig
    y0 = 0.0
    eye_y, eye_depth, eye_s = -25.0, 6.0, 9.0
    par = np.array([zc, a, b, c, zc + 250.0, nose_h, 9.0, 18.0, nose_y, ipd / 2.0, eye_y, eye_depth, eye_s, x0, y0])
    k = 24
    wavelength = rng.uniform(3.0, 14.0, k)  # mm
    theta = rng.uniform(0, np.pi, k)
    freqs = np.stack([np.cos(theta), np.sin(theta)], axis=1) * (2 * np.pi / wavelength)[:, None]
    phases = rng.uniform(0, 2 * np.pi, k)
    amps = rng.uniform(0.2, 1.0, k)
    amps *= 0.45 / amps.sum() * 2.5
    pupil_r = 3.5
    cx, cy = (W - 1) / 2.0, (H - 1) / 2.0
    offsets = np.array([[0.0, 0.0], [-0.25, -0.25], [0.25, -0.25], [-0.25, 0.25], [0.25, 0.25]])
    z_near = max(zc - c - nose_h - 40.0, 1.0)
    # a ray-march step well under the nose's and the eyes' scale
    step = 2.0
    depth, img_l = K.render_rig(H, W, f, cx, cy, 0.0, par, freqs, phases, amps, pupil_r, z_near, step, offsets)
    _, img_r = K.render_rig(H, W, f, cx, cy, baseline, par, freqs, phases, amps, pupil_r, z_near, step, offsets)
    if noise > 0:
        img_l = img_l + rng.normal(0.0, noise, img_l.shape)
        img_r = img_r + rng.normal(0.0, noise, img_r.shape)
    disparity = f * baseline / depth
    # landmarks on the surface, (X, Y) relative to the head centre
    xy = np.array([[-ipd / 2, eye_y], [ipd / 2, eye_y], [0.0, nose_y], [-ipd / 2 - 14, eye_y], [-ipd / 2 + 12, eye_y],
                   [ipd / 2 - 12, eye_y], [ipd / 2 + 14, eye_y], [-22.0, 45.0], [22.0, 45.0], [0.0, 78.0]])
    # pupils: left/right in the image (the subject's right eye appears on the image's left)
    pts = np.empty((xy.shape[0], 3))
    for i, (X, Y) in enumerate(xy):
        Xw, Yw = X + x0, Y + y0
        pts[i] = (Xw, Yw, K.head_depth(Xw, Yw, par))
    pix = np.stack([f * pts[:, 0] / pts[:, 2] + cx, f * pts[:, 1] / pts[:, 2] + cy], axis=1)
    true_ipd = float(np.sqrt(((pts[0] - pts[1]) ** 2).sum()))
    return StereoScene(left=img_l, right=img_r, disparity=disparity, depth=depth, f=float(f), baseline=float(baseline),
                       doffs=0.0, cx=cx, cy=cy, landmarks=pts, landmark_pixels=pix, landmark_names=LANDMARKS,
                       ipd=true_ipd, name="face rig")


def stereo_motorcycle():
    """scikit-image's Middlebury 2014 "Motorcycle" pair, grey, with its true disparity and calibration.

    The pair is Middlebury's ``Motorcycle`` (default exposure) down-sampled 4 x 4 by scikit-image
    (``skimage.data.stereo_motorcycle``, 500 x 741 pixels). Middlebury's ``calib.txt`` for the full
    resolution (2964 x 2000) gives cam0 = [3979.911 0 1244.772; 0 3979.911 1019.507; 0 0 1],
    cam1 = [3979.911 0 1369.115; ...], doffs = 124.343, baseline = 193.001 mm, ndisp = 270. Pixel
    quantities scale with the image: f = 3979.911 / 4 = 994.978 px, cx = 311.193, cy = 254.877,
    doffs = 124.343 / 4 = 31.086 px (as scikit-image documents); the baseline stays 193.001 mm and the
    disparities shrink by 4 (7.2 to 59.9 px here), so Z = f B / (d + doffs) is unchanged.

    Returns
    -------
    StereoScene
        ``left``, ``right`` (grey, 0..255), ``disparity`` (NaN where Middlebury has none), ``depth``.

    References
    ----------
    Scharstein, D., Hirschmuller, H., Kitajima, Y., Krathwohl, G., Nesic, N., Wang, X. & Westling, P.
    (2014). High-resolution stereo datasets with subpixel-accurate ground truth. GCPR 2014.
    ``skimage.data.stereo_motorcycle``.

    Examples
    --------
    >>> from learncore.stereo import stereo_motorcycle
    >>> scene = stereo_motorcycle()
    >>> scene.left.shape, scene.f, scene.doffs
    ((500, 741), 994.978, 31.086)
    """
    from skimage.data import stereo_motorcycle as load

    left, right, disp = load()
    grey = np.array([0.299, 0.587, 0.114])
    L = left.astype(float) @ grey
    R = right.astype(float) @ grey
    d = disp.astype(float)
    if d.ndim == 3:
        d = d[..., 0]
    d[~np.isfinite(d)] = np.nan
    f, B, doffs = 994.978, 193.001, 31.086
    z = f * B / (d + doffs)
    return StereoScene(left=L, right=R, disparity=d, depth=z, f=f, baseline=B, doffs=doffs, cx=311.193, cy=254.877,
                       landmarks=np.empty((0, 3)), landmark_pixels=np.empty((0, 2)), landmark_names=(),
                       ipd=float("nan"), name="Middlebury 2014 Motorcycle (scikit-image, 1/4 scale)")
