"""Time statcore's ash, ihw and locfdr against R ashr 2.2-65, Bioconductor IHW 1.26.0 and R locfdr 1.1-8.

    python benchmarks/bench_ebayes2.py             # n = m = 2e5 (the issue's design), 3 runs each
    python benchmarks/bench_ebayes2.py --quick     # n = m = 2e4, 1 run, for a smoke run
    python benchmarks/bench_ebayes2.py --rlib /work/rlib   # where ashr and locfdr were built

ashr and locfdr are not in Debian: build them into a scratch library as `tests/golden/README.md`
says and pass it with ``--rlib`` (or ``R_LIBS``); IHW comes from Debian's r-bioc-ihw. A peer that
is missing is reported as such and skipped.

R is timed inside R with ``system.time`` around the call alone (reading the data and starting R
are not counted against it); statcore is timed around the public call, after one warm-up call
(numba compilation). Both get the same data, written here as little-endian doubles. Besides the
medians and the ratio R / statcore the script prints the agreement of the answers (pi0 and loglik
for ash, rejections for IHW, delta/sigma/p0 for locfdr) and statcore's peak memory (tracemalloc)
at n and n/4, whose ratio near 4 says memory is linear in n.

Data. ash: theta = 0 (80%) or N(0, 2^2), s_i ~ U(0.5, 1.5), betahat = theta + s N(0, 1).
IHW: covariate u ~ U(0, 1), 10% non-nulls whose z-mean is 1 + 3u (an informative covariate),
one-sided p-values. locfdr: z = N(0, 1.1^2) + 0.1 (a non-theoretical null), 5% shifted by 3.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
from scipy import stats

import statcore
from _timing import median_time


def _r(code: str, rlib: str | None, timeout: int = 3600) -> str | None:
    if shutil.which("Rscript") is None:
        return None
    env = dict(os.environ)
    if rlib:
        env["R_LIBS"] = rlib
    res = subprocess.run(["Rscript", "--vanilla", "-e", code], capture_output=True, text=True,
                         timeout=timeout, env=env)
    if res.returncode == 3:
        return None
    if res.returncode != 0:
        raise RuntimeError(res.stderr[-2000:])
    return res.stdout


def _write(tmp: Path, **arrays) -> dict:
    out = {}
    for name, a in arrays.items():
        path = tmp / f"{name}.bin"
        np.ascontiguousarray(a, dtype="<f8").tofile(path)
        out[name] = f'readBin("{path}", "double", n = {a.size})'
    return out


def _peak_mb(fn) -> float:
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def bench_ash(n, reps, rlib, tmp):
    rng = np.random.default_rng(1)
    s = rng.uniform(0.5, 1.5, n)
    theta = np.where(rng.random(n) < 0.8, 0.0, rng.normal(0, 2, n))
    b = theta + s * rng.normal(size=n)
    rd = _write(tmp, b=b, s=s)
    for fam in ("normal", "uniform"):
        t_sc, res = median_time(lambda: statcore.ash(b, s, mixcompdist=fam), reps, with_output=True)
        mem = _peak_mb(lambda: statcore.ash(b, s, mixcompdist=fam))
        mem4 = _peak_mb(lambda: statcore.ash(b[: n // 4], s[: n // 4], mixcompdist=fam))
        out = _r(f"""if (!requireNamespace("ashr", quietly = TRUE)) quit(status = 3)
