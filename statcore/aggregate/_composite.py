"""Composite scores: the weighted power mean of per-component averages over items (HiFD-style:
average each metric over the evaluation set, then combine the averages by a weighted harmonic
mean), with bootstrap intervals over the items for every component and every profile's composite
(through the resampling engine's ``run_resamples``: one resample of items gives all of them)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._checks import as_nonneg_scores, check_positive_int, check_power_exponent, check_probability
from .._checks.public import public_function
from .._resampling import run_resamples
from .._result import Result
from .._seeds import root_seed
from ._power import pmean_core
from ._profiles import resolve_profiles

__all__ = ["composite_score", "CompositeScore"]


class _ItemDraw:
    """Bootstrap indices of the items: ``rng.integers(0, n, (size, n))``."""

    def __init__(self, n: int):
        self.n = n

    def __call__(self, rng: np.random.Generator, size: int) -> np.ndarray:
        return rng.integers(0, self.n, (size, self.n))


class _ItemCompute:
    """Per resample: the K component means followed by the P profiles' composites."""

    def __init__(self, X: np.ndarray, W: np.ndarray, p: float):
        self.X, self.W, self.p = X, W, p

    def __call__(self, idx: np.ndarray) -> np.ndarray:
        means = self.X[idx].mean(axis=1)                                   # (size, K)
        comp = pmean_core(means[:, None, :], self.W[None, :, :], self.p)   # (size, P)
        return np.concatenate([means, comp], axis=1)


