"""Re-identification metrics: the CMC curve, mAP and mINP of a query-gallery distance matrix, with
bootstrap intervals over the queries (the resampling engine's ``run_resamples``).

The Market-1501 protocol as torchreid's ``eval_market1501`` evaluates it: for each query the gallery
entries with the query's id taken by the query's camera are removed, the others are ranked by
distance, and a query without any true match left is skipped (and counted). The ranking is never
sorted in full: ``_kernels.query_scan`` finds the ranks of the true matches only.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._checks import as_distance_matrix, as_labels, check_choice, check_positive_int, check_probability
from .._checks.public import public_function
from .._result import Result

__all__ = ["cmc_map", "CMCMap"]

#: queries handed to the compiled scan at a time
_CHUNK = 512
_TIES = ("stable", "optimistic", "pessimistic")


@dataclass(frozen=True, eq=False, repr=False)
class CMCMap(Result):
    """Retrieval metrics of a query-gallery distance matrix (what :func:`cmc_map` returns).

    Attributes
    ----------
    cmc : numpy.ndarray
        The cumulative matching characteristic at ranks 1..max_rank: the share of the evaluated
        queries whose first true match is within the rank.
    mean_ap, mean_inp : float
        mAP (the mean over the evaluated queries of the average precision) and mINP (the mean of
        (number of true matches) / (rank of the last true match)).
    cmc_conf : numpy.ndarray, shape (max_rank, 2)
        Bootstrap percentile intervals of the CMC, one row (low, high) per rank.
    mean_ap_conf, mean_inp_conf : tuple (low, high)
        Bootstrap percentile intervals of mAP and mINP (NaN with ``B = 0``).
    ap, inp : numpy.ndarray
        Per query (all queries, in input order): the average precision and the inverse negative
        penalty; NaN for a skipped query.
    first_hit : numpy.ndarray
        Per query: the rank of the first true match (1 = top), 0 for a skipped query.
    n_matches : numpy.ndarray
        Per query: the number of true matches evaluated (0: skipped).
    max_rank : int
        The last rank of the CMC (at most the gallery size).
    exclude, ties : str
        The protocol's exclusion rule and the tie rule.
    conf_level : float
    B : int
        Bootstrap resamples of the queries.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import cmc_map
    >>> dist = np.array([[0.1, 0.5, 0.3], [0.4, 0.2, 0.9]])
    >>> res = cmc_map(dist, [1, 2], [1, 2, 1], max_rank=3, B=0)
    >>> res.cmc.tolist(), round(res.mean_ap, 4)
    ([1.0, 1.0, 1.0], 1.0)
    """

    cmc: np.ndarray
    mean_ap: float
    mean_inp: float
    cmc_conf: np.ndarray
    mean_ap_conf: tuple
    mean_inp_conf: tuple
    ap: np.ndarray
    inp: np.ndarray
    first_hit: np.ndarray
    n_matches: np.ndarray
    max_rank: int
    exclude: str
    ties: str
    conf_level: float
    B: int

    @property
    def valid(self) -> np.ndarray:
        """Per query: whether it was evaluated (it has a true match after the exclusion)."""
        return np.asarray(self.n_matches) > 0

    @property
    def rank1_hit(self) -> np.ndarray:
        """Per query: whether the top-ranked gallery entry is a true match (False for a skipped query)."""
        return np.asarray(self.first_hit) == 1

    @property
    def n_queries(self) -> int:
        """All queries given."""
        return int(np.asarray(self.n_matches).size)

    @property
    def n_valid(self) -> int:
        """Queries evaluated."""
        return int(self.valid.sum())

    @property
    def n_skipped(self) -> int:
        """Queries skipped: no true match in the gallery after the exclusion."""
        return self.n_queries - self.n_valid

    def _repr_parts(self):
        return [("rank1", float(self.cmc[0])), ("mean_ap", self.mean_ap), ("mean_inp", self.mean_inp),
                ("n_valid", self.n_valid), ("n_skipped", self.n_skipped)]

    def summary(self) -> str:
        level = f"{100 * self.conf_level:g}%"
        ranks = [r for r in (1, 5, 10, 20, 50) if r <= self.max_rank]
        lines = [f"Retrieval evaluation ({self.n_valid} queries evaluated, {self.n_skipped} skipped without a "
                 f"true match; exclude = {self.exclude}, ties = {self.ties})"]
        if self.B > 0:
            lines.append(f"{level} bootstrap intervals over queries, B = {self.B}")
        frame = self.to_frame()
        keep = frame["quantity"].isin(["map", "minp"] + [f"rank_{r}" for r in ranks])
        lines.append(frame.loc[keep].to_string(index=False, float_format=lambda v: f"{v:.4f}"))
        return "\n".join(lines) + "\n"

    def to_frame(self) -> pd.DataFrame:
        """One row per quantity: ``rank_1`` .. ``rank_<max_rank>`` (the CMC), ``map``, ``minp``;
        columns ``quantity``, ``estimate``, ``conf_low``, ``conf_high``."""
        k = int(self.max_rank)
        conf = np.asarray(self.cmc_conf)
        return pd.DataFrame({
            "quantity": [f"rank_{r}" for r in range(1, k + 1)] + ["map", "minp"],
            "estimate": np.concatenate([np.asarray(self.cmc), [self.mean_ap, self.mean_inp]]),
            "conf_low": np.concatenate([conf[:, 0], [self.mean_ap_conf[0], self.mean_inp_conf[0]]]),
            "conf_high": np.concatenate([conf[:, 1], [self.mean_ap_conf[1], self.mean_inp_conf[1]]]),
        })

    def _plot(self, ax=None):
        """The CMC curve with its bootstrap band."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.2), layout="constrained")
        r = np.arange(1, int(self.max_rank) + 1)
        conf = np.asarray(self.cmc_conf)
        if self.B > 0:
            ax.fill_between(r, conf[:, 0], conf[:, 1], color="C0", alpha=0.25, lw=0)
        ax.plot(r, self.cmc, "o-", color="C0", ms=3)
        ax.set_xlabel("rank")
        ax.set_ylabel("matching rate (CMC)")
        ax.set_ylim(0, 1.02)
        ax.set_title(f"mAP {self.mean_ap:.3f}, mINP {self.mean_inp:.3f}")
        return ax


