"""The Bayesian learning rule for a diagonal Gaussian posterior over a network's parameters.

The posterior is ``q(theta) = N(m, diag(sigma^2))`` over every parameter an optimizer holds: the mean
``m`` *is* the parameters (so ``model(x)`` predicts at the mean), and the precision comes from a
per-parameter curvature state ``h``: ``sigma^2 = 1 / (ess * (h + weight_decay))``. Here ``ess`` (the
effective sample size, lambda) multiplies the mean loss of a batch into the loss of a data set of
``ess`` examples, and ``weight_decay`` (delta) is the precision of the Gaussian prior
``N(0, 1 / (ess * delta))``. The variational objective is then

    E_q[ lbar(theta) ] + delta/2 E_q ||theta||^2 - H(q) / ess,

with ``lbar`` the mean loss of a batch; its stationary points satisfy ``E_q[grad lbar] + delta m = 0``
and ``h = E_q[diag Hessian of lbar]`` (Bonnet's and Price's theorems).

:class:`BayesianLearningRule` is the natural-gradient step of the Bayesian learning rule (Khan & Rue,
2023, Sec. 4: the variational online Newton step for a diagonal Gaussian),

    h <- (1 - rho) h + rho hhat,        m <- m - rho (ghat + delta m) / (h + delta),

with ``ghat`` and ``hhat`` the gradient and diagonal-curvature estimates averaged over the Monte Carlo
samples ``theta ~ q`` of one step. :class:`learncore.bayes.IVON` refines it. How ``hhat`` is estimated
is a :class:`CurvatureEstimator`: one small class with one method, ``estimate(sample)``.
"""
from __future__ import annotations

import contextlib
import itertools
import operator
from collections.abc import Mapping
from typing import Any, Callable, Iterator

import numpy as np
import torch
from statcore.utils import check_choice, check_nonneg_real, check_positive_int, check_positive_real

from .._torch import torch_generator
from ._checks import check_batch, check_params
from ._estimators import CurvatureSample, GradSquareCurvature, PriceCurvature, make_curvature

__all__ = ["BayesianLearningRule"]

#: what :meth:`BayesianLearningRule.predict` averages
OUTPUTS = ("softmax", "sigmoid", "identity")


_DTYPE = operator.attrgetter("dtype")


