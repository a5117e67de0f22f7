"""learncore.operators' data and corruptions: the bad-input sweep of every public function
(docs/conventions.md). numpy and scipy only: no torch needed."""
import numpy as np
import pytest

import apicheck
from learncore.operators import advection_1d, burgers_1d, corrupt, darcy_2d, diffusion_1d

_DS = advection_1d(6, resolution=32, n_sensors=8, seed=0)

S = apicheck.Spec
BAD_INPUT_SPECS = {
    "burgers_1d": S(burgers_1d, dict(n_samples=4, resolution=32, n_sensors=8, T=0.05, seed=0), data=("n_samples",),
                    paired=False),
    "darcy_2d": S(darcy_2d, dict(n_samples=3, resolution=8, n_sensors=4, seed=0), data=("n_samples",), paired=False),
    "advection_1d": S(advection_1d, dict(n_samples=4, resolution=32, n_sensors=8, seed=0), data=("n_samples",),
                      paired=False),
    "diffusion_1d": S(diffusion_1d, dict(n_samples=4, resolution=32, n_sensors=8, seed=0), data=("n_samples",),
                      paired=False),
    "corrupt": S(corrupt, dict(sensors=np.array(_DS.sensors, dtype=float), kind="drift", level=0.3,
                               sensor_coords=np.array(_DS.sensor_coords), seed=0),
                 data=("sensors", "sensor_coords"), paired=False),
}

EXEMPT: dict = {}
RESULT_EXAMPLES: dict = {}


@pytest.mark.parametrize("name", sorted(BAD_INPUT_SPECS))
def test_bad_input_sweep(name):
    assert apicheck.sweep_bad_inputs(BAD_INPUT_SPECS[name]) == []
