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
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from typing import Any

import numpy as np
import torch
from torch import nn

from ._model_checks import (as_sensor_batch, check_bool, check_choice, check_dataset, check_positive_int, check_seed,
                      check_widths)

__all__ = ["DeepONet", "PODDeepONet", "PCANet", "FNO"]

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
    rng = check_seed(seed)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(rng.integers(0, 2 ** 63 - 1)))
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


# ----------------------------------------------------------------------------------------------
# DeepONet
# ----------------------------------------------------------------------------------------------

class DeepONet(_Operator):
    """DeepONet (Lu et al. 2021): G(u)(y) = sum_k b_k(u) t_k(y) + b_0, a branch MLP on the m sensor
    readings and a trunk MLP on the query coordinate y, both of width p at their outputs.

    The latent layer is the branch output b(u) in R^p (the coefficients of the trunk basis for this
    input), which is what NOIR makes independent.

    Parameters
    ----------
    n_sensors : int
        m, the sensor readings the branch takes.
    grid : array_like, shape (n_grid, dim)
        The query coordinates (the flattened output grid); the trunk is evaluated there.
    p : int
        The latent width (branch and trunk outputs).
    branch_hidden, trunk_hidden : tuple of int
        Hidden widths of the two MLPs.
    activation : {"tanh", "relu", "gelu", "silu"}
        The hidden activation of both MLPs.
    trunk_final_activation : bool
        Apply the activation to the trunk's output layer too (Lu et al. 2021 do; the branch's output
        layer is always linear).
    x_mean, x_std, y_mean, y_std : array_like, optional
        Normalisation of the sensors (length m) and of the output (length n_grid); identity when
        None (``from_dataset`` fills them from the training split).

    Attributes
    ----------
    branch, trunk : torch.nn.Sequential
        The two MLPs.
    b0 : torch.nn.Parameter
        The output bias.

    References
    ----------
    Lu, L., Jin, P., Pang, G., Zhang, Z. & Karniadakis, G. E. (2021). Learning nonlinear operators
    via DeepONet based on the universal approximation theorem of operators. Nature Machine
    Intelligence 3, 218-229.

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.operators import DeepONet
    >>> net = DeepONet(8, np.linspace(0, 1, 32)[:, None], p=16, branch_hidden=(32,), trunk_hidden=(32,))
    >>> net(np.zeros((5, 8))).shape, net.latent(np.zeros((5, 8))).shape
    (torch.Size([5, 32]), torch.Size([5, 16]))
    """

    _latent_name = "branch output"

    def __init__(self, n_sensors: int, grid, *, p: int = 32, branch_hidden=(64, 64), trunk_hidden=(64, 64),
                 activation: str = "tanh", trunk_final_activation: bool = True, x_mean=None, x_std=None,
                 y_mean=None, y_std=None):
        super().__init__(n_sensors, grid, x_mean=x_mean, x_std=x_std, y_mean=y_mean, y_std=y_std)
        self.p = check_positive_int(p, "p")
        activation = check_choice(activation, "activation", tuple(_ACTIVATIONS))
        self.branch = _mlp(self.n_sensors, check_widths(branch_hidden, "branch_hidden"), self.p, activation, False)
        self.trunk = _mlp(self.dim, check_widths(trunk_hidden, "trunk_hidden"), self.p, activation,
                          check_bool(trunk_final_activation, "trunk_final_activation"))
        self.b0 = nn.Parameter(torch.zeros(1))

    @property
    def latent_dim(self) -> int:
        """p, the width of the branch output."""
        return self.p

    def _core(self, xn):
        z = self.branch(xn)
        return z @ self.trunk(self.grid).T + self.b0, z

    @classmethod
    def from_dataset(cls, ds, *, p: int = 32, branch_hidden=(64, 64), trunk_hidden=(64, 64), activation="tanh",
                     trunk_final_activation=True, normalize: bool = True, seed=None) -> "DeepONet":
        """A DeepONet for a dataset's sensors and grid, normalised by its training split.

        Parameters
        ----------
        ds : OperatorDataset
            The dataset (``learncore.operators.burgers_1d`` and the other generators).
        p : int
            The latent width.
        branch_hidden, trunk_hidden : tuple of int
            Hidden widths of the branch and trunk MLPs.
        activation : {"tanh", "relu", "gelu", "silu"}
            Hidden activation.
        trunk_final_activation : bool
            Activation on the trunk's output layer.
        normalize : bool
            Standardise sensors and outputs pointwise by the training split (module notes).
        seed : None, int or numpy.random.Generator
            The initialisation of the parameters (torch's global generator is left as it was).

        Returns
        -------
        DeepONet
        """
        arrs = _dataset_arrays(ds)
        normalize = check_bool(normalize, "normalize")
        with _seeded(seed):
            return cls(arrs["sensor_idx"].size, arrs["grid"], p=p, branch_hidden=branch_hidden,
                       trunk_hidden=trunk_hidden, activation=activation, trunk_final_activation=trunk_final_activation,
                       **_norm_kwargs(arrs, normalize))


