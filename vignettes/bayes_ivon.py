# ---
# jupyter:
#   jupytext:
#     formats: py:percent
# ---

# %% [markdown]
# # Variational learning with IVON: does the curvature estimate matter?
#
# IVON (Shen et al., ICML 2024) trains a network by the Bayesian learning rule: it learns a diagonal
# Gaussian posterior `N(m, 1 / (ess (h + delta)))` over the weights, at the cost of Adam. Each step
# draws weights from the posterior, takes the gradient there, and updates a curvature state `h` from
# an estimate of the diagonal Hessian. `learncore.bayes.IVON` lets that estimate be chosen:
#
# - `"price"`: the paper's reparameterisation estimate `g * (theta - m) / sigma^2` (free, noisy);
# - `"gradsq"`: `ess * g^2`, a scaled squared gradient (never negative; not the Hessian);
# - `"hutchinson"`: `z * (H z)` with a random sign vector `z` (one Hessian-vector product);
# - `"backprop"`: the exact diagonal of the Hessian at the sampled weights, by Hessian
#   backpropagation through the layers (`learncore.bayes.layerwise_curvature`; our reading of the
#   layerwise IVON variant: adjoints backpropagate second-order sensitivities, which with Gaussian
#   layer states and the delta method is Hessian backpropagation).
#
# We check first that `layerwise_curvature` is exact, then compare the four estimates with the
# authors' package ivon-opt (run as a peer; same hyperparameters, Price estimate), AdamW and SGD on
# small MLPs and scikit-learn's bundled data: digits (classification) and diabetes (regression),
# 5 seeds each, scoring accuracy (RMSE), NLL, calibration and Brier score (CRPS) on held-out data.
# The whole script takes about 1.5 minutes of CPU time (torch on one thread; two to three minutes of
# wall time on a busy 2-core machine); figures go to `figures/`.

# %%
import importlib.util
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
import torch
from torch import nn

import learncore
from learncore.bayes import (CurvatureSample, GradSquareCurvature, HutchinsonCurvature, PriceCurvature,
                             layerwise_curvature)

# the study's harness is the benchmark's: benchmarks/_bayes_study.py of the repository
sys.path.insert(0, str(Path(learncore.__file__).resolve().parents[1] / "benchmarks"))
import _bayes_study as study  # noqa: E402

FIG = Path("figures")
FIG.mkdir(exist_ok=True)
t_start = time.perf_counter()
torch.set_num_threads(1)

# %% [markdown]
# ## 1. The layerwise curvature is the exact Hessian diagonal
#
# On a small float64 network with both smooth activations, the diagonal from Hessian
# backpropagation is compared with the diagonal of the full Hessian that autograd builds (one
# Hessian-vector product per parameter), and the Gauss-Newton diagonal with that of `J^T H_L J`.

# %%
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 5), nn.Sigmoid(), nn.Linear(5, 3)).double()
x_small = torch.randn(20, 6, dtype=torch.float64)
y_small = torch.randint(0, 3, (20,))
ce = nn.CrossEntropyLoss()
names = [n for n, _ in net.named_parameters()]
shapes = [p.shape for _, p in net.named_parameters()]
theta0 = torch.cat([p.detach().reshape(-1) for p in net.parameters()])


def unflatten(t):
    out, i = {}, 0
    for n, s in zip(names, shapes):
        out[n] = t[i:i + s.numel()].reshape(s)
        i += s.numel()
    return out


def outputs(t):
    return torch.func.functional_call(net, unflatten(t), (x_small,))


H = torch.autograd.functional.hessian(lambda t: ce(outputs(t), y_small), theta0, vectorize=True)
J = torch.autograd.functional.jacobian(outputs, theta0, vectorize=True).reshape(-1, theta0.numel())
out0 = outputs(theta0).detach()
HL = torch.autograd.functional.hessian(lambda o: ce(o.reshape(out0.shape), y_small), out0.reshape(-1))
exact_h, exact_g = torch.diagonal(H), torch.diagonal(J.T @ HL @ J)
hbp_h = torch.cat([v.reshape(-1) for v in layerwise_curvature(net, ce, x_small, y_small).values()])
hbp_g = torch.cat([v.reshape(-1) for v in layerwise_curvature(net, ce, x_small, y_small,
                                                               kind="diag_ggn").values()])
