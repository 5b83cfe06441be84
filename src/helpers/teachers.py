r"""Teachers: single-index links by name, and k-index teachers :math:`g(B^\top x)`.

Ba et al. (2022) take a single-index teacher :math:`f_*(x) = \sigma_*(\langle x, \beta_*\rangle)`
with :math:`\beta_*` uniform on the sphere and the link centred (:math:`\mu_0^* = 0`); its link is
a name of :data:`helpers.activations.ACTIVATION_NAMES` or a callable of one variable, centred
by quadrature (:func:`helpers.activations.as_teacher`).  A *k-index* teacher depends on the
input through :math:`k` directions,

.. math::

    f_*(x) = g(B^\top x), \qquad B \in \mathbb{R}^{d\times k},\; B^\top B = I_k,

with a link :math:`g: \mathbb{R}^k \to \mathbb{R}` of the :math:`(n, k)` projections, used as it
is (chapters 6 and 7).  :func:`helpers.run` takes either: ``teacher`` a name or a callable of
one variable (``k`` left out), or a link of the projections with ``k`` given.

Functions
---------
sample_directions     k orthonormal directions B (d x k), uniform
single_index          the link g(Z) = link(Z[:, 0]) of a single-index teacher, uncentred
product, parity       z_1 z_2 ... z_k and its sign
staircase             z_1 + z_1 z_2 + z_2 z_3 + ... + z_{k-1} z_k
remove_linear_part    labels minus their empirical mean and linear fit
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ._validation import check_matrix, check_positive, check_rng

__all__ = ["sample_directions", "single_index", "product", "parity", "staircase",
           "remove_linear_part", "check_link"]


def sample_directions(d: int, k: int, *, rng: np.random.Generator) -> np.ndarray:
    r"""``k`` orthonormal teacher directions, uniform on the Stiefel manifold.

    With ``k = 1`` this is :math:`\beta_* = g/\|g\|` for a standard normal :math:`g`: the
    teacher direction of the paper, uniform on the sphere.

    Returns
    -------
    B : ndarray of shape (d, k)
        :math:`B^\top B = I_k`.
    """
    check_positive("d", d, integer=True)
    check_positive("k", k, integer=True)
    if k > d:
        raise ValueError(f"k must be at most d = {d}; got k = {k}")
    G = check_rng(rng).standard_normal((d, k))
    if k == 1:
        return G / np.linalg.norm(G)
    Q, R = np.linalg.qr(G)
    return Q * np.sign(np.diag(R))  # sign fix: the distribution is then uniform


def check_link(g) -> Callable:
    """``g`` if it is callable (a link of the (n, k) projections); ``ValueError`` otherwise."""
    if not callable(g):
        raise ValueError(f"teacher must be a callable of an (n, k) array when k is given; got "
                         f"{type(g).__name__}")
    return g


def single_index(link) -> Callable:
    r"""The link ``g(Z) = link(Z[:, 0])`` of a single-index teacher :math:`\sigma_*(\langle
    \theta_1, x\rangle)`, for a scalar ``link`` used as it is (not centred)."""
    link = check_link(link)

    def g(Z):
        return link(np.asarray(Z)[:, 0])

    g.__name__ = f"single_index({getattr(link, '__name__', 'link')})"
    return g


def _columns(Z, least: int) -> np.ndarray:
    Z = np.asarray(Z, dtype=float)
    if Z.ndim != 2 or Z.shape[1] < least:
        raise ValueError(f"Z must be an (n, k) array with k >= {least}; got shape {Z.shape}")
    return Z


def product(Z) -> np.ndarray:
    r"""The link :math:`g(z) = z_1 z_2 \cdots z_k` over the k columns of ``Z`` (k >= 2)."""
    return np.prod(_columns(Z, 2), axis=1)


def parity(Z) -> np.ndarray:
    r"""The sparse parity :math:`g(z) = \mathrm{sign}(z_1 z_2 \cdots z_k)` (k >= 2)."""
    return np.sign(product(Z))


def staircase(Z) -> np.ndarray:
    r"""The link :math:`g(z) = z_1 + z_1 z_2 + z_2 z_3 + \dots + z_{k-1} z_k` (k >= 2).

    Each term shares one direction with the one before it and adds one new direction, so
    a direction learnt opens the next: a staircase in the sense of Abbe et al. (2022), in
    this chain form.
    """
    Z = _columns(Z, 2)
    out = Z[:, 0]
    for j in range(1, Z.shape[1]):
        out = out + Z[:, j - 1] * Z[:, j]
    return out


def remove_linear_part(X, y):
    r"""Labels minus their empirical mean and linear part,
    :math:`y - \bar y - X\hat b` with :math:`\hat b = X^\top y/n` (the estimate of the
    first Hermite coefficients used by Dandi et al.'s code before a giant step).

    Returns
    -------
    y_rest : ndarray of shape (n,)
    mean : float
    b : ndarray of shape (d,)
    """
    X = check_matrix("X", X, 2)
    y = check_matrix("y", y, 1, (X.shape[0],))
    mean = float(y.mean())
    b = X.T @ y / X.shape[0]
    return y - mean - X @ b, mean, b
