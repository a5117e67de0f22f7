"""Neural operators that map m sensor readings of an input field to the output field on a grid, each
with a named latent layer (what NOIR regularises): DeepONet, POD-DeepONet, PCA-Net and a 1-D/2-D FNO.

Every model is a ``torch.nn.Module`` with

- ``forward(sensors)``: (B, m) readings -> (B, n_grid) predictions of the output field, in the units
  of the data;
- ``latent(sensors)``: (B, p) latent vectors; ``forward_latent(sensors)`` gives both from one pass;
- ``from_dataset(ds, ...)``: the model sized to a dataset's geometry (sensors, grid) and, where it
  has offline bases or normalisation statistics, fitted to its training split only.

Normalisation (``normalize=True``, every model): the sensors are standardised by their pointwise
mean and standard deviation over the training samples, and the network predicts the output
standardised by its pointwise training mean and standard deviation (Li et al. 2021's
"UnitGaussianNormalizer"); a standard deviation of 0 (a Dirichlet boundary) is replaced by the median
standard deviation of the other points (1 if all are 0). The
statistics are buffers of the module (saved with its state), never updated after construction.

This module holds what the models share (the base class ``_Operator``, the MLP, the normalisation
statistics, the PCA, the seeded initialisation); each model is in its own module: ``_deeponet.py``,
``_pod_deeponet.py``, ``_pcanet.py``, ``_fno.py``.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Any

import numpy as np
import torch
from torch import nn

from .._torch import torch_seeded
from ._model_checks import as_sensor_batch, check_dataset, check_positive_int, check_seed

__all__: list[str] = []   # the models are in _deeponet.py, _pod_deeponet.py, _pcanet.py and _fno.py

_ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU, "gelu": nn.GELU, "silu": nn.SiLU}


def _activation(name: str) -> nn.Module:
    return _ACTIVATIONS[name]()


def _mlp(n_in: int, hidden: tuple, n_out: int, activation: str, final_activation: bool) -> nn.Sequential:
    layers: list[nn.Module] = []
    widths = (n_in,) + tuple(hidden)
    for a, b in zip(widths[:-1], widths[1:]):
        layers += [nn.Linear(a, b), _activation(activation)]
    layers.append(nn.Linear(widths[-1], n_out))
    if final_activation:
        layers.append(_activation(activation))
    return nn.Sequential(*layers)


def _stats(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean = values.mean(axis=0)
    std = values.std(axis=0)
    live = std > 1e-12 * max(float(np.abs(values).max()), 1e-300)
    # a constant point (Darcy's boundary) gets the median scale of the others, not 1: with 1 its
    # normalised-space errors would count (1 / typical sd) times more than everywhere else
    std = np.where(live, std, float(np.median(std[live])) if live.any() else 1.0)
    return mean, std


def _dataset_arrays(ds: Any, *, min_train: int = 2, need: str = "the models' statistics need at least 2"
                    ) -> dict:
    """Geometry and split arrays of a dataset (float64), checked; ``min_train`` training samples at
    least (``need`` says why, in the error). The test split is left to the caller (``inputs``,
    ``targets``, ``test_idx``): only NOIR's tracking of the test error slices it."""
    check_dataset(ds)
    grid = np.asarray(ds.grid, dtype=np.float64)
    sensor_idx = np.asarray(ds.sensor_idx, dtype=np.int64)
    inputs = np.asarray(ds.inputs, dtype=np.float64)
    targets = np.asarray(ds.targets, dtype=np.float64)
    train = np.asarray(ds.train_idx, dtype=np.int64)
    if train.size < min_train:
        raise ValueError(f"ds has {train.size} training sample(s); {need}")
    return {"grid": grid, "grid_shape": tuple(int(s) for s in ds.grid_shape), "dim": int(ds.dim),
            "sensor_idx": sensor_idx, "train_idx": train, "test_idx": np.asarray(ds.test_idx, dtype=np.int64),
            "inputs": inputs, "targets": targets,
            "x_train": inputs[train][:, sensor_idx], "y_train": targets[train]}


