"""Compiled replay of a learning animal: log-likelihood and its exact gradient by a hand-written
reverse (adjoint) pass through the unrolled updates, and the simulator. numba, float64, imported only
when fitting or simulating (so ``import learncore`` stays light).

Notation (per trial t, weights W_t; see ``_model`` for the models and rules):

    L = sum_t log p(a_t | x_t; W_t, beta),   W_{t+1} = W_t + eta U(W_t),   U = backprop of g.

With lambda_t = dL/dW_t (lambda_T = 0), the adjoint recursion is

    lambda_t = lambda_{t+1} + d/dW_t [ log p_t + eta <lambda_{t+1}, U(W_t)> ]   (lambda_{t+1} held fixed),
    dL/deta  = sum_t <lambda_{t+1}, U(W_t)>,   dL/dbeta = sum_t d/dbeta [ ... ].

For the two-layer nets <lambda, U> = g . q with q = lambda2 h + W2 (s * (lambda1 x)), s = sigma'(u);
its derivative goes through g(y, p) (the rule), through h and s (sigma'' for 2NL) and through W2.
Tested against autograd through the unrolled torch updates to 1e-10 (tests/learncore/learning_rules).
"""
from __future__ import annotations

import math

import numpy as np
from numba.extending import register_jitable
from statcore.utils import lazy_njit

# The two entry points (``replay``, ``simulate_kernel``) are compiled on their first call by
# ``statcore.utils.lazy_njit`` (cached, with its fallback to an uncached compile when no cache folder is
# writable). The helpers they call are ``register_jitable``: plain Python functions that numba compiles
# into the caller (a lazy_njit wrapper is a Python object, which numba cannot call from compiled code).


RPE, REINFORCE, SUPERVISED = 0, 1, 2


@register_jitable
def _softmax2(y0, y1, beta):
    z0 = beta * y0
    z1 = beta * y1
    m = max(z0, z1)
    lse = m + math.log(math.exp(z0 - m) + math.exp(z1 - m))
    return z0 - lse, z1 - lse


@register_jitable
def _signal(rule, y0, y1, p0, p1, beta, a, r, rs, baseline):
    if rule == RPE:
        if a == 0:
            return r - y0, 0.0
        return 0.0, r - y1
    if rule == REINFORCE:
        c = (r - baseline) * beta
        if a == 0:
            return c * (1.0 - p0), -c * p1
        return -c * p0, c * (1.0 - p1)
    # supervised toward the rewarded side
    if rs == 0:
        return 1.0 - y0, -y1
    return -y0, 1.0 - y1


@register_jitable
def _forward_two(W1, W2, x0, x1, x2, nonlin, u, h, s):
    H = W1.shape[0]
    y0 = 0.0
    y1 = 0.0
    for j in range(H):
        uj = W1[j, 0] * x0 + W1[j, 1] * x1 + W1[j, 2] * x2
        u[j] = uj
        if nonlin:
            if uj >= 0:
                hj = 1.0 / (1.0 + math.exp(-uj))
            else:
                e = math.exp(uj)
                hj = e / (1.0 + e)
            s[j] = hj * (1.0 - hj)
        else:
            hj = uj
            s[j] = 1.0
        h[j] = hj
        y0 += W2[0, j] * hj
        y1 += W2[1, j] * hj
    return y0, y1


@register_jitable
def _update_two(W1, W2, x0, x1, x2, g0, g1, h, s, eta):
    H = W1.shape[0]
    for j in range(H):
        d = (W2[0, j] * g0 + W2[1, j] * g1) * s[j] * eta
        W1[j, 0] += d * x0
        W1[j, 1] += d * x1
        W1[j, 2] += d * x2
    for j in range(H):
        W2[0, j] += eta * g0 * h[j]
        W2[1, j] += eta * g1 * h[j]


@register_jitable
def _output_adjoint(rule, a, r, baseline, eta, beta, y0, y1, p0, p1, q0, q1, gbeta):
    """One trial of the reverse pass at the output layer, shared by the one- and two-layer nets.

    With q = dL/dy through the update (q_i = <lambda_{t+1}, dU/dg_i>, computed by the caller), returns
    the adjoints (yb0, yb1) of the outputs y_t -- through the rule's signal g(y, p) and through
    log p(a_t) -- and gbeta advanced by this trial's dL/dbeta terms (added in the same order as before).
    """
    yb0 = 0.0
    yb1 = 0.0
    if rule == RPE:
        if a == 0:
            yb0 -= eta * q0
        else:
            yb1 -= eta * q1
    elif rule == SUPERVISED:
        yb0 -= eta * q0
        yb1 -= eta * q1
    else:
        c = r - baseline
        pq = p0 * q0 + p1 * q1
        w0 = p0 * (q0 - pq)
        w1 = p1 * (q1 - pq)
        yb0 -= eta * c * beta * beta * w0
        yb1 -= eta * c * beta * beta * w1
        qa = q1 if a == 1 else q0
        gbeta += eta * (c * (qa - pq) - c * beta * (w0 * y0 + w1 * y1))
    e0 = 1.0 if a == 0 else 0.0
    e1 = 1.0 - e0
    yb0 += beta * (e0 - p0)
    yb1 += beta * (e1 - p1)
    gbeta += (e0 - p0) * y0 + (e1 - p1) * y1
    return yb0, yb1, gbeta


