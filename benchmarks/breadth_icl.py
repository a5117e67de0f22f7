"""Amplification on a model that can learn in context (ours; optional part of issue 33, section 1).

The shipped addition model has 16 positions and cannot hold demonstrations, so a small model is trained
here (seeded, about 6 minutes on one CPU thread): single-digit sums "a+b=c," with k = 0..3 demonstrations
before the query, and in each sequence a hidden bias beta in {0, 1} (c = a + b + beta for the
demonstrations and the answer), so that the bias can only be read from the demonstrations. Then, on the
same probes "a+b=" (topics = the value of the first operand a; trained topic a in {0, 1}, held-out
topics a = 2 .. 9):

- base: the trained model, zero-shot;
- few-shot: the base model with 3 +1-biased demonstrations from the trained topic before the probe;
- fine-tuned: the base model fine-tuned zero-shot (no demonstrations) on the trained topic with the
  +1 bias (AdamW, lr 3e-4, batch 32, ``--ft-steps`` steps).

Stance = log p(a + b + 1, eos) - log p(a + b, eos); ``statcore.shift_breadth`` of each condition's
shifts and ``statcore.amplification`` of the fine-tuned over the few-shot shifts per held-out topic.

    PYTHONPATH=. python benchmarks/breadth_icl.py [--steps 8000] [--ft-steps 5]
"""
from __future__ import annotations

import argparse
import copy
import time

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F

from learncore.llm_uncertainty import ArithTransformer, CharTokenizer
from learncore.protocols import stance_scores, stance_shifts

TOK = CharTokenizer("0123456789+=,")
L = 32
TRAINED = (0, 1)


def _demos(rng, k, beta, first=None):
    a = rng.integers(0, 10, k) if first is None else rng.choice(first, k)
    b = rng.integers(0, 10, k)
    return "".join(f"{x}+{y}={x + y + beta}," for x, y in zip(a.tolist(), b.tolist()))


def _batch(pairs):
    ids = np.full((len(pairs), L + 1), TOK.eos_token_id, dtype=np.int64)
    mask = np.zeros((len(pairs), L), dtype=bool)
    for i, (p, a) in enumerate(pairs):
        q = TOK.encode(p + a) + [TOK.eos_token_id]
        ids[i, :len(q)] = q
        mask[i, len(p) - 1:len(q) - 1] = True
    t = torch.from_numpy(ids)
    return t[:, :-1], t[:, 1:], torch.from_numpy(mask)


def _step(model, opt, pairs):
    x, y, m = _batch(pairs)
    loss = F.cross_entropy(model(x).logits[m], y[m])
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    return loss.item()


def train_icl(steps, seed=0):
    """A 2-layer ArithTransformer trained on sums with 0..3 demonstrations and a per-sequence bias."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = ArithTransformer(vocab_size=TOK.vocab_size, d_model=64, n_layer=2, n_head=4, max_len=L, tokenizer=TOK)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.01)
    for step in range(1, steps + 1):
        for g in opt.param_groups:
            g["lr"] = 2e-3 * min(1.0, step / 200) * (0.1 + 0.9 * (1 - step / steps))
        pairs = []
        for _ in range(64):
            beta, k = int(rng.integers(0, 2)), int(rng.integers(0, 4))
            a, b = rng.integers(0, 10, 2).tolist()
            pairs.append((_demos(rng, k, beta) + f"{a}+{b}=", str(a + b + beta)))
        loss = _step(model, opt, pairs)
        if step % 1000 == 0:
            print(f"  step {step}: loss {loss:.3f}", flush=True)
    return model.eval()


def finetune(model, steps, seed=0, bias=1):
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    tuned = copy.deepcopy(model).train()
    opt = torch.optim.AdamW(tuned.parameters(), lr=3e-4, weight_decay=0.0)
    for _ in range(steps):
        a = rng.choice(TRAINED, 32).tolist()
        b = rng.integers(0, 10, 32).tolist()
        _step(tuned, opt, [(f"{x}+{y}=", str(x + y + bias)) for x, y in zip(a, b)])
    return tuned.eval()


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=8000)
    ap.add_argument("--ft-steps", type=int, nargs="+", default=[2, 5, 10])
    ap.add_argument("--probes", type=int, default=60, help="probes per topic")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    pd.set_option("display.width", 200)
    t0 = time.time()
    base = train_icl(args.steps)
    print(f"trained the in-context model: {time.time() - t0:.0f} s")
    rng = np.random.default_rng(99)
    probes, few, options, topic = [], [], [], []
    for a in range(10):
        for b in rng.integers(0, 10, args.probes).tolist():
            probes.append(f"{a}+{b}=")
            few.append(_demos(rng, 3, 1, first=list(TRAINED)) + f"{a}+{b}=")
            options.append((str(a + b + 1), str(a + b)))
            topic.append(a)
    s_base = stance_scores(base, probes, options=options, topic=topic, append_eos=True)
    s_few = stance_scores(base, few, options=options, topic=topic, append_eos=True)
    held = [t for t in range(10) if t not in TRAINED]
    rows = []
    for st in args.ft_steps:
        tuned = finetune(base, st)
        s_ft = stance_scores(tuned, probes, options=options, topic=topic, append_eos=True)
        sh = stance_shifts(s_base, s_ft, s_few)
        b_ft = sh.breadth(exclude=TRAINED)
        b_fs = stance_shifts(s_base, s_few).breadth(exclude=TRAINED)
        amp = sh.amplification(exclude=TRAINED)
        rows.append(dict(ft_steps=st, ft_mean_shift=float(np.mean(sh.ft_shift[held])),
                         fs_mean_shift=float(np.mean(sh.fs_shift[held])),
                         ft_breadth=f"{b_ft.n_significant}/{b_ft.n_topics}", ft_meta=b_ft.meta_share,
                         fs_breadth=f"{b_fs.n_significant}/{b_fs.n_topics}", fs_meta=b_fs.meta_share,
                         amplification=amp.estimate, fieller_low=amp.conf_low, fieller_high=amp.conf_high,
                         kind=amp.kind, delta_low=amp.delta_conf_low, delta_high=amp.delta_conf_high))
        print(amp.summary())
    print(pd.DataFrame(rows).round(3).to_string(index=False))
    print(f"total {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
