"""Bayesian FDR selection from local FDRs: the running-mean rule of Sun & Cai (2007)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import (InputWrapper, as_lfdr, check_nan_policy, check_probability)
from .._checks.public import public_function
from .._r.rformat import format_number
from .._result import Result

__all__ = ["bfdr_select", "BFDRSelection"]


@dataclass(frozen=True, eq=False, repr=False)
class BFDRSelection(Result):
    """Selection by the running mean of sorted local FDRs (:func:`bfdr_select`).

    Attributes
    ----------
    selected : ndarray or pandas Series of bool
        The selected units, in the container of the input.
    q_values : ndarray or pandas Series
        The running mean at each unit's rank: the smallest target level at which it would be
        selected (NaN for units omitted by ``nan_policy="omit"``).
    lfdr : ndarray or pandas Series
        The local FDRs selected from.
    alpha : float
    n_selected : int
    threshold : float
        The largest selected local FDR (NaN if none).
    expected_fdr : float
        The mean local FDR of the selection (0 if none).

    Examples
    --------
    >>> import statcore as sc
    >>> sel = sc.bfdr_select([0.01, 0.5, 0.02, 0.2, 0.9], alpha=0.1)
    >>> sel
    BFDRSelection(alpha=0.1, n_selected=3, n=5, threshold=0.2, expected_fdr=0.07667)
    >>> sel.to_frame().columns.tolist()
    ['lfdr', 'q_value', 'selected']
    """

    selected: Any
    q_values: Any
    lfdr: Any
    alpha: float
    n_selected: int
    threshold: float
    expected_fdr: float

    def _repr_parts(self):
        return [("alpha", self.alpha), ("n_selected", self.n_selected),
                ("n", int(np.size(np.asarray(self.lfdr)))), ("threshold", self.threshold),
                ("expected_fdr", self.expected_fdr)]

    def summary(self) -> str:
        """A short R-style block: target level, number selected, lfdr threshold, expected FDR."""
        n = int(np.size(np.asarray(self.lfdr)))
        thr = "none" if self.n_selected == 0 else format_number(self.threshold)
        efdr = "0" if self.n_selected == 0 else format_number(self.expected_fdr)
        return ("\n\tBayesian FDR selection (Sun & Cai 2007)\n\n"
                f"target level: {format_number(self.alpha)}\n"
                f"selected: {self.n_selected} of {n}\n"
                f"lfdr threshold: {thr}\n"
                f"expected FDR of the selection: {efdr}\n")

    def to_frame(self):
        """One row per unit: ``lfdr``, ``q_value``, ``selected``; the index of a Series input."""
        import pandas as pd

        idx = self.lfdr.index if hasattr(self.lfdr, "index") else None
        return pd.DataFrame({"lfdr": np.asarray(self.lfdr, dtype=float).ravel(),
                             "q_value": np.asarray(self.q_values, dtype=float).ravel(),
                             "selected": np.asarray(self.selected, dtype=bool).ravel()}, index=idx)

    def _plot(self, ax=None):
        """The sorted local FDRs and their running mean against the number selected, with ``alpha``
        and the selected set shaded. The running mean is that of the data, k by k; tied local FDRs
        share the q-value at the end of their tie group (``q_values``), so they are selected together."""
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator, StrMethodFormatter

        s = np.sort(np.asarray(self.lfdr, dtype=float).ravel())
        s = s[~np.isnan(s)]
        k = np.arange(1, s.size + 1)
        if ax is None:
            _, ax = plt.subplots(figsize=(5.5, 4), layout="constrained")
        ax.plot(k, s, color="0.55", lw=1, label="local FDR, sorted")
        ax.plot(k, np.cumsum(s) / k, "k-", label="mean local FDR of the k smallest")
        ax.axhline(self.alpha, color="r", ls="--", lw=0.8, label=f"target alpha = {self.alpha:g}")
        if self.n_selected:
            ax.axvspan(0.5, self.n_selected + 0.5, color="tab:blue", alpha=0.15, lw=0,
                       label=f"selected: {self.n_selected:,} of {s.size:,}")
        else:
            ax.plot([], [], " ", label="selected: none")
        ax.xaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))
        ax.xaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
        ax.set_xlabel("number selected k (units, by increasing local FDR)")
        ax.set_ylabel("local FDR")
        ax.set_title("Bayesian FDR selection")
        ax.legend(loc="best", fontsize="small")
        return ax


def _running_mean_select(flat: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(q, sorted values, running means at each tie group's end) of non-NaN local FDRs."""
    o = np.argsort(flat, kind="stable")
    s = flat[o]
    running = np.cumsum(s) / np.arange(1, s.size + 1)
    if s.size:
        # value at the end of each tie group
        last_of_group = np.r_[s[1:] != s[:-1], True]
        idx = np.flatnonzero(last_of_group)
        group_end = np.repeat(idx, np.diff(np.r_[-1, idx]))
        running = running[group_end]
    q = np.empty_like(flat)
    q[o] = running
    return q, s, running


