"""``joint_bounds`` and ``ite_variance_bounds``: sharp bounds, identified values, bootstrap intervals."""
from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np

from .._checks import (check_choice, check_positive_int, check_progress, check_seed, coupling_data_inputs,
                       coupling_options, pow2_scale)
from .._checks.public import public_function
from ._design import (DR_DRAWS, OverlapWarning, _cell_weights, _dr_marginal, _make_design, _perturbed_atom_weights,
                      _values, _weighted_means)
from ._functions import _F, _check_stated_class, _detect_class, _resolve_f
from ._inference import _is_discrete, _kink, identified_set_interval, imbens_manski_interval, stoye_interval
from ._results import JointBounds

__all__ = ["JointBounds", "joint_bounds", "ite_variance_bounds"]


#: Below this smallest Kish effective fraction of an arm (effective n / n of the arm) under
#: inverse-propensity weights, the bootstrap intervals were seen to undercover (0.900 at the upper end
#: at fraction 0.85, 0.829 at 0.47): the weights' tail makes the bootstrap standard errors too small (benchmarks/coverage_coupling_propensity.py;
#: benchmarks/README.md, "coupling").
KISH_WARN = 0.9
#: Below this smallest Kish fraction the doubly robust intervals were seen to undercover at the upper
#: end (0.934 at fraction 0.85, held; 0.912 at 0.73 and 0.902 at 0.47, not held: bound 0.921-0.929;
#: benchmarks/coverage_coupling_propensity.py, doubly robust marginals, B = 49).
KISH_WARN_DR = 0.8


def _kish_fractions(design, w: np.ndarray) -> list[float]:
    out = []
    for a in (True, False):
        wa = w[design.pooled[a]]
        out.append(float(wa.sum() ** 2 / (wa ** 2).sum()) / wa.size)
    return out


def _n_threads(n_jobs: int) -> int:
    """numba threads for ``n_jobs`` in joblib's convention: n > 0 at most the cores, -1 all, -2 all but one."""
    import numba

    mx = numba.config.NUMBA_NUM_THREADS
    k = n_jobs if n_jobs > 0 else mx + 1 + n_jobs
    return max(1, min(k, mx))


MARGINALS = ("auto", "ipw", "doubly-robust")


def _dr_obstacle(design, strata, f_class: str, bootstrap: str) -> str | None:
    """Why doubly robust marginals cannot be used here (None: they can)."""
    if design.Xo is None:
        return "they need covariates X (for the outcome regressions)"
    if strata is not None:
        return "they are not implemented with strata"
    if f_class not in ("supermodular", "submodular", "modular"):
        return "they are implemented for supermodular or submodular f (the merges), not the linear program"
    if bootstrap not in ("auto", "n-out-of-n"):
        return "they are bootstrapped n-out-of-n only"
    need = design.Xo.shape[1] + 2
    if min(int(design.arm.sum()), int((~design.arm).sum())) < 2 * need:
        return f"an arm has fewer than {2 * need} units for the outcome regression on X"
    if _is_discrete(design):
        return "the outcomes are discrete (a location-shift outcome model does not fit them)"
    return None


