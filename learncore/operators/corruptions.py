"""Five additive sensor corruptions, each with a strength relative to the field's standard deviation.

``corrupt(sensors, kind, level, ...)`` returns ``sensors + e`` (a new array) where, for sample i and
sensor j, the corruption e_ij is ``level * s_i`` times a unit-scale pattern; s_i is the per-sample
scale (by default the standard deviation of sample i's sensor readings, an estimate of the field's).
"""
from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from ._checks import (as_scale, as_sensor_coords, as_sensor_matrix, check_choice, check_nonneg_real,
                      check_positive_int, check_positive_real, check_probability, check_seed)

__all__ = ["CORRUPTIONS", "corrupt"]

#: the five additive corruptions
CORRUPTIONS = ("gaussian", "student_t", "impulse", "bias", "drift")


def _wave_vectors(dim: int, modes: int) -> np.ndarray:
    """The nonzero integer wave vectors with max-norm <= modes, one of each +-k pair (k and -k give the
    same cos/sin pair): (n_k, dim)."""
    out = []
    for k in itertools.product(range(-modes, modes + 1), repeat=dim):
        k = np.array(k)
        nz = np.flatnonzero(k)
        if nz.size and k[nz[0]] > 0:  # the first nonzero component positive
            out.append(k)
    return np.array(out, dtype=np.float64).reshape(-1, dim)


def corrupt(sensors: Any, kind: str, level: float, *, sensor_coords: Any = None, seed: Any = None,
            scale: Any = None, df: float = 2.0, fraction: float = 0.1, drift_modes: int = 1) -> np.ndarray:
    """Add one of the five sensor corruptions at a strength relative to the field's standard deviation.

    Returns ``sensors + e`` with e_ij = ``level`` * s_i * z_ij, s_i the scale of sample i (``scale``;
    by default the standard deviation, ddof = 0, of row i of ``sensors``) and z_ij the unit-scale
    pattern of ``kind``:

    - ``"gaussian"``: z_ij ~ N(0, 1) independent. The noise's standard deviation is level * s_i.
    - ``"student_t"``: z_ij ~ Student t with ``df`` degrees of freedom (2 by default: heavy tails,
      infinite variance), unscaled: level * s_i is the t scale parameter (the noise's median absolute
      value is level * s_i * 0.8165 for df = 2).
    - ``"impulse"``: each sensor of each sample is hit independently with probability ``fraction``;
      a hit is z_ij = +-1 / sqrt(fraction) (random sign), otherwise z_ij = 0. The hits have size
      level * s_i / sqrt(fraction) and the mean square of e_ij is (level * s_i)^2, as for Gaussian noise.
    - ``"bias"``: z_ij = b_j, b_j ~ N(0, 1) drawn once per sensor and shared by every sample (a
      miscalibrated sensor): e_ij / (level * s_i) is constant down each column.
    - ``"drift"``: z_ij = g_i(x_j), a random trigonometric polynomial of degree ``drift_modes`` in the
      sensor coordinates x_j (periodic on [0, 1]^d), drawn per sample:
      g(x) = (c_0 + sum_k c_k cos(2 pi k.x) + d_k sin(2 pi k.x)) / sqrt(1 + n_k), all coefficients
      N(0, 1), k over the nonzero integer vectors of max-norm <= ``drift_modes`` up to sign (n_k of
      them). E g(x)^2 = 1 at every x, so the drift's mean square is (level * s_i)^2.

    Gaussian, impulse, bias and drift corruptions thus have root mean square level * s_i; the Student
    t one has scale level * s_i. ``level = 0`` returns an exact copy.

    Parameters
    ----------
    sensors : array_like
        ``(N, m)`` clean sensor readings (not modified).
    kind : {"gaussian", "student_t", "impulse", "bias", "drift"}
        The corruption.
    level : float
        The strength, >= 0, relative to the per-sample scale.
    sensor_coords : array_like, optional
        ``(m,)`` or ``(m, d)`` sensor coordinates in [0, 1]^d; required for ``"drift"`` only.
    seed : None, int or numpy.random.Generator
        The randomness of the corruption.
    scale : float or array_like, optional
        The per-sample scale s_i (positive, a scalar or length N); by default the standard deviation of
        each sample's sensor readings (a sample with constant readings then needs an explicit scale).
    df : float
        The degrees of freedom of ``"student_t"``.
    fraction : float
        The probability that a sensor is hit, for ``"impulse"``, in (0, 1].
    drift_modes : int
        The degree of the drift's trigonometric polynomial.

    Returns
    -------
    numpy.ndarray
        ``(N, m)`` float64, the corrupted readings.

    References
    ----------
    Hendrycks, D. and Dietterich, T. (2019). Benchmarking neural network robustness to common
    corruptions and perturbations. ICLR (corruptions at graded severities).

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.operators import corrupt
    >>> x = np.sin(np.linspace(0, 6, 40)).reshape(2, 20)
    >>> y = corrupt(x, "bias", 0.5, seed=0)
    >>> e = (y - x) / (0.5 * x.std(axis=1, keepdims=True))
    >>> bool(np.allclose(e[0], e[1]))
    True
    >>> bool(np.array_equal(corrupt(x, "gaussian", 0.0, seed=0), x))
    True
    """
    X = as_sensor_matrix(sensors)
    kind = check_choice(kind, "kind", CORRUPTIONS)
    level = check_nonneg_real(level, "level")
    n, m = X.shape
    if scale is None:
        s = X.std(axis=1)
        if (s <= 0).any():
            raise ValueError(f"sensors: {int((s <= 0).sum())} sample(s) have constant readings, so the default "
                             "per-sample scale (their standard deviation) is 0; pass scale explicitly")
    else:
        s = as_scale(scale, n)
    df = check_positive_real(df, "df")
    fraction = check_probability(fraction, "fraction")
    drift_modes = check_positive_int(drift_modes, "drift_modes")
    coords = None
    if kind == "drift":
        if sensor_coords is None:
            raise TypeError("sensor_coords is required for the 'drift' corruption (the drift is smooth in the "
                            "sensors' coordinates)")
        coords = as_sensor_coords(sensor_coords, m)
    elif sensor_coords is not None:
        as_sensor_coords(sensor_coords, m)  # checked all the same: a wrong array is a bug
    rng = check_seed(seed)
    if level == 0.0:
        return X
    if kind == "gaussian":
        z = rng.standard_normal((n, m))
    elif kind == "student_t":
        z = rng.standard_t(df, size=(n, m))
    elif kind == "impulse":
        hit = rng.random((n, m)) < fraction
        sign = np.where(rng.random((n, m)) < 0.5, -1.0, 1.0)
        z = np.where(hit, sign / math.sqrt(fraction), 0.0)
    elif kind == "bias":
        z = np.broadcast_to(rng.standard_normal(m), (n, m))
    else:  # drift
        K = _wave_vectors(coords.shape[1], drift_modes)
        phase = 2.0 * math.pi * coords @ K.T  # (m, n_k)
        c0 = rng.standard_normal((n, 1))
        c = rng.standard_normal((n, K.shape[0]))
        d = rng.standard_normal((n, K.shape[0]))
        z = (c0 + c @ np.cos(phase).T + d @ np.sin(phase).T) / math.sqrt(1.0 + K.shape[0])
    return X + level * s[:, None] * z
