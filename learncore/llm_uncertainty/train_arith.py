"""Train the addition transformer shipped as ``learncore/llm_uncertainty/data/arith_transformer.pt``.

Run ``nice -n 10 python -m learncore.llm_uncertainty.train_arith`` (one CPU thread, seeded, a few
minutes). Sums of two numbers of 1 to 3 digits each ("317+45=362<eos>"), next-token cross-entropy on
the answer characters and the end-of-sequence token only, AdamW at a constant learning rate after a
linear warm-up (so that stopping after fewer steps gives exactly the state of a longer run at that
step). Training stops early on purpose: the model must get a sizeable share of held-out sums wrong
(20-50 % of greedy answers), because those errors are what the uncertainty scores are judged on.
``--eval-every`` prints greedy accuracy on 500 held-out prompts while training.

The run is deterministic on CPU: the same seed and step count give the same weights.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch
from torch.nn import functional as F

from .model import WEIGHTS_FILE, ArithTransformer, CharTokenizer, addition_prompts

DEFAULTS = dict(d_model=64, n_layer=4, n_head=4, max_len=16)


def _batch(tok: CharTokenizer, prompts, answers, max_len: int):
    """Right-padded (with eos) token ids and a mask of the target positions (answer + eos)."""
    ids = np.full((len(prompts), max_len + 1), tok.eos_token_id, dtype=np.int64)
    mask = np.zeros((len(prompts), max_len), dtype=bool)
    for i, (p, a) in enumerate(zip(prompts, answers)):
        seq = tok.encode(p + a) + [tok.eos_token_id]
        ids[i, :len(seq)] = seq
        mask[i, len(p) - 1:len(seq) - 1] = True  # predict answer chars and the eos
    x = torch.from_numpy(ids[:, :-1])
    y = torch.from_numpy(ids[:, 1:])
    return x, y, torch.from_numpy(mask)


@torch.no_grad()
def greedy_accuracy(model: ArithTransformer, prompts, answers, max_new_tokens: int = 5) -> float:
    """Share of prompts whose greedy continuation (up to eos) equals the true answer."""
    tok = model.tokenizer
    model.eval()
    correct = 0
    by_len: dict[int, list[int]] = {}
    for i, p in enumerate(prompts):
        by_len.setdefault(len(p), []).append(i)
    for L, idx in by_len.items():
        x = torch.tensor([tok.encode(prompts[i]) for i in idx])
        for _ in range(max_new_tokens):
            nxt = model(x).logits[:, -1].argmax(-1, keepdim=True)
            x = torch.cat([x, nxt], dim=1)
        for row, i in zip(x[:, L:].tolist(), idx):
            cut = row.index(tok.eos_token_id) if tok.eos_token_id in row else len(row)
            correct += tok.decode(row[:cut]) == answers[i]
    model.train()
    return correct / len(prompts)


def train(*, steps: int, batch_size: int = 64, lr: float = 1e-3, warmup: int = 100, seed: int = 0,
          eval_every: int = 0, save_every: int = 0, out: Path | None = None, **config) -> ArithTransformer:
    """Train a fresh :class:`ArithTransformer` for ``steps`` AdamW steps and return it."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    tok = CharTokenizer()
    cfg = {**DEFAULTS, **config, "vocab_size": tok.vocab_size}
    model = ArithTransformer(**cfg, tokenizer=tok)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01, betas=(0.9, 0.98))
    held_p, held_a = addition_prompts(500, seed=10_000 + seed)
    t0 = time.time()
    for step in range(1, steps + 1):
        for g in opt.param_groups:
            g["lr"] = lr * min(1.0, step / warmup)
        p, a = addition_prompts(batch_size, seed=rng)
        x, y, m = _batch(tok, p, a, cfg["max_len"])
        logits = model(x).logits
        loss = F.cross_entropy(logits[m], y[m])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if eval_every and step % eval_every == 0:
            acc = greedy_accuracy(model, held_p, held_a)
            print(f"step {step:5d}  loss {loss.item():.4f}  held-out greedy accuracy {acc:.3f}  "
                  f"({time.time() - t0:.0f} s)", flush=True)
        if save_every and out is not None and step % save_every == 0:
            save(model, out.with_name(f"{out.stem}_step{step}{out.suffix}"))
    return model.eval()


def save(model: ArithTransformer, path: Path) -> None:
    """Write the state dict with the config and the tokenizer's alphabet."""
    torch.save({"config": model.config, "chars": model.tokenizer.chars, "state_dict": model.state_dict()}, path)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--eval-every", type=int, default=0)
    ap.add_argument("--save-every", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "data" / WEIGHTS_FILE)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    model = train(steps=args.steps, batch_size=args.batch_size, lr=args.lr, seed=args.seed,
                  eval_every=args.eval_every, save_every=args.save_every, out=args.out)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    save(model, args.out)
    print(f"saved {args.out} ({model.n_params()} parameters)")


if __name__ == "__main__":
    main()
