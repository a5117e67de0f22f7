"""Coverage of the inlier ratio's intervals on error images with known truth (issue 33.3).

The error image is a stationary Gaussian random field: white noise smoothed by a Gaussian kernel of
standard deviation ``s`` pixels (periodic boundary), scaled so that each pixel's error is N(0, sd^2)
exactly (the kernel's squared weights are summed). The true inlier ratio is then
IR(tau) = 2 Phi(tau / sd) - 1 for every image size. For each correlation length ``s`` and block side
``b`` we draw ``reps`` images (each image's stream from :func:`statcore.utils.spawn_seeds`; every interval is
computed on the same images) and record how often the 95% interval of
:func:`learncore.stereo.inlier_ratio` holds the truth: with ``block=(b, b)`` (the moving-block
bootstrap of :func:`statcore.within_tolerance`) and without (Wilson, which treats pixels as
independent).

    python benchmarks/stereo_ir_coverage.py            # 1000 images per cell
    python benchmarks/stereo_ir_coverage.py --n 256 --n-jobs 2  # 256 x 256 images, two workers
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import ndimage, stats

from learncore.stereo import inlier_ratio
from statcore.utils import parallel_map, spawn_seeds

OUT = Path(__file__).resolve().parent / "results" / "stereo"
SCALES = (0.0, 2.0, 4.0, 8.0)
INTERVALS = [("wilson", None)] + [(f"block {b}", (b, b)) for b in (4, 8, 16, 32)]


def kernel_norm(n: int, s: float) -> float:
    """sqrt of the sum of the squared weights of the periodic Gaussian kernel of s.d. s on an n x n grid."""
    delta = np.zeros((n, n))
    delta[0, 0] = 1.0
    return float(np.sqrt((ndimage.gaussian_filter(delta, s, mode="wrap") ** 2).sum()))


def one_image(stream, n: int, s: float, scale: float, tau: float, truth: float, B: int) -> list[tuple[bool, float]]:
    """One error field (smoothed white noise times ``scale``: N(0, sd^2) margins) and every interval's
    (covered, width) on it."""
    rng = np.random.default_rng(stream)
    white = rng.normal(size=(n, n))
    e = (white if s == 0 else ndimage.gaussian_filter(white, s, mode="wrap")) * scale
    gt = np.full((n, n), 600.0)
    out = []
    for _, block in INTERVALS:
        res = inlier_ratio(gt + e, gt, tau=tau, block=block, B=B, seed=rng)
        out.append((res.conf_low <= truth <= res.conf_high, res.conf_high - res.conf_low))
    return out


def run(reps: int, n: int, sd: float, tau: float, B: int, seed: int, n_jobs: int = 1) -> pd.DataFrame:
    """Coverage and mean width of each interval, the same ``reps`` images for all of them in a cell."""
    truth = 2 * stats.norm.cdf(tau / sd) - 1
    rows = []
    for cell, s in enumerate(SCALES):
        scale = sd if s == 0 else sd / kernel_norm(n, s)
        streams = spawn_seeds(seed, reps, key=(cell,))
        res = np.array(parallel_map(one_image, [(st, n, s, scale, tau, truth, B) for st in streams], n_jobs=n_jobs))
        for j, (label, _) in enumerate(INTERVALS):
            cov = float(res[:, j, 0].mean())
            rows.append({"n": n, "s": s, "interval": label, "coverage": cov,
                         "mc_se": float(np.sqrt(cov * (1 - cov) / reps)),
                         "mean_width": float(res[:, j, 1].mean()), "reps": reps})
            print(f"s = {s:3.0f}  {label:9s} coverage {cov:.3f} (s.e. {rows[-1]['mc_se']:.3f}), "
                  f"mean width {rows[-1]['mean_width']:.4f}", flush=True)
    return pd.DataFrame(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--n", type=int, default=128)
    ap.add_argument("--B", type=int, default=499)
    ap.add_argument("--seed", type=int, default=20261206)
    ap.add_argument("--n-jobs", type=int, default=1)
    a = ap.parse_args()
    t0 = time.perf_counter()
    df = run(a.reps, a.n, sd=10.0, tau=10.0, B=a.B, seed=a.seed, n_jobs=a.n_jobs)
    OUT.mkdir(parents=True, exist_ok=True)
    df.to_csv(OUT / f"ir_coverage_{a.n}.csv", index=False)
    print(f"{a.n} x {a.n} images, sd = tau = 10 mm (true IR {2 * stats.norm.cdf(1) - 1:.4f}), B = {a.B}, "
          f"{a.reps} images per cell, the same images for every interval: {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
