"""learncore.protocols' belief elicitation: the bad-input sweep of belief_trials and the result protocol of
BeliefTrials (see tests/apicheck.py)."""
import pytest

from helpers import require_torch

torch = require_torch()

import apicheck  # noqa: E402
from learncore.llm_uncertainty import load_arith_model  # noqa: E402
from learncore.protocols import belief_trials  # noqa: E402

MODEL = load_arith_model()
QUESTIONS = ["3+4=", "2+2="]
SOURCES = {"question": [0, 1, 1], "claim": [9, 1, 6]}

BAD_INPUT_SPECS = {
    "belief_trials": apicheck.Spec(belief_trials, dict(model=MODEL, questions=QUESTIONS, sources=SOURCES,
                                                       advice="0+{claim}={claim}{question}"),
                                   data=("model", "questions", "sources"), paired=False),
}

RESULT_EXAMPLES = {
    "BeliefTrials": lambda: belief_trials(MODEL, QUESTIONS, SOURCES, advice="0+{claim}={claim}{question}"),
}

EXEMPT = {}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_input_sweep(name):
    assert apicheck.sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    apicheck.check_result_protocol(RESULT_EXAMPLES[name]())


def test_bad_values_named():
    with pytest.raises(TypeError, match="model"):
        belief_trials("gpt2", QUESTIONS, SOURCES)
    with pytest.raises(ValueError, match="batch_size"):
        belief_trials(MODEL, QUESTIONS, SOURCES, batch_size=0)
    with pytest.raises(TypeError, match="sources"):
        belief_trials(MODEL, QUESTIONS, {"question": [0], "claim": ["7"]})
    with pytest.raises(ValueError, match="values"):
        belief_trials(MODEL, QUESTIONS, SOURCES, values=[1, 1, 2])
