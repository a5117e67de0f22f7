"""The mixture over modes of T-step components shared by HProbZ and its Gaussian-mixture baseline.

``HProbZ`` (``_hprobz.py``) and ``GaussianMixture`` (``_gaussian_mixture.py``) are mixtures over modes of
per-step components, so they share the methods of :class:`_TrajectoryMixture`: ``log_prob``,
``sample``, ``mean``, ``variance``, ``covariance``, ``marginal``, ``condition``, ``mode_risk``,
``conformity_scores`` and ``conformal_sets``.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch.distributions import Distribution, constraints

from .._torch import torch_generator
from ._checks import as_param, as_steps, as_values, check_positive_int, check_seed

__all__ = ["_TrajectoryMixture"]


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


class _TrajectoryMixture(Distribution):
    """A mixture over ``n_modes`` of T-step components with batch dimensions in front, as a
    ``torch.distributions.Distribution``: ``batch_shape`` (one distribution per element),
    ``event_shape`` ``(T,)``, ``support`` the real vectors, ``arg_constraints`` of every parameter and
    torch's ``validate_args`` (the parameters checked at construction, the values of ``log_prob``
    against the shapes and the support). ``mean``, ``variance``, ``covariance`` and ``stddev`` are
    methods, not torch's properties. Draws are not reparameterised (the mode is discrete): ``sample``
    only.

    Subclasses hold their parameters as tensors of shape ``(*batch, n_modes, ...)``, list them in
    ``_params`` and ``arg_constraints``, end their ``__init__`` with ``super().__init__(batch_shape,
    event_shape, validate_args=...)``, and implement ``component_log_prob``, ``component_mean``,
    ``component_covariance``, ``_sample_components``, ``_select_steps``, ``_condition_components``,
    ``_component_exceedance``, ``_support`` and ``_per_step``.
    """

    _params: tuple = ()
    logits: torch.Tensor
    support = constraints.real_vector
    has_rsample = False

    # -- shape ------------------------------------------------------------------------------

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
        return {"validate_args": self._validate_args}

    def expand(self, batch_shape, _instance=None):
        """The distribution with its batch dimensions broadcast to ``batch_shape`` (views of the
        parameters, as ``torch.Tensor.expand``).

        Parameters
        ----------
        batch_shape : tuple of int
            The new batch shape; the current one must broadcast to it.
        _instance : None
            torch's argument for subclasses, unused.

        Returns
        -------
        HProbZ or GaussianMixture
        """
        batch_shape = torch.Size(batch_shape)
        try:
            if torch.broadcast_shapes(self._batch, batch_shape) != batch_shape:
                raise RuntimeError
        except RuntimeError:
            raise ValueError(f"batch_shape {tuple(batch_shape)} is not a broadcast of the distribution's batch "
                             f"shape {tuple(self._batch)}") from None
        nb = len(self._batch)
        kw = {k: getattr(self, k).expand(*batch_shape, *getattr(self, k).shape[nb:]) for k in self._params}
        kw.update(self._options())
        return type(self)(**kw)

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
        if self._validate_args:
            self._validate_sample(y)
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

    def stddev(self) -> torch.Tensor:
        """The standard deviation of each step, shape ``(*batch, T)`` (the square root of :meth:`variance`)."""
        return self.variance().sqrt()

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
        gen = torch_generator(check_seed(seed))
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
                sets.append(conformal_set(dens.transpose(0, 1).to(torch.float64).numpy(), grids[k], q[k]))
        return TrajectorySets.from_sets(sets, steps=tuple(idx), q=q, alpha=float(alpha), n_calibration=cal.shape[0],
                                        T=self.T)

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
