"""Spectra of representations: explained variance, participation ratio, effective rank, feature
correlation, linear CKA and the TwoNN intrinsic dimension, each scalar with a bootstrap interval
over the rows (the ``*_ci`` functions, through the resampling engine).

numpy/scipy (and numba for the TwoNN scan) only: never imports torch; ``learncore`` hands it arrays.
"""
from ._cka import linear_cka, linear_cka_ci
from ._spectrum import (ExplainedVariance, effective_rank, effective_rank_ci, explained_variance, feature_correlation,
                        feature_correlation_ci, participation_ratio, participation_ratio_ci)
from ._twonn import twonn_dimension, twonn_dimension_ci

__all__ = ["explained_variance", "ExplainedVariance", "participation_ratio", "participation_ratio_ci",
           "effective_rank", "effective_rank_ci", "feature_correlation", "feature_correlation_ci",
           "linear_cka", "linear_cka_ci", "twonn_dimension", "twonn_dimension_ci"]
