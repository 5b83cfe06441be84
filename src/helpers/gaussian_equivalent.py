r"""The Gaussian-equivalent model of the trained features and its ridge risk.

Gaussian equivalence (Ba et al. 2022, Theorem 3) replaces the features :math:`\sigma(W_1^\top x)`
of an odd activation by

.. math::

    \varphi_{GE}(x) = \mu_1 W_1^\top x + \mu_2 z, \qquad z \sim N(0, I_N) \text{ independent of } x,

(unnormalised, as everywhere in this package).  The teacher
:math:`f_*(x) = \sigma_*(\langle\beta_*, x\rangle)` splits into its linear part
:math:`\mu_1^*\langle\beta_*, x\rangle` and a nonlinear part of variance :math:`\mu_2^{*2}` that is
uncorrelated with :math:`\varphi_{GE}`.  Ridge on :math:`\varphi_{GE}` is therefore ridge
regression with Gaussian covariates of covariance and cross-covariance

.. math::

    \Sigma = \mu_1^2 W_1^\top W_1 + \mu_2^2 I_N, \qquad
    c = E[\varphi\, f_*] = \mu_1\mu_1^* W_1^\top\beta_*,

and its risk has the classical deterministic equivalent implemented in
:func:`deterministic_equivalent_risk` (one eigendecomposition of :math:`\Sigma` serves a whole
grid of penalties).
"""

from __future__ import annotations

import numpy as np

from .model import (
    STREAMS,
    _check_matrix,
    as_student,
    as_teacher,
    check_nonnegative,
    check_positive,
    check_rng,
    features,
    first_step_from_streams,
    normal_blocks,
    sample_data,
    spawn_streams,
)
from .ridge import TEST_BLOCK, check_lambdas, prediction_risk, ridge_path
from .simulate import check_run

__all__ = [
    "solve_effective_penalty",
    "ge_features",
    "ge_population",
    "ge_prediction_risk",
    "deterministic_equivalent_risk",
    "simulate_ck_and_ge",
]


def solve_effective_penalty(lam, df1_over_n, *, upper, rtol: float = 1e-9,
                            max_iter: int = 200) -> np.ndarray:
    r"""Solve :math:`\lambda = \kappa(1 - \mathrm{df}_1(\kappa)/n)` for :math:`\kappa`, per penalty.

    :math:`\kappa(1 - \mathrm{df}_1(\kappa)/n)` is negative while :math:`\mathrm{df}_1 > n`,
    increasing once :math:`\mathrm{df}_1 < n`, equal to at most :math:`\kappa` and at least
    :math:`\kappa - \mathrm{tr}\,\Sigma/n`; so the root is unique and lies in
    :math:`[\lambda, \lambda + \mathrm{tr}\,\Sigma/n]`.  Vectorised bisection on
    :math:`\log\kappa` finds it.

    Parameters
    ----------
    lam : ndarray of shape (L,)
        Penalties, all > 0.
    df1_over_n : callable
        Maps an array of :math:`\kappa` of shape (L,) to :math:`\mathrm{df}_1(\kappa)/n`.
    upper : float
        An upper bound of :math:`\mathrm{tr}\,\Sigma / n`.
    rtol : float
        Required accuracy of the dimensionless equation
        :math:`\lambda/\kappa = 1 - \mathrm{df}_1(\kappa)/n` at the returned :math:`\kappa`.
    max_iter : int
        Bisection steps.

    Returns
    -------
    kappa : ndarray of shape (L,)

    Raises
    ------
    RuntimeError
        If the bracket is invalid or the residual exceeds ``rtol`` after ``max_iter`` steps.
    """
    lam = np.asarray(lam, dtype=float)

    def g(kappa):
        return kappa * (1.0 - df1_over_n(kappa))

    lo, hi = np.log(lam), np.log(lam + upper)
    if np.any(g(np.exp(hi)) < lam * (1 - rtol)):
        raise RuntimeError("effective penalty: the upper end of the bracket is too small "
                           f"(upper = {upper!r}); the traces are inconsistent")
    for _ in range(max_iter):
        mid = 0.5 * (lo + hi)
        below = g(np.exp(mid)) < lam
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
        if np.all(hi - lo < 1e-15):
            break
    kappa = np.exp(0.5 * (lo + hi))
    # residual of the dimensionless form lam/kappa = 1 - df1/n
    resid = np.abs(g(kappa) - lam) / kappa
    if not np.all(np.isfinite(resid)) or np.any(resid > rtol):
        raise RuntimeError(f"effective penalty did not converge: relative residual "
                           f"{np.nanmax(resid):.2e} > rtol = {rtol:.1e}")
    return kappa


