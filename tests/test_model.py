"""Sampling, initialisation and the first gradient step (eq. 2.1)."""

import math

import numpy as np
import pytest

from helpers._validation import check_finite, check_integer
from helpers.activations import as_teacher
from helpers.data import init_student, problem_sizes, sample_data, sample_teacher
from helpers.feature_maps import features
from helpers.first_step import empirical_loss, first_step_gradient, one_step, student_output


def _small_problem(rng, student="tanh", d=7, n=11, N=5):
    beta = sample_teacher(d, rng=rng)
    X, y = sample_data(n, beta, "softplus", noise=0.1, rng=rng)
    W0, a = init_student(d, N, rng=rng)
    return X, y, W0, a


def test_problem_sizes_round():
    assert problem_sizes(100, 2.5, 0.5) == (100, 250, 50)


def test_teacher_is_unit_norm(rng):
    assert np.linalg.norm(sample_teacher(50, rng=rng)) == pytest.approx(1.0)


def test_labels_follow_centred_teacher(rng):
    beta = sample_teacher(4, rng=rng)
    X, y = sample_data(6, beta, "relu", noise=0.0, rng=rng)
    np.testing.assert_allclose(y, np.maximum(X @ beta, 0) - 1 / math.sqrt(2 * math.pi))


def test_initialisation_scalings():
    rng = np.random.default_rng(1)
    W0, a = init_student(400, 300, rng=rng)
    # Var[W] = 1/d, Var[a] = 1/N; 5 standard errors of a variance estimate of m samples
    # is 5 * sqrt(2/m) in relative terms.
    assert W0.var() * 400 == pytest.approx(1.0, abs=5 * math.sqrt(2 / W0.size))
    assert a.var() * 300 == pytest.approx(1.0, abs=5 * math.sqrt(2 / a.size))


@pytest.mark.parametrize("student", ["tanh", "relu", "softplus", "erf"])
def test_gradient_matches_finite_differences(student):
    rng = np.random.default_rng(3)
    X, y, W0, a = _small_problem(rng, student)
    G = first_step_gradient(X, y, W0, a, student)
    eps = 1e-6
    fd = np.zeros_like(W0)
    for i in range(W0.shape[0]):
        for j in range(W0.shape[1]):
            E = np.zeros_like(W0)
            E[i, j] = eps
            fd[i, j] = -(empirical_loss(X, y, W0 + E, a, student)
                         - empirical_loss(X, y, W0 - E, a, student)) / (2 * eps)
    np.testing.assert_allclose(G, fd, rtol=1e-5, atol=1e-9)


def test_gradient_worked_example_linear_student():
    # Linear student: f(x) = a^T W^T x / sqrt(N), so G0 = X^T (y - f) a^T / (n sqrt N).
    X = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    y = np.array([1.0, -1.0, 0.5])
    W = np.array([[0.5, -0.5], [0.0, 1.0]])
    a = np.array([1.0, 2.0])
    f = X @ W @ a / math.sqrt(2)
    expected = X.T @ np.outer(y - f, a) / (3 * math.sqrt(2))
    np.testing.assert_allclose(first_step_gradient(X, y, W, a, "linear"), expected)


def test_update_is_linear_in_eta_and_does_not_mutate(rng):
    X, y, W0, a = _small_problem(rng)
    W0_copy = W0.copy()
    G = first_step_gradient(X, y, W0, a, "tanh")
    W1 = one_step(W0, G, 1.0)
    W3 = one_step(W0, G, 3.0)
    np.testing.assert_allclose(W3 - W0, 3 * (W1 - W0))
    np.testing.assert_allclose(W1 - W0, math.sqrt(W0.shape[1]) * G)
    np.testing.assert_array_equal(W0, W0_copy)
    np.testing.assert_array_equal(one_step(W0, G, 0.0), W0)


def test_features_and_output(rng):
    X, y, W0, a = _small_problem(rng)
    F = features(X, W0, "tanh")
    np.testing.assert_allclose(F, np.tanh(X @ W0))
    np.testing.assert_allclose(student_output(X, W0, a, "tanh"), F @ a / math.sqrt(5))


