"""knockoff_s(method="sdp") at p = 500 against the peers: knockpy's SDP (``knockpy.smatrix.compute_smatrix(
Sigma, method="sdp")``, needs cvxpy) and R knockoff 0.3.6's ``create.solve_sdp`` (Rdsdp), at equal
certificate (each answer's lambda_min(2 Sigma - diag s) and sum(s) are printed).

Run: ``python benchmarks/bench_knockoffs.py [p]`` (R's timing with ``R_LIBS`` pointing at a library holding
knockoff, e.g. ``R_LIBS=/work/rlib``; knockpy's when it imports).
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


def main(p=500):
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
            t0 = time.perf_counter()
            S = compute_smatrix(Sigma, method="sdp")
            t_kp = time.perf_counter() - t0
            s = np.diag(S)
            print(f"  knockpy {t_kp:.2f} s, sum(s) = {s.sum():.6f}, certificate {cert(Sigma, s):.2e}; "
                  f"ratio knockpy / statcore = {t_kp / t_sc:.1f}")
        if os.environ.get("R_LIBS"):
            try:
                t_r, s = r_sdp(Sigma)
                print(f"  R create.solve_sdp {t_r:.2f} s, sum(s) = {s.sum():.6f}, certificate {cert(Sigma, s):.2e}; "
                      f"ratio R / statcore = {t_r / t_sc:.1f}")
            except (subprocess.CalledProcessError, FileNotFoundError) as e:
                print(f"  R: not available ({e})")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 500)
