"""learncore.operators data and corruptions: the PDE solvers against exact solutions, the corruption
scales as documented, determinism under a seed, and bad input (issue 16, section 2)."""
import math
import pickle

import numpy as np
import pytest
from scipy.special import ive

from learncore.operators import (CORRUPTIONS, OperatorDataset, advection_1d, burgers_1d, corrupt, darcy_2d,
                                 diffusion_1d)
from learncore.operators.data import _burgers_solve, _darcy_solve


# ----------------------------------------------------------------------------------------------
# Burgers: the exact Cole-Hopf solution for u0 = A sin(2 pi x)
# ----------------------------------------------------------------------------------------------
#
# u = -2 nu phi_x / phi turns u_t + u u_x = nu u_xx into phi_t = nu phi_xx, with
# phi0(x) = exp(-(1 / (2 nu)) int_0^x u0) = exp(-A (1 - cos 2 pi x) / (4 pi nu)) ~ exp(z cos 2 pi x),
# z = A / (4 pi nu). On the line, phi(x, t) = int G(x - y, t) phi0(y) dy with the heat kernel
# G(r, t) = exp(-r^2 / (4 nu t)) / sqrt(4 pi nu t), so (differentiating under the integral)
# u(x, t) = int ((x - y) / t) G(x - y, t) phi0(y) dy / int G(x - y, t) phi0(y) dy.
# Oracle 1 evaluates these two integrals by quadrature; oracle 2 is the Fourier series of the
# periodic heat solution: exp(z cos theta) = I0(z) + 2 sum_k I_k(z) cos(k theta), so
# phi = I0 + 2 sum_k I_k(z) exp(-nu (2 pi k)^2 t) cos(2 pi k x).

def _cole_hopf_quadrature(x, t, A, nu, half_width=14.0, n_nodes=20001):
    s = math.sqrt(4.0 * nu * t)
    r = np.linspace(-half_width * s, half_width * s, n_nodes)  # r = x - y
    z = A / (4.0 * math.pi * nu)
    out = np.empty_like(x)
    for i, xi in enumerate(x):
        logw = -r ** 2 / (4.0 * nu * t) + z * np.cos(2.0 * math.pi * (xi - r))
        w = np.exp(logw - logw.max())  # the common factor cancels in the ratio
        out[i] = np.trapezoid(r / t * w, r) / np.trapezoid(w, r)
    return out


def _cole_hopf_series(x, t, A, nu, n_terms=80):
    z = A / (4.0 * math.pi * nu)
    k = np.arange(1, n_terms + 1)[:, None]
    decay = np.exp(-nu * (2.0 * math.pi * k) ** 2 * t)
    phi = ive(0, z) + 2.0 * (ive(k, z) * decay * np.cos(2.0 * math.pi * k * x)).sum(0)
    phi_x = -2.0 * (ive(k, z) * decay * 2.0 * math.pi * k * np.sin(2.0 * math.pi * k * x)).sum(0)
    return -2.0 * nu * phi_x / phi


def test_burgers_matches_cole_hopf():
    A, nu, T, n = 0.5, 0.02, 0.3, 256
    x = np.arange(n) / n
    u, h, steps = _burgers_solve(A * np.sin(2 * np.pi * x)[None], nu=nu, T=T)
    quad = _cole_hopf_quadrature(x, T, A, nu)
    series = _cole_hopf_series(x, T, A, nu)
    assert np.abs(quad - series).max() < 1e-10  # the two exact oracles agree
    err = np.abs(u[0] - quad).max() / np.abs(quad).max()
    assert err < 1e-8, err
    # a steeper case (nu = 0.01, A = 1, T = 0.2: a front of width ~ 0.02) on the dataset's default grid
    A, nu, T = 1.0, 0.01, 0.2
    u, _, _ = _burgers_solve(A * np.sin(2 * np.pi * x)[None], nu=nu, T=T)
    quad = _cole_hopf_quadrature(x[::8], T, A, nu)
    err = np.abs(u[0, ::8] - quad).max() / np.abs(quad).max()
    assert err < 1e-6, err


