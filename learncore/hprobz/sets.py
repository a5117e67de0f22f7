"""Per-step conformal sets of a batch of trajectory predictives: :class:`TrajectorySets`."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from statcore import Result

__all__ = ["TrajectorySets"]


@dataclass(frozen=True, repr=False)
class TrajectorySets(Result):
    """Highest-density conformal sets of every element and step (from ``conformal_sets``).

    Each set is a union of intervals {y : p_t(y) >= -q_t} (``statcore.conformal_set``), so a
    multimodal step gives several intervals.

    Attributes
    ----------
    pred_low, pred_high : numpy.ndarray
        The ends of all intervals.
    element, step : numpy.ndarray of int
        The batch element (flattened) and the step of each interval.
    n_intervals : numpy.ndarray of int, shape (n_elements, n_steps)
        Intervals per set (0: empty).
    length : numpy.ndarray, shape (n_elements, n_steps)
        The total length of each set (the set size).
    q : numpy.ndarray, shape (n_steps,)
        The conformal threshold of each step.
    steps : tuple of int
        The steps, in the order of the columns.
    alpha : float
        The miscoverage.
    n_calibration : int
        Calibration rows behind each q.
    T : int
        Steps of the predictive (``contains`` accepts full trajectories).

    Examples
    --------
    >>> import numpy as np, torch
    >>> from learncore.hprobz import GaussianMixture
    >>> d = GaussianMixture(torch.zeros(2, dtype=torch.float64),
    ...                     torch.tensor([[-3.0], [3.0]], dtype=torch.float64), torch.ones(2, 1, dtype=torch.float64))
    >>> y = d.sample((200,), seed=0)
    >>> sets = d.conformal_sets(d.conformity_scores(y), alpha=0.1)
    >>> sets
    TrajectorySets(elements=1, steps=1, alpha=0.1, mean_length=6.586, mean_intervals=2)
    >>> sets.intervals(0, 0).round(2)
    array([[-4.65, -1.35],
           [ 1.35,  4.65]])
    """

    pred_low: np.ndarray
    pred_high: np.ndarray
    element: np.ndarray
    step: np.ndarray
    n_intervals: np.ndarray
    length: np.ndarray
    q: np.ndarray
    steps: tuple
    alpha: float
    n_calibration: int
    T: int

    @classmethod
    def from_sets(cls, sets, *, steps, threshold, alpha, n_calibration, T) -> "TrajectorySets":
        """Assemble from one ``statcore.ConformalSet`` per step (rows = elements)."""
        low, high, element, step = [], [], [], []
        n_el = sets[0].n_intervals.size
        n_int = np.zeros((n_el, len(steps)), dtype=np.int64)
        length = np.zeros((n_el, len(steps)))
        for k, cs in enumerate(sets):
            low.append(np.asarray(cs.pred_low))
            high.append(np.asarray(cs.pred_high))
            element.append(np.asarray(cs.row))
            step.append(np.full(cs.row.size, steps[k], dtype=np.int64))
            n_int[:, k] = cs.n_intervals
            length[:, k] = cs.length
        lo, up, el, st = (np.concatenate(v) for v in (low, high, element, step))
        order = np.lexsort((lo, st, el))
        return cls(pred_low=lo[order], pred_high=up[order], element=el[order].astype(np.int64), step=st[order],
                   n_intervals=n_int, length=length, q=np.asarray(threshold, dtype=float),
                   steps=tuple(int(s) for s in steps),
                   alpha=float(alpha), n_calibration=int(n_calibration), T=int(T))

    def intervals(self, element: int, step: int) -> np.ndarray:
        """The (k, 2) array of [pred_low, pred_high] rows of one set.

        Parameters
        ----------
        element : int
            The (flattened) batch element.
        step : int
            The step (one of ``steps``).

        Returns
        -------
        numpy.ndarray
        """
        if step not in self.steps:
            raise ValueError(f"step {step} has no sets; steps are {self.steps}")
        sel = (self.element == element) & (self.step == step)
        return np.column_stack([self.pred_low[sel], self.pred_high[sel]])

    def contains(self, y) -> np.ndarray:
        """Whether each element's outcome at each step lies in its set.

        Parameters
        ----------
        y : array_like, shape (n_elements, T) or (n_elements, n_steps)
            Outcomes (full trajectories or the set steps only).

        Returns
        -------
        numpy.ndarray of bool, shape (n_elements, n_steps)
        """
        yy = np.asarray(y.detach().cpu().numpy() if hasattr(y, "detach") else y, dtype=np.float64)
        n_el, n_st = self.length.shape
        if yy.ndim == 1 and n_el == 1:
            yy = yy[None, :]
        if yy.ndim != 2 or yy.shape[0] != n_el or yy.shape[1] not in (self.T, n_st):
            raise ValueError(f"y must have shape ({n_el}, {self.T}) or ({n_el}, {n_st}), got {yy.shape}")
        if yy.shape[1] == self.T and self.T != n_st:
            yy = yy[:, list(self.steps)]
        col = {s: k for k, s in enumerate(self.steps)}
        k = np.array([col[s] for s in self.step], dtype=np.int64)
        v = yy[self.element, k]
        hit = (self.pred_low <= v) & (v <= self.pred_high)
        out = np.zeros((n_el, n_st), dtype=bool)
        out[self.element[hit], k[hit]] = True
        return out

    def summary(self) -> str:
        """Level, thresholds and the size of the sets per step."""
        n_el, n_st = self.length.shape
        lines = ["", "\tPer-step highest-density conformal sets", "",
                 f"elements: {n_el}, steps: {n_st}, alpha = {self.alpha:g}, calibration n = {self.n_calibration} "
                 f"(coverage in [{1 - self.alpha:.4g}, {1 - self.alpha + 1 / (self.n_calibration + 1):.4g}))", "",
                 f"{'step':>5} {'q':>11} {'mean length':>12} {'mean intervals':>15} {'max intervals':>14}"]
        for k, s in enumerate(self.steps):
            lines.append(f"{s:>5} {self.q[k]:>11.4g} {np.mean(self.length[:, k]):>12.4g} "
                         f"{np.mean(self.n_intervals[:, k]):>15.3g} {int(np.max(self.n_intervals[:, k])):>14d}")
        lines.append("")
        return "\n".join(lines) + "\n"

    def to_frame(self) -> pd.DataFrame:
        """One row per interval: ``element``, ``step``, ``interval`` (1, 2, ... within the set),
        ``pred_low``, ``pred_high`` (the attributes of the same names), ``length``."""
        key = self.element * (max(self.steps) + 1) + self.step
        within = np.zeros(key.size, dtype=np.int64)
        if key.size:
            first = np.r_[True, key[1:] != key[:-1]]
            starts = np.maximum.accumulate(np.where(first, np.arange(key.size), 0))
            within = np.arange(key.size) - starts + 1
        return pd.DataFrame({"element": self.element, "step": self.step, "interval": within,
                             "pred_low": self.pred_low, "pred_high": self.pred_high,
                             "length": self.pred_high - self.pred_low})

    def _repr_parts(self):
        n_el, n_st = self.length.shape
        return [("elements", n_el), ("steps", n_st), ("alpha", self.alpha),
                ("mean_length", float(np.mean(self.length))), ("mean_intervals", float(np.mean(self.n_intervals)))]

    def _plot(self, ax=None, element: int = 0):
        """One element's sets: a vertical bar per interval at each step."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
        for s in self.steps:
            for a, b in self.intervals(element, s):
                ax.plot([s, s], [a, b], color="C0", lw=4, solid_capstyle="butt")
        ax.set_xlabel("step")
        ax.set_ylabel("y")
        ax.set_title(f"{1 - self.alpha:.0%} conformal sets (element {element})", fontsize=10)
        return ax
