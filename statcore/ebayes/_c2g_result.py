"""The result of ``c2g``: posterior null probabilities, q-values, selected responders, estimands."""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._checks import InputWrapper, c2g_new_covariates, check_probability
from .._r.rformat import format_number, format_numbers
from .._result import HTest, Result
from .._warnings import StatcoreWarning

__all__ = ["C2GResult"]


@dataclass(frozen=True, eq=False, repr=False)
class C2GResult(Result):
    """Result of ``c2g``: posterior null probabilities, q-values, selected responders, estimands.

    Attributes
    ----------
    model, control : str
        The model ("additive" or "nonparametric") and the FDR control ("bayes" or "empirical").
    alpha : float
        The target FDR.
    erpf : float
        Expected response probability among the treated, mean of pi(x) over the treated (additive),
        or the lower end mean pi*(x) of its identification interval (nonparametric).
    n_treated, n_controls : int
        Units in each arm (after ``nan_policy="omit"``).
    lfdr : ndarray or pandas.Series
        Per-unit posterior null probability (container of ``y``); controls are known nulls (1).
        In the nonparametric model an upper bound of the true local FDR.
    q_values : ndarray or pandas.Series
        Per-unit q-value (1 for controls): the smallest target FDR selecting the unit.
    selected : ndarray or pandas.Series
        Booleans per unit; ``responders`` holds the integer positions of the selected units.
    responders : ndarray of int64
    pi : ndarray or pandas.Series
        Per-unit response probability pi(x) (additive) or its lower bound pi*(x) (nonparametric).
    lfdr_model : ndarray
        The model's posterior null probability at every unit, controls included (what
        ``control="empirical"`` calibrates with; ``plot()`` shows it).
    erpf_interval : (float, float) or None
        Nonparametric: the identification interval [mean pi*, 1].
    erpf_ci : (float, float) or None
        Nonparametric: 95% bootstrap interval of the lower end, the means over the treated of the
        per-unit intervals of pi*(x) from bootstrap bands of log f_t / f0 (``band`` of ``c2g``).
    kept : ndarray of bool or None
        With ``nan_policy="omit"``: which input units were kept (the per-unit outputs and
        ``responders`` refer to the kept units); None when every unit was used.
    loglik : float or None
        Additive model: the observed-data log-likelihood of the treated outcomes,
        sum_i log((1 - pi_i) g(y_i - mu0_i) + pi_i g(y_i - mu1_i)), at the last EM iteration
        (cross-fitted pi and mu1); ``loglik_trace`` holds it at every iteration.
    converged : bool or None
        Additive model: whether the EM stopped because the observed-data log-likelihood changed by
        at most 1e-4 per treated unit between two iterations (rather than at the 200-iteration cap);
        ``n_iter`` the iterations run. A run that did not converge warns.
    n_iter : int or None
    response_test : HTest or None
        Additive model: the split-sample test of "somebody responded" (z, the held-out
        log-likelihood gain of the mixture over the null model, one-sided); ``response_p_value`` is
        its p-value: every q-value is at least this, which holds the FDR when nobody responded.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore.ebayes import c2g
    >>> rng = np.random.default_rng(0)
    >>> t = rng.random(200) < 0.5
    >>> y = rng.normal(4.0 * (t & (rng.random(200) < 0.5)), 1.0)
    >>> res = c2g(y, t, alpha=0.1, seed=0)
    >>> res.to_frame().columns.tolist()
    ['y', 'treat', 'pi', 'lfdr', 'q_value', 'selected', 'mu0', 'mu1']
    """

    model: str
    control: str
    alpha: float
    erpf: float
    n_treated: int
    n_controls: int
    lfdr: Any
    q_values: Any
    selected: Any
    responders: np.ndarray
    pi: Any
    lfdr_model: np.ndarray
    erpf_interval: tuple | None = None
    erpf_ci: tuple | None = None
    kept: np.ndarray | None = None
    loglik: float | None = None
    converged: bool | None = None
    n_iter: int | None = None
    response_test: HTest | None = None
    loglik_trace: np.ndarray | None = field(default=None, repr=False)
    _y: np.ndarray = field(default=None, repr=False)
    _treat: np.ndarray = field(default=None, repr=False)
    _fit: Any = field(default=None, repr=False)
    _wrapper: InputWrapper = field(default=InputWrapper("ndarray"), repr=False)
    _center: np.ndarray | None = field(default=None, repr=False)
    _scale: np.ndarray | None = field(default=None, repr=False)
    _columns: tuple | None = field(default=None, repr=False)

    @property
    def response_p_value(self) -> float | None:
        """The p-value of ``response_test`` (None for the nonparametric model)."""
        return None if self.response_test is None else self.response_test.p_value

    @classmethod
    def _build(cls, *, model, y, treat, lfdr, lfdr_model, q_values, selected, alpha, control, erpf, fit,
               wrapper, center, scale, columns, kept=None) -> "C2GResult":
        """Assemble the result from the fit: per-unit vectors in the container of ``y``."""
        def wrap(values, name):
            arr = np.asarray(values).copy()
            arr.flags.writeable = False
            return wrapper.wrap(arr, name=name)

        if model == "nonparametric":
            npf = fit.np_fit
            erpf_interval = (erpf, 1.0)
            erpf_ci = (float(npf.pi_star_lo[treat].mean()), float(npf.pi_star_hi[treat].mean()))
        else:
            erpf_interval = erpf_ci = None
        conv = {}
        if model == "additive":
            em = fit.em
            trace = np.array(fit.loglik, dtype=float)   # in y's units (the fit ran on y / unit)
            trace.flags.writeable = False
            conv = dict(loglik=float(trace[-1]) if trace.size else None, converged=bool(em.converged),
                        n_iter=int(em.n_iter), loglik_trace=trace,
                        response_test=HTest(statistic=float(em.gate_statistic), statistic_name="z",
                                            p_value=float(em.gate_p_value), alternative="greater",
                                            null_value={"held-out log-likelihood gain": 0.0},
                                            method="Split-sample test of any response (C2G additive model)",
                                            data_name="y by treat"))
        return cls(**conv,model=model, control=control, alpha=alpha, erpf=erpf, n_treated=int(treat.sum()),
                   n_controls=int(treat.size - treat.sum()), lfdr=wrap(lfdr, "lfdr"),
                   q_values=wrap(q_values, "q_value"), selected=wrap(selected, "selected"),
                   responders=np.flatnonzero(selected).astype(np.int64),
                   pi=wrap(np.asarray(fit.pi, dtype=float), "pi"), lfdr_model=lfdr_model,
                   erpf_interval=erpf_interval, erpf_ci=erpf_ci, kept=kept, _y=y, _treat=treat, _fit=fit,
                   _wrapper=wrapper, _center=center, _scale=scale,
                   _columns=None if columns is None else tuple(columns))

    def _repr_parts(self):
        return [("model", self.model), ("control", self.control), ("alpha", self.alpha),
                ("n_selected", self.n_selected), ("n_treated", self.n_treated), ("erpf", self.erpf)]

    @property
    def n_selected(self) -> int:
        """Number of selected responders."""
        return int(self.responders.size)

    @property
    def noise(self):
        """Additive model: the fitted noise density (Gaussian mixture with log-linear tails)."""
        return getattr(self._fit, "noise", None)

    def care(self, x: Any = None, *, conf_level: float | None = None):
        """Conditional average response effect CARE(x) = mu1(x) - mu0(x).

        Additive model: the point estimate at each row of ``x`` (a Series for a DataFrame ``x``).
        Nonparametric model: CARE is not identified; returns a DataFrame with the identification
        interval [mu_T(x) - mu0(x), (mu_T(x) - mu0(x)) / pi*(x)] (ends swapped when the difference
        is negative; infinite when pi*(x) = 0), mu_T and mu0 the kernel-regression means of the
        treated and controls, and ``conf_level`` bootstrap intervals of both ends: each end over
        the corners of the percentile interval of mu_T - mu0 and the band interval of pi*(x).
        ``x=None`` in the covariate-free model gives the single value. ``conf_level`` (default
        0.95) applies to the nonparametric model's intervals only. When the additive fit found no
        evidence of response (pi(x) set to 0), mu1 and so CARE are not estimable: NaN with a warning.
        """
        if self.model == "additive" and conf_level is not None:
            raise ValueError("conf_level applies to the nonparametric model's CARE intervals; the "
                             "additive model gives a point estimate (leave conf_level unset)")
        columns = None if self._columns is None else list(self._columns)
        Z = c2g_new_covariates(x, self._center, self._scale, columns)
        index = x.index if hasattr(x, "index") and hasattr(x, "columns") else None
        if self.model == "additive":
            if Z is None:
                Z = np.zeros((1, 0))
            val = self._fit.care(Z)
            if self._fit.em.null_chosen:
                warnings.warn("the fit found no evidence of response (pi(x) set to 0): CARE(x) is not "
                              "estimable and is returned as NaN", StatcoreWarning, stacklevel=2)
                val = np.full(np.shape(val), np.nan)
            if index is not None:
                import pandas as pd

                return pd.Series(val, index=index, name="care")
            return float(val[0]) if x is None else val
        level = 0.95 if conf_level is None else conf_level
        return self._care_interval(Z, index, check_probability(level, "conf_level", open_right=True))

    def _care_interval(self, Z, index, conf_level):
        import pandas as pd

        npf = self._fit.np_fit
        if Z is None or Z.shape[1] == 0:
            first = int(np.flatnonzero(self._treat)[0])
            m = 1 if Z is None else Z.shape[0]
            res = {k: np.repeat(getattr(npf, a)[[first]], m, axis=0)
                   for k, a in (("mu0", "mu0"), ("mut", "mu_t"), ("pi_star", "pi_star"),
                                ("pi_star_lo", "pi_star_lo"), ("pi_star_hi", "pi_star_hi"),
                                ("mu0_boot", "mu0_boot"), ("mut_boot", "mu_t_boot"))}
        else:
            res = npf.query(Z)
        unit = self._fit.unit   # the fit ran on y / unit: its means are read back in y's units
        diff = (res["mut"] - res["mu0"]) * unit
        lo, hi = _care_ends(diff, res["pi_star"])
        a = (1.0 - conf_level) / 2.0
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            d_boot = (res["mut_boot"] - res["mu0_boot"]) * unit
            d_ci = (np.nanquantile(d_boot, a, axis=1), np.nanquantile(d_boot, 1 - a, axis=1))
        # each end over the corners of (difference interval) x (pi* interval): a union, conservative
        corners = [_care_ends(d, p) for d in d_ci for p in (res["pi_star_lo"], res["pi_star_hi"])]
        lows = np.stack([c[0] for c in corners])
        highs = np.stack([c[1] for c in corners])
        return pd.DataFrame({"lower": lo, "upper": hi, "lower_ci_low": lows.min(0), "lower_ci_high": lows.max(0),
                             "upper_ci_low": highs.min(0), "upper_ci_high": highs.max(0),
                             "pi_star": res["pi_star"]}, index=index)

    def summary(self, digits: int = 4) -> str:
        """The printed report: design, selection, ERPF and the posterior null probabilities."""
        title = ("Causal two-groups model, additive (semi-parametric)" if self.model == "additive"
                 else "Causal two-groups model, nonparametric (bounds)")
        ncov = 0 if self._center is None else self._center.size
        lines = ["", "\t" + title, "",
                 f"data:  y by treat ({'no covariates' if ncov == 0 else f'{ncov} covariates'})",
                 f"units: {self._treat.size} (treated {self.n_treated}, controls {self.n_controls})",
                 f"target FDR: {format_number(self.alpha)}, control: {self.control}",
                 f"responders selected: {self.n_selected} of {self.n_treated} treated"]
        if self.model == "additive":
            lines.append(f"ERPF (mean pi(x) over treated): {format_number(self.erpf, digits)}")
            g = self._fit.noise
            lines.append(f"noise density: {g.method}, kernel sd {format_number(g.sd, digits)}")
            em = self._fit.em
            lines.append(f"EM: {em.n_iter} iterations{'' if em.converged else ' (not converged)'}, "
                         f"observed-data log-likelihood {format_number(self.loglik, digits + 3)}; "
                         f"held-out gain over no response: {format_number(em.evidence, 3)} s.e.")
            lines.append(self.response_test.summary().rstrip("\n"))
            if em.null_chosen:
                lines.append("no evidence of response (gain within one s.e.): pi(x) set to 0")
        else:
            lo, hi = self.erpf_ci
            lines.append("ERPF identification interval: [" + format_number(self.erpf, digits) + ", 1]")
            lines.append("  lower end, 95% bootstrap interval: ["
                         + ", ".join(format_numbers([lo, hi], digits)) + "]")
        if self.n_selected:
            q = np.asarray(self.q_values, dtype=float)[self.responders]
            lines.append(f"largest q-value selected: {format_number(float(q.max()), digits)}")
        lt = np.asarray(self.lfdr, dtype=float)[self._treat]
        stats = np.quantile(lt, [0, 0.25, 0.5]).tolist() + [float(lt.mean())] + np.quantile(lt, [0.75, 1]).tolist()
        names = ["Min.", "1st Qu.", "Median", "Mean", "3rd Qu.", "Max."]
        vals = format_numbers(stats, digits)
        width = [max(len(a), len(b)) for a, b in zip(names, vals)]
        lines.append("posterior null probability of the treated:")
        lines.append(" ".join(a.rjust(w) for a, w in zip(names, width)))
        lines.append(" ".join(b.rjust(w) for b, w in zip(vals, width)))
        return "\n".join(lines) + "\n"

    def _html_title(self) -> str:
        return ("Causal two-groups model, " + self.model + f": {self.n_selected} of {self.n_treated} treated "
                f"selected at FDR {format_number(self.alpha)}")

    def to_frame(self):
        """One row per unit: y, treat, pi, lfdr, q_value, selected (+ mu0, mu1 in the additive model)."""
        import pandas as pd

        idx = self._wrapper.index if self._wrapper.kind == "series" else None
        cols = {"y": self._y, "treat": self._treat.astype(int), "pi": np.asarray(self.pi, dtype=float),
                "lfdr": np.asarray(self.lfdr, dtype=float), "q_value": np.asarray(self.q_values, dtype=float),
                "selected": np.asarray(self.selected, dtype=bool)}
        if self.model == "additive":
            cols["mu0"] = self._fit.mu0
            cols["mu1"] = self._fit.mu1
        return pd.DataFrame(cols, index=idx)

    def _plot(self, ax=None):
        """Outcome against posterior null probability; controls grey, selected responders red.
        Returns the Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 4))
        lt = self.lfdr_model
        t = self._treat
        sel = np.asarray(self.selected, dtype=bool)
        ax.scatter(lt[~t], self._y[~t], s=6, c="0.75", label="controls (model lfdr)")
        ax.scatter(lt[t & ~sel], self._y[t & ~sel], s=8, c="tab:blue", label="treated")
        ax.scatter(lt[sel], self._y[sel], s=10, c="tab:red", label=f"selected ({sel.sum()})")
        ax.set_xlabel("posterior null probability")
        ax.set_ylabel("outcome")
        ax.set_title(f"C2G ({self.model}), target FDR {format_number(self.alpha)}")
        ax.legend(loc="best", fontsize=8)
        return ax


def _care_ends(diff, pistar):
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = np.where(pistar > 0, diff / np.where(pistar > 0, pistar, 1.0), np.sign(diff) * np.inf)
    scaled = np.where(diff == 0, 0.0, scaled)
    return np.minimum(diff, scaled), np.maximum(diff, scaled)
