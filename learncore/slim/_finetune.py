"""Slimmable fine-tuning by the sandwich rule (Yu & Huang 2019): the "learned slimmable training"
arm against which post-hoc slimming is compared.

Every width s is a sub-network of the one set of weights (the plan of :mod:`._adapters`: the first
floor(s d) units of every narrowed layer). A width's forward pass is the slimmed architecture run
by ``torch.func.functional_call`` on *slices* of the shared parameters, so its gradient lands on the
shared weights' kept rows and columns. Each step sums the losses of the largest width, the smallest
and ``n_random`` widths drawn uniformly between them, and takes one optimiser step.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import torch
from statcore import Result
from statcore.utils import check_nonneg_real, check_positive_real, check_progress, check_seed, progress_bar

from .._torch import torch_seeded
from ._adapters import adapter_for, apply_plan, gather
from ._checks import check_attention_scale, check_callable, check_fits, check_positive_int, check_widths

__all__ = ["slimmable_finetune", "SlimmableFit"]

_ROLES = ("largest", "smallest", "random")


@dataclass(frozen=True, eq=False, repr=False)
class SlimmableFit(Result):
    """A network fine-tuned to work at every width (what :func:`slimmable_finetune` returns).

    Attributes
    ----------
    model : torch.nn.Module
        The fine-tuned full-width network (in eval mode); :func:`slim_width` gives any width of it.
    widths : tuple of float
        The widths given (the largest and smallest bound the sandwich).
    step, width, loss : numpy.ndarray
        One entry per (step, width trained): the step (1-based), the width and its training loss.
    role : tuple of str
        "largest", "smallest" or "random" for each entry.
    steps, n_random : int
        Optimiser steps and random widths per step.
    lr : float
        The AdamW learning rate.
    attention_scale : str
        As in :func:`slim_width`.
    arch : str
        The model's class name.

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.slim import SlimmableFit
    >>> fit = SlimmableFit(model=None, widths=(1.0, 0.5), step=np.array([1, 1]), width=np.array([1.0, 0.5]),
    ...                    loss=np.array([0.3, 0.9]), role=("largest", "smallest"), steps=1, n_random=0,
    ...                    lr=1e-3, attention_scale="keep", arch="Net")
    >>> fit.to_frame()
       step  width      role  loss
    0     1    1.0   largest   0.3
    1     1    0.5  smallest   0.9
    """

    model: Any
    widths: tuple
    step: np.ndarray
    width: np.ndarray
    loss: np.ndarray
    role: tuple
    steps: int
    n_random: int
    lr: float
    attention_scale: str
    arch: str

    def to_frame(self) -> pd.DataFrame:
        """One row per (step, width trained): ``step``, ``width``, ``role``, ``loss``."""
        return pd.DataFrame({"step": np.asarray(self.step), "width": np.asarray(self.width),
                             "role": list(self.role), "loss": np.asarray(self.loss)})

    def _window_means(self) -> pd.DataFrame:
        frame = self.to_frame()
        k = max(1, self.steps // 10)
        first = frame[frame["step"] <= k].groupby("role", sort=False)["loss"].mean()
        last = frame[frame["step"] > self.steps - k].groupby("role", sort=False)["loss"].mean()
        return pd.DataFrame({"first_steps": first, "last_steps": last})

    def summary(self) -> str:
        """Mean training loss of each role over the first and the last tenth of the steps."""
        lines = ["", f"\tSlimmable fine-tuning (sandwich rule) of {self.arch}", "",
                 f"widths {min(self.widths):g} .. {max(self.widths):g}; {self.steps} steps of the largest, the "
                 f"smallest and {self.n_random} random widths; AdamW lr = {self.lr:g}; "
                 f"attention scale: {self.attention_scale}", "",
                 f"mean loss over the first and last {max(1, self.steps // 10)} steps:"]
        return "\n".join(lines) + "\n" + self._window_means().to_string(float_format=lambda v: f"{v:.4g}") + "\n"

    def _repr_parts(self):
        last = self._window_means()["last_steps"]
        return [("arch", self.arch), ("steps", self.steps),
                ("loss_largest", float(last.get("largest", np.nan))),
                ("loss_smallest", float(last.get("smallest", np.nan)))]

    def _plot(self, ax=None):
        """Training loss of the largest, the smallest and the random widths against the step."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(4.2, 3.2), layout="constrained")
        frame = self.to_frame()
        for role in _ROLES:
            part = frame[frame["role"] == role].groupby("step")["loss"].mean()
            if len(part):
                ax.plot(part.index, part.to_numpy(), label=role, lw=1)
        ax.set_xlabel("step")
        ax.set_ylabel("training loss")
        ax.set_yscale("log")
        ax.set_title(f"{self.arch}: sandwich-rule fine-tuning", fontsize=10)
        ax.legend(fontsize=8)
        return ax


