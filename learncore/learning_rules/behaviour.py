"""Behavioural metrics over training: accuracy, bias and stimulus sensitivity per session.

For each session (or block of trials) a logistic psychometric curve

    p(right | c) = expit(b0 + b1 c),    c = contrast_right - contrast_left,

is fitted by maximum likelihood; the bias is b0 (the log-odds of choosing "right" at zero contrast) and
the sensitivity is b1 (the change in log-odds per unit of signed contrast). For an animal the responses
are its choices (0/1). For a model the responses are its probabilities of "right" on each trial, fitted
with the same likelihood (fractional-response maximum likelihood, Papke & Wooldridge 1996): the result
is the psychometric curve closest in Kullback-Leibler divergence to the model's choice probabilities,
and equals the fit to the choices when the probabilities are 0/1.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import expit, logit
from statcore import StatcoreWarning
from statcore.utils import public_function

from ._checks import check_by, check_p_right
from ._trials import TrialData, check_trials
from .results import Result

__all__ = ["behaviour_metrics", "plot_behaviour", "BehaviourMetrics", "BehaviourWarning"]

_MAX_NEWTON = 100
_MAX_HALVINGS = 60


class BehaviourWarning(StatcoreWarning):
    """A session's psychometric fit has no finite maximum-likelihood estimate (reported as NaN)."""


def _groups(td: TrialData, by) -> tuple[np.ndarray, pd.DataFrame]:
    """Group code per trial and the label columns of each group (``by`` already checked)."""
    if by == "session":
        return td.session, pd.DataFrame({"session": td.session_labels})
    code = np.arange(td.n_trials, dtype=np.int64) // by
    G = int(code[-1]) + 1
    return code, pd.DataFrame({"block": np.arange(1, G + 1), "first_trial": np.arange(G) * by})


def _psychometric_ml(c: np.ndarray, y: np.ndarray, g: np.ndarray, G: int):
    """Logistic ML fit of y on [1, c] in every group at once (Newton's method with step halving).

    Returns bias, sensitivity (NaN where no finite estimate exists) and a status per group.
    """
    n = np.bincount(g, minlength=G).astype(np.float64)
    c_min = np.full(G, np.inf)
    c_max = np.full(G, -np.inf)
    np.minimum.at(c_min, g, c)
    np.maximum.at(c_max, g, c)
    constant = c_min == c_max
    # Existence of the MLE (Albert & Anderson 1984) with one covariate: a fractional response y counts as
    # a 'right' observation if y > 0 and a 'left' one if y < 1. The estimate is finite iff the contrasts
    # of the two sets overlap strictly in both directions; otherwise a threshold on c separates them
    # (completely or quasi-completely) and the likelihood keeps rising as |b| grows.
    inf_r, sup_r, inf_l, sup_l = (np.full(G, np.inf), np.full(G, -np.inf), np.full(G, np.inf),
                                  np.full(G, -np.inf))
    r, l_ = y > 0, y < 1
    np.minimum.at(inf_r, g[r], c[r])
    np.maximum.at(sup_r, g[r], c[r])
    np.minimum.at(inf_l, g[l_], c[l_])
    np.maximum.at(sup_l, g[l_], c[l_])
    separated = ~constant & ~((sup_l > inf_r) & (sup_r > inf_l))

    bias = np.full(G, np.nan)
    sens = np.full(G, np.nan)
    status = np.full(G, "ok", dtype=object)
    status[separated] = "separated"
    status[constant] = "constant contrast"
    # With every contrast 0 the bias alone is identified: the log-odds of the mean response.
    ybar = np.bincount(g, weights=y, minlength=G) / n
    zero_only = constant & (c_min == 0) & (ybar > 0) & (ybar < 1)
    bias[zero_only] = logit(ybar[zero_only])

    fit = ~constant & ~separated
    if fit.any():
        keep = fit[g]
        gmap = np.cumsum(fit) - 1
        gg, cc, yy = gmap[g[keep]], c[keep], y[keep]
        K = int(fit.sum())
        b0 = logit(ybar[fit])
        b1 = np.zeros(K)

        def loglik(b0, b1):
            eta = b0[gg] + b1[gg] * cc
            return np.bincount(gg, weights=yy * eta - np.logaddexp(0.0, eta), minlength=K)

        ll = loglik(b0, b1)
        converged = np.zeros(K, dtype=bool)
        for _ in range(_MAX_NEWTON):
            p = expit(b0[gg] + b1[gg] * cc)
            res, w = yy - p, p * (1 - p)
            g0 = np.bincount(gg, weights=res, minlength=K)
            g1 = np.bincount(gg, weights=res * cc, minlength=K)
            h00 = np.bincount(gg, weights=w, minlength=K)
            h01 = np.bincount(gg, weights=w * cc, minlength=K)
            h11 = np.bincount(gg, weights=w * cc * cc, minlength=K)
            det = h00 * h11 - h01 * h01
            d0 = (h11 * g0 - h01 * g1) / det
            d1 = (h00 * g1 - h01 * g0) / det
            t = np.ones(K)
            for _ in range(_MAX_HALVINGS):
                ll_new = loglik(b0 + t * d0, b1 + t * d1)
                worse = ll_new < ll - 1e-12 * (1.0 + np.abs(ll))
                if not worse.any():
                    break
                t[worse] *= 0.5
            # a full Newton step this small leaves an error of its square (quadratic convergence)
            converged = ((t == 1.0) & (np.abs(d0) <= 1e-9 * (1.0 + np.abs(b0)))
                         & (np.abs(d1) <= 1e-9 * (1.0 + np.abs(b1))))
            b0, b1, ll = b0 + t * d0, b1 + t * d1, ll_new
            if converged.all():
                break
        b0 = np.where(converged, b0, np.nan)
        b1 = np.where(converged, b1, np.nan)
        idx = np.flatnonzero(fit)
        bias[idx], sens[idx] = b0, b1
        status[idx[~converged]] = "no convergence"
    return bias, sens, status


