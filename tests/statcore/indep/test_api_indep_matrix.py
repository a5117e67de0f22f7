"""independence_matrix's API: the bad-input sweep and the result protocol of IndependenceMatrix."""
import numpy as np
import pandas as pd
import pytest

import apicheck
from statcore import IndependenceMatrix, independence_matrix

_RNG = np.random.default_rng(7)
_A = _RNG.normal(size=40)
FRAME = pd.DataFrame({"a": _A, "b": _A ** 2 + 0.2 * _RNG.normal(size=40), "c": _RNG.normal(size=40)})

BAD_INPUT_SPECS = {
    "independence_matrix": apicheck.Spec(independence_matrix, {"data": FRAME, "test": "hsic"}, data=("data",),
                                         paired=False),
    "independence_matrix[dcor]": apicheck.Spec(independence_matrix,
                                               {"data": FRAME.to_numpy(), "test": "dcor", "method": "t"},
                                               data=("data",), paired=False),
}

RESULT_EXAMPLES = {
    "IndependenceMatrix": lambda: independence_matrix(FRAME, test="hsic"),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_inputs(name):
    assert apicheck.sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    apicheck.check_result_protocol(RESULT_EXAMPLES[name]())


def test_repr_is_one_line_and_result_frozen():
    res = independence_matrix(FRAME, test="hsic")
    assert repr(res) == ("IndependenceMatrix(variables=3, pairs=3, significant=1, n=40, test='hsic', "
                         "p_adjust='BH')")
    with pytest.raises(AttributeError):
        res.alpha = 0.1
    assert not res.p_values.flags.writeable and isinstance(res, IndependenceMatrix)


@pytest.mark.parametrize("kwargs, arg", [
    ({"test": "pearson"}, "test"), ({"p_adjust": "bogus"}, "p_adjust"), ({"p_adjust": 3}, "p_adjust"),
    ({"alpha": 0.0}, "alpha"), ({"B": 0}, "B"), ({"n_jobs": 0}, "n_jobs"), ({"nan_policy": "propagate"}, "nan_policy"),
    ({"x": 1.0}, "x"), ({"groups": {"x": ["a"]}}, "groups"),
])
def test_bad_arguments_name_themselves(kwargs, arg):
    with pytest.raises((ValueError, TypeError), match=arg):
        independence_matrix(FRAME, test="hsic", **{"seed": 0, **kwargs})


def test_one_column_is_refused():
    with pytest.raises(ValueError, match="at least two columns"):
        independence_matrix(FRAME[["a"]], test="hsic")
