r"""The features after the step: :math:`\sigma(\tilde X W)` and its Gaussian equivalent.

Ridge (:mod:`helpers.ridge`) is fitted on the unnormalised features
:math:`F = \sigma(\tilde XW)` of fresh inputs.  Gaussian equivalence (Ba et al. 2022,
Theorem 3) replaces them, for an odd activation, by

.. math::

    \varphi_{GE}(x) = \mu_1 W^\top x + \mu_2 z, \qquad z \sim N(0, I_N)
    \text{ independent of } x,

whose population covariance and exact risk live in
:mod:`helpers.theory.deterministic_equivalent` and :mod:`helpers.risk`.
"""

from __future__ import annotations

import numpy as np

from ._validation import check_choice, check_matrix, check_rng
from .activations import as_student

__all__ = ["features", "ge_features", "DTYPES"]

DTYPES = (np.float64, np.float32)


def features(X, W, student, *, dtype=np.float64) -> np.ndarray:
    r"""Unnormalised features :math:`\sigma(XW)`, shape (n, N).

    ``dtype=numpy.float32`` computes the product and the activation in single precision
    (``precision="mixed"`` of :func:`helpers.run`).
    """
    check_choice("dtype", dtype, DTYPES)
    X = check_matrix("X", X, 2)
    W = check_matrix("W", W, 2, (X.shape[1], None))
    return as_student(student)(X.astype(dtype, copy=False) @ W.astype(dtype, copy=False))


def ge_features(X, W, student, *, rng: np.random.Generator) -> np.ndarray:
    r"""Gaussian-equivalent features :math:`\mu_1 XW + \mu_2 Z`, shape (n, N).

    Parameters
    ----------
    X : ndarray of shape (n, d)
    W : ndarray of shape (d, N)
    student : str, callable or Activation
    rng : numpy.random.Generator
        Source of the independent noise :math:`Z` (n x N, standard normal).
    """
    X = check_matrix("X", X, 2)
    W = check_matrix("W", W, 2, (X.shape[1], None))
    s = as_student(student)
    Z = check_rng(rng).standard_normal((X.shape[0], W.shape[1]))
    return s.mu1 * (X @ W) + s.mu2 * Z
