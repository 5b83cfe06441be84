"""Outliers of a spiked matrix and the Tracy-Widom law (helpers.theory.rmt; the appendix, A.5):
closed forms against the definitions they come from."""

import math

import numpy as np
import pytest
from scipy import integrate

from helpers.theory import rmt


@pytest.mark.parametrize("ratio", [0.3, 1.0, 2.0, 5.0])
def test_bbp_limits_are_continuous_at_the_threshold(ratio):
    theta_c = ratio**0.25
    below = [np.asarray(v) for v in rmt.bbp_limits(theta_c, ratio)]
    above = [np.asarray(v) for v in rmt.bbp_limits(theta_c * (1 + 1e-9), ratio)]
    assert below[0] == pytest.approx(1 + math.sqrt(ratio))
    np.testing.assert_allclose([float(a) for a in above], [1 + math.sqrt(ratio), 0.0, 0.0],
                               atol=1e-6)


@pytest.mark.parametrize("ratio", [0.5, 2.0])
@pytest.mark.parametrize("factor", [1.3, 2.0, 4.0])
def test_the_outlier_solves_the_secular_equation(ratio, factor):
    """theta^2 (x G(x) - 1) = 1 at x = s^2, G(x) = int rho(dl) / (x - l) (A.5)."""
    theta = factor * ratio**0.25
    x = float(rmt.bbp_limits(theta, ratio)[0]) ** 2
    lo, hi = rmt.mp_support(ratio)
    G = integrate.quad(lambda t: rmt.mp_density(t, ratio) / (x - t), lo, hi, limit=200)[0] \
        + rmt.mp_atom(ratio) / x
    assert theta**2 * (x * G - 1) == pytest.approx(1.0, rel=1e-8)


def test_bbp_limits_take_arrays_and_reject_negative_spikes():
    s, left, right = rmt.bbp_limits([0.5, 2.0, 3.0], 1.0)
    assert s.shape == left.shape == right.shape == (3,)
    assert left[0] == right[0] == 0.0 and 0 < left[1] < left[2] < 1
    with pytest.raises(ValueError, match="theta"):
        rmt.bbp_limits(-1.0, 1.0)


def test_tracy_widom_cdf_has_the_tabulated_mean_and_variance():
    """TW1: mean -1.2065335745820, variance 1.6077810345810 (Bornemann 2010)."""
    s = np.linspace(-8.0, 8.0, 801)
    F = rmt.tracy_widom_cdf(s)
    assert F[0] < 1e-8 and F[-1] > 1 - 1e-8 and np.all(np.diff(F) > -1e-12)
    f = np.gradient(F, s)
    mean = np.trapezoid(s * f, s)
    assert mean == pytest.approx(-1.2065335745820, abs=1e-3)
    assert np.trapezoid(s**2 * f, s) - mean**2 == pytest.approx(1.6077810345810, abs=3e-3)


def test_johnstone_scales_are_symmetric_in_d_and_N():
    assert rmt.johnstone_scales(100, 200) == rmt.johnstone_scales(200, 100)
    mu, sigma = rmt.johnstone_scales(400, 800)
    assert mu / 400 == pytest.approx((1 + math.sqrt(2)) ** 2, rel=1e-2)   # the edge x_+
    assert sigma / 400 < 400 ** (-2 / 3) * 10                              # scale d^(-2/3)
