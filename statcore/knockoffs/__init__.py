"""Knockoffs: S-matrices, fixed-X and model-X Gaussian knockoffs, and the knockoff filter.

Follows R package knockoff 0.3.6 (``create.solve_equi``, ``create.solve_sdp``, ``create.fixed``,
``create.gaussian``, ``create.second_order``, ``stat.lasso_coefdiff``, ``stat.lasso_lambdasmax``,
``knockoff.filter``; Barber & Candes 2015, Candes et al. 2018), with the MVR and maximum-entropy
S-matrices of Spector & Janson (2022) and derandomised knockoffs (Ren & Barber 2024). The threshold is
``statcore.knockoff_threshold`` (statcore.multitest).

Modules: ``_smatrix`` (knockoff_s), ``_samplers`` (knockoffs_fixed_x, knockoffs_gaussian),
``_statistics`` (the W statistics), ``_filter`` (knockoff_filter).
"""
from ._filter import KnockoffResult, knockoff_filter
from ._samplers import KnockoffVariables, knockoffs_fixed_x, knockoffs_gaussian
from ._smatrix import SMATRIX_METHODS, KnockoffS, knockoff_s

__all__ = ["knockoff_s", "KnockoffS", "SMATRIX_METHODS", "knockoffs_fixed_x", "knockoffs_gaussian",
           "KnockoffVariables", "knockoff_filter", "KnockoffResult"]
