"""Precision/recall/density/coverage against the reference implementation of Naeem et al. (the
``prdc`` package) and brute force; rank stability against scipy (Kendall tau_b, Friedman's test)."""
import numpy as np
import pandas as pd
import pytest

import statcore as sc

from statcore import prdc, rank_stability


def _brute(real, fake, k):
    d_rr = np.sqrt(((real[:, None] - real[None]) ** 2).sum(-1))
    d_ff = np.sqrt(((fake[:, None] - fake[None]) ** 2).sum(-1))
    d_rf = np.sqrt(((real[:, None] - fake[None]) ** 2).sum(-1))
    r_real = np.sort(d_rr, axis=1)[:, k]  # column 0 is the point itself
    r_fake = np.sort(d_ff, axis=1)[:, k]
    inside = d_rf < r_real[:, None]
    return dict(precision=inside.any(axis=0).mean(), recall=(d_rf.T < r_fake[:, None]).any(axis=0).mean(),
                density=inside.sum() / (k * fake.shape[0]), coverage=(d_rf.min(axis=1) < r_real).mean())


@pytest.mark.parametrize("k", [3, 5])
def test_prdc_equals_reference_package_and_brute_force(k):
    rng = np.random.default_rng(k)
    real = rng.normal(size=(300, 6))
    fake = rng.normal(0.3, 0.8, size=(250, 6))
    res = prdc(real, fake, k=k, chunk_size=64)  # small chunks: several blocks in both directions
    want = _brute(real, fake, k)
    for key, value in want.items():
        assert getattr(res, key) == pytest.approx(value, abs=1e-12), key
    peer = pytest.importorskip("prdc")
    ref = peer.compute_prdc(real_features=real, fake_features=fake, nearest_k=k)
    for key, value in ref.items():
        assert getattr(res, key) == pytest.approx(value, abs=1e-12), key


def test_prdc_identical_samples():
    x = np.random.default_rng(0).normal(size=(100, 3))
    res = prdc(x, x.copy(), k=3)
    assert res.precision == 1.0 and res.recall == 1.0 and res.coverage == 1.0


# ----------------------------------------------------------------------------------------------
# rank stability
# ----------------------------------------------------------------------------------------------

TABLE = pd.DataFrame({"inception": [10.0, 12.0, 15.0, 30.0, 12.0],
                      "clip": [5.0, 4.0, 9.0, 11.0, 6.0],
                      "dinov2": [100.0, 90.0, 140.0, 150.0, 200.0],
                      "vgg": [1.0, 2.0, 3.0, 4.0, 5.0]},
                     index=["gan", "diffusion", "vae", "flow", "ar"])


def test_kendall_tau_b_and_w_against_scipy():
    from scipy import stats
    res = rank_stability(TABLE)
    for a in TABLE.columns:
        for b in TABLE.columns:
            assert res.tau.loc[a, b] == pytest.approx(stats.kendalltau(TABLE[a], TABLE[b]).statistic, abs=1e-14)
    # Friedman's test with protocols as blocks and models as treatments is m (n - 1) W (with ties)
    fried = stats.friedmanchisquare(*TABLE.to_numpy())
    assert res.statistic == pytest.approx(fried.statistic, rel=1e-12)
    assert res.p_value == pytest.approx(fried.pvalue, rel=1e-12)
    m, n = TABLE.shape[1], TABLE.shape[0]
    assert res.w == pytest.approx(fried.statistic / (m * (n - 1)), rel=1e-12)
    assert res.df == n - 1
    # the test is an HTest, printed by the one R printer inside the summary (DescTools::KendallW's htest)
    assert isinstance(res.w_test, sc.HTest) and res.w_test.estimate == {"W": res.w}
    assert res.w_test.summary().strip("\n") in res.summary()
    # rank range: inception ranks gan 1, diffusion/ar tied 2.5, vae 4, flow 5
    assert res.ranks["inception"].tolist() == [1.0, 2.5, 4.0, 5.0, 2.5]
    rr = res.rank_range()
    assert rr.loc["ar", "best_rank"] == 2.5 and rr.loc["ar", "worst_rank"] == 5.0
    higher = rank_stability(-TABLE, lower_is_better=False)
    assert higher.ranks.equals(res.ranks)


def test_perfect_agreement_gives_w_one():
    t = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [10.0, 20.0, 30.0], "c": [0.1, 0.2, 0.3]})
    res = rank_stability(t)
    assert res.w == pytest.approx(1.0) and np.allclose(res.tau.to_numpy(), 1.0)


def test_swap_probabilities_resample_the_samples():
    """Three models whose per-sample losses differ in mean: the score of a model under a protocol is
    the mean of its per-sample values (protocol = a transformation). The swap probability of a pair
    is the bootstrap share of resamples that reverse the observed order: checked against the same
    bootstrap written out, and near 0 for a well-separated pair, near 1/2 for equal models."""
    rng = np.random.default_rng(3)
    n = 200
    samples = {"good": rng.normal(0.0, 1, n), "twin": rng.normal(0.0, 1, n), "bad": rng.normal(1.0, 1, n)}
    protocols = {"raw": lambda v: v, "cube": lambda v: v ** 3}

    def score(model, protocol, idx):
        return float(protocols[protocol](samples[model][idx]).mean())

    table = pd.DataFrame({p: [score(m, p, np.arange(n)) for m in samples] for p in protocols}, index=list(samples))
    res = rank_stability(table, score=score, n_samples=n, B=200, seed=5)
    sw = res.swap.set_index(["protocol", "model_a", "model_b"])["p_swap"]
    g = np.random.default_rng(5)
    flips = 0
    a, b = ("good", "twin") if table.loc["good", "raw"] <= table.loc["twin", "raw"] else ("twin", "good")
    for _ in range(200):
        idx = g.integers(0, n, n)
        flips += score(b, "raw", idx) < score(a, "raw", idx)
    assert sw[("raw", a, b)] == flips / 200
    assert sw[("raw", "good", "bad")] == 0.0 or sw[("raw", "twin", "bad")] < 0.01
    assert 0.05 < sw[("raw", a, b)] < 0.95
    assert rank_stability(table, score=score, n_samples=n, B=200, seed=5).swap.equals(res.swap)


@pytest.mark.parametrize("table, match", [
    (np.ones((4, 3)), r"same score under 'protocol0', 'protocol1', 'protocol2'"),
    (np.c_[[1.0, 2.0, 3.0], [5.0, 5.0, 5.0]], r"same score under 'protocol1'"),
    (pd.DataFrame([[1.0, 2.0], [2.0, 1.0], [3.0, 3.0]], index=["a", "b", "a"]), r"label 'a' twice among its models"),
    (pd.DataFrame([[1.0, 2.0], [2.0, 1.0], [3.0, 3.0]], columns=["p", "p"]), r"label 'p' twice among its protocols"),
])
def test_rank_stability_refuses_tied_protocols_and_duplicate_labels(table, match):
    """All scores tied returned W = NaN silently; duplicate labels were accepted (issue 29)."""
    with pytest.raises(ValueError, match=r"^scores .*" + match):
        rank_stability(table)
