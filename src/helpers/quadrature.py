r"""Gaussian integrals :math:`E\,f(z)`, :math:`z \sim N(0, 1)`, in one place.

Two methods, each where it fits:

* :func:`gaussian_expectation` -- adaptive quadrature (QUADPACK) for one integral of any
  callable, the real line split at the callable's kinks; about 1e-12 absolute accuracy.  The
  Hermite coefficients of :mod:`helpers.activations` use it.
* :func:`gaussian_rule` and :func:`gaussian_rows` -- fixed Gauss-Legendre rules on
  :math:`[-L, L]`, split into pieces at the kinks (and, for :func:`gaussian_rows`, where the
  argument :math:`m + s z` of a kinked function crosses a kink), with the Gaussian density
  folded into the weights.  Vectorised: one rule serves every integrand on the same nodes,
  which is what the large-step theory needs (thousands of integrals per point).

Accuracy of the fixed rules: the tails beyond :math:`L = 10` weigh
:math:`2\bar\Phi(10) < 2\cdot 10^{-23}` (:math:`L = 12`: :math:`< 10^{-32}`); on each piece
an :math:`m`-node Gauss-Legendre rule is exact for polynomials of degree :math:`2m - 1`, and
converges geometrically for integrands analytic on the piece (a smooth activation times the
density).  ``tests/test_quadrature.py`` checks the moments :math:`E z^{2k}`, kinked
integrands with closed forms (ReLU, :math:`|z|`) and tanh's coefficients against the
adaptive method, to 1e-12 or better with the node counts the book uses.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np
from scipy import integrate

__all__ = ["gaussian_expectation", "legendre_pieces", "gaussian_rule", "gaussian_rows",
           "GAUSS_DENSITY"]

_SQRT2PI = math.sqrt(2.0 * math.pi)
GAUSS_DENSITY = 1.0 / _SQRT2PI   # the standard normal density at 0


def gaussian_expectation(fn: Callable, kinks=()) -> float:
    r"""Return :math:`E\,f(z)` for :math:`z \sim N(0,1)` by adaptive quadrature.

    The real line is split at ``kinks`` (points where ``fn`` is not smooth) so that each
    piece is smooth and the quadrature reaches about 1e-12 absolute accuracy.

    Parameters
    ----------
    fn : callable
        Vectorised function of one real variable.
    kinks : sequence of float
        Points where ``fn`` or its derivative jumps.
    """
    points = sorted({0.0, *map(float, kinks)})

    def weighted(t):
        return float(fn(np.asarray(t, dtype=float))) * math.exp(-0.5 * t * t) / _SQRT2PI

    opts = dict(epsabs=1e-14, epsrel=1e-13, limit=400)
    total = integrate.quad(weighted, -np.inf, points[0], **opts)[0]
    for lo, hi in zip(points[:-1], points[1:], strict=True):
        total += integrate.quad(weighted, lo, hi, **opts)[0]
    total += integrate.quad(weighted, points[-1], np.inf, **opts)[0]
    return total


@functools.cache
def _legendre(nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes and weights on [-1, 1] (a pure function of ``nodes``)."""
    return np.polynomial.legendre.leggauss(nodes)


def legendre_pieces(bounds: np.ndarray, nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes and weights on the consecutive pieces of each row of ``bounds``.

    Parameters
    ----------
    bounds : ndarray of shape (M, P + 1)
        Increasing along each row (equal neighbours give an empty piece, weight 0).
    nodes : int
        Nodes per piece.

    Returns
    -------
    z, w : ndarrays of shape (M, P * nodes)
        Plain Legendre weights (no density): :math:`\\int f \\approx \\sum_j w_j f(z_j)`.
    """
    x, v = _legendre(int(nodes))
    lo, hi = bounds[:, :-1, None], bounds[:, 1:, None]
    half, mid = 0.5 * (hi - lo), 0.5 * (hi + lo)
    z = mid + half * x[None, None, :]
    w = half * v[None, None, :]
    M = bounds.shape[0]
    return z.reshape(M, -1), w.reshape(M, -1)


def _with_density(z: np.ndarray, w: np.ndarray) -> np.ndarray:
    return w * np.exp(-0.5 * z * z) * GAUSS_DENSITY


def gaussian_rule(breaks=(), *, nodes: int = 80, half_width: float = 12.0,
                  pieces: int = 1) -> tuple[np.ndarray, np.ndarray]:
    r"""Nodes ``x`` and weights ``w`` with :math:`E f(z) \approx \sum_j w_j f(x_j)`.

    :math:`[-L, L]` (``half_width``) is cut into ``pieces`` equal pieces, and again at 0 and
    at every point of ``breaks`` inside it (the kinks of the integrand); each piece gets a
    ``nodes``-point Gauss-Legendre rule.  The weights include the Gaussian density.

    Returns
    -------
    x, w : ndarrays of shape (K,)
    """
    L = float(half_width)
    pts = np.unique(np.concatenate([np.linspace(-L, L, int(pieces) + 1), [0.0],
                                    [b for b in map(float, breaks) if -L < b < L]]))
    z, w = legendre_pieces(pts[None, :], nodes)
    return z[0], _with_density(z[0], w[0])


def gaussian_rows(loc, scale: float, kinks=(), *, nodes: int, half_width: float = 12.0,
                  pieces: int = 1) -> tuple[np.ndarray, np.ndarray]:
    r"""One rule per row for :math:`E f(m_j + s z)`, :math:`j = 1..M`, with ``f`` kinked.

    Row :math:`j` cuts :math:`[-L, L]` into ``pieces`` equal pieces and again where
    :math:`m_j + s z` meets a kink :math:`k` of ``f`` (:math:`z = (k - m_j)/s`), so every
    piece of every row is smooth.  The weights include the Gaussian density:
    :math:`E f(m_j + s z) \approx \sum_i w_{ji} f(m_j + s z_{ji})`.

    Parameters
    ----------
    loc : array_like of shape (M,)
        The shifts :math:`m_j`.
    scale : float
        :math:`s \ge 0` (no kink cuts when 0).
    kinks : sequence of float
        Kinks of ``f``.

    Returns
    -------
    z, w : ndarrays of shape (M, K)
    """
    loc = np.asarray(loc, dtype=float).reshape(-1)
    L = float(half_width)
    grid = np.linspace(-L, L, int(pieces) + 1)
    cuts = [np.broadcast_to(grid, (loc.size, grid.size))]
    if len(kinks) and scale > 0:
        cuts.append(np.clip((np.asarray(kinks, dtype=float)[None, :] - loc[:, None]) / scale,
                            -L, L))
    bounds = np.sort(np.concatenate(cuts, axis=1), axis=1)
    z, w = legendre_pieces(bounds, nodes)
    return z, _with_density(z, w)
