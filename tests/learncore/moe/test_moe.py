"""learncore.moe's oracles: the regular simplex as the minimiser of the Riesz diversity loss (and
orthogonality, not the simplex, for the mean squared cosine), gradients by finite differences in
float64, the router's invariance to the tokens' norms, the load-balance loss's closed forms."""
import math

import pytest

from helpers import require_torch

torch = require_torch()
torch.set_num_threads(1)

from learncore.moe import (HypersphericalRouter, LinearRouter, MoEAdapter, TokenPurification,  # noqa: E402
                           batch_hard_triplet_loss, load_balance_loss, routing_diversity_loss)

F64 = torch.float64


def _descend(kind, *, K=4, d=8, seed=0, steps=1000, lr=0.3, s=1.0):
    """Plain gradient descent on the (unnormalised) prototypes from a standard normal start."""
    p = torch.randn(K, d, dtype=F64, generator=torch.Generator().manual_seed(seed)).requires_grad_()
    for _ in range(steps):
        loss = routing_diversity_loss(p, kind=kind, s=s)
        (g,) = torch.autograd.grad(loss, p)
        with torch.no_grad():
            p -= lr * g
    u = torch.nn.functional.normalize(p.detach(), dim=-1)
    return (u @ u.T)[~torch.eye(K, dtype=torch.bool)]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_riesz_reaches_the_regular_simplex(seed):
    # K = 4 <= d + 1 = 9: the smallest largest pairwise cosine is -1/(K - 1) = -1/3, the regular simplex
    off = _descend("riesz", seed=seed)
    assert abs(float(off.max()) + 1 / 3) < 1e-4
    assert abs(float(off.min()) + 1 / 3) < 1e-4        # every pair at -1/3: the simplex, not just its max


def test_riesz_reaches_the_simplex_for_s_2():
    off = _descend("riesz", s=2.0, seed=3, lr=0.1)
    assert abs(float(off.max()) + 1 / 3) < 1e-4


@pytest.mark.parametrize("seed", [0, 1])
def test_cos2_reaches_orthogonality_not_the_simplex(seed):
    # the mean squared cosine is minimised (value 0) by any orthonormal set when K <= d
    off = _descend("cos2", seed=seed)
    assert float(off.abs().max()) < 1e-3
    assert float(off.max()) > -1 / 3 + 0.3             # far from the simplex's -1/3


def test_riesz_value_at_the_simplex_is_the_jensen_bound():
    # K points of the simplex in R^(K-1): every squared distance 2 K / (K - 1); energy C(K,2) * that^(-s/2)
    K, s = 5, 1.5
    e = torch.eye(K, dtype=F64) - 1.0 / K                   # centred basis vectors: a regular simplex in R^K
    val = float(routing_diversity_loss(e, kind="riesz", s=s))
    assert val == pytest.approx(math.comb(K, 2) * (2 * K / (K - 1)) ** (-s / 2), rel=1e-12)
    rand = torch.randn(K, K, dtype=F64, generator=torch.Generator().manual_seed(0))
    assert float(routing_diversity_loss(rand, kind="riesz", s=s)) > val


def test_gradcheck_losses_float64():
    g = torch.Generator().manual_seed(0)
    p = torch.randn(4, 6, dtype=F64, generator=g, requires_grad=True)
    assert torch.autograd.gradcheck(lambda x: routing_diversity_loss(x, kind="riesz", s=1.0), (p,))
    assert torch.autograd.gradcheck(lambda x: routing_diversity_loss(x, kind="riesz", s=2.5), (p,))
    assert torch.autograd.gradcheck(lambda x: routing_diversity_loss(x, kind="cos2"), (p,))
    logits = torch.randn(10, 4, dtype=F64, generator=g, requires_grad=True)
    idx = torch.topk(logits.detach(), 2, dim=-1).indices
    assert torch.autograd.gradcheck(lambda z: load_balance_loss(torch.softmax(z, -1), idx), (logits,))
    emb = torch.randn(8, 3, dtype=F64, generator=g, requires_grad=True)
    y = torch.tensor([0, 0, 1, 1, 2, 2, 3, 3])
    assert torch.autograd.gradcheck(lambda e: batch_hard_triplet_loss(e, y, margin=5.0), (emb,))


def test_gradcheck_router_float64():
    router = HypersphericalRouter(6, 4, tau=0.5, top_k=2, seed=0).double()
    x = torch.randn(5, 6, dtype=F64, generator=torch.Generator().manual_seed(1), requires_grad=True)
    # the top-k choice is piecewise constant: the gradient is checked away from ties (generic draws)
    assert torch.autograd.gradcheck(lambda t: router(t).gates, (x,))
    proto = router.prototypes.detach().clone().requires_grad_()
    assert torch.autograd.gradcheck(
        lambda p: torch.func.functional_call(router, {"prototypes": p}, (x.detach(),)).gates, (proto,))
    assert torch.autograd.gradcheck(lambda t: router.logits(t), (x,))


def test_router_is_invariant_to_token_norm():
    router = HypersphericalRouter(8, 5, tau=0.07, top_k=2, seed=3).double()
    x = torch.randn(20, 8, dtype=F64, generator=torch.Generator().manual_seed(2))
    scale = torch.exp(torch.linspace(-5, 5, 20, dtype=F64))[:, None]  # norms over 4 orders of magnitude
    a, b = router(x), router(scale * x)
    assert torch.equal(a.indices, b.indices)
    assert torch.allclose(a.probs, b.probs, atol=1e-12) and torch.allclose(a.gates, b.gates, atol=1e-12)
    # the logits are cosines over tau: bounded by 1 / tau
    assert float(a.logits.detach().abs().max()) <= 1 / 0.07 + 1e-9
    # the linear router is not invariant: its logits scale with the token
    lin = LinearRouter(8, 5, top_k=2, seed=3).double()
    assert not torch.allclose(lin(x).probs, lin(scale * x).probs)


