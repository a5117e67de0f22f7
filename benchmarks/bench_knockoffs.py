"""Knockoffs against the peers.

1. ``knockoff_s(method="sdp")`` at p = 500 against knockpy's SDP (``knockpy.smatrix.compute_smatrix(Sigma,
   method="sdp")``, needs cvxpy; without DSDP it solves the SDP with cvxpy and SCS) and R knockoff 0.3.6's
   ``create.solve_sdp`` (Rdsdp), each answer's lambda_min(2 Sigma - diag s) ("certificate") and sum(s) printed.
2. The fixed-X sampler at n = 2000, p = 500: ``knockoffs_fixed_x(X, method=...)`` against R knockoff's
   ``create.fixed(X, method=...)``, "equi" and "sdp", R timed inside R with ``system.time``.

Run: ``python benchmarks/bench_knockoffs.py [p] [--fixed-only | --smatrix-only]`` (R's timings with
``R_LIBS`` pointing at a library holding knockoff, e.g. ``R_LIBS=/work/rlib``; knockpy's when it imports).
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _timing import median_time  # noqa: E402

import statcore as sc  # noqa: E402
from statcore.utils import thread_limit  # noqa: E402


def sigmas(p):
    ar = 0.5 ** np.abs(np.subtract.outer(np.arange(p), np.arange(p)))
    A = np.random.default_rng(0).standard_normal((2 * p, p))
    return {"AR(1) 0.5": ar, "Wishart 2p": np.cov(A, rowvar=False)}


def cert(Sigma, s):
    return float(np.linalg.eigvalsh(2 * Sigma - np.diag(s))[0])


def r_sdp(Sigma):
    with tempfile.TemporaryDirectory() as d:
        np.savetxt(os.path.join(d, "S.csv"), Sigma, delimiter=",")
        code = (f"suppressMessages(library(knockoff)); S <- unname(as.matrix(read.csv('{d}/S.csv', header=FALSE))); "
                "S <- (S + t(S)) / 2; t0 <- proc.time()[3]; s <- create.solve_sdp(S); "
                f"cat(proc.time()[3] - t0, '\\n'); write(s, '{d}/s.txt', ncolumns=1)")
        out = subprocess.run(["Rscript", "-e", code], check=True, capture_output=True, text=True)
        return float(out.stdout.split()[0]), np.loadtxt(os.path.join(d, "s.txt"))


def r_fixed(X, method):
    """R's create.fixed(X, method) timed by system.time inside R; returns (seconds, s) with s read off
    diag(X'X - X'Xk) of R's normalised X."""
    n, p = X.shape
    with tempfile.TemporaryDirectory() as d:
        X.T.astype("<f8").tofile(os.path.join(d, "X.bin"))  # column-major for R's matrix()
        code = (f"suppressMessages(library(knockoff)); X <- matrix(readBin('{d}/X.bin', 'double', {n * p}), {n}, {p}); "
                f"tm <- system.time(kv <- create.fixed(X, method = '{method}'))[['elapsed']]; cat(tm, '\\n'); "
                f"write(diag(crossprod(kv$X) - crossprod(kv$X, kv$Xk)), '{d}/s.txt', ncolumns=1)")
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
        out = subprocess.run(["Rscript", "-e", code], check=True, capture_output=True, text=True, env=env)
        return float(out.stdout.split()[0]), np.loadtxt(os.path.join(d, "s.txt"))


def fixed_x(n=2000, p=500, reps=3):
    """knockoffs_fixed_x against R's create.fixed at n x p (rows N(0, AR(1) 0.5)), one BLAS thread on both
    sides (this R links the reference BLAS; statcore under ``thread_limit(1)``: on the shared machine the
    default OpenBLAS pool made a p = 50 SDP take 4 s instead of 0.05 s)."""
    with thread_limit(1):
        _fixed_x(n, p, reps)


