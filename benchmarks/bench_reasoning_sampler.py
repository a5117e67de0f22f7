"""The KV-cache sampler of learncore.reasoning against re-running the prefix (issue 35, section 2).

Both paths of ``learncore.reasoning.sample`` draw the same uniforms and give the same samples under one
seed (checked here on every run); the ratio is the median over repeats of the uncached time over the cached
time. The model is the default make_model (d_model 64, 2 layers, 4 heads) at max_len 96, pretrained for 300
steps on full primitive chains of S3 words of length 2-10 (seconds), so that it writes chains of realistic
length (a length-10 word's full chain is 64 tokens); the prompts are length-10 words. Run:
``python benchmarks/bench_reasoning_sampler.py``.
"""
import time

import numpy as np
import torch

from learncore.reasoning import make_model, pretrain, sample
from learncore.reasoning.rewrite import Monoid, RewriteTokenizer, make_corpus, make_problems

torch.set_num_threads(1)


def timed(f):
    t = time.perf_counter()
    out = f()
    return time.perf_counter() - t, out


def pretrained():
    m = Monoid.s3()
    tok = RewriteTokenizer(m)
    model = make_model(tok, d_model=64, n_layers=2, n_heads=4, max_len=96, seed=0)
    t, model = timed(lambda: pretrain(model, tok, make_corpus(m, 4000, kind="full", lengths=range(2, 11), seed=0),
                                      steps=300, seed=0))
    print(f"pretraining: {t:.1f} s, final loss {model.pretrain_losses[-20:].mean():.3f}")
    return m, tok, model


def main(m, tok, model, *, repeats=5, batch=64, max_new_tokens=80, length=10):
    prompts = [w + "|" for w in make_problems(m, batch, lengths=[length], seed=1)]
    cached, uncached = [], []
    for rep in range(repeats):
        t1, a = timed(lambda: sample(model, tok, prompts, max_new_tokens=max_new_tokens, seed=rep))
        t2, b = timed(lambda: sample(model, tok, prompts, max_new_tokens=max_new_tokens, seed=rep, use_cache=False))
        assert a == b, "the cached and uncached samplers disagree"
        cached.append(t1)
        uncached.append(t2)
    n_tok = np.mean([len(t) - length - 1 for t in a])
    print(f"{batch} prompts of {length + 1} tokens (+<bos>), {max_new_tokens} new tokens at most "
          f"(mean generated {n_tok:.1f}); {repeats} repeats, one thread")
    print(f"KV cache      : median {np.median(cached):.3f} s")
    print(f"re-run prefix : median {np.median(uncached):.3f} s")
    print(f"ratio (uncached / cached): {np.median(uncached) / np.median(cached):.1f}x; samples identical: True")


if __name__ == "__main__":
    m, tok, model = pretrained()
    main(m, tok, model, repeats=5, batch=64)
    main(m, tok, model, repeats=3, batch=256)
