"""Scale-out on a Dask cluster: the same code, ``n_jobs=1`` against joblib's dask backend on a
``distributed.LocalCluster``, and ``p_adjust`` on a dask array of 10^8 p-values.

    python benchmarks/bench_dask.py                 # 2 worker processes, p_adjust on 10^8 values
    python benchmarks/bench_dask.py --quick         # p_adjust on 10^7, smaller problems
    python benchmarks/bench_dask.py --workers 4 --address tcp://scheduler:8786   # a real cluster

Part 1 prints, per ``n_jobs`` path, the wall time with ``n_jobs=1`` (in this process) and with
``n_jobs=-1`` under ``joblib.parallel_config(backend="dask")`` (after one untimed warm-up run on the
cluster: imports and numba compilation in the workers), their ratio, and whether the two results are
identical (they must be). Part 2 prints, for BH and Holm, the wall time of ``p_adjust`` on a dask
array of n p-values (generated on the workers, in chunks of n/10, 0.1% NaN) computed on the cluster
(reduced on the workers to one sum per chunk, so the client never holds the result), each worker's peak resident memory (fresh workers per method, polled every 20 ms), and
the in-memory ``p_adjust`` of the same values in one process with its peak extra memory (tracemalloc),
and whether the two results are equal bit for bit.
"""
from __future__ import annotations

import argparse
import time
import tracemalloc
import warnings

import numpy as np
import pandas as pd


def _start_sampler(dask_worker) -> None:
    """In a worker: poll the resident memory every 20 ms, keeping the maximum on the worker object
    (ru_maxrss is not used: a process's high-water mark may predate the measurement)."""
    import threading

    import psutil

    proc = psutil.Process()
    state = {"rss": proc.memory_info().rss / 2 ** 20, "run": True}
    dask_worker._statcore_bench_peak = state

    def loop():
        while state["run"]:
            state["rss"] = max(state["rss"], proc.memory_info().rss / 2 ** 20)
            time.sleep(0.02)

    threading.Thread(target=loop, daemon=True).start()


def _stop_sampler(dask_worker) -> float:
    state = dask_worker._statcore_bench_peak
    state["run"] = False
    return state["rss"]


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def same(a, b) -> bool:
    if isinstance(a, pd.DataFrame):
        return a.equals(b)
    return bool(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True))


def jobs_paths(quick: bool):
    import statcore as sc
    from statcore.cit import pc_skeleton

    rng = np.random.default_rng(1)
    n, p = (300, 6) if quick else (1000, 8)
    cols = {"V0": rng.standard_normal(n)}
    for j in range(1, p):
        cols[f"V{j}"] = 0.7 * cols[f"V{j - 1}"] + rng.standard_normal(n) if j % 2 else rng.standard_normal(n)
    df = pd.DataFrame(cols)
    m = 600 if quick else 2000
    X = rng.standard_normal((m, 2))
    treat = rng.uniform(size=m) < 0.5
    y = X[:, 0] + 3.0 * treat * (rng.uniform(size=m) < 0.3) + rng.standard_normal(m)
    out = {
        "pc_skeleton(gcm)": lambda nj: pc_skeleton(df, test="gcm", seed=3, n_jobs=nj).tests,
        "independence_matrix(dcor, B=499)": lambda nj: sc.independence_matrix(
            df.iloc[:200], test="dcor", B=499, seed=2, n_jobs=nj).to_frame(),
        "c2g(nonparametric, B=50)": lambda nj: sc.c2g(y, treat, X, model="nonparametric", B=50, seed=4,
                                                      n_jobs=nj).to_frame(),
    }
    try:
        from learncore.learning_rules import fit_many, simulate

        w = {"W": np.zeros((2, 3)), "eta": 0.05, "beta": 8.0}
        mice = {f"m{k}": simulate("1L", w, 300, seed=k) for k in range(4 if quick else 8)}

        def fm(nj):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return fit_many(mice, archs=("1L", "2L"), restarts=2, max_iter=100, B=200, seed=0,
                                n_jobs=nj).per_group
        out["fit_many(1L, 2L)"] = fm
    except ImportError:  # torch absent
        pass
    return out


def part1(client, quick: bool) -> None:
    import joblib

    print(f"\n== n_jobs paths: n_jobs=1 here vs n_jobs=-1 on the cluster "
          f"({len(client.scheduler_info()['workers'])} workers) ==")
    print(f"{'path':36s} {'n_jobs=1 s':>11s} {'dask s':>9s} {'speed-up':>9s}  identical")
    for name, fn in jobs_paths(quick).items():
        t1, r1 = timed(lambda: fn(1))
        with joblib.parallel_config(backend="dask"):
            fn(-1)  # warm-up: imports and numba compilation in the workers
            t2, r2 = timed(lambda: fn(-1))
        print(f"{name:36s} {t1:11.2f} {t2:9.2f} {t1 / t2:9.2f}  {same(r1, r2)}")


def part2(n_workers: int, n: int, address: str | None) -> None:
    import dask.array as da
    from distributed import Client, LocalCluster

    import statcore as sc

    chunk = n // 10
    print(f"\n== p_adjust on a dask array: n = {n:.0e}, chunks of {chunk:.0e}, 0.1% NaN ==")
    print(f"{'method':8s} {'dask s':>8s} {'peak MB per worker':>24s} {'in-memory s':>12s} "
          f"{'in-memory peak MB':>18s}  equal")

    def values():
        rng = da.random.default_rng(7)
        u = rng.uniform(size=n, chunks=chunk)
        return da.where(rng.uniform(size=n, chunks=chunk) < 1e-3, np.nan, u ** 4)

    for method in ("BH", "holm"):
        cluster = None if address else LocalCluster(n_workers=n_workers, threads_per_worker=1,
                                                    processes=True, dashboard_address=":0")
        client = Client(address or cluster)
        try:
            p = values()
            adj = sc.p_adjust(p, method=method)
            # timed: the adjusted values stay on the workers (a per-chunk sum comes back)
            client.run(_start_sampler)
            t, _ = timed(lambda: adj.map_blocks(lambda b: np.array([np.nansum(b)]), chunks=(1,)).compute())
            peaks = client.run(_stop_sampler)
            # untimed: the values and the adjusted values, to compare with p_adjust in memory
            pv, got = da.compute(p, adj)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
        tracemalloc.start()
        tracemalloc.reset_peak()
        t_mem, ref = timed(lambda v=pv: sc.p_adjust(v, method=method))
        peak_mem = tracemalloc.get_traced_memory()[1] / 2 ** 20
        tracemalloc.stop()
        ok = bool(np.array_equal(got, ref, equal_nan=True))
        del pv, got, ref
        print(f"{method:8s} {t:8.1f} {', '.join(f'{v:.0f}' for v in peaks.values()):>24s} {t_mem:12.1f} "
              f"{peak_mem:18.0f}  {ok}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--address", default=None, help="a running scheduler, e.g. tcp://host:8786")
    ap.add_argument("--n", type=float, default=None, help="p-values for part 2 (default 1e8, 1e7 with --quick)")
    ap.add_argument("--skip-jobs", action="store_true")
    args = ap.parse_args()
    from distributed import Client, LocalCluster

    if not args.skip_jobs:
        cluster = None if args.address else LocalCluster(n_workers=args.workers, threads_per_worker=1,
                                                         processes=True, dashboard_address=":0")
        client = Client(args.address or cluster)
        try:
            part1(client, args.quick)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    n = int(args.n or (1e7 if args.quick else 1e8))
    part2(args.workers, n, args.address)


if __name__ == "__main__":
    main()
