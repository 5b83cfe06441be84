r"""Measurements on matrices: singular values and vectors, overlaps, the rank-one part, slopes.

The spike chapter (Ba et al. 2022, Proposition 2) splits the first gradient :math:`G_0` into
its rank-one part :math:`A = \frac{\mu_1}{n\sqrt N} X^\top y a^\top` and the rest and
measures norms, singular values and overlaps (the measures of :mod:`helpers.measures`; the
limits live in :mod:`helpers.theory.spike`).  Singular values come from the smaller Gram
matrix (:func:`singular`), which for the book's sizes is as fast as an SVD.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import linalg

from ._validation import check_matrix, check_positive
from .activations import as_student

__all__ = [
    "rank_one_part",
    "singular",
    "squared_overlap",
    "loglog_slope",
]


def rank_one_part(X, y, a, student) -> np.ndarray:
    r"""The rank-one approximation :math:`A = \frac{\mu_1}{n\sqrt N} X^\top y\, a^\top`.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,)
    a : ndarray of shape (N,)
    student : str, callable or Activation
        Only its :math:`\mu_1 = E\,\sigma'(z)` enters.

    Returns
    -------
    A : ndarray of shape (d, N)
    """
    X = check_matrix("X", X, 2)
    y = check_matrix("y", y, 1, (X.shape[0],))
    a = check_matrix("a", a, 1)
    mu1 = as_student(student).mu1
    n, N = X.shape[0], a.shape[0]
    return np.outer((mu1 / (n * math.sqrt(N))) * (X.T @ y), a)


def singular(M, top: int | None = None, *, left: bool = False):
    r"""The largest singular values of ``M`` (shape (m, p)), decreasing; the book's one
    singular-value helper.

    They come from the eigenvalues of the smaller Gram matrix (:math:`MM^\top` or
    :math:`M^\top M`), as fast as an SVD at the book's sizes and several times faster when only
    the ``top`` largest are asked for (``scipy.linalg.eigh`` with ``subset_by_index``).  The
    matrix keeps its precision (float32 halves the cost).

    Parameters
    ----------
    M : ndarray of shape (m, p)
    top : int, optional
        How many (the largest); all ``min(m, p)`` when omitted.
    left : bool
        Also return the matching left singular vectors (unit columns, shape (m, top)).

    Returns
    -------
    s : ndarray of shape (top,)
    U : ndarray of shape (m, top), only with ``left``

    >>> s, U = singular(np.diag([3.0, 1.0, 2.0]), 2, left=True)
    >>> s.round(12).tolist(), np.abs(U[:, 0]).round(12).tolist()
    ([3.0, 2.0], [1.0, 0.0, 0.0])
    """
    M = np.asarray(M)
    if M.ndim != 2 or not np.issubdtype(M.dtype, np.floating):
        raise ValueError(f"M must be a 2-d float array; got shape {M.shape}, dtype {M.dtype}")
    rows = M.shape[0] <= M.shape[1]
    C = M @ M.T if rows else M.T @ M
    k = C.shape[0]
    top = k if top is None else check_positive("top", top, integer=True)
    if top > k:
        raise ValueError(f"top must be at most min(M.shape) = {k}; got {top}")
    vals, vecs = linalg.eigh(C, subset_by_index=[k - top, k - 1])
    s = np.sqrt(np.clip(vals[::-1], 0.0, None)).astype(float)
    if not left:
        return s
    vecs = vecs[:, ::-1]
    if rows:
        return s, vecs
    U = M @ vecs
    return s, U / np.where(s > 0, s, 1.0).astype(U.dtype)


def squared_overlap(u, v) -> float:
    r""":math:`\langle u, v\rangle^2 / (\|u\|^2\|v\|^2)` for two nonzero vectors of equal length."""
    u = check_matrix("u", u, 1)
    v = check_matrix("v", v, 1, (u.shape[0],))
    nu, nv = float(u @ u), float(v @ v)
    if nu == 0.0 or nv == 0.0:
        raise ValueError("u and v must be nonzero vectors; got a zero vector")
    return float(u @ v) ** 2 / (nu * nv)


def loglog_slope(x, y, se=None) -> tuple[float, float]:
    r"""Slope of :math:`\log y` against :math:`\log x` by (weighted) least squares.

    Parameters
    ----------
    x, y : array_like of shape (m,)
        Positive values, m >= 3.
    se : array_like of shape (m,), optional
        Standard errors of ``y``; the weights are :math:`(y/\mathrm{se})^2`, the inverse
        variances of :math:`\log y` to first order.

    Returns
    -------
    slope, slope_se : float
        The fitted slope and its standard error (from the residual scatter when ``se`` is
        omitted, from ``se`` otherwise).
    """
    x = check_matrix("x", x, 1)
    y = check_matrix("y", y, 1, (x.shape[0],))
    if x.shape[0] < 3:
        raise ValueError(f"x and y need at least 3 points; got {x.shape[0]}")
    if np.any(x <= 0) or np.any(y <= 0):
        raise ValueError("x and y must be positive for a log-log fit; got a value <= 0")
    w = None
    if se is not None:
        se = check_matrix("se", se, 1, (x.shape[0],))
        if np.any(se <= 0):
            raise ValueError(f"se must be > 0; got min {se.min()}")
        w = y / se  # polyfit weights multiply residuals: 1 / (sd of log y)
    coef, cov = np.polyfit(np.log(x), np.log(y), 1, w=w, cov=True if se is None else "unscaled")
    return float(coef[0]), math.sqrt(float(cov[0, 0]))
