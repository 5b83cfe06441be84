r"""Marchenko-Pastur law: support, density and Stieltjes transform.

The book meets one Wishart matrix: :math:`H_0 = W_0^\top W_0` (N x N), where
:math:`W_0 \in \mathbb{R}^{d\times N}` has i.i.d. :math:`N(0, 1/d)` entries.  As
:math:`N/d \to \psi_2` its eigenvalue distribution converges to the Marchenko-Pastur law
with ratio :math:`\gamma = \psi_2` and unit variance (Marchenko & Pastur, 1967):

.. math::

    \rho_\gamma(dx) = \Big(1 - \frac1\gamma\Big)_+\delta_0(dx)
        + \frac{\sqrt{(x_+ - x)(x - x_-)}}{2\pi\gamma x}\,\mathbf 1_{[x_-, x_+]}(x)\,dx,
    \qquad x_\pm = (1 \pm \sqrt\gamma)^2 .

Its Stieltjes transform :math:`m(z) = \int \rho_\gamma(dx)/(x - z)` solves
:math:`\gamma z m^2 - (1 - \gamma - z)m + 1 = 0`; left of the support (real :math:`z < x_-`,
in particular every :math:`z < 0`) the relevant root is the positive one,

.. math::

    m(z) = \frac{2}{1 - \gamma - z + \sqrt{(1 - \gamma - z)^2 - 4\gamma z}},

written in this rationalised form to avoid cancellation.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_positive

__all__ = ["mp_support", "mp_atom", "mp_density", "mp_stieltjes", "mp_stieltjes_derivative"]


def mp_support(ratio: float) -> tuple[float, float]:
    r"""Edges :math:`((1-\sqrt\gamma)^2, (1+\sqrt\gamma)^2)` of the continuous part."""
    check_positive("ratio", ratio)
    r = math.sqrt(ratio)
    return (1.0 - r) ** 2, (1.0 + r) ** 2


def mp_atom(ratio: float) -> float:
    r"""Mass :math:`(1 - 1/\gamma)_+` of the atom at zero (present when :math:`\gamma > 1`)."""
    check_positive("ratio", ratio)
    return max(0.0, 1.0 - 1.0 / ratio)


def mp_density(x, ratio: float) -> np.ndarray:
    """Density of the continuous part of the Marchenko-Pastur law (the atom excluded).

    Parameters
    ----------
    x : array_like
        Points where the density is evaluated.
    ratio : float
        Aspect ratio :math:`\\gamma > 0` (columns over rows of :math:`W_0`, i.e. ``N/d``).

    Returns
    -------
    ndarray, same shape as ``x``
    """
    lo, hi = mp_support(ratio)
    x = np.asarray(x, dtype=float)
    inside = (x > lo) & (x < hi)
    out = np.zeros_like(x)
    xi = x[inside]
    out[inside] = np.sqrt((hi - xi) * (xi - lo)) / (2.0 * math.pi * ratio * xi)
    return out


def _check_left_of_support(z, ratio):
    z = np.asarray(z, dtype=float)
    lo, _ = mp_support(ratio)
    bound = 0.0 if ratio >= 1 else lo
    if not np.all(np.isfinite(z)) or np.any(z >= bound):
        raise ValueError(f"z must be real and < {bound:g} (left of the spectrum of the "
                         f"Marchenko-Pastur law with ratio {ratio}); got max {np.max(z)!r}")
    return z


def mp_stieltjes(z, ratio: float) -> np.ndarray:
    r"""Stieltjes transform :math:`m(z) = E[1/(\lambda - z)]` of the Marchenko-Pastur law.

    Parameters
    ----------
    z : array_like
        Real points left of the spectrum: ``z < 0`` (or ``z < x_-`` when ``ratio < 1``).
    ratio : float
        Aspect ratio :math:`\gamma > 0`.

    Returns
    -------
    ndarray, same shape as ``z``
        Positive values; the atom at zero (ratio > 1) is included.
    """
    z = _check_left_of_support(z, ratio)
    b = 1.0 - ratio - z
    return 2.0 / (b + np.sqrt(b * b - 4.0 * ratio * z))


def mp_stieltjes_derivative(z, ratio: float) -> np.ndarray:
    r""":math:`m'(z) = E[1/(\lambda - z)^2]`, same conventions as :func:`mp_stieltjes`."""
    z = _check_left_of_support(z, ratio)
    b = 1.0 - ratio - z
    root = np.sqrt(b * b - 4.0 * ratio * z)
    denom = b + root
    # d(root)/dz = (z - 1 - ratio) / root, d(b)/dz = -1
    return 2.0 * (1.0 + (1.0 + ratio - z) / root) / denom**2