print(f"{theta0.numel()} parameters; max |HBP - autograd|: Hessian diagonal "
      f"{float((hbp_h - exact_h).abs().max()):.1e}, GGN diagonal {float((hbp_g - exact_g).abs().max()):.1e}")
print(f"the two diagonals differ by up to {float((exact_h - exact_g).abs().max()):.3f} "
      f"(the activations' second derivatives); {int((exact_h < 0).sum())} Hessian diagonal entries are negative")

# %% [markdown]
# ## 2. The study
#
# The sizes (MLPs with one Tanh hidden layer; Tanh rather than ReLU because with ReLU the exact
# Hessian diagonal is the Gauss-Newton one) and the training budget:

# %%
for name in ("digits", "diabetes"):
    print(study.sizes(study.load(name)))
print({name: {k: v for k, v in h.items()} for name, h in study.HYPER.items()})

# %% [markdown]
# Every method at a given seed starts from the same weights and sees the same batches, so the 5
# seeds pair the comparisons. IVON and ivon-opt predict by averaging 32 posterior samples (Bayesian
# model averaging); AdamW and SGD at their weights. Hyperparameters were chosen on a validation split
# of the training data (`python benchmarks/bench_bayes.py --tune`), IVON's once for all curvature
# estimates (with the Price estimate, as the paper tunes it).

# %%
methods = list(study.METHODS)
if importlib.util.find_spec("ivon") is None:   # ivon-opt (GPL) is a peer of the test extra, not a dependency
    methods.remove("ivon-opt")
    print("ivon-opt is not installed (pip install ivon-opt): the study runs without it")
t0 = time.perf_counter()
results, probs = study.run(methods=methods, seeds=range(5))
print(f"{len(results)} training runs in {time.perf_counter() - t0:.0f} s")
summary = study.summary(results)
tests = study.paired_tests(results)
print(study.format_table(summary, tests))

# %% [markdown]
# The table shows the mean +- sd over the 5 seeds, with the two-sided paired t-test p-value against
# AdamW in brackets, Holm-adjusted over all comparisons of a data set (`statcore.p_adjust`: 6 methods
# x 4 scores). The
# calibration error (ECE) of digits uses 15 equal-width bins of the top-label confidence; that of
# diabetes is the mean distance between nominal and observed levels of the predictive quantiles.
# The largest differences against AdamW:

# %%
print(tests.sort_values("p_holm").head(10).round(4).to_string(index=False))

# %% [markdown]
# ### Reliability diagrams (digits; the 5 seeds' test predictions pooled)

