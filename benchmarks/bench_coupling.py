"""Time statcore.coupling against a plain numpy sort-and-merge and POT / scipy in one run.

    python benchmarks/bench_coupling.py            # coupling_mean at 1e6 per arm; joint_bounds B=999 at 1e4
    python benchmarks/bench_coupling.py --quick    # smaller sizes, for a smoke run

Prints median wall times (several runs after a warm-up that also compiles the numba kernels) and the
ratio peer / statcore. The numpy peer is the exact merge written with numpy only: sort both arms, merge
the integer cumulative counts (one stable sort of the two runs), locate both quantile functions with np.searchsorted.
For the bootstrap its peer loops over replicates, re-sorting each resample (the plain way).
"""
from __future__ import annotations

import argparse

import numpy as np

from statcore.coupling import coupling_mean, joint_bounds
from _timing import median_time


def numpy_merge(y1, y0, f, counter=False):
    """Exact comonotone (countercomonotone) mean of f with numpy only: merge integer cumulative counts."""
    n1, n0 = y1.size, y0.size
    a, b = np.sort(y1), np.sort(y0)
    if counter:
        b = b[::-1]
    c1 = np.arange(1, n1 + 1, dtype=np.int64) * n0
    c0 = np.arange(1, n0 + 1, dtype=np.int64) * n1
    cuts = np.sort(np.concatenate([c1, c0]), kind="stable")   # two sorted runs: a merge
    cuts = cuts[np.r_[True, cuts[1:] != cuts[:-1]]]               # (np.union1d is far slower here)
    i = np.searchsorted(c1, cuts, side="left")
    j = np.searchsorted(c0, cuts, side="left")
    lengths = np.diff(cuts, prepend=0)
    return float(np.dot(f(a[i], b[j]), lengths) / (n1 * n0))


def numpy_bootstrap(y1, y0, B, seed):
    """Bounds of E(Y1 - Y0)^2 per replicate: resample, re-sort and merge with numpy (the plain way)."""
    rng = np.random.default_rng(seed)
    sq = lambda a, b: (a - b) ** 2
    out = np.empty((B, 2))
    for r in range(B):
        b1 = y1[rng.integers(0, y1.size, y1.size)]
        b0 = y0[rng.integers(0, y0.size, y0.size)]
        out[r] = numpy_merge(b1, b0, sq), numpy_merge(b1, b0, sq, counter=True)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    n_big = 10 ** 5 if args.quick else 10 ** 6
    n_boot = 2000 if args.quick else 10 ** 4
    B = 199 if args.quick else 999
    reps = 3 if args.quick else 5
    rng = np.random.default_rng(1)

    rows = []
    y1, y0 = rng.normal(1, 2, n_big), rng.exponential(size=n_big + 7)  # unequal sizes: a real merge
    prod = lambda a, b: a * b
    assert abs(coupling_mean(y1, y0, f="product") - numpy_merge(y1, y0, prod)) < 1e-9
    t_sc = median_time(lambda: coupling_mean(y1, y0, f="product"), reps)
    t_np = median_time(lambda: numpy_merge(y1, y0, prod), reps)
    rows.append((f"coupling_mean product, n = {n_big}/{n_big + 7}", t_sc, "numpy sort-and-merge", t_np))
    t_sc2 = median_time(lambda: coupling_mean(y1, y0, f="abs_diff"), reps)
    try:
        import ot

        t_pot = median_time(lambda: ot.wasserstein_1d(y1, y0, p=1), reps)
        assert abs(coupling_mean(y1, y0, f="abs_diff") - ot.wasserstein_1d(y1, y0, p=1)) < 1e-8
        rows.append((f"coupling_mean abs_diff, n = {n_big}", t_sc2, "POT wasserstein_1d(p=1)", t_pot))
    except ImportError:
        pass
    from scipy.stats import wasserstein_distance

    t_sp = median_time(lambda: wasserstein_distance(y1, y0), reps)
    rows.append((f"coupling_mean abs_diff, n = {n_big}", t_sc2, "scipy wasserstein_distance", t_sp))

    z1, z0 = rng.normal(1, 2, n_boot), rng.normal(0, 1, n_boot)
    y = np.r_[z1, z0]
    t = np.r_[np.ones(n_boot), np.zeros(n_boot)]
    t_jb = median_time(lambda: joint_bounds(y, t, f="sq_diff", B=B, seed=1, n_jobs=-1), max(1, reps - 2))
    t_nb = median_time(lambda: numpy_bootstrap(z1, z0, B, 1), 1)
    rows.append((f"joint_bounds sq_diff, B = {B}, n = {n_boot}/arm", t_jb, "numpy loop: resample, sort, merge",
                 t_nb))

    w = max(len(r[0]) for r in rows)
    wp = max(len(r[2]) for r in rows)
    print(f"{'task'.ljust(w)}  statcore [s]  {'peer'.ljust(wp)}  peer [s]  peer/statcore")
    for task, ts, peer, tp in rows:
        print(f"{task.ljust(w)}  {ts:12.4f}  {peer.ljust(wp)}  {tp:8.4f}  {tp / ts:13.2f}")
    import numba

    print(f"(numba threads: {numba.get_num_threads()}; medians of {reps} runs after a warm-up)")


if __name__ == "__main__":
    main()
