"""PyTorch reference of the models: explicit updates, the same updates by autograd, and the
negative log-likelihood with autograd through the unrolled updates.

Everything is batched over a leading "restart" dimension R. This is the reference the compiled
replay (``_kernels``) is tested against, and ``fit(..., backend="autograd")`` optimises it directly.
"""
from __future__ import annotations

import torch
from statcore.utils import thread_limit

from ._model import LearningRule, n_weights, weight_shapes

# Tiny per-trial tensor ops run inside ``statcore.utils.thread_limit(1)`` (it limits torch's intra-op pool
# too, and restores it afterwards); benchmarks/README.md, "learncore.learning_rules", has the measurement.


def split(theta: torch.Tensor, arch: str, hidden: int):
    """(R, P) flat parameters -> weights (W1 or W, W2 or None), eta (R,), beta (R,)."""
    R = theta.shape[0]
    shapes = weight_shapes(arch, hidden)
    i = 0
    ws = []
    for (a, b) in shapes.values():
        ws.append(theta[:, i:i + a * b].reshape(R, a, b))
        i += a * b
    eta = torch.exp(theta[:, i])
    beta = torch.exp(theta[:, i + 1])
    if arch == "1L":
        return ws[0], None, eta, beta
    return ws[0], ws[1], eta, beta


def forward(arch: str, W1, W2, x):
    """Values y (R, 2) and the hidden activations (u, h) for one input x (3,)."""
    if arch == "1L":
        return W1 @ x, None, None
    u = W1 @ x
    h = torch.sigmoid(u) if arch == "2NL" else u
    y = (W2 @ h.unsqueeze(-1)).squeeze(-1)
    return y, u, h


def error_signal(rule: str, y, beta, a: int, r: float, rs: int, baseline: float):
    """The output error g (R, 2) of a rule: the update is eta * sum_b g_b grad y_b."""
    R = y.shape[0]
    if isinstance(rule, LearningRule):
        p = torch.softmax(beta.unsqueeze(-1) * y, dim=-1)
        g = rule.signal(y, p, a, r, rs, beta)
        if not isinstance(g, torch.Tensor) or g.shape != y.shape:
            raise ValueError(f"LearningRule {rule.name!r}: signal must return a tensor of shape {tuple(y.shape)}")
        return g
    ea = torch.zeros(R, 2, dtype=y.dtype)
    ea[:, a] = 1.0
    if rule == "rpe":
        return (r - y[:, a]).unsqueeze(-1) * ea
    if rule == "reinforce":
        p = torch.softmax(beta.unsqueeze(-1) * y, dim=-1)
        return ((r - baseline) * beta).unsqueeze(-1) * (ea - p)
    if rule == "supervised":
        t = torch.zeros(R, 2, dtype=y.dtype)
        t[:, rs] = 1.0
        return t - y
    raise ValueError(rule)


def explicit_update(arch: str, rule: str, W1, W2, beta, x, a: int, r: float, rs: int, baseline: float):
    """The weight changes divided by eta, written out (backpropagation of g by hand)."""
    y, u, h = forward(arch, W1, W2, x)
    g = error_signal(rule, y, beta, a, r, rs, baseline)
    if arch == "1L":
        return g.unsqueeze(-1) * x, None
    dW2 = g.unsqueeze(-1) * h.unsqueeze(-2)
    d = (W2.transpose(-1, -2) @ g.unsqueeze(-1)).squeeze(-1)
    if arch == "2NL":
        d = d * h * (1.0 - h)
    dW1 = d.unsqueeze(-1) * x
    return dW1, dW2


def autograd_update(arch: str, rule: str, W1, W2, beta, x, a: int, r: float, rs: int, baseline: float):
    """The same weight changes / eta from the rules' definitions, by torch.autograd.

    rpe: (r - y_a) grad y_a; reinforce: (r - b) grad log p(a | x); supervised: -grad 1/2 ||t - y||^2.
    """
    W1 = W1.detach().clone().requires_grad_(True)
    W2 = None if W2 is None else W2.detach().clone().requires_grad_(True)
    beta = beta.detach()
    y, _, _ = forward(arch, W1, W2, x)
    if rule == "rpe":
        objective = (r - y[:, a].detach()) * y[:, a]
    elif rule == "reinforce":
        objective = (r - baseline) * torch.log_softmax(beta.unsqueeze(-1) * y, dim=-1)[:, a]
    else:
        t = torch.zeros_like(y)
        t[:, rs] = 1.0
        objective = -0.5 * ((t - y) ** 2).sum(-1)
    wrt = [W1] if W2 is None else [W1, W2]
    grads = torch.autograd.grad(objective.sum(), wrt)
    return (grads[0], None) if W2 is None else (grads[0], grads[1])


def unrolled_nll(theta: torch.Tensor, arch: str, rule: str, hidden: int, x, choice, reward, rewarded,
                 baseline: float, return_p: bool = False):
    """Negative log-likelihood of the choices per restart, (R,), differentiable through all updates.

    ``x`` (T, 3) tensor; ``choice``, ``rewarded`` int sequences; ``reward`` float sequence.
    """
    W1, W2, eta, beta = split(theta, arch, hidden)
    nll = torch.zeros(theta.shape[0], dtype=theta.dtype)
    ps = []
    for t in range(x.shape[0]):
        xt = x[t]
        a = int(choice[t])
        y, u, h = forward(arch, W1, W2, xt)
        logp = torch.log_softmax(beta.unsqueeze(-1) * y, dim=-1)
        nll = nll - logp[:, a]
        if return_p:
            ps.append(torch.exp(logp[:, 1]).detach())
        dW1, dW2 = explicit_update(arch, rule, W1, W2, beta, xt, a, float(reward[t]), int(rewarded[t]), baseline)
        W1 = W1 + eta.view(-1, 1, 1) * dW1
        if W2 is not None:
            W2 = W2 + eta.view(-1, 1, 1) * dW2
    if return_p:
        return nll, torch.stack(ps, dim=-1)
    return nll


def simulate_torch(theta, arch: str, rule, hidden: int, x, side, uniforms, baseline: float):
    """One animal with any rule (a plug-in included): choices, rewards and p(right), in PyTorch."""
    th = torch.as_tensor(theta, dtype=torch.float64).reshape(1, -1)
    W1, W2, eta, beta = split(th, arch, hidden)
    T = x.shape[0]
    xs = torch.as_tensor(x, dtype=torch.float64)
    choice = torch.empty(T, dtype=torch.long)
    reward = torch.empty(T, dtype=torch.float64)
    pr = torch.empty(T, dtype=torch.float64)
    with torch.no_grad(), thread_limit(1):
        for t in range(T):
            y, _, _ = forward(arch, W1, W2, xs[t])
            p1 = torch.softmax(beta.unsqueeze(-1) * y, dim=-1)[0, 1]
            pr[t] = p1
            a = int(uniforms[t] < float(p1))
            r = float(a == int(side[t]))
            choice[t], reward[t] = a, r
            dW1, dW2 = explicit_update(arch, rule, W1, W2, beta, xs[t], a, r, int(side[t]), baseline)
            W1 = W1 + eta.view(-1, 1, 1) * dW1
            if W2 is not None:
                W2 = W2 + eta.view(-1, 1, 1) * dW2
    return choice.numpy(), reward.numpy(), pr.numpy()


__all__ = ["split", "simulate_torch", "forward", "error_signal", "explicit_update", "autograd_update", "unrolled_nll",
           "n_weights"]
