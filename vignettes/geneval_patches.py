# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # Ranking generators without over-reading one number: a miniature on image patches
#
# A recent study re-evaluated dozens of ImageNet generators with their samples fixed and only the
# evaluation protocol changed (reference set, sample size, feature extractor) and found that the
# same samples get different FIDs and different rankings. This vignette is a miniature of that
# study, honest about its scale: 16 x 16 colour patches cut from the photographs that ship with
# scikit-image and scikit-learn, a dozen "generators" that are real generative models trained here
# on those patches (a Gaussian, probabilistic PCA, Gaussian mixtures of several sizes, a small VAE)
# plus graded corruptions of held-out real patches, and the scores of `statcore.twosample` (Frechet
# distance, KID, precision/recall, density/coverage) under several protocols: three extractors
# (MobileNetV2's ImageNet features, a random CNN, the raw pixels), two disjoint reference sets and two
# sample sizes. `statcore.rank_stability` then says how much of the ranking survives the change of
# protocol, and how likely two models are to swap places when their samples are redrawn.
#
# The default is a quick setting (a couple of hundred samples per set, as the docs test runs it);
# `GENEVAL_SCALE=full python vignettes/geneval_patches.py` (or `benchmarks/bench_geneval.py`) runs
# the larger one. Figures go to `figures/`.

# %%
import os
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import torch
from PIL import Image
from scipy import ndimage
from sklearn.datasets import load_sample_images
from sklearn.decomposition import PCA
from sklearn.mixture import GaussianMixture
from skimage import data as skdata

import statcore
from learncore.features import MobileNetV2, RandomCNN, RawPixels, extract
from statcore.utils import thread_limit

torch.set_num_threads(1)
FIG = Path("figures")
FIG.mkdir(exist_ok=True)
SCALE = os.environ.get("GENEVAL_SCALE", "quick")
if SCALE not in ("quick", "full"):
    raise ValueError(f"GENEVAL_SCALE must be 'quick' or 'full', got {SCALE!r}")
QUICK = SCALE == "quick"
P = 16                                          # patch side
N = 150 if QUICK else 600                       # samples per generated set and per reference set
N_SMALL = N // 2                                # the smaller sample size of the sample-size protocol
N_TRAIN = 2500 if QUICK else 8000               # real patches the generators are trained on
KID_SUBSETS, KID_SIZE = (10, 75) if QUICK else (20, 300)
B_SWAP = 8 if QUICK else 20                     # bootstrap replicates of the swap probabilities
VAE_EPOCHS = 6 if QUICK else 15
MNV2_SIZE = 32 if QUICK else 64                 # MobileNetV2's input size for the 16 x 16 patches
rng = np.random.default_rng(2026)
T0 = time.perf_counter()
TIMES = {}

# %% [markdown]
# ## Real patches
#
# Every RGB photograph that ships with scikit-image (astronaut, cat, coffee, rocket, the Hubble deep
# field, a stained tissue section, a retina, a colour wheel) and scikit-learn (china, flower), and
# grayscale textures and scenes repeated on three channels (camera, coins, moon, grass, brick,
# gravel). Patches are cut at random positions, and the pool is split into four disjoint parts: the
# training set of the generators, two reference sets (A and B) and the held-out patches that the
# corruptions start from.

# %%
def _photos():
    rgb = [getattr(skdata, k)() for k in ("astronaut", "chelsea", "coffee", "rocket", "hubble_deep_field",
                                          "immunohistochemistry", "retina", "colorwheel")]
    rgb += list(load_sample_images().images)
    gray = [getattr(skdata, k)() for k in ("camera", "coins", "moon", "grass", "brick", "gravel")]
    return rgb + [np.repeat(g[..., None], 3, axis=2) for g in gray]


