"""Seeded operator-learning datasets generated here (no downloads): 1-D Burgers, 2-D Darcy flow,
1-D advection and 1-D diffusion.

Each generator draws random input fields, solves the PDE, places the sensors and splits the samples,
all from one ``seed``, and returns an :class:`OperatorDataset` whose :meth:`~OperatorDataset.describe`
states the resolution, the sensor layout, the split and every parameter. numpy and scipy only.

Random 1-D fields are truncated Fourier series on the periodic unit interval,

    u0(x) = sum_{k=1}^{K} a_k cos(2 pi k x) + b_k sin(2 pi k x),  a_k, b_k ~ N(0, c (4 pi^2 k^2 + tau^2)^(-smoothness)),

(zero mean, the spectrum of the Gaussian random field N(0, (-Laplacian + tau^2)^(-smoothness)) of Li et al.
(2021)), with c chosen so that the field's expected variance is ``amplitude**2``. The 2-D Darcy
permeability thresholds a periodic Gaussian random field of the same spectrum at 0.
"""
from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

from ._checks import (check_dtype, check_finite_real, check_n_sensors, check_positive_int, check_positive_real,
                      check_seed, check_sensor_layout, check_test_size, seed_label)

__all__ = ["OperatorDataset", "burgers_1d", "darcy_2d", "advection_1d", "diffusion_1d"]


def _readonly(arr: np.ndarray) -> np.ndarray:
    arr = np.ascontiguousarray(arr)
    arr.flags.writeable = False
    return arr


@dataclass(frozen=True, eq=False)
class OperatorDataset:
    """Input fields, output fields and sensors of one operator-learning problem on a grid.

    The operator maps an input field (``inputs``; read by the sensors at ``sensor_idx``) to an output
    field (``targets``) on the same grid. Arrays are read-only; ``params`` is a read-only mapping.

    Parameters
    ----------
    name : str
        The problem ("burgers_1d", "darcy_2d", "advection_1d", "diffusion_1d").
    dim : int
        The spatial dimension, 1 or 2.
    grid_shape : tuple of int
        The grid, e.g. ``(128,)`` or ``(32, 32)``; fields are flattened in C order.
    grid : numpy.ndarray
        ``(n_grid, dim)`` coordinates in [0, 1]^dim of the flattened grid.
    inputs : numpy.ndarray
        ``(N, n_grid)`` input fields (Burgers, advection, diffusion: u0; Darcy: the permeability a).
    targets : numpy.ndarray
        ``(N, n_grid)`` output fields (u(., T), or the Darcy pressure u).
    sensor_idx : numpy.ndarray
        ``(m,)`` sorted indices into the flattened grid where the input is read.
    train_idx, test_idx : numpy.ndarray
        Sorted, disjoint sample indices of the split.
    seed : int or None
        The int seed that generated the dataset (None when a Generator or nothing was given).
    params : Mapping
        Every generation parameter (resolution, T, nu, the field spectrum, the solver's step, ...).

    See Also
    --------
    burgers_1d, darcy_2d, advection_1d, diffusion_1d

    Examples
    --------
    >>> from learncore.operators import diffusion_1d
    >>> ds = diffusion_1d(20, resolution=64, n_sensors=16, seed=0)
    >>> ds.inputs.shape, ds.sensors.shape, ds.sensor_coords.shape
    ((20, 64), (20, 16), (16, 1))
    >>> len(ds.train_idx), len(ds.test_idx)
    (16, 4)
    """

    name: str
    dim: int
    grid_shape: tuple
    grid: np.ndarray
    inputs: np.ndarray
    targets: np.ndarray
    sensor_idx: np.ndarray
    train_idx: np.ndarray
    test_idx: np.ndarray
    seed: int | None
    params: Mapping = field(default_factory=dict)

    def __post_init__(self):
        for f in ("grid", "inputs", "targets", "sensor_idx", "train_idx", "test_idx"):
            object.__setattr__(self, f, _readonly(np.array(getattr(self, f))))
        object.__setattr__(self, "grid_shape", tuple(int(s) for s in self.grid_shape))
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))

    def __reduce__(self):  # the read-only params mapping does not pickle; a plain dict does
        return (OperatorDataset, (self.name, self.dim, self.grid_shape, np.array(self.grid), np.array(self.inputs),
                                  np.array(self.targets), np.array(self.sensor_idx), np.array(self.train_idx),
                                  np.array(self.test_idx), self.seed, dict(self.params)))

    @property
    def n_samples(self) -> int:
        """The number of samples N."""
        return int(self.inputs.shape[0])

    @property
    def n_grid(self) -> int:
        """The number of grid points of a field."""
        return int(self.inputs.shape[1])

    @property
    def n_sensors(self) -> int:
        """The number of sensors m."""
        return int(self.sensor_idx.shape[0])

    @property
    def sensors(self) -> np.ndarray:
        """``(N, m)`` the input fields read at the sensors (a new array)."""
        return self.inputs[:, self.sensor_idx]

    @property
    def sensor_coords(self) -> np.ndarray:
        """``(m, dim)`` the sensors' coordinates (a new array)."""
        return self.grid[self.sensor_idx]

    def __repr__(self) -> str:
        return (f"OperatorDataset({self.name}, grid={'x'.join(map(str, self.grid_shape))}, N={self.n_samples}, "
                f"m={self.n_sensors}, train={len(self.train_idx)}, test={len(self.test_idx)}, seed={self.seed})")

    def describe(self) -> str:
        """A paragraph stating the problem, resolution, sensor layout, split and parameters.

        Returns
        -------
        str
        """
        p = dict(self.params)
        lines = [f"{self.name}: {p.get('equation', '')}",
                 f"grid {' x '.join(map(str, self.grid_shape))} on [0, 1]^{self.dim} ({p.get('boundary', '')}), "
                 f"{self.n_samples} samples, dtype {self.inputs.dtype}",
                 f"input: {p.get('input', 'u0')}; output: {p.get('output', 'u(., T)')}",
                 f"sensors: {self.n_sensors} ({p.get('sensor_layout')} layout) reading the input field",
                 f"split: {len(self.train_idx)} train / {len(self.test_idx)} test (seeded permutation), "
                 f"seed {self.seed}"]
        skip = {"equation", "boundary", "input", "output", "sensor_layout"}
        rest = ", ".join(f"{k}={v}" for k, v in p.items() if k not in skip)
        lines.append("parameters: " + rest)
        return "\n".join(textwrap.fill(s, 100, subsequent_indent="  ") for s in lines)


