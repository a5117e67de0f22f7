"""Timings of statcore's distance covariance family against its peers, in one run on the same data:
medians of several runs, ratios printed (a ratio > 1: statcore is faster).

1. Univariate dCor at n = 10^6 (statcore's O(n log n) path, chosen automatically for p = q = 1 and
   index 1) against the ``dcor`` package's fast methods (method="mergesort" and "avl", numba
   compiled and warmed up) and R energy's O(n log n) ``dcor2d`` (timed inside R with system.time;
   energy's ``dcor`` is O(n^2) and cannot run at this n).
2. Peak memory of that path at n = 10^7: resident memory above the inputs, in a fresh process,
   as a number of vectors of n doubles (target: at most 10).
3. The permutation test at n = 2000, p = q = 10, B = 999: ``dcor_test`` (its default "recompute" path,
   and the "matrix" path for comparison) against R energy's
   ``dcor.test(x, y, R = 999)`` and hyppo's ``Dcorr().test(x, y, reps=999)``. hyppo's default
   (``auto=True``) does not permute for n > 20: it uses a chi-square approximation; its permutation
   test (``auto=False``) is timed once with reps=999 (``--hyppo-full``) or with reps=99 and scaled
   by 10 (default, said so in the output).

    python benchmarks/bench_indep_dcor.py [--runs 3] [--hyppo-full] [--skip-memory] [--only-permutation]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def median_time(fn, runs):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), times


def r_times(code: str, runs: int, timeout=3600, cpu: list | None = None) -> list[float]:
    """Run R ``code`` (which defines ``f <- function() ...``) ``runs`` times under system.time; the
    elapsed times are returned, and the CPU times (user + system) appended to ``cpu`` if given."""
    script = code + textwrap.dedent(f"""
        for (i in 1:{runs}) {{ st <- system.time(v <- f()); cat(st[["elapsed"]], "\\n");
                               cat("CPU", st[["user.self"]] + st[["sys.self"]], "\\n") }}
        cat("VALUE", sprintf("%.17g", v), "\\n")
    """)
    with tempfile.NamedTemporaryFile("w", suffix=".R", delete=False) as fh:
        fh.write(script)
    try:
        out = subprocess.run(["Rscript", "--vanilla", fh.name], capture_output=True, text=True, timeout=timeout)
    finally:
        os.unlink(fh.name)
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    lines = out.stdout.split("\n")
    times = [float(s) for s in lines if s.strip() and not s.startswith(("VALUE", "CPU"))]
    if cpu is not None:
        cpu.extend(float(s.split()[1]) for s in lines if s.startswith("CPU"))
    value = [s.split()[1:] for s in lines if s.startswith("VALUE")][0]
    return times, [float(v) for v in value]


def write_bin(path, *arrays):
    np.concatenate([np.asarray(a, float).ravel(order="F") for a in arrays]).astype("<f8").tofile(path)


def univariate(runs: int):
    import dcor as dcor_pkg

    from statcore import dcor

    n = 10 ** 6
    rng = np.random.default_rng(1)
    x = rng.normal(size=n)
    y = x + rng.standard_t(3, size=n)
    dcor(x[:1000], y[:1000])
    for m in ("mergesort", "avl"):
        dcor_pkg.distance_correlation(x[:1000], y[:1000], method=m)
    ours, ours_all = median_time(lambda: dcor(x, y), max(runs, 5))
    val = dcor(x, y)
    rows = [("statcore dcor (O(n log n), automatic)", ours, val)]
    for m in ("mergesort", "avl"):
        t, _ = median_time(lambda: dcor_pkg.distance_correlation(x, y, method=m), runs)
        rows.append((f"dcor package, method='{m}'", t, float(dcor_pkg.distance_correlation(x, y, method=m))))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "xy.bin"
        write_bin(path, x, y)
        code = textwrap.dedent(f"""
            suppressPackageStartupMessages(library(energy))
            v <- readBin("{path}", "double", n = {2 * n}, endian = "little")
            x <- v[1:{n}]; y <- v[{n + 1}:{2 * n}]
            f <- function() sqrt(dcor2d(x, y))
        """)
        times, value = r_times(code, runs)
        rows.append(("R energy dcor2d (O(n log n); sqrt of its dCor^2)", float(np.median(times)), value[0]))
    print(f"\n1. univariate dCor, n = {n:,} (medians of {runs} runs; statcore {len(ours_all)} runs)")
    best_peer = min(t for name, t, _ in rows[1:])
    for name, t, v in rows:
        ratio = "" if name.startswith("statcore") else f"   statcore is {t / ours:5.1f}x faster"
        print(f"   {name:52s} {t:8.3f} s  dCor {v:.12f}{ratio}")
    print(f"   ratio to the fastest peer: {best_peer / ours:.1f}x (target >= 2x)")


MEMORY_CHILD = """
import resource, sys, numpy as np
n = int(sys.argv[1])
sys.path.insert(0, sys.argv[2])
from statcore import dcor
dcor(np.arange(100.0), np.arange(100.0) ** 2)          # compile (or load) the kernels first
rng = np.random.default_rng(2)
x = rng.normal(size=n)
y = np.round(x + rng.normal(size=n), 3)                 # with ties
def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM"):
            return int(line.split()[1]) * 1024
try:
    open("/proc/self/clear_refs", "w").write("5")       # reset the peak to the current size
    base = hwm()
    how = "VmHWM reset after the inputs were made"
