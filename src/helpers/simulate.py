r"""Every seeded runner: from a seed to the numbers a chapter plots.

One run walks the data path of the paper's two-stage procedure (§2.1)::

    teacher -> data (X, y) -> student at init (W0, a) -> gradient G0 -> W1 = W0 + eta sqrt(N) G0
    -> features sigma(X~ W1) on fresh data -> ridge for every lambda -> prediction risk

with every draw from the independent streams of :func:`helpers.data.spawn_streams`, so the
runners below see the same teacher, initialisation, data and test points for the same seed.

* :func:`simulate_one_step`: one run, one learning rate;
* :func:`simulate_etas`: one run, many learning rates (:func:`risks_over_steps`);
* :func:`same_data_risks`: the same, with kernel baselines fitted on the same data;
* :func:`simulate_ck_and_ge`: ridge on the real features and on their Gaussian equivalent;
* :func:`spike_measurements`, :func:`gradient_singular_values`: the spectrum of :math:`G_0`;
* :func:`population_model_risks`: not the network but the population model that chapter 5's
  large-step theory solves, drawn at finite :math:`d` (its gap to the theory is finite size
  alone, not the network-to-model step).

Each returns a dict, a list of dicts or a small dataclass, the form :func:`helpers.sweep`
averages over seeds.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field

import numpy as np

from ._validation import (
    check_choice,
    check_lambdas,
    check_nonnegative,
    check_positive,
    problem_sizes,
)
from .activations import as_student, as_teacher
from .data import init_student, normal_blocks, sample_data, sample_teacher, spawn_streams
from .feature_maps import features, ge_features
from .first_step import FirstStep, first_step_from_streams, run_first_step
from .kernels import KERNEL_NAMES, kernel_matrix
from .ridge import kernel_ridge_path, ridge_path
from .risk import TEST_BLOCK, ge_prediction_risk, prediction_risk, risk_from_errors
from .second_layer import DEFAULT
from .spectra import rank_one_part, singular_values, squared_overlap, top_singular_pair
from .theory.deterministic_equivalent import deterministic_equivalent_risk
from .theory.large_step import spiked_rf_parameters

__all__ = [
    "OneStepResult",
    "simulate_one_step",
    "simulate_etas",
    "risks_over_steps",
    "same_data_risks",
    "simulate_ck_and_ge",
    "spike_measurements",
    "gradient_singular_values",
    "population_model_risks",
    "default_n_test",
    "PRECISIONS",
]

PRECISIONS = ("float64", "mixed")


def default_n_test(n: int) -> int:
    """Number of fresh test points used when none is given: ``max(2048, n)``."""
    return max(2048, int(n))


def _check_run(d, psi1, psi2, *, lam, noise=0.0, n_test=None):
    """``(d, n, N, lambdas, n_test)`` for the arguments the runners share (``ValueError``
    naming the argument otherwise); ``n_test`` defaults to :func:`default_n_test`."""
    d, n, N = problem_sizes(d, psi1, psi2)
    check_nonnegative("noise", noise)
    lambdas = check_lambdas(lam)
    n_test = default_n_test(n) if n_test is None else check_positive("n_test", n_test,
                                                                     integer=True)
    return d, n, N, lambdas, n_test


def _scalar_if(lam, values):
    """``values`` (arrays of shape (L,)) as floats when ``lam`` was a single number."""
    return [float(v[0]) for v in values] if np.ndim(lam) == 0 else list(values)


# --------------------------------------------------------------------------- one eta
@dataclass(kw_only=True)
class OneStepResult(FirstStep):
    """What one run of :func:`simulate_one_step` produced: the first step (the fields of
    :class:`helpers.first_step.FirstStep`), the ridge coefficients ``B`` (N, L) and the risk.

    ``risk`` and ``risk_se`` are floats when ``lam`` was a number and arrays of shape (L,)
    when it was a sequence; ``risk_se`` is the Monte-Carlo standard error over test points.
    """

    risk: float | np.ndarray
    risk_se: float | np.ndarray
    lambdas: np.ndarray
    B: np.ndarray = field(repr=False)


def simulate_one_step(student, teacher, *, d, psi1, psi2, lam, eta, noise=0.0, seed=0,
                      n_test=None, precision="float64",
                      second_layer=DEFAULT) -> OneStepResult:
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
        Source of every random draw (see :func:`helpers.data.spawn_streams`): runs that
        differ only in ``eta`` or ``lam`` share the same data (common random numbers).
    n_test : int, optional
        Fresh test points for the risk; default :func:`default_n_test`.
    precision : {"float64", "mixed"}
        ``"mixed"`` computes the products after the step, :math:`\tilde XW_1` and the test
        features, in float32 (the step and the ridge solves stay float64; the draws are the
        same); ``benchmarks/`` measures its speed and its effect on the risk.
    second_layer : "gaussian" (default), "rademacher", (magnitudes, weights) or SecondLayer
        The law of :math:`\sqrt N a_i` (:mod:`helpers.second_layer`): by default
        :math:`a_i \sim N(0, 1/N)`; ``"rademacher"`` is :math:`\mathrm{sign}(g_i)/\sqrt N`
        with the same Gaussian draws :math:`g_i` (see :func:`helpers.init_student`).

    Returns
    -------
    OneStepResult
    """
    d, n, N, lambdas, n_test = _check_run(d, psi1, psi2, lam=lam, noise=noise, n_test=n_test)
    check_nonnegative("eta", eta)
    check_choice("precision", precision, PRECISIONS)
    dtype = np.float64 if precision == "float64" else np.float32
    student, teacher = as_student(student), as_teacher(teacher)
    streams = spawn_streams(seed)
    fs = first_step_from_streams(student, teacher, d=d, n=n, N=N, eta=eta, noise=noise,
                                 streams=streams, second_layer=second_layer)
    Xr, yr = sample_data(n, fs.beta, teacher, noise=noise, rng=streams["ridge"])
    B = ridge_path(features(Xr, fs.W1, student, dtype=dtype), yr, lambdas)
    risk, se = prediction_risk(fs.W1, B, student, teacher, fs.beta, n_test=n_test,
                               rng=streams["test"], dtype=dtype)
    risk, se = _scalar_if(lam, (risk, se))
    return OneStepResult(**vars(fs), risk=risk, risk_se=se, lambdas=lambdas, B=B)


