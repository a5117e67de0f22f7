"""learncore.bayes.layerwise_curvature against autograd: the diagonal of the exact Hessian
(torch.autograd.functional.hessian of the loss in the flattened parameters) and of the exact GGN
J^T H_L J (J the Jacobian of the outputs, H_L the loss Hessian in the outputs), in float64, for every
supported layer and loss and both reductions. Budget: a few seconds."""
import pytest

from helpers import require_torch

torch = require_torch()

from torch import nn  # noqa: E402
from torch.func import functional_call  # noqa: E402

from learncore.bayes.curvature import layerwise_curvature  # noqa: E402

TOL = 1e-10
LOSSES = [(nn.MSELoss, "mean"), (nn.MSELoss, "sum"), (nn.CrossEntropyLoss, "mean"), (nn.CrossEntropyLoss, "sum")]


def exact_diagonals(model, loss, x, y):
    """(diag of the Hessian, diag of the GGN) by autograd, keyed like named_parameters: for each
    parameter tensor, its exact Hessian block (torch.autograd.functional.hessian of the loss with the
    other parameters held fixed) and its exact GGN block J^T H_L J (J the Jacobian of the outputs in
    that tensor, H_L the Hessian of the loss in the outputs); the diagonal of the full matrix is the
    diagonal of these blocks."""
    params = {n: p.detach() for n, p in model.named_parameters()}
    f = model(x).detach()
    HL = torch.autograd.functional.hessian(lambda o: loss(o.reshape(f.shape), y), f.reshape(-1), vectorize=True)
    hess, ggn = {}, {}
    for name, p in params.items():
        def out_of(t, name=name):
            return functional_call(model, {**params, name: t.reshape(p.shape)}, (x,))

        t0 = p.reshape(-1)
        H = torch.autograd.functional.hessian(lambda t: loss(out_of(t), y), t0, vectorize=True)
        J = torch.autograd.functional.jacobian(out_of, t0, vectorize=True).reshape(f.numel(), -1)
        hess[name] = torch.diagonal(H).reshape(p.shape)
        ggn[name] = torch.diagonal(J.T @ HL @ J).reshape(p.shape)
    return hess, ggn


def _targets(loss_cls, out_shape, n, gen):
    if loss_cls is nn.CrossEntropyLoss:
        return torch.randint(0, out_shape[1], (n,), generator=gen)
    return torch.randn(out_shape, generator=gen, dtype=torch.float64)


def _check(model, loss, x, y, *, relu_only=False):
    model = model.double()
    hess, ggn = exact_diagonals(model, loss, x, y)
    d_h = layerwise_curvature(model, loss, x, y, kind="diag_hessian")
    d_g = layerwise_curvature(model, loss, x, y, kind="diag_ggn")
    assert list(d_h) == [n for n, _ in model.named_parameters()] == list(d_g)
    err_h = max(float((d_h[k] - hess[k]).abs().max()) for k in hess)
    err_g = max(float((d_g[k] - ggn[k]).abs().max()) for k in ggn)
    for k in hess:
        assert d_h[k].shape == hess[k].shape and d_h[k].dtype == torch.float64
    assert err_h < TOL, f"Hessian diagonal off by {err_h:.3g}"
    assert err_g < TOL, f"GGN diagonal off by {err_g:.3g}"
    # the test is not vacuous: the diagonals are of order one, and the two differ unless ReLU-only
    scale = max(float(v.abs().max()) for v in hess.values())
    assert scale > 1e-3
    gap = max(float((hess[k] - ggn[k]).abs().max()) for k in hess)
    if relu_only:
        assert gap < TOL
        for k in d_h:
            torch.testing.assert_close(d_h[k], d_g[k], rtol=0, atol=TOL)
    else:
        assert gap > 1e-6, "the residual terms should make the Hessian differ from the GGN"
    return err_h, err_g


def _mlp(act1, act2, gen_seed=0):
    torch.manual_seed(gen_seed)
    return nn.Sequential(nn.Linear(3, 5), act1(), nn.Linear(5, 4), act2(), nn.Linear(4, 3))


@pytest.mark.parametrize("loss_cls, reduction", LOSSES)
def test_mlp_smooth_activations(loss_cls, reduction):
    gen = torch.Generator().manual_seed(1)
    model = _mlp(nn.Tanh, nn.Sigmoid)
    x = 1.5 * torch.randn(6, 3, generator=gen, dtype=torch.float64)
    y = _targets(loss_cls, (6, 3), 6, gen)
    _check(model, loss_cls(reduction=reduction), x, y)


@pytest.mark.parametrize("loss_cls, reduction", LOSSES)
def test_relu_mlp_hessian_equals_ggn(loss_cls, reduction):
    gen = torch.Generator().manual_seed(2)
    model = _mlp(nn.ReLU, nn.ReLU, gen_seed=3)
    x = torch.randn(7, 3, generator=gen, dtype=torch.float64)
    y = _targets(loss_cls, (7, 3), 7, gen)
    _check(model, loss_cls(reduction=reduction), x, y, relu_only=True)


def _cnn(seed=0):
    torch.manual_seed(seed)
    return nn.Sequential(
        nn.Conv2d(1, 2, 3, padding=1),                                   # same size, padded
        nn.Tanh(),
        nn.Conv2d(2, 2, 2, stride=2, groups=2, bias=False),              # strided, grouped, no bias
        nn.Sigmoid(),
        nn.Sequential(nn.Conv2d(2, 2, 3, padding="same", dilation=2),   # nested, "same", dilated
                      nn.ReLU()),
        nn.Flatten(),
        nn.Linear(2 * 3 * 3, 3),
    )


