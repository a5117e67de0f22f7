"""The HProbZ predictive distribution and its Gaussian-mixture baseline (same interface).

``HProbZ``: a T-step outcome y = mu_b + G_b u + s_b * eps, with a mode b among n_modes (probabilities
softmax(logits)), bounded generators u in [-1, 1]^m shared by the T steps, and eps ~ N(0, I_T).
``GaussianMixture``: y = mu_b + sigma_b * eps (a diagonal Gaussian per mode). Both are mixtures over
modes of per-step components, so they share the methods of :class:`_TrajectoryMixture`: ``log_prob``,
``sample``, ``mean``, ``variance``, ``covariance``, ``marginal``, ``condition``, ``mode_risk``,
``conformity_scores`` and ``conformal_sets``.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import torch

from . import _special as S
from ._checks import as_param, as_steps, as_values, check_choice, check_positive_int, torch_generator

__all__ = ["HProbZ", "GaussianMixture"]


def _broadcast_batch(params: dict, event_dims: dict) -> tuple[dict, torch.Size]:
    """Expand every parameter to one common batch shape (views, autograd intact)."""
    shapes = []
    for k, v in params.items():
        nd = event_dims[k]
        shapes.append(v.shape[:v.dim() - nd])
    try:
        batch = torch.broadcast_shapes(*shapes)
    except RuntimeError:
        desc = ", ".join(f"{k} {tuple(v.shape)}" for k, v in params.items())
        raise ValueError(f"the parameters' batch dimensions do not broadcast: {desc}") from None
    out = {k: v.expand(*batch, *v.shape[v.dim() - event_dims[k]:]) for k, v in params.items()}
    return out, batch


class _TrajectoryMixture:
    """A mixture over ``n_modes`` of T-step components with batch dimensions in front.

    Subclasses hold their parameters as tensors of shape ``(*batch, n_modes, ...)`` and implement
    ``component_log_prob``, ``component_mean``, ``component_covariance``, ``_sample_components``,
    ``_select_steps``, ``_condition_components``, ``_component_exceedance``, ``_support`` and
    ``_per_step``.
    """

    _params: tuple = ()
    logits: torch.Tensor

    # -- shape ------------------------------------------------------------------------------
    @property
    def batch_shape(self) -> torch.Size:
        """The batch dimensions (one distribution per element)."""
        return self._batch

    @property
    def event_shape(self) -> torch.Size:
        """``(T,)``: one outcome per step."""
        return torch.Size([self.T])

    @property
    def n_modes(self) -> int:
        """The number of modes."""
        return int(self.logits.shape[-1])

    @property
    def dtype(self) -> torch.dtype:
        """The floating dtype of the parameters."""
        return self.logits.dtype

    @property
    def mode_probs(self) -> torch.Tensor:
        """The mode probabilities softmax(logits), shape ``(*batch, n_modes)``."""
        return torch.softmax(self.logits, dim=-1)

    def _replace(self, **changes):
        kw = {k: getattr(self, k) for k in self._params}
        kw.update(changes)
        kw.update(self._options())
        return type(self)(**kw)

    def _options(self) -> dict:
        return {}

    def detach(self):
        """The same distribution with every parameter detached from the autograd graph.

        Returns
        -------
        HProbZ or GaussianMixture
        """
        return self._replace(**{k: getattr(self, k).detach() for k in self._params})

    def __getitem__(self, idx):
        """Index the batch dimensions (``dist[i]``, ``dist[2:5]``): a distribution of the selected elements."""
        if not isinstance(idx, tuple):
            idx = (idx,)
        nb = len(self._batch)
        if len(idx) > nb or any(i is Ellipsis or i is None for i in idx):
            raise IndexError(f"index the {nb} batch dimension(s) of the distribution with ints or slices")
        kw = {}
        for k in self._params:
            kw[k] = getattr(self, k)[idx]
        kw.update(self._options())
        return type(self)(**kw)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(batch_shape={tuple(self._batch)}, T={self.T}, n_modes={self.n_modes}"
                f"{self._repr_extra()}, dtype={str(self.dtype).replace('torch.', '')})")

    def _repr_extra(self) -> str:
        return ""

    # -- densities ----------------------------------------------------------------------------
    def _as_y(self, y: Any, name: str = "y") -> torch.Tensor:
        y = as_values(y, name, self.dtype)
        if y.shape[-1] != self.T:
            raise ValueError(f"{name} must have T = {self.T} values in its last dimension, got shape {tuple(y.shape)}")
        return y

    def log_prob(self, y) -> torch.Tensor:
        """The log density of outcomes y (shape ``(..., T)``, broadcast against the batch).

        Parameters
        ----------
        y : tensor or array_like, shape (..., T)
            Outcomes.

        Returns
        -------
        torch.Tensor
            log p(y), shape: the broadcast of ``y.shape[:-1]`` and the batch shape.
        """
        y = self._as_y(y)
        return torch.logsumexp(torch.log_softmax(self.logits, dim=-1) + self.component_log_prob(y), dim=-1)

    def mode_posterior(self, y) -> torch.Tensor:
        """The posterior mode probabilities given full outcomes y, shape ``(..., n_modes)``.

        Parameters
        ----------
        y : tensor or array_like, shape (..., T)
            Outcomes.

        Returns
        -------
        torch.Tensor
        """
        y = self._as_y(y)
        return torch.softmax(torch.log_softmax(self.logits, dim=-1) + self.component_log_prob(y), dim=-1)

    # -- moments ------------------------------------------------------------------------------
    def mean(self) -> torch.Tensor:
        """The mean of y, shape ``(*batch, T)``."""
        return (self.mode_probs.unsqueeze(-1) * self.component_mean()).sum(-2)

    def variance(self) -> torch.Tensor:
        """The variance of each step, shape ``(*batch, T)`` (the diagonal of :meth:`covariance`)."""
        p = self.mode_probs.unsqueeze(-1)
        mb = self.component_mean()
        vb = self.component_variance()
        mean = (p * mb).sum(-2)
        return (p * (vb + mb * mb)).sum(-2) - mean * mean

    def covariance(self) -> torch.Tensor:
        """The T x T covariance of y, shape ``(*batch, T, T)``."""
        p = self.mode_probs[..., None, None]
        mb = self.component_mean()
        cb = self.component_covariance()
        mean = self.mean()
        second = (p * (cb + mb.unsqueeze(-1) * mb.unsqueeze(-2))).sum(-3)
        return second - mean.unsqueeze(-1) * mean.unsqueeze(-2)

    def component_variance(self) -> torch.Tensor:
        """Per-mode variances of each step, shape ``(*batch, n_modes, T)``."""
        return torch.diagonal(self.component_covariance(), dim1=-2, dim2=-1)

    # -- sampling -----------------------------------------------------------------------------
    def sample_joint(self, sample_shape=(), *, seed=None):
        """Draw outcomes together with their modes.

        Parameters
        ----------
        sample_shape : tuple of int
            Leading dimensions of the draws.
        seed : None, int, numpy Generator or SeedSequence
            statcore's seed convention.

        Returns
        -------
        tuple
            ``(y, modes)``: outcomes of shape ``(*sample_shape, *batch, T)`` and the mode of each draw
            (integers, shape ``(*sample_shape, *batch)``).
        """
        sample_shape = torch.Size(sample_shape)
        gen = torch_generator(seed)
        shape = sample_shape + self._batch
        with torch.no_grad():
            unif = torch.rand(*shape, self.n_modes, generator=gen, dtype=self.dtype)
            gumbel = -torch.log(-torch.log(unif.clamp_min(torch.finfo(self.dtype).tiny)))
            modes = torch.argmax(self.logits.expand(*shape, self.n_modes) + gumbel, dim=-1)
            y = self._sample_components(modes, shape, gen)
        return y, modes

    def sample(self, sample_shape=(), *, seed=None) -> torch.Tensor:
        """Draw outcomes (no gradient).

        Parameters
        ----------
        sample_shape : tuple of int
            Leading dimensions of the draws.
        seed : None, int, numpy Generator or SeedSequence
            statcore's seed convention.

        Returns
        -------
        torch.Tensor
            Shape ``(*sample_shape, *batch, T)``.
        """
        return self.sample_joint(sample_shape, seed=seed)[0]

    @staticmethod
    def _gather_mode(t: torch.Tensor, modes: torch.Tensor, shape: torch.Size, event_dims: int) -> torch.Tensor:
        """t (*batch, K, *event) -> (*shape, *event) at each draw's mode."""
        ev = t.shape[t.dim() - event_dims:]
        t = t.expand(*shape, t.shape[t.dim() - event_dims - 1], *ev)
        idx = modes.reshape(*shape, 1, *([1] * event_dims)).expand(*shape, 1, *ev)
        return torch.gather(t, len(shape), idx).squeeze(len(shape))

    # -- marginals and conditioning -------------------------------------------------------------
    def marginal(self, steps):
        """The distribution of the selected steps (the same kind, T = len(steps)).

        Parameters
        ----------
        steps : int or sequence of int
            Distinct step indices.

        Returns
        -------
        HProbZ or GaussianMixture
        """
        idx = as_steps(steps, self.T, "steps")
        return self._select_steps(torch.tensor(idx, dtype=torch.long))

    def condition(self, observed_steps, values):
        """The predictive of the remaining steps given the observed ones, in closed form.

        The mode weights become proportional to pi_b p_b(y_obs); for HProbZ the generators' distribution
        becomes the truncated normal posterior of u given y_obs (see :class:`HProbZ`).

        Parameters
        ----------
        observed_steps : int or sequence of int
            The observed steps (distinct; at least one step must remain).
        values : tensor or array_like, shape (..., len(observed_steps))
            The observed values, broadcast against the batch.

        Returns
        -------
        HProbZ or GaussianMixture
            The distribution of the remaining steps (in their original order), with batch shape the
            broadcast of ``values.shape[:-1]`` and the batch shape.
        """
        obs = as_steps(observed_steps, self.T, "observed_steps")
        rest = [t for t in range(self.T) if t not in obs]
        if not rest:
            raise ValueError(f"observed_steps covers all T = {self.T} steps; nothing is left to predict")
        v = as_values(values, "values", self.dtype)
        if v.shape[-1] != len(obs):
            raise ValueError(f"values must have one value per observed step ({len(obs)}) in its last dimension, "
                             f"got shape {tuple(v.shape)}")
        o = torch.tensor(obs, dtype=torch.long)
        r = torch.tensor(rest, dtype=torch.long)
        return self._condition_components(o, r, v)

    # -- risk -----------------------------------------------------------------------------------
    def mode_risk(self, threshold, **kwargs) -> torch.Tensor:
        """Per-mode probability that each step exceeds a threshold: P(y_t > threshold_t | mode b).

        Parameters
        ----------
        threshold : float or tensor or array_like, shape (T,) or (..., T)
            The threshold (one for all steps, or one per step; broadcast against the batch).
        **kwargs
            Options of the subclass (``n_nodes`` for HProbZ).

        Returns
        -------
        torch.Tensor
            Shape ``(*batch, n_modes, T)``. The marginal risk is ``(mode_probs[..., None] * risk).sum(-2)``.
        """
        if isinstance(threshold, torch.Tensor):
            thr = as_values(threshold.reshape(-1) if threshold.dim() == 0 else threshold, "threshold", self.dtype)
        else:
            if threshold is None or isinstance(threshold, (str, bytes)):
                raise TypeError(f"threshold must be a number or one number per step, got {type(threshold).__name__}")
            thr = as_values(np.atleast_1d(np.asarray(threshold)), "threshold", self.dtype)
        if thr.shape[-1] not in (1, self.T):
            raise ValueError(f"threshold must be one number or one per step (T = {self.T}), "
                             f"got shape {tuple(thr.shape)}")
        return self._component_exceedance(thr.unsqueeze(-2), **kwargs)

    # -- per-step densities and conformal sets ------------------------------------------------
    def step_log_density(self, y) -> torch.Tensor:
        """The log density of each step's marginal at y_t, shape ``(..., T)``.

        Parameters
        ----------
        y : tensor or array_like, shape (..., T)
            Outcomes.

        Returns
        -------
        torch.Tensor
        """
        y = self._as_y(y)
        return self._per_step().log_prob(y.unsqueeze(-1))

    def conformity_scores(self, y) -> np.ndarray:
        """Calibration scores of the per-step highest-density conformal sets: s_t = -p_t(y_t).

        ``p_t`` is the exact marginal density of step t (closed form for m = 1 and for a Gaussian
        mixture). Compute them on held-out calibration data and pass them to :meth:`conformal_sets`.

        Parameters
        ----------
        y : tensor or array_like, shape (n, T)
            Observed calibration outcomes, one row per element of this (batch of) distribution(s).

        Returns
        -------
        numpy.ndarray, shape (n, T)
            Minus the per-step densities (float64).
        """
        with torch.no_grad():
            return -torch.exp(self.step_log_density(y)).to(torch.float64).cpu().numpy()

    def support_range(self, *, width: float = 8.0) -> tuple[np.ndarray, np.ndarray]:
        """Per-step interval [lo_t, hi_t] holding every element's and mode's bulk (all but
        Phi(-width) of each component's mass), over the whole batch.

        Parameters
        ----------
        width : float
            Gaussian tail width, in noise standard deviations.

        Returns
        -------
        tuple of numpy.ndarray
            ``(lo, hi)``, each of shape (T,).
        """
        with torch.no_grad():
            lo, hi = self._support(width)
            red = tuple(range(lo.dim() - 1))
            lo = lo.amin(dim=red) if red else lo
            hi = hi.amax(dim=red) if red else hi
        return lo.to(torch.float64).numpy(), hi.to(torch.float64).numpy()

    def conformal_sets(self, calibration, *, alpha, steps=None, grid=None, n_grid: int = 2001):
        """Split-conformal highest-density sets per step, distribution-free: {y : p_t(y) >= -q_t}.

        For each step t, q_t = ``statcore.conformal_quantile(calibration[:, t], alpha=alpha)`` (the
        ceil((n+1)(1-alpha))-th smallest calibration score) and the set of each element is
        ``statcore.conformal_set(p_t on the grid, grid, q_t)``: a union of intervals, so a multimodal
        predictive gives several. Coverage P(y_t in set_t) is in [1 - alpha, 1 - alpha + 1/(n+1)) for
        exchangeable calibration and test data, whatever the model. The scores are exact densities;
        the sets are the density's level sets read from its linear interpolant on the grid.

        Parameters
        ----------
        calibration : array_like, shape (n, T)
            Calibration scores, :meth:`conformity_scores` of the calibration predictives at their
            outcomes (a vector when T = 1).
        alpha : float
            The miscoverage, in (0, 1). Needs n >= ceil(1/alpha) - 1 calibration rows.
        steps : int or sequence of int, optional
            The steps to build sets for (default: all).
        grid : array_like, optional
            The grid (shape (n_grid,) for all steps, or (len(steps), n_grid)); default: ``n_grid``
            equally spaced points over :meth:`support_range` of this batch, per step.
        n_grid : int
            Grid points when ``grid`` is None.

        Returns
        -------
        TrajectorySets
            The intervals of every element and step, their lengths, q per step, ``contains(y)``.
        """
        from statcore.conformal import conformal_quantile, conformal_set

        from .sets import TrajectorySets

        cal = np.asarray(calibration.detach().cpu().numpy() if isinstance(calibration, torch.Tensor) else calibration)
        if cal.dtype.kind not in "fiu" or cal.dtype.kind == "b":
            raise TypeError(f"calibration must be a matrix of scores (numbers), got {cal.dtype}")
        cal = np.array(cal, dtype=np.float64)
        if cal.ndim == 1 and self.T == 1:
            cal = cal[:, None]
        if cal.ndim != 2 or cal.shape[1] != self.T:
            raise ValueError(f"calibration must hold one score per step (T = {self.T} columns), got shape {cal.shape}")
        if not np.isfinite(cal).all():
            raise ValueError(f"calibration has {int((~np.isfinite(cal)).sum())} non-finite score(s)")
        idx = list(range(self.T)) if steps is None else as_steps(steps, self.T, "steps")
        q = np.array([conformal_quantile(cal[:, t], alpha=alpha) for t in idx])
        n_grid = check_positive_int(n_grid, "n_grid", minimum=2)
        if grid is None:
            lo, hi = self.support_range()
            grids = [np.linspace(lo[t], hi[t], n_grid) for t in idx]
        else:
            g = np.asarray(grid, dtype=np.float64)
            if g.ndim == 1:
                grids = [g] * len(idx)
            elif g.ndim == 2 and g.shape[0] == len(idx):
                grids = list(g)
            else:
                raise ValueError(f"grid must be one grid (n_grid,) or one per step ({len(idx)}, n_grid), got {g.shape}")
        flat = self._flatten()
        per_step = flat._per_step()               # batch (n, T), event 1
        sets = []
        n_el = per_step.batch_shape[0]
        rows = max(1, (1 << 20) // (len(grids[0]) * self.n_modes))     # bounded memory: ~1e6 evaluations at a time
        with torch.no_grad():
            for k, t in enumerate(idx):
                gt = torch.as_tensor(grids[k], dtype=self.dtype).reshape(-1, 1, 1)
                dist_t = per_step[:, t]
                dens = torch.cat([torch.exp(dist_t[i:i + rows].log_prob(gt)) for i in range(0, n_el, rows)], 1)
                sets.append(conformal_set(dens.transpose(0, 1).to(torch.float64).numpy(), grids[k], threshold=q[k]))
        return TrajectorySets.from_sets(sets, steps=tuple(idx), threshold=q, alpha=float(alpha),
                                        n_calibration=cal.shape[0], T=self.T)

    def _flatten(self):
        """The batch flattened to one dimension."""
        n = int(np.prod(self._batch)) if len(self._batch) else 1
        kw = {}
        for k in self._params:
            v = getattr(self, k)
            ev = v.shape[len(self._batch):]
            kw[k] = v.reshape(n, *ev)
        kw.update(self._options())
        return type(self)(**kw)

    # -- affine maps ----------------------------------------------------------------------------
    def affine(self, loc, scale):
        """The distribution of loc + scale * y (per step; scale > 0), e.g. back from standardised units.

        Parameters
        ----------
        loc, scale : tensor or array_like, shape (T,) or broadcastable
            Per-step shift and positive scale.

        Returns
        -------
        HProbZ or GaussianMixture
        """
        loc = as_param(loc, "loc", dtype=self.dtype)
        scale = as_param(scale, "scale", dtype=self.dtype)
        if bool((scale <= 0).any()):
            raise ValueError("scale must be positive")
        return self._affine(loc, scale)


# ==============================================================================================
# HProbZ
# ==============================================================================================

METHODS = ("auto", "exact", "genz")


class HProbZ(_TrajectoryMixture):
    """Hybrid probabilistic zonotope: y = mu_b + G_b u + s_b * eps over T steps.

    The mode b is drawn with probabilities softmax(logits); the m bounded generators u in [-1, 1]^m
    are shared by the T steps (so one observed step informs all the others); eps ~ N(0, I_T). A
    network's HProbZ has independent uniform generators; after :meth:`condition` each generator is a
    normal truncated to [-1, 1], exp(-u_prec u^2 / 2 + u_shift u) on [-1, 1] (``u_prec = 0``: uniform),
    so the family is closed under conditioning. Mode b's density is, with z = (y - mu_b) / s_b,
    V = G_b / s_b (rows scaled), P = diag(u_prec) + V^T V and u* = P^{-1} (u_shift + V^T z),

        log p_b(y) = -T/2 log(2 pi) - sum log s_b - ``|z - V u*|^2`` / 2 - sum_j u_prec_j (u*_j - c_j)^2 / 2
                     + log int_box exp(-(u - u*)^T P (u - u*) / 2) du - log Z_prior,

    (c = u_shift / u_prec, Z_prior the prior's normaliser), completing the square in u.

    Which log densities are exact (``method``):

    - ``"exact"``: P diagonal, i.e. m = 1 (any G) or generators orthogonal in the noise metric
      (G^T diag(s^-2) G diagonal: diagonal G, orthogonal G with isotropic noise, ...). The box integral
      is then a product of one-dimensional Gaussian-uniform convolutions, each a difference of normal
      CDFs times a Gaussian factor, computed in log space (``log_ndtr``, a stable log-diff-exp, and a
      Taylor form near the uniform limit so g -> 0 and s -> 0 are both finite). Refused otherwise.
    - ``"genz"``: any m: the box probability of N(u*, P^-1) by Genz's (1992) separation of variables
      on ``n_points`` fixed scrambled Sobol points, variables ordered most constrained first
      (deterministic and differentiable; its error is the quasi-Monte Carlo error: log densities
      within 2e-3 of two-dimensional quadrature in the tests, a density integrating to 1 within 6e-5
      with 128 points); P gets a ridge of 1e3 machine epsilons times its mean diagonal so a zero
      generator stays finite.
    - ``"auto"`` (default): "exact" when P is diagonal (relative off-diagonal below 1e-10 in float64,
      1e-5 in float32), else "genz".

    Parameters
    ----------
    logits : tensor, shape (..., n_modes)
        Mode log-probabilities (unnormalised).
    mu : tensor, shape (..., n_modes, T)
        Centre of each mode.
    G : tensor, shape (..., n_modes, T, m)
        Generators of each mode (pass ``G[..., None, :, :]`` for generators shared by the modes).
    s : tensor, shape (..., n_modes, T)
        Noise standard deviations, positive (``s[..., None, :]`` for noise shared by the modes).
    u_prec, u_shift : tensor, shape (..., n_modes, m), optional
        The generators' truncated-normal natural parameters (default 0: uniform on [-1, 1]).
    method : {"auto", "exact", "genz"}
        How the box integral is computed (see above).
    n_points : int
        Quasi-Monte Carlo points of the "genz" route.

    References
    ----------
    HProbZ (Hybrid Probabilistic Zonotopes), NeurIPS 2026, built from the issue's description (no
    public code). Genz, A. (1992). Numerical computation of multivariate normal probabilities.
    *J. Comput. Graph. Stat.* 1, 141-149. Bishop, C. M. (1994). Mixture density networks (the
    baseline, :class:`GaussianMixture`).

    Examples
    --------
    >>> import torch
    >>> from learncore.hprobz import HProbZ
    >>> d = HProbZ(torch.zeros(2), torch.tensor([[-2.0, -4.0], [2.0, 4.0]]),
    ...            torch.tensor([[[0.5], [1.0]], [[0.5], [1.0]]]), torch.full((2, 2), 0.2))
    >>> d
    HProbZ(batch_shape=(), T=2, n_modes=2, m=1, method='auto', dtype=float32)
    >>> round(float(d.log_prob(torch.tensor([2.0, 4.0]))), 4)
    -0.8074
    >>> post = d.condition([0], torch.tensor([2.4]))     # step 0 seen: mode 2, u near 0.8
    >>> [round(float(v), 3) for v in post.mode_probs], round(float(post.mean()[0]), 3)
    ([0.0, 1.0], 4.596)
    """

    _params = ("logits", "mu", "G", "s", "u_prec", "u_shift")

    def __init__(self, logits, mu, G, s, *, u_prec=None, u_shift=None, method: str = "auto", n_points: int = 256):
        mu = as_param(mu, "mu", min_dim=2)
        dt = mu.dtype
        logits = as_param(logits, "logits", dtype=dt)
        G = as_param(G, "G", dtype=dt, min_dim=3)
        s = as_param(s, "s", dtype=dt, min_dim=2)
        K, T, m = mu.shape[-2], mu.shape[-1], G.shape[-1]
        if m < 1:
            raise ValueError("G must have at least one generator (last dimension m >= 1); "
                             "use GaussianMixture for m = 0")
        if logits.shape[-1] != K:
            raise ValueError(f"logits must have n_modes = {K} entries in its last dimension (mu is {tuple(mu.shape)}), "
                             f"got shape {tuple(logits.shape)}")
        if G.shape[-3:-1] != (K, T) and G.shape[-3:-1] != (1, T):
            raise ValueError(f"G must have shape (..., n_modes, T, m) = (..., {K}, {T}, m), got {tuple(G.shape)}")
        if s.shape[-1] != T or s.shape[-2] not in (1, K):
            raise ValueError(f"s must have shape (..., n_modes, T) = (..., {K}, {T}) (or (..., 1, T) for noise shared "
                             f"by the modes), got {tuple(s.shape)}")
        if bool((s <= 0).any()):
            raise ValueError("s must be positive (noise standard deviations)")
        zeros = torch.zeros(1, m, dtype=dt)
        self._uniform = u_prec is None and u_shift is None
        u_prec = zeros if u_prec is None else as_param(u_prec, "u_prec", dtype=dt, min_dim=2)
        u_shift = zeros if u_shift is None else as_param(u_shift, "u_shift", dtype=dt, min_dim=2)
        for name, v in (("u_prec", u_prec), ("u_shift", u_shift)):
            if v.shape[-1] != m or v.shape[-2] not in (1, K):
                raise ValueError(f"{name} must have shape (..., n_modes, m) = (..., {K}, {m}), got {tuple(v.shape)}")
        if bool((u_prec < 0).any()):
            raise ValueError("u_prec must be non-negative (a precision)")
        if not self._uniform:            # the uniform prior's shortcuts apply when u_prec = u_shift = 0 (and are
            self._uniform = (not (u_prec.requires_grad or u_shift.requires_grad)    # not being differentiated)
                             and bool((u_prec == 0).all()) and bool((u_shift == 0).all()))
        G = G.expand(*G.shape[:-3], K, T, m)
        s = s.expand(*s.shape[:-2], K, T)
        u_prec = u_prec.expand(*u_prec.shape[:-2], K, m)
        u_shift = u_shift.expand(*u_shift.shape[:-2], K, m)
        p, batch = _broadcast_batch(dict(logits=logits, mu=mu, G=G, s=s, u_prec=u_prec, u_shift=u_shift),
                                    dict(logits=1, mu=2, G=3, s=2, u_prec=2, u_shift=2))
        self.logits, self.mu, self.G, self.s = p["logits"], p["mu"], p["G"], p["s"]
        self.u_prec, self.u_shift = p["u_prec"], p["u_shift"]
        self._batch = batch
        self.T, self.m = int(T), int(m)
        self.method = check_choice(method, "method", METHODS)
        self.n_points = check_positive_int(n_points, "n_points")

    def _options(self) -> dict:
        return dict(method=self.method, n_points=self.n_points)

    def _repr_extra(self) -> str:
        return f", m={self.m}, method={self.method!r}"

    # -- the box integral -------------------------------------------------------------------------
    def _is_diagonal(self, P: torch.Tensor) -> bool:
        if self.m == 1:
            return True
        with torch.no_grad():
            d = torch.diagonal(P, dim1=-2, dim2=-1)
            scale = torch.sqrt(d.unsqueeze(-1) * d.unsqueeze(-2))
            off = P - torch.diag_embed(d)
            tol = 1e-10 if P.dtype == torch.float64 else 1e-5
            return bool((off.abs() <= tol * scale).all())

    def _route(self, P: torch.Tensor) -> str:
        if self.method == "genz":
            return "genz"
        diag = self._is_diagonal(P)
        if self.method == "exact" and not diag:
            raise ValueError(
                "method='exact' needs generators orthogonal in the noise metric: G^T diag(s^-2) G (plus the "
                "generators' precision) must be diagonal for every mode and element, as for m = 1, diagonal G, or "
                "orthogonal G with isotropic noise. Use method='genz' (or 'auto') for general generators.")
        return "exact" if diag else "genz"

    def _prior_terms(self):
        r, m0 = S.natural_to_rm(self.u_prec, self.u_shift)
        return r, m0, S.log_box_gauss(r, m0).sum(-1)

    def component_log_prob(self, y) -> torch.Tensor:
        """Per-mode log densities log p_b(y), shape ``(..., n_modes)``.

        Parameters
        ----------
        y : tensor, shape (..., T)
            Outcomes.

        Returns
        -------
        torch.Tensor
        """
        y = self._as_y(y)
        m = self.m
        uniform = self._uniform
        if self.T == 1 and m == 1 and uniform:
            return self._one_step_log_prob(y)
        z = (y.unsqueeze(-2) - self.mu) / self.s                     # (..., K, T)
        V = self.G / self.s.unsqueeze(-1)                            # (..., K, T, m)
        Vtz = (V * z.unsqueeze(-1)).sum(-2)                          # (..., K, m)
        l = Vtz if uniform else self.u_shift + Vtz
        if m == 1:
            Pd = (V * V).sum(-2) if uniform else self.u_prec + (V * V).sum(-2)
            route, P = "exact", None
        else:
            P = torch.einsum("...tj,...tk->...jk", V, V)               # (*batch, K, m, m)
            if not uniform:
                P = P + torch.diag_embed(self.u_prec)
            route = self._route(P)
            Pd = torch.diagonal(P, dim1=-2, dim2=-1)
        if route == "exact":
            ustar = S.safe_div(l, Pd)
            rp = S.safe_sqrt(Pd)
            log_z_post = S.log_box_gauss(rp, S.safe_div(l, rp)).sum(-1)
        else:
            ridge = 1e3 * torch.finfo(P.dtype).eps * (Pd.mean(-1) + 1e-30)
            P = P + ridge[..., None, None] * torch.eye(m, dtype=P.dtype)
            C = torch.linalg.cholesky(P)
            ustar = torch.cholesky_solve(l.unsqueeze(-1), C.expand(*l.shape[:-1], m, m)).squeeze(-1)
            cov = torch.cholesky_inverse(C)
            logdet_half = torch.log(torch.diagonal(C, dim1=-2, dim2=-1)).sum(-1)
            log_z_post = (0.5 * m * S.LOG_2PI - logdet_half
                          + S.genz_log_box_prob(ustar, cov.expand(*ustar.shape, m), self.n_points))
        resid = z - (V * ustar.unsqueeze(-2)).sum(-1)
        quad = (resid * resid).sum(-1)
        if uniform:
            log_z_prior = m * S.LOG2
        else:
            r_pr, m0_pr, log_z_prior = self._prior_terms()
            quad = quad + ((r_pr * ustar - m0_pr) ** 2).sum(-1)
        log_norm = -0.5 * self.T * S.LOG_2PI - torch.log(self.s).sum(-1)
        return log_norm - 0.5 * quad + log_z_post - log_z_prior

    def _one_step_log_prob(self, y):
        """T = 1, m = 1, uniform u: p_b(y) = (Phi((y - mu + |g|) / s) - Phi((y - mu - |g|) / s)) / (2 |g|), read
        as the box integral in (r, m0) = (|g| / s, (y - mu) / s) (no cancellation when |g| << s; the Gaussian
        N(mu, s^2) at g = 0): the general route's value in fewer steps."""
        s = self.s[..., 0]
        z = (y.unsqueeze(-2)[..., 0] - self.mu[..., 0]) / s          # (..., K)
        r = self.G[..., 0, 0].abs() / s
        return S.log_box_gauss(r, z) - S.LOG2 - S.LOG_SQRT_2PI - torch.log(s)

    # -- moments ----------------------------------------------------------------------------------
    def _u_moments(self):
        r, m0 = S.natural_to_rm(self.u_prec, self.u_shift)
        return S.tn_moments(r, m0)

    def component_mean(self) -> torch.Tensor:
        """Per-mode means mu_b + G_b E[u], shape ``(*batch, n_modes, T)``."""
        eu, _ = self._u_moments()
        return self.mu + torch.einsum("...tj,...j->...t", self.G, eu)

    def component_covariance(self) -> torch.Tensor:
        """Per-mode covariances G_b Var(u) G_b^T + diag(s_b^2), shape ``(*batch, n_modes, T, T)``."""
        _, vu = self._u_moments()
        cov = torch.einsum("...tj,...j,...sj->...ts", self.G, vu, self.G)
        return cov + torch.diag_embed(self.s * self.s)

    def component_variance(self) -> torch.Tensor:
        """Per-mode variances of each step, shape ``(*batch, n_modes, T)``."""
        _, vu = self._u_moments()
        return torch.einsum("...tj,...j->...t", self.G * self.G, vu) + self.s * self.s

    # -- sampling ---------------------------------------------------------------------------------
    def _sample_components(self, modes, shape, gen):
        r, m0 = S.natural_to_rm(self.u_prec, self.u_shift)
        rb = self._gather_mode(r, modes, shape, 1)
        m0b = self._gather_mode(m0, modes, shape, 1)
        t = torch.rand(*shape, self.m, generator=gen, dtype=self.dtype)
        u = S.tn_u_quantile(rb, m0b, t)
        eps = torch.randn(*shape, self.T, generator=gen, dtype=self.dtype)
        mu = self._gather_mode(self.mu, modes, shape, 1)
        G = self._gather_mode(self.G, modes, shape, 2)
        s = self._gather_mode(self.s, modes, shape, 1)
        return mu + torch.einsum("...tj,...j->...t", G, u) + s * eps

    def sample_generators(self, sample_shape=(), *, seed=None):
        """Draw (y, modes, u): outcomes with their modes and generator values (for checks and figures).

        Parameters
        ----------
        sample_shape : tuple of int
            Leading dimensions of the draws.
        seed : None, int, numpy Generator or SeedSequence
            statcore's seed convention.

        Returns
        -------
        tuple
            ``(y, modes, u)`` with shapes ``(*shape, T)``, ``(*shape,)`` and ``(*shape, m)``.
        """
        sample_shape = torch.Size(sample_shape)
        gen = torch_generator(seed)
        shape = sample_shape + self._batch
        with torch.no_grad():
            unif = torch.rand(*shape, self.n_modes, generator=gen, dtype=self.dtype)
            gumbel = -torch.log(-torch.log(unif.clamp_min(torch.finfo(self.dtype).tiny)))
            modes = torch.argmax(self.logits.expand(*shape, self.n_modes) + gumbel, dim=-1)
            r, m0 = S.natural_to_rm(self.u_prec, self.u_shift)
            t = torch.rand(*shape, self.m, generator=gen, dtype=self.dtype)
            u = S.tn_u_quantile(self._gather_mode(r, modes, shape, 1), self._gather_mode(m0, modes, shape, 1), t)
            eps = torch.randn(*shape, self.T, generator=gen, dtype=self.dtype)
            y = (self._gather_mode(self.mu, modes, shape, 1)
                 + torch.einsum("...tj,...j->...t", self._gather_mode(self.G, modes, shape, 2), u)
                 + self._gather_mode(self.s, modes, shape, 1) * eps)
        return y, modes, u

    # -- steps, conditioning ------------------------------------------------------------------------
    def _select_steps(self, idx):
        return self._replace(mu=self.mu.index_select(-1, idx), G=self.G.index_select(-2, idx),
                             s=self.s.index_select(-1, idx))

    def _condition_components(self, obs, rest, values):
        marg = self._select_steps(obs)
        ll = marg.component_log_prob(values)                          # (..., K)
        z = (values.unsqueeze(-2) - marg.mu) / marg.s
        V = marg.G / marg.s.unsqueeze(-1)
        VtV = torch.einsum("...tj,...tk->...jk", V, V)
        if self.m > 1:
            d = torch.diagonal(VtV, dim1=-2, dim2=-1)
            off = VtV - torch.diag_embed(d)
            tol = 1e-10 if VtV.dtype == torch.float64 else 1e-5
            if not bool((off.abs() <= tol * torch.sqrt(d.unsqueeze(-1) * d.unsqueeze(-2))).all()):
                raise ValueError(
                    "condition() is closed form when the observed steps' generators are orthogonal in the noise "
                    "metric (G_obs^T diag(s_obs^-2) G_obs diagonal: always for m = 1); here the posterior of u is a "
                    "correlated truncated normal, which this HProbZ cannot hold. Use m = 1 or such generators.")
        u_prec = self.u_prec + torch.diagonal(VtV, dim1=-2, dim2=-1)
        u_shift = self.u_shift + torch.einsum("...tj,...t->...j", V, z)
        logits = torch.log_softmax(torch.log_softmax(self.logits, dim=-1) + ll, dim=-1)
        return HProbZ(logits, self.mu.index_select(-1, rest), self.G.index_select(-2, rest),
                      self.s.index_select(-1, rest), u_prec=u_prec, u_shift=u_shift, method=self.method,
                      n_points=self.n_points)

    # -- risk ---------------------------------------------------------------------------------------
    def _component_exceedance(self, thr, n_nodes: int = 48):
        """P(y_t > thr_t | b): sorted by |g_tj| / s_t, the largest generator is integrated in closed form
        (uniform prior: the divided difference of Psi) and the others, and a truncated-normal
        (conditioned) largest one, by Gauss-Legendre on their quantile scale (``n_nodes`` per generator)."""
        n_nodes = check_positive_int(n_nodes, "n_nodes")
        if self.m > 3:
            raise ValueError(f"mode_risk handles m <= 3 generators (Gauss-Legendre over m - 1 of them); "
                             f"got m = {self.m}")
        z = (self.mu - thr) / self.s                                  # (..., K, T)
        delta = self.G / self.s.unsqueeze(-1)                         # (..., K, T, m)
        r, m0 = S.natural_to_rm(self.u_prec, self.u_shift)            # (..., K, m)
        r = r.unsqueeze(-2).expand_as(delta)
        m0 = m0.unsqueeze(-2).expand_as(delta)
        order = torch.argsort(delta.abs(), dim=-1, descending=True)
        delta, r, m0 = (torch.gather(v, -1, order) for v in (delta, r, m0))
        x, w = np.polynomial.legendre.leggauss(n_nodes)
        t = torch.as_tensor((x + 1.0) / 2.0, dtype=self.dtype)
        w = torch.as_tensor(w / 2.0, dtype=self.dtype)
        zz, ww = z.unsqueeze(-1), torch.ones(1, dtype=self.dtype)     # a grid over the other generators
        for j in range(1, self.m):
            uj = S.tn_u_quantile(r[..., j].unsqueeze(-1), m0[..., j].unsqueeze(-1), t)     # (..., K, T, n)
            zz = (zz.unsqueeze(-1) + delta[..., j, None, None] * uj.unsqueeze(-2)).flatten(-2)
            ww = (ww.unsqueeze(-1) * w).flatten()
        d0 = delta[..., 0].unsqueeze(-1)
        closed = S.uniform_exceedance(zz, d0)
        u0 = S.tn_u_quantile(r[..., 0, None, None], m0[..., 0, None, None], t)             # (..., K, T, 1, n)
        numeric = (torch.special.ndtr(zz.unsqueeze(-1) + d0.unsqueeze(-1) * u0) * w).sum(-1)
        uniform = (r[..., 0] == 0).unsqueeze(-1)
        inner = torch.where(uniform, closed, numeric)
        return (inner * ww).sum(-1)

    # -- per-step view, support, affine ----------------------------------------------------------------
    def _per_step(self):
        """Batch (*batch, T), event 1: step t's marginal as its own element."""
        return HProbZ(self.logits.unsqueeze(-2), self.mu.transpose(-1, -2).unsqueeze(-1),
                      self.G.movedim(-2, -3).unsqueeze(-2), self.s.transpose(-1, -2).unsqueeze(-1),
                      u_prec=self.u_prec.unsqueeze(-3), u_shift=self.u_shift.unsqueeze(-3), method=self.method,
                      n_points=self.n_points)

    def _support(self, width):
        reach = self.G.abs().sum(-1) + width * self.s                # (..., K, T)
        return (self.mu - reach).amin(-2), (self.mu + reach).amax(-2)

    def _affine(self, loc, scale):
        return self._replace(mu=loc + scale * self.mu, G=scale.unsqueeze(-1) * self.G, s=scale * self.s)


# ==============================================================================================
# the Gaussian mixture baseline
# ==============================================================================================

class GaussianMixture(_TrajectoryMixture):
    """A mixture of diagonal Gaussians over T steps: y = mu_b + sigma_b * eps (the mixture-density
    baseline of HProbZ, with the same interface).

    Parameters
    ----------
    logits : tensor, shape (..., n_modes)
        Mode log-probabilities (unnormalised).
    mu : tensor, shape (..., n_modes, T)
        Mean of each mode.
    sigma : tensor, shape (..., n_modes, T)
        Standard deviations, positive.

    References
    ----------
    Bishop, C. M. (1994). Mixture density networks. Technical report NCRG/94/004, Aston University.

    Examples
    --------
    >>> import torch
    >>> from learncore.hprobz import GaussianMixture
    >>> d = GaussianMixture(torch.zeros(2), torch.tensor([[-2.0], [2.0]]), torch.ones(2, 1))
    >>> round(float(d.log_prob(torch.tensor([2.0]))), 4)
    -1.6118
    >>> d.mode_risk(0.0)[:, 0]
    tensor([0.0228, 0.9772])
    """

    _params = ("logits", "mu", "sigma")

    def __init__(self, logits, mu, sigma):
        mu = as_param(mu, "mu", min_dim=2)
        dt = mu.dtype
        logits = as_param(logits, "logits", dtype=dt)
        sigma = as_param(sigma, "sigma", dtype=dt, min_dim=2)
        K, T = mu.shape[-2], mu.shape[-1]
        if logits.shape[-1] != K:
            raise ValueError(f"logits must have n_modes = {K} entries in its last dimension (mu is {tuple(mu.shape)}), "
                             f"got shape {tuple(logits.shape)}")
        if sigma.shape[-1] != T or sigma.shape[-2] not in (1, K):
            raise ValueError(f"sigma must have shape (..., n_modes, T) = (..., {K}, {T}), got {tuple(sigma.shape)}")
        if bool((sigma <= 0).any()):
            raise ValueError("sigma must be positive (standard deviations)")
        sigma = sigma.expand(*sigma.shape[:-2], K, T)
        p, batch = _broadcast_batch(dict(logits=logits, mu=mu, sigma=sigma), dict(logits=1, mu=2, sigma=2))
        self.logits, self.mu, self.sigma = p["logits"], p["mu"], p["sigma"]
        self._batch = batch
        self.T = int(T)

    def component_log_prob(self, y) -> torch.Tensor:
        """Per-mode log densities, shape ``(..., n_modes)``.

        Parameters
        ----------
        y : tensor, shape (..., T)
            Outcomes.

        Returns
        -------
        torch.Tensor
        """
        y = self._as_y(y)
        z = (y.unsqueeze(-2) - self.mu) / self.sigma
        return -0.5 * (z * z).sum(-1) - torch.log(self.sigma).sum(-1) - 0.5 * self.T * S.LOG_2PI

    def component_mean(self) -> torch.Tensor:
        """Per-mode means, shape ``(*batch, n_modes, T)``."""
        return self.mu

    def component_covariance(self) -> torch.Tensor:
        """Per-mode (diagonal) covariances, shape ``(*batch, n_modes, T, T)``."""
        return torch.diag_embed(self.sigma * self.sigma)

    def component_variance(self) -> torch.Tensor:
        """Per-mode variances, shape ``(*batch, n_modes, T)``."""
        return self.sigma * self.sigma

    def _sample_components(self, modes, shape, gen):
        eps = torch.randn(*shape, self.T, generator=gen, dtype=self.dtype)
        return self._gather_mode(self.mu, modes, shape, 1) + self._gather_mode(self.sigma, modes, shape, 1) * eps

    def _select_steps(self, idx):
        return self._replace(mu=self.mu.index_select(-1, idx), sigma=self.sigma.index_select(-1, idx))

    def _condition_components(self, obs, rest, values):
        ll = self._select_steps(obs).component_log_prob(values)
        logits = torch.log_softmax(torch.log_softmax(self.logits, dim=-1) + ll, dim=-1)
        return GaussianMixture(logits, self.mu.index_select(-1, rest), self.sigma.index_select(-1, rest))

    def _component_exceedance(self, thr):
        return torch.special.ndtr((self.mu - thr) / self.sigma)

    def _per_step(self):
        return GaussianMixture(self.logits.unsqueeze(-2), self.mu.transpose(-1, -2).unsqueeze(-1),
                               self.sigma.transpose(-1, -2).unsqueeze(-1))

    def _support(self, width):
        return (self.mu - width * self.sigma).amin(-2), (self.mu + width * self.sigma).amax(-2)

    def _affine(self, loc, scale):
        return self._replace(mu=loc + scale * self.mu, sigma=scale * self.sigma)