def test_same_seed_same_arrays():
    def draw(seed):
        rng = np.random.default_rng(seed)
        beta = sample_teacher(9, rng=rng)
        X, y = sample_data(13, beta, "tanh", noise=0.3, rng=rng)
        W, a = init_student(9, 4, rng=rng)
        return beta, X, y, W, a

    for u, v in zip(draw(5), draw(5), strict=True):
        np.testing.assert_array_equal(u, v)
    assert not np.array_equal(draw(5)[1], draw(6)[1])


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda r: problem_sizes(0, 1, 1), "d must be a positive integer"),
        (lambda r: problem_sizes(10.5, 1, 1), "d must be a positive integer"),
        (lambda r: problem_sizes(True, 1, 1), "d must be a positive integer"),
        (lambda r: problem_sizes(10, -1, 1), "psi1 must be a finite number > 0"),
        (lambda r: problem_sizes(10, 1, 0), "psi2 must be a finite number > 0"),
        (lambda r: problem_sizes(10, float("nan"), 1), "psi1 must be"),
        (lambda r: sample_teacher(-3, rng=r), "d must be a positive integer"),
        (lambda r: sample_teacher(3, rng=1), "rng must be a numpy.random.Generator"),
        (lambda r: sample_data(0, np.ones(3), "tanh", rng=r), "n must be a positive integer"),
        (lambda r: sample_data(5, np.ones(3), "tanh", noise=-1, rng=r), "noise must be"),
        (lambda r: sample_data(5, np.ones((3, 1)), "tanh", rng=r),
         "teacher of a k-index beta must be a callable"),
        (lambda r: sample_data(5, np.ones((3, 1, 1)), "tanh", rng=r), "beta must have shape"),
        (lambda r: sample_data(5, np.ones((3, 2)), lambda Z: Z, rng=r),
         "teacher must map an"),
        (lambda r: sample_data(5, np.ones(3), "nope", rng=r), "activation must be one of"),
        (lambda r: init_student(3, 0, rng=r), "width must be a positive integer"),
        (lambda r: first_step_gradient(np.ones((4, 3)), np.ones(4), np.ones((2, 5)),
                                       np.ones(5), "tanh"), r"W has shape \(2, 5\)"),
        (lambda r: first_step_gradient(np.ones((4, 3)), np.ones(4), np.ones((3, 5)),
                                       np.ones(4), "tanh"), r"a has shape \(4,\)"),
        (lambda r: first_step_gradient(np.ones((4, 3)), np.ones(5), np.ones((3, 5)),
                                       np.ones(5), "tanh"), r"y has shape \(5,\)"),
        (lambda r: first_step_gradient(np.ones(4), np.ones(4), np.ones((3, 5)),
                                       np.ones(5), "tanh"), "X must be a 2-d array"),
        (lambda r: one_step(np.ones((3, 2)), np.ones((2, 3)), 1.0), r"G0 has shape"),
        (lambda r: one_step(np.ones((3, 2)), np.ones((3, 2)), -1.0), "eta must be"),
        (lambda r: features(np.ones((4, 3)), np.ones((2, 2)), "tanh"), "W has shape"),
    ],
)
def test_validation_errors(rng, call, match):
    with pytest.raises(ValueError, match=match):
        call(rng)


def test_as_teacher_centres():
    assert as_teacher("softplus").mu0 == 0.0


def test_run_first_step_matches_simulate_one_step():
    from helpers import run_first_step, simulate_one_step

    fs = run_first_step("tanh", "relu", d=30, psi1=2, psi2=1.5, eta=2.0, noise=0.1, seed=4)
    r = simulate_one_step("tanh", "relu", d=30, psi1=2, psi2=1.5, lam=1e-2, eta=2.0,
                          noise=0.1, seed=4, n_test=10)
    np.testing.assert_array_equal(fs.W1, r.W1)
    np.testing.assert_array_equal(fs.beta, r.beta)
    assert fs.shape == (30, 60, 45) and fs.eta == 2.0
    with pytest.raises(ValueError, match="eta must be"):
        run_first_step("tanh", "relu", d=3, psi1=1, psi2=1, eta=-1.0)


@pytest.mark.parametrize("call, match", [
    (lambda: check_integer("runs", 0, minimum=1), "runs must be a positive integer"),
    (lambda: check_integer("seed", -1, minimum=0), "seed must be a non-negative integer"),
    (lambda: check_integer("n_jobs", 0, nonzero=True), "n_jobs must be a non-zero integer"),
    (lambda: check_integer("k", 2.0), "k must be an integer"),
    (lambda: check_integer("k", True), "k must be an integer"),
    (lambda: check_finite("kappa", float("inf")), "kappa must be a finite number"),
    (lambda: check_finite("kappa", "1"), "kappa must be a finite number"),
])
def test_shared_checks_name_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_shared_checks_accept_numpy_scalars():
    assert check_integer("runs", np.int64(3), minimum=1) == 3
    assert check_finite("kappa", np.float32(0.5)) == 0.5


def test_k_index_teacher_takes_the_same_data_path():
    """A k-index teacher g(B^T x) goes through sample_data and prediction_risk; with k = 1 and
    an odd link (centring changes nothing) it gives the single-index numbers exactly."""
    from helpers.risk import prediction_risk

    rng = np.random.default_rng(3)
    beta = sample_teacher(12, rng=rng)
    W, B = rng.standard_normal((12, 20)) / np.sqrt(12), rng.standard_normal((20, 2))
    one = sample_data(30, beta, "tanh", noise=0.1, rng=np.random.default_rng(5))
    k1 = sample_data(30, beta[:, None], lambda Z: np.tanh(Z[:, 0]), noise=0.1,
                     rng=np.random.default_rng(5))
    np.testing.assert_array_equal(one[0], k1[0])
    np.testing.assert_array_equal(one[1], k1[1])
    r1 = prediction_risk(W, B, "relu", "tanh", beta, n_test=500, rng=np.random.default_rng(6))
    rk = prediction_risk(W, B, "relu", lambda Z: np.tanh(Z[:, 0]), beta[:, None], n_test=500,
                         rng=np.random.default_rng(6), chunk=128)
    np.testing.assert_allclose(rk, r1, rtol=1e-12)
    # the linear part added back: predicting f* = tanh exactly with a linear part m + v^T x
    # is the same as predicting f* - m - v^T x with the features alone
    v, m = 0.3 * beta, 0.2
    rl = prediction_risk(W, B, "relu", "tanh", beta, n_test=500, rng=np.random.default_rng(6),
                         linear_part=(m, v))
    shifted = prediction_risk(W, B, "relu", lambda Z: np.tanh(Z[:, 0]) - m - 0.3 * Z[:, 0],
                              beta[:, None], n_test=500, rng=np.random.default_rng(6))
    np.testing.assert_allclose(rl, shifted, rtol=1e-10)
