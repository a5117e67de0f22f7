"""Time statcore's NPMLE against R's mixsqp (Kim, Carbonetto & Stephens 2020) and an EM baseline.

    python benchmarks/bench_npmle.py            # n = 1e5, grid 300 (the issue's design)
    python benchmarks/bench_npmle.py --quick    # n = 2e4, for a smoke run

Data: theta = 0 (80%), -2 (10%), 3 (10%), x = theta + N(0, 1). All fits use the same 300 atoms
(statcore's default grid for these data). R is timed inside R on the likelihood matrix it was
handed (building dnorm(outer(...)) is NOT counted against R); statcore's time is the whole
``npmle(x, grid=atoms)`` call including its likelihood matrix. Log-likelihoods and KKT certificates
max_j (1/n) sum_i L_ij / (L w)_i of every solution are recomputed here the same way, in numpy.
Prints medians over repeated runs and the ratio R / statcore.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from statcore.ebayes import npmle
from statcore.ebayes._mixture import make_grid
from _timing import median_time


def loglik_and_kkt(x, atoms, w, chunk=10_000):
    """sum_i log f(x_i) and the KKT certificate, straight from the Gaussian densities."""
    w = np.asarray(w, float) / np.sum(w)
    ll = 0.0
    r = np.zeros(atoms.size)
    for s in range(0, x.size, chunk):
        L = np.exp(-0.5 * (x[s:s + chunk, None] - atoms) ** 2) / np.sqrt(2 * np.pi)
        f = L @ w
        ll += float(np.sum(np.log(f)))
        r += L.T @ (1.0 / f)
    return ll, float(r.max() / x.size)


def run_mixsqp(x, atoms, reps):
    """(median seconds of mixsqp(L) over reps runs, weights, R's status, mixsqp version) or None."""
    if shutil.which("Rscript") is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        x.astype("<f8").tofile(tmp / "x.bin")
        atoms.astype("<f8").tofile(tmp / "a.bin")
        code = f"""
if (!requireNamespace("mixsqp", quietly = TRUE)) quit(status = 3)
library(mixsqp)
x <- readBin("{tmp / 'x.bin'}", "double", n = {x.size})
a <- readBin("{tmp / 'a.bin'}", "double", n = {atoms.size})
L <- dnorm(outer(x, a, "-"))
ts <- numeric({reps})
for (k in 1:{reps}) ts[k] <- system.time(fit <- mixsqp(L, control = list(verbose = FALSE)))[["elapsed"]]
writeBin(fit$x, "{tmp / 'w.bin'}")
cat(median(ts), "\\n")
cat(fit$status, "\\n")
cat(as.character(packageVersion("mixsqp")), "\\n")
"""
        (tmp / "run.R").write_text(code)
        res = subprocess.run(["Rscript", "--vanilla", str(tmp / "run.R")], capture_output=True, text=True,
                             timeout=7200)
        if res.returncode == 3:
            return None
        if res.returncode != 0:
            raise RuntimeError(res.stderr)
        lines = res.stdout.strip().splitlines()
        w = np.fromfile(tmp / "w.bin", dtype="<f8")
        return float(lines[0]), w, lines[1].strip(), lines[2].strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--r-reps", type=int, default=3)
    ap.add_argument("--em-iter", type=int, default=500)
    args = ap.parse_args()
    n = 20_000 if args.quick else 100_000
    rng = np.random.default_rng(2026)
    theta = rng.choice([0.0, -2.0, 3.0], size=n, p=[0.8, 0.1, 0.1])
    x = theta + rng.normal(size=n)
    # statcore's default grid for x: 300 equally spaced atoms over the range, 0 among them
    atoms = make_grid(300, x, 1.0, align=0.0)

    rows = []
    t_sc, fit = median_time(lambda: npmle(x, grid=atoms), args.reps, with_output=True)
    ll_sc, kkt_sc = loglik_and_kkt(x, atoms, fit.weights)
    rows.append(("statcore npmle (mix-SQP, exact)", t_sc, ll_sc, kkt_sc, int((fit.weights > 0).sum())))

    t_bin, fitb = median_time(lambda: npmle(x, grid=atoms, bins=2000), args.reps, with_output=True)
    ll_b, kkt_b = loglik_and_kkt(x, atoms, fitb.weights)
    rows.append(("statcore npmle, bins=2000", t_bin, ll_b, kkt_b, int((fitb.weights > 0).sum())))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        em = npmle(x, grid=atoms, method="em", max_iter=args.em_iter, tol=1e-6)
        t_em = time.perf_counter() - t0
    ll_em, kkt_em = loglik_and_kkt(x, atoms, em.weights)
    rows.append((f"statcore EM, {em.iterations} iterations (1 run)", t_em, ll_em, kkt_em,
                 int((em.weights > 1e-8).sum())))

    r = run_mixsqp(x, atoms, args.r_reps)
    t_r = None
    if r is not None:
        t_r, w_r, status, version = r
        ll_r, kkt_r = loglik_and_kkt(x, atoms, w_r)
        rows.append((f"R mixsqp {version} ({status})", t_r, ll_r, kkt_r, int((w_r > 0).sum())))
    else:
        ll_r = None

    print(f"\nNPMLE, n = {n}, grid = {atoms.size} atoms, 80% nulls at 0, effects at -2 and 3")
    print(f"statcore: median of {args.reps} runs; R: median of {args.r_reps} runs of mixsqp(L) inside R\n")
    head = f"{'implementation':<44} {'median s':>9} {'ratio':>8} {'log-likelihood':>16} {'vs mixsqp':>11} " \
           f"{'KKT - 1':>10} {'atoms':>6}"
    print(head)
    print("-" * len(head))
    for name, t, ll, kkt, k in rows:
        ratio = f"{t_r / t:8.1f}" if t_r is not None else "       -"
        dl = f"{ll - ll_r:+11.2e}" if ll_r is not None else "          -"
        print(f"{name:<44} {t:9.3f} {ratio} {ll:16.6f} {dl} {kkt - 1:10.2e} {k:6d}")
    print("\nratio = R mixsqp time / this row's time; 'vs mixsqp' = log-likelihood minus mixsqp's;"
          "\n'atoms' = atoms with positive weight (EM: weight > 1e-8).")


if __name__ == "__main__":
    main()