def _bounds(y, treat, fx: _F, *, X, propensity, strata, assumption, f_class, conf_level, B, ci, seed,
            n_jobs, bootstrap, m, clip, nan_policy, adjust=None, progress=None, marginals="auto") -> JointBounds:
    """The bounds, their bootstrap and intervals: the steps below, in order."""
    conf_level, B, ci, bootstrap, assumption, f_class, n_jobs, clip = coupling_options(
        conf_level, B, ci, bootstrap, assumption, f_class, n_jobs, clip, strata is not None)
    marginals = check_choice(marginals, "marginals", MARGINALS, {"dr": "doubly-robust", "aipw": "doubly-robust"})
    progress = check_progress(progress)
    data_name = _data_name(y, treat)
    data = coupling_data_inputs(y, treat, X=X, propensity=propensity, strata=strata, nan_policy=nan_policy)
    design = _make_design(data, clip)
    rng = check_seed(seed)
    i1, i0 = design.pooled[True], design.pooled[False]
    u1, u0 = np.unique(design.y[i1]), np.unique(design.y[i0])
    if f_class == "auto":
        f_class, class_note = _detect_class(fx, u1, u0)
    else:
        class_note = _check_stated_class(fx, f_class, u1, u0)
    n1 = int(design.arm.sum())
    n0 = design.y.size - n1
    bootstrap = _choose_marginals(design, marginals, strata, f_class, bootstrap, clip)

    def compute(counts: np.ndarray, weights: np.ndarray | None = None) -> dict:
        v = _values(design, counts, fx, f_class, weights, n_jobs)
        out = {"lower": v.lower, "upper": v.upper, "comonotone": v.co, "countercomonotone": v.counter,
               "comonotone given X": v.co_x, "countercomonotone given X": v.counter_x}
        if adjust is not None:
            m1, m0 = v.means if v.means is not None else _weighted_means(design, counts, weights)
            corr = adjust(m1, m0)
            out = {k: val - corr for k, val in out.items()}
        out["_rows"] = v.strata_rows
        return out

    from contextlib import ExitStack

    import numba  # noqa: F401  (loaded before thread_limit, which sets numba's pool once numba is loaded)

    from ..utils import thread_limit

    threads = ExitStack()
    try:
        if B > 0:
            threads.enter_context(thread_limit(_n_threads(n_jobs), pools="numba"))
        point = compute(np.ones((1, design.y.size)))
        est = {k: float(v[0]) for k, v in point.items() if k != "_rows"}
        lower, upper = est["lower"], est["upper"]
        _check_point(design, lower, upper, f_class, class_note)
        estimate = est[assumption] if assumption else None
        notes = []
        if data.n_dropped:
            notes.append(f"{data.n_dropped} unit(s) with a missing value dropped (nan_policy='omit')")
        notes += _overlap_notes(design, data, B)
        bootstrap, kink, ratio, step, kink_notes = _choose_bootstrap(design, fx, bootstrap, B, m, n1, n0)
        notes += kink_notes
        boot = _replicates(design, compute, B, rng, ratio, step, progress) if B > 0 else {}
    finally:
        threads.close()

    se, set_ci, point_ci = _intervals(boot, B, bootstrap, design, lower, upper, estimate, assumption, ci, conf_level,
                                      ratio, step, n1 + n0, notes)
    strata_table = None
    if strata is not None:
        strata_table = _strata_table(point["_rows"], design, lower, upper, estimate, assumption, adjust, notes)
    wts = _cell_weights(design, np.ones((1, design.y.size)))[0]
    return JointBounds(
        lower=lower, upper=upper, estimate=estimate,
        conf_int=point_ci if assumption else set_ci, set_conf_int=set_ci, point_conf_int=point_ci,
        comonotone=est["comonotone"], countercomonotone=est["countercomonotone"],
        f_label=fx.label, target=f"E[{fx.label}]" if adjust is None else "Var(Y1 - Y0)", f_class=f_class,
        class_note=class_note, assumption=assumption,
        conf_level=conf_level, ci=ci, B=B, bootstrap=bootstrap, m_ratio=ratio, nd_step=step, kink=kink, n1=n1, n0=n0,
        weights_note=design.weights_note + _kish_note(design, wts), data_name=data_name, std_error=se, boot=boot,
        strata_table=strata_table, notes=tuple(notes), _curves=_marginal_curves(design, fx, wts),
        given_x={k: est[k] for k in ("comonotone given X", "countercomonotone given X")} if strata is not None
        else None)


def _choose_marginals(design, marginals: str, strata, f_class: str, bootstrap: str, clip: float) -> str:
    """Doubly robust marginals where they apply (``design.dr`` set, its weights note written): the
    bootstrap they need ("n-out-of-n"), else ``bootstrap`` unchanged."""
    if marginals != "ipw":
        why_not = _dr_obstacle(design, strata, f_class, bootstrap)
        if why_not is not None and marginals == "doubly-robust":
            raise ValueError(f"marginals='doubly-robust' cannot be used here: {why_not}; use marginals='ipw'")
        design.dr = why_not is None
        if design.dr:
            bootstrap = "n-out-of-n"
            design.weights_note = (f"doubly robust marginals (augmented inverse-propensity weighting: a linear "
                                   f"outcome regression on X per arm with its residual law, {DR_DRAWS} residual "
                                   f"quantiles per unit; the propensity "
                                   + ("given" if design.X is None else "fitted by logistic regression on X")
                                   + f", clipped to [{clip:g}, {1 - clip:g}])")
    return bootstrap


