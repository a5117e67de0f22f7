"""Validators of statcore.clustered and statcore.meta (the one input door: errors name the argument)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .core import *  # noqa: F401,F403  (the generic checks every topic builds on)
from .core import _is_pandas

__all__ = ["LinearFit", "as_linear_fit", "as_cluster_codes", "as_sampling_variances"]


@dataclass(frozen=True)
class LinearFit:
    """What the cluster-robust estimators need from a fitted model."""

    X: np.ndarray          # n x p model matrix
    resid: np.ndarray      # response residuals y - X b
    weights: np.ndarray    # the fit's weights (ones for OLS)
    params: np.ndarray
    names: tuple
    kind: str              # "ols", "wls" or "glm"
    df_resid: float
    row_labels: Any = None
    # a GLM is handled as clubSandwich handles it: the model matrix scaled by dmu/deta (``X`` holds
    # d * X), the weights w / V(mu) (``weights``), response residuals and the working model W^-1


def as_linear_fit(fit: Any, name: str = "fit") -> LinearFit:
    """A statsmodels OLS, WLS or GLM result (a formula fit included) as a :class:`LinearFit`."""
    if fit is None or isinstance(fit, (str, bytes, np.ndarray, list, tuple, dict)) or _is_pandas(fit):
        raise TypeError(f"{name} must be a fitted statsmodels OLS, WLS or GLM result "
                        f"(sm.OLS(y, X).fit(), smf.ols('y ~ x', data).fit()), got {type(fit).__name__}")
    model = getattr(fit, "model", None)
    mod = type(model).__module__ if model is not None else ""
    cls = type(model).__name__ if model is not None else ""
    if not mod.startswith("statsmodels") or cls not in ("OLS", "WLS", "GLM"):
        raise TypeError(f"{name} must be a fitted statsmodels OLS, WLS or GLM result, got {type(fit).__name__}"
                        + (f" of a {cls} model" if cls else ""))
    X = np.asarray(model.exog, dtype=float)
    if X.ndim != 2 or X.shape[0] == 0:
        raise ValueError(f"{name} has no model matrix with observations")
    params = np.asarray(fit.params, dtype=float)
    names = tuple(str(v) for v in (model.exog_names or [f"x{i}" for i in range(X.shape[1])]))
    if not np.all(np.isfinite(params)):
        raise ValueError(f"{name} has non-finite coefficients")
    rank = np.linalg.matrix_rank(X)
    if rank < X.shape[1]:
        raise ValueError(f"{name}'s model matrix has rank {rank} < {X.shape[1]} columns (aliased coefficients); "
                         "drop the redundant columns and refit")
    row_labels = getattr(getattr(model, "data", None), "row_labels", None)
    if cls == "GLM":
        fw = np.asarray(getattr(model, "freq_weights", 1.0), dtype=float)
        if np.any(fw != 1):
            raise ValueError(f"{name} has freq_weights; cluster-robust variances of a GLM take var_weights only "
                             "(R's prior weights)")
        mu = np.asarray(fit.mu, dtype=float)
        eta = X @ params + np.broadcast_to(np.asarray(getattr(model, "offset", 0.0) if getattr(model, "offset", None)
                                                      is not None else 0.0, float), mu.shape)
        if getattr(model, "exposure", None) is not None:
            eta = eta + np.asarray(model.exposure, float)
        dmu = np.asarray(model.family.link.inverse_deriv(eta), dtype=float)
        var = np.asarray(model.family.variance(mu), dtype=float)
        pw = np.broadcast_to(np.asarray(getattr(model, "var_weights", 1.0), dtype=float), mu.shape)
        w = pw / var
        if not (np.all(np.isfinite(w)) and np.all(w > 0) and np.all(np.isfinite(dmu))):
            raise ValueError(f"{name} has fitted values on the boundary (variance 0: a separated logistic fit?); "
                             "cluster-robust variances need finite GLM weights")
        y = np.asarray(model.endog, dtype=float)
        return LinearFit(dmu[:, None] * X, y - mu, w, params, names, "glm", float(fit.df_resid), row_labels)
    w = np.broadcast_to(np.asarray(getattr(model, "weights", 1.0), dtype=float), (X.shape[0],)).copy()
    if np.any(~np.isfinite(w)) or np.any(w <= 0):
        raise ValueError(f"{name} has zero, negative or non-finite weights; refit without those observations")
    y = np.asarray(model.endog, dtype=float)
    resid = y - X @ params
    kind = "wls" if cls == "WLS" and not np.all(w == w[0]) else ("wls" if cls == "WLS" else "ols")
    return LinearFit(X, resid, w, params, names, kind, float(fit.df_resid), row_labels)


def as_cluster_codes(cluster: Any, n: int, row_labels: Any = None, name: str = "cluster") -> tuple[np.ndarray, int]:
    """Cluster labels as integer codes 0..J-1 (in order of first appearance sorted as labels) and J.

    Labels stay labels (numbers or text); missing labels are refused. When the fit dropped rows
    (statsmodels' ``missing="drop"``) a pandas Series longer than the fit is taken at the fit's row
    labels, as clubSandwich subsets a clustering vector by the fit's ``na.action``.
    """
    if cluster is None or isinstance(cluster, (str, bytes, dict)) or np.ndim(cluster) == 0:
        raise TypeError(f"{name} must be a vector of cluster labels (one per observation), "
                        f"got {type(cluster).__name__}")
    if _is_pandas(cluster) and getattr(cluster, "ndim", 1) == 1 and len(cluster) != n and row_labels is not None:
        try:
            cluster = cluster.loc[list(row_labels)]
        except KeyError:
            raise ValueError(f"{name}'s index does not hold the fit's row labels; pass one label per "
                             "observation used by the fit") from None
    arr = np.asarray(cluster)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional (one label per observation), got shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(f"{name} has {arr.shape[0]} labels but the fit has {n} observations; "
                         "pass one cluster label per observation used by the fit")
    if arr.dtype.kind == "f":
        if np.isnan(arr).any():
            raise ValueError(f"{name} contains missing labels (NaN); clusters cannot be missing")
        if np.isinf(arr).any():
            raise ValueError(f"{name} contains infinite labels; labels must be finite numbers or text")
    elif arr.dtype.kind == "O":
        bad = [v for v in arr if v is None or (isinstance(v, float) and np.isnan(v))]
        if bad:
            raise ValueError(f"{name} contains missing labels (None or NaN); clusters cannot be missing")
        arr = arr.astype(str)
    elif arr.dtype.kind not in "iubUSMm":
        raise TypeError(f"{name} must hold cluster labels (numbers or text), got dtype {arr.dtype}")
    _, codes = np.unique(arr, return_inverse=True)
    codes = codes.ravel().astype(np.intp)
    J = int(codes.max()) + 1 if codes.size else 0
    if J < 2:
        raise ValueError(f"{name} has {J} cluster{'s' if J != 1 else ''}; cluster-robust variances need at "
                         "least 2 clusters")
    return codes, J


def as_sampling_variances(v: np.ndarray, n: int, name: str = "v") -> np.ndarray:
    """Positive sampling variances, one per study."""
    if v.shape[0] != n:
        raise ValueError(f"{name} has {v.shape[0]} values but y has {n}; pass one sampling variance per study")
    if np.any(v <= 0):
        raise ValueError(f"{name} must be positive (sampling variances); got {int(np.sum(v <= 0))} zero or "
                         "negative value(s)")
    return v
