"""Adaptive step-up FDR procedures (Storey-type): ``fdr_adaptive``, each method as its named reference.

``"STS"`` is Storey, Taylor & Siegmund (2004) as mutoss's ``adaptiveSTS``; ``"adaptiveBH"`` Benjamini
& Hochberg (2000) as mutoss's ``adaptiveBH``; ``"ABH"`` and ``"TSBH"`` as Bioconductor multtest's
``mt.rawp2adjp``; ``"indepBR"`` and ``"twostageBR"`` Blanchard & Roquain (2009) as mutoss's functions
of those names; ``"BlaRoq"`` the step-up for arbitrary dependence of Blanchard & Roquain (2008) as
mutoss's ``BlaRoq``. One sort per call (``_argsort``); the pi0 estimates are O(m).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import InputWrapper, as_pvalues, check_choice, check_error_level, show_value
from .._r.rformat import format_number, format_table
from .._result import Result
from ._padjust import _abh_h0, _argsort, _blaroq, _bh_with_order, _tsbh_h0

__all__ = ["fdr_adaptive", "AdaptiveFDR", "FDR_ADAPTIVE_METHODS"]

#: method -> (R function, the heading its printout carries)
_REFERENCE = {
    "STS": ("mutoss::adaptiveSTS", "Storey-Taylor-Siegmund (2004) adaptive step-up procedure"),
    "adaptiveBH": ("mutoss::adaptiveBH", "Benjamini-Hochberg (2000) adaptive step-up procedure"),
    "ABH": ("multtest::mt.rawp2adjp(proc = \"ABH\")", "Benjamini-Hochberg (2000) adaptive step-up procedure (multtest ABH)"),
    "TSBH": ("multtest::mt.rawp2adjp(proc = \"TSBH\")", "Benjamini-Krieger-Yekutieli (2006) two-stage step-up procedure (multtest TSBH)"),
    "indepBR": ("mutoss::indepBR", " Blanchard-Roquain 1-stage step-up under independence (2009)"),
    "twostageBR": ("mutoss::twostageBR", "Blanchard-Roquain (2009) 2-stage step-up Procedure"),
    "BlaRoq": ("mutoss::BlaRoq", " Blanchard-Roquain/Sarkar (2008) step-up for arbitrary dependence"),
}

#: The methods ``fdr_adaptive`` knows.
FDR_ADAPTIVE_METHODS: tuple[str, ...] = tuple(_REFERENCE)


@dataclass(frozen=True, eq=False, repr=False)
class AdaptiveFDR(Result):
    """The rejections of an adaptive step-up procedure (:func:`fdr_adaptive`).

    Attributes
    ----------
    rejected : ndarray or pandas Series of bool
        The rejected hypotheses, in the container of the input.
    p_values : ndarray or pandas Series
        The p-values.
    p_adjusted : ndarray, pandas Series or None
        The adjusted p-values where the reference defines them (None for ``"indepBR"`` and
        ``"twostageBR"``, which return rejections only).
    pi0 : float or None
        The estimated proportion of true nulls (None for ``"indepBR"`` and ``"BlaRoq"``, which
        estimate none): mutoss's ``pi0``, multtest's ``h0/m``, twostageBR's 1 / ``pi0inv``.
    n_rejections : int
    alpha : float
    method : str
    lambda_ : float or None
        The tuning constant used (``"STS"``: the threshold lambda; ``"indepBR"``, ``"twostageBR"``:
        Blanchard & Roquain's lambda), None for the others.

    Examples
    --------
    >>> import numpy as np, statcore as sc
    >>> p = np.r_[np.linspace(0.0001, 0.004, 20), np.linspace(0.01, 0.99, 80)]
    >>> res = sc.fdr_adaptive(p, method="STS", alpha=0.05)
    >>> res
    AdaptiveFDR(method='STS', alpha=0.05, n_rejections=21, m=100, pi0=0.82)
    >>> res.to_frame().head(2)
        p_value  p_adjusted  rejected
    0  0.000100    0.008200      True
    1  0.000305    0.012516      True
    """

    rejected: Any
    p_values: Any
    p_adjusted: Any
    pi0: float | None
    n_rejections: int
    alpha: float
    method: str
    lambda_: float | None = None

    def _repr_parts(self):
        return [("method", self.method), ("alpha", self.alpha), ("n_rejections", self.n_rejections),
                ("m", int(np.size(np.asarray(self.p_values)))), ("pi0", self.pi0)]

    def summary(self) -> str:
        """mutoss's printout (``printRejected``): the heading, the counts and the rejected hypotheses
        (1-based index, p-value and, where defined, adjusted p-value) by increasing p-value; then pi0."""
        p = np.asarray(self.p_values, dtype=float).ravel()
        rej = np.asarray(self.rejected, dtype=bool).ravel()
        lines = ["", "", "\t\t" + _REFERENCE[self.method][1], "",
                 f"Number of hyp.:\t {p.size} ", f"Number of rej.:\t {int(rej.sum())} "]
        idx = np.flatnonzero(rej)
        if idx.size:
            idx = idx[np.argsort(p[idx], kind="stable")]
            cols = {"rejected": [int(i) + 1 for i in idx], "pValues": list(p[idx])}
            if self.p_adjusted is not None:
                cols["adjPValues"] = list(np.asarray(self.p_adjusted, dtype=float).ravel()[idx])
            lines.append(format_table([str(i) for i in range(1, idx.size + 1)], cols))
        if self.pi0 is not None:
            lines.append(f"pi0: {format_number(self.pi0)}")
        return "\n".join(lines) + "\n"

    def to_frame(self):
        """One row per hypothesis: ``p_value``, ``p_adjusted`` (where defined) and ``rejected``."""
        import pandas as pd

        idx = self.p_values.index if hasattr(self.p_values, "index") else None
        cols = {"p_value": np.asarray(self.p_values, dtype=float).ravel()}
        if self.p_adjusted is not None:
            cols["p_adjusted"] = np.asarray(self.p_adjusted, dtype=float).ravel()
        cols["rejected"] = np.asarray(self.rejected, dtype=bool).ravel()
        return pd.DataFrame(cols, index=idx)


def _step_up_count(ps: np.ndarray, crit: np.ndarray) -> int:
    """The number of rejections of a step-up with critical values ``crit`` (mutoss's ``SU``): the
    largest i with p_(i) <= crit_i."""
    ok = np.flatnonzero(ps <= crit)
    return int(ok[-1]) + 1 if ok.size else 0


def _indep_br_count(ps: np.ndarray, alpha: float, lam: float) -> int:
    # mutoss::indepBR: alpha * min(i (1 - lambda alpha) / (m - i + 1), lambda), step-up
    m = ps.size
    i = np.arange(1, m + 1, dtype=np.float64)
    crit = alpha * np.minimum(i * (1 - lam * alpha) / ((m - i) + 1), lam)
    return _step_up_count(ps, crit)


def _check_lambda(lambda_: Any, method: str, alpha: float) -> float | None:
    if method in ("STS",):
        lam = 0.5 if lambda_ is None else lambda_
        if isinstance(lam, bool) or not isinstance(lam, (int, float, np.integer, np.floating)) \
                or not (0 < float(lam) < 1):
            raise ValueError(f"lambda_ must lie in (0, 1) for method='STS' (Storey's threshold), got {show_value(lam)}")
        return float(lam)
    if method in ("indepBR", "twostageBR"):
        lam = 1.0 if lambda_ is None else lambda_
        if isinstance(lam, bool) or not isinstance(lam, (int, float, np.integer, np.floating)) \
                or not (0 < float(lam) < 1 / alpha):
            raise ValueError(f"lambda_ must lie in (0, 1/alpha) = (0, {1 / alpha:g}) for method={method!r} "
                             f"(mutoss's rule), got {show_value(lam)}")
        return float(lam)
    if lambda_ is not None:
        raise ValueError(f"lambda_ is used only by methods 'STS', 'indepBR' and 'twostageBR', not {method!r}; drop it")
    return None


def fdr_adaptive(p: Any, *, method: str = "STS", alpha: float = 0.1, lambda_: float | None = None) -> AdaptiveFDR:
    """Adaptive step-up FDR control: BH at a level raised by an estimate of the proportion of nulls.

    Each method is computed as its reference computes it (rejections and adjusted p-values equal):

    - ``"STS"``: Storey, Taylor & Siegmund (2004), Theorem 3: pi0 = (#{p > lambda} + 1) / ((1 -
      lambda) m), adjusted p = BH-adjusted p times min(pi0, 1) (mutoss's ``adaptiveSTS``); rejects
      adjusted p <= alpha **and p <= lambda**, the restriction under which the theorem controls the FDR
      (mutoss omits it: the two differ only when a p-value above lambda has adjusted p <= alpha).
    - ``"adaptiveBH"``: Benjamini & Hochberg (2000), as mutoss's ``adaptiveBH`` (``ABH_pi0_est``:
      h0 = ceiling(min(h0.m[j], m)) at the first j where h0.m[k] = (m + 1 - k)/(1 - p_(k)) rises).
    - ``"ABH"``: the same procedure as multtest's ``mt.rawp2adjp(proc = "ABH")``, which takes h0.m
      at j - 1 (so the two R packages differ by one index; where multtest returns NA, h0 = m).
    - ``"TSBH"``: the two-stage procedure of Benjamini, Krieger & Yekutieli (2006) as multtest's
      ``mt.rawp2adjp(proc = "TSBH", alpha)``: h0 = m - #{BH-adjusted < alpha/(1 + alpha)}, adjusted
      p = BH-adjusted times h0/m, rejected at <= alpha (``p_adjust(method="BKY")``, statsmodels' convention,
      uses alpha/(1 + alpha) in the second stage too and rejects at most as many).
    - ``"indepBR"``: the one-stage adaptive step-up of Blanchard & Roquain (2009) under independence,
      critical values alpha min(i (1 - lambda alpha) / (m - i + 1), lambda) (mutoss's ``indepBR``).
    - ``"twostageBR"``: the two-stage procedure of Blanchard & Roquain (2009): BH at level
      alpha (1 - lambda alpha) m / (m + 1 - R1), R1 the rejections of ``"indepBR"`` (mutoss's
      ``twostageBR``; pi0 reported as (m + 1 - R1) / ((1 - lambda alpha) m)).
    - ``"BlaRoq"``: the step-up of Blanchard & Roquain (2008) for arbitrary dependence with mutoss's
      default prior pi_i proportional to exp(-i / (0.15 m)) (mutoss's ``BlaRoq``; not adaptive: pi0 None).

    Parameters
    ----------
    p : array_like or pandas Series
        p-values in [0, 1] (one-dimensional); NaN is refused.
    method : str, keyword-only
        One of ``statcore.FDR_ADAPTIVE_METHODS`` (above).
    alpha : float, keyword-only
        The target FDR in (0, 1).
    lambda_ : float, optional, keyword-only
        R's ``lambda``: for ``"STS"`` the threshold in (0, 1) (default 0.5), for ``"indepBR"`` and
        ``"twostageBR"`` Blanchard & Roquain's constant in (0, 1/alpha) (default 1); not used otherwise.

    Returns
    -------
    AdaptiveFDR
        ``rejected``, ``p_adjusted`` (where defined), ``pi0``, ``n_rejections``.

    References
    ----------
    Storey, J. D., Taylor, J. E. & Siegmund, D. (2004). JRSS-B 66(1), 187-205. Benjamini, Y. &
    Hochberg, Y. (2000). On the adaptive control of the false discovery rate in multiple testing with
    independent statistics. JEBS 25(1), 60-83. Benjamini, Y., Krieger, A. M. & Yekutieli, D. (2006).
    Biometrika 93(3), 491-507. Blanchard, G. & Roquain, E. (2009). Adaptive false discovery rate
    control under independence and dependence. JMLR 10, 2837-2871. Blanchard, G. & Roquain, E.
    (2008). Two simple sufficient conditions for FDR control. EJS 2, 963-992. CRAN mutoss 0.1-12
    (``adaptiveSTS``, ``adaptiveBH``, ``indepBR``, ``twostageBR``, ``BlaRoq``); Bioconductor multtest
    2.54 (``mt.rawp2adjp``).

    Examples
    --------
    >>> import numpy as np, statcore as sc
    >>> p = np.r_[np.linspace(0.0001, 0.004, 20), np.linspace(0.01, 0.99, 80)]
    >>> sc.fdr_adaptive(p, method="twostageBR", alpha=0.05).n_rejections
    21
    >>> sc.fdr_adaptive(p, method="TSBH", alpha=0.05).pi0
    0.8
    """
    method = check_choice(method, "method", FDR_ADAPTIVE_METHODS)
    alpha = check_error_level(alpha)
    lam = _check_lambda(lambda_, method, alpha)
    wrapper = InputWrapper.of(p)
    arr = as_pvalues(p, "p", allow_nan=False)
    if arr.ndim != 1:
        raise ValueError(f"p must be one-dimensional (one family of p-values), got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError("p is empty; at least one p-value is needed")
    arr = np.ascontiguousarray(arr)
    m = arr.size
    adjusted = None
    pi0 = None
    if method == "BlaRoq":
        adjusted = _blaroq(arr, m, alpha)
        rejected = adjusted <= alpha
    else:
        order, bh = _bh_with_order(arr, m)
        if method == "STS":
            pi0 = (int(np.count_nonzero(arr > lam)) + 1) / (1 - lam) / m     # mutoss's storey_pi0_est
            adjusted = bh * min(pi0, 1.0)
            rejected = (adjusted <= alpha) & (arr <= lam)
        elif method == "adaptiveBH":
            pi0 = _abh_h0(arr[order], m, grab_after=True) / m
            adjusted = bh * pi0
            rejected = adjusted <= alpha
        elif method == "ABH":
            h0 = _abh_h0(arr[order], m, grab_after=False)
            pi0 = h0 / m
            adjusted = bh * h0 / m
            rejected = adjusted <= alpha
        elif method == "TSBH":
            h0 = _tsbh_h0(bh, alpha)
            pi0 = h0 / m
            adjusted = bh * h0 / m
            rejected = adjusted <= alpha
        else:  # Blanchard & Roquain (2009)
            r1 = _indep_br_count(arr[order], alpha, lam)
            if method == "indepBR":
                rejected = np.zeros(m, dtype=bool)
                rejected[order[:r1]] = True
            else:
                pi0inv = (1 - lam * alpha) * m / (m + 1 - r1)
                pi0 = 1 / pi0inv
                rejected = bh <= alpha * pi0inv
    return AdaptiveFDR(rejected=wrapper.wrap(rejected), p_values=wrapper.wrap(arr.copy()),
                       p_adjusted=None if adjusted is None else wrapper.wrap(adjusted),
                       pi0=None if pi0 is None else float(pi0), n_rejections=int(np.count_nonzero(rejected)),
                       alpha=alpha, method=method, lambda_=lam)
