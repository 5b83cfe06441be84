r"""The paper's bound for the large step, :math:`\eta = \Theta(\sqrt N)` (Ba et al. 2022, §5).

After a large step neuron :math:`i` computes approximately
:math:`\sigma(\langle w_i^0, x\rangle + c_i\langle\beta_*, x\rangle)` with
:math:`c_i = \eta\,\mu_1\mu_1^*\,a_i` (:func:`neuron_shift`).  Averaging many neurons whose
:math:`c_i` is close to some :math:`\kappa` produces the *smoothed activation*
:math:`g_\kappa(t) = E_{\xi}\,\sigma(\kappa t + \xi)` of the teacher's index
(:func:`smoothed_activation`), and the best such function defines the paper's eq. (5.1)

.. math::

    \tau_* = \inf_{\kappa\in\mathbb R} E_{\xi_1}\big[(\sigma_*(\xi_1)
             - E_{\xi_2}\sigma(\kappa\xi_1 + \xi_2))^2\big],

computed by :func:`tau_star`.  :func:`tau_star_rescaled` also lets the second layer rescale
the average (a variant discussed in the chapter), and :func:`lemma6_readout` builds the
second layer of Lemma 6 from the neurons' shifts.

All Gaussian integrals use the Gauss-Legendre rules of :mod:`helpers.quadrature` on
:math:`[-12, 12]`, split where the
integrand has kinks or (for large :math:`|\kappa|`) fast transitions, so that they are
accurate to about 1e-12 for the book's activations; ``erf``, ``relu``, ``abs``, ``linear``
and ``quadratic`` students use closed forms for the inner expectation.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy import optimize, special

from .._validation import check_finite, check_nonnegative, check_positive
from ..activations import Activation, as_student, as_teacher, is_registered
from ..quadrature import GAUSS_DENSITY, gaussian_rows, gaussian_rule

__all__ = [
    "smoothed_activation",
    "tau_curve",
    "tau_star",
    "tau_star_rescaled",
    "neuron_shift",
    "lemma6_readout",
    "lemma6_prediction",
]

_L = 12.0                      # integrate standard Gaussians over [-L, L] (tail < 1e-32)
_INNER_NODES = 128             # Gauss-Legendre nodes per piece, inner integral (over xi_2)
_OUTER_NODES = 80              # and outer integral (over xi_1)
_CLOSED = {"erf", "relu", "abs", "linear", "quadratic"}


def _is_closed(act: Activation) -> bool:
    return act.name in _CLOSED and is_registered(act)  # the registered function itself


def _closed_smoothed(act: Activation, m: np.ndarray, s: float) -> np.ndarray:
    """:math:`E\\sigma(m + s\\xi)` in closed form for the registered closed-form names."""
    if act.name == "erf":
        out = special.erf(m / math.sqrt(1.0 + 2.0 * s * s))
    elif act.name == "linear":
        out = m.copy()
    elif act.name == "quadratic":
        out = m * m + s * s - 1.0
    else:
        u = m / s
        pdf = np.exp(-0.5 * u * u) * GAUSS_DENSITY
        if act.name == "relu":
            out = m * special.ndtr(u) + s * pdf
        else:  # abs
            out = m * (2.0 * special.ndtr(u) - 1.0) + 2.0 * s * pdf
    return out - act.shift


def _smoothed_fn(fn, kinks, m: np.ndarray, s: float) -> np.ndarray:
    """:math:`E f(m + s\\xi)` by Gauss-Legendre pieces split at the kinks of ``fn``."""
    z, w = gaussian_rows(m, s, kinks, nodes=_INNER_NODES, half_width=_L)
    return (fn(m.reshape(-1)[:, None] + s * z) * w).sum(axis=1).reshape(m.shape)


def _smoothed(act: Activation, kappa: float, x: np.ndarray, s: float) -> np.ndarray:
    m = kappa * x
    if _is_closed(act):
        return _closed_smoothed(act, m, s)
    return _smoothed_fn(act, act.kinks, m, s)


def smoothed_activation(student, kappa, x, *, scale: float = 1.0) -> np.ndarray:
    r"""The smoothed activation :math:`g_\kappa(x) = E_\xi\,\sigma(\kappa x + s\,\xi)`.

    It is what an average of many neurons :math:`\sigma(\langle w_i, x\rangle + \kappa
    \langle\beta_*, x\rangle)` with near-orthogonal unit :math:`w_i` computes, as a function
    of :math:`x = \langle\beta_*, x\rangle` (``scale`` = :math:`\|w_i\|`, 1 in the paper).

    Parameters
    ----------
    student : str, callable or Activation
        The activation :math:`\sigma` (not centred).
    kappa : float
        Weight of the teacher's index, any real number.
    x : array_like of any shape
        Points :math:`x` at which to evaluate.
    scale : float, default 1
        Standard deviation :math:`s > 0` of the independent Gaussian part.

    Returns
    -------
    ndarray of the shape of ``x``

    Examples
    --------
    >>> round(float(smoothed_activation("erf", math.sqrt(3), 0.7)), 12)  # = erf(0.7)
    0.677801193837
    """
    act = as_student(student)
    kappa = check_finite("kappa", kappa, hint=" (see tau_curve for the limit)")
    check_positive("scale", scale)
    x = np.asarray(x, dtype=float)
    return _smoothed(act, kappa, x, float(scale))


def _limits(act: Activation):
    """``(sigma(-inf), sigma(+inf))`` if both exist and are finite, else None."""
    with np.errstate(all="ignore"):
        v = act(np.array([-1e12, -1e8, 1e8, 1e12]))
    if not np.all(np.isfinite(v)) or abs(v[0] - v[1]) > 1e-9 or abs(v[2] - v[3]) > 1e-9:
        return None
    return float(v[1]), float(v[2])


def _outer_rule(teacher: Activation, act: Activation, kappa: float):
    """Rule for the outer integral over xi_1, cut at the teacher's kinks and, for a large
    kappa, around the points where kappa xi_1 crosses a kink of the student or 0 (there the
    smoothed student changes fast)."""
    pts = set(teacher.kinks)
    if math.isfinite(kappa) and abs(kappa) > 1.0:
        for k in (*act.kinks, 0.0):
            for j in (-8.0, -3.0, -1.0, 0.0, 1.0, 3.0, 8.0):
                pts.add((k + j) / kappa)
    return gaussian_rule(pts, nodes=_OUTER_NODES, half_width=_L)


def _risk(act: Activation, teacher: Activation, kappa: float) -> float:
    x, w = _outer_rule(teacher, act, kappa)
    if math.isfinite(kappa):
        g = _smoothed(act, kappa, x, 1.0)
    else:
        lim = _limits(act)
        if lim is None:
            return math.inf
        lo, hi = lim if kappa > 0 else lim[::-1]
        g = np.where(x > 0, hi, np.where(x < 0, lo, 0.5 * (lo + hi)))
    err = teacher(x) - g
    return float(np.sum(w * err * err))


def tau_curve(student, teacher, kappas) -> np.ndarray:
    r"""The objective of eq. (5.1), :math:`E(\sigma_*(\xi_1) - g_\kappa(\xi_1))^2`, per kappa.

    Parameters
    ----------
    student, teacher : str, callable or Activation
        The teacher is centred.
    kappas : array_like of shape (K,)
        Values of :math:`\kappa`; ``+inf``/``-inf`` give the limit, which is finite when the
        student is bounded with limits at :math:`\pm\infty` (:math:`g_{\pm\infty}` is then a
        step function) and ``inf`` otherwise.

    Returns
    -------
    ndarray of shape (K,)
    """
    act = as_student(student)
    tea = as_teacher(teacher)
    ks = np.atleast_1d(np.asarray(kappas, dtype=float))
    if ks.ndim != 1 or np.any(np.isnan(ks)):
        raise ValueError(f"kappas must be a 1-d sequence of numbers (no NaN); got {kappas!r}")
    return np.array([_risk(act, tea, float(k)) for k in ks])


def _kappa_grid(kappa_max: float) -> np.ndarray:
    pos = np.geomspace(1e-2, kappa_max, 40)
    return np.concatenate([-pos[::-1], [0.0], pos])


def _minimise(objective, grid: np.ndarray):
    """Grid search then Brent refinement in the bracket around the best grid point."""
    vals = np.array([objective(k) for k in grid])
    j = int(np.argmin(vals))
    if j in (0, len(grid) - 1):
        return float(grid[j]), float(vals[j]), True
    res = optimize.minimize_scalar(objective, bounds=(grid[j - 1], grid[j + 1]),
                                   method="bounded", options={"xatol": 1e-12, "maxiter": 500})
    if not res.success:  # pragma: no cover - bounded Brent on a finite interval converges
        raise RuntimeError(f"tau_star: the minimisation over kappa failed: {res.message}")
    if res.fun <= vals[j]:
        return float(res.x), float(res.fun), False
    return float(grid[j]), float(vals[j]), False  # pragma: no cover


def tau_star(student, teacher, *, kappa_max: float = 100.0) -> tuple[float, float]:
    r"""The paper's :math:`\tau_*` (eq. 5.1) and its minimiser :math:`\kappa_*`.

    .. math::

        \tau_* = \inf_{\kappa\in\mathbb R} E_{\xi_1}\big[(\sigma_*(\xi_1)
                 - E_{\xi_2}\sigma(\kappa\xi_1 + \xi_2))^2\big].

    The objective is evaluated by quadrature (:func:`tau_curve`), scanned on a grid of
    ``81`` values with :math:`|\kappa|` up to ``kappa_max`` (geometric spacing), and refined
    with Brent's method; :math:`\tau_*` is accurate to about 1e-10 (it is quadratic near the
    minimum, so the 1e-12 tolerance on :math:`\kappa` is more than enough).

    Behaviour when the infimum is not attained: if the student is bounded with limits at
    :math:`\pm\infty` and the step-function limit :math:`g_{\pm\infty}` does at least as well
    as every finite :math:`\kappa` on the grid, the function returns
    ``(limit value, +inf or -inf)``; e.g. an ``erf`` student with a ``sign`` teacher gives
    ``(0.0, inf)``.  If the best grid value sits at :math:`|\kappa| =` ``kappa_max`` for an
    unbounded student, a ``RuntimeWarning`` says so and the edge value is returned.

    Parameters
    ----------
    student : str, callable or Activation
        Student activation :math:`\sigma` (not centred, as in the paper).
    teacher : str, callable or Activation
        Teacher link :math:`\sigma_*` (centred, :math:`\mu_0^* = 0`).
    kappa_max : float, default 100
        Largest :math:`|\kappa|` scanned.

    Returns
    -------
    tau : float
    kappa : float
        A minimiser (``±inf`` as described above).  For an odd pair the objective is even in
        :math:`\kappa`; the grid search then returns the minimiser of either sign that it
        meets first, and the chapter reports :math:`|\kappa_*|`.

    Raises
    ------
    ValueError
        If ``student`` or ``teacher`` is not a known name or a callable, or ``kappa_max`` is
        not a number > 0.

    Examples
    --------
    >>> tau, kappa = tau_star("erf", "erf")
    >>> tau < 1e-12, round(abs(kappa) ** 2, 6)   # kappa* is accurate to about 1e-8
    (True, 3.0)
    """
    act = as_student(student)
    tea = as_teacher(teacher)
    check_positive("kappa_max", kappa_max)
    kappa, tau, at_edge = _minimise(lambda k: _risk(act, tea, k), _kappa_grid(kappa_max))
    lim = _limits(act)
    if lim is not None:
        tau_inf = {s: _risk(act, tea, s * math.inf) for s in (1.0, -1.0)}
        best = min(tau_inf, key=tau_inf.get)
        if tau_inf[best] <= tau + 1e-12:
            return float(tau_inf[best]), best * math.inf
    if at_edge:
        warnings.warn(f"tau_star: the best kappa sits at the edge |kappa| = {kappa_max} of the "
                      "scanned range and the student has no finite limits; increase kappa_max",
                      RuntimeWarning, stacklevel=2)
    return tau, kappa


def tau_star_rescaled(student, teacher, *, kappa_max: float = 100.0):
    r"""Variant of :math:`\tau_*` in which the average of neurons may be rescaled.

    .. math::

        \tau_*^{\rm sc} = \inf_{\kappa, s} E\big[(\sigma_*(\xi_1) - s\,g_\kappa(\xi_1))^2\big]
        = \inf_\kappa \Big(E\sigma_*^2 - \frac{(E\,\sigma_* g_\kappa)^2}{E g_\kappa^2}\Big)
        \le \tau_* .

    A second layer that averages the neurons with :math:`c_i \approx \kappa` and multiplies
    the average by :math:`s` is as legitimate as the plain average of Lemma 6, so this value
    is also achievable; the chapter discusses the difference.

    Returns
    -------
    tau : float
    kappa : float
    s : float
        The best multiple for that kappa.
    """
    act = as_student(student)
    tea = as_teacher(teacher)
    check_positive("kappa_max", kappa_max)
    x, w = gaussian_rule(tea.kinks, nodes=_OUTER_NODES, half_width=_L)
    t = tea(x)
    second = float(np.sum(w * t * t))

    def parts(k):
        xx, ww = _outer_rule(tea, act, k)
        g = _smoothed(act, k, xx, 1.0)
        return float(np.sum(ww * tea(xx) * g)), float(np.sum(ww * g * g))

    def objective(k):
        cross, gg = parts(k)
        return second - cross * cross / gg if gg > 1e-300 else second

    grid = _kappa_grid(kappa_max)
    grid = grid[grid != 0.0]  # g_0 is a constant: only the trivial fit s = 0
    kappa, tau, _ = _minimise(objective, grid)
    cross, gg = parts(kappa)
    return max(tau, 0.0), kappa, cross / gg


def neuron_shift(student, teacher, a, *, eta: float) -> np.ndarray:
    r"""Predicted shift :math:`c_i = \eta\,\mu_1\mu_1^*\,a_i` of each neuron along :math:`\beta_*`.

    After the step, :math:`\langle w_i^1, \beta_*\rangle \approx c_i` (the spike
    :math:`\eta\sqrt N\,A` of Proposition 2 restricted to :math:`\beta_*`), so neuron ``i``
    computes about :math:`\sigma(\langle w_i^0, x\rangle + c_i\langle\beta_*, x\rangle)`.

    Parameters
    ----------
    student, teacher : str, callable or Activation
    a : array_like of shape (N,)
        Second-layer weights (entries :math:`N(0, 1/N)`).
    eta : float
        Learning rate, >= 0.

    Returns
    -------
    ndarray of shape (N,)
    """
    act = as_student(student)
    tea = as_teacher(teacher)
    a = np.asarray(a, dtype=float)
    if a.ndim != 1:
        raise ValueError(f"a must be a 1-d array of second-layer weights; got shape {a.shape}")
    eta = check_nonnegative("eta", eta)
    return eta * act.mu1 * tea.mu1 * a


def lemma6_readout(c, kappa: float, *, width: float) -> np.ndarray:
    r"""The second layer of Lemma 6: average the neurons whose shift is near :math:`\kappa`.

    Returns :math:`b` with :math:`b_i = 1/|S|` for :math:`i \in S = \{i : |c_i - \kappa|
    \le` ``width`` :math:`\}` and 0 elsewhere, so that :math:`\sigma(W_1^\top x)^\top b`
    is the average of those neurons (it can be passed to
    :func:`helpers.prediction_risk` as ``B``).

    Parameters
    ----------
    c : array_like of shape (N,)
        Shifts :math:`c_i` (measured, :math:`\langle w_i^1 - w_i^0, \beta_*\rangle`, or
        predicted by :func:`neuron_shift`).
    kappa : float
        Target shift (finite).
    width : float
        Half-width of the selection window, > 0.

    Returns
    -------
    ndarray of shape (N,)

    Raises
    ------
    ValueError
        If no neuron falls into the window, or an argument is invalid.
    """
    c = np.asarray(c, dtype=float)
    if c.ndim != 1:
        raise ValueError(f"c must be a 1-d array of neuron shifts; got shape {c.shape}")
    kappa = check_finite("kappa", kappa)
    check_positive("width", width)
    sel = np.abs(c - kappa) <= width
    if not sel.any():
        raise ValueError(f"width: no neuron has |c_i - kappa| <= {width} (kappa = {kappa}, "
                         f"c in [{c.min():.3g}, {c.max():.3g}]); widen the window")
    return sel / sel.sum()


def lemma6_prediction(student, teacher, *, psi1: float, eta_scale: float, kappa: float,
                      width: float, N: int | None = None, noise: float = 0.0) -> float:
    r"""Predicted risk of the Lemma 6 readout (:func:`lemma6_readout`) after a step
    :math:`\eta = ` ``eta_scale`` :math:`\cdot\sqrt N`, at finite :math:`\psi_1 = n/d`.

    Write the step's data term as :math:`X^\top y/n = \mu_1^*\beta_* + \zeta`, with
    :math:`\|\zeta\|^2 \approx E[y^2]/\psi_1`.  Column :math:`i` of the step is about
    :math:`c_i(\beta_* + \zeta/\mu_1^*) + e_i` (the rank-one spike, Proposition 2, plus a
    neuron-specific part :math:`e_i` of squared norm
    :math:`(c_i/\mu_1\mu_1^*)^2 E[y^2](E\sigma'(z)^2 - \mu_1^2)/\psi_1`).  A selected neuron
    (:math:`c_i \approx \kappa`) thus computes :math:`\sigma(\kappa(t + s) + r\xi_i)` with
    :math:`t = \langle\beta_*, x\rangle`, a *common* Gaussian error
    :math:`s = \langle\zeta, x\rangle/\mu_1^*` of variance
    :math:`v_s = E[y^2]/(\mu_1^{*2}\psi_1)` and independent :math:`\xi_i` with
    :math:`r^2 = 1 + \|e_i\|^2`.  Averaging :math:`|S|` of them gives
    :math:`g(t + s) = E_\xi\sigma(\kappa(t + s) + r\xi)` plus a fluctuation of variance
    :math:`v/|S|`, so the prediction is

    .. math::

        E_{t,s}\big(\sigma_*(t) - g(t + s)\big)^2 + \frac{v}{N p},\qquad
        p = P(|c - \kappa| \le w),\ c \sim N(0, (\text{eta\_scale}\,\mu_1\mu_1^*)^2),

    the second term only when ``N`` is given (:math:`v = E\,\mathrm{Var}_\xi\sigma(\cdot)`).
    As :math:`\psi_1 \to \infty` and :math:`N \to \infty` it tends to the objective of
    (5.1) at ``kappa``, i.e. to :math:`\tau_*` at :math:`\kappa_*`; the gap is
    :math:`O(d/n)`.  The spread of :math:`c_i` inside the window is neglected.

    Parameters
    ----------
    student, teacher : str, callable or Activation
    psi1 : float
        n/d of the step.
    eta_scale : float
        :math:`\eta/\sqrt N` (> 0).
    kappa, width : float
        Window of :func:`lemma6_readout`.
    N : int, optional
        Width of the network (for the fluctuation term).
    noise : float
        Label-noise standard deviation.

    Returns
    -------
    float
    """
    from .setting import label_second_moment

    act = as_student(student)
    tea = as_teacher(teacher)
    check_positive("psi1", psi1)
    check_positive("eta_scale", eta_scale)
    check_positive("width", width)
    kappa = check_finite("kappa", kappa)
    gain = act.mu1 * tea.mu1
    if gain == 0:
        raise ValueError("student and teacher must both have mu1 != 0 (no shift otherwise)")
    ey2 = label_second_moment(tea, noise=noise)
    dsq = act.derivative_second_moment
    r = math.sqrt(1.0 + (kappa / gain) ** 2 * ey2 * max(dsq - act.mu1**2, 0.0) / psi1)
    v_s = ey2 / (tea.mu1**2 * psi1)
    t, wt = gaussian_rule(tea.kinks, nodes=_OUTER_NODES, half_width=_L)
    z, wz = gaussian_rule(nodes=_OUTER_NODES, half_width=_L)
    u = t[:, None] + math.sqrt(v_s) * z[None, :]          # (n_t, n_z)
    g = _smoothed(act, kappa, u, r)
    W = wt[:, None] * wz[None, :]
    bias = float(np.sum(W * (tea(t)[:, None] - g) ** 2))
    if N is None:
        return bias
    check_positive("N", N, integer=True)
    g2 = _smoothed_fn(lambda q: act(q) ** 2, act.kinks, kappa * u, r)
    v = float(np.sum(W * (g2 - g * g)))
    sd = eta_scale * abs(gain)
    p = special.ndtr((kappa + width) / sd) - special.ndtr((kappa - width) / sd)
    return bias + v / (N * p)