@dataclass(frozen=True, eq=False, repr=False)
class BehaviourMetrics(Result):
    """Accuracy, bias and stimulus sensitivity per session (or block of trials).

    What :func:`behaviour_metrics` returns: a frozen result whose ``summary()`` prints the table,
    ``to_frame()`` gives it (a copy) and ``plot()`` draws bias, sensitivity and accuracy over training.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per session: ``session`` (or ``block`` and ``first_trial`` when grouped by blocks of
        trials), ``n_trials``, ``accuracy``, ``bias``, ``sensitivity`` and ``status`` ("ok"; "separated"
        when no finite maximum-likelihood estimate exists; "constant contrast" when the session shows a
        single signed contrast, which leaves the sensitivity unidentified; "no convergence").
    source : {"data", "model"}
        "data": responses are the choices and accuracy the mean reward; "model": responses are the
        model's probabilities of "right" and accuracy the expected one.
    by : "session" or int
        How trials were grouped.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> trials = pd.DataFrame({"contrast_left": [0.25, 0, 1, 0, 0, 0.5], "contrast_right": [0, 1, 0, 0.25, 0, 0],
    ...                        "choice": ["left", "right", "right", "right", "left", "left"],
    ...                        "reward": [1, 1, 0, 1, 1, 1]})
    >>> m = behaviour_metrics(trials)
    >>> m.n_groups, m.source
    (1, 'data')
    >>> m.to_frame()[["n_trials", "accuracy", "status"]]
       n_trials  accuracy status
    0         6  0.833333     ok
    """

    table: Any
    source: str
    by: Any

    def __post_init__(self):
        object.__setattr__(self, "table", self.table.copy())
        super().__post_init__()

    @property
    def n_groups(self) -> int:
        """The number of sessions (or blocks)."""
        return len(self.table)

    def _repr_parts(self):
        return [("source", self.source), ("by", self.by), ("n_groups", self.n_groups),
                ("n_trials", int(self.table["n_trials"].sum()))]

    def _html_title(self) -> str:
        return self.summary().splitlines()[0]

    def to_frame(self):
        """The table (a copy): session (or block, first_trial), n_trials, accuracy, bias, sensitivity,
        status."""
        return self.table.copy()
    def summary(self) -> str:
        unit = "sessions" if self.by == "session" else f"blocks of {self.by} trials"
        what = "the choices" if self.source == "data" else "the model's p(right)"
        head = (f"Behavioural metrics of the {self.source}: {self.n_groups} {unit}, "
                f"{int(self.table['n_trials'].sum())} trials\n"
                f"psychometric fit p(right | c) = expit(bias + sensitivity * c), c = contrast_right - "
                f"contrast_left, to {what}")
        body = self.table.to_string(index=False, float_format=lambda v: f"{v:.4g}")
        bad = self.table["status"] != "ok"
        note = ""
        if bad.any():
            note = (f"\n{int(bad.sum())} of {self.n_groups} without a finite fit (NaN): 'separated' = a contrast "
                    f"threshold splits left from right responses, so the maximum-likelihood estimate is infinite")
        return f"{head}\n\n{body}\n{note}"

    def _plot(self, ax=None, *, label=None, color=None, **kwargs):
        """Bias, sensitivity and accuracy per group on three Axes (new ones when ``ax`` is None);
        returns the three Axes (an array)."""
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator

        if ax is None:
            fig, axes = plt.subplots(1, 3, figsize=(11, 3.2))
            axes = np.asarray(axes, dtype=object)
        else:
            axes = np.ravel(np.asarray(ax, dtype=object))
            if axes.size != 3:
                raise ValueError(f"ax must be three matplotlib Axes (bias, sensitivity, accuracy), got "
                                 f"{axes.size}")
            fig = axes[0].figure
        label = self.source if label is None else label
        x = np.arange(1, self.n_groups + 1)
        if self.source == "data":
            style = dict(marker="o", linestyle="none", markersize=4, color=color or "black")
        else:
            style = dict(linestyle="-", linewidth=1.5, color=color or "#cc3311")
        style.update(kwargs)
        panels = (("bias", "bias (log-odds right at c = 0)", 0.0),
                  ("sensitivity", "sensitivity (log-odds per unit c)", 0.0),
                  ("accuracy", "accuracy", 0.5))
        for a, (col, ylabel, ref) in zip(axes, panels):
            a.plot(x, self.table[col].to_numpy(dtype=float), label=label, **style)
            a.axhline(ref, color="0.7", linewidth=0.8, zorder=0)
            a.set_ylabel(ylabel)
            a.set_xlabel("session" if self.by == "session" else f"block of {self.by} trials")
            a.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes[2].legend(frameon=False, fontsize=8)
        axes[1].set_title("Psychometric bias, sensitivity and accuracy", fontsize=10)
        fig.tight_layout()
        return axes


