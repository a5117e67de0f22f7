"""``makarov_bounds``: sharp pointwise bounds on the distribution function of Y1 - Y0."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import InputWrapper, as_delta, coupling_data_inputs
from .._checks.public import public_function
from .._r.rformat import R_DIGITS, format_table
from .._result import Result
from ._design import _make_design
from ._bounds import _data_name

__all__ = ["MakarovBounds", "makarov_bounds"]

# ----------------------------------------------------------------------------------------------
# Makarov bounds on the distribution function of Y1 - Y0
# ----------------------------------------------------------------------------------------------

def _makarov_one(y1: np.ndarray, w1: np.ndarray, y0: np.ndarray, w0: np.ndarray,
                 delta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """lower = max(0, sup_y F1(y) - F0(y - d)-), upper = 1 + min(0, inf_y F1(y) - F0(y - d))."""
    u1, inv1 = np.unique(y1, return_inverse=True)
    u0, inv0 = np.unique(y0, return_inverse=True)
    F1 = np.cumsum(np.bincount(inv1, weights=w1, minlength=u1.size))
    F1 /= F1[-1]
    F0 = np.cumsum(np.bincount(inv0, weights=w0, minlength=u0.size))
    F0 /= F0[-1]
    F0ext = np.concatenate([[0.0], F0])
    F1ext = np.concatenate([[0.0], F1])
    lower = np.empty(delta.size)
    upper = np.empty(delta.size)
    for q, d in enumerate(delta):
        # every comparison is of Y1 - d with Y0, through the one rounded array s1 = u1 - d, so the
        # two bounds see the same ties (no lower > upper from different rounding of u1 - d and u0 + d)
        s1 = u1 - d
        # the sup over y is attained at an atom of Y1 (F1 jumps up there; F0(. - d)- is left-continuous)
        lower[q] = max(0.0, float(np.max(F1 - F0ext[np.searchsorted(u0, s1, side="left")])))
        # the inf at y = an atom of Y0 shifted by d (F0(. - d) jumps up there): F1(u0 + d) = P(s1 <= u0)
        upper[q] = 1.0 + min(0.0, float(np.min(F1ext[np.searchsorted(s1, u0, side="right")] - F0)))
    return lower, upper


@dataclass(frozen=True, eq=False, repr=False)
class MakarovBounds(Result):
    """Pointwise sharp bounds on P(Y1 - Y0 <= delta) (Makarov 1981; Fan & Park 2010).

    Attributes
    ----------
    delta : float, ndarray or pandas.Series
        The points, as given.
    lower, upper : float, ndarray or pandas.Series
        The bounds at each point, in the container of ``delta`` (a Series keeps its index).
    n1, n0 : int
        Treated and control units used.
    n_strata : int
        Number of strata (the bounds are E_X of the within-stratum bounds when above 1).
    data_name, weights_note : str
        What the summary prints about the data and their weights.

    Examples
    --------
    >>> from statcore.coupling import makarov_bounds
    >>> r = makarov_bounds([0, 1, 0, 1], [0, 0, 1, 1], delta=[-1, 0, 1])
    >>> r
    MakarovBounds(n_delta=3, n1=2, n0=2, n_strata=1)
    >>> r.to_frame()
       delta  lower  upper
    0   -1.0    0.0    0.5
    1    0.0    0.5    1.0
    2    1.0    1.0    1.0
    """

    delta: Any
    lower: Any
    upper: Any
    n1: int
    n0: int
    n_strata: int
    data_name: str
    weights_note: str

    def _repr_parts(self):
        return [("n_delta", int(np.size(np.asarray(self.delta)))), ("n1", self.n1), ("n0", self.n0),
                ("n_strata", self.n_strata)]

    def _html_title(self) -> str:
        return "Makarov bounds on the distribution function of Y1 - Y0"

    def to_frame(self):
        """One row per point: ``delta``, ``lower``, ``upper``."""
        import pandas as pd

        return pd.DataFrame({"delta": np.asarray(self.delta, float).ravel(),
                             "lower": np.asarray(self.lower, float).ravel(),
                             "upper": np.asarray(self.upper, float).ravel()})

    def summary(self, digits: int = R_DIGITS) -> str:
        df = self.to_frame()
        show = df if len(df) <= 20 else df.iloc[np.unique(np.linspace(0, len(df) - 1, 20).round().astype(int))]
        lines = ["", "\tMakarov bounds on the distribution function of Y1 - Y0", "",
                 f"data:  {self.data_name} (n1 = {self.n1}, n0 = {self.n0})",
                 f"weights: {self.weights_note}"]
        if self.n_strata > 1:
            lines.append(f"strata: {self.n_strata}; bounds are E_X[bounds given X]")
        lines += ["", format_table([str(i + 1) for i in show.index],
                                   {"delta": list(show["delta"]), "lower": list(show["lower"]),
                                    "upper": list(show["upper"])}, digits)]
        if len(df) > len(show):
            lines.append(f"({len(show)} of {len(df)} rows shown)")
        lines.append("")
        return "\n".join(lines) + "\n"

    def _plot(self, ax=None):
        """The band between the bounds, as step functions of delta; returns the Axes."""
        import matplotlib.pyplot as plt

        d = np.asarray(self.delta, float).ravel()
        lo = np.asarray(self.lower, float).ravel()
        hi = np.asarray(self.upper, float).ravel()
        o = np.argsort(d)
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 4), layout="constrained")
        ax.fill_between(d[o], lo[o], hi[o], step="post", color="C0", alpha=0.25, label="between the lower and upper bound")
        ax.step(d[o], lo[o], where="post", color="C0")
        ax.step(d[o], hi[o], where="post", color="C0")
        ax.set_xlabel(r"$\delta$ (individual effect, units of y)")
        ax.set_ylabel(r"$P(Y_1 - Y_0 \leq \delta)$")
        ax.set_title("Sharp (Makarov) bounds on the distribution of Y1 - Y0", fontsize=10)
        ax.set_ylim(-0.02, 1.02)
        ax.legend(fontsize=8)
        return ax


@public_function(data=("y", "treat"), nan_policy=("raise", "omit"))
def makarov_bounds(y, treat, *, delta, weights=None, strata=None, nan_policy="raise") -> MakarovBounds:
    """Sharp pointwise bounds on the distribution function of the individual effect Y1 - Y0.

    F^L(d) = max(0, sup_y [F1(y) - F0(y - d)-]) and F^U(d) = 1 + min(0, inf_y [F1(y) - F0(y - d)])
    (Makarov 1981; Fan & Park 2010), with the left limit F0(t)- = P(Y0 < t) so that they stay sharp
    for discrete outcomes. The empirical (weighted) distribution functions of the arms are plugged
    in; the sup and inf are exact (attained at atoms). With ``strata`` the band is the average of the
    within-stratum bands weighted by the stratum shares (tighter).

    Parameters
    ----------
    y : array_like
        Outcomes, one per unit (a vector).
    treat : array_like
        Binary treatment (0/1 or bool), one per unit.
    delta : float or array_like
        Points at which to bound P(Y1 - Y0 <= delta): a number or a non-empty vector of finite values
        (a pandas Series keeps its index in the result).
    weights : array_like, optional
        Non-negative unit weights (e.g. inverse propensity), normalised within arms (within
        stratum-by-arm cells with ``strata``).
    strata : array_like, optional
        Discrete covariate (missing labels follow ``nan_policy``).
    nan_policy : {"raise", "omit"}
        A missing value in ``y``, ``treat``, ``weights`` or ``strata``: "raise" refuses it, "omit"
        drops the unit. ``delta`` must be finite.

    Returns
    -------
    MakarovBounds
        ``lower`` and ``upper`` at each point of ``delta``.

    References
    ----------
    Makarov, G. D. (1981). Estimates for the distribution function of a sum of two random variables
    when the marginal distributions are fixed. Theory Probab. Appl. 26, 803-806.

    Williamson, R. C. & Downs, T. (1990). Probabilistic arithmetic I: numerical methods for
    calculating convolutions and dependency bounds. Int. J. Approx. Reason. 4, 89-158.

    Fan, Y. & Park, S. S. (2010). Sharp bounds on the distribution of treatment effects and their
    statistical inference. Econometric Theory 26, 931-951.

    Examples
    --------
    >>> from statcore.coupling import makarov_bounds
    >>> r = makarov_bounds([0, 1, 0, 1], [0, 0, 1, 1], delta=[-1, 0, 1])
    >>> r.lower, r.upper
    (array([0. , 0.5, 1. ]), array([0.5, 1. , 1. ]))
    """
    wrapper = InputWrapper.of(delta)
    d = as_delta(delta)
    shape = np.shape(np.asarray(delta.to_numpy() if hasattr(delta, "to_numpy") else delta))
    data = coupling_data_inputs(y, treat, strata=strata, weights=weights, nan_policy=nan_policy)
    design = _make_design(data, 0.01)
    base = np.ones(design.y.size) if design.inv_e is None else design.inv_e
    lower = np.zeros(d.size)
    upper = np.zeros(d.size)
    for s in range(len(design.levels)):
        j1, j0 = design.cells[(s, True)], design.cells[(s, False)]
        lo, hi = _makarov_one(design.y[j1], base[j1], design.y[j0], base[j0], d)
        lower += design.p_s[s] * lo
        upper += design.p_s[s] * hi
    lower = np.clip(lower, 0.0, 1.0).reshape(shape)
    upper = np.clip(upper, 0.0, 1.0).reshape(shape)
    if wrapper.kind == "scalar":
        lower, upper = float(lower), float(upper)
    elif wrapper.kind == "series":
        lower, upper = wrapper.wrap(lower, "lower"), wrapper.wrap(upper, "upper")
    return MakarovBounds(delta=delta, lower=lower, upper=upper, n1=int(design.arm.sum()),
                         n0=int((~design.arm).sum()), n_strata=len(design.levels),
                         data_name=_data_name(y, treat),
                         weights_note="user weights, normalised within arms" if weights is not None
                         else "equal within arms")
