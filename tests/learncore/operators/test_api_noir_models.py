"""learncore.operators' public API of the models, penalty, training and evaluation (the data and
corruptions have their own registry): the bad-input sweep of every public function and the result
protocol of every result class (docs/conventions.md)."""
import sys
from pathlib import Path

import pytest

from helpers import require_torch

torch = require_torch()
torch.set_num_threads(1)

import apicheck  # noqa: E402
import statcore  # noqa: E402
import learncore.operators as ops  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parent))  # noir_tiny, also when tests/test_api_complete.py loads this
from noir_tiny import heat_1d  # noqa: E402
from learncore.operators import (NOIR, DeepONet, LatentSignature, TrainingHistory, evaluate,  # noqa: E402
                                 independence_penalty, latent_signature)

DS = heat_1d(40, n_test=20)
NET = DeepONet.from_dataset(DS, p=3, branch_hidden=(6,), trunk_hidden=(6,))
NOISE = {"gauss": lambda s, level, *, sensor_coords, seed: s + level * seed.normal(size=s.shape)}

S = apicheck.Spec
_GEN = torch.Generator().manual_seed(0)
BAD_INPUT_SPECS = {
    "independence_penalty": S(independence_penalty, dict(z=torch.randn(12, 3, dtype=torch.float64, generator=_GEN)),
                              data=("z",), paired=False),
    "evaluate": S(evaluate, dict(model=NET, ds=DS, corruptions=NOISE, levels=(0.1,), seed=0), data=("model", "ds"),
                  paired=False),
    "latent_signature": S(latent_signature, dict(model=NET, ds=DS, corruptions=NOISE, B=19, seed=0),
                          data=("model", "ds"), paired=False),
}

EXEMPT: dict = {}

#: the names of learncore.operators that this registry covers (the data and corruptions are the
#: other registry's)
MINE = {"DeepONet", "PODDeepONet", "PCANet", "FNO", "independence_penalty", "NOIR", "TrainingHistory", "evaluate",
        "latent_signature", "LatentSignature", "OperatorErrors"}


def _history():
    return NOIR(DeepONet.from_dataset(DS, p=3, branch_hidden=(6,), trunk_hidden=(6,)), lam=0.01).fit(
        DS, epochs=2, batch_size=10, seed=0)


def _signature():
    return latent_signature(NET, DS, corruptions=NOISE, B=19, seed=0)


RESULT_EXAMPLES = {"TrainingHistory": _history, "LatentSignature": _signature,
                   "OperatorErrors": lambda: evaluate(NET, DS, corruptions=NOISE, levels=(0.1,), seed=0)}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_input_sweep(name):
    assert apicheck.sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    apicheck.check_result_protocol(RESULT_EXAMPLES[name]())


def test_every_public_callable_is_registered():
    mine = [n for n in ops.__all__ if n in MINE]
    funcs = [n for n in mine if callable(getattr(ops, n)) and not isinstance(getattr(ops, n), type)]
    assert sorted(set(funcs) - set(BAD_INPUT_SPECS) - set(EXEMPT)) == []
    results = [n for n in mine if isinstance(getattr(ops, n), type) and issubclass(getattr(ops, n), statcore.Result)]
    assert sorted(results) == sorted(RESULT_EXAMPLES)
    assert isinstance(TrainingHistory, type) and isinstance(LatentSignature, type)


def test_import_learncore_does_not_import_torch():
    import subprocess
    import sys

    code = "import sys, learncore; assert 'torch' not in sys.modules, 'learncore imported torch'"
    subprocess.run([sys.executable, "-c", code], check=True)
