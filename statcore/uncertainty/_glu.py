"""GLU (Global-Local Uncertainty): the matrix Renyi entropy of hidden states, evidential token-level
uncertainty from the top-k logits, and their multiplicative fusion (Medina et al., 2026).

The formulas follow the public code of the paper (github.com/qcri/GLU, ``generate_response.py``:
``matrix_renyi_entropy``, ``au_eu_batch``, ``compute_all_metrics``; ``GLU.py``), which is what the
reported AUROCs were computed with. Where that code and the paper's abstract differ, the code wins
and the docstrings say so.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import digamma, log_softmax

from .._checks import (pow2_scale, as_hidden_matrix, as_hidden_stack, as_logit_matrix, check_renyi_order, check_same_n,
                       check_top_k)
from .._checks.public import public_function
from .._result import Result
from ._token_result import TokenUncertainty

__all__ = ["renyi_matrix_entropy", "evidential_token_uncertainty", "glu_score", "GLUScore"]

#: normalised eigenvalues at or below this are numerical zeros of a rank-deficient Gram matrix
#: (the paper's code drops them too, with the same cut)
_EIG_CUT = 1e-12


def _renyi_from_gram_eigs(eigs: np.ndarray, alpha: float) -> float:
    lam = np.clip(eigs, 0.0, None)
    total = lam.sum()
    if total <= 0.0:  # H = 0: no spread at all
        return 0.0
    lam = lam / total
    lam = lam[lam > _EIG_CUT]
    log_lam = np.log(lam)
    if alpha == 1.0:
        return float(-(lam * log_lam).sum()) + 0.0
    top = int(np.argmax(log_lam))
    m = float(log_lam[top])  # log lambda_max
    if math.isinf(alpha):
        return -m + 0.0
    # near sum lam^alpha = 1 (orders near 1): sum lam^alpha = 1 + s, s = sum lam (lam^(alpha - 1) - 1), whose
    # terms share one sign, and log1p(s) / (1 - alpha) stays exact as alpha -> 1 (the paper's code switches
    # to von Neumann for |alpha - 1| < 1e-6 instead)
    s = float(np.sum(lam * np.expm1((alpha - 1.0) * log_lam)))
    if abs(s) <= 0.5:
        return float(np.log1p(s) / (1.0 - alpha)) + 0.0  # + 0.0: never -0.0
    # elsewhere 1 + s cancels (large orders: the sum falls towards 0); log-sum-exp instead,
    # log sum lam^alpha = alpha m + L with L = log(1 + sum_{i != top} (lam_i / lam_max)^alpha) in [0, log T],
    # and S = (alpha m + L) / (1 - alpha) written so that alpha m is never formed (alpha up to 1e308)
    z = np.exp(alpha * (log_lam - m))
    z[top] = 0.0
    L = float(np.log1p(z.sum()))
    return -m * (alpha / (alpha - 1.0)) - L / (alpha - 1.0) + 0.0


def _gram_eigs(H: np.ndarray) -> np.ndarray:
    """Eigenvalues of the smaller of H H^T (T x T) and H^T H (d x d): their non-zero eigenvalues
    are the same (the squared singular values of H). H is first divided by a power of two near its
    largest entry: exact, the normalised eigenvalues do not depend on the scale, and hidden states of
    1e300 no longer overflow the Gram matrix."""
    H = H / pow2_scale(H, axis=None)
    G = H @ H.T if H.shape[0] <= H.shape[1] else H.T @ H
    return np.linalg.eigvalsh(G)


@public_function(data=("H",), nan_policy=("raise", "omit"))
def renyi_matrix_entropy(H, *, order=2):
    r"""Matrix-based Renyi entropy of order ``order`` (:math:`\alpha`) of a set of hidden states.

    With :math:`\lambda_1, \dots` the eigenvalues of the Gram matrix :math:`H H^\top` of the T rows
    of H, normalised to sum to one (divided by the trace),

    .. math:: S_\alpha(H) = \frac{1}{1-\alpha} \log \sum_i \lambda_i^\alpha,

    in nats; :math:`\alpha \to 1` gives the von Neumann entropy :math:`-\sum_i \lambda_i \log
    \lambda_i` and :math:`\alpha = \infty` the min-entropy :math:`-\log \max_i \lambda_i`. It is 0 when
    the rows are collinear (rank 1) and :math:`\log T` when they are orthogonal with equal norms.
    The eigenvalues are computed from the smaller of :math:`H H^\top` (T x T) and :math:`H^\top H`
    (d x d), which share their non-zero eigenvalues; normalised eigenvalues at or below 1e-12 are
    dropped as numerical zeros, as in the paper's code. The rows are not centred (the paper's
    Gram matrix is the raw :math:`H H^\top`), and the entropy is invariant to scaling H.

    Parameters
    ----------
    H : array_like, shape (T, d)
        One row per token (for GLU: the last-position hidden state of one layer at each
        generation step).
    order : float, default 2
        The order :math:`\alpha`: a positive number (1: von Neumann), or ``math.inf``.
    nan_policy : {"raise", "omit"}
        A NaN in ``H``: "raise" refuses it (naming the count), "omit" drops the rows (tokens) holding
        one.

    Returns
    -------
    float
        The entropy in nats (0 for an all-zero H, as in the paper's code).

    See Also
    --------
    glu_score : averages this entropy over layers, normalised by 1 + log T.

    Notes
    -----
    The logarithm of :math:`\sum_i \lambda_i^\alpha` is evaluated to full precision at every order:
    near a sum of 1 (orders near 1) as :math:`\log(1 + \sum_i \lambda_i (\lambda_i^{\alpha-1} - 1))`,
    whose terms share one sign, elsewhere as a log-sum-exp,
    :math:`\alpha \log \lambda_{max} + \log \sum_i (\lambda_i / \lambda_{max})^\alpha`, so that
    large orders approach the min-entropy :math:`-\log \lambda_{max}` instead of losing the sum to
    cancellation (checked against 50-digit arithmetic from order 0.01 to 1e300 and at infinity).

    The paper's code (in float64) gives the same values to about 1e-11, except: it switches to the
    von Neumann formula for :math:`|\alpha - 1| < 10^{-6}`; it returns 0 when the trace
    :math:`\|H\|_F^2` is below 1e-10, where this function, scale invariant, returns 0 only for
    H = 0; and it clamps :math:`\sum_i \lambda_i^\alpha` at 1e-12, which changes its values at large
    orders only (e.g. 64 orthogonal rows at order 10: 3.07 there, log 64 = 4.16 here).

    References
    ----------
    Sanchez Giraldo, L. G., Rao, M. and Principe, J. C. (2015). Measures of entropy from data using
    infinitely divisible kernels. IEEE Trans. Inf. Theory 61(1), 535-548.
    Medina et al. (2026). Integrating local and global entropy for uncertainty quantification in
    LLMs (GLU). NeurIPS; code github.com/qcri/GLU (``matrix_renyi_entropy``).

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import renyi_matrix_entropy
    >>> round(renyi_matrix_entropy(np.eye(4) * 3.0), 6)  # 4 orthogonal rows of equal norm: log 4
    1.386294
    >>> renyi_matrix_entropy(np.outer([1.0, 2.0, 3.0], [1.0, -1.0]))  # rank 1
    0.0
    """
    H = as_hidden_matrix(H, "H")
    alpha = check_renyi_order(order, "order")
    return _renyi_from_gram_eigs(_gram_eigs(H), alpha)


def _evidential(logits: np.ndarray, k: int) -> dict[str, np.ndarray]:
    top = -np.sort(-logits, axis=1)[:, :k]                       # (T, k), largest first
    ev = np.maximum(top, 0.0)                                     # evidence relu(z)
    ev0 = ev.sum(axis=1)
    epistemic = k / (ev + 1.0).sum(axis=1)                        # k / sum(relu(z) + 1): 1 without evidence
    zero = ev0 <= 0.0
    safe0 = np.where(zero, 1.0, ev0)
    p = ev / safe0[:, None]
    # expected entropy of a categorical under Dirichlet(ev): the aleatoric term
    aleatoric = -(p * (digamma(ev + 1.0) - digamma(safe0 + 1.0)[:, None])).sum(axis=1)
    # an expected entropy is >= 0; rounding leaves -1e-17 when one token holds all the evidence
    aleatoric = np.where(zero, math.log(k), np.maximum(aleatoric, 0.0))
    logp = log_softmax(top, axis=1)
    entropy = -(np.exp(logp) * logp).sum(axis=1) / math.log(2.0)  # bits, as the paper's code
    return {"epistemic": epistemic, "aleatoric": aleatoric, "entropy": entropy,
            "weighted_entropy": entropy * epistemic}


@public_function(data=("logits",), nan_policy=("raise",))
def evidential_token_uncertainty(logits, *, k=10):
    r"""Per-token evidential uncertainty from the top-k logits (GLU's local signal).

    For each token, with :math:`z_1 \ge \dots \ge z_k` its k largest logits, evidence
    :math:`e_j = \max(z_j, 0)` and :math:`e_0 = \sum_j e_j`:

    - ``epistemic`` :math:`= k / \sum_j (e_j + 1)`, the vacuity of a Dirichlet with parameters
      :math:`e_j + 1` (1 when there is no evidence, towards 0 as evidence grows);
    - ``aleatoric`` :math:`= -\sum_j (e_j / e_0) (\psi(e_j + 1) - \psi(e_0 + 1))`, the expected entropy
      (nats) of a categorical drawn from the Dirichlet (:math:`\log k` when :math:`e_0 = 0`);
    - ``entropy``: the Shannon entropy of the softmax of the top-k logits, in **bits** (base 2, as
      the paper's code computes it: a uniform top-k gives :math:`\log_2 k`);
    - ``weighted_entropy`` :math:`=` ``entropy`` :math:`\times` ``epistemic``, the per-token local
      uncertainty of GLU (the code's ``shetoku`` is its negative).

    Parameters
    ----------
    logits : array_like, shape (T, V)
        Vocabulary logits of each generated token (before softmax, no temperature).
    k : int, default 10
        Number of top logits used (2 <= k <= V).
    nan_policy : {"raise"}
        A NaN logit is refused, naming the count (the result has one row per token: dropping a token
        would misalign them).

    Returns
    -------
    TokenUncertainty
        One value per token in ``epistemic``, ``aleatoric``, ``entropy``, ``weighted_entropy``;
        ``to_frame()`` is the table with these columns.

    See Also
    --------
    glu_score : averages the k largest ``weighted_entropy`` values into GLU's local term.

    References
    ----------
    Sensoy, M., Kaplan, L. and Kandemir, M. (2018). Evidential deep learning to quantify
    classification uncertainty. NeurIPS.
    Ma, H. et al. (2025). Estimating LLM uncertainty with evidence (LogTokU). arXiv 2502.00290.
    Medina et al. (2026). Integrating local and global entropy for uncertainty quantification in
    LLMs (GLU). NeurIPS; code github.com/qcri/GLU (``au_eu_batch``).

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import evidential_token_uncertainty
    >>> res = evidential_token_uncertainty(np.array([[5.0, 5.0, 5.0, 5.0, -1.0], [-2.0, -3.0, -4.0, -5.0, -6.0]]), k=4)
    >>> res.to_frame().round(4)
       epistemic  aleatoric  entropy  weighted_entropy
    0     0.1667     1.3144    2.000            0.3333
    1     1.0000     1.3863    1.367            1.3670
    """
    logits = as_logit_matrix(logits, "logits")
    k = check_top_k(k, logits.shape[1])
    return TokenUncertainty(**_evidential(logits, k), k=k)


@dataclass(frozen=True, repr=False)
class GLUScore(Result):
    """The GLU score of one generation (:func:`glu_score`), with its global and local parts.

    Attributes
    ----------
    glu : float
        :math:`(1 + \\tilde S) \\times` ``local_term`` (at most 0; higher means more confident).
    global_term : float
        :math:`\\tilde S`: the layer mean of :math:`S_\\alpha / (1 + \\log T)`.
    local_term : float
        Minus the mean of the ``min(k, T)`` largest per-token weighted entropies (at most 0).
    s_alpha : float
        The layer mean of the unnormalised matrix Renyi entropies.
    n_tokens : int
        T, the number of generated tokens.
    s_alpha_layers : numpy.ndarray
        The matrix Renyi entropy of each layer.
    weighted_entropy : numpy.ndarray
        The per-token weighted entropies (bits times vacuity).
    k, order :
        The arguments used.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import glu_score
    >>> rng = np.random.default_rng(0)
    >>> glu_score(rng.normal(size=(3, 6, 8)), rng.normal(size=(6, 20)), k=5)
    GLUScore(glu=-1.543, global_term=0.4523, local_term=-1.062, s_alpha=1.263, n_tokens=6, k=5)
    """

    glu: float
    global_term: float
    local_term: float
    s_alpha: float
    n_tokens: int
    k: int
    order: float
    s_alpha_layers: np.ndarray
    weighted_entropy: np.ndarray

    def summary(self) -> str:
        layers = " ".join(f"{s:.4g}" for s in self.s_alpha_layers)
        return "\n".join([
            "",
            "\tGlobal-Local Uncertainty (GLU)",
            "",
            f"GLU = (1 + S~) * U_local = {self.glu:.6g}   (higher = more confident)",
            f"global term S~ = {self.global_term:.6g}   (layer mean of S_{self.order:g} / (1 + log T), T = {self.n_tokens})",
            f"local term U_local = {self.local_term:.6g}   (minus the mean of the {min(self.k, self.n_tokens)} "
            f"largest weighted entropies, k = {self.k})",
            f"S_{self.order:g} per layer: {layers}",
            "",
        ])

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"glu": [self.glu], "global_term": [self.global_term], "local_term": [self.local_term],
                             "s_alpha": [self.s_alpha], "n_tokens": [self.n_tokens], "k": [self.k],
                             "order": [self.order]})


@public_function(data=("hidden_states", "logits"), nan_policy=("raise", "omit"),
                 axis={"hidden_states": -2})
def glu_score(hidden_states, logits, *, k=10, order=2):
    r"""GLU: the multiplicative fusion of a global (hidden-state geometry) and a local (evidential
    token entropy) uncertainty signal of one generated answer.

    With T generated tokens, :math:`H_l` (T x d) the last-position hidden state of layer l at each
    generation step, and :math:`u_t` the per-token ``weighted_entropy`` of
    :func:`evidential_token_uncertainty`:

    .. math::

        \tilde S = \frac{1}{L} \sum_{l=1}^{L} \frac{S_\alpha(H_l)}{1 + \log T}, \qquad
        U_{local} = -\frac{1}{m} \sum_{t \in \text{top-}m(u)} u_t, \quad m = \min(k, T), \qquad
        \mathrm{GLU} = (1 + \tilde S)\, U_{local}.

    GLU is at most 0, and **higher (closer to 0) means more confident**: it is used as it is as a
    score for correctness (label 1 = correct), as ``GLU.py`` of the paper's code does.

    This is what the paper's code computes (``compute_all_metrics`` and ``GLU.py``). It differs from
    the abstract's description in three places: the global term averages over **all** hidden-state
    layers that are passed (the code stacks every entry of ``output_hidden_states``, the embedding
    output included), not only the embedding layer; the normalisation is by :math:`1 + \log T`
    with the natural log; and the local term uses the same k both as the number of top logits per
    token and as the number of worst tokens averaged. The token entropy is in bits and the matrix
    entropy in nats, as in the code. Unlike the code, which refuses answers of fewer than 2 tokens,
    T = 1 is allowed (:math:`S_\alpha = 0`, so GLU equals the local term).

    Parameters
    ----------
    hidden_states : array_like, shape (L, T, d)
        Per-layer hidden states (a 3-D array, a list of L (T, d) matrices, or one (T, d) matrix for
        a single layer). Row t of layer l is the hidden state at the position that produced token t.
    logits : array_like, shape (T, V)
        The vocabulary logits that produced each of the T tokens.
    k : int, default 10
        Number of top logits per token, and number of most uncertain tokens averaged.
    order : float, default 2
        Order of the matrix Renyi entropy.
    nan_policy : {"raise", "omit"}
        A NaN in ``hidden_states`` or ``logits``: "raise" refuses it (naming the argument and the
        count), "omit" drops the tokens holding one (a row of ``logits`` and the same row of every
        layer of ``hidden_states``).

    Returns
    -------
    GLUScore
        ``glu``, ``global_term``, ``local_term``, ``s_alpha`` (unnormalised), the per-layer entropies
        and per-token weighted entropies.

    See Also
    --------
    renyi_matrix_entropy, evidential_token_uncertainty
    learncore.llm_uncertainty.score_generations : collects the inputs during greedy generation.

    Notes
    -----
    Against the paper's code run in float64, the scores agree to about 1e-11, apart from two rules of
    that code: a token whose total top-k evidence :math:`e_0` is below 1e-10 counts there as having
    no evidence (vacuity 1, aleatoric term :math:`\log k`), where here only :math:`e_0 = 0` does (a
    smaller positive :math:`e_0` changes the vacuity by less than 1e-10 relative); and a layer whose
    :math:`\|H_l\|_F^2` (the trace of the Gram matrix) is below 1e-10 has entropy 0 there, where
    here the entropy is scale invariant and 0 only for :math:`H_l = 0`. See
    :func:`renyi_matrix_entropy` for the orders near 1 and the large orders.

    References
    ----------
    Medina et al. (2026). Integrating local and global entropy for uncertainty quantification in
    LLMs (GLU). NeurIPS; arXiv 2606.09875; code github.com/qcri/GLU.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore import glu_score
    >>> rng = np.random.default_rng(0)
    >>> res = glu_score(rng.normal(size=(3, 6, 8)), rng.normal(size=(6, 20)), k=5)
    >>> round(res.glu, 6) == round((1 + res.global_term) * res.local_term, 6)
    True
    """
    Hs = as_hidden_stack(hidden_states, "hidden_states")
    Z = as_logit_matrix(logits, "logits")
    check_same_n(hidden_states=Hs[0], logits=Z)
    k = check_top_k(k, Z.shape[1])
    alpha = check_renyi_order(order, "order")
    T = Hs.shape[1]
    s_layers = np.array([_renyi_from_gram_eigs(_gram_eigs(H), alpha) for H in Hs])
    s_tilde = float(np.mean(s_layers / (1.0 + math.log(T))))
    u = _evidential(Z, k)["weighted_entropy"]
    m = min(k, T)
    local = -float(np.sort(u)[::-1][:m].mean())
    return GLUScore(glu=(1.0 + s_tilde) * local, global_term=s_tilde, local_term=local,
                    s_alpha=float(s_layers.mean()), n_tokens=T, k=k, order=alpha, s_alpha_layers=s_layers,
                    weighted_entropy=u)
