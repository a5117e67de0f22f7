"""statcore.testing's API: bad inputs of the calibration checks and the strategies, and the result
protocol of Calibration."""
import pytest

import apicheck
from statcore.testing import (Calibration, assert_coverage, assert_error_rate, assert_size, ci_triples, dag_frames,
                              pvalues, treatment_outcome)


def _p(x, rng):
    return 0.5


def _sample(rng):
    return rng.normal(size=5)


def _covers(x, rng):
    return bool(rng.random() < 0.99)


def _error(x, rng):
    return 0.0


BAD_INPUT_SPECS = {
    # a sampler's draws are data: NaN draws go to the test, which here returns a valid p-value
    "assert_size": apicheck.Spec(assert_size, {"test": _p, "null_sampler": _sample, "reps": 20, "seed": 1},
                                 data=("test", "null_sampler"), paired=False, ok={("null_sampler", "nan_callable")}),
    "assert_coverage": apicheck.Spec(assert_coverage, {"covers": _covers, "sampler": _sample, "reps": 20,
                                                       "conf_level": 0.9, "seed": 1},
                                     data=("covers", "sampler"), paired=False, ok={("sampler", "nan_callable")}),
    "assert_error_rate": apicheck.Spec(assert_error_rate, {"error": _error, "sampler": _sample, "reps": 20,
                                                           "alpha": 0.1, "seed": 1},
                                       data=("error", "sampler"), paired=False, ok={("sampler", "nan_callable")}),
}

#: the strategies take sizes, not data: their checks are below
EXEMPT = {"pvalues": "sizes only (test_strategy_arguments)", "treatment_outcome": "sizes only",
          "ci_triples": "sizes only", "dag_frames": "sizes only"}

RESULT_EXAMPLES = {
    "Calibration": lambda: assert_size(lambda d, rng: {"t": 0.5, "u": rng.random()}, _sample, reps=50, seed=2),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_input_sweep(name):
    assert apicheck.sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    apicheck.check_result_protocol(RESULT_EXAMPLES[name]())


def test_calibration_of_coverage_follows_the_protocol():
    res = assert_coverage(_covers, _sample, conf_level=0.9, reps=30, seed=1)
    assert isinstance(res, Calibration)
    apicheck.check_result_protocol(res)
    err = assert_error_rate(_error, lambda s: None, alpha=0.1, seeds=range(30))
    assert isinstance(err, Calibration) and err.quantity == "error rate"
    apicheck.check_result_protocol(err)


@pytest.mark.parametrize("call, exc, match", [
    (lambda: pvalues(min_size=5, max_size=2), ValueError, "max_size"),
    (lambda: pvalues(ties=(0.5, 2.0)), ValueError, "ties"),
    (lambda: pvalues(nan="yes"), TypeError, "nan"),
    (lambda: treatment_outcome(min_per_arm=0), ValueError, "min_per_arm"),
    (lambda: ci_triples(max_dz=0), ValueError, "max_dz"),
    (lambda: ci_triples(ties=1), TypeError, "ties"),
    (lambda: dag_frames(density=1.5), ValueError, "density"),
    (lambda: dag_frames(min_n="a"), TypeError, "min_n"),
    (lambda: assert_size(_p, _sample, alpha=1.0), ValueError, "alpha"),
    (lambda: assert_size(_p, _sample, reps=0), ValueError, "reps"),
    (lambda: assert_size(_p, _sample, n_se=-1), ValueError, "n_se"),
    (lambda: assert_size(_p, _sample, exact="no"), TypeError, "exact"),
    (lambda: assert_size(lambda d, rng: "x", _sample, reps=3), TypeError, "test"),
    (lambda: assert_size(lambda d, rng: float("nan"), _sample, reps=3), ValueError, "test"),
    (lambda: assert_coverage(lambda d, rng: 2.0, _sample, reps=3), ValueError, "covers"),
    (lambda: assert_coverage(lambda d, rng: "x", _sample, reps=3), TypeError, "covers"),
    (lambda: assert_coverage(_covers, _sample, conf_level=0.0), ValueError, "conf_level"),
    (lambda: assert_error_rate(lambda d, rng: 1.5, _sample, reps=3), ValueError, "error"),
    (lambda: assert_error_rate(_error, _sample, reps=3, std_error=1), (TypeError, ValueError), "std_error"),
    (lambda: assert_size(_p, _sample, seeds=range(3), seed=1), ValueError, "seeds"),
])
def test_strategy_and_check_arguments(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
