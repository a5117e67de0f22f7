"""What the interval and class-set results share: the calibration record (one quantile, or one per
Mondrian group), the coverage guarantees and the per-group coverage table."""
from __future__ import annotations

import numpy as np

from .._r.rformat import R_DIGITS, format_number, format_table


class CalibrationRecord:
    """Mixin of the conformal results: needs the fields ``alpha``, ``q``, ``groups``, ``group_q``,
    ``group_n``, ``group_rank``, ``test_groups`` and ``index``."""

    @property
    def n_test(self) -> int:
        return int(self.q.size)

    @property
    def n_cal(self) -> int:
        """Calibration points used (all groups together)."""
        return int(np.sum(self.group_n))

    def _observed(self, y) -> np.ndarray:  # pragma: no cover - implemented by the results
        raise NotImplementedError

    def covers(self, y):
        """Whether each test outcome lies in its conformal set.

        Parameters
        ----------
        y : array_like, shape (n_test,)
            The observed outcomes of the test points.

        Returns
        -------
        numpy.ndarray of bool, shape (n_test,)
        """
        return self._observed(y)

    def coverage(self, y) -> float:
        """The empirical coverage: the share of test outcomes inside their sets.

        Parameters
        ----------
        y : array_like, shape (n_test,)
            The observed outcomes of the test points.

        Returns
        -------
        float
        """
        return float(np.mean(self._observed(y)))

    def coverage_table(self, y=None):
        """One row per calibration group (one row ``all`` without groups): ``group``, ``n_cal``, ``rank``
        (k = ceil((n + 1)(1 - alpha))), ``q``, the guaranteed band ``coverage_min`` = 1 - alpha and
        ``coverage_max`` = 1 - alpha + 1/(n + 1), ``coverage_exact`` = k/(n + 1) (the coverage when the
        scores are almost surely distinct); with ``y``, also ``n_test``, ``coverage`` (empirical) and
        ``mean_size`` (mean interval length or set size).

        Parameters
        ----------
        y : array_like, shape (n_test,), optional
            The observed outcomes of the test points.

        Returns
        -------
        pandas.DataFrame
        """
        import pandas as pd

        n = np.asarray(self.group_n, dtype=np.int64)
        k = np.asarray(self.group_rank, dtype=np.int64)
        frame = pd.DataFrame({"group": list(self.groups) if self.groups is not None else ["all"],
                              "n_cal": n, "rank": k, "q": np.asarray(self.group_q, dtype=float),
                              "coverage_min": np.full(n.size, 1.0 - self.alpha),
                              "coverage_max": 1.0 - self.alpha + 1.0 / (n + 1),
                              "coverage_exact": np.minimum(k / (n + 1), 1.0)})
        if y is not None:
            hit = self._observed(y)
            size = self._size()
            if self.groups is None:
                codes = np.zeros(self.n_test, dtype=np.int64)
            else:
                import pandas as pd

                codes = pd.Index(pd.Series(self.groups, dtype=object)).get_indexer(
                    pd.Index(np.asarray(self.test_groups, dtype=object)))
            cnt = np.bincount(codes, minlength=n.size)
            with np.errstate(invalid="ignore", divide="ignore"):
                frame["n_test"] = cnt
                frame["coverage"] = np.bincount(codes, weights=hit.astype(float), minlength=n.size) / cnt
                frame["mean_size"] = np.bincount(codes, weights=size, minlength=n.size) / cnt
        return frame

    def _calibration_lines(self, digits: int = R_DIGITS) -> list[str]:
        a = self.alpha
        if self.groups is None:
            n, k, q = int(self.group_n[0]), int(self.group_rank[0]), float(self.group_q[0])
            lines = [f"alpha = {format_number(a, digits)}, calibration n = {n}, test n = {self.n_test}"]
            if np.isinf(q):
                lines.append(f"q = Inf (rank {k} > n: too few calibration scores; the sets are infinite)")
            else:
                lines.append(f"q = {format_number(q, digits)} (rank {k} of {n} scores)")
            lines.append(f"marginal coverage for exchangeable data: {format_number(1 - a, digits)} to "
                         f"{format_number(1 - a + 1 / (n + 1), digits)} (exactly "
                         f"{format_number(min(k / (n + 1), 1.0), digits)} for distinct scores)")
            return lines
        tab = self.coverage_table()
        lines = [f"alpha = {format_number(a, digits)}, Mondrian calibration in {len(self.groups)} groups, "
                 f"calibration n = {self.n_cal}, test n = {self.n_test}",
                 "coverage within each group for exchangeable data:", ""]
        show = tab.iloc[:30]
        lines.append(format_table([str(g) for g in show["group"]],
                                  {"n.cal": [int(v) for v in show["n_cal"]], "rank": [int(v) for v in show["rank"]],
                                   "q": show["q"].tolist(), "cover.min": show["coverage_min"].tolist(),
                                   "cover.max": show["coverage_max"].tolist()}, digits=digits))
        if len(tab) > 30:
            lines.append(f" ... {len(tab) - 30} more groups; see coverage_table()")
        return lines

    def _frame_index(self):
        return self.index
