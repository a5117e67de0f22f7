"""Retrieval (re-identification) metrics and mixture-of-experts routing diagnostics.

``cmc_map``: CMC, mAP and mINP under the Market-1501 protocol with bootstrap intervals over queries;
``compare_retrieval``: two systems on the same queries (Wilcoxon on per-query AP, McNemar on rank-1);
``expert_usage`` and ``expert_domain_table``: how a router uses its experts and whether its choice
depends on the domain. numpy/scipy (numba for the per-query scan) only.
"""
from ._cmc import CMCMap, cmc_map
from ._compare import RetrievalComparison, compare_retrieval
from ._routing import ExpertDomainTable, ExpertUsage, expert_domain_table, expert_usage

__all__ = ["cmc_map", "CMCMap", "compare_retrieval", "RetrievalComparison", "expert_usage", "ExpertUsage", "expert_domain_table", "ExpertDomainTable"]
