"""Time statcore's multiple-testing functions against statsmodels, scipy and R in one run
(p_adjust, qvalue, and combine_pvalues against scipy.stats.combine_pvalues).

    python benchmarks/bench_multitest.py            # n = 1e4, 1e6, 1e7 (hommel peers at 2e4)
    python benchmarks/bench_multitest.py --quick    # smaller sizes, for a smoke run

Prints one table: median wall time of several runs for each implementation, the ratio peer/statcore,
statcore's time relative to one np.argsort of the same array, and statcore's peak extra memory
(tracemalloc, in arrays of n doubles). R is timed inside R (system.time over repeated calls), so
process start-up and data transfer are not counted against it.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import tracemalloc
from pathlib import Path

import numpy as np

import statcore as sc
import statcore.multitest  # noqa: F401  (combine_pvalues)
from _timing import median_time


def peak_arrays(fn, n):
    tracemalloc.start()
    tracemalloc.reset_peak()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / (8.0 * n)


def r_times(path: Path, n: int, methods, reps: int) -> dict:
    """Median seconds per call in R for p.adjust methods and qvalue on the same p-values."""
    if shutil.which("Rscript") is None:
        return {}
    code = [f'p <- readBin("{path}", "double", n = {n})', "suppressMessages(ok <- requireNamespace('qvalue', quietly=TRUE))",
            f"tm <- function(expr) {{ f <- function() eval(expr); f(); median(sapply(1:{reps}, function(i) system.time(f())[['elapsed']])) }}"]
    for meth in methods:
        if meth == "qvalue":
            code.append("if (ok) cat('qvalue', tm(quote(qvalue::qvalue(p))), '\\n')")
        else:
            code.append(f"cat('{meth}', tm(quote(p.adjust(p, '{meth}'))), '\\n')")
    with tempfile.NamedTemporaryFile("w", suffix=".R", delete=False) as fh:
        fh.write("\n".join(code))
    out = subprocess.run(["Rscript", "--vanilla", fh.name], capture_output=True, text=True, timeout=3600)
    Path(fh.name).unlink()
    res = {}
    for line in out.stdout.strip().splitlines():
        k, v = line.split()
        res[k] = float(v)
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    from scipy.stats import false_discovery_control
    from statsmodels.stats.multitest import multipletests

    sizes = [10_000, 100_000] if args.quick else [10_000, 1_000_000, 10_000_000]
    hommel_peer_n = 5_000 if args.quick else 20_000
    rng = np.random.default_rng(1)
    rows = []

    def add(task, n, impl, t, ours, argsort_t=None, mem=None):
        rows.append((task, n, impl, t, ours / t if impl == "statcore" else t / ours, argsort_t, mem))

    def p_of(n):
        # 10% signal, the rest uniform: a typical screen
        k = n // 10
        return np.r_[rng.uniform(0, 1e-3, k), rng.uniform(size=n - k)][rng.permutation(n)]

    for n in sizes + [hommel_peer_n]:
        p = p_of(n)
        reps = max(1, args.reps if n <= 1_000_000 else 3)
        t_sort = median_time(lambda: np.argsort(p), reps)
        tmpdir = Path(tempfile.mkdtemp())
        pfile = tmpdir / "p.bin"
        p.astype("<f8").tofile(pfile)
        peer_only_hommel = n == hommel_peer_n
        r_methods = ["hommel"] if peer_only_hommel else ["BH", "holm", "hochberg", "BY"] + (["qvalue"] if n <= 1_000_000 else [])
        rt = r_times(pfile, n, r_methods, 3 if n <= 1_000_000 else 1)
        for meth in (["hommel"] if peer_only_hommel else ["BH", "holm", "hochberg", "BY", "hommel"]):
            ours = median_time(lambda: sc.p_adjust(p, method=meth), reps)
            mem = peak_arrays(lambda: sc.p_adjust(p, method=meth), n)
            add(meth, n, "statcore", ours, ours, ours / t_sort, mem)
            sm_name = {"BH": "fdr_bh", "BY": "fdr_by", "hochberg": "simes-hochberg"}.get(meth, meth)
            if meth != "hommel" or n <= hommel_peer_n:
                add(meth, n, "statsmodels", median_time(lambda: multipletests(p, method=sm_name), 1 if meth == "hommel" else reps), ours)
            if meth in ("BH", "BY"):
                add(meth, n, "scipy", median_time(lambda: false_discovery_control(p, method=meth.lower()), reps), ours)
            if meth in rt:
                add(meth, n, "R", rt[meth], ours)
        if not peer_only_hommel and n <= 1_000_000:
            ours = median_time(lambda: sc.qvalue(p), reps)
            mem = peak_arrays(lambda: sc.qvalue(p), n)
            add("qvalue", n, "statcore", ours, ours, ours / t_sort, mem)
            if "qvalue" in rt:
                add("qvalue", n, "R", rt["qvalue"], ours)
        shutil.rmtree(tmpdir)

    # combine_pvalues: 1,000 families of k = 1,000 p-values, scipy's methods against scipy's
    from scipy.stats import combine_pvalues as scipy_combine

    fam = rng.uniform(size=(1000, 1000))
    for meth in ["fisher", "stouffer", "tippett"]:
        ours = median_time(lambda: sc.multitest.combine_pvalues(fam, method=meth, axis=1), args.reps)
        add(meth, fam.size, "statcore", ours, ours)
        add(meth, fam.size, "scipy", median_time(lambda: scipy_combine(fam, method=meth, axis=1), args.reps), ours)

    print(f"{'task':9s} {'n':>9s} {'impl':12s} {'median s':>10s} {'peer/ours':>10s} {'ours/argsort':>13s} {'peak mem (n doubles)':>21s}")
    for task, n, impl, t, ratio, rs, mem in rows:
        rs_txt = f"{rs:13.2f}" if rs is not None else " " * 13
        mem_txt = f"{mem:21.1f}" if mem is not None else ""
        ratio_txt = "" if impl == "statcore" else f"{ratio:10.1f}"
        print(f"{task:9s} {n:9d} {impl:12s} {t:10.4f} {ratio_txt:>10s} {rs_txt} {mem_txt}")


if __name__ == "__main__":
    main()
