"""The hidden checks of the book's claims, in one place.

* :mod:`~helpers.checks.settings`: the book's setting of each chapter
  (:data:`BOOK_SETTINGS`), :func:`chapter`, :func:`setting` and :func:`claims`, so that a
  reader can change a chapter and its checks of the book's setting step aside;
* :mod:`~helpers.checks.statistics`: Student t bands over runs, grouped in Bonferroni
  families that count their own tests (:class:`Family`), Satterthwaite's degrees of freedom,
  measured finite-size allowances, inverse-variance pooling and paired differences and
  ratios;
* :mod:`~helpers.checks.margins`: how far a discrete answer computed from floats is from
  changing (:data:`FLOAT_MARGIN`).
"""

from .margins import FLOAT_MARGIN, argmin_margin, threshold_margin
from .settings import (
    BOOK_SETTINGS,
    STRICT_ENV,
    ByScale,
    SettingChanged,
    changed,
    chapter,
    claims,
    setting,
    strict,
)
from .statistics import (
    Family,
    log_mean_ratio,
    mean_of_estimates,
    measured_allowance,
    paired_difference,
    pooled_mean,
    welch_dof,
)

__all__ = [
    "STRICT_ENV", "BOOK_SETTINGS", "ByScale", "chapter", "setting", "changed", "claims",
    "strict", "SettingChanged", "Family", "welch_dof", "measured_allowance", "mean_of_estimates",
    "pooled_mean", "paired_difference", "log_mean_ratio", "FLOAT_MARGIN",
    "threshold_margin", "argmin_margin",
]
