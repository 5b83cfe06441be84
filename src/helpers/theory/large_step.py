r"""The asymptotic risk after one large step (Cui et al. 2024), in the book's conventions.

After one step with :math:`\eta = \tilde\eta\sqrt N` (``eta_scale`` :math:`=\tilde\eta`) and a
second layer :math:`a_i = \xi_i/\sqrt N`, :math:`\xi_i = \pm 1`, neuron :math:`i` computes
approximately :math:`\sigma(\sqrt{c_b}\langle w^0_i, x\rangle + r\,\xi_i z_v)`, with
:math:`z_v = \langle v, x\rangle` along the unit spike direction :math:`v` of the step
(a *spiked random-features* model, :func:`spiked_rf_parameters`):

.. math::

    r = \tilde\eta\,\mu_1\sqrt{\mu_1^{*2} + E y^2/\psi_1},\qquad
    c_b = 1 + \tilde\eta^2\,E y^2\,E(\sigma' - \mu_1)^2/\psi_1,\qquad
    \gamma = \langle\beta_*, v\rangle = \mu_1^*/\sqrt{\mu_1^{*2} + E y^2/\psi_1}.

Two approximations are made, and they are distinct: (1) the trained network is replaced by
this spiked random-features model, whose bulk is :math:`\sqrt{c_b}` times a Gaussian matrix
independent of everything else (Dandi et al. 2024, arXiv:2410.18938, prove this equivalence
in the limit of a large first batch); (2) conditionally on :math:`z_v` the model's features
are replaced by Gaussian equivalents with :math:`z_v`-dependent coefficients
:math:`\mu_0(z_v), \mu_1(z_v), \mu_2(z_v)` (a conjecture in Cui et al. 2024), and the
ridge estimator is described by a replica-symmetric fixed point (replica method, not a
theorem).  For an odd :math:`\sigma` the signs :math:`\xi_i` are absorbed by
:math:`w^0_i\to\xi_i w^0_i` and the readout, so the model is the one with a constant second
layer studied by Cui et al. (2024), who state their result for proportional :math:`n, N, d`.
Their public code (GitHub SPOC-group/OneStepGD_asymptotics) fixes :math:`N = d`; it had
:math:`c_b - 1` multiplied by :math:`\mu_1^2` until a commit of 27 May 2024 (f3e92d5) removed
that factor, giving the :math:`c_b` above.  We write the fixed point out for any
:math:`\psi_2 = N/d`:

* :math:`\alpha = n/N = \psi_1/\psi_2`, penalty :math:`\lambda_C = \lambda\psi_1/\psi_2`
  (the book's :math:`(1/n)\|y-\Phi a\|^2 + (\lambda/N)\|a\|^2` times :math:`n`);
* the spectral averages are over the Marchenko-Pastur law of :math:`\Omega = c_b W_0^\top W_0`
  (ratio :math:`\psi_2`), in closed form through its Stieltjes transform;
* the two directions :math:`W v` and :math:`W\Pi\zeta` along which the spike and the teacher
  enter carry a factor :math:`\psi_2` (their squared norms are :math:`c_b\psi_2` and
  :math:`\psi_2 \mathrm{tr}\,\Omega/N`): in :math:`\theta`, in the teacher overlap
  :math:`\psi_o` and in the spike terms of :math:`q_1, q_2`.  Cui et al.'s public code has
  :math:`\psi_2 = 1` and does not need them.

Only :math:`(V_1, V_2)` solve a nonlinear equation; :math:`(m, \theta)` and :math:`(q_1, q_2)`
then follow from 2 x 2 linear systems.  All Gaussian integrals use the Gauss-Legendre rules
of :mod:`helpers.quadrature` (20 unit pieces of :math:`[-10, 10]`, 16 nodes each), split at
the activations' kinks.

This module imports only the theory side of the package (activations, argument checks,
:mod:`helpers.quadrature`, the Marchenko-Pastur law of :mod:`.rmt`).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize

from .._validation import check_array, check_nonnegative, check_positive
from ..activations import Activation, as_student, as_teacher, gaussian_expectation, is_odd
from ..quadrature import gaussian_rows, gaussian_rule
from .rmt import mp_stieltjes, mp_stieltjes_derivative
from .setting import label_second_moment

__all__ = [
    "LargeStepConvergenceError",
    "spiked_rf_parameters",
    "conditional_coefficients",
    "large_step_parts",
    "large_step_risk",
]

_L = 10.0              # Gaussian integrals over [-L, L] (tail mass < 2e-23)
_PIECES = 20           # unit-length pieces
_NODES = 16            # Gauss-Legendre nodes per piece
_TOL = 1e-11           # relative accuracy of the (V1, V2) fixed point


class LargeStepConvergenceError(RuntimeError):
    """The (V1, V2) fixed point of :func:`large_step_risk` did not converge."""


# --------------------------------------------------------------------------- input checks
def _check_odd(student: Activation):
    if not is_odd(student):
        raise ValueError(
            f"student must be odd (sigma(-z) = -sigma(z)); got {student.name!r}.  With "
            "a_i = +-1/sqrt(N) the theory reduces to a spiked random-features model with one "
            "population of neurons only for an odd student (tanh, erf, linear or an odd "
            "callable)")


# --------------------------------------------------------------------------- quadrature
def _gauss_rows(loc, scale, kinks):
    """Nodes ``z`` (M, P) and weights (Gaussian density included) to integrate
    :math:`E f(loc_j + scale\\,z)` for each row, the pieces split where the argument hits a
    kink."""
    return gaussian_rows(loc, scale, kinks, nodes=_NODES, half_width=_L, pieces=_PIECES)


def _outer_nodes(breaks=()):
    """Nodes and weights (density included) for :math:`E_{z_v}`, :math:`z_v\\sim N(0,1)`."""
    return gaussian_rule(breaks, nodes=_NODES, half_width=_L, pieces=_PIECES)


def _moments_along(act: Activation, loc, scale):
    """:math:`(E f, E zf, E f^2)` of :math:`f = act(loc + scale\\,z)` for each ``loc``."""
    z, w = _gauss_rows(loc, scale, act.kinks)
    f = act(loc[:, None] + scale * z)
    return (f * w).sum(1), (z * f * w).sum(1), (f * f * w).sum(1)


# --------------------------------------------------------------------------- parameters
def _step_constants(student: Activation, teacher: Activation, psi1, noise):
    ey2 = label_second_moment(teacher, noise=noise)
    s2 = gaussian_expectation(lambda z: (student.derivative(z) - student.mu1) ** 2,
                              student.kinks)
    length = math.sqrt(teacher.mu1**2 + ey2 / psi1)
    return ey2, s2, length


def spiked_rf_parameters(student, teacher, *, psi1, eta_scale, noise=0.0):
    r"""The spiked random-features parameters :math:`(r, c_b, \gamma)` after one large step.

    With :math:`\eta = \tilde\eta\sqrt N` and :math:`a_i = \xi_i/\sqrt N`, neuron :math:`i`
    after the step is :math:`w^1_i \approx w^0_i + b_i + \xi_i r v`, with :math:`v` the unit
    direction of :math:`X^\top y`, :math:`\|w^0_i + b_i\|^2 \to c_b` and
    :math:`\gamma = \langle\beta_*, v\rangle` (see the module docstring for the formulas).

    Parameters
    ----------
    student, teacher : str, callable or Activation
    psi1 : float
        :math:`n/d` of the step's batch (> 0).
    eta_scale : float or 1-d array
        :math:`\tilde\eta = \eta/\sqrt N` (>= 0).
    noise : float
        Label-noise standard deviation (>= 0).

    Returns
    -------
    r, c_b : float or ndarray (the shape of ``eta_scale``)
    gamma : float
    """
    s = as_student(student)
    t = as_teacher(teacher)
    psi1 = float(check_positive("psi1", psi1))
    noise = float(check_nonnegative("noise", noise))
    eta = check_array("eta_scale", eta_scale, positive=False)
    ey2, s2, length = _step_constants(s, t, psi1, noise)
    r = eta * s.mu1 * length
    cb = 1.0 + eta**2 * ey2 * s2 / psi1
    gamma = t.mu1 / length
    if eta.ndim == 0:
        return float(r), float(cb), float(gamma)
    return r, cb, float(gamma)


def conditional_coefficients(student, z_v, *, r, c_b):
    r"""The conditional Gaussian-equivalent coefficients of :math:`\sigma(rz_v +
    \sqrt{c_b}z)` given :math:`z_v`:

    :math:`\mu_0(z_v) = E\sigma`, :math:`\mu_1(z_v) = E[z\sigma]/\sqrt{c_b}`
    (:math:`= E\sigma'`), :math:`\mu_2^2(z_v) = E\sigma^2 - \mu_0^2 - c_b\mu_1^2`.

    Returns three arrays of the shape of ``z_v`` (the third is :math:`\mu_2^2`).
    """
    act = as_student(student)
    r = float(check_nonnegative("r", r))
    c_b = float(check_positive("c_b", c_b))
    k = np.asarray(z_v, dtype=float)
    sb = math.sqrt(c_b)
    m0, m1, m2 = _moments_along(act, r * k.reshape(-1), sb)
    m1 = m1 / sb
    mu2sq = np.maximum(m2 - m0**2 - c_b * m1**2, 0.0)
    return m0.reshape(k.shape), m1.reshape(k.shape), mu2sq.reshape(k.shape)


# --------------------------------------------------------------------------- MP averages
def _mp_moment(m: int, ratio: float) -> float:
    """:math:`E x^m` under MP(ratio), unit variance (Narayana polynomials)."""
    if m == 0:
        return 1.0
    return sum(ratio**k / (k + 1) * math.comb(m, k) * math.comb(m - 1, k) for k in range(m))


_SERIES_TERMS = 10


def _mp_averages(lam_eff, vh1, c_b, psi2):
    r"""Averages over :math:`D \sim c_b\,\mathrm{MP}(\psi_2)` with :math:`S = \lambda' +
    \hat V_1 D`: returns :math:`E[1/S], E[D/S], E[1/S^2], E[D/S^2], E[D^2/S^2]`.

    Closed forms in the Stieltjes transform; when :math:`\hat V_1 D \ll \lambda'` on the
    whole support (where those forms cancel), a series in the moments of the law."""
    b = vh1 * c_b
    eps = b / lam_eff
    if eps * (1.0 + math.sqrt(psi2)) ** 2 < 1e-3:
        def avg(j, k):
            tot = sum((-1) ** m * math.comb(k + m - 1, m) * eps**m * _mp_moment(j + m, psi2)
                      for m in range(_SERIES_TERMS))
            return c_b**j * tot / lam_eff**k
        return avg(0, 1), avg(1, 1), avg(0, 2), avg(1, 2), avg(2, 2)
    z = -lam_eff / b
    i0 = float(mp_stieltjes(z, psi2)) / b
    j0 = float(mp_stieltjes_derivative(z, psi2)) / b**2
    i1 = (1.0 - lam_eff * i0) / vh1
    j1 = (i0 - lam_eff * j0) / vh1
    j2 = (i1 - lam_eff * j1) / vh1
    return i0, i1, j0, j1, j2


# --------------------------------------------------------------------------- the solve
class _NodeTables:
    r"""Everything the fixed point needs on the outer nodes (values of :math:`z_v`) for one
    eta_scale (independent of lambda): nodes and weights, the conditional coefficients
    ``M0, M1, M2`` and the teacher's moments ``H, H1, HH`` along :math:`v`."""

    def __init__(self, student, teacher, *, r, c_b, gamma):
        rho = math.sqrt(max(1.0 - gamma * gamma, 0.0))
        breaks = [kk / gamma for kk in teacher.kinks] if gamma > 0 else []
        self.k, self.w = _outer_nodes(breaks)
        self.M0, self.M1, self.M2 = conditional_coefficients(student, self.k, r=r, c_b=c_b)
        if rho > 0:
            h, h1, hh = _moments_along(teacher, gamma * self.k, rho)
        else:
            f = teacher(self.k)
            h, h1, hh = f, np.zeros_like(f), f * f
        self.H, self.H1, self.HH = h, h1, hh
        self.c_b = c_b


