"""evaluate and latent_signature: the tidy error table, paired corrupted readings across models, the
signature's numbers against their closed forms."""
import numpy as np
import pandas as pd
import pytest

from helpers import require_torch

torch = require_torch()
torch.set_num_threads(1)

import statcore  # noqa: E402
from noir_tiny import heat_1d  # noqa: E402
from learncore.operators import NOIR, DeepONet, OperatorErrors, evaluate, latent_signature  # noqa: E402

DS = heat_1d(60, n_test=30)
SMALL = dict(p=4, branch_hidden=(12,), trunk_hidden=(12,))
SEEN = []


def _gauss(s, level, *, sensor_coords, seed):
    SEEN.append(seed.bit_generator.state["state"]["state"])
    return s + level * s.std(axis=1, keepdims=True) * seed.normal(size=s.shape)


def _shift(s, level, *, sensor_coords, seed):
    return s + level * sensor_coords[:, 0]


NOISE = {"gauss": _gauss, "shift": _shift}


def _net(seed=0):
    return DeepONet.from_dataset(DS, seed=seed, **SMALL)


def test_table_is_tidy_and_clean_rows_are_the_relative_l2():
    net = _net()
    res = evaluate(net, DS, corruptions=NOISE, levels=(0.1, 0.3), seed=0)
    assert isinstance(res, OperatorErrors) and res.split == "test"
    tab = res.to_frame()
    assert res.mean_errors()["rel_l2"].tolist() == tab.groupby(["corruption", "level"], sort=False)[
        "rel_l2"].mean().tolist()
    assert list(tab.columns) == ["sample", "corruption", "level", "rel_l2"]
    assert len(tab) == 30 * 5 and tab.groupby(["corruption", "level"]).size().eq(30).all()
    clean = tab[tab.corruption == "none"]
    with torch.no_grad():
        pred = net(DS.sensors[DS.test_idx]).double().numpy()
    y = DS.targets[DS.test_idx]
    assert np.array_equal(clean["sample"].to_numpy(), DS.test_idx)
    assert np.allclose(clean["rel_l2"], np.linalg.norm(pred - y, axis=1) / np.linalg.norm(y, axis=1), rtol=1e-12)
    # a deterministic corruption at level 0 is the clean evaluation
    zero = evaluate(net, DS, corruptions={"shift": _shift}, levels=(0.0,), clean=False, seed=0).to_frame()
    assert np.array_equal(zero["rel_l2"].to_numpy(), clean["rel_l2"].to_numpy())
    assert net.training  # the mode is restored


def test_same_seed_same_corrupted_readings_for_every_model_and_request():
    SEEN.clear()
    a = evaluate(_net(0), DS, corruptions=NOISE, levels=(0.2,), seed=3, clean=False)
    first = list(SEEN)
    SEEN.clear()
    evaluate(_net(1), DS, corruptions={"gauss": _gauss}, levels=(0.5, 0.2), seed=3, clean=False)
    assert SEEN[1] == first[0]             # the (gauss, 0.2) cell draws the same stream, whatever else is asked
    b = evaluate(_net(0), DS, corruptions=NOISE, levels=(0.2,), seed=3, clean=False)
    pd.testing.assert_frame_equal(a.to_frame(), b.to_frame())
    assert a == b  # results compare by value
    c = evaluate(_net(0), DS, corruptions=NOISE, levels=(0.2,), seed=4, clean=False)
    assert not np.array_equal(a.table["rel_l2"], c.table["rel_l2"]) and a != c


