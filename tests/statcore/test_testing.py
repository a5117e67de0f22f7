"""statcore.testing: the calibration checks pass and fail as documented (with the rate, its standard
error, the bound and the seed in the message), draw exactly what a hand-written seeded loop draws, and
the strategies produce what they promise."""
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from scipy import stats

from statcore import gcm_test, p_adjust
from statcore.testing import (assert_coverage, assert_error_rate, assert_size, ci_triples, dag_frames, pvalues,
                              treatment_outcome)


def _t_test(x, rng):
    return stats.ttest_1samp(x, 0.0)


def _normal(rng):
    return rng.normal(size=12)


def test_assert_size_equals_a_hand_written_seeded_loop():
    res = assert_size(_t_test, _normal, alpha=0.1, reps=300, seed=7)
    rng = np.random.default_rng(7)
    p = np.array([stats.ttest_1samp(rng.normal(size=12), 0.0).pvalue for _ in range(300)])
    assert res.rates == {"value": np.mean(p <= 0.1)}
    assert res.std_errors["value"] == np.sqrt(0.1 * 0.9 / 300)
    assert res.upper["value"] == 0.1 + 3 * np.sqrt(0.1 * 0.9 / 300) and res.lower["value"] == 0.0
    # the same seed, the same answer; a Generator is used as it is
    again = assert_size(_t_test, _normal, alpha=0.1, reps=300, seed=np.random.default_rng(7))
    assert again.rates == res.rates and again.seed == "Generator"


def test_assert_size_fails_with_rate_se_bound_and_seed():
    # a one-sided p-value of a two-sided question: twice the level
    def halved(x, rng):
        return stats.ttest_1samp(x, 0.0).pvalue / 2

    msg = (r"size check failed \(seed 3\):\n  value: rejection rate 0\.\d{4} \(\d+ of 400\) exceeds the bound "
           r"0\.0827 = alpha 0\.05 \+ 3 x s\.e\. 0\.0109")
    with pytest.raises(AssertionError, match=msg):
        assert_size(halved, _normal, reps=400, seed=3)
    # exact: a test that never rejects is too conservative
    with pytest.raises(AssertionError, match=r"never: rejection rate 0\.0000 \(0 of 400\) is below 0\.0173"):
        assert_size(lambda x, rng: {"never": 1.0, "t": _t_test(x, rng)}, _normal, reps=400, seed=3, exact=True)


def test_assert_size_several_named_tests_on_the_same_draws():
    res = assert_size(lambda x, rng: {"t": _t_test(x, rng), "wilcoxon": stats.wilcoxon(x)}, _normal,
                      reps=200, seed=4)
    assert set(res.rates) == {"t", "wilcoxon"}
    with pytest.raises(ValueError, match="same names"):
        assert_size(lambda x, rng: {str(rng.integers(2)): 0.5}, _normal, reps=50, seed=1)


def test_assert_coverage_passes_fails_and_says_why():
    def t_interval(level):
        q = stats.t.ppf(0.5 + level / 2, 11)

        def covers(x, rng):
            half = q * x.std(ddof=1) / np.sqrt(x.size)
            return x.mean() - half <= 0.0 <= x.mean() + half
        return covers

    res = assert_coverage(t_interval(0.9), _normal, conf_level=0.9, reps=400, seed=5, exact=True)
    rng = np.random.default_rng(5)
    cov = np.array([t_interval(0.9)(rng.normal(size=12), rng) for _ in range(400)], dtype=float)
    assert res.rates["value"] == cov.mean()
    assert res.std_errors["value"] == pytest.approx(cov.std(ddof=1) / np.sqrt(400), rel=1e-12)
    with pytest.raises(AssertionError, match=r"value: coverage 0\.[0-9]{4} over 400 replicates is below the "
                                             r"bound 0\.[0-9]{4} = conf_level 0\.9 - 3 x s\.e\."):
        assert_coverage(t_interval(0.7), _normal, conf_level=0.9, reps=400, seed=5)
    with pytest.raises(AssertionError, match=r"exceeds .* = conf_level 0\.9 \+ 3 x s\.e\."):
        assert_coverage(t_interval(0.99), _normal, conf_level=0.9, reps=400, seed=5, exact=True)


