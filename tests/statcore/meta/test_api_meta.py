"""The API checks of statcore.meta: the bad-input sweep of every public function and the result
protocol of every result class (see tests/apicheck.py)."""
import numpy as np
import pytest

from apicheck import Spec, check_result_protocol, sweep_bad_inputs
from statcore import meta_analysis, prop_effects_above

Y = np.array([0.10, 0.30, 0.35, 0.65, 0.45, 0.15, 0.05, 0.55])
V = np.array([0.03, 0.03, 0.05, 0.01, 0.05, 0.02, 0.04, 0.02])
FIT = meta_analysis(Y, V)

BAD_INPUT_SPECS = {
    "meta_analysis": Spec(meta_analysis, {"y": Y, "v": V}, data=("y", "v")),
    "meta_analysis[DL]": Spec(meta_analysis, {"y": Y, "v": V, "method": "DL", "hksj": True}, data=("y", "v")),
    "meta_analysis[omit]": Spec(meta_analysis, {"y": Y, "v": V, "nan_policy": "omit"}, data=("y", "v"),
                                ok={("y", "nan"), ("v", "nan")}),
    "prop_effects_above": Spec(prop_effects_above, {"fit": FIT, "q": 0.2}, data=("fit", "q"), paired=False),
}

RESULT_EXAMPLES = {
    "MetaAnalysis": lambda: meta_analysis(Y, V, method="REML"),
    "PropEffectsAbove": lambda: prop_effects_above(FIT, 0.2),
}

EXEMPT = {}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_input_sweep(name):
    assert sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    check_result_protocol(RESULT_EXAMPLES[name]())


def test_fe_result_protocol():
    check_result_protocol(meta_analysis(Y, V, method="FE"))