def test_latent_signature_numbers_against_closed_forms():
    net = _net()
    NOIR(net, lam=0.0).fit(DS, epochs=3, batch_size=10, seed=0)
    sig = latent_signature(net, DS, corruptions={"gauss": _gauss}, level=0.3, B=99, seed=1, test="dcor")
    frame = sig.to_frame()
    assert list(frame["condition"]) == ["clean", "gauss"] and list(frame["level"]) == [0.0, 0.3]
    with torch.no_grad():
        z = net.latent(DS.sensors[DS.test_idx]).double().numpy()
    m = sig.matrices[0]
    ref = statcore.independence_matrix(pd.DataFrame(z, columns=["z1", "z2", "z3", "z4"]), test="dcor", B=99,
                                       seed=np.random.default_rng(0))  # p-values differ by seed, estimates do not
    assert np.allclose(m.estimate, ref.estimate, equal_nan=True)
    assert sig.n_dependent[0] == int(np.triu(m.p_adjusted <= 0.05, 1).sum())
    assert sig.share_dependent[0] == sig.n_dependent[0] / 6
    assert sig.total_correlation[0] == pytest.approx(-0.5 * np.linalg.slogdet(np.corrcoef(z.T))[1], rel=1e-10)
    lam = np.linalg.eigvalsh(np.cov(z.T))
    assert sig.participation_ratio[0] == pytest.approx(lam.sum() ** 2 / (lam ** 2).sum(), rel=1e-10)
    assert 1.0 <= sig.participation_ratio[1] <= 4.0
    again = latent_signature(net, DS, corruptions={"gauss": _gauss}, level=0.3, B=99, seed=1, test="dcor")
    pd.testing.assert_frame_equal(frame, again.to_frame())


class _Dead(torch.nn.Module):
    """A model whose third latent coordinate is constant (a dead unit)."""

    def forward_latent(self, x):
        z = torch.stack([x[:, 0], x[:, 1] ** 2, torch.zeros_like(x[:, 0]), x[:, 2]], dim=1)
        return x.sum(1, keepdim=True).expand(-1, DS.targets.shape[1]) + 5.0, z


def test_dead_units_are_counted_and_left_out():
    sig = latent_signature(_Dead(), DS, corruptions=[], test="dcor", method="t")
    assert sig.n_constant[0] == 1 and sig.n_pairs[0] == 3 and sig.p == 4
    assert sig.matrices[0].names == ("z1", "z2", "z4")


@pytest.mark.parametrize("call, err, match", [
    (lambda: evaluate(_net(), DS, corruptions=NOISE, levels=(-0.1,)), ValueError, "levels"),
    (lambda: evaluate(_net(), DS, corruptions=NOISE, levels=()), ValueError, "levels"),
    (lambda: evaluate(_net(), DS, corruptions={"x": 3}), TypeError, "corruptions"),
    (lambda: evaluate(_net(), DS, corruptions=NOISE, split="val"), ValueError, "split"),
    (lambda: evaluate(_net(), DS, corruptions={}, clean=False), ValueError, "nothing to evaluate"),
    (lambda: evaluate(_net(), DS, corruptions={"bad": lambda s, level, **k: s[:, :2]}), ValueError, "bad"),
    (lambda: evaluate(np.zeros(3), DS, corruptions=NOISE), TypeError, "model"),
    (lambda: latent_signature(_net(), DS, corruptions=[], test="pearson"), ValueError, "test"),
    (lambda: latent_signature(_net(), DS, corruptions=[], participation="rank"), ValueError, "participation"),
])
def test_bad_arguments_are_named(call, err, match):
    with pytest.raises(err, match=match):
        call()


def test_with_the_five_corruptions_of_the_data_module():
    from learncore.operators import CORRUPTIONS, diffusion_1d

    ds = diffusion_1d(40, resolution=32, n_sensors=8, seed=0)
    net = DeepONet.from_dataset(ds, **SMALL)
    tab = evaluate(net, ds, levels=(0.0, 0.2), seed=0).to_frame()
    assert set(tab["corruption"]) == {"none", *CORRUPTIONS}
    clean = tab.loc[tab.corruption == "none", "rel_l2"].to_numpy()
    for kind in CORRUPTIONS:          # corrupt(level=0) is an exact copy: the clean errors
        assert np.array_equal(tab.loc[(tab.corruption == kind) & (tab.level == 0.0), "rel_l2"].to_numpy(), clean)
        assert not np.array_equal(tab.loc[(tab.corruption == kind) & (tab.level == 0.2), "rel_l2"].to_numpy(), clean)
    sig = latent_signature(net, ds, level=0.2, method="t", seed=0)
    assert sig.condition == ("clean", *CORRUPTIONS) and np.isfinite(sig.participation_ratio).all()
