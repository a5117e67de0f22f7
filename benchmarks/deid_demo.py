"""A face de-identification demo of statcore.aggregate (ours: an illustration, not HiFD's protocol).

Faces: scikit-image's ``astronaut`` (its face cropped) and the 100 faces of ``lfw_subset`` (25 x 25
grey crops of Labeled Faces in the Wild), both shipped with scikit-image (offline). Four
de-identifications: Gaussian blur, pixelation, additive Gaussian noise and a black eye band. Three
components per face, each in [0, 1], higher is better:

- privacy: 1 - cosine similarity between the MobileNetV2 features (the 1280 pooled ImageNet features
  of ``learncore.features.MobileNetV2`` with the offline ImageNet weights) of the original and the
  de-identified face, clipped at 0. MobileNetV2 is an ImageNet classifier, NOT a face recogniser:
  this is an identity proxy only, and a real evaluation would use a face-recognition network.
- utility: SSIM between the original and the de-identified face (``skimage.metrics``, data range 1),
  clipped at 0.
- quality: PSNR in dB mapped to [0, 1] by the stated rule q = clip((PSNR - 10) / 30, 0, 1): 10 dB
  or less is 0, 40 dB or more is 1.

The HiFD-style score is the weighted harmonic mean of the three component averages under our
profiles "balanced" and "privacy_first" (``statcore.composite_score``; HiFD's own weights are not
published), with bootstrap intervals over the faces; then its robustness to the weights
(``weight_robustness``, ``profile_rank_stability``) and the share of faces "de-identified at FAR
1e-2" (``rate_at_far``: impostor scores are the cosine similarities between different LFW faces;
the subset may hold a few repeated people, so the FAR is approximate).

Not run in CI (it needs torch and about a minute). Outputs go to benchmarks/results/deid/.

    python benchmarks/deid_demo.py [--out benchmarks/results/deid]
"""
import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import statcore as sc  # noqa: E402

METHODS = ("blur", "pixelate", "noise", "eye_band")


def faces():
    from skimage import color, data, transform

    astro = color.rgb2gray(data.astronaut()[30:230, 160:340])          # the face, grey, in [0, 1]
    lfw = data.lfw_subset()[:100]                                      # the first 100 are faces
    size = 64
    out = [transform.resize(astro, (size, size), anti_aliasing=True)]
    out += [transform.resize(f, (size, size), order=3) for f in lfw]
    return np.clip(np.stack(out), 0.0, 1.0)


def deidentify(img, method, rng):
    from scipy import ndimage

    h, w = img.shape
    if method == "blur":
        return ndimage.gaussian_filter(img, sigma=h / 16)
    if method == "pixelate":
        k = h // 8
        small = img.reshape(h // k, k, w // k, k).mean(axis=(1, 3))
        return np.kron(small, np.ones((k, k)))
    if method == "noise":
        return np.clip(img + rng.normal(0.0, 0.15, img.shape), 0.0, 1.0)
    if method == "eye_band":
        out = img.copy()
        out[int(0.30 * h):int(0.50 * h), :] = 0.0
        return out
    raise ValueError(method)


def features(imgs):
    import torch

    from learncore.features import MobileNetV2, extract

    torch.set_num_threads(1)
    net = MobileNetV2(weights="imagenet")
    rgb = np.repeat(imgs[..., None], 3, axis=-1)
    return extract(rgb, net, batch_size=32)


def cosine(a, b):
    return np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def main(out: Path):
    from skimage.metrics import peak_signal_noise_ratio, structural_similarity

    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(36)
    orig = faces()
    n = orig.shape[0]
    deid = {m: np.stack([deidentify(f, m, rng) for f in orig]) for m in METHODS}
    feats = features(np.concatenate([orig] + [deid[m] for m in METHODS]))
    f0 = feats[:n]
    lines = [f"{n} faces (astronaut + 100 LFW), 64 x 64 grey; components privacy (1 - cosine of MobileNetV2 "
             "features: an identity proxy, not a face recogniser), utility (SSIM), quality (PSNR mapped by "
             "clip((PSNR - 10) / 30, 0, 1))", ""]
    tables, pair_scores = {}, {}
    for k, m in enumerate(METHODS):
        fm = feats[n * (k + 1):n * (k + 2)]
        cos = cosine(f0, fm)
        pair_scores[m] = cos
        ssim = np.array([structural_similarity(a, b, data_range=1.0) for a, b in zip(orig, deid[m])])
        psnr = np.array([peak_signal_noise_ratio(a, b, data_range=1.0) for a, b in zip(orig, deid[m])])
        tables[m] = pd.DataFrame({"privacy": np.clip(1 - cos, 0, 1), "utility": np.clip(ssim, 0, 1),
                                  "quality": np.clip((psnr - 10) / 30, 0, 1)})
        tables[m].assign(psnr_db=psnr).to_csv(out / f"components_{m}.csv", index=False)
    rows = []
    for m in METHODS:
        res = sc.composite_score(tables[m], profile=["balanced", "privacy_first"], B=2000, seed=1)
        lines += [f"== {m} ==", res.summary()]
        f = res.to_frame()
        f.insert(0, "method", m)
        rows.append(f)
    pd.concat(rows).to_csv(out / "composite.csv", index=False)
    table = pd.DataFrame({m: tables[m].mean() for m in METHODS}).T
    table.index.name = "method"
    table.to_csv(out / "component_means.csv")
    wr = sc.weight_robustness(table, B=20000, seed=2)
    lines += ["== weight robustness (Dirichlet(1) weights over privacy, utility, quality) ==", wr.summary()]
    wr.to_frame().to_csv(out / "weight_robustness.csv", index=False)
    two = sc.weight_robustness(table[["privacy", "utility"]], B=20000, seed=3)
    lines += ["== privacy vs utility only: exact crossing weights ==", two.summary()]
    prs = sc.profile_rank_stability(table, ["balanced", "privacy_first", "utility_first"])
    lines += ["== rank stability across our three profiles ==", prs.summary()]
    iu = np.triu_indices(n - 1, k=1)
    lfw_cos = f0[1:] @ f0[1:].T / np.outer(np.linalg.norm(f0[1:], axis=1), np.linalg.norm(f0[1:], axis=1))
    impostor = lfw_cos[iu]
    far_rows = []
    lines += [f"== share of faces de-identified at FAR 1e-2 ({impostor.size} impostor pairs of LFW faces) =="]
    for m in METHODS:
        r = sc.rate_at_far(impostor, pair_scores[m], far=0.01)
        lines += [f"{m:>9}: {r.below}/{r.n_pairs} = {r.estimate:.3f} [{r.conf_low:.3f}, {r.conf_high:.3f}] "
                  f"(threshold {r.threshold:.4f})"]
        far_rows.append(r.to_frame().assign(method=m))
    lines += ["", "median cosine, original vs de-identified: " + ", ".join(
        f"{m} {np.median(pair_scores[m]):.3f}" for m in METHODS) + f"; impostor median {np.median(impostor):.3f}",
        "Read with care: to an ImageNet network two different grey faces look alike (high impostor similarity),",
        "while every distortion here moves a face far from itself, so all of them 'de-identify' at FAR 1e-2.",
        "A face-recognition embedding would separate identities and make this share informative."]
    pd.concat(far_rows).to_csv(out / "rate_at_far.csv", index=False)
    text = "\n".join(lines) + "\n"
    (out / "summary.txt").write_text(text)
    print(text)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "deid")
    main(ap.parse_args().out)
