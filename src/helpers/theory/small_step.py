r"""The asymptotic risk of ridge on the features after one small step (Ba et al. 2022, §4).

Route (the chapter derives every step):

1. Gaussian equivalence (Theorem 3): ridge on :math:`\sigma(W_1^\top x)` has the risk of ridge on
   :math:`\varphi = \mu_1 W_1^\top x + \mu_2 z`, a Gaussian linear model whose target is
   :math:`\mu_1^*\langle\beta_*, x\rangle` plus noise of variance
   :math:`\mu_2^{*2} + \sigma_\varepsilon^2`.
2. Its deterministic equivalent involves two kinds of quantities: normalised traces of
   :math:`\Sigma = \mu_1^2W_1^\top W_1 + \mu_2^2 I` and the quadratic form
   :math:`q(t) = c^\top(\Sigma + t)^{-1}c` with :math:`c = \mu_1\mu_1^* W_1^\top\beta_*`.
3. After the step :math:`W_1 = W_0 + u a^\top` with :math:`u = \eta\mu_1(\mu_1^*\beta_* + \xi)`,
   :math:`\|\xi\|^2 = E[y^2]/\psi_1`: a rank-one update.  Traces keep the Marchenko-Pastur law of
   :math:`W_0^\top W_0`; by the push-through identity
   :math:`q(t) = \mu_1^{*2}\,(1 - s\,g(s))` with :math:`s = \mu_2^2 + t` and
   :math:`g(s) = \beta_*^\top(\mu_1^2 W_1W_1^\top + s)^{-1}\beta_*`, and Woodbury on the
   rank-two update of :math:`W_0W_0^\top` gives

   .. math::

       g(s) = m_K(s)\,\frac{1 + \tau^2 h(s)}{1 + (\mu_1^{*2} + \tau^2)h(s)},\qquad
       h(s) = \eta^2\mu_1^4\, s M_1(s)\, m_K(s),\qquad \tau^2 = E[y^2]/\psi_1,

   where :math:`M_1(s) = E_{\rm MP}[1/(\mu_1^2 x + s)]` and
   :math:`m_K(s) = \psi_2 M_1(s) + (1 - \psi_2)/s` is the normalised trace of
   :math:`(\mu_1^2 W_0W_0^\top + s)^{-1}`.  At :math:`\eta = 0`, :math:`h = 0` and the
   random-features risk is recovered.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .._validation import check_array, check_nonnegative, check_positive
from ..activations import as_student, as_teacher, is_odd
from .deterministic_equivalent import solve_effective_penalty
from .rmt import mp_stieltjes, mp_stieltjes_derivative

__all__ = [
    "SmallStepWarning",
    "small_step_risk",
    "small_step_parts",
    "small_step_gain",
    "spike_strength",
    "ETA_PER_NEURON_LIMIT",
    "REFERENCE_DIM",
    "mei_montanari_risk",
]

# Largest per-neuron relative movement eta*mu1*||v||/sqrt(N) for which the small-step
# theory is used without a warning (see ``small_step_risk``).
ETA_PER_NEURON_LIMIT = 0.25
# Without a width the check uses the paper's d = 512 (Figure 3) and flags only steps that
# move a neuron by more than its own norm there: clearly the large-step regime.
REFERENCE_DIM = 512
REFERENCE_LIMIT = 1.0


class SmallStepWarning(UserWarning):
    """The requested step is outside the regime where the small-step theory applies."""


def spike_strength(teacher, *, psi1: float, noise: float = 0.0) -> tuple[float, float]:
    r"""The two lengths of :math:`v = X^\top y/n`: :math:`(\mu_1^{*2}, \tau^2 = E[y^2]/\psi_1)`.

    :math:`v \approx \mu_1^*\beta_* + \xi` with :math:`\xi` isotropic, independent of
    :math:`W_0` and :math:`a`, and :math:`\|\xi\|^2 \to \tau^2`.
    """
    check_positive("psi1", psi1)
    check_nonnegative("noise", noise)
    t = as_teacher(teacher)
    return t.mu1**2, (t.second_moment + noise**2) / psi1


def _mp_means(s, mu1, psi2):
    """M1 = E[1/(mu1^2 x + s)] and M2 = E[1/(mu1^2 x + s)^2] under MP(psi2)."""
    z = -s / mu1**2
    return mp_stieltjes(z, psi2) / mu1**2, mp_stieltjes_derivative(z, psi2) / mu1**4


def _g_and_derivative(s, eta, mu1, psi2, a2, tau2):
    r""":math:`g(s)` and :math:`g'(s)` (arrays broadcast over ``s`` and ``eta``)."""
    M1, M2 = _mp_means(s, mu1, psi2)
    mK = psi2 * M1 + (1.0 - psi2) / s
    dmK = -psi2 * M2 - (1.0 - psi2) / s**2
    P, dP = s * M1, M1 - s * M2
    c = eta**2 * mu1**4
    h, dh = c * P * mK, c * (dP * mK + P * dmK)
    T = a2 + tau2
    ratio = (1.0 + tau2 * h) / (1.0 + T * h)
    dratio = -a2 / (1.0 + T * h) ** 2
    return mK * ratio, dmK * ratio + mK * dratio * dh


def small_step_parts(student, teacher, *, psi1, psi2, lam, eta, noise=0.0,
                     width=None, check_regime=True) -> dict:
    r"""Every piece of the asymptotic small-step risk (see :func:`small_step_risk`).

    Returns
    -------
    dict of ndarrays, broadcast over ``eta`` and ``lam``
        ``risk``; ``floor`` = :math:`\mu_2^{*2}`; ``s2`` = linear part the features miss;
        ``bias`` and ``variance`` of the ridge estimator around :math:`b_*`; ``kappa`` (the
        effective penalty); ``df2_over_n``; ``alignment`` = :math:`q(0)/\mu_1^{*2}`, the fraction of
        the linear part the population features can express (0 for a teacher without a
        linear part, :math:`\mu_1^* = 0`).
    """
    check_positive("psi1", psi1)
    check_positive("psi2", psi2)
    check_nonnegative("noise", noise)
    lam_arr = check_array("lam", lam, positive=True)
    eta_arr = check_array("eta", eta, positive=False)
    s, t = as_student(student), as_teacher(teacher)
    if s.mu1 == 0 or s.mu2 <= 1e-12:
        raise ValueError(f"student must have mu1 != 0 and a nonlinear part mu2 > 0; got "
                         f"mu1={s.mu1!r}, mu2={s.mu2!r}")
    if not is_odd(s):
        warnings.warn("Theorem 3 (Gaussian equivalence) assumes an odd student; the formula "
                      "ignores the even part of the activation", SmallStepWarning, stacklevel=3)
    a2, tau2 = spike_strength(t, psi1=psi1, noise=noise)
    if width is None:  # no width given: flag only gross cases, at the paper's size
        width, where = max(1, round(psi2 * REFERENCE_DIM)), f" (d = {REFERENCE_DIM})"
        limit = REFERENCE_LIMIT
    else:
        check_positive("width", width, integer=True)
        where, limit = "", ETA_PER_NEURON_LIMIT
    move = float(np.max(eta_arr, initial=0.0)) * abs(s.mu1) * math.sqrt(a2 + tau2)
    if check_regime and move / math.sqrt(width) > limit:
        warnings.warn(
            f"eta = {np.max(eta_arr):g} moves each neuron by about "
            f"{move / math.sqrt(width):.2f} of its norm at width {width}{where}: beyond "
            f"{limit} the small-step (eta = Theta(1)) theory does not apply",
            SmallStepWarning, stacklevel=3)
    mu1, mu2sq = s.mu1, s.mu2_sq
    ratio_n = psi2 / psi1
    lam_u = np.unique(np.atleast_1d(lam_arr))

    def df1_over_n(kappa):
        M1, _ = _mp_means(mu2sq + kappa, mu1, psi2)
        return ratio_n * (1.0 - kappa * M1)

    kappa_u = solve_effective_penalty(lam_u, df1_over_n, upper=ratio_n * (mu1**2 + mu2sq))
    lam_b, eta_b = np.broadcast_arrays(lam_arr, eta_arr)
    kappa = kappa_u[np.searchsorted(lam_u, lam_b)]
    M1k, M2k = _mp_means(mu2sq + kappa, mu1, psi2)
    df2n = ratio_n * (1.0 - 2.0 * kappa * M1k + kappa**2 * M2k)
    if np.any(df2n >= 1):
        raise RuntimeError("deterministic equivalent: df2/n >= 1 at the solved kappa")
    g0, _ = _g_and_derivative(mu2sq, eta_b, mu1, psi2, a2, tau2)
    gk, dgk = _g_and_derivative(mu2sq + kappa, eta_b, mu1, psi2, a2, tau2)
    q0 = a2 * (1.0 - mu2sq * g0)
    qk = a2 * (1.0 - (mu2sq + kappa) * gk)
    dqk = -a2 * (gk + (mu2sq + kappa) * dgk)
    s2 = a2 - q0
    bias = (q0 - qk + kappa * dqk) / (1.0 - df2n)
    variance = (s2 + t.mu2_sq + noise**2) * df2n / (1.0 - df2n)
    return dict(risk=t.mu2_sq + s2 + bias + variance, floor=np.full_like(s2, t.mu2_sq),
                s2=s2, bias=bias, variance=variance, kappa=kappa, df2_over_n=df2n,
                alignment=np.divide(q0, a2, out=np.zeros_like(q0), where=a2 > 0))


def small_step_risk(student, teacher, *, psi1, psi2, lam, eta, noise=0.0, width=None,
                    check_regime=True):
    r"""Asymptotic prediction risk of ridge on :math:`\sigma(W_1^\top x)` after one step.

    The limit :math:`n, d, N \to \infty` with :math:`n/d = \psi_1`, :math:`N/d = \psi_2` and
    :math:`\eta = \Theta(1)`, computed without any sampling: Gaussian equivalence, the
    deterministic equivalent of ridge, and the Marchenko-Pastur law of :math:`W_0` with the
    rank-one spike of the step handled by Woodbury (see the module docstring).
    ``eta = 0`` gives the random-features risk :math:`R_0`.

    Parameters
    ----------
    student, teacher : str, callable or Activation
        The student should be odd (Theorem 3); a warning is issued otherwise.
    psi1, psi2 : float
        :math:`n/d` and :math:`N/d`, > 0.
    lam : float or 1-d array
        Ridge penalties (> 0) in the package's scaling (:mod:`helpers.ridge`).
    eta : float or 1-d array
        Learning rate(s) of the step, >= 0.  ``lam`` and ``eta`` broadcast against each other.
    noise : float
        Label-noise standard deviation (>= 0); the risk excludes it.
    width : int, optional
        A finite width :math:`N` to check the step against: when
        :math:`\eta\mu_1\|v\|/\sqrt N` (the relative movement of one neuron) exceeds
        ``ETA_PER_NEURON_LIMIT`` a :class:`SmallStepWarning` says the small-step theory no
        longer applies at that width (the large-step regime :math:`\eta \sim \sqrt N`).
        Default: the paper's width, :math:`N = \psi_2 \cdot 512` (``REFERENCE_DIM``), with
        the looser limit ``REFERENCE_LIMIT`` (a neuron moving by its own norm).  The
        formula itself is the :math:`d \to \infty` limit at fixed ``eta``.
    check_regime : bool
        ``False`` evaluates the formula beyond that limit without the warning (for drawing
        the small-step theory into the large-step regime on purpose, as chapter 5 does).

    Returns
    -------
    float or ndarray
        A float when ``lam`` and ``eta`` are scalars, else the broadcast array.

    Raises
    ------
    ValueError
        For ``lam <= 0``, ``psi1 <= 0``, ``psi2 <= 0``, ``eta < 0``, ``noise < 0``.
    RuntimeError
        If the effective-penalty equation does not converge.
    """
    risk = small_step_parts(student, teacher, psi1=psi1, psi2=psi2, lam=lam, eta=eta,
                            noise=noise, width=width, check_regime=check_regime)["risk"]
    return float(risk) if risk.ndim == 0 else risk


def small_step_gain(student, teacher, *, psi1, psi2, lam, eta, noise=0.0):
    r""":math:`\delta = R_0 - R_1` (Theorem 5), same conventions as :func:`small_step_risk`."""
    kw = dict(psi1=psi1, psi2=psi2, lam=lam, noise=noise)
    r1 = small_step_risk(student, teacher, eta=eta, **kw)
    r0 = small_step_risk(student, teacher, eta=0.0, **kw)
    return r0 - r1


def mei_montanari_risk(student, teacher, *, psi1, psi2, lam, noise=0.0, tol=1e-13,
                       max_iter=100_000) -> float:
    r"""Random-features risk :math:`R_0` from the closed form of Mei and Montanari (2022).

    An independent check of ``small_step_risk(..., eta=0)``: their Theorem 1 writes the
    limiting risk through two Stieltjes-type functions :math:`\nu_1, \nu_2` solving a coupled
    fixed point at the imaginary point :math:`\xi = i\sqrt{\psi_1'\psi_2'\bar\lambda}`, and
    rational functions :math:`\mathscr E_0, \mathscr E_1, \mathscr E_2` of
    :math:`\chi = \nu_1\nu_2`, :math:`\zeta = \mu_1/\mu_2`:
    :math:`R_0 = \mu_1^{*2}\mathscr E_1/\mathscr E_0
    + (\mu_2^{*2} + \sigma_\varepsilon^2)\mathscr E_2/\mathscr E_0 + \mu_2^{*2}`.

    Their ratios are swapped with ours (:math:`\psi_1' = N/d = \psi_2`,
    :math:`\psi_2' = n/d = \psi_1`) and their penalty is :math:`(N\lambda'/d)\|a\|^2`, so
    :math:`\lambda' = \lambda/\psi_2` and :math:`\bar\lambda = \lambda'/\mu_2^2`.

    Raises
    ------
    RuntimeError
        If the damped fixed-point iteration for :math:`(\nu_1, \nu_2)` does not converge.
    """
    check_positive("psi1", psi1)
    check_positive("psi2", psi2)
    check_positive("lam", lam)
    check_nonnegative("noise", noise)
    s, t = as_student(student), as_teacher(teacher)
    p1, p2 = psi2, psi1
    z2 = s.mu1**2 / s.mu2_sq
    xi = 1j * math.sqrt(p1 * p2 * lam / psi2 / s.mu2_sq)
    nu1 = nu2 = 1j
    for _ in range(max_iter):
        shared = 1.0 - z2 * nu1 * nu2
        new1 = p1 / (-xi - nu2 - z2 * nu2 / shared)
        new2 = p2 / (-xi - nu1 - z2 * nu1 / shared)
        step = abs(new1 - nu1) + abs(new2 - nu2)
        nu1, nu2 = 0.5 * (nu1 + new1), 0.5 * (nu2 + new2)
        if step < tol:
            break
    else:
        raise RuntimeError(f"Mei-Montanari fixed point did not converge in {max_iter} steps "
                           f"(last change {step:.1e})")
    x = nu1 * nu2
    e0 = (-x**5 * z2**3 + 3 * x**4 * z2**2 + (p1 * p2 - p2 - p1 + 1) * x**3 * z2**3
          - 2 * x**3 * z2**2 - 3 * x**3 * z2 + (p1 + p2 - 3 * p1 * p2 + 1) * x**2 * z2**2
          + 2 * x**2 * z2 + x**2 + 3 * p1 * p2 * x * z2 - p1 * p2)
    e1 = p2 * x**3 * z2**2 - p2 * x**2 * z2 + p1 * p2 * x * z2 - p1 * p2
    e2 = (x**5 * z2**3 - 3 * x**4 * z2**2 + (p1 - 1) * x**3 * z2**3 + 2 * x**3 * z2**2
          + 3 * x**3 * z2 - (p1 + 1) * x**2 * z2**2 - 2 * x**2 * z2 - x**2)
    risk = t.mu1**2 * e1 / e0 + (t.mu2_sq + noise**2) * e2 / e0 + t.mu2_sq
    return float(risk.real)
