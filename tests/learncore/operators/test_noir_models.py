"""The operators: shapes, gradients, determinism under a seed, the offline bases and the FNO's
translation equivariance (the fit to a stated error is in test_noir_training.py)."""
import dataclasses

import numpy as np
import pytest

from helpers import require_torch

torch = require_torch()
torch.set_num_threads(1)

from noir_tiny import field_2d, heat_1d  # noqa: E402
from learncore.operators import FNO, DeepONet, PCANet, PODDeepONet  # noqa: E402

DS = heat_1d(60, n_test=12)
DS2 = field_2d()
SMALL = {DeepONet: dict(p=6, branch_hidden=(16,), trunk_hidden=(16,)), PODDeepONet: dict(p=6, branch_hidden=(16,)),
         PCANet: dict(p=6, hidden=(16,)), FNO: dict(width=6, modes=4, n_layers=2, projection_hidden=8)}


@pytest.mark.parametrize("cls", list(SMALL), ids=lambda c: c.__name__)
@pytest.mark.parametrize("ds", [DS, DS2], ids=["1d", "2d"])
def test_shapes_and_gradients(cls, ds):
    net = cls.from_dataset(ds, seed=0, **SMALL[cls])
    x = torch.as_tensor(ds.sensors[:5], dtype=torch.float32)
    pred, z = net.forward_latent(x)
    assert pred.shape == (5, ds.targets.shape[1]) and z.shape == (5, 6) == (5, net.latent_dim)
    assert torch.equal(net(x), pred) and torch.equal(net.latent(x), z)
    (pred.square().mean() + z.square().mean()).backward()
    for name, par in net.named_parameters():
        assert par.grad is not None and torch.isfinite(par.grad).all(), name
        assert par.grad.abs().sum() > 0, f"{cls.__name__}.{name} receives no gradient"


@pytest.mark.parametrize("cls", list(SMALL), ids=lambda c: c.__name__)
def test_initialisation_is_a_function_of_the_seed(cls):
    state = torch.random.get_rng_state()
    a, b, c = (cls.from_dataset(DS, seed=s, **SMALL[cls]) for s in (3, 3, 4))
    assert torch.equal(torch.random.get_rng_state(), state), "from_dataset moved torch's global generator"
    sa, sb, sc = a.state_dict(), b.state_dict(), c.state_dict()
    assert all(torch.equal(sa[k], sb[k]) for k in sa)
    assert any(not torch.equal(sa[k], sc[k]) for k in sa)


def test_normalisation_uses_the_training_split_only():
    net = DeepONet.from_dataset(DS, **SMALL[DeepONet])
    tr = DS.train_idx
    assert np.allclose(net.x_mean.numpy(), DS.sensors[tr].mean(0), atol=1e-6)
    assert np.allclose(net.y_std.numpy(), DS.targets[tr].std(0), rtol=1e-5)
    # a point constant over the training samples (a Dirichlet boundary) gets the median scale of the others
    fixed = DS.targets.copy()
    fixed[:, 0] = 1.0
    net_b = DeepONet.from_dataset(dataclasses.replace(DS, targets=fixed), **SMALL[DeepONet])
    sd = DS.targets[tr].std(0)
    assert net_b.y_std[0].item() == pytest.approx(np.median(sd[1:]), rel=1e-6)
    raw = DeepONet.from_dataset(DS, normalize=False, **SMALL[DeepONet])
    assert torch.equal(raw.x_mean, torch.zeros(DS.sensor_idx.size)) and torch.equal(raw.y_std, torch.ones(32))


def test_pod_and_pca_bases_reconstruct_the_training_outputs():
    # heat_1d's outputs lie in a 9-dimensional affine space (1 + 8 Fourier modes): 8 modes span it
    pod = PODDeepONet.from_dataset(DS, p=8, branch_hidden=(4,))
    phi = pod.basis.double().numpy()
    assert np.allclose(phi.T @ phi, 32 * np.eye(8), atol=1e-4)              # orthogonal, rms 1
    y = (DS.targets[DS.train_idx] - pod.y_mean.double().numpy()) / pod.y_std.double().numpy()
    c = (y - pod.basis_mean.double().numpy()) @ phi / 32
    assert np.abs(pod.basis_mean.double().numpy() + c @ phi.T - y).max() < 1e-4
    assert pod.explained_variance.sum() == pytest.approx(1.0, abs=1e-10)
    pca = PCANet.from_dataset(DS, p=8, n_input_components=4, hidden=(4,))
    xin = (DS.sensors[DS.train_idx] - pca.x_mean.double().numpy()) / pca.x_std.double().numpy()
    coef = (xin - pca.in_mean.double().numpy()) @ pca.in_basis.double().numpy()
    assert np.allclose(coef.std(0), 1.0, atol=1e-5) and np.allclose(np.corrcoef(coef.T), np.eye(4), atol=1e-5)
    with pytest.raises(ValueError, match="p: 80 components asked"):
        PODDeepONet.from_dataset(DS, p=80)


@pytest.mark.parametrize("shape", [(16,), (8, 8)])
def test_fno_is_translation_equivariant(shape):
    # sensors on every grid point and no coordinate channels: the FNO commutes with circular shifts
    n = int(np.prod(shape))
    axes = [np.arange(s) / s for s in shape]
    grid = np.column_stack([g.ravel() for g in np.meshgrid(*axes, indexing="ij")])
    torch.manual_seed(0)
    net = FNO(n, grid, shape, np.arange(n), width=5, modes=3, n_layers=2, projection_hidden=7,
              coordinates=False).double()
    x = torch.randn(3, *shape, dtype=torch.float64)
    dims = tuple(range(1, len(shape) + 1))
    shifts = (5,) if len(shape) == 1 else (3, 6)
    out = net(x.reshape(3, n)).reshape(3, *shape)
    out_shift = net(torch.roll(x, shifts, dims).reshape(3, n)).reshape(3, *shape)
    assert torch.allclose(out_shift, torch.roll(out, shifts, dims), atol=1e-12)
    # the latent (pooled channels) is shift-invariant
    assert torch.allclose(net.latent(torch.roll(x, shifts, dims).reshape(3, n)), net.latent(x.reshape(3, n)),
                          atol=1e-12)


