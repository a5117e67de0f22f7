# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # Stereo depth accuracy: millimetres, not ratios
#
# **What is the paper's and what is ours.** The argument and the metrics are HumanStereo's: on
# close-range stereo of people, the relative metric delta_1 (the share of pixels with
# max(Z / Z_gt, Z_gt / Z) < 1.25) is near 1 for every method, while the absolute inlier ratio IR(tau),
# the share of pixels whose depth is within tau millimetres, separates them; what a clinician needs is
# the landmark 3-D error (L3DE) and the inter-pupillary distance (IPD) to within 1 mm. The paper's data
# and networks cannot run here. What follows is ours: the block matcher and the semi-global matcher
# (`learncore.stereo`, compiled with numba; OpenCV's SGBM as an optional peer), IR's interval from
# `statcore.within_tolerance`'s 2-D block bootstrap, a synthetic face rig with exact depth, landmarks and
# pupils, and the IPD study by `statcore.bland_altman` and `statcore.tost`.
#
# Here, in seconds: scikit-image's Middlebury Motorcycle pair at half its size, a few simulated faces at
# two baselines. The full runs (the pair at 500 x 741 with 128 disparities; 20 subjects at 4 baselines)
# are `benchmarks/stereo_demo.py`; their figures are in `benchmarks/README.md`.

# %%
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

import learncore
import statcore as sc
from learncore.stereo import disparity_to_depth, face_rig, inlier_ratio, stereo_motorcycle

ROOT = Path(learncore.__file__).resolve().parents[1]
# the study's harness is the benchmarks': benchmarks/_stereo_study.py of the repository
sys.path.insert(0, str(ROOT / "benchmarks"))
import _stereo_study as study  # noqa: E402

FIG = Path("figures")
FIG.mkdir(exist_ok=True)
pd.set_option("display.width", 160)

# %% [markdown]
# ## 1. A millimetre of depth is a fraction of a pixel
#
# In a rectified pair the depth is Z = f B / (d + doffs). A disparity error delta moves it by
# -f B delta / ((d + doffs)(d + doffs + delta)), about -Z^2 delta / (f B): a quarter of a pixel costs
# little near the cameras and a lot far away. With the Motorcycle calibration (f = 995 px, B = 193 mm):

# %%
f, B, doffs = 994.978, 193.001, 31.086
for Z in (500.0, 1000.0, 2000.0, 4000.0):
    d = f * B / Z - doffs
    if d < 0:
        continue
    dz = disparity_to_depth(d + 0.25, f=f, baseline=B, doffs=doffs) - Z
    print(f"Z = {Z:6.0f} mm: d = {d:6.1f} px, a 0.25 px error moves Z by {dz:8.2f} mm")

# %% [markdown]
# ## 2. The real pair: delta_1 is high, IR(10 mm) is not
#
# Middlebury 2014 Motorcycle (scikit-image's copy at 1/4 of the original size, halved again here:
# 250 x 370 pixels, 64 disparities; the depth of the scene is 2.1 to 5 m). Every pixel with ground truth
# counts; a pixel a matcher leaves without an estimate is an outlier. IR's interval is the 2-D moving-block
# bootstrap with 50 x 50 blocks (`block=` of `inlier_ratio`).

# %%
scene = study.downsample(stereo_motorcycle(), 2)
table, disps = study.evaluate_scene(scene, 64, taus=(10.0, 50.0), block=(50, 50), B=499, seed=0)
print(table[["matcher", "delta_1", "epe_px", "bad_2", "missing", "ir_10", "ir_10_low", "ir_10_high", "ir_50"]]
      .round(3).to_string(index=False))

# %% [markdown]
# The semi-global matcher reaches delta_1 of 0.93 with fewer than half of its pixels within 10 mm; delta_1
# ranks OpenCV's SGBM last only because it leaves the left band without estimates (its end-point error on
# the pixels it does estimate is the lowest). The error maps show where the millimetres go: the
# untextured floor and wall, the occlusion borders.

