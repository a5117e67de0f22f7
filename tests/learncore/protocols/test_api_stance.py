"""learncore.protocols' stance API: the bad-input sweep of every public function and the result protocol
of its result classes (see tests/apicheck.py)."""
import numpy as np
import pytest

from helpers import require_torch

torch = require_torch()

import apicheck  # noqa: E402
from statcore.utils import thread_limit  # noqa: E402
from learncore.llm_uncertainty import load_arith_model  # noqa: E402
from learncore.protocols import stance_scores, stance_shifts  # noqa: E402

MODEL = load_arith_model()
_RNG = np.random.default_rng(3)
BASE = _RNG.normal(size=8)
TUNED = BASE + _RNG.normal(1.0, 0.3, 8)
FEW = BASE + _RNG.normal(0.4, 0.3, 8)
TOPIC = ["a"] * 4 + ["b"] * 4

S = apicheck.Spec
BAD_INPUT_SPECS = {
    "stance_scores": S(stance_scores, dict(model=MODEL, probes=["12+7=", "3+4="], options=("19", "20")),
                       data=("probes",), paired=False),
    "stance_scores[ids]": S(stance_scores, dict(model=MODEL, probes=[[1, 10, 7, 11], [3, 10, 4, 11]],
                                                options=([1, 9], [2, 0])), data=("probes",), paired=False),
    "stance_shifts": S(stance_shifts, dict(base=BASE, tuned=TUNED, few_shot=FEW, topic=TOPIC),
                       data=("base", "tuned", "few_shot"), ok={("few_shot", "none")}),
}

EXEMPT = {}

RESULT_EXAMPLES = {
    "StanceScores": lambda: stance_scores(MODEL, ["12+7=", "3+4="], options=[("19", "20"), ("7", "8")],
                                          append_eos=True),
    "StanceShifts": lambda: stance_shifts(BASE, TUNED, FEW, topic=TOPIC),
}


@pytest.fixture(autouse=True)
def _one_thread():
    with thread_limit(1):
        yield


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_inputs(name):
    assert apicheck.sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    res = RESULT_EXAMPLES[name]()
    assert type(res).__name__ == name
    apicheck.check_result_protocol(res)
