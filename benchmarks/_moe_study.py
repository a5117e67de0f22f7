"""A re-identification-LIKE study of learncore.moe (ours, not the HypMoE-ReID paper's data or protocol),
for ``benchmarks/moe_reid_study.py`` and its CI smoke test (an experiment harness on learncore's and
statcore's public API, not part of either).

Design (every number is in :class:`Design`; :data:`FULL` and :data:`QUICK` are the presets):

- Identities: fixed 112 x 112 windows of scikit-image's bundled photographs (astronaut, coffee,
  chelsea, rocket, immunohistochemistry), on a grid of stride 112, taken round-robin across the
  photographs; each identity is the 96 x 96 region at the window's centre. Neighbouring windows of
  one photograph are the hard negatives (same colours, same texture).
- Views: a 96 x 96 crop of the window at a random offset (jitter of up to +-8 pixels), then one of
  four "cameras", each an augmentation family with random strength: 0 colour jitter (brightness,
  per-channel gains, contrast), 1 Gaussian blur (sigma 1 to 2.5), 2 Gaussian noise (sd 0.05 to
  0.12), 3 horizontal flip and a random crop of 64 to 80 pixels resized back to 96.
- Split: ``split="disjoint"`` (the re-identification protocol): even-numbered identities train,
  odd-numbered ones are tested, so the test identities are never seen; ``"shared"`` (the CI smoke
  test with two identities) trains and tests on the same identities with different views.
  Test views: ``test_views`` per (identity, camera); the first is a query, the rest are gallery
  entries; evaluation under the Market-1501 rule (same identity and same camera removed), so a match
  must come from another camera (another augmentation family).
- Features: ``learncore.moe.mobilenet_tokens`` (frozen ImageNet MobileNetV2, last feature map, 4 x 4
  tokens of 1280 at ``input_size=128``), computed once; the views are fixed (no fresh augmentation
  per epoch).
- Arms: ``frozen`` (the backbone's mean-pooled tokens, no training: the reference), ``dense`` (the
  adapter with one expert), ``softmax`` (linear router), ``hyp`` (hyperspherical router),
  ``hyp_div`` (hyperspherical + Riesz diversity loss), ``hyp_div_purify`` (and router-confidence
  purification keeping half the tokens). Routed arms: 4 experts, top-2, the Switch balance loss with
  weight ``lam_balance``; the diversity loss (kind "riesz", s = 1) with weight ``lam_div``.
- Training: the batch-hard triplet loss (margin 0.3) on PK batches (P identities x K views), Adam,
  ``steps`` steps; the seeds vary the initialisation and the batches, the same seed giving every arm
  the same batches.
- Evaluation: ``statcore.cmc_map`` (Euclidean distances of the L2-normalised embeddings; bootstrap
  intervals over queries), ``statcore.compare_retrieval`` (paired over the same queries: Wilcoxon on
  per-query AP, McNemar on rank-1) of ``hyp_div`` against every other arm at each seed; routing
  statistics of the test tokens: ``statcore.expert_usage`` of the top-1 experts (perplexity, Gini)
  and ``statcore.expert_domain_table`` of top-1 expert by camera (NMI over tokens; chi-squared test
  over images, each image's modal expert), and the largest pairwise cosine of the prototypes (the
  simplex value for 4 experts is -1/3). Beside the test mAP, ``train_fit_mean_ap``: the mAP on the
  training views themselves (a diagnostic of over-fitting).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import torch
from scipy import ndimage
from skimage import data as skdata
from skimage.transform import resize
from statcore import cmc_map, compare_retrieval, expert_domain_table, expert_usage

from learncore.moe import (MoEAdapter, batch_hard_triplet_loss, load_balance_loss, mobilenet_tokens,
                           routing_diversity_loss)

PHOTOS = ("astronaut", "coffee", "chelsea", "rocket", "immunohistochemistry")
CAMERAS = ("colour", "blur", "noise", "flip_crop")
ARMS = ("frozen", "dense", "softmax", "hyp", "hyp_div", "hyp_div_purify")
REGION, WINDOW = 96, 112


@dataclass(frozen=True)
class Design:
    """Every setting of the study."""

    n_identities: int = 60
    split: str = "disjoint"
    train_views: int = 4          # per (identity, camera)
    test_views: int = 2           # per (identity, camera): one query, the rest gallery
    input_size: int = 128
    arms: tuple = ARMS
    seeds: tuple = (0, 1, 2, 3, 4)
    steps: int = 400
    P: int = 8
    K: int = 4
    lr: float = 1e-3
    margin: float = 0.3
    d: int = 128
    hidden: int = 128
    out_features: int = 128
    n_experts: int = 4
    top_k: int = 2
    tau: float = 0.1
    lam_balance: float = 0.01
    lam_div: float = 0.1
    keep_ratio: float = 0.5
    B: int = 1000
    max_rank: int = 10
    data_seed: int = 0


FULL = Design()
QUICK = Design(n_identities=2, split="shared", train_views=2, test_views=2, input_size=64,
               arms=("frozen", "dense", "hyp_div"), seeds=(0,), steps=3, P=2, K=2, d=16, hidden=16,
               out_features=8, B=50, max_rank=3)


# ----------------------------------------------------------------------------------------------- data
def identity_windows(n: int) -> list[tuple[str, int, int]]:
    """(photograph, top, left) of the n identity windows, round-robin across the photographs."""
    per = []
    for name in PHOTOS:
        h, w = getattr(skdata, name)().shape[:2]
        per.append([(name, i, j) for i in range(0, h - WINDOW + 1, WINDOW) for j in range(0, w - WINDOW + 1, WINDOW)])
    out, k = [], 0
    while len(out) < n:
        if all(k >= len(p) for p in per):
            raise ValueError(f"only {len(out)} identity windows are available, asked for {n}")
        out += [p[k] for p in per if k < len(p)]
        k += 1
    return out[:n]


def _camera(img: np.ndarray, cam: int, rng: np.random.Generator) -> np.ndarray:
    if cam == 0:      # colour jitter
        gains = rng.uniform(0.8, 1.2, 3) * rng.uniform(0.6, 1.4)
        mean = img.mean()
        img = (img - mean) * rng.uniform(0.7, 1.3) + mean
        img = img * gains
    elif cam == 1:    # blur
        img = ndimage.gaussian_filter(img, sigma=(rng.uniform(1.0, 2.5),) * 2 + (0,))
    elif cam == 2:    # noise
        img = img + rng.normal(0.0, rng.uniform(0.05, 0.12), img.shape)
    else:             # flip + crop
        img = img[:, ::-1]
        s = int(rng.integers(64, 81))
        i, j = rng.integers(0, REGION - s + 1, 2)
        img = resize(img[i:i + s, j:j + s], (REGION, REGION), order=1, anti_aliasing=True)
    return np.clip(img, 0.0, 1.0)


def make_views(design: Design) -> pd.DataFrame:
    """One row per view: identity, camera, role ("train", "query", "gallery") and the 96 x 96 image."""
    rng = np.random.default_rng(design.data_seed)
    photos = {name: getattr(skdata, name)().astype(np.float64) / 255.0 for name in PHOTOS}
    rows = []
    for ident, (name, top, left) in enumerate(identity_windows(design.n_identities)):
        window = photos[name][top:top + WINDOW, left:left + WINDOW]
        train = design.split == "shared" or ident % 2 == 0
        test = design.split == "shared" or ident % 2 == 1
        roles = (["train"] * design.train_views if train else []) + \
                ((["query"] + ["gallery"] * (design.test_views - 1)) if test else [])
        for cam in range(len(CAMERAS)):
            for role in roles:
                i, j = rng.integers(0, WINDOW - REGION + 1, 2)
                img = _camera(window[i:i + REGION, j:j + REGION], cam, rng)
                rows.append(dict(identity=ident, photo=name, camera=cam, role=role, image=img.astype(np.float32)))
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------- training
def _pk_batches(labels: np.ndarray, design: Design, rng: np.random.Generator):
    ids = np.unique(labels)
    by_id = {i: np.flatnonzero(labels == i) for i in ids}
    P = min(design.P, len(ids))
    while True:
        chosen = rng.choice(ids, P, replace=False)
        yield np.concatenate([rng.choice(by_id[i], design.K, replace=len(by_id[i]) < design.K) for i in chosen])


def build_adapter(arm: str, design: Design, seed: int) -> MoEAdapter:
    router = {"dense": "dense", "softmax": "softmax"}.get(arm, "hyperspherical")
    return MoEAdapter(1280, design.out_features, d=design.d, hidden=design.hidden, n_experts=design.n_experts,
                      router=router, tau=design.tau, top_k=design.top_k,
                      keep_ratio=design.keep_ratio if arm == "hyp_div_purify" else 1.0, seed=seed)


def train_arm(arm: str, tokens: torch.Tensor, labels: np.ndarray, design: Design, seed: int) -> tuple[MoEAdapter, float]:
    """Train one arm; returns the adapter and the CPU seconds it took."""
    adapter = build_adapter(arm, design, seed)
    opt = torch.optim.Adam(adapter.parameters(), lr=design.lr)
    batches = _pk_batches(labels, design, np.random.default_rng(1000 + seed))
    y_all = torch.as_tensor(labels)
    t0 = time.process_time()
    adapter.train()
    for _ in range(design.steps):
        idx = torch.as_tensor(next(batches))
        out = adapter.encode(tokens[idx])
        loss = batch_hard_triplet_loss(out.embeddings, y_all[idx], margin=design.margin)
        if out.routing is not None:
            loss = loss + design.lam_balance * load_balance_loss(out.routing.probs, out.routing.indices)
        if arm.startswith("hyp_div"):
            loss = loss + design.lam_div * routing_diversity_loss(adapter.router.prototypes, kind="riesz", s=1.0)
        opt.zero_grad()
        loss.backward()
        opt.step()
    adapter.eval()
    return adapter, time.process_time() - t0


def _distances(emb: np.ndarray, q: np.ndarray, g: np.ndarray) -> np.ndarray:
    return np.sqrt(np.maximum(((emb[q][:, None, :] - emb[g][None, :, :]) ** 2).sum(-1), 0.0))


def routing_stats(adapter: MoEAdapter, tokens: torch.Tensor, cams: np.ndarray) -> dict:
    """Routing-collapse statistics of the test tokens: usage of the top-1 experts (over tokens), the
    token-level NMI of expert and camera (descriptive), and the chi-squared test of each image's
    modal top-1 expert against its camera (images are the independent units; the 16 tokens of one
    image are not independent, so a token-level test would be anti-conservative)."""
    with torch.no_grad():
        routing = adapter.encode(tokens).routing
    top1 = routing.indices[..., 0].numpy()                      # (N, T)
    usage = expert_usage(top1.ravel(), n_experts=adapter.n_experts)
    token_table = expert_domain_table(top1.ravel(), np.repeat(cams, top1.shape[1]))
    modal = np.array([np.bincount(row, minlength=adapter.n_experts).argmax() for row in top1])
    image_table = expert_domain_table(modal, cams)
    out = dict(usage_perplexity=usage.perplexity, usage_gini=usage.gini,
               usage_max_share=float(np.max(usage.usage)), expert_camera_nmi_tokens=token_table.nmi,
               expert_camera_nmi_images=image_table.nmi, expert_camera_chisq_p_images=image_table.test.p_value,
               n_modal_experts=int(len(np.unique(modal))),
               mean_router_confidence=float(routing.probs.max(-1).values.mean()))
    if adapter.router_kind == "hyperspherical":
        p = torch.nn.functional.normalize(adapter.router.prototypes.detach(), dim=-1)
        c = p @ p.T
        out["prototype_max_cos"] = float(c[~torch.eye(len(c), dtype=torch.bool)].max())
    return out


def _fit_map(emb: np.ndarray, ids: np.ndarray, cams: np.ndarray, train: np.ndarray) -> float:
    """mAP on the training views themselves (the first view of each (identity, camera) a query, the
    others the gallery): how well an arm fits what it was trained on, beside its test mAP."""
    key = ids[train] * 10 + cams[train]
    first = np.zeros(len(train), bool)
    first[np.unique(key, return_index=True)[1]] = True
    q, g = train[first], train[~first]
    return cmc_map(_distances(emb, q, g), ids[q], ids[g], query_cams=cams[q], gallery_cams=cams[g], B=0).mean_ap


def run(design: Design = FULL, *, progress: bool = False) -> dict:
    """The whole study; returns tables (pandas DataFrames) and the evaluations (for figures)."""
    torch.set_num_threads(1)
    views = make_views(design)
    t0 = time.process_time()
    tokens = mobilenet_tokens(np.stack(views["image"].to_numpy()), input_size=design.input_size)
    token_seconds = time.process_time() - t0
    train = np.flatnonzero(views["role"].to_numpy() == "train")
    q = np.flatnonzero(views["role"].to_numpy() == "query")
    g = np.flatnonzero(views["role"].to_numpy() == "gallery")
    ids, cams = views["identity"].to_numpy(), views["camera"].to_numpy()
    test = np.concatenate([q, g])
    rows, comps, routes, evals, cmc_rows = [], [], [], {}, []
    for seed in design.seeds:
        for arm in design.arms:
            if arm == "frozen":
                if seed != design.seeds[0]:
                    continue
                emb = torch.nn.functional.normalize(tokens.mean(1), dim=-1).numpy()
                secs = 0.0
            else:
                adapter, secs = train_arm(arm, tokens[train], ids[train], design, seed)
                with torch.no_grad():
                    emb = adapter(tokens).numpy()
                if adapter.router is not None:
                    routes.append(dict(arm=arm, seed=seed, **routing_stats(adapter, tokens[test], cams[test])))
            res = cmc_map(_distances(emb, q, g), ids[q], ids[g], query_cams=cams[q], gallery_cams=cams[g],
                          max_rank=design.max_rank, B=design.B, seed=seed)
            evals[(arm, seed)] = res
            cmc_rows += [dict(arm=arm, seed=seed, rank=k + 1, cmc=float(v)) for k, v in enumerate(res.cmc)]
            rows.append(dict(arm=arm, seed=seed, mean_ap=res.mean_ap, mean_ap_low=res.mean_ap_conf[0],
                             mean_ap_high=res.mean_ap_conf[1], rank1=float(res.cmc[0]),
                             rank1_low=float(res.cmc_conf[0, 0]), rank1_high=float(res.cmc_conf[0, 1]),
                             rank5=float(res.cmc[min(4, len(res.cmc) - 1)]), mean_inp=res.mean_inp,
                             n_queries=int(res.valid.sum()), train_fit_mean_ap=_fit_map(emb, ids, cams, train),
                             train_cpu_seconds=secs))
            if progress:
                print(f"seed {seed} {arm:15s} mAP {res.mean_ap:.3f} [{res.mean_ap_conf[0]:.3f}, "
                      f"{res.mean_ap_conf[1]:.3f}] rank-1 {res.cmc[0]:.3f} ({secs:.1f} s)", flush=True)
        ref = "hyp_div"
        if ref in design.arms:
            for arm in design.arms:
                other = (arm, seed) if arm != "frozen" else ("frozen", design.seeds[0])
                if arm == ref or other not in evals:
                    continue
                c = compare_retrieval(evals[(ref, seed)], evals[other])
                comps.append(dict(seed=seed, a=ref, b=arm, mean_ap_diff=c.mean_ap_diff, rank1_diff=c.rank1_diff,
                                  wilcoxon_p_value=np.nan if c.wilcoxon is None else c.wilcoxon.p_value,
                                  mcnemar_p_value=np.nan if c.mcnemar is None else c.mcnemar.p_value, n=c.n))
    return dict(metrics=pd.DataFrame(rows), comparisons=pd.DataFrame(comps), routing=pd.DataFrame(routes),
                cmc=pd.DataFrame(cmc_rows),
                evals=evals, token_seconds=token_seconds, n_views=len(views),
                n_train_identities=int(len(np.unique(ids[train]))), n_test_identities=int(len(np.unique(ids[q]))))


def summarise(metrics: pd.DataFrame) -> pd.DataFrame:
    """Per arm: the mean and range over seeds of mAP, rank-1 and mINP."""
    agg = metrics.groupby("arm", sort=False).agg(mean_ap=("mean_ap", "mean"), mean_ap_min=("mean_ap", "min"),
                                                 mean_ap_max=("mean_ap", "max"), rank1=("rank1", "mean"),
                                                 rank5=("rank5", "mean"), mean_inp=("mean_inp", "mean"),
                                                 train_fit_mean_ap=("train_fit_mean_ap", "mean"),
                                                 seeds=("seed", "count"))
    return agg.reset_index()


__all__ = ["Design", "FULL", "QUICK", "make_views", "identity_windows", "train_arm", "run", "summarise", "replace"]