except OSError:
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    how = "ru_maxrss (includes the peak while the inputs were made)"
v = dcor(x, y)
peak = hwm()
print(v, peak - base, how)
"""


def memory(n=10 ** 7):
    out = subprocess.run([sys.executable, "-c", MEMORY_CHILD, str(n), str(ROOT)], capture_output=True, text=True,
                         timeout=1800)
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    val, extra, how = out.stdout.split(maxsplit=2)
    extra = int(extra)
    print(f"\n2. peak memory of the univariate path at n = {n:,}: {extra / 2 ** 20:.0f} MiB above the inputs "
          f"= {extra / (8 * n):.1f} vectors of n doubles (target <= 10; {how.strip()}); dCor {float(val):.10f}")


def permutation_test(runs: int, hyppo_full: bool):
    from hyppo.independence import Dcorr

    from statcore import dcor_test

    n, p, B = 2000, 10, 999
    rng = np.random.default_rng(3)
    x = rng.normal(size=(n, p))
    y = rng.normal(size=(n, p))
    y[:, 0] += 0.1 * x[:, 0] ** 2
    dcor_test(x[:50], y[:50], B=9, seed=0)
    dcor_test(x[:50], y[:50], B=9, seed=0, n_jobs=-1)
    import importlib

    dmod = importlib.import_module("statcore.indep._dcor")  # the tests module, whose permutation paths these are

    rows = []
    cpus = []
    for nj, max_dim in ((1, dmod.RECOMPUTE_MAX_DIM), (-1, dmod.RECOMPUTE_MAX_DIM), (-1, 0)):
        old_dim, dmod.RECOMPUTE_MAX_DIM = dmod.RECOMPUTE_MAX_DIM, max_dim
        try:
            dcor_test(x[:50], y[:50], B=9, seed=0, n_jobs=nj)
            c0 = time.process_time()
            t, _ = median_time(lambda: dcor_test(x, y, B=B, seed=1, n_jobs=nj), max(runs, 3))
            cpu = (time.process_time() - c0) / max(runs, 3)
            res = dcor_test(x, y, B=B, seed=1, n_jobs=nj)
        finally:
            dmod.RECOMPUTE_MAX_DIM = old_dim
        path = res.extras["path"]
        cpus.append(cpu)
        rows.append((f"statcore dcor_test(B=999, n_jobs={nj}) [{path} path; mean CPU {cpu:.2f} s]", t,
                     res.statistic, res.p_value))
    ours1, ours2 = rows[0][1], rows[1][1]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "xy.bin"
        write_bin(path, x, y)
        code = textwrap.dedent(f"""
            suppressPackageStartupMessages(library(energy))
            v <- readBin("{path}", "double", n = {2 * n * p}, endian = "little")
            x <- matrix(v[1:{n * p}], {n}); y <- matrix(v[{n * p + 1}:{2 * n * p}], {n})
            f <- function() {{ r <- dcor.test(x, y, R = {B}); c(r$statistic, r$p.value) }}
        """)
        r_cpu: list[float] = []
        times, value = r_times(code, runs, cpu=r_cpu)
        rows.append((f"R energy dcor.test(R = 999) [mean CPU {np.mean(r_cpu):.2f} s]", float(np.median(times)),
                     value[0], value[1]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Dcorr().test(x[:50], y[:50], reps=9)
        Dcorr().test(x[:50], y[:50], reps=9, auto=False)
        t, _ = median_time(lambda: Dcorr().test(x, y, reps=B), runs)
        s, pv = Dcorr().test(x, y, reps=B)[:2]
        rows.append(("hyppo Dcorr().test(reps=999) [auto: chi-square, no permutations]", t, s, pv))
        reps = B if hyppo_full else 99
        t0 = time.perf_counter()
        s, pv = Dcorr().test(x, y, reps=reps, auto=False)[:2]
        t = time.perf_counter() - t0
        label = "one run" if hyppo_full else "reps=99 timed, x 10"
        rows.append((f"hyppo Dcorr().test(reps=999, auto=False) [{label}]", t * (1 if hyppo_full else 10), s, pv))
    print(f"\n3. permutation test, n = {n}, p = q = {p}, B = {B} (medians of {runs} runs; 2 cores)")
    for name, t, s, pv in rows:
        ratio = "" if name.startswith("statcore") else \
            f"   statcore is {t / ours1:5.1f}x (n_jobs=1) / {t / ours2:5.1f}x (n_jobs=-1) faster"
        print(f"   {name:72s} {t:8.2f} s  stat {s:.6f} p {pv:.3f}{ratio}")
    print("   (statistics: statcore and energy report dCor; hyppo reports the bias-corrected dCor^2)")
    print(f"   CPU time per core: R energy / statcore (n_jobs=1) = {np.mean(r_cpu) / cpus[0]:.1f}x "
          "(the ratio a busy machine distorts least)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--hyppo-full", action="store_true")
    ap.add_argument("--skip-memory", action="store_true")
    ap.add_argument("--only-permutation", action="store_true", help="run part 3 only")
    args = ap.parse_args(argv)
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()}")
    if not args.only_permutation:
        univariate(args.runs)
        if not args.skip_memory:
            memory()
    permutation_test(args.runs, args.hyppo_full)


if __name__ == "__main__":
    sys.exit(main())
