"""Post-hoc slimming of the shipped ArithTransformer against the learned slimmable arm.

Three sets of weights, each scored at every width by greedy accuracy on 500 held-out sums:
the shipped weights slimmed post hoc (attention scale kept and rescaled), the shipped weights
fine-tuned by the sandwich rule (``slimmable_finetune``: the largest, the smallest and two random
widths per step, all sharing weights), and, as a control, the shipped weights fine-tuned at full width
only for the same steps and batches.

Run ``nice -n 10 python benchmarks/slim_arith.py [--steps 600]`` (one thread, several minutes). Writes
``benchmarks/results/slim/arith_curve.csv`` (post-hoc, both scales), ``arith_finetune.csv``,
``arith_summary.txt`` and ``arith_finetune.png``.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import torch  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _slim_study as study  # noqa: E402

OUT = HERE / "results" / "slim"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--lr", type=float, default=1e-3)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    OUT.mkdir(parents=True, exist_ok=True)
    curves = []
    for scale in ("keep", "rescale"):
        c = study.arith_curve(attention_scale=scale)
        f = c.to_frame()
        f.insert(0, "attention_scale", scale)
        curves.append(f)
    curve = pd.concat(curves)
    curve.to_csv(OUT / "arith_curve.csv", index=False)
    frame, fit, cs, secs = study.arith_finetune_comparison(steps=args.steps, lr=args.lr)
    frame.to_csv(OUT / "arith_finetune.csv", index=False)
    pred = study.predictiveness(curve[curve["attention_scale"] == "keep"])
    text = ("Post-hoc slimming (greedy accuracy on 500 held-out sums):\n" + curve.to_string(index=False)
            + "\n\nSpearman correlation across widths < 1 of each diagnostic with the relative score (keep):\n"
            + pred.to_string(index=False)
            + f"\n\nSandwich-rule fine-tuning, {args.steps} steps, AdamW lr {args.lr:g}, batch 64, 2 random widths "
            f"({secs:.0f} s CPU):\n" + fit.summary() + "\nAccuracy at each width:\n"
            + frame.to_string(index=False) + "\n")
    (OUT / "arith_summary.txt").write_text(text)
    print(text)
    fig, ax = plt.subplots(1, 2, figsize=(8.4, 3.2), layout="constrained")
    for col, style in (("post_hoc", "o-"), ("sandwich", "s-"), ("full_width_finetune", "^--")):
        ax[0].plot(frame["width"], frame[col], style, label=col.replace("_", " "))
    ax[0].set_xlabel("width s")
    ax[0].set_ylabel("held-out greedy accuracy")
    ax[0].legend(fontsize=8)
    ax[0].set_title("ArithTransformer", fontsize=10)
    fit.plot(ax=ax[1])
    fig.savefig(OUT / "arith_finetune.png", dpi=120)


if __name__ == "__main__":
    main()
