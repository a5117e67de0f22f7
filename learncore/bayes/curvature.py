"""Layerwise curvature: the diagonal of the Hessian (or of the generalised Gauss-Newton matrix) of a
loss with respect to every parameter of a feedforward network, by Hessian backpropagation.

The loss Hessian with respect to the network's output is factorised symmetrically and the factors are
backpropagated layer by layer with each layer's transposed Jacobian (the "delta method" at the layer's
state); for the exact Hessian, every Tanh or Sigmoid layer adds its residual term (the activation's
second derivative times the backpropagated gradient) as a further factor. A parameter's diagonal is
read off the factors that reach its layer's output. Everything runs on tensors under ``no_grad``:
autograd is not used, and the model's parameters and their ``.grad`` are left as they were.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from statcore.utils import check_choice
from torch import nn

__all__ = ["layerwise_curvature"]

KINDS = ("diag_hessian", "diag_ggn")
_ACTIVATIONS = (nn.ReLU, nn.Tanh, nn.Sigmoid)
_SUPPORTED = (nn.Linear, nn.Conv2d, nn.Flatten) + _ACTIVATIONS
_SUPPORTED_NAMES = "Linear, Conv2d, Flatten, ReLU, Tanh, Sigmoid (and nested Sequential)"


def layerwise_curvature(model: Any, loss: Any, x: Any, y: Any, *, kind: str = "diag_hessian") -> dict:
    r"""The diagonal Hessian (or GGN) of a loss in every parameter of a Sequential network, by HBP.

    HBP is Hessian backpropagation: the curvature of the loss is propagated from the output back
    through the layers of a ``torch.nn.Sequential``, as backpropagation does with the gradient.

    With layer states :math:`z_0 = x`, :math:`z_l = f_l(z_{l-1}, \theta_l)` and the loss
    :math:`L(z_L, y)`, the Hessian of the loss with respect to each layer's input follows from the one
    with respect to its output (Dangel, Harmeling and Hennig, 2020, eq. "Hessian backpropagation"):

    .. math:: H_{z_{l-1}} = J_l^\top H_{z_l} J_l + \sum_k \frac{\partial L}{\partial z_{l,k}}
              \nabla^2_{z_{l-1}} z_{l,k},

    and the diagonal for a parameter of layer :math:`l` is :math:`\operatorname{diag}(J_\theta^\top
    H_{z_l} J_\theta)` (Linear and Conv2d are linear in their parameters, so no residual appears
    there). ``kind="diag_ggn"`` drops the residual sums: the loss Hessian with respect to the output,
    factorised as :math:`S S^\top` (:math:`C` columns per example, :math:`C` the number of outputs),
    is propagated with Jacobians only, :math:`O(C)` backward passes of matrices; the result is the
    diagonal of the generalised Gauss-Newton matrix :math:`J^\top H_L J`. ``kind="diag_hessian"``
    adds, at every Tanh and Sigmoid layer, the residual
    :math:`\operatorname{diag}(\sigma''(z_{l-1}) \odot \partial L / \partial z_l)` as one more factor
    (with a signed weight per column), so the result is the exact diagonal of the Hessian; ReLU's
    second derivative is zero almost everywhere, so a ReLU network's two diagonals coincide.

    Parameters
    ----------
    model : torch.nn.Sequential
        A feedforward network of ``Linear`` (2-d input), ``Conv2d`` (any stride, padding, dilation and
        groups; ``padding_mode="zeros"``), ``Flatten``, ``ReLU``, ``Tanh`` and ``Sigmoid`` layers;
        nested ``Sequential`` containers are walked. Any other layer raises a TypeError naming it.
        Its parameters are read, never modified.
    loss : torch.nn.MSELoss or torch.nn.CrossEntropyLoss
        The loss module, with ``reduction="mean"`` or ``"sum"`` (``MSELoss`` with "mean" divides by
        the number of output elements, as torch does; ``CrossEntropyLoss`` by the number of
        examples). ``CrossEntropyLoss`` without class weights or label smoothing.
    x : torch.Tensor or array_like
        The inputs, one example per row (leading dimension); converted to the parameters' dtype.
    y : torch.Tensor or array_like
        The targets: the output's shape for ``MSELoss``; integer class indices in ``0 .. C-1``, one
        per example, for ``CrossEntropyLoss`` (whose logits must be 2-d, examples by classes).
    kind : {"diag_hessian", "diag_ggn"}
        The diagonal of the exact Hessian, or of the generalised Gauss-Newton matrix.

    Returns
    -------
    dict of str to torch.Tensor
        One tensor per entry of ``model.named_parameters()``, under the same name and with the
        parameter's shape and dtype: that parameter's diagonal (detached, on the parameters' device).

    Notes
    -----
    **Which "layerwise" IVON this is.** The NeurIPS 2026 paper on a layerwise variant of IVON was not
    reachable when this was written; what is built is the following reading of it. Training is a
    problem constrained by the layer equations :math:`z_l = f_l(z_{l-1}, \theta_l)`; in its Lagrangian
    the multipliers (adjoints) are the backpropagated gradients :math:`\lambda_l = \partial L /
    \partial z_l`, and the second-order sensitivities of the Lagrangian with respect to the layer
    states backpropagate like the adjoints do. With a Gaussian posterior on the weights projected on
    Gaussian layer states by the delta method (each layer linearised at its current state), those
    sensitivities become the loss-site natural parameters (precision contributions) of every layer,
    and the recursion is exactly the Hessian backpropagation above; its diagonal is what IVON's
    diagonal Gaussian posterior takes as its Hessian estimate (``IVON(..., hessian="backprop")``).
    It is evaluated at the parameter values the model holds (IVON's sampled weights), not averaged
    over the posterior.

    **What the diagonal omits.** Every off-diagonal term: between parameters of different layers
    (cross-layer blocks) and between parameters of one layer (two weights of one unit, a weight and
    its bias, two output units). Nothing else is approximated: within the diagonal, the result is
    exact up to rounding (the tests compare it with ``torch.autograd.functional.hessian`` to 1e-10
    in float64).

    **Cost.** The GGN propagates :math:`C` columns per example through every layer; the Hessian adds
    as many columns as each Tanh or Sigmoid layer has units (ReLU adds none), from that layer down.
    Memory is of the order of the batch size times the columns times the widest layer.

    References
    ----------
    F. Dangel, S. Harmeling and P. Hennig (2020). Modular block-diagonal curvature approximations for
    feedforward architectures. AISTATS, PMLR 108:799-808.

    F. Dangel, F. Kunstner and P. Hennig (2020). BackPACK: packing more into backprop. ICLR
    (``DiagHessian`` and ``DiagGGNExact``: the same two diagonals).

    Y. Shen, N. Daheim, B. Cong, P. Nickl, G. M. Marconi, C. Bazan, R. Yokota, I. Gurevych, D. Cremers,
    M. E. Khan and T. Moellenhoff (2024). Variational learning is effective for large deep networks.
    ICML (IVON).

    Examples
    --------
    >>> import torch
    >>> torch.manual_seed(0)  # doctest: +ELLIPSIS
    <torch._C.Generator object at ...>
    >>> net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    >>> x, y = torch.randn(8, 3), torch.randint(0, 2, (8,))
    >>> d = layerwise_curvature(net, torch.nn.CrossEntropyLoss(), x, y)
    >>> sorted(d), tuple(d["0.weight"].shape)
    (['0.bias', '0.weight', '2.bias', '2.weight'], (4, 3))
    >>> ggn = layerwise_curvature(net, torch.nn.CrossEntropyLoss(), x, y, kind="diag_ggn")
    >>> bool((ggn["0.weight"] >= 0).all())   # a GGN diagonal is never negative for a convex loss
    True
    """
    kind = check_choice(kind, "kind", KINDS)
    layers = _layers(model)
    _check_loss(loss)
    params = [p for _, p in model.named_parameters()]
    dtype = params[0].dtype if params else torch.get_default_dtype()
    device = params[0].device if params else torch.device("cpu")
    x = _as_tensor(x, "x", dtype=dtype, device=device)
    if x.ndim < 1 or x.shape[0] == 0:
        raise ValueError(f"x must hold at least one example along its first dimension, got shape {tuple(x.shape)}")
    if not torch.isfinite(x).all():
        raise ValueError(f"x has {int((~torch.isfinite(x)).sum())} non-finite value(s) (NaN or inf)")

    # smooth_below[i]: layer i or one below it is a Tanh or Sigmoid, whose residual term (kind
    # "diag_hessian") needs the gradient at its output
    smooth = [kind == "diag_hessian" and isinstance(layer, (nn.Tanh, nn.Sigmoid)) for _, layer in layers]
    smooth_below = [any(smooth[:i + 1]) for i in range(len(layers))]
    with torch.no_grad():
        inputs, out = _forward(layers, x)
        grad, blocks = _loss_derivatives(loss, out, y, x.shape[0])
        diag = {}
        for i in range(len(layers) - 1, -1, -1):
            name, layer = layers[i]
            z_in = inputs[i]
            if isinstance(layer, (nn.Linear, nn.Conv2d)):
                diag.update(_param_diagonals(name, layer, z_in, blocks))
            if i == 0:
                break  # nothing is needed below the first layer
            z_out = inputs[i + 1]
            blocks = [(_vjp(layer, z_in, z_out, S), w) for S, w in blocks]
            if smooth_below[i]:   # the gradient is needed only for the residuals of Tanh and Sigmoid layers
                if isinstance(layer, (nn.Tanh, nn.Sigmoid)):
                    r = (_second_derivative(layer, z_out) * grad).reshape(z_in.shape[0], -1)
                    if torch.any(r != 0):
                        d = r.shape[1]
                        eye = torch.eye(d, dtype=r.dtype, device=r.device).expand(z_in.shape[0], d, d)
                        blocks.append((eye.reshape((z_in.shape[0], d) + tuple(z_in.shape[1:])), r))
                grad = _vjp(layer, z_in, z_out, grad.unsqueeze(1)).squeeze(1)
    return {name: diag[name] for name, _ in model.named_parameters()}


# --------------------------------------------------------------------------------------------------
# checks
# --------------------------------------------------------------------------------------------------

def _layers(model: Any) -> list:
    """The leaf layers of a (nested) Sequential, each with its ``named_parameters`` prefix."""
    if not isinstance(model, nn.Sequential):
        raise TypeError(f"model must be a torch.nn.Sequential of {_SUPPORTED_NAMES} layers, "
                        f"got {type(model).__name__}")
    out = []

    def walk(seq, prefix):
        for key, layer in seq._modules.items():   # named_children() would hide a layer used twice
            name = f"{prefix}{key}"
            if type(layer) is nn.Sequential:
                walk(layer, name + ".")
                continue
            if type(layer) not in _SUPPORTED:
                raise TypeError(f"model layer {name!r} ({type(layer).__name__}) is not supported by "
                                f"layerwise_curvature; supported layers: {_SUPPORTED_NAMES}")
            if isinstance(layer, nn.Conv2d) and layer.padding_mode != "zeros":
                raise TypeError(f"model layer {name!r} (Conv2d) has padding_mode={layer.padding_mode!r}; only "
                                f"padding_mode='zeros' is supported by layerwise_curvature")
            out.append((name, layer))

    walk(model, "")
    if not out:
        raise ValueError("model has no layers")
    seen = set()
    for name, layer in out:
        ids = {id(p) for p in layer.parameters(recurse=False)}
        if ids & seen:
            raise ValueError(f"model uses a parameter twice (at layer {name!r}): shared parameters are not "
                             f"supported by layerwise_curvature (their diagonal needs the cross terms of the uses)")
        seen |= ids
    return out


def _check_loss(loss: Any) -> None:
    if type(loss) not in (nn.MSELoss, nn.CrossEntropyLoss):
        raise TypeError(f"loss must be a torch.nn.MSELoss or torch.nn.CrossEntropyLoss instance, got "
                        f"{type(loss).__name__}")
    if loss.reduction not in ("mean", "sum"):
        raise ValueError(f"loss must have reduction 'mean' or 'sum' (the curvature of a summed loss), got "
                         f"reduction={loss.reduction!r}")
    if isinstance(loss, nn.CrossEntropyLoss):
        if loss.weight is not None:
            raise ValueError("loss: CrossEntropyLoss with class weights is not supported by layerwise_curvature")
        if loss.label_smoothing != 0:
            raise ValueError(f"loss: CrossEntropyLoss with label_smoothing={loss.label_smoothing} is not supported "
                             f"by layerwise_curvature")


def _as_tensor(value: Any, name: str, *, dtype=None, device=None) -> torch.Tensor:
    """A tensor (detached) from a tensor or a numeric array-like; booleans and strings refused."""
    if value is None:
        raise TypeError(f"{name} must be a tensor or a numeric array, got None")
    if isinstance(value, torch.Tensor):
        t = value.detach()
    else:
        if isinstance(value, (str, bytes)):
            raise TypeError(f"{name} must be a tensor or a numeric array, got a string")
        arr = np.asarray(value)
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"{name} must be numeric, got an array of dtype {arr.dtype}")
        t = torch.as_tensor(arr)
    if t.dtype == torch.bool:
        raise TypeError(f"{name} must be numeric, got booleans")
    if t.is_complex():
        raise TypeError(f"{name} must be real, got a complex tensor")
    if dtype is not None:
        t = t.to(dtype=dtype)
    if device is not None:
        t = t.to(device=device)
    return t


# --------------------------------------------------------------------------------------------------
# the forward pass, the loss at the output, the backward steps
# --------------------------------------------------------------------------------------------------

def _conv_pads(layer: nn.Conv2d) -> tuple[int, int, int, int]:
    """(left, right, top, bottom) zero padding of a Conv2d's input, from its ``padding`` (ints,
    "valid" or "same": torch puts the odd extra pixel of "same" on the right/bottom)."""
    if isinstance(layer.padding, str):
        if layer.padding == "valid":
            return (0, 0, 0, 0)
        pads = []
        for k, d in zip(layer.kernel_size, layer.dilation):
            total = d * (k - 1)
            pads.append((total // 2, total - total // 2))
        (top, bottom), (left, right) = pads
        return (left, right, top, bottom)
    ph, pw = layer.padding
    return (pw, pw, ph, ph)


def _apply(layer: nn.Module, z: torch.Tensor) -> torch.Tensor:
    if isinstance(layer, nn.Linear):
        if z.ndim != 2:
            raise ValueError(f"a Linear layer needs 2-d input (examples by features), got shape {tuple(z.shape)}")
        return F.linear(z, layer.weight, layer.bias)
    if isinstance(layer, nn.Conv2d):
        if z.ndim != 4:
            raise ValueError(f"a Conv2d layer needs 4-d input (examples, channels, height, width), got shape "
                             f"{tuple(z.shape)}")
        zp = F.pad(z, _conv_pads(layer))
        return F.conv2d(zp, layer.weight, layer.bias, layer.stride, 0, layer.dilation, layer.groups)
    if isinstance(layer, nn.Flatten):
        return layer(z)
    if isinstance(layer, nn.ReLU):
        return torch.relu(z)
    if isinstance(layer, nn.Tanh):
        return torch.tanh(z)
    return torch.sigmoid(z)


def _forward(layers: list, x: torch.Tensor) -> tuple[list, torch.Tensor]:
    """Every layer's input (and, last, the network's output)."""
    states = [x]
    z = x
    for name, layer in layers:
        try:
            z = _apply(layer, z)
        except (RuntimeError, ValueError) as exc:
            raise ValueError(f"x of shape {tuple(x.shape)} does not fit the model: at layer {name!r} "
                             f"({type(layer).__name__}): {exc}") from None
        states.append(z)
    return states, z


def _loss_derivatives(loss: nn.Module, out: torch.Tensor, y: Any, n: int) -> tuple[torch.Tensor, list]:
    """The gradient of the loss with respect to the output and a factorisation of its Hessian, as
    blocks (S, w): S of shape (n, K, *output) and signed weights w (n, K), the Hessian of example i
    being sum_k w[i, k] S[i, k] S[i, k]^T."""
    if isinstance(loss, nn.MSELoss):
        yt = _as_tensor(y, "y", dtype=out.dtype, device=out.device)
        if tuple(yt.shape) != tuple(out.shape):
            raise ValueError(f"y must have the shape of the model's output for x, {tuple(out.shape)}, for MSELoss; "
                             f"got {tuple(yt.shape)} (x and y must hold the same examples; reshape y if it holds "
                             f"them: torch would broadcast the two silently)")
        if not torch.isfinite(yt).all():
            raise ValueError(f"y has {int((~torch.isfinite(yt)).sum())} non-finite value(s) (NaN or inf)")
        scale = 1.0 / out.numel() if loss.reduction == "mean" else 1.0
        grad = 2.0 * scale * (out - yt)
        c = out[0].numel()
        eye = torch.eye(c, dtype=out.dtype, device=out.device).expand(n, c, c).reshape((n, c) + tuple(out.shape[1:]))
        return grad, [(eye, torch.full((n, c), 2.0 * scale, dtype=out.dtype, device=out.device))]
    # CrossEntropyLoss on logits (n, C) with class indices
    if out.ndim != 2:
        raise ValueError(f"CrossEntropyLoss needs 2-d logits (examples by classes) from the model, got output shape "
                         f"{tuple(out.shape)}")
    yt = _as_tensor(y, "y", device=out.device)
    if yt.is_floating_point():
        if not torch.isfinite(yt).all():
            raise ValueError(f"y has {int((~torch.isfinite(yt)).sum())} non-finite value(s); CrossEntropyLoss "
                             f"needs integer class indices")
        raise TypeError(f"y must hold integer class indices for CrossEntropyLoss, got dtype {yt.dtype} "
                        f"(class probabilities are not supported)")
    if yt.ndim != 1 or yt.shape[0] != n:
        raise ValueError(f"y must hold one class index per example of x ({n}) for CrossEntropyLoss, got shape "
                         f"{tuple(yt.shape)}")
    c = out.shape[1]
    if bool(((yt < 0) | (yt >= c)).any()):
        raise ValueError(f"y must hold class indices in 0..{c - 1} (the model has {c} outputs); got values from "
                         f"{int(yt.min())} to {int(yt.max())}")
    scale = 1.0 / n if loss.reduction == "mean" else 1.0
    p = torch.softmax(out, dim=1)
    grad = scale * (p - F.one_hot(yt.long(), c).to(out.dtype))
    # diag(p) - p p^T = A A^T with column k of A = sqrt(p_k) (e_k - p); rows of S are columns of A
    sq = p.sqrt()
    eye = torch.eye(c, dtype=out.dtype, device=out.device)
    S = sq.unsqueeze(2) * (eye.unsqueeze(0) - p.unsqueeze(1))
    return grad, [(S, torch.full((n, c), scale, dtype=out.dtype, device=out.device))]


def _vjp(layer: nn.Module, z_in: torch.Tensor, z_out: torch.Tensor, S: torch.Tensor) -> torch.Tensor:
    """Each column of S (n, K, *output) multiplied by the layer's transposed input Jacobian at z_in
    (z_out is the layer's output there): (n, K, *input)."""
    n, K = S.shape[:2]
    if isinstance(layer, nn.Linear):
        return S @ layer.weight
    if isinstance(layer, nn.Flatten):
        return S.reshape((n, K) + tuple(z_in.shape[1:]))
    if isinstance(layer, nn.Conv2d):
        left, right, top, bottom = _conv_pads(layer)
        padded = (n * K, z_in.shape[1], z_in.shape[2] + top + bottom, z_in.shape[3] + left + right)
        g = torch.nn.grad.conv2d_input(padded, layer.weight, S.reshape((n * K,) + tuple(S.shape[2:])),
                                       stride=layer.stride, padding=0, dilation=layer.dilation, groups=layer.groups)
        g = g[:, :, top:padded[2] - bottom, left:padded[3] - right]
        return g.reshape((n, K) + tuple(z_in.shape[1:]))
    return S * _first_derivative(layer, z_out).unsqueeze(1)


def _first_derivative(layer: nn.Module, out: torch.Tensor) -> torch.Tensor:
    """An activation's derivative, from its output: ReLU 1{out > 0} (0 at 0, torch's convention),
    Tanh 1 - out^2, Sigmoid out (1 - out)."""
    if isinstance(layer, nn.ReLU):
        return (out > 0).to(out.dtype)
    if isinstance(layer, nn.Tanh):
        return 1 - out * out
    return out * (1 - out)


def _second_derivative(layer: nn.Module, out: torch.Tensor) -> torch.Tensor:
    """Tanh's and Sigmoid's second derivatives, from their outputs."""
    if isinstance(layer, nn.Tanh):
        return -2 * out * (1 - out * out)
    return out * (1 - out) * (1 - 2 * out)


def _param_diagonals(name: str, layer: nn.Module, z_in: torch.Tensor, blocks: list) -> dict:
    """The diagonals of a Linear or Conv2d layer's weight and bias from the factors at its output."""
    out = {}
    if isinstance(layer, nn.Linear):
        # y = W x + b is linear in W: d2L/dW_ij^2 = sum_n H_n[i, i] x_n[j]^2, H_n the output Hessian
        h = sum(torch.einsum("nk,nki->ni", w, S * S) for S, w in blocks)
        out[f"{name}.weight"] = torch.einsum("ni,nj->ij", h, z_in * z_in)
        if layer.bias is not None:
            out[f"{name}.bias"] = h.sum(0)
        return out
    # Conv2d: y[o, p] = sum_m W[o, m] X[m, p] per group, X the unfolded (padded) input
    G = layer.groups
    n = z_in.shape[0]
    zp = F.pad(z_in, _conv_pads(layer))
    X = F.unfold(zp, layer.kernel_size, dilation=layer.dilation, padding=0, stride=layer.stride)
    X = X.reshape(n, G, -1, X.shape[-1])                          # (n, G, M, P)
    O = layer.out_channels
    dw = torch.zeros((G, O // G, X.shape[2]), dtype=z_in.dtype, device=z_in.device)
    db = torch.zeros(O, dtype=z_in.dtype, device=z_in.device)
    for S, w in blocks:
        K = S.shape[1]
        Sg = S.reshape(n, K, G, O // G, -1)                       # (n, K, G, O/G, P)
        T = torch.einsum("nkgop,ngmp->nkgom", Sg, X)
        dw += torch.einsum("nk,nkgom->gom", w, T * T)
        if layer.bias is not None:
            sb = S.reshape(n, K, O, -1).sum(-1)
            db += torch.einsum("nk,nko->o", w, sb * sb)
    out[f"{name}.weight"] = dw.reshape(layer.weight.shape)
    if layer.bias is not None:
        out[f"{name}.bias"] = db
    return out