# ----------------------------------------------------------------------------------------------
# the bootstrap over queries
# ----------------------------------------------------------------------------------------------

class _QueryDraw:
    """``size`` bootstrap resamples of n queries, as resample counts (size, n)."""

    def __init__(self, n: int):
        self.n = int(n)

    def __call__(self, rng: np.random.Generator, size: int) -> np.ndarray:
        idx = rng.integers(0, self.n, (size, self.n))
        flat = (idx + (np.arange(size, dtype=np.int64) * self.n)[:, None]).ravel()
        return np.bincount(flat, minlength=size * self.n).reshape(size, self.n).astype(np.float64)


class _QueryMeans:
    """The per-query columns' means under each resample: counts @ columns / n."""

    def __init__(self, columns: np.ndarray):
        self.columns = columns

    def __call__(self, counts: np.ndarray) -> np.ndarray:
        return counts @ self.columns / self.columns.shape[0]


def _interval(boot: np.ndarray, conf_level: float) -> np.ndarray:
    a = (1 - conf_level) / 2
    return np.quantile(boot, [a, 1 - a], axis=0).T  # (quantities, 2)


# ----------------------------------------------------------------------------------------------
# the public function
# ----------------------------------------------------------------------------------------------

def _codes(query_ids: np.ndarray, gallery_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes of the labels, shared by queries and gallery (query labels absent from the gallery: -1)."""
    levels, g = np.unique(gallery_ids, return_inverse=True)
    pos = np.searchsorted(levels, query_ids)
    pos = np.minimum(pos, levels.size - 1)
    found = levels[pos] == query_ids
    return np.where(found, pos, -1).astype(np.int64), g.astype(np.int64).reshape(-1)


@public_function(data=("dist", "query_ids", "gallery_ids"), nan_policy=None, samples="independent")
def cmc_map(dist, query_ids, gallery_ids, *, query_cams=None, gallery_cams=None, max_rank=50,
            exclude="same_id_same_camera", ties="stable", conf_level=0.95, B=1000, seed=None):
    """CMC curve, mAP and mINP of a retrieval (re-identification) evaluation, with bootstrap intervals.

    Each query ranks the gallery by increasing distance. Under the Market-1501 protocol
    (``exclude="same_id_same_camera"``) the gallery entries with the query's id *and* the query's
    camera are removed first (the same person seen by the same camera is not a re-identification);
    the true matches are the remaining entries with the query's id. A query with no true match left
    is skipped and counted (``n_skipped``), as torchreid's ``eval_market1501`` does. For each
    evaluated query with m true matches at ranks r_1 < ... < r_m:

    - CMC at rank k: whether r_1 <= k (averaged over queries: the matching rate);
    - average precision: AP = (1/m) sum_k k / r_k;
    - inverse negative penalty: INP = m / r_m (Ye et al. 2021; fast-reid's and torchreid's mINP).

    Ids are labels compared for equality only: no id is special. Market-1501's "junk" images (id -1)
    are dropped before evaluation by torchreid's data loader, not by its evaluation; drop them from
    the gallery (and its rows of ``dist``) likewise. Distractors (id 0) stay, as in the benchmark:
    they are never a query's true match.

    Intervals are bootstrap percentile intervals over the evaluated queries (the queries are
    resampled with replacement, the gallery is held fixed), through the resampling engine.

    Parameters
    ----------
    dist : array_like, shape (n_queries, n_gallery)
        Distances (smaller = more similar), finite. float32 is read as it is (no float64 copy).
    query_ids, gallery_ids : array_like
        The identity label of each query (row) and of each gallery entry (column).
    query_cams, gallery_cams : array_like, optional
        The camera of each query and gallery entry; both or neither. Without them nothing is removed.
    max_rank : int
        The last rank of the CMC curve (lowered to the gallery size when larger, as torchreid does).
    exclude : {"same_id_same_camera", "none"}
        The protocol's removal rule; "none" keeps every gallery entry (a gallery disjoint from the
        queries).
    ties : {"stable", "optimistic", "pessimistic"}
        Entries at equal distance: "stable" ranks them by gallery index (a stable sort of the row);
        "optimistic" puts the true matches first, "pessimistic" last. torchreid sorts with numpy's
        unstable quicksort, so its order of tied entries is not defined; on distances without ties
        all rules agree.
    conf_level : float
        The coverage of the intervals.
    B : int
        Bootstrap resamples of the queries; 0 skips the intervals (their ends are NaN).
    seed : None, int, numpy.random.Generator or numpy.random.SeedSequence
        The seed of the bootstrap streams.

    Returns
    -------
    CMCMap
        ``cmc``, ``mean_ap``, ``mean_inp`` with their intervals, and per query ``ap``, ``inp``,
        ``first_hit``, ``n_matches`` (``rank1_hit`` and ``valid`` as properties).

    References
    ----------
    Zheng, L. et al. (2015). Scalable person re-identification: a benchmark. *ICCV* (Market-1501 and
    its protocol). Ye, M. et al. (2021). Deep learning for person re-identification: a survey and
    outlook. *IEEE TPAMI* 44, 2872-2893 (mINP). torchreid's ``metrics/rank.py`` (``eval_market1501``)
    and fast-reid's ``evaluation/rank.py``.

    Examples
    --------
    >>> import numpy as np
    >>> import statcore as sc
    >>> rng = np.random.default_rng(0)
    >>> gallery_ids = np.repeat(np.arange(20), 5)
    >>> gallery_cams = np.tile(np.arange(5), 20)
    >>> query_ids, query_cams = np.arange(20), np.zeros(20, dtype=int)
    >>> dist = rng.random((20, 100)) + 0.5 * (query_ids[:, None] != gallery_ids[None, :])
    >>> res = sc.cmc_map(dist, query_ids, gallery_ids, query_cams=query_cams, gallery_cams=gallery_cams,
    ...                  max_rank=10, B=200, seed=1)
    >>> round(float(res.cmc[0]), 2), round(res.mean_ap, 3), res.n_skipped
    (1.0, 0.693, 0)
    """
    D = as_distance_matrix(dist, "dist")
    nq, ng = D.shape
    qid = as_labels(query_ids, "query_ids", nq, "rows of dist")
    gid = as_labels(gallery_ids, "gallery_ids", ng, "columns of dist")
    if (query_cams is None) != (gallery_cams is None):
        raise ValueError("query_cams and gallery_cams go together: pass both or neither")
    exclude = check_choice(exclude, "exclude", ("same_id_same_camera", "none"))
    ties = check_choice(ties, "ties", _TIES)
    max_rank = min(check_positive_int(max_rank, "max_rank"), ng)
    conf_level = check_probability(conf_level, "conf_level", open_left=True, open_right=True)
    B = check_positive_int(B, "B", minimum=0)
    use_cams = exclude == "same_id_same_camera" and query_cams is not None
    if query_cams is not None:
        qcam_l = as_labels(query_cams, "query_cams", nq, "rows of dist")
        gcam_l = as_labels(gallery_cams, "gallery_cams", ng, "columns of dist")
        qcam, gcam = _codes(qcam_l, gcam_l)
    else:
        qcam, gcam = np.zeros(nq, np.int64), np.zeros(ng, np.int64)
    try:
        qcode, gcode = _codes(qid, gid)
    except TypeError:
        raise TypeError("query_ids and gallery_ids must be labels of one kind (both numbers or both text)") from None
    order = np.argsort(gcode, kind="stable").astype(np.int64)
    starts = np.searchsorted(gcode[order], np.arange(int(gcode.max()) + 2)).astype(np.int64)

    from ._kernels import query_scan

    first_hit = np.zeros(nq, np.int64)
    n_match = np.zeros(nq, np.int64)
    ap = np.empty(nq)
    inp = np.empty(nq)
    tie = _TIES.index(ties)
    for q0 in range(0, nq, _CHUNK):
        query_scan(D, q0, min(q0 + _CHUNK, nq), qcode, qcam, gcode, gcam, order, starts, use_cams, tie,
                   first_hit, n_match, ap, inp)
    valid = n_match > 0
    n_valid = int(valid.sum())
    if n_valid == 0:
        raise ValueError("no query has a true match in the gallery after the exclusion: query_ids and "
                         "gallery_ids share no label (or every match was taken by the query's camera)")
    hits = (first_hit[valid, None] <= np.arange(1, max_rank + 1)[None, :]).astype(np.float64)
    columns = np.column_stack([hits, ap[valid], inp[valid]])
    est = columns.mean(axis=0)
    if B > 0:
        from .._resampling import root_seed, run_resamples

        boot = run_resamples(_QueryDraw(n_valid), _QueryMeans(columns), B, seed=root_seed(seed),
                             bytes_per_resample=8.0 * (3 * n_valid + columns.shape[1]))
        conf = _interval(np.asarray(boot).reshape(B, columns.shape[1]), conf_level)
    else:
        conf = np.full((columns.shape[1], 2), np.nan)
    return CMCMap(cmc=est[:max_rank], mean_ap=float(est[-2]), mean_inp=float(est[-1]), cmc_conf=conf[:max_rank],
                  mean_ap_conf=(float(conf[-2, 0]), float(conf[-2, 1])),
                  mean_inp_conf=(float(conf[-1, 0]), float(conf[-1, 1])), ap=ap, inp=inp, first_hit=first_hit,
                  n_matches=n_match, max_rank=max_rank, exclude=exclude, ties=ties, conf_level=conf_level, B=B)
