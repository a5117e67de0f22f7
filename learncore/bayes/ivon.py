"""IVON: the improved variational online Newton optimizer (Shen et al., ICML 2024), with a choice of
curvature estimators, among them the layerwise diagonal by Hessian backpropagation."""
from __future__ import annotations

import math
from typing import Any

import torch
from statcore.utils import check_positive_real

from ._blr import BayesianLearningRule
from ._checks import check_beta

__all__ = ["IVON"]


class IVON(BayesianLearningRule):
    """Improved Variational Online Newton: variational learning of a diagonal Gaussian posterior over a
    network's parameters at the cost of Adam (Shen et al., 2024, Algorithm 1).

    With ``m`` the parameters (the posterior mean), ``h`` the curvature state (initially ``hess_init``),
    ``g`` the momentum (initially 0), ``delta = weight_decay`` and ``lambda = ess``, one step is

    1. for each of the step's posterior samples ``theta = m + sigma * epsilon``, ``epsilon ~ N(0, I)``,
       ``sigma = 1 / sqrt(lambda (h + delta))``: the gradient ``ghat`` of the batch's mean loss at
       ``theta`` and a curvature estimate ``hhat``; both are averaged over the samples;
    2. ``g <- beta1 g + (1 - beta1) ghat``;
    3. ``h <- beta2 h + (1 - beta2) hhat + (1 - beta2)^2 (h - hhat)^2 / (2 (h + delta))`` (the last term
       is the Riemannian-gradient correction, which keeps ``h`` positive whatever the sign of ``hhat``);
    4. ``gbar = g / (1 - beta1^t)`` (debiased momentum; ``debias=False``: ``gbar = g``);
    5. ``m <- m - alpha clip((gbar + delta m) / (h + delta), clip_radius)``, element-wise clipping,
       with ``alpha = lr (hess_init + delta)`` (``rescale_lr=False``: ``alpha = lr``), so that the first
       steps move as SGD with learning rate ``lr`` would.

    The Bayesian reading: the step is the Bayesian learning rule for the objective ``lambda E_q[lbar] +
    KL(q || N(0, I / (lambda delta)))``, with ``lbar`` the mean loss of a batch; its fixed point has
    ``m`` at ``E_q[grad lbar] + delta m = 0`` and ``h = E_q[diag Hessian lbar]``, i.e. the mean-field
    Gaussian approximation of the posterior of ``lambda`` examples under the prior. It is exact (the
    Gaussian posterior's mean and the inverse diagonal of its precision) for a Gaussian likelihood.

    Curvature estimates ``hhat`` (``hessian=``):

    - ``"price"`` (the paper's): ``hhat = ghat * (theta - m) / sigma^2``, unbiased for
      ``E_q[diag Hessian]`` by Price's theorem, free given the gradient, noisy.
    - ``"gradsq"``: ``hhat = ess * ghat^2`` (ivon-opt's ``hess_approx="gradsq"``): a scaled empirical
      Fisher, never negative; it is the empirical Fisher only for batches of ``ess`` examples near a
      stationary point, and the empirical Fisher is not the Hessian (:class:`GradSquareCurvature`).
    - ``"hutchinson"``: ``hhat = z * (H z)`` with a Rademacher probe ``z`` and a Hessian-vector product
      (unbiased; twice the cost of a gradient): :class:`HutchinsonCurvature`.
    - ``"backprop"``: the layerwise diagonal curvature by Hessian backpropagation,
      ``layerwise_curvature(model, loss_fn, x, y, kind="diag_hessian")`` at each sample
      (:class:`BackpropCurvature`; pass ``hessian=BackpropCurvature(kind="diag_ggn")`` for the
      Gauss-Newton diagonal, or ``BackpropCurvature(curvature_fn=f)`` for another function).
    - any :class:`CurvatureEstimator` instance.

    The training loop is ivon-opt's, so code switches by changing the import::

        opt = IVON(model.parameters(), lr=0.1, ess=len(train_set), seed=0)
        for x, y in loader:
            for _ in range(mc_samples):
                with opt.sampled_params(train=True):
                    opt.zero_grad()
                    loss_fn(model(x), y).backward()
            opt.step()

    ``"backprop"`` needs the batch at each sample: ``opt.sampled_params(train=True, batch=(model,
    loss_fn, x, y))``; ``"hutchinson"`` needs it too, or ``loss.backward(create_graph=True)``. The
    closure form ``opt.step(closure, batch=(model, loss_fn, x, y))`` draws ``mc_samples`` samples itself
    (the closure zeroes the gradients, computes the loss, calls ``backward`` and returns the loss).
    Entering a training sample clears the parameters' gradients; a step averages over the samples
    actually drawn since the previous step. Predict at the mean with ``model(x)``, or average over
    the posterior with :meth:`predict` (ivon-opt's README loop).

    Differences from ivon-opt 0.1.3 (compared on its outputs only; it is GPL): the noise comes from the
    optimizer's own ``torch.Generator`` (``seed``) instead of torch's global generator, drawn the same
    way (one ``randn`` over all parameters in order), so ``IVON(seed=s)`` reproduces ivon-opt run after
    ``torch.manual_seed(s)`` (``tests/learncore/bayes/test_ivon_parity.py``: the iterates agree to
    rounding, with ``"price"`` and ``"gradsq"``); ``hess_approx`` is called ``hessian`` and takes two
    more estimators; ``lr`` and ``ess`` are keyword-only; ``clip_radius=None`` means no clipping
    (ivon-opt: ``inf``); there is no ``sync`` (distributed averaging of ``ghat`` and ``hhat``); the
    optimizer's ``state_dict`` holds the generator's state, so a resumed run continues the same draws.

    Parameters
    ----------
    params : iterable
        The parameters (``model.parameters()``) or parameter groups (dicts, which may override ``lr``,
        ``ess``, ``hess_init``, ``weight_decay``, ``beta1``, ``beta2`` and ``clip_radius``).
    lr : float
        The learning rate (see ``rescale_lr``).
    ess : float
        The effective sample size lambda, usually the number of training examples; larger values give
        a narrower posterior (``sigma^2 = 1 / (ess (h + weight_decay))``).
    hess_init : float
        The initial curvature h0 (> 0), which sets the initial posterior variance.
    beta1 : float
        The momentum of the gradient, in [0, 1).
    beta2 : float
        The momentum of the curvature, in [0, 1); close to 1 (the default 0.99999 is the paper's).
    weight_decay : float
        The prior precision per example delta (>= 0): the prior is ``N(0, I / (ess weight_decay))``.
    mc_samples : int
        Posterior samples per step drawn by ``step(closure)``.
    clip_radius : float, optional
        Clip the preconditioned update ``(gbar + delta m) / (h + delta)`` element-wise to this radius
        (the paper's xi); None (default) does not clip.
    hessian : {"price", "gradsq", "hutchinson", "backprop"} or CurvatureEstimator
        The curvature estimate ``hhat``, see above.
    seed : None, int, torch.Generator, numpy.random.Generator
        The random stream of the posterior samples (and of Hutchinson's probes); the same seed gives
        the same iterates.
    debias : bool
        Divide the momentum by ``1 - beta1^t`` (Algorithm 1).
    rescale_lr : bool
        Multiply the learning rate by ``hess_init + weight_decay`` (Algorithm 1's optional step).

    References
    ----------
    Shen, Y., Daheim, N., Cong, B., Nickl, P., Marconi, G. M., Bazan, C., Yokota, R., Gurevych, I.,
    Cremers, D., Khan, M. E. & Moellenhoff, T. (2024). Variational learning is effective for large
    deep networks. ICML, PMLR 235:44665-44686 (Algorithm 1 and Appendix A). Khan, M. E. & Rue, H.
    (2023). The Bayesian learning rule. JMLR 24(281). Lin, W., Schmidt, M. & Khan, M. E. (2020).
    Handling the positive-definite constraint in the Bayesian learning rule. ICML.

    Examples
    --------
    A small classifier, trained with one posterior sample per step, then Bayesian model averaging:

    >>> import torch
    >>> from learncore.bayes import IVON
    >>> gen = torch.Generator().manual_seed(0)
    >>> x = torch.randn(64, 2, generator=gen)
    >>> y = (x[:, 0] + x[:, 1] > 0).long()
    >>> torch.manual_seed(0)  # doctest: +ELLIPSIS
    <torch._C.Generator object at ...>
    >>> model = torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
    >>> opt = IVON(model.parameters(), lr=0.2, ess=64, beta2=0.999, seed=0)
    >>> for _ in range(150):
    ...     with opt.sampled_params(train=True):
    ...         opt.zero_grad()
    ...         torch.nn.functional.cross_entropy(model(x), y).backward()
    ...     opt.step()
    >>> prob = opt.predict(model, x, samples=20)
    >>> float((prob.argmax(1) == y).float().mean()) > 0.9
    True
    """

    def __init__(self, params, *, lr: float, ess: float, hess_init: float = 1.0, beta1: float = 0.9,
                 beta2: float = 0.99999, weight_decay: float = 1e-4, mc_samples: int = 1,
                 clip_radius: float | None = None, hessian: Any = "price", seed: Any = None,
                 debias: bool = True, rescale_lr: bool = True):
        if not isinstance(debias, bool):
            raise TypeError(f"debias must be True or False, got {debias!r}")
        if not isinstance(rescale_lr, bool):
            raise TypeError(f"rescale_lr must be True or False, got {rescale_lr!r}")
        self.debias = debias
        self.rescale_lr = rescale_lr
        self._setup(params, dict(lr=lr, ess=ess, hess_init=hess_init, weight_decay=weight_decay, beta1=beta1,
                                 beta2=beta2, clip_radius=clip_radius),
                    mc_samples=mc_samples, hessian=hessian, seed=seed)

    def _check_hyper(self, group: dict, defaults: dict | None) -> dict:
        group = super()._check_hyper(group, defaults)
        group["beta1"] = check_beta(group["beta1"], "beta1")
        group["beta2"] = check_beta(group["beta2"], "beta2")
        clip = group["clip_radius"]
        if clip is not None:
            if isinstance(clip, (int, float)) and not isinstance(clip, bool) and math.isinf(clip) and clip > 0:
                clip = None  # ivon-opt's spelling of "no clipping"
            else:
                clip = check_positive_real(clip, "clip_radius")
        group["clip_radius"] = clip
        return group

    #: the state held in flat buffers: the curvature and the momentum
    _flat_state = ("hess", "momentum")

    def _init_state(self, group: dict, p: torch.Tensor) -> None:
        super()._init_state(group, p)
        if "momentum" not in self.state[p]:
            self.state[p]["momentum"] = torch.zeros_like(p, memory_format=torch.preserve_format).detach()

    def _update_group(self, group: dict, buckets: list) -> None:
        # Algorithm 1's steps 2-5 on whole buffers, each operation that of the per-parameter formula
        # (the same rounding): g <- b1 g + (1 - b1) ghat; h <- b2 h + (1 - b2) hhat + c (h - hhat)^2 / (h + delta)
        # with c = (1 - b2)^2 / 2; m <- m - alpha clip((g / (1 - b1^t) + delta m) / (h + delta)).
        b1, b2, delta = group["beta1"], group["beta2"], group["weight_decay"]
        alpha = group["lr"] * (group["hess_init"] + delta) if self.rescale_lr else group["lr"]
        clip = group["clip_radius"]
        c = 0.5 * (1 - b2) ** 2
        for b in buckets:
            t = b.count_step()
            g, h, gh, hh, tmp, m = b.flat["momentum"], b.hess, b.acc_g, b.acc_h, b.tmp, b.mean
            sc = b.scalar
            d = sc(delta)
            g.mul_(sc(b1))
            if b.by_param:
                torch._foreach_add_(b.state_v["momentum"], b.acc_g_v, alpha=1 - b1)
            else:
                g.add_(gh, alpha=1 - b1)
            torch.sub(h, hh, out=gh).pow_(2).mul_(sc(c)).div_(torch.add(h, d, out=tmp))  # (gh is free now)
            h.mul_(sc(b2)).add_(hh.mul_(sc(1 - b2))).add_(gh)
            torch._foreach_copy_(b.mean_v, b.params)
            m.mul_(d)
            if self.debias:
                torch.div(g, 1 - b1 ** t, out=gh).add_(m)
            else:
                torch.add(g, m, out=gh)
            gh.div_(torch.add(h, d, out=tmp))
            if clip is not None:
                gh.clamp_(-clip, clip)
            torch._foreach_add_(b.params, b.acc_g_v, alpha=-alpha)
