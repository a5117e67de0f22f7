"""Information discernment (our operationalisation of the Learn2Discern protocol): the weight of advice
and the three discernment axioms, with cluster-bootstrap intervals by question and CR2 inference.

What is the paper's and what is ours: the three quantities (source discernment, truth discernment,
popularity reliance) and the axioms that a discerning agent should satisfy are taken from the issue that
describes Learn2Discern; the paper itself could not be found with the tools available here, so the
definitions below are OUR reading: Spearman correlations of the weight of advice with the source's
reliability, with the improvement the claim brings, and with the source's popularity; a regression of the
weight of advice on the three with CR2 errors clustered by question; and three one-sided tests.

The cluster bootstrap resamples questions with replacement through the one resampling engine
(:func:`statcore._resampling.run_resamples`); a resample is a vector of per-question counts, and the
Spearman correlation of a resample is computed exactly as ``scipy.stats.spearmanr`` computes it on the
resample written out (tied copies get their mid-rank) from weighted mid-ranks, without writing it out.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any
import warnings

import numpy as np
import pandas as pd
from scipy import stats

from .._checks import (InputWrapper, as_advice_arrays, as_discern_data, check_flag, check_positive_int,
                       check_probability, pow2_scale, public_function)
from .._r.rformat import format_table
from .._result import HTest, Result

__all__ = ["weight_of_advice", "discernment", "Discernment"]

#: the three correlations, in the order of the result's table
QUANTITIES = ("source", "truth", "popularity")
_PARTNER = {"source": "reliability", "truth": "improvement", "popularity": "popularity"}


@public_function(data=("prior", "posterior", "claim"), nan_policy=("raise", "propagate"))
def weight_of_advice(prior, posterior, claim, *, clip=False):
    """The weight of advice: how far a belief moved towards a claim, (posterior - prior) / (claim - prior).

    0 means the claim was ignored, 1 that it was adopted, values in between a compromise; a value below 0
    moved away from the claim and above 1 beyond it (``clip=True`` clips to [0, 1], the usual choice of
    the advice-taking literature).

    Parameters
    ----------
    prior : array_like
        The belief before the claim (one number per trial).
    posterior : array_like
        The belief after it.
    claim : array_like
        The value the source claimed. A claim equal to its prior leaves the weight undefined (0/0 or
        x/0): it is refused with a ``ValueError`` naming ``claim``, never returned as NaN or inf; drop
        those trials first.
    clip : bool
        Clip the weights to [0, 1].
    nan_policy : {"raise", "propagate"}
        A NaN belief or claim is an error, or gives a NaN weight for its trial.

    Returns
    -------
    numpy.ndarray, pandas.Series or float
        One weight per trial (a Series in gives a Series with its index; scalars give a float).

    References
    ----------
    Yaniv, I. (2004). Receiving other people's advice: influence and benefit. Organizational Behavior and
    Human Decision Processes 93, 1-13 (the weight of advice).
    Harvey, N. & Fischer, I. (1997). Taking advice: accepting help, improving judgment, and sharing
    responsibility. Organizational Behavior and Human Decision Processes 70, 117-133.

    Examples
    --------
    >>> import statcore as sc
    >>> sc.weight_of_advice([10.0, 10.0, 10.0], [12.0, 10.0, 25.0], [20.0, 20.0, 20.0])
    array([0.2, 0. , 1.5])
    >>> sc.weight_of_advice([10.0, 10.0, 10.0], [12.0, 10.0, 25.0], [20.0, 20.0, 20.0], clip=True)
    array([0.2, 0. , 1. ])
    """
    clip = check_flag(clip, "clip")
    wrapper = InputWrapper.of(prior if not np.isscalar(prior) else claim)
    p, q, c = as_advice_arrays(prior, posterior, claim)
    w = (q - p) / (c - p)
    if clip:
        w = np.clip(w, 0.0, 1.0)
    if not np.all(np.isfinite(w[~np.isnan(w)])):
        raise ValueError("claim lies so close to prior that the weight of advice overflows; drop those trials")
    return wrapper.wrap(w[()] if w.ndim == 0 else np.array(w))


# ----------------------------------------------------------------------------------------------
# weighted Spearman correlations of cluster-bootstrap resamples
# ----------------------------------------------------------------------------------------------

class _RankPlan:
    """What the weighted mid-ranks of one variable need: its sort order and tie groups."""

    def __init__(self, x: np.ndarray):
        self.order = np.argsort(x, kind="stable")
        xs = x[self.order]
        new = np.r_[True, xs[1:] != xs[:-1]]
        self.starts = np.flatnonzero(new)
        gid_sorted = np.cumsum(new) - 1
        self.gid = np.empty(x.size, np.int64)
        self.gid[self.order] = gid_sorted

    def ranks(self, W: np.ndarray) -> np.ndarray:
        """Mid-ranks of every observation in the resamples whose multiplicities are the rows of ``W``."""
        gsum = np.add.reduceat(W[:, self.order], self.starts, axis=1)
        mid = np.cumsum(gsum, axis=1) - gsum + (gsum + 1.0) / 2.0
        return mid[:, self.gid]


def _weighted_pearson(W: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    sw = W.sum(axis=1, keepdims=True)
    ac = a - (W * a).sum(axis=1, keepdims=True) / sw
    bc = b - (W * b).sum(axis=1, keepdims=True) / sw
    num = (W * ac * bc).sum(axis=1)
    den = np.sqrt((W * ac * ac).sum(axis=1) * (W * bc * bc).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = num / den
    return np.where(den > 0, r, np.nan)


class _ClusterDraw:
    """``size`` bootstrap resamples of J clusters, as per-cluster counts (size, J)."""

    def __init__(self, J: int):
        self.J = int(J)

    def __call__(self, rng: np.random.Generator, size: int) -> np.ndarray:
        idx = rng.integers(0, self.J, (size, self.J))
        flat = (idx + (np.arange(size, dtype=np.int64) * self.J)[:, None]).ravel()
        return np.bincount(flat, minlength=size * self.J).reshape(size, self.J).astype(np.float64)


class _SpearmanTriple:
    """The three Spearman correlations of a resample given as cluster counts."""

    def __init__(self, arrays: dict, codes: np.ndarray):
        self.codes = codes
        self.plans = {k: _RankPlan(v) for k, v in arrays.items()}

    def __call__(self, counts: np.ndarray) -> np.ndarray:
        W = counts[:, self.codes]
        rw = self.plans["woa"].ranks(W)
        return np.column_stack([_weighted_pearson(W, rw, self.plans[_PARTNER[q]].ranks(W)) for q in QUANTITIES])


def _spearman(x: np.ndarray, y: np.ndarray) -> float:
    return float(stats.spearmanr(x, y).statistic)


# ----------------------------------------------------------------------------------------------
# the result
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True, repr=False)
class Discernment(Result):
    """Source discernment, truth discernment and popularity reliance of an agent's belief updates, with
    the regression of its weights of advice and the three axioms as one-sided tests (:func:`discernment`).

    Attributes
    ----------
    correlations : pandas.DataFrame
        One row per quantity ("source", "truth", "popularity"): ``estimate`` (Spearman's rho of the
        weight of advice with reliability, improvement and popularity), ``std_error`` (the bootstrap
        standard deviation), ``conf_low``, ``conf_high`` (percentile cluster-bootstrap interval).
    coefficients : pandas.DataFrame
        The OLS of the weight of advice on reliability, popularity and improvement: ``estimate``,
        ``std_error`` (CR2, clustered by question), ``statistic``, ``df`` (Satterthwaite), ``p_value``
        (two-sided), ``conf_low``, ``conf_high``.
    reliance : RatioCI or None
        The reliance ratio beta_popularity / beta_reliability with Fieller's set under the CR2
        covariance (t quantile with n_clusters - 1 degrees of freedom); None with ``reliability_df > 1``
        (no single reliability slope).
    axioms : dict of HTest
        "source" (H1: rho_source > 0), "truth" (H1: rho_truth > 0): percentile cluster-bootstrap tests;
        "popularity" (H1: beta_popularity > 0, the CR2 t test): rejecting it means the popularity axiom
        fails.
    alpha, conf_level : float
    B, nobs, n_clusters : int
        Bootstrap resamples, trials and questions.
    n_degenerate : int
        Resamples whose correlation was undefined (a constant variable in the resample), left out.
    kept : numpy.ndarray or None
        The trials kept by ``nan_policy="omit"`` (None when none was dropped).

    Examples
    --------
    >>> import numpy as np, statcore as sc
    >>> rng = np.random.default_rng(0)
    >>> q = np.repeat(np.arange(12), 5)
    >>> rel, pop = rng.uniform(size=60), rng.uniform(size=60)
    >>> woa = 0.6 * rel + rng.normal(0, 0.1, 60)
    >>> res = sc.discernment(woa, rel, rel + rng.normal(0, 0.3, 60), pop, cluster=q, B=199, seed=1)
    >>> res.passes
    {'source': True, 'truth': True, 'popularity': True}
    """

    correlations: Any
    coefficients: Any
    reliance: Any
    axioms: dict
    alpha: float
    conf_level: float
    B: int
    nobs: int
    n_clusters: int
    n_degenerate: int = 0
    kept: Any = None

    def _repr_parts(self):
        c = self.correlations["estimate"]
        return [("source", float(c["source"])), ("truth", float(c["truth"])),
                ("popularity", float(c["popularity"])), ("n_clusters", self.n_clusters), ("nobs", self.nobs)]

    @property
    def passes(self) -> dict:
        """Which axioms the agent passes at level ``alpha``: source and truth when their test rejects
        (rho > 0 shown), popularity when its test does not reject (no reliance on popularity shown)."""
        a = self.alpha
        return {"source": bool(self.axioms["source"].p_value <= a),
                "truth": bool(self.axioms["truth"].p_value <= a),
                "popularity": bool(self.axioms["popularity"].p_value > a)}

    def summary(self) -> str:
        c = self.correlations
        pct = f"{100 * self.conf_level:g}%"
        lines = [f"Information discernment: {self.nobs} trials, {self.n_clusters} questions "
                 f"(cluster bootstrap B = {self.B}, {pct} intervals)", "",
                 "Spearman correlations of the weight of advice:",
                 format_table(list(c.index), {k: c[k].to_numpy() for k in c.columns}), "",
                 "OLS of the weight of advice, CR2 errors clustered by question:"]
        t = self.coefficients
        lines.append(format_table(list(t.index), {k: t[k].to_numpy() for k in t.columns}))
        r = self.reliance
        if r is not None:
            lines += ["", f"reliance ratio beta_popularity / beta_reliability = {r.estimate:.4g}, Fieller {pct} "
                          f"set [{r.conf_low:.4g}, {r.conf_high:.4g}] ({r.kind})"]
        lines += ["", f"axioms at alpha = {self.alpha:g} (our reading of Learn2Discern):"]
        for k, v in self.passes.items():
            lines.append(f"  {k:<10} p = {self.axioms[k].p_value:.4g}  {'passes' if v else 'fails'}")
        return "\n".join(lines)

    def to_frame(self) -> pd.DataFrame:
        """The correlations with each axiom's p-value and verdict (one row per quantity)."""
        out = self.correlations.copy()
        out["p_value"] = [self.axioms[k].p_value for k in QUANTITIES]
        out["passes"] = [self.passes[k] for k in QUANTITIES]
        out.index.name = "quantity"
        return out

    def _plot(self, ax=None):
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(4.5, 3))
        c = self.correlations
        y = np.arange(len(c))
        ax.errorbar(c["estimate"], y, xerr=[c["estimate"] - c["conf_low"], c["conf_high"] - c["estimate"]],
                    fmt="o", capsize=3)
        ax.axvline(0, color="grey", lw=0.8)
        ax.set_yticks(y, [f"{k} discernment" if k != "popularity" else "popularity reliance" for k in c.index])
        ax.set_xlabel("Spearman's rho with the weight of advice")
        return ax


