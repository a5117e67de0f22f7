"""Conformal prediction: split-conformal quantiles and sets with finite-sample coverage.

- :func:`conformal_quantile`: the ceil((n + 1)(1 - alpha))-th smallest calibration score.
- :func:`conformal_set`, :func:`conformal_density_scores`: highest-density sets {y : f(y) >= -q} from
  a predictive density on a grid (unions of intervals).
- :func:`conformal_interval`, :func:`conformal_cqr`: regression intervals (absolute and normalised
  residuals, conformalised quantile regression), with Mondrian (group-wise) calibration.
- :func:`conformal_classes`: classification sets (LAC, APS plain or randomised).
- :func:`coverage_band`, :func:`coverage_test`: the exact band of marginal coverage, and the exact
  binomial test of an empirical coverage (R's ``binom.test``).
"""
__all__: list[str] = []

# --- the quantile and the coverage checks (quantile.py) ---
from ._quantile import CoverageBand, conformal_quantile, coverage_band, coverage_test  # noqa: E402
__all__ += ["conformal_quantile", "coverage_band", "coverage_test", "CoverageBand"]

# --- highest-density sets from a predictive density (density.py) ---
from ._density import ConformalSet, conformal_density_scores, conformal_set  # noqa: E402
__all__ += ["conformal_set", "conformal_density_scores", "ConformalSet"]

# --- regression intervals: absolute and normalised residuals, CQR (regression.py) ---
from ._regression import ConformalIntervals, conformal_cqr, conformal_interval  # noqa: E402
__all__ += ["conformal_interval", "conformal_cqr", "ConformalIntervals"]

# --- classification sets: LAC and APS (classification.py) ---
from ._classification import ConformalClassSets, conformal_classes  # noqa: E402
__all__ += ["conformal_classes", "ConformalClassSets"]
