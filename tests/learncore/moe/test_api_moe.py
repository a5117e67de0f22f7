"""learncore.moe's public API: the bad-input sweep of every public function and the constructors'
and modules' input checks (docs/conventions.md). The routers, purification and adapter are torch
modules and their outputs named tuples, not results: no RESULT_EXAMPLES."""
import numpy as np
import pytest

from helpers import require_torch

torch = require_torch()
torch.set_num_threads(1)

import apicheck  # noqa: E402
import learncore.moe as moe  # noqa: E402
from learncore.moe import (HypersphericalRouter, LinearRouter, MoEAdapter, TokenPurification,  # noqa: E402
                           batch_hard_triplet_loss, load_balance_loss, mobilenet_tokens, routing_diversity_loss)

_G = torch.Generator().manual_seed(0)
PROTO = torch.randn(4, 6, dtype=torch.float64, generator=_G)
PROBS = torch.softmax(torch.randn(6, 3, dtype=torch.float64, generator=_G), -1)
IDX = torch.topk(PROBS, 2, dim=-1).indices
EMB = torch.randn(6, 3, dtype=torch.float64, generator=_G)
LAB = torch.tensor([0, 0, 1, 1, 2, 2])
IMGS = np.random.default_rng(0).random((2, 40, 40, 3))

S = apicheck.Spec
BAD_INPUT_SPECS = {
    "routing_diversity_loss": S(routing_diversity_loss, dict(prototypes=PROTO, kind="riesz", s=1.0),
                                data=("prototypes",), paired=False),
    "load_balance_loss": S(load_balance_loss, dict(probs=PROBS, indices=IDX), data=("probs", "indices")),
    "batch_hard_triplet_loss": S(batch_hard_triplet_loss, dict(embeddings=EMB, labels=LAB, margin=0.3),
                                 data=("embeddings", "labels")),
    # a random network (weights=None) keeps the sweep fast; "tiny" images are valid and succeed
    "mobilenet_tokens": S(mobilenet_tokens, dict(images=IMGS, input_size=32, weights=None), data=("images",),
                          paired=False),
}

EXEMPT: dict = {}

RESULT_EXAMPLES: dict = {}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_input_sweep(name):
    assert apicheck.sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


def test_every_public_callable_is_registered():
    funcs = [n for n in moe.__all__ if callable(getattr(moe, n)) and not isinstance(getattr(moe, n), type)]
    assert sorted(set(funcs) - set(BAD_INPUT_SPECS) - set(EXEMPT)) == []


def test_import_learncore_does_not_import_torch():
    import subprocess
    import sys

    code = "import sys, learncore; assert 'torch' not in sys.modules, 'learncore imported torch'"
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("cls, args, kwargs, arg, err", [
    (HypersphericalRouter, (0, 3), {}, "d", ValueError),
    (HypersphericalRouter, (4, 2.5), {}, "n_experts", TypeError),
    (HypersphericalRouter, (4, 3), dict(tau=0.0), "tau", ValueError),
    (HypersphericalRouter, (4, 3), dict(tau="hot"), "tau", TypeError),
    (HypersphericalRouter, (4, 3), dict(top_k=4), "top_k", ValueError),
    (HypersphericalRouter, (4, 3), dict(seed=-1), "seed", ValueError),
    (LinearRouter, (4, 3), dict(top_k=0), "top_k", ValueError),
    (TokenPurification, (0.0,), {}, "keep_ratio", ValueError),
    (TokenPurification, (1.5,), {}, "keep_ratio", ValueError),
    (TokenPurification, ("half",), {}, "keep_ratio", TypeError),
    (TokenPurification, (0.5,), dict(score="norm"), "score", ValueError),
    (MoEAdapter, (0,), {}, "in_features", ValueError),
    (MoEAdapter, (8,), dict(router="gumbel"), "router", ValueError),
    (MoEAdapter, (8,), dict(n_experts=2, top_k=3), "top_k", ValueError),
    (MoEAdapter, (8,), dict(router="dense", keep_ratio=0.5), "score", ValueError),
    (MoEAdapter, (8,), dict(hidden=1.5), "hidden", TypeError),
])
def test_constructor_checks(cls, args, kwargs, arg, err):
    with pytest.raises(err, match=arg):
        cls(*args, **kwargs)


def test_forward_checks():
    router = HypersphericalRouter(4, 3, seed=0)
    with pytest.raises(ValueError, match="tokens"):
        router(torch.ones(2, 5))
    with pytest.raises(TypeError, match="tokens"):
        router(np.ones((2, 4)))
    with pytest.raises(ValueError, match="tokens"):
        router(torch.tensor([[1.0, float("nan"), 0.0, 0.0]]))
    adapter = MoEAdapter(8, 4, d=4, hidden=4, seed=0)
    with pytest.raises(ValueError, match="tokens"):
        adapter(torch.ones(2, 8))
    with pytest.raises(ValueError, match="probs"):
        TokenPurification(0.5)(torch.ones(1, 4, 2), torch.ones(1, 3, 2) / 2)
    with pytest.raises(ValueError, match="probs"):
        load_balance_loss(torch.ones(3, 2), torch.zeros(3, 1, dtype=torch.long))      # rows sum to 2
    with pytest.raises(ValueError, match="indices"):
        load_balance_loss(torch.full((3, 2), 0.5), torch.full((3, 1), 2))
    with pytest.raises(ValueError, match="prototypes"):
        routing_diversity_loss(torch.ones(1, 3))
    with pytest.raises(ValueError, match="kind"):
        routing_diversity_loss(PROTO, kind="mhe")
    with pytest.raises(ValueError, match="s"):
        routing_diversity_loss(PROTO, s=0.0)
    with pytest.raises(ValueError, match="labels"):
        batch_hard_triplet_loss(EMB[:2], torch.tensor([0, 1]))                        # no positive pair
    with pytest.raises(ValueError, match="input_size"):
        mobilenet_tokens(IMGS, input_size=16, weights=None)
