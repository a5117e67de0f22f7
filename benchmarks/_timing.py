"""Shared timing helper of the benchmark scripts (run as ``python benchmarks/bench_<topic>.py``)."""
from __future__ import annotations

import time

import numpy as np


def median_time(fn, reps: int, *, warmup: bool = True, with_output: bool = False):
    """Median wall time of ``reps`` calls of ``fn`` (after one untimed warm-up call: imports, numba
    compilation, caches). With ``with_output`` returns ``(seconds, last output)``."""
    out = fn() if warmup else None
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t0)
    med = float(np.median(ts))
    return (med, out) if with_output else med