def _solve_V(P: _NodeTables, alpha, lam_eff, psi2):
    r"""The 2-d fixed point :math:`(V_1, V_2) \leftrightarrow (\hat V_1, \hat V_2)`: damped
    iteration to relative accuracy ``_TOL``, finished by a root finder when it is slow (tiny
    :math:`\lambda`); raises :class:`LargeStepConvergenceError` if neither converges."""
    A1, A2, w = P.M1**2, P.M2, P.w

    def hats(V):
        g = w / (1.0 + A1 * V[0] + A2 * V[1])
        return alpha * np.dot(g, A1), alpha * np.dot(g, A2)

    def entropic(vh):
        i0, i1, *_ = _mp_averages(lam_eff + vh[1], vh[0], P.c_b, psi2)
        return np.array([i1, i0])

    V = entropic((0.0, 0.0))
    for _ in range(2000):
        new = entropic(hats(V))
        err = np.max(np.abs(new - V) / np.maximum(np.abs(new), 1e-300))
        V = 0.5 * (V + new) if err > 1e-3 else new
        if err < _TOL:
            return V, hats(V)
    # the plain iteration can be slow when lambda is tiny: finish with a root finder
    sol = optimize.root(lambda x: entropic(hats(np.exp(x))) / np.exp(x) - 1.0, np.log(V),
                        method="hybr", tol=1e-14)
    V = np.exp(sol.x)
    res = np.max(np.abs(entropic(hats(V)) / V - 1.0))
    if not np.isfinite(res) or res > 1e-9:
        raise LargeStepConvergenceError(
            f"the (V1, V2) fixed point did not converge (relative residual {res:.1e}) at "
            f"lambda_C = {lam_eff:g}, alpha = {alpha:g}, psi2 = {psi2:g}; try a larger lam")
    return V, hats(V)


