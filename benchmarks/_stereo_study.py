"""The stereo depth-accuracy study (HumanStereo's metrics; the matchers, the rig and the study are ours).

- the real demo: every matcher on scikit-image's Middlebury 2014 Motorcycle pair, its relative metrics
  (delta_1, RMSE, end-point error, bad-2) next to the absolute inlier ratio IR(tau) with
  ``within_tolerance``'s block-bootstrap interval, error maps and IR against tau;
- the face-rig study: simulated subjects (``face_rig``) at several baselines, the pupils' true pixels lifted
  by each matcher's depth, the IPD error against the truth by ``statcore.bland_altman`` and
  ``statcore.tost`` at the clinical 1 mm margin.

Shared by ``benchmarks/stereo_demo.py`` (the full run) and ``vignettes/protocol_stereo.py`` (a small one);
on the public API only.
"""
from __future__ import annotations

import time

import numpy as np
import pandas as pd

import statcore as sc
from learncore.stereo import (StereoScene, back_project, block_match, depth_accuracy, disparity_to_depth, face_rig,
                              inlier_ratio, ipd_error, landmark_error, opencv_sgbm, semi_global_match)


def matchers(with_opencv=True):
    """name -> f(left, right, max_disparity): the matchers compared (OpenCV's SGBM when installed)."""
    out = {
        "block_match (SAD 9x9)": lambda L, R, m: block_match(L, R, max_disparity=m, window=9, cost="sad"),
        "block_match (ZNCC 9x9)": lambda L, R, m: block_match(L, R, max_disparity=m, window=9, cost="zncc"),
        "semi_global_match (census, 8 paths)": lambda L, R, m: semi_global_match(L, R, max_disparity=m),
    }
    if with_opencv:
        try:
            import cv2  # noqa: F401

            out["opencv_sgbm (5x5, HH)"] = lambda L, R, m: opencv_sgbm(L, R, max_disparity=m, window=5)
        except ImportError:  # pragma: no cover
            pass
    return out


