"""amplification: exact checks against ratio_ci and coef_ratio_ci, known truth on seeded simulations, and
Fieller's coverage at its level where the delta method under-covers (few-shot shift about 2 s.e. from 0)."""
import numpy as np
import pandas as pd
import pytest

import statcore as sc
from statcore.testing import assert_coverage


def test_one_topic_is_ratio_ci():
    ft = [2.1, 3.9, 6.2, 8.1, 5.0]
    fs = [1.0, 2.0, 3.0, 4.0, 2.4]
    res = sc.amplification(ft, fs)
    fi = sc.ratio_ci(ft, fs)
    de = sc.ratio_ci(ft, fs, method="delta")
    assert res.estimate == pytest.approx(np.mean(ft) / np.mean(fs), rel=1e-14)
    assert (res.conf_low, res.conf_high, res.kind) == (fi.conf_low, fi.conf_high, fi.kind)
    assert (res.delta_conf_low, res.delta_conf_high) == (de.conf_low, de.conf_high)


def test_pooled_is_fieller_on_the_averages_of_topic_means():
    rng = np.random.default_rng(1)
    fs = rng.normal(1.0, 1.0, size=(25, 3))
    ft = 2 * fs + rng.normal(0, 1, size=(25, 3))
    res = sc.amplification(ft, fs)
    mf, ms = ft.mean(0), fs.mean(0)
    n = 25
    vff = ft.var(0, ddof=1) / n
    vss = fs.var(0, ddof=1) / n
    vfs = np.array([np.cov(ft[:, j], fs[:, j])[0, 1] for j in range(3)]) / n
    V = np.array([[vff.sum(), vfs.sum()], [vfs.sum(), vss.sum()]]) / 9
    ref = sc.coef_ratio_ci([mf.mean(), ms.mean()], V, 0, 1)
    assert res.estimate == pytest.approx(mf.mean() / ms.mean(), rel=1e-12)
    assert (res.conf_low, res.conf_high) == pytest.approx((ref.conf_low, ref.conf_high), rel=1e-10)
    for j in range(3):
        fi = sc.ratio_ci(ft[:, j], fs[:, j])
        assert (res.ratios[j], res.topic_conf_low[j], res.topic_conf_high[j]) == pytest.approx(
            (fi.estimate, fi.conf_low, fi.conf_high), rel=1e-12)


def test_independent_probes_from_a_mapping_and_frame_labels():
    rng = np.random.default_rng(2)
    ft = {"econ": rng.normal(3, 1, 30), "health": rng.normal(3, 1, 25)}
    fs = {"health": rng.normal(1, 1, 20), "econ": rng.normal(1, 1, 40)}
    res = sc.amplification(ft, fs, paired=False)
    fi = sc.ratio_ci(ft["health"], fs["health"], paired=False)
    assert res.topics == ("econ", "health")
    assert res.topic_conf_low[1] == pytest.approx(fi.conf_low, rel=1e-12)
    df = pd.DataFrame(rng.normal(2, 1, (10, 2)), columns=["a", "b"])
    assert sc.amplification(2 * df, df).topics == ("a", "b")


def test_unbounded_when_few_shot_is_noise():
    rng = np.random.default_rng(4)
    res = sc.amplification(rng.normal(0, 1, 10), rng.normal(0, 1, 10))
    assert res.kind in ("exclusive", "unbounded")


def test_known_truth_pooled_coverage():
    """Four topics, paired probes, true ratio 2.5 in every topic: the pooled Fieller set covers 2.5."""
    truth, n, T = 2.5, 30, 4

    def sampler(rng):
        fs = rng.normal(0.6, 1.0, size=(n, T))
        return truth * 0.6 + 0.8 * (fs - 0.6) + rng.normal(0, 1, (n, T)), fs

    def covers(data, rng):
        res = sc.amplification(*data)
        return res.conf_low <= truth <= res.conf_high if res.kind == "bounded" else \
            (truth <= res.conf_low or truth >= res.conf_high) if res.kind == "exclusive" else True

    assert_coverage(covers, sampler, conf_level=0.95, reps=200, seed=7)


def test_fieller_covers_where_delta_under_covers():
    """One topic, 20 paired probes, few-shot shifts N(2 / sqrt(20), 1) (the mean about 2 s.e. from 0) and
    fine-tuned shifts N(3 x that, 1) independent of them: Fieller's set is exact under normality, the
    delta interval under-covers (4000 reps in benchmarks/breadth_demo.py: Fieller 0.9455, delta 0.891)."""
    n, ratio, reps = 20, 3.0, 600
    mu = 2 / np.sqrt(n)

    def sampler(rng):
        return rng.normal(ratio * mu, 1.0, (reps, n)), rng.normal(mu, 1.0, (reps, n))

    def both(data):
        ft, fs = data
        out = {"fieller": np.empty(reps, bool), "delta": np.empty(reps, bool)}
        for r in range(reps):
            res = sc.amplification(ft[r], fs[r])
            lo, hi = res.conf_low, res.conf_high
            out["fieller"][r] = (lo <= ratio <= hi) if res.kind == "bounded" else \
                (ratio <= lo or ratio >= hi) if res.kind == "exclusive" else True
            out["delta"][r] = res.delta_conf_low <= ratio <= res.delta_conf_high
        return out

    cache = {}

    def covers(data, rng):
        cache["out"] = both(data)
        return cache["out"]["fieller"]

    assert_coverage(covers, sampler, conf_level=0.95, seed=11, vectorized=True, std_error="nominal")
    delta = cache["out"]["delta"].mean()
    assert delta < 0.95 - 3 * np.sqrt(0.95 * 0.05 / reps), delta


@pytest.mark.parametrize("kwargs, match", [
    (dict(ft=[1.0, 2.0, 3.0], fs=[1.0, 2.0]), "fs"),
    (dict(ft=[1.0, 2.0, 3.0], fs=[0.0, 0.0, 0.0]), "fs"),
    (dict(ft=[1.0], fs=[1.0]), "ft"),
    (dict(ft={"a": [1.0, 2.0]}, fs={"b": [1.0, 2.0]}), "ft"),
    (dict(ft=np.ones((3, 2)), fs=np.ones((3, 3))), "ft"),
    (dict(ft=[1.0, 2.0], fs=[1.0, 2.0], paired="yes"), "paired"),
    (dict(ft=[1.0, 2.0], fs=[1.0, 2.0], conf_level=95), "conf_level"),
])
def test_bad_input(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        sc.amplification(**kwargs)