def test_statcore_imports_without_hypothesis_and_formulaic():
    # statcore.testing imports hypothesis when a strategy is built, the formula door formulaic when a
    # formula is parsed
    code = ("import sys, statcore, statcore.testing, statcore._checks.formula; "
            "print('hypothesis' in sys.modules, 'formulaic' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False False"


@settings(max_examples=60, deadline=None)
@given(pvalues(min_size=1, max_size=40, nan=True))
def test_pvalues_strategy_and_the_na_rule_of_p_adjust(p):
    keep = ~np.isnan(p)
    assert np.all((p[keep] >= 0) & (p[keep] <= 1))
    adj = p_adjust(p, method="BH")
    assert np.array_equal(np.isnan(adj), ~keep)
    np.testing.assert_array_equal(adj[keep], p_adjust(p[keep], method="BH"))


@settings(max_examples=30, deadline=None)
@given(treatment_outcome(min_per_arm=2, max_per_arm=10))
def test_treatment_outcome_strategy(data):
    y, treat = data
    assert y.shape == treat.shape and set(np.unique(treat)) == {0.0, 1.0}
    assert 2 <= treat.sum() <= 10 and 2 <= (1 - treat).sum() <= 10


@settings(max_examples=25, deadline=None)
@given(ci_triples(min_n=20, max_n=60))
def test_ci_triples_give_valid_gcm_p_values(xyz):
    x, y, z = xyz
    assert x.shape == y.shape == (z.shape[0],) and z.ndim in (1, 2)
    if np.ptp(x) > 0 and np.ptp(y) > 0:
        try:
            p = gcm_test(x, y, z).p_value
        except ValueError as exc:  # rounded x or y explained by z exactly: refused, as documented
            assert re.search("constant", str(exc))
        else:
            assert 0.0 <= p <= 1.0


@settings(max_examples=15, deadline=None)
@given(dag_frames(min_nodes=3, max_nodes=5, min_n=400, max_n=600))
def test_dag_frames_are_acyclic_and_roots_are_independent(frame_and_dag):
    data, dag = frame_and_dag
    a = dag.to_numpy()
    assert list(data.columns) == list(dag.columns) and not np.any(np.diag(a))
    reach = np.linalg.matrix_power(a.astype(int) + np.eye(len(a), dtype=int), len(a)) > 0
    assert not np.any(reach & reach.T & ~np.eye(len(a), dtype=bool))  # no cycle
    roots = [c for c in dag.columns if not dag[c].any()]
    # two roots are independent standard normals: their correlation is within 5 / sqrt(n) of 0
    for i in range(len(roots) - 1):
        r = np.corrcoef(data[roots[i]], data[roots[i + 1]])[0, 1]
        assert abs(r) < 5 / np.sqrt(len(data))


@pytest.mark.parametrize("bad", [float("nan"), 1.5, -0.1, np.float64("nan")])
def test_assert_size_refuses_a_p_value_outside_0_1(bad):
    """A test returning NaN or 1.5 never rejects; that used to pass as "rejection rate 0, accepted"."""
    with pytest.raises(ValueError, match=r"test \(replicate 1\) returned the p-value .* not in \[0, 1\]"):
        assert_size(lambda x, rng: bad, _normal, reps=50, seed=1)
    with pytest.raises(ValueError, match=r"test \(replicate 3\)\['b'\] returned the p-value"):
        calls = iter(range(100))
        assert_size(lambda x, rng: {"a": 0.5, "b": bad if next(calls) == 2 else 0.5}, _normal, reps=50, seed=1)


@pytest.mark.parametrize("bad", [float("nan"), 1.5, -0.1])
def test_assert_coverage_refuses_a_coverage_outside_0_1(bad):
    with pytest.raises(ValueError, match=r"covers \(replicate 1\) returned the coverage .* not in \[0, 1\]"):
        assert_coverage(lambda x, rng: bad, _normal, reps=50, seed=1)
    with pytest.raises(TypeError, match=r"covers \(replicate 1\) must return True/False"):
        assert_coverage(lambda x, rng: "yes", _normal, reps=50, seed=1)


# ---------------------------------------------------------------------------------------------
# per-replicate seeds, the standard-error rules and error rates (FDR)
# ---------------------------------------------------------------------------------------------

def _seeded_normal(s):
    return np.random.default_rng([11, s]).normal(size=12)


def _seeded_perm_test(x, s):
    """A sign-flip test seeded by the replicate's own seed, as hand-written loops call seed=rep."""
    flips = np.random.default_rng(s).choice([-1.0, 1.0], size=(199, x.size))
    t = abs(x.mean())
    return (1 + np.sum(np.abs(flips @ x / x.size) >= t)) / 200


def test_seeds_hand_each_replicate_its_own_seed_as_a_hand_written_loop_does():
    res = assert_size(_seeded_perm_test, _seeded_normal, alpha=0.1, seeds=range(300))
    p = np.array([_seeded_perm_test(_seeded_normal(rep), rep) for rep in range(300)])
    assert res.reps == 300 and res.rates == {"value": np.mean(p <= 0.1)}
    assert res.upper["value"] == 0.1 + 3 * np.sqrt(0.1 * 0.9 / 300) and res.seed.startswith("per-replicate seeds 0")
    # order-free: two workers give the same rate; the seeds may be any objects the callables take
    assert assert_size(_seeded_perm_test, _seeded_normal, alpha=0.1, seeds=range(300), n_jobs=2).rates == res.rates
    seq = [np.random.SeedSequence(k) for k in range(50)]
    assert assert_size(lambda x, s: 0.5, lambda s: np.random.default_rng(s).normal(size=3), seeds=seq).reps == 50


def test_seeds_fail_on_an_inflated_test_and_a_low_coverage():
    with pytest.raises(AssertionError, match=r"rejection rate 0\.\d{4} \(\d+ of 300\) exceeds the bound 0\.1520 = "
                                             r"alpha 0\.1 \+ 3 x s\.e\. 0\.0173 \(nominal s\.e\.\)"):
        assert_size(lambda x, s: _seeded_perm_test(x, s) / 3, _seeded_normal, alpha=0.1, seeds=range(300))
    with pytest.raises(AssertionError, match=r"coverage check failed \(seed per-replicate seeds 0, \.\.\., 199\)"):
        assert_coverage(lambda x, s: _seeded_perm_test(x, s) > 0.3, _seeded_normal, conf_level=0.9,
                        seeds=range(200))


def test_nominal_coverage_bound_is_the_binomial_at_the_level():
    def covers(x, rng):
        half = stats.t.ppf(0.95, 11) * x.std(ddof=1) / np.sqrt(x.size)
        return abs(x.mean()) <= half

    res = assert_coverage(covers, _normal, conf_level=0.9, reps=400, seed=5, std_error="nominal")
    assert res.std_errors["value"] == pytest.approx(0.015, rel=1e-14)          # sqrt(0.9 x 0.1 / 400)
    assert res.lower["value"] == pytest.approx(0.9 - 3 * 0.015, rel=1e-14) and res.upper["value"] == 1.0
    obs = assert_coverage(covers, _normal, conf_level=0.9, reps=400, seed=5).std_errors["value"]
    larger = assert_coverage(covers, _normal, conf_level=0.9, reps=400, seed=5, std_error="larger")
    assert larger.std_errors["value"] == max(obs, res.std_errors["value"]) and larger.rates == res.rates
    # a 70% interval fails the nominal bound, and says which standard error it used
    with pytest.raises(AssertionError, match=r"is below the bound 0\.8550 = conf_level 0\.9 - 3 x s\.e\. 0\.0150 "
                                             r"\(nominal s\.e\.\)"):
        assert_coverage(lambda x, rng: abs(x.mean()) <= 1.04 * x.std(ddof=1) / np.sqrt(x.size), _normal,
                        conf_level=0.9, reps=400, seed=5, std_error="nominal")


def _fdr_draw(rng):
    signal = rng.random(300) < 0.2
    z = rng.normal(size=300) + 3.0 * signal
    return stats.norm.sf(z), signal


def _fdp(rule):
    def error(data, rng):
        p, signal = data
        sel = rule(p)
        return (sel & ~signal).sum() / max(sel.sum(), 1)
    return error


def test_assert_error_rate_is_the_mean_fdp_and_fails_an_uncorrected_rule():
    bh = _fdp(lambda p: p_adjust(p, method="BH") <= 0.1)
    res = assert_error_rate(bh, _fdr_draw, alpha=0.1, reps=300, seed=6)
    rng = np.random.default_rng(6)
    fdps = np.array([bh(_fdr_draw(rng), rng) for _ in range(300)])
    assert res.quantity == "error rate" and res.rates["value"] == fdps.mean()
    assert res.std_errors["value"] == pytest.approx(fdps.std(ddof=1) / np.sqrt(300), rel=1e-12)
    assert res.upper["value"] == 0.1 + 3 * res.std_errors["value"] and res.lower["value"] == 0.0
    assert "mean error" in res.summary()
    # BH controls at pi0 alpha = 0.08, not 0.1: exact around 0.1 fails from below
    with pytest.raises(AssertionError, match=r"value: mean error 0\.0\d{3} over 300 replicates is below the bound"):
        assert_error_rate(bh, _fdr_draw, alpha=0.1, reps=300, seed=6, exact=True)
    # unadjusted p-values at 0.1: an FDR near 0.3, far above the bound
    with pytest.raises(AssertionError, match=r"raw: mean error 0\.[2-4]\d{3} over 300 replicates exceeds the bound"):
        assert_error_rate(lambda d, rng: {"bh": bh(d, rng), "raw": _fdp(lambda p: p <= 0.1)(d, rng)}, _fdr_draw,
                          alpha=0.1, reps=300, seed=6)
    # a FWER as True/False with the nominal binomial bound
    fw = assert_error_rate(lambda d, rng: bool(np.any((p_adjust(d[0], method="holm") <= 0.1) & ~d[1])), _fdr_draw,
                           alpha=0.1, reps=300, seed=6, std_error="nominal")
    assert fw.std_errors["value"] == np.sqrt(0.1 * 0.9 / 300)


@pytest.mark.parametrize("bad", [float("nan"), 1.5, -0.1])
def test_assert_error_rate_refuses_an_error_outside_0_1(bad):
    with pytest.raises(ValueError, match=r"error \(replicate 1\) returned the error .* not in \[0, 1\]"):
        assert_error_rate(lambda x, rng: bad, _normal, reps=50, seed=1)
    with pytest.raises(ValueError, match=r"test \(replicate 2\) returned the p-value"):
        assert_size(lambda x, s: bad if s == 1 else 0.5, _seeded_normal, seeds=range(5))
    with pytest.raises(TypeError, match=r"error \(replicate 1\) must return True/False"):
        assert_error_rate(lambda x, rng: "yes", _normal, reps=50, seed=1)


@pytest.mark.parametrize("call, exc, match", [
    (lambda: assert_size(_t_test, _normal, seed=1, seeds=range(5)), ValueError, "not both"),
    (lambda: assert_size(_t_test, _seeded_normal, reps=4, seeds=range(5)), ValueError, r"reps \(4\) must equal"),
    (lambda: assert_size(_t_test, _seeded_normal, seeds="abc"), TypeError, "seeds"),
    (lambda: assert_size(_t_test, _seeded_normal, seeds=5), TypeError, "seeds"),
    (lambda: assert_coverage(lambda x, s: True, _seeded_normal, seeds=[1]), ValueError, "at least 2"),
    (lambda: assert_size(_t_test, _normal, seed=1, reps=5, n_jobs=2), ValueError, "n_jobs .* needs seeds"),
    (lambda: assert_size(_t_test, _normal, seed=1, reps=5, n_jobs=0), ValueError, "n_jobs"),
    (lambda: assert_size(_t_test, _normal, seed=1, reps=5, std_error="binomial"), ValueError, "std_error"),
    (lambda: assert_error_rate(_t_test, _normal, alpha=0.0), ValueError, "alpha"),
    (lambda: assert_error_rate("f", _normal), TypeError, "error"),
])
def test_seeds_n_jobs_and_std_error_arguments(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_vectorized_checks_a_simulation_computed_as_arrays():
    # 4000 families of 20 uniforms at once: the draws of the vectorised code, one p-value per family
    def min_p(u, rng):
        return {"bonferroni": np.minimum(1.0, 20 * u.min(axis=1)), "min_p": u.min(axis=1)}

    res = assert_size(lambda u, rng: {"bonferroni": min_p(u, rng)["bonferroni"]}, lambda rng: rng.uniform(size=(4000, 20)),
                      alpha=0.05, seed=9, vectorized=True)
    u = np.random.default_rng(9).uniform(size=(4000, 20))
    assert res.reps == 4000 and res.rates["bonferroni"] == np.mean(np.minimum(1, 20 * u.min(axis=1)) <= 0.05)
    # the unadjusted minimum rejects 1 - 0.95^20 = 64% of families
    with pytest.raises(AssertionError, match=r"min_p: rejection rate 0\.6\d{3} \(\d+ of 4000\) exceeds"):
        assert_size(min_p, lambda rng: rng.uniform(size=(4000, 20)), alpha=0.05, seed=9, vectorized=True)
    cov = assert_coverage(lambda z, rng: np.abs(z) <= 1.959964, lambda rng: rng.normal(size=3000), seed=2,
                          vectorized=True, exact=True, std_error="nominal")
    assert cov.reps == 3000 and cov.std_errors["value"] == pytest.approx(np.sqrt(0.95 * 0.05 / 3000), rel=1e-12)


@pytest.mark.parametrize("out, exc, match", [
    (np.array([0.5, np.nan, 0.2]), ValueError, r"test \(replicate 2\) returned the p-value nan"),
    (np.array([0.5, 0.1, 1.5]), ValueError, r"test \(replicate 3\) returned the p-value 1\.5"),
    (np.array([True, False]), TypeError, "must return a p-value"),
    (np.array(["a", "b"]), TypeError, "must return a p-value"),
    (np.zeros((3, 2)), ValueError, "one value per replicate"),
    (np.zeros(5), ValueError, r"a vector of length 4"),
])
def test_vectorized_refuses_what_is_not_one_p_value_per_replicate(out, exc, match):
    reps = 4 if out.shape == (5,) else None
    with pytest.raises(exc, match=match):
        assert_size(lambda d, rng: out, lambda rng: None, seed=1, reps=reps, vectorized=True)
    with pytest.raises(ValueError, match="not seeds"):
        assert_size(lambda d, rng: out, lambda s: None, seeds=range(3), vectorized=True)
