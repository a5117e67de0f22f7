"""Uncertainty scores of generated text from one greedy pass: the matrix Renyi entropy of hidden
states, evidential token-level uncertainty, and their fusion GLU (Medina et al., 2026).

numpy/scipy only: the scores take arrays (hidden states, logits); ``learncore.llm_uncertainty``
collects them from a language model during generation.
"""
from ._token_result import TokenUncertainty
from ._glu import GLUScore, evidential_token_uncertainty, glu_score, renyi_matrix_entropy

__all__ = ["renyi_matrix_entropy", "evidential_token_uncertainty", "glu_score", "GLUScore", "TokenUncertainty"]
