"""The deep-GP prior study of issue 20 (learncore.deepgp) and the sampler's timing, in one run.

    python benchmarks/bench_deepgp.py            # the full study; 5 timing runs per case
    python benchmarks/bench_deepgp.py --quick    # smaller Monte Carlo, 2 timing runs

Prints:

1. r_c(d) for d = 1..200 (closed form), the fitted constant c of r_c(d) ~ c sqrt(d) (least squares
   over d = 1..200 and over d >= 10), and Monte Carlo thresholds with 95% intervals for
   d in {1, 2, 5, 10, 50, 200};
2. the threshold scan: median log10 distance after 200 layers on a (d, r / r_c) grid, and how many
   cells the chain rule classifies as the sign of the exponent says;
3. the limit below r_c: kurtosis, normality, correlation, dHSIC and dcor tests of the two-point
   difference (2000 draws), and the stable mode counts of one function's centred images
   (kind "centred", 300 inputs, 30 layers, 4 draws) on a (d, r / r_c) grid: the multimodal regime;
4. the time of one exact draw at 200 inputs in R^2 through 100 layers: learncore (torch eigh, torch
   Cholesky) against the same algorithm written with numpy (numpy.linalg.eigh), the plain-numpy way
   an R or Python deep-GP sampler draws a prior (no peer locates the threshold; GPyTorch's DeepGP
   layers are variational and not installed here, as they would pull another torch build).
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np
import torch
from threadpoolctl import threadpool_limits

from _timing import median_time
from learncore.deepgp import (bandwidth_threshold, limit_distribution, sample_deep_gp, threshold_scan)


def numpy_sampler(X: np.ndarray, depth: int, r: float, rng: np.random.Generator) -> np.ndarray:
    """The peer: the same exact layer-by-layer draw in numpy (eigendecomposition, clipped)."""
    Z = X.copy()
    for _ in range(depth):
        sq = ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
        w, V = np.linalg.eigh(np.exp(-sq / (2 * r * r)))
        Z = (V * np.sqrt(np.clip(w, 0, None))) @ rng.standard_normal(Z.shape)
    return Z


def study_threshold(quick: bool) -> None:
    ds = np.arange(1, 201)
    rc = np.array([bandwidth_threshold(int(d)).estimate for d in ds])
    c_all = float((rc * np.sqrt(ds)).sum() / ds.sum())
    big = ds >= 10
    c_big = float((rc[big] * np.sqrt(ds[big])).sum() / ds[big].sum())
    print("== 1. r_c(d) = sqrt(2) exp(digamma(d/2) / 2), sigma = 1")
    print(f"fitted r_c ~ c sqrt(d): c = {c_all:.4f} (d = 1..200), c = {c_big:.4f} (d = 10..200); "
          f"r_c / sqrt(d) -> 1")
    n_chains = 500 if quick else 4000
    print(f"{'d':>4} {'r_c exact':>10} {'r_c/sqrt(d)':>12} {'r_c MC':>10} {'95% interval':>22}   ({n_chains} chains x 50 layers)")
    for d in (1, 2, 5, 10, 50, 200):
        ex = bandwidth_threshold(d)
        mc = bandwidth_threshold(d, method="monte_carlo", n_chains=n_chains, depth=50, seed=d)
        print(f"{d:>4} {ex.estimate:>10.4f} {ex.ratio_sqrt_d:>12.4f} {mc.estimate:>10.4f} "
              f"   [{mc.conf_low:.4f}, {mc.conf_high:.4f}]")


def study_scan(quick: bool) -> None:
    ds = [1, 2, 5, 10, 50, 200]
    ratios = [0.5, 0.8, 0.9, 0.95, 1.05, 1.1, 1.25, 1.5]
    scan = threshold_scan(ds, ratios, relative=True, depth=200, n_chains=50 if quick else 400, seed=0)
    f = scan.to_frame()
    print("\n== 2. threshold scan: median log10 D after 200 layers (rows d, columns r / r_c)")
    print(" d    " + " ".join(f"{x:>7.2f}" for x in ratios))
    for d in ds:
        row = f[f.d == d]
        print(f"{d:>3}  " + " ".join(f"{v / math.log(10):>7.2f}" for v in row.median_log_distance))
    agree = int((scan.degenerate == (scan.exponent < 0)).sum())
    print(f"degenerate by the chain rule (median D_L < 1e-8): {int(scan.degenerate.sum())} of {len(f)} cells; "
          f"{agree} agree with the sign of the exponent")


def study_limit(quick: bool) -> None:
    print("\n== 3a. the two-point difference below r_c (2000 draws, 100 layers)")
    print(f"{'d':>3} {'r/r_c':>6} {'kurt1':>7} {'p_kurt':>9} {'p_norm':>9} {'corr12':>7} {'p_corr':>7} "
          f"{'p_dhsic':>9} {'p_dcor':>7} {'modes':>6}")
    for d in (2, 5, 10):
        rc = bandwidth_threshold(d).estimate
        for ratio in (0.5, 0.8, 0.95):
            res = limit_distribution(ratio * rc, d, depth=100, n_samples=2000, B=199, seed=d)
            print(f"{d:>3} {ratio:>6.2f} {res.excess_kurtosis[0]:>7.2f} {res.kurtosis_p_value[0]:>9.2e} "
                  f"{res.normality_p_value[0]:>9.2e} {res.corr[0, 1]:>7.3f} {res.corr_p:>7.3f} {res.dhsic.p_value:>9.2e} "
                  f"{res.dcor.p_value:>7.3f} {int(res.stable_modes.max()):>6}")
    print("\n== 3b. one function's centred images (300 inputs x ~ N(0, I), 30 layers): stable modes of z1 "
          "in 4 draws")
    ratios = (0.3, 0.5, 0.7, 0.8, 0.9, 0.95)
    print(" d    " + " ".join(f"{x:>10.2f}" for x in ratios))
    for d in ((1, 2, 5) if quick else (1, 2, 3, 5, 10)):
        rc = bandwidth_threshold(d).estimate
        cells = []
        for ratio in ratios:
            counts = [int(limit_distribution(ratio * rc, d, depth=30, n_samples=300, kind="centred", B=99,
                                             max_coords=1, seed=s).stable_modes[0])
                      for s in range(2 if quick else 4)]
            cells.append("".join(str(c) for c in counts))
        print(f"{d:>3}  " + " ".join(f"{c:>10}" for c in cells))


def bench_time(reps: int) -> None:
    X = np.random.default_rng(0).normal(size=(200, 2))
    r = 0.8 * bandwidth_threshold(2).estimate
    # one thread for both (statcore's thread_limit inside the dHSIC calls of section 3 may leave
    # OpenMP, which torch shares, at the machine's count)
    torch.set_num_threads(1)
    with threadpool_limits(1), torch.inference_mode():
        t_eigh = median_time(lambda: sample_deep_gp(X, depth=100, r=r, seed=0), reps)
        t_chol = median_time(lambda: sample_deep_gp(X, depth=100, r=r, method="cholesky", seed=0), reps)
    rng = np.random.default_rng(0)
    with threadpool_limits(1):
        t_np = median_time(lambda: numpy_sampler(X, 100, r, rng), reps)
    rows = [("learncore eigh (torch)", t_eigh), ("learncore cholesky (torch)", t_chol), ("numpy eigh (peer)", t_np)]
    print(f"\n== 4. one exact draw, 200 inputs in R^2, 100 layers, r = 0.8 r_c (median of {reps}; "
          f"torch threads {torch.get_num_threads()})")
    for name, t in rows:
        print(f"{name:<28} {t:8.3f} s   ratio to numpy {t / t_np:5.2f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(1)
    t0 = time.perf_counter()
    study_threshold(args.quick)
    study_scan(args.quick)
    study_limit(args.quick)
    bench_time(2 if args.quick else 5)
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
