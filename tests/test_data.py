"""helpers.data: the teacher, the samples and the student at initialisation (Assumption 1),
and the argument checks every public function shares."""

import math

import numpy as np
import pytest

from helpers._validation import check_finite, check_integer
from helpers.activations import as_teacher
from helpers.data import (
    init_student,
    normal_blocks,
    problem_sizes,
    sample_data,
    sample_teacher,
    teacher_labels,
)


def test_problem_sizes_round():
    assert problem_sizes(100, 2.5, 0.5) == (100, 250, 50)


def test_teacher_is_unit_norm(rng):
    assert np.linalg.norm(sample_teacher(50, rng=rng)) == pytest.approx(1.0)


def test_labels_follow_centred_teacher(rng):
    beta = sample_teacher(4, rng=rng)
    X, y = sample_data(6, beta, "relu", noise=0.0, rng=rng)
    np.testing.assert_allclose(y, np.maximum(X @ beta, 0) - 1 / math.sqrt(2 * math.pi))
    np.testing.assert_allclose(teacher_labels(X, beta, "relu"), y)


def test_the_noise_is_drawn_after_the_inputs(rng):
    beta = sample_teacher(5, rng=rng)
    X0, y0 = sample_data(8, beta, "tanh", noise=0.0, rng=np.random.default_rng(1))
    X1, y1 = sample_data(8, beta, "tanh", noise=0.3, rng=np.random.default_rng(1))
    np.testing.assert_array_equal(X0, X1)
    r = np.random.default_rng(1)
    r.standard_normal((8, 5))
    np.testing.assert_allclose(y1 - y0, 0.3 * r.standard_normal(8))


def test_initialisation_scalings():
    rng = np.random.default_rng(1)
    W0, a = init_student(400, 300, rng=rng)
    # Var[W] = 1/d, Var[a] = 1/N; 5 standard errors of a variance estimate of m samples
    # is 5 * sqrt(2/m) in relative terms.
    assert W0.var() * 400 == pytest.approx(1.0, abs=5 * math.sqrt(2 / W0.size))
    assert a.var() * 300 == pytest.approx(1.0, abs=5 * math.sqrt(2 / a.size))


def test_rademacher_second_layer_takes_the_signs_of_the_gaussian_draw():
    W0, a = init_student(6, 50, rng=np.random.default_rng(3))
    W0r, ar = init_student(6, 50, rng=np.random.default_rng(3), second_layer="rademacher")
    np.testing.assert_array_equal(W0, W0r)
    np.testing.assert_array_equal(ar, np.sign(a) / np.sqrt(50))


@pytest.mark.parametrize("block", [1, 3, 7, 100])
def test_normal_blocks_are_the_rows_of_one_draw(block):
    blocks = list(normal_blocks(np.random.default_rng(0), 10, 4, block=block))
    assert max(len(b) for b in blocks) == min(block, 10)
    np.testing.assert_array_equal(np.vstack(blocks),
                                  np.random.default_rng(0).standard_normal((10, 4)))


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


def test_as_teacher_centres():
    assert as_teacher("softplus").mu0 == 0.0


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
        (lambda r: teacher_labels(np.ones((4, 3)), np.ones(2), "tanh"), "beta must have shape"),
        (lambda r: init_student(3, 0, rng=r), "width must be a positive integer"),
        (lambda r: init_student(3, 2, rng=r, second_layer="uniform"), "second_layer must be"),
        (lambda r: list(normal_blocks(r, 3, 2, block=0)), "block must be a positive integer"),
    ],
)
def test_validation_errors(rng, call, match):
    with pytest.raises(ValueError, match=match):
        call(rng)


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
