"""The knockoff filter (R knockoff's ``knockoff.filter``), with derandomised knockoffs (Ren & Barber 2024)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._checks import (as_float_array, check_choice, check_flag, check_positive_int, check_seed,
                       check_knockoff_offset, check_error_level)
from .._checks.knockoffs import as_design
from .._r.rformat import format_named_vector
from .._result import Result
from .._seeds import spawn_seeds
from ..multitest._evalues import e_bh, knockoff_e_values
from ..multitest._knockoff_threshold import knockoff_threshold
from ._samplers import KnockoffVariables, _mean_cov, _names, _orthonormal_complement, _psd_factor, gaussian_draw
from ._samplers import knockoffs_fixed_x
from ._smatrix import SMATRIX_METHODS, knockoff_s
from ._statistics import FUNCTIONS, STATISTICS

__all__ = ["knockoff_filter", "KnockoffResult"]


@dataclass(frozen=True, repr=False)
class KnockoffResult(Result):
    """The knockoff filter's selection (:func:`knockoff_filter`; R's ``knockoff.result``).

    Attributes
    ----------
    selected : ndarray of int
        The selected variables (0-based column indices, sorted).
    selected_names : tuple of str or None
        Their names (the columns of a DataFrame X).
    W : ndarray
        The knockoff statistics: shape (p,), or (derandomize, p) with one row per knockoff draw.
    threshold : float
        The knockoff(+) threshold T on W (select W_j >= T; ``inf`` when nothing is selected); with
        ``derandomize > 1`` the e-BH threshold on the averaged e-values.
    e_values : ndarray or None
        The e-values averaged over the draws (``derandomize > 1``), else None.
    fdr, offset, derandomize : float, int, int
    knockoffs, statistic : str
        What made the knockoffs and W ("callable" for a user function).
    names : tuple of str or None
        All the column names.
    Xk : ndarray or None
        The knockoff matrix of the (first) draw, with ``keep_knockoffs=True``.
    smatrix : KnockoffS or None
        The S-matrix of "gaussian" and "fixed" knockoffs.

    Examples
    --------
    >>> import numpy as np, statcore as sc
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((100, 10))
    >>> y = X[:, 0] * 3 + X[:, 1] * 3 + rng.standard_normal(100)
    >>> res = sc.knockoff_filter(X, y, knockoffs="fixed", statistic="ols_coefdiff", fdr=0.5, seed=1)
    >>> res.to_frame().columns.tolist()
    ['variable', 'w', 'selected']
    """

    selected: np.ndarray
    selected_names: Any
    W: np.ndarray
    threshold: float
    e_values: Any
    fdr: float
    offset: int
    derandomize: int
    knockoffs: str
    statistic: str
    names: Any
    Xk: Any = field(default=None, compare=False)
    smatrix: Any = None

    def _repr_parts(self):
        return [("n_selected", int(self.selected.size)), ("p", int(np.shape(self.W)[-1])), ("fdr", self.fdr),
                ("offset", self.offset), ("threshold", self.threshold), ("derandomize", self.derandomize)]

    def summary(self) -> str:
        """R's ``print.knockoff.result``: the call and the selected variables (0-based indices, named by
        the columns of a DataFrame X)."""
        call = (f"knockoff_filter(X = X, y = y, knockoffs = \"{self.knockoffs}\", statistic = \"{self.statistic}\", "
                f"fdr = {self.fdr:g}, offset = {self.offset}"
                + (f", derandomize = {self.derandomize}" if self.derandomize > 1 else "") + ")")
        sel = [int(i) for i in self.selected]
        if not sel:
            body = "integer(0)"
        elif self.selected_names is not None:
            body = format_named_vector(list(self.selected_names), sel)
        else:
            body = "[1] " + " ".join(str(i) for i in sel)
        return f"Call:\n{call}\n\nSelected variables:\n{body}\n"

    def to_frame(self):
        """One row per variable: ``variable`` (name or index), ``w`` (the mean over draws with
        ``derandomize > 1``) and ``selected``."""
        import pandas as pd

        W = np.asarray(self.W, dtype=float)
        w = W if W.ndim == 1 else W.mean(axis=0)
        p = w.size
        sel = np.zeros(p, dtype=bool)
        sel[np.asarray(self.selected, dtype=int)] = True
        var = list(self.names) if self.names is not None else list(range(p))
        return pd.DataFrame({"variable": var, "w": w, "selected": sel})

    def _plot(self, ax=None):
        """W by variable, the selected ones highlighted, with the threshold +-T (the first draw's W with
        ``derandomize > 1``, whose selection is by e-values)."""
        import matplotlib.pyplot as plt

        W = np.asarray(self.W, dtype=float)
        w = W if W.ndim == 1 else W[0]
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
        j = np.arange(w.size)
        sel = np.zeros(w.size, dtype=bool)
        sel[np.asarray(self.selected, dtype=int)] = True
        ax.axhline(0, color="0.6", lw=0.6)
        ax.scatter(j[~sel], w[~sel], s=14, color="0.5", label="not selected")
        ax.scatter(j[sel], w[sel], s=18, color="tab:red", label="selected")
        if np.isfinite(self.threshold) and self.derandomize == 1:
            ax.axhline(self.threshold, color="tab:red", ls="--", lw=0.8, label=f"threshold T = {self.threshold:.3g}")
            ax.axhline(-self.threshold, color="tab:red", ls=":", lw=0.8, label="-T")
        ax.set_xlabel("variable")
        ax.set_ylabel("W")
        ax.set_title(f"knockoff filter: {self.selected.size} selected at fdr = {self.fdr:g}")
        ax.legend(fontsize=8)
        return ax


def knockoff_filter(X, y, *, knockoffs="gaussian", statistic="lasso_coefdiff", fdr=0.1, offset=1, derandomize=1,
                    mu=None, Sigma=None, method="sdp", keep_knockoffs=False, seed=None):
    """The knockoff filter: variables selected with the false discovery rate controlled at ``fdr``.

    Knockoffs of the columns of X are built, a statistic W_j compares each variable with its knockoff,
    and ``{j : W_j >= T}`` is selected with T the knockoff(+) threshold (R knockoff's
    ``knockoff.filter``; the threshold is :func:`statcore.knockoff_threshold`). With ``derandomize = M >
    1``, M independent knockoff draws give knockoff e-values (:func:`statcore.knockoff_e_values`, the
    knockoff+ threshold of each draw taken at level ``fdr``), averaged and passed to e-BH at level ``fdr``
    (Ren & Barber 2024; their inner level may be any value, FDR control holds for each): the selection
    no longer depends on one draw. The S-matrix is solved once for all draws.

    Parameters
    ----------
    X : array_like or pandas DataFrame, shape (n, p)
        The covariates (a DataFrame's column names name the selected variables).
    y : array_like, shape (n,)
        The numeric response.
    knockoffs : {"gaussian", "fixed"} or callable
        "gaussian": model-X Gaussian knockoffs (:func:`knockoffs_gaussian`) with ``mu`` and ``Sigma``,
        estimated as R's ``create.second_order`` when not given (R's default); "fixed": fixed-X knockoffs
        (:func:`knockoffs_fixed_x`, n >= 2p, columns of X normalised as R does); a callable ``f(X)``
        returning the (n, p) knockoff matrix (or a ``KnockoffVariables``), as R's ``knockoffs`` argument.
    statistic : {"lasso_coefdiff", "lasso_lambdasmax", "ols_coefdiff", "marginal"} or callable
        "lasso_coefdiff": R's ``stat.lasso_coefdiff`` (``|b_j| - |bk_j|`` at the cross-validated lambda,
        scikit-learn's ``LassoCV`` on R's 500-value lambda grid in place of ``cv.glmnet``);
        "lasso_lambdasmax": R's ``stat.lasso_lambdasmax`` (the lambda at which each variable enters,
        scikit-learn's ``lasso_path`` on R's grid); "ols_coefdiff": ``|b_j| - |bk_j|`` of least squares on
        [X, Xk] (needs n >= 2p); "marginal": ``|cor(X_j, y)| - |cor(Xk_j, y)|``; a callable
        ``f(X, Xk, y)`` returning p finite values, as R's ``statistic``.
    fdr : float
        The target false discovery rate in (0, 1) (R's ``fdr``).
    offset : {1, 0}
        1: knockoff+ (controls the FDR); 0: knockoff (a modified FDR), R's ``offset``.
    derandomize : int
        The number M of knockoff draws whose e-values are averaged (1: the ordinary filter).
    mu, Sigma : array_like, optional
        The mean and covariance of the rows of X for "gaussian" knockoffs (both or neither).
    method : {"sdp", "equi", "mvr", "maxent"}
        The S-matrix of "gaussian" and "fixed" knockoffs (:func:`knockoff_s`), solved once for all draws.
    keep_knockoffs : bool
        Keep the (first) knockoff matrix in the result (``Xk``).
    seed : None, int or numpy.random.Generator
        The knockoff draws and the statistic's randomness (the lasso statistics' column swap and folds);
        draw m gets stream m of ``statcore.utils.spawn_seeds(seed, derandomize)``.

    Returns
    -------
    KnockoffResult
        ``selected``, ``selected_names``, ``W``, ``threshold``, ``e_values``, ``Xk`` (on request),
        ``summary()`` as R's ``print.knockoff.result``, ``to_frame()`` and ``plot()``.

    References
    ----------
    Barber, R. F. and Candes, E. J. (2015). Controlling the false discovery rate via knockoffs. Annals of
    Statistics 43(5), 2055-2085. Candes, E., Fan, Y., Janson, L. and Lv, J. (2018). Panning for gold:
    model-X knockoffs for high dimensional controlled variable selection. JRSS B 80(3), 551-577.
    Ren, Z. and Barber, R. F. (2024). Derandomised knockoffs: leveraging e-values for false discovery
    rate control. JRSS B 86(1), 122-154. R package knockoff 0.3.6, ``knockoff.filter``.

    Examples
    --------
    >>> import numpy as np, pandas as pd, statcore as sc
    >>> rng = np.random.default_rng(3)
    >>> X = pd.DataFrame(rng.standard_normal((200, 8)), columns=[f"g{j}" for j in range(8)])
    >>> y = 2 * X["g1"] - 2 * X["g5"] + rng.standard_normal(200)
    >>> res = sc.knockoff_filter(X, y, knockoffs="gaussian", mu=np.zeros(8), Sigma=np.eye(8),
    ...                          statistic="ols_coefdiff", fdr=0.5, offset=0, seed=4)
    >>> res.selected_names
    ('g1', 'g5')
    """
    names = _names(X)
    Xa = as_design(X, "X")
    n, p = Xa.shape
    y = as_float_array(y, "y")
    if y.ndim != 1 or y.size != n:
        raise ValueError(f"y must be a numeric vector with one value per row of X ({n}), got shape {y.shape}")
    if np.ptp(y) == 0:
        raise ValueError("y is constant: there is nothing to select")
    fdr = check_error_level(fdr, "fdr")
    offset = check_knockoff_offset(offset, "offset")
    M = check_positive_int(derandomize, "derandomize")
    keep = check_flag(keep_knockoffs, "keep_knockoffs")
    method = check_choice(method, "method", SMATRIX_METHODS)
    if callable(knockoffs):
        kname = "callable"
    else:
        kname = check_choice(knockoffs, "knockoffs", ("gaussian", "fixed"))
    if callable(statistic):
        sname, stat = "callable", statistic
    else:
        sname = check_choice(statistic, "statistic", STATISTICS)
        stat = FUNCTIONS[sname]
    if (mu is not None or Sigma is not None) and kname != "gaussian":
        raise ValueError("mu and Sigma are used by knockoffs='gaussian' only")
    if sname == "ols_coefdiff" and n < 2 * p:
        raise ValueError(f"statistic='ols_coefdiff' needs n >= 2p (n = {n}, p = {p}): use a lasso statistic")
    check_seed(seed)  # validated before any work
    # draw m: one stream for its knockoffs, one for its statistic (the lasso's swap and folds)
    streams = [tuple(spawn_seeds(root, 2)) for root in spawn_seeds(seed, M)]

    # what every draw shares: the S-matrix (the expensive part), mu, Sigma, the normalised fixed design
    smatrix = None
    if kname == "gaussian":
        mu_, Sigma_ = _mean_cov(Xa, mu, Sigma)
        smatrix = knockoff_s(Sigma_, method=method)
        s = np.asarray(smatrix.s)
    elif kname == "fixed":
        first = knockoffs_fixed_x(Xa, method=method, seed=streams[0][0])
        smatrix = first.smatrix
        Xa = np.asarray(first.X)
        U, d, Vt = np.linalg.svd(Xa, full_matrices=False)
        s = np.asarray(smatrix.s)
        Ginv_s = ((Vt.T / d ** 2) @ Vt) * s[None, :]
        mean_part = Xa - Xa @ Ginv_s
        C = _psd_factor(2 * np.diag(s) - s[:, None] * Ginv_s)

    Ws, Xk_first = [], None
    for m, (k_stream, s_stream) in enumerate(streams):
        rng = np.random.default_rng(k_stream)
        if kname == "gaussian":
            Xk = gaussian_draw(Xa, mu_, Sigma_, s, rng)
        elif kname == "fixed":
            Xk = np.asarray(first.Xk) if m == 0 else mean_part + _orthonormal_complement(U, rng) @ C
        else:
            Xk = knockoffs(Xa)
            if isinstance(Xk, KnockoffVariables):
                Xk = Xk.Xk
            Xk = as_float_array(Xk, "knockoffs(X)")
            if Xk.shape != (n, p):
                raise ValueError(f"knockoffs(X) must return an (n, p) = ({n}, {p}) matrix, got shape {Xk.shape}")
        if m == 0:
            Xk_first = Xk
        if sname == "callable":
            W = stat(Xa, Xk, y)
        else:
            W = stat(Xa, Xk, y, np.random.default_rng(s_stream))
        W = as_float_array(W, "statistic(X, Xk, y)")
        if W.shape != (p,):
            raise ValueError(f"statistic(X, Xk, y) must return p = {p} values, got shape {W.shape}")
        Ws.append(W)

    if M == 1:
        W_out = Ws[0]
        T = knockoff_threshold(W_out, fdr=fdr, offset=offset)
        sel = np.flatnonzero(W_out >= T)
        e_mean = None
    else:
        W_out = np.vstack(Ws)
        e_mean = np.mean([knockoff_e_values(w, fdr=fdr, offset=offset) for w in Ws], axis=0)
        eb = e_bh(e_mean, alpha=fdr)
        sel = np.flatnonzero(np.asarray(eb.rejected))
        T = float(eb.threshold)
    sel_names = tuple(names[i] for i in sel) if names is not None else None
    return KnockoffResult(selected=sel.astype(int), selected_names=sel_names, W=W_out, threshold=float(T),
                          e_values=e_mean, fdr=fdr, offset=offset, derandomize=M, knockoffs=kname, statistic=sname,
                          names=names, Xk=Xk_first if keep else None, smatrix=smatrix)
