"""Independence testing against the peers (R energy, hyppo, dcor), in one run.

    python benchmarks/bench_indep.py --power             # the power table (n = 100, 6 designs)
    python benchmarks/bench_indep.py --power --reps 500
    python benchmarks/bench_indep.py --speed             # the speed sections of bench_indep_dcor.py and
                                                         # bench_indep_hsic.py (issue 15, section 3)
    python benchmarks/bench_indep.py --matrix            # independence_matrix: time against pair loops

Power: the standard designs of benchmarks/_indep_designs.py (linear, quadratic, circle, W-shape,
sinusoid, and four independent clouds, a null), n = 100, univariate, alpha = 0.05, ``--reps`` data sets
per design, the same data sets for every contender. Contenders: statcore's dcor_test (permutation,
B = 199, and the t-test), hsic_test (gamma and permutation); hyppo's Dcorr and Hsic (their default
``auto=True``: a chi-square approximation above n = 20, and the permutation test, reps = 199); the
``dcor`` package's permutation test (num_resamples = 199); R energy's dcor.test (R = 199), run in one R
session over the same data sets. Each cell: the rejection rate and its Monte Carlo standard error.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _indep_designs import DESIGNS, draw  # noqa: E402


def _contenders(B: int, peers: bool):
    import statcore

    out = {
        "statcore dcor perm": lambda x, y, s: statcore.dcor_test(x, y, B=B, seed=s).p_value,
        "statcore dcor t": lambda x, y, s: statcore.dcor_test(x, y, method="t").p_value,
        "statcore HSIC gamma": lambda x, y, s: statcore.hsic_test(x, y, method="gamma").p_value,
        "statcore HSIC perm": lambda x, y, s: statcore.hsic_test(x, y, method="permutation", B=B, seed=s).p_value,
    }
    if peers:
        try:
            from hyppo.independence import Dcorr, Hsic

            out["hyppo Dcorr auto"] = lambda x, y, s: Dcorr().test(x, y, reps=B, random_state=s)[1]
            out["hyppo Dcorr perm"] = lambda x, y, s: Dcorr().test(x, y, reps=B, auto=False, random_state=s)[1]
            out["hyppo Hsic auto"] = lambda x, y, s: Hsic().test(x, y, reps=B, random_state=s)[1]
            out["hyppo Hsic perm"] = lambda x, y, s: Hsic().test(x, y, reps=B, auto=False, random_state=s)[1]
        except ImportError:
            print("hyppo not installed: skipped")
        try:
            import dcor as dcor_pkg

            out["dcor pkg perm"] = lambda x, y, s: dcor_pkg.independence.distance_covariance_test(
                x, y, num_resamples=B, random_state=s).pvalue
        except ImportError:
            print("dcor not installed: skipped")
    return out


def _r_energy_pvalues(data: list, B: int) -> np.ndarray | None:
    """energy::dcor.test p-values for every (x, y) in ``data``, in one R session."""
    try:
        subprocess.run(["Rscript", "-e", "library(energy)"], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        print("R energy not available: skipped")
        return None
    with tempfile.TemporaryDirectory() as tmp:
        xs = np.column_stack([d[0][:, 0] for d in data])
        ys = np.column_stack([d[1][:, 0] for d in data])
        np.savetxt(os.path.join(tmp, "x.csv"), xs, delimiter=",")
        np.savetxt(os.path.join(tmp, "y.csv"), ys, delimiter=",")
        code = (f"suppressMessages(library(energy)); set.seed(1); x <- as.matrix(read.csv('{tmp}/x.csv', header=FALSE));"
                f"y <- as.matrix(read.csv('{tmp}/y.csv', header=FALSE));"
                f"p <- sapply(seq_len(ncol(x)), function(j) dcor.test(x[, j], y[, j], R = {B})$p.value);"
                "cat(format(p, digits = 17), sep = '\\n')")
        res = subprocess.run(["Rscript", "-e", code], check=True, capture_output=True, text=True)
    return np.array([float(v) for v in res.stdout.split()])


def power_table(reps: int, n: int, B: int, seed: int, peers: bool, alpha: float = 0.05) -> None:
    import pandas as pd

    conts = _contenders(B, peers)
    rng = np.random.default_rng(seed)
    rows, times = {}, {k: 0.0 for k in conts}
    r_time = 0.0
    for name in DESIGNS:
        data = [draw(name, n, rng) for _ in range(reps)]
        row = {}
        for label, fn in conts.items():
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                p = np.array([fn(x, y, 1000 + i) for i, (x, y) in enumerate(data)])
            times[label] += time.perf_counter() - t0
            row[label] = float(np.mean(p <= alpha))
        if peers:
            t0 = time.perf_counter()
            pr = _r_energy_pvalues(data, B)
            r_time += time.perf_counter() - t0
            if pr is not None:
                row["R energy dcor.test"] = float(np.mean(pr <= alpha))
        rows[name] = row
        print(f"  {name}: done", flush=True)
    table = pd.DataFrame(rows).T
    se = np.sqrt(0.05 * 0.95 / reps)
    print(f"\nPower at alpha = {alpha}, n = {n}, {reps} data sets per design, B = {B} "
          f"(MC s.e. <= {np.sqrt(0.25 / reps):.3f}; at the null {se:.3f})")
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.T.round(3).to_string())
    total = {k: v for k, v in times.items()}
    if peers and r_time:
        total["R energy dcor.test (incl. R start)"] = r_time
    print(f"\nTotal seconds over {len(DESIGNS) * reps} tests:")
    for k, v in total.items():
        print(f"  {k:38s} {v:8.2f}")


def matrix_timing(n: int = 500, k: int = 10, B: int = 199, reps: int = 3) -> None:
    """independence_matrix over k columns against a Python loop of dcor_test over the pairs (same B)."""
    import statcore
    from _timing import median_time

    rng = np.random.default_rng(0)
    data = rng.normal(size=(n, k))
    t_mat = median_time(lambda: statcore.independence_matrix(data, B=B, seed=1), reps)
    t_loop = median_time(lambda: [statcore.dcor_test(data[:, i], data[:, j], B=B, seed=1)
                                  for i in range(k) for j in range(i + 1, k)], reps)
    print(f"independence_matrix n={n}, k={k} ({k * (k - 1) // 2} pairs), B={B}: {t_mat:.3f} s; "
          f"loop of dcor_test: {t_loop:.3f} s; ratio {t_loop / t_mat:.2f}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--power", action="store_true")
    ap.add_argument("--speed", action="store_true")
    ap.add_argument("--matrix", action="store_true")
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--B", type=int, default=199)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--no-peers", action="store_true")
    args = ap.parse_args(argv)
    if not (args.power or args.speed or args.matrix):
        args.power = args.speed = args.matrix = True
    if args.power:
        power_table(args.reps, args.n, args.B, args.seed, not args.no_peers)
    if args.matrix:
        matrix_timing()
    if args.speed:
        for script in ("bench_indep_dcor.py", "bench_indep_hsic.py"):
            print(f"\n=== {script} ===", flush=True)
            subprocess.run([sys.executable, str(HERE / script)], check=False)


if __name__ == "__main__":
    main()
