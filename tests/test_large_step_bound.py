"""tau*, the smoothed activation and the Lemma 6 construction (helpers.theory.large_step_bound)."""

import math

import numpy as np
import pytest
from scipy import integrate, special

from helpers import get_activation
from helpers.theory import (
    kernel_lower_bound,
    lemma6_prediction,
    lemma6_readout,
    neuron_shift,
    smoothed_activation,
    tau_curve,
    tau_star,
    tau_star_rescaled,
)


def _erf_callable(z):
    return special.erf(z)


def test_erf_pair_has_tau_zero_at_sqrt3():
    tau, kappa = tau_star("erf", "erf")
    assert tau < 1e-8
    assert abs(abs(kappa) - math.sqrt(3)) < 1e-6


def test_quadrature_path_matches_closed_form_for_erf():
    # erf passed as a plain callable goes through Gauss-Legendre, not the closed form.
    tau, kappa = tau_star(_erf_callable, "erf")
    assert tau < 1e-8 and abs(abs(kappa) - math.sqrt(3)) < 1e-6
    x = np.linspace(-4, 4, 17)
    np.testing.assert_allclose(smoothed_activation(_erf_callable, 1.3, x, scale=0.7),
                               special.erf(1.3 * x / math.sqrt(1 + 2 * 0.49)), atol=1e-10)


@pytest.mark.parametrize("name", ["relu", "abs", "quadratic", "linear"])
def test_closed_forms_match_quadrature(name):
    act = get_activation(name)
    generic = get_activation(lambda z: act(z), kinks=act.kinks)  # forces quadrature
    x = np.linspace(-3, 3, 13)
    np.testing.assert_allclose(smoothed_activation(name, -0.8, x, scale=1.4),
                               smoothed_activation(generic, -0.8, x, scale=1.4), atol=1e-9)


@pytest.mark.parametrize(("x", "k"), [(0.3, 1.2), (2.0, 5.0), (-1.0, 30.0)])
def test_smoothed_tanh_against_adaptive_quadrature(x, k):
    ref = integrate.quad(lambda z: math.tanh(k * x + z) * math.exp(-z * z / 2),
                         -np.inf, np.inf, epsabs=1e-14)[0] / math.sqrt(2 * math.pi)
    assert abs(smoothed_activation("tanh", k, x) - ref) < 1e-9


def test_tanh_objective_against_nested_quadrature():
    tau, kappa = tau_star("tanh", "tanh")
    assert 5e-5 < tau < 2e-4  # the paper reports about 1e-4

    def inner(t):
        return integrate.quad(lambda z: math.tanh(kappa * t + z) * math.exp(-z * z / 2),
                              -12, 12, epsabs=1e-13)[0] / math.sqrt(2 * math.pi)

    ref = integrate.quad(lambda t: (math.tanh(t) - inner(t)) ** 2 * math.exp(-t * t / 2),
                         -12, 12, epsabs=1e-13, limit=200)[0] / math.sqrt(2 * math.pi)
    assert abs(tau - ref) < 1e-9


def test_linear_student_gives_the_kernel_floor():
    # g_kappa(t) = kappa t: the best fit is the linear part, so tau* = mu2*^2, kappa* = mu1*.
    for teacher in ("tanh", "relu"):
        tau, kappa = tau_star("linear", teacher)
        assert abs(tau - kernel_lower_bound(teacher)) < 1e-9
        assert abs(kappa - get_activation(teacher).mu1) < 1e-6


def test_infimum_at_infinity_is_reported_as_inf():
    sign = get_activation(np.sign, kinks=(0.0,))
    tau, kappa = tau_star("erf", sign)
    assert tau == pytest.approx(0.0, abs=1e-12) and kappa == math.inf
    # the objective decreases towards that limit
    vals = tau_curve("erf", sign, [1.0, 10.0, 100.0, np.inf])
    assert np.all(np.diff(vals) < 0)


def test_limit_is_infinite_for_an_unbounded_student():
    assert tau_curve("relu", "tanh", [np.inf])[0] == math.inf
    assert math.isfinite(tau_curve("tanh", "relu", [-np.inf])[0])


def test_edge_of_the_scan_warns_for_an_unbounded_student():
    with pytest.warns(RuntimeWarning, match="kappa_max"):
        tau, kappa = tau_star("linear", lambda z: 5 * z, kappa_max=1.0)
    assert kappa == pytest.approx(1.0)


def test_mismatched_pairs_have_tau_above_the_floor():
    for student in ("tanh", "erf"):
        tau, _ = tau_star(student, "relu")
        assert tau > kernel_lower_bound("relu")