class _Bucket:
    """A run of consecutive parameters of one group with one dtype, device and step count, and its flat
    buffers: the state (``state_v[key][i]`` is ``state[params[i]][key]``) and the work of a step."""

    __slots__ = ("group", "params", "states", "lo", "hi", "hess", "flat", "state_v", "noise", "noise_own",
                 "noise_v", "sigma", "sigma_v", "mean", "mean_v", "tmp", "tmp_v", "acc_g",
                 "acc_g_v", "acc_h", "acc_h_v", "dtype", "scalars", "by_param")

    def __init__(self, opt: "BayesianLearningRule", group: dict, params: list, lo: int):
        self.group = group
        self.params = list(params)
        self.states = [opt.state[p] for p in self.params]
        n = sum(p.numel() for p in self.params)
        self.lo, self.hi = lo, lo + n
        like = self.params[0]
        kw = dict(dtype=like.dtype, device=like.device)
        self.dtype = like.dtype
        # In float16 and bfloat16 on the CPU an operation takes a Python number at a higher precision than
        # the dtype's, and the rounding of rsqrt and of add(alpha=) depends on an element's place in the
        # (vectorised) loop: those run per parameter there, as the per-parameter formulas do.
        reduced = like.dtype not in (torch.float32, torch.float64)
        self.scalars = {} if like.device.type == "cpu" and not reduced else None
        self.by_param = reduced
        self.flat, self.state_v = {}, {}
        for key in opt._flat_state:
            buf = torch.empty(n, **kw)
            views = self.views(buf)
            with torch.no_grad():
                for v, st in zip(views, self.states):
                    v.copy_(st[key])
                    st[key] = v
            self.flat[key], self.state_v[key] = buf, views
        self.hess = self.flat["hess"]
        noise = opt._noise
        if noise.dtype == like.dtype and noise.device == like.device:
            self.noise, self.noise_own = noise[lo:self.hi], False
        else:   # the noise is drawn in the first parameter's dtype and converted
            self.noise, self.noise_own = torch.empty(n, **kw), True
        self.noise_v = self.views(self.noise)
        self.sigma = torch.empty(n, **kw)
        self.sigma_v = self.views(self.sigma)
        self.mean, self.tmp = torch.empty(n, **kw), torch.empty(n, **kw)
        self.acc_g, self.acc_h = torch.zeros(n, **kw), torch.zeros(n, **kw)
        self.mean_v, self.tmp_v = self.views(self.mean), self.views(self.tmp)
        self.acc_g_v, self.acc_h_v = self.views(self.acc_g), self.views(self.acc_h)

    def views(self, flat: torch.Tensor) -> list:
        out, i = [], 0
        for p in self.params:
            k = p.numel()
            out.append(flat[i:i + k].view(p.shape))
            i += k
        return out

    def scalar(self, value: float) -> Any:
        """``value`` as the operand of an operation with the bucket's tensors: in float32 or float64 on the
        CPU a cached 0-dim tensor of their dtype, which gives the result the Python number gives (torch
        converts the number to that dtype) without converting it at every operation."""
        if self.scalars is None or not value:   # (0 and -0 would share a key)
            return value
        t = self.scalars.get(value)
        if t is None:
            if len(self.scalars) > 64:
                self.scalars.clear()
            t = self.scalars[value] = torch.tensor(value, dtype=self.dtype)
        return t

    def draw(self, noise: torch.Tensor) -> None:
        """Save the mean and put ``m + sigma * epsilon`` into the parameters (under no_grad)."""
        g = self.group
        # sigma from h at every draw (h may have been changed in place, even through .data)
        torch.add(self.hess, self.scalar(g["weight_decay"]), out=self.sigma).mul_(self.scalar(g["ess"]))
        if self.by_param:
            torch._foreach_rsqrt_(self.sigma_v)
        else:
            self.sigma.rsqrt_()
        if self.noise_own:
            self.noise.copy_(noise[self.lo:self.hi])
        torch._foreach_copy_(self.mean_v, self.params)
        torch.mul(self.sigma, self.noise, out=self.tmp)
        torch._foreach_add_(self.params, self.tmp_v)   # m + sigma * epsilon

    def count_step(self) -> int:
        t = self.states[0]["step"] + 1
        for st in self.states:
            st["step"] = t
        return t


# ---- the optimizer --------------------------------------------------------------------------------

