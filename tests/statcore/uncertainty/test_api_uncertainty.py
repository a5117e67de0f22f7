"""statcore.uncertainty's API: the bad-input sweep of every public function, the result protocol of
GLUScore, keyword-only arguments and the errors of the brief (T = 0, NaN, wrong dimensions)."""
import inspect
import math

import numpy as np
import pytest

import apicheck
from statcore import GLUScore, TokenUncertainty, evidential_token_uncertainty, glu_score, renyi_matrix_entropy

_RNG = np.random.default_rng(17)
H = _RNG.normal(size=(6, 8))
HS = _RNG.normal(size=(3, 6, 8))
LOGITS = _RNG.normal(size=(6, 20))

BAD_INPUT_SPECS = {
    "renyi_matrix_entropy": apicheck.Spec(renyi_matrix_entropy, {"H": H, "order": 2}, data=("H",), paired=False),
    "evidential_token_uncertainty": apicheck.Spec(evidential_token_uncertainty, {"logits": LOGITS, "k": 5},
                                                  data=("logits",), paired=False),
    # one layer fewer (hidden_states "short" drops a layer) is a valid call
    "glu_score": apicheck.Spec(glu_score, {"hidden_states": HS, "logits": LOGITS, "k": 5},
                               data=("hidden_states", "logits"), ok={("hidden_states", "short")}),
}

RESULT_EXAMPLES = {"GLUScore": lambda: glu_score(HS, LOGITS, k=5),
                   "TokenUncertainty": lambda: evidential_token_uncertainty(LOGITS, k=5)}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_inputs(name):
    assert apicheck.sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    res = RESULT_EXAMPLES[name]()
    assert type(res).__name__ == name
    apicheck.check_result_protocol(res)
    assert isinstance(res, (GLUScore, TokenUncertainty))


@pytest.mark.parametrize("func, n_data", [(renyi_matrix_entropy, 1), (evidential_token_uncertainty, 1),
                                          (glu_score, 2)])
def test_keyword_only_after_the_data(func, n_data):
    params = list(inspect.signature(func).parameters.values())
    assert all(p.kind is p.POSITIONAL_OR_KEYWORD for p in params[:n_data])
    assert all(p.kind is p.KEYWORD_ONLY for p in params[n_data:])


def test_brief_errors():
    with pytest.raises(ValueError, match=r"H has no rows \(T = 0"):
        renyi_matrix_entropy(np.empty((0, 4)))
    with pytest.raises(ValueError, match="T = 0 tokens"):
        glu_score(np.empty((2, 0, 4)), np.empty((0, 5)))
    bad = H.copy()
    bad[2, 3] = np.nan
    with pytest.raises(ValueError, match="H contains NaN"):
        renyi_matrix_entropy(bad)
    with pytest.raises(ValueError, match="logits contains NaN"):
        glu_score(HS, np.where(LOGITS > 1.5, np.nan, LOGITS))
    with pytest.raises(ValueError, match="H must be a 2-dimensional"):
        renyi_matrix_entropy(HS)
    with pytest.raises(ValueError, match="logits must be a 2-dimensional"):
        evidential_token_uncertainty(LOGITS[0])
    with pytest.raises(ValueError, match="hidden_states has 6, logits has 5"):
        glu_score(HS, LOGITS[:5])
    with pytest.raises(ValueError, match="hidden_states must hold"):
        glu_score([H, H[:, :3]], LOGITS)
    with pytest.raises(ValueError, match="k=30 is larger than the vocabulary"):
        evidential_token_uncertainty(LOGITS, k=30)
    for a in (0, -1.0, math.nan):
        with pytest.raises(ValueError, match="order"):
            renyi_matrix_entropy(H, order=a)
    with pytest.raises(TypeError, match="order"):
        renyi_matrix_entropy(H, order="2")
    # inputs are never modified, a list of per-layer matrices equals the stacked array
    before = HS.copy()
    assert glu_score(list(HS), LOGITS).glu == glu_score(HS, LOGITS).glu
    assert np.array_equal(HS, before)