@register_jitable
def _replay_1l(th, x, choice, reward, rewarded, rule, baseline, want_grad, grad, pr):
    T = x.shape[0]
    W = th[:6].copy().reshape(2, 3)
    eta = math.exp(th[6])
    beta = math.exp(th[7])
    Ws = np.empty((T if want_grad else 1, 2, 3))
    nll = 0.0
    for t in range(T):
        if want_grad:
            Ws[t] = W
        x0, x1, x2 = x[t, 0], x[t, 1], x[t, 2]
        y0 = W[0, 0] * x0 + W[0, 1] * x1 + W[0, 2] * x2
        y1 = W[1, 0] * x0 + W[1, 1] * x1 + W[1, 2] * x2
        l0, l1 = _softmax2(y0, y1, beta)
        a = choice[t]
        nll -= l1 if a == 1 else l0
        p0 = math.exp(l0)
        p1 = math.exp(l1)
        pr[t] = p1
        g0, g1 = _signal(rule, y0, y1, p0, p1, beta, a, reward[t], rewarded[t], baseline)
        for k in range(3):
            W[0, k] += eta * g0 * x[t, k]
            W[1, k] += eta * g1 * x[t, k]
    if not math.isfinite(nll):
        grad[:] = 0.0
        return math.inf
    if not want_grad:
        return nll
    lam = np.zeros((2, 3))
    geta = 0.0
    gbeta = 0.0
    for t in range(T - 1, -1, -1):
        W = Ws[t]
        x0, x1, x2 = x[t, 0], x[t, 1], x[t, 2]
        y0 = W[0, 0] * x0 + W[0, 1] * x1 + W[0, 2] * x2
        y1 = W[1, 0] * x0 + W[1, 1] * x1 + W[1, 2] * x2
        l0, l1 = _softmax2(y0, y1, beta)
        p0 = math.exp(l0)
        p1 = math.exp(l1)
        a = choice[t]
        r = reward[t]
        g0, g1 = _signal(rule, y0, y1, p0, p1, beta, a, r, rewarded[t], baseline)
        q0 = lam[0, 0] * x0 + lam[0, 1] * x1 + lam[0, 2] * x2
        q1 = lam[1, 0] * x0 + lam[1, 1] * x1 + lam[1, 2] * x2
        geta += g0 * q0 + g1 * q1
        yb0, yb1, gbeta = _output_adjoint(rule, a, r, baseline, eta, beta, y0, y1, p0, p1, q0, q1, gbeta)
        for k in range(3):
            lam[0, k] += yb0 * x[t, k]
            lam[1, k] += yb1 * x[t, k]
    for i in range(2):
        for k in range(3):
            grad[i * 3 + k] = -lam[i, k]
    grad[6] = -eta * geta
    grad[7] = -beta * gbeta
    return nll