def _fixed_x(n, p, reps):
    Sigma = sigmas(p)["AR(1) 0.5"]
    X = np.random.default_rng(1).standard_normal((n, p)) @ np.linalg.cholesky(Sigma).T
    for method in ("equi", "sdp"):
        r = reps if method == "equi" else 1
        t_sc, kv = median_time(lambda: sc.knockoffs_fixed_x(X, method=method, seed=0), r,
                               warmup=method == "equi", with_output=True)
        G = kv.X.T @ kv.X
        s = kv.smatrix.s
        print(f"fixed-X {method}, n = {n}, p = {p}: statcore {t_sc:.2f} s (median of {r}), sum(s) = {s.sum():.6f}, "
              f"certificate {cert(G, s):.2e}")
        if os.environ.get("R_LIBS"):
            try:
                ts = []
                for _ in range(r):
                    t_r, s_r = r_fixed(X, method)
                    ts.append(t_r)
                t_r = float(np.median(ts))
                print(f"  R create.fixed {t_r:.2f} s (median of {r}), sum(s) = {s_r.sum():.6f}, "
                      f"certificate {cert(G, s_r):.2e}; ratio R / statcore = {t_r / t_sc:.1f}")
            except (subprocess.CalledProcessError, FileNotFoundError) as e:
                print(f"  R: not available ({e})")


def main(p=500):
    """knockoff_s(method="sdp") against knockpy and R, one BLAS thread (``thread_limit(1)``; R: reference BLAS)."""
    with thread_limit(1):
        _main(p)


def _main(p):
    try:
        from knockpy.smatrix import compute_smatrix
    except Exception as e:  # knockpy imports cvxpy at module level
        compute_smatrix = None
        print(f"knockpy: not importable ({type(e).__name__}: {e}); no knockpy ratio")
    for name, Sigma in sigmas(p).items():
        t_sc, res = median_time(lambda: sc.knockoff_s(Sigma, method="sdp"), 1, warmup=False, with_output=True)
        print(f"{name}, p = {p}: statcore {t_sc:.2f} s, sum(s) = {res.s.sum():.6f}, certificate {res.certificate:.2e}, "
              f"{res.n_iter} Newton steps")
        if compute_smatrix is not None:
            import warnings
            with warnings.catch_warnings():  # knockpy warns that DSDP is missing and falls back to cvxpy
                warnings.simplefilter("ignore")
                t0 = time.perf_counter()
                S = compute_smatrix(Sigma, method="sdp")
                t_kp = time.perf_counter() - t0
            s = np.diag(S)
            print(f"  knockpy {t_kp:.2f} s, sum(s) = {s.sum():.6f}, certificate {cert(Sigma, s):.2e}; "
                  f"ratio knockpy / statcore = {t_kp / t_sc:.1f}")
            # statcore stopped at about knockpy's precision (its default SCS eps = 5e-3 leaves sum(s) short
            # of the optimum by ~1e-3 per variable): the barrier's duality gap per variable 1e-3
            t_lo, lo = median_time(lambda: sc.knockoff_s(Sigma, method="sdp", tol=1e-3), 1, warmup=False,
                                   with_output=True)
            print(f"  statcore tol=1e-3 {t_lo:.2f} s, sum(s) = {lo.s.sum():.6f}, certificate {lo.certificate:.2e}; "
                  f"ratio knockpy / statcore(tol=1e-3) = {t_kp / t_lo:.1f}")
        if os.environ.get("R_LIBS"):
            try:
                t_r, s = r_sdp(Sigma)
                print(f"  R create.solve_sdp {t_r:.2f} s, sum(s) = {s.sum():.6f}, certificate {cert(Sigma, s):.2e}; "
                      f"ratio R / statcore = {t_r / t_sc:.1f}")
            except (subprocess.CalledProcessError, FileNotFoundError) as e:
                print(f"  R: not available ({e})")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    size = int(args[0]) if args else 500
    if "--fixed-only" not in sys.argv:
        main(size)
    if "--smatrix-only" not in sys.argv:
        fixed_x(p=size)