def ge_features(X, W, student, *, rng: np.random.Generator) -> np.ndarray:
    r"""Gaussian-equivalent features :math:`\mu_1 XW + \mu_2 Z`, shape (n, N).

    Parameters
    ----------
    X : ndarray of shape (n, d)
    W : ndarray of shape (d, N)
    student : str, callable or Activation
    rng : numpy.random.Generator
        Source of the independent noise :math:`Z` (n x N, standard normal).
    """
    X = _check_matrix("X", X, 2)
    W = _check_matrix("W", W, 2, (X.shape[1], None))
    s = as_student(student)
    Z = check_rng(rng).standard_normal((X.shape[0], W.shape[1]))
    return s.mu1 * (X @ W) + s.mu2 * Z


def ge_population(W, student, teacher, beta):
    r"""Population covariance :math:`\Sigma` (N x N) and cross-covariance :math:`c` (N,).

    Returns
    -------
    Sigma : ndarray of shape (N, N)
        :math:`\mu_1^2 W^\top W + \mu_2^2 I`.
    c : ndarray of shape (N,)
        :math:`\mu_1\mu_1^* W^\top\beta_*`.
    """
    W = _check_matrix("W", W, 2)
    beta = _check_matrix("beta", beta, 1, (W.shape[0],))
    s, t = as_student(student), as_teacher(teacher)
    Sigma = s.mu1**2 * (W.T @ W)
    Sigma[np.diag_indices_from(Sigma)] += s.mu2_sq
    return Sigma, s.mu1 * t.mu1 * (W.T @ beta)


def ge_prediction_risk(B, W, student, teacher, beta) -> np.ndarray:
    r"""Exact risk :math:`E(b^\top\varphi_{GE} - f_*)^2 = b^\top\Sigma b - 2b^\top c + E f_*^2`.

    Parameters
    ----------
    B : ndarray of shape (N, L)
        One coefficient vector per column.
    W : ndarray of shape (d, N)
    student, teacher : str, callable or Activation
    beta : ndarray of shape (d,)

    Returns
    -------
    ndarray of shape (L,)
    """
    B = np.asarray(B, dtype=float)
    if B.ndim == 1:
        B = B[:, None]
    Sigma, c = ge_population(W, student, teacher, beta)
    B = _check_matrix("B", B, 2, (Sigma.shape[0], None))
    return np.einsum("il,il->l", B, Sigma @ B) - 2.0 * (c @ B) + as_teacher(teacher).second_moment


