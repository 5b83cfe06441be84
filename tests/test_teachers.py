"""helpers.teachers: k-index teachers g(B^T x), their links, and the labels' linear part."""

import math

import numpy as np
import pytest

from helpers import features, first_step_gradient, init_student, ridge_path
from helpers.data import sample_data
from helpers.risk import prediction_risk
from helpers.steps import empirical_loss
from helpers.teachers import (
    check_link,
    parity,
    product,
    remove_linear_part,
    sample_directions,
    single_index,
    staircase,
)


def _staircase(Z):
    return Z[:, 0] + Z[:, 0] * Z[:, 1]


def test_directions_are_orthonormal():
    B = sample_directions(20, 3, rng=np.random.default_rng(0))
    assert B.shape == (20, 3)
    np.testing.assert_allclose(B.T @ B, np.eye(3), atol=1e-12)
    one = sample_directions(20, 1, rng=np.random.default_rng(0))
    g = np.random.default_rng(0).standard_normal((20, 1))
    np.testing.assert_allclose(one, g / np.linalg.norm(g))   # k = 1: beta* = g / |g|


def test_directions_are_uniform():
    """The first direction of B is uniform on the sphere: E (B_11)^2 = 1/d, and the sign fix
    of the QR factors leaves each coordinate symmetric (means within 5 se of 0)."""
    d, k, m = 5, 3, 4000
    rng = np.random.default_rng(11)
    draws = np.array([sample_directions(d, k, rng=rng) for _ in range(m)])   # (m, d, k)
    sq = draws[:, 0, :] ** 2
    np.testing.assert_allclose(sq.mean(0), 1 / d, atol=5 * sq.std(0).max() / math.sqrt(m))
    np.testing.assert_allclose(draws[:, 0, :].mean(0), 0.0,
                               atol=5 * draws[:, 0, :].std(0).max() / math.sqrt(m))


def test_labels_are_the_link_of_the_projections():
    rng = np.random.default_rng(1)
    B = sample_directions(10, 2, rng=rng)
    X, y = sample_data(50, B, _staircase, rng=rng)
    Z = X @ B
    np.testing.assert_allclose(y, Z[:, 0] + Z[:, 0] * Z[:, 1])


@pytest.mark.parametrize("student", ["tanh", "erf", "softplus"])
def test_gradient_of_a_two_index_teacher_matches_finite_differences(student):
    # The student's first-layer gradient with labels from a 2-index teacher, against
    # central differences of the loss (epsilon 1e-6; smooth students, error ~ eps^2).
    rng = np.random.default_rng(2)
    d, N, n = 6, 4, 30
    B = sample_directions(d, 2, rng=rng)
    X, y = sample_data(n, B, _staircase, noise=0.1, rng=rng)
    W, a = init_student(d, N, rng=rng)
    G = first_step_gradient(X, y, W, a, student)  # the NEGATIVE gradient
    eps, num = 1e-6, np.empty_like(W)
    for i in range(d):
        for j in range(N):
            E = np.zeros_like(W)
            E[i, j] = eps
            num[i, j] = (empirical_loss(X, y, W + E, a, student)
                         - empirical_loss(X, y, W - E, a, student)) / (2 * eps)
    np.testing.assert_allclose(G, -num, rtol=1e-6, atol=1e-9)


def test_remove_linear_part_known_answer():
    # Columns orthogonal to each other and to the constant: the fit is exact.
    rng = np.random.default_rng(7)
    n = 32
    Q, _ = np.linalg.qr(np.column_stack([np.ones(n), rng.standard_normal((n, 3))]))
    X = math.sqrt(n) * Q[:, 1:]
    c = np.array([0.5, -1.0, 2.0])
    rest, mean, b = remove_linear_part(X, X @ c + 3.0)
    assert mean == pytest.approx(3.0)
    np.testing.assert_allclose(b, c, atol=1e-12)
    np.testing.assert_allclose(rest, 0.0, atol=1e-12)


def test_readout_of_a_linear_teacher_on_its_own_directions_is_exact():
    # The core readout (ridge_path on fresh data, prediction_risk with a (d, k) teacher)
    # on the k-index path: features sigma(B^T x) = B^T x fit g exactly.
    rng = np.random.default_rng(8)
    d = 10
    B = sample_directions(d, 2, rng=rng)

    def g(Z):
        return 2 * Z[:, 0] - Z[:, 1]

    X, y = sample_data(200, B, g, rng=rng)
    coef = ridge_path(features(X, B, "linear"), y, [1e-10])
    risk, se = prediction_risk(B, coef, "linear", g, B, n_test=500, rng=rng)
    assert risk[0] < 1e-12 and se[0] < 1e-12
    # Removing the linear part first leaves nothing to fit: the prediction is the fit.
    X, y = sample_data(20_000, B, g, rng=rng)
    rest, mean, b = remove_linear_part(X, y)
    coef = ridge_path(features(X, B, "relu"), rest, [1e-3])
    risk, _ = prediction_risk(B, coef, "relu", g, B, n_test=2000, rng=rng,
                              linear_part=(mean, b))
    assert risk[0] < 0.01  # error of the empirical linear fit ~ d/n = 5e-4


def test_named_links_are_their_formulas():
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((50, 3))
    z1, z2, z3 = Z.T
    np.testing.assert_array_equal(product(Z[:, :2]), z1 * z2)
    np.testing.assert_allclose(product(Z), z1 * z2 * z3, rtol=1e-15)
    np.testing.assert_array_equal(parity(Z), np.sign(z1 * z2 * z3))
    np.testing.assert_array_equal(staircase(Z[:, :2]), z1 + z1 * z2)
    np.testing.assert_array_equal(staircase(Z), z1 + z1 * z2 + z2 * z3)
    for link in (product, parity, staircase):
        with pytest.raises(ValueError, match="k >= 2"):
            link(Z[:, :1])
        with pytest.raises(ValueError, match="Z must be"):
            link(z1)


def test_single_index_link_reads_the_first_projection():
    g = single_index(np.tanh)
    Z = np.array([[0.5, 9.0], [-1.0, 3.0]])
    np.testing.assert_allclose(g(Z), np.tanh([0.5, -1.0]))
    assert g.__name__ == "single_index(tanh)"
    assert check_link(np.tanh) is np.tanh
    for bad in ("tanh", 3.0):
        with pytest.raises(ValueError, match="teacher must be a callable"):
            single_index(bad)


@pytest.mark.parametrize(("call", "match"), [
    (lambda r: sample_directions(3, 4, rng=r), "k must be at most d"),
    (lambda r: sample_directions(0, 1, rng=r), "d must be a positive integer"),
    (lambda r: sample_directions(4, 0, rng=r), "k must be a positive integer"),
    (lambda r: sample_directions(4, 2, rng=0), "rng must be a numpy.random.Generator"),
    (lambda r: remove_linear_part(np.ones((4, 2)), np.ones(3)), "y has shape"),
    (lambda r: remove_linear_part(np.ones(4), np.ones(4)), "X must be a 2-d array"),
])
def test_errors_name_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call(np.random.default_rng(10))
