r"""Theory for the rank-one spike in the first gradient (Ba et al. 2022, Proposition 2).

Write :math:`\sigma' = \mu_1 + (\sigma' - \mu_1)`.  Because the network output is
:math:`O(N^{-1/2})` at initialisation, the negative gradient :math:`G_0` of eq. (2.1) is close
in operator norm to the rank-one matrix

.. math::

    A = \frac{\mu_1}{n\sqrt N}\, X^\top y\, a^\top ,

whose left singular vector is :math:`v / \|v\|` with :math:`v = X^\top y / n`.  By the law of
large numbers and Stein's lemma :math:`v = \mu_1^*\beta_* + \xi`, where :math:`\xi` is a
nearly isotropic fluctuation with :math:`\|\xi\|^2 \to E[y^2]\,d/n = E[y^2]/\psi_1`.  The
limits below follow from this decomposition (teacher centred, so :math:`\mu_0^* = 0`):

* squared overlap of the top left singular vector with :math:`\beta_*`:
  :math:`\mu_1^{*2} / (\mu_1^{*2} + E[y^2]/\psi_1)`;
* the outlier: :math:`\sqrt N\|G_0\| \to |\mu_1|\sqrt{\mu_1^{*2} + E[y^2]/\psi_1}`;
* the Frobenius norm: :math:`\sqrt N\|G_0\|_F \to
  \sqrt{\mu_1^2\mu_1^{*2} + E[y^2]\,E[\sigma'(z)^2]/\psi_1}`;

with :math:`E[y^2] = \mu_0^{*2} + \mu_1^{*2} + \mu_2^{*2} + \sigma_\varepsilon^2`.  The
difference of the last two squares, :math:`E[y^2](E[\sigma'^2] - \mu_1^2)/\psi_1`, is the
squared mass of the bulk, spread over :math:`\min(d, n, N)` singular values.
"""

from __future__ import annotations

import math

from .._validation import check_nonnegative, check_positive
from ..activations import as_student, as_teacher
from .setting import label_second_moment, neuron_movement

__all__ = [
    "spike_alignment",
    "spike_singular_value",
    "gradient_frobenius_norm",
    "gradient_bulk_mass",
    "init_operator_norm",
]


def spike_alignment(teacher, *, psi1: float, noise: float = 0.0) -> float:
    r"""Limit of :math:`\langle u, \beta_*\rangle^2`, u the top left singular vector of G0.

    .. math::

        \langle u, \beta_*\rangle^2 \to \frac{\mu_1^{*2}}{\mu_1^{*2} + E[y^2]/\psi_1},
        \qquad E[y^2] = \mu_0^{*2} + \mu_1^{*2} + \mu_2^{*2} + \sigma_\varepsilon^2,

    in the proportional limit :math:`n/d \to \psi_1` (the teacher is centred, so
    :math:`\mu_0^* = 0`).  It does not depend on the student (as long as :math:`\mu_1 \ne 0`)
    nor on :math:`\psi_2`.

    Parameters
    ----------
    teacher : str, callable or Activation
        Teacher link :math:`\sigma_*` (centred).
    psi1 : float
        Sample ratio n/d, > 0.
    noise : float
        Label-noise standard deviation :math:`\sigma_\varepsilon \ge 0`.

    Returns
    -------
    float in [0, 1)
    """
    check_positive("psi1", psi1)
    check_nonnegative("noise", noise)
    t = as_teacher(teacher)
    signal = t.mu1**2
    return signal / (signal + label_second_moment(t, noise=noise) / psi1)


def spike_singular_value(student, teacher, *, psi1: float, noise: float = 0.0) -> float:
    r"""Limit of :math:`\sqrt N\,\|G_0\|` (the outlier), from the rank-one part A.

    :math:`\sqrt N\|A\| = |\mu_1|\,\|X^\top y/n\|\,\|a\| \to
    |\mu_1|\sqrt{\mu_1^{*2} + E[y^2]/\psi_1}` since :math:`\|a\| \to 1`.
    """
    check_positive("psi1", psi1)
    s, t = as_student(student), as_teacher(teacher)
    ey2 = label_second_moment(t, noise=noise)
    return abs(s.mu1) * math.sqrt(t.mu1**2 + ey2 / psi1)


def gradient_frobenius_norm(student, teacher, *, psi1: float, noise: float = 0.0) -> float:
    r"""Limit of :math:`\sqrt N\,\|G_0\|_F`.

    Column j of :math:`\sqrt N G_0` is :math:`a_j\,\frac1n X^\top(y\odot\sigma'(Xw_j))`; its
    squared norm tends to :math:`a_j^2(\mu_1^2\mu_1^{*2} + E[y^2]E[\sigma'^2]/\psi_1)` and
    :math:`\sum_j a_j^2 \to 1`.  This is the per-neuron movement of
    :func:`helpers.theory.neuron_movement`.
    """
    return neuron_movement(student, teacher, psi1=psi1, noise=noise)


def gradient_bulk_mass(student, teacher, *, psi1: float, noise: float = 0.0) -> float:
    r"""Limit of :math:`N(\|G_0\|_F^2 - \|G_0\|^2)`, the squared mass of the bulk.

    Equals :math:`E[y^2]\,(E[\sigma'(z)^2] - \mu_1^2)/\psi_1`; it vanishes only for a linear
    student.  Divided by the number of bulk singular values (``min(d, n, N) - 1``) it gives
    their mean square in units of :math:`1/\sqrt N`.
    """
    check_positive("psi1", psi1)
    s, t = as_student(student), as_teacher(teacher)
    ey2 = label_second_moment(t, noise=noise)
    return ey2 * (s.derivative_second_moment - s.mu1**2) / psi1


def init_operator_norm(*, psi2: float) -> float:
    r"""Limit :math:`1 + \sqrt{\psi_2}` of :math:`\|W_0\|` for :math:`\sqrt d [W_0]_{ij}` ~ N(0, 1).

    The largest singular value of a d x N Gaussian matrix with unit-variance entries is
    :math:`\sqrt d + \sqrt N` to leading order (the Marchenko--Pastur edge); its
    fluctuations are of order :math:`d^{-2/3}` after dividing by :math:`\sqrt d`.
    """
    check_positive("psi2", psi2)
    return 1.0 + math.sqrt(psi2)
