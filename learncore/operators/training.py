"""NOIR training: an operator fitted by relative L2 error plus ``lam`` times an independence penalty on
its latent layer (:class:`NOIR`), and the per-epoch record of a fit (:class:`TrainingHistory`)."""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pandas as pd
import torch
from statcore import Result
from statcore.utils import check_progress, progress_bar
from torch import nn

from .._torch import module_dtype, torch_generator
from ._model_checks import (check_bool, check_choice, check_nonneg_float, check_positive_float, check_positive_int,
                            check_seed)
from .models import _dataset_arrays
from .penalty import _KINDS, independence_penalty

__all__ = ["NOIR", "TrainingHistory", "relative_l2"]


def relative_l2(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Per-sample relative L2 error ||pred - target||_2 / ||target||_2 over the grid, shape (B,)."""
    return torch.linalg.vector_norm(pred - target, dim=1) / torch.linalg.vector_norm(target, dim=1)


@dataclass(frozen=True, eq=False, repr=False)
class TrainingHistory(Result):
    """The per-epoch record of a :meth:`NOIR.fit`.

    Attributes
    ----------
    epoch : numpy.ndarray
        1, ..., epochs.
    loss : numpy.ndarray
        The training objective, relative L2 + lam * penalty, averaged over the epoch's batches
        (weighted by batch size).
    rel_l2 : numpy.ndarray
        Its relative-L2 part (mean per-sample relative L2 error of the training batches, during the
        epoch, in training mode).
    penalty : numpy.ndarray
        The penalty of the epoch's batches (their mean; NaN when not tracked with lam = 0).
    test_rel_l2 : numpy.ndarray
        Mean relative L2 error on the test split after the epoch (NaN when not tracked).
    seconds : numpy.ndarray
        Wall time of each epoch (training and the test evaluation).
    model : str
        The model's class name.
    penalty_kind : str
        The penalty ("hsic", "dcor", "tc", or the callable's name).
    lam : float
        Its weight.
    batch_size, n_train : int
        The batch size asked for and the training samples.
    lr : float
        Adam's learning rate.
    seed : object
        The seed of the batch order.

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> from learncore.operators import NOIR, DeepONet
    >>> x = np.linspace(0, 1, 16)
    >>> a = np.random.default_rng(0).normal(size=(40, 2))
    >>> u = a[:, :1] * np.sin(np.pi * x) + a[:, 1:] * np.sin(2 * np.pi * x)
    >>> ds = SimpleNamespace(dim=1, grid_shape=(16,), grid=x[:, None], inputs=u, targets=0.5 * u + 1,
    ...                      sensor_idx=np.arange(0, 16, 3), train_idx=np.arange(30), test_idx=np.arange(30, 40))
    >>> hist = NOIR(DeepONet.from_dataset(ds, p=4, branch_hidden=(8,), trunk_hidden=(8,)), lam=0.01).fit(
    ...     ds, epochs=3, batch_size=10, seed=0)
    >>> hist  # doctest: +ELLIPSIS
    TrainingHistory(model='DeepONet', penalty_kind='hsic', lam=0.01, epochs=3, rel_l2=..., test_rel_l2=...)
    >>> list(hist.to_frame().columns)
    ['epoch', 'loss', 'rel_l2', 'penalty', 'test_rel_l2', 'seconds']
    """

    epoch: np.ndarray
    loss: np.ndarray
    rel_l2: np.ndarray
    penalty: np.ndarray
    test_rel_l2: np.ndarray
    seconds: np.ndarray
    model: str
    penalty_kind: str
    lam: float
    batch_size: int
    n_train: int
    lr: float
    seed: Any

    @property
    def seconds_per_epoch(self) -> float:
        """The mean wall time of an epoch."""
        return float(np.mean(self.seconds))

    def to_frame(self) -> pd.DataFrame:
        """One row per epoch: ``epoch``, ``loss``, ``rel_l2``, ``penalty``, ``test_rel_l2``, ``seconds``."""
        return pd.DataFrame({"epoch": np.asarray(self.epoch), "loss": np.asarray(self.loss),
                             "rel_l2": np.asarray(self.rel_l2), "penalty": np.asarray(self.penalty),
                             "test_rel_l2": np.asarray(self.test_rel_l2), "seconds": np.asarray(self.seconds)})

    def summary(self) -> str:
        """The fit in a few lines, then the first and last epochs."""
        head = ["", "\tNOIR training: relative L2 + lam * independence penalty", "",
                f"model: {self.model}; penalty: {self.penalty_kind}, lam = {self.lam:g}",
                f"{self.epoch.size} epochs of Adam (lr = {self.lr:g}), batch size {self.batch_size}, "
                f"{self.n_train} training samples; {self.seconds_per_epoch:.3g} s per epoch", ""]
        frame = self.to_frame()
        shown = frame if len(frame) <= 10 else pd.concat([frame.head(3), frame.tail(5)])
        return "\n".join(head) + shown.to_string(index=False, float_format=lambda v: f"{v:.5g}") + "\n"

    def _repr_parts(self):
        last = lambda a: float(a[-1]) if np.asarray(a).size else float("nan")  # noqa: E731
        return [("model", self.model), ("penalty_kind", self.penalty_kind), ("lam", self.lam),
                ("epochs", int(self.epoch.size)), ("rel_l2", last(self.rel_l2)), ("test_rel_l2", last(self.test_rel_l2))]

    def _plot(self, ax=None):
        """Training and test relative L2 error per epoch (log scale), and the penalty on a twin axis."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5.5, 3.4), layout="constrained")
        ax.plot(self.epoch, self.rel_l2, label="train rel. L2")
        if np.any(np.isfinite(self.test_rel_l2)):
            ax.plot(self.epoch, self.test_rel_l2, label="test rel. L2")
        ax.set_yscale("log")
        ax.set_xlabel("epoch")
        ax.set_ylabel("relative L2 error")
        if np.any(np.isfinite(self.penalty)):
            ax2 = ax.twinx()
            ax2.plot(self.epoch, self.penalty, color="grey", ls=":", label=f"{self.penalty_kind} penalty")
            ax2.set_ylabel("penalty")
        ax.legend(fontsize=8, loc="upper right")
        ax.set_title(f"{self.model}, lam = {self.lam:g}", fontsize=10)
        return ax


def _forward_latent(model: nn.Module, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    if hasattr(model, "forward_latent"):
        return model.forward_latent(x)
    return model(x), model.latent(x)


class NOIR(nn.Module):
    """Neural operator independence regularisation: train an operator on relative L2 error plus
    ``lam`` times an independence penalty on its latent layer.

    The objective of a batch of B samples is

        mean_b ||G(u_b) - v_b||_2 / ||v_b||_2 + lam * penalty(z),  z = latent(u_1..u_B) in R^(B x p),

    with the penalty of :func:`independence_penalty` (or a callable). With ``lam = 0`` the penalty is
    not part of the computation graph at all (it is evaluated on detached latents only for the
    history), so the fit is exactly the unregularised one: the same parameters, bit for bit, as
    training the bare model on relative L2 with the same batches.

    ``NOIR`` is itself a module: ``forward``, ``latent`` and ``forward_latent`` are the wrapped
    model's.

    Parameters
    ----------
    model : torch.nn.Module
        An operator with ``forward_latent(sensors)`` (or ``forward`` and ``latent``), e.g. a
        :class:`DeepONet`, :class:`PODDeepONet`, :class:`PCANet` or :class:`FNO`.
    penalty : {"hsic", "dcor", "tc"} or callable
        The independence penalty's kind, or a callable ``z -> scalar tensor``.
    lam : float >= 0
        The penalty's weight.
    penalty_args : dict, optional
        Further arguments of :func:`independence_penalty` (``estimator``, ``bandwidth``,
        ``detach_bandwidth``, ``index``, ``reduction``, ``ridge``).

    Attributes
    ----------
    model : torch.nn.Module
        The wrapped operator (trained in place by :meth:`fit`).
    history_ : TrainingHistory or None
        The record of the last fit.

    References
    ----------
    NOIR: Neural Operator Independence Regularization (NeurIPS 2026), implemented from the method's
    description; the paper's code was not available, and every choice here is a parameter.

    Lu, L. et al. (2021), DeepONet; Li, Z. et al. (2021), FNO (the relative L2 loss of both).

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> from learncore.operators import NOIR, DeepONet
    >>> x = np.linspace(0, 1, 16)
    >>> a = np.random.default_rng(0).normal(size=(40, 2))
    >>> u = a[:, :1] * np.sin(np.pi * x) + a[:, 1:] * np.sin(2 * np.pi * x)
    >>> ds = SimpleNamespace(dim=1, grid_shape=(16,), grid=x[:, None], inputs=u, targets=0.5 * u + 1,
    ...                      sensor_idx=np.arange(0, 16, 3), train_idx=np.arange(30), test_idx=np.arange(30, 40))
    >>> noir = NOIR(DeepONet.from_dataset(ds, p=4, branch_hidden=(8,), trunk_hidden=(8,)), penalty="dcor", lam=0.01)
    >>> hist = noir.fit(ds, epochs=20, batch_size=10, lr=3e-3, seed=0)
    >>> bool(hist.test_rel_l2[-1] < hist.test_rel_l2[0])
    True
    >>> noir(u[:2, ds.sensor_idx]).shape
    torch.Size([2, 16])
    """

    def __init__(self, model: nn.Module, *, penalty: str | Callable = "hsic", lam: float = 1e-3,
                 penalty_args: dict | None = None):
        super().__init__()
        if not isinstance(model, nn.Module):
            raise TypeError(f"model must be a torch.nn.Module (an operator such as DeepONet), got {type(model).__name__}")
        if not (hasattr(model, "forward_latent") or hasattr(model, "latent")):
            raise TypeError(f"model ({type(model).__name__}) must have a latent(sensors) method (the layer NOIR "
                            "regularises)")
        if callable(penalty) and not isinstance(penalty, str):
            self.penalty_kind = getattr(penalty, "__name__", "callable")
        else:
            penalty = check_choice(penalty, "penalty", _KINDS)
            self.penalty_kind = penalty
        self.penalty = penalty
        self.lam = check_nonneg_float(lam, "lam")
        if penalty_args is None:
            penalty_args = {}
        if not isinstance(penalty_args, dict):
            raise TypeError(f"penalty_args must be a dict of independence_penalty's arguments, got "
                            f"{type(penalty_args).__name__}")
        if "kind" in penalty_args:
            raise TypeError("penalty_args must not hold 'kind': pass it as penalty=")
        self.penalty_args = dict(penalty_args)
        self.model = model
        self.history_: TrainingHistory | None = None

    def penalty_value(self, z: torch.Tensor) -> torch.Tensor:
        """The penalty of a batch of latent vectors (a scalar tensor).

        Parameters
        ----------
        z : torch.Tensor, shape (B, p)
            Latent vectors.

        Returns
        -------
        torch.Tensor
        """
        if isinstance(self.penalty, str):
            return independence_penalty(z, kind=self.penalty, **self.penalty_args)
        return self.penalty(z)

    def forward_latent(self, sensors):
        """The wrapped model's predictions and latent vectors (see the model)."""
        return _forward_latent(self.model, sensors)

    def forward(self, sensors):
        """The wrapped model's predictions."""
        return self.forward_latent(sensors)[0]

    def latent(self, sensors):
        """The wrapped model's latent vectors."""
        return self.forward_latent(sensors)[1]

    def fit(self, ds, *, epochs: int = 200, batch_size: int = 32, lr: float = 1e-3, weight_decay: float = 0.0,
            lr_schedule: str = "cosine", seed=0, track_penalty: bool = True, track_test: bool = True,
            progress: bool | None = None) -> TrainingHistory:
        """Train the wrapped model on the dataset's training split (in place).

        Each epoch shuffles the training samples with a torch generator seeded from ``seed`` and splits
        them into ceil(n_train / batch_size) batches of nearly equal size (sizes differ by at most one,
        so no tiny last batch makes a noisy penalty); Adam takes one step per batch.

        Parameters
        ----------
        ds : OperatorDataset
            The data: ``ds.inputs[:, ds.sensor_idx]`` are the readings, ``ds.targets`` the outputs,
            ``ds.train_idx`` / ``ds.test_idx`` the split.
        epochs : int
            Passes over the training split.
        batch_size : int
            Samples per batch (the penalty's B); at least 4.
        lr : float
            Adam's learning rate.
        weight_decay : float
            Adam's (L2) weight decay.
        lr_schedule : {"cosine", "constant"}
            "cosine": the rate decays from ``lr`` to 0 over the epochs (cosine annealing, stepped per
            epoch); "constant": fixed.
        seed : None, int or numpy.random.Generator
            The batch order (the model's initialisation is its own, e.g. ``from_dataset(seed=)``).
        track_penalty : bool
            With lam = 0, still record the penalty of every batch (evaluated on detached latents; the
            training is unchanged). With lam > 0 it is always recorded.
        track_test : bool
            Record the test split's relative L2 error after each epoch.
        progress : bool, optional
            A progress bar over epochs (default: only on a terminal).

        Returns
        -------
        TrainingHistory
            Also kept as ``history_``.
        """
        arrs = _dataset_arrays(ds, min_train=4, need="NOIR needs at least 4 (a batch of 4)")
        epochs = check_positive_int(epochs, "epochs")
        batch_size = check_positive_int(batch_size, "batch_size", minimum=4)
        lr = check_positive_float(lr, "lr")
        weight_decay = check_nonneg_float(weight_decay, "weight_decay")
        lr_schedule = check_choice(lr_schedule, "lr_schedule", ("cosine", "constant"))
        track_penalty = check_bool(track_penalty, "track_penalty")
        track_test = check_bool(track_test, "track_test")
        progress = check_progress(progress)
        gen = torch_generator(check_seed(seed))

        dt = module_dtype(self.model)
        inputs, targets, sidx = arrs["inputs"], arrs["targets"], arrs["sensor_idx"]
        train, test = arrs["train_idx"], arrs["test_idx"]
        x_tr = torch.as_tensor(arrs["x_train"], dtype=dt)
        y_tr = torch.as_tensor(arrs["y_train"], dtype=dt)
        zero = np.flatnonzero(np.linalg.norm(arrs["y_train"], axis=1) == 0)
        if zero.size:
            raise ValueError(f"ds has {zero.size} training target(s) that are 0 everywhere (first: sample "
                             f"{train[zero[0]]}): their relative L2 error is undefined")
        x_te = torch.as_tensor(inputs[test][:, sidx], dtype=dt) if (track_test and test.size) else None
        y_te = torch.as_tensor(targets[test], dtype=dt) if x_te is not None else None

        opt = torch.optim.Adam(self.model.parameters(), lr=lr, weight_decay=weight_decay)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs) if lr_schedule == "cosine" else None
        n = train.size
        n_batches = max(1, -(-n // batch_size))
        rec = {k: np.full(epochs, np.nan) for k in ("loss", "rel_l2", "penalty", "test_rel_l2", "seconds")}
        with progress_bar(progress, epochs, desc="NOIR", unit="epoch") as bar:
            for ep in range(epochs):
                t0 = time.perf_counter()
                self.model.train()
                perm = torch.randperm(n, generator=gen)
                tot = {"loss": 0.0, "rel_l2": 0.0, "penalty": 0.0}
                for idx in torch.tensor_split(perm, n_batches):
                    pred, z = _forward_latent(self.model, x_tr[idx])
                    fit_term = relative_l2(pred, y_tr[idx]).mean()
                    if self.lam > 0:
                        pen = self.penalty_value(z)
                        loss = fit_term + self.lam * pen
                    else:
                        loss = fit_term
                        pen = None
                        if track_penalty:
                            with torch.no_grad():
                                pen = self.penalty_value(z.detach())
                    opt.zero_grad(set_to_none=True)
                    loss.backward()
                    opt.step()
                    w = idx.numel() / n
                    tot["loss"] += w * float(loss.detach())
                    tot["rel_l2"] += w * float(fit_term.detach())
                    tot["penalty"] += w * (float(pen.detach()) if pen is not None else np.nan)
                if sched is not None:
                    sched.step()
                for k, v in tot.items():
                    rec[k][ep] = v
                if x_te is not None:
                    self.model.eval()
                    with torch.no_grad():
                        rec["test_rel_l2"][ep] = float(relative_l2(self.model(x_te), y_te).mean())
                rec["seconds"][ep] = time.perf_counter() - t0
                bar.update()
        self.model.eval()
        hist = TrainingHistory(epoch=np.arange(1, epochs + 1), loss=rec["loss"], rel_l2=rec["rel_l2"],
                               penalty=rec["penalty"], test_rel_l2=rec["test_rel_l2"], seconds=rec["seconds"],
                               model=type(self.model).__name__, penalty_kind=self.penalty_kind, lam=self.lam,
                               batch_size=batch_size, n_train=int(n), lr=lr, seed=seed)
        self.history_ = hist
        return hist
