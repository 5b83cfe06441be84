"""k-index teachers, several steps on fresh batches and the overlaps (helpers.multi_index)."""

import math

import numpy as np
import pytest

from helpers import features, first_step_gradient, get_activation, init_student, ridge_path
from helpers import multi_index as mi
from helpers.data import sample_data, spawn_streams
from helpers.first_step import empirical_loss, run_first_step
from helpers.multi_index import (
    direction_overlaps,
    first_step_problem,
    gradient_steps,
    hermite_alignment,
    remove_linear_part,
    sample_directions,
    single_index,
    subspace_overlap,
)
from helpers.risk import prediction_risk


def _staircase(Z):
    return Z[:, 0] + Z[:, 0] * Z[:, 1]


def test_directions_are_orthonormal():
    B = sample_directions(20, 3, rng=np.random.default_rng(0))
    assert B.shape == (20, 3)
    np.testing.assert_allclose(B.T @ B, np.eye(3), atol=1e-12)


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


def test_one_step_of_a_linear_student_by_hand():
    # sigma(z) = z: f(x) = a^T W^T x / sqrt(N), so G = X^T (y - f) a^T / (n sqrt(N)).
    rng = np.random.default_rng(3)
    d, N, n, eta = 5, 3, 40, 0.7
    B = sample_directions(d, 2, rng=rng)
    W0, a = init_student(d, N, rng=rng, second_layer="rademacher")
    steps = gradient_steps(W0, a, "linear", B, _staircase, n=n, steps=1, eta=eta,
                           rng=np.random.default_rng(9))
    X, y = sample_data(n, B, _staircase, rng=np.random.default_rng(9))
    r = y - X @ W0 @ a / math.sqrt(N)
    W1 = W0 + eta * math.sqrt(N) * np.outer(X.T @ r, a) / (n * math.sqrt(N))
    np.testing.assert_allclose(steps[1], W1, atol=1e-12)
    np.testing.assert_array_equal(steps[0], W0)


def test_zero_step_size_changes_nothing_and_normalisation_gives_unit_neurons():
    rng = np.random.default_rng(4)
    B = sample_directions(8, 2, rng=rng)
    W0 = rng.standard_normal((8, 5))
    a = init_student(8, 5, rng=rng)[1]
    Ws = gradient_steps(W0, a, "relu", B, _staircase, n=20, steps=3, eta=0.0, rng=rng)
    assert len(Ws) == 4 and all(np.array_equal(W, W0) for W in Ws)
    Ws = gradient_steps(W0, a, "relu", B, _staircase, n=20, steps=2, eta=3.0,
                        normalize=True, linear_removed=True, rng=rng)
    np.testing.assert_allclose(np.linalg.norm(Ws[-1], axis=0), 1.0)


def test_several_steps_are_the_core_step_on_fresh_batches():
    # Two steps by hand with the core helpers (sample_data, first_step_gradient and the
    # step W + eta sqrt(N) G) on the same stream give the same W_1 and W_2.
    rng = np.random.default_rng(5)
    d, N, n, eta = 6, 4, 25, 1.3
    B = sample_directions(d, 2, rng=rng)
    W0, a = init_student(d, N, rng=rng, second_layer="rademacher")
    Ws = gradient_steps(W0, a, "tanh", B, _staircase, n=n, steps=2, eta=eta, noise=0.2,
                        rng=np.random.default_rng(11))
    r, W = np.random.default_rng(11), W0
    for t in (1, 2):
        X, y = sample_data(n, B, _staircase, noise=0.2, rng=r)
        W = W + eta * math.sqrt(N) * first_step_gradient(X, y, W, a, "tanh")
        np.testing.assert_allclose(Ws[t], W, atol=1e-12)


def test_overlaps_known_answers():
    B = np.eye(4)[:, :2]
    W = np.stack([np.eye(4)[0], 2 * np.eye(4)[1], np.eye(4)[2], np.eye(4)[3]], axis=1)
    # cos^2 with theta_1: (1, 0, 0, 0); with theta_2: (0, 1, 0, 0)  -> RMS 1/2 each.
    np.testing.assert_allclose(direction_overlaps(W, B), [0.5, 0.5])
    assert subspace_overlap(W, B) == pytest.approx(0.5)
    assert subspace_overlap(B, B) == pytest.approx(1.0)


