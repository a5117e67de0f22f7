"""IBL-format loaders: conversion, sign convention, NaN sides, no-go trials, files, bad input."""
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from learncore.learning_rules._trials import check_trials
from learncore.learning_rules.io import IBLFormatWarning, from_ibl, read_ibl_trials

LEVELS = np.array([0.0, 0.0625, 0.125, 0.25, 1.0])


def ibl_table(n=300, n_sessions=3, p_correct=0.8, nogo_rate=0.0, seed=0, snake=False):
    """A synthetic IBL trials table: stimulus side, contrast, choice (-1 = right) and matching feedback."""
    rng = np.random.default_rng(seed)
    stim_right = rng.random(n) < 0.5
    contrast = rng.choice(LEVELS, n)
    correct = rng.random(n) < p_correct
    chose_right = np.where(correct, stim_right, ~stim_right)
    choice = np.where(chose_right, -1, 1)
    nogo = rng.random(n) < nogo_rate
    choice[nogo] = 0
    feedback = np.where(correct & ~nogo, 1, -1)
    df = pd.DataFrame({
        "contrastLeft": np.where(stim_right, np.nan, contrast),
        "contrastRight": np.where(stim_right, contrast, np.nan),
        "choice": choice, "feedbackType": feedback,
        "probabilityLeft": 0.5, "stimOn_times": np.cumsum(rng.uniform(2, 5, n)),
        "eid": np.repeat([f"eid-{k}" for k in range(n_sessions)], -(-n // n_sessions))[:n],
    })
    if snake:
        df = df.rename(columns={"contrastLeft": "contrast_left", "contrastRight": "contrast_right",
                                "feedbackType": "feedback_type"})
    return df


def test_conversion_matches_definition():
    df = ibl_table()
    out = from_ibl(df)
    assert list(out.columns) == ["contrast_left", "contrast_right", "choice", "reward", "session"]
    stim_right = df["contrastRight"].notna().to_numpy()
    np.testing.assert_array_equal(out["contrast_right"], np.where(stim_right, df["contrastRight"], 0.0))
    np.testing.assert_array_equal(out["contrast_left"], np.where(stim_right, 0.0, df["contrastLeft"]))
    np.testing.assert_array_equal(out["choice"], np.where(df["choice"] == -1, "right", "left"))
    np.testing.assert_array_equal(out["reward"], (df["feedbackType"] == 1).astype(int))
    np.testing.assert_array_equal(out["session"], df["eid"])
    td = check_trials(out)
    assert td.session_labels == ["eid-0", "eid-1", "eid-2"]
    # in the IBL task the stimulus side is the rewarded side
    np.testing.assert_array_equal(td.rewarded_side, stim_right.astype(int))
    assert out.attrs["nogo_dropped"] == []
    assert out.index.equals(df.index)


def test_sign_convention_of_choice():
    # ibllib: a correct report of a stimulus on the right is choice -1 (brainbox: rightward = choice == -1)
    df = pd.DataFrame({"contrastLeft": [np.nan, 0.5, np.nan, 0.25], "contrastRight": [1.0, np.nan, 0.125, np.nan],
                       "choice": [-1, 1, 1, -1], "feedbackType": [1, 1, -1, -1]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = from_ibl(df)
    assert out["choice"].tolist() == ["right", "left", "left", "right"]
    assert out["reward"].tolist() == [1, 1, 0, 0]


def test_flipped_choice_sign_warns():
    df = ibl_table(n=50, p_correct=0.9, seed=3)
    df["choice"] = -df["choice"]
    with pytest.warns(IBLFormatWarning, match="choice sign is probably flipped"):
        from_ibl(df)


def test_zero_contrast_side_and_nan_side():
    # zero contrast: 0 on the (invisible) stimulus side, NaN on the other; both become 0
    df = pd.DataFrame({"contrastLeft": [0.0, np.nan], "contrastRight": [np.nan, 0.0],
                       "choice": [1, 1], "feedbackType": [1, -1]})
    out = from_ibl(df)
    assert out[["contrast_left", "contrast_right"]].to_numpy().tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert check_trials(out).rewarded_side.tolist() == [0, 1]


def test_snake_case_and_session_options():
    df = ibl_table(snake=True)
    out = from_ibl(df)
    assert out["session"].nunique() == 3
    df2 = df.drop(columns="eid")
    out2 = from_ibl(df2)
    assert "session" not in out2.columns
    df2["mouse_day"] = np.repeat(["a", "b"], len(df2) // 2)
    assert from_ibl(df2, session="mouse_day")["session"].tolist() == df2["mouse_day"].tolist()
    with pytest.raises(ValueError, match="session='nope' is not a column"):
        from_ibl(df2, session="nope")
    with pytest.raises(TypeError, match="session must be"):
        from_ibl(df2, session=3)
    # auto-detection order: "session" before "eid"
    df3 = ibl_table()
    df3["session"] = 7
    assert set(from_ibl(df3)["session"]) == {7}


def test_noncontiguous_sessions_refused():
    df = ibl_table(n=30, n_sessions=3)
    df["eid"] = np.tile(["a", "b", "c"], 10)
    with pytest.raises(ValueError, match=r"df\['eid'\].*contiguous"):
        from_ibl(df)


def test_nogo_raise_and_drop():
    df = ibl_table(n=400, nogo_rate=0.1, seed=5)
    n_nogo = int((df["choice"] == 0).sum())
    assert n_nogo > 0
    with pytest.raises(ValueError, match=rf"{n_nogo} no-go trial.*nogo='drop'"):
        from_ibl(df)
    with pytest.warns(IBLFormatWarning, match=rf"dropped {n_nogo} no-go"):
        out = from_ibl(df, nogo="drop")
    assert len(out) == len(df) - n_nogo
    np.testing.assert_array_equal(out.attrs["nogo_dropped"], np.flatnonzero(df["choice"] == 0))
    assert out.index.equals(df.index[df["choice"] != 0])
    with pytest.raises(ValueError, match="nogo .*choose one of"):
        from_ibl(df, nogo="keep")
    allnogo = df.assign(choice=0)
    with pytest.raises(ValueError, match="every one"):
        from_ibl(allnogo, nogo="drop")


@pytest.mark.parametrize("ext", [".csv", ".csv.gz", ".parquet", ".pq"])
def test_round_trip_files(tmp_path, ext):
    df = ibl_table(n=200, nogo_rate=0.05, seed=11)
    path = tmp_path / f"trials{ext}"
    if ext.startswith(".csv"):
        df.to_csv(path, index=False)
    else:
        df.to_parquet(path, index=False)
    with pytest.warns(IBLFormatWarning, match="no-go"):
        got = read_ibl_trials(path, nogo="drop")
    with pytest.warns(IBLFormatWarning, match="no-go"):
        want = from_ibl(df, nogo="drop")
    pd.testing.assert_frame_equal(got, want)
    with pytest.warns(IBLFormatWarning, match="no-go"):
        got_str = read_ibl_trials(str(path), nogo="drop", session="eid")
    pd.testing.assert_frame_equal(got_str, want)


def test_parquet_without_pyarrow(tmp_path, monkeypatch):
    path = tmp_path / "trials.parquet"
    ibl_table(n=20).to_parquet(path)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(ImportError, match="pip install pyarrow"):
        read_ibl_trials(path)


def test_unknown_extension(tmp_path):
    path = tmp_path / "trials.xlsx"
    path.write_text("x")
    with pytest.raises(ValueError, match="trials.xlsx"):
        read_ibl_trials(path)
    with pytest.raises(TypeError, match="path must be"):
        read_ibl_trials(3)


def test_missing_columns():
    df = ibl_table(n=20)
    for col in ("contrastLeft", "contrastRight", "choice", "feedbackType"):
        with pytest.raises(ValueError, match="lacks a column"):
            from_ibl(df.drop(columns=col))
    both = df.assign(contrast_left=df["contrastLeft"])
    with pytest.raises(ValueError, match="both 'contrastLeft' and 'contrast_left'"):
        from_ibl(both)
    with pytest.raises(TypeError, match="DataFrame"):
        from_ibl(df.to_dict())
    with pytest.raises(ValueError, match="no trials"):
        from_ibl(df.iloc[:0])


def test_bad_choice_and_feedback_codes():
    df = ibl_table(n=20)
    bad = df.copy()
    bad.loc[4, "choice"] = 2
    with pytest.raises(ValueError, match="row 4 holds 2"):
        from_ibl(bad)
    bad = df.astype({"choice": float})
    bad.loc[6, "choice"] = np.nan
    with pytest.raises(ValueError, match="row 6 holds nan"):
        from_ibl(bad)
    bad = df.astype({"choice": object})
    bad.loc[0, "choice"] = "right"
    with pytest.raises(TypeError, match="choice"):
        from_ibl(bad)
    bad = df.copy()
    bad.loc[3, "feedbackType"] = 0
    with pytest.raises(ValueError, match=r"feedbackType.*row 3"):
        from_ibl(bad)


def test_bad_contrasts():
    df = ibl_table(n=20)
    right = df["contrastRight"].notna().to_numpy()
    i, j = int(np.flatnonzero(right)[0]), int(np.flatnonzero(~right)[0])
    bad = df.copy()
    bad.loc[i, "contrastLeft"] = 0.5          # contrast on both sides
    with pytest.raises(ValueError, match=f"row {i} of df has a contrast on both sides"):
        from_ibl(bad)
    bad = df.copy()
    bad.loc[j, "contrastLeft"] = np.nan       # NaN on both sides
    with pytest.raises(ValueError, match=f"row {j} of df has NaN contrast on both sides"):
        from_ibl(bad)
    bad = df.copy()
    bad.loc[i, "contrastRight"] = 25.0
    with pytest.raises(ValueError, match="percent"):
        from_ibl(bad)
    bad.loc[i, "contrastRight"] = -0.25
    with pytest.raises(ValueError, match=f"row {i} holds -0.25"):
        from_ibl(bad)
    bad = df.astype({"contrastRight": object})
    bad.loc[i, "contrastRight"] = "high"
    with pytest.raises(TypeError, match="contrastRight"):
        from_ibl(bad)


def test_nullable_parquet_dtypes():
    df = ibl_table(n=40)
    df = df.astype({"contrastLeft": "Float64", "contrastRight": "Float64", "choice": "Int64",
                    "feedbackType": "Int64"})
    out = from_ibl(df)
    pd.testing.assert_frame_equal(out, from_ibl(ibl_table(n=40)))


def test_missing_session_values():
    df = ibl_table(n=20)
    df["eid"] = df["eid"].astype(object)
    df.loc[5, "eid"] = None
    with pytest.raises(ValueError, match=r"session column.*row 5"):
        from_ibl(df)