# ----------------------------------------------------------------------------------------------
# the public function
# ----------------------------------------------------------------------------------------------

@public_function(data=("woa", "reliability", "improvement", "popularity"), nan_policy=("raise", "omit"))
def discernment(woa, reliability, improvement, popularity, *, cluster, reliability_df=1, alpha=0.05,
                conf_level=0.95, B=999, seed=None, nan_policy="raise"):
    """Source discernment, truth discernment and popularity reliance of belief updates, with the three
    discernment axioms as one-sided tests (our reading of Learn2Discern).

    Each trial is one question, one source and one claim; ``woa`` is the agent's weight of advice on it
    (:func:`weight_of_advice`). Three Spearman correlations with cluster-bootstrap intervals (questions
    resampled with replacement, B times, through the resampling engine):

    - source discernment: rho(woa, reliability), the agent follows reliable sources more;
    - truth discernment: rho(woa, improvement), the agent follows claims that bring it closer to the
      truth more;
    - popularity reliance: rho(woa, popularity).

    The OLS ``woa ~ reliability + popularity + improvement`` with CR2 errors clustered by question and
    Satterthwaite degrees of freedom (:func:`statcore.cluster_vcov`, :func:`statcore.coef_test`), and the
    reliance ratio beta_popularity / beta_reliability with Fieller's set (:func:`statcore.coef_ratio_ci`).
    The axioms, as WE read them (the paper could not be consulted here):

    - source axiom: rho_source > 0 (H0: rho_source <= 0), the percentile cluster-bootstrap test,
      p = (1 + #{rho*_b <= 0}) / (B' + 1) over the B' non-degenerate resamples;
    - truth axiom: rho_truth > 0, the same test;
    - popularity axiom: no reliance on popularity beyond reliability (and truth). Its test is the CR2 t
      test of H0: beta_popularity <= 0 against beta_popularity > 0; a rejection means the axiom FAILS.

    Parameters
    ----------
    woa : array_like
        The weight of advice of each trial.
    reliability : array_like
        The reliability of the trial's source (any scale on which larger is more reliable).
    improvement : array_like
        How much closer to the truth the claim is than the prior (a gain, abs(prior - truth) - abs(claim -
        truth), or 1/0 for closer/not closer).
    popularity : array_like
        The popularity of the trial's source.
    cluster : array_like
        The question of each trial (labels): the unit of the bootstrap and of the CR2 errors; at least 3.
    reliability_df : int
        How reliability enters the regression: 1, linearly (the reliance ratio is then reported); k > 1, as
        a cubic regression spline with k basis functions of reliability mapped to [0, 1] (u; u, u^2; u, u^2,
        u^3; then truncated cubes (u - t)^3_+ at k - 3 quantile knots; columns ``reliability_s1`` ...), so
        that the popularity test asks about reliance beyond a smooth function of reliability. A weight that
        is non-linear in reliability, with popularity correlated with reliability, makes the linear test
        reject for an agent that does not rely on popularity at all (benchmarks/README.md); the spline
        removes that bias.
    alpha : float
        The level of the three axiom tests.
    conf_level : float
        The coverage of the intervals.
    B : int
        Cluster-bootstrap resamples.
    seed : None, int or numpy.random.Generator
        Randomness of the bootstrap.
    nan_policy : {"raise", "omit"}
        A trial with a NaN is an error, or dropped (with its cluster label).

    Returns
    -------
    Discernment
        ``correlations``, ``coefficients``, ``reliance``, ``axioms`` (three ``HTest``), ``passes``.

    References
    ----------
    Learn2Discern (information discernment of language models): source, truth and popularity axioms, as
    described in this project's issue 33; the paper was not available, the tests are our operationalisation.
    Yaniv, I. (2004). Receiving other people's advice. OBHDP 93, 1-13 (weight of advice).
    Bell, R. M. & McCaffrey, D. F. (2002). Survey Methodology 28, 169-181 (CR2).
    Pustejovsky, J. E. & Tipton, E. (2018). JBES 36, 672-683 (Satterthwaite degrees of freedom).
    Field, C. A. & Welsh, A. H. (2007). Bootstrapping clustered data. JRSS B 69, 369-390.

    Examples
    --------
    >>> import numpy as np, statcore as sc
    >>> rng = np.random.default_rng(3)
    >>> q = np.repeat(np.arange(20), 4)                       # 20 questions, 4 sources each
    >>> s = rng.uniform(0.5, 3.0, 80)                         # the sources' error s.d.
    >>> pop = rng.uniform(size=80)
    >>> truth, prior = np.zeros(80), rng.normal(0, 1, 20)[q]  # the agent's prior s.d. is 1
    >>> claim = truth + s * rng.normal(size=80)
    >>> post = prior + (claim - prior) / (1 + s ** 2)         # Bayes: woa = 1 / (1 + s^2)
    >>> woa = sc.weight_of_advice(prior, post, claim)
    >>> gain = np.abs(prior - truth) - np.abs(claim - truth)
    >>> res = sc.discernment(woa, 1 / s, gain, pop, cluster=q, B=199, seed=1)
    >>> round(float(res.correlations.loc["source", "estimate"]), 6)
    1.0
    >>> res.passes["source"], res.passes["popularity"]
    (True, True)
    """
    alpha = check_probability(alpha, "alpha", open_left=True, open_right=True)
    if alpha > 0.5:
        raise ValueError(f"alpha must be an error rate in (0, 0.5], got {alpha:g}")
    conf_level = check_probability(conf_level, "conf_level", open_left=True, open_right=True)
    B = check_positive_int(B, "B", minimum=2)
    reliability_df = check_positive_int(reliability_df, "reliability_df")
    arrays, codes, J, kept = as_discern_data(woa, reliability, improvement, popularity, cluster, nan_policy)
    n = codes.size
    from .._resampling import root_seed, run_resamples

    est = {q: _spearman(arrays["woa"], arrays[_PARTNER[q]]) for q in QUANTITIES}
    boot = run_resamples(_ClusterDraw(J), _SpearmanTriple(arrays, codes), B, seed=root_seed(seed),
                         bytes_per_resample=8.0 * (J + 12 * n))
    boot = np.asarray(boot).reshape(B, len(QUANTITIES))
    ok = np.all(np.isfinite(boot), axis=1)
    n_bad = int(B - ok.sum())
    if n_bad:
        from .._resampling import DegenerateBootstrapWarning

        if ok.sum() < 2:
            raise ValueError(f"cluster: {n_bad} of {B} bootstrap resamples have a constant variable; with {J} "
                             "questions the correlations cannot be bootstrapped: add questions")
        warnings.warn(f"{n_bad} of {B} cluster-bootstrap resamples had a constant variable (an undefined "
                      "correlation) and were left out", DegenerateBootstrapWarning, stacklevel=3)
    boot = boot[ok]
    a = (1 - conf_level) / 2
    lo, hi = np.quantile(boot, [a, 1 - a], axis=0)
    corr = pd.DataFrame({"estimate": [est[q] for q in QUANTITIES], "std_error": boot.std(axis=0, ddof=1),
                         "conf_low": lo, "conf_high": hi}, index=pd.Index(QUANTITIES))

    coefs, reliance = _regression(arrays, codes, conf_level, reliability_df)
    axioms = {}
    for q in ("source", "truth"):
        count = int(np.sum(boot[:, QUANTITIES.index(q)] <= 0))
        p = (1 + count) / (boot.shape[0] + 1)
        axioms[q] = HTest(statistic=est[q], statistic_name="rho", p_value=float(p),
                          method=f"{q.capitalize()} axiom: cluster-bootstrap test of Spearman's rho > 0 "
                                 f"(weight of advice and {_PARTNER[q]})",
                          data_name=f"woa and {_PARTNER[q]} by cluster, {boot.shape[0]} resamples",
                          estimate={"rho": est[q]}, null_value={"rho": 0.0}, alternative="greater",
                          conf_int=(float(corr.loc[q, "conf_low"]), float(corr.loc[q, "conf_high"])),
                          conf_level=conf_level)
    row = coefs.loc["popularity"]
    p_pop = float(stats.t.sf(row["statistic"], row["df"]))
    axioms["popularity"] = HTest(statistic=float(row["statistic"]), statistic_name="t",
                                 parameter={"df": float(row["df"])}, p_value=p_pop,
                                 method="Popularity axiom: CR2 t test of beta_popularity > 0 (reliance on "
                                        "popularity beyond reliability and improvement; rejection = the axiom fails)",
                                 data_name="woa ~ reliability + popularity + improvement, clustered by question",
                                 estimate={"beta_popularity": float(row["estimate"])},
                                 null_value={"beta_popularity": 0.0}, alternative="greater")
    return Discernment(corr, coefs, reliance, axioms, alpha, conf_level, int(B), int(n), int(J), n_bad, kept)


