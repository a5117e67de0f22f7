"""``PartialCorrelationTests``: the k tests of :func:`parcor_pvalues`, a vectorised HTest."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._r.rformat import R_DIGITS, format_table
from .._result import HTest, Result

__all__ = ["PartialCorrelationTests"]


@dataclass(frozen=True, repr=False)
class PartialCorrelationTests(HTest):
    """The partial-correlation tests of k projected pairs (:func:`statcore.parcor_pvalues`): a
    vectorised ``HTest``, one test per direction.

    Attributes
    ----------
    rho : ndarray (k,)
        The partial correlations (the estimates).
    statistic : ndarray (k,)
        t = rho sqrt(df / (1 - rho^2)) on ``df`` = n - 2 - q degrees of freedom, or Fisher's
        z = sqrt(n - q - 3) atanh(rho) (``kind``).
    p_value : ndarray (k,)
        Two-sided p-values.
    kind : str
        "t" or "fisher" (the ``method`` argument; ``method`` is the description, as in R's htest).
    df : float or None
        The t test's degrees of freedom (None for Fisher's z).
    q : int
        The number of conditioning columns.

    As every HTest it unpacks as ``statistic, p_value = res``.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import parcor_pvalues
    >>> rng = np.random.default_rng(0)
    >>> rx, ry = rng.normal(size=(50, 2)), rng.normal(size=(50, 2))
    >>> res = parcor_pvalues(rx - rx.mean(0), ry - ry.mean(0), np.eye(2), np.eye(2), q=0)
    >>> res.rho.shape, res.df
    ((2,), 48.0)
    """

    rho: Any = None
    kind: str = "t"
    df: float | None = None
    q: int = 0

    def _repr_parts(self):
        return [("kind", self.kind), ("k", int(np.size(self.p_value))), ("q", self.q),
                ("min_p_value", float(np.min(self.p_value)) if np.size(self.p_value) else float("nan"))]

    def __repr__(self) -> str:
        return Result.__repr__(self)

    def summary(self, digits: int = R_DIGITS) -> str:
        """The htest heading and a table of the k tests (the first 10)."""
        frame = self.to_frame()
        shown = frame.head(10)
        body = format_table([str(i + 1) for i in shown.index],
                            {"rho": list(shown["estimate"]), "statistic": list(shown["statistic"]),
                             "p_value": list(shown["p_value"])}, digits)
        more = f"\n... {len(frame) - 10} more directions" if len(frame) > 10 else ""
        df = "" if self.df is None else f", df = {self.df:g}"
        return f"\n\t{self.method}\n\ndata:  {self.data_name}{df}\n\n{body}{more}\n"

    def to_frame(self):
        """One row per direction: ``estimate`` (rho), ``statistic``, ``p_value``, ``parameter`` (df,
        for the t test), ``method``, ``alternative``."""
        import pandas as pd

        cols = {"estimate": np.asarray(self.rho, dtype=float), "statistic": np.asarray(self.statistic, dtype=float),
                "p_value": np.asarray(self.p_value, dtype=float)}
        if self.df is not None:
            cols["parameter"] = np.full(cols["p_value"].size, float(self.df))
        cols["method"] = [self.method] * cols["p_value"].size
        cols["alternative"] = [self.alternative] * cols["p_value"].size
        return pd.DataFrame(cols)