@public_function(data=("lfdr",), nan_policy=("raise", "omit"))
def bfdr_select(lfdr: Any, *, alpha: float = 0.1, nan_policy: str = "raise") -> BFDRSelection:
    """Select the units with the smallest local FDRs while their mean stays at or below ``alpha``.

    Sort the local FDRs, take the running mean q_(k) = (1/k) sum_{j <= k} lfdr_(j), and select the
    longest prefix with q_(k) <= alpha (Sun & Cai 2007, the adaptive oracle rule; Muller et al.
    2004). The expected proportion of false selections given the data is then at most alpha.
    Tied local FDRs are selected together or not at all: each gets the running mean at the end of
    its tie group.

    Parameters
    ----------
    lfdr : array_like or pandas Series
        Local false discovery rates (posterior null probabilities) in [0, 1].
    alpha : float, keyword-only
        The target level in (0, 1] for the mean local FDR of the selection.
    nan_policy : {"raise", "omit"}, keyword-only
        "raise" refuses NaN local FDRs; "omit" selects among the others and leaves the NaN units
        unselected with a NaN q-value. ("propagate" has no meaning for a selection.)

    Returns
    -------
    BFDRSelection
        ``selected``, ``q_values``, ``n_selected``, ``threshold`` and ``expected_fdr``.

    References
    ----------
    Sun & Cai (2007), Oracle and adaptive compound decision rules for false discovery rate control,
    JASA 102:901. Muller, Parmigiani, Robert & Rousseau (2004), JASA 99:990.

    Examples
    --------
    >>> import statcore as sc
    >>> sel = sc.bfdr_select([0.01, 0.5, 0.02, 0.2, 0.9], alpha=0.1)
    >>> sel.selected
    array([ True, False,  True,  True, False])
    """
    alpha = check_probability(alpha, "alpha")
    nan_policy = check_nan_policy(nan_policy, ("raise", "omit"))
    wrapper = InputWrapper.of(lfdr)
    arr, keep = as_lfdr(lfdr, nan_policy)
    flat = arr.ravel()
    if keep is None:
        q, s, running = _running_mean_select(flat)
    else:
        kf = keep.ravel()
        qk, s, running = _running_mean_select(flat[kf])
        q = np.full(flat.shape, np.nan)
        q[kf] = qk
    with np.errstate(invalid="ignore"):
        sel = q <= alpha
    k = int(np.count_nonzero(sel))
    thr = float(s[k - 1]) if k else float("nan")
    efdr = float(running[k - 1]) if k else 0.0
    return BFDRSelection(selected=wrapper.wrap(sel.reshape(arr.shape)),
                         q_values=wrapper.wrap(q.reshape(arr.shape)), lfdr=wrapper.wrap(arr), alpha=alpha,
                         n_selected=k, threshold=thr, expected_fdr=efdr)