# --------------------------------------------------------------------------- many etas
def risks_over_steps(fs: FirstStep, Xr, yr, test_blocks, etas, lambdas, student, teacher):
    r"""Ridge on :math:`\sigma(\tilde XW_1)` for every learning rate, and its test risk.

    :math:`XW_1 = XW_0 + \eta\sqrt N\,XG_0`, so two products per data set (ridge inputs
    ``Xr``, each block of ``test_blocks``) serve every ``eta``; every ``eta`` sees the same
    test points (:func:`helpers.risk.risk_from_errors`).  Returns the risks, shape
    (len(etas), L).
    """
    steps = [eta * math.sqrt(fs.N) for eta in etas]
    P0, P1 = Xr @ fs.W0, Xr @ fs.G0
    Bs = [ridge_path(student(P0 + s * P1), yr, lambdas) for s in steps]
    del P0, P1

    errors = [[] for _ in steps]  # per eta, sigma(X~ W_1) b - f*(x~) on each block: (m, L)
    for Xt in test_blocks:
        target = teacher(Xt @ fs.beta)[:, None]
        T0, T1 = Xt @ fs.W0, Xt @ fs.G0
        for err, s, B in zip(errors, steps, Bs, strict=True):
            err.append(student(T0 + s * T1) @ B - target)
    return np.array([risk_from_errors(err)[0] for err in errors])