def deterministic_equivalent_risk(W, student, teacher, beta, *, n: int, lam, noise=0.0,
                                  return_parts: bool = False):
    r"""Deterministic equivalent of the risk of ridge on :math:`\varphi_{GE}` for a given ``W``.

    With :math:`b_* = \Sigma^{-1}c`, :math:`s^2 = \mu_1^{*2} - c^\top\Sigma^{-1}c` (the linear part
    the features cannot express) and
    :math:`\sigma_{\rm eff}^2 = s^2 + \mu_2^{*2} + \sigma_\varepsilon^2`,

    .. math::

        \lambda = \kappa\Big(1 - \frac{\mathrm{df}_1(\kappa)}{n}\Big), \quad
        \mathrm{df}_k(\kappa) = \mathrm{tr}\,\Sigma^k(\Sigma + \kappa)^{-k},

        R \approx \mu_2^{*2} + s^2 + \frac{\kappa^2 b_*^\top\Sigma(\Sigma+\kappa)^{-2}b_*
            + \sigma_{\rm eff}^2\,\mathrm{df}_2/n}{1 - \mathrm{df}_2/n}.

    Parameters
    ----------
    W : ndarray of shape (d, N)
        First-layer weights (e.g. :math:`W_1`).
    student, teacher : str, callable or Activation
    beta : ndarray of shape (d,)
    n : int
        Number of ridge samples.
    lam : float or array of shape (L,)
        Penalties > 0.
    noise : float
        Label-noise standard deviation.
    return_parts : bool
        Also return a dict of ``kappa, df2_over_n, s2, bias, variance``.

    Returns
    -------
    risk : float or ndarray of shape (L,)
    """
    check_positive("n", n, integer=True)
    check_nonnegative("noise", noise)
    lambdas = check_lambdas(lam)
    t = as_teacher(teacher)
    Sigma, c = ge_population(W, student, teacher, beta)
    ev, V = np.linalg.eigh(Sigma)
    c2 = (V.T @ c) ** 2

    def df1_over_n(kappa):
        return (ev[None, :] / (ev[None, :] + kappa[:, None])).sum(axis=1) / n

    kappa = solve_effective_penalty(lambdas, df1_over_n, upper=ev.sum() / n)
    s2 = max(t.mu1**2 - float(np.sum(c2 / ev)), 0.0)
    sig2 = s2 + t.mu2_sq + noise**2
    K = kappa[:, None]
    df2n = (ev**2 / (ev + K) ** 2).sum(axis=1) / n
    bias = kappa**2 * (c2 / (ev * (ev + K) ** 2)).sum(axis=1) / (1 - df2n)
    var = sig2 * df2n / (1 - df2n)
    risk = t.mu2_sq + s2 + bias + var
    if np.ndim(lam) == 0:
        risk = float(risk[0])
    if return_parts:
        return risk, dict(kappa=kappa, df2_over_n=df2n, s2=s2, bias=bias, variance=var)
    return risk


def simulate_ck_and_ge(student, teacher, *, d, psi1, psi2, lam, eta, noise=0.0, seed=0,
                       n_test=None) -> dict:
    r"""One run: ridge on the real features and on the Gaussian equivalent, same :math:`W_1`.

    The two ridge problems share the fresh inputs :math:`\tilde X` and labels :math:`\tilde y`;
    the Gaussian-equivalent features add independent noise :math:`\mu_2 Z`.  The risk on the
    real features is a Monte-Carlo average over ``n_test`` fresh points; the Gaussian-equivalent
    risk is exact (:func:`ge_prediction_risk`).

    Parameters
    ----------
    student, teacher, d, psi1, psi2, lam, eta, noise
        As in :func:`helpers.simulate_one_step`.
    seed : int or numpy.random.SeedSequence
    n_test : int, optional
        Test points for the real-feature risk; default :func:`helpers.simulate.default_n_test`.

    Returns
    -------
    dict
        ``risk_ck``, ``risk_ck_mc_se`` (test-point error), ``risk_ge``, ``risk_de``
        (deterministic equivalent given :math:`W_1`), floats or arrays of shape (L,).
    """
    d, n, N, lambdas, n_test = check_run(d, psi1, psi2, lam=lam, noise=noise, n_test=n_test)
    check_nonnegative("eta", eta)
    student, teacher = as_student(student), as_teacher(teacher)
    # the five streams of spawn_streams, with the GE noise drawn from a sixth one
    children = np.random.default_rng(seed).spawn(6)
    r_z, r_test = children[4], children[5]
    streams = dict(zip(STREAMS, [*children[:4], r_test], strict=True))
    fs = first_step_from_streams(student, teacher, d=d, n=n, N=N, eta=eta, noise=noise,
                                 streams=streams)
    W1, beta = fs.W1, fs.beta
    Xr, yr = sample_data(n, beta, teacher, noise=noise, rng=streams["ridge"])
    B_ck = ridge_path(features(Xr, W1, student), yr, lambdas)
    B_ge = ridge_path(ge_features(Xr, W1, student, rng=r_z), yr, lambdas)
    ck, ck_se = prediction_risk(W1, B_ck, student, teacher, beta, n_test=n_test, rng=r_test)
    out = dict(risk_ck=ck, risk_ck_mc_se=ck_se,
               risk_ge=ge_prediction_risk(B_ge, W1, student, teacher, beta),
               risk_de=np.atleast_1d(deterministic_equivalent_risk(
                   W1, student, teacher, beta, n=n, lam=lambdas, noise=noise)))
    if np.ndim(lam) == 0:
        out = {k: float(v[0]) for k, v in out.items()}
    return out


