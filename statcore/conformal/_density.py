"""Highest-density conformal sets from a predictive density on a grid: ``conformal_set``, the
calibration scores ``conformal_density_scores`` and the result ``ConformalSet``."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import as_cal_vector, as_density_grid, as_threshold, check_finite_real
from .._checks.public import public_function
from .._r.rformat import R_DIGITS, format_number, format_numbers
from .._result import Result

__all__ = ["conformal_set", "conformal_density_scores", "ConformalSet"]


def _interp_rows(density: np.ndarray, grid: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The piecewise-linear interpolant of each density row at its y (0 outside the grid)."""
    m = grid.size
    j = np.clip(np.searchsorted(grid, y, side="right") - 1, 0, m - 2)
    rows = np.arange(y.size)
    g0, g1 = grid[j], grid[j + 1]
    w = (y - g0) / (g1 - g0)
    f = (1.0 - w) * density[rows, j] + w * density[rows, j + 1]
    return np.where((y < grid[0]) | (y > grid[-1]), 0.0, f)


@public_function(data=("density", "grid", "y"), nan_policy=("raise", "omit"),
                 rows=("density", "y"))
def conformal_density_scores(density, grid, y):
    """Calibration scores of the highest-density conformal set: s_i = -f_i(y_i).

    ``f_i`` is the predictive density of calibration point i, given on ``grid`` and read as
    :func:`conformal_set` reads it: linearly interpolated between grid points and 0 outside
    [grid[0], grid[-1]]. Feed the scores to :func:`conformal_quantile` and its threshold q to
    :func:`conformal_set`. When the densities at the observed y are known exactly (a closed form),
    the scores are simply minus those values.

    Parameters
    ----------
    density : array_like, shape (n, m)
        One predictive density per calibration point, on the grid.
    grid : array_like, shape (m,)
        Strictly increasing grid points.
    y : array_like, shape (n,)
        The observed outcomes of the calibration points.
    nan_policy : {"raise", "omit"}
        A NaN in ``density`` or ``y``: "raise" refuses it (naming the argument and the count), "omit"
        drops the rows holding one (a NaN in ``grid`` is refused whatever the policy).

    Returns
    -------
    numpy.ndarray, shape (n,)
        The scores -f_i(y_i) (in [-max f_i, 0]; larger means less conforming).

    References
    ----------
    Lei, Robins & Wasserman (2013), Distribution-free prediction sets, *JASA* 108, 278-287
    (density level sets); Angelopoulos & Bates (2023), A gentle introduction to conformal
    prediction, section 2.3 (conformal sets from a predictive density); Izbicki, Shimizu & Stern
    (2022), CD-split and HPD-split, *JMLR* 23(87).

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import conformal_density_scores
    >>> grid = np.linspace(-1.0, 1.0, 3)
    >>> conformal_density_scores([[0.0, 1.0, 0.0], [0.5, 0.5, 0.5]], grid, [0.5, 2.0])
    array([-0.5,  0. ])
    """
    d, g, single = as_density_grid(density, grid)
    yy = as_cal_vector(y, "y")
    if d.shape[0] != yy.size:
        raise ValueError(f"y must have one value per density row ({d.shape[0]}), got {yy.size}")
    return 0.0 - _interp_rows(d, g, yy)   # 0.0 - f: a density of 0 gives the score 0, not -0


