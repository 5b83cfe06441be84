"""The hidden checks of the book's claims, in one place.

* :mod:`~helpers.checks.parameters`: each chapter's parameters, written once in its parameter
  cell with their ranges (:func:`parameters`), the book's record of them, and
  :func:`claims`, so that a reader can change a chapter and its checks of the book's setting
  step aside;
* :mod:`~helpers.checks.statistics`: one Bonferroni family of Student t tests per chapter,
  decided together (:class:`Family`), Satterthwaite's degrees of freedom, measured finite-size
  allowances, inverse-variance pooling and paired differences and ratios;
* :mod:`~helpers.checks.margins`: how far a discrete answer computed from floats is from
  changing (:data:`FLOAT_MARGIN`).
"""

from .margins import FLOAT_MARGIN, argmin_margin, threshold_margin
from .parameters import (
    STRICT_ENV,
    Range,
    SettingChanged,
    applies,
    book_parameters,
    changed,
    chapter,
    claims,
    parameters,
    parse_range,
    strict,
)
from .statistics import (
    Family,
    log_mean_ratio,
    mean_of_estimates,
    mean_se_dof,
    measured_allowance,
    paired_difference,
    pooled_mean,
    welch_dof,
)

__all__ = [
    "STRICT_ENV", "Range", "parse_range", "book_parameters", "chapter", "parameters", "changed",
    "claims", "applies", "strict", "SettingChanged", "Family", "mean_se_dof", "welch_dof",
    "measured_allowance", "mean_of_estimates", "pooled_mean", "paired_difference",
    "log_mean_ratio", "FLOAT_MARGIN", "threshold_margin", "argmin_margin",
]
