"""The bootstrap intervals of the ``*_ci`` functions: through the resampling engine's public
:func:`statcore.bootstrap`, never a loop of their own.

Rows (observations) are resampled with replacement: the statistic receives the indices of one
resample and evaluates itself on those rows (of X, or of X and Y together for CKA). TwoNN resamples
its per-point ratios instead (``_twonn.py``).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .._checks import check_interval_kind
from .._resampling import BootstrapResult, bootstrap


class RowStatistic:
    """``statistic(*(a[idx] for a in arrays))`` for one resample of row indices (picklable)."""

    def __init__(self, statistic: Callable, arrays: tuple):
        self.statistic = statistic
        self.arrays = arrays

    def __call__(self, idx: np.ndarray) -> float:
        rows = idx.astype(np.intp)
        return float(self.statistic(*(a[rows] for a in self.arrays)))


def row_interval(statistic: Callable, arrays: tuple, *, B, conf_level, ci, seed, n_jobs, progress) -> BootstrapResult:
    """The bootstrap interval of ``statistic(*arrays)`` over the rows shared by ``arrays``."""
    method = check_interval_kind(ci)
    n = arrays[0].shape[0]
    return bootstrap((np.arange(n, dtype=np.float64),), RowStatistic(statistic, arrays), B=B, method=method,
                     conf_level=conf_level, vectorized=False, seed=seed, n_jobs=n_jobs, progress=progress)