def _check_point(design, lower: float, upper: float, f_class: str, class_note: str) -> None:
    """The point bounds must be finite and ordered."""
    if not (np.isfinite(lower) and np.isfinite(upper)):
        big = float(np.abs(design.y).max())
        raise ValueError(f"y: f(y1, y0) is not finite on the outcomes (|y| up to {big:.3g}), so the bounds on "
                         f"E[f(Y1, Y0)] have no finite value (got [{lower:g}, {upper:g}]); rescale y (or f) "
                         "so that f's values fit in float64")
    if lower > upper + 1e-9 * max(1.0, abs(lower), abs(upper)):
        raise ValueError(f"lower bound {lower:.6g} > upper bound {upper:.6g}: f is not {f_class} on the "
                         f"support (f_class={f_class!r}, {class_note}); use f_class='general' (or 'auto')")


def _overlap_notes(design, data, B: int) -> list:
    """The OverlapWarning (and its note) where unequal inverse-propensity weights threaten the intervals."""
    notes = []
    if design.inv_e is not None and data.weights is None and B > 0:
        frac = min(_kish_fractions(design, _cell_weights(design, np.ones((1, design.y.size)))[0]))
        if design.dr:
            if frac < KISH_WARN_DR:
                msg = (f"unequal inverse-propensity weights (smallest Kish effective fraction of an arm "
                       f"{frac:.2f} < {KISH_WARN_DR}): the bootstrap standard error of the upper end may be "
                       f"too small and the intervals may undercover there (measured coverage: "
                       f"benchmarks/README.md, 'coupling')")
                warnings.warn(msg, OverlapWarning, stacklevel=5)
                notes.append(msg)
        elif frac < KISH_WARN:
            msg = (f"unequal inverse-propensity weights (smallest Kish effective fraction of an arm "
                   f"{frac:.2f} < {KISH_WARN}): the bootstrap intervals may undercover, the upper end "
                   f"first; the doubly robust marginals hold down to a fraction of {KISH_WARN_DR} "
                   "(measured coverage: benchmarks/README.md, 'coupling')")
            warnings.warn(msg, OverlapWarning, stacklevel=5)
            notes.append(msg)
    return notes


def _choose_bootstrap(design, fx: _F, bootstrap: str, B: int, m, n1: int, n0: int) -> tuple:
    """The bootstrap for the functional's smoothness: (bootstrap, kink, m-out-of-n ratio, numerical-delta
    step, notes)."""
    notes = []
    why = _kink(design, fx)
    kink = why is not None
    if bootstrap == "auto":
        bootstrap = "numerical-delta" if kink else "n-out-of-n"
        if kink and B > 0:
            notes.append(f"{why}: the functional has a kink there and the n-out-of-n bootstrap is "
                         "inconsistent, so the numerical-delta bootstrap (Hong & Li 2018) was used; "
                         "bootstrap='m-out-of-n' is the alternative")
    elif kink and bootstrap == "n-out-of-n" and B > 0:
        notes.append(f"{why}: the functional may have a kink; consider bootstrap='numerical-delta' or "
                     "'m-out-of-n'")
    ratio = step = None
    if bootstrap == "numerical-delta":
        if not _is_discrete(design):
            raise ValueError("bootstrap='numerical-delta' is for discrete outcomes (values seen at least "
                             "twice hold >= 99% of every arm); use 'n-out-of-n' or 'm-out-of-n' here")
        step = float(min(n1, n0)) ** 0.25
    if bootstrap == "m-out-of-n":
        if m is None:
            nmin = min(n1, n0)
            ratio = float(np.ceil(nmin ** (2 / 3))) / nmin
        else:
            mm = check_positive_int(m, "m", minimum=2)
            ratio = min(1.0, mm / min(n1, n0))
    return bootstrap, kink, ratio, step, notes


class _CountsDraw:
    """``size`` bootstrap replicates' resampling counts, from ``rng`` in order (``design.resample``)."""

    def __init__(self, design, ratio):
        self.design, self.ratio = design, ratio

    def __call__(self, rng, size: int) -> np.ndarray:
        return self.design.resample(rng, size, self.ratio)


def _replicates(design, compute, B: int, rng, ratio, step, progress) -> dict:
    """B bootstrap replicates of every quantity through the resampling engine (``run_stream``: chunks of
    resampling counts drawn in order from ``rng``; the kernels' threads do the parallel work)."""
    from .._resampling import run_stream

    def chunk(counts: np.ndarray) -> dict:
        if step is None:
            return compute(counts)
        return compute(counts, _perturbed_atom_weights(design, counts, step))

    parts = run_stream(_CountsDraw(design, ratio), chunk, B, rng=rng, bytes_per_resample=8.0 * design.y.size,
                       n_jobs=1, progress=progress, desc="bootstrap", unit="replicate")
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0] if k != "_rows"}


