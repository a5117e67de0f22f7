"""Tiny exact datasets for the model/penalty/training tests, built inline (no dependence on the data
generators): the heat equation on the periodic unit interval, solved exactly mode by mode, and a 2-D
field for shapes."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class TinyDataset:
    """The fields of learncore.operators' OperatorDataset that the models, training and evaluation read."""

    name: str
    dim: int
    grid_shape: tuple
    grid: np.ndarray
    inputs: np.ndarray
    targets: np.ndarray
    sensor_idx: np.ndarray
    train_idx: np.ndarray
    test_idx: np.ndarray
    params: dict = field(default_factory=dict)

    @property
    def sensors(self):
        return self.inputs[:, self.sensor_idx]

    @property
    def sensor_coords(self):
        return self.grid[self.sensor_idx]


def heat_1d(n_samples=200, *, resolution=32, n_sensors=8, n_modes=4, nu=0.02, T=0.5, n_test=40, seed=0):
    """u0 = sum_k (a_k cos 2 pi k x + b_k sin 2 pi k x) / k, a, b ~ N(0, 1); u(x, T) = the same with each
    mode damped by exp(-nu (2 pi k)^2 T), plus the constant 1 (so no target is 0). Exact."""
    rng = np.random.default_rng(seed)
    x = np.arange(resolution) / resolution
    k = np.arange(1, n_modes + 1)
    a, b = rng.normal(size=(2, n_samples, n_modes)) / k
    damp = np.exp(-nu * (2 * np.pi * k) ** 2 * T)
    cos, sin = np.cos(2 * np.pi * np.outer(k, x)), np.sin(2 * np.pi * np.outer(k, x))
    u0 = a @ cos + b @ sin
    uT = 1.0 + (a * damp) @ cos + (b * damp) @ sin
    sensor_idx = np.linspace(0, resolution, n_sensors, endpoint=False).astype(np.int64)
    perm = rng.permutation(n_samples)
    return TinyDataset("heat_1d", 1, (resolution,), x[:, None], u0, uT, sensor_idx, np.sort(perm[n_test:]),
                       np.sort(perm[:n_test]), {"nu": nu, "T": T})


def field_2d(n_samples=24, *, n=8, n_sensors=10, seed=0):
    """A smooth random 2-D input and a pointwise nonlinear output on an n x n grid (for shapes)."""
    rng = np.random.default_rng(seed)
    g = np.arange(n) / n
    X, Y = np.meshgrid(g, g, indexing="ij")
    grid = np.column_stack([X.ravel(), Y.ravel()])
    c = rng.normal(size=(n_samples, 3))
    u = c[:, :1] * np.sin(2 * np.pi * grid[:, 0]) + c[:, 1:2] * np.cos(2 * np.pi * grid[:, 1]) + c[:, 2:]
    v = np.tanh(u) + 2.0
    sensor_idx = np.sort(rng.choice(n * n, n_sensors, replace=False))
    return TinyDataset("field_2d", 2, (n, n), grid, u, v, sensor_idx, np.arange(n_samples - 6),
                       np.arange(n_samples - 6, n_samples))
