"""Neural operators trained with an independence regulariser on their latent features (NOIR).

- data: :func:`burgers_1d`, :func:`darcy_2d`, :func:`advection_1d`, :func:`diffusion_1d`, seeded
  datasets generated here (no downloads), each an :class:`OperatorDataset` that states its
  resolution, sensor layout and split (``describe()``).
- corruptions: :func:`corrupt` with the five additive sensor corruptions :data:`CORRUPTIONS`
  ("gaussian", "student_t", "impulse", "bias", "drift"), each scaled by a level relative to the
  per-sample field standard deviation.
- models: :class:`DeepONet`, :class:`PODDeepONet`, :class:`PCANet`, :class:`FNO` (1-D and 2-D),
  each built from a dataset's geometry (``from_dataset``), with ``forward(sensors)`` and
  ``latent(sensors)``, the layer NOIR regularises.
- :func:`independence_penalty`: normalised HSIC, squared distance correlation or Gaussian total
  correlation among the latent coordinates of a batch, equal to statcore's statistics.
- :class:`NOIR`: training with loss = relative L2 + lam * penalty; :class:`TrainingHistory`.
- :func:`evaluate`, :func:`latent_signature`, :class:`LatentSignature`: errors under sensor
  corruptions, and the statistical signature of the latent layer (statcore.independence_matrix).

Needs PyTorch (``import learncore`` alone does not import it); the data and corruption modules
themselves use numpy and scipy only.
"""
__all__: list[str] = []

# --- data and corruptions (noirdata) ---
from .corruptions import CORRUPTIONS, corrupt  # noqa: E402
from .data import OperatorDataset, advection_1d, burgers_1d, darcy_2d, diffusion_1d  # noqa: E402

__all__ += ["OperatorDataset", "burgers_1d", "darcy_2d", "advection_1d", "diffusion_1d", "CORRUPTIONS", "corrupt"]

# --- models, penalty, training, evaluation (noirmodel) ---
from ._deeponet import DeepONet  # noqa: E402
from ._fno import FNO  # noqa: E402
from ._pcanet import PCANet  # noqa: E402
from ._pod_deeponet import PODDeepONet  # noqa: E402
from .penalty import independence_penalty  # noqa: E402

__all__ += ["DeepONet", "PODDeepONet", "PCANet", "FNO", "independence_penalty"]
from .training import NOIR, TrainingHistory  # noqa: E402

__all__ += ["NOIR", "TrainingHistory"]
from ._evaluate import LatentSignature, OperatorErrors, evaluate, latent_signature  # noqa: E402

__all__ += ["evaluate", "latent_signature", "LatentSignature", "OperatorErrors"]