# ----------------------------------------------------------------------------------------------
# offline bases: POD-DeepONet and PCA-Net
# ----------------------------------------------------------------------------------------------

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


class PODDeepONet(_Operator):
    """POD-DeepONet (Lu et al. 2022): the trunk replaced by the first p POD modes of the training
    outputs, G(u)(y) = phi_0(y) + sum_k b_k(u) phi_k(y), with a branch MLP for the coefficients b.

    The basis is orthogonal and fixed offline (the contrast the NOIR paper draws: orthogonal modes do
    not make the coefficients independent). The latent layer is b(u) in R^p.

    Parameters
    ----------
    n_sensors : int
        m, the sensor readings the branch takes.
    grid : array_like, shape (n_grid, dim)
        The output grid.
    basis : array_like, shape (n_grid, p)
        The modes phi_1..phi_p (in the normalised output units).
    basis_mean : array_like, shape (n_grid,), optional
        phi_0, the mean output (zeros when None).
    branch_hidden : tuple of int
        Hidden widths of the branch MLP.
    activation : {"tanh", "relu", "gelu", "silu"}
        Hidden activation.
    x_mean, x_std, y_mean, y_std : array_like, optional
        Normalisation (see :class:`DeepONet`).

    Attributes
    ----------
    basis : torch.Tensor
        The modes (n_grid, p), a buffer (not trained).
    explained_variance : numpy.ndarray or None
        From ``from_dataset``: the share of the training outputs' variance of each retained mode.

    References
    ----------
    Lu, L., Meng, X., Cai, S., Mao, Z., Goswami, S., Zhang, Z. & Karniadakis, G. E. (2022). A
    comprehensive and fair comparison of two neural operators (with practical extensions) based on
    FAIR data. Computer Methods in Applied Mechanics and Engineering 393, 114778.

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.operators import PODDeepONet
    >>> basis = np.linalg.qr(np.random.default_rng(0).normal(size=(32, 4)))[0]
    >>> net = PODDeepONet(8, np.linspace(0, 1, 32)[:, None], basis, branch_hidden=(16,))
    >>> net.latent(np.zeros((3, 8))).shape
    torch.Size([3, 4])
    """

    _latent_name = "POD coefficients"

    def __init__(self, n_sensors: int, grid, basis, *, basis_mean=None, branch_hidden=(64, 64), activation="tanh",
                 x_mean=None, x_std=None, y_mean=None, y_std=None):
        super().__init__(n_sensors, grid, x_mean=x_mean, x_std=x_std, y_mean=y_mean, y_std=y_std)
        b = np.asarray(basis, dtype=np.float64)
        if b.ndim != 2 or b.shape[0] != self.n_grid or b.shape[1] < 1 or not np.all(np.isfinite(b)):
            raise ValueError(f"basis must be a finite ({self.n_grid}, p) array of modes, got shape {b.shape}")
        mean = np.zeros(self.n_grid) if basis_mean is None else np.asarray(basis_mean, dtype=np.float64)
        if mean.shape != (self.n_grid,):
            raise ValueError(f"basis_mean must have length {self.n_grid}, got shape {mean.shape}")
        dt = torch.get_default_dtype()
        self.register_buffer("basis", torch.tensor(np.array(b), dtype=dt))
        self.register_buffer("basis_mean", torch.tensor(np.array(mean), dtype=dt))
        activation = check_choice(activation, "activation", tuple(_ACTIVATIONS))
        self.branch = _mlp(self.n_sensors, check_widths(branch_hidden, "branch_hidden"), b.shape[1], activation,
                           False)
        self.explained_variance = None

    @property
    def latent_dim(self) -> int:
        """p, the number of POD modes."""
        return int(self.basis.shape[1])

    def _core(self, xn):
        z = self.branch(xn)
        return self.basis_mean + z @ self.basis.T, z

    @classmethod
    def from_dataset(cls, ds, *, p: int = 32, branch_hidden=(64, 64), activation="tanh", normalize: bool = True,
                     mode_scale: str = "rms", seed=None) -> "PODDeepONet":
        """A POD-DeepONet whose modes are the principal directions of the (normalised) training outputs.

        Parameters
        ----------
        ds : OperatorDataset
            The dataset.
        p : int
            The number of POD modes (the latent width), at most min(n_train, n_grid).
        branch_hidden : tuple of int
            Hidden widths of the branch MLP.
        activation : {"tanh", "relu", "gelu", "silu"}
            Hidden activation.
        normalize : bool
            Standardise sensors and outputs pointwise (module notes); the POD is taken of the
            standardised outputs.
        mode_scale : {"rms", "unit"}
            "rms" (default): each mode scaled to a root-mean-square of 1 over the grid (unit vector
            times sqrt(n_grid)), so the coefficients have the size of the field; "unit": unit
            Euclidean norm (coefficients grow with sqrt(n_grid)).
        seed : None, int or numpy.random.Generator
            The initialisation of the branch.

        Returns
        -------
        PODDeepONet
        """
        arrs = _dataset_arrays(ds)
        normalize = check_bool(normalize, "normalize")
        mode_scale = check_choice(mode_scale, "mode_scale", ("rms", "unit"))
        p = check_positive_int(p, "p")
        kw = _norm_kwargs(arrs, normalize)
        y = arrs["y_train"]
        if normalize:
            y = (y - kw["y_mean"]) / kw["y_std"]
        mean, v, s = _pca(y, p, "p")
        if mode_scale == "rms":
            v = v * math.sqrt(y.shape[1])
        with _seeded(seed):
            net = cls(arrs["sensor_idx"].size, arrs["grid"], v, basis_mean=mean, branch_hidden=branch_hidden,
                      activation=activation, **kw)
        net.explained_variance = (s[:p] ** 2) / max(float(np.sum(s ** 2)), 1e-300)
        return net


