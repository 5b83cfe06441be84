r"""The two-layer student, the single-index teacher and the first gradient step.

Notation follows Ba et al. (2022, §2): inputs :math:`x \sim N(0, I_d)`, labels
:math:`y = \sigma_*(\langle x, \beta_*\rangle) + \varepsilon`, student
:math:`f(x) = N^{-1/2} a^\top \sigma(W^\top x)` with :math:`W \in \mathbb{R}^{d\times N}`.
The first-layer step is :math:`W_1 = W_0 + \eta\sqrt{N}\,G_0` with the negative gradient
:math:`G_0` of eq. (2.1), evaluated at :math:`W_0`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np

from .activations import Activation, get_activation
from .blas import matmul, numpy_blas_single_threaded, on_row_blocks

__all__ = [
    "as_student",
    "as_teacher",
    "check_positive",
    "check_nonnegative",
    "check_rng",
    "problem_sizes",
    "sample_teacher",
    "sample_data",
    "draw_inputs",
    "label_data",
    "normal_blocks",
    "init_student",
    "student_output",
    "empirical_loss",
    "first_step_gradient",
    "one_step",
    "features",
    "activate",
    "FirstStep",
    "STREAMS",
    "spawn_streams",
    "first_step_from_streams",
    "run_first_step",
]


# --------------------------------------------------------------------------- validation
def check_positive(name: str, value, *, integer: bool = False):
    """Return ``value`` if it is a finite number > 0, else raise ``ValueError`` naming it."""
    ok_type = Integral if integer else Real
    if isinstance(value, bool) or not isinstance(value, ok_type) or not math.isfinite(value) \
            or value <= 0:
        kind = "a positive integer" if integer else "a finite number > 0"
        raise ValueError(f"{name} must be {kind}; got {value!r}")
    return value


def check_nonnegative(name: str, value):
    """Return ``value`` if it is a finite number >= 0, else raise ``ValueError`` naming it."""
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value) \
            or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0; got {value!r}")
    return value


def check_rng(rng) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise ValueError(
            f"rng must be a numpy.random.Generator (np.random.default_rng(seed)); "
            f"got {type(rng).__name__}"
        )
    return rng


def _check_matrix(name, A, ndim, shape=None):
    A = np.asarray(A, dtype=float)
    if A.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-d array; got shape {A.shape}")
    if shape is not None:
        for axis, expected in enumerate(shape):
            if expected is not None and A.shape[axis] != expected:
                raise ValueError(
                    f"{name} has shape {A.shape}; expected {tuple(shape)} (None = any)"
                )
    return A


def as_student(spec) -> Activation:
    """The student activation for a name or callable (not centred)."""
    return get_activation(spec)


def as_teacher(spec) -> Activation:
    r"""The teacher link for a name or callable, centred so that :math:`\mu_0^* = 0`."""
    return get_activation(spec, center=True)


def problem_sizes(d, psi1, psi2) -> tuple[int, int, int]:
    """Return ``(d, n, N)`` with ``n = round(psi1 d)``, ``N = round(psi2 d)``.

    Raises ``ValueError`` unless ``d`` is a positive integer and the ratios are > 0.
    """
    check_positive("d", d, integer=True)
    check_positive("psi1", psi1)
    check_positive("psi2", psi2)
    n, N = max(1, round(psi1 * d)), max(1, round(psi2 * d))
    return int(d), int(n), int(N)


# --------------------------------------------------------------------------- sampling
def sample_teacher(d: int, *, rng: np.random.Generator) -> np.ndarray:
    r"""Draw :math:`\beta_*` uniformly on the unit sphere of :math:`\mathbb{R}^d`."""
    check_positive("d", d, integer=True)
    beta = check_rng(rng).standard_normal(d)
    return beta / np.linalg.norm(beta)


def sample_data(n: int, beta: np.ndarray, teacher, *, noise: float = 0.0,
                rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    r"""Draw ``n`` inputs :math:`x \sim N(0, I_d)` and labels
    :math:`y = \sigma_*(x^\top\beta_*) + \varepsilon`.

    Parameters
    ----------
    n : int
        Number of samples.
    beta : ndarray of shape (d,)
        Teacher direction (unit norm).
    teacher : str, callable or Activation
        Teacher link; names and callables are centred.
    noise : float
        Standard deviation :math:`\sigma_\varepsilon` of the Gaussian label noise.

    Returns
    -------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,)
    """
    check_positive("n", n, integer=True)
    check_nonnegative("noise", noise)
    beta = _check_matrix("beta", beta, 1)
    teacher = as_teacher(teacher)
    return label_data(*draw_inputs(n, beta.shape[0], noise=noise, rng=check_rng(rng)),
                      beta, teacher)


def draw_inputs(n: int, d: int, *, noise: float, rng: np.random.Generator):
    r"""The random part of :func:`sample_data`: inputs ``X`` (n, d), then the label noise
    :math:`\varepsilon` (n,) or ``None`` when ``noise == 0``, drawn from ``rng`` in this
    order.  Split off so that the draws can run in a background thread (numpy releases
    the GIL while it draws); :func:`label_data` finishes the job."""
    X = rng.standard_normal((n, d))
    eps = noise * rng.standard_normal(n) if noise > 0 else None
    return X, eps


def label_data(X, eps, beta, teacher) -> tuple[np.ndarray, np.ndarray]:
    r"""``(X, y)`` with :math:`y = \sigma_*(X\beta_*) + \varepsilon` (``eps`` may be None)."""
    y = teacher(X @ beta)
    return X, (y if eps is None else y + eps)


def normal_blocks(rng: np.random.Generator, rows: int, cols: int, *, block: int, pool=None):
    """Iterate over a standard normal ``rows x cols`` matrix in blocks of at most ``block``
    rows.

    The blocks are exactly the rows of ``rng.standard_normal((rows, cols))`` in order (numpy
    fills row by row), so the block size changes memory, never numbers.  With ``pool`` (a
    ``concurrent.futures`` executor with one worker) the first block is submitted at once
    and each next block is drawn in the background while the caller works on the current
    one; ``rng`` must not be used elsewhere until the iterator is exhausted.
    """
    sizes = [min(block, rows - start) for start in range(0, rows, block)]
    if pool is None:
        return (rng.standard_normal((m, cols)) for m in sizes)
    first = pool.submit(rng.standard_normal, (sizes[0], cols))

    def prefetched():
        pending = first
        for k in range(len(sizes)):
            current = pending.result()
            if k + 1 < len(sizes):
                pending = pool.submit(rng.standard_normal, (sizes[k + 1], cols))
            yield current

    return prefetched()


def init_student(d: int, width: int, *, rng: np.random.Generator):
    r"""Initialise the student as in Assumption 1.

    Returns
    -------
    W0 : ndarray of shape (d, width)
        Entries i.i.d. :math:`N(0, 1/d)`.
    a : ndarray of shape (width,)
        Entries i.i.d. :math:`N(0, 1/N)`.
    """
    check_positive("d", d, integer=True)
    check_positive("width", width, integer=True)
    rng = check_rng(rng)
    W0 = rng.standard_normal((d, width)) / math.sqrt(d)
    a = rng.standard_normal(width) / math.sqrt(width)
    return W0, a


# --------------------------------------------------------------------------- the network
def _check_network(X, W, a):
    X = _check_matrix("X", X, 2)
    W = _check_matrix("W", W, 2, (X.shape[1], None))
    a = _check_matrix("a", a, 1, (W.shape[1],))
    return X, W, a


def student_output(X, W, a, student) -> np.ndarray:
    r""":math:`f(x_i) = N^{-1/2} a^\top\sigma(W^\top x_i)` for each row of ``X``; shape (n,)."""
    X, W, a = _check_network(X, W, a)
    return _features(X, W, as_student(student), np.float64) @ a / math.sqrt(W.shape[1])


def empirical_loss(X, y, W, a, student) -> float:
    r""":math:`L = \frac{1}{n}\sum_i \frac12 (f(x_i) - y_i)^2`."""
    r = student_output(X, W, a, student) - np.asarray(y, dtype=float)
    return 0.5 * float(np.mean(r * r))


@numpy_blas_single_threaded()
def first_step_gradient(X, y, W, a, student) -> np.ndarray:
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

    Returns
    -------
    G0 : ndarray of shape (d, N)
    """
    X, W, a = _check_network(X, W, a)
    y = _check_matrix("y", y, 1, (X.shape[0],))
    student = as_student(student)
    n, N = X.shape[0], W.shape[1]
    act = matmul(X, W)  # pre-activations, overwritten by the activations
    M = np.empty_like(act)
    root_N = math.sqrt(N)

    def rows(r, act=act):  # everything between the two products is row by row
        student.value_and_derivative_into(act[r], M[r])
        residual = (y[r] - act[r] @ a / root_N) / root_N
        M[r] *= residual[:, None]
        M[r] *= a[None, :]

    on_row_blocks(rows, n, row_size=N)
    del rows, act
    G0 = matmul(X.T, M)
    G0 /= n
    return G0