def test_random_neurons_have_overlap_about_one_over_sqrt_d():
    rng = np.random.default_rng(6)
    d, N = 400, 2000
    B = sample_directions(d, 2, rng=rng)
    m = direction_overlaps(rng.standard_normal((d, N)), B)
    # m^2 is a mean of N cos^2 with mean 1/d and sd ~ sqrt(2)/d: 5 se = 5 sqrt(2/N)/d.
    np.testing.assert_allclose(m**2, 1 / d, atol=5 * math.sqrt(2 / N) / d)


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


def test_hermite_alignment_known_answers():
    t = np.random.default_rng(9).standard_normal(300)
    h2 = t**2 - 1
    U = (h2 / np.linalg.norm(h2))[:, None]
    al = hermite_alignment(U, t, [1, 2])
    assert al[1] == pytest.approx(1.0)
    assert al[0] < 0.05  # He_1 and He_2 are orthogonal in L2; sample overlap ~ 1/n
    full = np.linalg.qr(np.column_stack([t, h2, t**3 - 3 * t]))[0]
    np.testing.assert_allclose(hermite_alignment(full, t, [1, 2, 3]), 1.0)


def test_errors_name_the_parameter():
    rng = np.random.default_rng(10)
    B = sample_directions(4, 2, rng=rng)
    with pytest.raises(ValueError, match="k must be at most d"):
        sample_directions(3, 4, rng=rng)
    with pytest.raises(ValueError, match="g must be a callable"):
        gradient_steps(np.ones((4, 2)), np.ones(2), "relu", B, 3.0, n=5, steps=1, eta=1.0,
                       rng=rng)
    with pytest.raises(ValueError, match="teacher must map"):
        gradient_steps(np.ones((4, 2)), np.ones(2), "relu", B, lambda Z: Z, n=5, steps=1,
                       eta=1.0, rng=rng)
    with pytest.raises(ValueError, match="steps must be"):
        gradient_steps(np.ones((4, 2)), np.ones(2), "relu", B, _staircase, n=5, steps=0,
                       eta=1.0, rng=rng)
    with pytest.raises(ValueError, match="eta must be"):
        gradient_steps(np.ones((4, 2)), np.ones(2), "relu", B, _staircase, n=5, steps=1,
                       eta=-1.0, rng=rng)
    with pytest.raises(ValueError, match="zero column"):
        direction_overlaps(np.zeros((4, 2)), B)
    with pytest.raises(ValueError, match="degrees must be"):
        hermite_alignment(np.ones((3, 1)), np.ones(3), [0])
    with pytest.raises(ValueError, match="B has shape"):
        subspace_overlap(np.ones((5, 2)), B)
    with pytest.raises(ValueError, match="rng must be"):
        gradient_steps(np.ones((4, 2)), np.ones(2), "relu", B, _staircase, n=5, steps=1,
                       eta=1.0, rng=0)
    assert get_activation("relu").mu1 == pytest.approx(0.5)


def test_single_index_link_reads_the_first_projection():
    g = single_index(np.tanh)
    Z = np.array([[0.5, 9.0], [-1.0, 3.0]])
    np.testing.assert_allclose(g(Z), np.tanh([0.5, -1.0]))
    with pytest.raises(ValueError, match="g must be a callable"):
        single_index("tanh")


def _problem_streams(seed):
    return spawn_streams(seed, ("teacher", "init", "step"))


