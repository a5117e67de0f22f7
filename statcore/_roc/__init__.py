"""ROC analysis with pROC's answers: the empirical curve and its (partial) area, DeLong's interval
and tests in O(n log n), the bootstrap and Venkatraman's test; and the scores used to judge
uncertainty estimates: the area under the precision-recall curve, the prediction-rejection ratio,
the expected calibration error with its reliability diagram, and the risk-coverage curve."""
__all__: list[str] = []

from ._curve import ROCCurve, ROCWarning, auc, roc  # noqa: E402
__all__ += ["roc", "ROCCurve", "auc", "ROCWarning"]

from ._ci import AUCInterval, auc_ci  # noqa: E402
__all__ += ["auc_ci", "AUCInterval"]

from ._test import ROCTest, roc_test  # noqa: E402
__all__ += ["roc_test", "ROCTest"]

from ._uncertainty_metrics import (CalibrationResult, RiskCoverageResult, auprc, calibration_error,  # noqa: E402
                                   prediction_rejection_ratio, risk_coverage)
__all__ += ["auprc", "prediction_rejection_ratio", "calibration_error", "CalibrationResult", "risk_coverage",
            "RiskCoverageResult"]
