"""Architectures, learning rules and the parameter layout shared by the torch and numba code.

Architectures (input x = [c_L, c_R, 1], output y(x) in R^2 = values of left and right):

- ``"1L"``:  y = W x                 (W: 2 x 3)
- ``"2L"``:  y = W2 W1 x             (W1: H x 3, W2: 2 x H)
- ``"2NL"``: y = W2 sigmoid(W1 x)    (W1: H x 3, W2: 2 x H)

Choices: p(a | x) = softmax(beta y(x)).

Learning rules, all of the form theta <- theta + eta * sum_b g_b grad_theta y_b(x), i.e. the output
"error signal" g in R^2 is backpropagated through the network:

- ``"rpe"`` (reward-prediction error): g = (r - y_a) e_a, i.e. theta <- theta + eta delta grad y_a with
  delta = r - y_a.
- ``"reinforce"``: theta <- theta + eta (r - b) grad log p(a | x), i.e. g = (r - b) beta (e_a - p); the
  baseline b is a fixed number (default 0.5, the chance reward rate of the two-choice task).
  Note the scale symmetries of this rule: (W, eta, beta) ~ (c W, c^2 eta, beta / c) for 1L and
  (W1, W2, eta, beta) ~ (sqrt(c) W1, sqrt(c) W2, c eta, beta / c) for 2L give the same choice
  probabilities on every trial, so eta and beta are not separately identifiable under REINFORCE with
  a linear network (fix one of them, or compare eta beta^2 for 1L). The rpe and supervised rules
  compare values with rewards, which fixes the scale.
- ``"supervised"``: gradient descent on 1/2 ||t - y||^2 toward the one-hot target t of the rewarded side,
  g = t - y (the rewarded side is known from choice and reward in a two-choice task).

Flat parameter vector (one row per restart): the initial weights row-major (1L: W; 2L/2NL: W1 then W2),
then log(eta), log(beta).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np

ARCHS = ("1L", "2L", "2NL")
RULES = ("rpe", "reinforce", "supervised")
ARCH_CODE = {"1L": 0, "2L": 1, "2NL": 2}
RULE_CODE = {"rpe": 0, "reinforce": 1, "supervised": 2}


def check_arch(arch) -> str:
    if not isinstance(arch, str) or arch.upper() not in ARCHS:
        raise ValueError(f"arch must be one of {', '.join(map(repr, ARCHS))}; got {arch!r}")
    return arch.upper()


@dataclass(frozen=True)
class LearningRule:
    """A learning rule as a plug-in: its output error signal g, the update being
    theta <- theta + eta * sum_b g_b grad_theta y_b(x) (g backpropagated through the network).

    ``signal(y, p, a, r, rewarded, beta)`` gets PyTorch tensors y and p of shape (R, 2) (values and
    choice probabilities of R parameter sets), the choice ``a`` (0 left, 1 right), the reward ``r``,
    the rewarded side and beta (R,), and returns g (R, 2), differentiably (fits differentiate
    through it). Custom rules run on the PyTorch backend (``fit(..., backend="autograd")``, the
    default for them); the built-in rules also have compiled kernels.

    Parameters
    ----------
    name : str
        The rule's name (a fit reports it as its ``rule``).
    signal : callable
        ``signal(y, p, a, r, rewarded, beta)`` -> the error signal g, a tensor of shape (R, 2).

    Examples
    --------
    A rule that learns only from rewarded trials:

    >>> import numpy as np, torch
    >>> from learncore.learning_rules import LearningRule, simulate
    >>> rewarded_only = LearningRule("rewarded-only", lambda y, p, a, r, rs, beta: r * (torch.eye(2)[a] - y))
    >>> mouse = simulate("1L", {"W": np.zeros((2, 3)), "eta": 0.1, "beta": 5.0}, 20, rule=rewarded_only, seed=0)
    >>> len(mouse)
    20
    """

    name: str
    signal: Callable

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise TypeError("LearningRule name must be a non-empty string")
        if not callable(self.signal):
            raise TypeError(f"LearningRule signal must be callable; got {type(self.signal).__name__}")


def check_rule(rule):
    """A built-in rule's name (str) or a :class:`LearningRule` plug-in."""
    if isinstance(rule, LearningRule):
        return rule
    if not isinstance(rule, str) or rule.lower() not in RULES:
        raise ValueError(f"rule must be one of {', '.join(map(repr, RULES))} or a LearningRule; got {rule!r}")
    return rule.lower()


def rule_name(rule) -> str:
    return rule.name if isinstance(rule, LearningRule) else rule


