"""statcore.permutation_test / statcore.bootstrap (the resampling engine) against
scipy.stats.permutation_test / scipy.stats.bootstrap on the same problems: medians of 5 runs, the
ratio statcore / scipy, and the engine with n_jobs=2 (its answer is the same as with n_jobs=1)."""
import sys
from pathlib import Path

import numpy as np
from scipy import stats

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]
import statcore as sc  # noqa: E402
from _timing import median_time  # noqa: E402


def diff(x, y, axis=-1):
    return np.mean(x, axis=axis) - np.mean(y, axis=axis)


def corr(x, y, axis=-1):
    xc = x - x.mean(axis=axis, keepdims=True)
    yc = y - y.mean(axis=axis, keepdims=True)
    return (xc * yc).sum(axis=axis) / np.sqrt((xc ** 2).sum(axis=axis) * (yc ** 2).sum(axis=axis))


def main():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=200), rng.normal(0.2, 1, size=200)
    B = 9999
    cases = {
        "permutation independent, n = 200 + 200": (
            lambda: stats.permutation_test((x, y), diff, n_resamples=B, rng=1),
            lambda j: sc.permutation_test((x, y), diff, B=B, seed=1, n_jobs=j)),
        "permutation pairings, n = 200": (
            lambda: stats.permutation_test((x, y), corr, permutation_type="pairings", n_resamples=B, rng=1),
            lambda j: sc.permutation_test((x, y), corr, permutation_type="pairings", B=B, seed=1, n_jobs=j)),
        "bootstrap BCa of the mean, n = 200": (
            lambda: stats.bootstrap((x,), np.mean, n_resamples=B, method="bca", rng=1),
            lambda j: sc.bootstrap((x,), np.mean, B=B, method="bca", seed=1, n_jobs=j)),
    }
    print(f"{'case':42s} {'scipy s':>8s} {'statcore s':>10s} {'ratio':>6s} {'n_jobs=2 s':>10s}")
    for name, (ref, ours) in cases.items():
        t_ref = median_time(ref, 5)
        t1 = median_time(lambda: ours(1), 5)
        t2 = median_time(lambda: ours(2), 5)
        print(f"{name:42s} {t_ref:8.3f} {t1:10.3f} {t1 / t_ref:6.2f} {t2:10.3f}")


if __name__ == "__main__":
    main()