def _norm_kwargs(arrs: dict, normalize: bool) -> dict:
    if not normalize:
        return {}
    xm, xs = _stats(arrs["x_train"])
    ym, ys = _stats(arrs["y_train"])
    return {"x_mean": xm, "x_std": xs, "y_mean": ym, "y_std": ys}


@contextmanager
def _seeded(seed: Any):
    """A context in which torch's global generator is seeded from ``seed`` and restored afterwards
    (the parameters' initialisation is then a function of the seed alone)."""
    with torch_seeded(check_seed(seed)):
        yield


class _Operator(nn.Module):
    """Shared plumbing: the normalisation buffers, the sensor door, forward/latent."""

    _latent_name = "latent"

    def __init__(self, n_sensors: int, grid, *, x_mean=None, x_std=None, y_mean=None, y_std=None):
        super().__init__()
        self.n_sensors = check_positive_int(n_sensors, "n_sensors")
        g = np.asarray(grid, dtype=np.float64)
        if g.ndim == 1:
            g = g[:, None]
        if g.ndim != 2 or g.shape[0] < 2 or not np.all(np.isfinite(g)):
            raise ValueError(f"grid must be a finite (n_grid, dim) array of coordinates, got shape {g.shape}")
        self.n_grid, self.dim = int(g.shape[0]), int(g.shape[1])
        dt = torch.get_default_dtype()
        self.register_buffer("grid", torch.tensor(np.array(g), dtype=dt))
        for name, val, size in (("x_mean", x_mean, self.n_sensors), ("x_std", x_std, self.n_sensors),
                                ("y_mean", y_mean, self.n_grid), ("y_std", y_std, self.n_grid)):
            default = 0.0 if name.endswith("mean") else 1.0
            arr = np.full(size, default) if val is None else np.asarray(val, dtype=np.float64)
            if arr.shape != (size,) or not np.all(np.isfinite(arr)):
                raise ValueError(f"{name} must be a finite vector of length {size}, got shape {arr.shape}")
            if name.endswith("std") and np.any(arr <= 0):
                raise ValueError(f"{name} must be positive")
            self.register_buffer(name, torch.tensor(np.array(arr), dtype=dt))

    @property
    def latent_dim(self) -> int:
        """p, the width of the latent layer."""
        raise NotImplementedError

    def _dtype(self) -> torch.dtype:
        return self.grid.dtype

    def _core(self, xn: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        raise NotImplementedError

    def forward_latent(self, sensors) -> tuple[torch.Tensor, torch.Tensor]:
        """Predictions (B, n_grid) and latent vectors (B, p) from one pass.

        Parameters
        ----------
        sensors : torch.Tensor or array_like, shape (B, m)
            Sensor readings (numpy arrays become tensors of the model's dtype).

        Returns
        -------
        tuple of torch.Tensor
            ``(predictions, latent)``.
        """
        x = as_sensor_batch(sensors, "sensors", self.n_sensors, self._dtype())
        yn, z = self._core((x - self.x_mean) / self.x_std)
        return yn * self.y_std + self.y_mean, z

    def forward(self, sensors) -> torch.Tensor:
        """Predictions of the output field on the grid, (B, n_grid), from readings (B, m)."""
        return self.forward_latent(sensors)[0]

    def latent(self, sensors) -> torch.Tensor:
        """The latent vectors (B, p) that NOIR regularises, from readings (B, m)."""
        return self.forward_latent(sensors)[1]

    def extra_repr(self) -> str:
        return f"n_sensors={self.n_sensors}, n_grid={self.n_grid}, dim={self.dim}, latent={self._latent_name}"


def _pca(values: np.ndarray, k: int, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean, the first k principal directions (columns, unit norm) and all singular values of the
    rows of ``values``."""
    n, d = values.shape
    if k > min(n, d):
        raise ValueError(f"{name}: {k} components asked, but the training data have only {min(n, d)} "
                         f"({n} samples of {d} values)")
    mean = values.mean(axis=0)
    _, s, vt = np.linalg.svd(values - mean, full_matrices=False)
    # sign convention: the largest entry of each direction is positive (a deterministic basis)
    v = vt[:k].T
    flip = np.sign(v[np.argmax(np.abs(v), axis=0), np.arange(k)])
    return mean, v * flip, s
