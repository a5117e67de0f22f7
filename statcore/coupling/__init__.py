"""Joint potential outcomes: comonotone / countercomonotone identification and sharp bounds.

Data never show Y1 and Y0 of one unit together, so E[f(Y1, Y0)] is not identified by the two
marginals. Under comonotonicity (units keep their rank) it is int_0^1 f(Q1(u), Q0(u)) du; under
countercomonotonicity int_0^1 f(Q1(u), Q0(1 - u)) du, with the generalised quantile functions Q, so
discrete, continuous and mixed outcomes are one case. Without either assumption the two values are
the sharp bounds for supermodular f (counter below, co above) and the other way round for submodular
f (Lorentz 1953; Cambanis, Simons & Stout 1976; Tchen 1980). For other f the sharp bounds are the
optimal-transport linear programs on the two marginals.

For empirical (weighted) marginals both integrals are exact finite sums: merging the two cumulative
weight sequences (the north-west-corner rule of the transportation problem) gives the pieces of
[0, 1] on which both quantile functions are constant.

References
----------
Cambanis, S., Simons, G. & Stout, W. (1976). Inequalities for Ek(X, Y) when the marginals are fixed.
Z. Wahrscheinlichkeitstheorie verw. Gebiete 36, 285-294.
Tchen, A. H. (1980). Inequalities for distributions with given marginals. Ann. Probab. 8, 814-827.
Makarov, G. D. (1981). Estimates for the distribution function of a sum of two random variables when
the marginal distributions are fixed. Theory Probab. Appl. 26, 803-806.
Fan, Y. & Park, S. S. (2010). Sharp bounds on the distribution of treatment effects and their
statistical inference. Econometric Theory 26, 931-951.
Heckman, J. J., Smith, J. & Clements, N. (1997). Making the most out of programme evaluations and
social experiments. Rev. Econ. Stud. 64, 487-535.
Imbens, G. W. & Manski, C. F. (2004). Confidence intervals for partially identified parameters.
Econometrica 72, 1845-1857.
Stoye, J. (2009). More on confidence intervals for partially identified parameters. Econometrica 77,
1299-1315.
Bickel, P. J., Goetze, F. & van Zwet, W. R. (1997). Resampling fewer than n observations. Statist.
Sinica 7, 1-31.
Hong, H. & Li, J. (2018). The numerical delta method. J. Econometrics 206, 379-394.
"""
from .._warnings import ConvergenceWarning  # noqa: F401  (the old import path; not in __all__)
from ._design import OverlapWarning
from ._functions import coupling_functions, coupling_mean
from ._inference import identified_set_interval, imbens_manski_interval, stoye_interval
from ._results import IdentifiedSetInterval, JointBounds
from ._bounds import ite_variance_bounds, joint_bounds
from ._makarov import MakarovBounds, makarov_bounds

__all__ = ["coupling_mean", "joint_bounds", "JointBounds", "makarov_bounds", "MakarovBounds",
           "ite_variance_bounds", "coupling_functions", "OverlapWarning",
           "imbens_manski_interval", "stoye_interval", "identified_set_interval", "IdentifiedSetInterval"]
