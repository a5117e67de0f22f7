"""The curvature estimators of the Bayesian learning rule: one small class per estimate of the diagonal
curvature ``hhat`` at a posterior sample (:class:`CurvatureEstimator` and the built-in ones), and
:func:`make_curvature`, which turns ``hessian=...`` into one.
"""
from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable

import torch
from statcore.utils import check_choice, check_positive_int

__all__ = ["CurvatureEstimator", "CurvatureSample", "PriceCurvature", "GradSquareCurvature",
           "HutchinsonCurvature", "BackpropCurvature", "make_curvature", "HESSIANS"]

#: the named curvature estimators (``hessian=...``)
HESSIANS = ("price", "gradsq", "hutchinson", "backprop")


@dataclass(frozen=True)
class CurvatureSample:
    """One Monte Carlo sample ``theta = m + sigma * noise`` of the posterior, at which a
    :class:`CurvatureEstimator` estimates the diagonal curvature of the loss.

    Parameters
    ----------
    params : tuple of torch.Tensor
        The optimizer's parameters, holding the sample ``theta`` while the estimator runs.
    grads : tuple of torch.Tensor
        The gradient of the batch's loss at ``theta``, per parameter (with its autograd graph when
        the loss was differentiated with ``create_graph=True``).
    noise : tuple of torch.Tensor
        The standard normal draws ``epsilon``: ``theta = m + sigma * epsilon``.
    sigma : tuple of torch.Tensor
        The posterior standard deviations at which ``theta`` was drawn.
    ess : tuple of float
        The effective sample size of each parameter's group.
    batch : tuple or None
        ``(model, loss_fn, x, y)`` when the training loop gave one (needed by ``"backprop"``).
    generator : torch.Generator
        The optimizer's random stream (for estimators that draw probes).

    Examples
    --------
    >>> import torch
    >>> from learncore.bayes import CurvatureSample, PriceCurvature
    >>> s = CurvatureSample(params=(torch.zeros(2),), grads=(torch.tensor([1.0, -2.0]),),
    ...                     noise=(torch.tensor([0.5, 1.0]),), sigma=(torch.tensor([0.1, 0.1]),),
    ...                     ess=(10.0,), batch=None, generator=torch.Generator())
    >>> PriceCurvature().estimate(s)[0]
    tensor([  5., -20.])
    """

    params: tuple
    grads: tuple
    noise: tuple
    sigma: tuple
    ess: tuple
    batch: tuple | None
    generator: torch.Generator


class CurvatureEstimator:
    """The diagonal curvature estimate ``hhat`` of one posterior sample: subclass it and write one
    method, ``estimate(sample)``, returning one tensor per parameter (the shapes of ``sample.params``).

    The optimizers call ``estimate`` once per training sample, while the sample is in the model (so a
    method may run the model again), and average its output over the samples of a step. Built in:
    :class:`PriceCurvature` (``hessian="price"``), :class:`GradSquareCurvature` (``"gradsq"``),
    :class:`HutchinsonCurvature` (``"hutchinson"``), :class:`BackpropCurvature` (``"backprop"``).

    Examples
    --------
    A (poor) estimator that believes the curvature is 1 everywhere:

    >>> import torch
    >>> from learncore.bayes import IVON, CurvatureEstimator
    >>> class Flat(CurvatureEstimator):
    ...     name = "flat"
    ...     def estimate(self, sample):
    ...         return [torch.ones_like(p) for p in sample.params]
    >>> opt = IVON(torch.nn.Linear(2, 1).parameters(), lr=0.1, ess=10, hessian=Flat(), seed=0)
    >>> opt.curvature.name
    'flat'
    """

    #: a short name (the repr of an optimizer shows it)
    name = "custom"

    def estimate(self, sample: CurvatureSample) -> list:
        """The diagonal curvature estimate at ``sample``, one tensor per parameter."""
        raise NotImplementedError("a CurvatureEstimator subclass defines estimate(sample)")

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class PriceCurvature(CurvatureEstimator):
    """The reparameterisation (Price) estimate of IVON: ``hhat = ghat * (theta - m) / sigma^2``.

    By Stein's lemma ``E[g(theta) (theta - m) / sigma^2] = E[diag Hessian(theta)]`` for
    ``theta ~ N(m, diag(sigma^2))``, so it is unbiased for the expected diagonal Hessian of the loss
    (Price's theorem), at no cost beyond the gradient, and it can be negative (IVON's update keeps
    ``h`` positive).

    References
    ----------
    Shen et al. (2024), Variational learning is effective for large deep networks, ICML, Eq. (5).

    Examples
    --------
    >>> from learncore.bayes import PriceCurvature
    >>> PriceCurvature().name
    'price'
    """

    name = "price"

    def estimate(self, sample: CurvatureSample) -> list:
        return [g.detach() * e / s for g, e, s in zip(sample.grads, sample.noise, sample.sigma)]