def _intervals(boot: dict, B: int, bootstrap: str, design, lower: float, upper: float, estimate, assumption, ci: str,
               conf_level: float, ratio, step, n: int, notes: list) -> tuple:
    """Standard errors, the identified set's interval and the point's interval from the replicates
    (appending to ``notes``)."""
    se: dict = {}
    set_ci = point_ci = None
    if B > 0:
        alpha = 1 - conf_level
        if bootstrap == "n-out-of-n":
            se = {k: _std(v) if B > 1 else 0.0 for k, v in boot.items()}
            # doubly robust marginals: the intervals are centred at the bootstrap bias-corrected values
            # 2 theta - mean(theta*) (the plug-in couplings of estimated marginals are biased towards
            # independence by O(1 / effective n); without the correction the lower end covered 0.92)
            c_lo, c_hi, c_est = lower, upper, estimate
            if design.dr and B > 1:
                c_lo = 2 * lower - float(np.mean(boot["lower"]))
                c_hi = 2 * upper - float(np.mean(boot["upper"]))
                if assumption:
                    c_est = 2 * estimate - float(np.mean(boot[assumption]))
                notes.append(f"intervals centred at the bootstrap bias-corrected ends {c_lo:.6g}, {c_hi:.6g} "
                             f"(doubly robust marginals)")
                if c_lo > c_hi:
                    c_lo = c_hi = 0.5 * (c_lo + c_hi)
            if ci == "imbens-manski":
                set_ci = imbens_manski_interval(c_lo, c_hi, se["lower"], se["upper"], conf_level=conf_level).conf_int
            else:
                rho = float(np.corrcoef(boot["lower"], boot["upper"])[0, 1]) if B > 2 else 0.0
                # rho unknown (B <= 2 or a constant end): 1 is the conservative value for the whole set
                rho = (1.0 if ci == "whole-set" else 0.0) if not np.isfinite(rho) or B <= 2 else rho
                set_ci = (identified_set_interval(c_lo, c_hi, se["lower"], se["upper"], rho=rho,
                                                  conf_level=conf_level) if ci == "whole-set"
                          else stoye_interval(c_lo, c_hi, se["lower"], se["upper"], rho=rho, conf_level=conf_level,
                                              n=n)).conf_int
            if assumption:
                from scipy.stats import norm

                z = norm.ppf(1 - alpha / 2)
                point_ci = (c_est - z * se[assumption], c_est + z * se[assumption])
        else:
            # m-out-of-n: sqrt(n)(theta_n - theta) is approximated by sqrt(m)(theta*_m - theta_n);
            # numerical delta: by (phi(F_n + step (F* - F_n)) - phi(F_n)) / step (Hong & Li 2018)
            sc = math.sqrt(ratio) if step is None else 1.0 / step
            se = {k: _std(v) * sc if B > 1 else 0.0 for k, v in boot.items()}
            dl = sc * (boot["lower"] - lower)
            du = sc * (boot["upper"] - upper)
            set_ci = (lower - float(np.quantile(dl, 1 - alpha / 2)), upper - float(np.quantile(du, alpha / 2)))
            if assumption:
                d = sc * (boot[assumption] - estimate)
                point_ci = (estimate - float(np.quantile(d, 1 - alpha / 2)),
                            estimate - float(np.quantile(d, alpha / 2)))
        if assumption:
            se["estimate"] = se[assumption]
    return se, set_ci, point_ci


def _strata_table(rows, design, lower: float, upper: float, estimate, assumption, adjust, notes: list):
    """The per-stratum bounds (None for an adjusted quantity, whose rows would be of E f)."""
    import pandas as pd

    strata_table = pd.DataFrame(rows, columns=["comonotone", "countercomonotone", "lower", "upper"],
                                index=pd.Index(design.levels, name="stratum"))
    strata_table.insert(0, "share", design.p_s)
    if assumption in ("comonotone", "countercomonotone") and not (lower - 1e-12 <= estimate <= upper + 1e-12):
        notes.append(f"the unconditional '{assumption}' value lies outside the covariate-tightened bounds: "
                     "that assumption contradicts the conditional marginals; consider "
                     f"'{assumption} given X'")
    return None if adjust is not None else strata_table