def one_step(W0, G0, eta: float) -> np.ndarray:
    r""":math:`W_1 = W_0 + \eta\sqrt{N}\,G_0` (a new array; inputs are not modified)."""
    W0 = _check_matrix("W0", W0, 2)
    G0 = _check_matrix("G0", G0, 2, W0.shape)
    check_nonnegative("eta", eta)
    return W0 + (eta * math.sqrt(W0.shape[1])) * G0


def features(X, W, student) -> np.ndarray:
    r"""Unnormalised features :math:`\sigma(XW)`, shape (n, N)."""
    X = _check_matrix("X", X, 2)
    W = _check_matrix("W", W, 2, (X.shape[1], None))
    return _features(X, W, as_student(student), np.float64)


def _features(X, W, student: Activation, dtype) -> np.ndarray:
    """:func:`features` without the checks, with the product and the activation in
    ``dtype`` (float32 for ``precision="mixed"``)."""
    return activate(matmul(X.astype(dtype, copy=False), W.astype(dtype, copy=False)), student)


def activate(P: np.ndarray, student) -> np.ndarray:
    """Overwrite the float array ``P`` with ``student(P)``, in row blocks on the BLAS threads
    (:func:`helpers.blas.on_row_blocks`); returns ``P``."""
    student = as_student(student)
    on_row_blocks(lambda r: student.apply_inplace(P[r]), P.shape[0],
                  row_size=P[:1].size)
    return P


