"""pass_at_k_curve against brute force: pass@k is the chance that a uniformly drawn k-subset of the n
samples holds a correct one, enumerated over all subsets."""
import itertools
import math

import numpy as np
import pytest

from learncore.reasoning import pass_at_k_curve


def _brute_pass_at_k(row, k):
    subsets = list(itertools.combinations(range(len(row)), k))
    return sum(any(row[i] for i in s) for s in subsets) / len(subsets)


def test_per_problem_values_equal_subset_enumeration():
    rng = np.random.default_rng(3)
    correct = rng.random((7, 6)) < rng.random((7, 1))
    ks = [1, 2, 3, 6]
    curve = pass_at_k_curve(correct, ks, B=50, seed=0)
    for i in range(7):
        for j, k in enumerate(ks):
            assert curve.values[i, j] == pytest.approx(_brute_pass_at_k(correct[i], k), abs=1e-12)
    assert curve.groups == ("all",)
    np.testing.assert_allclose(curve.estimate[0], [np.mean([_brute_pass_at_k(r, k) for r in correct]) for k in ks])
    # pass@1 is the share of correct samples; pass@n is whether any sample is correct
    assert curve.estimate[0, 0] == pytest.approx(correct.mean())
    assert curve.estimate[0, -1] == pytest.approx(correct.any(axis=1).mean())


def test_groups_and_standard_errors():
    correct = np.array([[1, 0, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1], [1, 1, 1, 1]])
    lengths = [5, 4, 5, 4, 4]
    curve = pass_at_k_curve(correct, [2, 1], groups=lengths, B=200, seed=1)
    assert curve.groups == (4, 5) and curve.ks.tolist() == [1, 2]
    assert curve.nobs.tolist() == [3, 2] and curve.n_samples.tolist() == [4, 4]
    g4 = np.array([[_brute_pass_at_k(correct[i], k) for k in (1, 2)] for i in (1, 3, 4)])
    g5 = np.array([[_brute_pass_at_k(correct[i], k) for k in (1, 2)] for i in (0, 2)])
    np.testing.assert_allclose(curve.estimate, [g4.mean(0), g5.mean(0)])
    np.testing.assert_allclose(curve.std_error, [g4.std(0, ddof=1) / math.sqrt(3), g5.std(0, ddof=1) / math.sqrt(2)])
    assert np.all(curve.conf_low <= curve.estimate + 1e-12) and np.all(curve.estimate <= curve.conf_high + 1e-12)
    assert curve.problem_group == tuple(lengths)
    frame = curve.to_frame()
    assert frame.shape == (4, 8) and frame["group"].tolist() == [4, 4, 5, 5]


def test_ragged_samples_bool_and_int_agree_and_seed_reproduces():
    ragged = [[True, False, True], [False, False, False, True, True], [True, True]]
    a = pass_at_k_curve(ragged, [1, 2], B=99, seed=5)
    b = pass_at_k_curve([np.array(r, dtype=int) for r in ragged], [1, 2], B=99, seed=5)
    assert a == b
    assert a.n_samples.tolist() == [2]
    np.testing.assert_allclose(a.values[:, 1], [_brute_pass_at_k(r, 2) for r in ragged])


def test_k_above_the_samples_is_refused_naming_ks():
    with pytest.raises(ValueError, match=r"ks holds k = 5, above the 4 samples"):
        pass_at_k_curve(np.ones((3, 4), dtype=int), [1, 5])
    with pytest.raises(ValueError, match="ks"):
        pass_at_k_curve([[1, 0, 1], [1, 0]], [3])


def test_bad_values_are_refused():
    with pytest.raises(ValueError, match="samples_correct"):
        pass_at_k_curve([[0, 2], [1, 1]], [1])
    with pytest.raises(ValueError, match="groups"):
        pass_at_k_curve([[0, 1], [1, 1]], [1], groups=[1, 2, 3])
    with pytest.raises(ValueError, match="groups"):
        pass_at_k_curve([[0, 1], [1, 1], [1, 1]], [1], groups=[1, 1, 2])    # a group of one problem
    with pytest.raises(ValueError, match="samples_correct"):
        pass_at_k_curve([0, 1, 1], [1])                                    # 1-D: which are the problems?
    with pytest.raises(ValueError, match="ks"):
        pass_at_k_curve([[0, 1], [1, 1]], [0, 1])
