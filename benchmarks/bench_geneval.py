"""The generative-evaluation study of vignettes/geneval_patches.py at its larger scale, with timings.

Runs the vignette with GENEVAL_SCALE=full (N = 600 samples per set, 8,000 training patches, KID on
20 subsets of 300, 20 bootstrap replicates of the swap probabilities; about 15 minutes on two idle
cores, most of it the swap bootstrap), then prints the scores table,
the rank-stability summary (Kendall's W, tau_b between protocols, rank ranges), the swap
probabilities of neighbours in the standard ranking and the time of each stage. Figures go to
./figures. No peer is timed here: the speed of frechet_distance and kid against pytorch-fid and
torch-fidelity is benchmarks/bench_twosample.py's; this benchmark records what the study costs.

Usage: python benchmarks/bench_geneval.py [--quick]
"""
import os
import runpy
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def main():
    scale = "quick" if "--quick" in sys.argv else "full"
    os.environ["GENEVAL_SCALE"] = scale
    t0 = time.perf_counter()
    ns = runpy.run_path(str(ROOT / "vignettes" / "geneval_patches.py"), run_name="__main__")
    total = time.perf_counter() - t0
    print(f"\n=== geneval study, scale {scale}: N = {ns['N']} per set, {ns['N_TRAIN']} training patches ===")
    print(ns["table"].round(4).to_string())
    print("\nFD(reference A, reference B):", {k: round(v, 4) for k, v in ns["floor"].items()})
    print(ns["stab"].summary())
    print(ns["stab"].to_frame().round(2).to_string(index=False))
    print(f"\nswap probabilities of neighbours (FD mnv2 A), B = {ns['B_SWAP']}:")
    print(ns["neighbours"].sort_values("p_swap", ascending=False).round(3).to_string(index=False))
    n_img = len(ns["sets"]) * ns["N"]
    print("\nstage times (s):", {k: round(v, 1) for k, v in ns["TIMES"].items()}, f"(wall {total:.1f} s)")
    print(f"feature extraction: {n_img} images x {len(ns['EXTRACTORS'])} extractors in "
          f"{ns['TIMES']['features']:.1f} s ({len(ns['EXTRACTORS']) * n_img / ns['TIMES']['features']:.0f} images/s)")
    print(f"cores: {os.cpu_count()}, load average: {np.round(os.getloadavg(), 1).tolist()}")


if __name__ == "__main__":
    main()
