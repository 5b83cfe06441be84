r"""The data of one run: the teacher, the samples, the student at initialisation, the seeds.

Notation follows Ba et al. (2022, §2): inputs :math:`x \sim N(0, I_d)`, labels
:math:`y = \sigma_*(\langle x, \beta_*\rangle) + \varepsilon` with :math:`\beta_*` uniform on
the sphere (a *k-index* teacher :math:`g(B^\top x)`, :math:`B \in \mathbb R^{d\times k}`,
takes the same path: :func:`teacher_labels`), and the student
:math:`f(x) = N^{-1/2} a^\top \sigma(W^\top x)` with
:math:`W_0 \in \mathbb{R}^{d\times N}` of i.i.d. :math:`N(0, 1/d)` entries (Assumption 1).
"""

from __future__ import annotations

import math

import numpy as np

from ._validation import (
    check_matrix,
    check_nonnegative,
    check_positive,
    check_rng,
    problem_sizes,
)
from .activations import as_teacher
from .second_layer import DEFAULT, as_second_layer

__all__ = [
    "problem_sizes",
    "sample_teacher",
    "sample_data",
    "teacher_labels",
    "init_student",
    "normal_blocks",
]

def sample_teacher(d: int, *, rng: np.random.Generator) -> np.ndarray:
    r"""Draw :math:`\beta_*` uniformly on the unit sphere of :math:`\mathbb{R}^d`."""
    check_positive("d", d, integer=True)
    beta = check_rng(rng).standard_normal(d)
    return beta / np.linalg.norm(beta)


def teacher_labels(X, beta, teacher) -> np.ndarray:
    r"""The teacher's value :math:`f_*(x)` at each row of ``X`` (no noise).

    * ``beta`` of shape (d,): a single-index teacher :math:`\sigma_*(x^\top\beta_*)`, its
      link (a name, callable or Activation) centred so that :math:`\mu_0^* = 0`;
    * ``beta`` of shape (d, k): a k-index teacher :math:`g(B^\top x)`, ``teacher`` a
      callable mapping the projections ``X @ B`` of shape (n, k) to shape (n,), used as it is.

    Returns
    -------
    ndarray of shape (n,)
    """
    X = check_matrix("X", X, 2)
    beta = np.asarray(beta, dtype=float)
    if beta.ndim not in (1, 2) or beta.shape[0] != X.shape[1]:
        raise ValueError(f"beta must have shape (d,) or (d, k) with d = {X.shape[1]}; got "
                         f"shape {beta.shape}")
    if beta.ndim == 1:
        return as_teacher(teacher)(X @ beta)
    if not callable(teacher):
        raise ValueError(f"teacher of a k-index beta must be a callable of an (n, k) array; got "
                         f"{type(teacher).__name__}")
    y = np.asarray(teacher(X @ beta), dtype=float)
    if y.shape != (X.shape[0],):
        raise ValueError(f"teacher must map an (n, k) array to shape (n,); got shape {y.shape}")
    return y


def sample_data(n: int, beta: np.ndarray, teacher, *, noise: float = 0.0,
                rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    r"""Draw ``n`` inputs :math:`x \sim N(0, I_d)` and labels
    :math:`y = f_*(x) + \varepsilon` (:func:`teacher_labels`).

    Parameters
    ----------
    n : int
        Number of samples.
    beta : ndarray of shape (d,) or (d, k)
        Teacher direction (unit norm), or k orthonormal directions ``B``.
    teacher : str, callable or Activation
        Single index: the link, centred (names and callables).  k-index: a callable of the
        (n, k) projections ``X @ B``.
    noise : float
        Standard deviation :math:`\sigma_\varepsilon` of the Gaussian label noise.
    rng : numpy.random.Generator
        Draws ``X`` first, then the noise (none when ``noise == 0``).

    Returns
    -------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,)
    """
    check_positive("n", n, integer=True)
    check_nonnegative("noise", noise)
    beta = np.asarray(beta, dtype=float)
    if beta.ndim not in (1, 2):
        raise ValueError(f"beta must have shape (d,) or (d, k); got shape {beta.shape}")
    link = as_teacher(teacher) if beta.ndim == 1 else teacher
    teacher_labels(np.zeros((1, beta.shape[0])), beta, link)  # check before drawing
    return gaussian_inputs_and_labels(n, beta.shape[0],
                                      lambda X: teacher_labels(X, beta, link), noise=noise,
                                      rng=check_rng(rng))


def gaussian_inputs_and_labels(n: int, d: int, labels, *, noise: float,
                               rng: np.random.Generator):
    """``X`` with i.i.d. N(0, 1) entries, then ``y = labels(X) + noise * N(0, I_n)``.

    The one place where inputs and noisy labels are drawn (single- and multi-index teachers);
    ``X`` is drawn first, then the noise (none when ``noise == 0``).  Arguments are checked by
    the callers.
    """
    X = rng.standard_normal((n, d))
    y = labels(X)
    if noise > 0:
        y = y + noise * rng.standard_normal(n)
    return X, y


def init_student(d: int, width: int, *, rng: np.random.Generator,
                 second_layer=DEFAULT):
    r"""Initialise the student as in Assumption 1.

    Parameters
    ----------
    d, width : int
        Input dimension and number of neurons N.
    rng : numpy.random.Generator
    second_layer : "gaussian" (default), "rademacher", (magnitudes, weights) or SecondLayer
        ``"gaussian"``: :math:`a_i \sim N(0, 1/N)`.  ``"rademacher"``:
        :math:`a_i = \mathrm{sign}(g_i)/\sqrt N` where :math:`g_i` is exactly the Gaussian
        draw of the default, so the same ``rng`` gives the same :math:`W_0` and the same
        signs (chapter 5's :math:`a_i = \pm 1/\sqrt N`); finitely many magnitudes: see
        :mod:`helpers.second_layer`.

    Returns
    -------
    W0 : ndarray of shape (d, width)
        Entries i.i.d. :math:`N(0, 1/d)`.
    a : ndarray of shape (width,)
    """
    check_positive("d", d, integer=True)
    check_positive("width", width, integer=True)
    layer = as_second_layer(second_layer)
    rng = check_rng(rng)
    W0 = rng.standard_normal((d, width)) / math.sqrt(d)
    g = rng.standard_normal(width)
    return W0, layer.scale(g) / math.sqrt(width)


def normal_blocks(rng: np.random.Generator, rows: int, cols: int, *, block: int):
    """The rows of ``rng.standard_normal((rows, cols))``, in blocks of at most ``block`` rows.

    NumPy fills a matrix row by row, so the blocks are the same numbers whatever ``block``
    is: the block size changes memory, never results.
    """
    check_positive("block", block, integer=True)
    for start in range(0, rows, block):
        yield rng.standard_normal((min(block, rows - start), cols))
