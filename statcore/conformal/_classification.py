"""Split-conformal prediction sets for classification: LAC (``1 - p_y``) and APS (the cumulative
probability down to y, plain or randomised), with Mondrian calibration: ``conformal_classes`` and
its result ``ConformalClassSets``."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import (apply_nan_policy, as_class_labels, as_class_probs, as_float_array, check_choice, check_flag,
                       check_miscoverage, check_nan_policy, check_same_n, check_seed)
from .._checks.public import public_function
from .._checks.core import _is_pandas
from .._r.rformat import R_DIGITS, format_named_vector, format_number
from .._result import Result
from ._base import CalibrationRecord
from ._mondrian import calibrate

__all__ = ["conformal_classes", "ConformalClassSets"]

_SCORES = {("lac", False, None): "LAC: 1 - p_y",
           ("aps", False, True): "APS: cumulative probability down to y; the label crossing q is kept",
           ("aps", False, False): "APS: cumulative probability down to y; sets {y : score <= q}",
           ("aps", True, None): "APS, randomised: cumulative probability down to y minus V p_y, V ~ U(0, 1)"}


def _sorted_cumsum(p: np.ndarray, *, before: bool = False) -> np.ndarray:
    """The cumulative probabilities in decreasing-probability order (ties: column order), put back in
    column order: c[i, j] = sum of p[i, l] over the labels l ranked at or before j (``before``:
    strictly before j, the previous label's partial sum, 0 for the top label).

    The partial sums before a label are the very floating-point sums that are the scores of the
    labels ranked earlier (not ``c - p``, which can differ from them in the last bit), so a test point
    whose probabilities equal a calibration point's meets q exactly where it ties with it."""
    order = np.argsort(-p, axis=1, kind="stable")
    cs = np.cumsum(np.take_along_axis(p, order, axis=1), axis=1)
    if before:
        cs = np.concatenate([np.zeros((cs.shape[0], 1)), cs[:, :-1]], axis=1)
    c = np.empty_like(cs)
    np.put_along_axis(c, order, cs, axis=1)
    return c


def class_scores(p: np.ndarray, y_idx: np.ndarray, score: str, v: np.ndarray | None) -> np.ndarray:
    """Calibration scores: LAC 1 - p_y; APS c_y (cumulative probability down to y), minus v p_y when
    randomised (v: one uniform per point)."""
    rows = np.arange(p.shape[0])
    py = p[rows, y_idx]
    if score == "lac":
        return 1.0 - py
    c = _sorted_cumsum(p)[rows, y_idx]
    return c if v is None else c - v * py


def class_sets(p: np.ndarray, q: np.ndarray, score: str, v: np.ndarray | None, include_last: bool | None
               ) -> np.ndarray:
    """The (n, K) boolean sets for thresholds q (one per row)."""
    qq = q[:, None]
    if score == "lac":
        return (1.0 - p) <= qq
    if v is not None:
        return (_sorted_cumsum(p) - v[:, None] * p) <= qq
    if include_last:  # the labels before the first whose cumulative probability reaches q, and that one
        return _sorted_cumsum(p, before=True) < qq
    return _sorted_cumsum(p) <= qq


@dataclass(frozen=True, repr=False)
class ConformalClassSets(CalibrationRecord, Result):
    """Split-conformal prediction sets of class labels (:func:`conformal_classes`).

    Attributes
    ----------
    sets : numpy.ndarray of bool, shape (n_test, K)
        ``sets[i, j]``: class ``classes[j]`` is in the set of test point i.
    classes : tuple
        The class labels of the columns.
    q : numpy.ndarray, shape (n_test,)
        The conformal quantile used for each test point (one value, or its group's).
    alpha : float
        The miscoverage.
    score : str
        "lac" or "aps".
    randomized : bool
        Whether the APS score and sets were randomised.
    include_last : bool or None
        For non-randomised APS, whether the label whose cumulative probability reaches q is kept.
    groups, group_q, group_n, group_rank, test_groups
        The Mondrian calibration, as in :class:`ConformalIntervals`.
    index : pandas.Index or None
        The index of ``probs_test`` when it was a DataFrame.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import conformal_classes
    >>> rng = np.random.default_rng(0)
    >>> p = rng.dirichlet(np.ones(3), size=60)
    >>> y = np.array([rng.choice(3, p=row) for row in p])
    >>> res = conformal_classes(p[:50], y[:50], p[50:], alpha=0.2)
    >>> res
    ConformalClassSets(score='lac', alpha=0.2, n_cal=50, n_test=10, mean_size=1.4)
    >>> res.to_frame().head(3)
      prediction_set  size         q
    0         (0, 2)     2  0.727423
    1           (1,)     1  0.727423
    2      (0, 1, 2)     3  0.727423
    """

    sets: np.ndarray
    classes: tuple
    q: np.ndarray
    alpha: float
    score: str
    randomized: bool
    include_last: bool | None
    groups: tuple | None
    group_q: np.ndarray
    group_n: np.ndarray
    group_rank: np.ndarray
    test_groups: np.ndarray | None = None
    index: Any = None

    @property
    def size(self) -> np.ndarray:
        """The number of labels in each set (0: an empty set)."""
        return self.sets.sum(axis=1)

    def _size(self) -> np.ndarray:
        return self.size.astype(float)

    @property
    def prediction_sets(self) -> tuple:
        """The labels of each set, as a tuple of tuples."""
        labels = np.asarray(self.classes, dtype=object)
        return tuple(tuple(labels[row].tolist()) for row in self.sets)

    def _observed(self, y) -> np.ndarray:
        idx = as_class_labels(y, "y", self.n_test, self.classes)
        return self.sets[np.arange(self.n_test), idx]

    def matrix(self):
        """The sets as a boolean DataFrame, one column per class.

        Returns
        -------
        pandas.DataFrame
        """
        import pandas as pd

        return pd.DataFrame(np.array(self.sets), columns=list(self.classes), index=self.index)

    def summary(self, digits: int = R_DIGITS) -> str:
        """The score, alpha, the calibration (per group when Mondrian), the coverage band and the
        distribution of set sizes."""
        key = (self.score, self.randomized, self.include_last)
        lines = ["", "\tSplit conformal prediction sets" + (" (Mondrian)" if self.groups is not None else ""), "",
                 f"score:  {_SCORES[key]}", f"classes: {len(self.classes)}"]
        lines += self._calibration_lines(digits)
        size = self.size
        counts = np.bincount(size, minlength=len(self.classes) + 1)
        lines.append(f"set size: mean {format_number(float(size.mean()), digits)}; sets of each size:")
        lines.append(format_named_vector([str(k) for k in range(counts.size)], [float(c) for c in counts], digits))
        lines.append("")
        return "\n".join(lines) + "\n"

    def to_frame(self):
        """One row per test point: ``prediction_set`` (a tuple of labels), ``size``, ``q`` and, with
        Mondrian calibration, ``group``."""
        import pandas as pd

        cols = {"prediction_set": list(self.prediction_sets), "size": self.size, "q": self.q}
        if self.test_groups is not None:
            cols["group"] = self.test_groups
        return pd.DataFrame(cols, index=self.index)

    def _repr_parts(self):
        parts = [("score", self.score), ("alpha", self.alpha), ("n_cal", self.n_cal), ("n_test", self.n_test)]
        if self.randomized:
            parts.append(("randomized", True))
        if self.groups is not None:
            parts.append(("groups", len(self.groups)))
        return parts + [("mean_size", float(self.size.mean()))]

    def _plot(self, ax=None):
        """A bar chart of the set sizes. Returns the Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.2), layout="constrained")
        counts = np.bincount(self.size, minlength=len(self.classes) + 1)
        ax.bar(np.arange(counts.size), counts, color="C0")
        ax.set_xlabel("set size")
        ax.set_ylabel("test points")
        ax.set_title(f"conformal prediction sets ({self.score}), alpha = {self.alpha:g}", fontsize=10)
        return ax


def _classes_of(classes, K: int) -> tuple:
    if classes is None:
        return tuple(range(K))
    if isinstance(classes, (str, bytes)):
        raise TypeError("classes must be a sequence of labels, one per column of the probabilities")
    labels = list(classes.tolist() if hasattr(classes, "tolist") else classes)
    if len(labels) != K:
        raise ValueError(f"classes must name each of the {K} columns of the probabilities, got {len(labels)} labels")
    if len(set(labels)) != K:
        raise ValueError("classes must not repeat a label")
    return tuple(labels)


@public_function(data=("probs_cal", "y_cal", "probs_test"), nan_policy=("raise", "omit"),
                 rows=("probs_cal", "y_cal"))
def conformal_classes(probs_cal, y_cal, probs_test, *, alpha, score="lac", randomized=False, include_last=None,
                      seed=None, classes=None, groups_cal=None, groups_test=None, allow_infinite=False,
                      nan_policy="raise"):
    """Split-conformal prediction sets of class labels from predicted class probabilities.

    From the calibration labels and the model's class probabilities (from a model that never saw
    them), the scores give q = :func:`conformal_quantile`, and the set of a test point holds the
    labels whose score is at most q; it covers a new exchangeable label with probability at least
    1 - alpha (within each group with Mondrian calibration).

    - ``"lac"`` (least ambiguous set-valued classifier): score 1 - p_y; the set {y : p_y >= 1 - q}.
    - ``"aps"`` (adaptive prediction sets): order the labels by decreasing probability (ties by
      column order) and let c_y be the total probability of the labels ranked at or before y; the
      score is c_y. With ``randomized=True`` it is c_y - V p_y with V ~ U(0, 1) drawn per point (once
      for each test point, for all its labels), and the set {y : c_y - V p_y <= q}: the score is then
      continuous, the coverage exact, and a set may be empty. Without randomisation
      (``include_last``): True (default) keeps the labels down to and including the first whose c_y
      reaches q, {y : c_y- < q} with c_y- the total probability of the labels ranked before y
      (Angelopoulos & Bates; never empty, conservative); False gives the
      sets {y : c_y <= q} of the score itself (coverage in the exact band, empty when q is below the
      top probability).

    Parameters
    ----------
    probs_cal : array_like, shape (n, K)
        Calibration class probabilities (rows summing to 1).
    y_cal : array_like, shape (n,)
        Calibration labels: column indices 0..K-1, or labels listed in ``classes``.
    probs_test : array_like, shape (n_test, K)
        Test class probabilities (a DataFrame keeps its index in ``to_frame()``).
    alpha : float
        The miscoverage, in (0, 1).
    score : {"lac", "aps"}
        The nonconformity score.
    randomized : bool, default False
        Randomised APS (refused for LAC).
    include_last : bool, optional
        Non-randomised APS only: keep the label that reaches q (default True), or use the plain sets
        {y : c_y <= q} (False).
    seed : None, int or numpy.random.Generator
        The randomness of randomised APS: one Generator draws V for the calibration points, then for
        the test points.
    classes : sequence, optional
        The label of each column (default 0..K-1).
    groups_cal, groups_test : array_like, optional
        Group labels for Mondrian calibration; both or neither.
    allow_infinite : bool, default False
        Sets of all labels (q = inf) instead of an error when a calibration set or group is too small.
    nan_policy : {"raise", "omit"}
        "omit" drops calibration points with a NaN probability; NaN test probabilities are an error.

    Returns
    -------
    ConformalClassSets
        ``sets`` (n_test, K booleans), ``size``, ``prediction_sets``, ``q``, ``covers(y)``,
        ``coverage(y)``, ``coverage_table(y)``, ``to_frame()``, ``matrix()``, ``plot()``.

    Notes
    -----
    LAC sets equal MAPIE's ``SplitConformalClassifier(conformity_score="lac")`` with a prefit
    classifier (MAPIE compares with a tolerance of 1e-8; statcore exactly). MAPIE's APS always
    randomises its calibration scores (c_y - u p_y); statcore's randomised APS is that score, and its
    sets equal MAPIE's ``include_last_label="randomized"`` given the same uniforms and q; the
    non-randomised ``include_last=True`` sets equal MAPIE's ``include_last_label=True`` given the same
    q. MAPIE's ``include_last_label=False`` always keeps the top label, so it differs from
    ``include_last=False`` when q is below the top probability.

    Ties are decided exactly: c_y- is the partial sum that is the score of the label ranked before y
    (the same floating-point sum, not c_y - p_y), so a test point whose probabilities equal a
    calibration point's, as with a tree's leaves or a test set that repeats the calibration set, keeps
    the label whose c_y equals q and not the next one, as MAPIE does (within its 1e-8). Labels of
    equal probability are ranked by column order, in the scores and the sets alike; MAPIE instead
    keeps every label whose probability equals the last kept one's.

    References
    ----------
    Sadinle, Lei & Wasserman (2019), Least ambiguous set-valued classifiers with bounded error
    levels, *JASA* 114, 223-234 (LAC); Romano, Sesia & Candes (2020), Classification with valid and
    adaptive coverage, *NeurIPS* 33 (APS); Angelopoulos & Bates (2023), A gentle introduction to
    conformal prediction, section 2.1; Vovk, Lindsay, Nouretdinov & Gammerman (2003), Mondrian
    confidence machine (Mondrian calibration).

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import conformal_classes
    >>> rng = np.random.default_rng(0)
    >>> p = rng.dirichlet(np.full(4, 0.5), size=400)
    >>> y = np.array([rng.choice(4, p=row) for row in p])
    >>> res = conformal_classes(p[:300], y[:300], p[300:], alpha=0.1, score="aps", randomized=True, seed=1)
    >>> round(res.coverage(y[300:]), 2), round(float(res.size.mean()), 2)
    (0.94, 2.34)
    """
    alpha = check_miscoverage(alpha)
    score = check_choice(score, "score", ("lac", "aps"))
    randomized = check_flag(randomized, "randomized")
    allow_infinite = check_flag(allow_infinite, "allow_infinite")
    if score == "lac" and randomized:
        raise ValueError("randomized=True applies to score='aps' only (LAC's score 1 - p_y is continuous already)")
    if include_last is not None:
        include_last = check_flag(include_last, "include_last")
        if score != "aps" or randomized:
            raise ValueError("include_last applies to non-randomised APS only (score='aps', randomized=False)")
    elif score == "aps" and not randomized:
        include_last = True
    nan_policy = check_nan_policy(nan_policy, ("raise", "omit"))
    index = probs_test.index if _is_pandas(probs_test) and hasattr(probs_test, "columns") else None
    pc_raw = as_float_array(probs_cal, "probs_cal", allow_nan=True)
    if pc_raw.ndim != 2:
        raise ValueError(f"probs_cal must be a matrix of class probabilities (one row per observation, one column "
                         f"per class), got shape {pc_raw.shape}")
    K = pc_raw.shape[1]
    labels = _classes_of(classes, K)
    pt = as_class_probs(probs_test, "probs_test", n_classes=K)
    y_idx = as_class_labels(y_cal, "y_cal", pc_raw.shape[0], labels, other="probs_cal")
    check_same_n(probs_cal=pc_raw, y_cal=y_idx)
    kept = apply_nan_policy(nan_policy, probs_cal=pc_raw)
    keep = kept.keep
    pc = as_class_probs(kept.arrays["probs_cal"], "probs_cal")
    if keep is not None:
        y_idx = y_idx[keep]
    rng = check_seed(seed) if randomized else None
    v_cal = rng.random(pc.shape[0]) if randomized else None
    scores = class_scores(pc, y_idx, score, v_cal)
    cal = calibrate(scores, pt.shape[0], alpha, allow_infinite, groups_cal, groups_test, keep, test_name="probs_test")
    v_test = rng.random(pt.shape[0]) if randomized else None
    sets = class_sets(pt, cal.q_test, score, v_test, include_last)
    return ConformalClassSets(sets=sets, classes=labels, q=cal.q_test, alpha=alpha, score=score,
                              randomized=randomized, include_last=include_last, groups=cal.labels,
                              group_q=cal.group_q, group_n=cal.group_n, group_rank=cal.group_rank,
                              test_groups=cal.test_groups, index=index)