def simulate_etas(student, teacher, *, d, psi1, psi2, lam, etas=None, eta_scales=None,
                  noise=0.0, seed=0, n_test=None, chunk: int = TEST_BLOCK,
                  second_layer=DEFAULT, initial_output=True) -> list[dict]:
    r"""Real-feature risk for several learning rates on shared data, one gradient.

    Same streams as :func:`simulate_one_step`, so the risk for each ``eta`` equals
    ``simulate_one_step(..., eta=eta, seed=seed).risk`` up to rounding: the data, the
    gradient :math:`G_0` and the test points are drawn once (:func:`risks_over_steps`).

    Parameters
    ----------
    etas : sequence of float
        Learning rates (>= 0).
    eta_scales : sequence of float, optional
        Instead of ``etas``: the large-step scale :math:`\tilde\eta = \eta/\sqrt N` (>= 0),
        the ``eta_scale`` of :func:`helpers.theory.large_step_risk`.  Give one of the two.
    lam : float or sequence of float
        Penalties (> 0).
    chunk : int
        Test points per block (as in :func:`helpers.prediction_risk`).
    second_layer : "gaussian" (default), "rademacher", (magnitudes, weights) or SecondLayer
        As in :func:`simulate_one_step` (the same draws for both).
    initial_output : bool
        ``False`` steps with the residual :math:`y` instead of :math:`y - f_0(x)`
        (:func:`helpers.first_step.first_step_gradient`); the same draws either way.
    Other parameters as in :func:`simulate_one_step`.

    Returns
    -------
    list of dict
        One dict per (eta, lam) with keys ``eta``, ``lam``, ``risk`` (``eta_scale`` in place
        of ``eta`` when ``eta_scales`` is given): ready for :func:`helpers.sweep`.
    """
    d, n, N, lambdas, n_test = _check_run(d, psi1, psi2, lam=lam, noise=noise, n_test=n_test)
    if (etas is None) == (eta_scales is None):
        raise ValueError("give exactly one of etas (the learning rates) and eta_scales "
                         "(eta / sqrt(N))")
    key, values = ("eta", etas) if eta_scales is None else ("eta_scale", eta_scales)
    values = [float(check_nonnegative(key, float(e))) for e in np.atleast_1d(values)]
    etas = values if eta_scales is None else [e * math.sqrt(N) for e in values]
    check_positive("chunk", chunk, integer=True)
    student, teacher = as_student(student), as_teacher(teacher)
    streams = spawn_streams(seed)
    fs = first_step_from_streams(student, teacher, d=d, n=n, N=N, eta=0.0, noise=noise,
                                 streams=streams, second_layer=second_layer,
                                 initial_output=bool(initial_output))
    Xr, yr = sample_data(n, fs.beta, teacher, noise=noise, rng=streams["ridge"])
    blocks = normal_blocks(streams["test"], n_test, d, block=chunk)
    risk = risks_over_steps(fs, Xr, yr, blocks, etas, lambdas, student, teacher)
    return [{key: value, "lam": float(lv), "risk": float(rv)}
            for value, row in zip(values, risk, strict=True)
            for lv, rv in zip(lambdas, row, strict=True)]


