"""learncore.deepgp's public API: the bad-input sweep of every public function and the result protocol
of every result class (docs/conventions.md)."""
import numpy as np
import pytest

from helpers import require_torch, requires_r, run_r

torch = require_torch()
torch.set_num_threads(1)

import apicheck  # noqa: E402
import statcore  # noqa: E402
import learncore.deepgp as dg  # noqa: E402
from learncore.deepgp import (bandwidth_threshold, count_modes, distance_chain, limit_distribution,  # noqa: E402
                              lyapunov_exponent, sample_deep_gp, threshold_scan)

S = apicheck.Spec
X = np.array([[0.0, 0.0], [0.5, 0.1], [1.0, -0.3]])
SAMPLE = np.random.default_rng(0).normal(size=40)
BAD_INPUT_SPECS = {
    "sample_deep_gp": S(sample_deep_gp, dict(X=X, depth=2, r=0.7, n_samples=2, seed=0), data=("X",), paired=False),
    # scalar parameters take the generic kinds (string, None); the grid arguments the numeric ones
    "distance_chain": S(distance_chain, dict(r=0.7, d=2, depth=3, n_chains=5, seed=0), data=("r", "d"),
                        paired=False),
    "lyapunov_exponent": S(lyapunov_exponent, dict(r=0.7, d=2), data=("r", "d"), paired=False),
    "bandwidth_threshold": S(bandwidth_threshold, dict(d=2), data=("d",), paired=False),
    # any positive dimension is a valid chain (d = 10**9 included)
    "threshold_scan": S(threshold_scan, dict(ds=[1, 2], rs=[0.5, 2.0], depth=5, n_chains=5, seed=0),
                        data=("ds", "rs"), paired=False, ok={("ds", "huge_id")}),
    "limit_distribution": S(limit_distribution, dict(d=2, r=0.7, depth=3, n_samples=30, B=9, seed=0),
                            data=("d", "r"), paired=False),
    "count_modes": S(count_modes, dict(x=SAMPLE, B=9, seed=0), data=("x",), paired=False),
}

EXEMPT: dict = {}

RESULT_EXAMPLES = {
    "DeepGPSample": lambda: sample_deep_gp(X, depth=2, r=0.7, n_samples=2, keep_layers=True, seed=0),
    "DistanceChain": lambda: distance_chain(0.7, 2, depth=5, n_chains=20, seed=0),
    "LyapunovExponent": lambda: lyapunov_exponent(0.7, 2, method="monte_carlo", n_chains=50, depth=10, seed=0),
    "BandwidthThreshold": lambda: bandwidth_threshold(3, method="monte_carlo", n_chains=50, depth=10, seed=0),
    "ThresholdScan": lambda: threshold_scan([1, 2], [0.8, 1.25], relative=True, depth=20, n_chains=10, seed=0),
    "LimitDistribution": lambda: limit_distribution(0.7, 2, depth=5, n_samples=40, B=9, seed=0),
    "ModeCount": lambda: count_modes(SAMPLE, B=9, seed=0),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_input_sweep(name):
    assert apicheck.sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    apicheck.check_result_protocol(RESULT_EXAMPLES[name]())


def test_every_public_callable_is_registered():
    funcs = [n for n in dg.__all__ if callable(getattr(dg, n)) and not isinstance(getattr(dg, n), type)]
    assert sorted(set(funcs) - set(BAD_INPUT_SPECS) - set(EXEMPT)) == []
    results = [n for n in dg.__all__ if isinstance(getattr(dg, n), type) and issubclass(getattr(dg, n), statcore.Result)]
    assert sorted(results) == sorted(RESULT_EXAMPLES)


def test_exact_results_print_and_tabulate():
    ex = lyapunov_exponent(0.7, 2)
    assert ex.std_error is None and "closed form" in ex.summary()
    th = bandwidth_threshold(10)
    assert th.conf_low is None and th.to_frame().loc[0, "estimate"] == th.estimate
    assert repr(th).startswith("BandwidthThreshold(estimate=3.003")


def test_sampler_refuses_bad_options():
    with pytest.raises(ValueError, match="method"):
        sample_deep_gp(X, depth=1, r=1.0, method="svd")
    with pytest.raises(TypeError, match="keep_layers"):
        sample_deep_gp(X, depth=1, r=1.0, keep_layers="yes")
    with pytest.raises(ValueError, match="layer"):
        sample_deep_gp(X, depth=1, r=1.0).pairwise_distances(1)
    with pytest.raises(ValueError, match="n_samples"):
        limit_distribution(0.7, 2, depth=2, n_samples=10)
    with pytest.raises(ValueError, match="kind"):
        limit_distribution(0.7, 2, depth=2, kind="sum")
    with pytest.raises(ValueError, match="floor"):
        threshold_scan([1], [1.0], depth=2, floor=1.5)


def test_inputs_are_not_modified_and_tensors_accepted():
    Xt = torch.tensor(X)
    before = Xt.clone()
    res = sample_deep_gp(Xt, depth=2, r=0.7, seed=0)
    assert torch.equal(Xt, before) and res.images.shape == (1, 3, 2)


def test_limit_distribution_tests_are_htests():
    from statcore import HTest

    res = RESULT_EXAMPLES["LimitDistribution"]()
    for test in (res.corr_test, res.dhsic, res.dcor):
        assert isinstance(test, HTest) and test.summary().strip("\n") in res.summary()
    z = res.samples[:, :2]
    assert res.corr_test.estimate["cor"] == pytest.approx(np.corrcoef(z, rowvar=False)[0, 1], rel=1e-12)
    assert res.corr_p == res.corr_test.p_value
    assert list(res.to_frame().columns[2:4]) == ["kurtosis_p_value", "normality_p_value"]


@requires_r()
@pytest.mark.r
def test_limit_distribution_correlation_test_matches_r_cor_test():
    from learncore.deepgp.limit import _cor_test

    rng = np.random.default_rng(11)
    x = rng.normal(size=57)
    y = 0.3 * x + rng.normal(size=57)
    ours = _cor_test(float(np.corrcoef(x, y)[0, 1]), x.size)
    out = run_r("x <- c(" + ",".join(f"{v:.17g}" for v in x) + "); y <- c(" + ",".join(f"{v:.17g}" for v in y) + ")\n"
                "h <- cor.test(x, y); cat(sprintf('%.17g', c(h$statistic, h$parameter, h$p.value, h$estimate, "
                "h$conf.int)), sep = '\\n')")
    t, df, p, est, lo, hi = (float(v) for v in out.split())
    assert ours.statistic == pytest.approx(t, rel=1e-10) and ours.parameter["df"] == df
    assert ours.p_value == pytest.approx(p, rel=1e-8) and ours.estimate["cor"] == pytest.approx(est, rel=1e-12)
    assert ours.conf_int == pytest.approx((lo, hi), rel=1e-10)
