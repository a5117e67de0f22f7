"""Time statcore.ihw against Bioconductor IHW 1.26.0 ``ihw()`` on the same p-values and covariate.

    python benchmarks/bench_ihw.py            # m = 2e5 (R needs about 20 s)
    python benchmarks/bench_ihw.py --quick    # m = 2e4

Both run with the automatic lambda (R's grid, nested 5-fold cross-validation in each of 5 folds) and
nbins="auto" (40 strata at m = 2e5). R is timed inside R (system.time of one call), so its start-up
and the data transfer are not counted; statcore's time is the median of 3 calls after a warm-up
call (the numba Grenander kernel compiles once). Prints the times, the ratio R/statcore and the numbers
of rejections of both.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
from scipy import stats

import statcore as sc
from _timing import median_time


def simulate(m: int, seed: int = 1):
    rng = np.random.default_rng(seed)
    x = rng.uniform(size=m)
    signal = rng.uniform(size=m) < 0.05 + 0.25 * x
    return stats.norm.sf(rng.normal(np.where(signal, 2.5, 0.0))), x


def r_time(p: np.ndarray, x: np.ndarray) -> tuple[float, int] | None:
    if shutil.which("Rscript") is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "d.bin"
        np.concatenate([p, x]).astype("<f8").tofile(path)
        code = (f'suppressMessages(library(IHW)); v <- readBin("{path}", "double", n = {2 * p.size}); '
                f'p <- v[1:{p.size}]; x <- v[{p.size + 1}:{2 * p.size}]; '
                "t <- system.time(r <- ihw(p, x, alpha = 0.1)); cat(t[['elapsed']], rejections(r), '\\n')")
        out = subprocess.run(["Rscript", "--vanilla", "-e", code], capture_output=True, text=True, timeout=3600)
    if out.returncode != 0:
        return None
    t, rj = out.stdout.split()
    return float(t), int(rj)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    m = 20_000 if args.quick else 200_000
    p, x = simulate(m)
    t_sc, res = median_time(lambda: sc.ihw(p, x, alpha=0.1, seed=1), reps=3, with_output=True)
    n_sc = res.n_rejections
    r = r_time(p, x)
    print(f"m = {m:,}: statcore {t_sc:.2f} s ({n_sc} rejections)", end="")
    if r is None:
        print("; R IHW not available")
    else:
        print(f"; R IHW {r[0]:.2f} s ({r[1]} rejections); R / statcore = {r[0] / t_sc:.1f}")


if __name__ == "__main__":
    main()
