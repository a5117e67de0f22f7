"""The generic checks of the one input door, gathered for the topic modules (``from .core import *``):
scalars (``scalars.py``), arrays and the pandas round trip (``arrays.py``), missing values
(``missing.py``).

Every public function turns its arguments into what the algorithm wants here, with errors that name
the argument, say what was wrong and what to do (in the spirit of scikit-learn's
``utils.validation``). Algorithm code after this point never re-checks.
"""
from .arrays import *  # noqa: F401,F403
from .arrays import __all__ as _arrays_all
from .arrays import _is_pandas  # noqa: F401
from .missing import *  # noqa: F401,F403
from .missing import __all__ as _missing_all
from .scalars import *  # noqa: F401,F403
from .scalars import __all__ as _scalars_all

__all__ = [*_scalars_all, *_arrays_all, *_missing_all]
