"""Tools for testing statistical code: hypothesis strategies and seeded calibration checks.

What statcore's own tests use, public for people who test their own analyses:

- hypothesis strategies (hypothesis is imported when a strategy is built, never by ``import statcore``):
  :func:`pvalues` (p-value vectors with ties, 0, 1 and NaN), :func:`treatment_outcome` (outcomes of
  a treated and a control arm), :func:`ci_triples` (x, y, z with x independent of y given z) and
  :func:`dag_frames` (DataFrames from a linear Gaussian model on a random DAG);
- calibration checks: :func:`assert_size` (the rejection rate of a test under a null sampler is at
  most alpha + 3 Monte Carlo standard errors) and :func:`assert_coverage` (an interval's coverage is
  at least its level - 3 s.e.) and :func:`assert_error_rate` (a mean error, an FDR or a FWER, is at
  most alpha + 3 s.e.), each one seeded Monte Carlo run that fails with the rate, its standard error
  and the bound, and returns a :class:`Calibration` result otherwise.

The replicates of a calibration check draw either from one ``numpy.random.Generator`` (from
``seed``), in order: the sampler draws the data, then the test or interval gets the same Generator
for its own randomness (permutations, bootstrap); or, with ``seeds``, each from its own seed,
handed as it is to the sampler and the test (replicate i is then reproducible on its own, and the
replicates may run on several workers); or, with ``vectorized=True``, all at once (a simulation
computed as arrays: the sampler draws every data set, the test returns one value per replicate).
Either way a check gives the same answer every run.

The bounds: ``target`` -+ ``n_se`` Monte Carlo standard errors, one-sided by default (size and
error rates from above, coverage from below) and two-sided with ``exact``; the standard error is
the binomial one at the nominal level (``std_error="nominal"``, the default of
:func:`assert_size`), the observed one of the replicates' values (``"observed"``, the default of
:func:`assert_coverage` and :func:`assert_error_rate`) or the larger of the two (``"larger"``).
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from ._checks import check_positive_int, check_probability, check_seed, show_value
from ._result import Result

__all__ = ["pvalues", "treatment_outcome", "ci_triples", "dag_frames", "assert_size", "assert_coverage",
           "assert_error_rate", "Calibration"]


# ----------------------------------------------------------------------------------------------
# hypothesis strategies
# ----------------------------------------------------------------------------------------------

def _hypothesis():
    try:
        from hypothesis import strategies as st
        from hypothesis.extra import numpy as hnp
    except ImportError:  # pragma: no cover - hypothesis is in the test extra
        raise ImportError("statcore.testing's strategies need hypothesis: pip install hypothesis") from None
    return st, hnp


def _sizes(min_size: Any, max_size: Any, lo: str = "min_size", hi: str = "max_size", minimum: int = 0):
    a = check_positive_int(min_size, lo, minimum=minimum)
    b = check_positive_int(max_size, hi, minimum=minimum)
    if b < a:
        raise ValueError(f"{hi} ({b}) must be at least {lo} ({a})")
    return a, b


def pvalues(*, min_size: int = 1, max_size: int = 50, ties: Any = (0.0, 0.01, 0.05, 1.0), nan: bool = False):
    """A hypothesis strategy for p-value vectors: uniform draws mixed with tied values and NaN.

    Parameters
    ----------
    min_size, max_size : int
        The range of the vector's length.
    ties : sequence of float in [0, 1]
        Values drawn often, so vectors hold ties and the ends 0 and 1 (empty: none).
    nan : bool
        Also draw NaN (a missing p-value, which ``p_adjust`` omits as R's ``p.adjust`` does).

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        Of float64 numpy vectors with values in [0, 1] (and NaN when ``nan``).

    References
    ----------
    MacIver, D. R., Hatfield-Dodds, Z. et al. (2019). Hypothesis: a new approach to property-based
    testing. Journal of Open Source Software 4(43), 1891.

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> import statcore as sc
    >>> @settings(max_examples=20, deadline=None)
    ... @given(pvalues(nan=True))
    ... def test_adjusted_at_least_raw(p):
    ...     keep = ~np.isnan(p)
    ...     assert np.all(sc.p_adjust(p, method="BH")[keep] >= p[keep])
    >>> test_adjusted_at_least_raw()
    """
    lo, hi = _sizes(min_size, max_size)
    tied = [float(v) for v in np.atleast_1d(np.asarray(ties, dtype=float))] if ties is not None else []
    if any(not 0.0 <= v <= 1.0 for v in tied):
        raise ValueError(f"ties must be p-values in [0, 1], got {tied}")
    if not isinstance(nan, (bool, np.bool_)):
        raise TypeError(f"nan must be True or False, got {type(nan).__name__}")
    st, hnp = _hypothesis()
    elements = st.floats(0, 1)
    if tied:
        elements = elements | st.sampled_from(tied)
    if nan:
        elements = elements | st.just(math.nan)
    return hnp.arrays(np.float64, st.integers(lo, hi), elements=elements)


def treatment_outcome(*, min_per_arm: int = 1, max_per_arm: int = 25, values: Any = None):
    """A hypothesis strategy for a two-arm study: outcomes ``y`` and a 0/1 treatment ``treat``.

    Parameters
    ----------
    min_per_arm, max_per_arm : int
        The range of each arm's size (drawn separately).
    values : hypothesis strategy of float, optional
        The outcomes' strategy (default: integers in [-5, 5], which make ties, or 32-bit floats in
        [-10, 10]).

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        Of pairs ``(y, treat)`` of float64 vectors: the treated units first (treat = 1), then the
        controls (treat = 0).

    References
    ----------
    MacIver, D. R., Hatfield-Dodds, Z. et al. (2019). Hypothesis: a new approach to property-based
    testing. Journal of Open Source Software 4(43), 1891.

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> from statcore.coupling import joint_bounds
    >>> @settings(max_examples=10, deadline=None)
    ... @given(treatment_outcome())
    ... def test_bounds_ordered(data):
    ...     y, treat = data
    ...     res = joint_bounds(y, treat, f="abs_diff", B=0)
    ...     assert res.lower <= res.upper + 1e-12
    >>> test_bounds_ordered()
    """
    lo, hi = _sizes(min_per_arm, max_per_arm, "min_per_arm", "max_per_arm", minimum=1)
    st, _ = _hypothesis()
    if values is None:
        values = st.integers(-5, 5).map(float) | st.floats(-10, 10, allow_nan=False, width=32).map(float)
    arm = st.lists(values, min_size=lo, max_size=hi)

    def build(arms):
        y1, y0 = np.asarray(arms[0], dtype=float), np.asarray(arms[1], dtype=float)
        return np.r_[y1, y0], np.r_[np.ones(y1.size), np.zeros(y0.size)]

    return st.tuples(arm, arm).map(build)


def _ci_draw(n: int, dz: int, nonlinear: bool, ties: bool, seed: int):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, dz))
    a, b = rng.normal(size=dz), rng.normal(size=dz)
    fx, fy = z @ a, z @ b
    if nonlinear:
        fx, fy = np.sin(fx), fy ** 2 / 2
    x = fx + rng.normal(size=n)
    y = fy + rng.normal(size=n)
    if ties:
        x, y = np.round(x), np.round(y)
    return x, y, (z[:, 0] if dz == 1 else z)


def ci_triples(*, min_n: int = 5, max_n: int = 60, max_dz: int = 3, nonlinear: bool = False, ties: bool = True):
    """A hypothesis strategy for conditionally independent triples ``(x, y, z)``: x independent of y given z.

    x = f(z) + e1 and y = g(z) + e2 with independent standard normal noises and f, g linear (random
    coefficients) or, with ``nonlinear``, sin and a square of linear maps; z standard normal with
    1 to ``max_dz`` columns (a vector when one). Hypothesis draws n, the dimension, whether to round
    x and y (ties) and a seed, and shrinks towards small n.

    Parameters
    ----------
    min_n, max_n : int
        The range of the number of observations.
    max_dz : int
        The largest number of columns of z.
    nonlinear : bool
        Nonlinear f and g (a test with linear regressions on z is then misspecified).
    ties : bool
        Allow rounded x and y (many ties).

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        Of tuples ``(x, y, z)`` of float64 arrays.

    References
    ----------
    Dawid, A. P. (1979). Conditional independence in statistical theory. JRSS B 41(1), 1-31.

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> from statcore import gcm_test
    >>> @settings(max_examples=10, deadline=None)
    ... @given(ci_triples(min_n=10))
    ... def test_p_value_is_a_probability(xyz):
    ...     x, y, z = xyz
    ...     if np.ptp(x) > 0 and np.ptp(y) > 0:
    ...         assert 0.0 <= gcm_test(x, y, z).p_value <= 1.0
    >>> test_p_value_is_a_probability()
    """
    lo, hi = _sizes(min_n, max_n, "min_n", "max_n", minimum=3)
    max_dz = check_positive_int(max_dz, "max_dz")
    for name, v in (("nonlinear", nonlinear), ("ties", ties)):
        if not isinstance(v, (bool, np.bool_)):
            raise TypeError(f"{name} must be True or False, got {type(v).__name__}")
    st, _ = _hypothesis()
    return st.builds(_ci_draw, st.integers(lo, hi), st.integers(1, max_dz), st.just(bool(nonlinear)),
                     st.booleans() if ties else st.just(False), st.integers(0, 2 ** 32 - 1))


def _dag_draw(p: int, n: int, density: float, seed: int):
    import pandas as pd

    rng = np.random.default_rng(seed)
    order = rng.permutation(p)
    adj = np.zeros((p, p), dtype=bool)
    for i in range(p):
        for j in range(i + 1, p):
            if rng.random() < density:
                adj[order[i], order[j]] = True
    weights = np.where(adj, rng.choice([-1.0, 1.0], size=(p, p)) * rng.uniform(0.5, 1.5, size=(p, p)), 0.0)
    data = np.zeros((n, p))
    for v in order:
        data[:, v] = data @ weights[:, v] + rng.normal(size=n)
    names = [f"v{i}" for i in range(p)]
    return pd.DataFrame(data, columns=names), pd.DataFrame(adj, index=names, columns=names)


def dag_frames(*, min_nodes: int = 3, max_nodes: int = 6, min_n: int = 50, max_n: int = 300, density: float = 0.4):
    """A hypothesis strategy for data generated by a linear Gaussian model on a random DAG.

    A random order of the nodes, each forward edge present with probability ``density`` and weight
    +-U(0.5, 1.5); each variable is the weighted sum of its parents plus standard normal noise. Any
    two nodes d-separated by a set in the DAG are conditionally independent given it in the data.

    Parameters
    ----------
    min_nodes, max_nodes : int
        The range of the number of variables (columns ``v0``, ``v1``, ...).
    min_n, max_n : int
        The range of the number of rows.
    density : float in (0, 1]
        The probability of each possible edge.

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        Of pairs ``(data, dag)``: the DataFrame and the DAG's adjacency as a boolean DataFrame
        (``dag.loc[a, b]`` True for an edge a -> b).

    References
    ----------
    Spirtes, P., Glymour, C. & Scheines, R. (2000). Causation, Prediction, and Search, 2nd ed. MIT Press
    (linear structural equation models, d-separation and the Markov property).

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> @settings(max_examples=5, deadline=None)
    ... @given(dag_frames())
    ... def test_no_cycles(frame_and_dag):
    ...     data, dag = frame_and_dag
    ...     a = dag.to_numpy().astype(int)
    ...     assert not np.trace(np.linalg.matrix_power(a + np.eye(len(a), dtype=int), len(a)) - 1)
    >>> test_no_cycles()
    """
    lo, hi = _sizes(min_nodes, max_nodes, "min_nodes", "max_nodes", minimum=2)
    nlo, nhi = _sizes(min_n, max_n, "min_n", "max_n", minimum=2)
    density = check_probability(density, "density")
    st, _ = _hypothesis()
    return st.builds(_dag_draw, st.integers(lo, hi), st.integers(nlo, nhi), st.just(density),
                     st.integers(0, 2 ** 32 - 1))


# ----------------------------------------------------------------------------------------------
# calibration checks
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True, repr=False)
class Calibration(Result):
    """The outcome of :func:`assert_size` or :func:`assert_coverage` (returned when every rate passed).

    Attributes
    ----------
    quantity : str
        "size" (rejection rates), "coverage" or "error rate" (mean errors: FDR, FWER).
    target : float
        alpha, or the nominal coverage.
    reps : int
        Monte Carlo replicates.
    rates : dict
        The rejection rate or mean coverage of each named test or interval ("value" for a single one).
    std_errors : dict
        Their Monte Carlo standard errors.
    lower, upper : dict
        The accepted range of each rate (target -+ n_se standard errors, or 0 / 1 on the open side).
    n_se : float
        The number of standard errors in the bound.
    seed : Any
        The seed given (an int, or a description).

    Examples
    --------
    >>> res = assert_size(lambda x, rng: rng.random(), lambda rng: None, alpha=0.1, reps=200, seed=3)
    >>> res.quantity, res.reps, res.to_frame().columns.tolist()
    ('size', 200, ['name', 'estimate', 'std_error', 'lower', 'upper'])
    """

    quantity: str
    target: float
    reps: int
    rates: Mapping[str, float]
    std_errors: Mapping[str, float]
    lower: Mapping[str, float]
    upper: Mapping[str, float]
    n_se: float
    seed: Any = None

    def _repr_parts(self):
        return [("quantity", self.quantity), ("target", self.target), ("reps", self.reps),
                ("rates", "{" + ", ".join(f"{k}: {v:.4g}" for k, v in self.rates.items()) + "}")]

    def summary(self) -> str:
        """One line per rate: the rate, its standard error and the accepted range."""
        name = {"size": "rejection rate", "coverage": "coverage"}.get(self.quantity, "mean error")
        head = (f"Calibration ({self.quantity}): {self.reps} seeded replicates (seed {self.seed}), target "
                f"{self.target:g}, bounds at {self.n_se:g} Monte Carlo standard errors")
        lines = [head]
        for k, r in self.rates.items():
            lines.append(f"  {k}: {name} {r:.4f} (s.e. {self.std_errors[k]:.4f}), accepted "
                         f"[{self.lower[k]:.4f}, {self.upper[k]:.4f}]")
        return "\n".join(lines)

    def to_frame(self):
        """One row per rate: ``name``, ``estimate``, ``std_error``, ``lower``, ``upper``."""
        import pandas as pd

        keys = list(self.rates)
        return pd.DataFrame({"name": keys, "estimate": [self.rates[k] for k in keys],
                             "std_error": [self.std_errors[k] for k in keys],
                             "lower": [self.lower[k] for k in keys], "upper": [self.upper[k] for k in keys]})


def _as_p(value: Any, what: str) -> float:
    for attr in ("p_value", "pvalue"):
        if hasattr(value, attr):
            value = getattr(value, attr)
            break
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise TypeError(f"{what} must return a p-value (a number, or an object with p_value), got "
                        f"{type(value).__name__}")
    if not 0.0 <= float(value) <= 1.0:  # NaN fails too: a NaN or 1.5 is never "not rejected"
        raise ValueError(f"{what} returned the p-value {float(value)!r}, which is not in [0, 1]; a test that "
                         "cannot compute its p-value must raise, not return it")
    return float(value)


def _named(out: Any, convert: Callable[[Any, str], float], what: str) -> dict:
    if isinstance(out, Mapping):
        if not out:
            raise ValueError(f"{what} returned an empty mapping")
        return {str(k): convert(v, f"{what}[{k!r}]") for k, v in out.items()}
    return {"value": convert(out, what)}


def _check_callable(f: Any, name: str) -> Callable:
    if not callable(f):
        raise TypeError(f"{name} must be callable, got {type(f).__name__}")
    return f

def _check_seeds(seeds: Any, seed: Any, reps: Any, minimum: int) -> tuple[list | None, int]:
    """``seeds`` (a sequence of per-replicate seeds) against ``seed`` and ``reps``: the seeds list and reps."""
    if seeds is None:
        return None, check_positive_int(1000 if reps is None else reps, "reps", minimum=minimum)
    if isinstance(seeds, (str, bytes, Mapping, np.random.Generator)) or not hasattr(seeds, "__iter__"):
        raise TypeError(f"seeds must be a sequence of per-replicate seeds (e.g. range(reps)), got "
                        f"{type(seeds).__name__}")
    if seed is not None:
        raise ValueError("give seed (one Generator for all replicates) or seeds (one seed per replicate), not both")
    seeds = list(seeds)
    if len(seeds) < minimum:
        raise ValueError(f"seeds must hold at least {minimum} per-replicate seed(s), got {len(seeds)}")
    if reps is not None and check_positive_int(reps, "reps", minimum=minimum) != len(seeds):
        raise ValueError(f"reps ({reps}) must equal len(seeds) ({len(seeds)}); leave reps out with seeds")
    return seeds, len(seeds)


def _replicate(fn: Callable, sampler: Callable, randomness: Any, threads: int | None) -> Any:
    if threads is None:
        return fn(sampler(randomness), randomness)
    from .utils import thread_limit

    with thread_limit(threads):
        return fn(sampler(randomness), randomness)


def _vector(raw: Any, convert, what: str, reps: int | None) -> np.ndarray:
    """One value per replicate from a vectorised call: a 1-d array of numbers, each checked as ``convert``
    checks one (the first bad one raises with its replicate number)."""
    arr = np.asarray(raw)
    if arr.ndim != 1 or arr.size < 2 or (reps is not None and arr.size != reps):
        raise ValueError(f"{what} must return one value per replicate with vectorized=True (a vector of length "
                         f"{'reps' if reps is None else reps}, at least 2), got shape {arr.shape}")
    if arr.dtype.kind not in "biuf" or (arr.dtype.kind == "b" and convert is _as_p):
        convert(arr[0].item() if arr.dtype.kind in "biuf" else arr[0], f"{what} (replicate 1)")
        raise TypeError(f"{what} must return numbers, got an array of {arr.dtype}")
    values = arr.astype(float)
    bad = np.flatnonzero(~((values >= 0.0) & (values <= 1.0)))   # NaN is bad too
    if bad.size:
        convert(float(values[bad[0]]), f"{what} (replicate {bad[0] + 1})")
    return values


def _run(fn: Callable, sampler: Callable, reps: int | None, rng: Any, seeds: list | None, n_jobs: int, convert,
         what: str, vectorized: bool = False) -> dict:
    if vectorized:  # one call: the sampler draws every replicate, the function returns a value per replicate
        raw = fn(sampler(rng), rng)
        if isinstance(raw, Mapping):
            if not raw:
                raise ValueError(f"{what} returned an empty mapping")
            values = {str(k): _vector(v, convert, f"{what}[{k!r}]", reps) for k, v in raw.items()}
            if len({v.size for v in values.values()}) > 1:
                raise ValueError(f"{what} returned vectors of different lengths {[v.size for v in values.values()]}")
            return values
        return {"value": _vector(raw, convert, what, reps)}
    if seeds is None:  # one Generator, the replicates in order
        outs = (_replicate(fn, sampler, rng, None) for _ in range(reps))
    elif n_jobs == 1:
        outs = (_replicate(fn, sampler, s, None) for s in seeds)
    else:  # independent replicates: any order, any worker, each on one thread
        from ._progress import parallel_map

        outs = parallel_map(_replicate, [(fn, sampler, s, 1) for s in seeds], n_jobs=n_jobs, progress=False)
    values: dict[str, np.ndarray] = {}
    for i, raw in enumerate(outs):
        out = _named(raw, convert, f"{what} (replicate {i + 1})")
        if i == 0:
            values = {k: np.empty(reps) for k in out}
        elif out.keys() != values.keys():
            raise ValueError(f"{what} returned the names {sorted(out)} in replicate {i + 1}, "
                             f"{sorted(values)} before; return the same names every time")
        for k, v in out.items():
            values[k][i] = v
    return values


def _seed_text(seed: Any, seeds: list | None = None) -> Any:
    if seeds is not None:
        return f"per-replicate seeds {show_value(seeds[0])}, ..., {show_value(seeds[-1])}"
    return seed if seed is None or isinstance(seed, numbers.Integral) else type(seed).__name__


_STD_ERRORS = ("nominal", "observed", "larger")


def _std_errors(values: dict, target: float, reps: int, std_error: str) -> dict:
    """The Monte Carlo standard error of each mean: binomial at the target, observed, or the larger."""
    nominal = math.sqrt(target * (1.0 - target) / reps)
    observed = {k: float(v.std(ddof=1) / math.sqrt(reps)) if reps > 1 else 0.0 for k, v in values.items()}
    if std_error == "nominal":
        return {k: nominal for k in values}
    if std_error == "observed":
        return observed
    return {k: max(nominal, observed[k]) for k in values}


def _check(quantity: str, what: str, name: str, rates: dict, target: float, reps: int, se: dict, n_se: float,
           upper_side: bool, exact: bool, std_error: str, seed_text: Any) -> Calibration:
    """The bounds (one- or two-sided), the Calibration result, or an AssertionError naming every failure."""
    low = {k: (target - n_se * se[k]) if (exact or not upper_side) else 0.0 for k in rates}
    high = {k: (target + n_se * se[k]) if (exact or upper_side) else 1.0 for k in rates}
    if quantity != "coverage":
        low = {k: max(0.0, v) for k, v in low.items()}
    res = Calibration(quantity=quantity, target=target, reps=reps, rates=rates, std_errors=se, lower=low,
                      upper=high, n_se=n_se, seed=seed_text)
    bad = [k for k in rates if not low[k] <= rates[k] <= high[k]]
    if bad:
        size = quantity == "size"
        lines = [(f"{k}: {what} {rates[k]:.4f} ({int(round(rates[k] * reps))} of {reps}) " if size else
                  f"{k}: {what} {rates[k]:.4f} over {reps} replicates ")
                 + (f"exceeds the bound {high[k]:.4f} = {name} {target:g} + {n_se:g} x s.e. {se[k]:.4f}"
                    if rates[k] > high[k] else
                    f"is below {'' if size else 'the bound '}{low[k]:.4f} = {name} {target:g} - {n_se:g} x s.e. "
                    f"{se[k]:.4f}")
                 + f" ({std_error} s.e.)" for k in bad]
        raise AssertionError(f"{quantity} check failed (seed {seed_text}):\n  " + "\n  ".join(lines))
    return res


def _common(fn: Callable, fn_name: str, sampler: Callable, sampler_name: str, reps: Any, seed: Any, seeds: Any,
            exact: Any, n_se: Any, std_error: Any, n_jobs: Any, minimum: int, vectorized: Any):
    from ._checks import check_choice, check_n_jobs

    _check_callable(fn, fn_name)
    _check_callable(sampler, sampler_name)
    if _check_flag(vectorized, "vectorized"):
        if seeds is not None:
            raise ValueError("vectorized=True draws every replicate in one call from seed's Generator: give seed, "
                             "not seeds")
        if reps is not None:
            reps = check_positive_int(reps, "reps", minimum=2)
    else:
        seeds, reps = _check_seeds(seeds, seed, reps, minimum)
    n_se = _check_n_se(n_se)
    exact = _check_flag(exact, "exact")
    std_error = check_choice(std_error, "std_error", _STD_ERRORS)
    n_jobs = check_n_jobs(n_jobs)
    if n_jobs != 1 and seeds is None:
        raise ValueError("n_jobs other than 1 needs seeds= (per-replicate seeds): the replicates of seed= draw in "
                         "order from one Generator")
    rng = check_seed(seed) if seeds is None else None
    return seeds, reps, n_se, exact, std_error, n_jobs, rng


def assert_size(test: Callable, null_sampler: Callable, *, alpha: float = 0.05, reps: int | None = None,
                seed: Any = None, seeds: Any = None, exact: bool = False, n_se: float = 3.0,
                std_error: str = "nominal", n_jobs: int = 1, vectorized: bool = False) -> Calibration:
    """Check by seeded Monte Carlo that a test's rejection rate under the null is at most alpha.

    Each of ``reps`` replicates draws ``data = null_sampler(rng)`` and computes ``test(data, rng)``;
    the rejection rate is the share of p-values at or below ``alpha``. The randomness ``rng`` is
    either the one Generator built from ``seed``, shared by all replicates in order, or, with
    ``seeds``, replicate i's own seed ``seeds[i]`` handed as it is to both callables (each builds
    its randomness from it: ``np.random.default_rng(s)``, or a statcore function's ``seed=s``), so
    a loop that seeded each replicate by hand keeps its draws exactly.

    The bound is one-sided by default: the check fails when the rate exceeds alpha + ``n_se``
    standard errors; with ``exact`` it is two-sided and also fails below alpha - ``n_se`` s.e. (a
    test meant to hold its level exactly, not conservatively). The standard error is, with
    ``std_error="nominal"`` (the default), the binomial sqrt(alpha (1 - alpha) / reps) computed at
    the nominal level, not at the observed rate; ``"observed"`` uses the sample standard deviation
    of the replicates' rejections over sqrt(reps), and ``"larger"`` the larger of the two.

    Parameters
    ----------
    test : callable
        ``test(data, rng)`` returning a p-value, an object with ``p_value`` (an ``HTest``) or
        ``pvalue`` (scipy), or a dict of them (several tests or rules on the same draws, each checked).
    null_sampler : callable
        ``null_sampler(rng)`` returning one data set drawn under the null hypothesis.
    alpha : float in (0, 1)
        The level.
    reps : int, optional
        Monte Carlo replicates (1000 by default; ``len(seeds)`` with ``seeds``; the length of the
        returned vector with ``vectorized``).
    seed : None, int or numpy.random.Generator
        The randomness of the samplers and of the tests: one Generator for all replicates.
    seeds : sequence, optional
        One seed per replicate in place of ``seed`` (an int, a list of ints, a ``SeedSequence``:
        anything the callables build their randomness from); the replicates are then independent
        of each other and of their order.
    exact : bool
        Two-sided: also fail on a rate below alpha - ``n_se`` s.e.
    n_se : float
        Standard errors in the bound (3 by default, the project's rule).
    std_error : {"nominal", "observed", "larger"}
        The Monte Carlo standard error of the rate (above).
    n_jobs : int
        Workers for the replicates (joblib's convention; other than 1 only with ``seeds``), each
        on one thread.
    vectorized : bool
        One call for all replicates (a simulation computed as arrays): ``null_sampler(rng)`` draws
        every data set and ``test(data, rng)`` returns a vector of p-values, one per replicate (or
        a dict of vectors); ``reps`` is its length. The draws are those of the vectorised code.

    Returns
    -------
    Calibration
        The rates, standard errors and bounds (when every rate passed).

    Raises
    ------
    AssertionError
        A rate outside its bound, with the rate, its standard error, the bound and the seed.

    References
    ----------
    Morris, T. P., White, I. R. & Crowther, M. J. (2019). Using simulation studies to evaluate
    statistical methods. Statistics in Medicine 38(11), 2074-2102 (Monte Carlo standard errors).

    Examples
    --------
    >>> from scipy import stats
    >>> res = assert_size(lambda x, rng: stats.ttest_1samp(x, 0.0), lambda rng: rng.normal(size=20),
    ...                   alpha=0.05, reps=400, seed=1, exact=True)
    >>> round(res.rates["value"], 4), round(res.std_errors["value"], 4)
    (0.0425, 0.0109)

    One seed per replicate (replicate i draws its data from ``default_rng(i)``):

    >>> res = assert_size(lambda x, s: stats.ttest_1samp(x, 0.0),
    ...                   lambda s: np.random.default_rng(s).normal(size=20), alpha=0.05, seeds=range(400))
    >>> res.reps, round(res.upper["value"], 4)
    (400, 0.0827)
    """
    alpha = check_probability(alpha, "alpha", open_right=True)
    seeds, reps, n_se, exact, std_error, n_jobs, rng = _common(test, "test", null_sampler, "null_sampler", reps,
                                                               seed, seeds, exact, n_se, std_error, n_jobs, 1,
                                                               vectorized)
    p = _run(test, null_sampler, reps, rng, seeds, n_jobs, _as_p, "test", vectorized)
    reps = len(next(iter(p.values())))
    rejected = {k: (v <= alpha).astype(float) for k, v in p.items()}
    rates = {k: float(v.mean()) for k, v in rejected.items()}
    se = _std_errors(rejected, alpha, reps, std_error)
    return _check("size", "rejection rate", "alpha", rates, alpha, reps, se, n_se, True, exact, std_error,
                  _seed_text(seed, seeds))


def _as_coverage(value: Any, what: str) -> float:
    if isinstance(value, (bool, np.bool_)):
        return float(value)
    if not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise TypeError(f"{what} must return True/False (covered or not) or a coverage in [0, 1], got "
                        f"{type(value).__name__}")
    if not 0.0 <= float(value) <= 1.0:  # NaN fails too
        raise ValueError(f"{what} returned the coverage {float(value)}, which is not in [0, 1] (True/False or a "
                         "fraction of points covered)")
    return float(value)


def _as_error(value: Any, what: str) -> float:
    if isinstance(value, (bool, np.bool_)):
        return float(value)
    if not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise TypeError(f"{what} must return True/False (an error or not) or an error proportion in [0, 1] "
                        f"(a false discovery proportion), got {type(value).__name__}")
    if not 0.0 <= float(value) <= 1.0:  # NaN fails too
        raise ValueError(f"{what} returned the error {float(value)}, which is not in [0, 1] (True/False or a "
                         "proportion such as a false discovery proportion)")
    return float(value)


def _check_n_se(n_se: Any) -> float:
    if isinstance(n_se, bool) or not isinstance(n_se, numbers.Real) or not math.isfinite(n_se) or n_se <= 0:
        raise ValueError(f"n_se must be a positive number of standard errors, got {n_se!r}")
    return float(n_se)


def _check_flag(v: Any, name: str) -> bool:
    if not isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(v).__name__}")
    return bool(v)


def assert_coverage(covers: Callable, sampler: Callable, *, conf_level: float = 0.95, reps: int | None = None,
                    seed: Any = None, seeds: Any = None, exact: bool = False, n_se: float = 3.0,
                    std_error: str = "observed", n_jobs: int = 1, vectorized: bool = False) -> Calibration:
    """Check by seeded Monte Carlo that an interval (or set) covers at least ``conf_level``.

    Each of ``reps`` replicates draws ``data = sampler(rng)`` and computes ``covers(data, rng)``:
    True/False (the interval covered the truth) or a coverage fraction in [0, 1] (the share of test
    points a prediction set covered). ``rng`` is the one Generator from ``seed`` or, with ``seeds``,
    replicate i's own seed handed as it is to both callables (as in :func:`assert_size`).

    The bound is one-sided by default: the mean coverage fails the check when it is below
    ``conf_level`` - ``n_se`` standard errors; with ``exact`` it is two-sided and also fails above
    ``conf_level`` + ``n_se`` s.e. (a method whose coverage is exactly its level). The standard
    error is, with ``std_error="observed"`` (the default), the sample standard deviation of the
    replicates' coverages over sqrt(reps); with ``"nominal"`` the binomial
    sqrt(conf_level (1 - conf_level) / reps) computed at the nominal level (for True/False
    coverages), and with ``"larger"`` the larger of the two.

    Parameters
    ----------
    covers : callable
        ``covers(data, rng)`` returning a bool or a coverage in [0, 1], or a dict of them (several
        intervals on the same draws, each checked).
    sampler : callable
        ``sampler(rng)`` returning one data set (with whatever truth ``covers`` compares with).
    conf_level : float in (0, 1)
        The nominal coverage (or the exact coverage expected, with ``exact``).
    reps : int, optional
        Monte Carlo replicates (1000 by default; ``len(seeds)`` with ``seeds``; the length of the
        returned vector with ``vectorized``).
    seed : None, int or numpy.random.Generator
        The randomness of the samplers and of the intervals: one Generator for all replicates.
    seeds : sequence, optional
        One seed per replicate in place of ``seed``, handed as it is to ``sampler`` and ``covers``.
    exact : bool
        Two-sided: also fail on a coverage above ``conf_level`` + ``n_se`` s.e.
    n_se : float
        Standard errors in the bound (3 by default).
    std_error : {"observed", "nominal", "larger"}
        The Monte Carlo standard error of the mean coverage (above).
    n_jobs : int
        Workers for the replicates (other than 1 only with ``seeds``), each on one thread.
    vectorized : bool
        One call for all replicates: ``sampler(rng)`` draws every data set and ``covers(data, rng)``
        returns a vector of coverages, one per replicate (or a dict of vectors); ``reps`` is its length.

    Returns
    -------
    Calibration
        The coverages, standard errors and bounds (when every coverage passed).

    Raises
    ------
    AssertionError
        A coverage outside its bound, with the coverage, its standard error, the bound and the seed.

    References
    ----------
    Morris, T. P., White, I. R. & Crowther, M. J. (2019). Using simulation studies to evaluate
    statistical methods. Statistics in Medicine 38(11), 2074-2102 (Monte Carlo standard errors).

    Examples
    --------
    >>> from scipy import stats
    >>> def t_interval_covers(x, rng):
    ...     lo, hi = stats.t.interval(0.9, x.size - 1, loc=x.mean(), scale=stats.sem(x))
    ...     return lo <= 0.0 <= hi
    >>> res = assert_coverage(t_interval_covers, lambda rng: rng.normal(size=15), conf_level=0.9,
    ...                       reps=300, seed=2)
    >>> res.rates["value"] > 0.85
    True

    The bound of the nominal binomial standard error, 0.9 - 3 sqrt(0.9 x 0.1 / 300):

    >>> res = assert_coverage(t_interval_covers, lambda rng: rng.normal(size=15), conf_level=0.9,
    ...                       reps=300, seed=2, std_error="nominal")
    >>> round(res.lower["value"], 4)
    0.848
    """
    conf_level = check_probability(conf_level, "conf_level", open_right=True)
    seeds, reps, n_se, exact, std_error, n_jobs, rng = _common(covers, "covers", sampler, "sampler", reps, seed,
                                                               seeds, exact, n_se, std_error, n_jobs, 2, vectorized)
    cov = _run(covers, sampler, reps, rng, seeds, n_jobs, _as_coverage, "covers", vectorized)
    reps = len(next(iter(cov.values())))
    rates = {k: float(v.mean()) for k, v in cov.items()}
    se = _std_errors(cov, conf_level, reps, std_error)
    return _check("coverage", "coverage", "conf_level", rates, conf_level, reps, se, n_se, False, exact,
                  std_error, _seed_text(seed, seeds))


def assert_error_rate(error: Callable, sampler: Callable, *, alpha: float = 0.05, reps: int | None = None,
                      seed: Any = None, seeds: Any = None, exact: bool = False, n_se: float = 3.0,
                      std_error: str = "observed", n_jobs: int = 1, vectorized: bool = False) -> Calibration:
    """Check by seeded Monte Carlo that a mean error rate (an FDR, a FWER) is at most alpha.

    Each of ``reps`` replicates draws ``data = sampler(rng)`` and computes ``error(data, rng)``:
    the replicate's error, a proportion in [0, 1] (the false discovery proportion of a selection,
    whose mean over replicates estimates the FDR) or True/False (any false rejection: the FWER).
    ``rng`` is the one Generator from ``seed`` or, with ``seeds``, replicate i's own seed handed as
    it is to both callables (as in :func:`assert_size`).

    The bound is one-sided by default: the mean error fails the check when it exceeds alpha +
    ``n_se`` standard errors; with ``exact`` it is two-sided and also fails below alpha - ``n_se``
    s.e. The standard error is, with ``std_error="observed"`` (the default: a false discovery
    proportion is not a 0/1 draw), the sample standard deviation of the replicates' errors over
    sqrt(reps); with ``"nominal"`` the binomial sqrt(alpha (1 - alpha) / reps) computed at the
    nominal level (for True/False errors), and with ``"larger"`` the larger of the two.

    Parameters
    ----------
    error : callable
        ``error(data, rng)`` returning a proportion in [0, 1] or a bool, or a dict of them (several
        rules on the same draws, each checked).
    sampler : callable
        ``sampler(rng)`` returning one data set (with the truth that ``error`` compares with).
    alpha : float in (0, 1)
        The error rate to control (or the exact rate expected, with ``exact``).
    reps : int, optional
        Monte Carlo replicates (1000 by default; ``len(seeds)`` with ``seeds``; the length of the
        returned vector with ``vectorized``).
    seed : None, int or numpy.random.Generator
        The randomness of the samplers and of the rules: one Generator for all replicates.
    seeds : sequence, optional
        One seed per replicate in place of ``seed``, handed as it is to ``sampler`` and ``error``.
    exact : bool
        Two-sided: also fail on a mean error below alpha - ``n_se`` s.e.
    n_se : float
        Standard errors in the bound (3 by default).
    std_error : {"observed", "nominal", "larger"}
        The Monte Carlo standard error of the mean error (above).
    n_jobs : int
        Workers for the replicates (other than 1 only with ``seeds``), each on one thread.
    vectorized : bool
        One call for all replicates: ``sampler(rng)`` draws every data set and ``error(data, rng)``
        returns a vector of errors, one per replicate (or a dict of vectors); ``reps`` is its length.

    Returns
    -------
    Calibration
        The mean errors, standard errors and bounds (when every rate passed).

    Raises
    ------
    AssertionError
        A mean error outside its bound, with the rate, its standard error, the bound and the seed.

    References
    ----------
    Benjamini, Y. & Hochberg, Y. (1995). Controlling the false discovery rate: a practical and
    powerful approach to multiple testing. Journal of the Royal Statistical Society B 57(1), 289-300.
    Morris, T. P., White, I. R. & Crowther, M. J. (2019). Using simulation studies to evaluate
    statistical methods. Statistics in Medicine 38(11), 2074-2102 (Monte Carlo standard errors).

    Examples
    --------
    >>> import statcore as sc
    >>> from scipy import stats
    >>> def draw(rng):
    ...     signal = rng.random(200) < 0.2
    ...     z = rng.normal(size=200) + 3.0 * signal
    ...     return sc.p_adjust(stats.norm.sf(z), method="BH"), signal
    >>> def fdp(data, rng):
    ...     q, signal = data
    ...     selected = q <= 0.1
    ...     return (selected & ~signal).sum() / max(selected.sum(), 1)
    >>> res = assert_error_rate(fdp, draw, alpha=0.1, reps=200, seed=4)
    >>> res.quantity, res.rates["value"] < 0.1
    ('error rate', True)
    """
    alpha = check_probability(alpha, "alpha", open_right=True)
    seeds, reps, n_se, exact, std_error, n_jobs, rng = _common(error, "error", sampler, "sampler", reps, seed,
                                                               seeds, exact, n_se, std_error, n_jobs, 2, vectorized)
    err = _run(error, sampler, reps, rng, seeds, n_jobs, _as_error, "error", vectorized)
    reps = len(next(iter(err.values())))
    rates = {k: float(v.mean()) for k, v in err.items()}
    se = _std_errors(err, alpha, reps, std_error)
    return _check("error rate", "mean error", "alpha", rates, alpha, reps, se, n_se, True, exact, std_error,
                  _seed_text(seed, seeds))
