r"""Theory used in the setting chapter: the kernel lower bound and how far neurons move."""

from __future__ import annotations

import math

from .._validation import check_nonnegative, check_positive
from ..activations import as_student, as_teacher

__all__ = ["kernel_lower_bound", "label_second_moment", "neuron_movement"]


def kernel_lower_bound(teacher) -> float:
    r"""The linear-regime floor :math:`\|P_{>1}f_*\|^2 = \mu_2^{*2}` (Proposition 1).

    Kernel ridge regression with the initial CK or NTK, or any inner-product kernel, cannot
    go below this prediction risk in the proportional limit.
    """
    return as_teacher(teacher).mu2_sq


def label_second_moment(teacher, *, noise: float = 0.0) -> float:
    r""":math:`E y^2 = \mu_1^{*2} + \mu_2^{*2} + \sigma_\varepsilon^2` (teacher centred)."""
    check_nonnegative("noise", noise)
    return as_teacher(teacher).second_moment + noise**2


def neuron_movement(student, teacher, *, psi1: float, noise: float = 0.0) -> float:
    r"""Limit of :math:`\|w_i^1 - w_i^0\| / (\eta\,|a_i|)` for one neuron after the first step.

    Column :math:`i` of :math:`\sqrt N G_0` is :math:`a_i g_i` with
    :math:`g_i \approx \frac1n X^\top(y\odot\sigma'(Xw_i^0))`.  Its mean is
    :math:`\mu_1\mu_1^*\beta_*` (Stein's lemma, :math:`w_i^0` nearly orthogonal to
    :math:`\beta_*`) and its fluctuation has squared norm
    :math:`E[y^2]\,E[\sigma'(z)^2]\,d/n`, so

    .. math::

        \|w_i^1 - w_i^0\| \to \eta |a_i| \sqrt{\mu_1^2\mu_1^{*2} + E[y^2]E[\sigma'(z)^2]/\psi_1}.

    With :math:`a_i \sim N(0, 1/N)` the average over neurons is this times
    :math:`\eta\sqrt{2/(\pi N)}`.
    """
    check_positive("psi1", psi1)
    s, t = as_student(student), as_teacher(teacher)
    ey2 = label_second_moment(t, noise=noise)
    return math.sqrt((s.mu1 * t.mu1) ** 2 + ey2 * s.derivative_second_moment / psi1)