# %%
ncol = 4
nrow = -(-len(methods) // ncol)
fig, axes = plt.subplots(nrow, ncol, figsize=(2.8 * ncol, 2.9 * nrow), sharey=True, layout="constrained")
study.plot_reliability(probs, study.load("digits").y_test.numpy(), "digits", methods, axes.ravel()[:len(methods)])
for a in axes.ravel()[len(methods):]:
    a.axis("off")
for a in axes[:, 0]:
    a.set_ylabel("accuracy")
fig.suptitle("Reliability diagrams, digits test set (5 seeds pooled)")
fig.savefig(FIG / "bayes_ivon_reliability.png", dpi=110, bbox_inches="tight")

# %% [markdown]
# ### Time per epoch, relative to AdamW
#
# The median CPU time of a training epoch (torch on one thread; CPU rather than wall time, so that
# other jobs on a shared machine do not count), divided by AdamW's. The design
# target for the Price estimate is 1.5x AdamW. `"hutchinson"` adds a Hessian-vector product per
# step, `"backprop"` the Hessian backpropagation (for the exact diagonal Hessian it carries, besides
# the C outputs, one column per Tanh unit, from the hidden layer down).

# %%
ratios = summary.pivot(index="method", columns="dataset", values="time_vs_adamw").loc[methods]
print(ratios.round(2).to_string())
fig, ax = plt.subplots(figsize=(7, 3))
ratios.plot.bar(ax=ax, rot=30)
ax.axhline(1.5, color="k", ls="--", lw=1, label="1.5x AdamW")
ax.set_ylabel("CPU time per epoch / AdamW")
ax.set_title("Training cost relative to AdamW (median CPU time per epoch)", fontsize=10)
plt.setp(ax.get_xticklabels(), ha="right")
ax.legend()
fig.tight_layout()
fig.savefig(FIG / "bayes_ivon_time.png", dpi=110, bbox_inches="tight")

# %% [markdown]
# ### A short curvature memory
#
# The same study on digits for the four curvature estimates, with `beta2 = 0.99` (a memory of
# about 100 steps) and the preconditioned step clipped at 0.01 (IVON's `clip_radius`; without it the
# step `lr * hess_init / h` made every estimate but gradsq collapse to chance accuracy); everything
# else as tuned. In 475 steps `h` decays to about `0.99^475 = 0.009` of `hess_init`, still above
# most of the expected Hessian diagonal, so `h` does not yet follow the estimates, but the posterior
# is about ten times wider and the estimates' noise has more room to show. This is a sensitivity
# run, not a tuned one; p-values are against the exact diagonal ("IVON backprop").

# %%
ivon_methods = ["IVON price", "IVON gradsq", "IVON hutchinson", "IVON backprop"]
short, short_probs = study.run(datasets=("digits",), methods=ivon_methods, seeds=range(5),
                               ivon_update=study.SHORT_MEMORY)
short_summary = study.summary(short)
short_tests = study.paired_tests(short, reference="IVON backprop")
print(study.format_table(short_summary, short_tests, reference="IVON backprop"))
fig, axes = plt.subplots(1, len(ivon_methods), figsize=(2.2 * len(ivon_methods), 2.6), sharey=True)
study.plot_reliability(short_probs, study.load("digits").y_test.numpy(), "digits", ivon_methods, axes)
fig.suptitle("beta2 = 0.99, clip_radius = 0.01", y=1.02, fontsize=10)
fig.tight_layout()
fig.savefig(FIG / "bayes_ivon_reliability_short_memory.png", dpi=110, bbox_inches="tight")

# %% [markdown]
# ## 3. What the curvature state learned, and how noisy each estimate is
#
# IVON averages the per-step estimates into its curvature state `h` with weight `1 - beta2 = 0.001`,
# a memory of about 1,000 steps; a digits run has 475. After training, `h` relative to its start
# `hess_init` (seed 0, every parameter):

# %%
digits = study.load("digits")
h0 = study.HYPER["digits"]["IVON"]["hess_init"]
state = {}
for method in ("IVON price", "IVON gradsq", "IVON hutchinson", "IVON backprop"):
    model, opt, _ = study.train(digits, method, 0)
    h = torch.cat([opt.state[p]["hess"].reshape(-1) for p in model.parameters()]) / h0
    state[method] = {"q05": float(h.quantile(0.05)), "median": float(h.median()), "q95": float(h.quantile(0.95))}
print(pd.DataFrame(state).T.round(3).to_string())

# %% [markdown]
# How fast would each estimate settle? What the average should approach is the expected diagonal
# Hessian under the posterior, `E_q[diag H]`. At the posterior of the last run ("IVON backprop",
# seed 0) and one batch of 64 training images, per estimate the running mean over k posterior
# samples is compared with `E_q[diag H]` from 64 *other* samples of the exact diagonal (so the
# exact estimate is not compared with itself).

# %%
loss_fn = nn.CrossEntropyLoss()
xb, yb = digits.x_train[:64], digits.y_train[:64]
params = list(model.parameters())
mean = [p.detach().clone() for p in params]
sigma = opt.posterior_std()
ess = float(len(digits.x_train))
gen = torch.Generator().manual_seed(1)
estimators = {"price": PriceCurvature(), "gradsq": GradSquareCurvature(), "hutchinson": HutchinsonCurvature()}


def draw():
    noise = [torch.randn(p.shape, generator=gen) for p in params]
    with torch.no_grad():
        for p, m, s, e in zip(params, mean, sigma, noise):
            p.copy_(m + s * e)
    return noise


def flat(ts):
    return torch.cat([t.reshape(-1) for t in ts])


target = 0
for _ in range(64):
    draw()
    target = target + flat(layerwise_curvature(model, loss_fn, xb, yb).values()) / 64

print(f"E_q[diag H] per parameter: median {float(target.median()):.2e}, 95% quantile "
      f"{float(target.quantile(0.95)):.2e}, max {float(target.max()):.2e}; hess_init = {h0}")

K = 64
running = {k: [] for k in list(estimators) + ["backprop"]}
sums = {k: 0 for k in running}
for k in range(1, K + 1):
    noise = draw()
    model.zero_grad()
    loss_fn(model(xb), yb).backward()
    sample = CurvatureSample(params=tuple(params), grads=tuple(p.grad.detach().clone() for p in params),
                             noise=tuple(noise), sigma=tuple(sigma), ess=(ess,) * len(params),
                             batch=(model, loss_fn, xb, yb), generator=gen)
    for name, est in estimators.items():
        sums[name] = sums[name] + flat(est.estimate(sample))
    sums["backprop"] = sums["backprop"] + flat(layerwise_curvature(model, loss_fn, xb, yb).values())
    for name in running:
        running[name].append(float((sums[name] / k - target).norm() / target.norm()))
with torch.no_grad():
    for p, m in zip(params, mean):
        p.copy_(m)

err = pd.DataFrame(running, index=pd.RangeIndex(1, K + 1, name="samples averaged"))
print(err.iloc[[0, 7, 63]].round(3).to_string())
fig, ax = plt.subplots(figsize=(5.5, 3.5))
for name in err:
    ax.loglog(err.index, err[name], label=name)
ax.set_xlabel("posterior samples averaged (k)")
ax.set_ylabel("||mean_k(hhat) - E_q[diag H]|| / ||E_q[diag H]||")
ax.legend()
fig.tight_layout()
fig.savefig(FIG / "bayes_ivon_estimator_noise.png", dpi=110, bbox_inches="tight")
plt.close("all")

# %% [markdown]
# ## What this shows
#
# (The scores are deterministic for given seeds; the timings are this machine's. The run recorded
# in benchmarks/README.md is quoted.)
#
# - **The layerwise curvature is exact.** Hessian backpropagation reproduces autograd's Hessian and
#   Gauss-Newton diagonals to rounding (1e-17 here; the tests check every supported layer and loss to
#   1e-10). On these tiny networks it costs 2-3 gradients.
# - **In the tuned study the curvature estimate does not change the predictions.** The four IVON
#   variants agree to about three decimals (digits: accuracy 0.972-0.974, NLL 0.100-0.101; diabetes:
#   RMSE 56.3-56.6), and "price" reproduces ivon-opt to every printed digit (the same algorithm and
#   the same random draws). Section 3 says why: validation chose `hess_init = 3`, nearly four orders
#   of magnitude above the typical expected Hessian diagonal (median 4e-4), and after 475 steps with
#   `beta2 = 0.999` the curvature state is `0.999^475 = 0.622` of `hess_init` for every estimate. The
#   posterior's width is set by `hess_init`, not by the data's curvature.
# - **The estimates differ enormously in quality.** One Price sample misses `E_q[diag H]` by about
#   37 times its norm, Hutchinson's by 6.5, the squared gradient by 5.7 (and it does not converge: it
#   estimates a scaled empirical Fisher, not the Hessian), the exact diagonal by 0.17 (what is left is
#   the posterior sampling). Price's error falls as 1/sqrt(k): averaged over IVON's memory of about
#   1,000 steps it would still be about the size of `E_q[diag H]` itself (37 / sqrt(1000) = 1.2).
# - **With a 100-step memory** the curvature state decays to about 1% of `hess_init` (a posterior
#   about ten times wider): every variant gets worse than the tuned runs (digits NLL 0.17-0.21
#   against 0.10), and no difference between the estimates survives 5 seeds and the Holm adjustment.
# - **Against AdamW**, at this size and budget AdamW has the best NLL, ECE and Brier score on digits
#   (IVON's NLL is higher by 0.027, Holm-adjusted p about 0.002; SGD's by 0.015); on diabetes no
#   method differs significantly from AdamW. These are small networks trained briefly on small data;
#   IVON's published gains are for large networks trained long.
# - **Cost.** In CPU time per epoch, "price" took 1.7x AdamW (the design target is 1.5x; ivon-opt
#   1.25x, so the gap is learncore's per-step overhead on a network whose steps take about a
#   millisecond), "gradsq" 1.75x, "hutchinson" 3.0x and "backprop" 3.0-3.1x.

# %%
print(f"total {time.perf_counter() - t_start:.0f} s")