def check_hidden(hidden, arch: str) -> int:
    if arch == "1L":
        return 0
    if isinstance(hidden, bool) or not isinstance(hidden, (int, np.integer)) or hidden < 1:
        raise ValueError(f"hidden must be a positive integer (width of the hidden layer); got {hidden!r}")
    return int(hidden)


def hidden_of(arch: str, params: Mapping) -> int:
    """The hidden width a parameter mapping implies (0 for 1L); refuses a malformed mapping."""
    if not isinstance(params, Mapping):
        raise TypeError(f"params must be a mapping with 'eta', 'beta' and the initial weights; got "
                        f"{type(params).__name__}")
    if arch == "1L":
        return 0
    if "W1" not in params:
        raise ValueError(f"params for arch {arch!r} need 'W1' (hidden x 3), 'W2' (2 x hidden), 'eta', 'beta'")
    w1 = np.asarray(params["W1"])
    if w1.ndim != 2 or w1.shape[1] != 3 or w1.shape[0] < 1:
        raise ValueError(f"params['W1'] must have shape (hidden, 3); got {w1.shape}")
    return int(w1.shape[0])


def weight_shapes(arch: str, hidden: int) -> dict[str, tuple[int, int]]:
    if arch == "1L":
        return {"W": (2, 3)}
    return {"W1": (hidden, 3), "W2": (2, hidden)}


def n_weights(arch: str, hidden: int) -> int:
    return sum(a * b for a, b in weight_shapes(arch, hidden).values())


def n_params(arch: str, hidden: int) -> int:
    """The number of free parameters of an architecture: its initial weights, eta and beta.

    Parameters
    ----------
    arch : {"1L", "2L", "2NL"}
        The architecture.
    hidden : int
        Hidden width (ignored for 1L).

    Returns
    -------
    int
        6 + 2 for 1L; 3 hidden + 2 hidden + 2 for 2L and 2NL (what ``statcore.loglik`` counts as df).

    References
    ----------
    Liebana et al. (2025). Dopamine encodes deep network teaching signals for individual learning
    trajectories. Cell 188:3789.

    Examples
    --------
    >>> n_params("1L", 0), n_params("2NL", 3)
    (8, 17)
    """
    arch = check_arch(arch)
    return n_weights(arch, check_hidden(hidden, arch)) + 2


def pack(arch: str, hidden: int, params: Mapping, name: str = "params") -> np.ndarray:
    """Flat vector (weights, log eta, log beta) from a mapping {"eta", "beta", weight names}."""
    if not isinstance(params, Mapping):
        raise TypeError(f"{name} must be a mapping with keys 'eta', 'beta' and "
                        f"{', '.join(weight_shapes(arch, hidden))}; got {type(params).__name__}")
    shapes = weight_shapes(arch, hidden)
    need = ["eta", "beta", *shapes]
    missing = [k for k in need if k not in params]
    if missing:
        raise ValueError(f"{name} lacks {', '.join(missing)} for arch {arch!r} (it needs {', '.join(need)})")
    extra = [k for k in params if k not in need]
    if extra:
        raise ValueError(f"{name} has unknown key(s) {', '.join(map(str, extra))} for arch {arch!r} "
                         f"(it takes {', '.join(need)})")
    parts = []
    for k, shape in shapes.items():
        w = np.asarray(params[k], dtype=np.float64)
        if w.shape != shape:
            raise ValueError(f"{name}[{k!r}] must have shape {shape} for arch {arch!r} with hidden={hidden}; "
                             f"got {w.shape}")
        if not np.isfinite(w).all():
            raise ValueError(f"{name}[{k!r}] has non-finite values")
        parts.append(w.ravel())
    for k in ("eta", "beta"):
        v = params[k]
        try:
            v = float(v)
        except (TypeError, ValueError):
            raise TypeError(f"{name}[{k!r}] must be a positive number; got {v!r}") from None
        if not (np.isfinite(v) and v > 0):
            raise ValueError(f"{name}[{k!r}] must be a positive finite number; got {v!r}")
        parts.append(np.array([np.log(v)]))
    return np.concatenate(parts)


def unpack(arch: str, hidden: int, theta: np.ndarray) -> dict:
    """Mapping {"eta", "beta", weights} from a flat vector."""
    theta = np.asarray(theta, dtype=np.float64)
    out = {}
    i = 0
    for k, (a, b) in weight_shapes(arch, hidden).items():
        out[k] = theta[i:i + a * b].reshape(a, b).copy()
        i += a * b
    out["eta"] = float(np.exp(theta[i]))
    out["beta"] = float(np.exp(theta[i + 1]))
    return out
