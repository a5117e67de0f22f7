"""Rank stability of a models x protocols table of scores: agreement between protocols (Kendall's
tau_b, Kendall's W and its chi-square test), each model's rank range, and bootstrap probabilities that
two models swap order when the evaluated samples are resampled."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._checks import as_float_array, check_flag, check_n_jobs, check_positive_int, check_progress, check_seed
from .._checks.public import public_function
from .._result import HTest, Result

__all__ = ["RankStabilityResult", "rank_stability"]


def _ranks(table: np.ndarray, lower_is_better: bool) -> np.ndarray:
    """Average ranks (1 = best) of the models (rows) within every protocol (column)."""
    from scipy.stats import rankdata
    return rankdata(table if lower_is_better else -table, axis=0, method="average")


def _kendall_w(ranks: np.ndarray) -> tuple[float, float, int, float]:
    """Kendall's W with the tie correction, its chi-square statistic m (n - 1) W, df n - 1 and p-value."""
    from scipy.stats import chi2
    n, m = ranks.shape  # n objects (models), m raters (protocols)
    r = ranks.sum(axis=1)
    s = float(((r - r.mean()) ** 2).sum())
    ties = 0.0
    for j in range(m):
        _, t = np.unique(ranks[:, j], return_counts=True)
        ties += float((t ** 3 - t).sum())
    denom = m ** 2 * (n ** 3 - n) - m * ties
    w = s * 12.0 / denom if denom > 0 else float("nan")
    stat = m * (n - 1) * w
    return w, stat, n - 1, float(chi2.sf(stat, n - 1))


@dataclass(frozen=True, repr=False)
class RankStabilityResult(Result):
    """How stable the ranking of models is across evaluation protocols (and across resampled samples).

    Attributes
    ----------
    scores, ranks : pandas.DataFrame
        Models x protocols: the scores and the ranks within each protocol (1 = best, ties averaged).
    tau : pandas.DataFrame
        Protocols x protocols Kendall tau_b between the rankings.
    w : float
        Kendall's W (tie-corrected).
    w_test : HTest
        Its test of "no agreement": the chi-square statistic m (n - 1) W on n - 1 degrees of freedom
        (equal to Friedman's test with protocols as blocks), as R's ``DescTools::KendallW(test = TRUE)``;
        ``statistic``, ``df`` and ``p_value`` are its statistic, degrees of freedom and p-value.
    swap : pandas.DataFrame or None
        One row per pair of models and protocol: ``model_a`` (ranked ahead), ``model_b``, ``protocol``,
        ``p_swap`` (bootstrap probability that b scores strictly ahead of a); None without a ``score``
        callable.
    B : int
        Bootstrap replicates behind ``swap`` (0: none).

    Examples
    --------
    >>> import pandas as pd
    >>> from statcore import rank_stability
    >>> table = pd.DataFrame({"p1": [1.0, 2.0, 3.0], "p2": [2.0, 1.0, 3.0]}, index=["a", "b", "c"])
    >>> rank_stability(table).to_frame()
      model  mean_rank  best_rank  worst_rank  rank_range
    0     a        1.5        1.0         2.0         1.0
    1     b        1.5        1.0         2.0         1.0
    2     c        3.0        3.0         3.0         0.0
    """

    scores: Any = field(repr=False)
    ranks: Any = field(repr=False)
    tau: Any = field(repr=False)
    w: float
    w_test: HTest = field(repr=False)
    swap: Any = field(repr=False, default=None)
    B: int = 0

    @property
    def statistic(self) -> float:
        """Kendall's chi-squared, m (n - 1) W (``w_test.statistic``)."""
        return self.w_test.statistic

    @property
    def df(self) -> int:
        """Its degrees of freedom, n - 1."""
        return int(self.w_test.parameter["df"])

    @property
    def p_value(self) -> float:
        """The p-value of "no agreement" (``w_test.p_value``)."""
        return self.w_test.p_value

    def _repr_parts(self):
        return [("w", self.w), ("p_value", self.p_value), ("B", self.B)]

    def rank_range(self):
        """Per model: mean, best and worst rank over the protocols and the range (worst - best)."""
        import pandas as pd
        r = self.ranks
        return pd.DataFrame({"mean_rank": r.mean(axis=1), "best_rank": r.min(axis=1), "worst_rank": r.max(axis=1),
                             "rank_range": r.max(axis=1) - r.min(axis=1)}).rename_axis("model")

    def summary(self) -> str:
        import pandas as pd
        lines = ["", "\tRank stability across evaluation protocols",
                 self.w_test.summary().rstrip("\n"), "", "Ranks (1 = best):",
                 pd.concat([self.ranks, self.rank_range()[["rank_range"]]], axis=1).to_string(), "",
                 "Kendall's tau_b between protocols:", self.tau.round(3).to_string()]
        if self.swap is not None and len(self.swap):
            top = self.swap.sort_values("p_swap", ascending=False).head(10)
            lines += ["", f"Largest swap probabilities (bootstrap of the samples, B = {self.B}):",
                      top.to_string(index=False)]
        return "\n".join(lines) + "\n"

    def to_frame(self):
        """One row per model: ``model``, ``mean_rank``, ``best_rank``, ``worst_rank``, ``rank_range``."""
        return self.rank_range().reset_index()

    def _plot(self, ax=None, **kwargs):
        """A bump chart: each model's rank (1 at the top) across the protocols."""
        import matplotlib.pyplot as plt
        if ax is None:
            _, ax = plt.subplots(figsize=(1.2 * self.ranks.shape[1] + 3, 0.35 * self.ranks.shape[0] + 2))
        cols = list(self.ranks.columns)
        xs = np.arange(len(cols))
        for i, model in enumerate(self.ranks.index):
            r = self.ranks.loc[model].to_numpy()
            ax.plot(xs, r, "-o", color=f"C{i % 10}", **kwargs)
            ax.annotate(str(model), (xs[-1], r[-1]), xytext=(6, 0), textcoords="offset points", va="center",
                        fontsize=8, color=f"C{i % 10}")
        ax.set_xticks(xs)
        ax.set_xticklabels([str(c) for c in cols], rotation=30, ha="right")
        ax.set_ylabel("rank (1 = best)")
        ax.set_xlabel("evaluation protocol")
        ax.set_title(f"Rank of each model under each protocol (Kendall's W = {self.w:.3f})", fontsize=10)
        ax.invert_yaxis()
        ax.set_xlim(-0.3, len(cols) - 0.4)
        return ax


