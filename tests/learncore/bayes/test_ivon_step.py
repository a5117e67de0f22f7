"""The step of learncore.bayes.IVON on flat buffers: the same iterates as the per-parameter formulas,
the state's layout (views that may be changed or replaced), and its time against AdamW.

The oracle is Algorithm 1 written parameter by parameter (``_Reference``, the formulas of IVON's
docstring, one tensor operation each), with the noise drawn as IVON documents it (one randn over all
parameters in order, in the first parameter's dtype): the iterates must agree exactly (``torch.equal``),
for parameter groups with their own hyperparameters, several samples per step, clipping, no debiasing,
both curvature estimates computed from the gradient, and parameters of two dtypes.

Budget: about 3 s of CPU.
"""
import time

import pytest

from helpers import require_torch

torch = require_torch()

from statcore.utils import thread_limit  # noqa: E402
from torch import nn  # noqa: E402

from learncore.bayes import IVON, BayesianLearningRule  # noqa: E402


@pytest.fixture(autouse=True)
def _one_thread():
    with thread_limit(1):
        yield


class _Reference:
    """IVON, one parameter at a time (the oracle)."""

    def __init__(self, groups, *, seed, hessian="price", debias=True, rescale_lr=True):
        self.groups = groups
        self.gen = torch.Generator().manual_seed(seed)
        self.hessian, self.debias, self.rescale_lr = hessian, debias, rescale_lr
        self.state = {}
        for g in groups:
            for p in g["params"]:
                self.state[p] = dict(step=0, hess=torch.full_like(p, g["hess_init"]), mom=torch.zeros_like(p))
        self.acc = None

    def _params(self):
        return [(g, p) for g in self.groups for p in g["params"]]

    def sample(self, loss_fn):
        gp = self._params()
        sigma = [torch.rsqrt(g["ess"] * (self.state[p]["hess"] + g["weight_decay"])) for g, p in gp]
        first = gp[0][1]
        flat = torch.randn(sum(p.numel() for _, p in gp), generator=self.gen, dtype=first.dtype)
        noise, i = [], 0
        for _, p in gp:
            noise.append(flat[i:i + p.numel()].view_as(p).to(p.dtype))
            i += p.numel()
        means = [p.detach().clone() for _, p in gp]
        with torch.no_grad():
            for (_, p), m, s, e in zip(gp, means, sigma, noise):
                p.copy_(m + s * e)
        for _, p in gp:
            p.grad = None
        loss_fn().backward()
        gs = [p.grad.detach().clone() for _, p in gp]
        if self.hessian == "price":
            hs = [gr * e / s for gr, e, s in zip(gs, noise, sigma)]
        else:
            hs = [g["ess"] * gr ** 2 for gr, (g, _) in zip(gs, gp)]
        if self.acc is None:
            self.acc = [gs, hs, 1]
        else:
            for a, b in zip(self.acc[0], gs):
                a.add_(b)
            for a, b in zip(self.acc[1], hs):
                a.add_(b)
            self.acc[2] += 1
        with torch.no_grad():
            for (_, p), m in zip(gp, means):
                p.copy_(m)

    def step(self):
        gs, hs, k = self.acc
        self.acc = None
        with torch.no_grad():
            for (g, p), gh, hh in zip(self._params(), gs, hs):
                gh, hh = gh / k, hh / k
                b1, b2, delta = g["beta1"], g["beta2"], g["weight_decay"]
                alpha = g["lr"] * (g["hess_init"] + delta) if self.rescale_lr else g["lr"]
                st = self.state[p]
                st["step"] += 1
                st["mom"].mul_(b1).add_(gh, alpha=1 - b1)
                h = st["hess"]
                st["hess"] = b2 * h + (1 - b2) * hh + 0.5 * (1 - b2) ** 2 * (h - hh) ** 2 / (h + delta)
                gbar = st["mom"] / (1 - b1 ** st["step"]) if self.debias else st["mom"]
                update = (gbar + delta * p) / (st["hess"] + delta)
                if g["clip_radius"] is not None:
                    update = update.clamp(-g["clip_radius"], g["clip_radius"])
                p.add_(update, alpha=-alpha)