def test_burgers_conserves_mean_and_dataset_is_the_solver():
    rng = np.random.default_rng(3)
    x = np.arange(128) / 128
    u0 = 0.3 + 0.4 * np.sin(2 * np.pi * x)[None] + 0.2 * np.cos(6 * np.pi * x + rng.random((4, 1)))
    u, _, _ = _burgers_solve(u0, nu=0.01, T=0.5)
    assert np.abs(u.mean(1) - u0.mean(1)).max() < 1e-13
    assert np.abs(u - u0).max() > 0.05  # it did move
    ds = burgers_1d(6, resolution=64, n_sensors=8, T=0.3, dtype="float64", seed=1)
    assert np.abs(ds.targets.mean(1) - ds.inputs.mean(1)).max() < 1e-13
    # the inputs are band-limited (n_modes < resolution / 2): FFT interpolation to the solver's grid is
    # exact, and solving from there reproduces the targets
    fine = np.fft.irfft(np.fft.rfft(ds.inputs, axis=1), n=128, axis=1) * 2
    u, _, _ = _burgers_solve(fine, nu=ds.params["nu"], T=ds.params["T"], dt=ds.params["dt"])
    assert np.abs(u[:, ::2] - ds.targets).max() < 1e-12


# ----------------------------------------------------------------------------------------------
# Darcy: the discrete equation, written out point by point
# ----------------------------------------------------------------------------------------------

def _darcy_residual(a, u, f, face_mean):
    n = a.shape[0]
    h = 1.0 / (n - 1)
    mean = (lambda p, q: 0.5 * (p + q)) if face_mean == "arithmetic" else (lambda p, q: 2 * p * q / (p + q))
    r = np.zeros((n - 2, n - 2))
    for i in range(1, n - 1):
        for j in range(1, n - 1):
            s = 0.0
            for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                s += mean(a[i, j], a[i + di, j + dj]) * (u[i, j] - u[i + di, j + dj])
            r[i - 1, j - 1] = s / h ** 2 - f
    return r


@pytest.mark.parametrize("face_mean", ["arithmetic", "harmonic"])
def test_darcy_satisfies_the_discrete_equation(face_mean):
    ds = darcy_2d(3, resolution=32, n_sensors=64, face_mean=face_mean, dtype="float64", seed=4)
    n = 32
    for i in range(3):
        a, u = ds.inputs[i].reshape(n, n), ds.targets[i].reshape(n, n)
        assert set(np.unique(a)) == {3.0, 12.0}
        assert np.all(u[0] == 0) and np.all(u[-1] == 0) and np.all(u[:, 0] == 0) and np.all(u[:, -1] == 0)
        assert np.abs(_darcy_residual(a, u, 1.0, face_mean)).max() < 1e-10
        assert u[1:-1, 1:-1].min() > 0  # f > 0: the maximum principle
    # constant a: the discrete Poisson solution converges to the series solution of -a lap u = 1
    x = np.linspace(0, 1, 33)
    u = _darcy_solve(np.full((33, 33), 2.0))
    X, Y = np.meshgrid(x, x, indexing="ij")
    exact = sum(16.0 / (math.pi ** 4 * p * q * (p * p + q * q)) * np.sin(p * math.pi * X) * np.sin(q * math.pi * Y)
                for p in range(1, 200, 2) for q in range(1, 200, 2)) / 2.0
    assert np.abs(u - exact).max() / exact.max() < 2e-3


# ----------------------------------------------------------------------------------------------
# advection and diffusion: exact solutions
# ----------------------------------------------------------------------------------------------

