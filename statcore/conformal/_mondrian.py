"""Calibration shared by the interval and class-set functions: one split-conformal quantile, or one per
Mondrian group (Vovk, Lindsay, Nouretdinov & Gammerman 2003), mapped onto the test points."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import as_groups, conformal_rank, show_value
from ._quantile import conformal_quantile, group_quantiles


@dataclass(frozen=True)
class Calibration:
    """q per test point; per group: labels, q, calibration size, rank (None labels: one group)."""

    q_test: np.ndarray
    labels: tuple | None
    group_q: np.ndarray
    group_n: np.ndarray
    group_rank: np.ndarray
    test_groups: np.ndarray | None


def _factorize(values: np.ndarray):
    import pandas as pd

    try:
        codes, uniques = pd.factorize(values, sort=True)
    except TypeError:  # labels of mixed kinds that do not sort: first-seen order
        codes, uniques = pd.factorize(values, sort=False)
    return codes.astype(np.int64), uniques


def calibrate(scores: np.ndarray, n_test: int, alpha: float, allow_infinite: bool, groups_cal, groups_test,
              keep_cal: np.ndarray | None = None, cal_name: str = "y_cal", test_name: str = "pred_test"
              ) -> Calibration:
    """The quantile(s) of the calibration scores and the threshold of every test point; ``keep_cal``
    (rows kept by nan_policy="omit") subsets groups_cal the way the scores were subset."""
    if (groups_cal is None) != (groups_test is None):
        given, missing = ("groups_cal", "groups_test") if groups_test is None else ("groups_test", "groups_cal")
        raise ValueError(f"{given} is given but {missing} is not: Mondrian calibration needs the group of every "
                         "calibration point and of every test point")
    if groups_cal is None:
        n = scores.size
        q = conformal_quantile(scores, alpha=alpha, allow_infinite=allow_infinite)
        return Calibration(np.full(n_test, q), None, np.array([q]), np.array([n]),
                           np.array([conformal_rank(n, alpha)]), None)
    n_all = scores.size if keep_cal is None else keep_cal.size
    gc = as_groups(groups_cal, "groups_cal", n_all, cal_name)
    if keep_cal is not None:
        gc = gc[keep_cal]
    gt = as_groups(groups_test, "groups_test", n_test, test_name)
    codes, uniques = _factorize(gc)
    labels = tuple(uniques.tolist())
    import pandas as pd

    test_codes = pd.Index(uniques).get_indexer(pd.Index(gt))
    if np.any(test_codes < 0):
        bad = gt[np.flatnonzero(test_codes < 0)[0]]
        bad = bad.item() if isinstance(bad, np.generic) else bad
        raise ValueError(f"groups_test holds the group {bad!r}, which has no calibration data in groups_cal; "
                         f"the calibrated groups are {show_value(list(labels)[:10])}{' ...' if len(labels) > 10 else ''}")
    q, counts = group_quantiles(scores, codes, len(labels), alpha, allow_infinite, labels)
    ranks = np.array([conformal_rank(int(c), alpha) for c in counts])
    return Calibration(q[test_codes], labels, q, counts, ranks, gt)