def cut_patches(images, n, rng):
    """n random P x P patches (uint8), spread evenly over the images."""
    out = []
    per = np.full(len(images), n // len(images))
    per[: n % len(images)] += 1
    for img, k in zip(images, per):
        h, w = img.shape[:2]
        rows, cols = rng.integers(0, h - P + 1, k), rng.integers(0, w - P + 1, k)
        out += [img[r:r + P, c:c + P] for r, c in zip(rows, cols)]
    out = np.stack(out)
    return out[rng.permutation(len(out))]


photos = _photos()
pool = cut_patches(photos, N_TRAIN + 3 * N, rng)
train, ref_a, ref_b, heldout = np.split(pool, [N_TRAIN, N_TRAIN + N, N_TRAIN + 2 * N])
print(f"{len(photos)} photographs, {len(pool)} patches: train {len(train)}, reference A {len(ref_a)}, "
      f"reference B {len(ref_b)}, held out {len(heldout)}")
X_train = train.reshape(len(train), -1).astype(np.float64) / 255.0   # pixel vectors in [0, 1]

# %% [markdown]
# ## The generators
#
# Each is trained on the pixel vectors (768 values in [0, 1]) of the training patches and samples N
# new patches; a sample is clipped to [0, 1], the range of an image (as a generator's sigmoid or
# clamp would), and `extract` rounds it to 8 bits as saving it to PNG would (`quantize="input"`).
#
# - `gaussian`: one Gaussian with the full 768 x 768 covariance.
# - `ppca4`, `ppca16`, `ppca64`: probabilistic PCA (Tipping & Bishop 1999) with 4, 16 and 64
#   components plus isotropic noise.
# - `gmm2`, `gmm8`, `gmm32`: Gaussian mixtures with full covariances on 32 principal components, plus
#   the PCA residual noise.
# - `vae`: a small VAE (768-256-8 MLP encoder and decoder, Bernoulli likelihood, trained for a few
#   epochs on the CPU), samples = decoder means at z ~ N(0, I). Trained this briefly its prior
#   samples are too dark (the encoder's aggregate posterior does not yet fill the prior, a known
#   failure of short VAE training): a real, poor generator.
# - corruptions of held-out real patches: `noise3` and `noise10` (Gaussian pixel noise with standard
#   deviation 0.03 and 0.10), `blur` (Gaussian blur, sigma 0.7 pixel), `jpeg15` (JPEG at quality 15).
# - `real`: held-out real patches, the floor every score should reach.

# %%
def as_images(v):
    return np.clip(v, 0.0, 1.0).reshape(-1, P, P, 3)


def fit_ppca(k):
    pca = PCA(n_components=k, random_state=0).fit(X_train)
    sd = np.sqrt(pca.explained_variance_)

    def sample(n, rng):
        z = rng.standard_normal((n, k)) * sd
        return as_images(pca.mean_ + z @ pca.components_ + np.sqrt(pca.noise_variance_) * rng.standard_normal((n, 768)))
    return sample


def fit_gaussian():
    mu, cov = X_train.mean(axis=0), np.cov(X_train, rowvar=False)
    w, v = np.linalg.eigh(cov)
    root = v * np.sqrt(np.clip(w, 0.0, None))

    def sample(n, rng):
        return as_images(mu + rng.standard_normal((n, 768)) @ root.T)
    return sample


PCA32 = PCA(n_components=32, random_state=0).fit(X_train)
Z_train = PCA32.transform(X_train)


def fit_gmm(k):
    gmm = GaussianMixture(k, covariance_type="full", reg_covar=1e-5, max_iter=100 if QUICK else 200, random_state=0).fit(Z_train)

    def sample(n, rng):
        comp = rng.choice(k, size=n, p=gmm.weights_)
        chol = np.linalg.cholesky(gmm.covariances_)
        z = gmm.means_[comp] + np.einsum("nij,nj->ni", chol[comp], rng.standard_normal((n, 32)))
        noise = np.sqrt(PCA32.noise_variance_) * rng.standard_normal((n, 768))
        return as_images(PCA32.inverse_transform(z) + noise)
    return sample


class VAE(torch.nn.Module):
    def __init__(self, d=768, h=256, k=8):
        super().__init__()
        self.enc = torch.nn.Sequential(torch.nn.Linear(d, h), torch.nn.ReLU(), torch.nn.Linear(h, 2 * k))
        self.dec = torch.nn.Sequential(torch.nn.Linear(k, h), torch.nn.ReLU(), torch.nn.Linear(h, d))
        self.k = k


def fit_vae():
    torch.manual_seed(0)
    vae, x = VAE(), torch.tensor(X_train, dtype=torch.float32)
    opt = torch.optim.Adam(vae.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(0)
    for _ in range(VAE_EPOCHS):
        for idx in torch.randperm(len(x), generator=g).split(128):
            mu, logvar = vae.enc(x[idx]).chunk(2, dim=1)
            z = mu + torch.exp(0.5 * logvar) * torch.randn(mu.shape, generator=g)
            # continuous-Bernoulli-free classic: binary cross-entropy of the pixels in [0, 1], plus the KL term
            bce = torch.nn.functional.binary_cross_entropy_with_logits(vae.dec(z), x[idx], reduction="none").sum(1)
            loss = (bce + 0.5 * (mu**2 + logvar.exp() - 1 - logvar).sum(1)).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()

    def sample(n, rng):
        z = torch.tensor(rng.standard_normal((n, vae.k)), dtype=torch.float32)
        with torch.no_grad():
            return as_images(torch.sigmoid(vae.dec(z)).double().numpy())
    return sample


def corrupt(kind):
    def sample(n, rng):
        x = heldout[:n].astype(np.float64) / 255.0
        if kind.startswith("noise"):
            return as_images(x + int(kind[5:]) / 100 * rng.standard_normal(x.shape))
        if kind == "blur":
            return as_images(ndimage.gaussian_filter(x, sigma=(0, 0.7, 0.7, 0)))
        if kind == "jpeg15":
            out = []
            for im in heldout[:n]:
                buf = __import__("io").BytesIO()
                Image.fromarray(im).save(buf, format="JPEG", quality=15)
                out.append(np.asarray(Image.open(buf), dtype=np.float64) / 255.0)
            return np.stack(out)
        return x                                   # "real": held-out patches themselves
    return sample


t = time.perf_counter()
with thread_limit(1):
    GENERATORS = {"gaussian": fit_gaussian(), "ppca4": fit_ppca(4), "ppca16": fit_ppca(16), "ppca64": fit_ppca(64),
                  "gmm2": fit_gmm(2), "gmm8": fit_gmm(8), "gmm32": fit_gmm(32), "vae": fit_vae()}
GENERATORS.update({k: corrupt(k) for k in ("noise3", "noise10", "blur", "jpeg15", "real")})
samples = {name: gen(N, np.random.default_rng([7, i])) for i, (name, gen) in enumerate(GENERATORS.items())}
TIMES["train and sample"] = time.perf_counter() - t
print(f"{len(GENERATORS)} generators trained and sampled in {TIMES['train and sample']:.1f} s")

# %%
fig, axes = plt.subplots(len(samples), 12, figsize=(8, 0.72 * len(samples)))
for row, (name, imgs) in zip(axes, samples.items()):
    for j, ax in enumerate(row):
        ax.imshow(imgs[j], interpolation="nearest")
        ax.set_xticks([])
        ax.set_yticks([])
    row[0].set_ylabel(name, rotation=0, ha="right", va="center", fontsize=8)
fig.suptitle("12 samples of each generator (16 x 16 patches)", fontsize=9)
fig.savefig(FIG / "geneval_samples.png", dpi=110, bbox_inches="tight")

# %% [markdown]
# ## Features under three extractors
#
# MobileNetV2's pooled ImageNet features (1280; the patches resized by clean-fid's antialiased
# bicubic), a random CNN (three stride-2 convolutions, 64 features) and the raw pixels (768). Every
# set is extracted once per extractor.

# %%
EXTRACTORS = {"mnv2": MobileNetV2(input_size=MNV2_SIZE), "rcnn": RandomCNN(seed=0, width=16, depth=3),
              "raw": RawPixels()}
t = time.perf_counter()
sets = {"refA": ref_a, "refB": ref_b, **samples}
feats = {(e, s): extract(imgs, net, batch_size=100) for e, net in EXTRACTORS.items() for s, imgs in sets.items()}
TIMES["features"] = time.perf_counter() - t
print(f"features of {len(sets)} sets under {len(EXTRACTORS)} extractors in {TIMES['features']:.1f} s")

# %% [markdown]
# ## Scores under eight protocols
#
# Frechet distance under MobileNetV2 against reference A (the "standard" protocol), against
# reference B, with only N/2 generated samples, and under the random CNN and the raw pixels; KID
# (cubic-kernel MMD, mean over subsets) under the three extractors against reference A.

# %%
def score(model, protocol, idx=None):
    """The score of a model under a protocol; ``idx`` resamples its generated samples (the bootstrap)."""
    metric, ext, ref, n = PROTOCOLS[protocol]
    y = feats[(ext, model)][:n]
    if idx is not None:
        y = y[idx]
    x = feats[(ext, ref)]
    if metric == "FD":
        return statcore.frechet_distance(x, y).distance
    return statcore.kid(x, y, subsets=KID_SUBSETS, subset_size=min(KID_SIZE, len(y)), seed=0).estimate


PROTOCOLS = {"FD mnv2 A": ("FD", "mnv2", "refA", N), "FD mnv2 B": ("FD", "mnv2", "refB", N),
             f"FD mnv2 A n={N_SMALL}": ("FD", "mnv2", "refA", N_SMALL), "FD rcnn A": ("FD", "rcnn", "refA", N),
             "FD raw A": ("FD", "raw", "refA", N), "KID mnv2 A": ("KID", "mnv2", "refA", N),
             "KID rcnn A": ("KID", "rcnn", "refA", N), "KID raw A": ("KID", "raw", "refA", N)}
t = time.perf_counter()
with thread_limit(1):
    table = pd.DataFrame({p: {m: score(m, p) for m in GENERATORS} for p in PROTOCOLS})
TIMES["scores"] = time.perf_counter() - t
table.index.name = "model"
print(table.round(4).to_string())

# %% [markdown]
# The floor: reference A against reference B (two real sets) under each FD protocol, and the
# precision, recall, density and coverage of every model under MobileNetV2 (k = 5, Naeem et al.).

# %%
floor = {e: statcore.frechet_distance(feats[(e, "refA")], feats[(e, "refB")]).distance for e in EXTRACTORS}
print("FD(reference A, reference B):", {k: round(v, 3) for k, v in floor.items()})
with thread_limit(1):
    prdc = pd.DataFrame({m: (lambda r: {"precision": r.precision, "recall": r.recall, "density": r.density,
                                        "coverage": r.coverage})(statcore.prdc(feats[("mnv2", "refA")],
                                                                                feats[("mnv2", m)], k=5))
                         for m in GENERATORS}).T
print(prdc.round(3).to_string())
fig, ax = plt.subplots(figsize=(5, 4))
ax.scatter(prdc["recall"], prdc["precision"])
for m, r in prdc.iterrows():
    ax.annotate(m, (r["recall"], r["precision"]), fontsize=7, xytext=(3, 2), textcoords="offset points")
ax.set_xlabel("recall")
ax.set_ylabel("precision")
ax.set_title("MobileNetV2 features, reference A, k = 5", fontsize=9)
fig.savefig(FIG / "geneval_precision_recall.png", dpi=110, bbox_inches="tight")

# %% [markdown]
# ## How stable is the ranking?
#
# Kendall's tau_b between every pair of protocols, Kendall's W over all of them (with its chi-square
# test of no agreement), each model's rank range, and a bump chart.

# %%
stab = statcore.rank_stability(table)
print(stab.summary())
ax = stab.plot()
ax.set_title("Rank of each generator under each protocol (1 = best)", fontsize=9)
ax.figure.savefig(FIG / "geneval_bump.png", dpi=110, bbox_inches="tight")

# %% [markdown]
# ## Swap probabilities: resampling the samples
#
# Do two neighbours in the standard ranking really differ, or would redrawing the generated samples
# swap them? The bootstrap resamples each model's N generated samples (the reference set stays
# fixed) and recomputes the Frechet distance under MobileNetV2 and under the random CNN; `p_swap` is
# the share of replicates in which the model ranked behind scores strictly ahead.

# %%
SWAP_PROTOCOLS = ["FD mnv2 A", "FD rcnn A"]          # swap probabilities are computed for FD only
t = time.perf_counter()
with thread_limit(1):
    swaps = statcore.rank_stability(table[SWAP_PROTOCOLS], score=lambda m, p, idx: score(m, p, idx), n_samples=N,
                                    B=B_SWAP, seed=1)
TIMES["swap bootstrap"] = time.perf_counter() - t
ranked = table["FD mnv2 A"].sort_values().index
neighbours = swaps.swap[swaps.swap.apply(lambda r: abs(list(ranked).index(r.model_a) - list(ranked).index(r.model_b)) == 1
                                          and r.protocol == "FD mnv2 A", axis=1)]
print(f"neighbours in the standard ranking, B = {B_SWAP}:")
print(neighbours.sort_values("p_swap", ascending=False).round(3).to_string(index=False))

# %%
mat = swaps.swap[swaps.swap.protocol == "FD mnv2 A"]
order = list(ranked)
P_SW = pd.DataFrame(np.nan, index=order, columns=order)
for r in mat.itertuples():
    P_SW.loc[r.model_a, r.model_b] = r.p_swap
    P_SW.loc[r.model_b, r.model_a] = r.p_swap
fig, ax = plt.subplots(figsize=(5.5, 4.5))
im = ax.imshow(P_SW.to_numpy(dtype=float), vmin=0, vmax=0.5, cmap="viridis")
ax.set_xticks(range(len(order)))
ax.set_xticklabels(order, rotation=90, fontsize=7)
ax.set_yticks(range(len(order)))
ax.set_yticklabels(order, fontsize=7)
fig.colorbar(im, ax=ax, label="bootstrap probability of a swap")
ax.set_title(f"FD (MobileNetV2, reference A): swap probabilities, B = {B_SWAP}", fontsize=9)
fig.savefig(FIG / "geneval_swaps.png", dpi=110, bbox_inches="tight")
TIMES["total"] = time.perf_counter() - T0
print({k: round(v, 1) for k, v in TIMES.items()})

# %% [markdown]
# ## Reading it
#
# (Figures quoted from the full setting, N = 600; the quick setting shows the same pattern, noisier.)
#
# - Under MobileNetV2 the ranking is stable: changing the reference set, halving the sample size or
#   replacing FD by KID leaves tau_b at 0.92-0.97 with the standard protocol. Halving N raises every
#   FD (its bias in 1/n, which `statcore.fid_infinity` extrapolates away) without reordering much.
# - Changing the extractor is what moves models: tau_b between MobileNetV2 and the random CNN or the
#   raw pixels falls to 0.36-0.49, and the full Gaussian, last but two under MobileNetV2, is first
#   under raw-pixel FD (it matches the pixel means and covariance by construction). Kendall's W over
#   the eight protocols was 0.65: agreement well above chance (p < 1e-8) but far from one ranking.
# - KID under the random CNN and the raw pixels is within its own subset noise for most models
#   (values of order 1e-3 around 0): its ranking there is close to arbitrary (tau_b with the standard
#   protocol -0.05 for raw pixels).
# - At small N the Frechet distance in 1280 dimensions is dominated by its bias (FD between the two
#   real reference sets is 143 at N = 600), and neighbours in the standard ranking swap under a
#   redraw of the samples (held-out real and blurred patches in 75% of 20 replicates, GMM-32 and
#   GMM-8 in half): a gap smaller than the bootstrap spread is not a ranking.
#
# As the paper advises: keep the standard score, report its variants and their agreement, and read a
# difference as a difference only when it survives the change of protocol and of samples.
