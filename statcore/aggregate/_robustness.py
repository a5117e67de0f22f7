"""How much a ranking of methods by a composite score depends on the weights: the probability that
each method ranks first (and its mean rank) when the weights are drawn from a Dirichlet distribution
over the simplex, the exact weights at which two methods' composites cross (two components), and the
agreement of the rankings under a few named profiles."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._checks import (as_nonneg_scores, check_positive_int, check_positive_real, check_power_exponent,
                       check_seed)
from .._checks.public import public_function
from .._result import Result
from ._power import pmean_core
from ._profiles import resolve_profiles

__all__ = ["weight_robustness", "WeightRobustness", "profile_rank_stability", "ProfileRankStability"]

#: weight draws evaluated at once (bounds the (chunk, methods, components) array)
_CHUNK = 4096


def _read_table(table, name: str = "table"):
    """(values, method labels, component labels) of a methods x components table."""
    if isinstance(table, pd.DataFrame):
        methods = [str(i) for i in table.index]
        comps = [str(c) for c in table.columns]
    else:
        methods = comps = None
    X = as_nonneg_scores(table, name, ndim=2)
    m, k = X.shape
    if m < 2:
        raise ValueError(f"{name} needs at least two methods (rows) to rank, got {m}")
    methods = methods or [f"m{i + 1}" for i in range(m)]
    comps = comps or [f"c{j + 1}" for j in range(k)]
    return X, methods, comps


def _transform(x: np.ndarray, p: float) -> np.ndarray:
    """x**p (log x at p = 0): the power mean is monotone in the weighted average of these."""
    with np.errstate(divide="ignore"):
        return np.log(x) if p == 0 else x ** p


def crossing_weights(X: np.ndarray, p: float) -> list[tuple[int, int, float]]:
    """(i, j, w) for every pair of rows of an (m, 2) table whose power means are equal at the weights
    (w, 1 - w) with w strictly inside (0, 1). Exact: with g(x) = x**p (log x at p = 0) the power mean
    is a monotone function of w g(x1) + (1 - w) g(x2), so equality is the linear equation
    w d1 + (1 - w) d2 = 0 with d = g(a) - g(b), whose root is w = d2 / (d2 - d1). At p = -inf or inf
    the means are the minimum or maximum for every w in (0, 1): they never cross inside."""
    out = []
    if not np.isfinite(p):
        return out
    Xs = X / X.max()                                   # the power mean is scale-equivariant: w is unchanged
    G = _transform(Xs, p)
    m = X.shape[0]
    for i in range(m):
        for j in range(i + 1, m):
            d1, d2 = G[i, 0] - G[j, 0], G[i, 1] - G[j, 1]
            if not (np.isfinite(d1) and np.isfinite(d2)) or d1 == 0 or d2 == 0 or (d1 > 0) == (d2 > 0):
                continue
            out.append((i, j, float(d2 / (d2 - d1))))
    return out


@dataclass(frozen=True, eq=False, repr=False)
class WeightRobustness(Result):
    """Rank probabilities of methods under random weights (:func:`weight_robustness`).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per method: ``p_first`` (the probability of ranking first; ties at the top share it),
        ``p_first_std_error`` (its Monte Carlo standard error), ``mean_rank`` (1 = best) and
        ``mean_rank_std_error``.
    crossings : pandas.DataFrame
        With two components: one row per pair of methods whose composites cross inside the simplex:
        ``method1``, ``method2``, ``weight`` (the weight of the first component at which they are
        equal; the second has 1 - weight) and ``score`` (their common composite there). Empty with
        more than two components.
    concentration : float
        The Dirichlet concentration of the weight draws.
    p : float
    B : int
        Weight draws.

    Examples
    --------
    >>> import pandas as pd
    >>> from statcore import weight_robustness
    >>> t = pd.DataFrame({"privacy": [0.9, 0.6], "quality": [0.5, 0.8]}, index=["blur", "noise"])
    >>> res = weight_robustness(t, B=2000, seed=0)
    >>> res.crossings.round(4).to_dict("records")
    [{'method1': 'blur', 'method2': 'noise', 'weight': 0.5745, 'score': 0.6714}]
    """

    table: pd.DataFrame
    crossings: pd.DataFrame
    concentration: float
    p: float
    B: int

    def _repr_parts(self):
        best = self.table["p_first"].idxmax()
        return [("most_often_first", best), ("p_first", float(self.table["p_first"].max())),
                ("concentration", self.concentration), ("p", self.p), ("B", self.B)]

    def summary(self) -> str:
        head = (f"Rank robustness under Dirichlet({self.concentration:g}) weights (B = {self.B} draws), "
                f"power mean p = {self.p:g}\n\n")
        body = self.table.to_string(float_format=lambda v: f"{v:.4f}")
        cross = ""
        if len(self.crossings):
            cross = ("\n\nCrossing weights (weight of the first component):\n"
                     + self.crossings.to_string(index=False, float_format=lambda v: f"{v:.6f}"))
        return head + body + cross + "\n"

    def to_frame(self) -> pd.DataFrame:
        """One row per method: ``method``, ``p_first``, ``p_first_std_error``, ``mean_rank``,
        ``mean_rank_std_error``."""
        return self.table.reset_index(names="method")


@public_function(data=("table",), nan_policy=("raise",))
def weight_robustness(table, *, p=-1, concentration=1.0, B=10000, seed=None):
    """How often each method ranks first when the composite's weights are drawn at random.

    The weights are drawn from a Dirichlet(concentration, ..., concentration) distribution over the
    simplex (``concentration=1``: uniform); for each draw the methods are ranked by the weighted
    power mean of their components (1 = highest). Returned: each method's probability of ranking
    first (ties at the top share the draw) and its mean rank, with Monte Carlo standard errors, and,
    for two components, the exact weights at which two methods' composites are equal: with
    g(x) = x**p (log x at p = 0) the power mean is monotone in w g(x1) + (1 - w) g(x2), so the
    crossing solves a linear equation, w = d2 / (d2 - d1) with d = g(a) - g(b), for every real p
    (no root finder needed).

    Parameters
    ----------
    table : array_like or pandas.DataFrame, shape (m, K)
        One row per method (m >= 2), one column per component; non-negative scores, higher is better.
    p : float, default -1
        The power mean's exponent (-1: the weighted harmonic mean).
    concentration : float, default 1.0
        The Dirichlet concentration (issue 36 calls it ``alpha``; the naming table keeps ``alpha`` for
        an error rate): 1 is uniform on the simplex, larger values concentrate the weights near equal
        weights, smaller values near the corners.
    B : int, default 10000
        Weight draws.
    seed : None, int or numpy.random.Generator
        The seed of the draws.
    nan_policy : {"raise"}
        A NaN score is refused (a method without a score cannot be ranked).

    Returns
    -------
    WeightRobustness
        ``table`` (p_first, mean_rank with standard errors) and ``crossings``.

    References
    ----------
    Saisana, M., Saltelli, A. and Tarantola, S. (2005). Uncertainty and sensitivity analysis
    techniques as tools for the quality assessment of composite indicators. *J R Stat Soc A* 168,
    307-323 (random weights and rank frequencies).

    Examples
    --------
    >>> import pandas as pd
    >>> from statcore import weight_robustness
    >>> t = pd.DataFrame({"privacy": [0.9, 0.7, 0.5], "utility": [0.4, 0.7, 0.9]},
    ...                  index=["blur", "pixelate", "noise"])
    >>> res = weight_robustness(t, B=4000, seed=1)
    >>> res.table["p_first"].round(2).tolist()
    [0.22, 0.42, 0.36]
    >>> res.crossings.round(3).to_dict("records")[0]
    {'method1': 'blur', 'method2': 'pixelate', 'weight': 0.771, 'score': 0.7}
    """
    p = check_power_exponent(p, "p")
    concentration = check_positive_real(concentration, "concentration")
    B = check_positive_int(B, "B")
    rng = check_seed(seed)
    X, methods, comps = _read_table(table)
    m, k = X.shape
    if k < 2:
        raise ValueError(f"table needs at least two components (columns) to weigh, got {k}")
    from scipy.stats import rankdata

    W = rng.dirichlet(np.full(k, concentration), size=B)
    W = np.where(np.isfinite(W), W, 0.0)
    first = np.zeros(m)
    rank_sum = np.zeros(m)
    rank_sq = np.zeros(m)
    first_sq = np.zeros(m)
    for s in range(0, B, _CHUNK):
        Wc = W[s:s + _CHUNK]
        bad = ~(Wc.sum(axis=1) > 0)                    # a draw underflowed to all zeros: equal weights
        Wc = np.where(bad[:, None], 1.0, Wc)
        S = pmean_core(X[None, :, :], Wc[:, None, :], p)                 # (chunk, m)
        top = S == S.max(axis=1, keepdims=True)
        share = top / top.sum(axis=1, keepdims=True)
        r = rankdata(-S, axis=1, method="average")
        first += share.sum(axis=0)
        first_sq += (share ** 2).sum(axis=0)
        rank_sum += r.sum(axis=0)
        rank_sq += (r ** 2).sum(axis=0)
    p_first = first / B
    mean_rank = rank_sum / B
    denom = B * max(B - 1, 1)
    se_first = np.sqrt(np.maximum(first_sq - B * p_first ** 2, 0.0) / denom)
    se_rank = np.sqrt(np.maximum(rank_sq - B * mean_rank ** 2, 0.0) / denom)
    tab = pd.DataFrame({"p_first": p_first, "p_first_std_error": se_first, "mean_rank": mean_rank,
                        "mean_rank_std_error": se_rank}, index=pd.Index(methods, name="method"))
    rows = []
    if k == 2:
        for i, j, w in crossing_weights(X, p):
            rows.append({"method1": methods[i], "method2": methods[j], "weight": w,
                         "score": float(pmean_core(X[i], np.array([w, 1 - w]), p))})
    crossings = pd.DataFrame(rows, columns=["method1", "method2", "weight", "score"])
    return WeightRobustness(table=tab, crossings=crossings, concentration=concentration, p=p, B=int(B))


@dataclass(frozen=True, eq=False, repr=False)
class ProfileRankStability(Result):
    """Rankings of methods under named weight profiles (:func:`profile_rank_stability`).

    Attributes
    ----------
    scores : pandas.DataFrame
        Methods x profiles: each method's composite under each profile.
    ranks : pandas.DataFrame
        Methods x profiles: the ranks (1 = highest composite; ties averaged).
    kendall_tau : pandas.DataFrame
        Profiles x profiles: Kendall's tau-b between the profiles' composites over the methods (NaN
        where a profile ties every method: no ranking to compare).
    winners : pandas.Series
        The winning method of each profile (the first listed among tied winners).
    winner : str
        The method that wins under the most profiles.
    share_same_winner : float
        The share of profiles under which ``winner`` wins.
    p : float

    Examples
    --------
    >>> import pandas as pd
    >>> from statcore import profile_rank_stability
    >>> t = pd.DataFrame({"a": [0.9, 0.6], "b": [0.5, 0.8], "c": [0.7, 0.7]}, index=["blur", "noise"])
    >>> res = profile_rank_stability(t, ["balanced", "privacy_first", "utility_first"])
    >>> res.winners.tolist(), res.share_same_winner
    (['noise', 'blur', 'noise'], 0.6666666666666666)
    """

    scores: pd.DataFrame
    ranks: pd.DataFrame
    kendall_tau: pd.DataFrame
    winners: pd.Series
    winner: str
    share_same_winner: float
    p: float

    def _repr_parts(self):
        return [("winner", self.winner), ("share_same_winner", self.share_same_winner),
                ("profiles", len(self.winners)), ("p", self.p)]

    def summary(self) -> str:
        fmt = {"float_format": lambda v: f"{v:.4f}"}
        return (f"Rankings under {len(self.winners)} weight profiles (power mean p = {self.p:g})\n\nComposites:\n"
                + self.scores.to_string(**fmt) + "\n\nRanks (1 = best):\n" + self.ranks.to_string(**fmt)
                + "\n\nKendall's tau between profiles:\n" + self.kendall_tau.to_string(**fmt)
                + f"\n\nWinner: {self.winner} under {self.share_same_winner:.0%} of the profiles\n")

    def to_frame(self) -> pd.DataFrame:
        """One row per (method, profile): ``method``, ``profile``, ``estimate`` (the composite), ``rank``."""
        s = self.scores.stack().rename("estimate")
        r = self.ranks.stack().rename("rank")
        out = pd.concat([s, r], axis=1).reset_index()
        out.columns = ["method", "profile", "estimate", "rank"]
        return out


@public_function(data=("table", "profiles"), nan_policy=("raise",))
def profile_rank_stability(table, profiles, *, p=-1):
    """Whether the ranking of methods by a composite score survives a change of weight profile.

    Each method's composite (the weighted power mean of its components) is computed under every
    profile; returned are the rankings, Kendall's tau-b between the rankings of every two profiles
    and the share of profiles that keep the most frequent winner. (Issue 36 calls this
    ``rank_stability``; that name is taken by :func:`statcore.rank_stability`, the agreement of
    evaluation protocols.)

    Parameters
    ----------
    table : array_like or pandas.DataFrame, shape (m, K)
        One row per method (m >= 2), one column per component; non-negative scores, higher is better.
    profiles : dict or list of str
        At least two profiles: a dict ``{name: weights}`` (K weights each, or a dict component ->
        weight), or names of the built-in profiles of :func:`composite_score` (three components).
    p : float, default -1
        The power mean's exponent.
    nan_policy : {"raise"}
        A NaN score is refused.

    Returns
    -------
    ProfileRankStability
        ``scores``, ``ranks``, ``kendall_tau``, ``winners``, ``winner``, ``share_same_winner``.

    References
    ----------
    Kendall, M. G. (1945). The treatment of ties in ranking problems. *Biometrika* 33, 239-251.
    Saisana, M., Saltelli, A. and Tarantola, S. (2005). *J R Stat Soc A* 168, 307-323.

    Examples
    --------
    >>> import pandas as pd
    >>> from statcore import profile_rank_stability
    >>> t = pd.DataFrame({"x": [0.9, 0.7, 0.5], "y": [0.4, 0.7, 0.9]}, index=["A", "B", "C"])
    >>> res = profile_rank_stability(t, {"x-heavy": [9, 1], "even": [1, 1], "y-heavy": [1, 9]})
    >>> res.winners.tolist()
    ['A', 'B', 'C']
    >>> float(res.kendall_tau.loc["x-heavy", "y-heavy"])
    -1.0
    """
    from scipy.stats import kendalltau, rankdata

    p = check_power_exponent(p, "p")
    X, methods, comps = _read_table(table)
    if not isinstance(profiles, (dict, list, tuple, str)) and not hasattr(profiles, "items"):
        raise TypeError(f"profiles must be a dict name -> weights or a list of built-in names, got "
                        f"{type(profiles).__name__}")
    prof = resolve_profiles(profiles, None, comps, arg="profiles")
    if len(prof) < 2:
        raise ValueError(f"profiles needs at least two profiles to compare, got {len(prof)}")
    names = list(prof)
    W = np.stack([prof[k] for k in names])                                   # (P, K)
    S = pmean_core(X[:, None, :], W[None, :, :], p)                          # (m, P)
    R = rankdata(-S, axis=0, method="average")
    P = len(names)
    tau = np.eye(P)
    for a in range(P):
        for b in range(a + 1, P):
            if np.ptp(S[:, a]) == 0 or np.ptp(S[:, b]) == 0:
                t = np.nan
            else:
                t = float(kendalltau(S[:, a], S[:, b]).statistic)
            tau[a, b] = tau[b, a] = t
    win_idx = S.argmax(axis=0)
    winners = pd.Series([methods[i] for i in win_idx], index=pd.Index(names, name="profile"), name="winner")
    counts = winners.value_counts(sort=False)
    winner = str(counts.idxmax())
    idx_m = pd.Index(methods, name="method")
    idx_p = pd.Index(names, name="profile")
    return ProfileRankStability(scores=pd.DataFrame(S, index=idx_m, columns=idx_p),
                                ranks=pd.DataFrame(R, index=idx_m, columns=idx_p),
                                kendall_tau=pd.DataFrame(tau, index=idx_p, columns=idx_p.rename("profile2")),
                                winners=winners, winner=winner, share_same_winner=float(counts.max() / P), p=p)
