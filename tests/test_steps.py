"""helpers.steps: the first gradient step (eq. 2.1) and further steps on fresh or reused
batches."""

import math

import numpy as np
import pytest

from helpers import get_activation
from helpers.data import init_student, sample_data, sample_teacher
from helpers.feature_maps import features
from helpers.steps import (
    empirical_loss,
    first_step_gradient,
    one_step,
    steps_on_batches,
    student_output,
)
from helpers.teachers import sample_directions


def _small_problem(rng, student="tanh", d=7, n=11, N=5):
    beta = sample_teacher(d, rng=rng)
    X, y = sample_data(n, beta, "softplus", noise=0.1, rng=rng)
    W0, a = init_student(d, N, rng=rng)
    return X, y, W0, a


def he3(Z):
    return Z[:, 0] ** 3 - 3 * Z[:, 0]


def _two_batches(seed=0, d=12, n=30, N=8):
    rng = np.random.default_rng(seed)
    B = sample_directions(d, 1, rng=rng)
    W0, a = init_student(d, N, rng=rng, second_layer="rademacher")
    X, X2 = rng.standard_normal((2, n, d))
    return W0, a, X, he3(X @ B), X2, he3(X2 @ B)


# --------------------------------------------------------------------------- the first step
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


def test_step_without_initial_output_is_the_residual_y():
    """first_step_gradient(..., initial_output=False) is eq. (2.1) with f0 replaced by 0."""
    rng = np.random.default_rng(5)
    X, y = rng.standard_normal((20, 6)), rng.standard_normal(20)
    W, a = rng.standard_normal((6, 4)) / math.sqrt(6), rng.standard_normal(4) / 2.0
    G = first_step_gradient(X, y, W, a, "tanh", initial_output=False)
    slope = 1.0 / np.cosh(X @ W) ** 2
    want = X.T @ ((y / 2.0)[:, None] * a[None, :] * slope) / 20
    np.testing.assert_allclose(G, want, rtol=1e-12)
    assert not np.allclose(G, first_step_gradient(X, y, W, a, "tanh"))


def test_even_student_gradient_by_hand():
    # quadratic student sigma(z) = z^2 - 1 (centred), sigma' = 2z:
    # G0 = (2 / (n sqrt N)) X^T diag(r) X W0 diag(a), r the residuals.
    rng = np.random.default_rng(4)
    X, y, W0, a = _small_problem(rng, "quadratic", d=6, n=20, N=5)
    act = get_activation("quadratic")
    r = y - act(X @ W0) @ a / math.sqrt(5)
    expected = 2 * X.T @ (r[:, None] * X) @ W0 * a / (20 * math.sqrt(5))
    np.testing.assert_allclose(first_step_gradient(X, y, W0, a, "quadratic"), expected,
                               atol=1e-13)


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
    r = student_output(X, W0, a, "tanh") - y
    assert empirical_loss(X, y, W0, a, "tanh") == pytest.approx(0.5 * np.mean(r**2))


# --------------------------------------------------------------------------- several steps
def test_steps_on_batches_shapes_and_inputs_untouched():
    W0, a, X, y, X2, y2 = _two_batches()
    W0c = W0.copy()
    Ws = steps_on_batches(W0, a, "relu", [(X, y), (X2, y2), (X, y)], eta=0.5)
    assert len(Ws) == 4 and all(W.shape == W0.shape for W in Ws)
    np.testing.assert_array_equal(W0, W0c)
    np.testing.assert_array_equal(Ws[0], W0)
    assert Ws[0] is not W0


def test_two_steps_match_the_core_step_by_hand():
    W0, a, X, y, X2, y2 = _two_batches(1)
    _, W1, W2 = steps_on_batches(W0, a, "tanh", [(X, y), (X2, y2)], eta=[0.7, 0.3])
    W1h = one_step(W0, first_step_gradient(X, y, W0, a, "tanh"), 0.7)
    W2h = one_step(W1h, first_step_gradient(X2, y2, W1h, a, "tanh"), 0.3)
    np.testing.assert_allclose(W1, W1h, rtol=0, atol=1e-13)
    np.testing.assert_allclose(W2, W2h, rtol=0, atol=1e-13)


def test_one_step_of_a_linear_student_by_hand():
    # sigma(z) = z: f(x) = a^T W^T x / sqrt(N), so G = X^T (y - f) a^T / (n sqrt(N)).
    W0, a, X, y, _, _ = _two_batches(3, d=5, n=40, N=3)
    _, W1 = steps_on_batches(W0, a, "linear", [(X, y)], eta=0.7)
    r = y - X @ W0 @ a / math.sqrt(3)
    np.testing.assert_allclose(W1, W0 + 0.7 * math.sqrt(3) * np.outer(X.T @ r, a)
                               / (40 * math.sqrt(3)), atol=1e-12)


