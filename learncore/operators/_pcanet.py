"""PCA-Net (Bhattacharya et al. 2021): an MLP between the PCA coefficients of the inputs and of the outputs."""
from __future__ import annotations

import math

import numpy as np
import torch

from ._model_checks import check_bool, check_choice, check_positive_int, check_widths
from .models import _ACTIVATIONS, _Operator, _dataset_arrays, _mlp, _norm_kwargs, _pca, _seeded

__all__ = ["PCANet"]


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
                     seed=0) -> "PCANet":
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