class GradSquareCurvature(CurvatureEstimator):
    """The squared gradient, ``hhat = ess * ghat^2``, as ivon-opt's ``hess_approx="gradsq"``.

    When ``ghat`` is the mean gradient of ``B`` examples drawn independently, ``E[ghat^2] = gbar^2 +
    (F - gbar^2) / B`` with ``F`` the diagonal empirical Fisher (mean of squared per-example gradients)
    and ``gbar`` the data-mean gradient, so ``E[hhat] = (ess / B) (F - gbar^2) + ess gbar^2``: the
    empirical Fisher when the batch has ``ess`` examples and the data gradient vanishes, ``ess / B``
    times it otherwise. On the full batch (no resampling of examples) only the posterior sampling is
    random and ``E[hhat] = ess (gbar(m)^2 + diag(H Sigma H))`` for a quadratic loss with Hessian ``H``
    and posterior covariance ``Sigma``: neither the Fisher nor the Hessian. The
    empirical Fisher is not the Hessian: it is never negative, and it equals the expected Hessian
    only for a well-specified likelihood at the true parameter (for a Gaussian likelihood with
    assumed noise variance ``s^2`` and true residual variance ``v`` it is ``v / s^2`` times the
    Hessian). The scale ``ess`` is ivon-opt's (measured on ivon-opt 0.1.3), kept so that runs switch.

    References
    ----------
    Khan et al. (2018), Fast and scalable Bayesian deep learning by weight-perturbation in Adam, ICML
    (the squared-gradient variant); Kunstner, Hennig & Balles (2019), Limitations of the empirical
    Fisher approximation for natural gradient descent, NeurIPS.

    Examples
    --------
    >>> from learncore.bayes import GradSquareCurvature
    >>> GradSquareCurvature().name
    'gradsq'
    """

    name = "gradsq"

    def estimate(self, sample: CurvatureSample) -> list:
        return [ess * g.detach() ** 2 for g, ess in zip(sample.grads, sample.ess)]


