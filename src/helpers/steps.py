r"""Gradient steps on the first layer (Ba et al. 2022, eq. 2.1).

The student :math:`f(x) = N^{-1/2} a^\top\sigma(W^\top x)` is trained on
:math:`L = \frac1n\sum_i \frac12 (f(x_i) - y_i)^2` by one step on :math:`W` only:
:math:`W_1 = W_0 + \eta\sqrt{N}\,G_0` with the negative gradient :math:`G_0` at :math:`W_0`.
Further steps (chapters 6 and 7) repeat it on further batches, fresh or the same one
(:func:`steps_on_batches`).  :func:`helpers.run` draws the data and calls these.
"""

from __future__ import annotations

import math

import numpy as np

from ._validation import check_matrix, check_nonnegative
from .activations import as_student

__all__ = ["student_output", "empirical_loss", "first_step_gradient", "one_step",
           "steps_on_batches"]


def _check_network(X, W, a):
    X = check_matrix("X", X, 2)
    W = check_matrix("W", W, 2, (X.shape[1], None))
    a = check_matrix("a", a, 1, (W.shape[1],))
    return X, W, a


def student_output(X, W, a, student) -> np.ndarray:
    r""":math:`f(x_i) = N^{-1/2} a^\top\sigma(W^\top x_i)` for each row of ``X``; shape (n,)."""
    X, W, a = _check_network(X, W, a)
    return as_student(student)(X @ W) @ a / math.sqrt(W.shape[1])


def empirical_loss(X, y, W, a, student) -> float:
    r""":math:`L = \frac{1}{n}\sum_i \frac12 (f(x_i) - y_i)^2`."""
    r = student_output(X, W, a, student) - np.asarray(y, dtype=float)
    return 0.5 * float(np.mean(r * r))


def first_step_gradient(X, y, W, a, student, *, initial_output: bool = True) -> np.ndarray:
    r"""The negative gradient :math:`G_0 = -\nabla_W L` of eq. (2.1), evaluated at ``W``.

    .. math::

        G_0 = \frac1n X^\top\Big[\Big(\frac{1}{\sqrt N}\big(y - \tfrac{1}{\sqrt N}
        \sigma(XW)a\big)a^\top\Big)\odot\sigma'(XW)\Big].

    Parameters
    ----------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,)
    W : ndarray of shape (d, N)
    a : ndarray of shape (N,)
    student : str, callable or Activation
    initial_output : bool
        ``True`` (eq. 2.1): the residual is :math:`y - f(x)`.  ``False``: the residual is
        :math:`y` alone, the step of the population model, used to measure what the
        network's initial output :math:`f_0` changes (chapter 5).

    Returns
    -------
    G0 : ndarray of shape (d, N)
    """
    X, W, a = _check_network(X, W, a)
    y = check_matrix("y", y, 1, (X.shape[0],))
    student = as_student(student)
    n, N = X.shape[0], W.shape[1]
    act, slope = student.value_and_derivative(X @ W)  # sigma(XW), sigma'(XW): (n, N)
    residual = y - act @ a / math.sqrt(N) if initial_output else y   # y - f(X): (n,)
    M = (residual / math.sqrt(N))[:, None] * a[None, :] * slope
    return X.T @ M / n


def one_step(W0, G0, eta: float) -> np.ndarray:
    r""":math:`W_1 = W_0 + \eta\sqrt{N}\,G_0` (a new array; inputs are not modified)."""
    W0 = check_matrix("W0", W0, 2)
    G0 = check_matrix("G0", G0, 2, W0.shape)
    check_nonnegative("eta", eta)
    return W0 + (eta * math.sqrt(W0.shape[1])) * G0


def steps_on_batches(W0, a, student, batches, *, eta, normalize: bool = False,
                     initial_output: bool = True) -> list:
    r"""Gradient steps on the first layer, one per batch, the second layer ``a`` fixed:

    .. math::

        W_{t+1} = W_t + \eta_t\sqrt N\,G(W_t; X_t, y_t),

    :math:`G` the negative gradient of :func:`first_step_gradient` on the batch
    :math:`(X_t, y_t)`.  The one multi-step loop of the book: fresh batches (a new pair per
    step), or the same pair given again (reused batches): :func:`helpers.run` with
    ``steps > 1`` draws them.

    Parameters
    ----------
    W0 : ndarray of shape (d, N)
    a : ndarray of shape (N,)
    student : str, callable or Activation
    batches : iterable of (X, y)
        ``X`` of shape (n_t, d), ``y`` of shape (n_t,), at least one pair; a generator is
        read one pair per step, so batches drawn on the fly are drawn just before their step.
    eta : float or sequence of float
        Learning rate(s) (>= 0) in the book's scaling; one for all steps, or one per batch.
    normalize : bool
        Rescale every neuron (column of :math:`W_{t+1}`) to unit norm after each step.
    initial_output : bool
        As in :func:`first_step_gradient` (``False``: the residual is :math:`y` alone).

    Returns
    -------
    Ws : list of ndarray of shape (d, N)
        ``[W_0, W_1, ..., W_T]`` (``W_0`` a copy).
    """
    W = check_matrix("W0", W0, 2).copy()
    a = check_matrix("a", a, 1, (W.shape[1],))
    etas = [float(check_nonnegative("eta", float(e))) for e in np.atleast_1d(eta)]
    one_rate = np.ndim(eta) == 0
    student = as_student(student)
    Ws = [W]  # (W is rebound, never changed in place)
    for t, (X, y) in enumerate(batches):
        if not one_rate and t >= len(etas):
            raise ValueError(f"eta must be a number or one per batch ({len(etas)} given); "
                             f"got more batches")
        X = check_matrix(f"X of batch {t}", X, 2, (None, W.shape[0]))
        y = check_matrix(f"y of batch {t}", y, 1, (X.shape[0],))
        G = first_step_gradient(X, y, W, a, student,        # G(W_t; X_t, y_t)
                                initial_output=initial_output)
        W = one_step(W, G, etas[0] if one_rate else etas[t])
        if normalize:
            W = W / np.linalg.norm(W, axis=0, keepdims=True)
        Ws.append(W)
    if len(Ws) == 1:
        raise ValueError("batches must hold at least one (X, y) pair; got none")
    if not one_rate and len(Ws) - 1 != len(etas):
        raise ValueError(f"eta must be a number or one per batch ({len(Ws) - 1}); got "
                         f"{len(etas)} values")
    return Ws
