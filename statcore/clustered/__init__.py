"""Cluster-robust inference for linear models (CR0-CR3 covariances, coefficient tests with
Satterthwaite degrees of freedom) and the comparison of dependent correlations."""
from ._coeftest import CoefTest, coef_test
from ._depcor import dependent_correlation_test
from ._vcov import ClusterVcov, cluster_vcov

__all__ = ["cluster_vcov", "ClusterVcov", "coef_test", "CoefTest", "dependent_correlation_test"]
