"""Weight profiles of composite scores: the built-in HiFD-like profiles (ours) and the resolution of a
user's profile, weights or dict of named weights into one normalised weight vector per profile."""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .._checks import as_simplex_weights

__all__ = ["BUILTIN_PROFILES", "resolve_profiles"]

#: Our HiFD-like profiles over three components in this order: privacy (e.g. 1 - identity
#: similarity), utility (e.g. SSIM) and quality (e.g. a mapped PSNR). They are illustrations of ours:
#: the HiFD paper does not publish its exact weights.
BUILTIN_PROFILES = {
    "balanced": (1 / 3, 1 / 3, 1 / 3),
    "privacy_first": (0.5, 0.25, 0.25),
    "utility_first": (0.25, 0.5, 0.25),
}


def _one(value, name: str, labels: list) -> np.ndarray:
    k = len(labels)
    if isinstance(value, Mapping):
        unknown = [c for c in value if c not in labels]
        if unknown:
            raise ValueError(f"{name} names components {unknown!r} that are not among {labels!r}")
        value = [value.get(c, 0.0) for c in labels]
    return as_simplex_weights(value, name, k)


def resolve_profiles(profile, weights, labels: list, arg: str = "profile") -> dict:
    """{profile name: normalised weights (one per component of ``labels``)}; ``arg`` names ``profile``
    in the messages."""
    k = len(labels)
    if profile is not None and weights is not None:
        raise ValueError("give profile or weights, not both (weights is one unnamed profile)")
    if profile is None:
        if weights is None:
            return {"equal": np.full(k, 1.0 / k)}
        return {"weights": _one(weights, "weights", labels)}
    if isinstance(profile, str):
        profile = [profile]
    if isinstance(profile, Mapping):
        if not profile:
            raise ValueError(f"{arg} is an empty dict: give at least one name -> weights")
        return {str(name): _one(w, f"{arg}[{name!r}]", labels) for name, w in profile.items()}
    if isinstance(profile, (list, tuple)) and profile and all(isinstance(v, str) for v in profile):
        out = {}
        for name in profile:
            if name not in BUILTIN_PROFILES:
                raise ValueError(f"{arg}: {name!r} is not a built-in profile ({sorted(BUILTIN_PROFILES)}); "
                                 "pass a dict name -> weights for your own")
            if k != 3:
                raise ValueError(f"{arg}: {name!r} weighs three components (privacy, utility, quality), but "
                                 f"components has {k}")
            out[name] = np.asarray(BUILTIN_PROFILES[name], dtype=float)
        return out
    raise TypeError(f"{arg} must be a built-in name, a list of them or a dict name -> weights, got "
                    f"{type(profile).__name__}")