# ----------------------------------------------------------------------------------------------
# shared pieces: random fields, sensors, split
# ----------------------------------------------------------------------------------------------

def _fourier_coefficients(rng: np.random.Generator, n: int, n_modes: int, amplitude: float, smoothness: float,
                          tau: float) -> tuple[np.ndarray, np.ndarray]:
    """(a, b), each (n, K): cosine and sine coefficients of zero-mean random fields with
    var(a_k) = var(b_k) = c (4 pi^2 k^2 + tau^2)^(-smoothness) and expected field variance amplitude**2
    (the variance of a_k cos + b_k sin is var(a_k), averaged over x half of a_k^2 + b_k^2)."""
    k = np.arange(1, n_modes + 1, dtype=np.float64)
    spec = (4.0 * math.pi ** 2 * k ** 2 + tau ** 2) ** (-smoothness)
    spec *= amplitude ** 2 / spec.sum()
    sd = np.sqrt(spec)
    a = rng.standard_normal((n, n_modes)) * sd
    b = rng.standard_normal((n, n_modes)) * sd
    return a, b


def _evaluate_series(a: np.ndarray, b: np.ndarray, x: np.ndarray, damp: np.ndarray | None = None,
                     shift: float = 0.0) -> np.ndarray:
    """sum_k damp_k (a_k cos(2 pi k (x - shift)) + b_k sin(2 pi k (x - shift))) at the points x, by
    direct summation (not an FFT)."""
    k = np.arange(1, a.shape[1] + 1, dtype=np.float64)
    phase = 2.0 * math.pi * np.outer(k, x - shift)  # (K, n_x)
    if damp is not None:
        a, b = a * damp, b * damp
    return a @ np.cos(phase) + b @ np.sin(phase)


