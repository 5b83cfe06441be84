"""Ridge over a grid of penalties and the Monte-Carlo prediction risk."""

import math

import numpy as np
import pytest

from helpers._validation import check_lambdas
from helpers.ridge import ridge_path
from helpers.risk import prediction_risk, risk_from_errors

LAMBDAS = [1e-4, 1e-2, 0.3, 5.0]


@pytest.mark.parametrize(("n", "N"), [(40, 15), (15, 40), (20, 20)])
def test_ridge_path_solves_the_normal_equations(rng, n, N):
    F = rng.standard_normal((n, N))
    y = rng.standard_normal(n)
    B = ridge_path(F, y, LAMBDAS)
    assert B.shape == (N, len(LAMBDAS))
    for l, lam in enumerate(LAMBDAS):
        b = np.linalg.solve(F.T @ F / n + lam * np.eye(N), F.T @ y / n)
        np.testing.assert_allclose(B[:, l], b, rtol=1e-8, atol=1e-10)


def test_ridge_matches_the_papers_scaling(rng):
    # Paper: a = argmin (1/n)||y - Phi a||^2 + (lam/N)||a||^2 with Phi = F/sqrt(N); b = a/sqrt(N).
    n, N, lam = 30, 12, 0.05
    F = rng.standard_normal((n, N))
    y = rng.standard_normal(n)
    Phi = F / math.sqrt(N)
    a = np.linalg.solve(Phi.T @ Phi / n + lam / N * np.eye(N), Phi.T @ y / n)
    np.testing.assert_allclose(ridge_path(F, y, lam)[:, 0], a / math.sqrt(N), rtol=1e-9)


def test_ridge_tends_to_least_squares(rng):
    F = rng.standard_normal((50, 10))
    y = rng.standard_normal(50)
    ls = np.linalg.lstsq(F, y, rcond=None)[0]
    np.testing.assert_allclose(ridge_path(F, y, 1e-12)[:, 0], ls, rtol=1e-8)


def test_prediction_risk_of_exact_fit_is_zero(rng):
    # A linear student with W = beta and b = 1 reproduces a linear teacher exactly.
    beta = np.array([0.6, 0.8, 0.0])
    risk, se = prediction_risk(beta[:, None], np.ones((1, 1)), "linear", "linear", beta,
                               n_test=1000, rng=rng)
    assert risk[0] == pytest.approx(0.0, abs=1e-24) and se[0] == pytest.approx(0.0, abs=1e-24)


def test_prediction_risk_of_zero_predictor_is_teacher_norm(rng):
    # b = 0 gives E sigma*(z)^2 = mu1*^2 + mu2*^2 for a centred teacher; tolerance 5 se.
    from helpers.activations import as_teacher

    beta = np.array([1.0, 0.0])
    risk, se = prediction_risk(np.ones((2, 3)), np.zeros(3), "tanh", "relu", beta,
                               n_test=20000, rng=rng, chunk=3000)
    assert abs(risk[0] - as_teacher("relu").second_moment) < 5 * se[0]


def test_prediction_risk_is_independent_of_chunking():
    # Blocks of 999 (one block), 100 and 7 rows are the same test points: the risk and its
    # standard error agree to rounding, and equal a direct computation on one draw.
    W = np.random.default_rng(0).standard_normal((4, 6)) / 2
    B = np.random.default_rng(1).standard_normal((6, 2))
    beta = np.array([1.0, 0, 0, 0])
    out = [prediction_risk(W, B, "tanh", "tanh", beta, n_test=999,
                           rng=np.random.default_rng(2), chunk=c) for c in (999, 100, 7)]
    for risk, se in out[1:]:
        np.testing.assert_allclose(risk, out[0][0], rtol=1e-12)
        np.testing.assert_allclose(se, out[0][1], rtol=1e-9)
    from helpers.activations import as_teacher

    X = np.random.default_rng(2).standard_normal((999, 4))
    direct = np.mean((np.tanh(X @ W) @ B - as_teacher("tanh")(X @ beta)[:, None]) ** 2, axis=0)
    np.testing.assert_allclose(out[0][0], direct, rtol=1e-12)


def test_risk_from_errors_mean_and_standard_error_in_blocks():
    # The mean of e^2 and sqrt(var(e^2)/m), whether the rows come at once or in blocks, for
    # any trailing shape (one column per model).
    e = np.random.default_rng(3).standard_normal((301, 2, 3))
    risk, se = risk_from_errors(e)
    np.testing.assert_allclose(risk, np.mean(e**2, axis=0), rtol=1e-13)
    np.testing.assert_allclose(se, np.std(e**2, axis=0, ddof=1) / math.sqrt(301), rtol=1e-10)
    blocks = risk_from_errors(e[i:i + 50] for i in range(0, 301, 50))
    np.testing.assert_allclose(blocks[0], risk, rtol=1e-13)
    np.testing.assert_allclose(blocks[1], se, rtol=1e-10)
    with pytest.raises(ValueError, match="errors must hold at least one test point"):
        risk_from_errors(iter([]))


@pytest.mark.parametrize("bad", [0.0, -1.0, [1.0, -2.0], float("inf"), [], [[1.0]]])
def test_lambdas_must_be_positive(bad):
    with pytest.raises(ValueError, match="lam must be"):
        check_lambdas(bad)


def test_shape_mismatch_raises(rng):
    with pytest.raises(ValueError, match=r"y has shape"):
        ridge_path(np.ones((5, 3)), np.ones(4), 1.0)
    with pytest.raises(ValueError, match=r"B has shape"):
        prediction_risk(np.ones((2, 3)), np.ones((4, 1)), "tanh", "tanh", np.ones(2),
                        n_test=10, rng=rng)
    with pytest.raises(ValueError, match=r"beta must have shape \(d,\) or \(d, k\) with d = 2"):
        prediction_risk(np.ones((2, 3)), np.ones(3), "tanh", "tanh", np.ones(3),
                        n_test=10, rng=rng)
    with pytest.raises(ValueError, match="n_test must be a positive integer"):
        prediction_risk(np.ones((2, 3)), np.ones(3), "tanh", "tanh", np.ones(2),
                        n_test=0, rng=rng)
