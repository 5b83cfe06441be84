r"""How far a discrete answer computed from floats is from changing.

An integer, a set or a boolean that the book computes from floating-point numbers (an
outlier count, the cells of a map below a floor, the best point of a grid) must not hang on
the last bits of those numbers: another CPU, another BLAS kernel or another NumPy path moves
them by a few ulps (about 1e-16 relative, 1e-12 after a long computation).  The convention of
the book (``CONTRIBUTING.md``): every such answer either has a margin, the relative distance
of the nearest value to the decision boundary, that is printed or asserted far above that
level, or is computed with a tolerance that makes it insensitive.

Functions
---------
FLOAT_MARGIN       the least margin a chapter asserts (1e-6 relative)
threshold_margin   smallest relative distance of values from a threshold
argmin_margin      relative gap between the best and the runner-up of a grid
"""

from __future__ import annotations

import numpy as np

__all__ = ["threshold_margin", "argmin_margin", "FLOAT_MARGIN"]

#: The least relative margin the book asserts of a discrete answer: a million times the
#: ulp-level differences between machines (about 1e-12 after a long computation), and far
#: below the accuracy of any quantity it is applied to (quadrature, solvers, seeds).
FLOAT_MARGIN = 1e-6


def _values(name, values):
    v = np.asarray(values, dtype=float).ravel()
    if v.size == 0 or not np.all(np.isfinite(v)):
        raise ValueError(f"{name} must be a non-empty array of finite numbers; got {values!r}")
    return v


def threshold_margin(values, threshold) -> float:
    r"""Smallest :math:`|v - t| / |t|` over ``values``: the relative distance of the value
    nearest to the threshold :math:`t` (``values > t`` keeps its answer for every relative
    perturbation of the values smaller than this).

    ``threshold`` may be an array broadcasting against ``values`` (one threshold each); it
    must be non-zero.

    >>> round(threshold_margin([0.5, 0.98, 1.5], 1.0), 12)
    0.02
    """
    v = _values("values", values)
    t = np.broadcast_to(np.asarray(threshold, dtype=float), np.shape(values)).ravel()
    if not np.all(np.isfinite(t)) or np.any(t == 0):
        raise ValueError(f"threshold must be finite and non-zero; got {threshold!r}")
    return float(np.min(np.abs(v - t) / np.abs(t)))


def argmin_margin(values) -> float:
    r"""Relative gap between the smallest value of a grid and the runner-up,
    :math:`(v_{(2)} - v_{(1)})/|v_{(1)}|`: ``argmin`` keeps its answer for every relative
    perturbation smaller than about half of it.

    >>> round(argmin_margin([3.0, 1.0, 1.1]), 12)
    0.1
    """
    v = np.sort(_values("values", values))
    if v.size < 2:
        raise ValueError(f"values must hold at least two numbers; got {values!r}")
    if v[0] == 0:
        raise ValueError("the smallest value is 0: a relative margin is undefined")
    return float((v[1] - v[0]) / abs(v[0]))
