r"""Ridge regression on features for a whole grid of penalties, and the prediction risk.

The paper's estimator (§2.1) on normalised features :math:`\Phi = N^{-1/2}\sigma(\tilde X W)`

.. math::

    \hat a = \arg\min_a \frac1n\|\tilde y - \Phi a\|^2 + \frac{\lambda}{N}\|a\|^2

is, with :math:`b = a/\sqrt N` and unnormalised features :math:`F = \sigma(\tilde XW)`,
plain ridge :math:`\min_b \frac1n\|\tilde y - Fb\|^2 + \lambda\|b\|^2`, whose solution is
:math:`b = (F^\top F/n + \lambda I)^{-1}F^\top\tilde y/n`.  One symmetric eigendecomposition of
the smaller of :math:`F^\top F/n` (N x N) and :math:`FF^\top/n` (n x n) serves every
:math:`\lambda` (the trick of scikit-learn's ``_solve_svd``).
"""

from __future__ import annotations

import numpy as np

from .model import _check_matrix, as_student, as_teacher, check_positive, check_rng

__all__ = ["check_lambdas", "ridge_path", "prediction_risk"]


def check_lambdas(lambdas) -> np.ndarray:
    """Return ``lambdas`` as a 1-d float array, raising ``ValueError`` unless all are > 0."""
    lam = np.atleast_1d(np.asarray(lambdas, dtype=float))
    if lam.ndim != 1 or lam.size == 0:
        raise ValueError(f"lam must be a number or a 1-d sequence of numbers; got shape "
                         f"{lam.shape}")
    if not np.all(np.isfinite(lam)) or np.any(lam <= 0):
        raise ValueError(f"lam must be finite and > 0 (the ridge penalty); got {lam.tolist()}")
    return lam


def ridge_path(F, y, lambdas) -> np.ndarray:
    r"""Ridge coefficients :math:`b(\lambda) = (F^\top F/n + \lambda I)^{-1}F^\top y/n` for many
    penalties from one eigendecomposition.

    Parameters
    ----------
    F : ndarray of shape (n, N)
        Features (unnormalised, :math:`\sigma(\tilde XW)`).
    y : ndarray of shape (n,)
        Targets.
    lambdas : float or array of shape (L,)
        Penalties, all > 0 (penalty :math:`\lambda\|b\|^2` on the mean squared error).

    Returns
    -------
    B : ndarray of shape (N, L)
        Column ``l`` holds :math:`b(\lambda_l)`.

    Notes
    -----
    When :math:`N \le n` the N x N matrix :math:`F^\top F/n = V\,\mathrm{diag}(s)\,V^\top` is
    decomposed and :math:`b = V\,\mathrm{diag}(1/(s+\lambda))\,V^\top F^\top y/n`; otherwise the
    dual form :math:`b = F^\top(FF^\top/n + \lambda I)^{-1}y/n` uses the n x n matrix.
    """
    F = _check_matrix("F", F, 2)
    y = _check_matrix("y", y, 1, (F.shape[0],))
    lam = check_lambdas(lambdas)
    n, N = F.shape
    if N <= n:
        s, V = np.linalg.eigh(F.T @ F / n)
        proj = V.T @ (F.T @ y / n)  # (N,)
        return V @ (proj[:, None] / (s[:, None] + lam[None, :]))
    s, U = np.linalg.eigh(F @ F.T / n)
    proj = U.T @ y  # (n,)
    alpha = U @ (proj[:, None] / (s[:, None] + lam[None, :]))  # (n, L)
    return F.T @ alpha / n


def prediction_risk(W, B, student, teacher, beta, *, n_test: int, rng: np.random.Generator,
                    chunk: int = 4096):
    r"""Monte-Carlo prediction risk
    :math:`E_x(\sigma(W^\top x)^\top b - \sigma_*(x^\top\beta_*))^2`.

    Label noise is excluded, as in the paper.  Test inputs are drawn in chunks of at most
    ``chunk`` rows, so memory stays at ``chunk * N`` numbers whatever ``n_test`` is.

    Parameters
    ----------
    W : ndarray of shape (d, N)
    B : ndarray of shape (N, L)
        Ridge coefficients, one column per penalty (from :func:`ridge_path`).
    student, teacher : str, callable or Activation
    beta : ndarray of shape (d,)
    n_test : int
        Number of fresh test points.
    rng : numpy.random.Generator

    Returns
    -------
    risk : ndarray of shape (L,)
        Mean squared error per penalty.
    se : ndarray of shape (L,)
        Its Monte-Carlo standard error over the test points.
    """
    W = _check_matrix("W", W, 2)
    B = np.asarray(B, dtype=float)
    if B.ndim == 1:
        B = B[:, None]
    B = _check_matrix("B", B, 2, (W.shape[1], None))
    beta = _check_matrix("beta", beta, 1, (W.shape[0],))
    check_positive("n_test", n_test, integer=True)
    check_positive("chunk", chunk, integer=True)
    rng = check_rng(rng)
    student, teacher = as_student(student), as_teacher(teacher)
    total = np.zeros(B.shape[1])
    total_sq = np.zeros(B.shape[1])
    done = 0
    while done < n_test:
        m = min(chunk, n_test - done)
        X = rng.standard_normal((m, W.shape[0]))
        err = student(X @ W) @ B - teacher(X @ beta)[:, None]
        err *= err
        total += err.sum(axis=0)
        total_sq += (err * err).sum(axis=0)
        done += m
    mean = total / n_test
    var = np.maximum(total_sq / n_test - mean**2, 0.0) * n_test / max(n_test - 1, 1)
    return mean, np.sqrt(var / n_test)

