"""evaluate_scores' n_jobs (the HSIC permutation kernel's threads) never changes the answer."""
import numpy as np
import pandas as pd
import pytest

pytest.importorskip("torch")

from learncore.llm_uncertainty import evaluate_scores  # noqa: E402


def test_evaluate_scores_n_jobs_two_equals_one():
    rng = np.random.default_rng(29)
    correct = rng.integers(0, 2, 150)
    table = pd.DataFrame({"glu": correct + rng.normal(size=150), "perplexity": rng.normal(size=150),
                          "global_term": rng.normal(size=150), "local_term": rng.normal(size=150)})
    ev = [evaluate_scores(table, correct, B=1500, seed=2, n_jobs=j) for j in (1, 2)]
    assert ev[0].hsic is not None and ev[0].hsic.p_value == ev[1].hsic.p_value
    with pytest.raises(ValueError, match="n_jobs"):
        evaluate_scores(table, correct, n_jobs=0)
