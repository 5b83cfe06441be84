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
independent of everything else (Dandi et al. 2025, arXiv:2410.18938, prove this equivalence
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
* the traces of :math:`S^{-1}` are averages over the Marchenko-Pastur law of
  :math:`\Omega = c_b W_0^\top W_0` (ratio :math:`\psi_2`);
* the two directions :math:`W v` and :math:`W\Pi\zeta` along which the spike and the teacher
  enter carry a factor :math:`\psi_2` (their squared norms are :math:`c_b\psi_2` and
  :math:`\psi_2 \mathrm{tr}\,\Omega/N`): in :math:`\theta`, in the teacher overlap
  :math:`\psi_o` and in the spike terms of :math:`q_1, q_2`.  Cui et al.'s public code has
  :math:`\psi_2 = 1` and does not need them.

**One solver, by populations.**  With :math:`\xi_i = \sqrt N a_i` of several sizes
(``second_layer="gaussian"`` or ``(magnitudes, weights)``), neuron :math:`i` computes about
:math:`\sigma(\sqrt{1 + \xi_i^2(c_b - 1)}\langle w_i, x\rangle + \xi_i r z_v)`: the neurons
form populations by :math:`|\xi_i|` (signs absorbed as above), population :math:`j` with
magnitude :math:`x_j` and probability :math:`p_j`, each with its own conditional
coefficients.  The fixed point is block-structured over the :math:`J` populations:
:math:`J\times J` order parameters :math:`V_1, Q_1`, a free mean direction per population,
and a generalised Marchenko-Pastur law (:class:`_Resolvent`).  The :math:`\pm1` layer is the
case :math:`J = 1` (magnitude 1, probability 1): every block is then a number, the
generalised law is the Marchenko-Pastur law above, and the equations are chapter 5's term by
term.  The Gaussian layer is the half-normal law of :math:`|\xi|` replaced by a Gauss rule
(:func:`helpers.second_layer.half_normal_rule`).  The derivation and its checks are in
``notes/gaussian_second_layer.md``.

Only :math:`(V_1, V_2)` solve a nonlinear equation (:func:`_solve_V`); the mean and spike
weights :math:`(m, \theta)` and the second moments :math:`(Q_1, q_2)` then follow from linear
systems (:func:`_solve`; :math:`2\times2` each for one population).  All Gaussian integrals use
the Gauss-Legendre rules of :mod:`helpers.quadrature` (20 unit pieces of :math:`[-10, 10]`,
16 nodes each), split at the activations' kinks.  The tables of those integrals (the
conditional coefficients and the teacher's moments on the nodes of :math:`z_v`) are the
expensive part of a point; :func:`_tables` remembers them (the module's one cache).

This module imports only the theory side of the package (activations, argument checks,
:mod:`helpers.quadrature`).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import optimize

from .._validation import check_array, check_nonnegative, check_positive
from ..activations import Activation, as_student, as_teacher, gaussian_expectation, is_odd
from ..quadrature import gaussian_rows, gaussian_rule
from ..second_layer import DEFAULT, as_second_layer, half_normal_rule, second_layer_atoms
from .setting import label_second_moment

__all__ = [
    "LargeStepConvergenceError",
    "spiked_rf_parameters",
    "conditional_coefficients",
    "large_step_parts",
    "large_step_risk",
    "half_normal_rule",
    "second_layer_atoms",
]

_L = 10.0              # Gaussian integrals over [-L, L] (tail mass < 2e-23)
_PIECES = 20           # unit-length pieces
_NODES = 16            # Gauss-Legendre nodes per piece
_TOL = 1e-12           # relative accuracy of the (V1, V2) fixed point
_ITER = 3000           # damped iterations of the (V1, V2) fixed point before a root finder
_T_TOL = 1e-14         # relative residual of the generalised Marchenko-Pastur equation
_T_ITER = 200
_SPAN_RCOND = 1e-10    # singular values of the free mean directions kept (relative)
FINITE_WIDTH_MODELS = ("network", "residual-y", "population", "shared-batch")


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



# --------------------------------------------------------------------------- the tables
def _teacher_along_v(teacher, gamma):
    r"""The outer nodes and weights in :math:`z_v` and the teacher's moments along :math:`v`:
    :math:`H = E[f_*|z_v]`, :math:`H_1 = E[z f_*|z_v]` (:math:`z` the teacher's coordinate
    orthogonal to :math:`v`) and :math:`HH = E[f_*^2|z_v]`, with :math:`\gamma` the
    teacher's overlap with :math:`v`."""
    rho = math.sqrt(max(1.0 - gamma * gamma, 0.0))
    breaks = [kk / gamma for kk in teacher.kinks] if gamma > 0 else []
    k, w = _outer_nodes(breaks)
    if rho > 0:
        h, h1, hh = _moments_along(teacher, gamma * k, rho)
    else:
        f = teacher(k)
        h, h1, hh = f, np.zeros_like(f), f * f
    return k, w, h, h1, hh


class _Tables:
    r"""Everything the fixed point needs on the outer nodes :math:`z_v` (= :math:`\kappa`),
    for one step (:math:`r, c_b, \gamma`) and one second layer, independent of
    :math:`\psi_2` and :math:`\lambda`: the nodes ``k`` and weights ``w``; the teacher's
    moments ``H, H1, HH`` along :math:`v`; for every population :math:`j` (magnitude
    ``x[j]``, probability ``p[j]``, bulk variance ``c[j]`` :math:`= 1 + x_j^2(c_b - 1)`) the
    conditional coefficients of :math:`\sigma(x_jr\kappa + \sqrt{c_j}z)`: ``M0, M1, M2`` of
    shape (nodes, J) (``M2`` = :math:`\mu_{2,j}^2`).  The :math:`\pm1` layer is ``x = p =
    [1]``, so ``c = [c_b]``."""

    def __init__(self, student, teacher, *, r, c_b, gamma, magnitudes, weights):
        self.x, self.p = magnitudes, weights
        self.c = 1.0 + self.x**2 * (c_b - 1.0)
        self.k, self.w, self.H, self.H1, self.HH = _teacher_along_v(teacher, gamma)
        cols = [conditional_coefficients(student, self.k, r=xj * r, c_b=cj)
                for xj, cj in zip(self.x, self.c, strict=True)]
        self.M0, self.M1, self.M2 = (np.stack([col[i] for col in cols], axis=1)
                                     for i in range(3))


@functools.lru_cache(maxsize=128)
def _tables(student, teacher, r, c_b, gamma, magnitudes, weights):
    """:class:`_Tables`, remembered: the module's one cache, a speed trick and nothing more.

    The key is ``(student, teacher, r, c_b, gamma, magnitudes, weights)`` (the activations,
    the floats of :func:`spiked_rf_parameters` and the tuples of the second layer's atoms
    of positive probability).  The tables depend on (psi1, eta_scale, noise) only through
    (r, c_b, gamma), and not on psi2, lam, d or model; building them is most of the time of a
    point with few atoms, and chapter 5 asks for the same (psi1, eta_scale) at several widths
    and penalties.  At most 128 tables are kept (least recently used dropped).  Their arrays
    are made read-only, since they are shared."""
    P = _Tables(student, teacher, r=r, c_b=c_b, gamma=gamma,
                magnitudes=np.array(magnitudes), weights=np.array(weights))
    for value in vars(P).values():
        value.setflags(write=False)
    return P


# --------------------------------------------------------------------------- the resolvent
class _Resolvent:
    r"""Deterministic equivalent of :math:`R = S^{-1}`,
    :math:`S = \mathrm{diag}_j(\Lambda_j) + \sum_{jk}\hat V_{1,jk}P_j\Omega P_k`, with
    :math:`\Lambda_j = \lambda_C + \hat V_{2,j}`, :math:`\Omega = WW^\top`,
    :math:`W = D^{1/2}U` (:math:`D_{ii} = c_j` on population :math:`j`, :math:`U` with
    i.i.d. :math:`N(0, 1/d)` entries), :math:`P_j` the projection on population :math:`j`.

    With :math:`A_{jk} = \sqrt{c_jc_k}\,\hat V_{1,jk}` and :math:`T = \mathrm{diag}(t)`, the
    matrix Dyson equation of the linear pencil :math:`\begin{pmatrix}\Lambda & \tilde U^\top
    \\ \tilde U & -A^{-1}\otimes I_d\end{pmatrix}` gives

    .. math::

        t_j = \frac{\psi_2 p_j}{\Lambda_j + \sigma_j},\qquad
        \sigma_j = \big[A(I + TA)^{-1}\big]_{jj},

    (solved by Newton's method), and then

    .. math::

        V_{2,j} = \tfrac1N\mathrm{tr}\,P_jR = t_j/\psi_2,\qquad
        V_{1,jk} = \tfrac1N\mathrm{tr}\,RP_j\Omega P_k
                 = \sqrt{c_jc_k}\,\big[(I+TA)^{-1}T\big]_{jk}/\psi_2 .

    With one population this is the Marchenko-Pastur law (:math:`t = \psi_2/(\Lambda +
    A/(1 + tA))` is the quadratic equation of its Stieltjes transform); with :math:`A` of
    rank one it is the Silverstein equation of :math:`\Lambda + BUU^\top B`.
    :meth:`derivative` gives the second-order traces
    :math:`\frac1N\mathrm{tr}\,RXRY = -\partial_Y\frac1N\mathrm{tr}\,RX` by implicit
    differentiation.
    """

    def __init__(self, vh1, vh2, *, lam_eff, c, p, psi2, t0=None):
        self.C = np.sqrt(np.outer(c, c))
        self.psi2, self.p = psi2, p
        A = self.C * vh1
        Lam = lam_eff + vh2
        J = p.size
        eye = np.eye(J)
        t = psi2 * p / (Lam + np.diag(A)) if t0 is None else t0.copy()
        for _ in range(_T_ITER):
            M = np.linalg.inv(eye + t[:, None] * A)
            At = A @ M
            At = 0.5 * (At + At.T)
            den = Lam + np.diag(At)
            f = psi2 * p / den
            res = t - f
            if np.max(np.abs(res) / f) < _T_TOL:
                break
            jac = eye - (f / den)[:, None] * At**2
            step = np.linalg.solve(jac, res)
            new = t - step
            t = new if np.all(new > 0) and np.all(np.isfinite(new)) else f
        else:
            raise LargeStepConvergenceError(
                "the generalised Marchenko-Pastur equation did not converge (relative "
                f"residual {np.max(np.abs(res) / f):.1e}) at lambda_C = {lam_eff:g}")
        self.t, self.M, self.At = t, M, At
        self.Kt = M * t[None, :]                     # (I + TA)^{-1} T
        self.Kt = 0.5 * (self.Kt + self.Kt.T)
        self.jac = eye - (f / den)[:, None] * At**2
        self.omega = f / den                         # psi2 p_j / (Lam_j + sigma_j)^2
        self.V1 = self.C * self.Kt / psi2
        self.V2 = t / psi2

    def derivative(self, dvh1, dvh2):
        r"""The change of :math:`(V_1, V_2)` along directions :math:`(d\hat V_1, d\hat V_2)`
        (batched: shapes (B, J, J) and (B, J), :math:`d\hat V_1` symmetric):

        .. math::

            (I - \mathrm{diag}(\omega)(\tilde A\circ\tilde A))\,dt
                = -\omega\circ\big(d\Lambda + \mathrm{diag}(M^\top dA\,M)\big),\qquad
            dK = M\,dT\,M^\top - K\,dA\,K,

        with :math:`M = (I+TA)^{-1}`, :math:`\tilde A = AM`, :math:`K = MT`,
        :math:`\omega_j = \psi_2p_j/(\Lambda_j+\sigma_j)^2`; then :math:`dV_2 = dt/\psi_2`,
        :math:`dV_{1,jk} = \sqrt{c_jc_k}\,dK_{jk}/\psi_2`.  Minus this is the matrix of
        second-order traces :math:`\frac1N\mathrm{tr}\,RXRY`."""
        dA = self.C[None] * dvh1
        M, K = self.M, self.Kt
        rhs = dvh2 + np.sum((dA @ M) * M, axis=1)             # diag(M^T dA M)
        dt = -np.linalg.solve(self.jac, (self.omega[None, :] * rhs).T).T
        dK = (M * dt[:, None, :]) @ M.T - K @ dA @ K
        return self.C[None] * dK / self.psi2, dt / self.psi2


# --------------------------------------------------------------------------- the solve
def _energetic_v(P, V1, V2):
    r""":math:`V(\kappa) = \sum_{jk}\mu_{1,j}\mu_{1,k}V_{1,jk} + \sum_j\mu_{2,j}^2V_{2,j}`
    on the outer nodes."""
    return np.sum((P.M1 @ V1) * P.M1, axis=1) + P.M2 @ V2


def _solve_V(P: _Tables, alpha, lam_eff, psi2):
    r"""The fixed point :math:`(V_1, V_2)\leftrightarrow(\hat V_1, \hat V_2)`:

    .. math::

        g(\kappa) = \frac{1}{1 + V(\kappa)},\quad
        \hat V_{1,jk} = \alpha E_\kappa[g\,\mu_{1,j}\mu_{1,k}],\quad
        \hat V_{2,j} = \alpha E_\kappa[g\,\mu_{2,j}^2]

    (the energetic half) and :math:`(V_1, V_2)` from :class:`_Resolvent` (the entropic
    half: the traces of :math:`S^{-1}`, :math:`S = \lambda_C + \hat V_2 + \hat V_1\Omega`
    for one population).  Damped iteration to the relative accuracy ``_TOL`` on
    :math:`V(\kappa)`, finished by a root finder when it is slow (tiny :math:`\lambda`);
    raises :class:`LargeStepConvergenceError` if neither converges.  Returns the resolvent,
    :math:`(\hat V_1, \hat V_2)` and :math:`V(\kappa)`."""
    J = P.p.size
    iu = np.triu_indices(J)

    def hats(Vk):
        g = P.w / (1.0 + Vk)
        return alpha * (P.M1 * g[:, None]).T @ P.M1, alpha * g @ P.M2

    def resolvent(vh, t0=None):
        return _Resolvent(*vh, lam_eff=lam_eff, c=P.c, p=P.p, psi2=psi2, t0=t0)

    R = resolvent((np.zeros((J, J)), np.zeros(J)))
    V1, V2 = R.V1, R.V2
    Vk = _energetic_v(P, V1, V2)
    for _ in range(_ITER):
        vh = hats(Vk)
        R = resolvent(vh, R.t)
        new = _energetic_v(P, R.V1, R.V2)
        err = np.max(np.abs(new - Vk) / new)
        if err < _TOL:
            return R, vh, new
        if err > 1e-3:
            V1, V2 = 0.5 * (V1 + R.V1), 0.5 * (V2 + R.V2)
        else:
            V1, V2 = R.V1, R.V2
        Vk = _energetic_v(P, V1, V2)

    def unpack(x):
        V1 = np.zeros((J, J))
        V1[iu] = x[:iu[0].size]
        V1 = V1 + np.triu(V1, 1).T
        return V1, x[iu[0].size:]

    def residual(x):
        Rx = resolvent(hats(_energetic_v(P, *unpack(x))), R.t)
        return np.concatenate([Rx.V1[iu], Rx.V2]) - x

    sol = optimize.root(residual, np.concatenate([V1[iu], V2]), method="hybr", tol=1e-14)
    Vk = _energetic_v(P, *unpack(sol.x))
    vh = hats(Vk)
    R = resolvent(vh, R.t)
    new = _energetic_v(P, R.V1, R.V2)
    res = np.max(np.abs(new - Vk) / new)
    if not np.isfinite(res) or res > 1e-9:
        raise LargeStepConvergenceError(
            f"the (V1, V2) fixed point with {J} population{'s' if J > 1 else ''} did not "
            f"converge (relative residual {res:.1e}) at lambda_C = {lam_eff:g}, "
            f"alpha = {alpha:g}, psi2 = {psi2:g}; try a larger lam")
    return R, vh, new


def _solve(P: _Tables, *, alpha, lam_eff, psi2, noise, width=None, contraction=None,
           anisotropy=None):
    r"""The replica-symmetric fixed point at one (eta_scale, lambda), and the risk.

    The equations are the saddle point of Cui et al. (2024), the fixed point their "Result
    3.3" names (README of their code, ``theory.ipynb``), in this book's conventions with the
    factors of :math:`\psi_2` written out (chapter 5, "Derivation sketch"), for :math:`J`
    populations (``notes/gaussian_second_layer.md``).  Given :math:`\kappa = z_v`, neuron
    :math:`i` of population :math:`j` is replaced by :math:`\mu_{0,j}(\kappa) +
    \mu_{1,j}(\kappa)\langle W_i, x\rangle + \mu_{2,j}(\kappa)z_i`; the readout's prediction is
    :math:`c(\kappa)` plus a Gaussian field of variance
    :math:`\sum_{jk}\mu_{1,j}\mu_{1,k}Q_{1,jk} + \sum_j\mu_{2,j}^2q_{2,j}`, with

    .. math::

        c(\kappa) = \sum_j\mu_{0,j}(\kappa)m_j + \kappa\sum_j\mu_{1,j}(\kappa)\theta_j .

    1. :math:`(V_1, V_2)`, :math:`g = 1/(1+V(\kappa))`: :func:`_solve_V`;
    2. :math:`m_j` unpenalised (each population's mean feature has norm
       :math:`\sqrt{N_j}`): :math:`E[g\,\mu_{0,j}(H - c)] = 0` for every :math:`j`, i.e.
       :math:`c - \kappa\mu_1\cdot\theta` is the :math:`g`-weighted projection of
       :math:`H - \kappa\mu_1\cdot\theta` on the span of the :math:`\mu_{0,j}` (computed
       with an SVD: with many atoms the :math:`\mu_{0,j}` are nearly dependent; with
       :math:`\mu_0 \equiv 0`, at :math:`\tilde\eta = 0` for an odd student, the span is
       empty and :math:`m = 0`); :math:`\theta_j = c_j\psi_2V_{2,j}\hat\theta_j`
       (:math:`\|P_jWv\|^2 \to c_j\psi_2p_j`),
       :math:`\hat\theta_j = \alpha E[g\,\kappa\mu_{1,j}(H - c)]`;
    3. :math:`\psi_o = \psi_2V_1\hat\psi`, :math:`\hat\psi_j = \alpha E[g\,\mu_{1,j}H_1]`
       (the teacher's part orthogonal to :math:`v`);
    4. :math:`q = (Q_1, q_2) = -\mathcal L(\hat q + b)` with :math:`\mathcal L` the
       derivative of :class:`_Resolvent`, :math:`b = \psi_2(\hat\psi\hat\psi^\top,\
       c\circ\hat\theta^2)` (the teacher's and the spike's directions) and
       :math:`\hat q = \alpha E[g^2 v(\kappa)\,e(\kappa)]`,
       :math:`v = (\mu_1\mu_1^\top, \mu_2^2)`, :math:`e = H\!H + \text{noise}^2 + c^2 - 2cH
       - 2H_1\mu_1\cdot\psi_o + v\cdot q`: linear in :math:`q`, solved for the upper
       triangle of :math:`Q_1` and :math:`q_2` (:math:`J(J+1)/2 + J` unknowns; with one
       population the :math:`2\times2` system of chapter 5, whose matrix holds the traces
       :math:`\frac1N\mathrm{tr}\,\Omega^aS^{-2}`);
    5. the risk :math:`E_\kappa[H\!H + c^2 - 2cH - 2H_1\mu_1\cdot\psi_o + v\cdot q]`.

    At :math:`\psi_2 = 1` with one population these are Cui et al.'s equations term by term
    (asserted by ``tests/test_large_step.py`` against a transcription of their code).

    ``width`` :math:`= N` (finite; ``None`` for the limit) keeps :math:`N` finite in the one
    place where the limit drops it (ours, a derivation; ``notes/gaussian_second_layer.md``,
    section 10).  The mean direction :math:`1_j` of population :math:`j` is treated as the
    spike direction :math:`P_jWv` is: a generic vector of population :math:`j`'s
    coordinates, so :math:`1_j^\top S^{-1}1_j = N_jV_{2,j}/p_j` and
    :math:`m_j = NV_{2,j}\hat m_j` with :math:`\hat m_j = \alpha E[g\,\mu_{0,j}(H - c)]`
    (the limit has :math:`\hat m_j\to 0`: a projection).  So
    :math:`E[g\,\mu_{0,j}(H - c)] = \rho_jm_j`, :math:`\rho_j = 1/(\alpha NV_{2,j})`
    (a ridge instead of a projection), and the direction adds
    :math:`\|\hat m_j1_j\|^2/p_j = N\hat m_j^2` to the source :math:`b_2` of step 4, as
    the spike adds :math:`\psi_2c_j\hat\theta_j^2`.

    ``contraction`` (with ``width`` only): the network's initial output in the step
    (:func:`_mean_direction_change`), a :math:`J\times J` matrix :math:`E^2` that
    changes the bulk's variance along one direction of the span of the :math:`1_j`; the mean
    directions' metric :math:`G_{jk} = 1_j^\top S^{-1}1_k/N` is then no longer
    :math:`\mathrm{diag}(V_2)` but :class:`_MeanMetric`'s: :math:`m = NG\hat m`, the penalty
    is the matrix :math:`(\alpha NG)^{-1}`, and the second-moment source is the gradient of
    :math:`N\hat m^\top G\hat m` in :math:`(\hat V_1, \hat V_2)` (with :math:`E^2 = I`,
    the lines above; ``notes/gaussian_second_layer.md``, section 11).

    ``anisotropy`` :math:`= (k_\perp, k_v)` (arrays over populations; ``None``: ones): the
    bulk's variance along :math:`\beta_\perp` and along :math:`v`, relative to the isotropic
    one (:func:`_shared_batch_ratios`; ours, a derivation, ``notes/shared_batch.md``).  The
    teacher's orthogonal direction has loading vectors :math:`W_eD`,
    :math:`D = \mathrm{diag}(\sqrt{k_\perp})`, and its own term in :math:`S` changes with
    them; by Woodbury the readout answers as to an isotropic direction with the source
    :math:`F\hat\psi`, :math:`F = (I + (D\hat V_1D - \hat V_1)\psi_2V_1)^{-1}D`: so
    :math:`\psi_o = D\psi_2V_1F\hat\psi` and the source is
    :math:`\psi_2(F\hat\psi)(F\hat\psi)^\top`.  The spike direction's variance
    :math:`c_j` becomes :math:`c_jk_{v,j}` in :math:`T` and in its source (its own term is
    already explicit in the equation for :math:`\theta`).
    """
    kperp, kv = (np.ones(P.p.size), np.ones(P.p.size)) if anisotropy is None else anisotropy
    sk = np.sqrt(kperp)
    R, (vh1, vh2), Vk = _solve_V(P, alpha, lam_eff, psi2)
    k, w, M0, M1, M2 = P.k, P.w, P.M0, P.M1, P.M2
    J = P.p.size
    g = w / (1.0 + Vk)
    sq = np.sqrt(g)
    # 2. the mean directions (free as N -> infinity; a ridge at finite N) and theta
    F0 = sq[:, None] * M0
    if width is None:
        U, s, _ = np.linalg.svd(F0, full_matrices=False)
        floor = 1e-14 * max(1.0, float(np.sum(g[:, None] * M1 * M1)))
        keep = (s * s > floor) & (s > _SPAN_RCOND * s[0])
        U = U[:, keep]

        def off_span(X):
            return X - U @ (U.T @ X)
    else:
        metric = _MeanMetric(R, lam_eff + vh2, P.p, contraction)
        gram = F0.T @ F0 + np.linalg.inv(alpha * width * metric.G)   # penalty (alpha N G)^-1

        def off_span(X):
            return X - F0 @ np.linalg.solve(gram, F0.T @ X)

    Bt = sq[:, None] * (k[:, None] * M1)
    Ht = sq * P.H
    T = P.c * kv * psi2 * R.V2
    lhs = np.eye(J) + alpha * T[:, None] * (Bt.T @ off_span(Bt))
    theta = np.linalg.solve(lhs, alpha * T * (Bt.T @ off_span(Ht)))
    resid = off_span(Ht - Bt @ theta)                  # sqrt(g) (H - c)
    c = P.H - resid / sq
    iu = np.triu_indices(J)
    if width is None:
        m = np.linalg.lstsq(F0, Ht - Bt @ theta - resid, rcond=_SPAN_RCOND)[0]
        src = np.zeros(iu[0].size + J)
    else:
        m = np.linalg.solve(gram, F0.T @ (Ht - Bt @ theta))
        src1, src2 = metric.source(width, alpha * (F0.T @ resid))   # m_hat = alpha E[g mu0 (H-c)]
        src = np.concatenate([src1[iu], src2])
    th_hat = alpha * (Bt.T @ resid)
    # 3. the teacher's part orthogonal to v
    ps_hat = alpha * ((g * P.H1) @ M1)
    # along beta_perp the loading vectors are W_e D, D = diag(sqrt(k_perp)); the direction's
    # own term in S changes by W_e (D V1_hat D - V1_hat) W_e^T, so (Woodbury) the readout's
    # response is that of the isotropic direction to the source F psi_hat, F = (I + Delta
    # Psi)^-1 D with Psi = W_e^T S^-1 W_e = psi2 V1 (notes/shared_batch.md)
    Psi = psi2 * R.V1
    F = np.linalg.solve(np.eye(J) + (sk[:, None] * vh1 * sk[None, :] - vh1) @ Psi,
                        np.diag(sk))
    ps_eq = F @ ps_hat
    psi = sk * (Psi @ ps_eq)
    cross = M1 @ psi
    # 4. (Q1, q2) in coordinates x = (Q1[iu], q2); a direction (dV1_hat, dV2_hat) in the
    #    coordinates (dV1_hat[iu], dV2_hat) of the basis E_jk + E_kj (j < k), E_jj, e_j
    n = iu[0].size + J
    basis1, basis2 = np.zeros((n, J, J)), np.zeros((n, J))
    basis1[np.arange(iu[0].size), iu[0], iu[1]] = 1.0
    basis1[np.arange(iu[0].size), iu[1], iu[0]] = 1.0
    basis2[np.arange(iu[0].size, n), np.arange(J)] = 1.0
    dV1, dV2 = R.derivative(basis1, basis2)
    L = np.concatenate([dV1[:, iu[0], iu[1]], dV2], axis=1).T       # column i: L(basis_i)
    v = np.concatenate([M1[:, iu[0]] * M1[:, iu[1]], M2], axis=1)   # v(kappa), coordinates
    pair = v * np.concatenate([np.where(iu[0] == iu[1], 1.0, 2.0), np.ones(J)])
    #      v(kappa) . q = pair @ x (an entry of Q1 off the diagonal counts twice)
    base = P.HH + noise**2 + c * c - 2.0 * c * P.H - 2.0 * P.H1 * cross
    g2 = w / (1.0 + Vk) ** 2
    b = psi2 * np.concatenate([np.outer(ps_eq, ps_eq)[iu], P.c * kv * th_hat**2])
    x = np.linalg.solve(np.eye(n) + alpha * L @ (v.T * g2) @ pair,
                        -L @ (alpha * v.T @ (g2 * base) + b) - src)
    q1 = np.zeros((J, J))
    q1[iu] = x[:iu[0].size]
    q1 = q1 + np.triu(q1, 1).T
    risk = np.dot(w, P.HH + c * c - 2.0 * c * P.H - 2.0 * P.H1 * cross + pair @ x)
    return dict(risk=float(risk), m=m, theta=theta, psi_o=psi, q1=q1, q2=x[iu[0].size:],
                V1=R.V1, V2=R.V2)


class _MeanMetric:
    r"""The readout's mean directions at finite width: the metric
    :math:`G_{jk} = 1_j^\top S^{-1}1_k/N` and the gradient of :math:`N\hat m^\top G\hat m`.

    The bulk's row covariance in neuron space may be changed along one direction of the span
    of the :math:`1_j`: ``E2`` :math:`= E^2` in the basis :math:`1_j/\sqrt{N_j}`
    (``None``: :math:`E = I`).  The Schur complement of :math:`S` on that span is
    :math:`C_{jk} = \Lambda_j\delta_{jk} + g_j'^\top\mathcal M_{jk}g_k'`, with
    :math:`g_j'` the bulk's columns along :math:`1_j/\sqrt{N_j}` and :math:`\mathcal M`
    independent of them with block traces :math:`\Sigma = A(I + TA)^{-1}` (the resolvent's
    self-energy, :class:`_Resolvent`).  Unchanged, the :math:`g_j` are independent
    :math:`N(0, I/d)` and :math:`C = \mathrm{diag}(\Lambda + \mathrm{diag}\,\Sigma)`; as
    :math:`g' = Eg` they give

    .. math::

        C = \mathrm{diag}(\Lambda) + E^2\circ\Sigma,\qquad
        G = D_p^{1/2}C^{-1}D_p^{1/2}

    (:math:`E^2 = I` gives :math:`G = \mathrm{diag}(V_2)`).
    """

    def __init__(self, R, Lam, p, E2=None):
        self.R = R
        self.E2 = np.eye(p.size) if E2 is None else E2
        self.sp = np.sqrt(p)
        self.Cinv = np.linalg.inv(np.diag(Lam) + self.E2 * R.At)
        self.G = self.sp[:, None] * self.Cinv * self.sp[None, :]

    def source(self, width, m_hat):
        r"""The gradient of :math:`N\hat m^\top G\hat m` in :math:`(\hat V_1, \hat V_2)`
        (the mean direction's part of the source of the second moments).

        With :math:`w = C^{-1}D_p^{1/2}\hat m` and :math:`W = E^2\circ ww^\top`:
        :math:`dC = \mathrm{diag}(d\Lambda) + E^2\circ d\Sigma`,
        :math:`d\Sigma = M^\top dA\,M - \Sigma\,dT\,\Sigma` and :math:`dt` from the
        equation of :meth:`_Resolvent.derivative` give :math:`-N(w\circ w + \zeta)` in
        :math:`\hat V_2` and :math:`-N\,C_c\circ M(W + \mathrm{diag}\,\zeta)M^\top` in
        :math:`\hat V_1`, with :math:`\zeta = \omega\circ J^{-\top}\mathrm{diag}(\Sigma
        W\Sigma)` and :math:`C_c = (\sqrt{c_jc_k})`.
        """
        R = self.R
        w = self.Cinv @ (self.sp * m_hat)
        Wm = self.E2 * np.outer(w, w)
        z = np.einsum("jk,kl,lj->j", R.At, Wm, R.At)
        zeta = R.omega * np.linalg.solve(R.jac.T, z)
        g1 = -width * R.C * (R.M @ (Wm + np.diag(zeta)) @ R.M.T)
        g2 = -width * (w * w + zeta)
        return g1, g2



def _step_noise_constants(s, t, noise):
    r""":math:`(E y^2, E\sigma^2, (E\sigma^{(3)})^2)`, with :math:`E\sigma^{(3)} =
    E[\sigma'(z)(z^2 - 1)]` (Stein's lemma twice; no third derivative needed)."""
    ey2 = label_second_moment(t, noise=noise)
    e_s2 = gaussian_expectation(lambda z: s(z) ** 2, s.kinks)
    e3 = gaussian_expectation(lambda z: s.derivative(z) * (z * z - 1.0), s.kinks)
    return ey2, e_s2, e3 * e3


def _mean_direction_change(mu1, constants, *, psi1, psi2, eta_scale, x, p, c_b, model):
    r"""How the step changes the bulk along the readout's mean direction, at finite width:
    :math:`\mathcal E^2 = I - \beta\nu\nu^\top` in the basis :math:`1_j/\sqrt{N_j}` of
    :class:`_MeanMetric` (ours, a derivation; ``notes/gaussian_second_layer.md``, section 11),
    for ``model`` "network" or "residual-y" (the population model has no change);
    ``constants`` are :func:`_step_noise_constants`'s and ``mu1`` the student's :math:`\mu_1`.

    Signs absorbed, :math:`u = |\xi|/\sqrt N`, :math:`\chi = \tilde\eta\mu_1^2`.  Two effects,
    both along :math:`u`:

    * the network's **initial output** (``model="network"``): the step's residual is
      :math:`y - f_0`, and the linear part :math:`\mu_1\langle W_0\xi/N, x\rangle` of
      :math:`f_0`, through the :math:`\mu_1` part of :math:`\sigma'`, moves neuron :math:`i`
      by :math:`-\tilde\eta\mu_1|\xi_i|\frac1nX^\top f_0(X)`: the bulk becomes
      :math:`W_0(I - \chi\,uu^\top) - \tilde\eta\mu_1\sqrt N g_3u^\top`, :math:`g_3` the
      sampling noise of :math:`\frac1nX^\top f_0` (:math:`\|g_3\|^2 \approx
      E\xi^2E\sigma^2/(N\psi_1)`);
    * the step's **correlated noise** (``"network"`` and ``"residual-y"``): the columns
      :math:`\tilde\eta\xi_i\frac1nX^\top[y\odot h_i]`, :math:`h = \sigma' - \mu_1`, are
      correlated, :math:`E[h_ih_k] \approx \frac12(E\sigma^{(3)})^2\langle w_i, w_k\rangle^2`,
      whose mean over pairs is a rank-one part along :math:`u`.

    So the bulk's row covariance in neuron space is :math:`D_c - \beta uu^\top`,
    :math:`D_c = \mathrm{diag}(1 + \xi_i^2(c_b - 1))`, with

    .. math::

        \beta = \underbrace{2\chi - \chi^2E\xi^2 - \frac{\tilde\eta^2}{\psi_1}\mu_1^2E\sigma^2
        E\xi^2}_{f_0} - \underbrace{\frac{\tilde\eta^2\psi_2}{2\psi_1}E y^2
        (E\sigma^{(3)})^2}_{\text{correlated noise}},

    and :math:`\nu_j = x_j\sqrt{p_j/c_j}`.  For the :math:`\pm1` layer the bulk's variance
    along the mean direction is :math:`c_b - \beta` instead of :math:`c_b`.
    """
    ey2, e_s2, e3sq = constants
    x2 = float(np.dot(p, x * x))
    beta = -eta_scale**2 * psi2 * ey2 * e3sq / (2.0 * psi1)          # correlated noise
    if model == "network":                                              # the initial output
        chi = eta_scale * mu1**2
        beta += 2.0 * chi - chi * chi * x2 - eta_scale**2 / psi1 * mu1**2 * e_s2 * x2
    c = 1.0 + x * x * (c_b - 1.0)
    nu = x * np.sqrt(p / c)
    return np.eye(p.size) - beta * np.outer(nu, nu)


def _shared_batch_ratios(s, t, *, psi1, noise):
    r"""The step's bulk is computed on the batch that also gives its spike direction
    :math:`v \propto X^\top y`; along :math:`v` and along :math:`\beta_\perp` (the unit part
    of :math:`\beta_*` orthogonal to :math:`v`) its variance over neurons, relative to that
    along a direction independent of the batch, is (ours, a derivation:
    ``notes/shared_batch.md``; :math:`g^2 = \psi_1\mu_1^{*2}/(Ey^2 + \psi_1\mu_1^{*2})`,
    :math:`a = Ey^4/(\psi_1Ey^2) + Ey^2`, :math:`x = 2g\sqrt{1-g^2}E[zy^3]/\sqrt{\psi_1Ey^2}`)

    .. math::

        \rho_\perp = \frac{(1-g^2)E[z^2y^2] + g^2a - x}{Ey^2},\qquad
        \rho_v = \frac{g^2E[z^2y^2] + (1-g^2)a + x}{Ey^2}
            + \frac{(E\sigma^{(3)})^2(Ey^2 + \psi_1\mu_1^{*2})}{2Ey^2E h^2},

    the last term the spread of each neuron's mean slope with :math:`\|w_i\|`
    (:math:`h = \sigma' - \mu_1`).  Returns :math:`(\rho_\perp, \rho_v)`."""
    ey2, _, e3sq = _step_noise_constants(s, t, noise)
    f2 = ey2 - noise * noise
    f4 = gaussian_expectation(lambda z: t(z) ** 4, t.kinks)
    z2f2 = gaussian_expectation(lambda z: (z * t(z)) ** 2, t.kinks)
    zf3 = gaussian_expectation(lambda z: z * t(z) ** 3, t.kinks)
    zf = t.mu1
    e2 = noise * noise
    ey4 = f4 + 6.0 * e2 * f2 + 3.0 * e2 * e2
    ez2y2 = z2f2 + e2
    ezy3 = zf3 + 3.0 * e2 * zf
    h2 = gaussian_expectation(lambda z: (s.derivative(z) - s.mu1) ** 2, s.kinks)
    g2 = psi1 * zf**2 / (ey2 + psi1 * zf**2)
    a = ey4 / (psi1 * ey2) + ey2
    x = 2.0 * math.sqrt(g2 * (1.0 - g2)) * ezy3 / math.sqrt(psi1 * ey2)
    rho_perp = ((1.0 - g2) * ez2y2 + g2 * a - x) / ey2
    rho_v = (g2 * ez2y2 + (1.0 - g2) * a + x) / ey2 + e3sq * (ey2 + psi1 * zf**2) / (
        2.0 * ey2 * h2)
    return rho_perp, rho_v


# --------------------------------------------------------------------------- the public API
def large_step_parts(student, teacher, *, psi1, psi2, lam, eta_scale, noise=0.0,
                     second_layer=DEFAULT, d=None, model="network") -> dict:
    r"""The risk and the order parameters of :func:`large_step_risk`.

    Returns a dict of arrays broadcast over ``eta_scale`` and ``lam`` with keys ``risk``,
    ``m``, ``theta``, ``psi_o``, ``q1``, ``q2``, ``V1``, ``V2``, ``r``, ``c_b`` and the float
    ``gamma``.  For ``second_layer="rademacher"`` in the limit (``d=None``) every order
    parameter is one number per point.  Otherwise (:meth:`SecondLayer.atoms`: ``J``
    populations by :math:`|\xi|`, with the keys ``magnitudes`` and ``weights`` added) ``m``,
    ``theta``, ``psi_o``, ``q2``, ``V2`` have a trailing axis of length ``J`` and ``q1``,
    ``V1`` two (the :math:`J\times J` matrices :math:`Q_1, V_1`); ``r`` and ``c_b`` are those
    of :math:`|\xi| = 1` (population :math:`j` has :math:`x_jr` and
    :math:`1 + x_j^2(c_b - 1)`).  ``d``, ``model``: as in :func:`large_step_risk`.
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
    width = None if d is None else max(1, round(psi2 * check_positive("d", d, integer=True)))
    if model not in FINITE_WIDTH_MODELS:
        raise ValueError(f"model must be one of {FINITE_WIDTH_MODELS}; got {model!r}")
    layer = as_second_layer(second_layer)
    mags, weights = layer.atoms()
    mags, weights = mags[weights > 0], weights[weights > 0]
    atoms = tuple(mags.tolist()), tuple(weights.tolist())
    etas = np.unique(eta_b)
    r, cb, gamma = spiked_rf_parameters(s, t, psi1=psi1, eta_scale=etas, noise=noise)
    constants = (None if width is None or model == "population"
                 else _step_noise_constants(s, t, noise))
    rho = (_shared_batch_ratios(s, t, psi1=psi1, noise=noise) if model == "shared-batch"
           else None)
    alpha = psi1 / psi2
    shape, J = eta_b.shape, mags.size
    out = dict(risk=np.empty(shape), r=np.empty(shape), c_b=np.empty(shape),
               m=np.empty(shape + (J,)), theta=np.empty(shape + (J,)),
               psi_o=np.empty(shape + (J,)), q2=np.empty(shape + (J,)),
               V2=np.empty(shape + (J,)), q1=np.empty(shape + (J, J)),
               V1=np.empty(shape + (J, J)))
    for idx in np.ndindex(shape):
        e = float(eta_b[idx])
        j = int(np.searchsorted(etas, e))
        P = _tables(s, t, float(r[j]), float(cb[j]), gamma, *atoms)
        E2 = None
        aniso = None
        if model == "shared-batch":
            c_j = P.c
            aniso = ((1.0 + (c_j - 1.0) * rho[0]) / c_j, (1.0 + (c_j - 1.0) * rho[1]) / c_j)
        if constants is not None:
            E2 = _mean_direction_change(s.mu1, constants, psi1=psi1, psi2=psi2, eta_scale=e,
                                        x=P.x, p=P.p, c_b=float(cb[j]),
                                        model="network" if model == "shared-batch" else model)
        res = _solve(P, alpha=alpha, lam_eff=float(lam_b[idx]) * alpha, psi2=psi2,
                     noise=noise, width=width, contraction=E2, anisotropy=aniso)
        res.update(r=float(r[j]), c_b=float(cb[j]))
        for key, value in res.items():
            out[key][idx] = value
    out["gamma"] = gamma
    if width is None and layer.name == "rademacher":
        for key in ("m", "theta", "psi_o", "q2", "V2"):
            out[key] = out[key][..., 0]
        for key in ("q1", "V1"):
            out[key] = out[key][..., 0, 0]
    else:
        out.update(magnitudes=mags, weights=weights)
    return out


def large_step_risk(student, teacher, *, psi1, psi2, lam, eta_scale, noise=0.0,
                    second_layer=DEFAULT, d=None, model="network"):
    r"""Asymptotic prediction risk of ridge on the features after one large step.

    The limit :math:`n, d, N\to\infty` with :math:`n/d = \psi_1` samples in each stage,
    :math:`N/d = \psi_2` neurons, step :math:`\eta = \tilde\eta\sqrt N` (``eta_scale``
    :math:`=\tilde\eta`) from :math:`W_0` with the second layer ``second_layer``, then
    ridge :math:`\frac1n\|y-\Phi a\|^2 + \frac{\lambda}{N}\|a\|^2` on fresh data.  Computed
    from the spiked random-features model and its conditional Gaussian equivalent (Cui et
    al. 2024), with Marchenko-Pastur integrals (see the module docstring for the factors
    :math:`\psi_2` that differ from their code).  One solver serves every second layer: the
    :math:`\pm1` layer is one population of neurons.

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
    second_layer : "gaussian" (default), "rademacher", (magnitudes, weights) or SecondLayer
        :math:`a_i\sim N(0, 1/N)` (the paper's layer, the default everywhere in
        :mod:`helpers`); :math:`a_i = \pm1/\sqrt N` (the spiked random-features model above);
        or :math:`|\sqrt N a_i|` taking the
        given magnitudes with the given probabilities, random signs.  With several
        magnitudes the neurons form populations by :math:`|\xi_i|`: population :math:`j`
        computes :math:`\sigma(\sqrt{1 + x_j^2(c_b-1)}\langle w_i, x\rangle + x_jrz_v)`, and
        the fixed point is block-structured over populations, with a generalised
        Marchenko-Pastur law (:class:`_Resolvent`; notes/gaussian_second_layer.md).  The
        Gaussian layer is the half-normal law of :math:`|\xi|` replaced by its
        ``GAUSSIAN_RULE_ATOMS``-point Gauss rule (:mod:`helpers.second_layer`).
    d : int, optional
        ``None`` (default): the limit :math:`N\to\infty`.  An input dimension: the
        finite-width correction at :math:`N = \mathrm{round}(\psi_2 d)` of the readout's
        mean directions, which the limit treats as free (ours, a derivation:
        :func:`_solve`, ``notes/gaussian_second_layer.md`` sections 10-11).  The
        corrections kept are those that are not uniform in the step: at a small step the
        populations' mean features are nearly collinear and the limit's readout needs large
        coefficients on them, so their penalty and the bulk's variance along them matter.
    model : {"network", "residual-y", "population", "shared-batch"}
        ``"shared-batch"`` (ours, a derivation; ``notes/shared_batch.md``; not the default
        while the effects of the batch that it leaves out are not derived): the network,
        and the step's bulk, drawn from the batch that also gives the spike direction, is
        depleted along :math:`\beta_\perp` and enhanced along :math:`v`
        (:func:`_shared_batch_ratios`); this changes the limit too.  The other models, with
        ``d``, say what the finite width describes (no effect in the limit, ``d=None``):
        ``"network"`` (default), the book's step, whose residual :math:`y - f_0` contains the
        initial output :math:`f_0` and whose noise is correlated across neurons, both of which
        change the bulk's variance along the readout's mean direction
        (:func:`_mean_direction_change`); ``"residual-y"``, the network stepped with the
        residual :math:`y` (``helpers.run(..., initial_output=False)``): the correlated
        noise only; ``"population"``, the population model with an independent bulk
        (``helpers.run(..., model="population")``).

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
                            eta_scale=eta_scale, noise=noise,
                            second_layer=second_layer, d=d,
                            model=model)["risk"]
    return float(risk) if risk.ndim == 0 else risk

