"""The single-pass adapter: the hidden states and logits it records during greedy generation equal a
manual forward pass over the finished sequence, for a randomly initialised tiny GPT-2 (transformers,
KV cache) and for learncore's ArithTransformer (no cache); its tokens, hidden states and logits equal
what transformers' own greedy ``generate`` records (the GLU paper's pipeline); the score table's columns are the documented functions of the trace."""
import math

import numpy as np
import pandas as pd
import pytest

from helpers import require_torch

torch = require_torch()

from statcore import glu_score  # noqa: E402
from statcore.utils import thread_limit  # noqa: E402
from learncore.llm_uncertainty import (ArithTransformer, CharTokenizer, addition_prompts, greedy_generate,  # noqa: E402
                                       GenerationScores, load_arith_model, score_generations)


@pytest.fixture(autouse=True)
def _one_thread():
    """Tiny per-token forward passes: a thread pool on a loaded machine only costs time."""
    with thread_limit(1):
        yield


def _manual(model, prompt_ids, trace):
    """Hidden states and logits of one forward pass over prompt + answer, at the positions that
    produced each generated token (P - 1, ..., P + T - 2)."""
    seq = torch.tensor([list(prompt_ids) + trace.token_ids.tolist()])
    with torch.no_grad():
        out = model(input_ids=seq, output_hidden_states=True)
    P, T = len(prompt_ids), trace.n_tokens
    H = np.stack([h[0, P - 1:P - 1 + T].double().numpy() for h in out.hidden_states])
    return H, out.logits[0, P - 1:P - 1 + T].double()


def _tiny_gpt2():
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    cfg = transformers.GPT2Config(n_layer=3, n_head=2, n_embd=32, vocab_size=40, n_positions=64,
                                  eos_token_id=39, bos_token_id=39)
    return transformers.GPT2LMHeadModel(cfg)


def test_gpt2_adapter_matches_a_manual_forward_pass():
    model = _tiny_gpt2()  # randomly initialised from a config: no download
    assert model.training  # the adapter must switch dropout off and give the model back as it was
    prompt = [5, 9, 3, 17, 22]
    trace = greedy_generate(model, prompt, max_new_tokens=12, k=6)
    assert model.training
    model.eval()
    assert trace.n_tokens == 12 and trace.hidden_states.shape == (4, 12, 32)  # embeddings + 3 blocks
    H, logits = _manual(model, prompt, trace)
    np.testing.assert_allclose(trace.hidden_states, H, rtol=0, atol=2e-5)
    np.testing.assert_allclose(trace.top_logits, torch.topk(logits, 6).values.numpy(), rtol=0, atol=2e-5)
    logp = torch.log_softmax(logits, -1)
    np.testing.assert_allclose(trace.token_logprob, logp.max(-1).values.numpy(), rtol=0, atol=2e-5)
    np.testing.assert_allclose(trace.token_entropy, -(logp.exp() * logp).sum(-1).numpy(), rtol=0, atol=2e-5)
    # greedy tokens, hidden states and logits equal what transformers' generate records, read as the
    # GLU paper's pipeline reads them (hidden_states[t][layer][0, -1], logits[t])
    ref = model.generate(torch.tensor([prompt]), do_sample=False, max_new_tokens=12, pad_token_id=0,
                         return_dict_in_generate=True, output_hidden_states=True, output_logits=True)
    assert trace.token_ids.tolist() == ref.sequences[0, len(prompt):].tolist()
    H_gen = np.stack([[ref.hidden_states[t][layer][0, -1].double().numpy() for t in range(12)]
                      for layer in range(4)])
    np.testing.assert_allclose(trace.hidden_states, H_gen, rtol=0, atol=2e-5)
    logits_gen = torch.stack([lg[0] for lg in ref.logits]).double()
    np.testing.assert_allclose(trace.top_logits, torch.topk(logits_gen, 6).values.numpy(), rtol=0, atol=2e-5)


def test_arith_adapter_matches_a_manual_forward_pass_and_stops_at_eos():
    model = load_arith_model()
    tok = model.tokenizer
    prompt = tok.encode("345+78=")
    trace = greedy_generate(model, prompt, max_new_tokens=8)
    assert trace.token_ids[-1] == tok.eos_token_id and trace.n_tokens <= 5  # stopped after <eos>, kept it
    H, logits = _manual(model, prompt, trace)
    np.testing.assert_allclose(trace.hidden_states, H, rtol=0, atol=1e-5)
    assert trace.hidden_states.shape[0] == model.config["n_layer"] + 1
    np.testing.assert_allclose(trace.top_logits, torch.topk(logits, 10).values.numpy(), rtol=0, atol=1e-5)
    assert trace.text == tok.decode(trace.token_ids)
    # text prompts through the model's tokenizer give the same trace
    again = greedy_generate(model, "345+78=", max_new_tokens=8)
    assert np.array_equal(again.token_ids, trace.token_ids)


def test_score_table_columns_are_the_documented_functions_of_the_trace():
    model = load_arith_model()
    prompts, _ = addition_prompts(6, seed=3)
    res = score_generations(model, pd.Series(prompts, index=list("abcdef")), max_new_tokens=6, k=5)
    assert isinstance(res, GenerationScores) and (res.k, res.alpha) == (5, 2.0)
    table = res.to_frame()
    assert list(table.index) == list("abcdef")
    for key, p in zip(table.index, prompts):
        tr = greedy_generate(model, p, max_new_tokens=6, k=5)
        row = table.loc[key]
        g = glu_score(tr.hidden_states, tr.top_logits, k=5)
        assert row["response"] == tr.text and row["n_tokens"] == tr.n_tokens
        assert row["glu"] == pytest.approx(g.glu, rel=1e-12)
        assert row["global_term"] == pytest.approx(g.global_term, rel=1e-12)
        assert row["local_term"] == pytest.approx(g.local_term, rel=1e-12)
        assert row["mean_entropy"] == pytest.approx(tr.token_entropy.mean(), rel=1e-12)
        assert row["max_prob"] == pytest.approx(np.exp(tr.token_logprob).mean(), rel=1e-12)
        assert row["loglik"] == pytest.approx(tr.token_logprob.mean(), rel=1e-12)
        assert row["perplexity"] == pytest.approx(math.exp(-tr.token_logprob.mean()), rel=1e-12)


def test_gpt2_scores_with_token_ids_and_no_tokenizer():
    model = _tiny_gpt2().eval()
    table = score_generations(model, [[1, 2, 3], [4, 5, 6, 7]], max_new_tokens=5).to_frame()
    assert table["response"].isna().all() and (table["n_tokens"] == 5).all()
    assert np.isfinite(table[["glu", "global_term", "local_term"]].to_numpy()).all()


def test_arith_model_is_small_and_the_task_checkable():
    model = load_arith_model()
    assert 1e5 < model.n_params() < 1e6
    prompts, answers = addition_prompts(50, seed=9)
    assert all(eval(p[:-1]) == int(a) for p, a in zip(prompts, answers))
    assert prompts == addition_prompts(50, seed=9)[0]
    tok = CharTokenizer()
    assert tok.decode(tok.encode("12+3=") + [tok.eos_token_id], skip_special_tokens=False) == "12+3=<eos>"
    with pytest.raises(ValueError, match="max_len"):
        ArithTransformer(max_len=4)(torch.zeros((1, 5), dtype=torch.long))