suppressMessages(library(ashr)); b <- {rd['b']}; s <- {rd['s']}
ts <- numeric({reps}); for (k in 1:{reps}) ts[k] <- system.time(a <- ash(b, s, mixcompdist = "{fam}"))[["elapsed"]]
cat(median(ts), get_pi0(a), a$loglik, "\\n")""", rlib)
        line = f"ash {fam:8s} n={n}: statcore {t_sc:7.2f} s (peak {mem:.0f} MB; n/4: {mem4:.0f} MB)"
        if out is None:
            print(line + "; R ashr not available")
            continue
        t_r, pi0_r, ll_r = map(float, out.split())
        print(line + f"; R ashr {t_r:7.2f} s; R / statcore = {t_r / t_sc:5.1f}x; "
              f"pi0 {res.pi0:.8f} vs {pi0_r:.8f}, loglik {res.loglik:.6f} vs {ll_r:.6f}")


def bench_ihw(m, reps, rlib, tmp):
    rng = np.random.default_rng(2)
    u = rng.random(m)
    alt = rng.random(m) < 0.1
    z = rng.normal(size=m) + alt * (1 + 3 * u)
    p = stats.norm.sf(z)
    rd = _write(tmp, p=p, u=u)
    t_sc, res = median_time(lambda: statcore.ihw(p, u, alpha=0.1, seed=1), reps, with_output=True)
    mem = _peak_mb(lambda: statcore.ihw(p, u, alpha=0.1, seed=1))
    mem4 = _peak_mb(lambda: statcore.ihw(p[: m // 4], u[: m // 4], alpha=0.1, seed=1))
    bh = int(np.sum(statcore.p_adjust(p, method="BH") <= 0.1))
    out = _r(f"""if (!requireNamespace("IHW", quietly = TRUE)) quit(status = 3)
suppressMessages(library(IHW)); p <- {rd['p']}; u <- {rd['u']}; set.seed(1)
ts <- numeric({reps}); for (k in 1:{reps}) ts[k] <- system.time(r <- ihw(p, u, alpha = 0.1))[["elapsed"]]
cat(median(ts), rejections(r), "\\n")""", rlib)
    line = (f"ihw (auto lambda) m={m}: statcore {t_sc:7.2f} s, {res.n_rejections} rejections "
            f"(BH {bh}; peak {mem:.0f} MB; m/4: {mem4:.0f} MB)")
    if out is None:
        print(line + "; R IHW not available")
        return
    t_r, rej_r = out.split()
    t_r = float(t_r)
    print(line + f"; R IHW {t_r:7.2f} s, {rej_r} rejections; R / statcore = {t_r / t_sc:5.1f}x")


def bench_locfdr(n, reps, rlib, tmp):
    rng = np.random.default_rng(3)
    z = 0.1 + 1.1 * rng.normal(size=n)
    z[: n // 20] += 3.0
    rd = _write(tmp, z=z)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_sc, res = median_time(lambda: statcore.locfdr(z), reps, with_output=True)
        mem = _peak_mb(lambda: statcore.locfdr(z))
        mem4 = _peak_mb(lambda: statcore.locfdr(z[: n // 4]))
    out = _r(f"""if (!requireNamespace("locfdr", quietly = TRUE)) quit(status = 3)
suppressMessages(library(locfdr)); z <- {rd['z']}
ts <- numeric({reps}); for (k in 1:{reps}) ts[k] <- system.time(r <- suppressWarnings(locfdr(z, plot = 0)))[["elapsed"]]
cat(median(ts), r$fp0["mlest", 1:3], "\\n")""", rlib)
    line = (f"locfdr n={n}: statcore {t_sc:7.3f} s (delta {res.delta:.6f}, sigma {res.sigma:.6f}, p0 {res.p0:.6f}; "
            f"peak {mem:.0f} MB; n/4: {mem4:.0f} MB)")
    if out is None:
        print(line + "; R locfdr not available")
        return
    t_r, d_r, s_r, p0_r = map(float, out.split())
    print(line + f"; R locfdr {t_r:7.3f} s (delta {d_r:.6f}, sigma {s_r:.6f}, p0 {p0_r:.6f}); "
          f"R / statcore = {t_r / t_sc:5.2f}x")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rlib", default=os.environ.get("R_LIBS"))
    ap.add_argument("--only", choices=("ash", "ihw", "locfdr"))
    args = ap.parse_args()
    n = 20_000 if args.quick else 200_000
    reps = 1 if args.quick else 3
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if args.only in (None, "ash"):
            bench_ash(n, reps, args.rlib, tmp)
        if args.only in (None, "ihw"):
            bench_ihw(n, reps, args.rlib, tmp)
        if args.only in (None, "locfdr"):
            bench_locfdr(n, reps, args.rlib, tmp)


if __name__ == "__main__":
    main()
