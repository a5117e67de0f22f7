"""DeLong's interval of the AUC covers the true AUC at its nominal level: seeded Monte Carlo under
the binormal model (controls N(0, 1), cases N(1, 1), true AUC = Phi(1 / sqrt(2)) = 0.760), with n
controls and n cases, n in {50, 500}; the coverage must lie within 3 Monte Carlo standard errors of
0.95 on both sides (benchmarks/README.md records the figures, and the undercoverage measured at
n = 25 per class)."""
import numpy as np
import pytest
from scipy.stats import norm

import statcore
from statcore.testing import assert_coverage

DELTA = 1.0
TRUE_AUC = float(norm.cdf(DELTA / np.sqrt(2)))


@pytest.mark.slow
@pytest.mark.parametrize("n", [50, 500])
def test_delong_interval_coverage_binormal(n):
    y = np.repeat([0.0, 1.0], n)

    def sampler(rng):
        return rng.normal(size=y.size) + DELTA * y

    def covers(score, rng):
        lo, hi = statcore.auc_ci(statcore.roc(y, score, direction="<")).conf_int
        return lo <= TRUE_AUC <= hi

    assert_coverage(covers, sampler, conf_level=0.95, reps=3000, seed=20261203 + n, exact=True)
