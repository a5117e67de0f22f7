"""Regressions found by pROC's and scikit-learn's own test suites: the McClish-corrected partial AUC of a
partial curve lying exactly on the diagonal is 0.5 (it was NaN by rounding), computed by one function
for the curve and its bootstrap replicates; and text scores are refused, as pROC refuses a character
predictor ("Predictor must be numeric or ordered")."""
import warnings

import numpy as np
import pandas as pd
import pytest

import statcore
from statcore._roc import ROCWarning
from helpers import r_vector, requires_r, run_r

BOUNDS = [((1, 0.8), "specificity"), ((1, 0.9), "specificity"), ((0.9, 0.7), "specificity"),
          ((0.3, 0.1), "specificity"), ((1, 0.8), "sensitivity"), ((0.8, 0.65), "sensitivity"),
          ((0.2, 0.0), "sensitivity")]


def _tied():
    return np.array([0, 0, 0, 1, 1, 1]), np.ones(6)


def _staircase():
    # every distinct score holds one case and one control: every point of the curve is on the diagonal
    return np.repeat([0, 1], 5), np.tile(np.arange(5.0), 2)


def _two_to_one():
    # every distinct score holds two cases and one control
    y = np.array([1, 1, 0] * 4)
    return y, np.repeat(np.arange(4.0), 3)


def _diagonal_top():
    # the highest score is tied between one of 5 cases and one of 5 controls: over specificity 0.8-1
    # (sensitivity 0-0.2) the curve is the diagonal; below it, the curve is above the diagonal
    y = np.repeat([1, 0], 5)
    s = np.array([10, 5, 6, 7, 8, 10, 1, 2, 3, 4], dtype=float)
    return y, s


DIAGONAL_SETS = {"tied": (_tied, BOUNDS), "staircase": (_staircase, BOUNDS), "two_to_one": (_two_to_one, BOUNDS),
                 "diagonal_top": (_diagonal_top, [((1, 0.8), "specificity"), ((1, 0.9), "specificity"),
                                                  ((0.2, 0.0), "sensitivity"), ((0.1, 0.0), "sensitivity")])}


@pytest.mark.parametrize("name", sorted(DIAGONAL_SETS))
def test_mcclish_is_one_half_on_the_diagonal(name):
    make, bounds = DIAGONAL_SETS[name]
    y, s = make()
    for b, focus in bounds:
        with warnings.catch_warnings():
            warnings.simplefilter("error", ROCWarning)
            r = statcore.roc(y, s, direction="<", partial_auc=b, partial_auc_focus=focus, partial_auc_correct=True)
            assert r.auc == 0.5, (name, b, focus, r.auc)
            assert statcore.auc(r, partial_auc=b, partial_auc_focus=focus, partial_auc_correct=True) == 0.5


@pytest.mark.parametrize("name", sorted(DIAGONAL_SETS))
def test_mcclish_on_the_diagonal_matches_scikit_learn(name):
    from sklearn.metrics import roc_auc_score

    make, bounds = DIAGONAL_SETS[name]
    y, s = make()
    for b, focus in bounds:
        if focus != "specificity" or max(b) != 1:
            continue  # scikit-learn's max_fpr is the specificity interval (1, 1 - max_fpr)
        want = roc_auc_score(y, s, max_fpr=1 - min(b))
        got = statcore.auc(statcore.roc(y, s, direction="<"), partial_auc=b, partial_auc_correct=True)
        assert got == pytest.approx(want, abs=1e-12)


