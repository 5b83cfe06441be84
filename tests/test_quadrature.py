"""The Gaussian quadrature rules reach the accuracy their module states."""

import math

import numpy as np
import pytest
from scipy import special

from helpers.quadrature import gaussian_expectation, gaussian_rows, gaussian_rule

# the settings the theory modules use: (nodes, half_width, pieces)
RULES = [(80, 12.0, 1), (128, 12.0, 1), (16, 10.0, 20)]


@pytest.mark.parametrize(("nodes", "half_width", "pieces"), RULES)
def test_rule_integrates_gaussian_moments(nodes, half_width, pieces):
    x, w = gaussian_rule(nodes=nodes, half_width=half_width, pieces=pieces)
    for k in range(0, 13, 2):
        double_factorial = math.prod(range(k - 1, 0, -2)) if k else 1
        assert np.sum(w * x**k) == pytest.approx(double_factorial, rel=1e-12)
        # odd moments vanish, up to rounding of terms as large as E|z|^(k+1) <= (k+1)!!
        assert abs(np.sum(w * x ** (k + 1))) < 1e-13 * max(1, (k + 1) * double_factorial)


@pytest.mark.parametrize(("nodes", "half_width", "pieces"), RULES)
def test_rule_cut_at_a_kink_is_exact_for_relu(nodes, half_width, pieces):
    x, w = gaussian_rule([0.3], nodes=nodes, half_width=half_width, pieces=pieces)
    # E max(z - 0.3, 0) = phi(0.3) - 0.3 (1 - Phi(0.3))
    exact = math.exp(-0.045) / math.sqrt(2 * math.pi) - 0.3 * special.ndtr(-0.3)
    assert np.sum(w * np.maximum(x - 0.3, 0.0)) == pytest.approx(exact, abs=1e-14)


def test_rows_follow_the_kink_of_each_shift():
    m = np.array([-2.0, -0.4, 0.0, 0.7, 3.0])
    s = 1.3
    z, w = gaussian_rows(m, s, (0.0,), nodes=128)
    got = (w * np.maximum(m[:, None] + s * z, 0.0)).sum(axis=1)
    u = m / s
    exact = m * special.ndtr(u) + s * np.exp(-0.5 * u * u) / math.sqrt(2 * math.pi)
    np.testing.assert_allclose(got, exact, rtol=1e-13, atol=1e-15)


def test_rows_without_kinks_match_the_rule():
    z, w = gaussian_rows(np.zeros(3), 1.0, (), nodes=16, half_width=10.0, pieces=20)
    x, v = gaussian_rule(nodes=16, half_width=10.0, pieces=20)
    np.testing.assert_array_equal(z[1], x)
    np.testing.assert_array_equal(w[2], v)


def test_fixed_rule_agrees_with_adaptive_quadrature_for_tanh():
    x, w = gaussian_rule(nodes=80)
    for f in (lambda t: np.tanh(t) * t, lambda t: np.tanh(t) ** 2,
              lambda t: np.logaddexp(0.0, t)):
        assert np.sum(w * f(x)) == pytest.approx(gaussian_expectation(f), abs=1e-12)