class BayesianLearningRule(torch.optim.Optimizer):
    """The Bayesian learning rule for a diagonal Gaussian posterior over all parameters: the variational
    online Newton step (Khan & Rue, 2023) as a torch optimizer, and the base class of :class:`IVON`.

    The posterior is ``N(m, diag(sigma^2))``: the mean ``m`` is the parameters themselves, and
    ``sigma^2 = 1 / (ess * (h + weight_decay))`` with a curvature state ``h`` per parameter. One step
    averages, over the posterior samples of the step, the gradient ``ghat`` and the curvature estimate
    ``hhat`` of the batch's mean loss, and moves the natural parameters (precision and
    precision-times-mean) a fraction ``lr`` toward their Bayesian update:

        h <- (1 - lr) h + lr hhat,        m <- m - lr (ghat + weight_decay m) / (h + weight_decay).

    With an estimate ``hhat`` that can be negative (``"price"``, ``"hutchinson"``, ``"backprop"`` with
    the diagonal Hessian) the precision can leave the positive cone; the step then refuses with an
    error. :class:`IVON` fixes that (its Riemannian-gradient correction keeps ``h`` positive) and adds
    momentum; use it for deep networks.

    The training loop is ivon-opt's::

        for x, y in loader:
            for _ in range(mc_samples):
                with opt.sampled_params(train=True):
                    opt.zero_grad()
                    loss_fn(model(x), y).backward()
            opt.step()

    or, equivalently, ``opt.step(closure)`` with a closure that zeroes the gradients, computes the loss,
    calls ``backward`` and returns the loss (``step`` then draws ``mc_samples`` samples itself).
    ``hessian="backprop"`` also needs the batch (``sampled_params(train=True, batch=(model, loss_fn, x,
    y))``, or ``step(closure, batch=...)``); ``"hutchinson"`` needs it or ``backward(create_graph=True)``.

    The state ``opt.state[p]["hess"]`` (:class:`IVON`: and ``"momentum"``) of the consecutive parameters of
    a group that share a dtype and device are views of one flat buffer, and the step's work (the noise,
    sigma, the sums over the samples) lives in flat buffers too, so that a step is a short, fixed sequence
    of whole-buffer operations, with no per-parameter loop and no allocation. Each operation is the one
    the per-parameter formula does (the same rounding), so the iterates do not depend on this layout.
    The state may be modified in place or its tensors replaced (a replaced tensor is adopted at the next
    sample or step). A parameter may appear only once in ``params``.

    Parameters
    ----------
    params : iterable
        The parameters (``model.parameters()``) or parameter groups (dicts, which may override ``lr``,
        ``ess``, ``hess_init`` and ``weight_decay``).
    lr : float
        The step size rho of the natural-gradient step, in (0, 1] for this class.
    ess : float
        The effective sample size lambda: usually the number of training examples.
    hess_init : float
        The initial curvature h0 (> 0): the initial posterior variance is ``1 / (ess (h0 + weight_decay))``.
    weight_decay : float
        The prior precision per example delta (>= 0): the prior is ``N(0, 1 / (ess delta))``.
    mc_samples : int
        The posterior samples per step that ``step(closure)`` draws (the ivon-opt loop draws its own).
    hessian : {"price", "gradsq", "hutchinson", "backprop"} or CurvatureEstimator
        How the diagonal curvature is estimated at each sample (see :class:`CurvatureEstimator`).
    seed : None, int, torch.Generator, numpy.random.Generator
        The random stream of the posterior samples (and of Hutchinson's probes). The same seed gives
        the same iterates; an int ``s`` draws the stream that ``torch.manual_seed(s)`` would.

    References
    ----------
    Khan, M. E. & Rue, H. (2023). The Bayesian learning rule. JMLR 24(281), Sec. 4 (variational online
    Newton). Khan, M. E. et al. (2018). Fast and scalable Bayesian deep learning by weight-perturbation
    in Adam. ICML.

    Examples
    --------
    Bayesian linear regression (Gaussian noise of variance 1/2, the scale of ``MSELoss``), with the
    Gauss-Newton diagonal by backpropagation as the curvature and the closure form of the step:

    >>> import torch
    >>> from learncore.bayes import BackpropCurvature, BayesianLearningRule
    >>> gen = torch.Generator().manual_seed(0)
    >>> x = torch.randn(50, 2, generator=gen, dtype=torch.float64)
    >>> noise = torch.randn(50, 1, generator=gen, dtype=torch.float64)
    >>> y = x @ torch.tensor([[1.0], [-1.0]], dtype=torch.float64) + 0.1 * noise
    >>> model = torch.nn.Sequential(torch.nn.Linear(2, 1, bias=False)).double()
    >>> loss_fn = torch.nn.MSELoss()
    >>> opt = BayesianLearningRule(model.parameters(), lr=0.5, ess=50, seed=0,
    ...                            hessian=BackpropCurvature(kind="diag_ggn"))
    >>> def closure():
    ...     opt.zero_grad()
    ...     loss = loss_fn(model(x), y)
    ...     loss.backward()
    ...     return loss
    >>> for _ in range(50):
    ...     _ = opt.step(closure, batch=(model, loss_fn, x, y))
    >>> [round(v, 1) for v in model[0].weight.detach().squeeze().tolist()]
    [1.0, -1.0]
    """

    def __init__(self, params, *, lr: float, ess: float, hess_init: float = 1.0, weight_decay: float = 1e-4,
                 mc_samples: int = 1, hessian: Any = "price", seed: Any = None):
        self._setup(params, dict(lr=lr, ess=ess, hess_init=hess_init, weight_decay=weight_decay),
                    mc_samples=mc_samples, hessian=hessian, seed=seed)

    #: the per-parameter state held in one flat buffer per bucket (``state[p][key]`` are its views)
    _flat_state: tuple = ("hess",)

    def _setup(self, params: Any, defaults: dict, *, mc_samples: Any, hessian: Any, seed: Any) -> None:
        """The construction shared by the subclasses: checks, parameter groups, state, generator."""
        params = check_params(params)
        defaults = self._check_hyper(defaults, defaults=None)
        self.mc_samples = check_positive_int(mc_samples, "mc_samples")
        self.curvature = make_curvature(hessian)
        self._buckets: list | None = None
        super().__init__(params, defaults)
        first = self._params()[0]
        self.generator = torch_generator(seed, first.device)
        self._count = 0
        self._sampling = False
        self._build()

    # -- hyperparameters ------------------------------------------------------------------------
    def _check_hyper(self, group: dict, defaults: dict | None) -> dict:
        """Validate the hyperparameters of a group (a subclass adds its own)."""
        group = dict(group)
        group["lr"] = check_positive_real(group["lr"], "lr")
        if type(self) is BayesianLearningRule and group["lr"] > 1:
            raise ValueError(f"lr must lie in (0, 1] for the natural-gradient step, got {group['lr']!r}")
        group["ess"] = check_positive_real(group["ess"], "ess")
        group["hess_init"] = check_positive_real(group["hess_init"], "hess_init")
        group["weight_decay"] = check_nonneg_real(group["weight_decay"], "weight_decay")
        return group

    def add_param_group(self, param_group: dict) -> None:
        """Add a parameter group; its hyperparameters are checked as the constructor's are."""
        if not isinstance(param_group, Mapping):
            raise TypeError(f"param_group must be a dict, got {type(param_group).__name__}")
        group = dict(param_group)
        hyper = {k: group.get(k, self.defaults.get(k)) for k in self.defaults}
        group.update(self._check_hyper(hyper, self.defaults))
        ps = group.get("params")
        if ps is not None and not isinstance(ps, (torch.Tensor, set)):
            group["params"] = ps = list(ps)
            if len({id(p) for p in ps}) != len(ps):
                raise ValueError("params holds a parameter more than once: pass each parameter once")
        super().add_param_group(group)
        if hasattr(self, "generator"):  # a group added after construction
            self._build()

    def state_dict(self) -> dict:
        """torch's optimizer state (curvature, momentum, steps, groups) and the state of the generator,
        so that a run resumed with :meth:`load_state_dict` draws the samples the uninterrupted run would.

        Returns
        -------
        dict
        """
        out = super().state_dict()
        out["generator_state"] = self.generator.get_state()
        return out

    def load_state_dict(self, state_dict: dict) -> None:
        """Load a :meth:`state_dict` (the generator's state too, when it has one).

        Parameters
        ----------
        state_dict : dict
            As returned by :meth:`state_dict`.
        """
        state_dict = dict(state_dict)
        gen_state = state_dict.pop("generator_state", None)
        super().load_state_dict(state_dict)
        if gen_state is not None:
            self.generator.set_state(gen_state)
        self._build()

    def _init_state(self, group: dict, p: torch.Tensor) -> None:
        state = self.state[p]
        if "hess" not in state:
            state["step"] = 0
            state["hess"] = torch.full_like(p, group["hess_init"], memory_format=torch.preserve_format).detach()

    def _params(self) -> list:
        return [p for group in self.param_groups for p in group["params"]]

    def _param_ess(self) -> list:
        return [group["ess"] for group in self.param_groups for _ in group["params"]]

    def __repr__(self) -> str:
        g = self.param_groups[0]
        return (f"{type(self).__name__}(lr={g['lr']:g}, ess={g['ess']:g}, hessian={self.curvature.name!r}, "
                f"mc_samples={self.mc_samples}, n_params={sum(p.numel() for p in self._params())})")

    # -- the flat layout ------------------------------------------------------------------------
    # The state (h; IVON's momentum) of a run of consecutive parameters of one group with one dtype,
    # device and step count lives in one flat buffer per key, whose slices are ``state[p][key]``; the
    # step's work (noise, sigma, the mean, the accumulated gradient and curvature) lives in flat buffers
    # too, so that a step is a fixed, short sequence of whole-buffer operations, whatever the number of
    # parameters (usually: one group, one dtype, one bucket). The arithmetic is that of the per-parameter
    # formulas, operation by operation, so the iterates do not depend on the layout.

    def _build(self) -> None:
        """(Re)build the buckets from the parameter groups and the per-parameter state (adopting the
        state's current values); pending samples of the step are carried over."""
        pending = None
        if self._count and self._buckets is not None:
            pending = {}
            for b in self._buckets:
                for p, ag, ah in zip(b.params, b.acc_g_v, b.acc_h_v):
                    pending[p] = (ag.clone(), ah.clone())
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(group, p)
        params = self._params()
        if len({id(p) for p in params}) != len(params):
            raise ValueError("params holds a parameter more than once: pass each parameter once")
        first = params[0]
        self._noise = torch.empty(sum(p.numel() for p in params), dtype=first.dtype, device=first.device)
        buckets, by_group, lo = [], [], 0
        for group in self.param_groups:
            mine, run, run_key = [], [], None
            for p in group["params"]:
                key = (p.dtype, p.device, self.state[p]["step"])
                if run and key != run_key:
                    mine.append(_Bucket(self, group, run, lo))
                    lo = mine[-1].hi
                    run = []
                run.append(p)
                run_key = key
            if run:
                mine.append(_Bucket(self, group, run, lo))
                lo = mine[-1].hi
            buckets += mine
            by_group.append((group, mine))
        self._buckets, self._by_group = buckets, by_group
        self._all_params = params
        # what _layout_ok compares (the ids of objects this optimizer holds, so they cannot be reused)
        self._groups = list(self.param_groups)
        self._ids_groups = list(map(id, self._groups))
        self._ids_params = list(map(id, params))
        self._dtypes = list(map(_DTYPE, params))
        self._states = [st for b in buckets for st in b.states]
        self._state_values = list(self.state.values())
        self._ids_states = list(map(id, self._state_values))
        self._ids_views = [(k, [id(v) for b in buckets for v in b.state_v[k]]) for k in self._flat_state]
        self._fresh = set()
        if pending is not None:
            # parameters added since the step's samples were drawn have no gradient in them: the step
            # leaves them alone (their buckets are new)
            with torch.no_grad():
                for b in buckets:
                    known = [p in pending for p in b.params]
                    if not any(known):
                        self._fresh.add(id(b))
                        continue
                    if not all(known):
                        self._count = 0
                        raise RuntimeError("parameters were added to a group between sampled_params(train=True) "
                                           "and step(); the pending samples were dropped")
                    for p, ag, ah in zip(b.params, b.acc_g_v, b.acc_h_v):
                        ag.copy_(pending[p][0])
                        ah.copy_(pending[p][1])

    def _layout_ok(self) -> bool:
        """Whether the buckets still describe the groups, their parameters and their state (the user may
        add or replace any of them between steps): identity checks in C loops (no tensor hashing)."""
        groups = self.param_groups
        if list(map(id, groups)) != self._ids_groups:
            return False
        params = [p for group in groups for p in group["params"]]
        if list(map(id, params)) != self._ids_params or list(map(_DTYPE, params)) != self._dtypes:
            return False
        if list(map(id, self.state.values())) != self._ids_states:
            return False
        states = self._states
        for key, ids in self._ids_views:
            if list(map(id, map(dict.get, states, itertools.repeat(key)))) != ids:
                return False
        return True

    def _layout(self) -> list:
        if self._buckets is None or not self._layout_ok():
            self._build()
        return self._buckets

    # -- the posterior --------------------------------------------------------------------------
    def posterior_std(self) -> list:
        """The posterior standard deviations ``sigma = 1 / sqrt(ess (h + weight_decay))``, one tensor per
        parameter (in the order of the parameter groups)."""
        out = []
        for group in self.param_groups:
            for p in group["params"]:
                h = self.state[p]["hess"]
                out.append(torch.rsqrt(group["ess"] * (h + group["weight_decay"])))
        return out

    @contextlib.contextmanager
    def sampled_params(self, *, train: bool = False, batch: tuple | None = None) -> Iterator[None]:
        """Put a posterior sample ``theta = m + sigma * epsilon`` into the parameters; restore the mean on exit.

        With ``train=True`` the sample is a training sample: entering clears the parameters'
        gradients, and on exit the gradient then present (that of the ``backward`` run inside) and the
        curvature estimate at ``theta`` are added to the step's average, which :meth:`step` uses.
        ``epsilon`` is one standard normal draw over all parameters in order (in the first
        parameter's dtype), from the optimizer's generator.

        Parameters
        ----------
        train : bool
            Whether the sample is a training sample (else: a prediction sample, nothing recorded).
        batch : tuple, optional
            ``(model, loss_fn, x, y)``: needed by ``hessian="backprop"`` (and by ``"hutchinson"``
            without ``backward(create_graph=True)``).

        Yields
        ------
        None
        """
        if self._sampling:
            raise RuntimeError("sampled_params is already active: its contexts do not nest")
        batch = check_batch(batch)
        buckets = self._layout()
        self._noise.normal_(generator=self.generator)  # torch.randn(n) of the first parameter's dtype
        with torch.no_grad():
            for b in buckets:
                b.draw(self._noise)
        if train:
            for p in self._all_params:
                p.grad = None
        self._sampling = True
        completed = False
        try:
            yield
            completed = True
        finally:
            try:
                if train and completed:
                    self._record(batch)
            finally:
                with torch.no_grad():
                    for b in buckets:
                        torch._foreach_copy_(b.params, b.mean_v)
                self._sampling = False

    def _record(self, batch: tuple | None) -> None:
        """Add the gradient and the curvature estimate of the sample in the parameters to the step's sums."""
        buckets, params, curv = self._buckets, self._all_params, self.curvature
        kind = type(curv)
        fast = kind is PriceCurvature or kind is GradSquareCurvature
        hhat = None
        if not fast:
            grads = [torch.zeros_like(p) if p.grad is None else p.grad for p in params]
            sample = CurvatureSample(params=tuple(params), grads=tuple(grads),
                                     noise=tuple(v for b in buckets for v in b.noise_v),
                                     sigma=tuple(v for b in buckets for v in b.sigma_v),
                                     ess=tuple(self._param_ess()), batch=batch, generator=self.generator)
            hhat = list(curv.estimate(sample))
            if len(hhat) != len(params):
                raise ValueError(f"{type(curv).__name__}.estimate returned {len(hhat)} tensors for "
                                 f"{len(params)} parameters")
        for p in params:  # a backward(create_graph=True) leaves a graph on .grad: keep the values only
            if p.grad is not None and p.grad.requires_grad:
                p.grad = p.grad.detach()
        first = self._count == 0
        with torch.no_grad():
            i = 0
            for b in buckets:
                # the sample's gradient: straight into the sum at the step's first sample
                g, g_v = (b.acc_g, b.acc_g_v) if first else (b.tmp, b.tmp_v)
                grads = [p.grad for p in b.params]
                if any(gr is None for gr in grads):
                    for v, gr in zip(g_v, grads):
                        if gr is None:
                            v.zero_()
                        else:
                            v.copy_(gr)
                else:
                    torch._foreach_copy_(g_v, grads)
                h = b.acc_h if first else b.noise  # (the noise is not needed after the estimate)
                if kind is PriceCurvature:    # ghat * (theta - m) / sigma^2 = ghat * epsilon / sigma
                    torch.mul(g, b.noise, out=h).div_(b.sigma)
                elif kind is GradSquareCurvature:
                    torch.pow(g, 2, out=h).mul_(b.scalar(b.group["ess"]))
                else:
                    k = len(b.params)
                    vals = [torch.as_tensor(v).detach().to(dtype=p.dtype, device=p.device).expand_as(p)
                            for v, p in zip(hhat[i:i + k], b.params)]
                    i += k
                    if first:
                        torch._foreach_copy_(b.acc_h_v, vals)
                    else:
                        torch._foreach_add_(b.acc_h_v, vals)
                if not first:
                    b.acc_g.add_(g)
                    if fast:
                        b.acc_h.add_(h)
        self._count += 1

    # -- the step -------------------------------------------------------------------------------
    def step(self, closure: Callable | None = None, *, batch: tuple | None = None):
        """One update from the training samples drawn since the last step (their mean gradient and
        curvature), or, with ``closure``, from ``mc_samples`` samples drawn here.

        Parameters
        ----------
        closure : callable, optional
            Zeroes the gradients, computes the batch's mean loss, calls ``backward`` and returns the
            loss; run once inside ``sampled_params(train=True, batch=batch)`` per Monte Carlo sample.
        batch : tuple, optional
            ``(model, loss_fn, x, y)`` for ``hessian="backprop"``, with ``closure``.

        Returns
        -------
        torch.Tensor or None
            The mean of the closure's losses over the samples (None without a closure).
        """
        loss = None
        if closure is not None:
            losses = []
            for _ in range(self.mc_samples):
                with self.sampled_params(train=True, batch=batch):
                    with torch.enable_grad():
                        losses.append(closure())
            if all(isinstance(v, torch.Tensor) for v in losses):
                loss = torch.stack([v.detach().reshape(()) for v in losses]).mean()
            elif all(v is not None for v in losses):
                loss = sum(float(v) for v in losses) / len(losses)
        elif batch is not None:
            raise ValueError("batch is used with a closure; in the ivon-opt loop pass it to sampled_params")
        if self._count == 0:
            raise RuntimeError("step() needs at least one training sample: run the loss and backward inside "
                               "`with opt.sampled_params(train=True):` before step(), or pass a closure")
        self._layout()
        count = self._count
        self._count = 0
        fresh, self._fresh = self._fresh, set()
        with torch.no_grad():
            for group, buckets in self._by_group:
                if fresh:
                    buckets = [b for b in buckets if id(b) not in fresh]
                    if not buckets:
                        continue
                if count != 1:  # the means over the samples (x / 1 is x)
                    for b in buckets:
                        b.acc_g.div_(b.scalar(count))
                        b.acc_h.div_(b.scalar(count))
                self._update_group(group, buckets)
        return loss

    def _update_group(self, group: dict, buckets: list) -> None:
        """The natural-gradient step of the diagonal Gaussian (variational online Newton), on the buckets
        of one group (``b.acc_g``, ``b.acc_h``: the mean gradient and curvature of the samples)."""
        rho, delta = group["lr"], group["weight_decay"]
        for b in buckets:
            torch.mul(b.hess, b.scalar(1 - rho), out=b.tmp).add_(b.acc_h.mul_(b.scalar(rho)))  # the new h
            torch.add(b.tmp, b.scalar(delta), out=b.acc_h)                                     # h + delta
            if not bool((b.acc_h > 0).all()):
                raise RuntimeError("the posterior precision left the positive cone (h + weight_decay <= 0) in the "
                                   "natural-gradient step: use a curvature that is never negative (hessian='gradsq', "
                                   "BackpropCurvature(kind='diag_ggn')), a smaller lr, or IVON")
        for b in buckets:
            b.count_step()
            b.hess.copy_(b.tmp)
            torch._foreach_copy_(b.mean_v, b.params)
            b.acc_g.add_(b.mean.mul_(b.scalar(delta))).div_(b.acc_h)       # (g + delta m) / (h + delta)
            torch._foreach_add_(b.params, b.acc_g_v, alpha=-rho)

    # -- prediction -----------------------------------------------------------------------------
    def predict(self, model: torch.nn.Module, x: Any, *, samples: int = 32, output: str = "softmax") -> torch.Tensor:
        """Bayesian model averaging: the mean over ``samples`` posterior samples of ``model(x)``
        transformed by ``output``.

        Parameters
        ----------
        model : torch.nn.Module
            The model whose parameters this optimizer holds.
        x : torch.Tensor or array-like
            The inputs (a floating array is converted to the parameters' dtype).
        samples : int
            The posterior samples averaged.
        output : {"softmax", "sigmoid", "identity"}
            What is averaged: class probabilities ``softmax(model(x), dim=-1)`` (classification, as
            ivon-opt's README), probabilities ``sigmoid(model(x))`` (a binary logit), or the outputs
            themselves (regression: the posterior predictive mean).

        Returns
        -------
        torch.Tensor
            The averaged prediction, the shape of ``model(x)``.
        """
        samples = check_positive_int(samples, "samples")
        output = check_choice(output, "output", OUTPUTS)
        if not isinstance(model, torch.nn.Module):
            raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
        x = _as_input(x, self._params()[0])
        transform = {"softmax": lambda o: torch.softmax(o, dim=-1), "sigmoid": torch.sigmoid,
                     "identity": lambda o: o}[output]
        total = None
        with torch.no_grad():
            for _ in range(samples):
                with self.sampled_params(train=False):
                    try:
                        out = transform(model(x))
                    except RuntimeError as exc:
                        raise ValueError(f"x does not fit the model: {exc}") from None
                total = out if total is None else total + out
        return total / samples


def _as_input(x: Any, like: torch.Tensor) -> torch.Tensor:
    """``x`` of a prediction: a tensor or a numeric array, non-empty and finite."""
    if x is None or isinstance(x, (str, bytes)):
        raise TypeError(f"x must be a tensor or a numeric array, got {type(x).__name__}")
    if not isinstance(x, torch.Tensor):
        try:
            arr = np.asarray(x)
        except Exception:
            raise TypeError(f"x must be a tensor or a numeric array, got {type(x).__name__}") from None
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"x must be numeric, got an array of dtype {arr.dtype}")
        x = torch.as_tensor(arr, dtype=like.dtype if arr.dtype.kind == "f" else None, device=like.device)
    if x.numel() == 0:
        raise ValueError("x is empty")
    if x.is_floating_point() and not bool(torch.isfinite(x).all()):
        raise ValueError(f"x has {int((~torch.isfinite(x)).sum())} NaN or infinite values")
    return x

