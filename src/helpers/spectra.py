r"""Measuring the spectrum of the first gradient: spike, bulk, alignment and norms.

These are the simulation side of the spike chapter (Ba et al. 2022, Proposition 2): draw the
first step with :func:`helpers.model.run_first_step`, split :math:`G_0` into its rank-one
part :math:`A = \frac{\mu_1}{n\sqrt N} X^\top y a^\top` and the rest, and measure norms,
singular values and overlaps.  The matching limits live in :mod:`helpers.theory.spike`.

Singular values are computed from the smaller Gram matrix with one BLAS thread: for the
sizes of the book (d <= 1024) this is as fast as a threaded SVD on an idle machine and does
not slow down by an order of magnitude when the cores are shared.
"""

from __future__ import annotations

import math

import numpy as np
from threadpoolctl import threadpool_limits

from .model import _check_matrix, as_student, check_positive, run_first_step

__all__ = [
    "rank_one_part",
    "singular_values",
    "top_singular_pair",
    "squared_overlap",
    "spike_measurements",
    "gradient_singular_values",
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
    X = _check_matrix("X", X, 2)
    y = _check_matrix("y", y, 1, (X.shape[0],))
    a = _check_matrix("a", a, 1)
    mu1 = as_student(student).mu1
    n, N = X.shape[0], a.shape[0]
    return np.outer((mu1 / (n * math.sqrt(N))) * (X.T @ y), a)


def _gram(G: np.ndarray) -> np.ndarray:
    return G @ G.T if G.shape[0] <= G.shape[1] else G.T @ G


def _singular_values(G: np.ndarray) -> np.ndarray:
    ev = np.linalg.eigvalsh(_gram(G))
    return np.sqrt(np.clip(ev[::-1], 0.0, None))


def _top_pair(G: np.ndarray) -> tuple[float, np.ndarray]:
    if G.shape[0] <= G.shape[1]:
        ev, vecs = np.linalg.eigh(G @ G.T)
        u = vecs[:, -1]
    else:
        ev, vecs = np.linalg.eigh(G.T @ G)
        u = G @ vecs[:, -1]
        u = u / np.linalg.norm(u)
    return math.sqrt(max(float(ev[-1]), 0.0)), u


def singular_values(G) -> np.ndarray:
    """All ``min(G.shape)`` singular values of a matrix, in decreasing order."""
    G = _check_matrix("G", G, 2)
    with threadpool_limits(limits=1, user_api="blas"):
        return _singular_values(G)


def top_singular_pair(G) -> tuple[float, np.ndarray]:
    """Largest singular value of ``G`` (shape (d, N)) and its left singular vector (d,)."""
    G = _check_matrix("G", G, 2)
    with threadpool_limits(limits=1, user_api="blas"):
        return _top_pair(G)


def squared_overlap(u, v) -> float:
    r""":math:`\langle u, v\rangle^2 / (\|u\|^2\|v\|^2)` for two nonzero vectors of equal length."""
    u = _check_matrix("u", u, 1)
    v = _check_matrix("v", v, 1, (u.shape[0],))
    nu, nv = float(u @ u), float(v @ v)
    if nu == 0.0 or nv == 0.0:
        raise ValueError("u and v must be nonzero vectors; got a zero vector")
    return float(u @ v) ** 2 / (nu * nv)


def spike_measurements(student, teacher, *, d, psi1, psi2, noise=0.0, seed=0,
                       norms=True) -> dict:
    r"""Draw one first step and measure what Proposition 2 is about.

    Parameters
    ----------
    student, teacher : str, callable or Activation
    d : int
        Input dimension; ``n = round(psi1 d)``, ``N = round(psi2 d)``.
    psi1, psi2 : float
    noise : float
        Label-noise standard deviation.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        The same streams as :func:`helpers.simulate_one_step` (so the same data).
    norms : bool, default True
        Also measure the norms and the distance to A (the overlaps alone are cheaper).

    Returns
    -------
    dict of float
        ``overlap``: :math:`\langle u, \beta_*\rangle^2` for the top left singular vector u of
        :math:`G_0`; ``overlap_A``: the same for A, i.e. for :math:`X^\top y`.  With
        ``norms``: ``ratio`` :math:`\|G_0 - A\|/\|G_0\|`; ``spike`` :math:`\sqrt N\|G_0\|`;
        ``frobenius`` :math:`\sqrt N\|G_0\|_F`; ``second`` :math:`\sqrt N s_2(G_0)`;
        ``W0_op`` :math:`\|W_0\|`; ``W0_fro`` :math:`\|W_0\|_F`; and ``n``, ``N``.
    """
    with threadpool_limits(limits=1, user_api="blas"):
        fs = run_first_step(student, teacher, d=d, psi1=psi1, psi2=psi2, eta=0.0,
                            noise=noise, seed=seed)
        d, n, N = fs.shape
        top, u = _top_pair(fs.G0)
        out = {
            "overlap": squared_overlap(u, fs.beta),
            "overlap_A": squared_overlap(fs.X.T @ fs.y, fs.beta),
        }
        out["bulk_loss"] = out["overlap_A"] - out["overlap"]
        if norms:
            A = rank_one_part(fs.X, fs.y, fs.a, student)
            sv = _singular_values(fs.G0)
            out.update({
                "ratio": float(_singular_values(fs.G0 - A)[0] / top),
                "spike": math.sqrt(N) * top,
                "frobenius": math.sqrt(N) * float(np.linalg.norm(fs.G0)),
                "second": math.sqrt(N) * float(sv[1]) if sv.size > 1 else 0.0,
                "W0_op": float(_singular_values(fs.W0)[0]),
                "W0_fro": float(np.linalg.norm(fs.W0)),
                "n": float(n),
                "N": float(N),
            })
    return out


def gradient_singular_values(student, teacher, *, d, psi1, psi2, noise=0.0, seed=0,
                             k=None) -> list[dict]:
    r"""The ``k`` largest singular values of :math:`\sqrt N G_0` for one draw, as records.

    Returns a list of ``{"index": i, "s": value}`` (i = 1, 2, ...), the form
    :func:`helpers.sweep` averages with ``by=("index",)``.  ``k=None`` keeps all
    ``min(d, N)`` of them.
    """
    with threadpool_limits(limits=1, user_api="blas"):
        fs = run_first_step(student, teacher, d=d, psi1=psi1, psi2=psi2, eta=0.0,
                            noise=noise, seed=seed)
        sv = math.sqrt(fs.shape[2]) * _singular_values(fs.G0)
    if k is not None:
        sv = sv[:check_positive("k", k, integer=True)]
    return [{"index": i + 1, "s": float(s)} for i, s in enumerate(sv)]


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
    x = _check_matrix("x", x, 1)
    y = _check_matrix("y", y, 1, (x.shape[0],))
    if x.shape[0] < 3:
        raise ValueError(f"x and y need at least 3 points; got {x.shape[0]}")
    if np.any(x <= 0) or np.any(y <= 0):
        raise ValueError("x and y must be positive for a log-log fit; got a value <= 0")
    lx, ly = np.log(x), np.log(y)
    if se is None:
        w = np.ones_like(lx)
    else:
        se = _check_matrix("se", se, 1, (x.shape[0],))
        if np.any(se <= 0):
            raise ValueError(f"se must be > 0; got min {se.min()}")
        w = (y / se) ** 2
    xm = np.sum(w * lx) / np.sum(w)
    ym = np.sum(w * ly) / np.sum(w)
    sxx = np.sum(w * (lx - xm) ** 2)
    slope = float(np.sum(w * (lx - xm) * (ly - ym)) / sxx)
    if se is None:
        resid = ly - ym - slope * (lx - xm)
        slope_se = math.sqrt(float(resid @ resid) / (x.shape[0] - 2) / sxx)
    else:
        slope_se = math.sqrt(1.0 / sxx)
    return slope, slope_se