def test_fno_places_the_sensors_on_the_grid():
    net = FNO.from_dataset(DS, **SMALL[FNO])
    assert torch.equal(torch.nonzero(net.mask).flatten(), torch.as_tensor(DS.sensor_idx))
    # the output depends on the readings only through the sensor positions: a reading changes it
    x = torch.as_tensor(DS.sensors[:2], dtype=torch.float32).clone()
    y0 = net(x)
    x[:, 3] += 1.0
    assert not torch.allclose(net(x), y0)


def test_float64_models():
    net = DeepONet.from_dataset(DS, **SMALL[DeepONet]).double()
    assert net(DS.sensors[:3]).dtype == torch.float64


@pytest.mark.parametrize("call, err, match", [
    (lambda: DeepONet.from_dataset(DS, **SMALL[DeepONet])(np.zeros((2, 7))), ValueError, r"sensors must have shape \(B, 8\)"),
    (lambda: DeepONet.from_dataset(DS, **SMALL[DeepONet])(np.zeros(8)), ValueError, "x\\[None\\]"),
    (lambda: DeepONet.from_dataset(DS, **SMALL[DeepONet])(np.full((2, 8), np.nan)), ValueError, "non-finite"),
    (lambda: DeepONet.from_dataset(DS, **SMALL[DeepONet])("abc"), TypeError, "sensors"),
    (lambda: DeepONet.from_dataset(None), TypeError, "ds must be an OperatorDataset"),
    (lambda: DeepONet.from_dataset(DS, p=0), ValueError, "p"),
    (lambda: DeepONet.from_dataset(DS, activation="softmax"), ValueError, "activation"),
    (lambda: DeepONet.from_dataset(DS, branch_hidden="64"), TypeError, "branch_hidden"),
    (lambda: FNO.from_dataset(DS, modes=40), ValueError, "modes"),
    (lambda: FNO.from_dataset(DS, n_layers=2, latent_layer=2), ValueError, "latent_layer"),
    (lambda: FNO(2, np.linspace(0, 1, 8)[:, None], (8,), [1, 1]), ValueError, "sensor_idx"),
    (lambda: PCANet.from_dataset(DS, n_input_components=9), ValueError, "n_input_components"),
    (lambda: PODDeepONet.from_dataset(DS, mode_scale="max"), ValueError, "mode_scale"),
])
def test_bad_arguments_are_named(call, err, match):
    with pytest.raises(err, match=match):
        call()


def _dft_oracle(x, w_blocks, modes):
    """The spectral convolution written as explicit DFT sums (no FFT): Y_o(k) = sum_i W_io(k) X_i(k) on the
    kept modes, y_o = (1/N) sum_k c_k Re(Y_o(k) e^{2 pi i k.s / n}) with c = 1 for a zero last-axis
    frequency and 2 otherwise (the real signal's conjugate half)."""
    shape = x.shape[2:]
    coords = np.stack(np.meshgrid(*[np.arange(s) for s in shape], indexing="ij"), -1).reshape(-1, len(shape))
    xs = x.reshape(x.shape[0], x.shape[1], -1)
    if len(shape) == 1:
        ks = [((k,), w_blocks[0][..., k]) for k in range(modes[0])]
    else:
        H = shape[0]
        ks = [((k1, k2), w_blocks[0][..., k1, k2]) for k1 in range(modes[0]) for k2 in range(modes[1])]
        ks += [((H - modes[0] + j, k2), w_blocks[1][..., j, k2]) for j in range(modes[0]) for k2 in range(modes[1])]
    out = np.zeros((x.shape[0], w_blocks[0].shape[1], coords.shape[0]))
    for k, W in ks:
        phase = np.exp(-2j * np.pi * (coords / np.array(shape)) @ np.array(k, dtype=float))
        X = xs @ phase                                           # (B, C_in)
        Y = X @ W                                                # (B, C_out)
        c = 1.0 if k[-1] == 0 else 2.0
        out += c * np.real(Y[:, :, None] * np.conj(phase)[None, None, :])
    return out.reshape(x.shape[0], -1, *shape) / coords.shape[0]


@pytest.mark.parametrize("shape, modes", [((12,), (4,)), ((8, 10), (3, 4))])
def test_spectral_convolution_equals_the_explicit_dft(shape, modes):
    from learncore.operators._fno import _SpectralConv

    torch.manual_seed(1)
    conv = _SpectralConv(3, modes).double()
    with torch.no_grad():
        conv.weight.normal_()
    x = torch.randn(2, 3, *shape, dtype=torch.float64)
    wt = conv.weight.detach().numpy()
    blocks = [wt[b, 0] + 1j * wt[b, 1] for b in range(wt.shape[0])]
    ref = _dft_oracle(x.numpy(), blocks, modes)
    assert np.abs(conv(x).detach().numpy() - ref).max() < 1e-12


@pytest.mark.parametrize("ds", [DS, DS2], ids=["1d", "2d"])
def test_fno_gradcheck_in_float64(ds):
    net = FNO.from_dataset(ds, width=3, modes=2, n_layers=2, projection_hidden=4, activation="tanh").double()
    x = torch.tensor(ds.sensors[:2], requires_grad=True)
    assert torch.autograd.gradcheck(lambda s: net.forward_latent(s), (x,), eps=1e-6, atol=1e-6)