def _marginal_curves(design, fx: _F, wts: np.ndarray) -> tuple:
    """The two arms' (weighted or doubly robust) distribution functions, for the plot."""
    i1, i0 = design.pooled[True], design.pooled[False]
    if design.dr:
        ones = np.ones(design.y.size)
        l1, w1, _ = _dr_marginal(design, ones, design.inverse_propensity(ones[None])[0], True)
        l0, w0, _ = _dr_marginal(design, ones, design.inverse_propensity(ones[None])[0], False)
        return (l1, np.cumsum(w1), l0, np.cumsum(w0), fx)
    return (design.y[i1], np.cumsum(wts[i1]) / wts[i1].sum(), design.y[i0], np.cumsum(wts[i0]) / wts[i0].sum(), fx)


def _kish_note(design, w: np.ndarray) -> str:
    """Kish's effective sample sizes of the weighted arms, when the weights are not equal."""
    if design.inv_e is None:
        return ""
    ess = [float(w[design.pooled[a]].sum() ** 2 / (w[design.pooled[a]] ** 2).sum()) for a in (True, False)]
    return f"; effective n1 = {ess[0]:.1f}, n0 = {ess[1]:.1f} (Kish)"


def _data_name(y, treat) -> str:
    yn = getattr(y, "name", None) or "y"
    tn = getattr(treat, "name", None) or "treat"
    return f"{yn} by {tn}"


def _std(v: np.ndarray) -> float:
    """The standard deviation (ddof 1) of bootstrap values of any magnitude: squares of values of 1e200
    would overflow, so the values are centred at their median and divided by a power of two first."""
    v = np.asarray(v, dtype=float)
    med = float(np.median(v))
    s = float(pow2_scale(v, axis=None, center=med))
    return float(np.std((v - med) / s, ddof=1)) * s


@public_function(data=("y", "treat"), nan_policy=("raise", "omit"),
                 formula=dict(lhs="y", rhs="treat", cond="X", single=("y", "treat"), pandas=True))
