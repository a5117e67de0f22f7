"""Bad input to learncore.learning_rules found from outside (issue 29): n_params checks its arguments,
fit_many takes fit's warn=, simulate and contrast_schedule refuse contrasts outside [0, 1]."""
import warnings

import numpy as np
import pandas as pd
import pytest

from helpers import require_torch

require_torch()

from learncore.learning_rules import contrast_schedule, fit_many, n_params, simulate  # noqa: E402

ONE = {"W": np.zeros((2, 3)), "eta": 0.1, "beta": 5.0}


def test_n_params_checks_arch_and_hidden():
    assert (n_params("1L", 0), n_params("2NL", 3), n_params("2l", 2)) == (8, 17, 12)
    with pytest.raises(ValueError, match=r"^arch must be one of"):
        n_params("4L", 3)
    with pytest.raises(ValueError, match=r"^hidden must be a positive integer"):
        n_params("2NL", -1)
    with pytest.raises(ValueError, match=r"^hidden must be"):
        n_params("2L", 2.5)


def test_fit_many_takes_warn():
    t = simulate("1L", ONE, 60, session_length=30, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = fit_many({"a": t}, archs=("1L",), restarts=1, max_iter=2, B=0, seed=1, warn=False)
    assert set(res.fits) == {"a"}
    with pytest.warns(Warning, match="stopped before the gradient tolerance"):
        fit_many({"a": t}, archs=("1L",), restarts=1, max_iter=2, B=0, seed=1)
    with pytest.raises(TypeError, match=r"^warn must be True or False"):
        fit_many({"a": t}, archs=("1L",), restarts=1, max_iter=2, B=0, seed=1, warn="no")


@pytest.mark.parametrize("bad", [100.0, 1e300, -1.5])
def test_contrasts_outside_0_1_are_refused(bad):
    with pytest.raises(ValueError, match=r"^contrasts must be contrasts in \[0, 1\].*percent"):
        simulate("1L", ONE, np.array([0.25, bad, 0.0]), seed=0)
    with pytest.raises(ValueError, match=r"^contrasts must be contrasts in \[0, 1\]"):
        contrast_schedule(10, contrasts=(0.0, abs(bad)), seed=0)
    frame = pd.DataFrame({"contrast_left": [0.0, abs(bad)], "contrast_right": [0.5, 0.0]})
    with pytest.raises(ValueError, match=r"^contrasts\['contrast_left'\] must be contrasts in \[0, 1\]"):
        simulate("1L", ONE, frame, seed=0)
    assert len(simulate("1L", ONE, np.array([0.25, -1.0, 1.0, 0.0]), seed=0)) == 4
