"""Hermite coefficients, derivatives and validation of the activations."""

import math

import numpy as np
import pytest
from scipy import integrate, special

from helpers.activations import (
    ACTIVATION_NAMES,
    gaussian_expectation,
    get_activation,
    hermite_coefficients,
)


def _brute_moments(fn):
    """Independent check: Gauss-Hermite with many nodes on a smooth function."""
    x, w = np.polynomial.hermite_e.hermegauss(200)
    w = w / math.sqrt(2 * math.pi)
    f = fn(x)
    return w @ f, w @ (x * f), w @ (f * f)


def test_relu_closed_forms():
    mu0, mu1, mu2 = hermite_coefficients("relu")
    assert mu0 == pytest.approx(1 / math.sqrt(2 * math.pi), abs=1e-12)
    assert mu1 == pytest.approx(0.5, abs=1e-12)
    assert mu2 == pytest.approx(math.sqrt(0.5 - 1 / (2 * math.pi) - 0.25), abs=1e-12)


def test_relu_quadrature_matches_closed_form_through_the_kink():
    # The callable path uses quadrature split at the kink: it must reach 1e-10.
    relu = get_activation(lambda z: np.maximum(z, 0.0), kinks=(0.0,))
    ref = get_activation("relu")
    assert relu.mu0 == pytest.approx(ref.mu0, abs=1e-10)
    assert relu.mu1 == pytest.approx(ref.mu1, abs=1e-10)
    assert relu.mu2 == pytest.approx(ref.mu2, abs=1e-10)


def test_erf_closed_forms():
    mu0, mu1, mu2 = hermite_coefficients("erf")
    assert mu0 == 0.0
    assert mu1 == pytest.approx(2 / math.sqrt(3 * math.pi), abs=1e-12)
    second = gaussian_expectation(lambda t: special.erf(t) ** 2)
    assert mu2**2 == pytest.approx(second - mu1**2, abs=1e-10)


@pytest.mark.parametrize("name", ["tanh", "softplus", "erf", "linear", "quadratic"])
def test_smooth_activations_match_gauss_hermite(name):
    act = get_activation(name)
    m0, m1, m2 = _brute_moments(act.fn)
    assert act.mu0 == pytest.approx(m0, abs=1e-10)
    assert act.mu1 == pytest.approx(m1, abs=1e-10)
    assert act.second_moment == pytest.approx(m2, abs=1e-10)


def test_abs_is_even_with_known_moments():
    mu0, mu1, mu2 = hermite_coefficients("abs")
    assert mu0 == pytest.approx(math.sqrt(2 / math.pi), abs=1e-12)
    assert mu1 == 0.0
    assert mu2**2 == pytest.approx(1 - 2 / math.pi, abs=1e-12)


def test_softplus_mu1_is_one_half():
    # E z softplus(z) = E sigmoid(z) = 1/2 by symmetry (Stein's lemma).
    assert hermite_coefficients("softplus")[1] == pytest.approx(0.5, abs=1e-11)


@pytest.mark.parametrize("name", ACTIVATION_NAMES)
def test_centring_removes_the_mean(name):
    act = get_activation(name, centred=True)
    assert act.mu0 == 0.0
    assert gaussian_expectation(act, act.kinks) == pytest.approx(0.0, abs=1e-10)
    raw = get_activation(name)
    assert act.mu1 == raw.mu1 and act.mu2 == raw.mu2


def test_centring_an_activation_object_is_idempotent():
    relu = get_activation("relu")
    c1 = get_activation(relu, centred=True)
    c2 = get_activation(c1, centred=True)
    assert c2 is c1
    assert c1(np.array([0.0]))[0] == pytest.approx(-relu.mu0)
    assert get_activation(relu) is relu


@pytest.mark.parametrize("name", ["tanh", "erf", "softplus", "linear", "quadratic", "relu",
                                  "abs"])
def test_derivative_matches_central_differences(name):
    act = get_activation(name)
    z = np.array([-2.3, -0.7, 0.4, 1.1, 2.9])  # away from kinks
    h = 1e-6
    fd = (act(z + h) - act(z - h)) / (2 * h)
    np.testing.assert_allclose(act.derivative(z), fd, rtol=1e-6, atol=1e-8)


def test_callable_gets_numerical_derivative():
    act = get_activation(np.sin)
    z = np.linspace(-2, 2, 7)
    np.testing.assert_allclose(act.derivative(z), np.cos(z), atol=1e-8)
    assert act.name == "sin"
    # E z sin z = E cos z = exp(-1/2)
    assert act.mu1 == pytest.approx(math.exp(-0.5), abs=1e-10)


def test_callable_with_given_derivative():
    act = get_activation(np.tanh, derivative=lambda z: 1 - np.tanh(z) ** 2)
    assert act.mu1 == pytest.approx(get_activation("tanh").mu1, abs=1e-10)


def test_gaussian_expectation_of_indicator_with_kink():
    val = gaussian_expectation(lambda t: (np.asarray(t) > 1.0).astype(float), kinks=(1.0,))
    ref = integrate.quad(lambda t: math.exp(-t * t / 2) / math.sqrt(2 * math.pi), 1, np.inf)[0]
    assert val == pytest.approx(ref, abs=1e-12)


def test_unknown_name_raises():
    with pytest.raises(ValueError, match="activation must be one of"):
        get_activation("sigmoidal")


def test_non_callable_raises():
    with pytest.raises(ValueError, match="activation must be a name"):
        get_activation(3.0)


@pytest.mark.filterwarnings("ignore")
def test_infinite_moments_raise():
    with pytest.raises(ValueError, match="no finite Gaussian moments"):
        get_activation(lambda z: np.exp(np.asarray(z) ** 2))


@pytest.mark.parametrize("name", ["tanh", "erf", "relu"])
@pytest.mark.parametrize("centred", [False, True])
def test_value_and_derivative_match_separate_calls(name, centred):
    act = get_activation(name, centred=centred)
    z = np.linspace(-3, 3, 11)
    v, dv = act.value_and_derivative(z)
    np.testing.assert_array_equal(v, act(z))
    np.testing.assert_array_equal(dv, act.derivative(z))


def test_is_odd_looks_at_the_whole_even_part():
    from helpers.activations import is_odd

    assert all(is_odd(n) for n in ("tanh", "erf", "linear"))
    assert not any(is_odd(n) for n in ("relu", "softplus", "abs", "quadratic"))
    # an even part only in He_4: mu0 = 0 and no He_2 term, still not odd
    assert not is_odd(lambda z: z + 0.01 * (z**4 - 6 * z**2 + 3))
    assert is_odd(np.sin)
