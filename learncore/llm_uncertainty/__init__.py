"""Uncertainty of language-model answers from one greedy pass: GLU (Medina et al., 2026) and the usual
baselines, and a small transformer with checkable answers to study them on.

- :func:`score_generations`: one greedy answer per prompt from any causal LM with the Hugging Face
  interface (or :class:`ArithTransformer`), with GLU (:func:`statcore.glu_score`), its global and
  local terms, mean token entropy, max-probability, length-normalised log-likelihood and perplexity.
- :func:`greedy_generate`, :class:`GenerationTrace`: the single pass, recording per-layer
  last-position hidden states and top-k logits.
- :func:`evaluate_scores`, :class:`ScoreEvaluation`: AUROC of every score against correctness with
  DeLong intervals, paired DeLong tests of GLU against each baseline (Holm-adjusted), and the
  dependence between the global and the local signal (Spearman, HSIC).
- :class:`ArithTransformer`, :class:`CharTokenizer`, :func:`load_arith_model`,
  :func:`addition_prompts`: the shipped addition model (trained by
  ``python -m learncore.llm_uncertainty.train_arith``) and its seeded task.

Needs PyTorch (``import learncore`` alone does not import it); ``transformers`` is optional
(``pip install statcore[llm]``): any model with its interface works.
"""
from .evaluate import ScoreEvaluation, evaluate_scores
from .generate import SCORE_COLUMNS, GenerationScores, GenerationTrace, greedy_generate, score_generations
from .model import ArithTransformer, CharTokenizer, addition_prompts, load_arith_model

__all__ = ["score_generations", "greedy_generate", "GenerationTrace", "GenerationScores", "SCORE_COLUMNS",
           "evaluate_scores",
           "ScoreEvaluation", "ArithTransformer",
           "CharTokenizer", "load_arith_model", "addition_prompts"]
