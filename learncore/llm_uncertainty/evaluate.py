"""How well uncertainty scores separate correct from wrong answers: AUROC with DeLong intervals,
paired DeLong tests against a reference score with a multiplicity adjustment, and the dependence
between GLU's global and local signals (:func:`evaluate_scores`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import statcore
from scipy.stats import spearmanr
from statcore import HTest, Result
from statcore.utils import as_float_array, check_choice, check_n_jobs, check_positive_int, check_progress

from ._checks import as_correct, as_score_table
from .generate import SCORE_COLUMNS, GenerationScores

__all__ = ["evaluate_scores", "ScoreEvaluation"]


@dataclass(frozen=True, repr=False)
class ScoreEvaluation(Result):
    """AUROCs of uncertainty scores against correctness (:func:`evaluate_scores`).

    Attributes
    ----------
    scores : tuple of str
        The score columns, the reference first.
    auc, conf_low, conf_high : numpy.ndarray
        Each score's AUROC (oriented so that 0.5 is chance and 1 a perfect ranking of correct above
        wrong answers) and its DeLong confidence interval.
    statistic, p_value, p_adjusted : numpy.ndarray
        Paired DeLong test of the reference against each score: Z, p-value, adjusted p-value (NaN
        for the reference itself).
    reference : str
        The score the others are tested against.
    p_adjust : str
        The adjustment (a method of :func:`statcore.p_adjust`).
    conf_level : float
        Coverage of the intervals.
    n, n_correct : int
        Answers, and correct ones among them.
    spearman_test : HTest or None
        Spearman's rank correlation test of the two dependence columns (R's ``cor.test(method =
        "spearman")`` layout: statistic S = (n^3 - n)(1 - rho) / 6, estimate rho; its p-value is
        scipy's t approximation); ``spearman`` and ``spearman_p_value`` are its rho and p-value (NaN
        without the columns).
    hsic : HTest or None
        :func:`statcore.hsic_test` of the two dependence columns.
    rocs : tuple of statcore.ROCCurve
        The curves, in the order of ``scores``.
    tests : tuple of statcore.ROCTest
        The paired tests, in the order of ``scores[1:]``.
    dependence : tuple of str
        The two columns whose dependence was measured.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from learncore.llm_uncertainty import evaluate_scores
    >>> rng = np.random.default_rng(0)
    >>> correct = rng.integers(0, 2, 200)
    >>> table = pd.DataFrame({"glu": correct + rng.normal(size=200), "loglik": correct + 2 * rng.normal(size=200)})
    >>> evaluate_scores(table, correct, B=99, seed=1)
    ScoreEvaluation(reference='glu', auc_reference=0.7574, n=200, n_correct=111)
    """

    scores: tuple
    auc: np.ndarray
    conf_low: np.ndarray
    conf_high: np.ndarray
    statistic: np.ndarray
    p_value: np.ndarray
    p_adjusted: np.ndarray
    reference: str
    p_adjust: str
    conf_level: float
    n: int
    n_correct: int
    spearman_test: Any
    hsic: Any
    rocs: tuple
    tests: tuple
    dependence: tuple

    @property
    def spearman(self) -> float:
        """Spearman's rho of the two dependence columns (NaN without them)."""
        return float("nan") if self.spearman_test is None else self.spearman_test.estimate["rho"]

    @property
    def spearman_p_value(self) -> float:
        """Its p-value (NaN without them)."""
        return float("nan") if self.spearman_test is None else self.spearman_test.p_value

    def _repr_parts(self):
        return [("reference", self.reference), ("auc_reference", float(self.auc[0])), ("n", self.n),
                ("n_correct", self.n_correct)]

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"score": list(self.scores), "auc": self.auc, "conf_low": self.conf_low,
                             "conf_high": self.conf_high, "statistic": self.statistic, "p_value": self.p_value,
                             "p_adjusted": self.p_adjusted})

    def summary(self) -> str:
        pct = f"{100 * self.conf_level:g}%"
        w = max(len(s) for s in self.scores) + 2
        lines = ["", "\tAUROC of uncertainty scores against answer correctness", "",
                 f"{self.n} answers: {self.n_correct} correct, {self.n - self.n_correct} wrong", "",
                 f"{'score':<{w}}{'AUC':>7}  {pct + ' CI (DeLong)':>19}  {'Z vs ' + self.reference:>12}"
                 f"{'p-value':>10}{'p (' + self.p_adjust + ')':>12}"]
        for i, s in enumerate(self.scores):
            ci = f"[{self.conf_low[i]:.3f}, {self.conf_high[i]:.3f}]"
            if i == 0:
                tail = f"{'':>12}{'':>10}{'':>12}"
            else:
                tail = f"{self.statistic[i]:>12.3f}{_fmt_p(self.p_value[i]):>10}{_fmt_p(self.p_adjusted[i]):>12}"
            lines.append(f"{s:<{w}}{self.auc[i]:>7.3f}  {ci:>19}  {tail}")
        lines += ["", f"Paired DeLong tests of {self.reference} against each score (two-sided), p-values adjusted "
                      f"by {self.p_adjust}."]
        if self.hsic is not None:
            a, b = self.dependence
            lines += ["", f"Dependence of {a} and {b}:", self.spearman_test.summary().rstrip("\n"),
                      self.hsic.summary().rstrip("\n")]
        return "\n".join(lines + [""])

    def _plot(self, ax=None, **kwargs):
        """All ROC curves on one Axes (specificity decreasing to the right, as pROC draws them), with
        the bootstrap band of the reference's curve."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 5))
        for i, (s, r) in enumerate(zip(self.scores, self.rocs)):
            r.plot(ax=ax, band=(i == 0) and kwargs.get("band", True), color=f"C{i}",
                   label=f"{s} ({self.auc[i]:.3f})", lw=2 if i == 0 else 1)
        ax.set_title(f"ROC: correct vs wrong answers (n = {self.n})")
        return ax


def _fmt_p(p: float) -> str:
    if not np.isfinite(p):
        return "NA"
    return "< 2.2e-16" if p < 2.2e-16 else f"{p:.4g}"


def evaluate_scores(table, correct, *, scores=None, reference="glu", conf_level=0.95, p_adjust="holm",
                    dependence=("global_term", "local_term"), dependence_method="permutation", B=999, seed=None,
                    n_jobs=1, progress=None):
    """AUROC of every uncertainty score against answer correctness, with DeLong intervals, paired
    DeLong tests of the reference score (GLU) against each other score, and the dependence between
    GLU's global and local signals.

    Each score is oriented so that higher means more confident (``SCORE_COLUMNS`` gives the sign of
    the columns of :func:`score_generations`), and its ROC curve is built with correct answers as
    cases and ``direction="<"`` fixed in advance (never pROC's ``"auto"``, which would pick the
    better side after seeing the data). Intervals are DeLong's (:func:`statcore.auc_ci`), the paired
    comparisons DeLong's test for two correlated ROC curves (:func:`statcore.roc_test`), adjusted
    together by :func:`statcore.p_adjust`. The paper's claim that the global and the local signal
    are weakly correlated is tested rather than assumed: Spearman's rank correlation and an HSIC
    independence test (:func:`statcore.hsic_test`) of the two ``dependence`` columns.

    Parameters
    ----------
    table : GenerationScores or pandas.DataFrame
        Scores, one row per answer: the result of :func:`score_generations` or its ``to_frame()``.
    correct : array_like of bool or 0/1
        Whether each answer is correct (1) or wrong (0), aligned with the rows of ``table``.
    scores : None, list of str or dict
        The columns to evaluate: None takes every column of ``SCORE_COLUMNS`` present in the table;
        a dict maps a column to +1 (higher is more confident) or -1 (higher is more uncertain).
    reference : str, default "glu"
        The score tested against the others.
    conf_level : float, default 0.95
        Coverage of the DeLong intervals.
    p_adjust : str, default "holm"
        Multiplicity adjustment of the paired tests (a method of :func:`statcore.p_adjust`).
    dependence : tuple of two str or None, default ("global_term", "local_term")
        The columns whose dependence is measured (None: skip; the default is skipped when the
        table lacks these columns).
    dependence_method : {"permutation", "gamma"}, default "permutation"
        The null distribution of the HSIC test of the ``dependence`` columns (its ``method``).
    B : int, default 999
        Permutations of the HSIC test.
    seed : None, int or numpy.random.Generator
        Randomness of the HSIC permutations (and of nothing else).
    n_jobs : int, default 1
        Threads of the HSIC permutation kernel (:func:`statcore.hsic_test`); the result does not
        depend on it.
    progress : bool or None
        A progress bar over the HSIC permutations (None: only on a terminal).

    Returns
    -------
    ScoreEvaluation
        The AUROC table (``to_frame()``), the curves, the tests and the dependence measures;
        ``plot()`` draws all ROC curves.

    See Also
    --------
    score_generations, statcore.roc, statcore.auc_ci, statcore.roc_test, statcore.hsic_test

    References
    ----------
    DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L. (1988). Comparing the areas under two or
    more correlated receiver operating characteristic curves: a nonparametric approach. Biometrics
    44, 837-845.
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scand. J. Statist. 6, 65-70.
    Gretton, A. et al. (2008). A kernel statistical test of independence. NeurIPS.
    Medina et al. (2026). Integrating local and global entropy for uncertainty quantification in
    LLMs (GLU). NeurIPS; arXiv 2606.09875.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from learncore.llm_uncertainty import evaluate_scores
    >>> rng = np.random.default_rng(0)
    >>> correct = rng.integers(0, 2, 200)
    >>> table = pd.DataFrame({"glu": correct + rng.normal(size=200),
    ...                       "perplexity": -correct + 2 * rng.normal(size=200)})
    >>> ev = evaluate_scores(table, correct)
    >>> ev.to_frame().round(3)
            score    auc  conf_low  conf_high  statistic  p_value  p_adjusted
    0         glu  0.757     0.689      0.825        NaN      NaN         NaN
    1  perplexity  0.650     0.574      0.726      2.052     0.04        0.04
    """
    if isinstance(table, GenerationScores):
        table = table.to_frame()
    data, orient = as_score_table(table, scores, SCORE_COLUMNS)
    y = as_correct(correct, data.shape[0])
    if not isinstance(reference, str) or reference not in orient:
        raise ValueError(f"reference={reference!r} must be one of the evaluated scores {list(orient)}")
    conf_level = _check_conf_level(conf_level)
    if not isinstance(p_adjust, str) or p_adjust not in statcore.p_adjust_methods:
        raise ValueError(f"p_adjust={p_adjust!r} must be one of {list(statcore.p_adjust_methods)}")
    hsic_method = check_choice(dependence_method, "dependence_method", ("permutation", "gamma"))
    B = check_positive_int(B, "B")
    n_jobs, progress = check_n_jobs(n_jobs), check_progress(progress)
    if dependence is not None:
        if (not isinstance(dependence, (tuple, list)) or len(dependence) != 2
                or not all(isinstance(c, str) for c in dependence)):
            raise TypeError("dependence must be None or a pair of column names of table")
        missing = [c for c in dependence if c not in table.columns]
        if missing:
            dependence = None if dependence == ("global_term", "local_term") else dependence
            if dependence is not None:
                raise ValueError(f"dependence: column(s) {missing} not in table")
    names = [reference] + [c for c in orient if c != reference]
    rocs, cis = [], []
    for c in names:
        r = statcore.roc(y, orient[c] * data[c].to_numpy(), direction="<", levels=(0, 1))
        rocs.append(r)
        cis.append(statcore.auc_ci(r, method="delong", conf_level=conf_level))
    tests = [statcore.roc_test(rocs[0], r, paired=True, method="delong") for r in rocs[1:]]
    p = np.array([t.p_value for t in tests], dtype=float)
    p_adj = np.asarray(statcore.p_adjust(p, method=p_adjust), dtype=float) if p.size else p
    nan = np.array([np.nan])
    rho_test = hsic = None
    if dependence is not None:
        # statcore's one input door: numbers only (text, even "0.4", is refused naming the column)
        a, b = (as_float_array(table[c], f"table[{c!r}]", allow_nan=True, allow_inf=True) for c in dependence)
        if not (np.isfinite(a).all() and np.isfinite(b).all()):
            raise ValueError(f"dependence: columns {list(dependence)} must be finite numbers")
        rho, rho_p = (float(v) for v in spearmanr(a, b))
        n = a.size
        rho_test = HTest(statistic=(n ** 3 - n) * (1.0 - rho) / 6.0, statistic_name="S", p_value=rho_p,
                         estimate={"rho": rho}, null_value={"rho": 0.0}, alternative="two.sided",
                         method="Spearman's rank correlation rho (t approximation)",
                         data_name=f"{dependence[0]} and {dependence[1]}")
        hsic = statcore.hsic_test(a, b, method=hsic_method, B=B, seed=seed, n_jobs=n_jobs, progress=progress)
    return ScoreEvaluation(
        scores=tuple(names), auc=np.array([float(r.auc) for r in rocs]),
        conf_low=np.array([float(ci.conf_int[0]) for ci in cis]),
        conf_high=np.array([float(ci.conf_int[1]) for ci in cis]),
        statistic=np.concatenate([nan, [float(t.statistic) for t in tests]]),
        p_value=np.concatenate([nan, p]), p_adjusted=np.concatenate([nan, p_adj]),
        reference=reference, p_adjust=p_adjust, conf_level=conf_level, n=int(y.size), n_correct=int(y.sum()),
        spearman_test=rho_test, hsic=hsic, rocs=tuple(rocs), tests=tuple(tests),
        dependence=tuple(dependence) if dependence is not None else ())


def _check_conf_level(conf_level: Any) -> float:
    if isinstance(conf_level, bool) or not isinstance(conf_level, (int, float, np.floating)) \
            or not 0 < conf_level < 1:
        raise ValueError(f"conf_level must be a number in (0, 1), got {conf_level!r}")
    return float(conf_level)