class _IndexDraw:
    def __init__(self, n_samples: int):
        self.n_samples = n_samples

    def __call__(self, rng, size: int) -> np.ndarray:
        return np.stack([rng.integers(0, self.n_samples, self.n_samples) for _ in range(size)])


class _ScoreChunk:
    def __init__(self, score, labels_m, labels_p):
        self.score, self.labels_m, self.labels_p = score, labels_m, labels_p

    def __call__(self, idx: np.ndarray) -> np.ndarray:
        out = np.empty((idx.shape[0], len(self.labels_m), len(self.labels_p)))
        for b in range(idx.shape[0]):
            for i, model in enumerate(self.labels_m):
                for j, prot in enumerate(self.labels_p):
                    out[b, i, j] = float(self.score(model, prot, idx[b]))
        return out


@public_function(data=("scores",), nan_policy=("raise",))
def rank_stability(scores, *, score=None, n_samples=None, B=200, seed=None, lower_is_better=True, n_jobs=1,
                   progress=None):
    """Agreement of model rankings across evaluation protocols, and their bootstrap stability.

    Parameters
    ----------
    scores : pandas.DataFrame or array_like, shape (models, protocols)
        One score per model (rows) and protocol (columns), e.g. FIDs under different extractors,
        reference sets or sample sizes. An array gets labels ``model0``, ... and ``protocol0``, ....
    score : callable, optional
        ``score(model, protocol, indices) -> float``: the score of ``model`` under ``protocol`` computed
        from the samples ``indices`` (an int array of length ``n_samples`` drawn with replacement from
        ``range(n_samples)``; with ``indices = arange(n_samples)`` it should give the table's value).
        Models and protocols are the labels of ``scores``. This is how the bootstrap resamples the
        SAMPLES (generated images, their features), not the scores: within a replicate the same index
        vector is passed for every model and protocol, so a protocol's comparisons stay paired where
        samples are aligned (e.g. the i-th sample of each model from the same latent or class).
    n_samples : int, optional
        Number of samples behind each score (required with ``score``).
    B : int
        Bootstrap replicates (used only with ``score``).
    seed : None, int or numpy.random.Generator
        Randomness of the bootstrap.
    lower_is_better : bool
        True for distances (FD, KID), False for scores where higher is better (precision, coverage).
    n_jobs : int
        Workers over the bootstrap replicates (joblib's convention; ``score`` must then be picklable
        for a process backend); the result does not depend on it.
    progress : bool or None
        A progress bar over the bootstrap replicates (None: only on a terminal).
    nan_policy : {"raise"}
        A missing score is refused, naming the count (dropping a model or a protocol would change the
        ranking problem: drop it from the table yourself).

    Returns
    -------
    RankStabilityResult
        ``ranks``, ``tau``, Kendall's ``w`` and its test ``w_test`` (an HTest: ``statistic``, ``df``,
        ``p_value``), ``rank_range()``,
        ``swap``; ``plot()`` draws a bump chart.

    References
    ----------
    Kendall, M. G. & Babington Smith, B. (1939). The problem of m rankings. Annals of Mathematical
    Statistics 10, 275-287. Kendall, M. G. (1945). The treatment of ties in ranking problems.
    Biometrika 33, 239-251 (tau_b).

    Examples
    --------
    >>> import pandas as pd
    >>> from statcore import rank_stability
    >>> table = pd.DataFrame({"inception": [10.0, 12.0, 15.0], "dinov2": [100.0, 90.0, 140.0]},
    ...                      index=["gan", "diffusion", "vae"])
    >>> res = rank_stability(table)
    >>> res.ranks["dinov2"].tolist()
    [2.0, 1.0, 3.0]
    >>> round(res.w, 3)
    0.75
    """
    import pandas as pd
    from scipy.stats import kendalltau

    if isinstance(scores, pd.DataFrame):
        labels_m, labels_p = list(scores.index), list(scores.columns)
        values = as_float_array(scores.to_numpy(), "scores")
    else:
        values = as_float_array(scores, "scores")
        if values.ndim != 2:
            raise ValueError(f"scores must be a models x protocols table (2-dimensional), got shape {values.shape}")
        labels_m = [f"model{i}" for i in range(values.shape[0])]
        labels_p = [f"protocol{j}" for j in range(values.shape[1])]
    if values.ndim != 2 or values.shape[0] < 2 or values.shape[1] < 2:
        raise ValueError(f"scores needs at least 2 models (rows) and 2 protocols (columns), got shape {values.shape}")
    for what, labels in (("models (rows)", labels_m), ("protocols (columns)", labels_p)):
        seen = set()
        dup = next((lab for lab in labels if lab in seen or seen.add(lab)), None)
        if dup is not None:
            raise ValueError(f"scores has the label {dup!r} twice among its {what}; labels must be unique")
    tied = [str(labels_p[j]) for j in range(values.shape[1]) if np.all(values[:, j] == values[0, j])]
    if tied:
        raise ValueError(f"scores gives every model the same score under {', '.join(map(repr, tied))}: such a "
                         "protocol ranks nothing (its Kendall tau is 0/0, and so is W when all are tied); drop it")
    lower_is_better = check_flag(lower_is_better, "lower_is_better")
    ranks = _ranks(values, lower_is_better)
    n, m = ranks.shape
    tau = np.eye(m)
    for a in range(m):
        for b in range(a + 1, m):
            t = kendalltau(values[:, a], values[:, b]).statistic  # tau_b
            tau[a, b] = tau[b, a] = t
    w, stat, df, p = _kendall_w(ranks)
    swap = None
    B_used = 0
    if score is not None:
        if not callable(score):
            raise TypeError(f"score must be a callable score(model, protocol, indices), got {type(score).__name__}")
        if n_samples is None:
            raise ValueError("n_samples is required with score: the number of samples the indices range over")
        n_samples = check_positive_int(n_samples, "n_samples", minimum=2)
        B_used = check_positive_int(B, "B")
        rng = check_seed(seed)
        n_jobs, progress = check_n_jobs(n_jobs), check_progress(progress)
        from .._resampling import run_stream

        # the index vectors drawn in order from rng (the same whatever n_jobs), scored on n_jobs workers in
        # chunks of 16 replicates (score is a Python callback: a chunk is the unit of parallel work)
        per = 8.0 * n_samples
        parts = run_stream(_IndexDraw(n_samples), _ScoreChunk(score, labels_m, labels_p), B_used, rng=rng,
                           bytes_per_resample=per, budget=16 * per, n_jobs=n_jobs, progress=progress,
                           desc="bootstrap")
        boot = np.concatenate(parts, axis=0)
        if not np.all(np.isfinite(boot)):
            raise ValueError("score returned a non-finite value on a bootstrap resample")
        sign = 1.0 if lower_is_better else -1.0
        rows = []
        for j, prot in enumerate(labels_p):
            for a in range(n):
                for c in range(a + 1, n):
                    first, second = (a, c) if sign * values[a, j] <= sign * values[c, j] else (c, a)
                    flips = sign * boot[:, second, j] < sign * boot[:, first, j]
                    rows.append({"model_a": labels_m[first], "model_b": labels_m[second], "protocol": prot,
                                 "p_swap": float(flips.mean())})
        swap = pd.DataFrame(rows)
    return RankStabilityResult(
        scores=pd.DataFrame(values, index=labels_m, columns=labels_p),
        ranks=pd.DataFrame(ranks, index=labels_m, columns=labels_p),
        tau=pd.DataFrame(tau, index=labels_p, columns=labels_p),
        w=float(w), w_test=HTest(statistic=float(stat), statistic_name="Kendall chi-squared", parameter={"df": int(df)},
                                 p_value=p, estimate={"W": float(w)}, null_value={"W": 0.0}, alternative="greater",
                                 method="Kendall's coefficient of concordance W (tie-corrected)",
                                 data_name=f"{n} models x {m} protocols"),
        swap=swap, B=B_used)
