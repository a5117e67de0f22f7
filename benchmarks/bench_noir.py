"""The NOIR study (issue 16): does an independence penalty on the latent layer make neural operators
more robust to corrupted sensors?

    python benchmarks/bench_noir.py              # the full design (FULL in benchmarks/_noir_study.py)
    python benchmarks/bench_noir.py --quick      # the CI smoke run (QUICK), under two minutes
    python benchmarks/bench_noir.py --seeds 3 --epochs 30 --n-samples 300 --jobs 2 --out noir_out

Three PDEs (Burgers, Darcy 32 x 32, advection) x {DeepONet, FNO} x {lam = 0, lam > 0} x seeds, each
model evaluated on the test split clean and under the five additive sensor corruptions at three
strengths. Prints: the table of mean relative L2 (lam = 0 / lam > 0, a star where the BH-adjusted
paired t-test over seeds is below 0.05), the significant cells, the latent signatures (share of
dependent latent pairs after BH, total correlation, participation ratio) and the time per epoch
(process CPU time, one torch thread) and of the whole study. Writes the raw tables (csv) and the
figures (error against strength per PDE, latent signatures) into ``--out``.

The design and every hyperparameter are ``benchmarks/_noir_study.py``'s (the vignette
``vignettes/noir_operators.py`` runs the same).
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

import _noir_study as study  # noqa: E402


def report_degradation(deg: pd.DataFrame, out: Path) -> None:
    """The paired comparison of each model's degradation (corrupted minus its own clean error)."""
    deg.to_csv(out / "degradation_comparisons.csv", index=False)
    print("\ndegradation (error under corruption minus the model's clean error), lam = 0 / lam > 0, mean over "
          "seeds (* BH-adjusted paired t-test < 0.05):")
    print(study.error_table(deg).to_string())
    sig = deg[deg.significant]
    print(f"significant cells: {len(sig)} of {len(deg)}; lam > 0 degrades less in "
          f"{int((deg.difference < 0).sum())} of {len(deg)}")
    if len(sig):
        print(sig[["pde", "model", "corruption", "level", "rel_l2_lam0", "rel_l2_noir", "p_value", "p_adjusted"]]
              .to_string(index=False, float_format=lambda v: f"{v:.4g}"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="the CI smoke design")
    ap.add_argument("--seeds", type=int, default=None, help="number of training seeds (0, 1, ...)")
    ap.add_argument("--epochs", type=int, default=None)
    ap.add_argument("--n-samples", type=int, default=None)
    ap.add_argument("--lam", type=float, default=None)
    ap.add_argument("--pdes", default=None, help="comma-separated subset of burgers,darcy,advection")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("NOIR_JOBS", "2")), help="worker processes")
    ap.add_argument("--out", default="noir_study", help="folder for the csv tables and figures")
    ap.add_argument("--from-csv", action="store_true", help="re-analyse --out's errors.csv (degradation only)")
    args = ap.parse_args()
    if args.from_csv:
        out = Path(args.out)
        pd.set_option("display.width", 250, "display.max_columns", 40, "display.max_rows", 400)
        report_degradation(study.compare(study.degradation(pd.read_csv(out / "errors.csv"))), out)
        return

    design = study.QUICK if args.quick else study.FULL
    changes = {}
    if args.seeds is not None:
        changes["seeds"] = tuple(range(args.seeds))
    if args.epochs is not None:
        changes["epochs"] = args.epochs
    if args.n_samples is not None:
        changes["n_samples"] = args.n_samples
    if args.lam is not None:
        changes["lam"] = args.lam
    if args.pdes is not None:
        changes["pdes"] = tuple(args.pdes.split(","))
    design = dataclasses.replace(design, **changes)
    print("design:", design)

    t0 = time.perf_counter()
    res = study.run_study(design, n_jobs=args.jobs, progress=False)
    comp = res.comparisons()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    res.errors.to_csv(out / "errors.csv", index=False)
    res.timing.to_csv(out / "timing.csv", index=False)
    res.signatures.to_csv(out / "signatures.csv", index=False)
    comp.to_csv(out / "comparisons.csv", index=False)

    pd.set_option("display.width", 250, "display.max_columns", 40, "display.max_rows", 400)
    print(f"\ndata generation (s): " + ", ".join(f"{k} {v:.1f}" for k, v in res.data_seconds.items()))
    print("\nmean test relative L2, lam = 0 / lam =", design.lam, "(* BH-adjusted paired t-test < 0.05):")
    print(study.error_table(comp).to_string())
    sig = comp[comp.significant]
    print(f"\nsignificant cells: {len(sig)} of {len(comp)} (BH over all cells, alpha 0.05)")
    if len(sig):
        print(sig[["pde", "model", "corruption", "level", "rel_l2_lam0", "rel_l2_noir", "rel_change", "p_value",
                   "p_adjusted"]].to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    helps = comp[comp.difference < 0]
    print(f"cells where lam > 0 has the lower mean error: {len(helps)} of {len(comp)}")
    report_degradation(res.degradation_comparisons(), out)
    print("\nlatent signatures (seed 0; dcor t-tests of all latent pairs, BH at 0.05):")
    cols = ["pde", "model", "lam", "condition", "share_dependent", "total_correlation", "participation_ratio",
            "n_constant"]
    print(res.signatures[cols].to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    t = res.timing.groupby(["pde", "model", "lam"])[["cpu_per_epoch", "wall_per_epoch"]].median()
    print("\ntime per epoch (s; median over seeds; CPU = process time, one torch thread):")
    print(t.to_string(float_format=lambda v: f"{v:.3f}"))
    print(f"\nwhole study: {time.perf_counter() - t0:.0f} s wall with {args.jobs} worker process(es)")

    for pde in design.pdes:
        ax = study.plot_error_vs_strength(res.errors, pde)
        ax[0].figure.tight_layout()
        ax[0].figure.savefig(out / f"noir_error_vs_strength_{pde}.png", dpi=110)
        plt.close(ax[0].figure)
    for value in ("share_dependent", "total_correlation"):
        ax = study.plot_signatures(res.signatures, value=value)
        ax.figure.tight_layout()
        ax.figure.savefig(out / f"noir_signature_{value}.png", dpi=110)
        plt.close(ax.figure)


if __name__ == "__main__":
    main()
