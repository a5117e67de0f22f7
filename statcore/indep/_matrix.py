"""All pairwise independence tests among the columns (or column groups) of a data matrix, with
multiplicity control: ``independence_matrix`` and its result ``IndependenceMatrix``."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np

from .._checks import (apply_nan_policy, as_column_groups, as_float_array, check_choice, check_n_jobs,
                       check_nan_policy, check_positive_int, check_probability, check_seed, column_labels)
from .._checks import check_progress, show_value
from .._checks.public import public_function
from .._progress import parallel_map
from .._resampling import root_seed, spawn_seeds
from .._r.rformat import R_DIGITS, format_table, strwrap
from .._result import HTest, Result

__all__ = ["independence_matrix", "IndependenceMatrix"]

_TESTS = ("dcor", "hsic")
#: the estimate each built-in test reports first, by the name its HTest gives it
_ESTIMATE_KEYS = ("dCor", "Bias corrected dcor", "HSIC", "dHSIC")
#: arguments independence_matrix sets itself when it calls a test
_SET_HERE = ("x", "y", "seed", "nan_policy")


@dataclass(frozen=True, eq=False, repr=False)
class IndependenceMatrix(Result):
    """All pairwise independence tests among the variables of a data set (:func:`independence_matrix`).

    Attributes
    ----------
    names : tuple
        The variables (column labels, or group names when ``groups`` was given), in order.
    statistic, estimate, p_values, p_adjusted : numpy.ndarray, shape (k, k)
        Symmetric matrices of the test statistics, the dependence estimates (dCor for
        ``test="dcor"``, HSIC for ``test="hsic"``; NaN everywhere when a callable test reports no
        estimate), the raw p-values and the p-values adjusted by ``p_adjust`` over the k(k-1)/2
        pairs. The diagonal is NaN: a variable is not tested against itself.
    significant : numpy.ndarray of bool, shape (k, k)
        ``p_adjusted <= alpha`` (False on the diagonal).
    tests : tuple of HTest
        The test of every pair, in the order of :meth:`to_frame` (None for a callable test that
        returned a bare p-value).
    test, method : str
        The test asked for and the ``method`` line of its HTest.
    p_adjust : str
        The adjustment method (``statcore.p_adjust``'s names; "none" for none).
    alpha : float
        The level at which ``significant`` is read.
    n : int
        Observations used (after ``nan_policy="omit"``).
    groups : dict
        Variable name -> tuple of the column labels it holds.
    data_name : str
        A description of the data, for the printout.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import statcore
    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(size=150)
    >>> df = pd.DataFrame({"a": a, "b": a ** 2 + 0.3 * rng.normal(size=150), "c": rng.normal(size=150)})
    >>> res = statcore.independence_matrix(df, test="dcor", B=199, seed=1)
    >>> res
    IndependenceMatrix(variables=3, pairs=3, significant=1, n=150, test='dcor', p_adjust='BH')
    >>> res.to_frame()[["var1", "var2", "significant"]]
      var1 var2  significant
    0    a    b         True
    1    a    c        False
    2    b    c        False
    """

    names: tuple
    statistic: np.ndarray
    estimate: np.ndarray
    p_values: np.ndarray
    p_adjusted: np.ndarray
    significant: np.ndarray
    tests: tuple
    test: str
    method: str
    p_adjust: str
    alpha: float
    n: int
    groups: Mapping
    data_name: str

    @property
    def pairs(self) -> list:
        """The (var1, var2) pairs in the order of ``tests`` and :meth:`to_frame`."""
        k = len(self.names)
        return [(self.names[i], self.names[j]) for i in range(k) for j in range(i + 1, k)]

    def matrix(self, value: str = "estimate"):
        """One of the (k, k) matrices as a labelled pandas DataFrame.

        Parameters
        ----------
        value : {"estimate", "statistic", "p_value", "p_adjusted", "significant"}
            Which matrix.

        Returns
        -------
        pandas.DataFrame
        """
        import pandas as pd

        value = check_choice(value, "value", ("estimate", "statistic", "p_value", "p_adjusted", "significant"))
        arr = {"estimate": self.estimate, "statistic": self.statistic, "p_value": self.p_values,
               "p_adjusted": self.p_adjusted, "significant": self.significant}[value]
        names = list(self.names)
        return pd.DataFrame(np.array(arr), index=names, columns=names)

    def to_frame(self):
        """One row per pair: ``var1``, ``var2``, ``statistic``, ``estimate``, ``p_value``,
        ``p_adjusted``, ``significant``."""
        import pandas as pd

        k = len(self.names)
        iu = np.triu_indices(k, 1)
        return pd.DataFrame({"var1": [self.names[i] for i in iu[0]], "var2": [self.names[j] for j in iu[1]],
                             "statistic": self.statistic[iu], "estimate": self.estimate[iu],
                             "p_value": self.p_values[iu], "p_adjusted": self.p_adjusted[iu],
                             "significant": self.significant[iu]})

    def summary(self, *, digits: int = R_DIGITS, max_print: int = 45) -> str:
        """The printout: the test, the adjustment and level, then one row per pair (most dependent
        first), at most ``max_print`` rows."""
        k = len(self.names)
        n_pairs = k * (k - 1) // 2
        lines = ["", "\tPairwise tests of independence", ""]
        lines += strwrap(f"test: {self.method}")
        lines.append(f"data:  {self.data_name}, {k} variables, n = {self.n}")
        adj = "no adjustment" if self.p_adjust == "none" else f"p-values adjusted by {self.p_adjust}"
        lines.append(f"{adj} over {n_pairs} pairs; alpha = {self.alpha:g}: "
                     f"{int(self.significant[np.triu_indices(k, 1)].sum())} significant")
        frame = self.to_frame()
        order = np.lexsort((-frame["statistic"].to_numpy(), frame["p_adjusted"].to_numpy()))
        shown = frame.iloc[order[:max_print]]
        cols = {"var1": [str(v) for v in shown["var1"]], "var2": [str(v) for v in shown["var2"]],
                "statistic": shown["statistic"].tolist()}
        if not np.all(np.isnan(self.estimate[np.triu_indices(k, 1)])):
            cols["estimate"] = shown["estimate"].tolist()
        cols["p.value"] = shown["p_value"].tolist()
        cols["p.adjusted"] = shown["p_adjusted"].tolist()
        cols[" "] = ["*" if s else "" for s in shown["significant"]]
        lines += ["", format_table([str(i + 1) for i in range(len(shown))], cols, digits=digits)]
        if len(frame) > max_print:
            lines.append(f" ... {len(frame) - max_print} more pairs; see to_frame()")
        lines.append("")
        return "\n".join(lines) + "\n"

    def _repr_parts(self):
        k = len(self.names)
        return [("variables", k), ("pairs", k * (k - 1) // 2),
                ("significant", int(self.significant[np.triu_indices(k, 1)].sum())), ("n", self.n),
                ("test", self.test), ("p_adjust", self.p_adjust)]

    def _plot(self, ax=None, value: str = "estimate", cmap: str = "viridis", annotate: bool | None = None,
              mark: str = "*"):
        """A heat map of ``value`` ("estimate", "statistic", or "p_adjusted"/"p_value" drawn as
        -log10 p) with the significant pairs marked by ``mark``; annotated with the values when
        ``annotate`` (default: k <= 12). Returns the Axes."""
        import matplotlib.pyplot as plt

        value = check_choice(value, "value", ("estimate", "statistic", "p_value", "p_adjusted"))
        k = len(self.names)
        arr = np.array(self.matrix(value).to_numpy(), dtype=float)
        label = value
        if value in ("p_value", "p_adjusted"):
            arr = -np.log10(np.clip(arr, 1e-300, 1.0))
            label = f"-log10 {value}"
        elif np.all(np.isnan(arr[np.triu_indices(k, 1)])):
            raise ValueError("the test reported no estimate; plot value='statistic' or 'p_adjusted'")
        if ax is None:
            size = min(2.0 + 0.55 * k, 14.0)
            fig, ax = plt.subplots(figsize=(size + 1.2, size))
        img = ax.imshow(np.ma.masked_invalid(arr), cmap=cmap, interpolation="nearest")
        ax.figure.colorbar(img, ax=ax, fraction=0.046, pad=0.04, label=label)
        ax.set_xticks(range(k), [str(v) for v in self.names], rotation=60, ha="right")
        ax.set_yticks(range(k), [str(v) for v in self.names])
        if annotate is None:
            annotate = k <= 12
        finite = arr[np.isfinite(arr)]
        mid = (finite.min() + finite.max()) / 2 if finite.size else 0.0
        for i in range(k):
            for j in range(k):
                if i == j:
                    continue
                txt = (f"{arr[i, j]:.2g}" if annotate else "") + (mark if self.significant[i, j] else "")
                if txt:
                    ax.text(j, i, txt, ha="center", va="center", fontsize=8,
                            color="black" if arr[i, j] > mid else "white")
        adj = "" if self.p_adjust == "none" else f", {self.p_adjust}-adjusted"
        ax.set_title(f"{self.test}: {mark} p <= {self.alpha:g}{adj}", fontsize=10)
        return ax


def _builtin(test: str):
    if test == "dcor":
        from ._dcor import dcor_test
        return dcor_test
    from ._hsic import hsic_test
    return hsic_test


def _estimate_of(res) -> float:
    if not isinstance(res, HTest) or not res.estimate:
        return math.nan
    for key in _ESTIMATE_KEYS:
        if key in res.estimate:
            return float(res.estimate[key])
    if len(res.estimate) == 1:
        return float(next(iter(res.estimate.values())))
    return math.nan


class _PairTester:
    """Runs the test of one pair of variables; seeds derive from the root ``SeedSequence`` and the pair
    (``spawn_seeds(root, 1, key=(i, j))``, the resampling engine's rule), so the
    answer does not depend on ``n_jobs`` or the order of the pairs. Picklable for joblib."""

    def __init__(self, values, cols, test, test_args, root, builtin: bool):
        self.values, self.cols, self.test = values, cols, test
        self.args, self.root, self.builtin = dict(test_args), root, builtin

    def run(self, i: int, j: int):
        x = self.values[:, self.cols[i]]
        y = self.values[:, self.cols[j]]
        rng = np.random.default_rng(spawn_seeds(self.root, 1, key=(i, j))[0])
        res = self.test(x, y, seed=rng, **self.args) if self.builtin else self.test(x, y, **self.args)
        if isinstance(res, HTest):
            return res, float(res.statistic) if res.statistic is not None else math.nan, float(res.p_value)
        try:
            p = float(res)
        except (TypeError, ValueError):
            raise TypeError(f"test must return an HTest or a p-value; it returned {type(res).__name__}") from None
        return None, math.nan, p

    def run_many(self, pairs):
        return [self.run(i, j) for i, j in pairs]


@public_function(data=("data",), nan_policy=("raise", "omit"))
def independence_matrix(data, *, test: str | Callable = "dcor", groups: Mapping | None = None,
                        p_adjust: str = "BH", alpha: float = 0.05, B: int = 999, seed=None, n_jobs: int = 1,
                        nan_policy: str = "raise", progress: bool | None = None,
                        **test_args) -> IndependenceMatrix:
    """Test every pair of variables (columns, or groups of columns) for independence, with
    multiplicity control.

    The k(k-1)/2 pairwise tests are run with the chosen test; their p-values are adjusted together
    by :func:`statcore.p_adjust` (Benjamini-Hochberg by default, controlling the false discovery
    rate over the pairs; ``"holm"`` controls the family-wise error rate). This answers "which
    variables depend on which", for example how independent the latent features of a network are.
    Pairwise independence does not imply joint (mutual) independence: use
    :func:`statcore.dhsic_test` for the joint hypothesis.

    Parameters
    ----------
    data : pandas DataFrame or 2-d array, shape (n, p)
        Observations in rows. Column labels (``V1, ..., Vp`` for an array) name the variables,
        unless ``groups`` is given. No infinite values; NaN as ``nan_policy`` says.
    test : {"dcor", "hsic"} or callable
        ``"dcor"``: :func:`statcore.dcor_test` (distance correlation; a permutation test by default,
        ``method="t"`` for the t-test of Szekely & Rizzo 2013). ``"hsic"``:
        :func:`statcore.hsic_test` (gamma approximation by default). A callable is called as
        ``test(x, y, **test_args)`` with two (n, p_i) float arrays and returns an
        :class:`~statcore.HTest` or a p-value; it draws its own randomness (pass ``seed`` in
        ``test_args`` if it takes one).
    groups : mapping, optional
        Variable name -> list of columns (labels of a DataFrame, integer positions of an array):
        each variable is then the multivariate sample of its columns. Only the listed columns are
        used; groups must not share columns.
    p_adjust : str
        The multiplicity adjustment over the pairs: any method of :func:`statcore.p_adjust`
        ("BH", "holm", "bonferroni", "BY", ...), or "none".
    alpha : float in (0, 1]
        The level at which ``significant`` is read off the adjusted p-values.
    B : int
        Permutation replicates of the built-in tests (where their method uses them).
    seed : None, int or numpy.random.Generator
        Randomness of the built-in tests: each pair draws from a stream derived from this seed and
        its two variables, so the result does not depend on ``n_jobs``.
    n_jobs : int
        joblib workers over the pairs (1 serial, -1 all cores).
    nan_policy : {"raise", "omit"}
        "raise" (default): a NaN in a used column is an error. "omit": rows with a NaN in any used
        column are dropped before any test (listwise deletion, so every pair sees the same rows).
    progress : bool, optional
        A progress bar (tqdm) counting tested pairs as they finish (per batch of pairs when
        ``n_jobs != 1``, also on a Dask cluster). Default (None): only when standard error is a
        terminal.
    **test_args
        Passed to the test, e.g. ``method="t"`` for dcor, ``method="permutation"`` or
        ``kernel="laplace"`` for hsic, ``index=0.5``.

    Returns
    -------
    IndependenceMatrix
        The statistic, estimate, raw and adjusted p-value matrices, ``significant``, every test,
        ``to_frame()`` (one row per pair), ``matrix(value)`` and a heat map ``plot()``.

    References
    ----------
    Szekely, G. J., Rizzo, M. L. and Bakirov, N. K. (2007). Measuring and testing dependence by
    correlation of distances. Annals of Statistics 35, 2769-2794.
    Gretton, A. et al. (2008). A kernel statistical test of independence. NIPS 20.
    Benjamini, Y. and Hochberg, Y. (1995). Controlling the false discovery rate. JRSS-B 57, 289-300.

    Examples
    --------
    >>> import numpy as np
    >>> import statcore
    >>> rng = np.random.default_rng(3)
    >>> z = rng.normal(size=(200, 3))
    >>> x = np.column_stack([z, np.sin(2 * z[:, 0]) + 0.2 * rng.normal(size=200)])
    >>> res = statcore.independence_matrix(x, test="dcor", method="t")
    >>> sig = res.matrix("significant")
    >>> bool(sig.loc["V1", "V4"]), bool(sig.loc["V2", "V3"])
    (True, False)
    """
    from ..multitest import p_adjust as _p_adjust, p_adjust_methods
    from ..multitest._padjust import _ALIASES

    if data is None:
        raise TypeError("data must be a 2-d array or a pandas DataFrame, got None")
    nan_policy = check_nan_policy(nan_policy, ("raise", "omit"))
    is_frame = hasattr(data, "columns")
    values = as_float_array(data, "data", ndim=2, allow_nan=True)
    labels = column_labels(data)
    p = values.shape[1]
    if groups is None:
        names, cols = list(labels), [np.array([j], dtype=np.int64) for j in range(p)]
        if len(set(map(str, names))) != len(names):
            raise ValueError("data has duplicated column labels; rename them or pass groups")
        if p < 2:
            raise ValueError(f"data must have at least two columns (variables), got {p}")
    else:
        names, cols = as_column_groups(groups, labels, is_frame)
    used = np.concatenate(cols)
    kept = apply_nan_policy(nan_policy, data=values[:, used]).keep if values.size else None
    if kept is not None:
        values = values[kept]
    n = values.shape[0]
    if n < 4:
        raise ValueError(f"data must have at least 4 rows (observations), got {n}")
    constant = [str(nm) for nm, cl in zip(names, cols) if np.all(values[:, cl] == values[:1, cl])]
    if constant:
        raise ValueError(f"data: the variable{'s' if len(constant) > 1 else ''} {', '.join(map(repr, constant))} "
                         f"{'are' if len(constant) > 1 else 'is'} constant (all observations equal): no dependence "
                         "can be tested with a constant (R's tests give p-value NA); drop "
                         f"{'them' if len(constant) > 1 else 'it'} from data")
    if callable(test):
        builtin = False
        label = getattr(test, "__name__", "callable")
    else:
        test = check_choice(test, "test", _TESTS)
        builtin, label = True, test
    clash = [a for a in _SET_HERE if a in test_args and builtin]
    if clash:
        raise TypeError(f"{clash[0]} is set by independence_matrix for every pair; do not pass it in test_args")
    p_adjust_name = check_choice(p_adjust, "p_adjust", p_adjust_methods, _ALIASES)
    alpha = check_probability(alpha, "alpha")  # (0, 1], as documented
    if builtin:
        B = check_positive_int(B, "B")
    n_jobs = check_n_jobs(n_jobs)
    progress = check_progress(progress)
    rng = check_seed(seed)
    root = root_seed(rng)
    k = len(names)
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    args = dict(test_args)
    if builtin:
        args.setdefault("B", B)
        fn = _builtin(test)
    else:
        fn = test
    tester = _PairTester(values, cols, fn, args, root, builtin)
    if n_jobs == 1 or len(pairs) < 2:
        bounds = [(a, a + 1) for a in range(len(pairs))]
    else:
        from joblib import effective_n_jobs

        n_batches = min(len(pairs), 4 * effective_n_jobs(n_jobs))
        cuts = np.linspace(0, len(pairs), n_batches + 1).astype(int)
        bounds = [(a, b) for a, b in zip(cuts[:-1], cuts[1:]) if b > a]
    parts = parallel_map(tester.run_many, [(pairs[a:b],) for a, b in bounds], n_jobs=n_jobs, progress=progress,
                         desc="pairs", unit="pair", weights=[b - a for a, b in bounds])
    results = [r for part in parts for r in part]
    stat = np.full((k, k), np.nan)
    est = np.full((k, k), np.nan)
    pv = np.full((k, k), np.nan)
    tests = []
    for (i, j), (res, s, pval) in zip(pairs, results):
        if not (0.0 <= pval <= 1.0):
            raise ValueError(f"the test of {show_value(names[i])} and {show_value(names[j])} returned the p-value {show_value(pval)}, "
                             "which is not in [0, 1]")
        stat[i, j] = stat[j, i] = s
        est[i, j] = est[j, i] = _estimate_of(res)
        pv[i, j] = pv[j, i] = pval
        tests.append(res)
    iu = np.triu_indices(k, 1)
    padj = np.full((k, k), np.nan)
    padj[iu] = _p_adjust(pv[iu], method=p_adjust_name, alpha=alpha)
    padj.T[iu] = padj[iu]
    sig = np.zeros((k, k), dtype=bool)
    sig[iu] = padj[iu] <= alpha
    sig = sig | sig.T
    first = next((t for t in tests if t is not None), None)
    method = first.method if first is not None else label
    grp = {nm: tuple(labels[c] for c in cl) for nm, cl in zip(names, cols)}
    data_name = "data" if not is_frame else "data frame"
    return IndependenceMatrix(names=tuple(names), statistic=stat, estimate=est, p_values=pv, p_adjusted=padj,
                              significant=sig, tests=tuple(tests), test=label, method=method,
                              p_adjust=p_adjust_name, alpha=alpha, n=int(n), groups=grp, data_name=data_name)
