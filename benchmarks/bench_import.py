"""Cold ``import statcore`` against the imports of its peers, each in a fresh interpreter.

numpy, scipy and pandas are imported first (every user has them loaded); the time is what importing
the library adds. Prints medians of ``--reps`` fresh processes and the ratios against statsmodels.api
and pingouin (where installed).

    python benchmarks/bench_import.py [--reps 7]
"""
from __future__ import annotations

import argparse
import subprocess
import sys

import numpy as np

CODE = ("import time, numpy, scipy, scipy.stats, pandas; t = time.perf_counter(); import {mod}; "
        "print(time.perf_counter() - t)")


def cold_import(mod: str, reps: int) -> float:
    times = []
    for _ in range(reps):
        res = subprocess.run([sys.executable, "-c", CODE.format(mod=mod)], capture_output=True, text=True)
        if res.returncode != 0:
            return float("nan")
        times.append(float(res.stdout.strip()))
    return float(np.median(times))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args()
    mods = ["statcore", "learncore.learning_rules", "statsmodels.api", "pingouin"]
    times = {m: cold_import(m, args.reps) for m in mods}
    ref = times["statsmodels.api"]
    print(f"cold import after numpy/scipy/pandas, median of {args.reps} fresh interpreters")
    print(f"{'module':28s} {'seconds':>9s} {'vs statsmodels.api':>19s}")
    for m, t in times.items():
        print(f"{m:28s} {t:9.3f} {t / ref:19.2f}" if np.isfinite(t) else f"{m:28s} {'not installed':>9s}")


if __name__ == "__main__":
    main()