def same_data_risks(student, teacher, *, d, psi1, psi2, etas, lam, kernels=(), noise=0.0,
                    seed=0, n_test=2048, kernel_lam=None, kernel_data="ridge",
                    kernel_options=None) -> list[dict]:
    r"""Prediction risks of several estimators fitted on one draw of data.

    One teacher, one initialisation :math:`(W_0, a)`, one step set :math:`(X, y)` and
    gradient :math:`G_0`, one ridge set :math:`(\tilde X, \tilde y)` and one test set are
    drawn (the streams of :func:`simulate_one_step`).  Then

    * for each learning rate in ``etas``: ridge on :math:`\sigma(\tilde X W_1)`,
      :math:`W_1 = W_0 + \eta\sqrt N G_0` (``eta = 0``: random features), as in
      :func:`simulate_etas`;
    * for each kernel in ``kernels``: kernel ridge (:func:`helpers.ridge.kernel_ridge_path`)
      trained on the ridge set (``kernel_data="ridge"``, the same n points as the trained
      estimator's second stage) or on both sets (``"both"``, 2n points), with the CK/NTK
      built on :math:`W_0`.

    Parameters
    ----------
    student, teacher : str, callable or Activation
    d : int
    psi1, psi2 : float
        ``n = round(psi1 d)``, ``N = round(psi2 d)``.
    etas : mapping label -> float
        Learning rates (>= 0) of the trained-feature estimators, with the labels to report.
    lam : float or sequence of float
        Penalties (> 0), in the convention of :mod:`helpers.ridge`.
    kernels : sequence of str
        Names from ``helpers.kernels.KERNEL_NAMES``.
    noise : float
        Label-noise standard deviation.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
    n_test : int
        Test points (shared by every estimator); the risk excludes label noise.
    kernel_lam : float or sequence of float, optional
        Penalties for the kernels (default ``lam``); kernels usually want smaller ones.
    kernel_data : {"ridge", "both"}
        Training points of the kernels (see above).
    kernel_options : dict, optional
        Extra keyword arguments of :func:`helpers.kernels.kernel_matrix` (e.g. ``bandwidth``).

    Returns
    -------
    list of dict
        One row per (estimator, penalty): ``{"model": label, "lam": lam, "risk": risk}``.
    """
    d, n, N, lambdas, n_test = _check_run(d, psi1, psi2, lam=lam, noise=noise, n_test=n_test)
    if not hasattr(etas, "items") or not etas:
        raise ValueError(f"etas must be a non-empty mapping label -> learning rate; got {etas!r}")
    for label, eta in etas.items():
        check_nonnegative(f"etas[{label!r}]", eta)
    kernel_lambdas = lambdas if kernel_lam is None else check_lambdas(kernel_lam)
    check_choice("kernel_data", kernel_data, ("ridge", "both"))
    for k in kernels:
        check_choice("kernels", k, KERNEL_NAMES)
    student, teacher = as_student(student), as_teacher(teacher)
    streams = spawn_streams(seed)
    fs = first_step_from_streams(student, teacher, d=d, n=n, N=N, eta=0.0, noise=noise,
                                 streams=streams)
    Xr, yr = sample_data(n, fs.beta, teacher, noise=noise, rng=streams["ridge"])
    Xt = streams["test"].standard_normal((n_test, d))
    risk = risks_over_steps(fs, Xr, yr, [Xt], list(etas.values()), lambdas, student,
                               teacher)
    rows = [{"model": label, "lam": float(lv), "risk": float(rv)}
            for label, row in zip(etas, risk, strict=True)
            for lv, rv in zip(lambdas, row, strict=True)]
    if kernels:
        Xk, yk = (Xr, yr) if kernel_data == "ridge" else (np.vstack([fs.X, Xr]),
                                                          np.concatenate([fs.y, yr]))
        target = teacher(Xt @ fs.beta)[:, None]
        opts = dict(W0=fs.W0, student=student, **(kernel_options or {}))
        for k in kernels:
            alpha = kernel_ridge_path(kernel_matrix(k, Xk, **opts), yk, kernel_lambdas)
            kr = risk_from_errors(kernel_matrix(k, Xt, Xk, **opts) @ alpha - target)[0]
            rows.extend({"model": k, "lam": float(lv), "risk": float(rv)}
                        for lv, rv in zip(kernel_lambdas, kr, strict=True))
    return rows


# --------------------------------------------------------------------------- CK vs GE
def simulate_ck_and_ge(student, teacher, *, d, psi1, psi2, lam, eta, noise=0.0, seed=0,
                       n_test=None) -> dict:
    r"""One run: ridge on the real features and on the Gaussian equivalent, same :math:`W_1`.

    The two ridge problems share the fresh inputs :math:`\tilde X` and labels
    :math:`\tilde y`; the Gaussian-equivalent features add independent noise
    :math:`\mu_2 Z` from their own stream (``"ge_noise"``), so for the same seed the run
    shares its step, ridge data and test points with :func:`simulate_one_step`.  The risk
    on the real features is a Monte-Carlo average over ``n_test`` fresh points; the
    Gaussian-equivalent risk is exact (:func:`helpers.risk.ge_prediction_risk`).

    Parameters
    ----------
    student, teacher, d, psi1, psi2, lam, eta, noise, seed
        As in :func:`simulate_one_step`.
    n_test : int, optional
        Test points for the real-feature risk; default :func:`default_n_test`.

    Returns
    -------
    dict
        ``risk_ck``, ``risk_ck_mc_se`` (test-point error), ``risk_ge``, ``risk_de``
        (deterministic equivalent given :math:`W_1`), floats or arrays of shape (L,).
    """
    d, n, N, lambdas, n_test = _check_run(d, psi1, psi2, lam=lam, noise=noise, n_test=n_test)
    check_nonnegative("eta", eta)
    student, teacher = as_student(student), as_teacher(teacher)
    streams = spawn_streams(seed)
    fs = first_step_from_streams(student, teacher, d=d, n=n, N=N, eta=eta, noise=noise,
                                 streams=streams)
    W1, beta = fs.W1, fs.beta
    Xr, yr = sample_data(n, beta, teacher, noise=noise, rng=streams["ridge"])
    B_ck = ridge_path(features(Xr, W1, student), yr, lambdas)
    B_ge = ridge_path(ge_features(Xr, W1, student, rng=streams["ge_noise"]), yr, lambdas)
    ck, ck_se = prediction_risk(W1, B_ck, student, teacher, beta, n_test=n_test,
                                rng=streams["test"])
    ge = ge_prediction_risk(W1, B_ge, student, teacher, beta)
    de = np.atleast_1d(deterministic_equivalent_risk(W1, student, teacher, beta, n=n,
                                                     lam=lambdas, noise=noise))
    keys = ("risk_ck", "risk_ck_mc_se", "risk_ge", "risk_de")
    return dict(zip(keys, _scalar_if(lam, (ck, ck_se, ge, de)), strict=True))


