"""The API checks of statcore.protocols' breadth and amplification: the bad-input sweep of every public
function and the result protocol of every result class (see tests/apicheck.py)."""
import numpy as np
import pytest

from apicheck import Spec, check_result_protocol, sweep_bad_inputs
from statcore import amplification, shift_breadth

SHIFTS = np.array([0.9, 0.5, 0.05, 0.7, -0.1, 0.3])
SE = np.array([0.1, 0.1, 0.1, 0.2, 0.1, 0.1])
_RNG = np.random.default_rng(0)
FS = _RNG.normal(1.0, 1.0, size=(12, 3))
FT = 2 * FS + _RNG.normal(0, 0.5, size=(12, 3))

BAD_INPUT_SPECS = {
    "shift_breadth": Spec(shift_breadth, {"shifts": SHIFTS, "se": SE}, data=("shifts", "se")),
    "shift_breadth[omit]": Spec(shift_breadth, {"shifts": SHIFTS, "se": SE, "nan_policy": "omit"},
                                data=("shifts", "se"), ok={("shifts", "nan"), ("se", "nan")}),
    "amplification": Spec(amplification, {"ft": FT, "fs": FS}, data=("ft", "fs")),
    "amplification[1d]": Spec(amplification, {"ft": FT[:, 0], "fs": FS[:, 0], "paired": False},
                              data=("ft", "fs"), paired=False),
}

RESULT_EXAMPLES = {
    "ShiftBreadth": lambda: shift_breadth(SHIFTS, SE),
    "Amplification": lambda: amplification(FT, FS),
}

EXEMPT = {}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_input_sweep(name):
    assert sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    check_result_protocol(RESULT_EXAMPLES[name]())


def test_tau2_zero_result_protocol():
    check_result_protocol(shift_breadth([0.5, 0.52, 0.49, 0.51], [0.1] * 4))