class PCANet(_Operator):
    """PCA-Net (Bhattacharya et al. 2021): PCA of the inputs (here the m sensor readings) to d_in
    coefficients, an MLP from those to the p PCA coefficients of the output, and the output PCA
    modes back to the grid: G(u) = psi_0 + sum_k z_k(u) psi_k.

    Both bases are fixed offline from the training split and orthogonal. The latent layer is the
    predicted output coefficients z(u) in R^p.

    Parameters
    ----------
    n_sensors : int
        m.
    grid : array_like, shape (n_grid, dim)
        The output grid.
    in_basis : array_like, shape (m, d_in)
        The input encoder: coefficients are ``(x - in_mean) @ in_basis`` (x the normalised readings).
    in_mean : array_like, shape (m,)
        The input PCA mean.
    out_basis : array_like, shape (n_grid, p)
        The output modes psi_1..psi_p.
    out_mean : array_like, shape (n_grid,)
        psi_0.
    hidden : tuple of int
        Hidden widths of the MLP between the coefficient spaces.
    activation : {"tanh", "relu", "gelu", "silu"}
        Hidden activation.
    x_mean, x_std, y_mean, y_std : array_like, optional
        Normalisation (see :class:`DeepONet`).

    References
    ----------
    Bhattacharya, K., Hosseini, B., Kovachki, N. B. & Stuart, A. M. (2021). Model reduction and
    neural networks for parametric PDEs. SMAI Journal of Computational Mathematics 7, 121-157.

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.operators import PCANet
    >>> rng = np.random.default_rng(0)
    >>> net = PCANet(8, np.linspace(0, 1, 32)[:, None], np.linalg.qr(rng.normal(size=(8, 3)))[0], np.zeros(8),
    ...              np.linalg.qr(rng.normal(size=(32, 5)))[0], np.zeros(32), hidden=(16,))
    >>> net(np.zeros((2, 8))).shape, net.latent_dim
    (torch.Size([2, 32]), 5)
    """

    _latent_name = "output PCA coefficients"

    def __init__(self, n_sensors: int, grid, in_basis, in_mean, out_basis, out_mean, *, hidden=(64, 64),
                 activation="tanh", x_mean=None, x_std=None, y_mean=None, y_std=None):
        super().__init__(n_sensors, grid, x_mean=x_mean, x_std=x_std, y_mean=y_mean, y_std=y_std)
        mats = {}
        for name, val, rows in (("in_basis", in_basis, self.n_sensors), ("out_basis", out_basis, self.n_grid)):
            a = np.asarray(val, dtype=np.float64)
            if a.ndim != 2 or a.shape[0] != rows or a.shape[1] < 1 or not np.all(np.isfinite(a)):
                raise ValueError(f"{name} must be a finite ({rows}, k) array, got shape {a.shape}")
            mats[name] = a
        for name, val, size in (("in_mean", in_mean, self.n_sensors), ("out_mean", out_mean, self.n_grid)):
            a = np.asarray(val, dtype=np.float64)
            if a.shape != (size,) or not np.all(np.isfinite(a)):
                raise ValueError(f"{name} must be a finite vector of length {size}, got shape {a.shape}")
            mats[name] = a
        dt = torch.get_default_dtype()
        for name, a in mats.items():
            self.register_buffer(name, torch.tensor(np.array(a), dtype=dt))
        activation = check_choice(activation, "activation", tuple(_ACTIVATIONS))
        self.mlp = _mlp(mats["in_basis"].shape[1], check_widths(hidden, "hidden"), mats["out_basis"].shape[1],
                        activation, False)
        self.explained_variance = None

    @property
    def latent_dim(self) -> int:
        """p, the number of output modes."""
        return int(self.out_basis.shape[1])

    def _core(self, xn):
        z = self.mlp((xn - self.in_mean) @ self.in_basis)
        return self.out_mean + z @ self.out_basis.T, z

    @classmethod
    def from_dataset(cls, ds, *, p: int = 32, n_input_components: int | None = None, hidden=(64, 64),
                     activation="tanh", normalize: bool = True, whiten: bool = True, mode_scale: str = "rms",
                     seed=None) -> "PCANet":
        """A PCA-Net with both bases from the training split.

        Parameters
        ----------
        ds : OperatorDataset
            The dataset.
        p : int
            Output PCA modes (the latent width).
        n_input_components : int, optional
            d_in, the input PCA coefficients (default min(m, p)).
        hidden : tuple of int
            Hidden widths of the MLP.
        activation : {"tanh", "relu", "gelu", "silu"}
            Hidden activation.
        normalize : bool
            Standardise sensors and outputs pointwise before the PCAs (module notes).
        whiten : bool
            Scale the input coefficients to unit variance over the training split (True, default) or
            keep the projections onto the unit directions.
        mode_scale : {"rms", "unit"}
            The scale of the output modes (see :meth:`PODDeepONet.from_dataset`).
        seed : None, int or numpy.random.Generator
            The initialisation of the MLP.

        Returns
        -------
        PCANet
        """
        arrs = _dataset_arrays(ds)
        normalize = check_bool(normalize, "normalize")
        whiten = check_bool(whiten, "whiten")
        mode_scale = check_choice(mode_scale, "mode_scale", ("rms", "unit"))
        p = check_positive_int(p, "p")
        m = arrs["sensor_idx"].size
        d_in = min(m, p) if n_input_components is None else check_positive_int(n_input_components,
                                                                               "n_input_components")
        kw = _norm_kwargs(arrs, normalize)
        x, y = arrs["x_train"], arrs["y_train"]
        if normalize:
            x = (x - kw["x_mean"]) / kw["x_std"]
            y = (y - kw["y_mean"]) / kw["y_std"]
        in_mean, vin, sin = _pca(x, d_in, "n_input_components")
        if whiten:
            sd = sin[:d_in] / math.sqrt(x.shape[0])
            vin = vin / np.where(sd > 1e-12 * max(sd[0], 1e-300), sd, 1.0)
        out_mean, vout, sout = _pca(y, p, "p")
        if mode_scale == "rms":
            vout = vout * math.sqrt(y.shape[1])
        with _seeded(seed):
            net = cls(m, arrs["grid"], vin, in_mean, vout, out_mean, hidden=hidden, activation=activation, **kw)
        net.explained_variance = (sout[:p] ** 2) / max(float(np.sum(sout ** 2)), 1e-300)
        return net