# %%
fig = study.plot_error_maps(scene, disps)
fig.savefig(FIG / "protocol_stereo_error_maps.png", dpi=80)
plt.show()

# %%
curves = study.ir_curves(scene, disps, (2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0), block=(50, 50), B=199, seed=0)
fig = study.plot_ir_curves(curves, dict(zip(table["matcher"], table["delta_1"])))
fig.savefig(FIG / "protocol_stereo_ir_tau.png", dpi=90)
plt.show()

# %% [markdown]
# Only at tolerances of 10 cm and more does IR approach the level delta_1 reports. The bands are wide: with
# 50 x 50 blocks the image holds 35 of them, and neighbouring pixels err together; the binomial interval
# (`block=None`) would be about +-0.003 and wrong.
#
# ## 3. The face rig: landmarks and the IPD
#
# `face_rig` renders a textured parametric head (our synthetic stand-in, with exact depth, 10 landmarks
# and the pupils), here at 450 mm with a 20 mm baseline.

# %%
rig = face_rig(baseline=20.0, seed=3)
ax = rig.plot()
ax[0].figure.savefig(FIG / "protocol_stereo_rig.png", dpi=80)
plt.show()
print(rig.to_frame().round(1).to_string(index=False))

# %% [markdown]
# The IPD study, small: 5 simulated subjects (IPD about N(63, 3.5) mm, 400 to 500 mm away) at baselines of
# 10 and 40 mm, rendered at 120 x 150 pixels (f = 300 px, the benchmark's field of view at 3/4 of its
# resolution); the pupils' true pixels are lifted by each matcher's depth (the landmark detector is not
# under test). `bland_altman` gives the bias and limits of agreement of the estimated against the true
# IPD; the paired `tost` tests equivalence of the mean at the clinical margin of 1 mm.

# %%
two = {k: v for k, v in study.matchers(with_opencv=False).items() if "SAD" not in k}
df = study.rig_study(5, baselines=(10.0, 40.0), shape=(120, 150), f=300.0, seed=0, methods=two)
agr = study.agreement(df, margin=1.0)
print(agr[["matcher", "baseline", "n", "bias", "loa_low", "loa_high", "tost_p", "equivalent", "l3de", "ir_2_head"]]
      .round(3).to_string(index=False))

# %% [markdown]
# The block matcher at the 10 mm baseline, by statcore directly:

# %%
g = df[df["matcher"].str.startswith("block_match") & (df["baseline"] == 10.0)]
print(sc.bland_altman(g["ipd_est"].to_numpy(), g["ipd_true"].to_numpy()))
print(sc.tost(g["ipd_est"].to_numpy(), g["ipd_true"].to_numpy(), paired=True, margin=1.0))

# %%
fig = study.plot_bland_altman(df)
fig.savefig(FIG / "protocol_stereo_bland_altman.png", dpi=80)
plt.show()

# %% [markdown]
# The IPD is mostly a lateral distance, X = (u - cx) Z / f, so its relative error is the relative depth
# error at the pupils: about 1 mm of depth at 450 mm is 0.15 mm of IPD. The block matcher's limits of
# agreement lie within the clinical margin at 40 mm and leave it at 10 mm; the semi-global matcher's are
# wider. TOST calls the *mean* equivalent even where the limits of agreement leave the margin: TOST answers
# for the bias, the limits of agreement for one subject. With 5 subjects the
# limits are loose (their exact intervals are in `agreement`'s table); the full study (20 subjects,
# baselines 5 to 40 mm, 4 matchers) is in `benchmarks/README.md`.
#
# The oracle the tests use, on the same rig: a perfect disparity map gives IR = 1 at any tolerance.

# %%
z_true = disparity_to_depth(rig.disparity, f=rig.f, baseline=rig.baseline)
print(inlier_ratio(z_true, rig.depth, tau=1e-6).estimate)
