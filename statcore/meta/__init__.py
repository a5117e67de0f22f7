"""Meta-analysis of one effect per study (metafor's ``rma``) and the share of true effects above a
threshold (Mathur & VanderWeele 2019)."""
from ._prop import PropEffectsAbove, prop_effects_above
from ._rma import MetaAnalysis, meta_analysis

__all__ = ["meta_analysis", "MetaAnalysis", "prop_effects_above", "PropEffectsAbove"]
