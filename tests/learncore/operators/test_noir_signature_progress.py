"""latent_signature's progress: a bar over each condition's pairs (independence_matrix's) when asked, the
same signature with or without it and for n_jobs = 1 or 2, and a bad progress refused before any work."""
import numpy as np
import pandas as pd
import pytest

from helpers import require_torch

torch = require_torch()
torch.set_num_threads(1)

from noir_tiny import heat_1d  # noqa: E402
from learncore.operators import DeepONet, latent_signature  # noqa: E402

DS = heat_1d(40, n_test=24)


def _gauss(s, level, *, sensor_coords, seed):
    return s + level * s.std(axis=1, keepdims=True) * seed.normal(size=s.shape)


def _net():
    return DeepONet.from_dataset(DS, seed=0, p=4, branch_hidden=(8,), trunk_hidden=(8,))


def test_progress_and_n_jobs_leave_the_signature_unchanged(capsys):
    pytest.importorskip("tqdm")
    net = _net()
    kw = dict(corruptions={"gauss": _gauss}, level=0.3, B=49, seed=1, test="dcor")
    quiet = latent_signature(net, DS, **kw)
    assert capsys.readouterr().err == ""
    loud = latent_signature(net, DS, progress=True, **kw)
    assert "%|" in capsys.readouterr().err
    two = latent_signature(net, DS, n_jobs=2, **kw)
    for other in (loud, two):
        pd.testing.assert_frame_equal(quiet.to_frame(), other.to_frame())


def test_bad_progress_is_refused():
    with pytest.raises(TypeError, match="progress"):
        latent_signature(_net(), DS, corruptions=[], test="dcor", progress="yes")