def _solve(P: _NodeTables, *, alpha, lam_eff, psi2, noise):
    r"""The replica-symmetric fixed point at one (eta_scale, lambda), and the risk.

    The equations are the saddle point of Cui et al. (2024), the fixed point their "Result
    3.3" names (README of their code, ``theory.ipynb``), in this book's conventions with the
    factors of :math:`\psi_2` written out (chapter 5, "Derivation sketch": the order
    parameters :math:`m, \theta, \psi_o, q_1, q_2` and the three quadratic forms that carry
    :math:`\psi_2`).  With :math:`z_v` on the outer nodes, the conditional coefficients
    :math:`\mu_j(z_v)` (``M0, M1``, ``M2`` = :math:`\mu_2^2`) and the teacher's moments
    along :math:`v` (``H`` = :math:`E[f_*\mid z_v]`, ``H1``, ``HH``):

    1. :math:`(V_1, V_2)` and their conjugates :math:`(\hat V_1, \hat V_2)` from
       :func:`_solve_V` (energetic half: a weighted average over :math:`z_v` of
       :math:`\mu_1^2, \mu_2^2` against :math:`1 + \mu_1^2V_1 + \mu_2^2V_2`; entropic half:
       Marchenko-Pastur averages of :math:`S^{-1}`, :math:`S = \lambda_C + \hat V_2 +
       \hat V_1\Omega`, :func:`_mp_averages`);
    2. the mean and spike weights :math:`(m, \theta)` from a 2 x 2 linear system, with
       :math:`\theta = c_b\psi_2V_2\hat\theta` (:math:`\|Wv\|^2 \to c_b\psi_2`); :math:`m`
       is unpenalised (the mean feature has norm :math:`\sqrt N`);
    3. :math:`\psi_o = \psi_2 V_1\hat\psi` (the teacher's part orthogonal to :math:`v`);
    4. :math:`(q_1, q_2)` from :math:`\hat q = a_0 + A q`, :math:`q = B\hat q + b_0`, the
       spike terms of :math:`b_0` carrying :math:`\psi_2`;
    5. the risk :math:`E_z_v[H\!H + c^2 - 2cH - 2\mu_1\psi_oH_1 + \mu_1^2q_1 + \mu_2^2q_2]`
       with :math:`c = \mu_0 m + \mu_1z_v\theta`.

    At :math:`\psi_2 = 1` these are Cui et al.'s equations term by term (asserted by
    ``tests/test_large_step.py`` against a transcription of their code).
    """
    (V1, V2), (vh1, vh2) = _solve_V(P, alpha, lam_eff, psi2)
    k, w, M0, M1, M2 = P.k, P.w, P.M0, P.M1, P.M2
    Vk = M1**2 * V1 + M2 * V2
    g = w / (1.0 + Vk)
    i0, i1, j0, j1, j2 = _mp_averages(lam_eff + vh2, vh1, P.c_b, psi2)
    T = P.c_b * psi2 * V2            # theta = T * theta_hat     (psi2: |W v|^2 = c_b psi2)
    # (m, theta): m unpenalised (the feature mean has norm sqrt(N)), theta linear
    a11 = np.dot(g, M0 * M0)
    if a11 > 1e-14 * max(1.0, np.dot(g, M1 * M1)):
        A = np.array([[a11, np.dot(g, M0 * M1 * k)],
                      [alpha * T * np.dot(g, k * M1 * M0),
                       1.0 + alpha * T * np.dot(g, (k * M1) ** 2)]])
        b = np.array([np.dot(g, M0 * P.H), alpha * T * np.dot(g, k * M1 * P.H)])
        m, theta = np.linalg.solve(A, b)
    else:   # mu0(z_v) = 0: no mean direction (eta = 0 with an odd student)
        m = 0.0
        theta = (alpha * T * np.dot(g, k * M1 * P.H)
                 / (1.0 + alpha * T * np.dot(g, (k * M1) ** 2)))
    c = M0 * m + M1 * k * theta
    th_hat = alpha * np.dot(g, k * M1 * (P.H - c))
    ps_hat = alpha * np.dot(g, M1 * P.H1)
    psi_o = ps_hat * psi2 * i1      # psi2: |W Pi zeta|^2 -> psi2 tr(Omega)/N
    # (q1, q2): q_hat = a0 + A q and q = B q_hat + b0
    base = P.HH + noise**2 + c * c - 2.0 * c * P.H - 2.0 * M1 * psi_o * P.H1
    g2 = w / (1.0 + Vk) ** 2
    a0 = alpha * np.array([np.dot(g2, M1**2 * base), np.dot(g2, M2 * base)])
    Aq = alpha * np.array([[np.dot(g2, M1**4), np.dot(g2, M1**2 * M2)],
                           [np.dot(g2, M1**2 * M2), np.dot(g2, M2 * M2)]])
    B = np.array([[j2, j1], [j1, j0]])
    b0 = np.array([th_hat**2 * P.c_b * psi2 * j1 + ps_hat**2 * psi2 * j2,
                   th_hat**2 * P.c_b * psi2 * j0 + ps_hat**2 * psi2 * j1])
    q1, q2 = np.linalg.solve(np.eye(2) - B @ Aq, B @ a0 + b0)
    risk = np.dot(w, P.HH + c * c - 2.0 * c * P.H - 2.0 * M1 * psi_o * P.H1
                  + M1**2 * q1 + M2 * q2)
    return dict(risk=float(risk), m=float(m), theta=float(theta), psi_o=float(psi_o),
                q1=float(q1), q2=float(q2), V1=float(V1), V2=float(V2))