# --------------------------------------------------------------------------- the spectrum of G0
def spike_measurements(student, teacher, *, d, psi1, psi2, noise=0.0, seed=0,
                       norms=True) -> dict:
    r"""Draw one first step and measure what Proposition 2 is about.

    Parameters
    ----------
    student, teacher : str, callable or Activation
    d : int
        Input dimension; ``n = round(psi1 d)``, ``N = round(psi2 d)``.
    psi1, psi2 : float
    noise : float
        Label-noise standard deviation.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator
        The same streams as :func:`simulate_one_step` (so the same data).
    norms : bool, default True
        Also measure the norms and the distance to A (the overlaps alone are cheaper).

    Returns
    -------
    dict of float
        ``overlap``: :math:`\langle u, \beta_*\rangle^2` for the top left singular vector u of
        :math:`G_0`; ``overlap_A``: the same for A, i.e. for :math:`X^\top y`;
        ``bulk_loss`` their difference.  With ``norms``: ``ratio``
        :math:`\|G_0 - A\|/\|G_0\|`; ``spike`` :math:`\sqrt N\|G_0\|`; ``frobenius``
        :math:`\sqrt N\|G_0\|_F`; ``second`` :math:`\sqrt N s_2(G_0)`; ``W0_op``
        :math:`\|W_0\|`; ``W0_fro`` :math:`\|W_0\|_F`; and ``n``, ``N``.
    """
    fs = run_first_step(student, teacher, d=d, psi1=psi1, psi2=psi2, eta=0.0, noise=noise,
                        seed=seed)
    top, u = top_singular_pair(fs.G0)
    out = {"overlap": squared_overlap(u, fs.beta),
           "overlap_A": squared_overlap(fs.X.T @ fs.y, fs.beta)}
    out["bulk_loss"] = out["overlap_A"] - out["overlap"]
    if norms:
        N = fs.N
        A = rank_one_part(fs.X, fs.y, fs.a, student)
        sv = singular_values(fs.G0)
        out.update({
            "ratio": float(singular_values(fs.G0 - A)[0] / top),
            "spike": math.sqrt(N) * top,
            "frobenius": math.sqrt(N) * float(np.linalg.norm(fs.G0)),
            "second": math.sqrt(N) * float(sv[1]) if sv.size > 1 else 0.0,
            "W0_op": float(singular_values(fs.W0)[0]),
            "W0_fro": float(np.linalg.norm(fs.W0)),
            "n": float(fs.n),
            "N": float(N),
        })
    return out


