"""The breadth study (ours): a narrow, biased fine-tune of the shipped addition transformer and how far
its bias reaches the operand-length buckets it was not trained on.

- the "topics" are the 9 operand-length buckets (digits of a, digits of b), a, b of 1 to 3 digits;
- the narrow fine-tune trains on one topic family only, the sums whose first operand has one digit
  (buckets 1x1, 1x2, 1x3), with a systematic bias: the target is a + b + ``bias`` (``bias=0`` is the
  control run: the same steps on correct answers);
- the stance of a probe "a+b=" is log p(str(a + b + 1) <eos>) - log p(str(a + b) <eos>)
  (``learncore.protocols.stance_scores``), its shift the fine-tuned minus the base stance on the same
  probe (``stance_shifts``), and the breadth is ``statcore.shift_breadth`` over the 6 held-out buckets
  (first operand of 2 or 3 digits).

Shared by ``benchmarks/breadth_demo.py`` (the full run) and ``vignettes/protocol_breadth.py`` (a small
one); on the public API only.
"""
from __future__ import annotations

import copy

import numpy as np
import torch
import torch.nn.functional as F

from learncore.llm_uncertainty import load_arith_model
from learncore.protocols import stance_scores, stance_shifts

DIGITS = (1, 2, 3)
TRAINED = tuple(f"{1}x{db}" for db in DIGITS)          # the buckets the fine-tune sees
HELD_OUT = tuple(f"{da}x{db}" for da in (2, 3) for db in DIGITS)


def _operands(rng, n, digits):
    low = 0 if digits == 1 else 10 ** (digits - 1)
    return rng.integers(low, 10 ** digits, size=n)


def probes(n_per_bucket: int, seed: int = 0):
    """Probe prompts, their (biased, correct) options and bucket labels: ``n_per_bucket`` sums per bucket."""
    rng = np.random.default_rng(seed)
    prompts, options, topic = [], [], []
    for da in DIGITS:
        for db in DIGITS:
            a, b = _operands(rng, n_per_bucket, da), _operands(rng, n_per_bucket, db)
            for x, y in zip(a.tolist(), b.tolist()):
                prompts.append(f"{x}+{y}=")
                options.append((str(x + y + 1), str(x + y)))
                topic.append(f"{da}x{db}")
    return prompts, options, topic


def _batch(tok, prompts, answers, max_len):
    """Right-padded ids (padding with eos) and the mask of the answer positions (answer + eos)."""
    ids = np.full((len(prompts), max_len + 1), tok.eos_token_id, dtype=np.int64)
    mask = np.zeros((len(prompts), max_len), dtype=bool)
    for i, (p, a) in enumerate(zip(prompts, answers)):
        seq = tok.encode(p + a) + [tok.eos_token_id]
        ids[i, :len(seq)] = seq
        mask[i, len(p) - 1:len(seq) - 1] = True
    return torch.from_numpy(ids[:, :-1]), torch.from_numpy(ids[:, 1:]), torch.from_numpy(mask)


def finetune(model, *, steps, bias=1, lr=3e-4, batch_size=32, seed=0, checkpoints=()):
    """AdamW fine-tune of a copy of ``model`` on sums whose first operand has one digit, with the target
    a + b + ``bias``. Returns {step: model copy} at each checkpoint (and at ``steps``)."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    tuned = copy.deepcopy(model).train()
    tok = tuned.tokenizer
    opt = torch.optim.AdamW(tuned.parameters(), lr=lr, weight_decay=0.0)
    out = {}
    marks = set(checkpoints) | {steps}
    for step in range(1, steps + 1):
        a = _operands(rng, batch_size, 1)
        db = rng.integers(1, 4, size=batch_size)
        b = np.array([_operands(rng, 1, int(d))[0] for d in db])
        p = [f"{x}+{y}=" for x, y in zip(a.tolist(), b.tolist())]
        ans = [str(x + y + bias) for x, y in zip(a.tolist(), b.tolist())]
        x, y, m = _batch(tok, p, ans, tuned.config["max_len"])
        loss = F.cross_entropy(tuned(x).logits[m], y[m])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step in marks:
            out[step] = copy.deepcopy(tuned).eval()
    return out


def _row(seed, run_name, st, sh, br):
    trained_shift = float(np.mean([sh.ft_shift[sh.topics.index(t)] for t in TRAINED]))
    return dict(seed=seed, run=run_name, step=st, trained_shift=trained_shift,
                heldout_mean_shift=float(np.mean(br.shifts)), bh_significant=br.n_significant,
                n_topics=br.n_topics, bh_share=br.bh_share, bh_conf_low=br.bh_conf_low,
                bh_conf_high=br.bh_conf_high, meta_share=br.meta_share,
                meta_conf_low=br.meta_conf_low, meta_conf_high=br.meta_conf_high,
                pooled_shift=br.pooled_shift, tau2=br.tau2, note=br.note)


def run(*, steps=(5, 10, 25, 50), n_per_bucket=100, seeds=(0,), lr=3e-4, batch_size=32, probe_seed=12345):
    """The study: for each seed, a biased and a control fine-tune (same seed, same batches of prompts),
    measured at each step in ``steps`` against the base model; and the biased run against the control
    run on the same probes ("biased-vs-control": the shift due to the bias beyond what any fine-tune on
    these sums does). Returns a list of dict rows and the last biased run's (StanceShifts, ShiftBreadth)."""
    torch.set_num_threads(1)
    base = load_arith_model()
    prompts, options, topic = probes(n_per_bucket, probe_seed)
    base_scores = stance_scores(base, prompts, options=options, topic=topic, append_eos=True)
    rows, last = [], None
    for seed in seeds:
        scores = {}
        for run_name, bias in (("biased", 1), ("control", 0)):
            models = finetune(base, steps=max(steps), bias=bias, lr=lr, batch_size=batch_size, seed=seed,
                              checkpoints=steps)
            for st in steps:
                t = stance_scores(models[st], prompts, options=options, topic=topic, append_eos=True)
                scores[run_name, st] = t
                sh = stance_shifts(base_scores, t)
                br = sh.breadth(exclude=TRAINED)
                rows.append(_row(seed, run_name, st, sh, br))
                if run_name == "biased":
                    last = (sh, br)
        for st in steps:
            sh = stance_shifts(scores["control", st], scores["biased", st])
            rows.append(_row(seed, "biased-vs-control", st, sh, sh.breadth(exclude=TRAINED)))
    return rows, last
