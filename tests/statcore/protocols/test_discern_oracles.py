"""Oracles of the information-discernment protocol (statcore.weight_of_advice, statcore.discernment):
closed forms, the cluster bootstrap's weighted Spearman against scipy on the resample written out, and
seeded simulations whose truth is known (the design of benchmarks/_discern_study.py, smaller):

- a Bayesian agent (weight of advice s0^2 / (s0^2 + s^2) exactly) has source discernment 1, passes the
  source axiom, and the popularity axiom's test rejects at most at its size;
- a popularity-biased agent (weight + gamma * popularity) fails the popularity axiom with power going to 1
  in the number of questions, and the CR2 interval of beta_popularity covers gamma at its level.
"""
import numpy as np
import pytest
from scipy import stats

import statcore as sc
from statcore.protocols._discern import _ClusterDraw, _SpearmanTriple
from statcore.testing import assert_coverage, assert_size


def simulate(rng, n_questions, *, n_sources=4, gamma=0.0, noise=0.0, s0=1.0):
    """As benchmarks/_discern_study.py's simulate."""
    n = n_questions * n_sources
    q = np.repeat(np.arange(n_questions), n_sources)
    theta = rng.normal(size=n_questions)[q]
    prior = theta + s0 * rng.normal(size=n_questions)[q]
    s = s0 * rng.uniform(0.5, 3.0, n)
    claim = theta + s * rng.normal(size=n)
    pop = rng.uniform(size=n)
    w_bayes = s0 ** 2 / (s0 ** 2 + s ** 2)
    w = w_bayes + gamma * pop
    if noise > 0:
        w = w + noise * (rng.normal(size=n_questions)[q] + rng.normal(size=n))
    post = prior + w * (claim - prior)
    woa = sc.weight_of_advice(prior, post, claim)
    gain = np.abs(prior - theta) - np.abs(claim - theta)
    return dict(woa=woa, reliability=1.0 / s, improvement=gain, popularity=pop, cluster=q, w_bayes=w_bayes)


def analyse(d, B=19, seed=0):
    return sc.discernment(d["woa"], d["reliability"], d["improvement"], d["popularity"], cluster=d["cluster"],
                          B=B, seed=seed)


def test_weight_of_advice_closed_form():
    prior = np.array([10.0, -2.0, 0.5, 3.0])
    claim = np.array([20.0, 2.0, -0.5, 1.0])
    w = np.array([0.25, 1.0, 0.0, 1.7])
    post = prior + w * (claim - prior)
    np.testing.assert_allclose(sc.weight_of_advice(prior, post, claim), w, rtol=0, atol=1e-14)
    np.testing.assert_allclose(sc.weight_of_advice(prior, post, claim, clip=True), np.clip(w, 0, 1), atol=1e-14)
    assert sc.weight_of_advice(1.0, 1.5, 3.0) == 0.25               # scalars give a float


def test_weight_of_advice_bayes_exact():
    """The Bayesian posterior mean m + s0^2/(s0^2+s^2) (c - m) has weight of advice s0^2/(s0^2+s^2)."""
    rng = np.random.default_rng(7)
    d = simulate(rng, 30)
    np.testing.assert_allclose(d["woa"], d["w_bayes"], rtol=1e-9, atol=1e-12)


def test_claim_equal_prior_refused():
    with pytest.raises(ValueError, match="claim"):
        sc.weight_of_advice([1.0, 2.0], [1.5, 2.5], [3.0, 2.0])


def test_nan_propagates_on_request():
    out = sc.weight_of_advice([1.0, np.nan], [1.5, 2.5], [3.0, 4.0], nan_policy="propagate")
    assert out[0] == 0.25 and np.isnan(out[1])
    with pytest.raises(ValueError, match="prior"):
        sc.weight_of_advice([1.0, np.nan], [1.5, 2.5], [3.0, 4.0])


def test_bootstrap_spearman_equals_scipy_on_the_resample_written_out():
    rng = np.random.default_rng(3)
    q = np.repeat(np.arange(6), 5)
    arrays = {"woa": np.round(rng.normal(size=30), 1), "reliability": rng.integers(0, 4, 30).astype(float),
              "improvement": rng.normal(size=30), "popularity": np.round(rng.uniform(size=30), 1)}
    counts = _ClusterDraw(6)(np.random.default_rng(0), 5)
    got = _SpearmanTriple(arrays, q)(counts)
    for b in range(5):
        idx = np.concatenate([np.flatnonzero(q == j) for j in range(6) for _ in range(int(counts[b, j]))])
        for k, other in enumerate(("reliability", "improvement", "popularity")):
            ref = stats.spearmanr(arrays["woa"][idx], arrays[other][idx]).statistic
            assert got[b, k] == pytest.approx(ref, abs=1e-12)


def test_same_seed_same_answer_and_estimate_is_scipy():
    d = simulate(np.random.default_rng(1), 15, noise=0.1)
    a, b = analyse(d, B=99, seed=4), analyse(d, B=99, seed=4)
    assert a == b
    assert a.correlations.loc["popularity", "estimate"] == pytest.approx(
        stats.spearmanr(d["woa"], d["popularity"]).statistic, abs=1e-14)