def large_step_parts(student, teacher, *, psi1, psi2, lam, eta_scale, noise=0.0) -> dict:
    r"""The risk and the order parameters of :func:`large_step_risk`.

    Returns a dict of arrays broadcast over ``eta_scale`` and ``lam`` with keys ``risk``,
    ``m``, ``theta``, ``psi_o``, ``q1``, ``q2``, ``V1``, ``V2``, ``r``, ``c_b`` and the float
    ``gamma``.
    """
    s = as_student(student)
    t = as_teacher(teacher)
    psi1 = float(check_positive("psi1", psi1))
    psi2 = float(check_positive("psi2", psi2))
    noise = float(check_nonnegative("noise", noise))
    lam = check_array("lam", lam, positive=True)
    eta = check_array("eta_scale", eta_scale, positive=False)
    _check_odd(s)
    eta_b, lam_b = np.broadcast_arrays(eta, lam)
    r, cb, gamma = spiked_rf_parameters(s, t, psi1=psi1, eta_scale=np.unique(eta_b),
                                        noise=noise)
    alpha = psi1 / psi2
    keys = ("risk", "m", "theta", "psi_o", "q1", "q2", "V1", "V2", "r", "c_b")
    out = {key: np.empty(eta_b.shape) for key in keys}
    points = {}
    for idx in np.ndindex(eta_b.shape):
        e = float(eta_b[idx])
        if e not in points:
            j = int(np.searchsorted(np.unique(eta_b), e))
            points[e] = (_NodeTables(s, t, r=float(r[j]), c_b=float(cb[j]), gamma=gamma),
                         float(r[j]), float(cb[j]))
        P, rj, cj = points[e]
        res = _solve(P, alpha=alpha, lam_eff=float(lam_b[idx]) * alpha, psi2=psi2,
                     noise=noise)
        res.update(r=rj, c_b=cj)
        for key in keys:
            out[key][idx] = res[key]
    out["gamma"] = gamma
    return out