@pytest.mark.parametrize("loss_cls, reduction", LOSSES)
def test_tiny_cnn(loss_cls, reduction):
    gen = torch.Generator().manual_seed(4)
    model = _cnn()
    x = torch.randn(3, 1, 6, 6, generator=gen, dtype=torch.float64)
    y = _targets(loss_cls, (3, 3), 3, gen)
    _check(model, loss_cls(reduction=reduction), x, y)
    assert "4.0.weight" in layerwise_curvature(model.double(), loss_cls(reduction=reduction), x, y)


@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel")   # torch's, from the oracle's forward
def test_cnn_relu_only_and_odd_same_padding():
    """ReLU convolutions: Hessian = GGN; an even kernel with padding="same" pads unevenly."""
    torch.manual_seed(5)
    model = nn.Sequential(nn.Conv2d(1, 3, 2, padding="same"), nn.ReLU(), nn.Conv2d(3, 2, 3, stride=2, padding=1),
                          nn.ReLU(), nn.Flatten(), nn.Linear(2 * 3 * 3, 2))
    gen = torch.Generator().manual_seed(6)
    x = torch.randn(4, 1, 5, 5, generator=gen, dtype=torch.float64)
    y = torch.randint(0, 2, (4,), generator=gen)
    _check(model, nn.CrossEntropyLoss(), x, y, relu_only=True)


def test_mse_multidimensional_output():
    """MSELoss on a convolutional output (no Linear head): the mean divides by every element."""
    torch.manual_seed(7)
    model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.Tanh(), nn.Conv2d(2, 1, 2))
    gen = torch.Generator().manual_seed(8)
    x = torch.randn(2, 1, 5, 5, generator=gen, dtype=torch.float64)
    y = torch.randn(2, 1, 2, 2, generator=gen, dtype=torch.float64)
    _check(model, nn.MSELoss(), x, y)


def test_flatten_first():
    """A network that starts with a layer without parameters."""
    torch.manual_seed(9)
    model = nn.Sequential(nn.Flatten(), nn.Linear(8, 3), nn.Sigmoid(), nn.Linear(3, 2))
    gen = torch.Generator().manual_seed(10)
    x = torch.randn(4, 2, 2, 2, generator=gen, dtype=torch.float64)
    _check(model, nn.CrossEntropyLoss(reduction="sum"), x, torch.randint(0, 2, (4,), generator=gen))


def test_no_side_effects_and_float32():
    model = _mlp(nn.Tanh, nn.Tanh)
    gen = torch.Generator().manual_seed(10)
    x, y = torch.randn(5, 3, generator=gen), torch.randint(0, 3, (5,), generator=gen)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    d = layerwise_curvature(model, nn.CrossEntropyLoss(), x.numpy(), y.numpy())
    assert all(p.grad is None for p in model.parameters())
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    assert d["0.weight"].dtype == torch.float32 and not d["0.weight"].requires_grad


def test_bad_input():
    model = _mlp(nn.Tanh, nn.Tanh).double()
    gen = torch.Generator().manual_seed(11)
    x, y = torch.randn(5, 3, dtype=torch.float64, generator=gen), torch.randint(0, 3, (5,), generator=gen)
    ce = nn.CrossEntropyLoss()
    with pytest.raises(TypeError, match=r"'1' \(BatchNorm1d\)"):
        layerwise_curvature(nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3)), ce, x, y)
    with pytest.raises(TypeError, match="model"):
        layerwise_curvature(nn.Linear(3, 3), ce, x, y)
    with pytest.raises(TypeError, match="loss"):
        layerwise_curvature(model, nn.NLLLoss(), x, y)
    with pytest.raises(ValueError, match="reduction"):
        layerwise_curvature(model, nn.MSELoss(reduction="none"), x,
                            torch.randn(5, 3, dtype=torch.float64, generator=gen))
    with pytest.raises(ValueError, match="label_smoothing"):
        layerwise_curvature(model, nn.CrossEntropyLoss(label_smoothing=0.1), x, y)
    with pytest.raises(ValueError, match="kind"):
        layerwise_curvature(model, ce, x, y, kind="kfac")
    with pytest.raises(ValueError, match="x"):
        layerwise_curvature(model, ce, torch.randn(5, 4, dtype=torch.float64, generator=gen), y)
    with pytest.raises(ValueError, match="x"):
        layerwise_curvature(model, ce, x.clone().fill_(float("nan")), y)
    with pytest.raises(ValueError, match="y"):
        layerwise_curvature(model, ce, x, y[:-1])
    with pytest.raises(ValueError, match="y"):
        layerwise_curvature(model, ce, x, y + 3)
    with pytest.raises(TypeError, match="y"):
        layerwise_curvature(model, ce, x, y.double())
    with pytest.raises(ValueError, match="y"):   # torch would broadcast (5, 1) against (5,)
        layerwise_curvature(nn.Sequential(nn.Linear(3, 1)).double(), nn.MSELoss(), x, torch.randn(5, generator=gen))
    with pytest.raises(TypeError, match="x"):
        layerwise_curvature(model, ce, "abc", y)
    with pytest.raises(TypeError, match="padding_mode"):
        layerwise_curvature(nn.Sequential(nn.Conv2d(1, 1, 3, padding=1, padding_mode="circular")), nn.MSELoss(),
                            torch.randn(1, 1, 4, 4, generator=gen), torch.randn(1, 1, 4, 4, generator=gen))
    lin = nn.Linear(3, 3)
    with pytest.raises(ValueError, match="shared"):
        layerwise_curvature(nn.Sequential(lin, nn.Tanh(), lin), ce, torch.randn(5, 3, generator=gen), y)
