"""Independent hypothesis weighting (IHW), as Bioconductor IHW 1.26.0 ``ihw()``.

Ignatiadis, Klaus, Zaugg & Huber (2016) and Ignatiadis & Huber (2021): stratify the hypotheses by
an independent covariate, learn one weight per stratum on the other folds by the LP relaxation
(Grenander estimators of the strata, a bound on the weights' total variation chosen by nested
cross-validation), and run the weighted Benjamini-Hochberg (or Bonferroni) procedure.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import (InputWrapper, as_ihw_covariate, as_pvalues, check_choice, check_flag,
                       check_ihw_folds, check_ihw_lambdas, check_ihw_nbins, check_probability, check_seed)
from .._checks.public import public_function
from .._r.rformat import format_number
from .._result import Result, StatcoreWarning
from ._ihw_kernels import (Pieces, bh_rejections, knapsack_thresholds, lp_thresholds, penalty_holds,
                           thresholds_to_weights, weighted_pvalues)
from ._padjust import p_adjust

__all__ = ["ihw", "IHWResult"]

_NFOLDS_INTERNAL = 5          # R's nfolds_internal
_NULL_PROPORTION_LEVEL = 0.5  # R's null_proportion_level
_MIN_STRATUM = 1000           # below this R recommends more p-values per stratum


@dataclass(frozen=True, eq=False, repr=False)
class IHWResult(Result):
    """The result of :func:`ihw` (R's ``ihwResult``).

    Attributes
    ----------
    p_values, covariate : ndarray or pandas Series
        The input p-values and covariate (NaN where ``nan_policy="omit"`` omitted a hypothesis).
    weights : ndarray or pandas Series
        The weight of each hypothesis (its stratum's weight in its fold; NaN where omitted).
    weighted_p_values : ndarray or pandas Series
        ``p / weight``, capped at 1 (0 where p is 0, 1 where the weight is 0).
    adj_p_values : ndarray or pandas Series
        The weighted BH (or Bonferroni) adjusted p-values, R's ``adj_pvalues``.
    rejected : ndarray or pandas Series of bool
        ``adj_p_values <= alpha``.
    groups, folds : ndarray or pandas Series
        The stratum and the fold of each hypothesis.
    weight_table : pandas DataFrame
        The weights, stratum by fold (R's ``weights(res, levels_only = TRUE)``).
    lambda_ : ndarray
        The total-variation bound used in each fold (R's ``regularization_term``).
    alpha : float
    n_rejections : int
    nbins, nfolds : int
    adjustment_type : str
        "BH" or "bonferroni".
    covariate_type : str
        "ordinal" or "nominal".
    null_proportion : bool

    Examples
    --------
    >>> import numpy as np, statcore as sc
    >>> rng = np.random.default_rng(1)
    >>> x = rng.uniform(size=6000)
    >>> res = sc.ihw(rng.uniform(size=6000) ** (1 + x), x, nbins=4, lambdas=np.inf, seed=1)
    >>> res.weight_table.shape
    (4, 5)
    >>> res.to_frame().columns.tolist()
    ['p_value', 'covariate', 'group', 'fold', 'weight', 'weighted_p_value', 'p_adjusted', 'rejected']
    """

    p_values: Any
    covariate: Any
    weights: Any
    weighted_p_values: Any
    adj_p_values: Any
    rejected: Any
    groups: Any
    folds: Any
    weight_table: Any
    lambda_: np.ndarray
    alpha: float
    n_rejections: int
    nbins: int
    nfolds: int
    adjustment_type: str
    covariate_type: str
    null_proportion: bool

    def _repr_parts(self):
        return [("alpha", self.alpha), ("n_rejections", self.n_rejections),
                ("m", int(np.size(np.asarray(self.p_values)))), ("nbins", self.nbins),
                ("nfolds", self.nfolds), ("adjustment_type", self.adjustment_type)]

    def summary(self) -> str:
        """R's ``show(ihwResult)``: the number of tests, the nominal level, the strata."""
        error = "FDR" if self.adjustment_type == "BH" else "FWER"
        return (f"ihwResult object with {int(np.size(np.asarray(self.p_values)))} hypothesis tests \n"
                f"Nominal {error} control level: {format_number(self.alpha)} \n"
                f"Split into {self.nbins} bins, based on an {self.covariate_type} covariate\n")

    def to_frame(self):
        """One row per hypothesis: ``p_value``, ``covariate``, ``group``, ``fold``, ``weight``,
        ``weighted_p_value``, ``p_adjusted``, ``rejected`` (R's ``as.data.frame(ihwResult)``)."""
        import pandas as pd

        idx = self.p_values.index if hasattr(self.p_values, "index") else None
        arr = lambda v: np.asarray(v).ravel()  # noqa: E731
        return pd.DataFrame({"p_value": arr(self.p_values).astype(float), "covariate": arr(self.covariate),
                             "group": arr(self.groups), "fold": arr(self.folds),
                             "weight": arr(self.weights).astype(float),
                             "weighted_p_value": arr(self.weighted_p_values).astype(float),
                             "p_adjusted": arr(self.adj_p_values).astype(float),
                             "rejected": arr(self.rejected).astype(bool)}, index=idx)

    def _plot(self, ax=None):
        """The learned weights against the stratum, one line per fold (R's ``plot(ihwRes)``)."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5.5, 4), layout="constrained")
        tab = self.weight_table
        pos = np.arange(1, tab.shape[0] + 1)
        for fold in tab.columns:
            ax.plot(pos, tab[fold].to_numpy(), marker="o", ms=3, lw=1, label=f"fold {fold}")
        if self.covariate_type == "nominal" or not np.issubdtype(np.asarray(tab.index).dtype, np.number):
            ax.set_xticks(pos, [str(v) for v in tab.index], rotation=45 if tab.shape[0] > 6 else 0)
        ax.axhline(1.0, color="0.6", lw=0.8, ls="--")
        ax.set_xlabel("stratum")
        ax.set_ylabel("weight")
        ax.set_title(f"IHW weights ({self.n_rejections} rejections at alpha = {self.alpha:g})")
        ax.legend(title="fold", fontsize="small")
        return ax


# ----------------------------------------------------------------------------------------------
# the algorithm
# ----------------------------------------------------------------------------------------------

class _Problem:
    """The hypotheses sorted by stratum, then p-value: every subset keeps each stratum's p-values
    sorted, so the Grenander estimators need no sorting."""

    def __init__(self, p, groups, G, alpha, penalty, adjustment_type):
        self.order = np.lexsort((p, groups))
        self.p = p[self.order]
        self.p_lp = np.where(self.p > 1e-20, self.p, 0.0)   # R IHW sets p <= 1e-20 to 0 in the LP
        self.g = groups[self.order]
        self.G = G
        self.alpha = alpha
        self.penalty = penalty
        self.adjustment_type = adjustment_type

    def counts(self, idx):
        return np.bincount(self.g[idx], minlength=self.G)

    def pieces(self, train_idx):
        """The Grenander estimators of the strata on the hypotheses ``train_idx`` (increasing)."""
        return Pieces(self.p_lp[train_idx], np.r_[0, np.cumsum(self.counts(train_idx))])

    def thresholds(self, pc, m_holdout, lam, t_inf=None):
        """The LP's thresholds; ``t_inf``, those without a penalty, bracket the search (the optimum of
        the full LP all the same: ``lp_thresholds``)."""
        t_inf = knapsack_thresholds(pc, m_holdout, self.alpha, self.adjustment_type) if t_inf is None else t_inf
        if not np.isfinite(lam):
            return t_inf
        tbar = float(np.sum(m_holdout * t_inf) / max(m_holdout.sum(), 1.0))
        window = None
        if tbar > 0:
            window = (np.minimum(t_inf, tbar) / 4, np.maximum(t_inf, tbar) * 4)
        return lp_thresholds(pc, m_holdout, self.alpha, float(lam), self.penalty, self.adjustment_type,
                             window=window)

    def cv_rejections(self, train_idx, lambdas, rng):
        """Rejections of IHW with each lambda on the hypotheses ``train_idx``, with one random split
        into inner folds shared by all lambdas. Lambdas are solved from the loosest bound down: an
        optimum that already meets a tighter bound is the optimum under it."""
        inner = rng.integers(0, _NFOLDS_INTERNAL, size=train_idx.size)
        w = np.ones((lambdas.size, train_idx.size))
        by_size = np.argsort(-lambdas, kind="stable")
        for j in range(_NFOLDS_INTERNAL):
            hold = inner == j
            hold_idx = train_idx[hold]
            m_hold = self.counts(hold_idx).astype(float)
            pc = self.pieces(train_idx[~hold])
            g_hold = self.g[hold_idx]
            t = None
            t_inf = knapsack_thresholds(pc, m_hold, self.alpha, self.adjustment_type)
            for li in by_size:
                lam = lambdas[li]
                if lam == 0:
                    continue
                if t is None or not penalty_holds(t, m_hold, lam, self.penalty):
                    t = self.thresholds(pc, m_hold, lam, t_inf)
                w[li, hold] = thresholds_to_weights(t, m_hold)[g_hold]
        p = self.p[train_idx]
        return [bh_rejections(np.sort(weighted_pvalues(p, w[li])), self.alpha, self.adjustment_type)
                for li in range(lambdas.size)]

    def run(self, folds, K, lambdas, null_proportion, rng):
        """Weights per hypothesis (sorted order), the stratum x fold weight table, lambda per fold."""
        n = self.p.size
        f = folds[self.order]
        w = np.empty(n)
        table = np.empty((self.G, K))
        fold_lambdas = np.empty(K)
        for i in range(K):
            hold = f == i
            train_idx = np.flatnonzero(~hold) if K > 1 else np.arange(n)
            m_hold = self.counts(hold).astype(float)
            if lambdas.size > 1:
                rjs = self.cv_rejections(train_idx, lambdas, rng)
                lam = lambdas[int(np.argmax(rjs))]
            else:
                lam = lambdas[0]
            fold_lambdas[i] = lam
            ws = np.ones(self.G) if lam == 0 else thresholds_to_weights(
                self.thresholds(self.pieces(train_idx), m_hold, lam), m_hold)
            wi = ws[self.g[hold]]
            if null_proportion:
                tau = _NULL_PROPORTION_LEVEL
                pi0 = (wi.max() + np.sum(wi * (self.p[hold] > tau))) / m_hold.sum() / (1 - tau)
                wi = wi / pi0
                ws = ws / pi0
            w[hold] = wi
            table[:, i] = ws
        return w, table, fold_lambdas


def _strata(values, codes, levels, nbins, rng):
    """Stratum codes 0..G-1 and their labels: the given levels of a categorical covariate, or the
    quantile strata of a numeric one (R: ceiling(rank / m * nbins), ties in random order)."""
    if codes is not None:
        return codes, list(levels)
    m = values.size
    if nbins == 1:
        return np.zeros(m, dtype=np.int64), [1]
    if np.all(values == values[0]):
        raise ValueError(f"covariate is constant: it cannot be split into nbins={nbins} strata; pass nbins=1 "
                         "(IHW is then Benjamini-Hochberg) or an informative covariate")
    tie_break = rng.permutation(m) if np.unique(values).size < m else np.arange(m)
    order = np.lexsort((tie_break, values))
    rank = np.empty(m)
    rank[order] = np.arange(1, m + 1)
    g = np.ceil((rank / m) * nbins).astype(np.int64) - 1
    used = np.unique(g)
    remap = np.full(nbins, -1, dtype=np.int64)
    remap[used] = np.arange(used.size)
    return remap[g], [int(u) + 1 for u in used]


@public_function(data=("p", "covariate"), nan_policy=("raise", "omit"))
def ihw(p: Any, covariate: Any, *, alpha: float = 0.1, nbins: Any = "auto", folds: Any = None,
        lambdas: Any = "auto", adjustment_type: str = "BH", null_proportion: bool = False,
        covariate_type: str = "ordinal", nan_policy: str = "raise", seed: Any = None) -> IHWResult:
    """Independent hypothesis weighting: weighted Benjamini-Hochberg with data-driven weights.

    Follows Bioconductor IHW 1.26.0 ``ihw()`` (Ignatiadis et al. 2016; Ignatiadis & Huber 2021). The
    hypotheses are split into ``nbins`` strata of the covariate (equal-size quantile strata of a
    numeric covariate; the levels of a pandas Categorical or of text labels) and at random into
    ``folds`` folds. The weights of each fold are learned on the other folds: the p-values of each
    stratum are summarised by their Grenander estimator (the least concave majorant of their ECDF),
    and the linear programme maximising the expected number of discoveries subject to the plug-in
    FDR constraint (or the Bonferroni budget), with the total variation of the weights across
    adjacent strata bounded by lambda, gives thresholds proportional to the weights, which average
    one over the fold. Lambda is chosen in each fold by a nested 5-fold cross-validation maximising the
    rejections over R's grid (0, 1, nbins/8, nbins/4, nbins/2, nbins, Inf). Then the weighted BH (or
    Bonferroni) procedure runs on all hypotheses. With ``nbins=1`` IHW is BH (all weights one).

    Parameters
    ----------
    p : array_like or pandas Series
        P-values in [0, 1], one per hypothesis.
    covariate : array_like, pandas Series or pandas Categorical
        One value per hypothesis, independent of its p-value under the null: numbers (ordinal,
        stratified by quantiles) or labels (a pandas Categorical or text, used as the strata).
    alpha : float, keyword-only
        The nominal FDR (FWER with ``adjustment_type="bonferroni"``), in (0, 1).
    nbins : "auto" or int, keyword-only
        The number of strata. "auto" as R: max(1, min(40, floor(m / 1500))) for a numeric covariate
        (m non-missing p-values), the number of levels for labels.
    folds : None, int or array_like of int, keyword-only
        The random folds (None: 5, R's ``nfolds``; an int: that many) or one fold label per
        hypothesis (R's ``folds=``).
    lambdas : "auto", float or sequence of float, keyword-only
        The bound(s) on the weights' total variation (``numpy.inf``: no bound; 0: all weights one).
        Several values are chosen among by nested cross-validation, the first of the best on ties.
    adjustment_type : {"BH", "bonferroni"}, keyword-only
        Weighted Benjamini-Hochberg (FDR) or weighted Bonferroni (FWER).
    null_proportion : bool, keyword-only
        Divide each fold's weights by its weighted Storey estimate of the null proportion at 0.5
        (R's ``null_proportion`` with ``null_proportion_level = 0.5``).
    covariate_type : {"ordinal", "nominal"}, keyword-only
        "ordinal" (R's default) bounds the total variation of the weights across adjacent strata;
        "nominal" (labels only) bounds their summed absolute deviation from one.
    nan_policy : {"raise", "omit"}, keyword-only
        A NaN p-value or a missing covariate value: "raise" refuses it; "omit" leaves the hypothesis
        out (NaN weight and adjusted p-value, not rejected), as R does with an NA p-value.
    seed : None, int, numpy.random.Generator or numpy.random.SeedSequence, keyword-only
        The random folds, the inner folds of the cross-validation and the order of tied covariate
        values (R breaks ties at random too).

    Returns
    -------
    IHWResult
        ``weights``, ``adj_p_values``, ``rejected``, ``n_rejections``, ``weight_table`` (strata x
        folds), ``lambda_`` (one per fold); ``summary()`` prints R's ``show(ihwResult)``.

    Notes
    -----
    Purposeful differences from R:

    - the random folds and inner folds come from numpy's generator, so a given ``seed`` does not
      reproduce R's ``seed``; with explicit ``folds`` and one lambda the answer is R's (weights to
      machine precision, tested live);
    - the nested cross-validation draws one inner split per fold, shared by all lambdas (R draws a
      new split for each lambda): the lambdas are compared on the same data, and solved from the
      loosest bound down, an optimum that meets a tighter bound being reused (it is that bound's
      optimum too). The numbers of rejections agree with R's to about 1% (the inner splits are random
      in both);
    - the LP is solved by HiGHS (R: SYMPHONY) on a formulation with one bounded column per linear
      piece of the Grenander estimators, without a penalty exactly as a fractional knapsack, and
      with only the pieces near the optimum, verified to be the full LP's optimum; where that
      optimum is not unique the weights may differ from R's while the objective is the same;
    - fold labels may be any integers (R needs 1, ..., nfolds);
    - ``nbins`` other than "auto" or the number of levels of a categorical covariate is refused (R
      warns and overrides it); unused categories are dropped (R keeps them as empty strata); text
      labels are sorted by code point (R sorts in the locale's collation);
    - a constant numeric covariate with ``nbins > 1`` is refused (R splits it at random);
    - strata of fewer than 1000 hypotheses, and a single fold, give a ``StatcoreWarning`` (R prints
      a message; it refuses neither).

    References
    ----------
    Ignatiadis, Klaus, Zaugg & Huber (2016), Data-driven hypothesis weighting increases detection
    power in genome-scale multiple testing, Nature Methods 13:577-580. Ignatiadis & Huber (2021),
    Covariate powered cross-weighted multiple testing, JRSS-B 83:720-751. Bioconductor IHW 1.26.0,
    ``ihw()``.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> import statcore as sc
    >>> rng = np.random.default_rng(7)
    >>> x = rng.uniform(size=20000)                    # the covariate
    >>> signal = rng.uniform(size=20000) < 0.4 * x ** 2  # signals are commoner at large x
    >>> p = stats.norm.sf(rng.normal(np.where(signal, 2.5, 0.0)))
    >>> res = sc.ihw(p, x, alpha=0.1, seed=1)
    >>> res
    IHWResult(alpha=0.1, n_rejections=1771, m=20000, nbins=13, nfolds=5, adjustment_type='BH')
    >>> int((sc.p_adjust(p, method="BH") <= 0.1).sum())  # BH, unweighted
    1564
    >>> res.weight_table.round(2).iloc[[0, 6, 12]]  # doctest: +NORMALIZE_WHITESPACE
    fold      1     2     3     4     5
    group
    1      0.03  0.03  0.03  0.14  0.02
    7      0.68  0.70  0.66  0.70  0.63
    13     2.41  2.51  2.36  1.77  2.58
    >>> res.summary().splitlines()[2]
    'Split into 13 bins, based on an ordinal covariate'
    """
    alpha = check_probability(alpha, "alpha", open_left=True, open_right=True)
    adjustment_type = check_choice(adjustment_type, "adjustment_type", ("BH", "bonferroni"),
                                   aliases={"bh": "BH", "fdr": "BH", "BONFERRONI": "bonferroni"})
    null_proportion = check_flag(null_proportion, "null_proportion")
    covariate_type = check_choice(covariate_type, "covariate_type", ("ordinal", "nominal"))
    wrapper = InputWrapper.of(p)
    if p is None:
        raise TypeError("p must be an array of p-values, got None")
    parr = as_pvalues(p, "p")
    if parr.ndim != 1:
        raise ValueError(f"p must be a vector of p-values, got shape {parr.shape}")
    n = parr.size
    if n == 0:
        raise ValueError("p is empty; at least one p-value is needed")
    cov_values, codes, levels, cov_missing = as_ihw_covariate(covariate, n)
    if codes is None and covariate_type == "nominal":
        raise ValueError("covariate_type='nominal' needs labels (a pandas Categorical or text); a numeric "
                         "covariate is stratified by quantiles and is ordinal")
    nfolds, fold_labels = check_ihw_folds(folds, n)
    missing = np.isnan(parr) | cov_missing
    if missing.any():
        k = int(missing.sum())
        if nan_policy == "raise":
            which = " and ".join(nm for nm, bad in (("p", np.isnan(parr)), ("covariate", cov_missing)) if bad.any())
            raise ValueError(f"{which} contain{'s' if ' and ' not in which else ''} {k} missing value"
                             f"{'s' if k > 1 else ''}; pass nan_policy='omit' to leave those hypotheses out")
        if missing.all():
            raise ValueError("every hypothesis has a missing p-value or covariate; nothing is left after "
                             "nan_policy='omit'")
    keep = ~missing
    pk = parr[keep]
    m = pk.size
    nbins = check_ihw_nbins(nbins, m, None if levels is None else len(levels))
    lambdas = check_ihw_lambdas(lambdas, nbins)
    rng = check_seed(seed)

    if codes is not None:
        groups, labels = _strata(None, codes[keep], levels, nbins, rng)
    else:
        groups, labels = _strata(cov_values[keep], None, None, nbins, rng)
    G = len(labels)
    if fold_labels is None:
        fold_values = np.arange(1, nfolds + 1)
        fk = rng.integers(0, nfolds, size=m) if G > 1 else np.zeros(m, dtype=np.int64)
    else:
        fold_values, fk = np.unique(fold_labels[keep], return_inverse=True)
        nfolds = fold_values.size
        fold_values = fold_values.astype(np.int64)
    if G == 1:  # R: one bin is BH, one fold
        nfolds, fold_values, fk = 1, np.array([1]), np.zeros(m, dtype=np.int64)
    if nfolds > m:
        raise ValueError(f"folds={nfolds} exceeds the number of hypotheses ({m})")
    if G > 1:
        sizes = np.bincount(groups, minlength=G)
        if sizes.min() < _MIN_STRATUM:
            warnings.warn(f"the smallest of the {G} strata holds {int(sizes.min())} hypotheses; IHW recommends "
                          f"(many) more than {_MIN_STRATUM} p-values per stratum for meaningful weights (use fewer "
                          "bins)", StatcoreWarning, stacklevel=3)
        if nfolds == 1:
            warnings.warn("only 1 fold: the weights are learned on the p-values they weight, which voids the "
                          "error control; use this to look at the weights, never for testing",
                          StatcoreWarning, stacklevel=3)
        penalty = "total variation" if covariate_type == "ordinal" else "uniform deviation"
        prob = _Problem(pk, groups, G, alpha, penalty, adjustment_type)
        w_sorted, table, fold_lambdas = prob.run(fk, nfolds, lambdas, null_proportion, rng)
        wk = np.empty(m)
        wk[prob.order] = w_sorted
    else:
        wk = np.ones(m)
        table = np.ones((1, 1))
        fold_lambdas = np.zeros(1)
    wpk = weighted_pvalues(pk, wk)
    adjk = np.asarray(p_adjust(wpk, method=adjustment_type))

    import pandas as pd

    def full(vals, fill=np.nan):
        out = np.full(n, fill, dtype=float if isinstance(fill, float) else object)
        out[keep] = vals
        return out

    if missing.any():
        weights, wp, adj = full(wk), full(wpk), full(adjk)
        grp_out = full(np.asarray(labels, dtype=object)[groups], None)
        fold_out = full(fold_values[fk], None)
    else:
        weights, wp, adj = wk, wpk, adjk
        grp_out = np.asarray(labels)[groups] if codes is None else np.asarray(labels, dtype=object)[groups]
        fold_out = fold_values[fk]
    with np.errstate(invalid="ignore"):
        rejected = np.where(np.isnan(adj), False, adj <= alpha)
    weight_table = pd.DataFrame(table, index=pd.Index(labels, name="group"),
                                columns=pd.Index(fold_values, name="fold"))
    cov_out = cov_values if codes is None else np.asarray(cov_values, dtype=object)
    return IHWResult(p_values=wrapper.wrap(parr), covariate=wrapper.wrap(cov_out), weights=wrapper.wrap(weights),
                     weighted_p_values=wrapper.wrap(wp), adj_p_values=wrapper.wrap(adj),
                     rejected=wrapper.wrap(rejected), groups=wrapper.wrap(grp_out), folds=wrapper.wrap(fold_out),
                     weight_table=weight_table, lambda_=np.asarray(fold_lambdas, dtype=float), alpha=alpha,
                     n_rejections=int(np.count_nonzero(rejected)), nbins=G, nfolds=int(nfolds),
                     adjustment_type=adjustment_type, covariate_type=covariate_type,
                     null_proportion=null_proportion)
