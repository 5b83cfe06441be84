r"""k-index teachers: their directions and links, several steps, overlaps, Hermite alignment.

A *k-index* teacher depends on the input only through :math:`k` directions,

.. math::

    f_*(x) = g(B^\top x), \qquad B \in \mathbb{R}^{d\times k},\; B^\top B = I_k,

with :math:`g: \mathbb{R}^k \to \mathbb{R}` (the single-index teacher of Ba et al. (2022) is
:math:`k = 1`).  The data path is the core one: :func:`helpers.data.sample_data` draws the
inputs and labels of a k-index teacher when given ``B`` of shape (d, k) and the callable
``g``, :func:`helpers.data.init_student` the student, :func:`helpers.first_step.one_step`
the step and :func:`helpers.risk.prediction_risk` the risk (with ``linear_part=(m, v)`` after
:func:`remove_linear_part`).  This module adds only what chapter 6 needs beyond that path.
Several steps take :math:`W_{t+1} = W_t + \eta\sqrt N\,G(W_t)` with a fresh batch of ``n``
samples per step (as in Dandi et al., 2023), optionally renormalising every neuron.

Functions
---------
sample_directions     orthonormal teacher directions B (d x k)
single_index          the link of a single-index teacher, g(Z) = link(Z[:, 0])
product, parity       z_1 z_2 ... z_k and its sign (links of chapters 6 and 7)
staircase             z_1 + z_1 z_2 + z_2 z_3 + ... + z_{k-1} z_k
remove_linear_part    labels minus their empirical mean and linear fit
first_step_problem    draw a k-index problem from named streams and take the first step
gradient_steps        several steps on fresh batches; returns W_0, ..., W_T
direction_overlaps    RMS cosine between the neurons and each teacher direction
subspace_overlap      mean fraction of each neuron inside span(B)
hermite_alignment     share of He_j(<beta, x>) inside the span of given vectors
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
from numpy.polynomial import hermite_e

from ._validation import check_matrix as _check_matrix
from ._validation import check_nonnegative, check_positive, check_rng
from .activations import as_student
from .data import init_student, sample_data
from .first_step import FirstStep, first_step_gradient, one_step, steps_on_batches
from .second_layer import DEFAULT

__all__ = [
    "sample_directions",
    "first_step_problem",
    "single_index",
    "product",
    "parity",
    "staircase",
    "remove_linear_part",
    "gradient_steps",
    "direction_overlaps",
    "subspace_overlap",
    "hermite_alignment",
]


def sample_directions(d: int, k: int, *, rng: np.random.Generator) -> np.ndarray:
    r"""``k`` orthonormal teacher directions, uniform on the Stiefel manifold.

    Returns
    -------
    B : ndarray of shape (d, k)
        :math:`B^\top B = I_k`.
    """
    check_positive("d", d, integer=True)
    check_positive("k", k, integer=True)
    if k > d:
        raise ValueError(f"k must be at most d = {d}; got k = {k}")
    Q, R = np.linalg.qr(check_rng(rng).standard_normal((d, k)))
    return Q * np.sign(np.diag(R))  # sign fix: the distribution is then uniform


def _check_link(g) -> Callable:
    if not callable(g):
        raise ValueError(f"g must be a callable of an (n, k) array; got {type(g).__name__}")
    return g


def single_index(link) -> Callable:
    r"""The link ``g(Z) = link(Z[:, 0])`` of a single-index teacher :math:`\sigma_*(\langle
    \theta_1, x\rangle)`, for a scalar ``link`` (which the theory helpers also accept)."""
    link = _check_link(link)

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
    X = _check_matrix("X", X, 2)
    y = _check_matrix("y", y, 1, (X.shape[0],))
    mean = float(y.mean())
    b = X.T @ y / X.shape[0]
    return y - mean - X @ b, mean, b


def gradient_steps(W0, a, student, B, g, *, n: int, steps: int, eta: float,
                   noise: float = 0.0, normalize: bool = False,
                   linear_removed: bool = False, rng: np.random.Generator) -> list:
    r"""Several steps :math:`W_{t+1} = W_t + \eta\sqrt N\,G(W_t)` on the first layer, each on a
    fresh batch of ``n`` samples; the second layer ``a`` stays fixed
    (:func:`helpers.first_step.steps_on_batches` on batches drawn from ``rng``).

    Parameters
    ----------
    W0 : ndarray of shape (d, N)
    a : ndarray of shape (N,)
    student : str, callable or Activation
    B, g : teacher directions (d, k) and link, as in :func:`helpers.data.sample_data`
    n : int
        Batch size of every step.
    steps : int
        Number of steps T (>= 1).
    eta : float
        Learning rate (>= 0) in the book's scaling (``eta = 1``: small step,
        ``eta = sqrt(N)``: the large step of Ba et al.).
    noise : float
        Label-noise standard deviation.
    normalize : bool
        Rescale every neuron to unit norm after each step (our choice in chapter 6, which
        keeps the pre-activations of order one over several large steps).
    linear_removed : bool
        Replace each batch's labels by :func:`remove_linear_part` before the step.
    rng : numpy.random.Generator

    Returns
    -------
    Ws : list of ndarray of shape (d, N)
        ``[W_0, W_1, ..., W_T]`` (``W_0`` is a copy of the input).
    """
    W0 = _check_matrix("W0", W0, 2)
    B = _check_matrix("B", B, 2, (W0.shape[0], None))
    g = _check_link(g)
    check_positive("steps", steps, integer=True)
    check_nonnegative("eta", eta)
    rng = check_rng(rng)

    def fresh_batches():  # drawn one at a time, just before its step
        for _ in range(steps):
            X, y = sample_data(n, B, g, noise=noise, rng=rng)
            yield X, (remove_linear_part(X, y)[0] if linear_removed else y)

    return steps_on_batches(W0, a, student, fresh_batches(), eta=eta, normalize=normalize)


def _cosines_sq(W, B):
    W = _check_matrix("W", W, 2)
    B = _check_matrix("B", B, 2, (W.shape[0], None))
    norms = np.linalg.norm(W, axis=0)
    if np.any(norms == 0):
        raise ValueError("W has a zero column (a neuron of norm 0); cosines are undefined")
    return (B.T @ W) ** 2 / norms**2  # (k, N)


def direction_overlaps(W, B) -> np.ndarray:
    r"""Root-mean-square cosine between the neurons (columns of ``W``) and each direction,
    :math:`m_j = \big(\frac1N\sum_i \cos^2(w_i, \theta_j)\big)^{1/2}`, shape (k,).

    For neurons independent of :math:`B` (e.g. at initialisation) :math:`m_j \approx
    1/\sqrt d`; a neuron aligned with :math:`\theta_j` contributes 1.
    """
    return np.sqrt(_cosines_sq(W, B).mean(axis=1))


def subspace_overlap(W, B) -> float:
    r"""Mean fraction of each neuron's squared norm inside span(B),
    :math:`\frac1N\sum_i \|B^\top w_i\|^2/\|w_i\|^2` (about k/d for random neurons)."""
    return float(_cosines_sq(W, B).sum(axis=0).mean())


def hermite_alignment(U, t, degrees) -> np.ndarray:
    r"""Share of each Hermite polynomial :math:`He_j(t)` (over the samples) that lies in
    the span of the columns of ``U``: :math:`\|P_U h_j\|^2/\|h_j\|^2` with
    :math:`h_j = (He_j(t_1), \dots, He_j(t_n))`.

    Parameters
    ----------
    U : ndarray of shape (n, r)
        Orthonormal columns (e.g. left singular vectors of a feature matrix).
    t : ndarray of shape (n,)
        The teacher's index :math:`\langle\beta_*, x_i\rangle` of each sample.
    degrees : sequence of int
        Degrees j >= 1 (probabilists' Hermite polynomials).

    Returns
    -------
    ndarray of shape (len(degrees),), values in [0, 1].
    """
    t = _check_matrix("t", t, 1)
    U = _check_matrix("U", U, 2, (t.shape[0], None))
    degrees = [int(j) for j in np.atleast_1d(degrees)]
    if not degrees or min(degrees) < 1:
        raise ValueError(f"degrees must be integers >= 1; got {degrees}")
    out = []
    for j in degrees:
        h = hermite_e.hermeval(t, [0.0] * j + [1.0])
        proj = U.T @ h
        out.append(float(proj @ proj / (h @ h)))
    return np.array(out)


_FIRST_STEP_STREAMS = ("teacher", "init", "step")  # the draws of first_step_problem


def first_step_problem(d: int, n: int, N: int, g, *, eta: float, k: int = 1,
                       student="relu", second_layer=DEFAULT, noise: float = 0.0,
                       streams):
    r"""Draw a k-index problem and take the first step on it (Ba et al. 2022, eq. 2.1).

    .. math::

        B^\top B = I_k \text{ (uniform)}, \quad (W_0)_{ij} \sim N(0, 1/d), \quad
        y_i = g(B^\top x_i) + \varepsilon_i,\ x_i \sim N(0, I_d)\ (i \le n),

    then the negative gradient :math:`G_0` of :math:`L = \frac1n\sum_i\frac12(f(x_i) - y_i)^2`
    at :math:`W_0` and :math:`W_1 = W_0 + \eta\sqrt N\,G_0`.  The lines are those of
    :func:`sample_directions`, :func:`helpers.data.init_student`,
    :func:`helpers.data.sample_data`, :func:`helpers.first_step.first_step_gradient` and
    :func:`helpers.first_step.one_step`.  With ``k = 1`` and the same streams, ``beta[:, 0]``,
    ``W0``, ``a`` and ``X`` are those of :func:`helpers.first_step.run_first_step` (the
    directions of :func:`sample_directions` with k = 1 are the normalised Gaussian vector of
    :func:`helpers.data.sample_teacher`).

    Parameters
    ----------
    d, n, N : int
        Input dimension, samples of the step and neurons.
    g : callable
        The link: maps the (n, k) projections ``X @ B`` to shape (n,) (for one index,
        :func:`single_index`).
    eta : float
        Learning rate (>= 0) in the book's scaling (1: small step, ``sqrt(N)``: large step);
        0 leaves ``W1 = W0`` (``G0`` is still computed).
    k : int
        Number of teacher directions (at most ``d``).
    student : str, callable or Activation
    second_layer : "gaussian" (default), "rademacher", (magnitudes, weights) or SecondLayer
        The law of :math:`\sqrt N a_i` (:mod:`helpers.second_layer`, drawn by
        :func:`helpers.data.init_student`).
    noise : float
        Label-noise standard deviation.
    streams : mapping of str to numpy.random.Generator
        Generators named ``"teacher"`` (draws ``B``), ``"init"`` (``W0``, ``a``) and
        ``"step"`` (the batch), e.g. from :func:`helpers.data.spawn_streams`; each is
        advanced by its draws, so further batches can come from ``streams["step"]``.

    Returns
    -------
    helpers.first_step.FirstStep
        ``beta`` holds the directions ``B`` (d, k); ``X``, ``y`` the batch of the step;
        ``W0``, ``a``, ``G0``, ``W1`` and ``eta``.
    """
    for name, value in (("d", d), ("n", n), ("N", N), ("k", k)):
        check_positive(name, value, integer=True)
    g = _check_link(g)
    check_nonnegative("eta", eta)
    if not isinstance(streams, Mapping) or not set(_FIRST_STEP_STREAMS) <= set(streams):
        got = sorted(streams) if isinstance(streams, Mapping) else type(streams).__name__
        raise ValueError(f"streams must map the names {_FIRST_STEP_STREAMS} (others allowed) to "
                         f"generators, e.g. helpers.spawn_streams(seed); got {got}")
    student = as_student(student)
    B = sample_directions(d, k, rng=streams["teacher"])
    W0, a = init_student(d, N, rng=streams["init"], second_layer=second_layer)
    X, y = sample_data(n, B, g, noise=noise, rng=streams["step"])
    G0 = first_step_gradient(X, y, W0, a, student)
    return FirstStep(beta=B, X=X, y=y, W0=W0, a=a, G0=G0, W1=one_step(W0, G0, eta),
                     eta=float(eta))

