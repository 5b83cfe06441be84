r"""The deterministic equivalent of ridge on Gaussian-equivalent features, and its penalty.

Gaussian equivalence (Ba et al. 2022, Theorem 3) replaces the features
:math:`\sigma(W^\top x)` of an odd activation by :math:`\mu_1 W^\top x + \mu_2 z` with
:math:`z \sim N(0, I_N)` independent of :math:`x`.  The teacher
:math:`f_*(x) = \sigma_*(\langle\beta_*, x\rangle)` splits into its linear part
:math:`\mu_1^*\langle\beta_*, x\rangle` and a nonlinear part of variance
:math:`\mu_2^{*2}` uncorrelated with those features, so ridge on them is ridge regression
with Gaussian covariates of covariance and cross-covariance

.. math::

    \Sigma = \mu_1^2 W^\top W + \mu_2^2 I_N, \qquad
    c = E[\varphi\, f_*] = \mu_1\mu_1^* W^\top\beta_*

(:func:`ge_population`), whose risk has the classical deterministic equivalent
(:func:`deterministic_equivalent_risk`) through the effective penalty
(:func:`solve_effective_penalty`).  The asymptotic small-step risk
(:mod:`helpers.theory.small_step`) solves the same penalty equation with traces from the
Marchenko-Pastur law.
"""

from __future__ import annotations

import numpy as np
from scipy import optimize

from .._validation import (
    check_lambdas,
    check_matrix,
    check_nonnegative,
    check_positive,
)
from ..activations import as_student, as_teacher

__all__ = ["solve_effective_penalty", "ge_population", "deterministic_equivalent_risk"]


def solve_effective_penalty(lam, df1_over_n, *, upper, rtol: float = 1e-9,
                            max_iter: int = 200) -> np.ndarray:
    r"""Solve :math:`\lambda = \kappa(1 - \mathrm{df}_1(\kappa)/n)` for :math:`\kappa`, per penalty.

    :math:`\kappa(1 - \mathrm{df}_1(\kappa)/n)` is negative while :math:`\mathrm{df}_1 > n`,
    increasing once :math:`\mathrm{df}_1 < n`, equal to at most :math:`\kappa` and at least
    :math:`\kappa - \mathrm{tr}\,\Sigma/n`; so the root is unique and lies in
    :math:`[\lambda, \lambda + \mathrm{tr}\,\Sigma/n]`.  Brent's method (SciPy's
    ``brentq``) finds it on :math:`\log\kappa` in that bracket.

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
        Iterations of Brent's method per penalty.

    Returns
    -------
    kappa : ndarray of shape (L,)

    Raises
    ------
    RuntimeError
        If the bracket is invalid, Brent's method does not converge, or the residual
        exceeds ``rtol``.
    """
    lam = np.atleast_1d(np.asarray(lam, dtype=float))

    def excess(log_kappa, lv):  # lam/kappa - (1 - df1/n), increasing to 0 at the root
        kappa = np.exp(log_kappa)
        return 1.0 - float(df1_over_n(np.array([kappa]))[0]) - lv / kappa

    kappa = np.empty_like(lam)
    for i, lv in enumerate(lam):
        lo, hi = np.log(lv), np.log(lv + upper)
        at_hi = excess(hi, lv)
        if at_hi < -rtol:
            raise RuntimeError("effective penalty: the upper end of the bracket is too small "
                               f"(upper = {upper!r}); the traces are inconsistent")
        at_lo = excess(lo, lv)
        if at_lo >= 0 or at_hi <= 0:  # the root is an end of the bracket
            kappa[i] = lv if at_lo >= 0 else lv + upper
            continue
        root, info = optimize.brentq(excess, lo, hi, args=(lv,), xtol=1e-15,
                                     rtol=4 * np.finfo(float).eps, maxiter=max_iter,
                                     full_output=True, disp=False)
        if not info.converged:
            raise RuntimeError(f"effective penalty did not converge at lam={lv!r}: {info.flag}")
        kappa[i] = np.exp(root)
    resid = np.abs(kappa * (1.0 - df1_over_n(kappa)) - lam) / kappa
    if not np.all(np.isfinite(resid)) or np.any(resid > rtol):
        raise RuntimeError(f"effective penalty did not converge: relative residual "
                           f"{np.nanmax(resid):.2e} > rtol = {rtol:.1e}")
    return kappa


def ge_population(W, student, teacher, beta):
    r"""Population covariance :math:`\Sigma` (N x N) and cross-covariance :math:`c` (N,).

    Returns
    -------
    Sigma : ndarray of shape (N, N)
        :math:`\mu_1^2 W^\top W + \mu_2^2 I`.
    c : ndarray of shape (N,)
        :math:`\mu_1\mu_1^* W^\top\beta_*`.
    """
    W = check_matrix("W", W, 2)
    beta = check_matrix("beta", beta, 1, (W.shape[0],))
    s, t = as_student(student), as_teacher(teacher)
    Sigma = s.mu1**2 * (W.T @ W)
    Sigma[np.diag_indices_from(Sigma)] += s.mu2_sq
    return Sigma, s.mu1 * t.mu1 * (W.T @ beta)


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

    One eigendecomposition of :math:`\Sigma` serves every penalty.

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