@requires_r("pROC")
def test_mcclish_on_the_diagonal_matches_proc():
    lines, ours = [], []
    for name in sorted(DIAGONAL_SETS):
        make, bounds = DIAGONAL_SETS[name]
        y, s = make()
        for b, focus in bounds:
            lines.append(f"r <- roc({r_vector(y)}, {r_vector(s)}, direction = '<', levels = c(0, 1), quiet = TRUE); "
                         f"cat(sprintf('%.17g', as.numeric(auc(r, partial.auc = c({b[0]}, {b[1]}), "
                         f"partial.auc.focus = '{focus}', partial.auc.correct = TRUE))), '\\n')")
            ours.append(statcore.auc(statcore.roc(y, s, direction="<"), partial_auc=b, partial_auc_focus=focus,
                                     partial_auc_correct=True))
    out = run_r("suppressMessages(library(pROC))\n" + "\n".join(lines))
    want = np.array([np.nan if v == "NA" else float(v) for v in out.split()])
    # pROC's own rounding puts one of these diagonal areas (two_to_one over specificity 0.3-0.1) below
    # the diagonal and returns NA; the exact answer is 0.5 (scikit-learn's, and pROC's elsewhere)
    assert np.isnan(want).sum() <= 1
    np.testing.assert_allclose(np.array(ours)[~np.isnan(want)], want[~np.isnan(want)], rtol=0, atol=1e-12)
    assert np.all(np.array(ours) == 0.5)


def test_below_the_diagonal_stays_nan_with_a_warning_as_proc():
    y = np.repeat([1, 0], 5)
    s = np.array([1, 2, 3, 4, 6, 5, 7, 8, 9, 10], dtype=float)  # high specificity: controls score highest
    with pytest.warns(ROCWarning, match="below the diagonal"):
        r = statcore.roc(y, s, direction="<", partial_auc=(1, 0.8), partial_auc_correct=True)
    assert np.isnan(r.auc)


def test_curve_and_bootstrap_share_the_mcclish_correction():
    """A bootstrap replicate equal to the original sample gives the curve's own corrected area (and,
    as pROC's allow.invalid.partial.auc.correct, a value below 0.5 rather than NaN below the diagonal)."""
    from statcore._roc._bootstrap import _areas_from_counts

    rng = np.random.default_rng(3)
    for i in range(30):
        n = int(rng.integers(8, 40))
        y = np.r_[0, 1, rng.integers(0, 2, size=n)]
        s = np.round(rng.normal(size=y.size) + 0.3 * y * (i % 3 - 1), 1)
        for b, focus in BOUNDS:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ROCWarning)  # below the diagonal: NaN and a warning
                r = statcore.roc(y, s, direction="<", partial_auc=b, partial_auc_focus=focus,
                                 partial_auc_correct=True)
            c, d = np.asarray(r.group_cases), np.asarray(r.group_controls)
            boot = _areas_from_counts(c[None, :], d[None, :], b, focus, True)[0]
            if np.isnan(r.auc):
                assert boot < 0.5
            else:
                assert boot == r.auc


def test_bootstrap_replicates_of_a_useless_score_are_one_half():
    y, s = _tied()
    r = statcore.roc(y, s, direction="<", partial_auc=(1, 0.8), partial_auc_correct=True)
    ci = statcore.auc_ci(r, method="bootstrap", B=50, seed=1)
    assert tuple(ci.conf_int) == (0.5, 0.5)


# ------------------------------------------------------------------ text scores are refused (pROC refuses)

@pytest.mark.parametrize("score", [
    ["0.1", "0.4", "0.35", "0.8"],
    np.array(["0.1", "0.4", "0.35", "0.8"]),
    pd.Series(["0.1", "0.4", "0.35", "0.8"]),
    np.array(["0.1", 0.4, 0.35, 0.8], dtype=object),
    pd.Series(["0.1", "0.4", "0.35", "0.8"], dtype="string"),
    [b"0.1", b"0.4", b"0.35", b"0.8"],
])
def test_roc_refuses_numeric_strings_as_scores(score):
    with pytest.raises(TypeError, match=r"score must be numeric.*text"):
        statcore.roc([0, 0, 1, 1], score)


def test_roc_refuses_text_categories_as_scores():
    with pytest.raises(TypeError, match=r"score must be numeric.*text"):
        statcore.roc([0, 0, 1, 1], pd.Categorical(["a", "b", "a", "b"]))


def test_roc_still_takes_text_labels_and_numeric_scores():
    r = statcore.roc(np.array(["0", "0", "1", "1"]), [0.1, 0.4, 0.35, 0.8])
    assert r.auc == 0.75 and r.levels == ("0", "1")
    r = statcore.roc([0, 0, 1, 1], pd.Series([0.1, 0.4, 0.35, 0.8], dtype=object))
    assert r.auc == 0.75
