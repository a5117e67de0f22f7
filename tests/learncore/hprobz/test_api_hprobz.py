"""learncore.hprobz's public API: the bad-input sweep of every public function, the result protocol of
every result class, and the input checks of the distributions' and heads' constructors
(docs/conventions.md)."""
import warnings

import numpy as np
import pytest

from helpers import require_torch

torch = require_torch()
torch.set_num_threads(1)

import apicheck  # noqa: E402
import statcore  # noqa: E402
import learncore.hprobz as hz  # noqa: E402
from learncore.hprobz import (GaussianMixture, HProbZ, HProbZFit, HProbZHead, MixtureHead,  # noqa: E402
                              TrajectorySets, fit, simulate_routes)

X, Y, _ = simulate_routes(40, T=3, seed=0)

S = apicheck.Spec
BAD_INPUT_SPECS = {
    # X = None fits one unconditional distribution (documented)
    "fit": S(fit, dict(X=X, y=Y, n_modes=2, hidden=(), max_iter=3, seed=0, warn=False), data=("X", "y"),
             ok={("X", "none")}),
    "simulate_routes": S(simulate_routes, dict(n=20, T=3, seed=0), data=("n",), paired=False),
}

EXEMPT: dict = {}


def _fit_example():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fit(X, Y, n_modes=2, hidden=(3,), max_iter=10, seed=0)


def _sets_example():
    d = HProbZ(torch.zeros(2, dtype=torch.float64), torch.tensor([[-2.0, 0.0], [2.0, 1.0]], dtype=torch.float64),
               torch.full((2, 2, 1), 0.5, dtype=torch.float64), torch.full((2, 2), 0.3, dtype=torch.float64))
    y = d.sample((30,), seed=0)
    return d.conformal_sets(d.conformity_scores(y), alpha=0.2)


RESULT_EXAMPLES = {
    "HProbZFit": _fit_example,
    "TrajectorySets": _sets_example,
    "RouteSample": lambda: simulate_routes(12, T=3, seed=0),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_input_sweep(name):
    assert apicheck.sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []


@pytest.mark.parametrize("name", sorted(RESULT_EXAMPLES))
def test_result_protocol(name):
    apicheck.check_result_protocol(RESULT_EXAMPLES[name]())


def test_every_public_callable_is_registered():
    funcs = [n for n in hz.__all__ if callable(getattr(hz, n)) and not isinstance(getattr(hz, n), type)]
    assert sorted(set(funcs) - set(BAD_INPUT_SPECS) - set(EXEMPT)) == []
    results = [n for n in hz.__all__ if isinstance(getattr(hz, n), type) and issubclass(getattr(hz, n), statcore.Result)]
    assert sorted(results) == sorted(RESULT_EXAMPLES)


def test_import_learncore_does_not_import_torch():
    import subprocess
    import sys

    code = "import sys, learncore; assert 'torch' not in sys.modules, 'learncore imported torch'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_registered_with_statcore_loglik():
    res = _fit_example()
    ll = statcore.loglik(res)
    assert ll.value == res.loglik and ll.df == res.df and ll.nobs == res.nobs
    assert repr(res).startswith("HProbZFit(head='hprobz'")


@pytest.mark.parametrize("bad, kind", [(None, TypeError), ("abc", TypeError), ([["a"]], TypeError),
                                       (np.array([[np.nan, 0.0]]), ValueError), (np.zeros((2, 5, 4)), ValueError)])
def test_distribution_constructors_name_the_bad_argument(bad, kind):
    good = dict(logits=np.zeros(2), mu=np.zeros((2, 2)), G=np.ones((2, 2, 1)), s=np.ones((2, 2)))
    for name in good:
        kw = dict(good)
        kw[name] = bad
        with pytest.raises((TypeError, ValueError), match=name):
            HProbZ(**kw)
    gm = dict(logits=np.zeros(2), mu=np.zeros((2, 2)), sigma=np.ones((2, 2)))
    for name in gm:
        kw = dict(gm)
        kw[name] = bad
        with pytest.raises((TypeError, ValueError), match=name):
            GaussianMixture(**kw)


def test_heads_check_their_arguments():
    with pytest.raises(ValueError, match="n_modes"):
        HProbZHead(3, T=2, n_modes=0, m=1)
    with pytest.raises(TypeError, match="T"):
        HProbZHead(3, T="2", n_modes=2, m=1)
    with pytest.raises(ValueError, match="s_floor"):
        HProbZHead(3, T=2, n_modes=2, m=1, s_floor=0.0)
    with pytest.raises(ValueError, match="noise"):
        HProbZHead(3, T=2, n_modes=2, m=1, noise="tied")
    with pytest.raises(ValueError, match="sigma_floor"):
        MixtureHead(3, T=2, n_modes=2, sigma_floor=-1.0)
    with pytest.raises(TypeError, match="features must be a tensor"):
        HProbZHead(3, T=2, n_modes=2, m=1)(np.ones((2, 3)))


def test_distribution_methods_check_their_arguments():
    d = HProbZ(np.zeros(2), np.zeros((2, 3)), np.ones((2, 3, 1)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="steps"):
        d.marginal([3])
    with pytest.raises(TypeError, match="steps"):
        d.marginal("0")
    with pytest.raises(ValueError, match="scale must be positive"):
        d.affine(np.zeros(3), np.zeros(3))
    with pytest.raises(ValueError, match="seed"):
        d.sample((2,), seed=-1)
    with pytest.raises(ValueError, match="n_grid"):
        d.conformal_sets(np.full((20, 3), -0.1), alpha=0.1, n_grid=1)
    assert isinstance(HProbZFit, type) and isinstance(TrajectorySets, type)


def test_simulate_routes_is_a_result_that_unpacks():
    res = simulate_routes(50, T=4, n_routes=4, seed=3)
    X, y, route = res
    assert X is res.X and y is res.y and route is res.route and res.n_routes == 4
    assert X.shape == (50, 2) and y.shape == (50, 4) and set(route.tolist()) <= {0, 1, 2, 3}
    frame = res.to_frame()
    assert list(frame.columns) == ["heading", "speed", "route", "y_1", "y_2", "y_3", "y_4"]
    np.testing.assert_array_equal(frame[["y_1", "y_2", "y_3", "y_4"]].to_numpy(), y)
    assert res == simulate_routes(50, T=4, n_routes=4, seed=3)  # the seed fixes the sample
