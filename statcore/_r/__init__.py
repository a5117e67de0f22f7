"""Ports of R functions whose output statcore must reproduce bit for bit.

- :mod:`.rformat`: R's number formatting (``format``, ``format.pval``, ``print.default`` of tables).
- :mod:`.smoothspline`: ``stats::smooth.spline`` (used by ``qvalue``'s pi0 smoother).
- :mod:`.density`: ``stats::density.default`` (used by ``lfdr``).
- :mod:`.ns`: ``splines::ns``, the natural cubic spline basis (used by ``locfdr``).
"""
