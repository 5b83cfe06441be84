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

__all__ = ["mp_support", "mp_atom", "mp_density", "mp_stieltjes", "mp_stieltjes_derivative",
           "bbp_limits", "tracy_widom_cdf", "johnstone_scales"]


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


def bbp_limits(theta, ratio: float):
    r"""Limits of the top singular value and vectors of a spiked matrix
    :math:`Y = W_0 + \theta u_0v_0^\top` (the appendix, A.5): :math:`W_0` of size
    :math:`d\times N` with i.i.d. :math:`N(0, 1/d)` entries, :math:`N/d \to \gamma`, unit
    :math:`u_0, v_0` independent of :math:`W_0` (Benaych-Georges and Nadakuditi, 2012).

    Above the threshold :math:`\theta > \gamma^{1/4}`,

    .. math::

        \hat s^2 \to \frac{(1 + \theta^2)(\gamma + \theta^2)}{\theta^2},\quad
        \langle\hat u, u_0\rangle^2 \to \frac{\theta^4 - \gamma}{\theta^2(\theta^2 + 1)},\quad
        \langle\hat v, v_0\rangle^2 \to \frac{\theta^4 - \gamma}{\theta^2(\theta^2 + \gamma)};

    at or below it :math:`\hat s \to 1 + \sqrt\gamma` (the edge) and both overlaps tend to 0.

    Parameters
    ----------
    theta : float or array_like
        Spike strengths (>= 0).
    ratio : float
        :math:`\gamma = N/d > 0`.

    Returns
    -------
    s, overlap_left, overlap_right : ndarray, the shape of ``theta``

    >>> [round(float(v), 6) for v in bbp_limits(2.0, 1.0)]
    [2.5, 0.75, 0.75]
    """
    check_positive("ratio", ratio)
    theta = np.asarray(theta, dtype=float)
    if not np.all(np.isfinite(theta)) or np.any(theta < 0):
        raise ValueError(f"theta must be finite and >= 0; got {theta!r}")
    above = theta > ratio**0.25
    t2 = np.where(above, theta**2, 1.0)  # placeholder below the threshold
    s = np.where(above, np.sqrt((1 + t2) * (ratio + t2) / t2), 1 + math.sqrt(ratio))
    left = np.where(above, (t2**2 - ratio) / (t2 * (t2 + 1)), 0.0)
    right = np.where(above, (t2**2 - ratio) / (t2 * (t2 + ratio)), 0.0)
    return s, left, right


def tracy_widom_cdf(s, *, nodes: int = 30, length: float = 12.0) -> np.ndarray:
    r"""The GOE Tracy-Widom distribution function :math:`F_1(s) = \det(I - K_s)`, with the
    kernel :math:`K_s(x, y) = \mathrm{Ai}(x + y + s)` on :math:`L^2(0, \infty)` (Ferrari and
    Spohn, 2005), by a Gauss-Legendre rule of ``nodes`` points on ``(0, length)``
    (Bornemann, 2010: near machine precision with 30 nodes).

    >>> round(float(tracy_widom_cdf(-1.2)[0]), 3)
    0.522
    """
    from scipy.special import airy

    check_positive("nodes", nodes, integer=True)
    check_positive("length", length)
    x, w = np.polynomial.legendre.leggauss(nodes)
    t, sw = (x + 1) * length / 2, np.sqrt(w * length / 2)
    return np.array([np.linalg.det(np.eye(nodes) - sw[:, None] * airy(t[:, None] + t + si)[0]
                                   * sw) for si in np.atleast_1d(np.asarray(s, dtype=float))])


def johnstone_scales(d: int, N: int) -> tuple[float, float]:
    r"""Johnstone's (2001) centring and scale :math:`(\mu_{dN}, \sigma_{dN})` of the largest
    eigenvalue of :math:`d\,W_0^\top W_0` (the Gram matrix of a :math:`d\times N` standard
    Gaussian matrix): :math:`(d\lambda_{\max} - \mu_{dN})/\sigma_{dN} \to \mathrm{TW}_1`, with
    :math:`\mu_{dN} = (\sqrt{L - 1} + \sqrt S)^2` and :math:`\sigma_{dN} = (\sqrt{L - 1} +
    \sqrt S)(1/\sqrt{L - 1} + 1/\sqrt S)^{1/3}`, L the larger and S the smaller of d, N.

    >>> [round(v, 6) for v in johnstone_scales(100, 200)]
    [581.13472, 13.377523]
    """
    check_positive("d", d, integer=True)
    check_positive("N", N, integer=True)
    big, small = max(d, N), min(d, N)
    if big < 2:
        raise ValueError(f"the larger of d and N must be at least 2; got d = {d}, N = {N}")
    a = math.sqrt(big - 1) + math.sqrt(small)
    return a**2, a * (1 / math.sqrt(big - 1) + 1 / math.sqrt(small)) ** (1 / 3)
