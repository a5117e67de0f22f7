"""Time e-BH and the adaptive step-ups (issue 31, sections 2 and 3) against one ``np.argsort`` of the
same vector, and against the peers where one exists (online-fdr's pure-Python ``e_bh``, at a smaller m).

    python benchmarks/bench_multitest2.py            # m = 1e7
    python benchmarks/bench_multitest2.py --quick    # m = 1e6, for a smoke run

Prints the median wall time of several runs of each call and its ratio to ``np.argsort(p)`` (numpy's
default quicksort of float64) on the same vector: the target is at most 1.5. e-BH sorts nothing (a
histogram of the rank at which each e-value passes); the adaptive step-ups sort once (statcore's key
sort ``_argsort``) and estimate pi0 in O(m).
"""
from __future__ import annotations

import argparse

import numpy as np

import statcore as sc
from _timing import median_time


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    m = 10 ** 6 if args.quick else 10 ** 7
    rng = np.random.default_rng(2024)
    nonnull = rng.uniform(size=m) < 0.1
    from scipy.special import ndtr

    p = ndtr(-(rng.standard_normal(m) + 3.0 * nonnull))
    e = sc.p_to_e(p, kappa=0.5)
    base = median_time(lambda: np.argsort(p), args.reps)
    rows = [("np.argsort(p)", base)]
    rows.append(("e_bh(e)", median_time(lambda: sc.e_bh(e, alpha=0.1), args.reps)))
    for method in sc.FDR_ADAPTIVE_METHODS:
        rows.append((f"fdr_adaptive(p, method={method!r})",
                     median_time(lambda: sc.fdr_adaptive(p, method=method, alpha=0.1), args.reps)))
    for method in ("ABH", "TSBH", "BlaRoq"):
        rows.append((f"p_adjust(p, method={method!r})",
                     median_time(lambda: sc.p_adjust(p, method=method, alpha=0.1), args.reps)))
    print(f"m = {m:,}: median of {args.reps} runs")
    print(f"{'call':42s} {'seconds':>9s} {'/ argsort':>10s}")
    for name, t in rows:
        print(f"{name:42s} {t:9.3f} {t / base:10.2f}")
    try:
        from online_fdr.e_values import e_bh as peer
    except ImportError:
        return
    small = e[:10 ** 5]
    t_peer = median_time(lambda: peer(small, 0.1), 1)
    t_ours = median_time(lambda: sc.e_bh(small, alpha=0.1), args.reps)
    print(f"\nm = 1e5: online-fdr e_bh {t_peer:.3f} s, statcore e_bh {t_ours:.4f} s "
          f"(ratio peer/statcore {t_peer / t_ours:.0f})")


if __name__ == "__main__":
    main()