def test_advection_and_diffusion_equal_their_exact_solutions():
    ds = advection_1d(10, resolution=128, c=0.5, T=0.5, dtype="float64", seed=2)  # shift 0.25 = 32 points
    assert np.abs(ds.targets - np.roll(ds.inputs, 32, axis=1)).max() < 1e-12
    ds = advection_1d(10, resolution=128, c=0.3, T=1.0, dtype="float64", seed=2)  # a shift off the grid
    k = np.fft.rfftfreq(128, d=1 / 128)
    shifted = np.fft.irfft(np.fft.rfft(ds.inputs, axis=1) * np.exp(-2j * np.pi * k * 0.3), n=128, axis=1)
    assert np.abs(ds.targets - shifted).max() < 1e-12
    ds = diffusion_1d(10, resolution=128, nu=0.1, T=0.05, dtype="float64", seed=2)
    heat = np.fft.irfft(np.fft.rfft(ds.inputs, axis=1) * np.exp(-0.1 * (2 * np.pi * k) ** 2 * 0.05), n=128, axis=1)
    assert np.abs(ds.targets - heat).max() < 1e-12
    # and the PDE itself: u_t = nu u_xx by finite differences in t and spectral u_xx
    d1 = diffusion_1d(3, resolution=128, nu=0.1, T=0.05 + 1e-5, dtype="float64", seed=5)
    d0 = diffusion_1d(3, resolution=128, nu=0.1, T=0.05 - 1e-5, dtype="float64", seed=5)
    ds = diffusion_1d(3, resolution=128, nu=0.1, T=0.05, dtype="float64", seed=5)
    uxx = np.fft.irfft(-(2 * np.pi * k) ** 2 * np.fft.rfft(ds.targets, axis=1), n=128, axis=1)
    assert np.abs((d1.targets - d0.targets) / 2e-5 - 0.1 * uxx).max() < 1e-6


# ----------------------------------------------------------------------------------------------
# the dataset object: geometry, split, determinism, read-only
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("gen,kw", [(burgers_1d, dict(resolution=64, n_sensors=16, T=0.2)),
                                    (darcy_2d, dict(resolution=16, n_sensors=16)),
                                    (advection_1d, dict(resolution=64, n_sensors=16)),
                                    (diffusion_1d, dict(resolution=64, n_sensors=16))])
def test_dataset_geometry_split_and_determinism(gen, kw):
    ds = gen(20, seed=7, **kw)
    again = gen(20, seed=7, **kw)
    other = gen(20, seed=8, **kw)
    assert isinstance(ds, OperatorDataset)
    for f in ("inputs", "targets", "sensor_idx", "train_idx", "test_idx", "grid"):
        assert np.array_equal(getattr(ds, f), getattr(again, f))
        assert not getattr(ds, f).flags.writeable
    assert not np.array_equal(ds.inputs, other.inputs)
    assert ds.inputs.dtype == np.float32 and ds.targets.dtype == np.float32
    n_grid = int(np.prod(ds.grid_shape))
    assert ds.inputs.shape == ds.targets.shape == (20, n_grid)
    assert ds.grid.shape == (n_grid, ds.dim) and ds.grid.min() >= 0 and ds.grid.max() <= 1
    assert ds.sensors.shape == (20, 16) and ds.sensor_coords.shape == (16, ds.dim)
    assert np.array_equal(ds.sensors, ds.inputs[:, ds.sensor_idx])
    assert len(np.unique(ds.sensor_idx)) == 16
    assert sorted(np.concatenate([ds.train_idx, ds.test_idx]).tolist()) == list(range(20))
    assert len(ds.test_idx) == 4
    text = ds.describe()
    for word in ("grid", "sensors", "16", "uniform", "16 train / 4 test", "seed 7"):
        assert word in text, (word, text)
    assert repr(ds).startswith("OperatorDataset(") and len(repr(ds)) < 200
    with pytest.raises(TypeError):
        ds.params["seed"] = 1
    rnd = gen(20, seed=7, sensor_layout="random", **kw)
    assert len(np.unique(rnd.sensor_idx)) == 16 and not np.array_equal(rnd.sensor_idx, ds.sensor_idx)
    g = np.random.default_rng(7)
    assert gen(20, seed=g, **kw).seed is None
    back = pickle.loads(pickle.dumps(ds))  # datasets travel to worker processes
    assert np.array_equal(back.targets, ds.targets) and not back.targets.flags.writeable
    assert dict(back.params) == dict(ds.params) and back.describe() == ds.describe()