@public_function(data=("trials", "p_right"), nan_policy=("raise", "omit"))
def behaviour_metrics(trials, p_right=None, *, by="session", nan_policy: str = "raise") -> BehaviourMetrics:
    """Accuracy, bias and stimulus sensitivity of an animal or a model, per session or block of trials.

    Parameters
    ----------
    trials : pandas.DataFrame
        A trials table (``contrast_left``, ``contrast_right``, ``choice``, ``reward``, optional
        ``session``), validated with :func:`check_trials` (missing values are always refused there).
    p_right : array-like of length T, str or None
        The model's probability of choosing "right" on each trial (or the name of the column of
        ``trials`` that holds it). None gives the metrics of the data. Paired with the trials by
        position; a pandas Series must carry the index of ``trials`` (a different index is refused,
        docs/conventions.md, section 3).
    by : "session" or int
        Group by session, or into consecutive blocks of ``by`` trials (ignoring sessions; the last
        block may be shorter).
    nan_policy : {"raise", "omit"}
        NaN in ``p_right`` (trials the model makes no prediction for): "raise" (default) refuses them,
        "omit" leaves those trials out (a session left without trials is dropped). "propagate" is not
        offered: a NaN would only hide the session's fit.

    Returns
    -------
    BehaviourMetrics
        ``table`` columns: session (or block, first_trial), n_trials, accuracy, bias, sensitivity, status.

    Notes
    -----
    Accuracy is the mean reward for the data and, for a model, the expected accuracy: the mean over
    trials of the model's probability of the rewarded side (the chosen side if rewarded, else the other).
    Bias and sensitivity are the maximum-likelihood intercept and slope of a logistic regression of the
    responses on the signed contrast c = contrast_right - contrast_left, the same fit as
    ``statsmodels.GLM(y, [1, c], family=Binomial())``; for the model the responses are fractional
    (Papke & Wooldridge 1996). Where no finite estimate exists (a contrast threshold separates left and
    right responses, e.g. a perfect session, or every response the same) bias and sensitivity are NaN
    with ``status == "separated"`` and a :class:`BehaviourWarning`; a session with one signed contrast
    has an unidentified sensitivity (NaN, status "constant contrast"), and its bias is given only when
    that contrast is 0.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> c = rng.choice([-1, -0.25, -0.0625, 0, 0.0625, 0.25, 1], size=400)
    >>> right = rng.random(400) < 1 / (1 + np.exp(-(0.5 + 4 * c)))
    >>> trials = pd.DataFrame({"contrast_left": np.maximum(-c, 0), "contrast_right": np.maximum(c, 0),
    ...                        "choice": np.where(right, "right", "left"),
    ...                        "reward": (right == (c > 0)) | ((c == 0) & (rng.random(400) < 0.5)),
    ...                        "session": np.repeat(["d1", "d2"], 200)})
    >>> m = behaviour_metrics(trials)
    >>> m.table[["session", "n_trials"]]
      session  n_trials
    0      d1       200
    1      d2       200

    References
    ----------
    Albert, A. & Anderson, J. A. (1984). On the existence of maximum likelihood estimates in logistic
    regression models. Biometrika 71:1-10. Papke, L. E. & Wooldridge, J. M. (1996). Econometric methods for
    fractional response variables. J. Appl. Econometrics 11:619-632. Liebana et al. (2025), Cell 188:3789.
    """
    td = check_trials(trials)
    by = check_by(by)
    keep = None
    if p_right is None:
        y = td.choice.astype(np.float64)
        correct = td.reward
        source = "data"
    else:
        y, keep = check_p_right(p_right, trials, td.n_trials, nan_policy=nan_policy)
        correct = np.where(td.rewarded_side == 1, y, 1.0 - y)
        source = "model"
    g, labels = _groups(td, by)
    c = td.x[:, 1] - td.x[:, 0]
    if keep is not None:   # nan_policy="omit": the trials with a prediction, the groups that keep any
        g, c, y, correct = g[keep], c[keep], y[keep], correct[keep]
        present = np.unique(g)
        labels = labels.iloc[present].reset_index(drop=True)
        g = np.searchsorted(present, g)
    G = len(labels)
    n = np.bincount(g, minlength=G)
    bias, sens, status = _psychometric_ml(c, y, g, G)
    table = labels.assign(n_trials=n, accuracy=np.bincount(g, weights=correct, minlength=G) / n,
                          bias=bias, sensitivity=sens, status=status)
    nofit = status == "separated"
    if nofit.any():
        first = table.iloc[np.flatnonzero(nofit)[:5], 0].tolist()
        warnings.warn(f"{int(nofit.sum())} of {G} {'sessions' if by == 'session' else 'blocks'} have no finite "
                      f"psychometric fit (left and right responses separated by a contrast threshold, e.g. "
                      f"a perfect session), first: {first}; their bias and sensitivity are NaN",
                      BehaviourWarning, stacklevel=2)
    return BehaviourMetrics(table=table, source=source, by=by)


