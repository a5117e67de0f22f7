"""Two-sample comparison of feature distributions, for evaluating generative models without
over-reading one number: the Frechet distance (FID from features) with a bootstrap interval and its
extrapolation to infinite n, KID and the MMD permutation test, the energy test (R energy's
``eqdist.etest``), k-NN precision/recall/density/coverage, and the stability of model rankings across
evaluation protocols."""
__all__: list[str] = []

from ._frechet import (FIDInfinityResult, FrechetResult, fid_infinity, frechet_distance,  # noqa: E402
                       frechet_distance_stats)
__all__ += ["frechet_distance", "frechet_distance_stats", "FrechetResult", "fid_infinity", "FIDInfinityResult"]

from ._mmd import KIDResult, energy_test, kid, mmd_test  # noqa: E402
__all__ += ["kid", "KIDResult", "mmd_test", "energy_test"]

from ._prdc import PRDCResult, prdc  # noqa: E402
__all__ += ["prdc", "PRDCResult"]

from ._rank import RankStabilityResult, rank_stability  # noqa: E402
__all__ += ["rank_stability", "RankStabilityResult"]
