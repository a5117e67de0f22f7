"""Independence testing: distance covariance and correlation (R energy's dcov, dcor, bcdcor, pdcor,
dcor.test, dcov.test, dcorT.test, pdcor.test), HSIC and joint independence (dHSIC), approximate
HSIC for large n, and all pairwise tests among the columns of a matrix (``independence_matrix``).
"""
__all__: list[str] = []

# --- distance covariance family (_dcov.py: the statistics; _dcor.py: the tests) ---
from ._dcov import dcor, dcor_u, dcov, dcov_u, pdcor, pdcov  # noqa: E402
from ._dcor import dcor_test, dcov_test, pdcor_test  # noqa: E402
__all__ += ["dcov", "dcor", "dcov_u", "dcor_u", "pdcov", "pdcor", "dcor_test", "dcov_test", "pdcor_test"]

# --- HSIC family (_hsic.py, _dhsic.py) ---
from ._hsic import hsic, hsic_test  # noqa: E402
from ._dhsic import dhsic, dhsic_test  # noqa: E402
__all__ += ["hsic", "hsic_test", "dhsic", "dhsic_test"]

# --- pairwise tests among columns (matrix.py) ---
from ._matrix import IndependenceMatrix, independence_matrix  # noqa: E402
__all__ += ["independence_matrix", "IndependenceMatrix"]
