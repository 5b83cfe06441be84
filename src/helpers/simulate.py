r"""One full run of the paper's two-stage procedure (§2.1), from a seed to a risk.

teacher -> data (X, y) -> student at init (W0, a) -> gradient G0 -> W1 = W0 + eta sqrt(N) G0
-> features sigma(X~ W1) on fresh data -> ridge for every lambda -> prediction risk.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from .blas import numpy_blas_single_threaded
from .model import (
    _features,
    as_student,
    as_teacher,
    check_nonnegative,
    check_positive,
    draw_inputs,
    first_step_from_streams,
    init_student,
    label_data,
    normal_blocks,
    problem_sizes,
    spawn_streams,
)
from .ridge import TEST_BLOCK, check_lambdas, ridge_path, risk_over_blocks

__all__ = ["OneStepResult", "simulate_one_step", "default_n_test", "PRECISIONS"]


def default_n_test(n: int) -> int:
    """Number of fresh test points used when none is given: ``max(2048, n)``."""
    return max(2048, int(n))


def check_run(d, psi1, psi2, *, lam, noise=0.0, n_test=None):
    """Check the arguments that the seeded runners share and return
    ``(d, n, N, lambdas, n_test)``, with ``n_test`` defaulting to :func:`default_n_test`.

    Raises ``ValueError`` naming the argument (sizes, ``noise < 0``, ``lam <= 0``,
    ``n_test`` not a positive integer)."""
    d, n, N = problem_sizes(d, psi1, psi2)
    check_nonnegative("noise", noise)
    lambdas = check_lambdas(lam)
    n_test = default_n_test(n) if n_test is None else check_positive("n_test", n_test,
                                                                     integer=True)
    return d, n, N, lambdas, n_test


@dataclass
class OneStepResult:
    """What one run of :func:`simulate_one_step` produced.

    ``risk`` and ``risk_se`` are floats when ``lam`` was a number and arrays of shape (L,)
    when it was a sequence; ``risk_se`` is the Monte-Carlo standard error over test points.
    """

    risk: float | np.ndarray
    risk_se: float | np.ndarray
    lambdas: np.ndarray
    d: int
    n: int
    N: int
    eta: float
    W0: np.ndarray = field(repr=False)
    W1: np.ndarray = field(repr=False)
    a: np.ndarray = field(repr=False)
    beta: np.ndarray = field(repr=False)
    G0: np.ndarray = field(repr=False)
    B: np.ndarray = field(repr=False)


PRECISIONS = ("float64", "mixed")


SECOND_LAYERS = ("gaussian", "rademacher")


def _second_layer(init, second_layer):
    """``(W0, a)`` with ``a`` replaced by ``sign(a)/sqrt(N)`` for ``"rademacher"``."""
    W0, a = init
    if second_layer == "rademacher":
        a = np.sign(a) / np.sqrt(a.size)
    return W0, a


def simulate_one_step(student, teacher, *, d, psi1, psi2, lam, eta, noise=0.0, seed=0,
                      n_test=None, precision="float64",
                      second_layer="gaussian") -> OneStepResult:
    r"""Run the two-stage procedure once and return the empirical prediction risk.

    Parameters
    ----------
    student, teacher : str, callable or Activation
        Activation :math:`\sigma` and teacher link :math:`\sigma_*` (the teacher is centred).
    d : int
        Input dimension; ``n = round(psi1 d)`` samples per stage, ``N = round(psi2 d)`` neurons.
    psi1, psi2 : float
        Ratios n/d and N/d, both > 0.
    lam : float or sequence of float
        Ridge penalties (> 0) in the paper's scaling (see :mod:`helpers.ridge`).
    eta : float
        Learning rate of the single step, >= 0 (``eta = 0`` gives random features).
    noise : float
        Label-noise standard deviation :math:`\sigma_\varepsilon`.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        Source of every random draw.  The teacher, the initialisation, the two data sets and
        the test points come from independent child streams, so runs that differ only in
        ``eta`` or ``lam`` share the same data (common random numbers).
    n_test : int, optional
        Fresh test points for the risk; default :func:`default_n_test`.
    precision : {"float64", "mixed"}
        ``"float64"`` (default) computes everything in double precision, exactly as the
        building blocks (:func:`helpers.model.run_first_step`, :func:`helpers.ridge_path`,
        :func:`helpers.prediction_risk`) do.  ``"mixed"`` computes the two products after
        the step, :math:`\tilde XW_1` and the test features, in float32 (the step, the Gram
        matrix and the ridge solves stay float64; the random draws are the same).  It is
        about 20% faster; ``benchmarks/`` measures its effect on the risk (far below the
        Monte-Carlo standard error).
    second_layer : {"gaussian", "rademacher"}
        ``"gaussian"`` (default): the paper's :math:`a_i \sim N(0, 1/N)`.  ``"rademacher"``:
        :math:`a_i = \mathrm{sign}(g_i)/\sqrt N` with :math:`g_i` exactly the Gaussian draw of
        the default, so the same seed gives the same data, :math:`W_0` and signs.

    Returns
    -------
    OneStepResult

    Notes
    -----
    How the run uses the machine (``benchmarks/bench_core.py`` measures it): the
    initialisation, the ridge data and the first block of test points are drawn in a
    background thread while the step data are drawn and the step is taken; the large
    products and the ridge systems run in SciPy's BLAS, with NumPy's own bundled BLAS held
    to one thread meanwhile (:mod:`helpers.blas`); the elementwise work between products is
    split in row blocks over the BLAS threads.  None of this changes the random numbers.
    """
    d, n, N, lambdas, n_test = check_run(d, psi1, psi2, lam=lam, noise=noise, n_test=n_test)
    check_nonnegative("eta", eta)
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}; got {precision!r}")
    if second_layer not in SECOND_LAYERS:
        raise ValueError(f"second_layer must be one of {SECOND_LAYERS}; got {second_layer!r}")
    dtype = np.float64 if precision == "float64" else np.float32
    student, teacher = as_student(student), as_teacher(teacher)
    streams = spawn_streams(seed)
    # The initialisation, the ridge data and the first block of test points come from
    # their own streams, so a background thread draws them while the step data are drawn
    # and the first step runs (the same numbers as drawing them in turn).
    with numpy_blas_single_threaded(), ThreadPoolExecutor(max_workers=1) as pool:
        init = pool.submit(lambda: _second_layer(init_student(d, N, rng=streams["init"]),
                                                 second_layer))
        ridge_draws = pool.submit(draw_inputs, n, d, noise=noise, rng=streams["ridge"])
        test_blocks = normal_blocks(streams["test"], n_test, d, block=TEST_BLOCK, pool=pool)
        fs = first_step_from_streams(student, teacher, d=d, n=n, N=N, eta=eta, noise=noise,
                                     streams=streams, init=init)
        W1, beta = fs.W1, fs.beta
        Xr, yr = label_data(*ridge_draws.result(), beta, teacher)
        # in float32 for "mixed", handed to the float64 Gram matrix
        F = _features(Xr, W1, student, dtype).astype(np.float64, copy=False)
        del Xr
        B = ridge_path(F, yr, lambdas)
        del F
        risk, se = risk_over_blocks(test_blocks, W1, B, student, teacher, beta, dtype=dtype)
    if np.ndim(lam) == 0:
        risk, se = float(risk[0]), float(se[0])
    return OneStepResult(risk=risk, risk_se=se, lambdas=lambdas, d=d, n=n, N=N,
                         eta=float(eta), W0=fs.W0, W1=W1, a=fs.a, beta=beta, G0=fs.G0, B=B)
