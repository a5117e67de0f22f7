"""Hint Tuning's probe on the shipped addition transformer (learncore.llm_uncertainty): the hint is a
prefix of the true answer's digits, the instruct model is the transformer completing greedily from
the prompt and the hint. The states of 2,000 seeded prompts must be the same in two runs from scratch,
and the batched solver must agree with one-prompt-at-a-time decoding."""
import numpy as np
import pytest

from helpers import require_torch

torch = require_torch()
torch.set_num_threads(1)

from learncore.llm_uncertainty import addition_prompts, load_arith_model  # noqa: E402
from learncore.reasoning import (build_hint_dataset, cumulative_prefixes, hint_states,  # noqa: E402
                                 minimal_prefix)

N_PROMPTS = 2000
SEED = 0


@torch.no_grad()
def _complete(model, texts, max_new=None):
    """Greedy completions (up to the end-of-sequence token, at most max_new[i] tokens) of texts,
    batched by length and budget."""
    tok = model.tokenizer
    max_len = model.config["max_len"]
    max_new = [max_len] * len(texts) if max_new is None else max_new
    out = [None] * len(texts)
    by_len = {}
    for i, t in enumerate(texts):
        by_len.setdefault((len(t), min(max_new[i], max_len - len(t))), []).append(i)
    for (L, steps), idx in sorted(by_len.items()):
        x = torch.tensor([tok.encode(texts[i]) for i in idx])
        for _ in range(steps):
            nxt = model(x).logits[:, -1].argmax(-1, keepdim=True)
            x = torch.cat([x, nxt], dim=1)
            if bool((x[:, L:] == tok.eos_token_id).any(dim=1).all()):
                break
        for row, i in zip(x[:, L:].tolist(), idx):
            cut = row.index(tok.eos_token_id) if tok.eos_token_id in row else len(row)
            out[i] = tok.decode(row[:cut])
    return out


def _run():
    """One run from scratch: the model, the prompts, the batched solver table, the searches."""
    model = load_arith_model()
    prompts, answers = addition_prompts(N_PROMPTS, seed=SEED)
    prefix_lists = [cumulative_prefixes(list(a)) for a in answers]   # "", "3", "36", "362"
    jobs = [(i, pre) for i, pl in enumerate(prefix_lists) for pre in pl]
    # an answer has at most 4 digits: 5 tokens after the prompt (digits and end-of-sequence) suffice
    completions = _complete(model, [prompts[i] + pre for i, pre in jobs], [6 - len(pre) for _, pre in jobs])
    table = {}
    for (i, pre), c in zip(jobs, completions):
        table[(prompts[i], pre)] = (pre + c == answers[i], c)

    def solve(problem, prefix):
        return table[(problem, prefix)]

    linear = [minimal_prefix(solve, p, pl, verify=True) for p, pl in zip(prompts, prefix_lists)]
    bisect = [minimal_prefix(solve, p, pl, search="bisect") for p, pl in zip(prompts, prefix_lists)]
    return model, prompts, answers, prefix_lists, linear, bisect


@pytest.fixture(scope="module")
def runs():
    return _run(), _run()


def test_state_counts_are_stable_across_runs(runs):
    (_, p1, a1, _, lin1, _), (_, p2, a2, _, lin2, _) = runs
    assert p1 == p2 and a1 == a2
    s1, s2 = hint_states(lin1), hint_states(lin2)
    counts = {s: int(np.sum(s1 == s)) for s in ("no-hint", "sparse-hint", "full-hint")}
    print("ArithTransformer states (readme rule), 2000 prompts, seed 0:", counts)
    assert s1.tolist() == s2.tolist()
    assert sum(counts.values()) == N_PROMPTS
    # the model is imperfect but good: every state but Full-Hint is populated (the full answer as the hint
    # leaves only the end-of-sequence token to produce)
    assert counts["no-hint"] > 0 and counts["sparse-hint"] > 0
    assert [s.k for s in lin1] == [s.k for s in lin2]


def test_no_hint_is_the_model_alone(runs):
    """No-Hint (readme) is exactly the model's greedy answer being right without a hint."""
    model, prompts, answers, _, lin, _ = runs[0]
    alone = _complete(model, prompts)
    states = hint_states(lin)
    assert ((states == "no-hint") == np.array([c == a for c, a in zip(alone, answers)])).all()


def test_batched_solver_matches_one_at_a_time(runs):
    model, prompts, answers, prefix_lists, lin, _ = runs[0]
    for i in range(0, N_PROMPTS, 67):  # 30 prompts, every prefix, decoded alone
        for pre in prefix_lists[i]:
            alone = _complete(model, [prompts[i] + pre])[0]
            assert lin[i].checked_solved[list(lin[i].checked_k).index(prefix_lists[i].index(pre))] == (
                pre + alone == answers[i])


def test_bisection_agrees_where_monotone(runs):
    _, _, _, _, lin, bis = runs[0]
    mono = np.array([s.monotone for s in lin])
    print("non-monotone problems among", N_PROMPTS, ":", int((~mono).sum()))
    assert all(b.k == s.k for b, s, m in zip(bis, lin, mono) if m)
    assert all(s.first_k == s.k for s in lin)
    assert np.mean([b.n_calls for b in bis]) <= np.mean([s.n_calls for s in lin]) + 1


def test_released_rule_and_dataset(runs):
    model, prompts, answers, prefix_lists, lin, _ = runs[0]
    # the same model as the "thinking" model: its answer without hint decides No-Hint under "released"
    alone = _complete(model, prompts)
    think_correct = np.array([c == a for c, a in zip(alone, answers)])
    ds = build_hint_dataset(prompts, lin, think_traces=answers, think_answers=answers, instruct_answers=alone,
                            think_correct=think_correct, state_rule="released",
                            openers={"no-hint": "", "sparse-hint": "", "full-hint": ""}, delimiters=("", ""))
    readme = hint_states(lin)
    # with the same model in both roles the two rules agree
    assert ds.states.tolist() == readme.tolist()
    # a sparse example's text is the hint then the model's completion: the true answer
    sparse = np.flatnonzero(ds.states == "sparse-hint")
    assert all(ds.output[i] == answers[i] for i in sparse)
