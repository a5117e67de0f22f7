"""Build the Cython kernels in _ext/ into statcore extension modules.

Everything else (metadata, dependencies) lives in pyproject.toml.
"""
from Cython.Build import cythonize
from setuptools import Extension, setup

DIRECTIVES = {
    "language_level": 3,
    "boundscheck": False,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
}

extensions = [
    Extension("statcore._padjust", ["_ext/_padjust.pyx"], extra_compile_args=["-O3"]),
    # -fno-math-errno lets the square roots vectorise (the arguments are sums of squares, never < 0)
    Extension("statcore._dcovperm", ["_ext/_dcovperm.pyx"], include_dirs=["_ext"],
              extra_compile_args=["-O3", "-fno-math-errno"]),
]

setup(ext_modules=cythonize(extensions, compiler_directives=DIRECTIVES))
