"""``TokenUncertainty``: the per-token evidential uncertainty of :func:`evidential_token_uncertainty`."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._result import Result

__all__ = ["TokenUncertainty"]


@dataclass(frozen=True, repr=False)
class TokenUncertainty(Result):
    """Per-token evidential uncertainty from the top-k logits (:func:`evidential_token_uncertainty`).

    Attributes
    ----------
    epistemic, aleatoric, entropy, weighted_entropy : ndarray (T,)
        One value per token (see :func:`evidential_token_uncertainty`); ``to_frame()`` is the table
        with these four columns.
    k : int
        The number of top logits used.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import evidential_token_uncertainty
    >>> res = evidential_token_uncertainty(np.array([[5.0, 5.0, 5.0, -1.0]]), k=3)
    >>> res.epistemic.round(4).tolist(), res.k
    ([0.1667], 3)
    """

    epistemic: np.ndarray
    aleatoric: np.ndarray
    entropy: np.ndarray
    weighted_entropy: np.ndarray
    k: int

    def _repr_parts(self):
        return [("n_tokens", int(self.entropy.size)), ("k", self.k),
                ("mean_weighted_entropy", float(np.mean(self.weighted_entropy)))]

    def summary(self) -> str:
        frame = self.to_frame()
        head = frame.head(10).to_string(float_format=lambda v: f"{v:.4g}")
        more = f"\n... {len(frame) - 10} more tokens" if len(frame) > 10 else ""
        return (f"\n\tEvidential token uncertainty (top {self.k} logits, {len(frame)} tokens)\n\n"
                f"{head}{more}\n")

    def to_frame(self):
        """One row per token: ``epistemic``, ``aleatoric``, ``entropy`` (bits), ``weighted_entropy``."""
        import pandas as pd

        return pd.DataFrame({"epistemic": self.epistemic, "aleatoric": self.aleatoric, "entropy": self.entropy,
                             "weighted_entropy": self.weighted_entropy})
