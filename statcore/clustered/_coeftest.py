"""t tests of a linear model's coefficients with a cluster-robust covariance (clubSandwich's
``coef_test``): Satterthwaite degrees of freedom (Pustejovsky & Tipton 2018), residual or normal."""
from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .._checks import as_cluster_codes, as_linear_fit, check_choice, public_function
from .._r.rformat import format_numbers, format_pval
from .._result import Result
from ._vcov import KINDS, ClusterVcov, _make_vcov, satterthwaite_df

__all__ = ["coef_test", "CoefTest"]

_DF_LABEL = {"satterthwaite": "Satt", "residual": "resid", "normal": "z", "user": "user"}


@dataclass(frozen=True, repr=False)
class CoefTest(Result):
    """Per-coefficient tests with a robust covariance (clubSandwich's ``coef_test`` table).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per coefficient: ``estimate``, ``std_error``, ``statistic`` (estimate / std_error),
        ``df`` and ``p_value`` (two-sided).
    kind : str
        The covariance ("CR0", "CR1", "CR2", "CR3" or "user" for a matrix passed in).
    df_method : str
        "satterthwaite", "residual", "normal" or "user" (a number).

    Examples
    --------
    >>> import numpy as np, statsmodels.api as sm
    >>> from statcore import coef_test
    >>> rng = np.random.default_rng(0)
    >>> g = np.repeat(np.arange(6), 4)
    >>> X = sm.add_constant(rng.normal(size=24))
    >>> res = coef_test(sm.OLS(X @ [1.0, 2.0] + rng.normal(size=24), X).fit(), vcov="CR2", cluster=g)
    >>> res.table.columns.tolist()
    ['estimate', 'std_error', 'statistic', 'df', 'p_value']
    """

    table: Any
    kind: str
    df_method: str

    def _repr_parts(self):
        return [("kind", self.kind), ("df_method", self.df_method), ("n_coef", len(self.table))]

    @property
    def p_values(self) -> np.ndarray:
        return self.table["p_value"].to_numpy()

    def summary(self) -> str:
        """clubSandwich's ``print.coef_test_clubSandwich`` layout (digits = 3)."""
        t = self.table
        lab = _DF_LABEL[self.df_method]
        p = t["p_value"].to_numpy()
        pv = [format_pval(v, digits=3, eps=1e-3) for v in p]
        fixed = [i for i, v in enumerate(p) if not v < 1e-3]
        if fixed:  # format.pval formats the values above eps together
            shared = format_numbers([p[i] for i in fixed], 3)
            for i, s in zip(fixed, shared):
                pv[i] = s.strip()
        sig = ["***" if v <= 0.001 else "**" if v <= 0.01 else "*" if v <= 0.05 else "." if v <= 0.1 else " "
               for v in p]
        cols = {"Coef.": list(t.index),
                "Estimate": [s.strip() for s in format_numbers(t["estimate"], 3)],
                "SE": [s.strip() for s in format_numbers(t["std_error"], 3)],
                "t-stat": [s.strip() for s in format_numbers(t["statistic"], 3)],
                f"d.f. ({lab})": [s.strip() for s in format_numbers(t["df"], 3)],
                f"p-val ({lab})": pv,
                "Sig.": sig}
        widths = {k: max(len(k), *(len(str(v)) for v in vals)) for k, vals in cols.items()}
        lines = [" ".join(k.rjust(widths[k]) for k in cols)]
        for i in range(len(t)):
            lines.append(" ".join(str(vals[i]).rjust(widths[k]) for k, vals in cols.items()))
        return "\n".join(" " + ln for ln in lines)

    def to_frame(self):
        out = self.table.copy()
        out.index.name = "term"
        return out


