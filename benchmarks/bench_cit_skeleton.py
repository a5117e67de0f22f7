"""PC-stable skeleton on 50 nodes: statcore's pc_skeleton against causal-learn's PC, in one run.

    python benchmarks/bench_cit_skeleton.py            # 5 random DAGs, 3 timed runs each
    python benchmarks/bench_cit_skeleton.py --quick    # 2 DAGs, 1 run each

Data: a random DAG on 50 nodes (expected degree ``--degree``), linear Gaussian structural equations
with weights of size 0.5-1 and random signs, n = 1000 (the issue's setting). Timed, each as the
median over runs, with the test statistics computed from scratch each time:

- statcore ``pc_skeleton(test="gcm")``: the linear GCM (target: under 30 s);
- statcore ``pc_skeleton(test="parcor", parcor="fisher")``: the same p-values as causal-learn's
  fisherz, computed from cached OLS residuals;
- causal-learn skeleton discovery (PC-stable, the phase ``pc`` runs before orienting) with fisherz
  and, through :func:`statcore.cit._causallearn.register_causallearn_tests`, with statcore's GCM.

Agreement is reported as the number of pairs on which two skeletons differ (structural Hamming
distance of skeletons) and recall / false positives against the true DAG's skeleton.
"""
from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from statcore.cit._skeleton import pc_skeleton
from _timing import median_time


def simulate(p: int, n: int, degree: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    dag = np.triu(rng.uniform(size=(p, p)) < degree / (p - 1), 1)
    w = dag * rng.uniform(0.5, 1.0, size=(p, p)) * rng.choice([-1.0, 1.0], size=(p, p))
    x = np.zeros((n, p))
    for j in range(p):
        x[:, j] = x @ w[:, j] + rng.standard_normal(n)
    x /= x.std(axis=0)
    return x, (dag | dag.T).astype(np.int64)


def shd(a: np.ndarray, b: np.ndarray) -> int:
    return int(np.triu(a != b, 1).sum())


def versus_truth(est: np.ndarray, truth: np.ndarray) -> tuple[float, int]:
    up = np.triu(np.ones_like(truth, dtype=bool), 1)
    tp = int((est.astype(bool) & truth.astype(bool) & up).sum())
    fp = int((est.astype(bool) & ~truth.astype(bool) & up).sum())
    return tp / max(1, int((truth.astype(bool) & up).sum())), fp


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--nodes", type=int, default=50)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--degree", type=float, default=3.0)
    ap.add_argument("--alpha", type=float, default=0.01)
    args = ap.parse_args()
    graphs, reps = (2, 1) if args.quick else (5, 3)

    try:
        from causallearn.utils.cit import CIT
        from causallearn.utils.PCUtils.SkeletonDiscovery import skeleton_discovery

        from statcore.cit._causallearn import register_causallearn_tests

        register_causallearn_tests()
    except ImportError:
        CIT = None
        print("causal-learn is not installed: timing statcore only")

    def cl_skeleton(x, method):
        cg = skeleton_discovery(x, args.alpha, CIT(x, method), stable=True, show_progress=False)
        return (cg.G.graph != 0).astype(np.int64)

    pc_skeleton(*simulate(8, 200, 2.0, 0)[:1], test="gcm")  # warm-up: imports
    rows = []
    for g in range(graphs):
        x, truth = simulate(args.nodes, args.n, args.degree, seed=g)
        runs = {
            "statcore gcm": lambda: pc_skeleton(x, alpha=args.alpha, test="gcm"),
            "statcore parcor (fisher)": lambda: pc_skeleton(x, alpha=args.alpha, test="parcor", parcor="fisher"),
        }
        if CIT is not None:
            runs["causal-learn fisherz"] = lambda: cl_skeleton(x, "fisherz")
            runs["causal-learn + statcore_gcm"] = lambda: cl_skeleton(x, "statcore_gcm")
        adj = {}
        for name, fn in runs.items():
            t, out = median_time(fn, reps, warmup=False, with_output=True)
            a = out.adjacency.to_numpy() if hasattr(out, "adjacency") else out
            adj[name] = a
            recall, fp = versus_truth(a, truth)
            rows.append({"graph": g, "method": name, "seconds": t, "edges": shd(a, 0 * a),
                         "true edges": shd(truth, 0 * truth), "recall": recall, "false pos.": fp,
                         "tests": len(out.tests) if hasattr(out, "tests") else np.nan})
        ref = adj.get("causal-learn fisherz")
        for r in rows[-len(runs):]:
            r["SHD vs cl fisherz"] = shd(adj[r["method"]], ref) if ref is not None else np.nan
            r["SHD vs statcore gcm"] = shd(adj[r["method"]], adj["statcore gcm"])

    tab = pd.DataFrame(rows)
    pd.set_option("display.width", 160)
    print(f"\n{args.nodes} nodes, n = {args.n}, expected degree {args.degree}, alpha = {args.alpha}; "
          f"{graphs} DAGs, median of {reps} runs each\n")
    print(tab.round(3).to_string(index=False))
    summ = tab.groupby("method", sort=False).agg(
        median_s=("seconds", "median"), max_s=("seconds", "max"), recall=("recall", "mean"),
        false_pos=("false pos.", "mean"), shd_vs_fisherz=("SHD vs cl fisherz", "mean"),
        shd_vs_gcm=("SHD vs statcore gcm", "mean"))
    if "causal-learn fisherz" in summ.index:
        summ["time / cl fisherz"] = summ["median_s"] / summ.at["causal-learn fisherz", "median_s"]
    print("\nSummary over DAGs (time: median; recall, false positives, SHD: mean)\n")
    print(summ.round(3).to_string())
    worst = tab.loc[tab.method == "statcore gcm", "seconds"].max()
    print(f"\n50-node linear GCM target < 30 s: worst graph {worst:.2f} s -> {'met' if worst < 30 else 'MISSED'}")


if __name__ == "__main__":
    main()
