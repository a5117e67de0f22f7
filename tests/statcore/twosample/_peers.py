"""The peers' own functions, loaded from their installed source files without importing their
packages: pytorch-fid, torch-fidelity and torchmetrics import torchvision at package import, and the
only torchvision wheels on PyPI pull another torch (never installed here). The functions compared
(pytorch-fid's ``calculate_frechet_distance``, torch-fidelity's ``mmd2`` and torchmetrics'
``poly_mmd``) use numpy, scipy and torch only, so they are executed exactly as shipped."""
from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest


def _source_of(package: str, relpath: str) -> str:
    spec = importlib.util.find_spec(package)  # a top-level name: found, not imported
    if spec is None or not spec.submodule_search_locations:
        pytest.skip(f"{package} is not installed (pip install --no-deps {package.replace('_', '-')})")
    return (Path(spec.submodule_search_locations[0]) / relpath).read_text()


def load_functions(package: str, relpath: str, names: tuple[str, ...], namespace: dict) -> dict:
    """Execute the named top-level functions of ``package/relpath`` in ``namespace``; returns it."""
    tree = ast.parse(_source_of(package, relpath))
    keep = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name in names]
    missing = set(names) - {node.name for node in keep}
    if missing:
        raise RuntimeError(f"{package}/{relpath} no longer defines {sorted(missing)}")
    exec(compile(ast.Module(body=keep, type_ignores=[]), f"{package}/{relpath}", "exec"), namespace)
    return namespace


def pytorch_fid_frechet():
    """pytorch-fid's ``calculate_frechet_distance`` (scipy.linalg.sqrtm of sigma1 @ sigma2)."""
    import numpy as np
    from scipy import linalg
    ns = load_functions("pytorch_fid", "fid_score.py", ("calculate_frechet_distance",),
                        {"np": np, "linalg": linalg})
    return ns["calculate_frechet_distance"]


def torch_fidelity_mmd2():
    """torch-fidelity's ``mmd2(K_XX, K_XY, K_YY)`` and ``kernel_poly`` (its KID defaults: degree 3,
    gamma 1/d, coef0 1)."""
    import numpy as np

    def get_kwarg(name, kwargs):
        defaults = {"kid_kernel_poly_degree": 3, "kid_kernel_poly_gamma": None, "kid_kernel_poly_coef0": 1}
        return kwargs.get(name, defaults.get(name))

    def vassert(cond, msg):
        assert cond, msg

    ns = load_functions("torch_fidelity", "metric_kid.py", ("mmd2", "kernel_poly"),
                        {"np": np, "get_kwarg": get_kwarg, "vassert": vassert})
    return ns["mmd2"], ns["kernel_poly"]


def torchmetrics_poly_mmd():
    """torchmetrics' ``poly_mmd(f_real, f_fake)`` (torch tensors)."""
    import torch
    from typing import Optional
    ns = load_functions("torchmetrics", "image/kid.py", ("maximum_mean_discrepancy", "poly_kernel", "poly_mmd"),
                        {"torch": torch, "Tensor": torch.Tensor, "Optional": Optional})
    return ns["poly_mmd"]
