"""Error messages show the offending numbers and labels as plain Python values ("found 1.1996"), never
numpy's repr ("found np.float64(1.1996)")."""
import re

import numpy as np
import pytest

import statcore as sc
import statcore.testing
from statcore._checks import show_value

NUMPY_REPR = re.compile(r"np\.\w+\(")


def test_show_value_plain():
    assert show_value(np.float64(1.5)) == "1.5" and show_value(np.int64(3)) == "3"
    assert show_value(np.str_("a")) == "'a'" and show_value(np.bool_(True)) == "True"
    assert show_value([np.str_("a"), np.int64(2)]) == "['a', 2]" and show_value(np.array([0.5])) == "[0.5]"
    assert show_value("x") == "'x'" and show_value(None) == "None"


CALLS = {
    "p_adjust": (lambda: sc.p_adjust(np.array([0.1, 1.1996])), "found 1.1996"),
    "roc, one class": (lambda: sc.roc(np.array([0.0, 0.0, 1.0, 1.0]), np.array([1.0, 2.0, np.nan, np.nan]),
                               nan_policy="omit", quiet=True), "control = 0.0, case = 1.0"),
    "roc, outside levels": (lambda: sc.roc(np.array([0, 1, 2, 1]), np.arange(4.0), levels=(0, 1)), "e.g. 2"),
    "calibration_error": (lambda: sc.calibration_error(np.array([0, 1, 1]), np.array([0.2, 1.5, 0.9])),
                          "found 1.5"),
    "calibration_error, labels": (lambda: sc.calibration_error(np.array([0, 1, 3]), np.array([0.2, 0.5, 0.9])),
                                  "found the value 3"),
    "risk_coverage": (lambda: sc.risk_coverage(np.array([-0.25, 1.0, 0.0]), np.array([0.2, 0.5, 0.9])),
                      "found -0.25"),
    "coverage_test": (lambda: sc.coverage_test(np.array([0.0, 1.0, 0.5]), alpha=0.1), "found 0.5"),
    "assert_coverage": (lambda: statcore.testing.assert_coverage(lambda d, rng: np.float64(1.5), lambda rng: None,
                                                           reps=10, seed=1), "coverage 1.5,"),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_error_messages_show_plain_numbers(name):
    call, shown = CALLS[name]
    with pytest.raises((ValueError, TypeError)) as err:
        call()
    msg = str(err.value)
    assert not NUMPY_REPR.search(msg), msg
    assert shown in msg, msg
