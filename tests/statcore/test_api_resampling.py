"""The resampling engine's API: bad inputs of permutation_test and bootstrap, and the result protocol
of BootstrapResult."""
import numpy as np
import pytest

import apicheck
from statcore import bootstrap, permutation_test


def _diff(x, y, axis=-1):
    return np.mean(x, axis=axis) - np.mean(y, axis=axis)


_X = np.array([0.3, -1.2, 0.8, 1.9, -0.4, 0.1, 2.2])
_Y = np.array([1.1, 0.4, 2.5, 1.7, 0.9, 3.0, 1.4])

BAD_INPUT_SPECS = {
    "permutation_test": apicheck.Spec(permutation_test, {"data": (_X, _Y), "statistic": _diff, "B": 99, "seed": 1},
                                      data=("data",), paired=False),
    "bootstrap": apicheck.Spec(bootstrap, {"data": (_X, _Y), "statistic": _diff, "B": 99, "seed": 1},
                               data=("data",), paired=False),
}

RESULT_EXAMPLES = {
    "BootstrapResult": lambda: bootstrap((_X,), np.mean, B=199, method="bca", seed=3),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_input_sweep(name):
    failures = apicheck.sweep_bad_inputs(BAD_INPUT_SPECS[name])
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    apicheck.check_result_protocol(RESULT_EXAMPLES[name]())
