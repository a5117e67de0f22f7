"""Routing diagnostics of a mixture of experts: how evenly the experts are used (entropy, perplexity,
Gini coefficient) and how expert choice depends on the input's domain (the expert-by-domain table with
Pearson's chi-squared test, as R's ``chisq.test``, and the normalised mutual information)."""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .._checks import as_assignments, as_labels, check_choice, check_flag, check_positive_int
from .._checks.public import public_function
from .._result import HTest, Result
from .._warnings import StatcoreWarning

__all__ = ["expert_usage", "ExpertUsage", "expert_domain_table", "ExpertDomainTable"]


def _entropy(p: np.ndarray) -> float:
    """Shannon entropy (nats) of a probability vector (0 log 0 = 0)."""
    q = p[p > 0]
    return float(-np.dot(q, np.log(q)))


def _gini(p: np.ndarray) -> float:
    """The Gini coefficient of the shares p (sum 1): ``sum_ij |p_i - p_j| / (2 E)``, from the sorted shares."""
    s = np.sort(p)
    E = s.size
    i = np.arange(1, E + 1)
    return float(max(0.0, (2.0 * np.dot(i, s) / E - (E + 1) / E * s.sum()) / s.sum()))


@dataclass(frozen=True, eq=False, repr=False)
class ExpertUsage(Result):
    """How evenly a router uses its experts (what :func:`expert_usage` returns).

    Attributes
    ----------
    usage : numpy.ndarray
        The share of the routing mass sent to each expert (sums to 1).
    load : numpy.ndarray
        The routing mass of each expert: token counts (assignments) or summed weights (probabilities).
    entropy : float
        The Shannon entropy of ``usage`` in nats (log(n_experts) when uniform, 0 when one expert
        takes everything).
    perplexity : float
        ``exp(entropy)``: the effective number of experts used (1 .. n_experts).
    gini : float
        The Gini coefficient of ``usage``: 0 when uniform, (n_experts - 1) / n_experts when one
        expert takes everything.
    n_experts, n_tokens : int
    source : str
        "assignments" or "probabilities".

    Examples
    --------
    >>> from statcore import expert_usage
    >>> res = expert_usage([0, 0, 1, 1], n_experts=2)
    >>> res.perplexity, res.gini
    (2.0, 0.0)
    """

    usage: np.ndarray
    load: np.ndarray
    entropy: float
    perplexity: float
    gini: float
    n_experts: int
    n_tokens: int
    source: str

    @property
    def normalized_entropy(self) -> float:
        """``entropy / log(n_experts)`` in [0, 1] (NaN for a single expert)."""
        return self.entropy / math.log(self.n_experts) if self.n_experts > 1 else float("nan")

    def _repr_parts(self):
        return [("n_experts", self.n_experts), ("n_tokens", self.n_tokens), ("entropy", self.entropy),
                ("perplexity", self.perplexity), ("gini", self.gini)]

    def summary(self) -> str:
        head = (f"Expert usage ({self.n_tokens} tokens, {self.n_experts} experts, from {self.source})\n"
                f"entropy {self.entropy:.4f} nats (normalised {self.normalized_entropy:.4f}), "
                f"perplexity {self.perplexity:.4f}, Gini {self.gini:.4f}\n")
        return head + self.to_frame().to_string(index=False, float_format=lambda v: f"{v:.4f}") + "\n"

    def to_frame(self) -> pd.DataFrame:
        """One row per expert: ``expert``, ``load``, ``share``."""
        return pd.DataFrame({"expert": np.arange(self.n_experts), "load": np.asarray(self.load),
                             "share": np.asarray(self.usage)})

    def _plot(self, ax=None):
        """Each expert's share, against the uniform share."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.2), layout="constrained")
        ax.bar(np.arange(self.n_experts), self.usage, color="0.6")
        ax.axhline(1.0 / self.n_experts, color="C3", lw=1)
        ax.set_xlabel("expert")
        ax.set_ylabel("share of routing")
        return ax


@public_function(data=("assignments",), nan_policy=None)
def expert_usage(assignments, *, n_experts=None):
    """Usage entropy, perplexity and Gini coefficient of a router's expert usage.

    The usage of expert e is its share of the routing mass: the share of tokens assigned to it
    (a vector of expert indices; with top-k routing pass the k choices of every token flattened), or
    its share of the summed routing weights (an (n_tokens, n_experts) matrix of probabilities or
    gates). From the shares p_e: the entropy H = -sum p_e log p_e (nats), the perplexity exp(H)
    (the effective number of experts) and the Gini coefficient ``sum_ij |p_i - p_j| / (2 E)`` of the
    E experts (the inequality of the loads; not the Gini impurity 1 - sum p_e^2).

    Parameters
    ----------
    assignments : array_like
        Expert indices 0..n_experts-1 (one per routing decision), or an (n_tokens, n_experts) matrix
        of non-negative routing weights.
    n_experts : int, optional
        The number of experts (unused experts count, with share 0). Default: the matrix's columns,
        or the largest index + 1.

    Returns
    -------
    ExpertUsage
        ``usage``, ``load``, ``entropy``, ``perplexity``, ``gini``.

    References
    ----------
    Shazeer, N. et al. (2017). Outrageously large neural networks: the sparsely-gated
    mixture-of-experts layer. *ICLR* (the load-balancing problem). Gini, C. (1912). *Variabilita e
    mutabilita*.

    Examples
    --------
    >>> import numpy as np
    >>> import statcore as sc
    >>> res = sc.expert_usage(np.array([0, 0, 0, 1, 2, 3]), n_experts=4)
    >>> round(res.entropy, 4), round(res.perplexity, 4), round(res.gini, 4)
    (1.2425, 3.4641, 0.25)
    """
    arr, matrix = as_assignments(assignments, "assignments")
    if matrix:
        E = arr.shape[1]
        if n_experts is not None and check_positive_int(n_experts, "n_experts") != E:
            raise ValueError(f"n_experts is {n_experts} but assignments has {E} columns (one per expert)")
        load = arr.sum(axis=0)
        n_tokens = arr.shape[0]
    else:
        top = int(arr.max()) + 1
        if n_experts is None and top > 1 << 16:
            raise ValueError(f"assignments holds the expert index {top - 1}: pass n_experts to confirm that many "
                             "experts")
        E = top if n_experts is None else check_positive_int(n_experts, "n_experts")
        if top > E:
            raise ValueError(f"assignments holds the expert index {top - 1}, beyond n_experts = {E} (indices run "
                             "from 0 to n_experts - 1)")
        load = np.bincount(arr.astype(np.int64), minlength=E).astype(np.float64)
        n_tokens = arr.size
    usage = load / load.sum()
    H = _entropy(usage)
    return ExpertUsage(usage=usage, load=load, entropy=H, perplexity=float(math.exp(H)), gini=_gini(usage),
                       n_experts=int(E), n_tokens=int(n_tokens), source="probabilities" if matrix else "assignments")


# ----------------------------------------------------------------------------------------------
# expert by domain
# ----------------------------------------------------------------------------------------------

_AVERAGES = ("arithmetic", "geometric", "min", "max")


def _nmi(table: np.ndarray, average_method: str) -> tuple[float, float]:
    """Mutual information (nats) of a contingency table and its normalisation, as scikit-learn's
    ``normalized_mutual_info_score``: MI / mean(H(experts), H(domains))."""
    n = table.sum()
    pij = table / n
    pi = pij.sum(axis=1)
    pj = pij.sum(axis=0)
    nz = pij > 0
    outer = np.outer(pi, pj)
    mi = float(max(0.0, np.sum(pij[nz] * (np.log(pij[nz]) - np.log(outer[nz])))))
    if table.shape[0] == 1 and table.shape[1] == 1:
        return mi, 1.0  # scikit-learn: two single-cluster labelings agree perfectly
    h1, h2 = _entropy(pi), _entropy(pj)
    if average_method == "arithmetic":
        norm = (h1 + h2) / 2
    elif average_method == "geometric":
        norm = math.sqrt(h1 * h2)
    elif average_method == "min":
        norm = min(h1, h2)
    else:
        norm = max(h1, h2)
    if mi == 0.0:
        return mi, 0.0
    return mi, float(mi / max(norm, np.finfo(np.float64).eps))


@dataclass(frozen=True, eq=False, repr=False)
class ExpertDomainTable(Result):
    """The expert-by-domain contingency table of a router (what :func:`expert_domain_table` returns).

    Attributes
    ----------
    table : pandas.DataFrame
        Counts, experts in rows and domains in columns (levels sorted, as R's ``table``).
    test : HTest
        Pearson's chi-squared test of independence (R's ``chisq.test(table)``).
    expected : numpy.ndarray
        The expected counts under independence.
    mutual_info : float
        The mutual information of experts and domains (nats).
    nmi : float
        The normalised mutual information (``average_method``).
    average_method : str

    Examples
    --------
    >>> from statcore import expert_domain_table
    >>> res = expert_domain_table([0, 0, 1, 1, 1, 0] * 5, ["a", "a", "b", "b", "a", "b"] * 5)
    >>> res.table.shape, round(res.nmi, 4)
    ((2, 2), 0.0817)
    """

    table: pd.DataFrame
    test: HTest
    expected: np.ndarray
    mutual_info: float
    nmi: float
    average_method: str

    def _repr_parts(self):
        return [("experts", self.table.shape[0]), ("domains", self.table.shape[1]),
                ("statistic", self.test.statistic), ("p_value", self.test.p_value), ("nmi", self.nmi)]

    def summary(self) -> str:
        return (self.table.to_string() + "\n" + self.test.summary()
                + f"\nmutual information {self.mutual_info:.6g} nats, normalised ({self.average_method}) "
                  f"{self.nmi:.6g}\n")

    def to_frame(self) -> pd.DataFrame:
        """One row per cell: ``expert``, ``domain``, ``count``, ``expected``, ``residual`` (Pearson's)."""
        t = self.table
        counts = t.to_numpy().astype(float)
        E = np.asarray(self.expected)
        return pd.DataFrame({"expert": np.repeat(t.index.to_numpy(), t.shape[1]),
                             "domain": np.tile(t.columns.to_numpy(), t.shape[0]),
                             "count": counts.ravel(), "expected": E.ravel(),
                             "residual": ((counts - E) / np.sqrt(E)).ravel()})

    def _plot(self, ax=None):
        """The table as a heat map of the shares of each domain sent to each expert."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.2), layout="constrained")
        t = self.table.to_numpy().astype(float)
        im = ax.imshow(t / t.sum(axis=0, keepdims=True), aspect="auto", cmap="viridis", vmin=0)
        ax.set_xticks(range(t.shape[1]), [str(c) for c in self.table.columns])
        ax.set_yticks(range(t.shape[0]), [str(r) for r in self.table.index])
        ax.set_xlabel("domain")
        ax.set_ylabel("expert")
        ax.figure.colorbar(im, ax=ax, label="share of the domain")
        return ax


@public_function(data=("experts", "domains"), nan_policy=None)
def expert_domain_table(experts, domains, *, correct=True, average_method="arithmetic"):
    """The expert-by-domain contingency table with Pearson's chi-squared test and the normalised
    mutual information.

    Tabulates the expert chosen for each token (or input) against its domain, tests independence as
    R's ``chisq.test(table(experts, domains))`` does (statistic sum (O - E)^2 / E on
    (r - 1)(c - 1) degrees of freedom; Yates' continuity correction on a 2 x 2 table only, as R) and
    measures the dependence by the mutual information normalised as scikit-learn's
    ``normalized_mutual_info_score``: MI / mean(H(experts), H(domains)), the mean chosen by
    ``average_method`` (the arithmetic mean by default, scikit-learn's default, which is also the
    V-measure).

    Parameters
    ----------
    experts, domains : array_like
        Paired labels: the expert of each token and its domain (integers or text).
    correct : bool
        Yates' continuity correction for a 2 x 2 table (R's ``correct = TRUE``); larger tables are
        never corrected.
    average_method : {"arithmetic", "geometric", "min", "max"}
        The normaliser of the mutual information (scikit-learn's names).

    Returns
    -------
    ExpertDomainTable
        ``table``, ``test`` (an HTest: ``statistic`` X-squared, ``parameter`` df, ``p_value``),
        ``expected``, ``mutual_info``, ``nmi``.

    References
    ----------
    R: ``stats::chisq.test``. Strehl, A. and Ghosh, J. (2002). Cluster ensembles: a knowledge reuse
    framework for combining multiple partitions. *JMLR* 3, 583-617 (normalised mutual information);
    scikit-learn's ``normalized_mutual_info_score``.

    Examples
    --------
    >>> import numpy as np
    >>> import statcore as sc
    >>> experts = np.tile([0, 0, 1, 1, 2, 2, 0, 1, 2, 0, 1, 2], 5)
    >>> domains = np.array(["code", "code", "text", "text", "math", "math"] * 10)
    >>> res = sc.expert_domain_table(experts, domains)
    >>> res.test.parameter["df"], round(res.test.statistic, 4), round(res.nmi, 4)
    (4.0, 37.5, 0.3433)
    """
    e = as_labels(experts, "experts")
    d = as_labels(domains, "domains", e.size, "experts (entries of experts)")
    correct = check_flag(correct, "correct")
    average_method = check_choice(average_method, "average_method", _AVERAGES)
    ev, ei = np.unique(e, return_inverse=True)
    dv, di = np.unique(d, return_inverse=True)
    counts = np.zeros((ev.size, dv.size))
    np.add.at(counts, (ei.reshape(-1), di.reshape(-1)), 1.0)
    n = counts.sum()
    if ev.size < 2 or dv.size < 2:
        raise ValueError(f"experts and domains need at least two levels each for a test of independence, got "
                         f"{ev.size} expert(s) and {dv.size} domain(s)")
    expected = np.outer(counts.sum(axis=1), counts.sum(axis=0)) / n
    dev = counts - expected
    method = "Pearson's Chi-squared test"
    if correct and counts.shape == (2, 2):
        yates = min(0.5, float(np.abs(dev).min()))
        dev = np.abs(dev) - yates
        method += " with Yates' continuity correction"
    stat = float(np.sum(dev * dev / expected))
    df = float((ev.size - 1) * (dv.size - 1))
    p = float(stats.chi2.sf(stat, df))
    if np.any(expected < 5):
        warnings.warn(StatcoreWarning("Chi-squared approximation may be incorrect (an expected count below 5, "
                                      "as R warns)"), stacklevel=3)
    test = HTest(statistic=stat, statistic_name="X-squared", parameter={"df": df}, p_value=p, method=method,
                 data_name="experts and domains", extras={"observed": counts, "expected": expected})
    mi, nmi = _nmi(counts, average_method)
    table = pd.DataFrame(counts.astype(np.int64), index=pd.Index(ev, name="expert"),
                         columns=pd.Index(dv, name="domain"))
    return ExpertDomainTable(table=table, test=test, expected=expected, mutual_info=mi, nmi=nmi,
                             average_method=average_method)
