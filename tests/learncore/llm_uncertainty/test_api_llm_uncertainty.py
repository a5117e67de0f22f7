"""learncore.llm_uncertainty's public API: the bad-input sweep of every public function, the result
protocol of its result classes, keyword-only arguments and the errors of evaluate_scores (labels not
binary, one class only, NaN scores, unknown columns)."""
import inspect

import numpy as np
import pandas as pd
import pytest

from helpers import require_torch

torch = require_torch()

import apicheck  # noqa: E402
from statcore.utils import thread_limit  # noqa: E402
from learncore.llm_uncertainty import (GenerationTrace, ScoreEvaluation, addition_prompts,  # noqa: E402
                                       evaluate_scores, greedy_generate, load_arith_model, score_generations)

MODEL = load_arith_model()
_RNG = np.random.default_rng(5)
CORRECT = _RNG.integers(0, 2, 60)
TABLE = pd.DataFrame({"glu": CORRECT + _RNG.normal(size=60), "global_term": _RNG.normal(size=60),
                      "local_term": CORRECT + _RNG.normal(size=60), "perplexity": 2 - CORRECT + _RNG.normal(size=60)})

S = apicheck.Spec
BAD_INPUT_SPECS = {
    "score_generations": S(score_generations, dict(model=MODEL, inputs=["12+7=", "3+4="], max_new_tokens=4),
                           data=("inputs",), paired=False),
    "greedy_generate": S(greedy_generate, dict(model=MODEL, prompt="12+7=", max_new_tokens=4), data=("prompt",),
                         paired=False),
    "evaluate_scores": S(evaluate_scores, dict(table=TABLE, correct=CORRECT, B=19, seed=0),
                         data=("table", "correct")),
    "addition_prompts": S(addition_prompts, dict(n=5, seed=0), data=("n",), paired=False),
}

EXEMPT = {"load_arith_model": "takes no arguments"}

RESULT_EXAMPLES = {
    "GenerationTrace": lambda: greedy_generate(MODEL, "345+78=", max_new_tokens=5),
    "ScoreEvaluation": lambda: evaluate_scores(TABLE, CORRECT, B=19, seed=0),
    "GenerationScores": lambda: score_generations(MODEL, ["12+7=", "3+4="], max_new_tokens=4),
}


@pytest.fixture(autouse=True)
def _one_thread():
    """Tiny per-token forward passes: a thread pool on a loaded machine only costs time."""
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


@pytest.mark.parametrize("func, data", [(score_generations, ["model", "inputs"]),
                                        (greedy_generate, ["model", "prompt"]),
                                        (evaluate_scores, ["table", "correct"]), (addition_prompts, ["n"])])
def test_keyword_only_after_the_data(func, data):
    params = list(inspect.signature(func).parameters.values())
    assert [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD] == data
    assert all(p.kind is p.KEYWORD_ONLY for p in params[len(data):])


def test_evaluate_scores_errors():
    with pytest.raises(ValueError, match="correct must hold 0/1"):
        evaluate_scores(TABLE, CORRECT + 1)
    with pytest.raises(ValueError, match="correct has one class only"):
        evaluate_scores(TABLE, np.ones(60, dtype=int))
    bad = TABLE.copy()
    bad.loc[3, "glu"] = np.nan
    with pytest.raises(ValueError, match="'glu' contains NaN"):
        evaluate_scores(bad, CORRECT)
    with pytest.raises(ValueError, match="orientation of \\['mystery'\\] is unknown"):
        evaluate_scores(TABLE.assign(mystery=1.0), CORRECT, scores=["glu", "mystery"])
    with pytest.raises(ValueError, match="reference='loglik'"):
        evaluate_scores(TABLE, CORRECT, reference="loglik")
    with pytest.raises(ValueError, match="p_adjust"):
        evaluate_scores(TABLE, CORRECT, p_adjust="tukey")
    with pytest.raises(TypeError, match="model"):
        score_generations(object(), ["1+1="], max_new_tokens=3)
    with pytest.raises(TypeError, match="tokenizer"):
        score_generations(torch.nn.Linear(2, 2), ["1+1="], max_new_tokens=3)
    with pytest.raises(ValueError, match="inputs"):
        score_generations(MODEL, [], max_new_tokens=3)
    with pytest.raises(ValueError, match="k=20 is larger"):
        greedy_generate(MODEL, "1+1=", max_new_tokens=3, k=20)


def test_dependence_tests_are_htests():
    from scipy.stats import rankdata, spearmanr

    from statcore import HTest

    ev = RESULT_EXAMPLES["ScoreEvaluation"]()
    a, b = ev.dependence
    x, y = TABLE[a].to_numpy(dtype=float), TABLE[b].to_numpy(dtype=float)
    test = ev.spearman_test
    assert isinstance(test, HTest) and isinstance(ev.hsic, HTest)
    # R's cor.test(method = "spearman") statistic: S = sum of squared rank differences (no ties here)
    assert len(np.unique(x)) == x.size and len(np.unique(y)) == y.size
    assert test.statistic == pytest.approx(np.sum((rankdata(x) - rankdata(y)) ** 2), rel=1e-10)
    ref = spearmanr(x, y)
    assert ev.spearman == test.estimate["rho"] == pytest.approx(ref.statistic, rel=1e-12)
    assert ev.spearman_p_value == test.p_value == pytest.approx(ref.pvalue, rel=1e-12)
    # printed by the one R printer inside the summary
    assert test.summary().strip("\n") in ev.summary() and ev.hsic.summary().strip("\n") in ev.summary()
