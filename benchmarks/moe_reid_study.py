"""The re-identification-LIKE study of learncore.moe (our synthetic identities from scikit-image's
photographs, not the HypMoE-ReID paper's data): dense adapter vs softmax MoE vs hyperspherical MoE
with and without the diversity loss, on frozen ImageNet MobileNetV2 tokens. The design is in
``benchmarks/_moe_study.py``; the results go to ``benchmarks/results/moe/``.

Run: ``python benchmarks/moe_reid_study.py`` (about ten minutes on one core) or ``--quick``.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import _moe_study as study  # noqa: E402


def figures(out: dict, folder: Path) -> None:
    """The figure, from the tables alone (``--figures`` redraws it from the CSV files)."""
    m = out["metrics"]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    ax = axes[0]
    arms = list(dict.fromkeys(m["arm"]))
    for i, arm in enumerate(arms):
        sub = m[m["arm"] == arm]
        for j, (_, r) in enumerate(sub.iterrows()):
            x = i + (j - (len(sub) - 1) / 2) * 0.15
            ax.errorbar(x, r["mean_ap"], yerr=[[r["mean_ap"] - r["mean_ap_low"]], [r["mean_ap_high"] - r["mean_ap"]]],
                        fmt="o", color=f"C{i}", capsize=3)
    ax.set_xticks(range(len(arms)), arms, rotation=30)
    ax.set_ylabel("mAP (95% bootstrap interval over queries)")
    ax.set_title("mAP per arm and seed")
    ax = axes[1]
    for i, arm in enumerate(arms):
        curve = out["cmc"][out["cmc"]["arm"] == arm].groupby("rank")["cmc"].mean()
        ax.plot(curve.index, curve.to_numpy(), marker="o", color=f"C{i}", label=arm)
    ax.set_xlabel("rank")
    ax.set_ylabel("CMC (mean over seeds)")
    ax.legend(fontsize=8)
    ax.set_title("CMC")
    ax = axes[2]
    r = out["routing"]
    if len(r):
        g = r.groupby("arm", sort=False)[["usage_perplexity", "expert_camera_nmi_tokens"]].mean()
        x = np.arange(len(g))
        ax.bar(x - 0.2, g["usage_perplexity"], 0.4, label="usage perplexity (of 4 experts)")
        ax2 = ax.twinx()
        ax2.bar(x + 0.2, g["expert_camera_nmi_tokens"], 0.4, color="C3", label="NMI(expert, camera), tokens")
        ax.set_xticks(x, g.index, rotation=30)
        ax.set_ylabel("perplexity of top-1 usage")
        ax2.set_ylabel("NMI expert vs camera")
        ax.set_title("routing on the test tokens")
        ax.legend(loc="upper left", fontsize=8)
        ax2.legend(loc="upper right", fontsize=8)
    fig.suptitle("Re-identification-like study (synthetic identities from scikit-image photographs; not the paper's data)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(folder / "moe_reid_study.png", dpi=110)
    plt.close(fig)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="the two-identity smoke design")
    parser.add_argument("--out", default=str(HERE / "results" / "moe"))
    parser.add_argument("--figures", action="store_true", help="only redraw the figure from the CSV files in --out")
    args = parser.parse_args(argv)
    if args.figures:
        folder = Path(args.out)
        figures({k: pd.read_csv(folder / f"{k}.csv") for k in ("metrics", "routing", "cmc")}, folder)
        return
    design = study.QUICK if args.quick else study.FULL
    folder = Path(args.out)
    folder.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    out = study.run(design, progress=True)
    wall = time.time() - t0
    out["metrics"].to_csv(folder / "metrics.csv", index=False)
    out["comparisons"].to_csv(folder / "comparisons.csv", index=False)
    out["routing"].to_csv(folder / "routing.csv", index=False)
    summary = study.summarise(out["metrics"])
    summary.to_csv(folder / "summary.csv", index=False)
    pd.Series(dict(n_views=out["n_views"], n_train_identities=out["n_train_identities"],
                   n_test_identities=out["n_test_identities"], token_cpu_seconds=out["token_seconds"],
                   wall_seconds=wall, **{k: str(v) for k, v in vars(design).items()})).to_csv(folder / "design.csv",
                                                                                             header=["value"])
    out["cmc"].to_csv(folder / "cmc.csv", index=False)
    figures(out, folder)
    with pd.option_context("display.width", 200, "display.max_columns", 20, "display.precision", 4):
        print(summary)
        print(out["comparisons"])
        print(out["routing"])
    print(f"wall {wall:.0f} s; results in {folder}")


if __name__ == "__main__":
    main()