class _Mixed(nn.Module):
    """A float64 layer, then a float32 one."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(3, 9).double()
        self.b = nn.Linear(9, 2)

    def forward(self, x):
        return self.b(torch.tanh(self.a(x.double())).float())


def _model(kind):
    torch.manual_seed(0)
    if kind == "mixed":
        return _Mixed()
    m = nn.Sequential(nn.Linear(3, 9), nn.Tanh(), nn.Linear(9, 5), nn.Tanh(), nn.Linear(5, 2))
    return m.to(torch.float64 if kind == "float64" else torch.float32)


HYPER = dict(lr=0.05, ess=40.0, hess_init=0.5, beta1=0.9, beta2=0.99, weight_decay=1e-3, clip_radius=None)
CASES = {
    "float64 price": dict(kind="float64"),
    "float32 price mc2 clip": dict(kind="float32", mc=2, clip_radius=0.02),
    "float32 gradsq no debias": dict(kind="float32", hessian="gradsq", debias=False, rescale_lr=False),
    "groups": dict(kind="float64", groups=True, mc=3),
    "mixed dtypes": dict(kind="mixed", mc=2),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_iterates_equal_the_per_parameter_formulas(case):
    spec = dict(CASES[case])
    kind, mc, groups = spec.pop("kind"), spec.pop("mc", 1), spec.pop("groups", False)
    opt_kw = dict(hessian=spec.pop("hessian", "price"), debias=spec.pop("debias", True),
                  rescale_lr=spec.pop("rescale_lr", True))
    hyper = {**HYPER, **spec}
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(30, 3, generator=gen, dtype=torch.float64)
    y = torch.randint(0, 2, (30,), generator=gen)
    runs = []
    for impl in ("IVON", "reference"):
        model = _model(kind)
        ps = list(model.parameters())
        if groups:   # the second group with its own hyperparameters
            other = dict(lr=0.02, ess=25.0, hess_init=2.0, beta1=0.8, beta2=0.9, weight_decay=1e-2, clip_radius=0.1)
            split = [dict(params=ps[:2]), dict(params=ps[2:], **other)]
        else:
            split = [dict(params=ps)]
        if impl == "IVON":
            opt = IVON(split, **hyper, seed=3, **opt_kw)
        else:
            opt = _Reference([{**hyper, **g} for g in split], seed=3, **opt_kw)
        dtype = ps[0].dtype

        def loss_fn(idx):
            return nn.functional.cross_entropy(model(x[idx].to(dtype)).float(), y[idx])

        out = []
        for t in range(25):
            idx = slice(10 * (t % 3), 10 * (t % 3 + 1))
            for _ in range(mc):
                if impl == "IVON":
                    with opt.sampled_params(train=True):
                        loss_fn(idx).backward()
                else:
                    opt.sample(lambda: loss_fn(idx))
            opt.step()
            out.append(torch.cat([p.detach().double().reshape(-1) for p in model.parameters()]))
        state = opt.state
        out.append(torch.cat([state[p]["hess"].double().reshape(-1) for p in model.parameters()]))
        runs.append(torch.stack(out[:-1]))
        runs.append(out[-1])
    assert torch.equal(runs[0], runs[2])   # the iterates
    assert torch.equal(runs[1], runs[3])   # the curvature
    assert float((runs[0][-1] - runs[0][0]).abs().max()) > 0.01


def _setup():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 6), nn.Tanh(), nn.Linear(6, 2)).double()
    opt = IVON(model.parameters(), lr=0.05, ess=30.0, beta2=0.99, seed=2)
    x = torch.randn(20, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    return model, opt, x


def _steps(model, opt, x, k):
    for _ in range(k):
        with opt.sampled_params(train=True):
            model(x).pow(2).mean().backward()
        opt.step()
    return torch.cat([p.detach().reshape(-1) for p in model.parameters()])


def test_state_views_changed_in_place_or_replaced():
    """The state tensors are views that follow the steps; changing them in place (also through .data)
    or replacing them has the same effect."""
    results = []
    for how in ("in place", "data", "replace"):
        model, opt, x = _setup()
        _steps(model, opt, x, 3)
        w = model[0].weight
        h0 = opt.state[w]["hess"].clone()
        if how == "in place":
            opt.state[w]["hess"].mul_(4.0)
            opt.state[w]["momentum"].zero_()
        elif how == "data":
            opt.state[w]["hess"].data.mul_(4.0)
            opt.state[w]["momentum"].data.zero_()
        else:
            opt.state[w]["hess"] = 4.0 * opt.state[w]["hess"]
            opt.state[w]["momentum"] = torch.zeros_like(w)
        torch.testing.assert_close(opt.posterior_std()[0], torch.rsqrt(30.0 * (4 * h0 + 1e-4)), rtol=0, atol=0)
        results.append(_steps(model, opt, x, 3))
        assert not torch.equal(opt.state[w]["hess"], 4 * h0)   # the (new) state follows the steps
    assert torch.equal(results[0], results[1]) and torch.equal(results[0], results[2])
    model, opt, x = _setup()   # without the change: a different run
    _steps(model, opt, x, 3)
    assert not torch.equal(_steps(model, opt, x, 3), results[0])


def test_groups_added_mid_run():
    model, opt, x = _setup()
    extra = nn.Parameter(torch.ones(4, dtype=torch.float64))
    _steps(model, opt, x, 2)
    with opt.sampled_params(train=True):   # a pending sample survives the new group
        model(x).pow(2).mean().backward()
    opt.add_param_group(dict(params=[extra], hess_init=3.0))
    opt.step()
    assert opt.state[extra]["step"] == 0 and opt.state[model[0].weight]["step"] == 3
    torch.testing.assert_close(opt.state[extra]["hess"], torch.full((4,), 3.0, dtype=torch.float64))
    _steps(model, opt, x, 2)
    assert opt.state[extra]["step"] == 2 and opt.state[model[0].weight]["step"] == 5
    assert not torch.equal(extra.detach(), torch.ones(4, dtype=torch.float64))  # (the noise moves it)
    with pytest.raises(ValueError, match="more than one parameter group"):   # (torch's check)
        opt.add_param_group(dict(params=[extra]))
    with pytest.raises(ValueError, match="more than once"):
        opt.add_param_group(dict(params=[nn.Parameter(torch.ones(2))] * 2))
    assert len(opt.param_groups) == 2
    with pytest.raises(ValueError, match="more than once"):
        IVON([model[0].weight, model[0].weight], lr=0.1, ess=1.0)
    with pytest.raises(ValueError, match="more than once"):
        BayesianLearningRule([dict(params=[model[0].bias, model[0].bias])], lr=0.1, ess=1.0)


def _median_step_cpu(model, opt, loss_fn, batches, steps):
    """The median CPU time of ``steps`` training steps (sample, zero_grad, forward, backward, step)."""
    times = []
    sampled = not isinstance(opt, torch.optim.AdamW)
    for t in range(steps):
        x, y = batches[t % len(batches)]
        c0 = time.process_time_ns()
        if sampled:
            with opt.sampled_params(train=True):
                opt.zero_grad()
                loss_fn(model(x), y).backward()
        else:
            opt.zero_grad()
            loss_fn(model(x), y).backward()
        opt.step()
        times.append(time.process_time_ns() - c0)
    times.sort()
    return times[len(times) // 2]


def test_step_time_against_adamw():
    """The issue's target: a training step of IVON (hessian="price") takes at most 1.5 times AdamW's
    (an MLP 64-64-10 on batches of 64, float32, one thread, CPU time; measured about 1.0, against 1.8
    before the flat buffers). The methods take turns, and the best of three tries counts (the machine
    may be shared)."""
    gen = torch.Generator().manual_seed(0)
    batches = [(torch.rand(64, 64, generator=gen), torch.randint(0, 10, (64,), generator=gen)) for _ in range(8)]
    loss_fn = nn.CrossEntropyLoss()
    runs = {}
    for name in ("IVON", "AdamW"):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 10))
        opt = (IVON(model.parameters(), lr=0.5, ess=1200.0, hess_init=3.0, beta2=0.999, seed=0)
               if name == "IVON" else torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=1e-2))
        runs[name] = (model, opt)
        _median_step_cpu(model, opt, loss_fn, batches, 20)   # warm up
    ratios = []
    for _ in range(3):
        med = {name: [] for name in runs}
        for _ in range(4):
            for name, (model, opt) in runs.items():
                med[name].append(_median_step_cpu(model, opt, loss_fn, batches, 40))
        ratios.append(sorted(med["IVON"])[2] / sorted(med["AdamW"])[2])
        if ratios[-1] <= 1.5:
            break
    print(f"IVON / AdamW CPU time per step: {[round(r, 2) for r in ratios]}")
    assert min(ratios) <= 1.5