def test_top_k_weights_are_renormalised():
    router = HypersphericalRouter(4, 6, tau=0.3, top_k=3, seed=0)
    r = router(torch.randn(7, 4, generator=torch.Generator().manual_seed(0)))
    top = torch.gather(r.probs, -1, r.indices)
    assert torch.allclose(r.weights, top / top.sum(-1, keepdim=True))
    assert torch.allclose(r.gates.sum(-1), torch.ones(7)) and int((r.gates > 0).sum(-1).max()) == 3
    assert torch.allclose(r.weights, torch.softmax(torch.gather(r.logits, -1, r.indices), -1), atol=1e-6)


def test_load_balance_closed_forms():
    E = 4
    uniform = torch.full((8, E), 1.0 / E)
    assert float(load_balance_loss(uniform, torch.arange(8)[:, None] % E)) == pytest.approx(1.0)
    collapsed = torch.zeros(8, E)
    collapsed[:, 2] = 1.0
    assert float(load_balance_loss(collapsed, torch.full((8, 1), 2))) == pytest.approx(E)
    # top-2: each token counts two assignments
    probs = torch.tensor([[0.5, 0.3, 0.2], [0.1, 0.6, 0.3]])
    idx = torch.tensor([[0, 1], [1, 2]])
    f = torch.tensor([1, 2, 1]) / 4.0
    assert float(load_balance_loss(probs, idx)) == pytest.approx(3 * float((f * probs.mean(0)).sum()))


def test_purification_keeps_the_most_confident_tokens():
    probs = torch.tensor([[[0.4, 0.6], [0.95, 0.05], [0.5, 0.5], [0.2, 0.8]]])
    tok = torch.arange(12.0).reshape(1, 4, 3)
    out = TokenPurification(0.5)(tok, probs)
    assert out.index.tolist() == [[1, 3]]
    assert torch.equal(out.tokens, tok[:, [1, 3]])
    assert TokenPurification(1.0)(tok, probs).tokens.shape == (1, 4, 3)
    assert TokenPurification(0.01)(tok, probs).index.tolist() == [[1]]     # at least one token
    att = TokenPurification(0.25, score="cls_attention")
    x = torch.zeros(1, 4, 2)
    x[0, :, 0] = torch.tensor([1.0, 2.0, 3.0, -1.0])                     # mean (1.25, 0): token 2 aligns most
    assert att(x).index.tolist() == [[2]]
    with pytest.raises(ValueError, match="probs"):
        TokenPurification(0.5)(tok)


def test_batch_hard_triplet_by_brute_force():
    g = torch.Generator().manual_seed(4)
    e = torch.randn(9, 3, dtype=F64, generator=g)
    y = torch.tensor([0, 0, 0, 1, 1, 2, 2, 2, 3])        # label 3 has no positive: not an anchor
    terms = []
    for a in range(9):
        pos = [float((e[a] - e[p]).norm()) for p in range(9) if p != a and y[p] == y[a]]
        neg = [float((e[a] - e[n]).norm()) for n in range(9) if y[n] != y[a]]
        if pos:
            terms.append(max(0.0, 0.3 + max(pos) - min(neg)))
    assert float(batch_hard_triplet_loss(e, y, margin=0.3)) == pytest.approx(sum(terms) / len(terms), rel=1e-9)


@pytest.mark.parametrize("router", ["hyperspherical", "softmax", "dense"])
def test_adapter_shapes_and_seed(router):
    x = torch.randn(3, 6, 20, generator=torch.Generator().manual_seed(0))
    kw = dict(d=8, hidden=8, n_experts=3, top_k=2, router=router, keep_ratio=0.5,
              score="cls_attention" if router == "dense" else "router_confidence")
    a, b = MoEAdapter(20, 5, seed=1, **kw), MoEAdapter(20, 5, seed=1, **kw)
    out = a.encode(x)
    assert out.embeddings.shape == (3, 5) and torch.allclose(out.embeddings.norm(dim=1), torch.ones(3))
    assert out.purified.tokens.shape == (3, 3, 8)
    assert (out.routing is None) == (router == "dense")
    assert torch.equal(a(x), b(x))                                      # one seed, one network
    assert not torch.equal(a(x), MoEAdapter(20, 5, seed=2, **kw)(x))
    assert MoEAdapter(20, 5, d=8, hidden=8, router=router, seed=0)(x).shape == (3, 5)   # defaults: keep all tokens


def test_adapter_trains_and_hyperspherical_gradients_reach_prototypes():
    torch.manual_seed(0)
    a = MoEAdapter(10, 4, d=6, hidden=6, n_experts=3, top_k=1, seed=0)
    x = torch.randn(8, 5, 10, generator=torch.Generator().manual_seed(1))
    y = torch.tensor([0, 0, 1, 1, 2, 2, 3, 3])
    out = a.encode(x)
    loss = (batch_hard_triplet_loss(out.embeddings, y) + 0.01 * load_balance_loss(out.routing.probs, out.routing.indices)
            + 0.01 * routing_diversity_loss(a.router.prototypes))
    loss.backward()
    assert a.router.prototypes.grad is not None and float(a.router.prototypes.grad.abs().sum()) > 0