def _sensor_indices(rng: np.random.Generator, grid_shape: tuple, m: int, layout: str) -> np.ndarray:
    n_grid = int(np.prod(grid_shape))
    if layout == "random":
        return np.sort(rng.choice(n_grid, size=m, replace=False))
    if len(grid_shape) == 1:
        n = grid_shape[0]
        return np.floor((np.arange(m) + 0.5) * n / m).astype(np.int64)
    s = math.isqrt(m)
    if s * s != m:
        raise ValueError(f"n_sensors={m}: the uniform 2-D layout is an s x s lattice, so n_sensors must be a "
                         "perfect square (or use sensor_layout='random')")
    n1, n2 = grid_shape
    i = np.floor((np.arange(s) + 0.5) * n1 / s).astype(np.int64)
    j = np.floor((np.arange(s) + 0.5) * n2 / s).astype(np.int64)
    return np.sort((i[:, None] * n2 + j[None, :]).ravel())


def _split(rng: np.random.Generator, n: int, n_test: int) -> tuple[np.ndarray, np.ndarray]:
    perm = rng.permutation(n)
    return np.sort(perm[n_test:]), np.sort(perm[:n_test])


def _common(n_samples, n_sensors, n_grid, sensor_layout, test_size, dtype, seed):
    n = check_positive_int(n_samples, "n_samples", minimum=2)
    m = check_n_sensors(n_sensors, n_grid)
    layout = check_sensor_layout(sensor_layout)
    n_test = check_test_size(test_size, n)
    dt = check_dtype(dtype)
    rng = check_seed(seed)
    return n, m, layout, n_test, dt, rng


def _field_params(n_modes, amplitude, smoothness, tau, resolution):
    k = check_positive_int(n_modes, "n_modes")
    if 2 * k >= resolution:
        raise ValueError(f"n_modes={k} must be below resolution / 2 = {resolution / 2:g} so the grid resolves "
                         "every mode of the initial field")
    return (k, check_positive_real(amplitude, "amplitude"), check_positive_real(smoothness, "smoothness"),
            check_positive_real(tau, "tau"))


def _grid_1d(n: int) -> np.ndarray:
    return (np.arange(n, dtype=np.float64) / n)[:, None]


# ----------------------------------------------------------------------------------------------
# Burgers
# ----------------------------------------------------------------------------------------------

