"""Timings of learncore.stereo's compiled matchers on the Middlebury motorcycle pair (500 x 741, 128
disparities) against OpenCV's SGBM (when installed): medians of several runs after one warm-up, and ratios.

Run: NUMBA_CACHE_DIR=/tmp/numba python benchmarks/bench_stereo.py
"""
import time

import numpy as np

from learncore.stereo import block_match, opencv_sgbm, semi_global_match, stereo_motorcycle


def median_time(fn, *args, reps=3, **kw):
    fn(*args, **kw)
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn(*args, **kw)
        ts.append(time.perf_counter() - t)
    return float(np.median(ts))


def main():
    s = stereo_motorcycle()
    rows = {"block_match (SAD 9x9)": median_time(block_match, s.left, s.right, max_disparity=128),
            "semi_global_match (census 7x9, 8 paths)": median_time(semi_global_match, s.left, s.right, max_disparity=128)}
    try:
        rows["opencv_sgbm (5x5, HH)"] = median_time(opencv_sgbm, s.left, s.right, max_disparity=128)
    except ImportError:
        pass
    ref = rows.get("opencv_sgbm (5x5, HH)")
    for k, v in rows.items():
        print(f"{k:42s} {v:7.3f} s" + (f"   x{v / ref:.1f} OpenCV" if ref else ""))
    # the budgets on the motorcycle pair at 128 disparities
    budgets = {"block_match (SAD 9x9)": 2.0, "semi_global_match (census 7x9, 8 paths)": 10.0}
    for k, limit in budgets.items():
        print(f"{k}: {rows[k]:.2f} s, budget {limit:g} s: {'within' if rows[k] < limit else 'OVER'}")


if __name__ == "__main__":
    main()
