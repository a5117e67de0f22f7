"""Single-animal learning rules of deep networks, inferred from choice data (Liebana et al., Cell 2025).

A network maps a trial's inputs x = [c_L, c_R, 1] to the values of "left" and "right", the animal
chooses by softmax(beta y(x)), and the weights learn from the animal's own choices and rewards with
learning rate eta (rules "rpe", "reinforce", "supervised"; architectures "1L", "2L", "2NL").

- :func:`simulate`, :func:`contrast_schedule`: synthetic animals on IBL-style schedules.
- :func:`fit`: maximum likelihood of one animal's choices (teacher-forced replay, batched L-BFGS over
  restarts); the result is registered with ``statcore.loglik``, so ``statcore.aic`` and
  ``statcore.compare_models`` take it. :func:`fit_many`: every animal and architecture, compared
  with ``statcore.compare_by_group``.
- :func:`behaviour_metrics`, :func:`plot_behaviour`: bias, sensitivity and accuracy per session, for
  the data and for a model's p(right).
- :func:`from_ibl`, :func:`read_ibl_trials`: IBL trial tables (CSV or parquet) to the trials table
  (see ``_trials``: contrast_left, contrast_right, choice, reward, session).
- :func:`from_psytrack`, :func:`psytrack_sample_rat`: psytrack's data dicts (two stimuli and a bias,
  columns input_left, input_right), e.g. its sample rat W053.
- :func:`calibrate_selection`: per-animal choice between a simpler and richer architectures with the
  AIC difference calibrated by a parametric bootstrap (raw and calibrated win counts, model-recovery
  confusion matrices). :func:`heldout_loglik`: held-out log-likelihood, forward-chained by session.
"""
from ._model import ARCHS, RULES, LearningRule, n_params
from ._trials import check_trials
from .behaviour import BehaviourMetrics, BehaviourWarning, behaviour_metrics, plot_behaviour
from .calibrate import CalibratedSelection, calibrate_selection
from .cohort import fit_many
from ._fit import fit, replay_p_right
from .heldout import HeldOutLoglik, heldout_loglik, session_folds
from .io import IBLFormatWarning, from_ibl, from_psytrack, psytrack_sample_rat, read_ibl_trials
from .results import LearningRuleFit, Replay
from ._simulate import IBL_CONTRASTS, contrast_schedule, simulate

# non-convergence warns with statcore.ConvergenceWarning, the one class (not re-exported here)
__all__ = ["ARCHS", "RULES", "IBL_CONTRASTS", "BehaviourMetrics", "BehaviourWarning", "IBLFormatWarning",
           "LearningRule", "LearningRuleFit", "behaviour_metrics", "check_trials", "contrast_schedule", "fit", "fit_many",
           "from_ibl", "n_params", "plot_behaviour", "read_ibl_trials", "replay_p_right", "simulate",
           "CalibratedSelection", "calibrate_selection", "HeldOutLoglik", "heldout_loglik", "session_folds",
           "from_psytrack", "psytrack_sample_rat", "Replay"]