def downsample(scene: StereoScene, factor: int = 2) -> StereoScene:
    """The scene at 1 / factor resolution: images averaged over factor x factor blocks, the true disparity
    (a block's mean, NaN if any pixel has none) and every pixel quantity (f, doffs, cx, cy) divided by
    factor, so that the depth Z = f B / (d + doffs) is unchanged."""
    k = int(factor)
    H, W = (scene.left.shape[0] // k) * k, (scene.left.shape[1] // k) * k

    def pool(a):
        return a[:H, :W].reshape(H // k, k, W // k, k).mean(axis=(1, 3))

    d = pool(scene.disparity) / k  # NaN anywhere in a block propagates
    f, doffs = scene.f / k, scene.doffs / k
    z = f * scene.baseline / (d + doffs)
    # pixel centres: the block's centre (k - 1) / 2 in the old grid maps to 0 in the new one
    cx, cy = (scene.cx - (k - 1) / 2) / k, (scene.cy - (k - 1) / 2) / k
    return StereoScene(left=pool(scene.left), right=pool(scene.right), disparity=d, depth=z, f=f,
                       baseline=scene.baseline, doffs=doffs, cx=cx, cy=cy, landmarks=scene.landmarks,
                       landmark_pixels=(scene.landmark_pixels - (k - 1) / 2) / k,
                       landmark_names=scene.landmark_names, ipd=scene.ipd, name=f"{scene.name}, 1/{k}")


def evaluate_scene(scene, max_disparity, taus=(5.0, 10.0, 20.0, 50.0), block=(50, 50), B=999, seed=0,
                   methods=None):
    """Every matcher on ``scene``: a table (one row per matcher: time, delta_1, RMSE, EPE, bad-2, missing,
    IR(tau) with its block-bootstrap interval for each tau), and the disparity maps."""
    methods = matchers() if methods is None else methods
    rows, disps = [], {}
    for name, run in methods.items():
        t0 = time.perf_counter()
        d = run(scene.left, scene.right, max_disparity)
        secs = time.perf_counter() - t0
        disps[name] = d
        acc = depth_accuracy(d, scene.disparity, f=scene.f, baseline=scene.baseline, doffs=scene.doffs, k=2.0)
        z = disparity_to_depth(d, f=scene.f, baseline=scene.baseline, doffs=scene.doffs)
        row = {"matcher": name, "seconds": secs, "delta_1": acc.delta_1, "rmse_mm": acc.rmse, "abs_rel": acc.abs_rel,
               "epe_px": acc.epe, "bad_2": acc.bad, "missing": acc.n_missing}
        for tau in taus:
            ir = inlier_ratio(z, scene.depth, tau=tau, block=block, B=B, seed=seed)
            row[f"ir_{tau:g}"] = ir.estimate
            row[f"ir_{tau:g}_low"] = ir.conf_low
            row[f"ir_{tau:g}_high"] = ir.conf_high
        rows.append(row)
    return pd.DataFrame(rows), disps


def ir_curves(scene, disps, taus, block=(50, 50), B=499, seed=0):
    """IR(tau) with its block-bootstrap interval on a grid of tau, for each matcher: a long table."""
    rows = []
    for name, d in disps.items():
        z = disparity_to_depth(d, f=scene.f, baseline=scene.baseline, doffs=scene.doffs)
        for tau in taus:
            ir = inlier_ratio(z, scene.depth, tau=tau, block=block, B=B, seed=seed)
            rows.append({"matcher": name, "tau": tau, "ir": ir.estimate, "conf_low": ir.conf_low,
                         "conf_high": ir.conf_high})
    return pd.DataFrame(rows)


def plot_error_maps(scene, disps, path=None, vmax=50.0):
    """The absolute depth error of each matcher (mm, clipped at ``vmax``; grey where the truth or the
    estimate is missing); the title's IR(10 mm) counts a missing estimate as an outlier."""
    import matplotlib.pyplot as plt

    n = len(disps) + 1
    fig, axes = plt.subplots(1, n, figsize=(3.0 * n, 2.6), constrained_layout=True)
    axes[0].imshow(scene.left, cmap="gray")
    axes[0].set_title("left image", fontsize=9)
    cmap = plt.get_cmap("magma", 10).copy()  # 10 bins of vmax / 10 mm: readable, and a small png
    cmap.set_bad("0.85")
    im = None
    for ax, (name, d) in zip(axes[1:], disps.items()):
        z = disparity_to_depth(d, f=scene.f, baseline=scene.baseline, doffs=scene.doffs)
        err = np.abs(np.where(np.isinf(z), np.nan, z) - scene.depth)
        im = ax.imshow(np.minimum(err, vmax), cmap=cmap, vmin=0, vmax=vmax)
        ir = np.mean((err <= 10.0)[~np.isnan(scene.depth)])
        ax.set_title(f"{name}\nIR(10 mm) {ir:.2f}", fontsize=8)
    for ax in axes:
        ax.axis("off")
    fig.colorbar(im, ax=axes[1:].tolist(), shrink=0.8, label=f"abs depth error (mm, clipped at {vmax:g})")
    if path is not None:
        save_small_png(fig, path, dpi=80)
        plt.close(fig)
    return fig


def save_small_png(fig, path, dpi=80, colors=64):
    """A png with a palette of ``colors`` colours (an error map's noise does not compress in RGBA)."""
    import io

    from PIL import Image

    buf = io.BytesIO()
    fig.savefig(buf, dpi=dpi, format="png")
    buf.seek(0)
    Image.open(buf).convert("RGB").quantize(colors=colors).save(path, optimize=True)


def plot_ir_curves(curves, deltas=None, path=None):
    """IR against tau (log axis) for each matcher with its block-bootstrap band; ``deltas`` (matcher ->
    delta_1) as dashed horizontal lines: the relative metric that saturates."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.0, 3.8), constrained_layout=True)
    for i, (name, g) in enumerate(curves.groupby("matcher", sort=False)):
        color = f"C{i}"
        ax.plot(g["tau"], g["ir"], "o-", color=color, ms=3, label=name)
        ax.fill_between(g["tau"], g["conf_low"], g["conf_high"], color=color, alpha=0.2)
        if deltas is not None and name in deltas:
            ax.axhline(deltas[name], color=color, ls="--", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("tolerance tau (mm)")
    ax.set_ylabel("IR(tau)")
    ax.set_ylim(0, 1.02)
    ax.set_title("absolute inlier ratio (bands: block bootstrap; dashed: delta_1)", fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    if path is not None:
        fig.savefig(path, dpi=90)
        plt.close(fig)
    return fig


# -- the face-rig IPD study --------------------------------------------------------------------------

def rig_subjects(n, seed=0):
    """n simulated subjects: (seed, true pupil distance in mm, nose-tip distance in mm)."""
    rng = np.random.default_rng(seed)
    ipd = np.clip(rng.normal(63.0, 3.5, n), 54.0, 74.0)  # adult IPDs, roughly
    dist = rng.uniform(400.0, 500.0, n)
    seeds = rng.integers(0, 2 ** 31 - 1, n)
    return [(int(s), float(i), float(d)) for s, i, d in zip(seeds, ipd, dist)]


def rig_study(n_subjects=20, baselines=(5.0, 10.0, 20.0, 40.0), shape=(160, 200), f=400.0, seed=0, methods=None,
              progress=None):
    """Each subject at each baseline, each matcher: the true and estimated IPD (the pupils' true pixels
    lifted by the matcher's depth), the IPD error, L3DE over the 10 landmarks and IR(2 mm) on the head
    (pixels nearer than the background plane). One row per (subject, baseline, matcher). ``shape`` and
    ``f`` scaled together keep the field of view (every landmark inside the image)."""
    methods = matchers() if methods is None else methods
    rows = []
    for k, (s, ipd, dist) in enumerate(rig_subjects(n_subjects, seed)):
        for B in baselines:
            scene = face_rig(ipd=ipd, baseline=B, distance=dist, shape=shape, f=f, seed=s)
            m = int(np.ceil(np.nanmax(scene.disparity))) + 8
            head = scene.depth < np.nanmax(scene.depth) - 1.0
            gt = np.where(head, scene.depth, np.nan)
            for name, run in methods.items():
                d = run(scene.left, scene.right, m)
                z = disparity_to_depth(d, f=scene.f, baseline=scene.baseline, doffs=scene.doffs)
                p = back_project(z, f=scene.f, cx=scene.cx, cy=scene.cy, pixels=scene.landmark_pixels)
                l3 = landmark_error(p, scene.landmarks)
                err = ipd_error(p[:2], scene.landmarks[:2])
                rows.append({"subject": k, "baseline": B, "matcher": name, "ipd_true": scene.ipd,
                             "ipd_est": scene.ipd + err, "ipd_error": err, "l3de": l3.estimate,
                             "l3de_missing": l3.n_missing, "ir_2_head": inlier_ratio(z, gt, tau=2.0).estimate})
        if progress is not None:
            progress(k)
    return pd.DataFrame(rows)


def agreement(df, margin=1.0):
    """Per matcher and baseline: Bland-Altman (bias, limits of agreement and their exact intervals) of
    the estimated against the true IPD, and the paired TOST of equivalence at +-``margin`` mm."""
    rows = []
    for (name, B), g in df.groupby(["matcher", "baseline"], sort=False):
        ok = g["ipd_est"].notna().to_numpy()
        est, true = g["ipd_est"].to_numpy()[ok], g["ipd_true"].to_numpy()[ok]
        ba = sc.bland_altman(est, true)
        fr = ba.to_frame()
        t = sc.tost(est, true, paired=True, margin=margin)
        rows.append({"matcher": name, "baseline": B, "n": int(ok.sum()), "bias": ba.bias,
                     "bias_low": fr.loc["bias", "conf_low"], "bias_high": fr.loc["bias", "conf_high"],
                     "loa_low": ba.lower_loa, "loa_high": ba.upper_loa,
                     "loa_low_exact_low": fr.loc["lower_loa", "exact_conf_low"],
                     "loa_high_exact_high": fr.loc["upper_loa", "exact_conf_high"],
                     "tost_p": t.p_value, "equivalent": bool(t.p_value < 0.05),
                     "loa_within_margin": bool(-margin < ba.lower_loa and ba.upper_loa < margin),
                     "mean_abs_error": float(np.mean(np.abs(est - true))),
                     "l3de": float(g["l3de"].mean()), "ir_2_head": float(g["ir_2_head"].mean())})
    return pd.DataFrame(rows)


def plot_bland_altman(df, path=None, margin=1.0):
    """Bland-Altman panels, one per matcher: the IPD difference against the mean, by baseline, with the
    clinical margin."""
    import matplotlib.pyplot as plt

    names = list(dict.fromkeys(df["matcher"]))
    fig, axes = plt.subplots(1, len(names), figsize=(3.2 * len(names), 3.0), sharey=True, constrained_layout=True)
    axes = np.atleast_1d(axes)
    for ax, name in zip(axes, names):
        g = df[df["matcher"] == name]
        for j, (B, h) in enumerate(g.groupby("baseline")):
            ax.plot((h["ipd_est"] + h["ipd_true"]) / 2, h["ipd_est"] - h["ipd_true"], "o", ms=3, color=f"C{j}",
                    label=f"B = {B:g} mm")
        for y in (-margin, margin):
            ax.axhline(y, color="k", ls=":", lw=0.8)
        ax.axhline(0, color="k", lw=0.5)
        ax.set_title(name, fontsize=8)
        ax.set_xlabel("mean IPD (mm)")
    axes[0].set_ylabel("estimated - true IPD (mm)")
    axes[0].legend(fontsize=7)
    if path is not None:
        fig.savefig(path, dpi=80)
        plt.close(fig)
    return fig
