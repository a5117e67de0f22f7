"""Venkatraman's permutations (paired and unpaired) and the plot's sensitivity band run on the
resampling engine (statcore._resampling.run_stream): bit-identical for n_jobs = 1 and 2 over several
chunks, equal to the permutation loop written out with the same Generator (the draws pinned: the seeded
answers did not change when the loop moved), and progress=True draws a bar without changing them."""
import numpy as np
import pytest

import statcore as sc
from statcore._resampling import TIE_RTOL
from statcore._roc._bootstrap import _SensitivityAt, sensitivity_band
from statcore._roc._test import _ranks_first, _scores, _venkatraman_E, _venkatraman_unpaired_E

RNG = np.random.default_rng(2029)
Y1 = RNG.permutation(np.repeat([0, 1], [30, 40]))
Y2 = RNG.permutation(np.repeat([0, 1], [25, 20]))
R1 = sc.roc(Y1, np.round(RNG.normal(size=70) + Y1, 1), direction="<")
R2 = sc.roc(Y1, np.round(RNG.normal(size=70) + 0.6 * Y1, 1), direction="<")
R3 = sc.roc(Y2, np.round(RNG.normal(size=45) + 0.8 * Y2, 1), direction="<")


def _paired_by_hand(r1, r2, B, seed):
    """The paired permutation loop written out: per permutation n exchange uniforms, then the two jitters."""
    rng = np.random.default_rng(seed)
    case = np.asarray(r1.is_case)
    a0, b0 = _ranks_first(_scores(r1)), _ranks_first(_scores(r2))
    E = _venkatraman_E(a0, b0, case)
    count = 0
    for _ in range(B):
        swap = rng.random(case.size) < 0.5
        a, b = np.where(swap, b0, a0), np.where(swap, a0, b0)
        a = _ranks_first(a + rng.random(case.size) * 0.5)
        b = _ranks_first(b + rng.random(case.size) * 0.5)
        count += _venkatraman_E(a, b, case) >= E - TIE_RTOL * abs(E)  # the engine's one tie rule
    return E, count / B


def _unpaired_by_hand(r1, r2, B, seed):
    """The unpaired loop written out: jitters of each sample, then the controls and the cases shuffled."""
    rng = np.random.default_rng(seed)
    c1, c2 = np.asarray(r1.is_case, bool), np.asarray(r2.is_case, bool)
    mp = (r1.n_cases + r2.n_cases) / (2 * c1.size)
    k1, k2 = _ranks_first(_scores(r1)).astype(float), _ranks_first(_scores(r2)).astype(float)
    E = _venkatraman_unpaired_E(c1[np.argsort(k1)], c2[np.argsort(k2)], mp)
    count = 0
    for _ in range(B):
        a, b = k1 + rng.random(k1.size) - 0.5, k2 + rng.random(k2.size) - 0.5
        controls = rng.permutation(np.concatenate([a[~c1], b[~c2]]))
        cases = rng.permutation(np.concatenate([a[c1], b[c2]]))
        a[~c1], b[~c2] = controls[:int((~c1).sum())], controls[int((~c1).sum()):]
        a[c1], b[c2] = cases[:int(c1.sum())], cases[int(c1.sum()):]
        e = _venkatraman_unpaired_E(c1[np.argsort(a, kind="stable")], c2[np.argsort(b, kind="stable")], mp)
        count += e >= E - TIE_RTOL * abs(E)  # the engine's one tie rule
    return E, count / B


@pytest.mark.parametrize("paired", [True, False])
def test_venkatraman_equals_the_written_out_loop(paired):
    B = 300
    other = R2 if paired else R3
    res = sc.roc_test(R1, other, paired=paired, method="venkatraman", B=B, seed=11)
    E, p = (_paired_by_hand if paired else _unpaired_by_hand)(R1, other, B, 11)
    assert res.statistic == E
    assert res.p_value == p
    assert 0 < p < 1  # a p-value that the draws actually decide


@pytest.mark.parametrize("paired", [True, False])
def test_venkatraman_same_for_n_jobs(paired):
    other = R2 if paired else R3
    # B past one chunk (1024), so that n_jobs = 2 splits the permutations
    a = sc.roc_test(R1, other, paired=paired, method="venkatraman", B=2100, seed=3, n_jobs=1)
    b = sc.roc_test(R1, other, paired=paired, method="venkatraman", B=2100, seed=3, n_jobs=2)
    assert (a.statistic, a.p_value) == (b.statistic, b.p_value)


def test_venkatraman_progress_and_bad_arguments(capsys):
    pytest.importorskip("tqdm")
    a = sc.roc_test(R1, R2, method="venkatraman", B=200, seed=1, progress=True)
    assert "permutation" in capsys.readouterr().err
    assert a.p_value == sc.roc_test(R1, R2, method="venkatraman", B=200, seed=1).p_value
    with pytest.raises(ValueError, match="n_jobs"):
        sc.roc_test(R1, R3, paired=False, method="venkatraman", B=20, n_jobs=0)
    with pytest.raises(TypeError, match="progress"):
        sc.roc_test(R1, R2, method="venkatraman", B=20, progress="yes")


def test_sensitivity_band_same_for_n_jobs_and_equal_to_the_loop():
    a = sensitivity_band(R1, B=2100, seed=4, n_jobs=1)
    b = sensitivity_band(R1, B=2100, seed=4, n_jobs=2)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    assert np.all(a[1] <= a[2])
    np.testing.assert_array_equal(a[1][0], 1.0)  # at specificity 0 every curve has sensitivity 1
    # the draws pinned: B <= 1024 is one chunk, whose stratified rows (cases, then controls) come from
    # the seed's Generator as the loop before the engine drew them
    rng = np.random.default_rng(4)
    case = np.asarray(R1.is_case)
    ci, co = np.flatnonzero(case), np.flatnonzero(~case)
    rows = np.concatenate([ci[rng.integers(0, ci.size, (300, ci.size))], co[rng.integers(0, co.size, (300, co.size))]],
                          axis=1)
    se_at = _SensitivityAt(R1, np.linspace(0, 1, 101))(rows)
    lo, hi = np.quantile(se_at, [(1 - 0.95) / 2, 1 - (1 - 0.95) / 2], axis=0)
    band = sensitivity_band(R1, B=300, seed=4)
    np.testing.assert_array_equal(band[1], lo)
    np.testing.assert_array_equal(band[2], hi)


def test_sensitivity_band_progress(capsys):
    pytest.importorskip("tqdm")
    a = sensitivity_band(R1, B=100, seed=0, progress=True)
    assert "bootstrap" in capsys.readouterr().err
    for u, v in zip(a, sensitivity_band(R1, B=100, seed=0)):
        np.testing.assert_array_equal(u, v)
