"""Analyses of sampled reasoning traces (issue 35, section 2): pass@k curves on held-out lengths, the
mix of step labels over training, and the repertoire of composed procedures.

Everything here is numpy and pandas on top of :mod:`learncore.reasoning.rewrite` (no torch): the
traces are texts ``w0|w1|...|wn=x``, audited step by step by :func:`~learncore.reasoning.audit_trace`.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import statcore
from statcore import Result
from statcore.utils import check_positive_int, check_probability, check_seed, public_function

from .rewrite import Monoid, audit_trace

__all__ = ["pass_at_k_curve", "PassAtKCurve", "step_mix", "StepMix", "procedure_repertoire", "Repertoire"]

#: the step labels of :func:`~learncore.reasoning.audit_step`, in the order tables report them
LABELS = ("atomic", "sequential", "parallel", "mixed", "invalid", "no-op")


# -- input doors -------------------------------------------------------------------------------------

def _check_monoid(monoid: Any, name: str = "monoid") -> Monoid:
    if not isinstance(monoid, Monoid):
        raise TypeError(f"{name} must be a learncore.reasoning.Monoid (e.g. Monoid.s3() or Monoid.cyclic(5)), "
                        f"got {type(monoid).__name__}")
    return monoid


def _trace_list(seq: Any, name: str, where: str) -> list:
    if isinstance(seq, (str, bytes)) or seq is None:
        raise TypeError(f"{name}{where} must be a sequence of trace texts, got {type(seq).__name__}")
    if isinstance(seq, np.ndarray):
        if seq.ndim != 1:
            raise ValueError(f"{name}{where} must be a 1-dimensional sequence of trace texts, got shape {seq.shape}")
        seq = seq.tolist()
    elif isinstance(seq, pd.Series):
        seq = seq.tolist()
    try:
        out = list(seq)
    except TypeError:
        raise TypeError(f"{name}{where} must be a sequence of trace texts, got {type(seq).__name__}") from None
    if not out:
        raise ValueError(f"{name}{where} holds no trace; give at least one text 'w0|w1|...=x'")
    for i, t in enumerate(out):
        if not isinstance(t, str):
            raise TypeError(f"{name}{where} must hold trace texts (str); entry {i} is {type(t).__name__}")
    return out


def _as_checkpoints(traces: Any, monoid: Monoid, name: str = "traces") -> tuple[tuple, list]:
    """(labels, [list of texts per checkpoint]) from a list of texts (one checkpoint, labelled 0), a
    list of lists (checkpoints 0, 1, ...) or a mapping {checkpoint: texts}."""
    if traces is None or isinstance(traces, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of trace texts, a sequence of such sequences (one per "
                        f"checkpoint) or a mapping {{checkpoint: texts}}, got {type(traces).__name__}")
    if hasattr(traces, "checkpoint_steps") and hasattr(traces, "checkpoints"):   # a train_rl result
        traces = {int(step): [t for per in ck for t in per]
                  for step, ck in zip(traces.checkpoint_steps, traces.checkpoints)}
    if isinstance(traces, Mapping):
        if not traces:
            raise ValueError(f"{name} holds no checkpoint")
        labels = tuple(traces)
        groups = [_trace_list(traces[k], name, f"[{k!r}]") for k in labels]
    else:
        if isinstance(traces, np.ndarray) and traces.dtype.kind not in "UO":
            raise TypeError(f"{name} must hold trace texts, got an array of dtype {traces.dtype}")
        if isinstance(traces, (np.ndarray, pd.Series)):
            traces = traces.tolist()
        try:
            items = list(traces)
        except TypeError:
            raise TypeError(f"{name} must be a sequence of trace texts or of such sequences, got "
                            f"{type(traces).__name__}") from None
        if not items:
            raise ValueError(f"{name} holds no trace")
        if all(isinstance(t, str) for t in items):
            labels, groups = (0,), [items]
        elif all(not isinstance(t, (str, bytes)) and t is not None and hasattr(t, "__iter__") for t in items):
            labels = tuple(range(len(items)))
            groups = [_trace_list(t, name, f"[{i}]") for i, t in enumerate(items)]
        else:
            raise TypeError(f"{name} must be a sequence of trace texts (one checkpoint) or a sequence of such "
                            "sequences (one per checkpoint), not a mixture")
    allowed = set(monoid.symbols) | {"|", "="}
    for k, texts in zip(labels, groups):
        for i, t in enumerate(texts):
            if not t:
                raise ValueError(f"{name}: trace {i} of checkpoint {k!r} is empty")
            bad = sorted(set(t) - allowed)
            if bad:
                raise ValueError(f"{name}: trace {i} of checkpoint {k!r} ({t[:40]!r}) holds {bad[0]!r}, which is "
                                 f"neither a symbol of the monoid ({monoid.symbols!r}) nor '|' or '='")
            if t[0] in "|=":
                raise ValueError(f"{name}: trace {i} of checkpoint {k!r} ({t[:40]!r}) has no problem word w0 before "
                                 f"{t[0]!r}")
    return labels, groups


def _as_correct_rows(samples_correct: Any, name: str = "samples_correct") -> list:
    """One 1-D 0/1 int array per problem, from a (problems, samples) matrix or a ragged sequence."""
    if samples_correct is None or isinstance(samples_correct, (str, bytes, Mapping)):
        raise TypeError(f"{name} must be a (problems, samples) array of booleans or 0/1, or a sequence of "
                        f"per-problem sequences, got {type(samples_correct).__name__}")
    if isinstance(samples_correct, (pd.DataFrame, pd.Series)):
        samples_correct = samples_correct.to_numpy()
    try:
        arr = np.asarray(samples_correct)
        rows = list(arr) if arr.ndim == 2 else None
        if arr.ndim == 1 and arr.dtype.kind == "O":
            rows = list(arr)
        elif arr.ndim != 2:
            raise ValueError(f"{name} must be 2-dimensional (problems x samples) or a sequence of per-problem "
                             f"sequences, got shape {arr.shape}")
    except ValueError as exc:
        if name in str(exc):
            raise
        rows = list(samples_correct)            # ragged: numpy refuses the inhomogeneous shape
    if not rows:
        raise ValueError(f"{name} holds no problem")
    out = []
    for i, r in enumerate(rows):
        if r is None or isinstance(r, (str, bytes)):
            raise TypeError(f"{name}: problem {i} must be a sequence of booleans or 0/1, got {type(r).__name__}")
        a = np.asarray(r)
        if a.dtype.kind == "O":
            if not all(isinstance(v, (bool, int, float, np.bool_, np.integer, np.floating)) for v in a.ravel()):
                raise TypeError(f"{name}: problem {i} must hold booleans or 0/1, not text or objects")
            a = a.astype(float)
        if a.dtype.kind not in "biuf":
            raise TypeError(f"{name} must hold booleans or 0/1 (correct or not), got dtype {a.dtype} "
                            f"(problem {i})")
        if a.ndim != 1:
            raise ValueError(f"{name}: problem {i} must be a 1-dimensional sequence of samples, got shape {a.shape}")
        if a.size == 0:
            raise ValueError(f"{name}: problem {i} has no sample")
        if a.dtype.kind == "f" and not np.isfinite(a).all():
            raise ValueError(f"{name}: problem {i} holds a NaN or infinite value; every sample is correct or not")
        if not np.isin(a, (0, 1)).all():
            raise ValueError(f"{name} must hold booleans or 0/1; problem {i} holds "
                             f"{a[~np.isin(a, (0, 1))][0].item()!r}")
        out.append(a.astype(np.int64))
    return out


def _as_ks(ks: Any, name: str = "ks") -> np.ndarray:
    if ks is None or isinstance(ks, (str, bytes)):
        raise TypeError(f"{name} must be positive integers (the k of pass@k), got {type(ks).__name__}")
    arr = np.asarray(ks)
    if arr.dtype.kind in "USO":
        raise TypeError(f"{name} must be positive integers (the k of pass@k), not text")
    if arr.dtype.kind == "b" or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be positive integers, got dtype {arr.dtype}")
    if arr.ndim > 1:
        raise ValueError(f"{name} must be an integer or a 1-dimensional sequence of them, got shape {arr.shape}")
    arr = np.atleast_1d(arr)
    if arr.size == 0:
        raise ValueError(f"{name} is empty; give at least one k")
    if arr.dtype.kind == "f":
        if not np.isfinite(arr).all() or np.any(arr != np.round(arr)):
            raise ValueError(f"{name} must be positive integers, got {arr.tolist()}")
    if np.any(arr < 1):
        raise ValueError(f"{name} must be positive integers (k >= 1), got {arr.tolist()}")
    return np.unique(arr.astype(np.int64))


def _as_groups(groups: Any, m: int, name: str = "groups") -> list:
    if isinstance(groups, (str, bytes, Mapping)):
        raise TypeError(f"{name} must hold one label per problem (a sequence), got {type(groups).__name__}")
    if isinstance(groups, (pd.Series, pd.Index)):
        groups = groups.to_numpy()
    arr = np.asarray(groups, dtype=object)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional (one label per problem), got shape {arr.shape}")
    if arr.size != m:
        raise ValueError(f"{name} has {arr.size} labels but samples_correct has {m} problems")
    out = []
    for v in arr.tolist():
        if v is None or (isinstance(v, float) and not math.isfinite(v)):
            raise ValueError(f"{name} holds a missing or non-finite label ({v!r}); every problem needs its group")
        out.append(v)
    return out


def _sorted_labels(values: list) -> list:
    uniq = list(dict.fromkeys(values))
    try:
        return sorted(uniq)
    except TypeError:
        return uniq


# -- pass@k curves -----------------------------------------------------------------------------------

@dataclass(frozen=True, repr=False)
class PassAtKCurve(Result):
    """pass@k against k, per group of problems (:func:`pass_at_k_curve`).

    Attributes
    ----------
    ks : numpy.ndarray
        The k values (sorted, distinct).
    groups : tuple
        The group labels (e.g. held-out word lengths), sorted; ``("all",)`` without groups.
    estimate : numpy.ndarray
        (groups, ks): the mean over the group's problems of the unbiased per-problem pass@k.
    std_error : numpy.ndarray
        (groups, ks): the standard error of that mean over problems (sample s.d. / sqrt(problems)).
    conf_low, conf_high : numpy.ndarray
        (groups, ks): the percentile bootstrap interval over problems (:func:`statcore.pass_at_k_ci`).
    nobs : numpy.ndarray
        Problems per group.
    n_samples : numpy.ndarray
        The fewest samples drawn for a problem of the group (pass@k needs k <= it).
    values : numpy.ndarray
        (problems, ks): per-problem pass@k, in the order of the input.
    problem_group : tuple
        Each problem's group label.
    conf_level : float
    B : int

    Examples
    --------
    >>> from learncore.reasoning import pass_at_k_curve
    >>> curve = pass_at_k_curve([[1, 0, 0, 0], [1, 1, 0, 0]], [1, 2], B=99, seed=0)
    >>> curve.estimate.round(4).tolist()
    [[0.375, 0.6667]]
    """

    ks: np.ndarray
    groups: tuple
    estimate: np.ndarray
    std_error: np.ndarray
    conf_low: np.ndarray
    conf_high: np.ndarray
    nobs: np.ndarray
    n_samples: np.ndarray
    values: np.ndarray
    problem_group: tuple
    conf_level: float
    B: int

    def _repr_parts(self):
        parts = [("groups", len(self.groups)), ("ks", self.ks.tolist()), ("problems", int(self.values.shape[0]))]
        if self.ks[0] == 1:
            parts.append(("pass_at_1", round(float(self.values[:, 0].mean()), 4)))
        return parts

    def to_frame(self) -> pd.DataFrame:
        rows = []
        for g, lab in enumerate(self.groups):
            for j, k in enumerate(self.ks):
                rows.append({"group": lab, "k": int(k), "estimate": float(self.estimate[g, j]),
                             "std_error": float(self.std_error[g, j]), "conf_low": float(self.conf_low[g, j]),
                             "conf_high": float(self.conf_high[g, j]), "nobs": int(self.nobs[g]),
                             "n_samples": int(self.n_samples[g])})
        return pd.DataFrame(rows)

    def summary(self) -> str:
        head = (f"\n\tpass@k curves (unbiased estimator; {100 * self.conf_level:g}% percentile bootstrap over "
                f"problems, {self.B} resamples)\n\n")
        lines = [f"{'group':>8} {'problems':>8} {'n':>4} " + " ".join(f"{'pass@' + str(int(k)):>16}" for k in self.ks)]
        for g, lab in enumerate(self.groups):
            cells = [f"{self.estimate[g, j]:.3f} [{self.conf_low[g, j]:.2f},{self.conf_high[g, j]:.2f}]"
                     for j in range(self.ks.size)]
            lines.append(f"{str(lab):>8} {int(self.nobs[g]):>8} {int(self.n_samples[g]):>4} "
                         + " ".join(f"{c:>16}" for c in cells))
        return head + "\n".join(lines) + "\n"

    def _plot(self, ax=None, **kwargs):
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.5))
        for g, lab in enumerate(self.groups):
            lo = self.estimate[g] - self.conf_low[g]
            hi = self.conf_high[g] - self.estimate[g]
            ax.errorbar(self.ks, self.estimate[g], yerr=np.vstack([lo, hi]), marker="o", capsize=3,
                        label=str(lab), **kwargs)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("k")
        ax.set_ylabel("pass@k")
        ax.set_ylim(-0.02, 1.02)
        ax.legend(title="group", fontsize="small")
        return ax


@public_function(data=("samples_correct", "ks"), nan_policy=None, samples="independent")
def pass_at_k_curve(samples_correct, ks, *, groups=None, conf_level=0.95, B=999, seed=None):
    """pass@k against k on a set of problems, per group (e.g. per held-out word length).

    For each problem the ``n`` sampled answers give ``c`` correct ones; pass@k is the unbiased
    estimator 1 - C(n - c, k) / C(n, k) (:func:`statcore.pass_at_k`), averaged over the problems of a
    group, with the standard error of that mean and a percentile bootstrap interval over problems
    (:func:`statcore.pass_at_k_ci`). A k above the number of samples of some problem is refused (the
    estimator needs n >= k).

    Parameters
    ----------
    samples_correct : array_like
        A (problems, samples) array of booleans or 0/1 (the reward of each sample), or a sequence of
        per-problem sequences when the problems have different numbers of samples.
    ks : int or sequence of int
        The k values (positive; sorted and made distinct).
    groups : sequence, optional
        One label per problem (e.g. its word length); one curve per label. None: one curve, "all".
    conf_level : float
        Coverage of the bootstrap intervals.
    B : int
        Bootstrap resamples of the problems (per group and k).
    seed : None, int or numpy.random.Generator
        The bootstrap's randomness.

    Returns
    -------
    PassAtKCurve
        ``estimate``, ``std_error``, ``conf_low``, ``conf_high`` per group and k.

    References
    ----------
    Chen, M. et al. (2021). Evaluating large language models trained on code. arXiv:2107.03374
    (the unbiased pass@k estimator).

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.reasoning import pass_at_k_curve
    >>> correct = np.array([[1, 0, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0], [0, 1, 0, 0]])
    >>> curve = pass_at_k_curve(correct, [1, 2, 4], groups=[4, 4, 5, 5], B=99, seed=0)
    >>> curve.estimate.round(3).tolist()
    [[0.625, 0.75, 1.0], [0.125, 0.25, 0.5]]
    """
    rows = _as_correct_rows(samples_correct)
    k_arr = _as_ks(ks)
    conf_level = check_probability(conf_level, "conf_level", open_left=True, open_right=True)
    B = check_positive_int(B, "B")
    m = len(rows)
    labels = ["all"] * m if groups is None else _as_groups(groups, m)
    n = np.array([r.size for r in rows], dtype=np.int64)
    c = np.array([int(r.sum()) for r in rows], dtype=np.int64)
    if k_arr.max() > n.min():
        i = int(np.argmin(n))
        raise ValueError(f"ks holds k = {int(k_arr.max())}, above the {int(n[i])} samples of problem {i}: pass@k "
                         f"needs at least k samples per problem (draw more, or drop that k)")
    values = np.column_stack([statcore.pass_at_k(n, c, int(k)) for k in k_arr]).reshape(m, k_arr.size)
    glabels = _sorted_labels(labels)
    g_n = len(glabels)
    est = np.empty((g_n, k_arr.size))
    se = np.empty_like(est)
    lo = np.empty_like(est)
    hi = np.empty_like(est)
    nobs = np.empty(g_n, dtype=np.int64)
    nmin = np.empty(g_n, dtype=np.int64)
    rng = check_seed(seed)
    for g, lab in enumerate(glabels):
        idx = np.flatnonzero(np.array([lv == lab for lv in labels]))
        if idx.size < 2:
            raise ValueError(f"groups: group {lab!r} holds {idx.size} problem; each group needs at least 2 problems "
                             "for a standard error and a bootstrap interval")
        nobs[g], nmin[g] = idx.size, n[idx].min()
        for j, k in enumerate(k_arr):
            v = values[idx, j]
            est[g, j] = v.mean()
            se[g, j] = v.std(ddof=1) / math.sqrt(idx.size)
            res = statcore.pass_at_k_ci(n[idx], c[idx], int(k), conf_level=conf_level, B=B, seed=rng)
            lo[g, j], hi[g, j] = res.conf_low, res.conf_high
    return PassAtKCurve(k_arr, tuple(glabels), est, se, lo, hi, nobs, nmin, values, tuple(labels), float(conf_level),
                        int(B))


# -- audits of traces ----------------------------------------------------------------------------------

def _audit_all(groups: list, monoid: Monoid) -> list:
    """For each checkpoint, the (text, TraceAudit, steps) triples of its traces: ``steps`` the audited
    steps, less the last one of a truncated trace (no "="), whose last word may be cut short."""
    out = []
    for texts in groups:
        rows = []
        for t in texts:
            au = audit_trace(t, monoid)
            steps = au.steps if au.answer is not None else au.steps[:-1]
            rows.append((t, au, steps))
        out.append(rows)
    return out


def _last_word(text: str) -> str:
    body = text.split("=", 1)[0]
    return body.split("|")[-1]


# -- the step mix --------------------------------------------------------------------------------------

@dataclass(frozen=True, repr=False)
class StepMix(Result):
    """Step validity, contraction and label mix per checkpoint (:func:`step_mix`).

    Attributes
    ----------
    checkpoints : tuple
        The checkpoint labels, in the order given.
    n_traces, n_steps : numpy.ndarray
        Traces and audited steps (w_i -> w_{i+1}) per checkpoint.
    accuracy : numpy.ndarray
        Share of traces whose answer is the product of w0 (reward 1).
    valid_rate : numpy.ndarray
        Share of steps that follow from the word before in one compound step.
    contraction_rate : numpy.ndarray
        Share of steps that are valid and compress two or more primitive steps (``len(u) - len(v) >= 2``).
    shortcut_rate : numpy.ndarray
        Share of steps that shorten the word by two or more symbols, valid or not (attempted shortcuts).
    invalid_shortcut_rate : numpy.ndarray
        Share of steps that shorten the word by two or more symbols and are invalid.
    invalid_shortcut_share : numpy.ndarray
        Invalid shortcuts among attempted shortcuts (NaN at a checkpoint without any shortcut).
    early_answer_rate : numpy.ndarray
        Share of traces that give an answer while their last word still has two or more symbols (the
        final jump ``wn=x`` skips the remaining steps; it is not an audited step).
    truncated_rate : numpy.ndarray
        Share of traces without an answer (cut by the token budget); the last step of such a trace is
        not audited (its last word may be cut short).
    mean_steps : numpy.ndarray
        Mean number of audited steps per trace.
    labels : tuple of str
        The step labels: atomic, sequential, parallel, mixed, invalid, no-op.
    label_counts : numpy.ndarray
        (checkpoints, labels): steps of each canonical label.
    label_share : numpy.ndarray
        (checkpoints, labels): the same as shares of the checkpoint's steps (0 without steps).

    Examples
    --------
    >>> from learncore.reasoning import Monoid, step_mix
    >>> mix = step_mix(["1234|334|14|0=0", "1234|14=0"], Monoid.cyclic(5))
    >>> float(mix.contraction_rate[0]), mix.label_counts[0].tolist()
    (0.25, [3, 1, 0, 0, 0, 0])
    """

    checkpoints: tuple
    n_traces: np.ndarray
    n_steps: np.ndarray
    accuracy: np.ndarray
    valid_rate: np.ndarray
    contraction_rate: np.ndarray
    shortcut_rate: np.ndarray
    invalid_shortcut_rate: np.ndarray
    invalid_shortcut_share: np.ndarray
    early_answer_rate: np.ndarray
    truncated_rate: np.ndarray
    mean_steps: np.ndarray
    labels: tuple
    label_counts: np.ndarray
    label_share: np.ndarray

    def _repr_parts(self):
        return [("checkpoints", len(self.checkpoints)), ("valid_rate", round(float(self.valid_rate[-1]), 4)),
                ("contraction_rate", round(float(self.contraction_rate[-1]), 4)),
                ("accuracy", round(float(self.accuracy[-1]), 4))]

    def to_frame(self) -> pd.DataFrame:
        frame = pd.DataFrame({"checkpoint": list(self.checkpoints), "n_traces": self.n_traces,
                              "n_steps": self.n_steps, "accuracy": self.accuracy, "valid_rate": self.valid_rate,
                              "contraction_rate": self.contraction_rate, "shortcut_rate": self.shortcut_rate,
                              "invalid_shortcut_rate": self.invalid_shortcut_rate,
                              "invalid_shortcut_share": self.invalid_shortcut_share,
                              "early_answer_rate": self.early_answer_rate, "truncated_rate": self.truncated_rate,
                              "mean_steps": self.mean_steps})
        for j, lab in enumerate(self.labels):
            frame["share_" + lab.replace("-", "_")] = self.label_share[:, j]
        return frame

    def summary(self) -> str:
        head = "\n\tStep mix of sampled traces per checkpoint (shares of audited steps)\n\n"
        cols = ["checkpoint", "traces", "steps", "acc", "valid", "contr", "inv.short"] + list(self.labels)
        lines = [" ".join(f"{c:>10}" for c in cols)]
        for i, ck in enumerate(self.checkpoints):
            cells = [str(ck), str(int(self.n_traces[i])), str(int(self.n_steps[i]))]
            cells += [f"{v:.3f}" for v in (self.accuracy[i], self.valid_rate[i], self.contraction_rate[i],
                                           self.invalid_shortcut_rate[i])]
            cells += [f"{v:.3f}" for v in self.label_share[i]]
            lines.append(" ".join(f"{c:>10}" for c in cells))
        return head + "\n".join(lines) + "\n"

    def _plot(self, ax=None, **kwargs):
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 3.5))
        x = np.arange(len(self.checkpoints))
        bottom = np.zeros(x.size)
        for j, lab in enumerate(self.labels):
            ax.bar(x, self.label_share[:, j], bottom=bottom, label=lab, **kwargs)
            bottom = bottom + self.label_share[:, j]
        ax.plot(x, self.contraction_rate, "k--", marker="o", label="contraction rate")
        ax.set_xticks(x, [str(c) for c in self.checkpoints])
        ax.set_xlabel("checkpoint")
        ax.set_ylabel("share of steps")
        ax.set_ylim(0, 1.02)
        ax.legend(fontsize="x-small", ncol=2)
        return ax


@public_function(data=("traces", "monoid"), nan_policy=None, samples="independent")
def step_mix(traces, monoid):
    """The audited steps of sampled traces, per checkpoint: validity, contractions, label mix.

    Every step ``u -> v`` of every trace ``w0|w1|...|wn=x`` is audited by
    :func:`~learncore.reasoning.audit_step` (``v`` follows from ``u`` in one compound step when ``u``
    splits into ``len(v)`` contiguous segments whose products are ``v``'s symbols). Per checkpoint this
    reports the share of valid steps, of contractions (valid steps compressing two or more primitive
    steps), of invalid shortcuts (steps shortening the word by two or more symbols without a valid
    segmentation: the failure mode reported for rejection fine-tuning) and the mix of canonical
    labels.

    Parameters
    ----------
    traces : sequence of str, sequence of sequences of str, mapping, or RLResult
        Trace texts: one checkpoint (a sequence of texts), several (a sequence of sequences, labelled
        0, 1, ...), a mapping {checkpoint label: texts} (e.g. training step -> sampled traces), or the
        result of :func:`~learncore.reasoning.train_rl` (its checkpoints' samples, by step). A trace
        without an answer (truncated) is audited without its last step.
    monoid : Monoid
        The monoid the words are written in.

    Returns
    -------
    StepMix
        The rates and label counts per checkpoint.

    References
    ----------
    The compound-step audit of issue 35, after the rewrite-grammar study of RL against rejection
    fine-tuning (valid compressed procedures against invalid shortcuts) in the seed papers.

    Examples
    --------
    >>> from learncore.reasoning import Monoid, step_mix
    >>> z5 = Monoid.cyclic(5)
    >>> mix = step_mix({0: ["1234|334|14|0=0"], 100: ["1234|32|0=0", "1234|22|4=4"]}, z5)
    >>> mix.label_counts.tolist()
    [[3, 0, 0, 0, 0, 0], [2, 0, 1, 0, 1, 0]]
    >>> float(mix.invalid_shortcut_rate[1])
    0.25
    """
    monoid = _check_monoid(monoid)
    ckpts, groups = _as_checkpoints(traces, monoid)
    audits = _audit_all(groups, monoid)
    K, L = len(ckpts), len(LABELS)
    counts = np.zeros((K, L), dtype=np.int64)
    stats = {k: np.zeros(K) for k in ("n_traces", "n_steps", "correct", "valid", "contr", "short", "inv_short",
                                      "early", "truncated")}
    pos = {lab: j for j, lab in enumerate(LABELS)}
    for i, pairs in enumerate(audits):
        for text, au, steps in pairs:
            stats["n_traces"][i] += 1
            stats["truncated"][i] += au.answer is None
            stats["correct"][i] += bool(au.correct)
            last = _last_word(text)
            if au.answer is not None and len(last) >= 2:
                stats["early"][i] += 1
            for st in steps:
                stats["n_steps"][i] += 1
                counts[i, pos[st.label]] += 1
                shrink = len(st.u) - len(st.v)
                stats["valid"][i] += bool(st.valid)
                if shrink >= 2:
                    stats["short"][i] += 1
                    if st.valid:
                        stats["contr"][i] += 1
                    else:
                        stats["inv_short"][i] += 1
    n_steps = stats["n_steps"]
    with np.errstate(invalid="ignore", divide="ignore"):
        per_step = lambda a: np.where(n_steps > 0, a / np.maximum(n_steps, 1), 0.0)  # noqa: E731
        inv_share = np.where(stats["short"] > 0, stats["inv_short"] / np.maximum(stats["short"], 1), np.nan)
    share = counts / np.maximum(n_steps, 1)[:, None]
    n_tr = stats["n_traces"]
    return StepMix(ckpts, n_tr.astype(np.int64), n_steps.astype(np.int64), stats["correct"] / n_tr,
                   per_step(stats["valid"]), per_step(stats["contr"]), per_step(stats["short"]),
                   per_step(stats["inv_short"]), inv_share, stats["early"] / n_tr, stats["truncated"] / n_tr,
                   n_steps / n_tr, LABELS, counts, share)


# -- the repertoire of composed procedures ------------------------------------------------------------

def _procedure(step) -> tuple[str, str]:
    """(key, pattern) of a valid step: its non-trivial segments with their symbols and products, in
    order ("123>1,34>2"), and their lengths ("3+2")."""
    segs, keys, lens = step.segments, [], []
    at = 0
    for L, out in zip(segs, step.v):
        if L >= 2:
            keys.append(f"{step.u[at:at + L]}>{out}")
            lens.append(str(L))
        at += L
    return ",".join(keys), "+".join(lens)


@dataclass(frozen=True, repr=False)
class Repertoire(Result):
    """The composed procedures of sampled traces, their reuse and the stability of the most used
    ones across checkpoints (:func:`procedure_repertoire`).

    Attributes
    ----------
    checkpoints : tuple
        The checkpoint labels.
    procedure : tuple of str
        Each procedure: its non-trivial segments with their symbols and results, in order
        ("123>1" a sequential macro, "12>3,34>2" a parallel step), most used first.
    label : tuple of str
        Its canonical label (sequential, parallel, mixed; atomic when atomic steps are included).
    pattern : tuple of str
        The lengths of its non-trivial segments ("3", "2+2", "3+2").
    compressed : numpy.ndarray
        Primitive steps it compresses (``len(u) - len(v)``).
    count : numpy.ndarray
        Uses over all checkpoints (its reuse).
    n_traces : numpy.ndarray
        Distinct traces that use it.
    counts : numpy.ndarray
        (procedures, checkpoints): uses per checkpoint.
    top : int
        The size of the top sets.
    top_sets : tuple of tuple of str
        Per checkpoint, its ``top`` most used procedures (ties: the procedure's text order).
    jaccard : numpy.ndarray
        Jaccard similarity of the top sets of consecutive checkpoints (NaN where both are empty).
    jaccard_to_last : numpy.ndarray
        Jaccard similarity of each checkpoint's top set with the last checkpoint's (NaN where both are
        empty).
    n_steps : numpy.ndarray
        Audited steps per checkpoint.
    n_composed : numpy.ndarray
        Steps per checkpoint counted in the repertoire.
    composed_only : bool
        Whether atomic steps were left out.

    Examples
    --------
    >>> from learncore.reasoning import Monoid, procedure_repertoire
    >>> rep = procedure_repertoire(["1234|14|0=0", "1231|11|2=2"], Monoid.cyclic(5))
    >>> rep.procedure, rep.count.tolist(), rep.label
    (('123>1',), [2], ('sequential',))
    """

    checkpoints: tuple
    procedure: tuple
    label: tuple
    pattern: tuple
    compressed: np.ndarray
    count: np.ndarray
    n_traces: np.ndarray
    counts: np.ndarray
    top: int
    top_sets: tuple
    jaccard: np.ndarray
    jaccard_to_last: np.ndarray
    n_steps: np.ndarray
    n_composed: np.ndarray
    composed_only: bool

    def _repr_parts(self):
        return [("procedures", len(self.procedure)), ("uses", int(self.count.sum())),
                ("checkpoints", len(self.checkpoints)), ("top", self.top)]

    def to_frame(self) -> pd.DataFrame:
        first = [self.checkpoints[int(np.flatnonzero(row)[0])] for row in self.counts] if len(self.procedure) else []
        last_top = set(self.top_sets[-1]) if self.top_sets else set()
        return pd.DataFrame({"procedure": list(self.procedure), "label": list(self.label),
                             "pattern": list(self.pattern), "compressed": self.compressed, "count": self.count,
                             "n_traces": self.n_traces, "first_checkpoint": first,
                             "in_last_top": [p in last_top for p in self.procedure]})

    def summary(self) -> str:
        what = "composed procedures" if self.composed_only else "procedures (atomic steps included)"
        out = [f"\n\tRepertoire of {what}: {len(self.procedure)} distinct, {int(self.count.sum())} uses "
               f"over {len(self.checkpoints)} checkpoints\n"]
        out.append(f"{'checkpoint':>10} {'steps':>7} {'counted':>8} {'jaccard_prev':>12} {'jaccard_last':>12}  top")
        for i, ck in enumerate(self.checkpoints):
            jp = "" if i == 0 else f"{self.jaccard[i - 1]:.3f}"
            out.append(f"{str(ck):>10} {int(self.n_steps[i]):>7} {int(self.n_composed[i]):>8} {jp:>12} "
                       f"{self.jaccard_to_last[i]:>12.3f}  {' '.join(self.top_sets[i][:5])}".rstrip())
        if len(self.procedure):
            out.append("\nmost used:")
            for j in range(min(10, len(self.procedure))):
                out.append(f"  {self.procedure[j]:<20} {self.label[j]:<10} pattern {self.pattern[j]:<6} "
                           f"uses {int(self.count[j]):>5} in {int(self.n_traces[j])} traces")
        else:
            out.append("\nno procedure of the kind counted was used")
        return "\n".join(out) + "\n"


def _jaccard(a: tuple, b: tuple) -> float:
    sa, sb = set(a), set(b)
    if not sa and not sb:
        return float("nan")
    return len(sa & sb) / len(sa | sb)


@public_function(data=("traces", "monoid"), nan_policy=None, samples="independent")
def procedure_repertoire(traces, monoid, *, top=10, composed_only=True):
    """The repertoire of composed procedures in sampled traces: what each is, how often it is
    reused, and how stable the most used ones are across checkpoints.

    A valid step ``u -> v`` is written as the non-trivial segments of its canonical segmentation
    (:func:`~learncore.reasoning.audit_step`), each as its symbols and their product: "123>1" (a
    sequential macro contracting three symbols), "12>3,34>2" (a parallel step), in the order they
    occur. Identical procedures at different positions of different words count as reuse. The
    stability of the repertoire is the Jaccard similarity of the ``top`` most used procedures of
    consecutive checkpoints, and of each checkpoint with the last.

    Parameters
    ----------
    traces : sequence of str, sequence of sequences of str, mapping, or RLResult
        Trace texts: one checkpoint, several (a sequence of sequences), {checkpoint: texts}, or the
        result of :func:`~learncore.reasoning.train_rl` (its checkpoints' samples, by step). A trace
        without an answer (truncated) is used without its last step.
    monoid : Monoid
        The monoid the words are written in.
    top : int
        The size of each checkpoint's top set.
    composed_only : bool
        Count only composed procedures (valid steps compressing two or more primitive steps:
        sequential, parallel, mixed); False adds the atomic steps (one primitive pair rewritten).

    Returns
    -------
    Repertoire
        The procedures with their labels, patterns, reuse counts per checkpoint, and the top-set
        stability.

    References
    ----------
    Jaccard, P. (1912). The distribution of the flora in the alpine zone. New Phytologist 11(2), 37-50.

    Examples
    --------
    >>> from learncore.reasoning import Monoid, procedure_repertoire
    >>> z5 = Monoid.cyclic(5)
    >>> rep = procedure_repertoire({0: ["1234|32|0=0", "1234|14|0=0"], 1: ["1234|32|0=0", "3434|22|4=4"]}, z5, top=2)
    >>> rep.procedure, rep.count.tolist()
    (('12>3,34>2', '123>1', '34>2,34>2'), [2, 1, 1])
    >>> rep.top_sets
    (('123>1', '12>3,34>2'), ('12>3,34>2', '34>2,34>2'))
    >>> rep.jaccard.round(4).tolist()
    [0.3333]
    """
    monoid = _check_monoid(monoid)
    top = check_positive_int(top, "top")
    if not isinstance(composed_only, (bool, np.bool_)):
        raise TypeError(f"composed_only must be True or False, got {type(composed_only).__name__}")
    ckpts, groups = _as_checkpoints(traces, monoid)
    audits = _audit_all(groups, monoid)
    K = len(ckpts)
    info: dict = {}
    per_ck: list = [dict() for _ in range(K)]
    traces_of: dict = {}
    n_steps = np.zeros(K, dtype=np.int64)
    n_comp = np.zeros(K, dtype=np.int64)
    for i, pairs in enumerate(audits):
        for t, (_, _, steps) in enumerate(pairs):
            for st in steps:
                n_steps[i] += 1
                if not st.valid or st.label == "no-op" or (composed_only and st.compressed < 2):
                    continue
                key, pattern = _procedure(st)
                info.setdefault(key, (st.label, pattern, int(st.compressed)))
                per_ck[i][key] = per_ck[i].get(key, 0) + 1
                traces_of.setdefault(key, set()).add((i, t))
                n_comp[i] += 1
    counts_by = {key: np.array([per_ck[i].get(key, 0) for i in range(K)], dtype=np.int64) for key in info}
    order = sorted(info, key=lambda k: (-int(counts_by[k].sum()), k))
    counts = (np.vstack([counts_by[k] for k in order]) if order else np.zeros((0, K), dtype=np.int64))
    top_sets = tuple(tuple(k for k in sorted(per_ck[i], key=lambda k: (-per_ck[i][k], k))[:top]) for i in range(K))
    jac = np.array([_jaccard(top_sets[i], top_sets[i + 1]) for i in range(K - 1)])
    jac_last = np.array([_jaccard(top_sets[i], top_sets[-1]) for i in range(K)])
    return Repertoire(ckpts, tuple(order), tuple(info[k][0] for k in order), tuple(info[k][1] for k in order),
                      np.array([info[k][2] for k in order], dtype=np.int64), counts.sum(axis=1),
                      np.array([len(traces_of[k]) for k in order], dtype=np.int64), counts, int(top), top_sets,
                      jac, jac_last, n_steps, n_comp, bool(composed_only))
