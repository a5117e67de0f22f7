"""evaluate restores the model's mode even when a forward pass raises (issue 29: it was left in eval)."""
import numpy as np
import pytest

from helpers import require_torch

require_torch()

from noir_tiny import heat_1d  # noqa: E402
from learncore.operators import DeepONet, evaluate  # noqa: E402

DS = heat_1d(40, n_test=10)


def test_evaluate_restores_training_mode_when_the_model_raises():
    net = DeepONet.from_dataset(DS, seed=0, p=4, branch_hidden=(8,), trunk_hidden=(8,))

    def broken(sensors, level, *, sensor_coords, seed):
        return sensors

    class Boom(RuntimeError):
        pass

    def explode(*args, **kwargs):
        raise Boom("forward failed")

    net.train()
    net.forward_latent = explode
    with pytest.raises(Boom):
        evaluate(net, DS, corruptions={"none2": broken}, levels=(0.1,))
    assert net.training
    net.eval()
    with pytest.raises(Boom):
        evaluate(net, DS, corruptions={"none2": broken}, levels=(0.1,))
    assert not net.training
    del net.forward_latent
    net.train()
    tab = evaluate(net, DS, corruptions={"none2": broken}, levels=(0.1,))
    assert net.training and np.isfinite(tab.to_frame()["rel_l2"]).all()
