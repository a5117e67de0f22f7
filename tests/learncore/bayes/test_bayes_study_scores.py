"""The IVON study's scores (benchmarks/_scores.py: the calibration errors through
statcore.calibration_error) against hand computations, scikit-learn and numerical integration.
Budget: well under a second."""
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import integrate, stats

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
from _scores import (brier_score, gaussian_crps, gaussian_nll, nll_classification,  # noqa: E402
                     regression_calibration_error, top_label_calibration)


def test_ece_by_hand():
    # confidences 0.95 (bin 15), 0.95, 0.55 (bin 9: (8/15, 9/15]), 0.40 (bin 6: (5/15, 6/15])
    prob = np.array([[0.95, 0.05, 0.0], [0.05, 0.95, 0.0], [0.55, 0.45, 0.0], [0.3, 0.3, 0.4]])
    y = np.array([0, 0, 0, 2])
    tab = top_label_calibration(prob, y).to_frame()
    assert tab["n"].tolist() == [0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 2]
    np.testing.assert_allclose(tab.loc[14, ["predicted", "observed"]].to_numpy(float), [0.95, 0.5])
    expected = (2 / 4) * abs(0.5 - 0.95) + (1 / 4) * abs(1 - 0.55) + (1 / 4) * abs(1 - 0.4)
    assert top_label_calibration(prob, y).ece == pytest.approx(expected, abs=1e-15)


def test_ece_edges_and_calibrated():
    # a confidence exactly at a bin edge goes to the lower bin ((lo, hi]); confidence 1 to the last bin
    prob = np.array([[2 / 3, 1 / 3], [1.0, 0.0]])
    tab = top_label_calibration(prob, np.array([0, 0])).to_frame()
    assert tab["n"].iloc[9] == 1 and tab["n"].iloc[14] == 1
    # calibrated by construction: labels drawn from the predicted probabilities
    rng = np.random.default_rng(0)
    p1 = rng.uniform(0.5, 1.0, 200_000)
    y = (rng.uniform(size=p1.size) > p1).astype(int)   # class 0 with probability p1
    ece = top_label_calibration(np.column_stack([p1, 1 - p1]), y).ece
    assert ece < 0.01
    assert top_label_calibration(np.column_stack([p1, 1 - p1]), 1 - y).ece > 0.4


def test_brier_and_nll():
    from sklearn.metrics import brier_score_loss, log_loss

    rng = np.random.default_rng(1)
    p = rng.uniform(size=50)
    y = rng.integers(0, 2, 50)
    prob = np.column_stack([1 - p, p])
    # the multi-class Brier score of two classes is twice the binary one
    assert brier_score(prob, y) == pytest.approx(2 * brier_score_loss(y, p), rel=1e-12)
    assert nll_classification(np.log(prob), y) == pytest.approx(log_loss(y, p), rel=1e-12)


def test_gaussian_scores():
    y, mean, var = np.array([0.3, -1.0, 2.0]), np.array([0.0, 0.5, 1.0]), np.array([1.0, 0.25, 4.0])
    assert gaussian_nll(y, mean, var) == pytest.approx(-np.mean(stats.norm.logpdf(y, mean, np.sqrt(var))), rel=1e-12)
    # CRPS = integral over t of (F(t) - 1{y <= t})^2
    crps = [integrate.quad(lambda t: stats.norm.cdf(t, m, np.sqrt(v)) ** 2, -np.inf, yi)[0]
            + integrate.quad(lambda t: (1 - stats.norm.cdf(t, m, np.sqrt(v))) ** 2, yi, np.inf)[0]
            for yi, m, v in zip(y, mean, var)]
    assert gaussian_crps(y, mean, var) == pytest.approx(np.mean(crps), rel=1e-7)


def test_regression_calibration():
    rng = np.random.default_rng(2)
    y = rng.normal(size=100_000)
    zero, one = np.zeros_like(y), np.ones_like(y)
    assert regression_calibration_error(y, zero, one) < 0.005
    # a predictive 4 times too wide: PIT values pile up around 1/2
    wide = regression_calibration_error(y, zero, 16 * one)
    u = stats.norm.cdf(y / 4)
    levels = (np.arange(15) + 0.5) / 15
    # statcore.calibration_error's bin means are sums of 100,000 equal levels: rounding of order 1e-12
    assert wide == pytest.approx(np.mean(np.abs(levels - (u[None] <= levels[:, None]).mean(1))), rel=1e-11)
    assert wide > 0.1


def test_bad_scores_input():
    with pytest.raises(ValueError, match="y"):
        top_label_calibration(np.full((2, 2), 0.5), np.array([0, 2]))
    with pytest.raises(ValueError, match="n_bins"):
        top_label_calibration(np.full((2, 2), 0.5), np.array([0, 1]), n_bins=0)
    with pytest.raises(ValueError, match="var"):
        gaussian_nll([1.0], [0.0], [0.0])
