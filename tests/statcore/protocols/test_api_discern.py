"""The API checks of statcore.protocols' information discernment: the bad-input sweep of every public
function and the result protocol of its result class (see tests/apicheck.py)."""
import numpy as np
import pytest

from apicheck import Spec, check_result_protocol, sweep_bad_inputs
from statcore import discernment, weight_of_advice

_rng = np.random.default_rng(2)
Q = np.repeat(np.arange(8), 4)
REL = _rng.uniform(0.2, 2.0, 32)
POP = _rng.uniform(size=32)
IMP = _rng.normal(size=32)
WOA = 0.4 * REL + 0.1 * _rng.normal(size=32)
PRIOR = _rng.normal(size=10)
CLAIM = PRIOR + _rng.uniform(0.5, 2.0, 10)
POST = PRIOR + 0.3 * (CLAIM - PRIOR)

# cluster labels are labels: text, numbers written as text and ids -1 or 10**9 are valid labels
LABELS_OK = {("cluster", "text"), ("cluster", "numeric_text"), ("cluster", "negative_id"), ("cluster", "huge_id")}

BAD_INPUT_SPECS = {
    "weight_of_advice": Spec(weight_of_advice, {"prior": PRIOR, "posterior": POST, "claim": CLAIM},
                             data=("prior", "posterior", "claim")),
    "discernment": Spec(discernment, {"woa": WOA, "reliability": REL, "improvement": IMP, "popularity": POP,
                                      "cluster": Q, "B": 19, "seed": 0},
                        data=("woa", "reliability", "improvement", "popularity", "cluster"), ok=LABELS_OK),
}

RESULT_EXAMPLES = {
    "Discernment": lambda: discernment(WOA, REL, IMP, POP, cluster=Q, B=19, seed=0),
}

EXEMPT = {}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_input_sweep(name):
    assert sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    check_result_protocol(RESULT_EXAMPLES[name]())


def test_bad_values_named():
    with pytest.raises(ValueError, match="claim"):
        weight_of_advice([1.0, 2.0], [1.2, 2.2], [1.0, 3.0])          # claim == prior
    with pytest.raises(ValueError, match="cluster"):
        discernment(WOA, REL, IMP, POP, cluster=np.repeat([0, 1], 16))   # two questions
    with pytest.raises(ValueError, match="popularity"):
        discernment(WOA, REL, IMP, np.ones(32), cluster=Q)             # constant
    with pytest.raises(ValueError, match="alpha"):
        discernment(WOA, REL, IMP, POP, cluster=Q, alpha=0.7)
    with pytest.raises(ValueError, match="cluster"):
        discernment(WOA, REL, IMP, POP, cluster=Q[:-1])


def test_omit_drops_trials_with_their_cluster():
    woa = WOA.copy()
    woa[3] = np.nan
    res = discernment(woa, REL, IMP, POP, cluster=Q, B=19, seed=0, nan_policy="omit")
    ref = discernment(np.delete(WOA, 3), np.delete(REL, 3), np.delete(IMP, 3), np.delete(POP, 3),
                      cluster=np.delete(Q, 3), B=19, seed=0)
    assert res.nobs == 31 and not res.kept[3]
    assert res.correlations.equals(ref.correlations)