@public_function(data=("fit",), nan_policy=None)
def coef_test(fit, *, vcov="CR2", cluster=None, df="satterthwaite"):
    """t tests of every coefficient with a cluster-robust covariance and small-sample degrees of freedom.

    Mirrors ``clubSandwich::coef_test(fit, vcov = "CR2", cluster = cluster, test = "Satterthwaite")``
    (R package clubSandwich 0.5.8): the CR2 standard errors with Pustejovsky & Tipton's (2018)
    Satterthwaite degrees of freedom under the working model, which statsmodels lacks. ``df="residual"``
    gives ``lmtest::coeftest(fit, vcov)``'s n - p and ``df="normal"`` clubSandwich's ``test = "z"``.

    Parameters
    ----------
    fit : statsmodels results
        A fitted ``OLS``, ``WLS`` or ``GLM`` (array or formula API; a GLM as clubSandwich's ``glm``
        method treats it, see :func:`cluster_vcov`).
    vcov : {"CR2", "CR0", "CR1", "CR3"}, ClusterVcov or array_like
        The covariance: a kind (computed with ``cluster``), the result of :func:`cluster_vcov`, or a
        p x p matrix of your own (then ``df`` cannot be "satterthwaite").
    cluster : array_like, optional
        One cluster label per observation; required when ``vcov`` is a kind.
    df : {"satterthwaite", "residual", "normal"} or float
        The degrees of freedom of the t reference distribution (a number: the same for every coefficient).

    Returns
    -------
    CoefTest
        ``table`` with ``estimate``, ``std_error``, ``statistic``, ``df``, ``p_value`` per coefficient;
        ``summary()`` prints clubSandwich's table.

    References
    ----------
    Pustejovsky, J. E. & Tipton, E. (2018). Small-sample methods for cluster-robust variance
    estimation and hypothesis testing in fixed effects models. Journal of Business & Economic
    Statistics 36, 672-683. Bell, R. M. & McCaffrey, D. F. (2002). Survey Methodology 28, 169-181.
    R package clubSandwich 0.5.8, ``coef_test``.

    Examples
    --------
    >>> import numpy as np, pandas as pd, statsmodels.formula.api as smf
    >>> from statcore import coef_test
    >>> rng = np.random.default_rng(2)
    >>> d = pd.DataFrame({"g": np.repeat(np.arange(10), 4), "x": rng.normal(size=40)})
    >>> d["y"] = 1 + 0.5 * d.x + rng.normal(size=10)[d.g] + rng.normal(size=40)
    >>> res = coef_test(smf.ols("y ~ x", d).fit(), vcov="CR2", cluster=d.g)
    >>> list(res.to_frame().columns)
    ['estimate', 'std_error', 'statistic', 'df', 'p_value']
    >>> bool(res.table.loc["x", "df"] < 38)
    True
    """
    lf = as_linear_fit(fit, "fit")
    n, p = lf.X.shape
    if isinstance(df, numbers.Real) and not isinstance(df, bool):
        dfv = float(df)
        if not (np.isfinite(dfv) and dfv > 0):
            raise ValueError("df must be positive and finite, or one of 'satterthwaite', 'residual', 'normal'; "
                             f"got {df!r}")
        df_method = "user"
    else:
        df_method = check_choice(df, "df", ("satterthwaite", "residual", "normal"))
    pieces = None
    if isinstance(vcov, ClusterVcov):
        if vcov.nobs != n or list(vcov.vcov.index) != list(lf.names):
            raise ValueError("vcov was computed for another fit (its coefficients or observations differ)")
        V, kind, pieces = vcov.values, vcov.kind, vcov._pieces
    elif isinstance(vcov, str):
        kind = check_choice(vcov, "vcov", KINDS)
        if cluster is None:
            raise ValueError(f"cluster is required with vcov={kind!r}: pass one cluster label per observation")
        codes, J = as_cluster_codes(cluster, n, lf.row_labels, "cluster")
        cv = _make_vcov(lf, codes, J, kind)
        V, pieces = cv.values, cv._pieces
    else:
        from .._checks import as_float_array

        V = as_float_array(vcov, "vcov")
        if V.shape != (p, p):
            raise ValueError(f"vcov must be a {p} x {p} matrix (one row and column per coefficient), "
                             f"got shape {V.shape}")
        if not np.allclose(V, V.T, rtol=1e-8, atol=0) or np.any(np.diag(V) <= 0):
            raise ValueError("vcov must be symmetric with positive variances on its diagonal")
        kind = "user"
    se = np.sqrt(np.diag(V))
    est = lf.params
    stat = est / se
    if df_method == "satterthwaite":
        if pieces is None:
            raise ValueError("df='satterthwaite' needs a cluster-robust covariance (vcov a kind or a cluster_vcov "
                             "result); with a matrix of your own use df='residual' or 'normal'")
        dfs = satterthwaite_df(pieces)
    elif df_method == "residual":
        dfs = np.full(p, float(n - p))
    elif df_method == "normal":
        dfs = np.full(p, np.inf)
    else:
        dfs = np.full(p, dfv)
    with np.errstate(invalid="ignore"):
        pval = np.where(np.isinf(dfs), 2 * stats.norm.sf(np.abs(stat)), 2 * stats.t.sf(np.abs(stat), dfs))
    table = pd.DataFrame({"estimate": est, "std_error": se, "statistic": stat, "df": dfs, "p_value": pval},
                         index=pd.Index(list(lf.names)))
    return CoefTest(table, kind, df_method)