def test_rescaled_variant_is_never_larger():
    for student, teacher in [("tanh", "tanh"), ("erf", "erf"), ("tanh", "relu")]:
        tau, _ = tau_star(student, teacher)
        tau_sc, _, s = tau_star_rescaled(student, teacher)
        assert tau_sc <= tau + 1e-12
    _, _, s = tau_star_rescaled("erf", "erf")
    assert abs(abs(s) - 1) < 1e-6


def test_neuron_shift_formula():
    a = np.array([0.1, -0.2, 0.0])
    mu1 = get_activation("erf").mu1
    np.testing.assert_allclose(neuron_shift("erf", "erf", a, eta=3.0), 3.0 * mu1 * mu1 * a)


def test_lemma6_readout_averages_the_window():
    c = np.array([0.0, 1.6, 1.75, 1.9, 3.0])
    b = lemma6_readout(c, math.sqrt(3), width=0.2)
    np.testing.assert_allclose(b, [0, 1 / 3, 1 / 3, 1 / 3, 0])


def test_lemma6_prediction_limits():
    kappa = math.sqrt(3)
    big = lemma6_prediction("erf", "erf", psi1=1e9, eta_scale=4.0, kappa=kappa, width=0.2)
    assert big < 1e-7  # psi1 -> infinity: the objective (5.1) at kappa* = tau* = 0
    p8 = lemma6_prediction("erf", "erf", psi1=8, eta_scale=4.0, kappa=kappa, width=0.2)
    p32 = lemma6_prediction("erf", "erf", psi1=32, eta_scale=4.0, kappa=kappa, width=0.2)
    assert p8 > p32 > big
    assert 3.0 < p8 / p32 < 5.0  # the misalignment costs O(d/n)
    withN = lemma6_prediction("erf", "erf", psi1=32, eta_scale=4.0, kappa=kappa, width=0.2,
                              N=512)
    assert withN > p32
    at_tanh = lemma6_prediction("tanh", "tanh", psi1=1e9, eta_scale=4.0, kappa=1.2,
                                width=0.2)
    assert at_tanh == pytest.approx(tau_curve("tanh", "tanh", [1.2])[0], abs=1e-7)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: tau_star("nope", "erf"), "student"),
        (lambda: tau_star("erf", "nope"), "teacher"),
        (lambda: tau_star("erf", "erf", kappa_max=-1), "kappa_max"),
        (lambda: tau_star_rescaled("erf", 3), "teacher"),
        (lambda: tau_curve("erf", "erf", [np.nan]), "kappas"),
        (lambda: smoothed_activation("erf", np.inf, 0.0), "kappa"),
        (lambda: smoothed_activation("erf", "1", 0.0), "kappa"),
        (lambda: smoothed_activation("erf", 1.0, 0.0, scale=0), "scale"),
        (lambda: neuron_shift("erf", "erf", np.ones((2, 2)), eta=1.0), "a must"),
        (lambda: neuron_shift("erf", "erf", np.ones(2), eta=-1.0), "eta"),
        (lambda: lemma6_readout(np.ones((2, 2)), 1.0, width=0.1), "c must"),
        (lambda: lemma6_readout(np.ones(3), np.inf, width=0.1), "kappa"),
        (lambda: lemma6_readout(np.ones(3), 1.0, width=0), "width"),
        (lambda: lemma6_readout(np.ones(3), 5.0, width=0.1), "no neuron"),
        (lambda: lemma6_prediction("erf", "erf", psi1=0, eta_scale=1, kappa=1, width=.1),
         "psi1"),
        (lambda: lemma6_prediction("erf", "erf", psi1=1, eta_scale=1, kappa=np.inf,
                                   width=.1), "kappa"),
        (lambda: lemma6_prediction("erf", "erf", psi1=1, eta_scale=1, kappa=1, width=.1,
                                   N=0), "N"),
        (lambda: lemma6_prediction("abs", "erf", psi1=1, eta_scale=1, kappa=1, width=.1),
         "mu1"),
    ],
)
def test_bad_inputs_raise(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_neuron_shift_accepts_numpy_scalars():
    """eta as a NumPy scalar (np.float32, np.int64) is a number like any other."""
    a = np.array([0.5, -1.0])
    for eta in (np.float32(2.0), np.int64(2), 2):
        np.testing.assert_allclose(neuron_shift("erf", "erf", a, eta=eta),
                                   neuron_shift("erf", "erf", a, eta=2.0), rtol=1e-7)