@dataclass(frozen=True, repr=False)
class ConformalSet(Result):
    """Highest-density conformal sets {y : f(y) >= -q}, unions of intervals (:func:`conformal_set`).

    Attributes
    ----------
    pred_low, pred_high : numpy.ndarray
        The ends of all intervals, density after density (row ``row[j]`` owns interval j); an
        infinite set is the one interval (-inf, inf).
    row : numpy.ndarray of int
        The density (row of ``density``) of each interval.
    n_intervals : numpy.ndarray of int, shape (n,)
        Intervals per density (0: the empty set, when the level exceeds the density everywhere).
    length : numpy.ndarray, shape (n,)
        The total length of each set (inf for an infinite set).
    level : numpy.ndarray, shape (n,)
        The density level -q of each set.
    grid_range : tuple of float
        (grid[0], grid[-1]), the support of the densities as read.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import conformal_set
    >>> grid = np.linspace(-4, 4, 801)
    >>> f = 0.5 * np.exp(-(grid + 2) ** 2 / 0.5) / np.sqrt(0.5 * np.pi) \\
    ...     + 0.5 * np.exp(-(grid - 2) ** 2 / 0.5) / np.sqrt(0.5 * np.pi)
    >>> res = conformal_set(f, grid, threshold=-0.1)
    >>> res
    ConformalSet(sets=1, intervals=2, mean_length=3.327, level=0.1)
    >>> res.intervals[0].round(3)
    array([[-2.832, -1.168],
           [ 1.168,  2.832]])
    """

    pred_low: np.ndarray
    pred_high: np.ndarray
    row: np.ndarray
    n_intervals: np.ndarray
    length: np.ndarray
    level: np.ndarray
    grid_range: tuple

    @property
    def intervals(self) -> tuple:
        """One (k_i, 2) array of [pred_low, pred_high] rows per density (a tuple, even for one density)."""
        stops = np.cumsum(self.n_intervals)
        starts = stops - self.n_intervals
        both = np.column_stack([self.pred_low, self.pred_high])
        return tuple(both[a:b] for a, b in zip(starts, stops))

    def contains(self, y):
        """Whether y_i lies in set i (one y per density, or one number for all).

        Parameters
        ----------
        y : float or array_like, shape (n,)
            The points to look up.

        Returns
        -------
        numpy.ndarray of bool, shape (n,)
        """
        n = self.n_intervals.size
        yy = np.full(n, check_finite_real(y, "y")) if np.ndim(y) == 0 else as_cal_vector(y, "y")
        if yy.size != n:
            raise ValueError(f"y must have one value per set ({n}), got {yy.size}")
        yr = yy[self.row]
        hit = (self.pred_low <= yr) & (yr <= self.pred_high)
        return np.bincount(self.row[hit], minlength=n) > 0

    def summary(self, digits: int = R_DIGITS) -> str:
        """The sets: the level, the number of intervals and the length; the intervals of the first few."""
        n = self.n_intervals.size
        lo, hi = float(self.level.min()), float(self.level.max())
        levels = (f"density level -q = {format_number(lo, digits)}" if lo == hi else
                  f"density levels -q in [{format_number(lo, digits)}, {format_number(hi, digits)}]")
        lines = ["", "\tHighest-density conformal set" + ("s" if n > 1 else ""), "",
                 f"sets: {n}, {levels}, grid "
                 f"[{format_number(self.grid_range[0], digits)}, {format_number(self.grid_range[1], digits)}]",
                 f"intervals per set: {int(self.n_intervals.min())} to {int(self.n_intervals.max())}; "
                 f"total length: mean {format_number(float(np.mean(self.length)), digits)}"]
        show = min(n, 5)
        for i, iv in enumerate(self.intervals[:show]):
            if iv.shape[0] == 0:
                body = "empty"
            else:
                ends = format_numbers(iv.ravel(), digits)
                body = " U ".join(f"[{ends[2 * j]}, {ends[2 * j + 1]}]" for j in range(iv.shape[0]))
            lines.append(f"set {i + 1}: {body}")
        if n > show:
            lines.append(f" ... {n - show} more sets; see to_frame()")
        lines.append("")
        return "\n".join(lines) + "\n"

    def to_frame(self):
        """One row per interval: ``row`` (the density), ``interval`` (1, 2, ... within it),
        ``pred_low``, ``pred_high`` (its ends: the attributes of the same names), ``length``; an empty set
        has no row."""
        import pandas as pd

        stops = np.cumsum(self.n_intervals)
        within = np.arange(self.row.size) - (stops - self.n_intervals)[self.row] + 1
        return pd.DataFrame({"row": self.row, "interval": within, "pred_low": self.pred_low,
                             "pred_high": self.pred_high, "length": self.pred_high - self.pred_low})

    def _repr_parts(self):
        level = float(self.level[0]) if np.all(self.level == self.level[0]) else "varies"
        return [("sets", int(self.n_intervals.size)), ("intervals", int(self.n_intervals.sum())),
                ("mean_length", float(np.mean(self.length))), ("level", level)]

    def _plot(self, ax=None, max_sets: int = 40):
        """The sets as horizontal segments, one line per density (at most ``max_sets``)."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
        show = min(self.n_intervals.size, max_sets)
        lo, hi = self.grid_range
        for i, iv in enumerate(self.intervals[:show]):
            for a, b in iv:
                ax.plot([max(a, lo), min(b, hi)], [i, i], color="C0", lw=3, solid_capstyle="butt")
        ax.set_xlim(lo, hi)
        ax.set_xlabel("y")
        ax.set_ylabel("density (row)")
        ax.set_title("highest-density conformal sets", fontsize=10)
        return ax


@public_function(data=("density", "grid"), nan_policy=("raise",), rows=("density",))
def conformal_set(density, grid, *, threshold):
    """Highest-density conformal sets {y : f(y) >= -q}: the intervals where a predictive density
    reaches the level -q.

    With the calibration scores s_i = -f_i(y_i) (:func:`conformal_density_scores`) and
    q = ``conformal_quantile(scores, alpha=alpha)``, the set {y : -f(y) <= q} of a test point covers
    its outcome with probability at least 1 - alpha. The density is read as its piecewise-linear
    interpolant on ``grid`` and as 0 outside [grid[0], grid[-1]]; the set is that function's
    superlevel set, exactly: a union of intervals whose ends are linearly interpolated where the
    density crosses the level (an end of the grid when the density is at or above the level there).
    A multimodal density gives several intervals; a level above the density everywhere gives the
    empty set; a level -q <= 0 (q >= 0, or q = inf from ``allow_infinite``) the whole line.

    Parameters
    ----------
    density : array_like, shape (m,) or (n, m)
        A predictive density on the grid (non-negative), or one per row.
    grid : array_like, shape (m,)
        Strictly increasing grid points (m >= 2).
    threshold : float or array_like, shape (n,)
        The threshold q on the score -f(y), from :func:`conformal_quantile` (one for all rows, or one
        per row, e.g. per Mondrian group).
    nan_policy : {"raise"}
        A NaN in ``density`` or ``grid`` is refused, naming the argument and the count (``threshold``
        may hold one value per row, so rows are not dropped).

    Returns
    -------
    ConformalSet
        The intervals (``intervals``, ``pred_low``, ``pred_high``, ``row``), their number and total length per
        set, ``contains(y)``.

    References
    ----------
    Lei, Robins & Wasserman (2013), Distribution-free prediction sets, *JASA* 108, 278-287;
    Izbicki, Shimizu & Stern (2022), CD-split and HPD-split: efficient conformal regions in high
    dimensions, *JMLR* 23(87); Angelopoulos & Bates (2023), A gentle introduction to conformal
    prediction, section 2.3.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import conformal_set
    >>> grid = np.linspace(0.0, 4.0, 5)
    >>> res = conformal_set([0.0, 0.4, 0.1, 0.4, 0.0], grid, threshold=-0.2)
    >>> res.intervals[0]
    array([[0.5       , 1.66666667],
           [2.33333333, 3.5       ]])
    >>> float(res.length[0])
    2.333333333333333
    """
    d, g, _ = as_density_grid(density, grid)
    n, m = d.shape
    level = -as_threshold(threshold, n)
    whole = level <= 0
    inside = d >= level[:, None]
    inside[whole] = False
    pad = np.zeros((n, m + 2), dtype=bool)
    pad[:, 1:-1] = inside
    srow, scol = np.nonzero(pad[:, 1:-1] & ~pad[:, :-2])    # run starts (grid index)
    erow, ecol = np.nonzero(pad[:, 1:-1] & ~pad[:, 2:])     # run ends
    L = level[srow]
    a = scol
    prev = np.maximum(a - 1, 0)
    with np.errstate(divide="ignore", invalid="ignore"):   # the a == 0 ends are not interpolated
        t = (L - d[srow, prev]) / (d[srow, a] - d[srow, prev])
        lower = np.where(a == 0, g[0], g[prev] + t * (g[a] - g[prev]))
    b = ecol
    nxt = np.minimum(b + 1, m - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (d[erow, b] - L) / (d[erow, b] - d[erow, nxt])
        upper = np.where(b == m - 1, g[-1], g[b] + t * (g[nxt] - g[b]))
    row = srow
    if whole.any():   # the whole line: one interval each, merged in row order
        wrow = np.flatnonzero(whole)
        row = np.concatenate([row, wrow])
        lower = np.concatenate([lower, np.full(wrow.size, -np.inf)])
        upper = np.concatenate([upper, np.full(wrow.size, np.inf)])
        order = np.argsort(row, kind="stable")
        row, lower, upper = row[order], lower[order], upper[order]
    counts = np.bincount(row, minlength=n)
    length = np.bincount(row, weights=upper - lower, minlength=n) if row.size else np.zeros(n)
    if whole.any():
        length[whole] = np.inf
    return ConformalSet(pred_low=lower, pred_high=upper, row=row.astype(np.int64), n_intervals=counts.astype(np.int64),
                        length=length, level=level, grid_range=(float(g[0]), float(g[-1])))
