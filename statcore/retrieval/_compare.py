"""Two retrieval systems on the same queries: the paired Wilcoxon signed-rank test on per-query average
precision and McNemar's test on the rank-1 hits."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .._checks.public import public_function
from .._result import HTest, Result
from ._cmc import CMCMap

__all__ = ["compare_retrieval", "RetrievalComparison"]


@dataclass(frozen=True, eq=False, repr=False)
class RetrievalComparison(Result):
    """Two retrieval evaluations compared query by query (what :func:`compare_retrieval` returns).

    Attributes
    ----------
    wilcoxon : HTest or None
        The Wilcoxon signed-rank test of the per-query AP differences a - b (R's
        ``wilcox.test(ap_a, ap_b, paired = TRUE)``); None when every difference is 0.
    mcnemar : HTest or None
        McNemar's test of the rank-1 hits (R's ``mcnemar.test``, continuity correction); None when
        no query is a hit for one system and a miss for the other.
    mean_ap_diff, rank1_diff : float
        mAP(a) - mAP(b) and rank-1(a) - rank-1(b) over the queries compared.
    table : numpy.ndarray
        The 2 x 2 table of rank-1 outcomes: rows a hit / miss, columns b hit / miss.
    n : int
        Queries compared (evaluated by both).

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import cmc_map, compare_retrieval
    >>> ids = np.arange(4)
    >>> a = cmc_map(np.eye(4) * -1.0 + 1.0, ids, ids, max_rank=2, B=0)
    >>> b = cmc_map(np.array([[1.0, 0, 1, 1], [0, 1, 1, 1], [1, 1, 0, 1], [1, 1, 1, 0]]), ids, ids, max_rank=2, B=0)
    >>> res = compare_retrieval(a, b)
    >>> res.n, res.rank1_diff, res.table.tolist()
    (4, 0.5, [[2, 2], [0, 0]])
    """

    wilcoxon: HTest | None
    mcnemar: HTest | None
    mean_ap_diff: float
    rank1_diff: float
    table: np.ndarray
    n: int

    def _repr_parts(self):
        return [("n", self.n), ("mean_ap_diff", self.mean_ap_diff), ("rank1_diff", self.rank1_diff),
                ("wilcoxon_p_value", None if self.wilcoxon is None else self.wilcoxon.p_value),
                ("mcnemar_p_value", None if self.mcnemar is None else self.mcnemar.p_value)]

    def summary(self) -> str:
        out = [f"Retrieval comparison on {self.n} queries: mAP(a) - mAP(b) = {self.mean_ap_diff:.4f}, "
               f"rank-1(a) - rank-1(b) = {self.rank1_diff:.4f}"]
        out.append(self.wilcoxon.summary() if self.wilcoxon is not None else
                   "Wilcoxon signed-rank test not run: every per-query AP difference is 0\n")
        out.append(self.mcnemar.summary() if self.mcnemar is not None else
                   "McNemar's test not run: no query is a rank-1 hit for one system and a miss for the other\n")
        return "\n".join(out)

    def to_frame(self) -> pd.DataFrame:
        """One row per test: ``test``, ``statistic``, ``p_value``, ``estimate`` (the difference a - b)."""
        rows = []
        for name, t, est in (("wilcoxon_ap", self.wilcoxon, self.mean_ap_diff),
                             ("mcnemar_rank1", self.mcnemar, self.rank1_diff)):
            rows.append({"test": name, "statistic": np.nan if t is None else t.statistic,
                         "p_value": np.nan if t is None else t.p_value, "estimate": est, "n": self.n})
        return pd.DataFrame(rows)


def _wilcoxon_paired(x: np.ndarray, y: np.ndarray) -> HTest | None:
    """R's ``wilcox.test(x, y, paired = TRUE)``: zeros dropped; the exact null distribution when fewer
    than 50 differences remain without ties, else the normal approximation with the tie-corrected
    variance and the continuity correction. V is the sum of the ranks of the positive differences."""
    d = x - y
    d = d[d != 0]
    n = d.size
    if n == 0:
        return None
    r = stats.rankdata(np.abs(d))
    V = float(r[d > 0].sum())
    ties = np.unique(r).size < n
    exact = n < 50 and not ties
    res = stats.wilcoxon(d, zero_method="wilcox", correction=not exact, alternative="two-sided",
                         method="exact" if exact else "approx")
    method = "Wilcoxon signed rank " + ("exact test" if exact else "test with continuity correction")
    return HTest(statistic=V, statistic_name="V", p_value=float(res.pvalue), method=method,
                 data_name="per-query AP of a and b", alternative="two.sided",
                 null_value={"location shift": 0.0}, extras={"n_nonzero": int(n)})


@public_function(data=("a", "b"), nan_policy=None, samples="independent")
def compare_retrieval(a, b):
    """Compare two retrieval systems evaluated on the same queries (two :func:`cmc_map` results).

    The paired Wilcoxon signed-rank test of the per-query average precisions (as R's
    ``wilcox.test(ap_a, ap_b, paired = TRUE)``: zero differences dropped, exact below 50 untied
    differences, otherwise the normal approximation with continuity correction) and McNemar's test of
    the rank-1 hits (:func:`statcore.mcnemar_test`, R's ``mcnemar.test`` with continuity
    correction). The queries compared are those both evaluations kept (a query without a true match
    is skipped by both when they share the gallery ids and cameras).

    Parameters
    ----------
    a, b : CMCMap
        The two evaluations, over the same queries in the same order.

    Returns
    -------
    RetrievalComparison
        ``wilcoxon`` and ``mcnemar`` (HTests, None when undefined: no nonzero AP difference, no
        discordant rank-1 outcome), ``mean_ap_diff``, ``rank1_diff``, ``table``, ``n``.

    References
    ----------
    Wilcoxon, F. (1945). Individual comparisons by ranking methods. *Biometrics Bulletin* 1, 80-83.
    McNemar, Q. (1947). *Psychometrika* 12, 153-157. R: ``stats::wilcox.test``, ``stats::mcnemar.test``.

    Examples
    --------
    >>> import numpy as np
    >>> import statcore as sc
    >>> rng = np.random.default_rng(3)
    >>> ids = np.repeat(np.arange(30), 3)
    >>> base = rng.random((30, 90)) + (np.arange(30)[:, None] != ids[None, :])
    >>> a = sc.cmc_map(base, np.arange(30), ids, max_rank=5, B=0)
    >>> b = sc.cmc_map(base + 0.8 * rng.random((30, 90)), np.arange(30), ids, max_rank=5, B=0)
    >>> res = sc.compare_retrieval(a, b)
    >>> res.n, res.wilcoxon.method
    (30, 'Wilcoxon signed rank test with continuity correction')
    """
    for name, r in (("a", a), ("b", b)):
        if not isinstance(r, CMCMap):
            raise TypeError(f"{name} must be a cmc_map result (CMCMap), got {type(r).__name__}")
    if a.n_queries != b.n_queries:
        raise ValueError(f"a and b must evaluate the same queries: a has {a.n_queries}, b has {b.n_queries}")
    both = a.valid & b.valid
    n = int(both.sum())
    if n == 0:
        raise ValueError("a and b have no query evaluated by both")
    ap_a, ap_b = np.asarray(a.ap)[both], np.asarray(b.ap)[both]
    hit_a, hit_b = a.rank1_hit[both], b.rank1_hit[both]
    table = np.array([[np.sum(hit_a & hit_b), np.sum(hit_a & ~hit_b)],
                      [np.sum(~hit_a & hit_b), np.sum(~hit_a & ~hit_b)]], dtype=np.int64)
    mcnemar = None
    if table[0, 1] + table[1, 0] > 0:
        from ..effects import mcnemar_test

        mcnemar = mcnemar_test(table)
        mcnemar = HTest(**{**{f: getattr(mcnemar, f) for f in mcnemar.__dataclass_fields__},
                           "data_name": "rank-1 hits of a and b"})
    return RetrievalComparison(wilcoxon=_wilcoxon_paired(ap_a, ap_b), mcnemar=mcnemar,
                               mean_ap_diff=float(ap_a.mean() - ap_b.mean()),
                               rank1_diff=float(hit_a.mean() - hit_b.mean()), table=table, n=n)
