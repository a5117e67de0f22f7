"""Time learncore.operators' independence penalty (issue 16) in one run against statcore's statistics of
the same pairs, and its share of a NOIR training step.

    python benchmarks/bench_noir_penalty.py            # 15 runs per case
    python benchmarks/bench_noir_penalty.py --quick    # 3 runs per case

Cases (one thread, float32 as in training unless said; a batch of B latent vectors of p coordinates):

- ``independence_penalty`` forward, and forward + backward, for kind = hsic, dcor, tc, at (B, p) =
  (32, 16), (32, 32), (64, 32) (tc with ridge = 1e-3 where B <= p: the exact one is infinite there);
- the same number from statcore, pair by pair, float64, no gradient: for hsic the normalised HSIC
  (three ``statcore.hsic`` calls per pair), for dcor ``statcore.dcor(x, y) ** 2`` (one call per pair,
  the O(n log n) path); the ratio statcore / penalty (> 1: the batched torch pass is faster);
- a training step of a DeepONet (m = 32 sensors, 128 grid points, p = 32, hidden (64, 64)) on a batch
  of 32 with lam = 0 and with each penalty: what the regulariser adds to an epoch.
"""
from __future__ import annotations

import argparse

import numpy as np
import torch

import statcore
from _timing import median_time
from learncore.operators import DeepONet, independence_penalty
from learncore.operators.training import relative_l2


def _statcore_sum(z: np.ndarray, kind: str) -> float:
    p = z.shape[1]
    tot = 0.0
    for i in range(p):
        for j in range(i + 1, p):
            x, y = z[:, i], z[:, j]
            if kind == "hsic":
                tot += statcore.hsic(x, y) / np.sqrt(statcore.hsic(x, x) * statcore.hsic(y, y))
            else:
                tot += statcore.dcor(x, y) ** 2
    return tot


def bench_penalty(reps: int) -> list[dict]:
    rows = []
    g = torch.Generator().manual_seed(0)
    for B, p in ((32, 16), (32, 32), (64, 32)):
        z = torch.randn(B, p, generator=g)
        z[:, 1] = z[:, 0] ** 2 + 0.1 * z[:, 1]
        for kind in ("hsic", "dcor", "tc"):
            zz = z.clone().requires_grad_(True)
            kw = {"ridge": 1e-3} if (kind == "tc" and B <= p) else {}
            fwd = median_time(lambda: independence_penalty(zz, measure=kind, **kw), reps)
            bwd = median_time(lambda: independence_penalty(zz, measure=kind, **kw).backward(), reps)
            row = dict(B=B, p=p, kind=kind, fwd_ms=1e3 * fwd, fwd_bwd_ms=1e3 * bwd)
            if kind != "tc":
                z64 = z.double().numpy()
                t_sc, val = median_time(lambda: _statcore_sum(z64, kind), max(1, reps // 3), with_output=True)
                agree = abs(val - float(independence_penalty(z.double(), measure=kind)))
                row.update(statcore_ms=1e3 * t_sc, ratio=t_sc / fwd, abs_diff_f64=agree)
            rows.append(row)
    return rows


def bench_step(reps: int) -> list[dict]:
    grid = np.linspace(0, 1, 128, endpoint=False)[:, None]
    net = DeepONet(32, grid, p=32, branch_hidden=(64, 64), trunk_hidden=(64, 64))
    opt = torch.optim.Adam(net.parameters(), lr=1e-4)
    g = torch.Generator().manual_seed(1)
    x, y = torch.randn(32, 32, generator=g), torch.randn(32, 128, generator=g) + 2.0
    rows = []
    for kind in (None, "hsic", "dcor", "tc"):
        def step():
            pred, z = net.forward_latent(x)
            loss = relative_l2(pred, y).mean()
            if kind is not None:
                loss = loss + 1e-3 * independence_penalty(z, measure=kind, **({"ridge": 1e-3} if kind == "tc" else {}))
            opt.zero_grad()
            loss.backward()
            opt.step()
        rows.append(dict(penalty=kind or "none (lam = 0)", step_ms=1e3 * median_time(step, reps)))
    base = rows[0]["step_ms"]
    for r in rows:
        r["ratio_to_lam0"] = r["step_ms"] / base
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(1)
    reps = 3 if args.quick else 15
    import pandas as pd

    pd.set_option("display.width", 140)
    print("independence_penalty against statcore's statistics of the same pairs (ms; ratio = statcore / penalty fwd)")
    print(pd.DataFrame(bench_penalty(reps)).to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    print("\nDeepONet training step (batch 32, p = 32), with and without the penalty (ms)")
    print(pd.DataFrame(bench_step(reps)).to_string(index=False, float_format=lambda v: f"{v:.3g}"))


if __name__ == "__main__":
    main()
