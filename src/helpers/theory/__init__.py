"""Theory computed in code, one module per concept, re-exported here.

:mod:`~helpers.theory.setting` (kernel floor, neuron movement), :mod:`~helpers.theory.spike`
(Proposition 2), :mod:`~helpers.theory.rmt` (the Marchenko-Pastur law),
:mod:`~helpers.theory.deterministic_equivalent` (ridge on Gaussian-equivalent features, the
effective penalty), :mod:`~helpers.theory.small_step` (Theorems 3-5),
:mod:`~helpers.theory.large_step_bound` (the paper's section 5: eq. 5.1, Lemma 6, Theorem 7),
:mod:`~helpers.theory.large_step` (the asymptotic risk after one large step, chapter 5) and
:mod:`~helpers.theory.exponents` (information and generative exponents, chapter 7).
Theory imports no simulation module: outside ``helpers.theory`` it loads only
:mod:`helpers.activations` (Hermite coefficients) and the shared argument checks
(``helpers._validation``), :mod:`helpers.quadrature`; a test holds it to that allow-list.
"""

from . import (
    deterministic_equivalent,
    exponents,
    large_step,
    large_step_bound,
    rmt,
    setting,
    small_step,
    spike,
)
from .deterministic_equivalent import *  # noqa: F403
from .exponents import *  # noqa: F403
from .large_step import *  # noqa: F403
from .large_step_bound import *  # noqa: F403
from .rmt import *  # noqa: F403
from .setting import *  # noqa: F403
from .small_step import *  # noqa: F403
from .spike import *  # noqa: F403

_MODULES = (deterministic_equivalent, exponents, large_step, large_step_bound, rmt, setting,
            small_step, spike)
__all__ = [*(m.__name__.rsplit(".", 1)[1] for m in _MODULES),
           *(name for m in _MODULES for name in m.__all__)]