def _regression(arrays: dict, codes: np.ndarray, conf_level: float, reliability_df: int = 1
                ) -> tuple[pd.DataFrame, Any]:
    """OLS of woa on reliability (a linear spline with ``reliability_df`` pieces), popularity and improvement
    with CR2 errors (Satterthwaite df), and the reliance ratio (linear reliability only). Every column is
    first divided by a power of two near its size (exact), so that data of any magnitude neither overflow
    nor underflow; the answers are scaled back."""
    import dataclasses

    import statsmodels.api as sm

    from ..clustered import cluster_vcov, coef_test
    from ..effects import coef_ratio_ci

    rel = arrays["reliability"]
    sc_y = float(pow2_scale(arrays["woa"], axis=None))
    cols = {"const": (np.ones_like(rel), 1.0)}
    for k in ("reliability", "popularity", "improvement"):
        cols[k] = (arrays[k], float(pow2_scale(arrays[k], axis=None)))
    knots = []
    if reliability_df > 1:   # a cubic regression spline (truncated-power basis on reliability mapped to [0, 1])
        lo, hi = float(rel.min()), float(rel.max())
        u = (rel - lo) / (hi - lo)
        extra = [u ** 2, u ** 3][:reliability_df - 1]
        knots = list(np.unique(np.quantile(u, np.arange(1, reliability_df - 2) / (reliability_df - 2)))) \
            if reliability_df > 3 else []
        extra += [np.maximum(u - kn, 0.0) ** 3 for kn in knots]
        for j, h in enumerate(extra, start=1):
            cols[f"reliability_s{j}"] = (h, 1.0)
        knots = extra   # the extra columns (a non-empty list: no single reliability slope)
    X = pd.DataFrame({k: v / s for k, (v, s) in cols.items()})
    if np.linalg.matrix_rank(X.to_numpy()) < X.shape[1]:
        raise ValueError("reliability, popularity and improvement are collinear (one is a linear function of the "
                         "others"
                         + (", or reliability_df is too large for the distinct reliabilities" if len(knots) else "")
                         + "); the regression cannot separate them")
    if X.shape[1] >= codes.size:
        raise ValueError(f"reliability_df={reliability_df} leaves no residual degrees of freedom with {codes.size} "
                         "trials")
    fit = sm.OLS(arrays["woa"] / sc_y, X).fit()
    v = cluster_vcov(fit, codes, kind="CR2")
    tab = coef_test(fit, vcov=v).table.copy()
    scales = np.array([s for _, s in cols.values()])
    ratio = None
    if not len(knots):
        ratio = coef_ratio_ci(tab["estimate"].to_numpy(), v.values, 2, 1, df=float(codes.max()),
                              conf_level=conf_level)
        c = scales[1] / scales[2]   # beta_pop / beta_rel on the original scales
        ratio = dataclasses.replace(ratio, estimate=float(ratio.estimate * c), conf_low=float(ratio.conf_low * c),
                                    conf_high=float(ratio.conf_high * c), std_error=float(ratio.std_error * c))
    f = sc_y / scales
    with np.errstate(over="ignore"):
        tab["estimate"] = tab["estimate"] * f
        tab["std_error"] = tab["std_error"] * f
        q = stats.t.ppf(0.5 + conf_level / 2, tab["df"].to_numpy())
        tab["conf_low"] = tab["estimate"] - q * tab["std_error"]
        tab["conf_high"] = tab["estimate"] + q * tab["std_error"]
    if not np.all(np.isfinite(tab.to_numpy())):
        raise ValueError("woa: the regression's coefficients overflow float64 on the scale of the data")
    return tab, ratio
