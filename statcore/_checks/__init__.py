"""The one door for user input (in the spirit of scikit-learn's ``utils.validation``).

Every public function turns its arguments into what the algorithm wants through these checks, with
errors that name the argument, say what was wrong and what to do; algorithm code never re-checks.
``core`` holds the generic checks (arrays, p-values, scalars, choices, seeds, nan_policy);
``public`` the one decorator of public functions (``public_function``); each topic module holds the
checks of one topic package. Import them from here.
"""
from .core import *  # noqa: F401,F403
from .core import __all__ as _core_all
from .multitest import *  # noqa: F401,F403
from .multitest import __all__ as _multitest_all
from .modelsel import *  # noqa: F401,F403
from .modelsel import __all__ as _modelsel_all
from .cit import *  # noqa: F401,F403
from .cit import __all__ as _cit_all
from .coupling import *  # noqa: F401,F403
from .coupling import __all__ as _coupling_all
from .ebayes import *  # noqa: F401,F403
from .ebayes import __all__ as _ebayes_all
from .indep import *  # noqa: F401,F403
from .indep import __all__ as _indep_all
from .conformal import *  # noqa: F401,F403
from .conformal import __all__ as _conformal_all
from .progress import *  # noqa: F401,F403
from .progress import __all__ as _progress_all
from .twosample import *  # noqa: F401,F403
from .twosample import __all__ as _twosample_all
from .roc import *  # noqa: F401,F403
from .roc import __all__ as _roc_all
from .uncertainty import *  # noqa: F401,F403
from .uncertainty import __all__ as _uncertainty_all
from .effects import *  # noqa: F401,F403
from .effects import __all__ as _effects_all
from .clustered import *  # noqa: F401,F403
from .clustered import __all__ as _clustered_all
from .spectral import *  # noqa: F401,F403
from .spectral import __all__ as _spectral_all
from .knockoffs import *  # noqa: F401,F403
from .knockoffs import __all__ as _knockoffs_all
from .retrieval import *  # noqa: F401,F403
from .retrieval import __all__ as _retrieval_all
from .aggregate import *  # noqa: F401,F403
from .aggregate import __all__ as _aggregate_all
from .breadth import *  # noqa: F401,F403
from .breadth import __all__ as _breadth_all
from .discern import *  # noqa: F401,F403
from .discern import __all__ as _discern_all
from .public import *  # noqa: F401,F403
from .public import __all__ as _public_all

__all__ = [*_core_all, *_multitest_all, *_modelsel_all, *_cit_all, *_coupling_all, *_ebayes_all, *_indep_all, *_conformal_all,
           *_progress_all, *_twosample_all, *_roc_all, *_uncertainty_all, *_effects_all, *_clustered_all,
           *_spectral_all, *_knockoffs_all, *_retrieval_all, *_aggregate_all,
           *_breadth_all, *_discern_all,
           *_public_all]