def joint_bounds(y, treat=None, *, f=None, X=None, propensity=None, strata=None, assumption=None, f_class="auto",
                 conf_level=0.95, B=999, ci="imbens-manski", seed=None, n_jobs=1, bootstrap="auto", m=None,
                 clip=0.01, nan_policy="raise", progress=None, data=None, marginals="auto") -> JointBounds:
    """Sharp bounds on E[f(Y1, Y0)] from the two arms, or its value under a rank assumption.

    The marginals of Y1 and Y0 are the (weighted) empirical laws of ``y`` among treated and controls.
    For supermodular f the sharp lower bound is the countercomonotone value
    int f(Q1(u), Q0(1 - u)) du and the upper bound the comonotone value int f(Q1(u), Q0(u)) du; for
    submodular f the other way round (Cambanis, Simons & Stout 1976; Tchen 1980). The class is
    detected from the mixed differences f(a', b') - f(a', b) - f(a, b') + f(a, b) on the support
    (named f: known); for any other f both bounds come from the exact optimal-transport linear
    program on the two empirical marginals (scipy's HiGHS).

    Parameters
    ----------
    y : array_like
        Outcomes, one per unit (a vector).
    treat : array_like
        Binary treatment (0/1 or bool), one per unit.
    f : callable or str
        Vectorised ``f(y1, y0)`` or a name (see :func:`coupling_mean`).
    X : array_like, optional
        Covariates (n x p, rows are units). With no ``propensity`` a logistic
        regression of ``treat`` on ``X`` gives the propensity; each arm's marginal is then doubly
        robust or Hajek inverse-propensity weighted (``marginals``).
    propensity : array_like, optional
        Known propensity scores P(treat = 1 | X) in (0, 1); ``X`` then serves the outcome
        regressions of doubly robust marginals only.
    strata : array_like, optional
        Discrete covariate: bounds become E_X[bounds given X] (tighter), with the stratum shares of
        the sample. Missing labels (NaN, None, NA) follow ``nan_policy``.
    assumption : {None, "comonotone", "countercomonotone", "comonotone given X", "countercomonotone given X"}
        None: sharp bounds only. "comonotone" restricts the unconditional joint law (ranks kept in the
        whole population); "comonotone given X" ranks kept within strata, E_X of the within-stratum
        coupling. They differ; the choice is printed.
    f_class : {"auto", "supermodular", "submodular", "general"}
        "auto" detects it; "general" forces the linear program. A stated "supermodular" or
        "submodular" is checked: a ValueError if it contradicts the known class of a named f, or a
        mixed difference of the other sign on a sub-grid of the support of a callable f, or if the
        resulting lower bound exceeds the upper one.
    conf_level : float
        Coverage of the confidence intervals, in (0, 1).
    B : int
        Bootstrap replicates (0: no interval). Resampling is within arms (within stratum-by-arm cells
        with strata, the propensity refitted on each replicate when it was fitted); each replicate is a
        vector of counts on the once-sorted data, and the merges of all replicates run in parallel.
    ci : {"imbens-manski", "stoye", "whole-set"}
        ``set_conf_int``: an interval for the true value in the identified set (covering each of its
        points), Imbens & Manski (2004) or Stoye (2009); or "whole-set", an interval that covers the
        whole identified set at once (:func:`identified_set_interval`, with the bootstrap
        correlation of the two ends), wider: about z_0.975 against z_0.95 standard errors at each
        end when the set is wide. (The m-out-of-n and numerical-delta bootstraps always give
        equal-tailed ends at 1 - alpha/2, which cover the whole set.)
    seed : None, int or numpy.random.Generator
        Randomness of the bootstrap; the same seed gives the same replicates for any ``n_jobs``.
    n_jobs : int
        Threads for the bootstrap merges (numba; negative as in joblib: -1 all cores, -2 all but
        one); for general f the replicates' linear programs run through joblib with this many workers.
    bootstrap : {"auto", "n-out-of-n", "m-out-of-n", "numerical-delta"}
        Where a jump of Q1 meets a jump of Q0 (discrete outcomes with p1 = p0) the functional has a
        kink and the n-out-of-n bootstrap is inconsistent. "m-out-of-n" resamples m of n (Bickel,
        Goetze & van Zwet 1997); "numerical-delta" (discrete outcomes only) perturbs the atoms'
        masses by n^(1/4) times the bootstrap deviation and divides by the same (Hong & Li 2018).
        "auto" uses the numerical delta at a detected kink and says so in the result. Both give
        intervals equal-tailed at each end of the identified set.
    m : int, optional
        Resample size for the smaller arm in the m-out-of-n bootstrap (default ceil(n^(2/3))); the
        other arm uses the same fraction.
    clip : float
        Propensity scores are clipped to [clip, 1 - clip], with an OverlapWarning when any is.
    nan_policy : {"raise", "omit"}
        A missing value in ``y``, ``treat``, ``X``, ``propensity`` or ``strata``: "raise" refuses it,
        "omit" drops the unit (and the summary says how many were dropped). "propagate" is not
        offered: a unit with a NaN outcome has no rank in its arm.
    progress : bool, optional
        A progress bar (tqdm) over the B bootstrap replicates, advancing per batch of replicates.
        Default (None): only when standard error is a terminal.
    data : pandas.DataFrame, optional
        With a formula in place of ``y``: the table holding its columns.
        ``joint_bounds("y ~ treat", data=df, f=...)`` is ``joint_bounds(y, treat, f)``;
        a part ``| x1 + x2`` gives the covariates ``X``.
        Categorical columns expand to R's treatment-contrast dummies (a two-level treatment column
        becomes 0/1, its first level 0); missing values follow ``nan_policy``; the result equals
        the array call on the formula's columns (docs/conventions.md, "Formulas").
    marginals : {"auto", "doubly-robust", "ipw"}
        How each arm's marginal law is estimated when ``X`` is given. "doubly-robust": augmented
        inverse-propensity weighting (Robins, Rotnitzky & Zhao 1994) of the distribution function,
        with a linear regression of ``y`` on ``X`` in each arm and its residual law as the outcome
        model (a location shift; consistent when either that model or the propensity is right),
        projected on distribution functions (isotonic regression); the bootstrap then resamples
        units from the pooled sample, refits the propensity and both regressions on every
        replicate, and centres the intervals at the bootstrap bias-corrected ends. "ipw": Hajek
        inverse-propensity weighted marginals, resampled within arms (the propensity refitted on
        every replicate). "auto" (default): "doubly-robust" where it applies (``X`` given, no
        ``strata``, f supermodular or submodular, continuous outcomes, n-out-of-n bootstrap,
        each arm at least 2(p + 2) units), else "ipw": with a fitted propensity and unequal weights
        the "ipw" intervals undercover (the countercomonotone end pairs both arms' tails, where the
        weights are largest); the doubly robust marginals lean on the weights only through the
        residuals.

    Returns
    -------
    JointBounds
        Bounds, couplings, the identified value under ``assumption``, bootstrap standard errors and
        intervals.

    See Also
    --------
    ite_variance_bounds : the bounds on Var(Y1 - Y0).
    makarov_bounds : bounds on the distribution function of Y1 - Y0.

    Notes
    -----
    The bounds are those of every coupling of the two arms' estimated marginal laws (sharp: the
    comonotone and countercomonotone couplings for super- or submodular f, the optimal-transport
    linear program otherwise). The bootstrap intervals cover the true value at ``conf_level``
    (``ci="whole-set"``: the whole identified set) when the marginals are estimated consistently;
    with a fitted propensity and heavy weights their upper end undercovers, and below a smallest
    Kish fraction of ``KISH_WARN_DR`` = 0.8 (doubly robust marginals) or ``KISH_WARN`` = 0.9
    ("ipw") an ``OverlapWarning`` says so and the note is kept in the result. The measured
    coverage, by design and overlap, is in ``benchmarks/README.md``, section "coupling".

    References
    ----------
    Cambanis, S., Simons, G. & Stout, W. (1976). Inequalities for Ek(X, Y) when the marginals are
    fixed. Z. Wahrscheinlichkeitstheorie verw. Gebiete 36, 285-294.

    Tchen, A. H. (1980). Inequalities for distributions with given marginals. Ann. Probab. 8, 814-827.

    Heckman, J. J., Smith, J. & Clements, N. (1997). Making the most out of programme evaluations and
    social experiments. Rev. Econ. Stud. 64, 487-535.

    Imbens, G. W. & Manski, C. F. (2004). Confidence intervals for partially identified parameters.
    Econometrica 72, 1845-1857.

    Stoye, J. (2009). More on confidence intervals for partially identified parameters. Econometrica
    77, 1299-1315.

    Bickel, P. J., Goetze, F. & van Zwet, W. R. (1997). Resampling fewer than n observations. Statist.
    Sinica 7, 1-31.

    Hong, H. & Li, J. (2018). The numerical delta method. J. Econometrics 206, 379-394.

    Robins, J. M., Rotnitzky, A. & Zhao, L. P. (1994). Estimation of regression coefficients when some
    regressors are not always observed. J. Amer. Statist. Assoc. 89, 846-866.

    Chernozhukov, V., Fernandez-Val, I. & Melly, B. (2013). Inference on counterfactual distributions.
    Econometrica 81, 2205-2268.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore.coupling import joint_bounds
    >>> y = np.array([1.0, 2.0, 3.0, 4.0, 2.0, 4.0, 6.0, 8.0])
    >>> t = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    >>> res = joint_bounds(y, t, f="sq_diff", B=0)
    >>> res.f_class, res.lower, res.upper
    ('submodular', 7.5, 17.5)
    >>> joint_bounds(y, t, f="product", assumption="comonotone", B=0).estimate
    15.0
    """
    return _bounds(y, treat, _resolve_f(f), X=X, propensity=propensity, strata=strata, assumption=assumption,
                   f_class=f_class, conf_level=conf_level, B=B, ci=ci, seed=seed, n_jobs=n_jobs,
                   bootstrap=bootstrap, m=m, clip=clip, nan_policy=nan_policy, progress=progress, marginals=marginals)


