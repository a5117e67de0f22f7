"""``JointBounds``: the result of ``joint_bounds`` and ``ite_variance_bounds``."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._r.rformat import R_DIGITS, format_numbers, format_table
from .._result import Result, freeze
from ._functions import _eval_f

__all__ = ["JointBounds", "IdentifiedSetInterval"]

#: the to_frame() row of each quantity (snake_case)
_ROWS = {"lower": "lower", "upper": "upper", "comonotone": "comonotone", "countercomonotone": "countercomonotone",
         "comonotone given X": "comonotone_given_x", "countercomonotone given X": "countercomonotone_given_x"}


@dataclass(frozen=True, eq=False, repr=False)
class JointBounds(Result):
    """Sharp bounds on E[f(Y1, Y0)] and, under a stated assumption, its identified value.

    Attributes
    ----------
    lower, upper : float
        Sharp bounds (with ``strata``: the covariate-tightened bounds E_X[bounds given X]).
    estimate : float or None
        The identified value under ``assumption`` (None without one).
    conf_int : tuple or None
        Confidence interval for the point under ``assumption``, else ``set_conf_int``.
    set_conf_int, point_conf_int : tuple or None
        Both intervals (the point interval only with an assumption). ``set_conf_int`` from the
        n-out-of-n bootstrap is the Imbens-Manski or Stoye interval, which covers the true value
        wherever it lies in the identified set (each point, not the whole set at once); from the
        m-out-of-n or numerical-delta bootstrap each end is one-sided at 1 - alpha/2, which covers
        the whole set.
    comonotone, countercomonotone : float
        E f(Q1(U), Q0(U)) and E f(Q1(U), Q0(1 - U)) of the (weighted) marginals.
    f_class : str
        "supermodular", "submodular", "modular" or "general" (bounds from the transport LP).
    std_error : dict
        Bootstrap standard errors of lower, upper, the couplings and the estimate (empty with
        ``B = 0``).
    boot : dict of arrays
        The bootstrap replicates (lower, upper, comonotone, countercomonotone, estimate).
    strata_table : pandas.DataFrame or None
        Per stratum: share, comonotone, countercomonotone, lower, upper (with ``strata``).
    notes : tuple of str
        What the summary notes (the bootstrap chosen at a kink, dropped units, ...).

    The result is immutable; ``summary()`` prints the table of values and intervals, ``to_frame()``
    has one row per quantity, ``plot()`` draws the quantile functions and the two integrands.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore.coupling import joint_bounds
    >>> y = np.array([1.0, 2.0, 3.0, 4.0, 2.0, 4.0, 6.0, 8.0])
    >>> t = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    >>> res = joint_bounds(y, t, f="sq_diff", B=0)
    >>> res
    JointBounds(lower=7.5, upper=17.5, f_class='submodular', assumption=None, B=0, n1=4, n0=4)
    >>> res.to_frame()
                       estimate  std_error
    quantity                              
    lower                   7.5        NaN
    upper                  17.5        NaN
    comonotone              7.5        NaN
    countercomonotone      17.5        NaN
    """

    lower: float
    upper: float
    estimate: float | None
    conf_int: tuple | None
    set_conf_int: tuple | None
    point_conf_int: tuple | None
    comonotone: float
    countercomonotone: float
    f_label: str
    target: str
    f_class: str
    class_note: str
    assumption: str | None
    conf_level: float
    ci: str
    B: int
    bootstrap: str
    m_ratio: float | None
    nd_step: float | None
    kink: bool
    n1: int
    n0: int
    weights_note: str
    data_name: str
    std_error: dict
    boot: dict
    strata_table: Any = None
    given_x: dict | None = None
    notes: tuple = field(default_factory=tuple)
    _curves: Any = field(default=None, repr=False)

    def __post_init__(self):
        super().__post_init__()
        if self._curves is not None:
            object.__setattr__(self, "_curves", tuple(freeze(c) for c in self._curves))

    def _repr_parts(self):
        parts = [("lower", self.lower), ("upper", self.upper)]
        if self.estimate is not None:
            parts.append(("estimate", self.estimate))
        parts += [("f_class", self.f_class), ("assumption", self.assumption), ("B", self.B),
                  ("n1", self.n1), ("n0", self.n0)]
        return parts

    def _html_title(self) -> str:
        kind = "Identified value and sharp bounds" if self.assumption else "Sharp bounds"
        return f"{kind} on {self.target}"

    def to_frame(self):
        """One row per quantity (index ``quantity``: lower, upper, comonotone, countercomonotone, the
        two couplings given X with strata, estimate with an assumption); columns ``estimate`` and
        ``std_error`` (NaN without bootstrap), and ``conf_low``, ``conf_high`` on the estimate's row
        when it has a confidence interval."""
        import pandas as pd

        keys = ["lower", "upper", "comonotone", "countercomonotone"]
        vals = [self.lower, self.upper, self.comonotone, self.countercomonotone]
        if self.given_x is not None:
            for k in ("comonotone given X", "countercomonotone given X"):
                keys.append(k)
                vals.append(self.given_x[k])
        rows = [_ROWS[k] for k in keys]
        ses = [self.std_error.get(k) for k in keys]
        if self.estimate is not None:
            rows.append("estimate")
            vals.append(self.estimate)
            ses.append(self.std_error.get("estimate"))
        df = pd.DataFrame({"estimate": vals, "std_error": [np.nan if v is None else v for v in ses]},
                          index=pd.Index(rows, name="quantity"))
        if self.point_conf_int is not None:
            df["conf_low"] = np.nan
            df["conf_high"] = np.nan
            df.loc["estimate", ["conf_low", "conf_high"]] = list(self.point_conf_int)
        return df

    def summary(self, digits: int = R_DIGITS) -> str:
        kind = "Identified value and sharp bounds" if self.assumption else "Sharp bounds"
        lines = ["", f"\t{kind} on {self.target} from the two marginals", "",
                 f"data:  {self.data_name} (n1 = {self.n1}, n0 = {self.n0})",
                 f"weights: {self.weights_note}",
                 f"f: {self.f_label}, {self.f_class} ({self.class_note})"]
        if self.f_class == "general":
            lines.append("bounds: exact optimal-transport linear program on the two marginals (HiGHS)")
        lines.append("assumption: " + (self.assumption if self.assumption else
                                       "none (sharp bounds only)"))
        if self.strata_table is not None:
            lines.append(f"strata: {len(self.strata_table)}; bounds are E_X[bounds given X]")
        lines.append("")
        names = ["lower bound", "upper bound", "comonotone", "countercomonotone"]
        if self.strata_table is not None or self.given_x is not None:
            names[2:] = ["comonotone (pooled)", "countercomonotone (pooled)"]
        vals = [self.lower, self.upper, self.comonotone, self.countercomonotone]
        se = self.std_error
        ses = [se.get("lower"), se.get("upper"), se.get("comonotone"), se.get("countercomonotone")]
        if self.given_x is not None:
            for k in ("comonotone given X", "countercomonotone given X"):
                names.append(k)
                vals.append(self.given_x[k])
                ses.append(se.get(k))
        if self.estimate is not None:
            names.append(f"estimate ({self.assumption})")
            vals.append(self.estimate)
            ses.append(se.get("estimate"))
        cols = {"Estimate": vals}
        if self.B > 0:
            cols["Std. Error"] = [np.nan if s is None else s for s in ses]
        lines.append(format_table(names, cols, digits))
        lines.append("")
        level = format_numbers([100 * self.conf_level])[0].strip()
        if self.B > 0:
            how = {"imbens-manski": "Imbens-Manski", "stoye": "Stoye", "whole-set": "whole set"}[self.ci]
            boot = {"n-out-of-n": f"n-out-of-n bootstrap, B = {self.B}",
                    "m-out-of-n": f"m-out-of-n bootstrap (m/n = {self.m_ratio or 0:.3g}), B = {self.B}",
                    "numerical-delta": f"numerical-delta bootstrap (step {self.nd_step or 0:.3g}), B = {self.B}",
                    }[self.bootstrap]
            if self.set_conf_int is not None:
                # Imbens-Manski/Stoye cover each point of the identified set; equal-tailed ends at
                # 1 - alpha/2 each cover the whole set (Bonferroni)
                what = ("the identified set (equal-tailed per end" if self.bootstrap != "n-out-of-n"
                        else "the identified set (whole set" if self.ci == "whole-set"
                        else "the true value in the identified set (" + how)
                lines.append(f"{level} percent confidence interval for {what}; {boot}):")
                lines.append(" " + " ".join(format_numbers(self.set_conf_int, digits)))
            if self.point_conf_int is not None:
                lines.append(f"{level} percent confidence interval for the value under '{self.assumption}' "
                             f"({boot}):")
                lines.append(" " + " ".join(format_numbers(self.point_conf_int, digits)))
        else:
            lines.append("no confidence interval (B = 0)")
        for note in self.notes:
            lines.append("Note: " + note)
        lines.append("")
        return "\n".join(lines) + "\n"

    def _plot(self, ax=None, points: int = 400):
        """Left: Q1(u), Q0(u), Q0(1 - u). Right: the two integrands f(Q1(u), Q0(u)) and
        f(Q1(u), Q0(1 - u)). Returns the two Axes (an ndarray)."""
        import matplotlib.pyplot as plt

        y1s, c1, y0s, c0, fx = self._curves
        u = (np.arange(points) + 0.5) / points
        q1 = y1s[np.minimum(np.searchsorted(c1, u, side="left"), y1s.size - 1)]
        q0 = y0s[np.minimum(np.searchsorted(c0, u, side="left"), y0s.size - 1)]
        q0r = y0s[np.minimum(np.searchsorted(c0, 1 - u, side="left"), y0s.size - 1)]
        if ax is None:
            fig, axes = plt.subplots(1, 2, figsize=(10, 4))
        else:
            axes = np.asarray(ax, dtype=object).ravel()
            if axes.size != 2:
                raise ValueError(f"ax must be two Axes (the quantile functions and the integrands), got {axes.size}")
            fig = axes[0].figure
        a1, a2 = axes
        a1.step(u, q1, where="mid", color="C3", label="$Q_1(u)$")
        a1.step(u, q0, where="mid", color="C0", label="$Q_0(u)$ (comonotone)")
        a1.step(u, q0r, where="mid", color="C0", ls="--", label="$Q_0(1-u)$ (countercomonotone)")
        a1.set_xlabel("u (quantile level)")
        a1.set_ylabel("quantile of the outcome")
        a1.set_title("Marginal quantile functions and the two couplings", fontsize=10)
        a1.legend(fontsize=8)
        a2.step(u, _eval_f(fx, q1, q0), where="mid", color="C2", label=f"comonotone: {self.comonotone:.4g}")
        a2.step(u, _eval_f(fx, q1, q0r), where="mid", color="C1", ls="--",
                label=f"countercomonotone: {self.countercomonotone:.4g}")
        a2.set_xlabel("u (quantile level)")
        a2.set_ylabel(self.f_label)
        a2.set_title(f"bounds [{self.lower:.4g}, {self.upper:.4g}]", fontsize=10)
        a2.legend(fontsize=8)
        for a in (a1, a2):  # plain tick labels: no "+1e4" offset to decode
            a.ticklabel_format(axis="y", style="plain", useOffset=False)
        fig.tight_layout()
        return np.asarray(axes)




_CI_TITLES = {"imbens-manski": "Imbens-Manski confidence interval (covers each point of the identified set)",
              "stoye": "Stoye confidence interval (covers each point of the identified set)",
              "whole-set": "Confidence interval covering the whole identified set"}


@dataclass(frozen=True, repr=False)
class IdentifiedSetInterval(Result):
    """A confidence interval for a partially identified parameter, from estimates of the two ends of
    its identified set (:func:`imbens_manski_interval`, :func:`stoye_interval`,
    :func:`identified_set_interval`).

    Attributes
    ----------
    conf_low, conf_high : float
        The interval; ``conf_int`` is the pair, and the result unpacks as ``lo, hi = res``.
    lower, upper, se_lower, se_upper : float
        The estimated ends of the identified set and their standard errors.
    conf_level : float
    ci : str
        "imbens-manski" or "stoye" (covering each point of the set), "whole-set" (the set at once).
    rho : float or None
        The correlation of the two ends' estimates used (None for Imbens-Manski).
    c_lower, c_upper : float
        The critical values: the interval is [lower - c_lower se_lower, upper + c_upper se_upper]
        (NaN when both standard errors are zero and the ends are returned as they are).

    Examples
    --------
    >>> from statcore.coupling import imbens_manski_interval
    >>> res = imbens_manski_interval(0.0, 1.0, 0.1, 0.1, conf_level=0.95)
    >>> print(res.summary().strip())
    Imbens-Manski confidence interval (covers each point of the identified set)
    <BLANKLINE>
    identified set: [0, 1], standard errors 0.1 and 0.1
    critical values: 1.645 (lower end), 1.645 (upper end)
    95 percent confidence interval:
     -0.1644854  1.1644854
    """

    conf_low: float
    conf_high: float
    lower: float
    upper: float
    se_lower: float
    se_upper: float
    conf_level: float
    ci: str
    rho: float | None = None
    c_lower: float = float("nan")
    c_upper: float = float("nan")

    @property
    def conf_int(self) -> tuple[float, float]:
        """``(conf_low, conf_high)``."""
        return (self.conf_low, self.conf_high)

    def __iter__(self):
        return iter(self.conf_int)

    def _repr_parts(self):
        return [("ci", self.ci), ("conf_low", self.conf_low), ("conf_high", self.conf_high),
                ("conf_level", self.conf_level)]

    def summary(self, digits: int = R_DIGITS) -> str:
        """The interval as R's ``print.htest`` prints one, after the identified set and critical values."""
        ends = format_numbers([self.lower, self.upper], digits)
        ses = format_numbers([self.se_lower, self.se_upper], digits)
        lines = ["", "\t" + _CI_TITLES[self.ci], "",
                 f"identified set: [{ends[0].strip()}, {ends[1].strip()}], standard errors {ses[0].strip()} and "
                 f"{ses[1].strip()}" + ("" if self.rho is None else f", correlation {self.rho:.4g}")]
        if np.isfinite(self.c_lower) or np.isfinite(self.c_upper):
            lines.append(f"critical values: {self.c_lower:.4g} (lower end), {self.c_upper:.4g} (upper end)")
        lines += [f"{100 * self.conf_level:g} percent confidence interval:",
                  " " + " ".join(format_numbers([self.conf_low, self.conf_high], digits))]
        return "\n".join(lines) + "\n"

    def to_frame(self):
        """One row: ``lower``, ``upper``, ``se_lower``, ``se_upper``, ``conf_low``, ``conf_high``,
        ``conf_level``, ``ci``, ``rho``."""
        import pandas as pd

        return pd.DataFrame([{"lower": self.lower, "upper": self.upper, "se_lower": self.se_lower,
                              "se_upper": self.se_upper, "conf_low": self.conf_low, "conf_high": self.conf_high,
                              "conf_level": self.conf_level, "ci": self.ci, "rho": self.rho}])
