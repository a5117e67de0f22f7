"""Single-animal learning rules of deep networks, inferred from choice data (Liebana et al., Cell 2025).

A network maps a trial's inputs x = [c_L, c_R, 1] to the values of "left" and "right", the animal
chooses by softmax(beta y(x)), and the weights learn from the animal's own choices and rewards with
learning rate eta. :func:`fit` recovers (initial weights, eta, beta) by maximum likelihood,
:func:`fit_many` compares architectures across a cohort by AIC through statcore.
"""
from ._model import ARCHS, RULES, n_params
from ._trials import check_trials
from .fit import LearningRuleFit, fit, fit_many, replay_p_right
from .simulate import IBL_CONTRASTS, contrast_schedule, simulate

__all__ = ["ARCHS", "RULES", "IBL_CONTRASTS", "LearningRuleFit", "check_trials", "contrast_schedule", "fit",
           "fit_many", "n_params", "replay_p_right", "simulate"]
