"""learncore.slim's public API: bad-input specs and result examples (docs/conventions.md). The
model argument is a network, swept with the generic kinds; widths are swept as numbers."""
import numpy as np
import pytest

from helpers import require_torch

torch = require_torch()
torch.set_num_threads(1)

import apicheck  # noqa: E402
import learncore.slim as ls  # noqa: E402
from learncore.llm_uncertainty import ArithTransformer  # noqa: E402
from learncore.slim import (SlimmableFit, SlimmingCurve, slim_cost, slim_width, slimmable_finetune,  # noqa: E402
                            slimming_curve)

with torch.random.fork_rng(devices=[]):
    torch.manual_seed(0)
    NET = ArithTransformer(d_model=16, n_layer=1, n_head=2, max_len=8).eval()
X = torch.randint(0, 13, (8, 6), generator=torch.Generator().manual_seed(0))


def _evaluate(net):
    return float(net(X).logits.mean()) ** 2


def _loss(net, batch):
    return net(batch).logits.pow(2).mean()


S = apicheck.Spec
BAD_INPUT_SPECS = {
    "slim_width": S(slim_width, dict(model=NET, s=0.5), data=("model", "s"), paired=False),
    "slim_cost": S(slim_cost, dict(model=NET, s=0.5), data=("model", "s"), paired=False),
    "slimming_curve": S(slimming_curve, dict(model=NET, widths=[1.0, 0.5], evaluate=_evaluate),
                        data=("model", "widths", "evaluate"), paired=False),
    "slimmable_finetune": S(slimmable_finetune, dict(model=NET, widths=[1.0, 0.5], data=[X], loss=_loss, steps=1),
                            data=("model", "widths", "data"), paired=False),
}

RESULT_EXAMPLES = {
    "SlimmingCurve": lambda: slimming_curve(NET, [1.0, 0.5], _evaluate),
    "SlimmableFit": lambda: slimmable_finetune(NET, [1.0, 0.5], [X], loss=_loss, steps=2, seed=0),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_input_sweep(name):
    assert apicheck.sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    apicheck.check_result_protocol(RESULT_EXAMPLES[name]())


def test_every_public_callable_is_registered():
    funcs = [n for n in ls.__all__ if callable(getattr(ls, n)) and not isinstance(getattr(ls, n), type)]
    assert sorted(set(funcs) - set(BAD_INPUT_SPECS)) == []
    classes = [n for n in ls.__all__ if isinstance(getattr(ls, n), type)]
    assert sorted(set(classes) - set(RESULT_EXAMPLES)) == []
    assert SlimmingCurve and SlimmableFit