def _burgers_solve(u0: np.ndarray, *, nu: float, T: float, dt: float | None = None, cfl: float = 1.0,
                   dealias: bool = True) -> tuple[np.ndarray, float, int]:
    """u(., T) of u_t + (u^2 / 2)_x = nu u_xx on the periodic unit interval, for each row of u0 (N, n).

    Fourier pseudo-spectral in x (2/3-rule dealiasing of the nonlinear term); in time, the fourth-order
    integrating-factor Runge-Kutta scheme (the viscous term integrated exactly, Trefethen 2000, program
    27), with a fixed step dt = min(1e-3, cfl / (max|u0| k_max)) unless ``dt`` is given (max|u| does
    not grow for viscous Burgers). Returns (u(T), dt, steps)."""
    u0 = np.atleast_2d(np.asarray(u0, dtype=np.float64))
    n = u0.shape[1]
    k = 2.0 * math.pi * np.fft.rfftfreq(n, d=1.0 / n)
    j = np.arange(k.size)
    ik = 1j * k
    if n % 2 == 0:
        ik[-1] = 0.0  # the Nyquist mode has no odd derivative
    if dealias:
        ik = np.where(j <= n // 3, ik, 0.0)
    umax = float(np.max(np.abs(u0))) if u0.size else 0.0
    if dt is None:
        kmax = float(np.max(np.abs(ik))) if np.any(ik) else 1.0
        dt = 1e-3 if umax == 0.0 else min(1e-3, cfl / (umax * kmax))
    steps = max(1, int(math.ceil(T / dt - 1e-12)))
    h = T / steps
    E = np.exp(-nu * k ** 2 * h / 2.0)
    E2 = E * E
    nik = -0.5 * ik

    def N(v):
        return nik * np.fft.rfft(np.fft.irfft(v, n=n) ** 2)

    v = np.fft.rfft(u0)
    for _ in range(steps):
        a = N(v)
        b = N(E * (v + 0.5 * h * a))
        c = N(E * v + 0.5 * h * b)
        d = N(E2 * v + h * E * c)
        v = E2 * v + h / 6.0 * (E2 * a + 2.0 * E * (b + c) + d)
    return np.fft.irfft(v, n=n), h, steps


def burgers_1d(n_samples: int = 1000, *, resolution: int = 128, n_sensors: int = 32, T: float = 1.0,
               nu: float = 0.01, amplitude: float = 0.5, n_modes: int = 8, smoothness: float = 2.0,
               tau: float = 5.0, solve_factor: int = 2, dt: float | None = None, sensor_layout: str = "uniform",
               test_size: float = 0.2, dtype: str = "float32", seed: Any = None) -> OperatorDataset:
    """Viscous Burgers' equation on the periodic unit interval: u0 -> u(., T).

    u_t + u u_x = nu u_xx, x in [0, 1) periodic, with random smooth zero-mean initial fields u0 (the
    truncated Fourier series of the module docstring). Solved by a Fourier pseudo-spectral method
    with 2/3-rule dealiasing and the fourth-order integrating-factor Runge-Kutta scheme (viscous term
    exact) on a grid ``solve_factor`` times finer than ``resolution``, then subsampled (the coarse grid
    points are fine grid points: no interpolation).

    Parameters
    ----------
    n_samples : int
        The number of samples N (at least 2).
    resolution : int
        Grid points of the returned fields, x_j = j / resolution.
    n_sensors : int
        Sensors reading u0.
    T : float
        The final time.
    nu : float
        The viscosity.
    amplitude : float
        The expected standard deviation of u0 over x.
    n_modes : int
        Fourier modes K of u0 (below resolution / 2).
    smoothness, tau : float
        The spectrum of u0: coefficient variance proportional to (4 pi^2 k^2 + tau^2)^(-smoothness).
    solve_factor : int
        The solver's grid is ``solve_factor * resolution`` points (resolves the steep fronts).
    dt : float, optional
        The time step; by default min(1e-3, 1 / (max|u0| k_max)), k_max the largest dealiased
        wavenumber, the same for all samples.
    sensor_layout : {"uniform", "random"}
        Equispaced sensors at floor((i + 1/2) resolution / m), or m distinct grid points drawn once.
    test_size : float
        The fraction of samples in the test set (rounded, at least one sample on each side).
    dtype : {"float32", "float64"}
        The dtype of the returned fields (the solver runs in float64).
    seed : None, int or numpy.random.Generator
        Draws the fields, then the sensors (random layout), then the split.

    Returns
    -------
    OperatorDataset

    References
    ----------
    Li, Z. et al. (2021). Fourier neural operator for parametric partial differential equations. ICLR.
    Trefethen, L. N. (2000). Spectral Methods in MATLAB. SIAM (program 27: integrating-factor RK4).

    Examples
    --------
    >>> from learncore.operators import burgers_1d
    >>> ds = burgers_1d(8, resolution=64, n_sensors=16, T=0.5, seed=0)
    >>> ds.grid_shape, ds.sensors.shape
    ((64,), (8, 16))
    >>> bool(abs(ds.targets.mean(axis=1) - ds.inputs.mean(axis=1)).max() < 1e-5)
    True
    """
    res = check_positive_int(resolution, "resolution", minimum=8)
    n, m, layout, n_test, dtp, rng = _common(n_samples, n_sensors, res, sensor_layout, test_size, dtype, seed)
    K, amp, al, ta = _field_params(n_modes, amplitude, smoothness, tau, res)
    T = check_positive_real(T, "T")
    nu = check_positive_real(nu, "nu")
    fac = check_positive_int(solve_factor, "solve_factor")
    if dt is not None:
        dt = check_positive_real(dt, "dt")
    a, b = _fourier_coefficients(rng, n, K, amp, al, ta)
    fine = _grid_1d(res * fac)[:, 0]
    u0_fine = _evaluate_series(a, b, fine)
    uT_fine, h, steps = _burgers_solve(u0_fine, nu=nu, T=T, dt=dt)
    inputs, targets = u0_fine[:, ::fac], uT_fine[:, ::fac]
    sensor_idx = _sensor_indices(rng, (res,), m, layout)
    train, test = _split(rng, n, n_test)
    params = dict(equation="u_t + u u_x = nu u_xx", boundary="periodic", input="u0 = u(., 0)",
                  output="u(., T)", resolution=res, T=T, nu=nu, amplitude=amp, n_modes=K, smoothness=al, tau=ta,
                  solve_resolution=res * fac, dt=h, steps=steps, solver="Fourier pseudo-spectral, 2/3 dealiasing, "
                  "integrating-factor RK4", sensor_layout=layout, test_size=n_test / n)
    return OperatorDataset("burgers_1d", 1, (res,), _grid_1d(res), inputs.astype(dtp), targets.astype(dtp),
                           sensor_idx, train, test, seed_label(seed), params)


# ----------------------------------------------------------------------------------------------
# Darcy
# ----------------------------------------------------------------------------------------------

def _gaussian_field_2d(rng: np.random.Generator, n_samples: int, n: int, smoothness: float, tau: float) -> np.ndarray:
    """Zero-mean periodic Gaussian random fields on an n x n grid of [0, 1)^2 with spectrum
    ``(4 pi^2 |k|^2 + tau^2)^(-smoothness)``, k != 0 (white noise filtered by FFT), (N, n, n)."""
    k = np.fft.fftfreq(n, d=1.0 / n)
    k2 = k[:, None] ** 2 + k[None, :] ** 2
    filt = np.sqrt((4.0 * math.pi ** 2 * k2 + tau ** 2) ** (-smoothness))
    filt[0, 0] = 0.0  # zero mean, as Li et al.: the constant mode would dominate and make whole fields one value
    w = rng.standard_normal((n_samples, n, n))
    return np.fft.ifft2(np.fft.fft2(w) * filt).real


def _darcy_matrix(a: np.ndarray, face_mean: str = "arithmetic"):
    """The five-point operator of -div(a grad u) on the interior nodes of an n x n node grid of [0, 1]^2
    (h = 1 / (n - 1)), zero Dirichlet values on the boundary nodes, face coefficients the arithmetic
    (or harmonic) mean of the two nodes' a. Returns a CSR matrix of size (n - 2)^2."""
    import scipy.sparse as sp

    n = a.shape[0]
    h = 1.0 / (n - 1)
    if face_mean == "arithmetic":
        ax = 0.5 * (a[1:, :] + a[:-1, :])  # faces between (i, j) and (i + 1, j)
        ay = 0.5 * (a[:, 1:] + a[:, :-1])
    else:
        ax = 2.0 * a[1:, :] * a[:-1, :] / (a[1:, :] + a[:-1, :])
        ay = 2.0 * a[:, 1:] * a[:, :-1] / (a[:, 1:] + a[:, :-1])
    ni = n - 2
    idx = np.arange(ni * ni).reshape(ni, ni)
    I, J = np.meshgrid(np.arange(1, n - 1), np.arange(1, n - 1), indexing="ij")
    east, west = ax[I, J], ax[I - 1, J]   # faces (i, i+1) and (i-1, i) along axis 0
    north, south = ay[I, J], ay[I, J - 1]
    rows = [idx.ravel()]
    cols = [idx.ravel()]
    vals = [(east + west + north + south).ravel()]
    for di, dj, coef in ((1, 0, east), (-1, 0, west), (0, 1, north), (0, -1, south)):
        inside = (I + di >= 1) & (I + di <= n - 2) & (J + dj >= 1) & (J + dj <= n - 2)
        rows.append(idx[inside])
        cols.append(idx[(I + di - 1)[inside], (J + dj - 1)[inside]])
        vals.append(-coef[inside])
    A = sp.csr_matrix((np.concatenate(vals) / h ** 2, (np.concatenate(rows), np.concatenate(cols))),
                      shape=(ni * ni, ni * ni))
    return A


def _darcy_solve(a: np.ndarray, f: float = 1.0, face_mean: str = "arithmetic") -> np.ndarray:
    """The n x n node values (zeros on the boundary) of the five-point Darcy solve with source f."""
    import scipy.sparse.linalg as spla

    n = a.shape[0]
    A = _darcy_matrix(a, face_mean).tocsc()
    u = np.zeros((n, n))
    u[1:-1, 1:-1] = spla.spsolve(A, np.full(A.shape[0], float(f))).reshape(n - 2, n - 2)
    return u


def darcy_2d(n_samples: int = 1000, *, resolution: int = 32, n_sensors: int = 64, a_low: float = 3.0,
             a_high: float = 12.0, smoothness: float = 2.0, tau: float = 3.0, f: float = 1.0,
             face_mean: str = "arithmetic", sensor_layout: str = "uniform", test_size: float = 0.2,
             dtype: str = "float32", seed: Any = None) -> OperatorDataset:
    """2-D Darcy flow: permeability a -> pressure u of -div(a grad u) = f on (0, 1)^2, u = 0 on the boundary.

    The permeability is a thresholded Gaussian random field: a = ``a_high`` where a zero-mean periodic
    Gaussian random field of spectrum ``(4 pi^2 |k|^2 + tau^2)^(-smoothness)`` is >= 0, else ``a_low`` (Li et
    al.'s values 12 and 3). The grid has ``resolution`` x ``resolution`` nodes x_i = i / (resolution - 1)
    including the boundary; the (resolution - 2)^2 interior values solve the five-point scheme

        (1/h^2) sum_faces a_face (u_P - u_neighbour) = f,   a_face = the mean of the two nodes' a,

    by a sparse direct solve (scipy.sparse.linalg.spsolve).

    Parameters
    ----------
    n_samples : int
        The number of samples N (at least 2).
    resolution : int
        Nodes per side (at least 4).
    n_sensors : int
        Sensors reading a (a perfect square for the uniform layout).
    a_low, a_high : float
        The two permeability values (positive).
    smoothness, tau : float
        The spectrum of the random field that is thresholded.
    f : float
        The constant source term.
    face_mean : {"arithmetic", "harmonic"}
        How a face's coefficient is formed from its two nodes.
    sensor_layout : {"uniform", "random"}
        An s x s lattice at floor((i + 1/2) resolution / s) in each axis, or m distinct nodes drawn once.
    test_size : float
        The fraction of samples in the test set (rounded, at least one sample on each side).
    dtype : {"float32", "float64"}
        The dtype of the returned fields (the solve runs in float64).
    seed : None, int or numpy.random.Generator
        Draws the fields, then the sensors (random layout), then the split.

    Returns
    -------
    OperatorDataset
        Fields flattened in C order of the ``(resolution, resolution)`` node grid (axis 0 is x).

    References
    ----------
    Li, Z. et al. (2021). Fourier neural operator for parametric partial differential equations. ICLR.
    LeVeque, R. J. (2007). Finite Difference Methods for Ordinary and Partial Differential Equations.
    SIAM (section 3.2, variable coefficients).

    Examples
    --------
    >>> from learncore.operators import darcy_2d
    >>> ds = darcy_2d(4, resolution=16, n_sensors=16, seed=0)
    >>> ds.grid_shape, ds.sensors.shape, sorted(set(ds.inputs.ravel().tolist()))
    ((16, 16), (4, 16), [3.0, 12.0])
    """
    from ._checks import check_choice

    res = check_positive_int(resolution, "resolution", minimum=4)
    n, m, layout, n_test, dtp, rng = _common(n_samples, n_sensors, res * res, sensor_layout, test_size, dtype,
                                             seed)
    lo = check_positive_real(a_low, "a_low")
    hi = check_positive_real(a_high, "a_high")
    al = check_positive_real(smoothness, "smoothness")
    ta = check_positive_real(tau, "tau")
    f = check_finite_real(f, "f")
    fm = check_choice(face_mean, "face_mean", ("arithmetic", "harmonic"))
    if layout == "uniform" and math.isqrt(m) ** 2 != m:
        raise ValueError(f"n_sensors={m}: the uniform 2-D layout is an s x s lattice, so n_sensors must be a "
                         "perfect square (or use sensor_layout='random')")
    g = _gaussian_field_2d(rng, n, res, al, ta)
    a = np.where(g >= 0.0, hi, lo)
    u = np.stack([_darcy_solve(a[i], f, fm) for i in range(n)])
    sensor_idx = _sensor_indices(rng, (res, res), m, layout)
    train, test = _split(rng, n, n_test)
    x = np.arange(res, dtype=np.float64) / (res - 1)
    X, Y = np.meshgrid(x, x, indexing="ij")
    grid = np.column_stack([X.ravel(), Y.ravel()])
    params = dict(equation="-div(a grad u) = f", boundary="u = 0 on the boundary", input="permeability a",
                  output="pressure u", resolution=res, a_low=lo, a_high=hi, smoothness=al, tau=ta, f=f,
                  face_mean=fm, solver="five-point finite differences, sparse direct solve",
                  sensor_layout=layout, test_size=n_test / n)
    return OperatorDataset("darcy_2d", 2, (res, res), grid, a.reshape(n, -1).astype(dtp),
                           u.reshape(n, -1).astype(dtp), sensor_idx, train, test, seed_label(seed), params)


# ----------------------------------------------------------------------------------------------
# advection and diffusion (exact solutions)
# ----------------------------------------------------------------------------------------------

def _linear_1d(name, n_samples, resolution, n_sensors, T, amplitude, n_modes, smoothness, tau, sensor_layout,
               test_size, dtype, seed, *, c=None, nu=None):
    res = check_positive_int(resolution, "resolution", minimum=8)
    n, m, layout, n_test, dtp, rng = _common(n_samples, n_sensors, res, sensor_layout, test_size, dtype, seed)
    K, amp, al, ta = _field_params(n_modes, amplitude, smoothness, tau, res)
    T = check_positive_real(T, "T")
    a, b = _fourier_coefficients(rng, n, K, amp, al, ta)
    x = _grid_1d(res)[:, 0]
    u0 = _evaluate_series(a, b, x)
    common = dict(input="u0 = u(., 0)", output="u(., T)", boundary="periodic", resolution=res, T=T)
    if name == "advection_1d":
        c = check_finite_real(c, "c")
        uT = _evaluate_series(a, b, x, shift=c * T)
        params = dict(equation="u_t + c u_x = 0", **common, c=c, solution="exact: u(x, T) = u0(x - c T)")
    else:
        nu = check_positive_real(nu, "nu")
        k = np.arange(1, K + 1, dtype=np.float64)
        uT = _evaluate_series(a, b, x, damp=np.exp(-nu * (2.0 * math.pi * k) ** 2 * T))
        params = dict(equation="u_t = nu u_xx", **common, nu=nu,
                      solution="exact: each Fourier mode k decays by exp(-nu (2 pi k)^2 T)")
    sensor_idx = _sensor_indices(rng, (res,), m, layout)
    train, test = _split(rng, n, n_test)
    params.update(amplitude=amp, n_modes=K, smoothness=al, tau=ta, sensor_layout=layout, test_size=n_test / n)
    return OperatorDataset(name, 1, (res,), _grid_1d(res), u0.astype(dtp), uT.astype(dtp), sensor_idx, train,
                           test, seed_label(seed), params)


def advection_1d(n_samples: int = 1000, *, resolution: int = 128, n_sensors: int = 32, T: float = 1.0,
                 c: float = 0.3, amplitude: float = 0.5, n_modes: int = 8, smoothness: float = 2.0, tau: float = 5.0,
                 sensor_layout: str = "uniform", test_size: float = 0.2, dtype: str = "float32",
                 seed: Any = None) -> OperatorDataset:
    """Linear advection on the periodic unit interval, exact: u0 -> u(., T) = u0(. - c T).

    u_t + c u_x = 0 with the random Fourier-series initial fields of the module docstring; the target
    is the series evaluated at the shifted points (exact, no time stepping).

    Parameters
    ----------
    n_samples : int
        The number of samples N (at least 2).
    resolution : int
        Grid points, x_j = j / resolution.
    n_sensors : int
        Sensors reading u0.
    T : float
        The final time.
    c : float
        The advection speed (the field moves by c T).
    amplitude : float
        The expected standard deviation of u0 over x.
    n_modes : int
        Fourier modes K of u0 (below resolution / 2).
    smoothness, tau : float
        The spectrum of u0: coefficient variance proportional to (4 pi^2 k^2 + tau^2)^(-smoothness).
    sensor_layout : {"uniform", "random"}
        Equispaced sensors at floor((i + 1/2) resolution / m), or m distinct grid points drawn once.
    test_size : float
        The fraction of samples in the test set (rounded, at least one sample on each side).
    dtype : {"float32", "float64"}
        The dtype of the returned fields.
    seed : None, int or numpy.random.Generator
        Draws the fields, then the sensors (random layout), then the split.

    Returns
    -------
    OperatorDataset

    References
    ----------
    LeVeque, R. J. (2002). Finite Volume Methods for Hyperbolic Problems. Cambridge (chapter 2).

    Examples
    --------
    >>> import numpy as np
    >>> from learncore.operators import advection_1d
    >>> ds = advection_1d(5, resolution=64, c=0.25, T=1.0, dtype="float64", seed=0)
    >>> bool(np.allclose(ds.targets, np.roll(ds.inputs, 16, axis=1)))
    True
    """
    return _linear_1d("advection_1d", n_samples, resolution, n_sensors, T, amplitude, n_modes, smoothness, tau,
                      sensor_layout, test_size, dtype, seed, c=c)


def diffusion_1d(n_samples: int = 1000, *, resolution: int = 128, n_sensors: int = 32, T: float = 0.05,
                 nu: float = 0.1, amplitude: float = 0.5, n_modes: int = 8, smoothness: float = 2.0, tau: float = 5.0,
                 sensor_layout: str = "uniform", test_size: float = 0.2, dtype: str = "float32",
                 seed: Any = None) -> OperatorDataset:
    """The heat equation on the periodic unit interval, exact: u0 -> u(., T).

    u_t = nu u_xx with the random Fourier-series initial fields of the module docstring; mode k of u0
    decays by exp(-nu (2 pi k)^2 T) (exact, no time stepping).

    Parameters
    ----------
    n_samples : int
        The number of samples N (at least 2).
    resolution : int
        Grid points, x_j = j / resolution.
    n_sensors : int
        Sensors reading u0.
    T : float
        The final time.
    nu : float
        The diffusivity.
    amplitude : float
        The expected standard deviation of u0 over x.
    n_modes : int
        Fourier modes K of u0 (below resolution / 2).
    smoothness, tau : float
        The spectrum of u0: coefficient variance proportional to (4 pi^2 k^2 + tau^2)^(-smoothness).
    sensor_layout : {"uniform", "random"}
        Equispaced sensors at floor((i + 1/2) resolution / m), or m distinct grid points drawn once.
    test_size : float
        The fraction of samples in the test set (rounded, at least one sample on each side).
    dtype : {"float32", "float64"}
        The dtype of the returned fields.
    seed : None, int or numpy.random.Generator
        Draws the fields, then the sensors (random layout), then the split.

    Returns
    -------
    OperatorDataset

    References
    ----------
    Evans, L. C. (2010). Partial Differential Equations, 2nd ed. AMS (section 2.3, the heat equation).

    Examples
    --------
    >>> from learncore.operators import diffusion_1d
    >>> ds = diffusion_1d(5, resolution=64, seed=0)
    >>> bool((ds.targets.std(axis=1) < ds.inputs.std(axis=1)).all())
    True
    """
    return _linear_1d("diffusion_1d", n_samples, resolution, n_sensors, T, amplitude, n_modes, smoothness, tau,
                      sensor_layout, test_size, dtype, seed, nu=nu)
