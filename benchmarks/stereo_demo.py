"""The stereo depth-accuracy protocol's full runs (HumanStereo's metrics; matchers, rig and study ours;
figures recorded in benchmarks/README.md, section "learncore.stereo: the motorcycle demo and the face-rig
IPD study").

1. The real demo: every matcher on scikit-image's Middlebury 2014 Motorcycle pair (500 x 741, 128
   disparities): delta_1, RMSE, EPE, bad-2 next to IR(tau) for tau = 5, 10, 20, 50 mm with the
   block-bootstrap interval (50 x 50 blocks, B = 999); error maps and IR against tau.
2. The face-rig IPD study: 20 simulated subjects x baselines 5, 10, 20, 40 mm, each matcher; Bland-Altman and
   the paired TOST at the clinical 1 mm margin per matcher and baseline.

    NUMBA_CACHE_DIR=/tmp/numba PYTHONPATH=. python benchmarks/stereo_demo.py [--quick]

One thread (numba's kernels are serial); about 3 to 4 minutes on one core.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from learncore.stereo import stereo_motorcycle  # noqa: E402

import _stereo_study as study  # noqa: E402

OUT = Path(__file__).resolve().parent / "results" / "stereo"


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="a half-resolution pair and 4 subjects x 2 baselines")
    args = ap.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    OUT.mkdir(parents=True, exist_ok=True)
    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 40)
    lines = []

    def say(text=""):
        print(text, flush=True)
        lines.append(str(text))

    t_all = time.perf_counter()
    scene = stereo_motorcycle()
    max_disp = 128
    if args.quick:
        scene, max_disp = study.downsample(scene, 2), 64
    taus = (5.0, 10.0, 20.0, 50.0)
    table, disps = study.evaluate_scene(scene, max_disp, taus=taus, block=(50, 50), B=999, seed=0)
    say(f"== {scene.name}: {scene.left.shape[0]} x {scene.left.shape[1]}, {max_disp} disparities, "
        f"{int(np.isfinite(scene.depth).sum())} pixels with truth; IR intervals: 50 x 50 block bootstrap, B 999")
    cols = ["matcher", "seconds", "delta_1", "rmse_mm", "epe_px", "bad_2", "missing"]
    say(table[cols].round(3).to_string(index=False))
    ir_cols = ["matcher"] + [f"ir_{t:g}{s}" for t in taus for s in ("", "_low", "_high")]
    say(table[ir_cols].round(3).to_string(index=False))
    grid = (1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0)
    curves = study.ir_curves(scene, disps, grid, block=(50, 50), B=499, seed=0)
    curves.to_csv(OUT / "motorcycle_ir_curves.csv", index=False)
    study.plot_error_maps(scene, disps, OUT / "motorcycle_error_maps.png")
    study.plot_ir_curves(curves, dict(zip(table["matcher"], table["delta_1"])), OUT / "motorcycle_ir_tau.png")
    say(f"(motorcycle: {time.perf_counter() - t_all:.0f} s)")

    t0 = time.perf_counter()
    n_sub, baselines = (4, (10.0, 40.0)) if args.quick else (20, (5.0, 10.0, 20.0, 40.0))
    df = study.rig_study(n_sub, baselines=baselines, seed=0)
    df.to_csv(OUT / "rig_ipd.csv", index=False)
    agr = study.agreement(df, margin=1.0)
    say()
    say(f"== face rig: {n_sub} subjects x baselines {baselines} mm (160 x 200 px, f 400 px, nose tip at "
        "400-500 mm); pupils' true pixels lifted by each matcher's depth")
    say(agr.round(3).to_string(index=False))
    study.plot_bland_altman(df, OUT / "rig_bland_altman.png")
    say(f"(rig: {time.perf_counter() - t0:.0f} s; total {time.perf_counter() - t_all:.0f} s)")
    (OUT / ("stereo_demo_quick.txt" if args.quick else "stereo_demo.txt")).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