def gradient_singular_values(student, teacher, *, d, psi1, psi2, noise=0.0, seed=0,
                             k=None) -> list[dict]:
    r"""The ``k`` largest singular values of :math:`\sqrt N G_0` for one draw, as records.

    Returns a list of ``{"index": i, "s": value}`` (i = 1, 2, ...), the form
    :func:`helpers.sweep` averages with ``by=("index",)``.  ``k=None`` keeps all
    ``min(d, N)`` of them.
    """
    if k is not None:
        check_positive("k", k, integer=True)
    fs = run_first_step(student, teacher, d=d, psi1=psi1, psi2=psi2, eta=0.0, noise=noise,
                        seed=seed)
    sv = math.sqrt(fs.N) * singular_values(fs.G0)[:k]
    return [{"index": i + 1, "s": float(s)} for i, s in enumerate(sv)]



# --------------------------------------------------------------------------- the population model
def population_model_risks(student, teacher, *, d, psi1, psi2, lam, etas,
                           second_layer=DEFAULT, noise=0.0, seed=0) -> np.ndarray:
    r"""Ridge on the population model of chapter 5's large-step theory, drawn at finite
    :math:`d`, for every step size of ``etas`` (:math:`\tilde\eta = \eta/\sqrt N`).

    Neuron :math:`i` computes :math:`\sigma(\langle\sqrt{c_i}\,u_i + \xi_i r v, x\rangle)`
    with :math:`u_i \sim N(0, I_d/d)` independent, :math:`c_i = 1 + \xi_i^2(c_b - 1)`,
    :math:`v = \gamma\beta_* + \sqrt{1-\gamma^2}\,\zeta` (:math:`\zeta \perp \beta_*`
    a random unit vector) and :math:`(r, c_b, \gamma)` of
    :func:`helpers.theory.spiked_rf_parameters` at each step: the model the fixed point of
    :func:`helpers.theory.large_step_risk` solves, with no gradient step taken.  Ridge on
    :math:`n = \psi_1 d` fresh samples, risk on fresh test points, as for the network; the
    ridge data and the test points are drawn once and shared by every step size.

    Parameters
    ----------
    student, teacher : str, callable or Activation
    d : int
    psi1, psi2, lam : float
    etas : sequence of float
        Step sizes :math:`\tilde\eta \ge 0`; each gets its own :math:`(r, c_b, \gamma)` on
        the same :math:`u_i`, :math:`\zeta` and data.
    second_layer : "gaussian" (default), "rademacher", (magnitudes, weights) or SecondLayer
        The magnitudes :math:`|\xi_i| = |\sqrt N a_i|` of the second layer
        :func:`helpers.init_student` draws with the same seed (:mod:`helpers.second_layer`).
    noise : float
    seed : int or sequence of int

    Returns
    -------
    ndarray of shape (len(etas),)
    """
    d, n, N, lambdas, n_test = _check_run(d, psi1, psi2, lam=lam, noise=noise)
    if lambdas.size != 1:
        raise ValueError(f"lam must be one penalty; got {lam!r}")
    etas = [check_nonnegative("etas", float(e)) for e in np.atleast_1d(etas)]
    student, teacher = as_student(student), as_teacher(teacher)
    streams = spawn_streams(seed)
    beta = sample_teacher(d, rng=streams["teacher"])
    _, a = init_student(d, N, rng=streams["init"], second_layer=second_layer)
    xi = np.abs(a) * math.sqrt(N)
    U = streams["step"].standard_normal((d, N)) / math.sqrt(d)
    zeta = streams["step"].standard_normal(d)
    zeta -= (zeta @ beta) * beta
    zeta /= np.linalg.norm(zeta)
    Xr, yr = sample_data(n, beta, teacher, noise=noise, rng=streams["ridge"])
    risks = []
    for e in etas:
        r, cb, gamma = spiked_rf_parameters(student, teacher, psi1=psi1, eta_scale=e,
                                            noise=noise)
        v = gamma * beta + math.sqrt(1 - gamma**2) * zeta
        W1 = np.sqrt(1 + xi**2 * (cb - 1))[None, :] * U + np.outer(v, xi * r)
        B = ridge_path(features(Xr, W1, student), yr, lambdas)
        # a copy of the test stream: every step size sees the same test points
        risk, _ = prediction_risk(W1, B, student, teacher, beta, n_test=n_test,
                                  rng=copy.deepcopy(streams["test"]))
        risks.append(risk[0])
    return np.array(risks)
