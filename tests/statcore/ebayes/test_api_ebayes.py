"""The API sweep of statcore.ebayes: bad inputs to npmle, predictive_recursion, c2g, ash and locfdr, and the
result protocol of NPMLEResult, PredictiveRecursionResult, C2GResult, AshResult and LocfdrResult
(tests/apicheck.py)."""
import numpy as np
import pytest

import apicheck
from statcore.ebayes import LocfdrWarning, ash, c2g, locfdr, npmle, predictive_recursion

_rng = np.random.default_rng(0)
_X = _rng.normal(size=40)
_SIGMA = _rng.uniform(0.8, 1.2, 40)
_W = _rng.integers(1, 3, 40).astype(float)
_Y = _rng.normal(size=60)
_T = np.arange(60) % 2
_XC = _rng.normal(size=(60, 2))
_Z = np.r_[_rng.normal(size=450), _rng.normal(3.0, 1.0, 50)]

BAD_INPUT_SPECS = {
    "npmle": apicheck.Spec(npmle, dict(x=_X, sigma=_SIGMA, weights=_W, grid=20),
                           data=("x", "sigma", "weights"),
                           # weights=None is the documented default (equal weights)
                           ok={("weights", "none")}),
    "predictive_recursion": apicheck.Spec(predictive_recursion, dict(x=_X, kernel_sd=1.0, grid=15, sweeps=2, seed=0),
                                          data=("x",), paired=False),
    "ash": apicheck.Spec(ash, dict(betahat=_X, sebetahat=_SIGMA), data=("betahat", "sebetahat")),
    "c2g": apicheck.Spec(c2g, dict(y=_Y, treat=_T, X=_XC, model="nonparametric", B=10, seed=0),
                         data=("y", "treat", "X"),
                         # X=None is the documented covariate-free model
                         ok={("X", "none")}),
    "locfdr": apicheck.Spec(locfdr, dict(z=_Z, bre=40), data=("z",), paired=False),
}


def _npmle_result():
    return npmle(_X, grid=20)


def _pr_result():
    return predictive_recursion(_X, kernel_sd=1.0, grid=15, sweeps=2, seed=0)


def _c2g_result():
    return c2g(_Y, _T, model="nonparametric", B=10, seed=0)


def _ash_result():
    return ash(_X, _SIGMA, mixcompdist="uniform")


def _locfdr_result():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LocfdrWarning)
        return locfdr(_Z, bre=40, nulltype=2)


RESULT_EXAMPLES = {
    "AshResult": _ash_result,
    "LocfdrResult": _locfdr_result,
    "NPMLEResult": _npmle_result,
    "PredictiveRecursionResult": _pr_result,
    "C2GResult": _c2g_result,
}

EXEMPT = {}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_input_sweep(name):
    assert apicheck.sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    apicheck.check_result_protocol(RESULT_EXAMPLES[name]())


def test_c2g_additive_result_protocol():
    apicheck.check_result_protocol(c2g(_Y, _T, _XC, seed=0))