def test_first_step_problem_is_the_core_lines_on_named_streams():
    # Each stage from its own stream, and the step of eq. (2.1) written out in NumPy.
    d, n, N, k, eta = 7, 40, 5, 2, 0.7
    fs = first_step_problem(d, n, N, _staircase, k=k, eta=eta, noise=0.1,
                            streams=_problem_streams(3))
    ref = _problem_streams(3)
    B = sample_directions(d, k, rng=ref["teacher"])
    W0, a = init_student(d, N, rng=ref["init"])
    X, y = sample_data(n, B, _staircase, noise=0.1, rng=ref["step"])
    for got, want in ((fs.beta, B), (fs.W0, W0), (fs.a, a), (fs.X, X), (fs.y, y)):
        np.testing.assert_array_equal(got, want)
    pre = X @ W0                                          # (n, N)
    residual = y - np.maximum(pre, 0) @ a / math.sqrt(N)  # y - f(x)
    G0 = X.T @ ((residual / math.sqrt(N))[:, None] * a[None, :] * (pre > 0)) / n
    np.testing.assert_allclose(fs.G0, G0, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(fs.W1, W0 + eta * math.sqrt(N) * G0, rtol=1e-12, atol=1e-15)
    assert fs.eta == eta and fs.shape == (d, n, N)


def test_first_step_problem_one_index_matches_run_first_step():
    # k = 1: the same teacher, student and batch as the core runner for the same seed.
    d, psi1, psi2 = 12, 3, 2
    core = run_first_step("relu", "tanh", d=d, psi1=psi1, psi2=psi2, eta=1.0, seed=5)
    fs = first_step_problem(d, psi1 * d, psi2 * d, single_index(np.tanh), eta=1.0,
                            streams=spawn_streams(5))
    np.testing.assert_allclose(fs.beta[:, 0], core.beta, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(fs.W0, core.W0)
    np.testing.assert_array_equal(fs.a, core.a)
    np.testing.assert_array_equal(fs.X, core.X)
    np.testing.assert_allclose(fs.y, core.y, rtol=1e-12, atol=1e-15)  # tanh is centred
    np.testing.assert_allclose(fs.W1, core.W1, rtol=1e-10, atol=1e-12)


def test_first_step_problem_rademacher_layer_zero_step_and_further_batches():
    streams = _problem_streams(8)
    fs = first_step_problem(6, 10, 4, _staircase, k=2, eta=0.0, second_layer="rademacher",
                            streams=streams)
    np.testing.assert_allclose(np.abs(fs.a), 0.5)  # +-1/sqrt(N)
    np.testing.assert_array_equal(fs.W1, fs.W0)     # eta = 0: no step, G0 still computed
    assert np.abs(fs.G0).max() > 0
    X_next, _ = sample_data(10, fs.beta, _staircase, rng=streams["step"])
    assert not np.allclose(X_next, fs.X)            # the step stream has moved on
    again = first_step_problem(6, 10, 4, _staircase, k=2, eta=0.0, second_layer="rademacher",
                               streams=_problem_streams(8))
    np.testing.assert_array_equal(again.G0, fs.G0)  # same seed, same problem


def test_first_step_problem_errors_name_the_parameter():
    s = _problem_streams(0)
    cases = [(dict(d=0), "d must be"), (dict(n=2.5), "n must be"), (dict(N=-1), "N must be"),
             (dict(k=0), "k must be"), (dict(k=9), "k must be at most d"),
             (dict(g="tanh"), "g must be a callable"), (dict(eta=-1.0), "eta must be"),
             (dict(second_layer="uniform"), "second_layer"),
             (dict(streams={"teacher": s["teacher"], "init": s["init"]}), "streams must map"),
             (dict(streams=np.random.default_rng(0)), "streams must map")]
    for change, message in cases:
        args = dict(d=5, n=8, N=3, g=_staircase, k=2, eta=1.0, streams=_problem_streams(0))
        args.update(change)
        with pytest.raises(ValueError, match=message):
            first_step_problem(args.pop("d"), args.pop("n"), args.pop("N"), args.pop("g"),
                               **args)


def test_named_links_are_their_formulas():
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((50, 3))
    z1, z2, z3 = Z.T
    np.testing.assert_array_equal(mi.product(Z[:, :2]), z1 * z2)
    np.testing.assert_allclose(mi.product(Z), z1 * z2 * z3, rtol=1e-15)
    np.testing.assert_array_equal(mi.parity(Z), np.sign(z1 * z2 * z3))
    np.testing.assert_array_equal(mi.staircase(Z[:, :2]), z1 + z1 * z2)
    np.testing.assert_array_equal(mi.staircase(Z), z1 + z1 * z2 + z2 * z3)
    for link in (mi.product, mi.parity, mi.staircase):
        with pytest.raises(ValueError, match="k >= 2"):
            link(Z[:, :1])
        with pytest.raises(ValueError, match="Z must be"):
            link(z1)