# --------------------------------------------------------------------------- one step, seeded
@dataclass
class FirstStep:
    """The first stage of the procedure: data, initialisation, gradient and step.

    Shapes: ``beta`` (d,), ``X`` (n, d), ``y`` (n,), ``W0``/``W1``/``G0`` (d, N), ``a`` (N,).
    """

    beta: np.ndarray = field(repr=False)
    X: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)
    W0: np.ndarray = field(repr=False)
    a: np.ndarray = field(repr=False)
    G0: np.ndarray = field(repr=False)
    W1: np.ndarray = field(repr=False)
    eta: float = 0.0

    @property
    def shape(self) -> tuple[int, int, int]:
        """``(d, n, N)``."""
        return self.W0.shape[0], self.X.shape[0], self.W0.shape[1]


STREAMS = ("teacher", "init", "step", "ridge", "test")


def spawn_streams(seed) -> dict:
    """The independent random streams of one run, keyed by ``STREAMS``.

    Every seeded entry point (:func:`run_first_step`, :func:`helpers.simulate_one_step` and
    the runners built on them) draws the teacher, the initialisation, the step data, the
    ridge data and the test points from these children of ``seed``, in this order, so the
    same seed gives the same draws everywhere and changing one stage (e.g. ``n_test``)
    leaves the others untouched.

    Parameters
    ----------
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
    """
    return dict(zip(STREAMS, np.random.default_rng(seed).spawn(len(STREAMS)), strict=True))


def first_step_from_streams(student, teacher, *, d: int, n: int, N: int, eta, noise,
                            streams: dict, init=None) -> FirstStep:
    """:func:`run_first_step` on given sizes and streams (from :func:`spawn_streams`).

    ``student`` and ``teacher`` should already be :class:`Activation` objects (the teacher
    centred); only the ``"teacher"``, ``"init"`` and ``"step"`` streams are used.  ``init``
    may hold ``init_student(d, N, rng=streams["init"])`` computed elsewhere, or a
    ``concurrent.futures.Future`` of it (drawn in the background while the step data are
    drawn here).
    """
    beta = sample_teacher(d, rng=streams["teacher"])
    if init is None:
        init = init_student(d, N, rng=streams["init"])
    X, y = sample_data(n, beta, teacher, noise=noise, rng=streams["step"])
    W0, a = init.result() if hasattr(init, "result") else init
    G0 = first_step_gradient(X, y, W0, a, student)
    return FirstStep(beta=beta, X=X, y=y, W0=W0, a=a, G0=G0, W1=one_step(W0, G0, eta),
                     eta=float(eta))


def run_first_step(student, teacher, *, d, psi1, psi2, eta, noise=0.0, seed=0) -> FirstStep:
    r"""Draw the teacher, the step data and the student, and take the first step.

    Uses the random streams of :func:`spawn_streams`, like :func:`helpers.simulate_one_step`,
    so for the same ``seed`` the two return the same :math:`\beta_*, W_0, a, G_0, W_1`.

    Parameters
    ----------
    student, teacher : str, callable or Activation
    d : int
    psi1, psi2 : float
        ``n = round(psi1 d)`` samples, ``N = round(psi2 d)`` neurons.
    eta : float
        Learning rate (>= 0).
    noise : float
        Label-noise standard deviation.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
    """
    d, n, N = problem_sizes(d, psi1, psi2)
    check_nonnegative("eta", eta)
    check_nonnegative("noise", noise)
    return first_step_from_streams(as_student(student), as_teacher(teacher), d=d, n=n, N=N,
                                   eta=eta, noise=noise, streams=spawn_streams(seed))
