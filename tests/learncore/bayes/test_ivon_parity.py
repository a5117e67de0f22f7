"""learncore.bayes.IVON against ivon-opt (the authors' optimizer; GPL-3, a test peer only: its outputs
are compared, its source is neither read nor copied).

How ivon-opt draws its noise was found from its behaviour: inside ``sampled_params(train=True)`` the
parameters are ``m + sigma * epsilon`` with ``epsilon`` one ``torch.randn`` over all parameters in order
(flattened, in the parameters' dtype) from torch's global generator. learncore draws the same way from
its own generator, so ``IVON(seed=s)`` and ivon-opt after ``torch.manual_seed(s)`` see the same noise and
the iterates agree to rounding. Nothing else differs for ``hessian="price"`` and ``"gradsq"`` (ivon-opt's
squared gradient is ``ess * g^2``, also found from its behaviour). Skipped without ivon-opt (the test
extra installs it). Budget: a few seconds."""
import numpy as np
import pytest

from helpers import require_torch

torch = require_torch()
ivon = pytest.importorskip("ivon")

from statcore.utils import thread_limit  # noqa: E402
from torch import nn  # noqa: E402

from learncore.bayes import IVON  # noqa: E402

N_STEPS = 300


@pytest.fixture(autouse=True)
def _one_thread():
    """Tiny tensors: one torch thread is many times faster than a pool on a loaded machine."""
    with thread_limit(1):
        yield
#: the iterates must agree to this (the brief's 1e-6; in float64 they agree to ~1e-15)
TOL = 1e-6


def _data(dtype):
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(64, 3, generator=gen, dtype=dtype)
    y = (x[:, 0] - x[:, 1] + 0.5 * torch.randn(64, generator=gen, dtype=dtype) > 0).long()
    return x, y


def _model(dtype):
    gen = torch.Generator().manual_seed(1)
    model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2)).to(dtype)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(0.5 * torch.randn(p.shape, generator=gen, dtype=dtype))
    return model


def _train(make_opt, dtype, mc, seed_global=None):
    """N_STEPS steps of the ivon-opt training loop on rotating mini-batches of 16; the parameters after
    every step."""
    x, y = _data(dtype)
    model = _model(dtype)
    opt = make_opt(model.parameters())
    if seed_global is not None:
        torch.manual_seed(seed_global)
    out = []
    for t in range(N_STEPS):
        idx = slice(16 * (t % 4), 16 * (t % 4 + 1))
        for _ in range(mc):
            with opt.sampled_params(train=True):
                opt.zero_grad()
                nn.functional.cross_entropy(model(x[idx]), y[idx]).backward()
        opt.step()
        out.append(torch.cat([p.detach().reshape(-1) for p in model.parameters()]).clone())
    return torch.stack(out)


CASES = {
    "price": dict(),
    "price_mc2_clip": dict(mc_samples=2, clip_radius=0.05),
    "price_no_rescale_no_debias": dict(rescale_lr=False, debias=False, beta1=0.8),
    "gradsq": dict(hessian="gradsq"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_iterates_match_ivon_opt(case):
    kw = dict(CASES[case])
    mc = kw.get("mc_samples", 1)
    common = dict(lr=0.05, ess=64.0, hess_init=0.5, beta2=0.999, weight_decay=1e-3, mc_samples=mc)
    for k in ("beta1", "rescale_lr", "debias"):
        if k in kw:
            common[k] = kw[k]
    clip = kw.get("clip_radius")
    hessian = kw.get("hessian", "price")
    ours = _train(lambda ps: IVON(ps, **common, clip_radius=clip, hessian=hessian, seed=123), torch.float64, mc)
    peer = _train(lambda ps: ivon.IVON(ps, **common, clip_radius=np.inf if clip is None else clip,
                                       hess_approx=hessian), torch.float64, mc, seed_global=123)
    diff = float((ours - peer).abs().max())
    print(f"{case}: max |ours - ivon-opt| over {N_STEPS} steps = {diff:.2e}")
    assert diff <= TOL
    assert float((ours[-1] - ours[0]).abs().max()) > 0.1  # the parameters did move


def test_float32_iterates_match_ivon_opt():
    common = dict(lr=0.05, ess=64.0, hess_init=0.5, beta2=0.999, weight_decay=1e-3)
    ours = _train(lambda ps: IVON(ps, **common, seed=7), torch.float32, 1)
    peer = _train(lambda ps: ivon.IVON(ps, **common), torch.float32, 1, seed_global=7)
    diff = float((ours - peer).abs().max())
    print(f"float32: max |ours - ivon-opt| over {N_STEPS} steps = {diff:.2e}")
    assert diff <= 1e-5  # float32 rounding (epsilon 1.2e-7) accumulated over 300 steps of O(1) weights


def test_learncore_leaves_torchs_global_generator_alone():
    x, y = _data(torch.float64)
    model = _model(torch.float64)  # (nn.Linear's own initialisation draws from the global generator)
    state = torch.random.get_rng_state()
    opt = IVON(model.parameters(), lr=0.05, ess=64.0, hessian="hutchinson", seed=0)
    for _ in range(3):
        with opt.sampled_params(train=True, batch=(model, nn.functional.cross_entropy, x, y)):
            nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    opt.predict(model, x, samples=2)
    assert torch.equal(state, torch.random.get_rng_state())
