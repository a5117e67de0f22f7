"""``statcore.evalues``: the e-value tools under one name (issue 31's namespace).

A thin public submodule: the same objects as the flat names ``statcore.e_bh``, ``statcore.p_to_e``,
``statcore.e_to_p``, ``statcore.merge_e``, ``statcore.knockoff_e_values``, ``statcore.knockoff_threshold``
and ``statcore.EBHResult`` (implemented in ``statcore/multitest/_evalues.py``), so that
``from statcore import evalues; evalues.e_bh(e)`` and ``statcore.e_bh(e)`` are one function.

Examples
--------
>>> import statcore as sc
>>> from statcore import evalues
>>> evalues.e_bh is sc.e_bh
True
>>> evalues.e_bh(evalues.p_to_e([0.0001, 0.3, 0.002], kappa=0.5), alpha=0.1).n_rejections
1
"""
from .multitest import EBHResult, e_bh, e_to_p, knockoff_e_values, knockoff_threshold, merge_e, p_to_e

__all__ = ["e_bh", "EBHResult", "p_to_e", "e_to_p", "merge_e", "knockoff_e_values", "knockoff_threshold"]
