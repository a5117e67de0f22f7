"""The Fourier neural operator (Li et al. 2021), 1-D and 2-D, with its spectral and pointwise layers."""
from __future__ import annotations

import numpy as np
import torch
from torch import nn

from ._model_checks import check_bool, check_choice, check_positive_int
from .models import _ACTIVATIONS, _Operator, _activation, _dataset_arrays, _norm_kwargs, _seeded

__all__ = ["FNO"]


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
                     normalize: bool = True, seed=0) -> "FNO":
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
