"""learncore.reasoning's analyses (analysis.py): bad-input specs and result examples
(docs/conventions.md). The traces are texts and the monoid an object: they get the generic kinds;
samples_correct and ks are swept as numbers."""
import numpy as np
import pytest

import apicheck
from learncore.reasoning import (Monoid, PassAtKCurve, Repertoire, StepMix, pass_at_k_curve,  # noqa: F401
                                 procedure_repertoire, step_mix)

Z5 = Monoid.cyclic(5)
CORRECT = np.array([[1, 0, 0, 1], [0, 0, 0, 0], [1, 1, 1, 0], [0, 1, 0, 0]])
TRACES = {0: ["1234|334|14|0=0", "1234|22|4=4"], 10: ["1234|32|0=0", "1234|14|0=0"]}

S = apicheck.Spec
BAD_INPUT_SPECS = {
    "pass_at_k_curve": S(pass_at_k_curve, dict(samples_correct=CORRECT, ks=np.array([1, 2]),
                                               groups=np.array([4, 5, 4, 5]), B=19, seed=0),
                         data=("samples_correct", "ks", "groups"), paired=False,
                         # group labels are labels, text or not, any integer; None: one group
                         ok={("groups", "none"), ("groups", "text"), ("groups", "numeric_text"),
                             ("groups", "negative_id"), ("groups", "huge_id")}),
    "step_mix": S(step_mix, dict(traces=TRACES, monoid=Z5), data=("traces", "monoid"), paired=False),
    "procedure_repertoire": S(procedure_repertoire, dict(traces=TRACES, monoid=Z5, top=2),
                              data=("traces", "monoid"), paired=False),
}

RESULT_EXAMPLES = {
    "PassAtKCurve": lambda: pass_at_k_curve(CORRECT, [1, 2, 4], groups=[4, 5, 4, 5], B=49, seed=0),
    "StepMix": lambda: step_mix(TRACES, Z5),
    "Repertoire": lambda: procedure_repertoire(TRACES, Z5, top=2),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_input_sweep_analysis(name):
    assert apicheck.sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol_analysis(name):
    apicheck.check_result_protocol(RESULT_EXAMPLES[name]())


def test_bad_traces_as_a_list_and_groups_as_a_list():
    list_spec = S(step_mix, dict(traces=["1234|14|0=0", "12|3=3"], monoid=Z5), data=("traces",), paired=False)
    assert apicheck.sweep_bad_inputs(list_spec) == []
    nested = S(procedure_repertoire, dict(traces=[["1234|14|0=0"], ["12|3=3"]], monoid=Z5), data=("traces",),
               paired=False)
    assert apicheck.sweep_bad_inputs(nested) == []
