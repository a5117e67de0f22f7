"""DeepONet (Lu et al. 2021): a branch MLP on the sensors times a trunk MLP on the coordinates."""
from __future__ import annotations

import numpy as np
import torch
from torch import nn

from ._model_checks import check_bool, check_choice, check_positive_int, check_widths
from .models import _ACTIVATIONS, _Operator, _dataset_arrays, _mlp, _norm_kwargs, _seeded

__all__ = ["DeepONet"]


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
                     trunk_final_activation=True, normalize: bool = True, seed=0) -> "DeepONet":
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