def test_reused_differs_from_fresh_only_through_the_batch():
    W0, a, X, y, X2, y2 = _two_batches(2)
    _, W1r, W2r = steps_on_batches(W0, a, "relu", [(X, y), (X, y)], eta=1.0)
    _, W1f, W2f = steps_on_batches(W0, a, "relu", [(X, y), (X2, y2)], eta=1.0)
    np.testing.assert_array_equal(W1r, W1f)  # same first step
    assert not np.allclose(W2r, W2f)


def test_zero_step_size_changes_nothing_and_normalisation_gives_unit_neurons():
    W0, a, X, y, X2, y2 = _two_batches(4)
    Ws = steps_on_batches(W0, a, "relu", [(X, y), (X2, y2), (X, y)], eta=0.0)
    assert len(Ws) == 4 and all(np.array_equal(W, W0) for W in Ws)
    Ws = steps_on_batches(W0, a, "relu", [(X, y), (X2, y2)], eta=3.0, normalize=True)
    for W in Ws[1:]:
        np.testing.assert_allclose(np.linalg.norm(W, axis=0), 1.0)


def test_steps_on_batches_reads_a_generator_one_batch_per_step_and_normalises():
    # Batches drawn on the fly: each is drawn after the step before it was taken.
    W0, a, X, y, X2, y2 = _two_batches(4)
    calls = []  # the student counts its calls: how many steps were taken when a batch came

    def relu(t):
        calls.append(1)
        return np.maximum(t, 0.0)

    student = get_activation(relu, derivative=lambda t: (t > 0).astype(float))
    calls.clear()  # (the activation is evaluated once when it is built)
    seen = []

    def batches():
        for pair in ((X, y), (X2, y2)):
            seen.append(len(calls))
            yield pair

    Ws = steps_on_batches(W0, a, student, batches(), eta=[0.5, 1.0], normalize=True)
    assert seen[0] == 0 < seen[1] and len(Ws) == 3
    W1 = one_step(W0, first_step_gradient(X, y, W0, a, "relu"), 0.5)
    W1 = W1 / np.linalg.norm(W1, axis=0)
    np.testing.assert_array_equal(Ws[1], W1)
    np.testing.assert_allclose(np.linalg.norm(Ws[2], axis=0), 1.0)


def test_bad_batches_raise():
    W0, a, X, y, X2, y2 = _two_batches()
    with pytest.raises(ValueError, match="batches must hold at least one"):
        steps_on_batches(W0, a, "relu", [], eta=1.0)
    with pytest.raises(ValueError, match="eta must be a number or one per batch"):
        steps_on_batches(W0, a, "relu", [(X, y)], eta=[1.0, 2.0])
    with pytest.raises(ValueError, match="eta must be a number or one per batch"):
        steps_on_batches(W0, a, "relu", [(X, y)] * 3, eta=[1.0, 2.0])
    with pytest.raises(ValueError, match="eta"):
        steps_on_batches(W0, a, "relu", [(X, y)], eta=-1.0)
    with pytest.raises(ValueError, match="X of batch 0"):
        steps_on_batches(W0, a, "relu", [(X[:, :3], y)], eta=1.0)
    with pytest.raises(ValueError, match="y of batch 1"):
        steps_on_batches(W0, a, "relu", [(X, y), (X2, y2[:3])], eta=1.0)


@pytest.mark.parametrize(("call", "match"), [
    (lambda: first_step_gradient(np.ones((4, 3)), np.ones(4), np.ones((2, 5)), np.ones(5),
                                 "tanh"), r"W has shape \(2, 5\)"),
    (lambda: first_step_gradient(np.ones((4, 3)), np.ones(4), np.ones((3, 5)), np.ones(4),
                                 "tanh"), r"a has shape \(4,\)"),
    (lambda: first_step_gradient(np.ones((4, 3)), np.ones(5), np.ones((3, 5)), np.ones(5),
                                 "tanh"), r"y has shape \(5,\)"),
    (lambda: first_step_gradient(np.ones(4), np.ones(4), np.ones((3, 5)), np.ones(5), "tanh"),
     "X must be a 2-d array"),
    (lambda: one_step(np.ones((3, 2)), np.ones((2, 3)), 1.0), r"G0 has shape"),
    (lambda: one_step(np.ones((3, 2)), np.ones((3, 2)), -1.0), "eta must be"),
    (lambda: features(np.ones((4, 3)), np.ones((2, 2)), "tanh"), "W has shape"),
    (lambda: student_output(np.ones((4, 3)), np.ones((3, 2)), np.ones(2), "tanhh"),
     "activation must be one of"),
])
def test_validation_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()
