"""The fast paths of the simulation core agree with plain reference computations."""

import numpy as np
import pytest

from helpers import run, simulate_one_step, stream
from helpers.activations import as_student, as_teacher
from helpers.data import sample_data
from helpers.ridge import _shifted_solves, ridge_path
from helpers.risk import prediction_risk

LAMBDAS = np.array([1e-4, 1e-2, 0.3, 5.0])


def _ridge_path_eigh(F, y, lambdas):
    """Reference: ridge by a full eigendecomposition of F^T F / n (or F F^T / n)."""
    lam = np.atleast_1d(lambdas)
    n, N = F.shape
    if N <= n:
        s, V = np.linalg.eigh(F.T @ F / n)
        return V @ ((V.T @ (F.T @ y / n))[:, None] / (s[:, None] + lam[None, :]))
    s, U = np.linalg.eigh(F @ F.T / n)
    return F.T @ (U @ ((U.T @ y)[:, None] / (s[:, None] + lam[None, :]))) / n


@pytest.mark.parametrize(("n", "N"), [(60, 25), (25, 60), (30, 30), (7, 1), (1, 5), (2, 2)])
def test_one_reduction_matches_full_eigendecomposition(n, N):
    rng = np.random.default_rng(n * 100 + N)
    F = np.tanh(rng.standard_normal((n, N)) + 0.3)
    y = rng.standard_normal(n)
    B = ridge_path(F, y, LAMBDAS)
    np.testing.assert_allclose(B, _ridge_path_eigh(F, y, LAMBDAS), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(("n", "N"), [(80, 30), (30, 80)])
def test_ridge_path_matches_scikit_learn(n, N):
    sklearn = pytest.importorskip("sklearn.linear_model")
    rng = np.random.default_rng(5)
    F = rng.standard_normal((n, N))
    y = rng.standard_normal(n)
    B = ridge_path(F, y, LAMBDAS)
    for l, lam in enumerate(LAMBDAS):
        coef = sklearn.Ridge(alpha=n * lam, fit_intercept=False).fit(F, y).coef_
        np.testing.assert_allclose(B[:, l], coef, rtol=1e-7, atol=1e-10)


def test_fast_run_matches_the_scikit_learn_baseline():
    # The whole pipeline on a small case: our risks equal those of scikit-learn's Ridge fitted
    # once per lambda on the same features and test points (floating-point tolerance).
    sklearn = pytest.importorskip("sklearn.linear_model")
    kw = dict(d=24, psi1=3.0, psi2=2.0, eta=1.0, noise=0.25)
    res = simulate_one_step("tanh", "softplus", lam=LAMBDAS, seed=11, n_test=700, **kw)
    Xr, yr = sample_data(res.n, res.beta, as_teacher("softplus"), noise=0.25,
                         rng=stream(11, "ridge"))
    F = as_student("tanh")(Xr @ res.W1)
    Xt = stream(11, "test").standard_normal((700, res.d))
    Ft, target = np.tanh(Xt @ res.W1), as_teacher("softplus")(Xt @ res.beta)
    for l, lam in enumerate(LAMBDAS):
        model = sklearn.Ridge(alpha=res.n * lam, fit_intercept=False).fit(F, yr)
        np.testing.assert_allclose(res.risk[l], np.mean((model.predict(Ft) - target) ** 2),
                                   rtol=1e-8)
    # the fast path of several step sizes (X W0 and X G0 kept) gives the same risks
    rows = run(student="tanh", teacher="softplus", lam=LAMBDAS, seed=11, n_test=700,
               **{**kw, "eta": [0.0, 1.0]})
    np.testing.assert_allclose([r["risk"] for r in rows if r["eta"] == 1.0], res.risk,
                               rtol=1e-8)


def test_shifted_solves_fall_back_when_not_positive_definite():
    # S + lam I indefinite but invertible: the Cholesky-type tridiagonal solve fails, the
    # pivoted LU fallback still returns the exact solution.
    rng = np.random.default_rng(0)
    Q = np.linalg.qr(rng.standard_normal((6, 6)))[0]
    S = Q @ np.diag([-2.0, -0.5, 0.5, 1.0, 2.0, 3.0]) @ Q.T
    r = rng.standard_normal(6)
    lam = np.array([0.1, 1.0])
    X = _shifted_solves(S.copy(), r, lam)
    for l, v in enumerate(lam):
        np.testing.assert_allclose(X[:, l], np.linalg.solve(S + v * np.eye(6), r), rtol=1e-9)


def test_shifted_solves_report_a_singular_system():
    S = np.diag([-1.0, 2.0, 3.0])
    with pytest.raises(np.linalg.LinAlgError, match="singular at lam=1.0"):
        _shifted_solves(S, np.ones(3), np.array([1.0]))


def test_float32_test_features_change_the_risk_far_below_its_standard_error():
    rng = np.random.default_rng(1)
    W = rng.standard_normal((30, 50)) / np.sqrt(30)
    B = rng.standard_normal((50, 3)) / 50
    beta = np.eye(30)[0]
    r64, se = prediction_risk(W, B, "tanh", "relu", beta, n_test=2000,
                              rng=np.random.default_rng(2))
    r32, _ = prediction_risk(W, B, "tanh", "relu", beta, n_test=2000,
                             rng=np.random.default_rng(2), dtype=np.float32)
    # same test points; float32 rounding (~1e-7 relative) is tiny against the MC error
    assert np.all(np.abs(r32 - r64) < 1e-3 * se)


def test_bad_precision_and_dtype_raise():
    with pytest.raises(ValueError, match="precision must be one of"):
        simulate_one_step("tanh", "tanh", d=10, psi1=1, psi2=1, lam=1e-2, eta=1.0,
                          precision="half")
    with pytest.raises(ValueError, match="dtype must be one of"):
        prediction_risk(np.ones((2, 3)), np.ones(3), "tanh", "tanh", np.ones(2), n_test=5,
                        rng=np.random.default_rng(0), dtype=np.int64)


@pytest.mark.parametrize(("n", "N"), [(60, 25), (25, 60)])
@pytest.mark.parametrize("lams", [[0.3], [1e-3, 2.0], [1e-3, 0.1, 2.0]])
def test_few_penalties_cholesky_path_matches_eigh(n, N, lams):
    # <= CHOLESKY_MAX_PENALTIES penalties take one Cholesky each, more take the reduction:
    # both must agree with the eigendecomposition reference.
    rng = np.random.default_rng(7)
    F, y = np.tanh(rng.standard_normal((n, N))), rng.standard_normal(n)
    np.testing.assert_allclose(ridge_path(F, y, lams), _ridge_path_eigh(F, y, lams),
                               rtol=1e-7, atol=1e-10)


def test_cholesky_failure_on_a_later_penalty_falls_back_cleanly():
    # S + 5 I is positive definite, S + 0.1 I is not: the Cholesky path gives up after the
    # first penalty and the tridiagonal path must still see the original S.
    rng = np.random.default_rng(2)
    Q = np.linalg.qr(rng.standard_normal((5, 5)))[0]
    S = Q @ np.diag([-1.0, 0.5, 1.0, 2.0, 3.0]) @ Q.T
    r = rng.standard_normal(5)
    lam = np.array([5.0, 0.1])
    X = _shifted_solves(S.copy(), r, lam)
    for l, v in enumerate(lam):
        np.testing.assert_allclose(X[:, l], np.linalg.solve(S + v * np.eye(5), r), rtol=1e-9)