def test_uniform_sensor_layouts():
    ds = advection_1d(4, resolution=128, n_sensors=32, seed=0)
    assert np.array_equal(ds.sensor_idx, np.arange(32) * 4 + 2)
    ds = darcy_2d(2, resolution=32, n_sensors=64, seed=0)
    i = np.arange(8) * 4 + 2
    assert np.array_equal(ds.sensor_idx, np.sort((i[:, None] * 32 + i[None, :]).ravel()))


@pytest.mark.parametrize("call,match", [
    (lambda: advection_1d(10, resolution=16, n_sensors=17), "n_sensors"),
    (lambda: advection_1d(10, resolution=16, n_sensors=8, n_modes=8), "n_modes"),
    (lambda: advection_1d(10, test_size=1.0), "test_size"),
    (lambda: advection_1d(10, seed=-1), "seed"),
    (lambda: advection_1d(10, dtype="float16"), "dtype"),
    (lambda: advection_1d(1), "n_samples"),
    (lambda: advection_1d(10, sensor_layout="grid"), "sensor_layout"),
    (lambda: diffusion_1d(10, nu=-0.1), "nu"),
    (lambda: burgers_1d(10, T=0.0), "T"),
    (lambda: burgers_1d(10, amplitude=float("nan")), "amplitude"),
    (lambda: darcy_2d(10, n_sensors=10), "n_sensors"),
    (lambda: darcy_2d(10, a_low=0.0), "a_low"),
    (lambda: darcy_2d(10, face_mean="geometric"), "face_mean"),
])
def test_bad_input(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


# ----------------------------------------------------------------------------------------------
# corruptions
# ----------------------------------------------------------------------------------------------

N, M = 2000, 50
_CLEAN = np.sin(np.linspace(0, 9, N * M)).reshape(N, M) * np.linspace(1, 3, N)[:, None]
_S = _CLEAN.std(axis=1)
_X = np.linspace(0, 1, M, endpoint=False)


def _z(kind, level=0.7, seed=0, **kw):
    y = corrupt(_CLEAN, kind=kind, level=level, sensor_coords=_X, seed=seed, **kw)
    return (y - _CLEAN) / (level * _S[:, None])


def test_corruption_scales_are_as_documented():
    # Monte Carlo over N * M = 1e5 entries (sd of a sd estimate ~ 0.2%); the tolerances are ~5 sd
    z = _z("gaussian")
    assert abs(z.std() - 1) < 0.012 and abs(z.mean()) < 0.02
    z = _z("student_t")
    assert abs(np.median(np.abs(z)) - 0.5 / math.sqrt(0.375)) < 0.02  # t2 quartile: (2p - 1) / sqrt(2p(1 - p))
    z = _z("student_t", df=30)
    assert abs(z.std() - math.sqrt(30 / 28)) < 0.015
    z = _z("impulse", fraction=0.1)
    hit = z != 0
    assert abs(hit.mean() - 0.1) < 0.005
    assert np.allclose(np.abs(z[hit]), 1 / math.sqrt(0.1)) and abs(np.sign(z[hit]).mean()) < 0.03
    assert abs(np.sqrt((z ** 2).mean()) - 1) < 0.03
    z = _z("bias")
    assert np.abs(z - z[0]).max() < 1e-10  # constant down each column
    zs = np.stack([_z("bias", seed=s)[0] for s in range(400)])  # rms over seeds and sensors
    assert abs(np.sqrt((zs ** 2).mean()) - 1) < 0.03
    z = _z("drift")
    assert abs(np.sqrt((z ** 2).mean()) - 1) < 0.03
    # scale given explicitly replaces the per-sample standard deviation
    y = corrupt(_CLEAN, kind="bias", level=0.5, scale=2.0, seed=0)
    e = (y - _CLEAN) / 1.0
    assert np.abs(e - e[0]).max() < 1e-12


def test_drift_is_smooth():
    z = _z("drift", drift_modes=1)
    basis = np.column_stack([np.ones(M), np.cos(2 * np.pi * _X), np.sin(2 * np.pi * _X)])
    coef, *_ = np.linalg.lstsq(basis, z.T, rcond=None)
    assert np.abs(basis @ coef - z.T).max() < 1e-10  # a trigonometric polynomial of degree 1 in x
    assert np.abs(np.diff(z, axis=1)).max() < 0.5 * np.abs(np.diff(_z("gaussian"), axis=1)).max()
    # 2-D coordinates: degree 1 in each axis, 1 + 4 functions
    coords = np.random.default_rng(0).random((30, 2))
    y = corrupt(np.random.default_rng(1).standard_normal((500, 30)), kind="drift", level=1.0, sensor_coords=coords,
                seed=2)
    cols = [np.ones(30)]
    for k in ((1, 0), (0, 1), (1, 1), (1, -1)):
        ph = 2 * np.pi * coords @ np.array(k, float)
        cols += [np.cos(ph), np.sin(ph)]
    basis = np.column_stack(cols)
    x0 = np.random.default_rng(1).standard_normal((500, 30))
    d = (y - x0).T
    coef, *_ = np.linalg.lstsq(basis, d, rcond=None)
    assert np.abs(basis @ coef - d).max() < 1e-10


@pytest.mark.parametrize("kind", CORRUPTIONS)
def test_corruption_determinism_copy_and_zero_level(kind):
    before = _CLEAN.copy()
    a = corrupt(_CLEAN[:50], kind=kind, level=0.3, sensor_coords=_X, seed=5)
    b = corrupt(_CLEAN[:50], kind=kind, level=0.3, sensor_coords=_X, seed=5)
    c = corrupt(_CLEAN[:50], kind=kind, level=0.3, sensor_coords=_X, seed=6)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert np.array_equal(_CLEAN, before)
    z = corrupt(_CLEAN[:50], kind=kind, level=0.0, sensor_coords=_X, seed=5)
    assert np.array_equal(z, _CLEAN[:50]) and z is not _CLEAN
    # stronger level, same seed: the same pattern scaled
    d = corrupt(_CLEAN[:50], kind=kind, level=0.6, sensor_coords=_X, seed=5)
    assert np.allclose(d - _CLEAN[:50], 2 * (a - _CLEAN[:50]), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kwargs,match", [
    (dict(kind="uniform", level=0.1), "kind"),
    (dict(kind="gaussian", level=-0.1), "level"),
    (dict(kind="gaussian", level=float("nan")), "level"),
    (dict(kind="drift", level=0.1), "sensor_coords"),
    (dict(kind="drift", level=0.1, sensor_coords=np.zeros(3)), "sensor_coords"),
    (dict(kind="impulse", level=0.1, fraction=0.0), "fraction"),
    (dict(kind="student_t", level=0.1, df=0), "df"),
    (dict(kind="gaussian", level=0.1, scale=np.ones(3)), "scale"),
    (dict(kind="gaussian", level=0.1, scale=-1.0), "scale"),
])
def test_corrupt_bad_input(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        corrupt(_CLEAN[:5], **kwargs)
    with pytest.raises(ValueError, match="sensors"):
        corrupt(np.ones((3, 4)), kind="gaussian", level=0.1)  # constant rows: no default scale
    with pytest.raises(ValueError, match="sensors"):
        corrupt(np.ones(4), kind="gaussian", level=0.1)
