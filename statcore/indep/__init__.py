"""Independence testing: distance covariance and correlation (R energy's dcov, dcor, bcdcor, pdcor,
dcor.test, dcov.test, dcorT.test, pdcor.test), HSIC and joint independence (dHSIC), approximate
HSIC for large n, and all pairwise tests among the columns of a matrix (``independence_matrix``).
"""
__all__: list[str] = []

# --- distance covariance family (dcor.py) ---

# --- HSIC family (hsic.py) ---

# --- pairwise tests among columns (matrix.py) ---
from .matrix import IndependenceMatrix, independence_matrix  # noqa: E402
__all__ += ["independence_matrix", "IndependenceMatrix"]