@dataclass(frozen=True, eq=False, repr=False)
class CompositeScore(Result):
    """Component averages and composite scores with bootstrap intervals (:func:`composite_score`).

    Attributes
    ----------
    components : pandas.DataFrame
        One row per component (index: its name): ``estimate`` (the mean over items), ``std_error``
        (bootstrap), ``conf_low``, ``conf_high`` (percentile interval).
    composites : pandas.DataFrame
        One row per profile (index: its name), the same columns, for the power mean of the component
        averages under that profile's weights.
    weights : pandas.DataFrame
        The normalised weights, profiles x components.
    p : float
        The power mean's exponent (-1: harmonic).
    conf_level : float
    B : int
        Bootstrap resamples of the items.
    n : int
        Items (rows of ``components``).

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import composite_score
    >>> X = np.random.default_rng(0).uniform(0.5, 1.0, size=(30, 3))
    >>> res = composite_score(X, B=200, seed=1)
    >>> res.to_frame()["quantity"].tolist()
    ['c1', 'c2', 'c3', 'equal']
    """

    components: pd.DataFrame
    composites: pd.DataFrame
    weights: pd.DataFrame
    p: float
    conf_level: float
    B: int
    n: int

    def _repr_parts(self):
        return [(f"composite[{k}]", float(v)) for k, v in self.composites["estimate"].items()] + \
               [("p", self.p), ("n", self.n), ("B", self.B)]

    def summary(self) -> str:
        level = f"{100 * self.conf_level:g}"
        head = (f"Composite score: weighted power mean (p = {self.p:g}) of {len(self.components)} component "
                f"averages over {self.n} items; {level}% bootstrap percentile intervals (B = {self.B})\n")
        fmt = {"float_format": lambda v: f"{v:.4f}"}
        return (head + "\nComponents:\n" + self.components.to_string(**fmt) + "\n\nComposites:\n"
                + self.composites.to_string(**fmt) + "\n\nWeights:\n" + self.weights.to_string(**fmt) + "\n")

    def to_frame(self) -> pd.DataFrame:
        """One row per quantity: ``quantity`` (a component's or a profile's name), ``kind``
        ("component" or "composite"), ``estimate``, ``std_error``, ``conf_low``, ``conf_high``."""
        parts = []
        for kind, frame in (("component", self.components), ("composite", self.composites)):
            f = frame.reset_index(names="quantity")
            f.insert(1, "kind", kind)
            parts.append(f)
        return pd.concat(parts, ignore_index=True)

    def _plot(self, ax=None):
        """The composites with their intervals, one per profile."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(4.5, 3), layout="constrained")
        c = self.composites
        y = np.arange(len(c))
        ax.errorbar(c["estimate"], y, xerr=[c["estimate"] - c["conf_low"], c["conf_high"] - c["estimate"]],
                    fmt="o", color="C0", capsize=3)
        ax.set_yticks(y, [str(i) for i in c.index])
        ax.set_xlabel(f"composite score (p = {self.p:g})")
        return ax


@public_function(data=("components",), nan_policy=("raise", "omit"))
def composite_score(components, *, profile=None, weights=None, p=-1, conf_level=0.95, B=2000, seed=None):
    """A composite score: the weighted power mean of the components' averages over items.

    Each component (a metric: de-identification rate, SSIM, mapped PSNR, ...) is averaged over the
    items, and the averages are combined by the weighted power mean of exponent ``p`` (the harmonic
    mean, ``p=-1``, by default: HiFD's rule, under which a component averaging 0 with positive weight
    makes the composite 0). Percentile bootstrap intervals over the items are given for every
    component average and every profile's composite (one resample of items gives all of them).

    Parameters
    ----------
    components : array_like or pandas.DataFrame, shape (n, K)
        One row per item, one column per component, non-negative scores (higher is better). A
        DataFrame's column names name the components (otherwise ``c1``, ``c2``, ...).
    profile : str, list of str or dict, optional
        The weights, by profile: a dict ``{name: weights}`` (each a sequence of K weights, or a dict
        component -> weight, missing components 0), or the name (or a list of names) of our built-in
        HiFD-like profiles over three components in the order (privacy, utility, quality):
        ``"balanced"`` (1/3, 1/3, 1/3), ``"privacy_first"`` (1/2, 1/4, 1/4) and ``"utility_first"``
        (1/4, 1/2, 1/4). These three are ours, for illustration: the HiFD paper does not publish its
        exact weights.
    weights : array_like, optional
        K non-negative weights of one unnamed profile ("weights"); not together with ``profile``.
        Neither given: equal weights (profile "equal").
    p : float, default -1
        The power mean's exponent (see :func:`power_mean`).
    conf_level : float, default 0.95
        The coverage of the percentile intervals.
    B : int, default 2000
        Bootstrap resamples of the items.
    seed : None, int or numpy.random.Generator
        The seed of the resampling streams.
    nan_policy : {"raise", "omit"}
        A NaN score: "raise" refuses it, "omit" drops the items (rows) holding one.

    Returns
    -------
    CompositeScore
        ``components`` and ``composites`` (estimate, std_error, conf_low, conf_high) and ``weights``.

    References
    ----------
    The HiFD benchmark of face de-identification (a weighted harmonic mean of privacy, utility and
    quality scores; its weights are not published). Efron, B. and Tibshirani, R. J. (1993). *An
    Introduction to the Bootstrap*, chapter 13 (percentile intervals).

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from statcore import composite_score
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame({"privacy": rng.uniform(0.6, 1.0, 50), "utility": rng.uniform(0.4, 0.8, 50),
    ...                   "quality": rng.uniform(0.5, 0.9, 50)})
    >>> res = composite_score(X, profile=["balanced", "privacy_first"], B=500, seed=1)
    >>> res.composites["estimate"].round(3).tolist()
    [0.707, 0.731]
    >>> bool((res.composites["conf_low"] < res.composites["estimate"]).all())
    True
    """
    p = check_power_exponent(p, "p")
    conf_level = check_probability(conf_level, "conf_level", open_left=True, open_right=True)
    B = check_positive_int(B, "B")
    labels = ([str(c) for c in components.columns] if isinstance(components, pd.DataFrame) else None)
    X = as_nonneg_scores(components, "components", ndim=2)
    n, K = X.shape
    if n < 2:
        raise ValueError(f"components needs at least two items (rows) for a bootstrap, got {n}")
    labels = labels or [f"c{j + 1}" for j in range(K)]
    profiles = resolve_profiles(profile, weights, labels)
    names = list(profiles)
    W = np.stack([profiles[k] for k in names])
    est = np.concatenate([X.mean(axis=0), pmean_core(X.mean(axis=0)[None, :], W, p)])
    boot = run_resamples(_ItemDraw(n), _ItemCompute(X, W, p), B, seed=root_seed(seed),
                         bytes_per_resample=8.0 * n * (K + 1), desc="bootstrap", unit="resample")
    boot = np.asarray(boot, dtype=np.float64).reshape(B, K + len(names))
    a = (1 - conf_level) / 2
    lo, hi = np.quantile(boot, [a, 1 - a], axis=0)
    se = boot.std(axis=0, ddof=1) if B > 1 else np.full(K + len(names), np.nan)

    def frame(sl, index):
        return pd.DataFrame({"estimate": est[sl], "std_error": se[sl], "conf_low": lo[sl], "conf_high": hi[sl]},
                            index=pd.Index(index, name="quantity"))

    return CompositeScore(components=frame(slice(0, K), labels), composites=frame(slice(K, None), names),
                          weights=pd.DataFrame(W, index=pd.Index(names, name="profile"), columns=labels),
                          p=p, conf_level=conf_level, B=int(B), n=int(n))