def _rademacher(p: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    z = torch.randint(0, 2, p.shape, generator=generator, device=p.device)
    return z.to(p.dtype).mul_(2).sub_(1)


class HutchinsonCurvature(CurvatureEstimator):
    """Hutchinson's diagonal estimate ``hhat = z * (H z)`` with Rademacher probes ``z``, by
    Hessian-vector products at the posterior sample (unbiased for the diagonal Hessian; its variance
    is the sum of the squared off-diagonal Hessian entries of each row).

    The Hessian-vector product needs the gradient's graph: call ``loss.backward(create_graph=True)``
    inside ``sampled_params(train=True)``, or give the batch (``sampled_params(train=True,
    batch=(model, loss_fn, x, y))`` or ``step(closure, batch=...)``), from which it differentiates
    ``loss_fn(model(x), y)`` twice.

    Parameters
    ----------
    n_probes : int
        Rademacher probes per posterior sample (their estimates are averaged).

    References
    ----------
    Hutchinson (1990), A stochastic estimator of the trace of the influence matrix for Laplacian
    smoothing splines; Bekas, Kokiopoulou & Saad (2007), An estimator for the diagonal of a matrix.

    Examples
    --------
    >>> from learncore.bayes import HutchinsonCurvature
    >>> HutchinsonCurvature(n_probes=2)
    HutchinsonCurvature(n_probes=2)
    """

    name = "hutchinson"

    def __init__(self, n_probes: int = 1):
        self.n_probes = check_positive_int(n_probes, "n_probes")

    def __repr__(self) -> str:
        return f"HutchinsonCurvature(n_probes={self.n_probes})"

    def estimate(self, sample: CurvatureSample) -> list:
        params = list(sample.params)
        grads = list(sample.grads)
        if not any(g.requires_grad for g in grads):
            if sample.batch is None:
                raise RuntimeError("hessian='hutchinson' needs Hessian-vector products: call "
                                   "loss.backward(create_graph=True) inside sampled_params(train=True), or "
                                   "pass batch=(model, loss_fn, x, y) to sampled_params or step")
            model, loss_fn, x, y = sample.batch
            with torch.enable_grad():
                loss = loss_fn(model(x), y)
                grads = list(torch.autograd.grad(loss, params, create_graph=True, allow_unused=True))
            grads = [torch.zeros_like(p) if g is None else g for g, p in zip(grads, params)]
        live = [i for i, g in enumerate(grads) if g.requires_grad]
        out = [torch.zeros_like(p) for p in params]
        for _ in range(self.n_probes):
            z = [_rademacher(p, sample.generator) for p in params]
            if live:
                hz = torch.autograd.grad([grads[i] for i in live], params, grad_outputs=[z[i] for i in live],
                                         retain_graph=True, allow_unused=True)
                for i, v in enumerate(hz):
                    if v is not None:
                        out[i].add_(z[i] * v.detach())
        return [o / self.n_probes for o in out]


@functools.lru_cache(maxsize=1)
def _layerwise_curvature() -> Callable:
    try:
        from .curvature import layerwise_curvature
    except ImportError as exc:  # pragma: no cover (curvature.py ships with learncore.bayes)
        raise RuntimeError("hessian='backprop' needs learncore.bayes.layerwise_curvature, which did not "
                           f"import ({exc}); pass BackpropCurvature(curvature_fn=...) instead") from exc
    return layerwise_curvature


class BackpropCurvature(CurvatureEstimator):
    """The diagonal curvature by Hessian backpropagation through the layers
    (:func:`learncore.bayes.layerwise_curvature`), at each posterior sample.

    It needs the batch: ``sampled_params(train=True, batch=(model, loss_fn, x, y))`` in the ivon-opt
    loop, or ``step(closure, batch=(model, loss_fn, x, y))``; it calls
    ``curvature_fn(model, loss_fn, x, y)`` while the sample is in the model. ``loss_fn`` must be the
    loss whose gradient the sample's ``backward`` produced (the same reduction: a mean over the batch).

    Parameters
    ----------
    curvature_fn : callable, optional
        ``curvature_fn(model, loss_fn, x, y)`` -> the diagonal curvature, one tensor per parameter of
        ``model`` (a list in the order of ``model.parameters()``, or a dict by parameter name). Default:
        ``layerwise_curvature(model, loss_fn, x, y, kind=kind)``.
    kind : {"diag_hessian", "diag_ggn"}
        The default curvature: the diagonal Hessian (what the Price estimate targets) or the diagonal
        generalised Gauss-Newton matrix (never negative). Ignored with ``curvature_fn``.

    References
    ----------
    Becker & LeCun (1989), Improving the convergence of back-propagation learning with second order
    methods; Dangel, Kunstner & Hennig (2020), BackPACK: packing more into backprop, ICLR.

    Examples
    --------
    >>> from learncore.bayes import BackpropCurvature
    >>> BackpropCurvature(kind="diag_ggn")
    BackpropCurvature(kind='diag_ggn')
    """

    name = "backprop"

    def __init__(self, curvature_fn: Callable | None = None, kind: str = "diag_hessian"):
        if curvature_fn is not None and not callable(curvature_fn):
            raise TypeError(f"curvature_fn must be callable (model, loss_fn, x, y), got {type(curvature_fn).__name__}")
        self.curvature_fn = curvature_fn
        self.kind = check_choice(kind, "kind", ("diag_hessian", "diag_ggn"))

    def __repr__(self) -> str:
        if self.curvature_fn is not None:
            return f"BackpropCurvature(curvature_fn={getattr(self.curvature_fn, '__name__', self.curvature_fn)!s})"
        return f"BackpropCurvature(kind={self.kind!r})"

    def estimate(self, sample: CurvatureSample) -> list:
        if sample.batch is None:
            raise RuntimeError("hessian='backprop' needs the batch: use sampled_params(train=True, "
                               "batch=(model, loss_fn, x, y)) or step(closure, batch=(model, loss_fn, x, y))")
        model, loss_fn, x, y = sample.batch
        fn = self.curvature_fn or functools.partial(_layerwise_curvature(), kind=self.kind)
        curv = fn(model, loss_fn, x, y)
        if isinstance(curv, Mapping):
            named = dict(model.named_parameters())
            unknown = sorted(set(curv) - set(named))
            if unknown:
                raise ValueError(f"curvature_fn returned curvature for {unknown}, which are not parameters of model")
            by_id = {id(named[k]): v for k, v in curv.items()}
        else:
            curv = list(curv)
            mparams = list(model.parameters())
            if len(curv) != len(mparams):
                raise ValueError(f"curvature_fn returned {len(curv)} tensors for the {len(mparams)} parameters "
                                 "of model")
            by_id = {id(p): c for p, c in zip(mparams, curv)}
        out = []
        for p in sample.params:
            c = by_id.get(id(p))
            if c is None:
                raise ValueError(f"curvature_fn gave no curvature for a parameter of shape {tuple(p.shape)}: "
                                 "every parameter of the optimizer must belong to the batch's model")
            c = torch.as_tensor(c).detach()
            if c.shape != p.shape:
                raise ValueError(f"curvature_fn returned shape {tuple(c.shape)} for a parameter of shape "
                                 f"{tuple(p.shape)}")
            out.append(c.to(dtype=p.dtype, device=p.device))
        return out


def make_curvature(hessian: Any) -> CurvatureEstimator:
    """``hessian``: a name of :data:`HESSIANS` or a :class:`CurvatureEstimator`."""
    if isinstance(hessian, CurvatureEstimator):
        return hessian
    if isinstance(hessian, type) and issubclass(hessian, CurvatureEstimator):
        raise TypeError(f"hessian must be a CurvatureEstimator instance; got the class {hessian.__name__} "
                        f"(write {hessian.__name__}())")
    hessian = check_choice(hessian, "hessian", HESSIANS)
    return {"price": PriceCurvature, "gradsq": GradSquareCurvature, "hutchinson": HutchinsonCurvature,
            "backprop": BackpropCurvature}[hessian]()
