r"""Measurements on matrices: singular values and vectors, overlaps, the rank-one part, slopes.

The spike chapter (Ba et al. 2022, Proposition 2) splits the first gradient :math:`G_0` into
its rank-one part :math:`A = \frac{\mu_1}{n\sqrt N} X^\top y a^\top` and the rest and
measures norms, singular values and overlaps (the seeded runner is
:func:`helpers.simulate.spike_measurements`; the limits live in
:mod:`helpers.theory.spike`).  Singular values come from the smaller Gram matrix, which for
the book's sizes is as fast as an SVD.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import linalg

from ._validation import check_matrix, check_positive
from .activations import as_student

__all__ = [
    "rank_one_part",
    "singular_values",
    "top_singular_pair",
    "top_singular",
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


def singular_values(G) -> np.ndarray:
    """All ``min(G.shape)`` singular values of a matrix, in decreasing order."""
    G = check_matrix("G", G, 2)
    ev = np.linalg.eigvalsh(G @ G.T if G.shape[0] <= G.shape[1] else G.T @ G)
    return np.sqrt(np.clip(ev[::-1], 0.0, None))


def top_singular_pair(G) -> tuple[float, np.ndarray]:
    """Largest singular value of ``G`` (shape (d, N)) and its left singular vector (d,)."""
    G = check_matrix("G", G, 2)
    if G.shape[0] <= G.shape[1]:
        ev, vecs = np.linalg.eigh(G @ G.T)
        u = vecs[:, -1]
    else:
        ev, vecs = np.linalg.eigh(G.T @ G)
        u = G @ vecs[:, -1]
        u = u / np.linalg.norm(u)
    return math.sqrt(max(float(ev[-1]), 0.0)), u


def top_singular(F, r: int) -> tuple[np.ndarray, np.ndarray]:
    r"""Top ``r`` singular values and left singular vectors of ``F`` with its columns centred.

    ``F`` of shape (m, N), usually features on m inputs, in its own float precision (float32
    halves the cost); the columns are centred first (each feature minus its mean).  Only the
    top ``r`` eigenpairs of :math:`F^\top F` are computed (``scipy.linalg.eigh`` with
    ``subset_by_index``), a fraction of a full decomposition's cost when ``r`` is small.

    Returns
    -------
    s : ndarray of shape (r,)
        Singular values, decreasing.
    U : ndarray of shape (m, r)
        The matching left singular vectors (unit columns).
    """
    F = np.asarray(F)
    if F.ndim != 2 or not np.issubdtype(F.dtype, np.floating):
        raise ValueError(f"F must be a 2-d float array; got shape {F.shape}, dtype {F.dtype}")
    m = F.shape[1]
    r = check_positive("r", r, integer=True)
    if r > m:
        raise ValueError(f"r must be at most the number of columns of F ({m}); got {r}")
    F = F - F.mean(axis=0)
    s2, V = linalg.eigh(F.T @ F, subset_by_index=[m - r, m - 1])
    s, V = np.sqrt(np.maximum(s2[::-1], 0)), V[:, ::-1]
    return s, F @ V / s


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
