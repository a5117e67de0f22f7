"""Use statcore's conditional independence tests inside causal-learn's constraint-based searches.

causal-learn (>= 0.1.4) looks CI tests up by name in a registry filled by
``causallearn.utils.cit.register_ci_test(name, cls)``; ``cls`` subclasses ``CIT_Base``, is built
once per search as ``cls(data, **kwargs)`` (the extra keyword arguments of ``pc(...)``) and called
as ``cls(...)(X, Y, condition_set) -> p-value``. :func:`register_causallearn_tests` registers
statcore's GCM, RP-CIT and partial-correlation tests that way, so that

    causallearn.search.ConstraintBased.PC.pc(data, 0.01, "statcore_gcm")

runs the PC algorithm with the GCM test. Residuals of a column on a conditioning set are computed
once per search and shared by all tests that need them, as in :func:`statcore.cit.pc_skeleton`.
causal-learn is imported only when the function is called.
"""
from __future__ import annotations

import hashlib
import json

import numpy as np

from .._checks import check_positive_int, check_seed
from ._skeleton import _TESTS, _Design, _Tester

__all__ = ["register_causallearn_tests"]


def register_causallearn_tests(*, prefix: str = "statcore_", max_cached: int = 100_000) -> list:
    """Register statcore's CI tests with causal-learn under ``prefix + "gcm"``, ``"rpcit"``, ``"parcor"``.

    After the call, ``causallearn.search.ConstraintBased.PC.pc(data, alpha, "statcore_gcm")`` (and
    FCI, CD-NOD, ... which take a test name) run with statcore's tests. Keyword arguments that the
    search passes on to its CI test (``pc(..., regression="krr", k=100, seed=1)``) reach the test:
    ``regression`` chooses how residuals are computed, ``seed`` fixes the random draws (each test
    draws from a stream derived from the seed and the columns it involves), everything else goes
    to :func:`statcore.cit.gcm_test` or :func:`statcore.cit.rpcit`. ``cache_path`` keeps
    causal-learn's own p-value cache in a JSON file.

    Parameters
    ----------
    prefix : str
        Prefix of the registered names.
    max_cached : int
        Residual arrays kept per search (the cache is emptied when it grows beyond this).
        Both arguments are keyword-only.

    Returns
    -------
    list of str
        The registered names, e.g. ``["statcore_rpcit", "statcore_gcm", "statcore_parcor"]``.

    Raises
    ------
    ImportError
        When causal-learn (or its ``register_ci_test``, new in 0.1.4) is not installed.

    Examples
    --------
    >>> import numpy as np
    >>> from statcore.cit._causallearn import register_causallearn_tests
    >>> from causallearn.search.ConstraintBased.PC import pc  # doctest: +SKIP
    >>> names = register_causallearn_tests()  # doctest: +SKIP
    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(size=400); b = a + rng.normal(size=400); c = b + rng.normal(size=400)
    >>> cg = pc(np.column_stack([a, b, c]), 0.01, "statcore_gcm", show_progress=False)  # doctest: +SKIP
    >>> (cg.G.graph != 0).astype(int)  # doctest: +SKIP
    array([[0, 1, 0],
           [1, 0, 1],
           [0, 1, 0]])

    References
    ----------
    Zheng, Huang, Chen, Ramsey, Gong & Zhang (2024), causal-learn: Causal discovery in Python, JMLR
    25(60). Shah & Peters (2020), The hardness of conditional independence testing and the
    generalised covariance measure, Annals of Statistics 48(3).
    """
    if not isinstance(prefix, str):
        raise TypeError(f"prefix must be a string, got {type(prefix).__name__}")
    max_cached = check_positive_int(max_cached, "max_cached")
    try:
        from causallearn.utils.cit import CIT_Base, register_ci_test
    except ImportError as exc:
        raise ImportError("register_causallearn_tests needs causal-learn >= 0.1.4 "
                          "(pip install causal-learn)") from exc
    names = []
    for test in _TESTS:
        cls = type(f"Statcore{test.upper()}", (CIT_Base,), {
            "__init__": _make_init(CIT_Base, prefix + test, test, max_cached),
            "__call__": _call,
            "__doc__": f"statcore's {test!r} CI test for causal-learn (see register_causallearn_tests).",
        })
        register_ci_test(prefix + test, cls)
        names.append(prefix + test)
    return names


def _make_init(base: type, name: str, test: str, max_cached: int):
    def __init__(self, data, cache_path=None, seed=None, **test_args):
        base.__init__(self, data, cache_path=cache_path)
        key = json.dumps({"seed": seed, **test_args}, sort_keys=True, default=repr)
        self.check_cache_method_consistent(name, hashlib.md5(key.encode("utf-8")).hexdigest())
        self.assert_input_data_is_valid()
        values = np.asarray(data, dtype=np.float64)
        p = values.shape[1]
        design = _Design(values, list(range(p)), list(range(p)), [np.array([j]) for j in range(p)], False)
        self._tester = _Tester(design, test, test_args, int(check_seed(seed).integers(2**63)))
        self._residuals: dict = {}
        self._max_cached = max_cached
    return __init__


def _call(self, X, Y, condition_set=None):
    """The p-value of the test of column ``X`` independent of column ``Y`` given ``condition_set``."""
    Xs, Ys, cond, cache_key = self.get_formatted_XYZ_and_cachekey(X, Y, condition_set)
    if cache_key in self.pvalue_cache:
        return self.pvalue_cache[cache_key]
    if len(self._residuals) > self._max_cached:
        self._residuals.clear()
    p = self._tester.pvalue(Xs[0], Ys[0], tuple(cond), self._residuals)
    self.pvalue_cache[cache_key] = p
    return p