@public_function(data=("trials", "p_right"), nan_policy=("raise", "omit"))
def plot_behaviour(trials, p_right=None, *, by="session", ax=None, label_data="data", label_model="model",
                   nan_policy: str = "raise"):
    """Plot bias, sensitivity and accuracy over training: the data as points, the model as lines.

    Parameters
    ----------
    trials : pandas.DataFrame
        A trials table (see :func:`behaviour_metrics`).
    p_right : array-like of length T, str or None
        The model's probability of "right" per trial (e.g. a fitted model's trajectory); None plots the
        data alone.
    by : "session" or int
        Group by session or by blocks of ``by`` trials.
    ax : three matplotlib Axes or None
        Where to draw (bias, sensitivity, accuracy); None makes a new figure.
    label_data : str
        Legend label of the data.
    label_model : str
        Legend label of the model.
    nan_policy : {"raise", "omit"}
        NaN in ``p_right``, as in :func:`behaviour_metrics`.

    Returns
    -------
    numpy.ndarray of matplotlib.axes.Axes
        The three Axes drawn on (``axes[0].figure`` is the figure).

    References
    ----------
    Liebana et al. (2025). Dopamine encodes deep network teaching signals for individual learning
    trajectories. Cell 188:3789 (the per-session psychometric summaries of training).

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.learning_rules import simulate
    >>> mouse = simulate("1L", {"W": np.zeros((2, 3)), "eta": 0.3, "beta": 4.0}, 600, seed=0)
    >>> axes = plot_behaviour(mouse, "p_right")
    >>> len(axes), axes[0].get_ylabel()
    (3, 'bias (log-odds right at c = 0)')
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    data = behaviour_metrics(trials, by=by)
    model = None if p_right is None else behaviour_metrics(trials, p_right, by=by, nan_policy=nan_policy)
    axes = data.plot(ax=ax, label=label_data)
    if model is not None:
        model.plot(ax=axes, label=label_model)
    return axes
