"""learncore: deep-learning methods of the statcore papers, in PyTorch, on statcore's public API.

Its first method (inferring single-animal learning rules of deep networks from choice data) is
tracked as its own issue; this package is importable without torch until then.
"""

__version__ = "0.1.0"