@register_jitable
def _replay_two(th, x, choice, reward, rewarded, nonlin, rule, H, baseline, want_grad, grad, pr):
    T = x.shape[0]
    nw1 = 3 * H
    nw2 = 2 * H
    W1 = th[:nw1].copy().reshape(H, 3)
    W2 = th[nw1:nw1 + nw2].copy().reshape(2, H)
    eta = math.exp(th[nw1 + nw2])
    beta = math.exp(th[nw1 + nw2 + 1])
    TT = T if want_grad else 1
    W1s = np.empty((TT, H, 3))
    W2s = np.empty((TT, 2, H))
    u = np.empty(H)
    h = np.empty(H)
    s = np.empty(H)
    nll = 0.0
    for t in range(T):
        if want_grad:
            W1s[t] = W1
            W2s[t] = W2
        x0, x1, x2 = x[t, 0], x[t, 1], x[t, 2]
        y0, y1 = _forward_two(W1, W2, x0, x1, x2, nonlin, u, h, s)
        l0, l1 = _softmax2(y0, y1, beta)
        a = choice[t]
        nll -= l1 if a == 1 else l0
        p0 = math.exp(l0)
        p1 = math.exp(l1)
        pr[t] = p1
        g0, g1 = _signal(rule, y0, y1, p0, p1, beta, a, reward[t], rewarded[t], baseline)
        _update_two(W1, W2, x0, x1, x2, g0, g1, h, s, eta)
    if not math.isfinite(nll):
        grad[:] = 0.0
        return math.inf
    if not want_grad:
        return nll
    lam1 = np.zeros((H, 3))
    lam2 = np.zeros((2, H))
    m = np.empty(H)
    hb = np.empty(H)
    ub = np.empty(H)
    geta = 0.0
    gbeta = 0.0
    for t in range(T - 1, -1, -1):
        W1 = W1s[t]
        W2 = W2s[t]
        x0, x1, x2 = x[t, 0], x[t, 1], x[t, 2]
        y0, y1 = _forward_two(W1, W2, x0, x1, x2, nonlin, u, h, s)
        l0, l1 = _softmax2(y0, y1, beta)
        p0 = math.exp(l0)
        p1 = math.exp(l1)
        a = choice[t]
        r = reward[t]
        g0, g1 = _signal(rule, y0, y1, p0, p1, beta, a, r, rewarded[t], baseline)
        # q = lam2 h + W2 (s * (lam1 x))
        q0 = 0.0
        q1 = 0.0
        for j in range(H):
            m[j] = lam1[j, 0] * x0 + lam1[j, 1] * x1 + lam1[j, 2] * x2
            q0 += lam2[0, j] * h[j] + W2[0, j] * s[j] * m[j]
            q1 += lam2[1, j] * h[j] + W2[1, j] * s[j] * m[j]
        geta += g0 * q0 + g1 * q1
        yb0, yb1, gbeta = _output_adjoint(rule, a, r, baseline, eta, beta, y0, y1, p0, p1, q0, q1, gbeta)
        # hidden-layer adjoints, all with lam at t + 1 (read before the updates below)
        for j in range(H):
            wg = W2[0, j] * g0 + W2[1, j] * g1           # (W2^T g)_j
            hb[j] = eta * (lam2[0, j] * g0 + lam2[1, j] * g1) + W2[0, j] * yb0 + W2[1, j] * yb1
            if nonlin:
                sb = eta * wg * m[j]
                ub[j] = hb[j] * s[j] + sb * s[j] * (1.0 - 2.0 * h[j])
            else:
                ub[j] = hb[j]
        for j in range(H):
            lam2[0, j] += eta * g0 * s[j] * m[j] + yb0 * h[j]
            lam2[1, j] += eta * g1 * s[j] * m[j] + yb1 * h[j]
            lam1[j, 0] += ub[j] * x0
            lam1[j, 1] += ub[j] * x1
            lam1[j, 2] += ub[j] * x2
    for j in range(H):
        for k in range(3):
            grad[j * 3 + k] = -lam1[j, k]
    for i in range(2):
        for j in range(H):
            grad[nw1 + i * H + j] = -lam2[i, j]
    grad[nw1 + nw2] = -eta * geta
    grad[nw1 + nw2 + 1] = -beta * gbeta
    return nll


@lazy_njit
def replay(theta, x, choice, reward, rewarded, arch, rule, H, baseline, want_grad, nll, grad, pr):
    """Per restart k: nll[k], grad[k] (of the nll w.r.t. theta[k]) and pr[k] = p(right) per trial."""
    for k in range(theta.shape[0]):
        if arch == 0:
            nll[k] = _replay_1l(theta[k], x, choice, reward, rewarded, rule, baseline, want_grad,
                                grad[k], pr[k])
        else:
            nll[k] = _replay_two(theta[k], x, choice, reward, rewarded, arch == 2, rule, H, baseline,
                                 want_grad, grad[k], pr[k])


@lazy_njit
def simulate_kernel(th, x, side, uniforms, arch, rule, H, baseline, choice, reward, pr):
    """Run one synthetic animal: choices sampled with the uniforms, rewarded when choice == side."""
    T = x.shape[0]
    if arch == 0:
        W1 = th[:6].copy().reshape(2, 3)
        W2 = np.zeros((2, 1))
        nw = 6
    else:
        W1 = th[:3 * H].copy().reshape(H, 3)
        W2 = th[3 * H:5 * H].copy().reshape(2, H)
        nw = 5 * H
    eta = math.exp(th[nw])
    beta = math.exp(th[nw + 1])
    Hh = H if arch != 0 else 1
    u = np.empty(Hh)
    h = np.empty(Hh)
    s = np.empty(Hh)
    for t in range(T):
        x0, x1, x2 = x[t, 0], x[t, 1], x[t, 2]
        if arch == 0:
            y0 = W1[0, 0] * x0 + W1[0, 1] * x1 + W1[0, 2] * x2
            y1 = W1[1, 0] * x0 + W1[1, 1] * x1 + W1[1, 2] * x2
        else:
            y0, y1 = _forward_two(W1, W2, x0, x1, x2, arch == 2, u, h, s)
        l0, l1 = _softmax2(y0, y1, beta)
        p0 = math.exp(l0)
        p1 = math.exp(l1)
        pr[t] = p1
        a = 1 if uniforms[t] < p1 else 0
        r = 1.0 if a == side[t] else 0.0
        choice[t] = a
        reward[t] = r
        g0, g1 = _signal(rule, y0, y1, p0, p1, beta, a, r, side[t], baseline)
        if arch == 0:
            for k in range(3):
                W1[0, k] += eta * g0 * x[t, k]
                W1[1, k] += eta * g1 * x[t, k]
        else:
            _update_two(W1, W2, x0, x1, x2, g0, g1, h, s, eta)
