"""Time learncore.hprobz (issue 18) in one run: log_prob throughput of HProbZ against the mixture head.

    python benchmarks/bench_hprobz.py            # batch 4096, T = 12, 3 modes; 15 runs per case
    python benchmarks/bench_hprobz.py --quick    # smoke run (3 runs per case)

Cases (samples per second = 4096 / median wall time; one thread, the same random parameters as a
network's head would output, outcomes drawn from the model itself):

- HProbZ m = 1 (the closed form: one Gaussian-uniform convolution per mode, in log space) and the
  Gaussian mixture (diagonal, ``GaussianMixture``, the MDN baseline), in float32 and float64, the
  log density alone and with its backward pass (what a training step costs);
- HProbZ m = 2 with generators orthogonal in the noise metric (exact product of two convolutions),
  and with general generators (Genz's quasi-Monte Carlo route, 64 and 256 points), for scale;
- ``condition`` on step 1 and ``conformal_sets`` (12 steps, 801-point grid) of the 4096 predictives.
"""
from __future__ import annotations

import argparse

import torch

from _timing import median_time
from learncore.hprobz import GaussianMixture, HProbZ

B, T, K = 4096, 12, 3


def params(m: int, dtype, seed: int = 0, orthogonal: bool = False):
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(B, K, generator=g, dtype=dtype)
    mu = torch.randn(B, K, T, generator=g, dtype=dtype).cumsum(-1) * 0.3
    G = torch.randn(B, K, T, m, generator=g, dtype=dtype) * 0.5
    if orthogonal and m == 2:            # generator 1 moves the first half of the steps, generator 2 the rest
        G[..., : T // 2, 1] = 0
        G[..., T // 2:, 0] = 0
    s = 0.05 + torch.rand(B, 1, T, generator=g, dtype=dtype) * 0.2
    return logits, mu, G, s


def bench_log_prob(reps: int) -> list[dict]:
    rows = []
    for dtype in (torch.float32, torch.float64):
        logits, mu, G, s = (p.requires_grad_(True) for p in params(1, dtype))
        sig = s.detach().expand(B, K, T).clone().requires_grad_(True)
        y = HProbZ(logits, mu, G, s).sample(seed=1)
        for name, make in (("HProbZ m=1 (closed form)", lambda: HProbZ(logits, mu, G, s)),
                           ("Gaussian mixture", lambda: GaussianMixture(logits, mu, sig))):
            t_fwd = median_time(lambda: make().log_prob(y), reps)
            t_bwd = median_time(lambda: make().log_prob(y).sum().backward(), reps)
            rows.append(dict(case=name, dtype=str(dtype).replace("torch.", ""), fwd=t_fwd, bwd=t_bwd))
    for label, m, orth, method, npts in (("HProbZ m=2 orthogonal (exact)", 2, True, "auto", 256),
                                          ("HProbZ m=2 general (Genz, 64 pts)", 2, False, "genz", 64),
                                          ("HProbZ m=2 general (Genz, 256 pts)", 2, False, "genz", 256)):
        logits, mu, G, s = params(m, torch.float64, orthogonal=orth)
        d = HProbZ(logits, mu, G, s, method=method, n_points=npts)
        y = d.sample(seed=1)
        t_fwd = median_time(lambda: d.log_prob(y), max(3, reps // 5))
        rows.append(dict(case=label, dtype="float64", fwd=t_fwd, bwd=float("nan")))
    return rows


def bench_other(reps: int) -> list[tuple[str, float]]:
    logits, mu, G, s = params(1, torch.float64)
    hz = HProbZ(logits, mu, G, s)
    gm = GaussianMixture(logits, mu, s.expand(B, K, T))
    y = hz.sample(seed=1)
    out = []
    for name, d in (("HProbZ", hz), ("Gaussian mixture", gm)):
        out.append((f"{name}: condition on step 1", median_time(lambda: d.condition([0], y[:, :1]), reps)))
        cal = d.conformity_scores(y)
        out.append((f"{name}: conformal_sets, 12 steps x 4096 (801-point grid)",
                    median_time(lambda: d.conformal_sets(cal, alpha=0.1, n_grid=801), max(3, reps // 5))))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    reps = 3 if args.quick else 15
    torch.set_num_threads(1)
    print(f"log_prob throughput, batch {B}, T = {T}, {K} modes, one thread (median of {reps} runs)")
    rows = bench_log_prob(reps)
    print(f"{'case':<38}{'dtype':>9}{'log_prob/s':>14}{'+backward/s':>14}")
    ref = {r["dtype"]: r for r in rows if r["case"] == "Gaussian mixture"}
    for r in rows:
        bwd = f"{B / r['bwd']:>14,.0f}" if r["bwd"] == r["bwd"] else f"{'-':>14}"
        print(f"{r['case']:<38}{r['dtype']:>9}{B / r['fwd']:>14,.0f}{bwd}")
    for dt in ("float32", "float64"):
        h = next(r for r in rows if r["case"].startswith("HProbZ m=1") and r["dtype"] == dt)
        print(f"HProbZ m=1 / mixture time ratio ({dt}): log_prob {h['fwd'] / ref[dt]['fwd']:.2f}x, "
              f"with backward {h['bwd'] / ref[dt]['bwd']:.2f}x")
    print()
    for name, sec in bench_other(reps):
        print(f"{name:<60}{sec * 1e3:>9.1f} ms")


if __name__ == "__main__":
    main()