def large_step_risk(student, teacher, *, psi1, psi2, lam, eta_scale, noise=0.0):
    r"""Asymptotic prediction risk of ridge on the features after one large step.

    The limit :math:`n, d, N\to\infty` with :math:`n/d = \psi_1` samples in each stage,
    :math:`N/d = \psi_2` neurons, step :math:`\eta = \tilde\eta\sqrt N` (``eta_scale``
    :math:`=\tilde\eta`) from :math:`W_0` with a second layer :math:`a_i = \pm 1/\sqrt N`, then
    ridge :math:`\frac1n\|y-\Phi a\|^2 + \frac{\lambda}{N}\|a\|^2` on fresh data.  Computed
    from the spiked random-features model and its conditional Gaussian equivalent (Cui et
    al. 2024), with Marchenko-Pastur integrals in closed form (see the module docstring for
    the factors :math:`\psi_2` that differ from their code).

    ``eta_scale = 0`` gives the random-features risk (``mei_montanari_risk``).  The map is not
    continuous there when :math:`\mu_1\mu_1^* \ne 0`: for any :math:`\tilde\eta > 0` the
    coordinate :math:`z_v` enters the features through :math:`\mu_0(z_v)`, which the
    unpenalised mean direction of the readout fits for free.

    Parameters
    ----------
    student : str, callable or Activation
        An odd activation (raises ``ValueError`` otherwise; see the module docstring).
    teacher : str, callable or Activation
        The teacher link (centred, as everywhere in the book).
    psi1, psi2 : float
        :math:`n/d` and :math:`N/d`, > 0.
    lam : float or 1-d array
        Ridge penalties (> 0) in the book's scaling.
    eta_scale : float or 1-d array
        :math:`\tilde\eta = \eta/\sqrt N \ge 0`; broadcasts against ``lam``.
    noise : float
        Label-noise standard deviation in both stages (>= 0); the risk excludes it.

    Returns
    -------
    float or ndarray
        A float when ``lam`` and ``eta_scale`` are scalars, else the broadcast array.

    Raises
    ------
    ValueError
        For bad input (names the parameter).
    LargeStepConvergenceError
        (a ``RuntimeError``) when the fixed point does not converge.
    """
    risk = large_step_parts(student, teacher, psi1=psi1, psi2=psi2, lam=lam,
                            eta_scale=eta_scale, noise=noise)["risk"]
    return float(risk) if risk.ndim == 0 else risk
