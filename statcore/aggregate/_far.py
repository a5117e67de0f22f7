"""The share of pairs left unmatched at a fixed false-accept rate (HiFD's "share of faces
de-identified at FAR 1e-2"), with its Clopper-Pearson interval (through ``statcore.proportion_ci``)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._checks import as_float_array, check_probability
from .._checks.public import public_function
from .._result import Result

__all__ = ["rate_at_far", "RateAtFAR"]


def far_threshold(impostor: np.ndarray, far: float) -> tuple[float, int]:
    """The smallest float t with #{impostor >= t} / n <= far, and that count.

    With d the impostor scores sorted decreasingly and m the largest count with m / n <= far, every
    t <= d[m] accepts at least m + 1 impostors and every t > d[m] at most m: the smallest such float
    is the next float above d[m] (``numpy.nextafter``)."""
    n = impostor.size
    m = int(np.floor(far * n))
    while m + 1 <= n and (m + 1) / n <= far:          # m / n <= far exactly in floating point
        m += 1
    while m > 0 and m / n > far:
        m -= 1
    d = np.sort(impostor)[::-1]
    t = float(np.nextafter(d[m], np.inf))
    return t, int(np.sum(impostor >= t))


@dataclass(frozen=True, eq=False, repr=False)
class RateAtFAR(Result):
    """The share of pairs below the threshold of a false-accept rate (:func:`rate_at_far`).

    Attributes
    ----------
    threshold : float
        The smallest threshold t with #{impostor >= t} / n <= far (a score >= t is accepted as a match).
    far : float
        The target false-accept rate.
    far_achieved : float
        #{impostor >= threshold} / n_impostor (at most ``far``).
    estimate : float
        The share of pairs with a score below the threshold (not accepted: de-identified).
    conf_low, conf_high : float
        Its Clopper-Pearson interval.
    below, n_pairs, n_impostor : int
        Pairs below the threshold, pairs and impostor scores.
    conf_level : float

    Examples
    --------
    >>> from statcore import rate_at_far
    >>> res = rate_at_far([0.1, 0.2, 0.3, 0.4], [0.25, 0.5], far=0.25)
    >>> res.threshold > 0.3, res.estimate
    (True, 0.5)
    """

    threshold: float
    far: float
    far_achieved: float
    estimate: float
    conf_low: float
    conf_high: float
    below: int
    n_pairs: int
    n_impostor: int
    conf_level: float

    def _repr_parts(self):
        return [("estimate", self.estimate), ("conf_low", self.conf_low), ("conf_high", self.conf_high),
                ("threshold", self.threshold), ("far", self.far)]

    def summary(self) -> str:
        level = f"{100 * self.conf_level:g}"
        return (f"Share of pairs below the threshold at FAR {self.far:g}\n\n"
                f"threshold t = {self.threshold:.6g} (accept: score >= t; {self.n_impostor} impostor scores, "
                f"achieved FAR {self.far_achieved:.4g})\n"
                f"below t: {self.below} of {self.n_pairs} pairs = {self.estimate:.4f}\n"
                f"{level} percent Clopper-Pearson interval: [{self.conf_low:.4f}, {self.conf_high:.4f}]\n")

    def to_frame(self) -> pd.DataFrame:
        """One row: ``far``, ``threshold``, ``far_achieved``, ``below``, ``n_pairs``, ``estimate``,
        ``conf_low``, ``conf_high``."""
        return pd.DataFrame([{"far": self.far, "threshold": self.threshold, "far_achieved": self.far_achieved,
                              "below": self.below, "n_pairs": self.n_pairs, "estimate": self.estimate,
                              "conf_low": self.conf_low, "conf_high": self.conf_high}])


@public_function(data=("impostor_scores", "pair_scores"), nan_policy=("raise", "omit"), samples="independent")
def rate_at_far(impostor_scores, pair_scores, *, far=0.01, conf_level=0.95):
    """The share of pairs not matched at the threshold of a false-accept rate, with an exact interval.

    A similarity score at or above a threshold t is accepted as a match. The threshold is the smallest
    t at which the empirical false-accept rate of the impostor (different-identity) scores,
    FAR(t) = #{impostor >= t} / n, is at most ``far``: with d the impostor scores sorted
    decreasingly and m the largest count with m / n <= far, that is the next float above d[m] (every
    t <= d[m] accepts m + 1 impostors or more). The pairs (a de-identified face against its original,
    say) scoring below t are not matched: their share is HiFD's "share of faces de-identified at FAR
    1e-2", given with the Clopper-Pearson interval of :func:`statcore.proportion_ci`.

    Parameters
    ----------
    impostor_scores : array_like
        Similarity scores of impostor pairs (different identities), which set the threshold.
    pair_scores : array_like
        Similarity scores of the pairs whose share below the threshold is wanted.
    far : float, default 0.01
        The false-accept rate, in (0, 1). With fewer than 1 / far impostor scores, m = 0: the
        threshold lies just above the largest impostor score.
    conf_level : float, default 0.95
        The coverage of the Clopper-Pearson interval.
    nan_policy : {"raise", "omit"}
        A NaN score: "raise" refuses it, "omit" drops it (from each sample on its own).

    Returns
    -------
    RateAtFAR
        ``threshold``, ``far_achieved``, ``estimate`` (the share below), ``conf_low``, ``conf_high``.

    References
    ----------
    ISO/IEC 19795-1:2021, biometric performance testing (false accept rate at a threshold). Clopper, C.
    J. and Pearson, E. S. (1934). *Biometrika* 26, 404-413. The HiFD face de-identification benchmark
    (share of faces de-identified at FAR 1e-2).

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import rate_at_far
    >>> rng = np.random.default_rng(0)
    >>> impostor = rng.normal(0.0, 0.1, 1000)        # cosine similarities of different people
    >>> pairs = rng.normal(0.3, 0.1, 200)            # de-identified face vs its original
    >>> res = rate_at_far(impostor, pairs, far=0.01)
    >>> round(res.threshold, 4), res.far_achieved, res.below
    (0.2227, 0.01, 41)
    >>> round(res.conf_low, 3), round(res.conf_high, 3)
    (0.151, 0.268)
    """
    from ..effects import proportion_ci

    far = check_probability(far, "far", open_left=True, open_right=True)
    conf_level = check_probability(conf_level, "conf_level", open_left=True, open_right=True)
    imp = as_float_array(impostor_scores, "impostor_scores")
    pairs = as_float_array(pair_scores, "pair_scores")
    for name, a in (("impostor_scores", imp), ("pair_scores", pairs)):
        if a.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional (one score per pair), got shape {a.shape}")
        if a.size == 0:
            raise ValueError(f"{name} is empty: pass at least one score")
    t, accepted = far_threshold(imp, far)
    below = int(np.sum(pairs < t))
    ci = proportion_ci(below, int(pairs.size), method="clopper-pearson", conf_level=conf_level)
    return RateAtFAR(threshold=t, far=far, far_achieved=accepted / imp.size, estimate=float(ci.estimate),
                     conf_low=float(ci.conf_low), conf_high=float(ci.conf_high), below=below, n_pairs=int(pairs.size),
                     n_impostor=int(imp.size), conf_level=conf_level)
