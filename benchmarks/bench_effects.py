"""Time statcore's cluster-robust CR2 covariance and meta-analysis against R in one run.

    python benchmarks/bench_effects.py            # CR2 at n = 1e5 with 1,000 clusters; rma REML at k = 1e4
    python benchmarks/bench_effects.py --quick    # n = 2e4 with 200 clusters

cluster_vcov(kind="CR2") against clubSandwich::vcovCR(type = "CR2") (and coef_test's Satterthwaite df
against clubSandwich::coef_test(test = "Satterthwaite")) on the same data (written to a temporary CSV,
read by R before timing); meta_analysis(method="REML") at k = 1e4 alone, and against
metafor::rma(method = "REML") at k = 500 (metafor forms k x k matrices: at k = 2,000 one fit takes ~30 s,
so k = 1e4 is out of its reach).
R is timed inside R (system.time), so start-up and data transfer are not counted against it. Medians
of several runs; the ratio is R / statcore.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import statsmodels.api as sm

import statcore as sc
from _timing import median_time


def r_time(code: str) -> list[float]:
    with tempfile.NamedTemporaryFile("w", suffix=".R", delete=False) as fh:
        fh.write(code)
        path = fh.name
    try:
        out = subprocess.run(["Rscript", "--vanilla", path], capture_output=True, text=True, timeout=3600)
    finally:
        Path(path).unlink()
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    return [float(x) for x in out.stdout.split()]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    n, J, k = (20_000, 200, 2_000) if args.quick else (100_000, 1_000, 10_000)
    rng = np.random.default_rng(1)
    g = np.sort(rng.integers(0, J, n))
    x1 = rng.normal(size=n) + rng.normal(size=J)[g]
    x2 = rng.normal(size=J)[g]
    y = 1 + 0.5 * x1 + 0.2 * x2 + rng.normal(size=J)[g] + rng.normal(size=n)
    X = sm.add_constant(np.c_[x1, x2])
    fit = sm.OLS(y, X).fit()
    yi = rng.normal(0.3, 0.4, k) + rng.normal(size=k) * 0.3
    vi = rng.uniform(0.02, 0.2, k)
    kr = 500
    have_r = shutil.which("Rscript") is not None
    rows = []
    t_cr2 = median_time(lambda: sc.cluster_vcov(fit, g, kind="CR2"), 5)
    t_ct = median_time(lambda: sc.coef_test(fit, vcov="CR2", cluster=g), 5)
    t_ma = median_time(lambda: sc.meta_analysis(yi, vi, method="REML"), 5)
    t_mr = median_time(lambda: sc.meta_analysis(yi[:kr], vi[:kr], method="REML"), 5)
    r = [np.nan] * 3
    if have_r:
        with tempfile.TemporaryDirectory() as tmp:
            csv = Path(tmp) / "d.csv"
            np.savetxt(csv, np.c_[y, x1, x2, g], delimiter=",")
            mcsv = Path(tmp) / "m.csv"
            np.savetxt(mcsv, np.c_[yi[:kr], vi[:kr]], delimiter=",")
            r = r_time(f"""
suppressMessages({{library(clubSandwich); library(metafor)}})
d <- read.csv('{csv}', header = FALSE); names(d) <- c('y', 'x1', 'x2', 'g')
m <- read.csv('{mcsv}', header = FALSE)
f <- lm(y ~ x1 + x2, d)
t1 <- median(replicate(3, system.time(vcovCR(f, cluster = d$g, type = 'CR2'))[['elapsed']]))
t2 <- median(replicate(3, system.time(coef_test(f, vcov = 'CR2', cluster = d$g, test = 'Satterthwaite'))[['elapsed']]))
t3 <- median(replicate(3, system.time(rma(m[[1]], m[[2]], method = 'REML'))[['elapsed']]))
cat(t1, t2, t3, '\\n')
""")
    rows = [(f"cluster_vcov CR2 (n={n}, J={J})", t_cr2, r[0]),
            (f"coef_test CR2 + Satterthwaite (n={n}, J={J})", t_ct, r[1]),
            (f"meta_analysis REML (k={kr})", t_mr, r[2]),
            (f"meta_analysis REML (k={k}; no R run)", t_ma, np.nan)]
    print(f"{'task':48s} {'statcore s':>11s} {'R s':>9s} {'R / statcore':>13s}")
    for name, a, b in rows:
        print(f"{name:48s} {a:11.4f} {b:9.3f} {b / a:13.1f}")


if __name__ == "__main__":
    main()