def simulate_etas(student, teacher, *, d, psi1, psi2, lam, etas, noise=0.0, seed=0,
                  n_test=None, chunk: int = TEST_BLOCK) -> list[dict]:
    r"""Real-feature risk for several learning rates on shared data, one gradient.

    Same streams as :func:`helpers.simulate_one_step`, so the risk for each ``eta`` equals
    ``simulate_one_step(..., eta=eta, seed=seed).risk`` up to rounding (about 1e-12
    relative): the first-stage data, the gradient :math:`G_0` and the test points are drawn
    once, and :math:`XW_1 = XW_0 + \eta\sqrt N\,XG_0` reuses two products per data set
    for every ``eta``.

    Parameters
    ----------
    etas : sequence of float
        Learning rates (>= 0).
    lam : float or sequence of float
        Penalties (> 0).
    chunk : int
        Test points per block (as in :func:`helpers.prediction_risk`).
    Other parameters as in :func:`helpers.simulate_one_step`.

    Returns
    -------
    list of dict
        One dict per (eta, lam) with keys ``eta``, ``lam``, ``risk``.
    """
    d, n, N, lambdas, n_test = check_run(d, psi1, psi2, lam=lam, noise=noise, n_test=n_test)
    etas = [check_nonnegative("eta", float(e)) for e in np.atleast_1d(etas)]
    check_positive("chunk", chunk, integer=True)
    student, teacher = as_student(student), as_teacher(teacher)
    streams = spawn_streams(seed)
    fs = first_step_from_streams(student, teacher, d=d, n=n, N=N, eta=0.0, noise=noise,
                                 streams=streams)
    Xr, yr = sample_data(n, fs.beta, teacher, noise=noise, rng=streams["ridge"])
    steps = [eta * np.sqrt(N) for eta in etas]
    P0, P1 = Xr @ fs.W0, Xr @ fs.G0
    Bs = [ridge_path(student(P0 + s * P1), yr, lambdas) for s in steps]
    del P0, P1
    total = np.zeros((len(etas), lambdas.size))
    # the blocks of prediction_risk, hence the same test points
    for Xt in normal_blocks(streams["test"], n_test, d, block=chunk):
        target = teacher(Xt @ fs.beta)[:, None]
        T0, T1 = Xt @ fs.W0, Xt @ fs.G0
        for k, (s, B) in enumerate(zip(steps, Bs, strict=True)):
            err = student(T0 + s * T1) @ B - target
            total[k] += np.einsum("ij,ij->j", err, err)
    risk = total / n_test
    return [dict(eta=eta, lam=float(lv), risk=float(rv))
            for eta, row in zip(etas, risk, strict=True)
            for lv, rv in zip(lambdas, row, strict=True)]