# ----------------------------------------------------------------------------------------------
# FNO
# ----------------------------------------------------------------------------------------------

class _SpectralConv(nn.Module):
    """Multiplication of the lowest Fourier modes by learned complex matrices (Li et al. 2021): 1-D
    modes k < modes[0]; 2-D the two corners k1 < m1 or k1 >= H - m1, k2 < m2 of the real FFT."""

    def __init__(self, width: int, modes: tuple):
        super().__init__()
        self.modes = modes
        scale = 1.0 / (width * width)
        n_blocks = 1 if len(modes) == 1 else 2
        # real and imaginary parts as real parameters (so .double() and gradcheck apply)
        self.weight = nn.Parameter(scale * torch.rand(n_blocks, 2, width, width, *modes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w = torch.complex(self.weight[:, 0], self.weight[:, 1])
        if len(self.modes) == 1:
            n = x.shape[-1]
            xf = torch.fft.rfft(x, dim=-1)
            out = torch.zeros_like(xf)
            k = self.modes[0]
            out[..., :k] = torch.einsum("bik,iok->bok", xf[..., :k], w[0])
            return torch.fft.irfft(out, n=n, dim=-1)
        H, W = x.shape[-2:]
        xf = torch.fft.rfft2(x, dim=(-2, -1))
        out = torch.zeros_like(xf)
        m1, m2 = self.modes
        out[..., :m1, :m2] = torch.einsum("bixy,ioxy->boxy", xf[..., :m1, :m2], w[0])
        out[..., H - m1:, :m2] = torch.einsum("bixy,ioxy->boxy", xf[..., H - m1:, :m2], w[1])
        return torch.fft.irfft2(out, s=(H, W), dim=(-2, -1))


class _Pointwise(nn.Module):
    """A 1 x 1 convolution (a linear map of the channels at every grid point), channels first."""

    def __init__(self, n_in: int, n_out: int):
        super().__init__()
        self.lin = nn.Linear(n_in, n_out)

    def forward(self, x):
        return torch.movedim(self.lin(torch.movedim(x, 1, -1)), -1, 1)


class FNO(_Operator):
    """A Fourier neural operator (Li et al. 2021) in 1-D or 2-D, reading sparse sensors placed on the
    grid with a mask channel.

    Input channels at every grid point: the (normalised) sensor reading where there is a sensor and
    0 elsewhere, the mask (1 at sensors, 0 elsewhere), and, with ``coordinates=True``, the dim grid
    coordinates. A pointwise lift to ``width`` channels, ``n_layers`` Fourier layers
    v <- act(K v + W v) (K the spectral convolution on the lowest ``modes``, W pointwise; no
    activation after the last layer, as Li et al.), and a pointwise projection MLP to one channel.

    The latent layer is the ``width`` channels after Fourier layer ``latent_layer``, averaged over the
    grid: the zero-frequency Fourier coefficient of each channel (divided by n_grid), p = width.

    Parameters
    ----------
    n_sensors : int
        m.
    grid : array_like, shape (n_grid, dim)
        The flattened grid (row-major over ``grid_shape``).
    grid_shape : tuple of int
        (n,) or (H, W).
    sensor_idx : array_like of int, shape (m,)
        Where on the flattened grid the sensors sit (distinct).
    width : int
        Channels of the Fourier layers (the latent width p).
    modes : int or tuple of int
        Fourier modes kept per dimension (an int is used for every dimension); at most n // 2 + 1 in
        1-D, at most H // 2 and W // 2 + 1 in 2-D.
    n_layers : int
        Fourier layers.
    projection_hidden : int
        Hidden width of the projection MLP.
    activation : {"gelu", "relu", "tanh", "silu"}
        Activation of the Fourier layers and the projection.
    coordinates : bool
        Append the grid coordinates as input channels.
    latent_layer : int
        Which Fourier layer's output is pooled into the latent vector (Python indexing; -1 the last).
    x_mean, x_std, y_mean, y_std : array_like, optional
        Normalisation (see :class:`DeepONet`).

    References
    ----------
    Li, Z., Kovachki, N., Azizzadenesheli, K., Liu, B., Bhattacharya, K., Stuart, A. & Anandkumar, A.
    (2021). Fourier neural operator for parametric partial differential equations. ICLR 2021.

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.operators import FNO
    >>> grid = np.linspace(0, 1, 64, endpoint=False)[:, None]
    >>> net = FNO(8, grid, (64,), np.arange(0, 64, 8), width=12, modes=8, n_layers=2)
    >>> net(np.zeros((3, 8))).shape, net.latent(np.zeros((3, 8))).shape
    (torch.Size([3, 64]), torch.Size([3, 12]))
    """

    _latent_name = "pooled Fourier-layer channels"

    def __init__(self, n_sensors: int, grid, grid_shape, sensor_idx, *, width: int = 24, modes=12, n_layers: int = 3,
                 projection_hidden: int = 64, activation: str = "gelu", coordinates: bool = True,
                 latent_layer: int = -1, x_mean=None, x_std=None, y_mean=None, y_std=None):
        super().__init__(n_sensors, grid, x_mean=x_mean, x_std=x_std, y_mean=y_mean, y_std=y_std)
        shape = tuple(check_positive_int(s, "grid_shape") for s in np.atleast_1d(np.asarray(grid_shape)).tolist())
        if len(shape) not in (1, 2) or len(shape) != self.dim or int(np.prod(shape)) != self.n_grid:
            raise ValueError(f"grid_shape {shape} must be (n,) or (H, W) with as many axes as grid has columns "
                             f"({self.dim}) and hold its {self.n_grid} points")
        self.grid_shape = shape
        idx = np.asarray(sensor_idx)
        if idx.dtype.kind not in "iu" or idx.shape != (self.n_sensors,):
            raise ValueError(f"sensor_idx must be {self.n_sensors} integer grid indices, got {idx.dtype} {idx.shape}")
        if idx.min() < 0 or idx.max() >= self.n_grid or np.unique(idx).size != idx.size:
            raise ValueError(f"sensor_idx must hold distinct indices in [0, {self.n_grid})")
        self.register_buffer("sensor_idx", torch.tensor(np.array(idx), dtype=torch.int64))
        self.width = check_positive_int(width, "width")
        self.n_layers = check_positive_int(n_layers, "n_layers")
        if isinstance(modes, (int, np.integer)) and not isinstance(modes, bool):
            modes = (int(modes),) * self.dim
        modes = tuple(check_positive_int(k, "modes") for k in modes)
        if len(modes) != self.dim:
            raise ValueError(f"modes must be an int or {self.dim} ints, got {modes}")
        limits = (shape[0] // 2 + 1,) if self.dim == 1 else (shape[0] // 2, shape[1] // 2 + 1)
        if any(k > lim for k, lim in zip(modes, limits)):
            raise ValueError(f"modes {modes} exceed what the grid {shape} resolves (at most {limits})")
        self.modes = modes
        activation = check_choice(activation, "activation", tuple(_ACTIVATIONS))
        self.coordinates = check_bool(coordinates, "coordinates")
        if isinstance(latent_layer, bool) or not isinstance(latent_layer, (int, np.integer)) \
                or not -self.n_layers <= int(latent_layer) < self.n_layers:
            raise ValueError(f"latent_layer must be an int in [-{self.n_layers}, {self.n_layers}), got {latent_layer!r}")
        self.latent_layer = int(latent_layer) % self.n_layers
        n_in = 2 + (self.dim if self.coordinates else 0)
        self.lift = _Pointwise(n_in, self.width)
        self.spectral = nn.ModuleList(_SpectralConv(self.width, modes) for _ in range(self.n_layers))
        self.pointwise = nn.ModuleList(_Pointwise(self.width, self.width) for _ in range(self.n_layers))
        self.act = _activation(activation)
        self.project = nn.Sequential(_Pointwise(self.width, check_positive_int(projection_hidden, "projection_hidden")),
                                     _activation(activation), _Pointwise(projection_hidden, 1))
        mask = torch.zeros(self.n_grid)
        mask[self.sensor_idx] = 1.0
        self.register_buffer("mask", mask)

    @property
    def latent_dim(self) -> int:
        """p = width."""
        return self.width

    def _core(self, xn):
        B = xn.shape[0]
        field = torch.zeros(B, self.n_grid, dtype=xn.dtype, device=xn.device).index_copy(1, self.sensor_idx, xn)
        chans = [field, self.mask.expand(B, -1)]
        if self.coordinates:
            chans += [self.grid[:, d].expand(B, -1) for d in range(self.dim)]
        v = torch.stack(chans, dim=1).reshape(B, len(chans), *self.grid_shape)
        v = self.lift(v)
        z = None
        for i, (k, w) in enumerate(zip(self.spectral, self.pointwise)):
            v = k(v) + w(v)
            if i < self.n_layers - 1:
                v = self.act(v)
            if i == self.latent_layer:
                z = v.mean(dim=tuple(range(2, v.dim())))
        out = self.project(v)[:, 0].reshape(B, self.n_grid)
        return out, z

    @classmethod
    def from_dataset(cls, ds, *, width: int = 24, modes=None, n_layers: int = 3, projection_hidden: int = 64,
                     activation: str = "gelu", coordinates: bool = True, latent_layer: int = -1,
                     normalize: bool = True, seed=None) -> "FNO":
        """An FNO for a dataset's grid and sensor layout.

        Parameters
        ----------
        ds : OperatorDataset
            The dataset (1-D or 2-D grid).
        width : int
            Channels (the latent width).
        modes : int or tuple of int, optional
            Fourier modes per dimension; default min(12, n // 2) in 1-D and min(8, H // 2) by
            min(8, W // 2) in 2-D.
        n_layers : int
            Fourier layers.
        projection_hidden : int
            Hidden width of the projection.
        activation : {"gelu", "relu", "tanh", "silu"}
            Activation.
        coordinates : bool
            Grid coordinates as input channels.
        latent_layer : int
            The Fourier layer pooled into the latent vector.
        normalize : bool
            Standardise sensors and outputs pointwise (module notes).
        seed : None, int or numpy.random.Generator
            The initialisation.

        Returns
        -------
        FNO
        """
        arrs = _dataset_arrays(ds)
        normalize = check_bool(normalize, "normalize")
        shape = arrs["grid_shape"]
        if modes is None:
            modes = (min(12, shape[0] // 2),) if len(shape) == 1 else (min(8, shape[0] // 2), min(8, shape[1] // 2))
        with _seeded(seed):
            return cls(arrs["sensor_idx"].size, arrs["grid"], shape, arrs["sensor_idx"], width=width, modes=modes,
                       n_layers=n_layers, projection_hidden=projection_hidden, activation=activation,
                       coordinates=coordinates, latent_layer=latent_layer, **_norm_kwargs(arrs, normalize))
