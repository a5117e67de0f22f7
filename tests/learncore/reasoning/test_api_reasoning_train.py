"""learncore.reasoning.train's public API: bad-input specs and result examples (docs/conventions.md). The
model, tokenizer and monoid are objects, swept with the generic kinds; texts as sequences of strings."""
import pytest

from helpers import require_torch

torch = require_torch()
torch.set_num_threads(1)

import apicheck  # noqa: E402
import learncore.reasoning as lr_  # noqa: E402
from learncore.reasoning import RLResult, grpo_advantages, make_model, pretrain, sample, train_rl  # noqa: E402
from learncore.reasoning.rewrite import Monoid, RewriteTokenizer  # noqa: E402

M = Monoid.cyclic(3)
TOK = RewriteTokenizer(M)
NET = make_model(TOK, d_model=16, n_layers=1, n_heads=2, max_len=12, seed=0)
S = apicheck.Spec

BAD_INPUT_SPECS = {
    "make_model": S(make_model, dict(tokenizer=TOK, d_model=16, n_layers=1, n_heads=2, max_len=12, seed=0),
                    data=("tokenizer",), paired=False),
    "pretrain": S(pretrain, dict(model=NET, tokenizer=TOK, texts=["01|1=1", "2|2"], steps=1, batch_size=2, seed=0),
                  data=("model", "tokenizer", "texts"), paired=False),
    "sample": S(sample, dict(model=NET, tokenizer=TOK, prompts=["01|", "2="], max_new_tokens=3, seed=0),
                data=("model", "tokenizer", "prompts"), paired=False),
    "train_rl": S(train_rl, dict(model=NET, tokenizer=TOK, problems=["01", "12"], monoid=M, method="grpo", steps=1,
                                 group_size=2, batch_size=1, max_new_tokens=3, seed=0),
                  data=("model", "tokenizer", "problems", "monoid"), paired=False),
    "grpo_advantages": S(grpo_advantages, dict(rewards=[1.0, 0.0, 0.5, 0.5], group_size=2),
                         data=("rewards", "group_size"), paired=False),
}

RESULT_EXAMPLES = {
    "RLResult": lambda: train_rl(NET, TOK, ["01", "12", "22"], M, method="rft", steps=2, group_size=2, batch_size=2,
                                 max_new_tokens=4, eval_problems=["01"], eval_every=1, seed=0),
}

MINE = {"make_model", "pretrain", "sample", "train_rl", "grpo_advantages", "RLResult"}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_input_sweep(name):
    assert apicheck.sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    apicheck.check_result_protocol(RESULT_EXAMPLES[name]())


def test_every_public_name_of_train_is_registered():
    assert MINE <= set(lr_.__all__)
    assert sorted(n for n in MINE if not isinstance(getattr(lr_, n), type)) == sorted(BAD_INPUT_SPECS)
    assert sorted(n for n in MINE if isinstance(getattr(lr_, n), type)) == sorted(RESULT_EXAMPLES)
    assert RLResult


def test_bad_settings_are_refused_by_name():
    with pytest.raises(ValueError, match="n_heads"):
        make_model(TOK, d_model=16, n_heads=3)
    with pytest.raises(ValueError, match="problems"):
        train_rl(NET, TOK, ["01", "19"], M, steps=1, max_new_tokens=3)      # a symbol outside Z_3
    with pytest.raises(ValueError, match="clip"):
        train_rl(NET, TOK, ["01"], M, method="reinforce", clip=0.2, steps=1, max_new_tokens=3)
    with pytest.raises(ValueError, match="kl"):
        train_rl(NET, TOK, ["01"], M, method="rft", kl=0.1, steps=1, max_new_tokens=3)
    with pytest.raises(ValueError, match="group_size"):
        train_rl(NET, TOK, ["01"], M, method="grpo", group_size=1, steps=1, max_new_tokens=3)
    with pytest.raises(ValueError, match="eval_every"):
        train_rl(NET, TOK, ["01"], M, steps=1, max_new_tokens=3, eval_every=2)
    with pytest.raises(ValueError, match="prompts"):
        sample(NET, TOK, ["0120120120120|"], max_new_tokens=3)               # longer than max_len
    with pytest.raises(ValueError, match="group_size"):
        grpo_advantages([1.0, 0.0, 1.0], 2)
    other = make_model(RewriteTokenizer(Monoid.cyclic(5)), d_model=16, n_layers=1, n_heads=2, max_len=12)
    with pytest.raises(ValueError, match="tokenizer"):
        sample(other, TOK, ["01|"], max_new_tokens=3)
