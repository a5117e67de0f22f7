"""Timings of statcore.twosample against the peers, in one run on the same features: medians of
several runs, ratios printed (a ratio > 1: statcore is faster).

1. FD at d = 2048 from two feature matrices (n rows each): ``frechet_distance(x, y)`` against
   pytorch-fid's route (``np.mean``, ``np.cov`` and ``calculate_frechet_distance``: ``scipy.linalg.sqrtm``
   of sigma1 @ sigma2), with the relative difference of the two values (target: >= 5x at equal value).
2. KID at n = 10^4, d = 2048 (100 subsets of 1000, the defaults) against torch-fidelity's
   ``kid_features_to_metric``.

The peers' functions are executed from their installed source files (tests/statcore/twosample/_peers.py):
their packages import torchvision at import time, and no torchvision wheel on PyPI matches the CPU
torch used here. Install them with ``pip install --no-deps pytorch-fid torch-fidelity``.

    python benchmarks/bench_twosample.py [--runs 3] [--n 10000] [--d 2048] [--kid-subsets 100]
                                         [--skip-fd] [--skip-kid]
"""
import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "statcore" / "twosample"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _timing import median_time  # noqa: E402


def features(rng, n, d, shift=0.0):
    """ReLU-like pooled features with a low-rank correlation structure (as CNN pool features)."""
    basis = rng.normal(size=(64, d)) / 8
    z = rng.normal(size=(n, 64)) @ basis + rng.normal(size=(n, d)) * 0.5 + shift
    return np.maximum(z, 0.0)


def torch_fidelity_kid():
    """torch-fidelity's kid_features_to_metric, with its helpers, run from its source file."""
    import torch
    from tqdm import tqdm

    from _peers import load_functions

    defaults = {"kid_subsets": 100, "kid_subset_size": 1000, "verbose": False, "rng_seed": 2020,
                "kid_kernel": "poly", "kid_kernel_poly_degree": 3, "kid_kernel_poly_gamma": None,
                "kid_kernel_poly_coef0": 1}

    def get_kwarg(name, kwargs):
        return kwargs.get(name, defaults[name])

    def vassert(cond, msg):
        assert cond, msg

    ns = {"np": np, "torch": torch, "tqdm": tqdm, "get_kwarg": get_kwarg, "vassert": vassert,
          "vprint": lambda verbose, msg: None, "KEY_METRIC_KID_MEAN": "kid_mean", "KEY_METRIC_KID_STD": "kid_std"}
    load_functions("torch_fidelity", "metric_kid.py",
                   ("mmd2", "kernel_poly", "kernel_rbf", "kernel_mmd", "kid_features_to_metric"), ns)
    return ns["kid_features_to_metric"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--n", type=int, default=10000, help="rows of each feature matrix")
    ap.add_argument("--d", type=int, default=2048)
    ap.add_argument("--kid-subsets", type=int, default=100)
    ap.add_argument("--skip-kid", action="store_true")
    ap.add_argument("--skip-fd", action="store_true")
    args = ap.parse_args()

    rng = np.random.default_rng(0)
    x = features(rng, args.n, args.d)
    y = features(rng, args.n, args.d, shift=0.05)
    print(f"features: n = {args.n} per sample, d = {args.d}; medians of {args.runs} runs")

    if not args.skip_fd:
        time_fd(x, y, args.runs)
    if not args.skip_kid:
        time_kid(x, y, args.runs, args.kid_subsets, min(1000, args.n))


def time_fd(x, y, runs):
    from _peers import pytorch_fid_frechet
    from statcore import frechet_distance

    calc = pytorch_fid_frechet()

    def peer_fd():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return calc(x.mean(0), np.cov(x, rowvar=False), y.mean(0), np.cov(y, rowvar=False))

    # no warm-up call: nothing is compiled, and the peer's call takes minutes at d = 2048
    t_ours, ours = median_time(lambda: frechet_distance(x, y).distance, runs, warmup=False, with_output=True)
    t_peer, peer = median_time(peer_fd, runs, warmup=False, with_output=True)
    print(f"FD        statcore {t_ours:8.2f} s   pytorch-fid (np.cov + sqrtm) {t_peer:8.2f} s   "
          f"ratio {t_peer / t_ours:5.1f}x   values {ours:.10g} vs {peer:.10g} (rel. diff {(ours - peer) / peer:.2e})")


def time_kid(x, y, runs, subsets, m):
    import torch

    from statcore import kid

    tf = torch_fidelity_kid()
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    t_ours, ours = median_time(lambda: kid(x, y, subsets=subsets, subset_size=m, seed=1).estimate,
                               runs, warmup=False, with_output=True)
    t_peer, peer = median_time(lambda: tf(xt, yt, kid_subsets=subsets, kid_subset_size=m)["kid_mean"],
                               runs, warmup=False, with_output=True)
    print(f"KID       statcore {t_ours:8.2f} s   torch-fidelity {t_peer:8.2f} s   ratio {t_peer / t_ours:5.1f}x   "
          f"({subsets} subsets of {m}; values {ours:.6g} vs {peer:.6g}, different random subsets)")


if __name__ == "__main__":
    main()
