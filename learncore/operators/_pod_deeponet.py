"""POD-DeepONet (Lu et al. 2022): the trunk replaced by the first POD modes of the training outputs."""
from __future__ import annotations

import math

import numpy as np
import torch

from ._model_checks import check_bool, check_choice, check_positive_int, check_widths
from .models import _ACTIVATIONS, _Operator, _dataset_arrays, _mlp, _norm_kwargs, _pca, _seeded

__all__ = ["PODDeepONet"]


# ----------------------------------------------------------------------------------------------
# offline bases: POD-DeepONet (the PCA, _pca, is shared with PCA-Net in models.py)
# ----------------------------------------------------------------------------------------------

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
                     mode_scale: str = "rms", seed=0) -> "PODDeepONet":
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