@public_function(data=("y", "treat"), nan_policy=("raise", "omit"),
                 formula=dict(lhs="y", rhs="treat", cond="X", single=("y", "treat"), pandas=True))
def ite_variance_bounds(y, treat=None, *, X=None, propensity=None, strata=None, assumption=None, conf_level=0.95,
                        B=999, ci="imbens-manski", seed=None, n_jobs=1, bootstrap="auto", m=None, clip=0.01,
                        nan_policy="raise", progress=None, data=None, marginals="auto") -> JointBounds:
    """Sharp bounds on Var(Y1 - Y0), the variance of individual treatment effects.

    Var(Y1 - Y0) = E(Y1 - Y0)^2 - (E Y1 - E Y0)^2; the second term is identified and (Y1 - Y0)^2 is
    submodular, so the bounds are the comonotone (lower) and countercomonotone (upper) values,
    s1^2 + s0^2 - 2 Cov under either coupling; they lie inside [(s1 - s0)^2, (s1 + s0)^2] and reach
    those ends when the two marginals differ only by location and scale (e.g. two normals). The
    bootstrap replicates recompute both terms; the intervals are intersected with [0, inf), which
    keeps their coverage.

    Parameters
    ----------
    y : array_like
        Outcomes, one per unit (a vector).
    treat : array_like
        Binary treatment (0/1 or bool), one per unit.
    X : array_like, optional
        Covariates (n x p, rows are units) for a logistic propensity fit and Hajek
        inverse-propensity weighted marginals.
    propensity : array_like, optional
        Known propensity scores P(treat = 1 | X) in (0, 1).
    strata : array_like, optional
        Discrete covariate: bounds become E_X[bounds given X].
    assumption : {None, "comonotone", "countercomonotone", "comonotone given X", "countercomonotone given X"}
        The rank assumption under which the variance is identified (None: bounds only).
    conf_level : float
        Coverage of the confidence intervals, in (0, 1).
    B : int
        Bootstrap replicates (0: no interval).
    ci : {"imbens-manski", "stoye", "whole-set"}
        Interval for the true value in the identified set, or ("whole-set") for the whole set at
        once, as in :func:`joint_bounds`.
    seed : None, int or numpy.random.Generator
        Randomness of the bootstrap.
    n_jobs : int
        Threads for the bootstrap (joblib's convention).
    bootstrap : {"auto", "n-out-of-n", "m-out-of-n", "numerical-delta"}
        The bootstrap, as in :func:`joint_bounds`.
    m : int, optional
        Resample size of the smaller arm in the m-out-of-n bootstrap.
    clip : float
        Propensity scores are clipped to [clip, 1 - clip].
    nan_policy : {"raise", "omit"}
        A missing value in ``y``, ``treat``, ``X``, ``propensity`` or ``strata``: "raise" refuses
        it, "omit" drops the unit.
    progress : bool, optional
        A progress bar (tqdm) over the B bootstrap replicates, advancing per batch of replicates.
        Default (None): only when standard error is a terminal.
    data : pandas.DataFrame, optional
        With a formula in place of ``y``: the table holding its columns.
        ``ite_variance_bounds("y ~ treat | x1", data=df)`` is
        ``ite_variance_bounds(y, treat, X=x1)``.
        Categorical columns expand to R's treatment-contrast dummies (a two-level treatment column
        becomes 0/1, its first level 0); missing values follow ``nan_policy``; the result equals
        the array call on the formula's columns (docs/conventions.md, "Formulas").
    marginals : {"auto", "doubly-robust", "ipw"}
        The arms' marginals with ``X``, as in :func:`joint_bounds` ("auto": doubly robust where it
        applies); the means E Y1, E Y0 come from the same marginals.

    Returns
    -------
    JointBounds
        ``lower`` and ``upper`` bound Var(Y1 - Y0); ``target`` is "Var(Y1 - Y0)".

    See Also
    --------
    joint_bounds : bounds on E[f(Y1, Y0)] for any f.

    References
    ----------
    Heckman, J. J., Smith, J. & Clements, N. (1997). Making the most out of programme evaluations and
    social experiments. Rev. Econ. Stud. 64, 487-535.

    Fan, Y. & Park, S. S. (2010). Sharp bounds on the distribution of treatment effects and their
    statistical inference. Econometric Theory 26, 931-951.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore.coupling import ite_variance_bounds
    >>> y = np.array([1.0, 2.0, 3.0, 4.0, 2.0, 4.0, 6.0, 8.0])
    >>> t = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    >>> r = ite_variance_bounds(y, t, B=0)
    >>> r.lower, r.upper
    (1.25, 11.25)
    """
    fx = _F(lambda a, b: (a - b) ** 2, "(Y1 - Y0)^2", "submodular", 1)
    res = _bounds(y, treat, fx, X=X, propensity=propensity, strata=strata, assumption=assumption, f_class="auto",
                  conf_level=conf_level, B=B, ci=ci, seed=seed, n_jobs=n_jobs, bootstrap=bootstrap, m=m, clip=clip,
                  nan_policy=nan_policy, adjust=lambda m1, m0: (m1 - m0) ** 2, progress=progress,
                  marginals=marginals)
    notes = ("Var(Y1 - Y0) = E[(Y1 - Y0)^2] - (E Y1 - E Y0)^2; the second term is identified and "
             "recomputed on every bootstrap replicate",) + tuple(res.notes)

    # a variance is never negative: intersecting the intervals with [0, inf) keeps their coverage
    def nonneg(ci_):
        return None if ci_ is None else (max(0.0, ci_[0]), max(0.0, ci_[1]))

    return dataclasses.replace(res, notes=notes, conf_int=nonneg(res.conf_int), set_conf_int=nonneg(res.set_conf_int),
                               point_conf_int=nonneg(res.point_conf_int))
