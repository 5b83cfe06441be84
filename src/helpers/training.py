r"""Full-batch gradient descent on both layers, in the mean-field or the NTK scaling.

Used for the paper's Figure 2: the same two-layer network
:math:`f(x) = s_N \sum_i a_i\sigma(\langle w_i, x\rangle)` trained with

* ``"mean-field"``: :math:`s_N = 1/N`, learning rate multiplied by :math:`N`;
* ``"ntk"``:        :math:`s_N = 1/\sqrt N`, learning rate as given,

both from :math:`\sqrt d\,w_i \sim N(0, I_d)`, :math:`a_i \sim N(0, 1)`.  In the mean-field
scaling each neuron moves by :math:`\Theta(1)`; in the NTK scaling by :math:`O(1/\sqrt N)`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from ._validation import check_matrix, check_positive
from .activations import as_student

__all__ = ["Trajectory", "train_two_layer", "PARAMETERIZATIONS"]

PARAMETERIZATIONS = ("mean-field", "ntk")


@dataclass
class Trajectory:
    """Snapshots of full-batch gradient descent.

    Attributes
    ----------
    steps : ndarray of shape (T,)
        Iteration of each snapshot.
    W : ndarray of shape (T, d, N)
        First-layer weights at each snapshot (or their projection, see ``project``).
    a : ndarray of shape (T, N)
    loss : ndarray of shape (T,)
    converged : bool
        Whether the training loss went below ``tol``.
    """

    steps: np.ndarray
    W: np.ndarray = field(repr=False)
    a: np.ndarray = field(repr=False)
    loss: np.ndarray
    converged: bool


def train_two_layer(X, y, W0, a0, student, *, parameterization: str, lr: float,
                    max_steps: int, tol: float = 1e-3, record_every: int = 10,
                    project=None, warn: bool = True) -> Trajectory:
    r"""Full-batch gradient descent on :math:`L = \frac1{2n}\sum_i (f(x_i) - y_i)^2`.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,)
    W0 : ndarray of shape (d, N)
    a0 : ndarray of shape (N,)
    student : str, callable or Activation
    parameterization : {"mean-field", "ntk"}
    lr : float
        Base learning rate (> 0); multiplied by N in the mean-field scaling.
    max_steps : int
        Iteration budget.
    tol : float
        Stop once the loss is below ``tol``.
    record_every : int
        Keep a snapshot every this many steps (and the last one).
    project : ndarray of shape (d, k), optional
        Store ``project.T @ W`` (shape (k, N)) instead of ``W``.
    warn : bool
        Warn when ``tol`` was not reached within ``max_steps``.
    """
    if parameterization not in PARAMETERIZATIONS:
        raise ValueError(f"parameterization must be one of {PARAMETERIZATIONS}; "
                         f"got {parameterization!r}")
    X = check_matrix("X", X, 2)
    y = check_matrix("y", y, 1, (X.shape[0],))
    W = check_matrix("W0", W0, 2, (X.shape[1], None)).copy()
    a = check_matrix("a0", a0, 1, (W.shape[1],)).copy()
    check_positive("lr", lr)
    check_positive("max_steps", max_steps, integer=True)
    check_positive("tol", tol)
    check_positive("record_every", record_every, integer=True)
    P = None if project is None else check_matrix("project", project, 2, (X.shape[1], None))
    student = as_student(student)
    n, N = X.shape[0], W.shape[1]
    scale = 1.0 / N if parameterization == "mean-field" else 1.0 / math.sqrt(N)
    step = lr * N if parameterization == "mean-field" else lr

    steps, Ws, As, losses = [], [], [], []

    def record(t, loss):
        steps.append(t)
        Ws.append(W.copy() if P is None else P.T @ W)
        As.append(a.copy())
        losses.append(loss)

    converged = False
    for t in range(max_steps + 1):
        pre = X @ W
        act = student(pre)
        resid = scale * act @ a - y  # (n,)
        with np.errstate(over="ignore", invalid="ignore"):  # divergence is raised below
            loss = 0.5 * float(resid @ resid) / n
        if not np.isfinite(loss):
            raise ValueError(f"training diverged at step {t} (loss {loss}); lower lr={lr}")
        if loss < tol:
            converged = True
        if t % record_every == 0 or converged or t == max_steps:
            record(t, loss)
        if converged or t == max_steps:
            break
        grad_a = scale * act.T @ resid / n
        grad_W = X.T @ (student.derivative(pre) * (scale * resid[:, None] * a[None, :])) / n
        a -= step * grad_a
        W -= step * grad_W
    if warn and not converged:
        warnings.warn(f"loss {losses[-1]:.3g} did not reach tol={tol} within "
                      f"max_steps={max_steps}", RuntimeWarning, stacklevel=2)
    return Trajectory(steps=np.array(steps), W=np.array(Ws), a=np.array(As),
                      loss=np.array(losses), converged=converged)