def test_bayes_agent_source_discernment_one():
    d = simulate(np.random.default_rng(11), 40)
    res = analyse(d, B=199, seed=2)
    c = res.correlations
    assert c.loc["source", "estimate"] == pytest.approx(1.0, abs=1e-12)
    assert c.loc["source", "conf_low"] == pytest.approx(1.0, abs=1e-12)
    assert res.passes == {"source": True, "truth": True, "popularity": True}


@pytest.mark.slow
def test_bayes_agent_popularity_axiom_size():
    """The Bayesian agent never relies on popularity: the popularity test rejects at most at alpha."""
    assert_size(lambda d, rng: analyse(d).axioms["popularity"], lambda rng: simulate(rng, 20),
                alpha=0.05, reps=200, seed=20261205)


def test_biased_agent_power_grows():
    """gamma = 0.1: the rejection rate of the popularity test grows with the questions and is near 1 at 160."""
    rng = np.random.default_rng(5)
    rates = []
    for nq in (10, 160):
        rates.append(np.mean([not analyse(simulate(rng, nq, gamma=0.1, noise=0.1)).passes["popularity"]
                              for _ in range(40)]))
    assert rates[1] >= 0.95 and rates[1] > rates[0] + 0.3


@pytest.mark.slow
def test_biased_agent_gamma_coverage():
    """The CR2 interval of beta_popularity covers gamma in ~95% of seeded runs (nominal - 3 s.e.)."""
    def covers(d, rng):
        row = analyse(d).coefficients.loc["popularity"]
        return bool(row["conf_low"] <= 0.1 <= row["conf_high"])

    assert_coverage(covers, lambda rng: simulate(rng, 20, gamma=0.1, noise=0.1), conf_level=0.95, reps=200,
                    seed=33, std_error="larger")


def test_reliance_ratio_recovers_bias():
    """Linear agent woa = 0.5 rel + 0.2 pop + noise: the reliance ratio's set holds 0.4."""
    rng = np.random.default_rng(9)
    q = np.repeat(np.arange(60), 5)
    rel, pop, imp = rng.uniform(size=300), rng.uniform(size=300), rng.normal(size=300)
    woa = 0.5 * rel + 0.2 * pop + 0.05 * rng.normal(size=60)[q] + 0.05 * rng.normal(size=300)
    res = sc.discernment(woa, rel, imp, pop, cluster=q, B=49, seed=0)
    assert res.reliance.contains(0.4)
    assert res.coefficients.loc["popularity", "estimate"] == pytest.approx(0.2, abs=0.03)
    assert not res.passes["popularity"]


def test_pandas_in_series_out_and_frame_columns():
    import pandas as pd

    d = simulate(np.random.default_rng(2), 12, noise=0.05)
    df = pd.DataFrame({k: d[k] for k in ("woa", "reliability", "improvement", "popularity", "cluster")},
                      index=[f"t{i}" for i in range(48)])
    prior = pd.Series(np.arange(48.0), index=df.index)
    w = sc.weight_of_advice(prior, prior + 0.5, prior + 2.0)
    assert isinstance(w, pd.Series) and list(w.index) == list(df.index) and np.allclose(w, 0.25)
    a = sc.discernment(df.woa, df.reliability, df.improvement, df.popularity, cluster=df.cluster, B=49, seed=0)
    b = analyse(d, B=49, seed=0)
    assert a == b


def simulate_tied(rng, n_questions):
    """The Bayesian agent with popularity tied to reliability: (1 - c) U + c (3 - s) / 2.5, c = 1/2."""
    d = simulate(rng, n_questions)
    s = 1.0 / d["reliability"]
    d["popularity"] = 0.5 * d["popularity"] + 0.5 * (3.0 - s) / 2.5
    return d


@pytest.mark.slow
def test_spline_reliability_keeps_size_when_popularity_tracks_reliability():
    """The Bayesian weight 1 / (1 + s^2) is not linear in 1 / s: with popularity tied to reliability the
    linear test rejects (the caveat), the cubic spline (reliability_df=4) holds the level."""
    def test(d, rng):
        return sc.discernment(d["woa"], d["reliability"], d["improvement"], d["popularity"], cluster=d["cluster"],
                              B=9, seed=0, reliability_df=4).axioms["popularity"]

    assert_size(test, lambda rng: simulate_tied(rng, 20), alpha=0.05, reps=150, seed=404)
    d = simulate_tied(np.random.default_rng(1), 80)
    assert not analyse(d).passes["popularity"]                  # the linear test's bias, at 80 questions


def test_spline_columns_and_no_reliance_ratio():
    d = simulate(np.random.default_rng(4), 15, noise=0.05)
    res = sc.discernment(d["woa"], d["reliability"], d["improvement"], d["popularity"], cluster=d["cluster"],
                         B=19, seed=0, reliability_df=5)
    assert list(res.coefficients.index) == ["const", "reliability", "popularity", "improvement",
                                            "reliability_s1", "reliability_s2", "reliability_s3",
                                            "reliability_s4"]
    assert res.reliance is None and "reliance ratio" not in res.summary()
