"""token_reduction against its closed form, Fieller's quadratic by hand, statcore.ratio_ci and
statcore.mcnemar_test directly, and its coverage on a seeded simulation whose truth is known."""
import numpy as np
import pytest
from scipy import stats

import statcore as sc
from learncore.reasoning import token_reduction
from statcore.testing import assert_coverage


def _data(rng, n=40, factor=0.6):
    base = rng.poisson(rng.gamma(4.0, 50.0, size=n)).astype(float) + 1
    new = rng.poisson(factor * base).astype(float)
    return base, new


def test_estimate_is_the_closed_form():
    base = np.array([100, 250, 80, 400, 120])
    new = np.array([50, 200, 80, 100, 60])
    res = token_reduction(base, new)
    assert res.estimate == pytest.approx(1 - 490 / 950, rel=1e-15)
    assert (res.sum_base, res.sum_new, res.n) == (950.0, 490.0, 5)
    assert np.isnan(res.accuracy_base) and res.accuracy_test is None


def test_fieller_by_hand_and_against_ratio_ci():
    rng = np.random.default_rng(1)
    for conf_level in (0.9, 0.95, 0.99):
        base, new = _data(rng, n=25)
        n = base.size
        q = stats.t.ppf(0.5 + conf_level / 2, n - 1) ** 2
        mn, mb = new.mean(), base.mean()
        c = np.cov(new, base)     # the paired t test of new - rho * base, solved for rho
        a2 = mb ** 2 - q * c[1, 1] / n
        a1 = -2 * (mn * mb - q * c[0, 1] / n)
        a0 = mn ** 2 - q * c[0, 0] / n
        roots = np.sort(np.roots([a2, a1, a0]).real)
        res = token_reduction(base, new, conf_level=conf_level)
        assert res.kind == "bounded"
        assert (res.conf_low, res.conf_high) == pytest.approx((1 - roots[1], 1 - roots[0]), rel=1e-9)
        direct = sc.ratio_ci(new, base, paired=True, conf_level=conf_level)
        assert (res.conf_low, res.conf_high) == pytest.approx((1 - direct.conf_high, 1 - direct.conf_low),
                                                              rel=1e-12, abs=1e-14)
        assert res.ratio.estimate == pytest.approx(direct.estimate, rel=1e-14)
        assert res.ratio.std_error == pytest.approx(direct.std_error, rel=1e-12)
        assert res.estimate == pytest.approx(1 - direct.estimate, rel=1e-12)


def test_scale_equivariance_and_extreme_counts():
    rng = np.random.default_rng(2)
    base, new = _data(rng)
    res = token_reduction(base, new)
    for f in (2.0 ** 40, 1e250, 1e-250):
        other = token_reduction(base * f, new * f)
        assert (other.estimate, other.conf_low, other.conf_high) == pytest.approx(
            (res.estimate, res.conf_low, res.conf_high), rel=1e-9)


def test_mcnemar_matches_statcore():
    rng = np.random.default_rng(3)
    base, new = _data(rng, n=60)
    cb = rng.random(60) < 0.7
    cn = np.where(rng.random(60) < 0.8, cb, ~cb)
    for exact in (False, True):
        res = token_reduction(base, new, correct_base=cb, correct_new=cn, exact=exact)
        direct = sc.mcnemar_test(cb.astype(int), cn.astype(int), exact=exact)
        assert res.accuracy_test.p_value == pytest.approx(direct.p_value, rel=1e-12)
        assert res.accuracy_test.method == direct.method
        assert (res.accuracy_base, res.accuracy_new) == (cb.mean(), cn.mean())
    assert "McNemar" in res.summary()
    same = token_reduction(base, new, correct_base=cb, correct_new=cb)
    assert same.accuracy_test is None and "no discordant pair" in same.summary()
    with pytest.raises(ValueError, match="correct_base"):
        token_reduction(base, new, correct_base=cb)
    with pytest.raises(ValueError, match="len_base"):
        token_reduction(np.zeros(5), np.ones(5))


@pytest.mark.slow
def test_coverage_of_the_reduction_interval():
    """Tokens drawn with a known mean ratio: the reduction's 95% interval covers 1 - factor."""
    factor = 0.6

    def covers(data, rng):
        res = token_reduction(*data)
        return res.conf_low <= 1 - factor <= res.conf_high

    assert_coverage(covers, lambda rng: _data(rng, n=40, factor=factor), conf_level=0.95, reps=1000, seed=5)


def test_sets_that_are_not_intervals_map_through_one_minus():
    """A base whose mean is not clearly above 0 gives Fieller's two rays or the whole line; the
    reduction's set is {1 - r : r in the ratio's set}, checked point by point."""
    cases = [([5, 0, 0], [1, 1, 1]), ([9, 0, 0, 1], [1, 2, 0, 1]), ([1, 0, 0, 30], [0, 3, 1, 9])]
    kinds = set()
    for base, new in cases:
        res = token_reduction(base, new)
        ratio = sc.ratio_ci(new, base, paired=True)
        kinds.add(res.kind)
        assert res.kind == ratio.kind

        def in_ratio(r):
            if ratio.kind == "bounded":
                return ratio.conf_low <= r <= ratio.conf_high
            if ratio.kind == "exclusive":
                return r <= ratio.conf_low or r >= ratio.conf_high
            return True

        def in_reduction(x):
            if res.kind == "bounded":
                return res.conf_low <= x <= res.conf_high
            if res.kind == "exclusive":
                return x <= res.conf_low or x >= res.conf_high
            return True

        for x in np.linspace(-20, 20, 4001):
            assert in_reduction(x) == in_ratio(1 - x), (base, new, x)
        text = {"bounded": "[", "exclusive": "U [", "unbounded": "the whole line"}[res.kind]
        assert text in res.summary()
    assert kinds == {"exclusive", "unbounded"}
