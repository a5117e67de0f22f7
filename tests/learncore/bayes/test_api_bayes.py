"""learncore.bayes' public API: the bad-input sweep of every public function (and of the data arguments
of the optimizers: their parameters and the inputs of ``predict``), and the check that every public
callable is registered (docs/conventions.md). learncore.bayes has no result classes."""
import numpy as np
import pytest

from helpers import require_torch

torch = require_torch()

import apicheck  # noqa: E402
from torch import nn  # noqa: E402

from learncore import bayes  # noqa: E402
from learncore.bayes import IVON, BayesianLearningRule, layerwise_curvature  # noqa: E402

_GEN = torch.Generator().manual_seed(0)
X = torch.randn(6, 2, generator=_GEN, dtype=torch.float64).numpy()
Y = torch.randn(6, 1, generator=_GEN, dtype=torch.float64).numpy()


def _model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1)).double()


MODEL = _model()


def _ivon(params, lr=0.1, ess=10.0):
    return IVON(params, lr=lr, ess=ess, seed=0)


def _blr(params, lr=0.1, ess=10.0):
    return BayesianLearningRule(params, lr=lr, ess=ess, seed=0)


def _predict(x, samples=3):
    model = _model()
    return IVON(model.parameters(), lr=0.1, ess=10.0, seed=0).predict(model, x, samples=samples, output="identity")


_ivon.__name__, _blr.__name__, _predict.__name__ = "IVON", "BayesianLearningRule", "predict"

S = apicheck.Spec
BAD_INPUT_SPECS = {
    "layerwise_curvature": S(layerwise_curvature, dict(model=MODEL, loss=nn.MSELoss(), x=X, y=Y), data=("x", "y")),
    # an optimizer's data are its parameters (one tensor here, so the numeric kinds build arrays, which are
    # refused as not tensors), and predict's are its inputs
    "IVON": S(_ivon, dict(params=[torch.zeros(3, dtype=torch.float64)]), data=("params",), paired=False),
    "BayesianLearningRule": S(_blr, dict(params=[torch.zeros(3, dtype=torch.float64)]), data=("params",),
                              paired=False),
    "IVON.predict": S(_predict, dict(x=X), data=("x",), paired=False),
}

EXEMPT = {}
RESULT_EXAMPLES = {}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_input_sweep(name):
    assert apicheck.sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


def test_every_public_callable_is_registered():
    funcs = [n for n in bayes.__all__ if callable(getattr(bayes, n)) and not isinstance(getattr(bayes, n), type)]
    assert funcs == ["layerwise_curvature"]
    assert sorted(set(funcs) - set(BAD_INPUT_SPECS) - set(EXEMPT)) == []


def test_public_classes():
    for name in ("IVON", "BayesianLearningRule"):
        assert issubclass(getattr(bayes, name), torch.optim.Optimizer)
    for name in ("PriceCurvature", "GradSquareCurvature", "HutchinsonCurvature", "BackpropCurvature"):
        assert issubclass(getattr(bayes, name), bayes.CurvatureEstimator)


def test_import_learncore_does_not_import_torch():
    import subprocess
    import sys

    code = "import sys, learncore; assert 'torch' not in sys.modules, 'torch was imported'"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr


def test_the_optimizers_hyperparameters_name_themselves():
    p = [torch.zeros(2)]
    for cls in (IVON, BayesianLearningRule):
        for kw, name in ((dict(lr=-1), "lr"), (dict(ess=0), "ess"), (dict(mc_samples=0), "mc_samples"),
                         (dict(hessian="diag"), "hessian")):
            args = dict(lr=0.1, ess=1.0)
            args.update(kw)
            with pytest.raises(ValueError, match=name):
                cls(p, **args)
    assert np.isfinite(_predict(X).numpy()).all()
