r"""Kernel matrices of the baselines that one gradient step beats.

Proposition 1 of Ba et al. (2022) says that, in the proportional limit, kernel ridge
regression with the initial conjugate kernel (CK), the initial neural tangent kernel (NTK) or
any inner-product / Euclidean-distance kernel has prediction risk at least
:math:`\|P_{>1}f_*\|^2 = \mu_2^{*2}` for every penalty.  This module builds those kernels;
:func:`helpers.ridge.kernel_ridge_path` fits them and
:func:`helpers.measures.kernel_risk` puts them beside the trained features of one run.

Kernels (:func:`kernel_matrix`), for inputs :math:`x, x'` in :math:`\mathbb R^d`:

* ``"ck"``: :math:`\frac1N\sigma(W_0^\top x)^\top\sigma(W_0^\top x')` (random features at init);
* ``"ntk"``: :math:`\frac{\langle x, x'\rangle}{d}\cdot\frac1N
  \sigma'(W_0^\top x)^\top\sigma'(W_0^\top x')`, the first-layer NTK at init, i.e. the
  Gram matrix of the features :math:`(Nd)^{-1/2}\mathrm{Vec}(\sigma'(W_0^\top x)x^\top)`;
* ``"rbf"``: :math:`\exp(-\|x - x'\|^2/(2d\,h^2))` (Euclidean-distance kernel, bandwidth h);
* ``"arccos"``: the degree-1 arc-cosine kernel :math:`\frac{\|x\|\|x'\|}{2\pi d}
  (\sin\theta + (\pi - \theta)\cos\theta)`, the infinite-width CK of a ReLU network;
* ``"quadratic"``: the inner-product kernel :math:`t + t^2` of :math:`t = \langle x,
  x'\rangle/d`, a polynomial of degree 2 (with :math:`n \asymp d^2` samples such a kernel
  learns the degree-2 part of a target, Ghorbani et al., 2021); its explicit features are
  :func:`quadratic_features`, so for :math:`d(d+3)/2 < n` ridge on them is cheaper than the
  :math:`n\times n` kernel.

Penalty convention (as in :mod:`helpers.ridge`): for :math:`K = FF^\top` the kernel
estimator :math:`\hat f(x) = k(x)^\top\alpha`, :math:`\alpha = (K/n + \lambda I)^{-1}y/n`,
equals ridge on the features :math:`F` with penalty :math:`\lambda\|b\|^2` on the MSE.
"""

from __future__ import annotations

import math

import numpy as np

from ._validation import check_matrix, check_positive
from .activations import as_student

__all__ = ["KERNEL_NAMES", "kernel_matrix", "quadratic_features"]

KERNEL_NAMES = ("ck", "ntk", "rbf", "arccos", "quadratic")


def kernel_matrix(kind: str, X1, X2=None, *, W0=None, student=None,
                  bandwidth: float = 1.0) -> np.ndarray:
    r"""Kernel matrix :math:`K_{ij} = k(x_i, x'_j)`.

    Parameters
    ----------
    kind : {"ck", "ntk", "rbf", "arccos", "quadratic"}
        See the module docstring.
    X1 : ndarray of shape (n1, d)
    X2 : ndarray of shape (n2, d), optional
        Defaults to ``X1``.
    W0 : ndarray of shape (d, N)
        Initial first layer; required for ``"ck"`` and ``"ntk"``.
    student : str, callable or Activation
        Activation; required for ``"ck"`` and ``"ntk"``.
    bandwidth : float, default 1
        ``h`` of the ``"rbf"`` kernel (distances are measured in units of :math:`\sqrt d`).

    Returns
    -------
    K : ndarray of shape (n1, n2)
    """
    if kind not in KERNEL_NAMES:
        raise ValueError(f"kind must be one of {', '.join(KERNEL_NAMES)}; got {kind!r}")
    X1 = check_matrix("X1", X1, 2)
    X2 = X1 if X2 is None else check_matrix("X2", X2, 2, (None, X1.shape[1]))
    d = X1.shape[1]
    if kind in ("ck", "ntk"):
        if W0 is None or student is None:
            raise ValueError(f"kind={kind!r} needs W0 (the initial first layer) and student; "
                             f"got W0={'None' if W0 is None else 'array'}, student={student!r}")
        W0 = check_matrix("W0", W0, 2, (d, None))
        act, N = as_student(student), W0.shape[1]
        P1, P2 = X1 @ W0, X2 @ W0
        if kind == "ck":
            return act(P1) @ act(P2).T / N
        return (X1 @ X2.T / d) * (act.derivative(P1) @ act.derivative(P2).T / N)
    inner = X1 @ X2.T / d
    if kind == "quadratic":
        return inner + inner * inner
    n1 = np.einsum("ij,ij->i", X1, X1) / d
    n2 = np.einsum("ij,ij->i", X2, X2) / d
    if kind == "rbf":
        check_positive("bandwidth", bandwidth)
        sq = np.maximum(n1[:, None] + n2[None, :] - 2.0 * inner, 0.0)
        return np.exp(-sq / (2.0 * bandwidth**2))
    norms = np.sqrt(np.outer(n1, n2))
    cos = np.clip(inner / np.maximum(norms, 1e-300), -1.0, 1.0)
    theta = np.arccos(cos)
    return norms * (np.sin(theta) + (math.pi - theta) * cos) / (2.0 * math.pi)


def quadratic_features(X) -> np.ndarray:
    r"""Explicit features of the ``"quadratic"`` kernel: :math:`\varphi(x)^\top\varphi(x') =
    t + t^2` with :math:`t = \langle x, x'\rangle/d`.

    :math:`\varphi(x) = \big(x/\sqrt d,\; (x_i^2/d)_{i},\; (\sqrt2\,x_ix_j/d)_{i<j}\big)`,
    since :math:`t^2 = d^{-2}\big(\sum_i x_i^2x_i'^2 + 2\sum_{i<j}x_ix_jx_i'x_j'\big)`.

    Parameters
    ----------
    X : ndarray of shape (n, d)

    Returns
    -------
    ndarray of shape (n, d + d(d+1)/2)
    """
    X = check_matrix("X", X, 2)
    d = X.shape[1]
    i, j = np.triu_indices(d, k=1)
    return np.hstack([X / math.sqrt(d), X * X / d, X[:, i] * X[:, j] * (math.sqrt(2.0) / d)])
