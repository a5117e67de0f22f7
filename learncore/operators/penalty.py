"""The independence penalty of NOIR: a differentiable measure of the dependence among the p
coordinates of a batch of latent vectors z (B x p).

Three kinds, each computed on the whole batch in one pass (a (p, B, B) stack of per-coordinate
matrices, then the (p, p) matrix of their Frobenius inner products):

- ``"hsic"``: the sum over the p (p - 1) / 2 pairs of coordinates of the normalised HSIC
  HSIC(z_i, z_j) / sqrt(HSIC(z_i, z_i) HSIC(z_j, z_j)) with a Gaussian kernel whose scale is set by
  the median heuristic of each coordinate (statcore's rule: s^2 = median_{a < b} (z_ai - z_bi)^2 / 2,
  numpy's median, i.e. the mean of the two middle values of an even count);
- ``"dcor"``: the sum over pairs of the squared distance correlation dCor^2(z_i, z_j);
- ``"tc"``: the Gaussian total correlation -1/2 log det R of the p x p correlation matrix R of the
  batch (the mutual information among the coordinates if z were Gaussian).

With ``estimator="biased"`` (the default) HSIC and dCor^2 are the V-statistics of
:func:`statcore.hsic` and :func:`statcore.dcor` (squared); with ``"unbiased"`` they are the
U-statistics of ``statcore.hsic(..., estimator="unbiased")`` and :func:`statcore.dcor_u`, both
computed by U-centring (Szekely & Rizzo 2014), which for the Gram matrices with zero diagonal gives
Song et al.'s (2012) unbiased HSIC exactly.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import torch
from statcore.utils import check_choice

from ._model_checks import check_bool, check_nonneg_float, check_positive_float

__all__ = ["independence_penalty"]

_KINDS = ("hsic", "dcor", "tc")


def _as_latent(z: Any) -> torch.Tensor:
    if not isinstance(z, torch.Tensor):
        raise TypeError(f"z must be a torch tensor of latent vectors (B, p), got {type(z).__name__}")
    if not torch.is_floating_point(z):
        raise TypeError(f"z must be a floating tensor, got dtype {z.dtype}")
    if z.dim() != 2:
        raise ValueError(f"z must have shape (B, p): a batch of B latent vectors of p coordinates; got shape "
                         f"{tuple(z.shape)}")
    with torch.no_grad():
        bad = ~torch.isfinite(z)
        if bool(bad.any()):
            raise ValueError(f"z has {int(bad.sum())} non-finite value(s) (NaN or inf): the model has diverged "
                             "(lower the learning rate) or its input holds NaN")
    return z


def _median(v: torch.Tensor) -> torch.Tensor:
    """numpy's median along the last axis: the middle value, or the mean of the two middle values."""
    k = v.shape[-1]
    if k % 2:
        return torch.kthvalue(v, k // 2 + 1, dim=-1).values
    # two selections are about twice as fast as a sort of the B (B - 1) / 2 pairs
    return 0.5 * (torch.kthvalue(v, k // 2, dim=-1).values + torch.kthvalue(v, k // 2 + 1, dim=-1).values)


def _median_scale(sq: torch.Tensor) -> torch.Tensor:
    """The median heuristic per coordinate from squared distances (p, B, B): the numpy median of the
    B (B - 1) / 2 pairs a < b, or, where that median is 0 (more than half the pairs tied), the median
    of the positive squared distances (statcore's rule). Returns 2 s^2 = that median, shape (p,)."""
    B = sq.shape[-1]
    iu = torch.triu_indices(B, B, offset=1, device=sq.device)
    pairs = sq[:, iu[0], iu[1]]
    med = _median(pairs)
    zero = med <= 0
    if bool(zero.any()):
        for i in torch.nonzero(zero).flatten().tolist():
            pos = pairs[i][pairs[i] > 0]
            if pos.numel():  # a constant coordinate keeps 0: its Gram matrix is all ones (see below)
                med = med.clone()
                med[i] = _median(pos)
    return med


def _double_centre(a: torch.Tensor) -> torch.Tensor:
    """H a H for each of the (p, B, B) matrices (H = I - 11'/B)."""
    return a - a.mean(dim=-1, keepdim=True) - a.mean(dim=-2, keepdim=True) + a.mean(dim=(-2, -1), keepdim=True)


def _u_centre(a: torch.Tensor) -> torch.Tensor:
    """U-centring (Szekely & Rizzo 2014): off the diagonal a_ij - a_i./(B-2) - a_.j/(B-2)
    + a../((B-1)(B-2)) of the matrix with zero diagonal; 0 on the diagonal."""
    B = a.shape[-1]
    eye = torch.eye(B, dtype=torch.bool, device=a.device)
    a = a.masked_fill(eye, 0.0)
    out = (a - a.sum(dim=-1, keepdim=True) / (B - 2) - a.sum(dim=-2, keepdim=True) / (B - 2)
           + a.sum(dim=(-2, -1), keepdim=True) / ((B - 1) * (B - 2)))
    return out.masked_fill(eye, 0.0)


def _pair_matrix(c: torch.Tensor) -> torch.Tensor:
    """The normalised inner products G_ij / sqrt(G_ii G_jj), G_ij = <C_i, C_j>_F, of the centred
    matrices C (p, B, B); 0 where a coordinate's own inner product is not positive (a constant
    coordinate: its centred matrix is 0, and it is independent of everything)."""
    flat = c.reshape(c.shape[0], -1)
    g = flat @ flat.T
    d = torch.diagonal(g)
    ok = d > 0
    safe = torch.where(ok, d, torch.ones_like(d))
    inv = torch.where(ok, safe.rsqrt(), torch.zeros_like(d))
    return g * inv[:, None] * inv[None, :]


def _reduce(r: torch.Tensor, reduction: str) -> torch.Tensor:
    p = r.shape[0]
    iu = torch.triu_indices(p, p, offset=1, device=r.device)
    vals = r[iu[0], iu[1]]
    return vals.sum() if reduction == "sum" else vals.mean()


def _hsic_matrices(z: torch.Tensor, bandwidth, detach_bandwidth: bool) -> torch.Tensor:
    x = z.T  # (p, B)
    sq = (x[:, :, None] - x[:, None, :]) ** 2
    if isinstance(bandwidth, str):
        two_s2 = _median_scale(sq.detach() if detach_bandwidth else sq)
    else:
        s = torch.as_tensor(bandwidth, dtype=z.dtype, device=z.device).expand(x.shape[0])
        two_s2 = 2.0 * s * s
    safe = torch.where(two_s2 > 0, two_s2, torch.ones_like(two_s2))
    K = torch.exp(-sq / safe[:, None, None])
    # a constant coordinate (scale 0): every kernel value is 1, its centred Gram matrix is 0
    return torch.where((two_s2 > 0)[:, None, None], K, torch.ones_like(K))


def _dcor_matrices(z: torch.Tensor, index: float) -> torch.Tensor:
    x = z.T
    d = (x[:, :, None] - x[:, None, :]).abs()
    pos = d > 0
    # |t|^index has an infinite derivative at t = 0 for index < 1 (and none at all for index 1):
    # the zero distances (the diagonal, ties) are set apart so that no NaN enters the gradient
    safe = torch.where(pos, d, torch.ones_like(d))
    return torch.where(pos, safe if index == 1.0 else safe ** index, torch.zeros_like(d))


def _total_correlation(z: torch.Tensor, ridge: float) -> torch.Tensor:
    zc = z - z.mean(dim=0, keepdim=True)
    cov = zc.T @ zc
    sd = torch.sqrt(torch.diagonal(cov))
    if bool((sd <= 0).any()):
        raise ValueError("z has a constant coordinate (zero variance in the batch): its correlations are "
                         "undefined and so is the total correlation; use measure='hsic' or 'dcor', which count a "
                         "constant coordinate as independent, or remove it")
    R = cov / (sd[:, None] * sd[None, :])
    if ridge > 0:
        R = (R + ridge * torch.eye(R.shape[0], dtype=R.dtype, device=R.device)) / (1.0 + ridge)
    sign, logdet = torch.linalg.slogdet(R)
    if bool(sign <= 0):
        raise ValueError(f"the correlation matrix of z is singular (batch size {z.shape[0]} against {z.shape[1]} "
                         "coordinates, or collinear coordinates): the total correlation is infinite; use a batch "
                         "larger than p or pass ridge > 0")
    return -0.5 * logdet


def _check_bandwidth(bandwidth, p):
    if isinstance(bandwidth, str):
        if bandwidth != "median":
            raise ValueError(f"bandwidth must be 'median', a positive number or one per coordinate, got {bandwidth!r}")
        return bandwidth
    if isinstance(bandwidth, (list, tuple, np.ndarray)):
        vals = [check_positive_float(b, f"bandwidth[{i}]") for i, b in enumerate(np.asarray(bandwidth).tolist())] \
            if np.ndim(bandwidth) == 1 else None
        if vals is None or (p is not None and len(vals) != p):
            raise ValueError(f"bandwidth as a sequence must hold one positive scale per coordinate ({p}), got "
                             f"{np.shape(bandwidth)}")
        return vals
    return check_positive_float(bandwidth, "bandwidth")


def independence_penalty(z, *, measure: str = "hsic", estimator: str = "biased", bandwidth="median",
                         detach_bandwidth: bool = True, index: float = 1.0, reduction: str = "sum",
                         ridge: float = 0.0) -> torch.Tensor:
    """A differentiable measure of the dependence among the coordinates of a batch of latent vectors.

    For z of shape (B, p) (B samples of a p-dimensional latent layer):

    - ``measure="hsic"``: sum_{i < j} HSIC(z_i, z_j) / sqrt(HSIC(z_i, z_i) HSIC(z_j, z_j)), the normalised
      HSIC (the centred kernel alignment) of every pair of coordinates, each with a Gaussian kernel
      exp(-(a - b)^2 / (2 s_i^2)) of its own scale s_i. Each term lies in [0, 1] (biased estimator).
    - ``measure="dcor"``: sum_{i < j} dCor^2(z_i, z_j), the squared distance correlations of the pairs
      (distances ``|a - b|^index``), each in [0, 1] (biased estimator).
    - ``measure="tc"``: -1/2 log det R, R the p x p correlation matrix of the batch: the Gaussian total
      correlation, 0 if and only if the coordinates are uncorrelated (it sees linear dependence only).

    In float64, the ``"hsic"`` and ``"dcor"`` terms equal statcore's :func:`statcore.hsic` (normalised
    by the two self-HSICs) and :func:`statcore.dcor` squared (or :func:`statcore.dcor_u`) of the same
    pairs to 1e-10 (tests/learncore/operators/test_penalty.py).

    Parameters
    ----------
    z : torch.Tensor, shape (B, p)
        A batch of latent vectors (B >= 2; B >= 4 for ``estimator="unbiased"``; B > p for
        ``measure="tc"`` without ``ridge``). Gradients flow through it.
    measure : {"hsic", "dcor", "tc"}
        The dependence measure (above).
    estimator : {"biased", "unbiased"}
        For "hsic" and "dcor": the V-statistics (statcore's ``hsic`` default and ``dcor``, never
        negative but positive in expectation under independence, by about 1/B per pair) or the
        U-statistics (``hsic(..., estimator="unbiased")`` and ``dcor_u``: centred at 0 under
        independence, possibly negative, so their sum can be driven below 0 by noise). Ignored by "tc".
    bandwidth : "median", float or sequence of p floats
        The Gaussian kernel's scale for "hsic": ``"median"`` is statcore's median heuristic, per
        coordinate and per batch, s^2 = median_{a < b} (z_a - z_b)^2 / 2 with numpy's median (the mean
        of the two middle values for an even number of pairs), over all B (B - 1) / 2 pairs of the
        batch (no subsample); where more than half the pairs are tied, the median of the positive
        squared distances. A number is one fixed s for every coordinate; a sequence one per coordinate.
    detach_bandwidth : bool
        True (default): the median scale is treated as a constant in the backward pass (the
        gradient does not flow through the median, which would move the kernel's scale along with
        the features). False: it flows through the (one or two) pairs the median selects.
    index : float in (0, 2)
        The exponent of the distances of "dcor" (statcore's and R energy's ``index``).
    reduction : {"sum", "mean"}
        Sum (default, the penalty of the paper's description) or mean over the p (p - 1) / 2 pairs
        (a penalty whose scale does not grow with p). "tc" is a single number and ignores it.
    ridge : float >= 0
        For "tc": R is replaced by (R + ridge I) / (1 + ridge) before the log-determinant (0, the
        default, is the exact total correlation; a small ridge keeps it finite for B <= p).

    Returns
    -------
    torch.Tensor
        A scalar (0-dimensional) tensor of z's dtype, differentiable with respect to z. A
        coordinate that is constant over the batch (a dead unit) counts as independent of every
        other: its terms are 0 (as statcore's ``dcor`` returns 0 for a constant sample); "tc" refuses it.

    Raises
    ------
    ValueError
        For non-finite z, too small a batch, or a singular correlation matrix with ``measure="tc"``.

    See Also
    --------
    learncore.operators.NOIR : the training wrapper that adds ``lam`` times this penalty to the loss.

    Notes
    -----
    Cost O(p B^2) memory and O(p^2 B^2) time (the inner products of the p centred B x B matrices);
    for p = 32 and B = 64 that is a few milliseconds. The biased HSIC of a pair is
    tr(K H L H) / B^2 (Gretton et al. 2005); the normalisation makes the term invariant to the scale
    of each coordinate (the median bandwidth already is) and bounded by 1, so ``lam`` means the same
    for every architecture.

    References
    ----------
    Gretton, A., Bousquet, O., Smola, A. & Scholkopf, B. (2005). Measuring statistical dependence with
    Hilbert-Schmidt norms. ALT 2005, 63-77.

    Song, L., Smola, A., Gretton, A., Bedo, J. & Borgwardt, K. (2012). Feature selection via dependence
    maximization. JMLR 13, 1393-1434.

    Szekely, G. J., Rizzo, M. L. & Bakirov, N. K. (2007). Measuring and testing dependence by
    correlation of distances. Annals of Statistics 35, 2769-2794.

    Szekely, G. J. & Rizzo, M. L. (2014). Partial distance correlation with methods for
    dissimilarities. Annals of Statistics 42, 2382-2412.

    Watanabe, S. (1960). Information theoretical analysis of multivariate correlation. IBM Journal of
    Research and Development 4, 66-82 (total correlation).

    Examples
    --------
    >>> import torch
    >>> from learncore.operators import independence_penalty
    >>> g = torch.Generator().manual_seed(0)
    >>> a = torch.randn(200, 1, generator=g, dtype=torch.float64)
    >>> dependent = torch.cat([a, a ** 2 + 0.1 * torch.randn(200, 1, generator=g, dtype=torch.float64)], 1)
    >>> independent = torch.randn(200, 2, generator=g, dtype=torch.float64)
    >>> bool(independence_penalty(dependent) > 5 * independence_penalty(independent))
    True
    >>> round(float(independence_penalty(dependent, measure="tc")), 4)   # uncorrelated, yet dependent
    0.0026
    """
    kind = check_choice(measure, "measure", _KINDS)
    estimator = check_choice(estimator, "estimator", ("biased", "unbiased"))
    reduction = check_choice(reduction, "reduction", ("sum", "mean"))
    detach_bandwidth = check_bool(detach_bandwidth, "detach_bandwidth")
    index = check_positive_float(index, "index")
    if not index < 2.0:
        raise ValueError(f"index must lie in (0, 2) (the distance exponent of distance covariance), got {index!r}")
    ridge = check_nonneg_float(ridge, "ridge")
    z = _as_latent(z)
    bandwidth = _check_bandwidth(bandwidth, z.shape[1])
    B, p = z.shape
    min_b = 4 if (estimator == "unbiased" and kind != "tc") else (p + 1 if kind == "tc" and ridge == 0 else 2)
    if B < max(min_b, 2):
        raise ValueError(f"z has a batch of {B} latent vectors; measure={kind!r} with estimator={estimator!r} "
                         f"needs at least {max(min_b, 2)}")
    if p < 2:
        raise ValueError(f"z has {p} coordinate(s); the penalty measures dependence between at least two")
    if kind == "tc":
        return _total_correlation(z, ridge)
    mats = _hsic_matrices(z, bandwidth, detach_bandwidth) if kind == "hsic" else _dcor_matrices(z, index)
    centred = _double_centre(mats) if estimator == "biased" else _u_centre(mats)
    return _reduce(_pair_matrix(centred), reduction)