def _batches(data):
    """``data``: a callable of a numpy Generator returning a batch, or a re-iterable of batches (cycled)."""
    if callable(data):
        return lambda rng: data(rng)
    if isinstance(data, (str, bytes)) or not hasattr(data, "__iter__"):
        raise TypeError(f"data must be a callable data(rng) -> batch or an iterable of batches, got "
                        f"{type(data).__name__}")
    state = {"it": iter(data)}

    def nxt(rng):
        try:
            return next(state["it"])
        except StopIteration:
            state["it"] = iter(data)
            try:
                return next(state["it"])
            except StopIteration:
                raise ValueError("data is an empty iterable: give batches, or a callable data(rng)") from None
    return nxt


class _Width:
    """The network at one width, run on slices of the shared parameters."""

    def __init__(self, template, params, index):
        self.template = template
        self.params = {n: (gather(p, index[n]) if n in index else p) for n, p in params.items()}

    def __call__(self, *args, **kwargs):
        return torch.func.functional_call(self.template, self.params, args, kwargs)


def slimmable_finetune(model, widths, data, *, loss, steps=300, lr=3e-4, n_random=2, weight_decay=0.0,
                       attention_scale="keep", seed=None, progress=None):
    """Fine-tune a pretrained network so that every width works: the sandwich rule of slimmable training.

    All widths share one set of weights: width s is the sub-network :func:`slim_width` cuts out
    (the first floor(s d) units of every narrowed layer). Each step computes the loss of the
    largest width, of the smallest and of ``n_random`` widths drawn uniformly between them
    (Yu & Huang's sandwich rule: the extremes bound every width in between), sums them and takes
    one AdamW step on the shared weights. The narrowed forward passes run on slices of the shared
    parameters, so the gradients of all widths add up on the same tensors. The original model is
    untouched; afterwards ``slim_width(fit.model, s)`` is the fine-tuned network at width s.
    In-place distillation (Yu & Huang's smaller widths trained on the largest's predictions) is not
    done: every width fits the task's own loss.

    Parameters
    ----------
    model : torch.nn.Module
        A transformer :func:`slim_width` knows (ArithTransformer, a BERT-style encoder). Networks with
        batch normalisation (MobileNetV2) are refused: shared batch statistics are wrong for every
        width but one, which needs switchable batch norm (Yu et al. 2019), not implemented here.
    widths : sequence of float
        Widths in (0, 1]; the largest and the smallest are trained at every step.
    data : callable or iterable
        ``data(rng)`` -> a batch (rng a numpy Generator derived from ``seed``), or an iterable of
        batches (cycled).
    loss : callable
        ``loss(net, batch)`` -> a scalar tensor, ``net`` being called as the model is.
    steps : int, default 300
        Optimiser steps.
    lr : float, default 3e-4
        AdamW's learning rate.
    n_random : int, default 2
        Random widths per step (0 allowed).
    weight_decay : float, default 0.0
        AdamW's decoupled weight decay.
    attention_scale : {"keep", "rescale"}, default "keep"
        As in :func:`slim_width`; the same choice must be used when slimming the result.
    seed : None, int or numpy.random.Generator
        Randomness: the random widths, the batches drawn by ``data`` and torch's global stream
        (dropout).
    progress : bool, optional
        Show a progress bar.

    Returns
    -------
    SlimmableFit
        The fine-tuned model and the training losses of every width (``to_frame()``, ``plot()``).

    Raises
    ------
    TypeError
        When ``model`` has no adapter or holds batch norm, or ``loss``/``data`` have the wrong kind.
    ValueError
        When a width is outside (0, 1], or ``loss`` returns a non-finite value.

    References
    ----------
    Yu, J. and Huang, T. (2019). Universally slimmable networks and improved training techniques.
    ICCV (the sandwich rule).
    Yu, J., Yang, L., Xu, N., Yang, J. and Huang, T. (2019). Slimmable neural networks. ICLR.

    Examples
    --------
    >>> import torch
    >>> from torch.nn import functional as F
    >>> from learncore.llm_uncertainty import load_arith_model
    >>> from learncore.slim import slimmable_finetune
    >>> model = load_arith_model()
    >>> x = torch.tensor([model.tokenizer.encode("12+7=19")] * 8)
    >>> def loss(net, batch):  # next-token cross-entropy
    ...     logits = net(batch[:, :-1]).logits
    ...     return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), batch[:, 1:].reshape(-1))
    >>> fit = slimmable_finetune(model, [1.0, 0.5], [x], loss=loss, steps=3, seed=0)
    >>> fit.to_frame().shape
    (12, 4)
    """
    widths = check_widths(widths)
    loss = check_callable(loss, "loss")
    steps = check_positive_int(steps, "steps")
    lr = check_positive_real(lr, "lr")
    n_random = check_positive_int(n_random, "n_random", minimum=0)
    weight_decay = check_nonneg_real(weight_decay, "weight_decay")
    attention_scale = check_attention_scale(attention_scale)
    progress = check_progress(progress, "progress")
    adapter = adapter_for(model)
    if adapter.batchnorm:
        raise TypeError(f"model: slimmable_finetune trains networks without batch norm; {adapter.name}'s batch "
                        "statistics would be shared by every width (switchable batch norm is not implemented)")
    check_fits(adapter, model, widths)
    draw = _batches(data)
    rng = check_seed(seed)
    net = copy.deepcopy(model)
    net.train()
    params = dict(net.named_parameters())
    opt = torch.optim.AdamW([p for p in params.values() if p.requires_grad], lr=lr, weight_decay=weight_decay)
    hi, lo = widths[0], widths[-1]
    templates: dict = {}

    def at_width(s):
        if s == 1.0:
            return net
        plan = adapter.plan(net, s, attention_scale)
        key = tuple((n, tuple(len(i) for _, i in ops)) for n, ops in plan.index.items()) + \
            tuple((m, a, v) for m, a, v in plan.attrs)
        if key not in templates:
            with torch.no_grad():
                templates[key] = apply_plan(net, plan).requires_grad_(False)
            templates[key].train()
        return _Width(templates[key], params, plan.index)

    rec_step, rec_width, rec_role, rec_loss = [], [], [], []
    with torch_seeded(rng), progress_bar(progress, steps, desc="sandwich", unit="step") as bar:
        for step in range(1, steps + 1):
            batch = draw(rng)
            ss = [(hi, "largest")] + ([(lo, "smallest")] if lo != hi else [])
            ss += [(float(rng.uniform(lo, hi)), "random") for _ in range(n_random)]
            opt.zero_grad(set_to_none=True)
            for s, role in ss:
                try:
                    value = loss(at_width(s), batch)
                except (TypeError, ValueError) as exc:
                    raise type(exc)(f"loss(net, batch) failed on a batch of data (step {step}, width {s:.4g}): "
                                    f"{exc}") from exc
                if not isinstance(value, torch.Tensor) or value.numel() != 1:
                    raise TypeError(f"loss must return a scalar tensor, got {type(value).__name__}")
                if not torch.isfinite(value):
                    raise ValueError(f"loss returned {float(value)!r} at width {s:.4g}, step {step}")
                value.backward()
                rec_step.append(step)
                rec_width.append(s)
                rec_role.append(role)
                rec_loss.append(float(value.detach()))
            opt.step()
            bar.update(1)
    net.eval()
    return SlimmableFit(model=net, widths=widths, step=np.asarray(rec_step), width=np.asarray(rec_width),
                        loss=np.asarray(rec_loss), role=tuple(rec_role), steps=steps, n_random=n_random, lr=lr,
                        attention_scale=attention_scale, arch=adapter.name)
